/*
 * Lab 6 reference solution: greedy decoding with a GRU encoder-decoder.
 *
 * The ladder (SEQ2SEQ_KERNEL=N; the default is the fastest, 5):
 *   1  the straightforward port: what a framework runs, minus the framework.
 *      The encoder's input projection is one GEMM over all S steps; every
 *      step is a cuBLAS GEMM for the hidden projection and a fused gate
 *      kernel; every decoder step gathers and concatenates its input, runs
 *      two GEMMs and the gates, concatenates [embedding; hidden; context],
 *      runs the output GEMM and an argmax kernel. No host round trip: the
 *      argmax writes the next step's input on the device
 *   2  rung 1 captured once in a CUDA graph and replayed: the same kernels
 *      without the launch overhead between them
 *   3  restructured, in a CUDA graph:
 *      - the context is constant over the decode, so its share of the
 *        decoder's input projection (W_ih[:, E:] c + b_ih) and of the
 *        output layer (W_out[:, E+H:] c + b_out) is computed once, as two
 *        GEMMs before the loop: the per-step products shrink from E + H to
 *        E columns and from E + 2H to E + H
 *      - one kernel per step does the whole GRU: a block per hidden unit,
 *        a warp per weight row, the embedding gathered inside
 *      - the output layer and the argmax are one kernel for small batches:
 *        each warp takes logits rows, each block keeps its best per
 *        sentence and merges it with one 64-bit atomicMax (the value's
 *        bits, ordered, above the inverted index: ties go to the lowest
 *        index); the next step's GRU kernel reads the winner
 *      - larger batches run the step's products and the output layer as
 *        cuBLAS GEMMs of the step's own columns only: the gates kernel
 *        adds the context's share of the input projection and writes h'
 *        into the output layer's input too, and the argmax, a block for
 *        every 1024 logits of a row merged by the same atomicMax, adds the
 *        context's logits.
 *        No copies a step (b64 2.72 ms, b256 4.86 ms, against 3.09 and
 *        5.38 with a copy of each share before its GEMM, a copy kernel
 *        and a block a row for the argmax; H100 2026-11-27)
 *   4  greedy decoding of up to 8 sentences as one
 *      persistent cooperative kernel after rung 3's encoder: each block
 *      keeps its rows of the output layer in shared memory for the whole
 *      decode, and the hidden state and each block's argmax go between
 *      blocks as 64-bit words tagged anew on every call (Lab 5's rung 4),
 *      with no grid barrier; other calls run rung 3
 *   5  rung 4 with the encoder moved into the same cooperative kernel:
 *      each block runs the encoder's GRU for the hidden units it owns in
 *      the decoder (their W_ih and W_hh rows in registers, the embeddings
 *      gathered in the kernel), hands h_s over as rung 4's tagged words,
 *      folds the context (cgi, clog) itself, and loads its output rows by
 *      cp.async while the encoder runs: one memset and one launch a call,
 *      no cuBLAS, no graph (b1 0.274 ms, b8 0.743 ms against rung 4's
 *      0.361 and 0.877, H100 2026-11-27). Other calls run rung 4
 *
 * seq2seq_forced runs the same code with the decoder's inputs given and
 * every logit written (the cuBLAS output layer).
 *
 *   make grade LAB=06 SOLUTION=1
 *   SEQ2SEQ_KERNEL=1 make grade LAB=06 SOLUTION=1
 */
#include "seq2seq.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* a failed library call is reported and the call gives up: the grader
 * then sees unwritten output */
#define S2S_TRY(expr)                                                          \
    do {                                                                       \
        int rc_ = (int)(expr);                                                 \
        if (rc_ != 0) {                                                        \
            fprintf(stderr, "seq2seq: %s failed (%d) at %s:%d\n", #expr, rc_,  \
                    __FILE__, __LINE__);                                       \
            return 0;                                                          \
        }                                                                      \
    } while (0)

// ----------------------------------------------------------------------------
// the GRU's gates and small helpers

__device__ __forceinline__ float sigmoidf(float v)
{
    return 1.0f / (1.0f + expf(-v));
}

__device__ __forceinline__ float
gru_gates(float ir, float iz, float in, float hr, float hz, float hn, float h)
{
    float r = sigmoidf(ir + hr);
    float z = sigmoidf(iz + hz);
    float n = tanhf(in + r * hn);
    return (1.0f - z) * n + z * h;
}

__device__ __forceinline__ float warp_sum(float v)
{
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

/* a float's bits, reordered so that unsigned comparison is float order */
__device__ __forceinline__ unsigned ordered(float f)
{
    unsigned u = __float_as_uint(f);
    return u & 0x80000000u ? ~u : u | 0x80000000u;
}

__device__ __forceinline__ float unordered(unsigned u)
{
    return __uint_as_float(u & 0x80000000u ? u & 0x7fffffffu : ~u);
}

/* (value, index) as one 64-bit key: larger value first, then lower index */
__device__ __forceinline__ unsigned long long argmax_key(float v, int i)
{
    return (unsigned long long)ordered(v) << 32 | (0xffffffffu - (unsigned)i);
}

__device__ __forceinline__ int key_index(unsigned long long k)
{
    return (int)(0xffffffffu - (unsigned)(k & 0xffffffffu));
}

// ----------------------------------------------------------------------------
// small kernels of rung 1

__global__ void gather_kernel(const float *table, const int *idx, float *out,
                              long long n, int width, int ld, int col)
{
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < n * width; i += stride) {
        long long r = i / width;
        out[r * ld + col + i % width] =
            table[(long long)idx[r] * width + i % width];
    }
}

/* out[:, col:col+width] = in (rows, width) */
__global__ void copy_cols_kernel(const float *in, float *out, int rows,
                                 int width, int ld, int col)
{
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < (long long)rows * width; i += stride)
        out[i / width * ld + col + i % width] = in[i];
}

/* h' from the two projections (biases not yet added) */
__global__ void gates_kernel(const float *gi, const float *gh,
                             const float *b_ih, const float *b_hh,
                             const float *h, float *out, int B, int H)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long long)B * H)
        return;
    int b = (int)(i / H), j = (int)(i % H);
    const float *a = gi + (size_t)b * 3 * H, *c = gh + (size_t)b * 3 * H;
    out[i] = gru_gates(
        a[j] + (b_ih ? b_ih[j] : 0.f), a[H + j] + (b_ih ? b_ih[H + j] : 0.f),
        a[2 * H + j] + (b_ih ? b_ih[2 * H + j] : 0.f), c[j] + b_hh[j],
        c[H + j] + b_hh[H + j], c[2 * H + j] + b_hh[2 * H + j], h[i]);
}

/* the decoder's gates at a large batch (rung 3): gi holds W_ih[:, :E] e_t
 * alone and the context's share cgi (b_ih in it) is added here, not copied
 * in before the GEMM; h' goes to out and to the output layer's input
 * xd[:, col:col + H] (row stride ld), with no copy kernel after */
__global__ void dec_gates_kernel(const float *gi, const float *cgi,
                                 const float *gh, const float *b_hh,
                                 const float *h, float *out, float *xd, int ld,
                                 int col, int B, int H)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long long)B * H)
        return;
    int b = (int)(i / H), j = (int)(i % H);
    size_t r = (size_t)b * 3 * H;
    const float *a = gi + r, *c = cgi + r, *g = gh + r;
    float v =
        gru_gates(a[j] + c[j], a[H + j] + c[H + j], a[2 * H + j] + c[2 * H + j],
                  g[j] + b_hh[j], g[H + j] + b_hh[H + j],
                  g[2 * H + j] + b_hh[2 * H + j], h[i]);
    out[i] = v;
    xd[(size_t)b * ld + col + j] = v;
}

/* every row of out (rows, n) = bias */
__global__ void broadcast_kernel(const float *bias, float *out, int rows, int n)
{
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < (long long)rows * n; i += stride)
        out[i] = bias[i % n];
}

/* the argmax key of one row of n values, by a block of 256 threads (the
 * result is in thread 0) */
__device__ unsigned long long row_argmax(const float *row, int n)
{
    __shared__ unsigned long long best[256];
    unsigned long long k = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        unsigned long long c = argmax_key(row[i], i);
        k = c > k ? c : k;
    }
    best[threadIdx.x] = k;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (threadIdx.x < h && best[threadIdx.x + h] > best[threadIdx.x])
            best[threadIdx.x] = best[threadIdx.x + h];
        __syncthreads();
    }
    return best[0];
}

/* one block per row of x (rows, n): argmax (lowest index on ties) into
 * tok[row], its value into val[row], and into next[row] */
__global__ void argmax_kernel(const float *x, int n, int *tok, float *val,
                              int *next)
{
    const float *row = x + (size_t)blockIdx.x * n;
    unsigned long long best = row_argmax(row, n);
    if (threadIdx.x == 0) {
        int i = key_index(best);
        i = i >= 0 && i < n ? i : 0;
        tok[blockIdx.x] = i;
        val[blockIdx.x] = row[i];
        if (next)
            next[blockIdx.x] = i;
    }
}

/* the argmax of every row of x + add (rows, n), many blocks a row: block
 * (r, c) takes the c-th ARGMAX_CHUNK values of row r, 4 a thread, and
 * merges its best key into keys[r] by a 64-bit atomicMax (keys[r] starts
 * at 0, below every key). 64 rows of 8192 made one block a row wait 16 us
 * on its serial loads (ncu, H100); 8 blocks a row take a few */
#define ARGMAX_CHUNK 1024
__global__ void __launch_bounds__(256)
    argmax_part_kernel(const float *x, const float *add, int n,
                       unsigned long long *keys)
{
    __shared__ unsigned long long best[8];
    size_t row = (size_t)blockIdx.x * n;
    int lo = blockIdx.y * ARGMAX_CHUNK + threadIdx.x;
    float v[4];
#pragma unroll
    for (int j = 0; j < 4; j++) {
        int i = lo + j * 256;
        v[j] = i < n ? x[row + i] + add[row + i] : 0.f;
    }
    unsigned long long k = 0;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        int i = lo + j * 256;
        unsigned long long c = i < n ? argmax_key(v[j], i) : 0ull;
        k = c > k ? c : k;
    }
    for (int off = 16; off > 0; off >>= 1) {
        unsigned long long o = __shfl_xor_sync(0xffffffffu, k, off);
        k = o > k ? o : k;
    }
    if ((threadIdx.x & 31) == 0)
        best[threadIdx.x >> 5] = k;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < 8; w++)
            k = best[w] > k ? best[w] : k;
        atomicMax(keys + blockIdx.x, k);
    }
}

/* a step's tokens and logits from its keys, the next step's input, and the
 * keys zeroed for the next step's argmax */
__global__ void take_kernel(unsigned long long *keys, int B, int n, int *tok,
                            float *logit, int *next)
{
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < B) {
        unsigned long long k = keys[b];
        int i = key_index(k);
        i = i >= 0 && i < n ? i : 0;
        tok[b] = i;
        logit[b] = unordered((unsigned)(k >> 32));
        next[b] = i;
        keys[b] = 0;
    }
}

__global__ void fill_kernel(int *p, int v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = v;
}

static unsigned blocks_for(long long n)
{
    long long b = (n + 255) / 256;
    return (unsigned)(b < 1 ? 1 : b > 65535 ? 65535 : b);
}

// ----------------------------------------------------------------------------
// rung 3's kernels

/* dst[i] = get(i) for i < n by the whole block, PER loads in flight per
 * thread before any is stored: a loop that stores each value before the
 * next load waits for L2 once per element */
