/*
 * Lab 6: a GRU encoder-decoder's greedy decode, faster than the cuDNN +
 * cuBLAS pipeline a framework runs. This is the file you edit.
 *
 * Everything of Lab 5 is here again (bring your GRU kernels over), plus an
 * embedding lookup, an output layer over the whole vocabulary and an
 * argmax that decides the next step's input. The time goes where the
 * profile says, not where the FLOPs are: read the README's "Profile
 * first" before optimizing anything.
 *
 * Build and grade:   make grade LAB=06
 * Translate a few:   make demo LAB=06
 * One case only:     make grade LAB=06 ARGS="--case greedy-b1-s1-t1"
 *
 * cuBLAS is allowed (the handle helper and a row-major GEMM are below);
 * cuDNN is not. Each TODO marks a step; the README section in brackets
 * explains it.
 */
#include "seq2seq.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>

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
            fprintf(stderr, "seq2seq: cuBLAS: %s\n", cublasGetStatusString(st));
            handle = NULL;
        }
    }
    return handle;
}

/* row-major C (M, N) = A (M, K) * W^T + beta * C, with W row-major (N, >= K)
 * and row strides lda (A) and ldw (W): a slice of W's columns is W + first
 * column, same ldw. Returns 0 on success. */
int gemm_nt(cublasHandle_t handle, const float *A, int lda, const float *W,
            int ldw, float *C, int M, int N, int K, float beta,
            cudaStream_t stream)
{
    const float one = 1.0f;
    cublasStatus_t st = cublasSetStream(handle, stream);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, W,
                         ldw, A, lda, &beta, C, N);
    if (st != CUBLAS_STATUS_SUCCESS)
        fprintf(stderr, "seq2seq: cublasSgemm: %s\n",
                cublasGetStatusString(st));
    return st != CUBLAS_STATUS_SUCCESS;
}

// ----------------------------------------------------------------------------
// the workspace

extern "C" size_t seq2seq_workspace_size(const struct seq2seq_model *m, int S,
                                         int T, int B)
{
    /* TODO(lab6): the bytes your decode needs: the encoder's input
     * projections (S * B rows), the hidden states, the concatenated
     * inputs, one step's logits. [README: "Task 1: the encoder"] */
    (void)m;
    (void)S;
    (void)T;
    (void)B;
    return 0;
}

// ----------------------------------------------------------------------------
// the decode

extern "C" void seq2seq_greedy(const struct seq2seq_model *m, const int *src,
                               int S, int B, int T, int sos, int *tokens,
                               float *logits, void *workspace,
                               size_t workspace_bytes, cudaStream_t stream)
{
    /* TODO(lab6): the encoder: gather the source embeddings, one GEMM for
     * the input projection of all S steps, then S GRU steps from h = 0;
     * the last h is the context. [README: "Task 1: the encoder"] */

    /* TODO(lab6): T decoder steps, each: the embedding of the previous
     * token; the GRU over [embedding; context] from the previous state
     * (the context at step 0); the output layer over [embedding; hidden;
     * context]; the argmax (lowest index on ties) into tokens[t] and its
     * logit into logits[t], and into the next step's input, on the
     * device. [README: "Task 2: the decoder, step by step"] */

    /* TODO(lab6): capture the whole decode in a CUDA graph once and replay
     * it. [README: "Task 3: a CUDA graph"] */

    /* TODO(lab6): compute what the context contributes once, and fuse the
     * rest of a step. [README: "Task 4: what stays constant, what fuses"] */
    (void)m;
    (void)src;
    (void)S;
    (void)B;
    (void)T;
    (void)sos;
    (void)tokens;
    (void)logits;
    (void)workspace;
    (void)workspace_bytes;
    (void)stream;
}

extern "C" void seq2seq_forced(const struct seq2seq_model *m, const int *src,
                               int S, int B, int T, const int *y_in, float *out,
                               void *workspace, size_t workspace_bytes,
                               cudaStream_t stream)
{
    /* TODO(lab6): the same decode with the inputs y_in[t] instead of the
     * argmax, writing every logit of every step into out. Share the code
     * with seq2seq_greedy. [README: "Task 2: the decoder, step by step"] */
    (void)m;
    (void)src;
    (void)S;
    (void)B;
    (void)T;
    (void)y_in;
    (void)out;
    (void)workspace;
    (void)workspace_bytes;
    (void)stream;
}
