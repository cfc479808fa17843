/**
 * @file refs.h
 * @brief CPU references of the labs: plain C, double accumulation.
 *
 * The grader computes expected outputs with these; the unit tests check
 * them against values worked out by hand.
 */
#ifndef CL_REFS_H
#define CL_REFS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Lab 1: ref[i] = (double)a[i] + (double)b[i] for i < n. */
void vector_add_ref(const float *a, const float *b, double *ref, size_t n);

/**
 * Lab 2, part A: ref[i] = sum over j in [-R, R] of w[j+R] * in[i+j], with
 * in[] zero outside [0, n).
 */
void stencil_ref(const float *in, const float *w, double *ref, long n,
                 int radius);

/**
 * Lab 2, part B, rows [row0, row0 + nrows) of the (B*C, T) output:
 * ref[(r - row0) * T + t] = sum over k of w[c,k] * x[r, t-(K-1)+k], with
 * c = r % C and x zero before time 0.
 */
void causal_conv1d_ref(const float *x, const float *w, double *ref, long row0,
                       long nrows, int C, int T, int K);

/**
 * Lab 3, rows [row0, row0 + nrows) of C = A * B (row-major, A is M x K,
 * B is K x N): ref[(i - row0) * N + j] = sum over k of A[i,k] * B[k,j].
 */
void matmul_ref(const float *A, const float *B, double *ref, long row0,
                long nrows, int N, int K);

/** Lab 4: AdamW's hyperparameters, in double for the reference. */
struct adamw_ref_hp {
    double lr;           /**< learning rate */
    double beta1;        /**< decay of m */
    double beta2;        /**< decay of v */
    double eps;          /**< added to the denominator */
    double weight_decay; /**< decoupled weight decay */
    int step;            /**< 1 for the first step */
};

/**
 * Lab 4: one AdamW step (torch.optim.AdamW) on n elements of state kept in
 * double: p, m, v updated in place from the gradient g.
 */
void adamw_ref(double *p, double *m, double *v, const float *g, long long n,
               const struct adamw_ref_hp *hp);

/**
 * Lab 4: one AdamW step on a list of @p count tensors: tensor i's n[i]
 * elements of gradient start at g + off[i], and its state follows the
 * tensors before it in p, m and v (packed, no gaps). Split over threads;
 * every element's update is adamw_ref()'s, so the state is the same bytes
 * as tensor by tensor.
 */
void adamw_ref_list(double *p, double *m, double *v, const float *g, int count,
                    const long long *n, const long long *off,
                    const struct adamw_ref_hp *hp);

struct gru_weights;

/**
 * Lab 5: one GRU step for one batch row (gates r, z, n as cuDNN and
 * PyTorch): x (I), h (H) -> h_new (H). The weights are host copies in the
 * layout of gru.h (w_ih is (3H, I)).
 */
void gru_cell_ref(const double *x, const double *h, double *h_new,
                  const struct gru_weights *w, int I, int H);

/**
 * Lab 5: batch row @p b of a whole sequence through @p L layers: x is
 * (T, B, I) and h0 (L, B, H) as the grader holds them (host copies);
 * writes y (T, H) and h_n (L, H) of that row.
 */
void gru_forward_ref(const float *x, const float *h0,
                     const struct gru_weights *layers, int T, int B, int I,
                     int H, int L, int b, double *y, double *h_n);

struct seq2seq_model;

/**
 * Lab 6: sentence @p b of a batch through the encoder-decoder (host copies
 * of the weights): src is (S, B). With @p y_in (T, B) the decoder's inputs
 * are given (teacher forcing); without, they are its own argmax, starting
 * from @p sos (greedy). Writes the argmax of every step into tokens (T) and
 * every logit into logits (T, v_tgt). Ties go to the lowest index.
 */
void seq2seq_ref(const struct seq2seq_model *m, const int *src, int S, int B,
                 int b, int T, int sos, const int *y_in, int *tokens,
                 double *logits);

/**
 * Lab 6: judge one sentence's greedy decode. @p got and @p got_logit are
 * the student's tokens and chosen logits (T), @p ref and @p ref_logits the
 * reference's tokens (T) and logits (T, V). Returns 0 when every step
 * matches (logits within @p atol + 1e-4 relative); 1 when a token differs
 * where the reference's logits of the two tokens are within @p tie (the
 * decodes part legitimately; later steps are not compared); -1 with the
 * reason in @p why otherwise. *step is the step where it stopped.
 */
int seq2seq_compare_greedy(const int *got, const float *got_logit,
                           const int *ref, const double *ref_logits, int T,
                           int V, double tie, double atol, int *step, char *why,
                           size_t len);

#ifdef __cplusplus
}
#endif

#endif /* CL_REFS_H */
