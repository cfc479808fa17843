/*
 * Lab 3 reference solution: SGEMM, C = A * B, float32, row-major.
 *
 * The ladder (MATMUL_KERNEL=N; the default is MATMUL_DEFAULT, 12):
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
 *   8  asynchronous copies (cp.async) into a ring of 4 shared-memory stages,
 *      and warp tiles of 32 x 64: 128 x 128 x 8 tiles, 256 threads of 8 x 8
 *   9  128 outputs a thread: 128 x 128 x 16 tiles, 128 threads of 8 x 16
 *      (warp tiles 64 x 64), 3 stages
 *  10  the tile table: rung 9 where there are enough 128 x 128 tiles to fill
 *      the GPU, else 128 x 64 x 8 tiles with K split S ways across a
 *      thread-block cluster (sm_90), summed through distributed shared
 *      memory in a fixed order (MATMUL_KERNEL_SPLITK=1|2|4|8 forces S)
 *  11  tensor cores at FP32 accuracy (3xTF32, sm_80 and later): each
 *      operand split into two TF32 numbers, a = a_big + a_small, and three
 *      TF32 mma products per piece (a_small b_big + a_big b_small +
 *      a_big b_big) accumulated in FP32; shapes it does not fit, and older
 *      GPUs, take rung 10
 *  12  Hopper's warpgroup MMA (wgmma, sm_90a): the three TF32 products of
 *      rung 11 by whole warpgroups from shared memory, the operands split
 *      and laid out by a pre-pass, copied in by the TMA, one producer and
 *      two consumer warpgroups a block; shapes it does not fit, and other
 *      GPUs, take rung 11
 *
 * Rungs 4 to 10 need tile-aligned shapes (M and N multiples of the tile,
 * K a multiple of the k step, 16-byte aligned rows); other shapes go down
 * the ladder: rung 12 to rung 11, rung 11 to rung 10, rungs 8 to 10 to rung 7,
 * rungs 4 to 7 to rung 3. Rungs 5 to 7 take 32 x 64 x 16 tiles when the matrix
 * is too small or too thin for one 128 x 128 x 8 block per multiprocessor;
 * rungs 8 and 9 hand such shapes to rung 7.
 *
 *   make grade LAB=03 SOLUTION=1
 *   MATMUL_KERNEL=3 make grade LAB=03 SOLUTION=1
 */
#include "matmul.h"

#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <limits.h>
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
// kernels 8 and 9: asynchronous copies into a ring of stages, warp tiles
//
// cp.async (sm_80 and later) copies global memory straight into shared
// memory, without passing through registers, and a thread waits for the
// copy only when it needs the data. The block keeps STAGES tiles of A and B
// in shared memory: while it multiplies tile t, tiles t+1 ... t+STAGES-1 are
// on their way, and there is one barrier per tile.
//
// Every copy moves 16 bytes. B's tile is stored as it is (Bs[k][n]); A's
// as BK / 4 slabs, slab q holding columns 4q .. 4q+3 of every row
// (As[q][m][0..3]), so that one float4 read gives a thread one row of A at
// four consecutive k (rung 7 needed A transposed, and 4-byte stores, to get
// four rows at one k).
//
// Warp tiles: the block's BM x BN tile is cut into warp tiles of WM x WN,
// and a warp's 32 threads into WR rows x WC columns of threads. A thread
// owns TM rows, WR apart, and TN columns as TN / 4 pieces of 4, WC * 4
// apart: at each step a warp reads WR neighbouring rows of A and WC
// neighbouring float4 of B, one shared-memory wavefront each, every thread
// served by broadcast.

/** Tile shapes of kernels 8 to 10 (all sizes in floats). */
template <int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_,
          int STAGES_, int MINB_>
struct gemm_tiles {
    static constexpr int BM = BM_, BN = BN_, BK = BK_; /* block tile */
    static constexpr int WM = WM_, WN = WN_;           /* warp tile */
    static constexpr int TM = TM_, TN = TN_;           /* thread tile */
    static constexpr int STAGES = STAGES_; /* tiles in shared memory */
    static constexpr int MINB = MINB_;     /* blocks per SM, for registers */
    static constexpr int WR = WM / TM, WC = WN / TN; /* threads of a warp */
    static constexpr int THREADS = (BM / WM) * (BN / WN) * 32;
    static constexpr int STAGE = BK * BM + BK * BN;        /* per stage */
    static constexpr int A_COPIES = BM * BK / 4 / THREADS; /* per thread */
    static constexpr int B_COPIES = BK * BN / 4 / THREADS;
    static constexpr int PIPE_BYTES = STAGES * STAGE * 4;
    static constexpr int TILE_BYTES = BM * BN * 4; /* kernel 10's partials */
    static_assert(WR * WC == 32, "a warp is 32 threads");
    static_assert(BM % WM == 0 && BN % WN == 0, "whole warp tiles");
    static_assert(TN % 4 == 0 && BK % 4 == 0, "float4 pieces");
    static_assert(A_COPIES >= 1 && A_COPIES * THREADS * 4 == BM * BK &&
                      THREADS % (BK / 4) == 0,
                  "whole passes over A's rows");
    static_assert(B_COPIES >= 1 && B_COPIES * THREADS * 4 == BK * BN &&
                      THREADS % (BN / 4) == 0,
                  "whole passes over B's rows");
    static_assert(STAGES >= 2, "a ring needs two stages");
    static_assert(PIPE_BYTES <= 48 * 1024,
                  "more than 48 KB of dynamic shared memory needs an opt-in");
};

/* a 16-byte asynchronous copy; before sm_80, a plain copy (correct, not
 * asynchronous: every architecture the Makefile builds must compile) */
__device__ __forceinline__ void cp_async16(float *dst, const float *src)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d),
                 "l"(src)
                 : "memory");
#else
    *(float4 *)dst = *(const float4 *)src;
#endif
}

