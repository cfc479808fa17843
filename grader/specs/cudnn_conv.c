/*
 * cudnn_conv.c: cuDNN's convolution as Lab 2's baseline.
 *
 * x (N, C, 1, Win) convolved with w (C, C / groups, 1, K) into y
 * (N, C, 1, Wout), cross-correlation, FP32 data with CUDNN_FMA_MATH (no
 * TF32). The algorithm is the fastest true-FP32 one that
 * cudnnFindConvolutionForwardAlgorithmEx reports on the real buffers.
 */
#include "specs/baselines.h"
#include "fatal.h"

#include <cudnn.h>

#include "errcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cl_cudnn_conv {
    cudnnHandle_t h;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnConvolutionFwdAlgo_t algo;
    void *ws;
    size_t ws_bytes;
    const float *x, *w;
    float *y;
    char name[32];
};

struct cl_cudnn_conv *cl_cudnn_conv_create(struct cudnnContext *h, int N, int C,
                                           int Win, int K, int pad, int groups,
                                           int Wout, const float *x,
                                           const float *w, float *y, char *why,
                                           size_t len)
{
    enum { MAX_ALGOS = 16 };
    struct cl_cudnn_conv *d = cl_xcalloc(1, sizeof *d);
    d->h = h;
    d->x = x;
    d->w = w;
    d->y = y;
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&d->xd));
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&d->yd));
    CUDNN_CHECK(cudnnCreateFilterDescriptor(&d->wd));
    CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&d->cd));
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(d->xd, CUDNN_TENSOR_NCHW,
                                           CUDNN_DATA_FLOAT, N, C, 1, Win));
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(d->yd, CUDNN_TENSOR_NCHW,
                                           CUDNN_DATA_FLOAT, N, C, 1, Wout));
    CUDNN_CHECK(cudnnSetFilter4dDescriptor(
        d->wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, C, C / groups, 1, K));
    CUDNN_CHECK(cudnnSetConvolution2dDescriptor(
        d->cd, 0, pad, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CUDNN_CHECK(cudnnSetConvolutionGroupCount(d->cd, groups));
    CUDNN_CHECK(cudnnSetConvolutionMathType(d->cd, CUDNN_FMA_MATH));
    /* every algorithm on the real buffers; the fastest true-FP32 one */
    cudnnConvolutionFwdAlgoPerf_t perf[MAX_ALGOS];
    int found = 0;
    size_t scratch_bytes = (size_t)256 << 20;
    void *scratch = NULL;
    CUDA_CHECK(cudaMalloc(&scratch, scratch_bytes));
    CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(
        h, d->xd, x, d->wd, w, d->cd, d->yd, y, MAX_ALGOS, &found, perf,
        scratch, scratch_bytes));
    CUDA_CHECK(cudaFree(scratch));
    for (int i = 0; i < found; i++) {
        if (perf[i].status != CUDNN_STATUS_SUCCESS ||
            perf[i].mathType != CUDNN_FMA_MATH)
            continue;
        d->algo = perf[i].algo;
        d->ws_bytes = perf[i].memory;
        if (d->ws_bytes)
            CUDA_CHECK(cudaMalloc(&d->ws, d->ws_bytes));
        snprintf(d->name, sizeof d->name, "cuDNN conv algo %d", (int)d->algo);
        return d;
    }
    snprintf(why, len, "cuDNN has no FP32 (FMA) algorithm for this shape");
    cl_cudnn_conv_destroy(d);
    return NULL;
}

const char *cl_cudnn_conv_name(const struct cl_cudnn_conv *d)
{
    return d->name;
}

int cl_cudnn_conv_run(struct cl_cudnn_conv *d, cudaStream_t s)
{
    const float one = 1.0f, zero = 0.0f;
    CUDNN_CHECK(cudnnSetStream(d->h, s));
    return (int)cudnnConvolutionForward(d->h, &one, d->xd, d->x, d->wd, d->w,
                                        d->cd, d->algo, d->ws, d->ws_bytes,
                                        &zero, d->yd, d->y);
}

void cl_cudnn_conv_destroy(struct cl_cudnn_conv *d)
{
    if (!d)
        return;
    if (d->ws)
        CUDA_CHECK(cudaFree(d->ws));
    CUDNN_CHECK(cudnnDestroyConvolutionDescriptor(d->cd));
    CUDNN_CHECK(cudnnDestroyFilterDescriptor(d->wd));
    CUDNN_CHECK(cudnnDestroyTensorDescriptor(d->yd));
    CUDNN_CHECK(cudnnDestroyTensorDescriptor(d->xd));
    free(d);
}
