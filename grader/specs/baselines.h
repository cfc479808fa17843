/**
 * @file baselines.h
 * @brief Small GPU helpers that the library baselines need around the
 *        library call (what a framework would launch beside it).
 */
#ifndef CL_BASELINES_H
#define CL_BASELINES_H

#include <cuda_runtime_api.h>

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Left-pad each of @p rows rows of @p T floats with @p pad zeros:
 * xp is (rows, T + pad). This is F.pad(x, (pad, 0)) before a causal conv.
 */
void cl_pad_left(const float *x, float *xp, long long rows, int T, int pad,
                 cudaStream_t s);

struct cudnnContext;

/** cuDNN's elementwise add of Lab 1 (cudnnOpTensor, ADD). */
struct cl_cudnn_add;

/** c = a + b over @p n floats (device pointers), through cudnnOpTensor
 *  in FP32; fatal when cuDNN refuses the descriptors. */
struct cl_cudnn_add *cl_cudnn_add_create(int n, const float *a, const float *b,
                                         float *c);

/** One add on @p s; 0 or cuDNN's status. */
int cl_cudnn_add_run(struct cl_cudnn_add *o, cudaStream_t s);

/** Free it (NULL is fine). */
void cl_cudnn_add_destroy(struct cl_cudnn_add *o);

/** cuDNN's convolution of Lab 2, its algorithm found once. */
struct cl_cudnn_conv;

/**
 * x (N, C, 1, Win) convolved with w (C, C / groups, 1, K), padding @p pad
 * on both sides of the width, into y (N, C, 1, Wout), FP32 with
 * CUDNN_FMA_MATH; the fastest true-FP32 algorithm on these buffers. NULL
 * with the reason in @p why when cuDNN has none.
 */
struct cl_cudnn_conv *cl_cudnn_conv_create(struct cudnnContext *h, int N, int C,
                                           int Win, int K, int pad, int groups,
                                           int Wout, const float *x,
                                           const float *w, float *y, char *why,
                                           size_t len);

/** "cuDNN conv algo N". */
const char *cl_cudnn_conv_name(const struct cl_cudnn_conv *d);

/** One convolution on @p s; 0 or cuDNN's status. */
int cl_cudnn_conv_run(struct cl_cudnn_conv *d, cudaStream_t s);

/** Free it (NULL is fine). */
void cl_cudnn_conv_destroy(struct cl_cudnn_conv *d);

struct adamw_tensor;
struct adamw_hparams;

/**
 * The per-tensor loop an unfused optimizer runs: one straightforward AdamW
 * kernel launch per non-empty tensor (Lab 4's baseline).
 */
void cl_adamw_per_tensor(const struct adamw_tensor *ts, int count,
                         const struct adamw_hparams *hp, cudaStream_t s);

struct gru_weights;
struct cudnnContext;

/** The cuDNN RNN algorithms the GRU baseline tries, in report order. */
enum cl_gru_algo {
    CL_GRU_STANDARD = 0,    /**< CUDNN_RNN_ALGO_STANDARD */
    CL_GRU_PERSIST_STATIC,  /**< CUDNN_RNN_ALGO_PERSIST_STATIC */
    CL_GRU_PERSIST_DYNAMIC, /**< CUDNN_RNN_ALGO_PERSIST_DYNAMIC (built for
                                the batch with cudnnBuildRNNDynamic) */
    CL_GRU_ALGOS
};

/** "standard", "persist-static", "persist-dynamic". */
const char *cl_gru_algo_name(int algo);

/** A cuDNN GRU (inference, FP32 data, CUDNN_FMA_MATH) with its weights
 *  packed once into cuDNN's weight space. */
struct cl_cudnn_gru;

/**
 * Build cuDNN's GRU for (T, B, I, H, L) with algorithm @p algo and pack the
 * weights of @p layers (device pointers, PyTorch layout) into it. Returns
 * NULL and says why in @p why when cuDNN does not support the algorithm for
 * this shape; any other cuDNN failure is fatal.
 */