/* close the group of copies this thread has issued since the last commit */
__device__ __forceinline__ void cp_async_commit(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/* wait until at most N of this thread's groups are still in flight */
template <int N> __device__ __forceinline__ void cp_async_wait(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

/* copy the tiles of A (BM x BK) and B (BK x BN) at column / row k0 into
 * one stage. Thread t copies float4 t % (BK / 4) of A's rows t / (BK / 4),
 * + THREADS / (BK / 4), ...: a warp's 32 copies are whole 32-byte sectors
 * of neighbouring rows. The addresses are 32-bit offsets (the dispatch
 * checks that they fit), one multiply-add each from the thread's first. */
template <class G>
__device__ __forceinline__ void copy_stage(float *as, const float *a,
                                           const float *b, int N, int K, int k0)
{
    constexpr int AQ = G::BK / 4, PA = G::THREADS / AQ; /* rows a pass */
    constexpr int BQ = G::BN / 4, PB = G::THREADS / BQ;
    float *bs = as + G::BK * G::BM;
    int tid = threadIdx.x;
    int am = tid / AQ, aq = tid % AQ, bk = tid / BQ, bn = tid % BQ * 4;
    const float *a0 = a + (am * K + k0 + aq * 4);
    const float *b0 = b + ((k0 + bk) * N + bn);
#pragma unroll
    for (int l = 0; l < G::A_COPIES; l++)
        cp_async16(&as[(aq * G::BM + am + l * PA) * 4], a0 + l * PA * K);
#pragma unroll
    for (int l = 0; l < G::B_COPIES; l++)
        cp_async16(&bs[(bk + l * PB) * G::BN + bn], b0 + l * PB * N);
}

/* this thread's first row and column in the block's tile */
template <class G> __device__ __forceinline__ int thread_row(void)
{
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    return warp / (G::BN / G::WN) * G::WM + lane / G::WC;
}

template <class G> __device__ __forceinline__ int thread_col(void)
{
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    return warp % (G::BN / G::WN) * G::WN + lane % G::WC * 4;
}

/* acc += the block's rows of A times its columns of B over the k tiles
 * [kt0, kt1) (a = A at the block's first row, b = B at its first column).
 * Returns with no copy in flight; the caller must __syncthreads() before
 * it writes to smem. */
template <class G>
__device__ __forceinline__ void
tile_mainloop(float (&acc)[G::TM][G::TN], const float *a, const float *b, int N,
              int K, int kt0, int kt1, float *smem)
{
    int row = thread_row<G>(), col = thread_col<G>();
    int nt = kt1 - kt0;
    /* prologue: tiles 0 .. STAGES-2 in flight, one group each (empty
     * groups past the end keep the count of groups equal to the tile
     * number, which the wait below relies on) */
#pragma unroll
    for (int s = 0; s < G::STAGES - 1; s++) {
        if (s < nt)
            copy_stage<G>(smem + s * G::STAGE, a, b, N, K, (kt0 + s) * G::BK);
        cp_async_commit();
    }
    int rs = 0, ws = G::STAGES - 1; /* the stage read, the stage written */
    for (int t = 0; t < nt; t++) {
        /* groups committed so far: STAGES - 1 + t; tile t's is complete
         * once at most STAGES - 2 remain in flight */
        cp_async_wait<G::STAGES - 2>();
        /* everyone's copies of tile t have landed, and everyone is done
         * with tile t - 1, whose stage ws is refilled next */
        __syncthreads();
        if (t + G::STAGES - 1 < nt)
            copy_stage<G>(smem + ws * G::STAGE, a, b, N, K,
                          (kt0 + t + G::STAGES - 1) * G::BK);
        cp_async_commit();
        const float *as = smem + rs * G::STAGE;
        const float *bs = as + G::BK * G::BM;
#pragma unroll
        for (int q = 0; q < G::BK / 4; q++) {
            float ar[G::TM][4]; /* rows of A at k = 4q .. 4q+3 */
#pragma unroll
            for (int i = 0; i < G::TM; i++)
                *(float4 *)ar[i] =
                    *(const float4 *)&as[(q * G::BM + row + i * G::WR) * 4];
#pragma unroll
            for (int kk = 0; kk < 4; kk++) {
                float br[G::TN];
#pragma unroll
                for (int j = 0; j < G::TN; j += 4) /* piece j / 4 */
                    *(float4 *)&br[j] =
                        *(const float4
                              *)&bs[(q * 4 + kk) * G::BN + col + j * G::WC];
#pragma unroll
                for (int i = 0; i < G::TM; i++)
#pragma unroll
                    for (int j = 0; j < G::TN; j++)
                        acc[i][j] += ar[i][kk] * br[j];
            }
        }
        rs = rs + 1 == G::STAGES ? 0 : rs + 1;
        ws = ws + 1 == G::STAGES ? 0 : ws + 1;
    }
    cp_async_wait<0>();
}

/* write this thread's outputs to c, the block's tile (row stride ldc):
 * output (i, j) is at row thread_row + i * WR, column thread_col
 * + (j / 4) * WC * 4 + j % 4 */
template <class G>
__device__ __forceinline__ void store_tile(float *c, int ldc,
                                           const float (&acc)[G::TM][G::TN])
{
    int row = thread_row<G>(), col = thread_col<G>();
#pragma unroll
    for (int i = 0; i < G::TM; i++)
#pragma unroll
        for (int j = 0; j < G::TN; j += 4)
            *(float4 *)&c[(size_t)(row + i * G::WR) * ldc + col + j * G::WC] =
                make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2],
                            acc[i][j + 3]);
}

template <class G>
__global__ void __launch_bounds__(G::THREADS, G::MINB)
    matmul_kernel8(const float *A, const float *B, float *C, int N, int K)
{
    extern __shared__ float4 dyn_smem[];
    const float *a = A + (size_t)blockIdx.y * G::BM * K;
    const float *b = B + (size_t)blockIdx.x * G::BN;
    float acc[G::TM][G::TN] = {{0.0f}};
    tile_mainloop<G>(acc, a, b, N, K, 0, K / G::BK, (float *)dyn_smem);
    store_tile<G>(C + (size_t)blockIdx.y * G::BM * N + blockIdx.x * G::BN, N,
                  acc);
}

/* rung 8: 128 x 128 x 8, 256 threads of 8 x 8 (warp tiles 32 x 64), two
 * blocks per SM (at most 128 registers a thread) */
typedef gemm_tiles<128, 128, 8, 32, 64, 8, 8, 4, 2> tiles8;
/* rung 9: 128 x 128 x 16, 128 threads of 8 x 16 (warp tiles 64 x 64), 3
 * stages, two blocks per SM (up to 255 registers): 128 multiply-adds for 6
 * shared loads per k (8 x 8: 64 for 4), and a quarter of the barriers and
 * half the copies per multiply-add */
typedef gemm_tiles<128, 128, 16, 64, 64, 8, 16, 3, 2> tiles9;