template <int PER, typename F>
__device__ __forceinline__ void block_fill(float *dst, int n, F get)
{
    for (int i0 = threadIdx.x; i0 < n; i0 += blockDim.x * PER) {
        float v[PER];
#pragma unroll
        for (int u = 0; u < PER; u++) {
            int i = i0 + u * blockDim.x;
            v[u] = i < n ? get(i) : 0.f;
        }
#pragma unroll
        for (int u = 0; u < PER; u++) {
            int i = i0 + u * blockDim.x;
            if (i < n)
                dst[i] = v[u];
        }
    }
}

/* One GRU step, a block per hidden unit j and a warp per weight row: warps
 * 0-2 the input rows (gates r, z, n) over the first Kin columns of w_in
 * (row stride ldw), warps 3-5 the hidden rows. The input of sentence b is
 * the embedding of its token, gathered here from table; without w_in (the
 * encoder, whose input projection is precomputed) there is none. gi_add
 * (B, 3H) is added to the input projection, b_in too when set.
 * In greedy decoding the step's input token comes from the previous
 * step's argmax keys; block 0 then also records that step's token and
 * logit, and clears the keys the coming output layer will fill. */
struct step_args {
    int B, H, Kin, ldw;
    const float *w_in, *table, *gi_add, *b_in;
    const int *idx; /* input tokens, or NULL */
    const float *h, *w_hh, *b_hh;
    float *h_out;
    float *xd; /* if set: [embedding | h'] rows of width Kin + H */
    int first; /* the token of step 0 (sos), when keys is NULL */
    const unsigned long long *keys; /* the previous step's argmax, or NULL */
    unsigned long long *clear;      /* keys to zero for this step */
    int *tok_out;                   /* previous step's tokens (B), or NULL */
    float *logit_out;               /* previous step's chosen logits */
};

#define STEP_MAXB 16 /* sentences one step kernel takes, at most */

__device__ __forceinline__ int step_token(const step_args &a, int b)
{
    if (a.idx)
        return a.idx[b];
    return a.keys ? key_index(a.keys[b]) : a.first;
}

template <int NK>
__global__ void __launch_bounds__(192) step_kernel(step_args a)
{
    __shared__ float sums[6][STEP_MAXB], adds[6][STEP_MAXB];
    int j = blockIdx.x, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int g = warp % 3, hidden = warp / 3, H = a.H, B = a.B;
    if (j == 0 && a.keys && threadIdx.x < B) {
        /* the previous step's argmax, decoded once for the record */
        unsigned long long k = a.keys[threadIdx.x];
        a.tok_out[threadIdx.x] = key_index(k);
        a.logit_out[threadIdx.x] = unordered((unsigned)(k >> 32));
    }
    if (j == 0 && a.clear && threadIdx.x < B)
        a.clear[threadIdx.x] = 0;
    int K = hidden ? H : a.Kin;
    const float *row = hidden   ? a.w_hh + ((size_t)g * H + j) * H
                       : a.w_in ? a.w_in + ((size_t)g * H + j) * a.ldw
                                : NULL;
    float w[NK];
#pragma unroll
    for (int i = 0; i < NK; i++) {
        int k = lane + 32 * i;
        w[i] = row && k < K ? __ldg(row + k) : 0.f;
    }
    /* every sentence's input and hidden rows into shared memory first,
     * all loads in flight together: one trip to L2, not one per sentence */
    extern __shared__ float stage[]; /* B x (Kin + H) */
    int in = a.w_in ? a.Kin : 0, width = in + H;
    block_fill<8>(stage, B * width, [&](int i) {
        int b = i / width, k = i % width;
        return k >= in ? a.h[(size_t)b * H + k - in]
                       : a.table[(size_t)step_token(a, b) * in + k];
    });
    /* what each row adds per sentence (bias, precomputed share), one load
     * per lane */
    for (int b = lane; b < B; b += 32)
        adds[warp][b] =
            hidden
                ? a.b_hh[g * H + j]
                : (a.gi_add ? a.gi_add[(size_t)b * 3 * H + g * H + j] : 0.f) +
                      (a.b_in ? a.b_in[g * H + j] : 0.f);
    __syncthreads();
    for (int b = 0; b < B; b++) {
        float acc = 0.f;
        if (row) {
            const float *v = stage + (size_t)b * width + (hidden ? in : 0);
#pragma unroll
            for (int i = 0; i < NK; i++) {
                int k = lane + 32 * i;
                if (k < K)
                    acc = fmaf(w[i], v[k], acc);
            }
            acc = warp_sum(acc);
        }
        if (lane == 0)
            sums[warp][b] = acc + adds[warp][b];
    }
    __syncthreads();
    for (int b = threadIdx.x; b < B; b += blockDim.x) {
        float v = gru_gates(sums[0][b], sums[1][b], sums[2][b], sums[3][b],
                            sums[4][b], sums[5][b], stage[b * width + in + j]);
        a.h_out[(size_t)b * H + j] = v;
        if (a.xd)
            a.xd[(size_t)b * (a.Kin + H) + a.Kin + j] = v;
    }
    /* the embedding half of [embedding | h'] for the output layer */
    if (a.xd && a.table)
        for (int e = j; e < a.Kin; e += gridDim.x)
            for (int b = threadIdx.x; b < B; b += blockDim.x)
                a.xd[(size_t)b * (a.Kin + H) + e] =
                    a.table[(size_t)step_token(a, b) * a.Kin + e];
}

/* the output layer and the argmax for a few sentences: logits
 * o[b][v] = W_out[v, :K] . xd[b] + clog[b][v]; each warp takes rows, each
 * block merges its best per sentence into keys[b] */
#define FC_MAXB 8

template <int NK>
__global__ void __launch_bounds__(256)
    fc_argmax_kernel(const float *w, int ldw, int K, int V, const float *xd,
                     const float *clog, int B, unsigned long long *keys)
{
    __shared__ float x[FC_MAXB][32 * NK];
    __shared__ unsigned long long best[8][FC_MAXB];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    block_fill<8>(&x[0][0], B * 32 * NK, [&](int i) {
        int b = i / (32 * NK), k = i % (32 * NK);
        return k < K ? xd[(size_t)b * K + k] : 0.f;
    });
    __syncthreads();
    unsigned long long mine[FC_MAXB];
#pragma unroll
    for (int b = 0; b < FC_MAXB; b++)
        mine[b] = 0;
    int rows_per_block = (V + gridDim.x - 1) / gridDim.x;
    int v0 = blockIdx.x * rows_per_block;
    int v1 = min(V, v0 + rows_per_block);
    for (int v = v0 + warp; v < v1; v += 8) {
        /* the row's weights and every sentence's context logit: all the
         * loads in flight before the first product */
        float wr[NK], cl[FC_MAXB];
#pragma unroll
        for (int i = 0; i < NK; i++) {
            int k = lane + 32 * i;
            wr[i] = k < K ? __ldg(w + (size_t)v * ldw + k) : 0.f;
        }
#pragma unroll
        for (int b = 0; b < FC_MAXB; b++)
            cl[b] = b < B ? clog[(size_t)b * V + v] : 0.f;
#pragma unroll
        for (int b = 0; b < FC_MAXB; b++) {
            if (b < B) { /* B is uniform: no divergence */
                float acc = 0.f;
#pragma unroll
                for (int i = 0; i < NK; i++)
                    acc = fmaf(wr[i], x[b][lane + 32 * i], acc);
                acc = warp_sum(acc) + cl[b];
                unsigned long long k = argmax_key(acc, v);
                mine[b] = k > mine[b] ? k : mine[b];
            }
        }
    }
    if (lane == 0)
#pragma unroll
        for (int b = 0; b < FC_MAXB; b++)
            best[warp][b] = mine[b];
    __syncthreads();
    if (threadIdx.x < B) {
        unsigned long long k = 0;
        for (int i = 0; i < 8; i++)
            k = best[i][threadIdx.x] > k ? best[i][threadIdx.x] : k;
        atomicMax(keys + threadIdx.x, k);
    }
}

/* the argmax of full logits rows into keys (the cuBLAS output layer) */
__global__ void keys_kernel(const float *x, int n, unsigned long long *keys)
{
    unsigned long long best = row_argmax(x + (size_t)blockIdx.x * n, n);
    if (threadIdx.x == 0)
        keys[blockIdx.x] = best;
}

/* the last step's tokens and logits, from its keys */
__global__ void finish_kernel(const unsigned long long *keys, int B, int *tok,
                              float *logit)
{
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < B) {
        tok[b] = key_index(keys[b]);
        logit[b] = unordered((unsigned)(keys[b] >> 32));
    }
}

/* the step kernel's staging area: every sentence's input and hidden row */
static size_t step_smem(const step_args *a)
{
    return (size_t)a->B * ((a->w_in ? a->Kin : 0) + a->H) * sizeof(float);
}

/* the largest staging area: STEP_MAXB rows of 512 + 512 floats */
static int kernels_ready(void)
{
    static int done;
    if (!done)
        done = cudaFuncSetAttribute(
                   step_kernel<16>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                   STEP_MAXB * 1024 * sizeof(float)) == cudaSuccess;
    return done;
}

// ----------------------------------------------------------------------------
// cuBLAS

static cublasHandle_t blas_handle(void)
{
    static cublasHandle_t h;
    if (!h) {
        if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS ||
            cublasSetMathMode(h, CUBLAS_DEFAULT_MATH) !=
                CUBLAS_STATUS_SUCCESS) {
            fprintf(stderr, "seq2seq: cuBLAS cannot start\n");
            h = NULL;
        }
    }
    return h;
}

/* row-major C (M, N) = A (M, K) * W^T (+ beta C), W row-major (N, >= K)
 * with row stride ldw, A with row stride lda */
static int gemm_nt(cublasHandle_t h, const float *A, int lda, const float *W,
                   int ldw, float *C, int M, int N, int K, float beta)
{
    const float one = 1.0f;
    return cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, W, ldw, A,
                       lda, &beta, C, N) == CUBLAS_STATUS_SUCCESS;
}

// ----------------------------------------------------------------------------
// the workspace

struct ws {
    float *g;      /* (S*B, 3H): encoder input projections */
    float *xs;     /* (S*B, E): gathered source embeddings */
    float *h[2];   /* (B, H) */
    float *cgi;    /* (B, 3H): the context's input projection + b_ih */
    float *clog;   /* (B, V): the context's logits + b_out */
    float *gh;     /* (B, 3H) */
    float *gi;     /* (B, 3H) */
    float *xd;     /* (B, E + 2H): [embedding | hidden | context] */
    float *d2;     /* (B, H): the decoder's second state buffer */
    float *logits; /* (B, V) */
    unsigned long long *keys[2]; /* (B) */
    int *prev;                   /* (B) */
    /* rung 4's tagged words, for B <= R4_MAXB (else NULL) */
    unsigned long long *hx; /* (T, B, H): the decoder's hidden states */
    unsigned long long *kx; /* (T, B, R4_MAXGRID): each block's argmax */
    unsigned long long *ex; /* (S, B, H): rung 5's encoder states */
    size_t bytes;
};

static size_t r256(size_t n)
{
    return (n + 255) / 256 * 256;
}

#define R4_MAXB    8   /* rung 4's largest batch */
#define R4_MAXGRID 256 /* rung 4's largest grid */

static int rung(void);

