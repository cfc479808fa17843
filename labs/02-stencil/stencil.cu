/*
 * Lab 2: stencil. This is the file you edit.
 *
 * Part A: a 1D weighted stencil, out[i] = sum_j w[j+R] * in[i+j].
 * Part B: a depthwise causal 1D convolution, the grouped convolution of
 *         sequence models, y[b,c,t] = sum_k w[c,k] * x[b,c,t-(K-1)+k].
 *
 * Build and grade:   make grade LAB=02
 * One case only:     make grade LAB=02 ARGS="--case A:n=1000,R=8"
 *
 * Each TODO marks a step; the README section in brackets explains it.
 */
#include "stencil.h"

#include <cuda_runtime.h>

// ----------------------------------------------------------------------------
// Part A: 1D stencil

__global__ void stencil_kernel(const float *in, float *out, const float *w,
                               int n, int radius)
{
    /* TODO(lab2): one output per thread: sum w[j + R] * in[i + j] for j in
     * [-R, R], treating in[] outside [0, n) as zero. Then move the inputs
     * through shared memory: a tile plus a halo of R on each side.
     * [README: "Task 1: the stencil in global memory"] */
    (void)in;
    (void)out;
    (void)w;
    (void)n;
    (void)radius;
}

extern "C" void stencil_1d(const float *in, float *out, const float *w, int n,
                           int radius, cudaStream_t stream)
{
    /* TODO(lab2): launch enough blocks to cover n outputs; with a shared
     * tile, pass its size (tile + 2R floats) as dynamic shared memory.
     * [README: "Task 2: a tile and its halo in shared memory"] */
    stencil_kernel<<<1, 1, 0, stream>>>(in, out, w, n, radius);
}

// ----------------------------------------------------------------------------
// Part B: depthwise causal conv1d

__global__ void conv1d_kernel(const float *x, const float *w, float *y, int B,
                              int C, int T, int K)
{
    /* TODO(lab2): one output y[b,c,t] per thread: its row is b*C + c, its
     * weights are w[c*K .. c*K + K - 1], and x before time 0 is zero.
     * [README: "Task 3: the causal depthwise convolution"] */
    (void)x;
    (void)w;
    (void)y;
    (void)B;
    (void)C;
    (void)T;
    (void)K;
}

extern "C" void causal_conv1d(const float *x, const float *w, float *y, int B,
                              int C, int T, int K, cudaStream_t stream)
{
    /* TODO(lab2): cover all B*C*T outputs, then make it fast: a shared
     * tile of each row with a K-1 halo on the left.
     * [README: "Task 4: bandwidth"] */
    conv1d_kernel<<<1, 1, 0, stream>>>(x, w, y, B, C, T, K);
}