// ----------------------------------------------------------------------------
// kernel 10: split-K across a thread-block cluster (sm_90)
//
// A thin or small product has too few output tiles to fill the GPU
// (8192 x 64 makes 64 tiles of 128 x 64 for 132 SMs). Cutting K into S
// slices gives S times the blocks; the S blocks of one tile form a cluster,
// and each writes its partial tile to its own shared memory. After a
// cluster barrier, block r sums rows [r BM / S, (r + 1) BM / S) of the S
// partial tiles through distributed shared memory, in the order 0 .. S-1
// (the same result on every run, no atomics, no workspace), and writes them
// to C. With S = 1 it is kernel 8 on the thin tile, without a cluster.

template <class G, int S>
__global__ void __launch_bounds__(G::THREADS, G::MINB)
    matmul_kernel10(const float *A, const float *B, float *C, int N, int K)
{
    static_assert(S == 1 || S == 2 || S == 4 || S == 8, "cluster of 2^n <= 8");
    static_assert(G::TILE_BYTES <= 48 * 1024, "partial tile over 48 KB");
    extern __shared__ float4 dyn_smem[];
    float *smem = (float *)dyn_smem;
    int z = blockIdx.z, kt = K / G::BK; /* gridDim.z == S */
    const float *a = A + (size_t)blockIdx.y * G::BM * K;
    const float *b = B + (size_t)blockIdx.x * G::BN;
    float *c = C + (size_t)blockIdx.y * G::BM * N + blockIdx.x * G::BN;
    float acc[G::TM][G::TN] = {{0.0f}};
    /* slice z: k tiles [z kt / S, (z + 1) kt / S), as even as they come */
    tile_mainloop<G>(acc, a, b, N, K, z * kt / S, (z + 1) * kt / S, smem);
    if constexpr (S == 1) {
        store_tile<G>(c, N, acc);
    } else {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        constexpr int ROWS = G::BM / S, QUADS = ROWS * G::BN / 4;
        static_assert(QUADS % G::THREADS == 0, "whole passes of the sum");
        namespace cg = cooperative_groups;
        cg::cluster_group cluster = cg::this_cluster();
        __syncthreads(); /* every warp is done with the last stage */
        store_tile<G>(smem, G::BN, acc); /* this slice's partial tile */
        cluster.sync(); /* all S partial tiles written and visible */
        int r0 = (int)cluster.block_rank() * ROWS;
#pragma unroll
        for (int l = 0; l < QUADS / G::THREADS; l++) {
            int i = threadIdx.x + l * G::THREADS;
            int m = r0 + i / (G::BN / 4), n = i % (G::BN / 4) * 4;
            float4 v[S];
#pragma unroll
            for (int q = 0; q < S; q++) /* all S loads in flight at once */
                v[q] = *(const float4 *)cluster.map_shared_rank(
                    &smem[m * G::BN + n], q);
            float4 sum = v[0];
#pragma unroll
            for (int q = 1; q < S; q++) {
                sum.x += v[q].x;
                sum.y += v[q].y;
                sum.z += v[q].z;
                sum.w += v[q].w;
            }
            *(float4 *)&c[(size_t)m * N + n] = sum;
        }
        cluster.sync(); /* the others have read this block's partials */
#else
        __trap(); /* clusters need sm_90: the dispatch never gets here */
#endif
    }
}

/* rung 10's thin tile: 128 x 64 x 8, 128 threads of 8 x 8 (warp tiles
 * 32 x 64), 4 stages, up to four blocks per SM (at most 128 registers a
 * thread; k steps of 16 spill a few) */
typedef gemm_tiles<128, 64, 8, 32, 64, 8, 8, 4, 4> tiles10;

// ----------------------------------------------------------------------------
// kernel 11: tensor cores at FP32 accuracy (3xTF32)
//
// A tensor core multiplies TF32 numbers (FP32's 8 exponent bits, 10 of its
// 23 mantissa bits) and adds in FP32, several times faster than the FP32
// units. One TF32 product loses about 2^-11 per operand, far beyond the
// lab's tolerance; three of them recover FP32's accuracy. Split each
// operand into a TF32 number and the TF32 rounding of what is left:
//     a = a_big + a_small,  a_big = tf32(a),  a_small = tf32(a - a_big)
// (a_small carries the next 11 bits), and
//     a b = a_big b_big + a_big b_small + a_small b_big + a_small b_small
// where the last term is below FP32's rounding of the sum (2^-22 of a b)
// and is dropped. The small terms go first, so that they are not rounded
// away against the large one.
//
// One more source of error: a tensor core adds its products to the
// accumulator and truncates the result to FP32 (rounds toward zero).
// Accumulating all of K in the mma's own accumulator loses up to an ulp
// of the running sum at every one of the 3K / 8 mma, always toward zero:
// at K = 4096 the sum shrinks by about 3e-5, measured on an H100 (relative
// L2 error 2.86e-5, above the lab's 2e-5; FP32 on the CUDA cores is at
// about 4e-6). So each k step's three products start from zero and the
// step's result is added to the running sum by an ordinary FP32 add, which
// rounds to nearest: four adds per three mma, and FP32's accuracy.
//
// The tiles are kernel 8's ring of cp.async stages, BK = 32, with each
// row padded so that the fragment reads are conflict-free. A warp owns a
// WM x WN tile made of m16n8k8 products (mma.sync, sm_80 and later): for
// each k step of 8 it reads its fragments of A and B from shared memory,
// splits them, and issues three mma per 16 x 8 piece of C. Fragment
// layouts (g = lane / 4, t = lane % 4): A (16 x 8, row-major): a0 (g, t),
// a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4); B (8 x 8): b0 (t, g),
// b1 (t + 4, g); C (16 x 8): c0, c1 (g, 2t .. 2t + 1), c2, c3 (g + 8, ...).

/** Tile shapes of kernel 11 (sizes in floats). */
template <int BM_, int BN_, int WM_, int WN_, int STAGES_, int MINB_>
struct tc_tiles {
    static constexpr int BM = BM_, BN = BN_, BK = 32;
    static constexpr int WM = WM_, WN = WN_;
    static constexpr int MI = WM / 16, NI = WN / 8; /* mma pieces a warp */
    static constexpr int STAGES = STAGES_, MINB = MINB_;
    static constexpr int THREADS = (BM / WM) * (BN / WN) * 32;
    /* row strides: 4 mod 32 for A, 8 mod 32 for B (conflict-free
     * fragments), both multiples of 4 (16-byte copies) */
    static constexpr int LDA = BK + 4, LDB = BN + 8;
    static constexpr int STAGE = BM * LDA + BK * LDB;
    static constexpr int SMEM = STAGES * STAGE * 4;
    static constexpr int A_COPIES = BM * BK / 4 / THREADS;
    static constexpr int B_COPIES = BK * BN / 4 / THREADS;
    static_assert(WM % 16 == 0 && WN % 8 == 0, "whole mma pieces");
    static_assert(A_COPIES >= 1 && A_COPIES * THREADS * 4 == BM * BK,
                  "whole passes over A's tile");
    static_assert(B_COPIES >= 1 && B_COPIES * THREADS * 4 == BK * BN,
                  "whole passes over B's tile");
};