static struct ws s2s_layout(void *base, const struct seq2seq_model *m, int S,
                            int T, int B)
{
    struct ws w;
    size_t e = (size_t)m->emb, h = (size_t)m->hid, v = (size_t)m->v_tgt;
    size_t sb = (size_t)S * B, b = (size_t)B, f = sizeof(float);
    size_t r4 = B <= R4_MAXB ? (size_t)T * b * 8 : 0;
    /* rung 5's encoder words only when it runs: the lower rungs'
     * workspace stays what it was */
    size_t r5 = rung() == 5 && B <= R4_MAXB ? (size_t)S * b * 8 : 0;
    struct {
        void **at;
        size_t bytes;
    } slot[] = {
        {(void **)&w.g, sb * 3 * h * f},
        {(void **)&w.xs, sb * e * f},
        {(void **)&w.h[0], b * h * f},
        {(void **)&w.h[1], b * h * f},
        {(void **)&w.cgi, b * 3 * h * f},
        {(void **)&w.clog, b * v * f},
        {(void **)&w.gh, b * 3 * h * f},
        {(void **)&w.gi, b * 3 * h * f},
        {(void **)&w.xd, b * (e + 2 * h) * f},
        {(void **)&w.d2, b * h * f},
        {(void **)&w.logits, b * v * f},
        {(void **)&w.keys[0], b * 8},
        {(void **)&w.keys[1], b * 8},
        {(void **)&w.prev, b * sizeof(int)},
        {(void **)&w.hx, r4 * h},
        {(void **)&w.kx, r4 * R4_MAXGRID},
        /* right after kx (and hx before it): rung 5 zeroes the three
         * slots with one memset */
        {(void **)&w.ex, r5 * h},
    };
    size_t at = 0;
    for (size_t i = 0; i < sizeof slot / sizeof slot[0]; i++) {
        *slot[i].at = (char *)base + at;
        at += r256(slot[i].bytes);
    }
    w.bytes = at;
    if (!r4)
        w.hx = w.kx = w.ex = NULL;
    return w;
}

extern "C" size_t seq2seq_workspace_size(const struct seq2seq_model *m, int S,
                                         int T, int B)
{
    return s2s_layout(NULL, m, S, T, B).bytes;
}

// ----------------------------------------------------------------------------
// the encoder (both rungs): context into w->h[S % 2]... returned

static int s2s_encode(const struct seq2seq_model *m, const int *src, int S,
                      int B, int fused, const struct ws *w, float **ctx,
                      cudaStream_t s)
{
    int E = m->emb, H = m->hid;
    cublasHandle_t h = blas_handle();
    if (!h)
        return 0;
    S2S_TRY(cublasSetStream(h, s));
    gather_kernel<<<blocks_for((long long)S * B * E), 256, 0, s>>>(
        m->enc_emb, src, w->xs, (long long)S * B, E, E, 0);
    if (!gemm_nt(h, w->xs, E, m->enc.w_ih, E, w->g, S * B, 3 * H, E, 0.f))
        return 0;
    S2S_TRY(cudaMemsetAsync(w->h[0], 0, (size_t)B * H * sizeof(float), s));
    for (int t = 0; t < S; t++) {
        const float *hp = w->h[t & 1];
        float *hn = w->h[(t + 1) & 1];
        if (fused && B <= STEP_MAXB && H <= 32 * 16) {
            step_args a;
            memset(&a, 0, sizeof a);
            a.B = B;
            a.H = H;
            a.gi_add = w->g + (size_t)t * B * 3 * H;
            a.b_in = m->enc.b_ih;
            a.h = hp;
            a.w_hh = m->enc.w_hh;
            a.b_hh = m->enc.b_hh;
            a.h_out = hn;
            step_kernel<16><<<H, 192, step_smem(&a), s>>>(a);
        } else {
            if (!gemm_nt(h, hp, H, m->enc.w_hh, H, w->gh, B, 3 * H, H, 0.f))
                return 0;
            gates_kernel<<<blocks_for((long long)B * H), 256, 0, s>>>(
                w->g + (size_t)t * B * 3 * H, w->gh, m->enc.b_ih, m->enc.b_hh,
                hp, hn, B, H);
        }
    }
    *ctx = w->h[S & 1];
    return 1;
}

// ----------------------------------------------------------------------------
// rung 1: the straightforward decoder

static int s2s_port(const struct seq2seq_model *m, const int *src, int S, int B,
                    int T, int sos, const int *y_in, int *tokens, float *logits,
                    float *out, const struct ws *w, cudaStream_t s)
{
    int E = m->emb, H = m->hid, V = m->v_tgt, X = E + 2 * H;
    cublasHandle_t h = blas_handle();
    float *ctx;
    if (!s2s_encode(m, src, S, B, 0, w, &ctx, s))
        return 0;
    /* the decoder's state alternates between the encoder buffer that does
     * not hold the context and a buffer of its own */
    float *dbuf[2] = {ctx == w->h[0] ? w->h[1] : w->h[0], w->d2};
    fill_kernel<<<(B + 255) / 256, 256, 0, s>>>(w->prev, sos, B);
    const float *dp = ctx;
    for (int t = 0; t < T; t++) {
        float *dn = dbuf[t & 1];
        const int *tok = y_in ? y_in + (size_t)t * B : w->prev;
        /* xd = [embedding | context] for the GRU's input */
        gather_kernel<<<blocks_for((long long)B * E), 256, 0, s>>>(
            m->dec_emb, tok, w->xd, B, E, E + H, 0);
        copy_cols_kernel<<<blocks_for((long long)B * H), 256, 0, s>>>(
            ctx, w->xd, B, H, E + H, E);
        if (!gemm_nt(h, w->xd, E + H, m->dec.w_ih, E + H, w->gi, B, 3 * H,
                     E + H, 0.f) ||
            !gemm_nt(h, dp, H, m->dec.w_hh, H, w->gh, B, 3 * H, H, 0.f))
            return 0;
        gates_kernel<<<blocks_for((long long)B * H), 256, 0, s>>>(
            w->gi, w->gh, m->dec.b_ih, m->dec.b_hh, dp, dn, B, H);
        /* xd = [embedding | hidden | context] for the output layer */
        gather_kernel<<<blocks_for((long long)B * E), 256, 0, s>>>(
            m->dec_emb, tok, w->xd, B, E, X, 0);
        copy_cols_kernel<<<blocks_for((long long)B * H), 256, 0, s>>>(
            dn, w->xd, B, H, X, E);
        copy_cols_kernel<<<blocks_for((long long)B * H), 256, 0, s>>>(
            ctx, w->xd, B, H, X, E + H);
        float *o = out ? out + (size_t)t * B * V : w->logits;
        broadcast_kernel<<<blocks_for((long long)B * V), 256, 0, s>>>(m->fc_b,
                                                                      o, B, V);
        if (!gemm_nt(h, w->xd, X, m->fc_w, X, o, B, V, X, 1.f))
            return 0;
        if (!out)
            argmax_kernel<<<B, 256, 0, s>>>(o, V, tokens + (size_t)t * B,
                                            logits + (size_t)t * B, w->prev);
        dp = dn;
    }
    return 1;
}

// ----------------------------------------------------------------------------
// rung 3: constants once, a fused GRU step, a fused output layer

/* one step's logits (B, V) into o: the context's precomputed share, then
 * the [embedding | hidden] part added by cuBLAS (beta = 1) */
static int logits_onto_context(cublasHandle_t h, const struct seq2seq_model *m,
                               const struct ws *w, float *o, int B,
                               cudaStream_t s)
{
    int E = m->emb, H = m->hid, V = m->v_tgt;
    S2S_TRY(cudaMemcpyAsync(o, w->clog, (size_t)B * V * sizeof(float),
                            cudaMemcpyDeviceToDevice, s));
    return gemm_nt(h, w->xd, E + H, m->fc_w, E + 2 * H, o, B, V, E + H, 1.f);
}

/* the context's shares: cgi = W_ih[:, E:] c + b_ih, clog = W_out[:,
 * E+H:] c + b_out */
static int fold_context(const struct seq2seq_model *m, const float *ctx, int B,
                        const struct ws *w, cudaStream_t s)
{
    int E = m->emb, H = m->hid, V = m->v_tgt, X = E + 2 * H;
    cublasHandle_t h = blas_handle();
    broadcast_kernel<<<blocks_for((long long)B * 3 * H), 256, 0, s>>>(
        m->dec.b_ih, w->cgi, B, 3 * H);
    broadcast_kernel<<<blocks_for((long long)B * V), 256, 0, s>>>(
        m->fc_b, w->clog, B, V);
    return gemm_nt(h, ctx, H, m->dec.w_ih + E, E + H, w->cgi, B, 3 * H, H,
                   1.f) &&
           gemm_nt(h, ctx, H, m->fc_w + E + H, X, w->clog, B, V, H, 1.f);
}

static int s2s_fused(const struct seq2seq_model *m, const int *src, int S,
                     int B, int T, int sos, const int *y_in, int *tokens,
                     float *logits, float *out, const struct ws *w,
                     cudaStream_t s)
{
    int E = m->emb, H = m->hid, V = m->v_tgt, X = E + 2 * H;
    cublasHandle_t h = blas_handle();
    float *ctx;
    if (!s2s_encode(m, src, S, B, 1, w, &ctx, s) ||
        !fold_context(m, ctx, B, w, s))
        return 0;
    float *dbuf[2] = {ctx == w->h[0] ? w->h[1] : w->h[0], w->d2};
    int small = !out && B <= FC_MAXB && E + H <= 32 * 32;
    const float *dp = ctx;
    if (B > STEP_MAXB) {
        /* many sentences: the GRU's products are GEMMs worth cuBLAS */
        fill_kernel<<<(B + 255) / 256, 256, 0, s>>>(w->prev, sos, B);
        if (!out)
            S2S_TRY(cudaMemsetAsync(w->keys[0], 0,
                                    (size_t)B * sizeof(unsigned long long), s));
        for (int t = 0; t < T; t++) {
            float *dn = dbuf[t & 1];
            const int *tok = y_in ? y_in + (size_t)t * B : w->prev;
            gather_kernel<<<blocks_for((long long)B * E), 256, 0, s>>>(
                m->dec_emb, tok, w->xd, B, E, E + H, 0);
            if (!gemm_nt(h, w->xd, E + H, m->dec.w_ih, E + H, w->gi, B, 3 * H,
                         E, 0.f) ||
                !gemm_nt(h, dp, H, m->dec.w_hh, H, w->gh, B, 3 * H, H, 0.f))
                return 0;
            dec_gates_kernel<<<blocks_for((long long)B * H), 256, 0, s>>>(
                w->gi, w->cgi, w->gh, m->dec.b_hh, dp, dn, w->xd, E + H, E, B,
                H);
            if (out) {
                if (!logits_onto_context(h, m, w, out + (size_t)t * B * V, B,
                                         s))
                    return 0;
            } else {
                /* greedy: the context's logits are added in the argmax,
                 * not copied in before the GEMM */
                if (!gemm_nt(h, w->xd, E + H, m->fc_w, X, w->logits, B, V,
                             E + H, 0.f))
                    return 0;
                argmax_part_kernel<<<dim3(B, (V + ARGMAX_CHUNK - 1) /
                                                 ARGMAX_CHUNK),
                                     256, 0, s>>>(w->logits, w->clog, V,
                                                  w->keys[0]);
                take_kernel<<<(B + 255) / 256, 256, 0, s>>>(
                    w->keys[0], B, V, tokens + (size_t)t * B,
                    logits + (size_t)t * B, w->prev);
            }
            dp = dn;
        }
        return 1;
    }
    for (int t = 0; t < T; t++) {
        float *dn = dbuf[t & 1];
        step_args a;
        memset(&a, 0, sizeof a);
        a.B = B;
        a.H = H;
        a.Kin = E;
        a.ldw = E + H;
        a.w_in = m->dec.w_ih;
        a.table = m->dec_emb;
        a.gi_add = w->cgi;
        a.h = dp;
        a.w_hh = m->dec.w_hh;
        a.b_hh = m->dec.b_hh;
        a.h_out = dn;
        a.xd = w->xd; /* [embedding | hidden], E + H wide */
        a.first = sos;
        if (y_in)
            a.idx = y_in + (size_t)t * B;
        else if (t > 0) {
            a.keys = w->keys[(t - 1) & 1];
            a.tok_out = tokens + (size_t)(t - 1) * B;
            a.logit_out = logits + (size_t)(t - 1) * B;
        }
        a.clear = out ? NULL : w->keys[t & 1];
        step_kernel<16><<<H, 192, step_smem(&a), s>>>(a);
        if (small) {
            int blocks = (V + 31) / 32;
            fc_argmax_kernel<32><<<blocks, 256, 0, s>>>(
                m->fc_w, X, E + H, V, w->xd, w->clog, B, w->keys[t & 1]);
        } else {
            float *o = out ? out + (size_t)t * B * V : w->logits;
            if (!logits_onto_context(h, m, w, o, B, s))
                return 0;
            if (!out)
                keys_kernel<<<B, 256, 0, s>>>(o, V, w->keys[t & 1]);
        }
        dp = dn;
    }
    if (!out)
        finish_kernel<<<(B + 255) / 256, 256, 0, s>>>(
            w->keys[(T - 1) & 1], B, tokens + (size_t)(T - 1) * B,
            logits + (size_t)(T - 1) * B);
    return 1;
}

