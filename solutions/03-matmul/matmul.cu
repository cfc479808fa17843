/*
 * Lab 3 reference solution: SGEMM, C = A * B, float32, row-major.
 *
 * The ladder (MATMUL_KERNEL=N; the default is the fastest, 7):
 *   1  naive: one thread per output, threadIdx.x walks the rows of C, so a
 *      warp's loads of A and its stores are strided (uncoalesced)
 *   2  coalesced: threadIdx.x walks the columns, a warp reads 32
 *      neighbouring floats of B and writes 32 neighbours of C
 *   3  shared-memory tiles of 32 x 32, loaded once per block
 *   4  1D register blocking: 64 x 64 tiles, each thread 8 outputs in a column
 *   5  2D register blocking: 128 x 128 tiles, each thread an 8 x 8 block
 *   6  vectorized: float4 global loads, A stored transposed in shared memory
 *      so that each thread's column of A is one float4 read
 *   7  warp-friendly 2 x 2 layout of 4 x 4 sub-blocks (conflict-free float4
 *      reads of both tiles) and double buffering: the next tile is loaded
 *      into registers while the current one is multiplied
 *
 * Rungs 4 to 7 need tile-aligned shapes (M and N multiples of the tile,
 * K a multiple of the k step, 16-byte aligned rows); other shapes run
 * rung 3. Rungs 5 to 7 take 32 x 64 x 16 tiles when the matrix is too
 * small or too thin for one 128 x 128 x 8 block per multiprocessor.
 *
 *   make grade LAB=03 SOLUTION=1
 *   MATMUL_KERNEL=3 make grade LAB=03 SOLUTION=1
 */
#include "matmul.h"

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>

// ----------------------------------------------------------------------------
// kernel 1: naive (uncoalesced)

__global__ void matmul_kernel1(const float *A, const float *B, float *C, int M,
                               int N, int K)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = acc;
}

// ----------------------------------------------------------------------------
// kernel 2: coalesced

__global__ void matmul_kernel2(const float *A, const float *B, float *C, int M,
                               int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = acc;
}

// ----------------------------------------------------------------------------
// kernel 3: shared-memory tiles (any shape)

#define T3 32

__global__ void matmul_kernel3(const float *A, const float *B, float *C, int M,
                               int N, int K)
{
    __shared__ float As[T3][T3];
    __shared__ float Bs[T3][T3 + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T3 + ty, col = blockIdx.x * T3 + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T3) {
        As[ty][tx] =
            row < M && k0 + tx < K ? A[(size_t)row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] =
            k0 + ty < K && col < N ? B[(size_t)(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < T3; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = acc;
}

// ----------------------------------------------------------------------------
// kernel 4: 1D register blocking (64 x 64 tiles, 8 outputs per thread)

#define B4M 64
#define B4N 64
#define B4K 8
#define T4M 8

__global__ void __launch_bounds__(B4M *B4N / T4M)
    matmul_kernel4(const float *A, const float *B, float *C, int M, int N,
                   int K)
{
    __shared__ float As[B4M][B4K];
    __shared__ float Bs[B4K][B4N];
    int tid = threadIdx.x;
    int tcol = tid % B4N, trow = tid / B4N; /* trow in [0, 8) */
    const float *a = A + (size_t)blockIdx.y * B4M * K;
    const float *b = B + (size_t)blockIdx.x * B4N;
    float acc[T4M] = {0.0f};
    (void)M;
    for (int k0 = 0; k0 < K; k0 += B4K) {
        /* 512 threads load 64 x 8 of A and 8 x 64 of B, one float each */
        As[tid / B4K][tid % B4K] = a[(size_t)(tid / B4K) * K + k0 + tid % B4K];
        Bs[tid / B4N][tid % B4N] = b[(size_t)(k0 + tid / B4N) * N + tid % B4N];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < B4K; k++) {
            float bv = Bs[k][tcol];
#pragma unroll
            for (int i = 0; i < T4M; i++)
                acc[i] += As[trow * T4M + i][k] * bv;
        }
        __syncthreads();
    }
    float *c = C + (size_t)blockIdx.y * B4M * N + blockIdx.x * B4N;
    for (int i = 0; i < T4M; i++)
        c[(size_t)(trow * T4M + i) * N + tcol] = acc[i];
}

// ----------------------------------------------------------------------------
// kernel 5: 2D register blocking (each thread a TM x TN block)

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    matmul_kernel5(const float *A, const float *B, float *C, int N, int K)
{
    constexpr int THREADS = (BM / TM) * (BN / TN);
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    int tid = threadIdx.x;
    int tr = tid / (BN / TN), tc = tid % (BN / TN);
    const float *a = A + (size_t)blockIdx.y * BM * K;
    const float *b = B + (size_t)blockIdx.x * BN;
    float acc[TM][TN] = {{0.0f}};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = tid; i < BM * BK; i += THREADS)
            As[i / BK][i % BK] = a[(size_t)(i / BK) * K + k0 + i % BK];
        for (int i = tid; i < BK * BN; i += THREADS)
            Bs[i / BN][i % BN] = b[(size_t)(k0 + i / BN) * N + i % BN];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float ar[TM], br[TN];
#pragma unroll
            for (int i = 0; i < TM; i++)
                ar[i] = As[tr * TM + i][k];
#pragma unroll
            for (int j = 0; j < TN; j++)
                br[j] = Bs[k][tc * TN + j];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] += ar[i] * br[j];
        }
        __syncthreads();
    }
    float *c = C + (size_t)blockIdx.y * BM * N + blockIdx.x * BN;
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            c[(size_t)(tr * TM + i) * N + tc * TN + j] = acc[i][j];
}