/* x = big + small, both TF32 (rounded to nearest) */
__device__ __forceinline__ void split_tf32(float x, unsigned &big,
                                           unsigned &small)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(big) : "f"(x));
    float rest = x - __uint_as_float(big);
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(small) : "f"(rest));
#else
    big = __float_as_uint(x);
    small = 0;
#endif
}

/* d += a b on the tensor cores: a 16 x 8, b 8 x 8, TF32; d FP32 */
__device__ __forceinline__ void mma_tf32(float (&d)[4], const unsigned (&a)[4],
                                         const unsigned (&b)[2])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    (void)d;
    (void)a;
    (void)b;
#endif
}

/* one stage: A's BM x BK tile and B's BK x BN tile at k tile kt */
template <class G>
__device__ __forceinline__ void tc_copy(float *as, const float *a,
                                        const float *b, int N, int K, int kt)
{
    constexpr int AQ = G::BK / 4, PA = G::THREADS / AQ; /* rows a pass */
    constexpr int BQ = G::BN / 4, PB = G::THREADS / BQ;
    float *bs = as + G::BM * G::LDA;
    int tid = threadIdx.x;
    int am = tid / AQ, aq = tid % AQ * 4, bk = tid / BQ, bn = tid % BQ * 4;
    const float *a0 = a + (size_t)am * K + (size_t)kt * G::BK + aq;
    const float *b0 = b + ((size_t)kt * G::BK + bk) * N + bn;
#pragma unroll
    for (int l = 0; l < G::A_COPIES; l++)
        cp_async16(&as[(am + l * PA) * G::LDA + aq], a0 + (size_t)l * PA * K);
#pragma unroll
    for (int l = 0; l < G::B_COPIES; l++)
        cp_async16(&bs[(bk + l * PB) * G::LDB + bn], b0 + (size_t)l * PB * N);
}

template <class G>
__global__ void __launch_bounds__(G::THREADS, G::MINB)
    matmul_kernel11(const float *A, const float *B, float *C, int N, int K)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ float4 dyn_smem[];
    float *smem = (float *)dyn_smem;
    const float *a = A + (size_t)blockIdx.y * G::BM * K;
    const float *b = B + (size_t)blockIdx.x * G::BN;
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int g = lane / 4, t = lane % 4;
    int wm = warp / (G::BN / G::WN) * G::WM,
        wn = warp % (G::BN / G::WN) * G::WN;
    float acc[G::MI][G::NI][4];
#pragma unroll
    for (int i = 0; i < G::MI; i++)
#pragma unroll
        for (int j = 0; j < G::NI; j++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                acc[i][j][r] = 0.f;
    int nt = K / G::BK;
#pragma unroll
    for (int s = 0; s < G::STAGES - 1; s++) {
        if (s < nt)
            tc_copy<G>(smem + s * G::STAGE, a, b, N, K, s);
        cp_async_commit();
    }
    for (int kt = 0; kt < nt; kt++) {
        cp_async_wait<G::STAGES - 2>();
        __syncthreads();
        if (kt + G::STAGES - 1 < nt)
            tc_copy<G>(smem + (kt + G::STAGES - 1) % G::STAGES * G::STAGE, a, b,
                       N, K, kt + G::STAGES - 1);
        cp_async_commit();
        const float *as = smem + kt % G::STAGES * G::STAGE;
        const float *bs = as + G::BM * G::LDA;
#pragma unroll
        for (int kk = 0; kk < G::BK; kk += 8) {
            unsigned abig[G::MI][4], asmall[G::MI][4];
#pragma unroll
            for (int i = 0; i < G::MI; i++) {
                const float *p = as + (wm + i * 16 + g) * G::LDA + kk + t;
                split_tf32(p[0], abig[i][0], asmall[i][0]);
                split_tf32(p[8 * G::LDA], abig[i][1], asmall[i][1]);
                split_tf32(p[4], abig[i][2], asmall[i][2]);
                split_tf32(p[8 * G::LDA + 4], abig[i][3], asmall[i][3]);
            }
#pragma unroll
            for (int j = 0; j < G::NI; j++) {
                const float *q = bs + (kk + t) * G::LDB + wn + j * 8 + g;
                unsigned bbig[2], bsmall[2];
                split_tf32(q[0], bbig[0], bsmall[0]);
                split_tf32(q[4 * G::LDB], bbig[1], bsmall[1]);
#pragma unroll
                for (int i = 0; i < G::MI; i++) {
                    /* the three products of this k step from zero, then
                     * one FP32 add (round to nearest) into the sum */
                    float t[4] = {0.f, 0.f, 0.f, 0.f};
                    mma_tf32(t, asmall[i], bbig);
                    mma_tf32(t, abig[i], bsmall);
                    mma_tf32(t, abig[i], bbig);
#pragma unroll
                    for (int r = 0; r < 4; r++)
                        acc[i][j][r] += t[r];
                }
            }
        }
    }
    cp_async_wait<0>();
    float *c = C + (size_t)(blockIdx.y * G::BM + wm + g) * N +
               blockIdx.x * G::BN + wn + 2 * t;
#pragma unroll
    for (int i = 0; i < G::MI; i++)
#pragma unroll
        for (int j = 0; j < G::NI; j++) {
            float *p = c + (size_t)i * 16 * N + j * 8;
            *(float2 *)p = make_float2(acc[i][j][0], acc[i][j][1]);
            *(float2 *)(p + (size_t)8 * N) =
                make_float2(acc[i][j][2], acc[i][j][3]);
        }
#else
    __trap(); /* mma.sync on TF32 needs sm_80: the dispatch never gets here */
#endif
}

/* rung 11: 128 x 128 tiles, 8 warps of 64 x 32, 3 stages, two blocks an
 * SM; and 64 x 64 tiles, 4 warps of 32 x 32, 4 stages, for products with
 * fewer 128 x 128 tiles than SMs */
typedef tc_tiles<128, 128, 64, 32, 3, 2> tiles11;
typedef tc_tiles<64, 64, 32, 32, 4, 3> tiles11s;
/* the same 128 x 128 tiles with 4 warps of 64 x 64 (CUTLASS's shape):
 * fewer shared loads and splits per mma, twice the registers
 * (MATMUL_KERNEL_TILES11=2 picks it, for tuning) */