// ----------------------------------------------------------------------------
// rung 4: the whole greedy decode in one persistent kernel
//
// Graded on an H100 (2026-11-27: 100 of 100 with seeds 11 and 12,
// memcheck, racecheck and synccheck clean; b1 0.361 ms, b8 0.872, b1-t128
// 0.885, where rung 3 made 0.563, 1.481 and 1.717 in the same run), and the
// default until rung 5 (below) took its calls. Larger batches run rung 3.
//
// The encoder and the context's shares (cgi, clog) run as in rung 3, in a
// CUDA graph; then one cooperative kernel, a block per SM, runs all T decode
// steps. Each block keeps rows r0 .. r0 + R - 1 of W_out[:, :E + H] (R =
// ceil(V / grid) <= 64: 63 rows, 189 KB at V = 8192, E = 256, H = 512 on
// 132 SMs) in shared memory for the whole call, and owns up to 4 hidden
// units of the GRU (their rows of W_ih[:, :E] stay in registers, W_hh's are
// read from L2). No grid barrier: values move between blocks as 64-bit
// words that carry a tag new on every call (as Lab 5's rung 4), written
// once per call into slots of their own, so nothing is reset between calls:
// - d_t: (tag << 32) | the float's bits, one word per (step, row, unit);
// - each block's best logit of a step and row: the float's ordered bits
//   above 8191 - index (13 bits) above the tag's low 19 bits, so that the
//   largest word of a row is its argmax, ties to the lowest index (the
//   order of argmax_key). Every block reads every block's word to learn the
//   next token: no atomics, and the same answer in every block. 19 tag
//   bits would match leftover bytes once in 2^19 words: these slots alone
//   are zeroed on every call, in the encoder's graph.
// A step in a block, in the order of its critical path:
//   A  gather e_t = E_tgt[y_(t-1)] into shared memory
//   B  its units' W_ih e_t (the hidden half W_hh d_(t-1) was done in F),
//      the gates, d_t published
//   C  the embedding's share of its logits, W_out[:, :E] e_t (while the
//      other blocks finish d_t)
//   D  poll all of d_t into shared memory
//   E  W_out[:, E:E+H] d_t, plus C's share and clog: its best per sentence
//      published
//   F  its units' W_hh d_t + b_hh for step t + 1 (while the keys come in)
//   G  poll every block's best: y_t (block 0 records it)
// A wait that lasts 2 s traps (a CUDA error, never a hang).

#define R4_NT         512 /* threads a block */
#define R4_WARPS      (R4_NT / 32)
#define R4_ROWS       4                     /* output rows a warp */
#define R4_MAXR       (R4_WARPS * R4_ROWS)  /* output rows a block */
#define R4_MAXU       4                     /* hidden units a block */
#define R4_PER        8                     /* loads in flight a thread */
#define R4_GRP        (R4_NT / R4_MAXB)     /* threads polling a row's keys */
#define R4_KPT        (R4_MAXGRID / R4_GRP) /* keys a thread polls */
#define R4_TAGB       19                    /* tag bits in a key */
#define R4_TAGM       ((1u << R4_TAGB) - 1u)
#define R4_MAXV       (1 << (32 - R4_TAGB)) /* indices a key can carry */
#define R4_TIMEOUT_NS 2000000000ull

struct r4_args {
    int B, T, E, H, V, sos;
    int EP, HP, KW; /* E and H rounded up to 128; KW = EP + HP */
    int R, Rp, upb; /* output rows a block (Rp: R rounded up to 4), units */
    int vec;        /* W_out rows may be read as float4 */
    unsigned tag;   /* this call's */
    const float *fc_w, *dec_emb, *w_ih, *w_hh, *b_hh;
    const float *cgi, *clog, *ctx;
    unsigned long long *hx, *kx;
    int *tokens;
    float *logits;
    /* rung 5's encoder and context (unused by rung 4) */
    int S;
    const int *src;
    const float *enc_emb, *e_wih, *e_whh, *e_bih, *e_bhh;
    const float *d_bih, *fc_b;
    unsigned long long *ex;
};

static __device__ __forceinline__ unsigned long long
r4_ld(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];"
                 : "=l"(v)
                 : "l"(p)
                 : "memory");
    return v;
}

static __device__ __forceinline__ void r4_st(unsigned long long *p,
                                             unsigned long long v)
{
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v)
                 : "memory");
}

