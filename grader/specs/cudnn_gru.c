/*
 * cudnn_gru.c: cuDNN's GRU as a baseline (Lab 5, and the pipeline of Lab 6).
 *
 * The RNN is built with the v8 API: FP32 data and math, CUDNN_FMA_MATH (no
 * TF32), double bias (b_ih and b_hh, as PyTorch), unidirectional, linear
 * input, no dropout, sequence-major packed data. The weights are copied
 * once into cuDNN's weight space through cudnnGetRNNWeightParams, gate by
 * gate: linear layers 0..2 take W_ih's r, z, n rows, 3..5 W_hh's, which is
 * the order PyTorch uses too. Only cudnnRNNForward is timed.
 */
#include "specs/baselines.h"
#include "fatal.h"
#include "05-gru/gru.h"

#include <cudnn.h>

#include "errcheck.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cl_cudnn_gru {
    cudnnHandle_t h;
    cudnnRNNDescriptor_t rnn;
    cudnnDropoutDescriptor_t drop;
    cudnnRNNDataDescriptor_t xd, yd;
    cudnnTensorDescriptor_t hd;
    void *wspace, *work;
    size_t wbytes, work_bytes;
    int32_t *seq; /* device: every sequence is T long */
    int I, H, L;
};

const char *cl_gru_algo_name(int algo)
{
    static const char *const names[CL_GRU_ALGOS] = {
        "standard", "persist-static", "persist-dynamic"};
    return algo >= 0 && algo < CL_GRU_ALGOS ? names[algo] : "unknown";
}

static cudnnRNNAlgo_t dnn_algo(int algo)
{
    switch (algo) {
    case CL_GRU_PERSIST_STATIC: return CUDNN_RNN_ALGO_PERSIST_STATIC;
    case CL_GRU_PERSIST_DYNAMIC: return CUDNN_RNN_ALGO_PERSIST_DYNAMIC;
    default: return CUDNN_RNN_ALGO_STANDARD;
    }
}

/* the standard algorithm must work; the others may be unsupported for a
 * shape or a GPU, which is reported, not fatal */
static int refused(cudnnStatus_t st, int algo, const char *what, char *why,
                   size_t len)
{
    if (st == CUDNN_STATUS_SUCCESS)
        return 0;
    if (algo == CL_GRU_STANDARD)
        cl_fatal(__FILE__, __LINE__, what, "cuDNN", cudnnGetErrorString(st));
    snprintf(why, len, "%s: %s", what, cudnnGetErrorString(st));
    return 1;
}

/* copy n floats of @p src into the weight-space slot cuDNN reports */
static void pack(struct cl_cudnn_gru *g, cudnnTensorDescriptor_t d, void *dst,
                 const float *src, size_t n)
{
    cudnnDataType_t type;
    int nd = 0, dims[8], strides[8];
    CUDNN_CHECK(cudnnGetTensorNdDescriptor(d, 8, &type, &nd, dims, strides));
    size_t count = 1;
    for (int i = 0; i < nd; i++)
        count *= (size_t)dims[i];
    if (count != n || !dst) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "weight slot of %zu floats where %zu were expected", count, n);
        cl_fatal(__FILE__, __LINE__, "cudnnGetRNNWeightParams", "cuDNN", msg);
    }
    CUDA_CHECK(
        cudaMemcpy(dst, src, n * sizeof(float), cudaMemcpyDeviceToDevice));
    (void)g;
}

static void pack_weights(struct cl_cudnn_gru *g, int I, int H, int L,
                         const struct gru_weights *layers)
{
    cudnnTensorDescriptor_t md, bd;
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&md));
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&bd));
    for (int l = 0; l < L; l++) {
        int in = l ? H : I;
        for (int id = 0; id < 6; id++) {
            int gate = id % 3, hidden = id >= 3;
            void *m = NULL, *b = NULL;
            CUDNN_CHECK(cudnnGetRNNWeightParams(g->h, g->rnn, l, g->wbytes,
                                                g->wspace, id, md, &m, bd, &b));
            const float *w = hidden ? layers[l].w_hh : layers[l].w_ih;
            const float *bias = hidden ? layers[l].b_hh : layers[l].b_ih;
            int cols = hidden ? H : in;
            pack(g, md, m, w + (size_t)gate * H * cols, (size_t)H * cols);
            pack(g, bd, b, bias + (size_t)gate * H, (size_t)H);
        }
    }
    CUDNN_CHECK(cudnnDestroyTensorDescriptor(md));
    CUDNN_CHECK(cudnnDestroyTensorDescriptor(bd));
}