typedef tc_tiles<128, 128, 64, 64, 3, 2> tiles11w;

// ----------------------------------------------------------------------------
// kernel 12: Hopper's warpgroup MMA (wgmma) at FP32 accuracy (3xTF32, sm_90a)
//
// The same three products as rung 11, on Hopper's asynchronous tensor-core
// instruction: wgmma.mma_async multiplies a 64 x 128 x 8 piece for a whole
// warpgroup (4 warps) with both operands read straight from shared memory,
// so no thread loads fragments or splits numbers in the loop.
//
// A pre-pass (two small kernels, on the same stream, every call) splits A
// and B into their TF32 big and small halves and writes them tile by tile,
// already in the layout wgmma reads: a 128 x 32 tile of A (rows of 32
// consecutive k, 128 bytes) and one of B transposed (rows of 32 consecutive
// k for one column n), big then small, 32 KB each, with the 16-byte pieces
// of row r permuted by r % 8 (the 128-byte swizzle that keeps wgmma's reads
// free of bank conflicts). A stage of the kernel is then two contiguous
// 32 KB blocks, which one thread copies with two bulk copies (the Tensor
// Memory Accelerator's 1D cp.async.bulk, which needs no tensor map) that
// complete on an mbarrier.
//
// A block of 384 threads computes a 128 x 128 tile of C: warpgroup 0 is
// the producer (one thread issues the copies into a ring of 3 stages of
// 64 KB; the group gives up registers with setmaxnreg), warpgroups 1 and 2
// each own 64 rows and issue 12 wgmma per k tile of 32 (per k step of 8:
// a_small b_big, a_big b_small, a_big b_big) into a fresh accumulator,
// then add it to the running sum in FP32 (as rung 11 does per k step) and
// free the stage. Tiles are visited in groups of 8 block rows so that
// neighbours share A's and B's tiles in L2.
//
// wgmma exists only on sm_90a (Hopper's architecture-specific features);
// the Makefile builds sm_90a for a compute capability 9.0 GPU. Elsewhere
// the kernel is empty, and the dispatch, which asks the loaded kernel for
// its static shared memory (the stage barriers exist only in the sm_90a
// body), hands the shape to rung 11.

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define MATMUL_WGMMA 1
#endif

namespace wg
{

constexpr int BM = 128, BN = 128, BK = 32; /* BK floats: one 128-byte row */
constexpr int STAGES = 3;
constexpr int CONSUMERS = 2;                      /* warpgroups of 64 rows */
constexpr int THREADS = 128 * (1 + CONSUMERS);    /* and one producer group */
constexpr int TILE = BM * BK;                     /* floats of one half-tile */
constexpr int CHUNK = 2 * TILE;                   /* big and small */
constexpr int STAGE_BYTES = 2 * CHUNK * 4;        /* A's chunk, B's chunk */
constexpr int SMEM = STAGES * STAGE_BYTES + 1024; /* + 1024-byte alignment */
static_assert(BK * 4 == 128, "a tile row is one 128-byte swizzle row");
static_assert(BM == BN, "A's and B's tiles share the layout");
static_assert(SMEM <= 227 * 1024, "within an SM's shared memory");

/* where element (r, c) of a 128 x 32 half-tile sits: row r of 32 floats,
 * its 16-byte pieces permuted by r % 8 */
__host__ __device__ __forceinline__ int swizzled(int r, int c)
{
    return r * BK + (((c >> 2) ^ (r & 7)) << 2) + (c & 3);
}

/* A (M x K) into its tiles: thread i takes 4 consecutive floats of a row */
__global__ void __launch_bounds__(256)
    split_a_tiles(const float4 *__restrict__ A, float *__restrict__ Ap, int K,
                  size_t n4)
{
    int K4 = K / 4, KT = K / BK;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
         i += (size_t)gridDim.x * blockDim.x) {
        int m = (int)(i / K4), k = (int)(i % K4) * 4;
        float4 v = A[i];
        uint4 b, s;
        split_tf32(v.x, b.x, s.x);
        split_tf32(v.y, b.y, s.y);
        split_tf32(v.z, b.z, s.z);
        split_tf32(v.w, b.w, s.w);
        float *t = Ap + ((size_t)(m / BM) * KT + k / BK) * CHUNK +
                   swizzled(m % BM, k % BK);
        *(uint4 *)t = b;
        *(uint4 *)(t + TILE) = s;
    }
}

/* B (K x N) into the tiles of B transposed: a block turns a 32 x 32 piece
 * through shared memory; grid (N / 32, K / 32), 32 x 8 threads */
__global__ void __launch_bounds__(256)
    split_b_tiles(const float *__restrict__ B, float *__restrict__ Bp, int N,
                  int K)
{
    __shared__ float piece[32][33];
    int n0 = blockIdx.x * 32, k0 = blockIdx.y * 32;
    int tx = threadIdx.x, ty = threadIdx.y;
    for (int r = ty; r < 32; r += 8)
        piece[r][tx] = B[(size_t)(k0 + r) * N + n0 + tx];
    __syncthreads();
    float *tile = Bp + ((size_t)(n0 / BN) * (K / BK) + k0 / BK) * CHUNK;
    for (int r = ty; r < 32; r += 8) {
        unsigned b, s;
        split_tf32(piece[tx][r], b, s); /* B[k0 + tx][n0 + r] */
        int o = swizzled((n0 + r) % BN, tx);
        tile[o] = __uint_as_float(b);
        tile[o + TILE] = __uint_as_float(s);
    }
}

#ifdef MATMUL_WGMMA
__device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void bar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar),
                 "r"(count)
                 : "memory");
}

__device__ __forceinline__ void bar_expect(unsigned bar, unsigned bytes)
{
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
        "r"(bytes)
        : "memory");
}

__device__ __forceinline__ void bar_arrive(unsigned bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar)
                 : "memory");
}

/* wait for the phase of the given parity to complete */
__device__ __forceinline__ void bar_wait(unsigned bar, unsigned parity)
{
    unsigned done;
    do {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}

/* bytes from global to shared memory by the TMA, counted on bar */
__device__ __forceinline__ void bulk_copy(unsigned dst, const float *src,
                                          unsigned bytes, unsigned bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::"
                 "bytes [%0], [%1], %2, [%3];" ::"r"(dst),
                 "l"(src), "r"(bytes), "r"(bar)
                 : "memory");
}