static __device__ __forceinline__ unsigned long long r4_now(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* called once per round of a spin: traps once the wait passes 2 s */
static __device__ __forceinline__ void r4_waited(unsigned &spins,
                                                 unsigned long long &t0)
{
    if ((++spins & 63u) == 0) {
        unsigned long long now = r4_now();
        if (spins == 64)
            t0 = now;
        else if (now - t0 > R4_TIMEOUT_NS)
            __trap(); /* a value that never comes: fail, do not hang */
    }
}

/* wait until every word w[e] (read from src[e * stride]) is this call's,
 * as @p mine says, reading again only those that are not yet */
template <int N, typename Mine>
static __device__ __forceinline__ void r4_poll(unsigned long long (&w)[N],
                                               const unsigned long long *src,
                                               int stride, Mine mine)
{
    unsigned spins = 0;
    unsigned long long t0 = 0;
    for (;;) {
        bool done = true;
#pragma unroll
        for (int e = 0; e < N; e++)
            if (!mine(w[e])) {
                done = false;
                w[e] = r4_ld(src + e * stride);
            }
        if (done)
            break;
        r4_waited(spins, t0);
    }
}

/* a block's best logit of a row as a tagged key (see above) */
static __device__ __forceinline__ unsigned long long r4_key(float v, int idx,
                                                            unsigned tag19)
{
    return (unsigned long long)ordered(v) << 32 |
           (unsigned)(R4_MAXV - 1 - idx) << R4_TAGB | tag19;
}

static __device__ __forceinline__ int r4_key_index(unsigned long long k)
{
    return R4_MAXV - 1 - (int)((unsigned)k >> R4_TAGB);
}

/* v[0 .. N) summed over the warp, N a power of 2 up to 32, reduced and
 * scattered at once: lane l ends with the total of v[l >> (5 - log2 N)] */
template <int N, int OFF>
static __device__ __forceinline__ float r4_reduce(float *v, int lane)
{
    if constexpr (OFF == 0) {
        return v[0];
    } else if constexpr (N > 1) {
        constexpr int h = N / 2;
        const bool up = (lane & OFF) != 0;
#pragma unroll
        for (int i = 0; i < h; i++) {
            float send = up ? v[i] : v[i + h];
            float keep = up ? v[i + h] : v[i];
            v[i] = keep + __shfl_xor_sync(0xffffffffu, send, OFF);
        }
        return r4_reduce<h, OFF / 2>(v, lane);
    } else {
        v[0] += __shfl_xor_sync(0xffffffffu, v[0], OFF);
        return r4_reduce<1, OFF / 2>(v, lane);
    }
}

template <int N> struct r4_log2 {
    static constexpr int v = N <= 1 ? 0 : 1 + r4_log2<N / 2>::v;
};
template <> struct r4_log2<1> {
    static constexpr int v = 0;
};

/* the warp's R4_ROWS rows of W (row stride KW, from column c0, n128 chunks
 * of 128 columns) against BT rows of X (row stride KW): lane l ends with the
 * sum of row i / BT and sentence i % BT, i = l >> (3 - log2 BT) */
template <int BT>
static __device__ __forceinline__ float
r4_rows(const float *W, const float *X, int KW, int c0, int n128, int lane)
{
    float acc[R4_ROWS * BT];
#pragma unroll
    for (int i = 0; i < R4_ROWS * BT; i++)
        acc[i] = 0.f;
        /* 8-byte loads: 16-byte ones, all in flight, would need more
         * registers than 512 threads a block have at BT = 8 */
#pragma unroll(BT == 4 ? 1 : 2)
    for (int q = 0; q < 2 * n128; q++) {
        int c = c0 + 64 * q + 2 * lane;
        float2 w[R4_ROWS];
#pragma unroll
        for (int r = 0; r < R4_ROWS; r++)
            w[r] = *(const float2 *)(W + (size_t)r * KW + c);
#pragma unroll
        for (int b = 0; b < BT; b++) {
            float2 x = *(const float2 *)(X + (size_t)b * KW + c);
#pragma unroll
            for (int r = 0; r < R4_ROWS; r++) {
                float a = acc[r * BT + b];
                a = fmaf(w[r].x, x.x, a);
                a = fmaf(w[r].y, x.y, a);
                acc[r * BT + b] = a;
            }
        }
    }
    return r4_reduce<R4_ROWS * BT, 16>(acc, lane);
}

/* one GRU half for this warp's row (unit u, gate g): w[i] holds column
 * lane + 32 i of the row (0 past K), X the vectors (row stride KW, from
 * column c0); the sums of sentences b < B (+ add) into out[b] */
template <int BT, int NW>
static __device__ __forceinline__ void
r4_gru_dot(const float (&w)[NW], const float *X, int KW, int c0, int K, int B,
           float add, float *out, int lane)
{
    float acc[BT];
#pragma unroll
    for (int b = 0; b < BT; b++) {
        float a = 0.f;
        if (b < B)
#pragma unroll
            for (int i = 0; i < NW; i++)
                if (lane + 32 * i < K)
                    a = fmaf(w[i], X[(size_t)b * KW + c0 + lane + 32 * i], a);
        acc[b] = a;
    }
    constexpr int sh = 5 - r4_log2<BT>::v;
    float v = r4_reduce<BT, 16>(acc, lane);
    int b = lane >> sh;
    if ((lane & ((1 << sh) - 1)) == 0 && b < B)
        out[b] = v + add;
}

/* the decode kernel's body; ENC: rung 5's, whose r5_encode has run
 * instead of rung 4's prologue */
template <int BT, bool ENC>
static __device__ __forceinline__ void r4_body(const r4_args &a)
{
    extern __shared__ float4 r4_smem4[];
    const int B = a.B, E = a.E, H = a.H, V = a.V, KW = a.KW, EP = a.EP;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int blk = blockIdx.x, grid = gridDim.x;
    const unsigned tag = a.tag, tag19 = a.tag & R4_TAGM;
    const int r0 = blk * a.R, Rv = max(0, min(a.R, V - r0));
    const int j0 = blk * a.upb, nu = max(0, min(a.upb, H - j0));
    /* (r5_encode carves the same, and the source tokens after toks) */
    float *Ws = (float *)r4_smem4;            /* Rp x KW */
    float *Xs = Ws + (size_t)a.Rp * KW;       /* BT x KW: [e | d] */
    float *cg = Xs + (size_t)BT * KW;         /* [u][g][8]: cgi */
    float *gis = cg + R4_MAXU * 3 * R4_MAXB;  /* [u][g][8]: W_ih e */
    float *ghs = gis + R4_MAXU * 3 * R4_MAXB; /* [u][g][8]: W_hh d + b */
    float *cl = ghs + R4_MAXU * 3 * R4_MAXB;  /* [r][8]: clog */
    unsigned long long *best =
        (unsigned long long *)(cl + R4_MAXR * R4_MAXB);  /* [warp][8] */
    unsigned long long *red = best + R4_WARPS * R4_MAXB; /* [warp] */
    int *toks = (int *)(red + R4_WARPS);                 /* [8] */

    if constexpr (!ENC) {
        /* the prologue: W_out's rows, each loader's loads all in flight */
        {
            const int X = E + 2 * H;
            if (a.vec) {
                const int q = KW / 4, n = a.Rp * q;
                for (int i0 = tid; i0 < n; i0 += R4_NT * R4_PER) {
                    float4 v[R4_PER];
#pragma unroll
                    for (int e = 0; e < R4_PER; e++) {
                        int i = i0 + e * R4_NT, r = i / q, c = (i % q) * 4;
                        int src = c < EP ? (c < E ? c : -1)
                                         : (c - EP < H ? E + c - EP : -1);
                        v[e] = make_float4(0.f, 0.f, 0.f, 0.f);
                        if (i < n && r < Rv && src >= 0)
                            v[e] = __ldg((const float4 *)(a.fc_w +
                                                          (size_t)(r0 + r) * X +
                                                          src));
                    }
#pragma unroll
                    for (int e = 0; e < R4_PER; e++) {
                        int i = i0 + e * R4_NT;
                        if (i < n)
                            *(float4 *)(Ws + (size_t)i * 4) = v[e];
                    }
                }
            } else {
                const int n = a.Rp * KW;
                block_fill<R4_PER>(Ws, n, [&](int i) {
                    int r = i / KW, c = i % KW;
                    int src = c < EP ? (c < E ? c : -1)
                                     : (c - EP < H ? E + c - EP : -1);
                    return r < Rv && src >= 0
                               ? __ldg(a.fc_w + (size_t)(r0 + r) * X + src)
                               : 0.f;
                });
            }
        }
        /* d_(-1) = c into the hidden half of X (zero elsewhere: padding,
         * sentences past B, the embedding half until step 0 gathers it) */
        block_fill<R4_PER>(Xs, BT * KW, [&](int i) {
            int b = i / KW, c = i % KW - EP;
            return b < B && c >= 0 && c < H ? a.ctx[(size_t)b * H + c] : 0.f;
        });
        for (int i = tid; i < R4_MAXU * 3 * R4_MAXB; i += R4_NT) {
            int u = i / (3 * R4_MAXB), g = i / R4_MAXB % 3, b = i % R4_MAXB;
            cg[i] = u < nu && b < B ? a.cgi[(size_t)b * 3 * H + g * H + j0 + u]
                                    : 0.f;
            gis[i] = ghs[i] = 0.f;
        }
        for (int i = tid; i < R4_MAXR * R4_MAXB; i += R4_NT) {
            int r = i / R4_MAXB, b = i % R4_MAXB;
            cl[i] = r < Rv && b < B ? a.clog[(size_t)b * V + r0 + r] : 0.f;
        }
    }
    if (tid < R4_MAXB)
        toks[tid] = a.sos;

    /* this warp's GRU row, if any: warp 3u + g is gate g of unit j0 + u.
     * Its W_ih[:, :E] part is loaded in F, before the wait for the token,
     * and held in registers until B uses it (not through C to E, where the
     * output layer needs the registers) */
    const int gu = warp / 3, gg = warp % 3, gj = j0 + gu;
    const bool grow = warp < 3 * R4_MAXU && gu < nu;
    float wi[8];
    auto load_wi = [&]() {
#pragma unroll
        for (int i = 0; i < 8; i++) {
            int k = lane + 32 * i;
            wi[i] = grow && k < E
                        ? __ldg(a.w_ih + (size_t)(gg * H + gj) * (E + H) + k)
                        : 0.f;
        }
    };
    load_wi();
    const float bh = grow ? __ldg(a.b_hh + gg * H + gj) : 0.f;
    __syncthreads();

    /* F for step 0: W_hh c + b_hh */
    auto hidden_half = [&]() {
        if (!grow)
            return;
        float wh[16];
#pragma unroll
        for (int i = 0; i < 16; i++) {
            int k = lane + 32 * i;
            wh[i] = k < H ? __ldg(a.w_hh + (size_t)(gg * H + gj) * H + k) : 0.f;
        }
        r4_gru_dot<BT>(wh, Xs, KW, EP, H, B, bh, ghs + (gu * 3 + gg) * R4_MAXB,
                       lane);
    };
    hidden_half();

    /* this lane's output row and sentence after r4_rows */
    constexpr int osh = 3 - r4_log2<BT>::v;
    const int oi = lane >> osh, orow = R4_ROWS * warp + oi / BT, ob = oi % BT;
    const bool oval = orow < Rv && ob < B;
    const float *Wr = Ws + (size_t)R4_ROWS * warp * KW;
    const int mask_dup = (1 << osh) - 1;
    const bool orun = R4_ROWS * warp < a.Rp; /* rows of its own in Ws */

    for (int t = 0; t < a.T; t++) {
        /* A: the embeddings of the previous tokens */
        __syncthreads(); /* toks, and F's reads of Xs */
        for (int i0 = tid; i0 < B * E; i0 += R4_NT * 4) {
            float v[4];
#pragma unroll
            for (int e = 0; e < 4; e++) {
                int i = i0 + e * R4_NT;
                v[e] = i < B * E
                           ? __ldg(a.dec_emb + (size_t)toks[i / E] * E + i % E)
                           : 0.f;
            }
#pragma unroll
            for (int e = 0; e < 4; e++) {
                int i = i0 + e * R4_NT;
                if (i < B * E)
                    Xs[(size_t)(i / E) * KW + i % E] = v[e];
            }
        }
        __syncthreads();
        /* B: the input half of this block's units, the gates, d_t out */
        if (grow)
            r4_gru_dot<BT>(wi, Xs, KW, 0, E, B, 0.f,
                           gis + (gu * 3 + gg) * R4_MAXB, lane);
        __syncthreads();
        if (tid < nu * BT) {
            int u = tid / BT, b = tid % BT;
            if (b < B) {
                const float *gi = gis + u * 3 * R4_MAXB + b;
                const float *gc = cg + u * 3 * R4_MAXB + b;
                const float *gh = ghs + u * 3 * R4_MAXB + b;
                float d = gru_gates(gi[0] + gc[0], gi[R4_MAXB] + gc[R4_MAXB],
                                    gi[2 * R4_MAXB] + gc[2 * R4_MAXB], gh[0],
                                    gh[R4_MAXB], gh[2 * R4_MAXB],
                                    Xs[(size_t)b * KW + EP + j0 + u]);
                r4_st(a.hx + ((size_t)t * B + b) * H + j0 + u,
                      (unsigned long long)tag << 32 | __float_as_uint(d));
            }
        }
        __syncthreads(); /* the gates' reads of d_(t-1) before D */
        /* C: the embedding's share of this block's logits */
        float pe = orun ? r4_rows<BT>(Wr, Xs, KW, 0, EP / 128, lane) : 0.f;
        /* D: d_t from every block */
        {
            const unsigned long long *src = a.hx + (size_t)t * B * H;
            const unsigned long long ready = (unsigned long long)tag << 32;
            const int n = B * H;
            for (int i0 = tid; i0 < n; i0 += R4_NT * R4_PER) {
                unsigned long long w[R4_PER];
#pragma unroll
                for (int e = 0; e < R4_PER; e++) {
                    int i = i0 + e * R4_NT;
                    w[e] = i < n ? r4_ld(src + i) : ready;
                }
                r4_poll(w, src + i0, R4_NT, [&](unsigned long long x) {
                    return (unsigned)(x >> 32) == tag;
                });
#pragma unroll
                for (int e = 0; e < R4_PER; e++) {
                    int i = i0 + e * R4_NT;
                    if (i < n)
                        Xs[(size_t)(i / H) * KW + EP + i % H] =
                            __uint_as_float((unsigned)w[e]);
                }
            }
        }
        __syncthreads();
        /* E: the hidden share, the logits, this block's best per sentence */
        {
            float o =
                orun ? r4_rows<BT>(Wr, Xs, KW, EP, a.HP / 128, lane) : 0.f;
            unsigned long long k = 0;
            if (oval)
                k = r4_key(o + pe + cl[orow * R4_MAXB + ob], r0 + orow, tag19);
                /* the lanes of a sentence differ in lane bits 3 and 4 (the
                 * row) and in the low osh bits (copies) */
#pragma unroll
            for (int off = 8; off <= 16; off <<= 1) {
                unsigned long long x = __shfl_xor_sync(0xffffffffu, k, off);
                k = x > k ? x : k;
            }
            if (lane < 8 && (lane & mask_dup) == 0)
                best[warp * R4_MAXB + ob] = k;
        }
        __syncthreads();
        if (tid < B) {
            unsigned long long k = tag19; /* a block without rows */
            for (int w = 0; w < R4_WARPS; w++) {
                unsigned long long x = best[w * R4_MAXB + tid];
                k = x > k ? x : k;
            }
            r4_st(a.kx + ((size_t)t * B + tid) * R4_MAXGRID + blk, k);
        }
        /* F: the next step's hidden half, and its input half's weights */
        if (t + 1 < a.T) {
            hidden_half();
            load_wi();
        }
        /* G: every block's best: the next tokens */
        {
            const int b = tid / R4_GRP, q = tid % R4_GRP;
            unsigned long long k = 0;
            if (b < B) {
                const unsigned long long *src =
                    a.kx + ((size_t)t * B + b) * R4_MAXGRID;
                unsigned long long w[R4_KPT];
#pragma unroll
                for (int e = 0; e < R4_KPT; e++) {
                    int i = q + e * R4_GRP;
                    w[e] = i < grid ? r4_ld(src + i) : tag19;
                }
                r4_poll(w, src + q, R4_GRP, [&](unsigned long long x) {
                    return ((unsigned)x & R4_TAGM) == tag19;
                });
#pragma unroll
                for (int e = 0; e < R4_KPT; e++)
                    k = w[e] > k ? w[e] : k;
            }
#pragma unroll
            for (int off = 16; off > 0; off >>= 1) {
                unsigned long long x = __shfl_xor_sync(0xffffffffu, k, off);
                k = x > k ? x : k;
            }
            if (lane == 0)
                red[warp] = k;
        }
        __syncthreads();
        if (tid < B) {
            /* R4_GRP = 64 threads, two warps, a sentence */
            unsigned long long k = red[2 * tid] > red[2 * tid + 1]
                                       ? red[2 * tid]
                                       : red[2 * tid + 1];
            int i = r4_key_index(k);
            i = i >= 0 && i < V ? i : 0;
            toks[tid] = i;
            if (blk == 0) {
                a.tokens[(size_t)t * B + tid] = i;
                a.logits[(size_t)t * B + tid] = unordered((unsigned)(k >> 32));
            }
        }
    }
}

template <int BT>
static __global__ void __launch_bounds__(R4_NT, 1) r4_kernel(r4_args a)
{
    r4_body<BT, false>(a);
}

static size_t r4_smem(int Rp, int KW, int BT)
{
    return ((size_t)(Rp + BT) * KW + 3 * R4_MAXU * 3 * R4_MAXB +
            R4_MAXR * R4_MAXB) *
               sizeof(float) +
           (R4_WARPS * R4_MAXB + R4_WARPS) * sizeof(unsigned long long) +
           R4_MAXB * sizeof(int);
}

/* a new tag for every call (as Lab 5's rung 4): a counter from a start no
 * earlier process is likely to have used; never 0 (zeroed memory) or all
 * ones, and neither are its low R4_TAGB bits, which the keys carry */
static unsigned r4_next_tag(void)
{
    static unsigned base = 0, count = 0;
    if (!base) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        unsigned long long h = ((unsigned long long)ts.tv_sec * 1000000007ull) ^
                               (unsigned long long)ts.tv_nsec ^
                               (uintptr_t)&count;
        h *= 0x9e3779b97f4a7c15ull;
        base = (unsigned)(h >> 32) | 1u;
    }
    unsigned tag;
    do
        tag = base + ++count;
    while ((tag & R4_TAGM) == 0 || (tag & R4_TAGM) == R4_TAGM);
    return tag;
}