// ----------------------------------------------------------------------------
// kernel 6: float4 loads, A transposed in shared memory

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    matmul_kernel6(const float *A, const float *B, float *C, int N, int K)
{
    constexpr int THREADS = (BM / TM) * (BN / TN);
    __shared__ __align__(16) float As[BK][BM]; /* transposed: As[k][m] */
    __shared__ __align__(16) float Bs[BK][BN];
    int tid = threadIdx.x;
    int tr = tid / (BN / TN), tc = tid % (BN / TN);
    const float *a = A + (size_t)blockIdx.y * BM * K;
    const float *b = B + (size_t)blockIdx.x * BN;
    float acc[TM][TN] = {{0.0f}};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = tid; i < BM * BK / 4; i += THREADS) {
            int m = i / (BK / 4), kq = (i % (BK / 4)) * 4;
            float4 v = *(const float4 *)(a + (size_t)m * K + k0 + kq);
            As[kq][m] = v.x;
            As[kq + 1][m] = v.y;
            As[kq + 2][m] = v.z;
            As[kq + 3][m] = v.w;
        }
        for (int i = tid; i < BK * BN / 4; i += THREADS) {
            int k = i / (BN / 4), nq = (i % (BN / 4)) * 4;
            *(float4 *)&Bs[k][nq] =
                *(const float4 *)(b + (size_t)(k0 + k) * N + nq);
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float ar[TM], br[TN];
#pragma unroll
            for (int i = 0; i < TM; i += 4)
                *(float4 *)&ar[i] = *(const float4 *)&As[k][tr * TM + i];
#pragma unroll
            for (int j = 0; j < TN; j += 4)
                *(float4 *)&br[j] = *(const float4 *)&Bs[k][tc * TN + j];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] += ar[i] * br[j];
        }
        __syncthreads();
    }
    float *c = C + (size_t)blockIdx.y * BM * N + blockIdx.x * BN;
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j += 4)
            *(float4 *)&c[(size_t)(tr * TM + i) * N + tc * TN + j] =
                make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2],
                            acc[i][j + 3]);
}

// ----------------------------------------------------------------------------
// kernel 7: 2 x 2 sub-blocks per thread and double buffering
//
// A thread owns TM x TN outputs as a 2 x 2 grid of (TM/2) x (TN/2)
// sub-blocks, BM/2 rows and BN/2 columns apart: in each k step it reads
// two float4-wide pieces of A's column and two of B's row, and a warp's
// reads of B cover one contiguous stretch of shared memory (no bank
// conflicts) while its reads of A are broadcasts.

/* copy W consecutive floats (W a multiple of 2) with the widest accesses
 * their alignment allows: float4 when W is a multiple of 4, else float2 */