/* the descriptor of a 64- or 128-row operand in shared memory: rows of 128
 * bytes with the 128-byte swizzle, 8-row groups 1024 bytes apart */
__device__ __forceinline__ unsigned long long descriptor(unsigned addr)
{
    return (unsigned long long)((addr & 0x3FFFF) >> 4) |
           (unsigned long long)1 << 16 |           /* leading offset (unused) */
           (unsigned long long)(1024 >> 4) << 32 | /* 8-row group stride */
           (unsigned long long)1 << 62;            /* 128-byte swizzle */
}

/* d (+)= a b: a 64 x 8 and b 8 x 128 TF32 from shared memory, d 64 x 128
 * FP32 spread over the warpgroup (64 floats a thread); d = a b when add = 0 */
__device__ __forceinline__ void wgmma_tf32(float (&d)[64], unsigned long long a,
                                           unsigned long long b, int add)
{
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %66, 0;\n\t"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, "
        "%15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, "
        "%28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, "
        "%41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, "
        "%54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
        "%64, %65, p, 1, 1;\n\t}"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]),
          "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]),
          "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),
          "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
          "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
          "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
          "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]),
          "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),
          "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]),
          "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
          "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(a), "l"(b), "r"(add));
}

/* keep the compiler from moving accumulator reads across the wgmma */
__device__ __forceinline__ void fence_regs(float (&d)[64])
{
#pragma unroll
    for (int i = 0; i < 64; i++)
        asm volatile("" : "+f"(d[i])::"memory");
}
#endif /* MATMUL_WGMMA */

/* C (M x N) = A B from the tiles of split_a_tiles (Ap) and split_b_tiles (Bp)
 */
__global__ void __launch_bounds__(THREADS, 1)
    gemm_wgmma(const float *__restrict__ Ap, const float *__restrict__ Bp,
               float *__restrict__ C, int M, int N, int K)
{
#ifdef MATMUL_WGMMA
    extern __shared__ unsigned char dyn[];
    __shared__ __align__(8) unsigned long long full[STAGES], empty[STAGES];
    const unsigned base = (smem_addr(dyn) + 1023u) & ~1023u;

    constexpr int GROUP_M = 8; /* block rows a group */
    const int tiles_n = N / BN, per_group = GROUP_M * tiles_n;
    const int first_m = blockIdx.x / per_group * GROUP_M;
    const int rows = min(M / BM - first_m, GROUP_M);
    const int in_group = blockIdx.x % per_group;
    const int tm = first_m + in_group % rows, tn = in_group / rows;
    const int KT = K / BK;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            bar_init(smem_addr(&full[s]), 1);
            bar_init(smem_addr(&empty[s]), 4 * CONSUMERS); /* a warp each */
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();

    const int group = threadIdx.x / 128, tid = threadIdx.x % 128;
    if (group == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        if (tid == 0) {
            const float *a = Ap + (size_t)tm * KT * CHUNK;
            const float *b = Bp + (size_t)tn * KT * CHUNK;
            for (int kt = 0; kt < KT; kt++) {
                int s = kt % STAGES;
                unsigned bar = smem_addr(&full[s]);
                if (kt >= STAGES) /* the consumers freed its last use */
                    bar_wait(smem_addr(&empty[s]), (kt / STAGES - 1) & 1);
                bar_expect(bar, STAGE_BYTES);
                unsigned dst = base + s * STAGE_BYTES;
                bulk_copy(dst, a + (size_t)kt * CHUNK, CHUNK * 4, bar);
                bulk_copy(dst + CHUNK * 4, b + (size_t)kt * CHUNK, CHUNK * 4,
                          bar);
            }
        }
        return;
    }
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    const unsigned a_rows = (group - 1) * 64 * BK * 4; /* this group's 64 */
    float acc[64], part[64];
#pragma unroll
    for (int i = 0; i < 64; i++)
        acc[i] = 0.f;
    for (int kt = 0; kt < KT; kt++) {
        int s = kt % STAGES;
        bar_wait(smem_addr(&full[s]), (kt / STAGES) & 1);
        unsigned stage = base + s * STAGE_BYTES;
        unsigned long long ab = descriptor(stage + a_rows),
                           as = descriptor(stage + TILE * 4 + a_rows),
                           bb = descriptor(stage + CHUNK * 4),
                           bs = descriptor(stage + CHUNK * 4 + TILE * 4);
        fence_regs(part);
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
        for (int k = 0; k < BK / 8; k++) {
            unsigned long long o = k * 8 * 4 >> 4; /* 32 bytes a k step */
            wgmma_tf32(part, as + o, bb + o, k > 0);
            wgmma_tf32(part, ab + o, bs + o, 1);
            wgmma_tf32(part, ab + o, bb + o, 1);
        }
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        fence_regs(part);
        if (tid % 32 == 0)
            bar_arrive(smem_addr(&empty[s]));
#pragma unroll
        for (int i = 0; i < 64; i++)
            acc[i] += part[i];
    }
    /* the accumulator's layout: warp w of the group holds rows 16w to
     * 16w + 15; lane l row l / 4 and l / 4 + 8, columns 2 (l % 4) + 8j and
     * the next */
    int warp = tid / 32, lane = tid % 32;
    float *c = C +
               (size_t)(tm * BM + (group - 1) * 64 + warp * 16 + lane / 4) * N +
               tn * BN + 2 * (lane % 4);
#pragma unroll
    for (int j = 0; j < BN / 8; j++) {
        *(float2 *)(c + 8 * j) = make_float2(acc[4 * j], acc[4 * j + 1]);
        *(float2 *)(c + (size_t)8 * N + 8 * j) =
            make_float2(acc[4 * j + 2], acc[4 * j + 3]);
    }
#else
    (void)Ap, (void)Bp, (void)C, (void)M, (void)N, (void)K;
#endif
}

} // namespace wg

// ----------------------------------------------------------------------------
// launchers

static void launch3(const float *A, const float *B, float *C, int M, int N,
                    int K, cudaStream_t s)
{
    dim3 grid((N + T3 - 1) / T3, (M + T3 - 1) / T3);
    matmul_kernel3<<<grid, dim3(T3, T3), 0, s>>>(A, B, C, M, N, K);
}

/* multiprocessors of the current device (asked once) */
static int device_sms(void)
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

/* do the shape and pointers fit kernel 8's or 10's tiles G, with the 32-bit
 * offsets of copy_stage (a block's rows of A, all of B)? */