struct cl_cudnn_gru *cl_cudnn_gru_create(struct cudnnContext *h, int algo,
                                         int T, int B, int I, int H, int L,
                                         const struct gru_weights *layers,
                                         char *why, size_t len)
{
    struct cl_cudnn_gru *g = cl_xcalloc(1, sizeof *g);
    g->h = h;
    CUDNN_CHECK(cudnnCreateRNNDescriptor(&g->rnn));
    CUDNN_CHECK(cudnnCreateDropoutDescriptor(&g->drop));
    CUDNN_CHECK(cudnnCreateRNNDataDescriptor(&g->xd));
    CUDNN_CHECK(cudnnCreateRNNDataDescriptor(&g->yd));
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&g->hd));
    CUDNN_CHECK(cudnnSetDropoutDescriptor(g->drop, h, 0.0f, NULL, 0, 0));
    if (refused(cudnnSetRNNDescriptor_v8(
                    g->rnn, dnn_algo(algo), CUDNN_GRU, CUDNN_RNN_DOUBLE_BIAS,
                    CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT,
                    CUDNN_DATA_FLOAT, CUDNN_FMA_MATH, I, H, H, L, g->drop,
                    CUDNN_RNN_PADDED_IO_DISABLED),
                algo, "cudnnSetRNNDescriptor_v8", why, len))
        goto unsupported;
    if (algo == CL_GRU_PERSIST_DYNAMIC &&
        refused(cudnnBuildRNNDynamic(h, g->rnn, B), algo,
                "cudnnBuildRNNDynamic", why, len))
        goto unsupported;

    int *lens = cl_xmalloc((size_t)B * sizeof *lens);
    for (int b = 0; b < B; b++)
        lens[b] = T;
    CUDNN_CHECK(cudnnSetRNNDataDescriptor(
        g->xd, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, T, B,
        I, lens, NULL));
    CUDNN_CHECK(cudnnSetRNNDataDescriptor(
        g->yd, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, T, B,
        H, lens, NULL));
    CUDA_CHECK(cudaMalloc((void **)&g->seq, (size_t)B * sizeof *g->seq));
    CUDA_CHECK(cudaMemcpy(g->seq, lens, (size_t)B * sizeof *g->seq,
                          cudaMemcpyHostToDevice));
    free(lens);
    int dims[3] = {L, B, H}, strides[3] = {B * H, H, 1};
    CUDNN_CHECK(
        cudnnSetTensorNdDescriptor(g->hd, CUDNN_DATA_FLOAT, 3, dims, strides));

    size_t reserve = 0;
    if (refused(cudnnGetRNNTempSpaceSizes(h, g->rnn, CUDNN_FWD_MODE_INFERENCE,
                                          g->xd, &g->work_bytes, &reserve),
                algo, "cudnnGetRNNTempSpaceSizes", why, len))
        goto unsupported;
    CUDNN_CHECK(cudnnGetRNNWeightSpaceSize(h, g->rnn, &g->wbytes));
    CUDA_CHECK(cudaMalloc(&g->wspace, g->wbytes));
    CUDA_CHECK(cudaMemset(g->wspace, 0, g->wbytes));
    if (g->work_bytes)
        CUDA_CHECK(cudaMalloc(&g->work, g->work_bytes));
    g->I = I;
    g->H = H;
    g->L = L;
    pack_weights(g, I, H, L, layers);
    return g;

unsupported:
    cl_cudnn_gru_destroy(g);
    return NULL;
}

void cl_cudnn_gru_repack(struct cl_cudnn_gru *g,
                         const struct gru_weights *layers)
{
    pack_weights(g, g->I, g->H, g->L, layers);
}

int cl_cudnn_gru_forward(struct cl_cudnn_gru *g, const float *x,
                         const float *h0, float *y, float *h_n, cudaStream_t s)
{
    CUDNN_CHECK(cudnnSetStream(g->h, s));
    cudnnStatus_t st =
        cudnnRNNForward(g->h, g->rnn, CUDNN_FWD_MODE_INFERENCE, g->seq, g->xd,
                        x, g->yd, y, g->hd, h0, h_n, g->hd, NULL, NULL,
                        g->wbytes, g->wspace, g->work_bytes, g->work, 0, NULL);
    return st == CUDNN_STATUS_SUCCESS ? 0 : (int)st;
}

void cl_cudnn_gru_run(void *ctx, cudaStream_t s)
{
    struct cl_cudnn_gru_call *c = ctx;
    int st = cl_cudnn_gru_forward(c->g, c->x, c->h0, c->y, c->h_n, s);
    if (st)
        cl_fatal(__FILE__, __LINE__, "cudnnRNNForward", "cuDNN",
                 cudnnGetErrorString((cudnnStatus_t)st));
}

void cl_cudnn_gru_destroy(struct cl_cudnn_gru *g)
{
    if (!g)
        return;
    CUDA_CHECK(cudaFree(g->work));
    CUDA_CHECK(cudaFree(g->wspace));
    CUDA_CHECK(cudaFree(g->seq));
    CUDNN_CHECK(cudnnDestroyTensorDescriptor(g->hd));
    CUDNN_CHECK(cudnnDestroyRNNDataDescriptor(g->yd));
    CUDNN_CHECK(cudnnDestroyRNNDataDescriptor(g->xd));
    CUDNN_CHECK(cudnnDestroyDropoutDescriptor(g->drop));
    CUDNN_CHECK(cudnnDestroyRNNDescriptor(g->rnn));
    free(g);
}