/* the kernel for a batch: BT sentences' worth of registers */
static const void *r4_fn(int BT)
{
    switch (BT) {
    case 1: return (const void *)r4_kernel<1>;
    case 2: return (const void *)r4_kernel<2>;
    case 4: return (const void *)r4_kernel<4>;
    default: return (const void *)r4_kernel<8>;
    }
}

/* rung 4's launch for this call, if it can run here: 0 (nothing done)
 * when the shape, the workspace or the device does not allow it */
struct r4_launch {
    r4_args a;
    const void *fn;
    int grid;
    size_t smem;
};

static int r4_plan(const struct seq2seq_model *m, int B, int T, int sos,
                   int *tokens, float *logits, const float *ctx,
                   const struct ws *w, struct r4_launch *l)
{
    /* the device's facts, and whether each kernel fits, once per device */
    static int dev = -1, sms, optin, coop;
    static int fits[4]; /* per BT: 0 not tried, 1 fits, -1 does not */
    static size_t fits_smem[4];
    int E = m->emb, H = m->hid, V = m->v_tgt, cur;
    if (B > R4_MAXB || !w->hx || !w->kx || E < 1 || E > 256 || H < 1 ||
        H > 512 || V < 1 || V > R4_MAXV)
        return 0;
    if (cudaGetDevice(&cur) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    if (cur != dev) {
        if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, cur) !=
                cudaSuccess ||
            cudaDeviceGetAttribute(&optin,
                                   cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                   cur) != cudaSuccess ||
            cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, cur) !=
                cudaSuccess) {
            (void)cudaGetLastError();
            return 0;
        }
        dev = cur;
        memset(fits, 0, sizeof fits);
    }
    int grid = sms, R = (V + grid - 1) / grid, upb = (H + grid - 1) / grid;
    if (!coop || grid > R4_MAXGRID || R > R4_MAXR || upb > R4_MAXU)
        return 0;
    int BT = B <= 1 ? 1 : B <= 2 ? 2 : B <= 4 ? 4 : 8;
    int bi = BT == 1 ? 0 : BT == 2 ? 1 : BT == 4 ? 2 : 3;
    r4_args *a = &l->a;
    memset(a, 0, sizeof *a);
    a->B = B;
    a->T = T;
    a->E = E;
    a->H = H;
    a->V = V;
    a->sos = sos;
    a->EP = (E + 127) / 128 * 128;
    a->HP = (H + 127) / 128 * 128;
    a->KW = a->EP + a->HP;
    a->R = R;
    a->Rp = (R + 3) / 4 * 4;
    a->upb = upb;
    a->vec = E % 4 == 0 && H % 4 == 0 && (uintptr_t)m->fc_w % 16 == 0;
    l->fn = r4_fn(BT);
    l->grid = grid;
    l->smem = r4_smem(a->Rp, a->KW, BT);
    if (l->smem > (size_t)optin)
        return 0;
    if (!fits[bi] || fits_smem[bi] != l->smem) {
        int per_sm = 0;
        fits[bi] = cudaFuncSetAttribute(
                       l->fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       (int)l->smem) == cudaSuccess &&
                           cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                               &per_sm, l->fn, R4_NT, l->smem) == cudaSuccess &&
                           per_sm >= 1
                       ? 1
                       : -1;
        fits_smem[bi] = l->smem;
        (void)cudaGetLastError();
    }
    if (fits[bi] < 0)
        return 0;
    a->fc_w = m->fc_w;
    a->dec_emb = m->dec_emb;
    a->w_ih = m->dec.w_ih;
    a->w_hh = m->dec.w_hh;
    a->b_hh = m->dec.b_hh;
    a->cgi = w->cgi;
    a->clog = w->clog;
    a->ctx = ctx;
    a->hx = w->hx;
    a->kx = w->kx;
    a->tokens = tokens;
    a->logits = logits;
    return 1;
}

/* enqueue the decode kernel with a new tag: 0 (nothing enqueued) if the
 * launch is refused */
static int r4_go(struct r4_launch *l, cudaStream_t s)
{
    l->a.tag = r4_next_tag();
    void *args[] = {&l->a};
    if (cudaLaunchCooperativeKernel(l->fn, l->grid, R4_NT, args, l->smem, s) !=
        cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return 1;
}

// ----------------------------------------------------------------------------
// rung 5: the encoder inside the decode kernel
//
// The default since it was graded on an H100 (2026-11-27, `gpu-check.sh
// rung 06 SEQ2SEQ_KERNEL=5`: 100 of 100 with seeds 11 and 12, memcheck,
// racecheck and synccheck clean on the quick cases). Its bench, beside
// rung 4 in the same hold: b1 0.271 ms (rung 4: 0.361), b8 0.739 (0.872),
// b1-t128 0.783 (0.876); b64 and beyond run rung 3's code in both. It was
// written on a machine without a GPU, from this estimate (b1 about
// 0.28 ms, b8 about 0.62 ms); the encoder at b8 took longer than thought:
// - rung 4 spends ~0.15 ms before its kernel at b1 (0.38 ms at b8): the
//   gather, the input GEMM, 32 step kernels of ~4 us (11 us at b8) and the
//   context's GEMMs; then its kernel loads 25 MB of W_out rows (~8 us)
//   before the first decode step
// - here an encoder step is one hand-off of tagged words with a 512-long
//   dot product a warp on either side, as Lab 5's rung 5 (2.2 us a dependent
//   step at B = 1): ~70 us for S = 32 at b1; at b8 each block polls 4096
//   words (32 KB) a step: ~3.5 us a step, ~110 us
// - the W_out rows come in by cp.async while the encoder runs; the
//   context's shares cost ~3 us after its last step (the rows' last H
//   columns, 16 MB over the grid, are prefetched into L2 halfway through)
// - then rung 4's decode, unchanged: ~0.19 ms at b1, ~0.48 ms at b8
// - before the kernel: one memset (hx, kx, ex: 0.3 MB at b1, 2.5 MB at b8)
//
// One kernel rather than an encoder kernel launched before rung 4's: the
// block's 189 KB of output rows load while the encoder runs (cp.async into
// the shared memory the encoder does not use), where a second kernel could
// only start loading them after the encoder ended (~8 us on the path), and
// one launch fewer. The cost: the encoder lives in the decode kernel's
// registers (the 128 that BT = 8's decode needs anyway: the encoder's
// rows take 24 a lane) and shared memory (the source tokens, S x B ints).
// ptxas -v (CUDA 13.0, sm_90a), r5_kernel<BT> with r5_encode called (not
// inlined): 128 registers at every BT, r5_encode spill-free; the decode
// spills nothing at BT = 1 and 2, and at BT = 4 (128 bytes) and 8 (60) a
// dozen or so loop-invariant values, reloaded from L1 a decode step, none
// in a poll loop (rung 4's own BT = 4 spills 16). Shared memory a block
// (V = 8192, E = 256, H = 512, S = 32): 204,192 bytes at B = 1, 226,592 at
// B = 8 (the opt-in limit is 232,448).
//
// A review (before the GPU) found no ordering or deadlock bug, and two
// things to try, not yet tried: issue the encoder's own first loads
// (weights, biases, tokens, x_0) before the 189 KB of cp.async, which now
// queue ahead of step 0 (5 to 8 us at b1, its estimate); and spread the
// L2 prefetch of the context's columns over the encoder's second half,
// after each step's hand-off, rather than all at step S/2.
//
// r5_kernel is r4_kernel with r5_encode in place of rung 4's prologue
// (r4_body<BT, true>). A block:
// - issues its W_out rows (rung 4's prologue, 16-byte pieces) as cp.async,
//   waited for only after the encoder
// - keeps the encoder's rows of the units it owns in the decoder (warp
//   3u + g: gate g of unit j0 + u, as rung 4's warps) in registers for all
//   S steps: W_hh's (16 a lane) and W_ih's (8 a lane)
// - step s: loads x_(s+1) = E_src[src_(s+1)] into registers (their latency
//   under the wait); polls h_(s-1) from the tagged words ex[s - 1] into X's
//   hidden half (rung 4's D); W_hh h + b_hh; the gates; h_s out as tagged
//   words (rung 4's d_t format, ex (S, B, H)); then x_(s+1) into X's
//   embedding half and W_ih x + b_ih for step s + 1, while the other blocks'
//   h_s come in: only the hidden half is on the critical path
// - after the last step: polls c = h_(S-1) into X's hidden half (where rung
//   4's prologue puts it) and folds the context itself: cgi of its units
//   (W_ih[:, E:] c + b_ih) and clog of its output rows (W_out[:, E+H:] c +
//   b_out), then waits for its cp.async; rung 4's decode follows
// No grid barrier; every wait is r4_poll's (2 s, then __trap). Every word
// a wait accepts is this call's: hx, kx and ex are zeroed by one memset
// before the launch (0 is never a tag: no stale or foreign word can pass,
// for any number of calls), each word is written once a call, and the tag
// is new on every call. Calls it does not take (B > 8, forced decoding,
// shapes rung 4 refuses, W_out not float4-aligned, more shared memory than
// the device has) run rung 4.

/* 16 bytes from global to shared memory in the background (zeros where
 * bytes is 0): cp.async from sm_80, a plain copy before */
static __device__ __forceinline__ void r5_cp16(float *dst, const float *src,
                                               unsigned bytes)
{
#if __CUDA_ARCH__ >= 800
    unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d),
                 "l"(src), "r"(bytes)
                 : "memory");
#else
    *(float4 *)dst =
        bytes ? __ldg((const float4 *)src) : make_float4(0.f, 0.f, 0.f, 0.f);
#endif
}

/* this thread's cp.async done (the block's: after a barrier) */
static __device__ __forceinline__ void r5_cp_wait(void)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