template <class G>
static int fits8(const float *A, const float *B, const float *C, int M, int N,
                 int K)
{
    return tiles_fit(A, B, C, M, N, K, G::BM, G::BN, G::BK) &&
           (long long)(G::BM + 1) * K <= INT_MAX && (long long)K * N <= INT_MAX;
}

/* let the kernel use all of its SM's shared memory for blocks (the carveout
 * is a hint; without it the driver may keep more L1 and fit fewer blocks) */
template <class F> static void prefer_shared(F *kernel)
{
    if (cudaFuncSetAttribute(kernel,
                             cudaFuncAttributePreferredSharedMemoryCarveout,
                             cudaSharedmemCarveoutMaxShared) != cudaSuccess)
        (void)cudaGetLastError(); /* only a hint: leave no error behind */
}

/* kernel 8 on tiles G, if the shape fits them and makes at least one block
 * per SM; 0 if it does not (the caller falls back) */
template <class G>
static int launch8(const float *A, const float *B, float *C, int M, int N,
                   int K, cudaStream_t s)
{
    static int once = 0;
    if (!fits8<G>(A, B, C, M, N, K) ||
        (long long)(M / G::BM) * (N / G::BN) < device_sms())
        return 0;
    if (!once) {
        prefer_shared(matmul_kernel8<G>);
        once = 1;
    }
    dim3 grid(N / G::BN, M / G::BM);
    matmul_kernel8<G><<<grid, G::THREADS, G::PIPE_BYTES, s>>>(A, B, C, N, K);
    return 1;
}

/* can the current device launch thread-block clusters (sm_90)? */
static int cluster_ok(void)
{
    static int ok = -1;
    if (ok < 0) {
        int dev = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&ok, cudaDevAttrClusterLaunch, dev) !=
                cudaSuccess)
            ok = 0;
    }
    return ok;
}

/* kernel 10: the thin tiles, the shared memory of a block (pipeline or
 * partial tile), and the instantiation for S slices */
typedef tiles10 G10;
static const int bytes10 =
    G10::PIPE_BYTES > G10::TILE_BYTES ? G10::PIPE_BYTES : G10::TILE_BYTES;
typedef void (*kernel10_fn)(const float *, const float *, float *, int, int);

static kernel10_fn kernel10_for(int S)
{
    switch (S) {
    case 2: return matmul_kernel10<G10, 2>;
    case 4: return matmul_kernel10<G10, 4>;
    case 8: return matmul_kernel10<G10, 8>;
    default: return matmul_kernel10<G10, 1>;
    }
}

/* the launch of S slices of every tile as clusters of S blocks */
static void config10(cudaLaunchConfig_t *cfg, cudaLaunchAttribute *attr, int M,
                     int N, int S, cudaStream_t s)
{
    *cfg = cudaLaunchConfig_t{};
    cfg->gridDim = dim3(N / G10::BN, M / G10::BM, S);
    cfg->blockDim = dim3(G10::THREADS);
    cfg->dynamicSmemBytes = bytes10;
    cfg->stream = s;
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = 1;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = S; /* the S slices of one tile */
    cfg->attrs = attr;
    cfg->numAttrs = 1;
}

/* can all the clusters of S blocks be resident at once (one wave)? */
static int clusters_fit(int M, int N, int S)
{
    static int cap[9]; /* clusters of S blocks the GPU holds (0: not asked
                        * yet, -1: could not tell) */
    if (!cap[S]) {
        cudaLaunchConfig_t cfg;
        cudaLaunchAttribute attr;
        int n = 0;
        config10(&cfg, &attr, M, N, S, 0);
        if (cudaOccupancyMaxActiveClusters(&n, kernel10_for(S), &cfg) !=
            cudaSuccess) {
            (void)cudaGetLastError();
            n = -1;
        }
        cap[S] = n > 0 ? n : -1;
    }
    return (long long)cap[S] >= (long long)(M / G10::BM) * (N / G10::BN);
}

/* K slices: double S (up to 8, the portable cluster size) while there are
 * fewer than two blocks per SM, each slice keeps at least 4 k tiles, and
 * all the clusters fit on the GPU at once. MATMUL_KERNEL_SPLITK=1, 2, 4 or 8
 * forces S (for tuning). */
static int split_count(int M, int N, int K)
{
    static int forced = -1;
    if (forced < 0) {
        const char *v = getenv("MATMUL_KERNEL_SPLITK");
        int f = v ? atoi(v) : 0;
        forced = f == 1 || f == 2 || f == 4 || f == 8 ? f : 0;
    }
    if (forced)
        return forced;
    long long tiles = (long long)(M / G10::BM) * (N / G10::BN);
    int kt = K / G10::BK, S = 1;
    while (S < 8 && tiles * S < 2LL * device_sms() && kt / (2 * S) >= 4 &&
           clusters_fit(M, N, 2 * S))
        S *= 2;
    return S;
}

/* kernel 10 on the thin tiles, split S ways when that is worth it and the
 * GPU has clusters; 0 if the shape does not fit the tiles */
static int launch10(const float *A, const float *B, float *C, int M, int N,
                    int K, cudaStream_t s)
{
    static int once = 0;
    if (!fits8<G10>(A, B, C, M, N, K))
        return 0;
    if (!once) {
        for (int S = 1; S <= 8; S *= 2)
            prefer_shared(kernel10_for(S));
        once = 1;
    }
    int S = cluster_ok() ? split_count(M, N, K) : 1;
    if (S > 1) {
        cudaLaunchConfig_t cfg;
        cudaLaunchAttribute attr;
        config10(&cfg, &attr, M, N, S, s);
        if (cudaLaunchKernelEx(&cfg, kernel10_for(S), A, B, C, N, K) ==
            cudaSuccess)
            return 1;
        (void)cudaGetLastError(); /* refused: run it unsplit */
    }
    dim3 grid(N / G10::BN, M / G10::BM, 1);
    matmul_kernel10<G10, 1><<<grid, G10::THREADS, bytes10, s>>>(A, B, C, N, K);
    return 1;
}

/* can the current device run mma.sync on TF32 (sm_80 and later)? */
static int tf32_ok(void)
{
    static int ok = -1;
    if (ok < 0) {
        int dev = 0, major = 0;
        ok = cudaGetDevice(&dev) == cudaSuccess &&
             cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor,
                                    dev) == cudaSuccess &&
             major >= 8;
    }
    return ok;
}

/* MATMUL_KERNEL_TILES11=2: rung 11's large tiles with 64 x 64 warp tiles */
static int tiles11_choice(void)
{
    static int c = 0;
    if (!c) {
        const char *v = getenv("MATMUL_KERNEL_TILES11");
        c = v && atoi(v) == 2 ? 2 : 1;
    }
    return c;
}