struct cl_cudnn_gru *cl_cudnn_gru_create(struct cudnnContext *h, int algo,
                                         int T, int B, int I, int H, int L,
                                         const struct gru_weights *layers,
                                         char *why, size_t len);

/** Copy new values of the same weights (device pointers) into the GRU's
 *  weight space: the inputs of a case change on every call. */
void cl_cudnn_gru_repack(struct cl_cudnn_gru *g,
                         const struct gru_weights *layers);

/**
 * One forward pass: x (T, B, I), h0 (L, B, H) -> y (T, B, H), h_n (L, B, H).
 * Returns 0, or the cuDNN status when cuDNN refuses the call (an algorithm
 * it accepted but cannot run); the caller decides whether that is fatal.
 */
int cl_cudnn_gru_forward(struct cl_cudnn_gru *g, const float *x,
                         const float *h0, float *y, float *h_n, cudaStream_t s);

/** A cl_timed_fn shape for timing: the forward pass of the cl_cudnn_gru_call
 *  in @p ctx, fatal on error. */
struct cl_cudnn_gru_call {
    struct cl_cudnn_gru *g; /**< the GRU */
    const float *x;         /**< (T, B, I) */
    const float *h0;        /**< (L, B, H) */
    float *y;               /**< (T, B, H) */
    float *h_n;             /**< (L, B, H) */
};

/** Enqueue the call in @p ctx (a struct cl_cudnn_gru_call) on @p s. */
void cl_cudnn_gru_run(void *ctx, cudaStream_t s);

/** Free the GRU (NULL is fine). */
void cl_cudnn_gru_destroy(struct cl_cudnn_gru *g);

/** out[i] = table[idx[i]] for i < n: rows of @p width floats (an
 *  embedding lookup). */
void cl_gather_rows(const float *table, const int *idx, float *out, int n,
                    int width, cudaStream_t s);

/** Concatenate up to three row-major blocks of @p rows rows side by side:
 *  out (rows, w0 + w1 + w2) = [a0 | a1 | a2]; a part with width 0 is
 *  skipped. */
void cl_concat_rows(const float *a0, int w0, const float *a1, int w1,
                    const float *a2, int w2, float *out, int rows,
                    cudaStream_t s);

/** Every row of out (rows, n) = bias (n): the broadcast before an addmm. */
void cl_broadcast_rows(const float *bias, float *out, int rows, int n,
                       cudaStream_t s);

/** Per row of x (rows, n): the index of the largest value (the lowest on
 *  ties) into idx[row], its value into val[row] (val may be NULL), and into
 *  next[row] when next is not NULL. */
void cl_argmax_rows(const float *x, int rows, int n, int *idx, float *val,
                    int *next, cudaStream_t s);

struct seq2seq_model;

/** Lab 6's framework-style pipeline (pipeline.c). */
struct cl_pipeline;

/**
 * The greedy decode of @p m (device pointers) for src (S, B), writing the
 * tokens (T, B) and their logits (T, B) into @p tokens and @p chosen. NULL
 * with the reason in @p why when cuDNN refuses the shape.
 */
struct cl_pipeline *cl_pipeline_create(struct cudnnContext *dnn, void *blas,
                                       const struct seq2seq_model *m,
                                       const int *src, int S, int T, int B,
                                       int *tokens, float *chosen, char *why,
                                       size_t len);

/** The model's weights changed: copy them into cuDNN's weight spaces. */
void cl_pipeline_repack(struct cl_pipeline *p);

/** Enqueue the whole decode, eagerly, on @p s. */
void cl_pipeline_eager(struct cl_pipeline *p, cudaStream_t s);

/** Capture the eager decode once into a CUDA graph; 0, or -1 with why. */
int cl_pipeline_capture(struct cl_pipeline *p, cudaStream_t s, char *why,
                        size_t len);

/** Launch the captured graph on @p s. */
void cl_pipeline_graph(struct cl_pipeline *p, cudaStream_t s);

/** Free it (NULL is fine). */
void cl_pipeline_destroy(struct cl_pipeline *p);

/** p[i] = v for i < n (int). */
void cl_fill_int(int *p, int v, int n, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif /* CL_BASELINES_H */