static __device__ __forceinline__ void r5_prefetch(const float *p)
{
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

/* n floats at p into L2, by the block: a line (32 floats) a thread */
static __device__ __forceinline__ void r5_prefetch_range(const float *p,
                                                         size_t n, int tid)
{
#pragma unroll 1
    for (size_t i = (size_t)tid * 32; i < n; i += (size_t)R4_NT * 32)
        r5_prefetch(p + i);
    if (tid == 0 && n > 0)
        r5_prefetch(p + n - 1);
}

/* wait until the B x H words at src all carry this call's tag, and put
 * their values into the hidden half of X (rows of KW floats, from column
 * EP): rung 4's D (written out there: calling this changes ptxas's
 * choices in rung 4's kernel) for rung 5's encoder */
static __device__ __forceinline__ void r5_take(float *Xs, int KW, int EP,
                                               const unsigned long long *src,
                                               int B, int H, unsigned tag,
                                               int tid)
{
    const unsigned long long ready = (unsigned long long)tag << 32;
    const int n = B * H;
    for (int i0 = tid; i0 < n; i0 += R4_NT * R4_PER) {
        unsigned long long w[R4_PER];
#pragma unroll
        for (int e = 0; e < R4_PER; e++) {
            int i = i0 + e * R4_NT;
            w[e] = i < n ? r4_ld(src + i) : ready;
        }
        r4_poll(w, src + i0, R4_NT, [&](unsigned long long x) {
            return (unsigned)(x >> 32) == tag;
        });
#pragma unroll
        for (int e = 0; e < R4_PER; e++) {
            int i = i0 + e * R4_NT;
            if (i < n)
                Xs[(size_t)(i / H) * KW + EP + i % H] =
                    __uint_as_float((unsigned)w[e]);
        }
    }
}

/* r4_rows for nr <= R4_ROWS rows in global memory (row stride ldw, rows
 * past nr read as zero) over K columns (K even) against X from column c0:
 * the same lane layout of the sums */
template <int BT>
static __device__ __forceinline__ float r5_rows(const float *W, int ldw, int nr,
                                                const float *X, int KW, int c0,
                                                int K, int lane)
{
    float acc[R4_ROWS * BT];
#pragma unroll
    for (int i = 0; i < R4_ROWS * BT; i++)
        acc[i] = 0.f;
#pragma unroll 2
    for (int c = 2 * lane; c < K; c += 64) {
        float2 w[R4_ROWS];
#pragma unroll
        for (int r = 0; r < R4_ROWS; r++)
            w[r] = r < nr ? __ldg((const float2 *)(W + (size_t)r * ldw + c))
                          : make_float2(0.f, 0.f);
#pragma unroll
        for (int b = 0; b < BT; b++) {
            float2 x = *(const float2 *)(X + (size_t)b * KW + c0 + c);
#pragma unroll
            for (int r = 0; r < R4_ROWS; r++) {
                float s = acc[r * BT + b];
                s = fmaf(w[r].x, x.x, s);
                s = fmaf(w[r].y, x.y, s);
                acc[r * BT + b] = s;
            }
        }
    }
    return r4_reduce<R4_ROWS * BT, 16>(acc, lane);
}

/* rung 5's prologue: the encoder, the context's shares, W_out's rows.
 * Not inlined: in one function with the decode, ptxas spills in both
 * loops (384 bytes at BT = 8, 100 at BT = 1); called, it spills nothing
 * and the decode keeps rung 4's registers but for a few loop-invariant
 * values at BT = 4 and 8 (see the section's comment) */
template <int BT>
static __device__ __noinline__ void r5_encode(const r4_args &a)
{
    /* a's pointers in registers: read through the reference, each would be
     * loaded again after every asm "memory" clobber (r4_ld, r4_st) */
    const float *const fc_w = a.fc_w, *const fc_b = a.fc_b;
    const float *const enc_emb = a.enc_emb, *const dec_emb = a.dec_emb;
    const float *const e_wih = a.e_wih, *const e_whh = a.e_whh;
    const float *const e_bih = a.e_bih, *const e_bhh = a.e_bhh;
    const float *const w_ih = a.w_ih, *const w_hh = a.w_hh;
    const float *const d_bih = a.d_bih, *const b_hh = a.b_hh;
    const int *const src = a.src;
    unsigned long long *const ex = a.ex;
    const int sos = a.sos;
    /* r4_body's shared memory, and the source tokens past it (S x B) */
    extern __shared__ float4 r4_smem4[];
    float *Ws = (float *)r4_smem4;
    float *Xs = Ws + (size_t)a.Rp * a.KW;
    float *cg = Xs + (size_t)BT * a.KW;
    float *gis = cg + R4_MAXU * 3 * R4_MAXB;
    float *ghs = gis + R4_MAXU * 3 * R4_MAXB;
    float *cl = ghs + R4_MAXU * 3 * R4_MAXB;
    int *srcs = (int *)((unsigned long long *)(cl + R4_MAXR * R4_MAXB) +
                        R4_WARPS * R4_MAXB + R4_WARPS) +
                R4_MAXB;
    const int B = a.B, S = a.S, E = a.E, H = a.H, V = a.V, KW = a.KW;
    const int EP = a.EP, X = E + 2 * H;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const unsigned tag = a.tag;
    const int r0 = blockIdx.x * a.R, Rv = max(0, min(a.R, V - r0));
    const int j0 = blockIdx.x * a.upb, nu = max(0, min(a.upb, H - j0));

    /* W_out's rows as rung 4's prologue (a.vec), in the background */
    {
        const int q = KW / 4, n = a.Rp * q;
        for (int i = tid; i < n; i += R4_NT) {
            int r = i / q, c = (i % q) * 4;
            int col =
                c < EP ? (c < E ? c : -1) : (c - EP < H ? E + c - EP : -1);
            bool ok = r < Rv && col >= 0;
            r5_cp16(Ws + (size_t)i * 4,
                    ok ? fc_w + (size_t)(r0 + r) * X + col : fc_w,
                    ok ? 16u : 0u);
        }
    }
    /* zeros: X (h_(-1), padding, sentences past B) and the context's
     * shares (for the units and rows a block does not have) */
    for (int i = tid; i < BT * KW; i += R4_NT)
        Xs[i] = 0.f;
    for (int i = tid; i < R4_MAXU * 3 * R4_MAXB; i += R4_NT)
        cg[i] = gis[i] = ghs[i] = 0.f;
    for (int i = tid; i < R4_MAXR * R4_MAXB; i += R4_NT)
        cl[i] = 0.f;
    for (int i = tid; i < S * B; i += R4_NT)
        srcs[i] = src[i];

    /* this warp's encoder rows (warp 3u + g: gate g of unit j0 + u), in
     * registers for all S steps */
    const int gu = warp / 3, gg = warp % 3, gj = j0 + gu;
    const bool grow = warp < 3 * R4_MAXU && gu < nu;
    float ewh[16], ewi[8];
#pragma unroll
    for (int i = 0; i < 16; i++) {
        int k = lane + 32 * i;
        ewh[i] =
            grow && k < H ? __ldg(e_whh + (size_t)(gg * H + gj) * H + k) : 0.f;
    }
#pragma unroll
    for (int i = 0; i < 8; i++) {
        int k = lane + 32 * i;
        ewi[i] =
            grow && k < E ? __ldg(e_wih + (size_t)(gg * H + gj) * E + k) : 0.f;
    }
    const float ebh = grow ? __ldg(e_bhh + gg * H + gj) : 0.f;
    const float ebi = grow ? __ldg(e_bih + gg * H + gj) : 0.f;
    __syncthreads(); /* srcs, the zeros */

    /* x_s = E_src[src_s] (B x E): XPT values a thread, loaded into xr
     * well before they are stored into X's embedding half */
    constexpr int XPT = (BT * 256 + R4_NT - 1) / R4_NT;
    float xr[XPT];
    auto load_x = [&](int s) {
#pragma unroll
        for (int e = 0; e < XPT; e++) {
            int i = tid + e * R4_NT;
            xr[e] =
                s < S && i < B * E
                    ? __ldg(enc_emb + (size_t)srcs[s * B + i / E] * E + i % E)
                    : 0.f;
        }
    };
    auto store_x = [&]() {
#pragma unroll
        for (int e = 0; e < XPT; e++) {
            int i = tid + e * R4_NT;
            if (i < B * E)
                Xs[(size_t)(i / E) * KW + i % E] = xr[e];
        }
    };
    auto input_half = [&]() {
        if (grow)
            r4_gru_dot<BT>(ewi, Xs, KW, 0, E, B, ebi,
                           gis + (gu * 3 + gg) * R4_MAXB, lane);
    };
    /* what the decode reads first, into L2 (the encoder's last steps
     * leave it time to arrive): this block's rows of W_out[:, E+H:] for
     * clog, its units' rows of the decoder's weights, the first token */
    auto prefetch_decoder = [&]() {
        const int L = (H + 31) / 32 + 1;
#pragma unroll 1
        for (int i = tid; i < Rv * L; i += R4_NT) {
            int r = i / L, l = i % L;
            r5_prefetch(fc_w + (size_t)(r0 + r) * X + E + H +
                        min(32 * l, H - 1));
        }
        r5_prefetch_range(fc_b + r0, (size_t)Rv, tid);
#pragma unroll 1
        for (int g = 0; g < 3 && nu > 0; g++) {
            r5_prefetch_range(w_ih + (size_t)(g * H + j0) * (E + H),
                              (size_t)nu * (E + H), tid);
            r5_prefetch_range(w_hh + (size_t)(g * H + j0) * H, (size_t)nu * H,
                              tid);
            r5_prefetch_range(d_bih + g * H + j0, (size_t)nu, tid);
            r5_prefetch_range(b_hh + g * H + j0, (size_t)nu, tid);
        }
        r5_prefetch_range(dec_emb + (size_t)sos * E, (size_t)E, tid);
    };

    load_x(0);
    store_x();
    __syncthreads();
    input_half();
    for (int s = 0; s < S; s++) {
        load_x(s + 1); /* in flight through the wait */
        if (s == S / 2)
            prefetch_decoder();
        if (s > 0)
            r5_take(Xs, KW, EP, ex + (size_t)(s - 1) * B * H, B, H, tag, tid);
        __syncthreads(); /* h_(s-1), and step s's input half */
        if (grow)
            r4_gru_dot<BT>(ewh, Xs, KW, EP, H, B, ebh,
                           ghs + (gu * 3 + gg) * R4_MAXB, lane);
        __syncthreads();
        if (tid < nu * BT) {
            int u = tid / BT, b = tid % BT;
            if (b < B) {
                const float *gi = gis + u * 3 * R4_MAXB + b;
                const float *gh = ghs + u * 3 * R4_MAXB + b;
                float h = gru_gates(gi[0], gi[R4_MAXB], gi[2 * R4_MAXB], gh[0],
                                    gh[R4_MAXB], gh[2 * R4_MAXB],
                                    Xs[(size_t)b * KW + EP + j0 + u]);
                r4_st(ex + ((size_t)s * B + b) * H + j0 + u,
                      (unsigned long long)tag << 32 | __float_as_uint(h));
            }
        }
        if (s + 1 < S) {
            /* the gates read X's hidden half and gis, not the embedding
             * half: x_(s+1) can go in now; gis after the barrier */
            store_x();
            __syncthreads();
            input_half();
        }
    }
    __syncthreads(); /* the last gates' reads of X before c replaces it */

    /* the context c = h_(S-1), into X's hidden half; the rows of its
     * shares are loaded first, their latency under the wait */
    float wc[16];
#pragma unroll
    for (int i = 0; i < 16; i++) {
        int k = lane + 32 * i;
        wc[i] = grow && k < H
                    ? __ldg(w_ih + (size_t)(gg * H + gj) * (E + H) + E + k)
                    : 0.f;
    }
    const float cb = grow ? __ldg(d_bih + gg * H + gj) : 0.f;
    constexpr int osh = 3 - r4_log2<BT>::v;
    const int oi = lane >> osh, orow = R4_ROWS * warp + oi / BT, ob = oi % BT;
    const bool oval = orow < Rv && ob < B && (lane & ((1 << osh) - 1)) == 0;
    const float fb = oval ? __ldg(fc_b + r0 + orow) : 0.f;
    r5_take(Xs, KW, EP, ex + (size_t)(S - 1) * B * H, B, H, tag, tid);
    __syncthreads();
    /* cgi = W_ih[:, E:] c + b_ih for this block's units */
    if (grow)
        r4_gru_dot<BT>(wc, Xs, KW, EP, H, B, cb, cg + (gu * 3 + gg) * R4_MAXB,
                       lane);
    /* clog = W_out[:, E+H:] c + b_out for this warp's output rows, its
     * lanes as rung 4's E */
    if (R4_ROWS * warp < Rv) {
        float v =
            r5_rows<BT>(fc_w + (size_t)(r0 + R4_ROWS * warp) * X + E + H, X,
                        min(R4_ROWS, Rv - R4_ROWS * warp), Xs, KW, EP, H, lane);
        if (oval)
            cl[orow * R4_MAXB + ob] = v + fb;
    }
    r5_cp_wait(); /* the W_out rows: visible to all after the next barrier */
}

/* a: __grid_constant__, so that r5_encode reads it where it is, not from
 * a copy on the stack */
template <int BT>
static __global__ void __launch_bounds__(R4_NT, 1)
    r5_kernel(const __grid_constant__ r4_args a)
{
    r5_encode<BT>(a);
    r4_body<BT, true>(a);
}

static const void *r5_fn(int BT)
{
    switch (BT) {
    case 1: return (const void *)r5_kernel<1>;
    case 2: return (const void *)r5_kernel<2>;
    case 4: return (const void *)r5_kernel<4>;
    default: return (const void *)r5_kernel<8>;
    }
}

/* rung 5's launch for this call: rung 4's plan with the encoder's part, or
 * 0 (nothing done) where it does not apply */
static int r5_plan(const struct seq2seq_model *m, const int *src, int S, int B,
                   int T, int sos, int *tokens, float *logits,
                   const struct ws *w, struct r4_launch *l)
{
    static int dev = -1;
    static int fits[4]; /* per BT: 0 not tried, 1 fits, -1 does not */
    static size_t fits_smem[4];
    int cur;
    /* a.vec: the cp.async of W_out's rows and r5_rows' 8-byte loads;
     * r5_rows reads rows of even length (H even, said again here) */
    if (!w->ex || S < 1 || m->hid % 2 ||
        !r4_plan(m, B, T, sos, tokens, logits, NULL, w, l) || !l->a.vec)
        return 0;
    if (cudaGetDevice(&cur) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    if (cur != dev) {
        dev = cur;
        memset(fits, 0, sizeof fits);
    }
    int BT = B <= 1 ? 1 : B <= 2 ? 2 : B <= 4 ? 4 : 8;
    int bi = BT == 1 ? 0 : BT == 2 ? 1 : BT == 4 ? 2 : 3;
    l->fn = r5_fn(BT);
    l->smem += (size_t)S * B * sizeof(int); /* the source tokens */
    if (!fits[bi] || fits_smem[bi] != l->smem) {
        int per_sm = 0;
        fits[bi] = cudaFuncSetAttribute(
                       l->fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       (int)l->smem) == cudaSuccess &&
                           cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                               &per_sm, l->fn, R4_NT, l->smem) == cudaSuccess &&
                           per_sm >= 1
                       ? 1
                       : -1;
        fits_smem[bi] = l->smem;
        (void)cudaGetLastError();
    }
    if (fits[bi] < 0)
        return 0;
    r4_args *a = &l->a;
    a->S = S;
    a->src = src;
    a->enc_emb = m->enc_emb;
    a->e_wih = m->enc.w_ih;
    a->e_whh = m->enc.w_hh;
    a->e_bih = m->enc.b_ih;
    a->e_bhh = m->enc.b_hh;
    a->d_bih = m->dec.b_ih;
    a->fc_b = m->fc_b;
    a->ex = w->ex;
    return 1;
}

/* zero rung 5's tagged words before its launch: hx, kx and ex, consecutive
 * slots of the workspace (s2s_layout), in one memset */
static int r5_clear(const struct ws *w, int S, int B, int H, cudaStream_t s)
{
    size_t n = (size_t)((const char *)w->ex - (const char *)w->hx) +
               (size_t)S * B * H * sizeof(unsigned long long);
    S2S_TRY(cudaMemsetAsync(w->hx, 0, n, s));
    return 1;
}

// ----------------------------------------------------------------------------
// CUDA graphs: a cached graph per call signature

struct signature {
    struct seq2seq_model m;
    const int *src, *y_in;
    int S, B, T, sos, rung;
    int *tokens;
    float *logits, *out;
    void *ws;
    cudaStream_t s;
};

/* rung 3's kernels keep a row of at most 512 weights per lane group */
static int fusable(const struct seq2seq_model *m)
{
    return m->emb <= 512 && m->hid <= 512;
}

static int s2s_decode(const struct signature *k, const struct ws *w)
{
    if (k->rung == 4) {
        /* rung 4's graph: the encoder and the context's shares; the
         * decode kernel follows it, outside the graph. The argmax keys
         * carry only 19 tag bits: whatever an unwritten (never zeroed)
         * workspace holds there would pass as this call's key once in
         * 2^19 words, so they are zeroed first (0 is never a tag) */
        float *ctx;
        S2S_TRY(cudaMemsetAsync(w->kx, 0,
                                (size_t)k->T * k->B * R4_MAXGRID *
                                    sizeof(unsigned long long),
                                k->s));
        return s2s_encode(&k->m, k->src, k->S, k->B, 1, w, &ctx, k->s) &&
               fold_context(&k->m, ctx, k->B, w, k->s);
    }
    if (k->rung == 1 || k->rung == 2 || !fusable(&k->m))
        return s2s_port(&k->m, k->src, k->S, k->B, k->T, k->sos, k->y_in,
                        k->tokens, k->logits, k->out, w, k->s);
    return s2s_fused(&k->m, k->src, k->S, k->B, k->T, k->sos, k->y_in,
                     k->tokens, k->logits, k->out, w, k->s);
}

/* replay the graph captured for this exact call, or capture it. A few
 * graphs are kept, so that a caller rotating between buffers (a pipeline
 * double-buffering its batches, PyTorch's peers timing three input sets)
 * replays rather than captures and instantiates on every call (~3 ms at
 * b64, more than the decode); the least recently captured one goes */
#define S2S_GRAPHS 4
static int s2s_graph(const struct signature *k, const struct ws *w)
{
    static struct {
        struct signature key;
        cudaGraphExec_t exec;
    } cache[S2S_GRAPHS];
    static int next;
    for (int i = 0; i < S2S_GRAPHS; i++)
        if (cache[i].exec && !memcmp(&cache[i].key, k, sizeof *k)) {
            S2S_TRY(cudaGraphLaunch(cache[i].exec, k->s));
            return 1;
        }
    /* the cuBLAS handle allocates memory when created: not while
     * capturing */
    if (!blas_handle() || !kernels_ready())
        return 0;
    cudaGraph_t g = NULL;
    cudaError_t c =
        cudaStreamBeginCapture(k->s, cudaStreamCaptureModeThreadLocal);
    if (c == cudaErrorStreamCaptureUnsupported) {
        /* the legacy stream (0) cannot be captured: the same kernels,
         * launched one by one, and no error left for the caller */
        (void)cudaGetLastError();
        return s2s_decode(k, w);
    }
    S2S_TRY(c);
    int ok = s2s_decode(k, w);
    cudaError_t e = cudaStreamEndCapture(k->s, &g);
    if (!ok || e != cudaSuccess) {
        if (g)
            cudaGraphDestroy(g);
        fprintf(stderr, "seq2seq: graph capture failed: %s\n",
                cudaGetErrorString(e));
        return 0;
    }
    int slot = next;
    next = (next + 1) % S2S_GRAPHS;
    if (cache[slot].exec) {
        cudaGraphExecDestroy(cache[slot].exec);
        cache[slot].exec = NULL;
    }
    e = cudaGraphInstantiate(&cache[slot].exec, g, 0);
    cudaGraphDestroy(g);
    if (e != cudaSuccess) {
        cache[slot].exec = NULL;
        return 0;
    }
    cache[slot].key = *k;
    S2S_TRY(cudaGraphLaunch(cache[slot].exec, k->s));
    return 1;
}

static int rung(void)
{
    static int kernel = 0;
    if (!kernel) {
        const char *e = getenv("SEQ2SEQ_KERNEL");
        kernel = e ? atoi(e) : 5;
        if (kernel < 1 || kernel > 5)
            kernel = 5;
    }
    return kernel;
}

static void s2s_run(const struct seq2seq_model *m, const int *src, int S, int B,
                    int T, int sos, const int *y_in, int *tokens, float *logits,
                    float *out, void *workspace, size_t workspace_bytes,
                    cudaStream_t s)
{
    struct ws w = s2s_layout(workspace, m, S, T, B);
    if (workspace_bytes < w.bytes) {
        fprintf(stderr, "seq2seq: workspace of %zu bytes, %zu needed\n",
                workspace_bytes, w.bytes);
        return;
    }
    struct signature k;
    memset(&k, 0, sizeof k); /* padding too: the key is compared bytewise */
    k.m = *m;
    k.src = src;
    k.y_in = y_in;
    k.S = S;
    k.B = B;
    k.T = T;
    k.sos = sos;
    k.rung = rung();
    k.tokens = tokens;
    k.logits = logits;
    k.out = out;
    k.ws = workspace;
    k.s = s;
    if (k.rung == 5) {
        /* rung 5 takes greedy decoding of a few sentences where its kernel
         * fits the device, and hands everything else to rung 4 */
        struct r4_launch l;
        if (!y_in && r5_plan(m, src, S, B, T, sos, tokens, logits, &w, &l) &&
            r5_clear(&w, S, B, m->hid, s) && r4_go(&l, s))
            return;
        k.rung = 4;
    }
    if (k.rung == 4) {
        /* rung 4 takes greedy decoding of a few sentences where its kernel
         * fits the device, and hands everything else to rung 3 */
        struct r4_launch l;
        if (!y_in &&
            r4_plan(m, B, T, sos, tokens, logits, w.h[S & 1], &w, &l) &&
            s2s_graph(&k, &w) && r4_go(&l, s))
            return;
        k.rung = 3;
    }
    if (k.rung == 1) {
        if (kernels_ready())
            s2s_decode(&k, &w);
    } else
        s2s_graph(&k, &w);
}

extern "C" void seq2seq_greedy(const struct seq2seq_model *m, const int *src,
                               int S, int B, int T, int sos, int *tokens,
                               float *logits, void *workspace,
                               size_t workspace_bytes, cudaStream_t stream)
{
    s2s_run(m, src, S, B, T, sos, NULL, tokens, logits, NULL, workspace,
            workspace_bytes, stream);
}

extern "C" void seq2seq_forced(const struct seq2seq_model *m, const int *src,
                               int S, int B, int T, const int *y_in, float *out,
                               void *workspace, size_t workspace_bytes,
                               cudaStream_t stream)
{
    s2s_run(m, src, S, B, T, 0, y_in, NULL, NULL, out, workspace,
            workspace_bytes, stream);
}