/* kernel 11 on tiles G if the shape fits them and makes at least `least`
 * blocks; 0 if not (the caller falls back) */
template <class G>
static int launch11(const float *A, const float *B, float *C, int M, int N,
                    int K, long long least, cudaStream_t s)
{
    static int ready = 0; /* 1: the shared memory opt-in is done, -1: refused */
    if (!tf32_ok() || !tiles_fit(A, B, C, M, N, K, G::BM, G::BN, G::BK) ||
        (long long)(M / G::BM) * (N / G::BN) < least)
        return 0;
    if (!ready) {
        ready =
            cudaFuncSetAttribute(matmul_kernel11<G>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 G::SMEM) == cudaSuccess
                ? 1
                : -1;
        if (ready < 0)
            (void)cudaGetLastError();
        prefer_shared(matmul_kernel11<G>);
    }
    if (ready < 0)
        return 0;
    dim3 grid(N / G::BN, M / G::BM);
    matmul_kernel11<G><<<grid, G::THREADS, G::SMEM, s>>>(A, B, C, N, K);
    return 1;
}

/* rung 12 on this device and build? Hopper (compute capability 9.0) and a
 * kernel compiled for sm_90a: only that body declares static shared memory
 * (its stage barriers), so the loaded kernel's attributes tell */
static int wgmma_ok(void)
{
    static int ok = -1;
    if (ok < 0) {
        int dev = 0, major = 0, minor = 0;
        cudaFuncAttributes fa;
        ok = cudaGetDevice(&dev) == cudaSuccess &&
             cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor,
                                    dev) == cudaSuccess &&
             cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor,
                                    dev) == cudaSuccess &&
             major == 9 && minor == 0 &&
             cudaFuncGetAttributes(&fa, wg::gemm_wgmma) == cudaSuccess &&
             fa.sharedSizeBytes > 0 &&
             cudaFuncSetAttribute(wg::gemm_wgmma,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  wg::SMEM) == cudaSuccess;
        if (!ok)
            (void)cudaGetLastError();
    }
    return ok;
}

/* kernel 12 if the shape fits its tiles and makes at least `least` of
 * them; 0 if not (the caller falls back). The split operands live in a
 * workspace kept across calls and grown when a larger product comes */
static int launch12(const float *A, const float *B, float *C, int M, int N,
                    int K, long long least, cudaStream_t s)
{
    static float *ws = NULL;
    static size_t ws_floats = 0;
    if (!tiles_fit(A, B, C, M, N, K, wg::BM, wg::BN, wg::BK) ||
        (long long)(M / wg::BM) * (N / wg::BN) < least || !wgmma_ok())
        return 0;
    size_t need = 2 * ((size_t)M + N) * K;
    if (need > ws_floats) {
        if (ws)
            (void)cudaFree(ws);
        ws = NULL;
        ws_floats = 0;
        if (cudaMalloc(&ws, need * sizeof(float)) != cudaSuccess) {
            (void)cudaGetLastError();
            ws = NULL;
            return 0;
        }
        ws_floats = need;
    }
    float *Ap = ws, *Bp = ws + 2 * (size_t)M * K;
    size_t n4 = (size_t)M * K / 4;
    long long blocks = (long long)(n4 + 255) / 256;
    if (blocks > 16LL * device_sms())
        blocks = 16LL * device_sms();
    wg::split_a_tiles<<<(int)blocks, 256, 0, s>>>((const float4 *)A, Ap, K, n4);
    wg::split_b_tiles<<<dim3(N / 32, K / 32), dim3(32, 8), 0, s>>>(B, Bp, N, K);
    wg::gemm_wgmma<<<(M / wg::BM) * (N / wg::BN), wg::THREADS, wg::SMEM, s>>>(
        Ap, Bp, C, M, N, K);
    return 1;
}

/* rungs 1 to 7 (rungs 4 to 7 fall back to rung 3 on shapes that do not fit
 * their tiles) */
static void launch_classic(int kernel, const float *A, const float *B, float *C,
                           int M, int N, int K, cudaStream_t stream)
{
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
               (long long)(M / 128) * (N / 128) >= device_sms()) {
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

// ----------------------------------------------------------------------------
// dispatch

/* the rung that runs without MATMUL_KERNEL */
#define MATMUL_DEFAULT 12
#define MATMUL_RUNGS   12

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N,
                       int K, cudaStream_t stream)
{
    static int kernel = 0;
    if (!kernel) {
        const char *v = getenv("MATMUL_KERNEL");
        kernel = v ? atoi(v) : MATMUL_DEFAULT;
        if (kernel < 1 || kernel > MATMUL_RUNGS)
            kernel = MATMUL_DEFAULT;
    }
    /* rungs 8 to 10 take the shapes their tiles fit; the rest go down the
     * ladder to rung 7 */
    switch (kernel) {
    case 8:
        if (launch8<tiles8>(A, B, C, M, N, K, stream))
            return;
        break;
    case 9:
        if (launch8<tiles9>(A, B, C, M, N, K, stream))
            return;
        break;
    case 10:
        /* the tile table: large products take rung 9's 128 x 128 tiles,
         * thin and small ones 128 x 64 tiles split along K */
        if (launch8<tiles9>(A, B, C, M, N, K, stream) ||
            launch10(A, B, C, M, N, K, stream))
            return;
        break;
    case 12:
        /* rung 12 where its tiles fill the GPU; the rest, and GPUs or
         * builds without sm_90a, take rung 11 */
        if (launch12(A, B, C, M, N, K, device_sms(), stream))
            return;
        [[fallthrough]];
    case 11:
        /* 3xTF32 on the tensor cores: the large tiles where they fill the
         * GPU, the small ones where they make at least one block an SM;
         * other shapes (and GPUs before sm_80) take rung 10's table */
        if ((tiles11_choice() == 2
                 ? launch11<tiles11w>(A, B, C, M, N, K, device_sms(), stream)
                 : launch11<tiles11>(A, B, C, M, N, K, device_sms(), stream)) ||
            launch11<tiles11s>(A, B, C, M, N, K, device_sms() / 2, stream) ||
            launch8<tiles9>(A, B, C, M, N, K, stream) ||
            launch10(A, B, C, M, N, K, stream))
            return;
        break;
    default: break;
    }
    launch_classic(kernel < 8 ? kernel : 7, A, B, C, M, N, K, stream);
}
