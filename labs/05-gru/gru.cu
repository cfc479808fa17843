/*
 * Lab 5: a GRU forward pass that races cuDNN. This is the file you edit.
 *
 * A GRU step is two small matrix products (the input's and the hidden
 * state's) and a handful of elementwise gates. Over a sequence the input
 * products are independent of each other, the hidden ones are not: step t
 * needs h from step t - 1. That split decides everything in this lab.
 *
 * Build and grade:   make grade LAB=05
 * One case only:     make grade LAB=05 ARGS="--case cell-b1-h100"
 *
 * cuBLAS is allowed (the handle helper and a row-major GEMM are below);
 * cuDNN is not. Each TODO marks a step; the README section in brackets
 * explains it.
 */
#include "gru.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>

// ----------------------------------------------------------------------------
// the gates

/* i*: the input's projections for gates r, z, n (b_ih included), h*: the
 * hidden state's (b_hh included), h: the previous hidden state */
__device__ float gru_gates(float ir, float iz, float in, float hr, float hz,
                           float hn, float h)
{
    /* TODO(lab5): r, z and n as in gru.h, then h' = (1 - z) * n + z * h.
     * Mind where r goes: it scales the hidden state's whole n projection,
     * bias included. [README: "Task 1: the gate arithmetic"] */
    (void)ir;
    (void)iz;
    (void)in;
    (void)hr;
    (void)hz;
    (void)hn;
    return h;
}

// ----------------------------------------------------------------------------
// part A: one fused cell

__global__ void cell_kernel(const float *x, const float *h, float *h_new,
                            struct gru_weights w, int B, int I, int H)
{
    /* TODO(lab5): one warp per (batch row, hidden unit): the lanes share
     * the unit's six dot products (three rows of W_ih with x, three of
     * W_hh with h), reduce them with shuffles, and one lane applies the
     * gates and writes h_new. [README: "Task 2: one fused cell"] */
    (void)x;
    (void)h;
    (void)h_new;
    (void)w;
    (void)B;
    (void)I;
    (void)H;
}

extern "C" void gru_cell(const float *x, const float *h, float *h_new,
                         const struct gru_weights *w, int B, int I, int H,
                         cudaStream_t stream)
{
    /* TODO(lab5): launch cell_kernel with enough warps for B * H units.
     * [README: "Task 2: one fused cell"] */
    cell_kernel<<<1, 32, 0, stream>>>(x, h, h_new, *w, B, I, H);
}

// ----------------------------------------------------------------------------
// cuBLAS helpers

/* one handle for the process, true FP32 math (no TF32) */
cublasHandle_t blas_handle(void)
{
    static cublasHandle_t handle;
    if (!handle) {
        cublasStatus_t st = cublasCreate(&handle);
        if (st == CUBLAS_STATUS_SUCCESS)
            st = cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH);
        if (st != CUBLAS_STATUS_SUCCESS) {
            fprintf(stderr, "gru: cuBLAS: %s\n", cublasGetStatusString(st));
            handle = NULL;
        }
    }
    return handle;
}

/* row-major C (M, N) = A (M, K) * W^T, with W row-major (N, K), as every
 * GRU projection is. cuBLAS is column-major: it sees C^T = W * A^T.
 * Returns 0 on success. */
int gemm_nt(cublasHandle_t handle, const float *A, const float *W, float *C,
            int M, int N, int K, cudaStream_t stream)
{
    const float one = 1.0f, zero = 0.0f;
    cublasStatus_t st = cublasSetStream(handle, stream);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, W, K,
                         A, K, &zero, C, N);
    if (st != CUBLAS_STATUS_SUCCESS)
        fprintf(stderr, "gru: cublasSgemm: %s\n", cublasGetStatusString(st));
    return st != CUBLAS_STATUS_SUCCESS;
}

// ----------------------------------------------------------------------------
// part B: a whole sequence

extern "C" size_t gru_workspace_size(int T, int B, int I, int H, int L)
{
    /* TODO(lab5): the bytes gru_forward needs: the input projections of
     * every step, the hidden projection of one step, the outputs of the
     * layers below the last. [README: "Task 3: a sequence with cuBLAS"] */
    (void)T;
    (void)B;
    (void)I;
    (void)H;
    (void)L;
    return 0;
}

extern "C" void gru_forward(const float *x, const float *h0, float *y,
                            float *h_n, const struct gru_weights *layers, int T,
                            int B, int I, int H, int L, void *workspace,
                            size_t workspace_bytes, cudaStream_t stream)
{
    /* TODO(lab5): layer by layer: one GEMM for the input projection of
     * all T steps (gemm_nt with M = T * B), then per step one GEMM for
     * the hidden projection and one fused gate kernel. Layer l's outputs
     * are layer l + 1's inputs; the last layer's are y.
     * [README: "Task 3: a sequence with cuBLAS"] */

    /* TODO(lab5): one persistent kernel for every step: each block keeps
     * its hidden units' rows of W_hh in shared memory and the grid meets
     * at a barrier once per step. [README: "Task 4: a persistent kernel"] */
    (void)x;
    (void)h0;
    (void)y;
    (void)h_n;
    (void)layers;
    (void)T;
    (void)B;
    (void)I;
    (void)H;
    (void)L;
    (void)workspace;
    (void)workspace_bytes;
    (void)stream;
}