template <int W>
__device__ __forceinline__ void load_vec(float *r, const float *src)
{
    if constexpr (W % 4 == 0) {
#pragma unroll
        for (int i = 0; i < W; i += 4)
            *(float4 *)&r[i] = *(const float4 *)&src[i];
    } else {
#pragma unroll
        for (int i = 0; i < W; i += 2)
            *(float2 *)&r[i] = *(const float2 *)&src[i];
    }
}

template <int W>
__device__ __forceinline__ void store_vec(float *dst, const float *r)
{
    if constexpr (W % 4 == 0) {
#pragma unroll
        for (int i = 0; i < W; i += 4)
            *(float4 *)&dst[i] =
                make_float4(r[i], r[i + 1], r[i + 2], r[i + 3]);
    } else {
#pragma unroll
        for (int i = 0; i < W; i += 2)
            *(float2 *)&dst[i] = make_float2(r[i], r[i + 1]);
    }
}

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    matmul_kernel7(const float *A, const float *B, float *C, int N, int K)
{
    constexpr int THREADS = (BM / TM) * (BN / TN);
    constexpr int SM = TM / 2, SN = TN / 2;   /* sub-block size */
    constexpr int LA = BM * BK / 4 / THREADS; /* float4 loads of A */
    constexpr int LB = BK * BN / 4 / THREADS; /* float4 loads of B */
    static_assert(LA >= 1 && LB >= 1, "tile too small for the block");
    __shared__ __align__(16) float As[2][BK][BM];
    __shared__ __align__(16) float Bs[2][BK][BN];
    int tid = threadIdx.x;
    int tr = tid / (BN / TN), tc = tid % (BN / TN);
    const float *a = A + (size_t)blockIdx.y * BM * K;
    const float *b = B + (size_t)blockIdx.x * BN;
    float4 ra[LA], rb[LB];
    float acc[TM][TN] = {{0.0f}};

    /* global -> registers, registers -> shared (stage s) */
#define LOAD_TILE(k0)                                                          \
    do {                                                                       \
        _Pragma("unroll") for (int l = 0; l < LA; l++)                         \
        {                                                                      \
            int i = tid + l * THREADS;                                         \
            int m = i / (BK / 4), kq = (i % (BK / 4)) * 4;                     \
            ra[l] = __ldg((const float4 *)(a + (size_t)m * K + (k0) + kq));    \
        }                                                                      \
        _Pragma("unroll") for (int l = 0; l < LB; l++)                         \
        {                                                                      \
            int i = tid + l * THREADS;                                         \
            int k = i / (BN / 4), nq = (i % (BN / 4)) * 4;                     \
            rb[l] = __ldg((const float4 *)(b + (size_t)((k0) + k) * N + nq));  \
        }                                                                      \
    } while (0)
#define STORE_TILE(s)                                                          \
    do {                                                                       \
        _Pragma("unroll") for (int l = 0; l < LA; l++)                         \
        {                                                                      \
            int i = tid + l * THREADS;                                         \
            int m = i / (BK / 4), kq = (i % (BK / 4)) * 4;                     \
            As[s][kq][m] = ra[l].x;                                            \
            As[s][kq + 1][m] = ra[l].y;                                        \
            As[s][kq + 2][m] = ra[l].z;                                        \
            As[s][kq + 3][m] = ra[l].w;                                        \
        }                                                                      \
        _Pragma("unroll") for (int l = 0; l < LB; l++)                         \
        {                                                                      \
            int i = tid + l * THREADS;                                         \
            int k = i / (BN / 4), nq = (i % (BN / 4)) * 4;                     \
            *(float4 *)&Bs[s][k][nq] = rb[l];                                  \
        }                                                                      \
    } while (0)

    LOAD_TILE(0);
    STORE_TILE(0);
    __syncthreads();
    int stage = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        int more = k0 + BK < K;
        if (more)
            LOAD_TILE(k0 + BK); /* in flight during the math below */
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float ar[TM], br[TN];
#pragma unroll
            for (int h = 0; h < 2; h++) {
                load_vec<SM>(&ar[h * SM],
                             &As[stage][k][h * (BM / 2) + tr * SM]);
                load_vec<SN>(&br[h * SN],
                             &Bs[stage][k][h * (BN / 2) + tc * SN]);
            }
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] += ar[i] * br[j];
        }
        if (more)
            STORE_TILE(stage ^ 1);
        __syncthreads();
        stage ^= 1;
    }
#undef LOAD_TILE
#undef STORE_TILE

    float *c = C + (size_t)blockIdx.y * BM * N + blockIdx.x * BN;
#pragma unroll
    for (int i = 0; i < TM; i++) {
        int row = (i / SM) * (BM / 2) + tr * SM + i % SM;
#pragma unroll
        for (int h = 0; h < 2; h++)
            store_vec<SN>(&c[(size_t)row * N + h * (BN / 2) + tc * SN],
                          &acc[i][h * SN]);
    }
}

// ----------------------------------------------------------------------------
// launchers

static void launch3(const float *A, const float *B, float *C, int M, int N,
                    int K, cudaStream_t s)
{
    dim3 grid((N + T3 - 1) / T3, (M + T3 - 1) / T3);
    matmul_kernel3<<<grid, dim3(T3, T3), 0, s>>>(A, B, C, M, N, K);
}

/* multiprocessors of the current device (asked once) */
static int sm_count(void)
{
    static int sms = 0;
    if (sms == 0) {
        int dev = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) !=
                cudaSuccess)
            sms = 80;
    }
    return sms;
}

/* do M, N, K and the pointers fit tiles of BM x BN x BK? */
static int tiles_fit(const float *A, const float *B, const float *C, int M,
                     int N, int K, int BM, int BN, int BK)
{
    int aligned = (uintptr_t)A % 16 == 0 && (uintptr_t)B % 16 == 0 &&
                  (uintptr_t)C % 16 == 0;
    return aligned && M % BM == 0 && N % BN == 0 && K % BK == 0;
}

template <int BM, int BN, int BK, int TM, int TN>
static void launch_tiled(int kernel, const float *A, const float *B, float *C,
                         int M, int N, int K, cudaStream_t s)
{
    constexpr int THREADS = (BM / TM) * (BN / TN);
    dim3 grid(N / BN, M / BM);
    if (kernel == 5)
        matmul_kernel5<BM, BN, BK, TM, TN>
            <<<grid, THREADS, 0, s>>>(A, B, C, N, K);
    else if (kernel == 6)
        matmul_kernel6<BM, BN, BK, TM, TN>
            <<<grid, THREADS, 0, s>>>(A, B, C, N, K);
    else
        matmul_kernel7<BM, BN, BK, TM, TN>
            <<<grid, THREADS, 0, s>>>(A, B, C, N, K);
}

// ----------------------------------------------------------------------------
// dispatch

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N,
                       int K, cudaStream_t stream)
{
    static int kernel = 0;
    if (!kernel) {
        const char *v = getenv("MATMUL_KERNEL");
        kernel = v ? atoi(v) : 7;
        if (kernel < 1 || kernel > 7)
            kernel = 7;
    }
    if (kernel == 1) {
        dim3 grid((M + 31) / 32, (N + 31) / 32);
        matmul_kernel1<<<grid, dim3(32, 32), 0, stream>>>(A, B, C, M, N, K);
    } else if (kernel == 2) {
        dim3 grid((N + 31) / 32, (M + 31) / 32);
        matmul_kernel2<<<grid, dim3(32, 32), 0, stream>>>(A, B, C, M, N, K);
    } else if (kernel == 4 && tiles_fit(A, B, C, M, N, K, B4M, B4N, B4K)) {
        dim3 grid(N / B4N, M / B4M);
        matmul_kernel4<<<grid, B4M * B4N / T4M, 0, stream>>>(A, B, C, M, N, K);
    } else if (kernel >= 5 && tiles_fit(A, B, C, M, N, K, 128, 128, 8) &&
               (long long)(M / 128) * (N / 128) >= sm_count()) {
        launch_tiled<128, 128, 8, 8, 8>(kernel, A, B, C, M, N, K, stream);
    } else if (kernel >= 5 && tiles_fit(A, B, C, M, N, K, 32, 64, 16)) {
        /* small or thin: many small blocks (32 x 64 beat 64 x 64 by 15% on
         * 8192 x 64 x 1280: twice the blocks for 132 SMs); k steps of 16 so
         * that every thread loads whole float4s of each tile */
        launch_tiled<32, 64, 16, 4, 4>(kernel, A, B, C, M, N, K, stream);
    } else {
        launch3(A, B, C, M, N, K, stream);
    }
}
