/*
 * Lab 2 reference solution: 1D stencil and depthwise causal conv1d.
 *
 * Part A ladder (STENCIL_KERNEL=N, default 7):
 *   1  one output per thread, every input read from global memory
 *   2  a shared-memory tile of blockDim outputs plus a halo of R each side
 *   3  tiles of 1024 outputs (4 per thread, strided so shared reads are
 *      conflict-free), weights in constant memory, 16-byte tile loads
 *   4  register sliding window (R <= 16; rung 3 above that): the window
 *      width is a template parameter, so the weights and each thread's
 *      window live in registers; a thread reads its window from shared
 *      memory as float4s and computes 4 x 4 consecutive outputs
 *   5  a warp streams its chunk like a copy (R <= 8; rung 4 above): every
 *      16-byte load in flight before the first use, the neighbours' values
 *      from the adjacent lanes through shuffles, no shared memory and no
 *      barrier, and a persistent grid sized by the occupancy API
 *   6  rung 5 pipelined (R <= 8; rung 4 above): a warp's loads of its next
 *      chunk are in flight while it computes the current one, plain loads
 *      and stores, two blocks an SM for the registers both chunks need
 *   7  the tiles come in by bulk copies of the tensor memory accelerator
 *      (R <= 8, compute capability 9.0 and later; rung 6 elsewhere): one
 *      thread asks for a whole tile and its halo, a ring of shared-memory
 *      stages keeps several tiles a block in flight without a register,
 *      an mbarrier a stage says when its bytes have landed
 * Part B ladder (CONV1D_KERNEL=N, default 8):
 *   1  one output per thread from global memory
 *   2  a shared tile of each row with a K-1 halo on the left, the row's
 *      weights in shared memory, 4 outputs per thread
 *   3  the register sliding window of rung A4 (K <= 32; rung 2 above)
 *   4  rung 3, and for K > 32 a register-blocked kernel: each thread
 *      computes 16 consecutive outputs from a window of the row's tile in
 *      registers, the weights read from shared memory as float4s that
 *      every thread of the warp shares, so 64 multiply-adds cost two
 *      shared loads; the tile is stored with a 4-float gap every 16 floats
 *      so that a quarter warp's 16-byte reads hit distinct banks
 *   5  rung 4, and for K <= 9 the streaming warp kernel of rung A5
 *   6  rung 4 on a persistent grid whose blocks stream their tiles: the
 *      next tile and its weights come in by cp.async while the current
 *      one is multiplied, so memory and arithmetic overlap (K > 32;
 *      rung 3 below that)
 *   7  rung 6 with three half-length filters for four (K > 32; aligned
 *      rows and T % 4 == 0, rung 6 elsewhere): the even and odd samples
 *      and taps of a row, combined by Karatsuba's identity (Winograd's
 *      minimal filtering in one dimension), need 3K/4 multiply-adds an
 *      output instead of K
 *   8  rung 7, and for 32 < K <= 128 the convolution theorem: overlap-save
 *      with 256-point FFTs (16 x 16, two segments of 128 outputs a complex
 *      transform), whose cost does not grow with K (rung 7 where its grid
 *      would need more than 65535 chunks of rows)
 *
 * The window kernel serves both parts: the stencil is a centred window
 * and the causal convolution a window that ends at t. Widths between the
 * instantiated ones are padded with zero weights.
 *
 *   make grade LAB=02 SOLUTION=1
 */
#include "stencil.h"

#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

/* the integer in environment variable name, or fallback where it is unset
 * or outside [lo, hi] (the rungs' choices and tuning switches) */
static int env_int(const char *name, int fallback, int lo, int hi)
{
    const char *v = getenv(name);
    int k = v ? atoi(v) : fallback;
    return k >= lo && k <= hi ? k : fallback;
}

/* how many blocks of kernel (threads each, smem bytes of dynamic shared
 * memory, granted first) the device holds at once: its SMs times the
 * blocks an SM takes (at most per_sm_cap of them where that is above 0).
 * 0 where a query or the shared memory is refused, with the error cleared
 * (none is left for the caller's launches) */
template <class F>
static int resident_blocks(F *kernel, int threads, size_t smem,
                           int per_sm_cap = 0)
{
    int dev = 0, sms = 0, per_sm = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) !=
            cudaSuccess ||
        (smem > 0 && cudaFuncSetAttribute(
                         kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         (int)smem) != cudaSuccess) ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads,
                                                      smem) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return sms * (per_sm_cap > 0 && per_sm_cap < per_sm ? per_sm_cap : per_sm);
}

// ----------------------------------------------------------------------------
// Part A, kernel 1: global memory only

__global__ void stencil_kernel1(const float *in, float *out, const float *w,
                                int n, int radius)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float acc = 0.0f;
    for (int j = -radius; j <= radius; j++) {
        int k = i + j;
        if (k >= 0 && k < n)
            acc += w[j + radius] * in[k];
    }
    out[i] = acc;
}

// ----------------------------------------------------------------------------
// Part A, kernel 2: a shared tile and its halo

__global__ void stencil_kernel2(const float *in, float *out, const float *w,
                                int n, int radius)
{
    extern __shared__ float tile[]; /* blockDim.x + 2R floats */
    int base = blockIdx.x * blockDim.x;
    for (int k = threadIdx.x; k < blockDim.x + 2 * radius; k += blockDim.x) {
        int g = base - radius + k;
        tile[k] = g >= 0 && g < n ? in[g] : 0.0f;
    }
    __syncthreads();
    int i = base + threadIdx.x;
    if (i >= n)
        return;
    float acc = 0.0f;
    for (int j = 0; j <= 2 * radius; j++)
        acc += w[j] * tile[threadIdx.x + j];
    out[i] = acc;
}

// ----------------------------------------------------------------------------
// Part A, kernel 3: big tiles, constant weights, 16-byte loads

#define A3_THREADS 256
#define A3_OUT     4
#define A3_TILE    (A3_THREADS * A3_OUT)
#define A3_PAD     32 /* >= STENCIL_MAX_RADIUS and a multiple of 4 */

__constant__ float c_w[2 * STENCIL_MAX_RADIUS + 1];

__global__ void __launch_bounds__(A3_THREADS)
    stencil_kernel3(const float *__restrict__ in, float *__restrict__ out,
                    int n, int radius, int aligned)
{
    /* s[A3_PAD + k] holds in[base + k]; the halo sits on either side */
    __shared__ __align__(16) float s[A3_PAD + A3_TILE + A3_PAD];
    long long base = (long long)blockIdx.x * A3_TILE;
    int t = threadIdx.x;
    if (aligned && base + A3_TILE <= n) {
        const float4 *in4 = (const float4 *)(in + base);
        for (int k = t; k < A3_TILE / 4; k += A3_THREADS)
            *(float4 *)&s[A3_PAD + 4 * k] = __ldg(in4 + k);
    } else {
        for (int k = t; k < A3_TILE; k += A3_THREADS)
            s[A3_PAD + k] = base + k < n ? __ldg(in + base + k) : 0.0f;
    }
    if (t < radius) {
        long long left = base - radius + t, right = base + A3_TILE + t;
        s[A3_PAD - radius + t] = left >= 0 ? __ldg(in + left) : 0.0f;
        s[A3_PAD + A3_TILE + t] = right < n ? __ldg(in + right) : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int m = 0; m < A3_OUT; m++) {
        int local = t + m * A3_THREADS; /* a warp reads 32 neighbours */
        if (base + local >= n)
            break;
        const float *win = &s[A3_PAD - radius + local];
        float acc = 0.0f;
        for (int j = 0; j <= 2 * radius; j++)
            acc += c_w[j] * win[j];
        __stcs(out + base + local, acc);
    }
}

// ----------------------------------------------------------------------------
// Part B, kernel 1: global memory only

__global__ void conv1d_kernel1(const float *x, const float *w, float *y,
                               long long total, int C, int T, int K)
{
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= total)
        return;
    long long row = idx / T;
    int t = (int)(idx % T);
    const float *wr = w + (row % C) * K;
    const float *xr = x + row * T;
    float acc = 0.0f;
    for (int k = 0; k < K; k++) {
        int tt = t - (K - 1) + k;
        if (tt >= 0)
            acc += wr[k] * xr[tt];
    }
    y[idx] = acc;
}

// ----------------------------------------------------------------------------
// Part B, kernel 2: a shared tile of one row, halo on the left

#define B2_THREADS 256
#define B2_OUT     4
#define B2_TILE    (B2_THREADS * B2_OUT)

__global__ void __launch_bounds__(B2_THREADS)
    conv1d_kernel2(const float *__restrict__ x, const float *__restrict__ w,
                   float *__restrict__ y, int C, int T, int K)
{
    __shared__ float ws[CONV1D_MAX_K];
    __shared__ float s[B2_TILE + CONV1D_MAX_K - 1];
    long long row = blockIdx.x; /* b * C + c */
    int t0 = blockIdx.y * B2_TILE;
    int t = threadIdx.x;
    const float *xr = x + row * T;
    for (int k = t; k < K; k += B2_THREADS)
        ws[k] = __ldg(w + (row % C) * K + k);
    /* s[k] holds x at time t0 - (K-1) + k */
    for (int k = t; k < B2_TILE + K - 1; k += B2_THREADS) {
        int tt = t0 - (K - 1) + k;
        s[k] = tt >= 0 && tt < T ? __ldcs(xr + tt) : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int m = 0; m < B2_OUT; m++) {
        int local = t + m * B2_THREADS;
        if (t0 + local >= T)
            break;
        float acc = 0.0f;
        for (int k = 0; k < K; k++)
            acc += ws[k] * s[local + k];
        __stcs(y + row * T + t0 + local, acc);
    }
}

// ----------------------------------------------------------------------------
// Part A kernel 4 and Part B kernel 3: register sliding window
//
// out[row, t] = sum_{k < KC} w'[k] * in[row, t - (KC-1) + SHIFT + k], with
// in[] zero outside [0, T). w' is the real K weights placed at pad_left
// and zeros elsewhere. Thread t of a block computes outputs 4t..4t+3 of
// each of the W_GROUPS groups of the block's tile: four 16-byte loads in
// flight per thread while the tile comes in, and conflict-free float4
// reads of shared memory.

#define W_THREADS 256
#define W_GROUPS  4
#define W_GROUP   (W_THREADS * 4)
#define W_TILE    (W_GROUPS * W_GROUP)
#define ROUND4(x) (((x) + 3) / 4 * 4)

/* 4 consecutive outputs from a window in shared memory: the NV floats
 * from s read as float4s, acc[m] = sum over k < KC of wk[k] * v[OFF + m + k]
 * (rungs A4 and A7) */
template <int NV, int KC, int OFF>
__device__ __forceinline__ float4 window_quad(const float *s, const float *wk)
{
    float v[NV];
#pragma unroll
    for (int q = 0; q < NV / 4; q++) {
        float4 f = *(const float4 *)&s[4 * q];
        v[4 * q] = f.x;
        v[4 * q + 1] = f.y;
        v[4 * q + 2] = f.z;
        v[4 * q + 3] = f.w;
    }
    float acc[4];
#pragma unroll
    for (int m = 0; m < 4; m++) {
        acc[m] = 0.0f;
#pragma unroll
        for (int k = 0; k < KC; k++)
            acc[m] = fmaf(wk[k], v[OFF + m + k], acc[m]);
    }
    return make_float4(acc[0], acc[1], acc[2], acc[3]);
}

template <int KC, int SHIFT>
__global__ void __launch_bounds__(W_THREADS)
    window_kernel(const float *__restrict__ in, const float *__restrict__ w,
                  float *__restrict__ out, int C, int T, int K, int pad_left,
                  int vec)
{
    constexpr int L = KC - 1 - SHIFT, L4 = ROUND4(L), R4 = ROUND4(SHIFT);
    constexpr int SPAN = L4 + W_TILE + R4;
    constexpr int NV = L4 + 4 + R4; /* a thread's window, in floats */
    __shared__ __align__(16) float s[SPAN];
    long long row = blockIdx.x;
    long long t0 = (long long)blockIdx.y * W_TILE;
    const float *xr = in + row * T;
    const float *wr = w + (row % C) * K;
    int tid = threadIdx.x;

    /* s[p] = in[row, t0 - L4 + p] */
    if (vec) {
        for (int q = tid; q < SPAN / 4; q += W_THREADS) {
            long long tt = t0 - L4 + 4 * q;
            float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
            if (tt >= 0 && tt < T) /* T % 4 == 0: whole float4s */
                v = __ldcs((const float4 *)(xr + tt));
            *(float4 *)&s[4 * q] = v;
        }
    } else {
        for (int p = tid; p < SPAN; p += W_THREADS) {
            long long tt = t0 - L4 + p;
            s[p] = tt >= 0 && tt < T ? __ldcs(xr + tt) : 0.0f;
        }
    }
    float wk[KC];
#pragma unroll
    for (int k = 0; k < KC; k++)
        wk[k] =
            k >= pad_left && k < pad_left + K ? __ldg(wr + k - pad_left) : 0.0f;
    __syncthreads();

#pragma unroll
    for (int g = 0; g < W_GROUPS; g++) {
        int local = g * W_GROUP + 4 * tid;
        float4 o = window_quad<NV, KC, L4 - L>(s + local, wk);
        long long t = t0 + local;
        float *yr = out + row * T;
        if (vec && t + 4 <= T) {
            __stcs((float4 *)(yr + t), o);
        } else {
            const float acc[4] = {o.x, o.y, o.z, o.w};
#pragma unroll
            for (int m = 0; m < 4; m++)
                if (t + m < T)
                    yr[t + m] = acc[m];
        }
    }
}

/* launch the window kernel for a window of KC taps ending SHIFT past t */
template <int KC, int SHIFT>
static void launch_window(const float *in, const float *w, float *out,
                          long long rows, int C, int T, int K, int pad_left,
                          cudaStream_t s)
{
    int vec = (uintptr_t)in % 16 == 0 && (uintptr_t)out % 16 == 0 && T % 4 == 0;
    dim3 grid((unsigned)rows, (T + W_TILE - 1) / W_TILE);
    window_kernel<KC, SHIFT>
        <<<grid, W_THREADS, 0, s>>>(in, w, out, C, T, K, pad_left, vec);
}

/* stencil of radius R through the window of radius RC >= R */
template <int RC>
static void stencil_window(const float *in, float *out, const float *w, int n,
                           int radius, cudaStream_t s)
{
    launch_window<2 * RC + 1, RC>(in, w, out, 1, 1, n, 2 * radius + 1,
                                  RC - radius, s);
}

/* causal conv of width K through the window of KC >= K taps */
template <int KC>
static void conv_window(const float *x, const float *w, float *y, int B, int C,
                        int T, int K, cudaStream_t s)
{
    launch_window<KC, 0>(x, w, y, (long long)B * C, C, T, K, KC - K, s);
}

// ----------------------------------------------------------------------------
// Part A kernel 5 and Part B kernel 5: a warp streams its chunk like a copy
//
// out[row, t] = sum_{k <= L + RR} w'[k] * in[row, t - L + k], with in[]
// zero outside [0, T) and w' the row's weights: L = RR = R for the
// stencil, L = K - 1 and RR = 0 for the causal convolution. A warp takes
// chunks of S_CHUNK consecutive outputs of one row; of each of its S_SEGS
// segments of 128 floats, lane l holds in[q .. q + 3], q = seg + 4 l. The
// L values left of q and RR right of q + 3 are in lanes l - 1, l - 2 ...
// and l + 1, l + 2 ...: a shuffle each, where a lane at the segment's edge
// hands over the adjacent segment's value instead of its own (lanes 30 and
// 31 of segment -1 and lanes 0 and 1 of segment S_SEGS are two extra
// 16-byte loads at the chunk's edges).

#define S_THREADS    256
#define S_MIN_BLOCKS 3 /* up to 80 registers: every load in flight at once */
#define S_SEGS       4
#define S_CHUNK      (128 * S_SEGS)
/* rung A6: up to 128 registers, the current chunk's quads and the next's
 * (at 3 blocks an SM they spill) */
#define S_PIPE_MIN_BLOCKS 2

/* in[q .. q + 3] of one row, zero outside [0, T); HINT: streaming load */
template <bool HINT>
__device__ __forceinline__ float4 load_quad(const float *xr, long long q, int T,
                                            int vec)
{
    if (vec && q >= 0 && q + 4 <= T)
        return HINT ? __ldcs((const float4 *)(xr + q))
                    : __ldg((const float4 *)(xr + q));
    float4 f;
    f.x = q >= 0 && q < T ? __ldg(xr + q) : 0.0f;
    f.y = q + 1 >= 0 && q + 1 < T ? __ldg(xr + q + 1) : 0.0f;
    f.z = q + 2 >= 0 && q + 2 < T ? __ldg(xr + q + 2) : 0.0f;
    f.w = q + 3 >= 0 && q + 3 < T ? __ldg(xr + q + 3) : 0.0f;
    return f;
}

/* the S_SEGS quads of chunk c that lane holds */
template <bool HINT>
__device__ __forceinline__ void load_chunk(float4 *seg, const float *in,
                                           long long c, long long per_row,
                                           int T, int lane, int vec)
{
    long long row = c / per_row;
    long long t0 = (c - row * per_row) * S_CHUNK;
#pragma unroll
    for (int u = 0; u < S_SEGS; u++)
        seg[u] = load_quad<HINT>(in + row * T, t0 + 128 * u + 4 * lane, T, vec);
}

__device__ __forceinline__ float4 shfl_quad(float4 v, int src)
{
    v.x = __shfl_sync(0xffffffffu, v.x, src);
    v.y = __shfl_sync(0xffffffffu, v.y, src);
    v.z = __shfl_sync(0xffffffffu, v.z, src);
    v.w = __shfl_sync(0xffffffffu, v.w, src);
    return v;
}

/* PIPE: rung A6, the next chunk's loads issued before this one's
 * arithmetic */
template <int L, int RR, bool HINT, bool PIPE>
__global__ void __launch_bounds__(S_THREADS,
                                  PIPE ? S_PIPE_MIN_BLOCKS : S_MIN_BLOCKS)
    stream_window(const float *__restrict__ in, const float *__restrict__ w,
                  float *__restrict__ out, long long rows, int C, int T,
                  int vec)
{
    constexpr int KC = L + RR + 1;
    constexpr int SL = (L + 3) / 4, SR = (RR + 3) / 4; /* lanes each side */
    const int lane = threadIdx.x & 31;
    const long long warps = (long long)gridDim.x * (S_THREADS / 32);
    const long long per_row = (T + S_CHUNK - 1) / S_CHUNK;
    const long long chunks = rows * per_row;
    long long cur_row = -1;
    float wk[KC];
    long long c = ((long long)blockIdx.x * S_THREADS + threadIdx.x) / 32;
    float4 ahead[S_SEGS]; /* PIPE: the chunk c's quads, loaded a round early */
    if (PIPE && c < chunks)
        load_chunk<HINT>(ahead, in, c, per_row, T, lane, vec);
    /* the loop is uniform across the warp: every lane takes part in every
     * shuffle */
    for (; c < chunks; c += warps) {
        long long row = c / per_row;
        long long t0 = (c - row * per_row) * S_CHUNK;
        const float *xr = in + row * T;
        float *yr = out + row * T;
        if (row != cur_row) {
            const float *wr = w + (row % C) * KC;
#pragma unroll
            for (int k = 0; k < KC; k++)
                wk[k] = __ldg(wr + k);
            cur_row = row;
        }
        /* every load of the chunk before the first use (PIPE: and the
         * next chunk's, which land during this one's arithmetic) */
        float4 seg[S_SEGS], hl = make_float4(0.f, 0.f, 0.f, 0.f), hr = hl;
        if (PIPE) {
#pragma unroll
            for (int u = 0; u < S_SEGS; u++)
                seg[u] = ahead[u];
            if (c + warps < chunks)
                load_chunk<HINT>(ahead, in, c + warps, per_row, T, lane, vec);
        } else {
            load_chunk<HINT>(seg, in, c, per_row, T, lane, vec);
        }
        if (SL > 0 && lane >= 32 - SL)
            hl = load_quad<false>(xr, t0 - 128 + 4 * lane, T, vec);
        if (SR > 0 && lane < SR)
            hr = load_quad<false>(xr, t0 + S_CHUNK + 4 * lane, T, vec);
#pragma unroll
        for (int u = 0; u < S_SEGS; u++) {
            float4 prev = u > 0 ? seg[u > 0 ? u - 1 : 0] : hl;
            float4 next = u < S_SEGS - 1 ? seg[u < S_SEGS - 1 ? u + 1 : 0] : hr;
            /* window quad j holds in[q - 4 SL + 4 j .. + 3]; each is
             * used as soon as it arrives, so one quad is live at a time */
            float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
            for (int j = 0; j < SL + 1 + SR; j++) {
                float4 f = seg[u];
                if (j < SL)
                    f = shfl_quad(lane >= 32 - (SL - j) ? prev : seg[u],
                                  (lane - (SL - j)) & 31);
                else if (j > SL)
                    f = shfl_quad(lane < j - SL ? next : seg[u],
                                  (lane + j - SL) & 31);
                const float fv[4] = {f.x, f.y, f.z, f.w};
#pragma unroll
                for (int e = 0; e < 4; e++)
#pragma unroll
                    for (int m = 0; m < 4; m++) {
                        int k = 4 * j + e - (4 * SL - L + m); /* the tap */
                        if (k >= 0 && k < KC)
                            acc[m] = fmaf(wk[k], fv[e], acc[m]);
                    }
            }
            long long q = t0 + 128 * u + 4 * lane;
            if (vec && q + 4 <= T) {
                float4 o = make_float4(acc[0], acc[1], acc[2], acc[3]);
                if (HINT)
                    __stcs((float4 *)(yr + q), o);
                else
                    *(float4 *)(yr + q) = o;
            } else {
#pragma unroll
                for (int m = 0; m < 4; m++)
                    if (q + m < T)
                        yr[q + m] = acc[m];
            }
        }
    }
}

/* launch stream_window<L, RR> on a grid of SMs x resident blocks (PIPE:
 * rung A6's, plain loads and stores whatever STENCIL_KERNEL_HINTS says).
 * Its tuning switches (environment, read once): STENCIL_KERNEL_HINTS=0
 * plain loads and stores instead of the streaming hints (Lab 1 measured
 * the hints 8% slower on an H200), STENCIL_KERNEL_GRID=1 one chunk per
 * warp on a full grid instead of the persistent one */
template <int L, int RR, bool PIPE = false>
static void launch_stream(const float *in, const float *w, float *out,
                          long long rows, int C, int T, cudaStream_t s)
{
    typedef void (*stream_fn)(const float *, const float *, float *, long long,
                              int, int, int);
    static stream_fn kern = NULL;
    static int blocks_max = 0;
    if (blocks_max == 0) {
        kern = PIPE ? stream_window<L, RR, false, true>
               : env_int("STENCIL_KERNEL_HINTS", 1, INT_MIN, INT_MAX)
                   ? stream_window<L, RR, true, false>
                   : stream_window<L, RR, false, false>;
        blocks_max = resident_blocks(kern, S_THREADS, 0);
        if (blocks_max == 0) /* unknown: a guess that fills most GPUs */
            blocks_max = 80 * (PIPE ? S_PIPE_MIN_BLOCKS : S_MIN_BLOCKS);
        if (env_int("STENCIL_KERNEL_GRID", 0, INT_MIN, INT_MAX) == 1)
            blocks_max = 1 << 30;
    }
    int vec = (uintptr_t)in % 16 == 0 && (uintptr_t)out % 16 == 0 &&
              (rows == 1 || T % 4 == 0);
    long long chunks = rows * ((T + S_CHUNK - 1) / S_CHUNK);
    long long blocks = (chunks + S_THREADS / 32 - 1) / (S_THREADS / 32);
    if (blocks > blocks_max)
        blocks = blocks_max;
    kern<<<(unsigned)blocks, S_THREADS, 0, s>>>(in, w, out, rows, C, T, vec);
}

// ----------------------------------------------------------------------------
// Part A kernel 7: the tensor memory accelerator brings the tiles in
//
// Rung 6 keeps a warp's next chunk in registers, and registers cap how many
// bytes an SM has in flight (two blocks of 128-register threads: 64 KB).
// A copy at full occupancy keeps about twice that waiting. Here one thread
// of the block asks the TMA for a whole tile and its halo with one bulk
// copy (cp.async.bulk) into a ring of shared-memory stages; the copy
// reports its bytes to the stage's mbarrier, and the block waits on that
// barrier's phase before it reads the stage. Several tiles are in flight
// a block and none costs a register. The arithmetic is rung 4's: a thread
// reads its window of the stage as float4s and writes 4 outputs a group.
// Each copy brings 8 floats each side whatever R is, so that every copy
// but the row's first starts on a 32-byte DRAM sector: a copy that starts
// mid-sector (R = 3 with a 4-float halo) measured 5% slower. Hopper
// (compute capability 9.0) and later, aligned arrays and n % 4 == 0;
// rung 6 elsewhere.

#define T_THREADS    256
#define T_GROUP      (T_THREADS * 4) /* outputs a block computes a group */
#define T_MAX_STAGES 8

/* the tuning switches: groups a tile (tile = 1024 x groups outputs),
 * stages in the ring, blocks an SM (0: as many as fit), and the halo each
 * side that the copy brings (floats, a multiple of 8 and at least the
 * window's: 8 keeps its start on a 32-byte sector, 32 on a 128-byte line) */
#define T_GROUPS_DEFAULT 4
#define T_STAGES_DEFAULT 6
#define T_BPS_DEFAULT    0
#define T_HALO_DEFAULT   8

__device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

template <int R>
__global__ void __launch_bounds__(T_THREADS)
    stencil_tma(const float *__restrict__ in, const float *__restrict__ w,
                float *__restrict__ out, long long n, int groups, int stages,
                int hl)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int H = ROUND4(R); /* the window's halo, whole float4s */
    constexpr int NV = 2 * H + 4;
    extern __shared__ __align__(128) float ring[];
    __shared__ __align__(8) unsigned long long full[T_MAX_STAGES];
    const int tid = threadIdx.x;
    const int tile = groups * T_GROUP;
    const int span = tile + 2 * hl; /* stage[p] = in[t0 - hl + p] */
    const long long tiles = (n + tile - 1) / tile;
    const long long mine =
        blockIdx.x < tiles ? (tiles - 1 - blockIdx.x) / gridDim.x + 1 : 0;
    if (tid == 0) {
        for (int s = 0; s < stages; s++)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(
                             smem_addr(&full[s]))
                         : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();

    /* thread 0: the bulk copy of this block's j-th tile into its stage;
     * n % 4 == 0, t0 % 1024 == 0 and hl % 8 == 0: both ends are 16-byte
     * aligned, and the start 32-byte aligned (a whole DRAM sector) except
     * at the row's start */
    auto issue = [&](long long j) {
        const int s = (int)(j % stages);
        const long long t0 = (blockIdx.x + j * gridDim.x) * tile;
        const long long lo = t0 - hl > 0 ? t0 - hl : 0;
        const long long hi = t0 + tile + hl < n ? t0 + tile + hl : n;
        const unsigned bytes = (unsigned)(hi - lo) * 4u;
        const unsigned bar = smem_addr(&full[s]);
        /* the block's earlier writes to the stage (the zero edges) before
         * the copy's */
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        asm volatile(
            "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
            "r"(bytes)
            : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::"
                     "complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                         smem_addr(ring + (size_t)s * span + (lo - (t0 - hl)))),
                     "l"(in + lo), "r"(bytes), "r"(bar)
                     : "memory");
    };

    float wk[2 * R + 1];
#pragma unroll
    for (int k = 0; k < 2 * R + 1; k++)
        wk[k] = __ldg(w + k);
    if (tid == 0)
        for (long long j = 0; j < stages - 1 && j < mine; j++)
            issue(j);

    for (long long j = 0; j < mine; j++) {
        /* the stage refilled here was read in round j - 1, which the
         * barrier at the end of that round closed */
        if (tid == 0 && j + stages - 1 < mine)
            issue(j + stages - 1);
        const int s = (int)(j % stages);
        const unsigned parity = (unsigned)((j / stages) & 1);
        const unsigned bar = smem_addr(&full[s]);
        unsigned done = 0;
        while (!done)
            asm volatile("{\n\t.reg .pred p;\n\t"
                         "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], "
                         "%2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                         : "=r"(done)
                         : "r"(bar), "r"(parity)
                         : "memory");
        float *st = ring + (size_t)s * span;
        const long long t0 = (blockIdx.x + j * gridDim.x) * tile;
        if (t0 - hl < 0 || t0 + tile + hl > n) { /* the same for the block */
            for (int p = tid; p < span; p += T_THREADS) {
                long long t = t0 - hl + p;
                if (t < 0 || t >= n)
                    st[p] = 0.0f;
            }
            /* these writes before the copy that refills the stage: each
             * writer fences, then the barrier (the TMA's documented order) */
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
            __syncthreads();
        }
#pragma unroll 1
        for (int g = 0; g < groups; g++) {
            const int local = g * T_GROUP + 4 * tid;
            const long long t = t0 + local;
            if (t >= n)
                break;
            __stcs((float4 *)(out + t),
                   window_quad<NV, 2 * R + 1, H - R>(st + local + hl - H, wk));
        }
        __syncthreads();
    }
#else
    __trap(); /* the host launches this kernel on 9.0 and later only */
#endif
}

/* rung 7 where it runs (compute capability 9.0 or later, 16-byte aligned
 * arrays, n % 4 == 0); 0 (nothing launched) otherwise */
template <int R>
static int launch_tma(const float *in, const float *w, float *out, int n,
                      cudaStream_t s)
{
    static int blocks_max = -1, groups, stages, hl;
    if ((uintptr_t)in % 16 != 0 || (uintptr_t)out % 16 != 0 || n % 4 != 0)
        return 0;
    if (blocks_max < 0) {
        groups = env_int("STENCIL_KERNEL_GROUPS", T_GROUPS_DEFAULT, 1, 16);
        stages =
            env_int("STENCIL_KERNEL_STAGES", T_STAGES_DEFAULT, 2, T_MAX_STAGES);
        int bps = env_int("STENCIL_KERNEL_BPS", T_BPS_DEFAULT, 0, 8);
        hl = env_int("STENCIL_KERNEL_HALO", T_HALO_DEFAULT, 8, 64);
        if (hl % 8 != 0 || hl < ROUND4(R))
            hl = T_HALO_DEFAULT;
        size_t smem =
            (size_t)stages * (groups * T_GROUP + 2 * hl) * sizeof(float);
        int dev = 0, major = 0;
        blocks_max = 0; /* no TMA before sm_90, or refused: rung 6 */
        if (cudaGetDevice(&dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor,
                                   dev) == cudaSuccess &&
            major >= 9)
            blocks_max = resident_blocks(stencil_tma<R>, T_THREADS, smem, bps);
    }
    if (blocks_max == 0)
        return 0;
    int tile = groups * T_GROUP;
    long long tiles = ((long long)n + tile - 1) / tile;
    long long blocks = tiles < blocks_max ? tiles : blocks_max;
    size_t smem = (size_t)stages * (tile + 2 * hl) * sizeof(float);
    stencil_tma<R><<<(unsigned)blocks, T_THREADS, smem, s>>>(
        in, w, out, n, groups, stages, hl);
    return 1;
}

// ----------------------------------------------------------------------------
// Part B kernel 4: register blocking for long filters (K > 32)
//
// Block (row, tile) computes RB_TILE outputs of one row; thread i the
// RB_OUT consecutive outputs from RB_OUT * i. Its window of the tile
// slides through registers four taps at a time: each step reads one
// float4 of the tile and one float4 of the weights (the same address for
// the whole warp: a broadcast) and does 4 x RB_OUT multiply-adds.

/* shared index of the tile's float p: 4 floats of padding after every
 * RB_OUT, so that 8 threads reading float4s RB_OUT floats apart hit
 * distinct banks */
#define RB_SKEW(p) ((p) + (p) / RB_OUT * 4)

/* a thread's N consecutive outputs (N a multiple of 4) into row yr from t:
 * streaming float4s where all N lie inside the row and vec says the row is
 * 16-byte aligned, else one at a time up to T (rungs B4, B6, B7) */
template <int N>
__device__ __forceinline__ void store_outputs(float *yr, long long t, int T,
                                              const float *v, bool vec)
{
    if (vec && t + N <= T) {
#pragma unroll
        for (int q = 0; q < N / 4; q++)
            __stcs((float4 *)(yr + t + 4 * q),
                   make_float4(v[4 * q], v[4 * q + 1], v[4 * q + 2],
                               v[4 * q + 3]));
    } else {
#pragma unroll
        for (int m = 0; m < N; m++)
            if (t + m < T)
                yr[t + m] = v[m];
    }
}

/* RB_OUT outputs a thread (a multiple of 16), RB_THREADS threads, at least
 * MINB blocks an SM (which caps the registers): rung 4 runs 16 x 256;
 * CONV1D_KERNEL_RB=32 picks 32 x 128 (for tuning: twice the multiply-adds per
 * shared load and per loop step, the same tile) */
template <int KC, int RB_OUT, int RB_THREADS, int MINB>
__global__ void __launch_bounds__(RB_THREADS, MINB)
    conv_regblock(const float *__restrict__ x, const float *__restrict__ w,
                  float *__restrict__ y, int C, int T, int K, int vec)
{
    constexpr int RB_TILE = RB_THREADS * RB_OUT;
    constexpr int SPAN = KC + RB_TILE; /* s[p] = x[row, t0 - KC + p] */
    __shared__ __align__(16) float s[RB_SKEW(SPAN)];
    __shared__ __align__(16) float ws[KC]; /* K weights, zeros in front */
    long long row = blockIdx.x;
    long long t0 = (long long)blockIdx.y * RB_TILE;
    const float *xr = x + row * T;
    int tid = threadIdx.x;
    for (int k = tid; k < KC; k += RB_THREADS)
        ws[k] = k >= KC - K ? __ldg(w + (row % C) * K + k - (KC - K)) : 0.0f;
    if (vec) {
        for (int q = tid; q < SPAN / 4; q += RB_THREADS) {
            long long tt = t0 - KC + 4 * q;
            float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
            if (tt >= 0 && tt < T) /* T % 4 == 0: whole float4s */
                v = __ldcs((const float4 *)(xr + tt));
            *(float4 *)&s[RB_SKEW(4 * q)] = v;
        }
    } else {
        for (int p = tid; p < SPAN; p += RB_THREADS) {
            long long tt = t0 - KC + p;
            s[RB_SKEW(p)] = tt >= 0 && tt < T ? __ldcs(xr + tt) : 0.0f;
        }
    }
    __syncthreads();

    /* y[t0 + j] = sum_k ws[k] * x[t0 + j - (KC - 1) + k]
     *           = sum_k ws[k] * s[j + 1 + k],  j = base + m */
    const int base = RB_OUT * tid;
    float acc[RB_OUT], win[RB_OUT + 4];
#pragma unroll
    for (int m = 0; m < RB_OUT; m++)
        acc[m] = 0.0f;
#pragma unroll
    for (int q = 0; q < RB_OUT / 4; q++) {
        float4 f = *(const float4 *)&s[RB_SKEW(base + 4 * q)];
        win[4 * q] = f.x;
        win[4 * q + 1] = f.y;
        win[4 * q + 2] = f.z;
        win[4 * q + 3] = f.w;
    }
#pragma unroll
    for (int kb = 0; kb < KC / 4; kb++) {
        /* win[i] = s[base + 4 kb + i] */
        float4 f = *(const float4 *)&s[RB_SKEW(base + RB_OUT + 4 * kb)];
        win[RB_OUT] = f.x;
        win[RB_OUT + 1] = f.y;
        win[RB_OUT + 2] = f.z;
        win[RB_OUT + 3] = f.w;
        float4 wv = *(const float4 *)&ws[4 * kb];
        const float wq[4] = {wv.x, wv.y, wv.z, wv.w};
#pragma unroll
        for (int kk = 0; kk < 4; kk++)
#pragma unroll
            for (int m = 0; m < RB_OUT; m++)
                acc[m] = fmaf(wq[kk], win[m + 1 + kk], acc[m]);
#pragma unroll
        for (int i = 0; i < RB_OUT; i++)
            win[i] = win[i + 4];
    }

    store_outputs<RB_OUT>(y + row * T, t0 + base, T, acc, vec);
}

template <int KC, int OUT, int THREADS, int MINB>
static void launch_rb(const float *x, const float *w, float *y, int B, int C,
                      int T, int K, cudaStream_t s)
{
    int vec = (uintptr_t)x % 16 == 0 && (uintptr_t)y % 16 == 0 && T % 4 == 0;
    constexpr int TILE = OUT * THREADS;
    dim3 grid((unsigned)((long long)B * C), (T + TILE - 1) / TILE);
    conv_regblock<KC, OUT, THREADS, MINB>
        <<<grid, THREADS, 0, s>>>(x, w, y, C, T, K, vec);
}

template <int KC>
static void launch_regblock(const float *x, const float *w, float *y, int B,
                            int C, int T, int K, cudaStream_t s)
{
    static int shape = 0;
    if (!shape) {
        const char *v = getenv("CONV1D_KERNEL_RB");
        shape = v ? atoi(v) : 16;
    }
    if (shape == 32)
        launch_rb<KC, 32, 128, 4>(x, w, y, B, C, T, K, s);
    else if (shape == 3)
        launch_rb<KC, 16, 256, 3>(x, w, y, B, C, T, K, s);
    else
        launch_rb<KC, 16, 256, 2>(x, w, y, B, C, T, K, s);
}

// ----------------------------------------------------------------------------
// Part B kernel 6: rung 4 on a persistent grid that streams its tiles
//
// Rung 4's blocks all start together, load their tile together, compute
// together and finish together: on the GPU the loads of one wave and the
// arithmetic of the next barely overlap (ncu would show the FMA pipes idle
// while the tiles come in). Here a grid of SMs x resident blocks loops over
// the tiles, and each block copies its next tile (and its row's weights)
// with cp.async into a second buffer while it computes the current one:
// memory and arithmetic overlap inside every block. The arithmetic is rung
// 4's (16 outputs a thread, the window in registers).

#define PS_THREADS 256
#define PS_OUT     16
#define PS_TILE    (PS_THREADS * PS_OUT)
#define PS_SKEW(p) ((p) + (p) / PS_OUT * 4)

/* a 4-byte asynchronous copy, zero-filled when bytes is 0 */
__device__ __forceinline__ void cp_async4(float *dst, const float *src,
                                          int bytes)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(d),
                 "l"(src), "r"(bytes)
                 : "memory");
#else
    *dst = bytes ? *src : 0.0f;
#endif
}

/* a 16-byte asynchronous copy, zero-filled when bytes is 0 */
__device__ __forceinline__ void cp_async16z(float *dst, const float *src,
                                            int bytes)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d),
                 "l"(src), "r"(bytes)
                 : "memory");
#else
    *(float4 *)dst =
        bytes ? *(const float4 *)src : make_float4(0.f, 0.f, 0.f, 0.f);
#endif
}

__device__ __forceinline__ void cp_commit(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

template <int N> __device__ __forceinline__ void cp_wait(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

template <int KC>
__global__ void __launch_bounds__(PS_THREADS, 3)
    conv_stream_rb(const float *__restrict__ x, const float *__restrict__ w,
                   float *__restrict__ y, int C, int T, int K, long long tiles)
{
    constexpr int SPAN = KC + PS_TILE; /* s[p] = x[row, t0 - KC + p] */
    constexpr int SS = PS_SKEW(SPAN);
    __shared__ __align__(16) float sx[2][SS];
    __shared__ __align__(16) float sw[2][KC]; /* K weights, zeros in front */
    const int tid = threadIdx.x;
    const long long per_row = (T + PS_TILE - 1) / PS_TILE;

    /* tile i's copies into buffer b (T % 4 == 0, 16-byte aligned rows) */
    auto issue = [&](long long i, int b) {
        long long row = i / per_row, t0 = (i % per_row) * PS_TILE;
        const float *xr = x + row * T;
        for (int q = tid; q < SPAN / 4; q += PS_THREADS) {
            long long tt = t0 - KC + 4 * q;
            int ok = tt >= 0 && tt < T;
            cp_async16z(&sx[b][PS_SKEW(4 * q)], ok ? xr + tt : xr, ok ? 16 : 0);
        }
        const float *wr = w + (row % C) * K;
        for (int k = tid; k < KC; k += PS_THREADS) {
            int ok = k >= KC - K;
            cp_async4(&sw[b][k], ok ? wr + k - (KC - K) : wr, ok ? 4 : 0);
        }
    };

    long long i = blockIdx.x;
    int b = 0;
    if (i < tiles)
        issue(i, 0);
    cp_commit();
    for (; i < tiles; i += gridDim.x, b ^= 1) {
        if (i + gridDim.x < tiles)
            issue(i + gridDim.x, b ^ 1); /* in flight during the math */
        cp_commit();
        cp_wait<1>(); /* this tile's copies have landed */
        __syncthreads();
        const float *s = sx[b];
        const int base = PS_OUT * tid;
        float acc[PS_OUT], win[PS_OUT + 4];
#pragma unroll
        for (int m = 0; m < PS_OUT; m++)
            acc[m] = 0.0f;
#pragma unroll
        for (int q = 0; q < PS_OUT / 4; q++) {
            float4 f = *(const float4 *)&s[PS_SKEW(base + 4 * q)];
            win[4 * q] = f.x;
            win[4 * q + 1] = f.y;
            win[4 * q + 2] = f.z;
            win[4 * q + 3] = f.w;
        }
#pragma unroll
        for (int kb = 0; kb < KC / 4; kb++) {
            float4 f = *(const float4 *)&s[PS_SKEW(base + PS_OUT + 4 * kb)];
            win[PS_OUT] = f.x;
            win[PS_OUT + 1] = f.y;
            win[PS_OUT + 2] = f.z;
            win[PS_OUT + 3] = f.w;
            float4 wv = *(const float4 *)&sw[b][4 * kb];
            const float wq[4] = {wv.x, wv.y, wv.z, wv.w};
#pragma unroll
            for (int kk = 0; kk < 4; kk++)
#pragma unroll
                for (int m = 0; m < PS_OUT; m++)
                    acc[m] = fmaf(wq[kk], win[m + 1 + kk], acc[m]);
#pragma unroll
            for (int e = 0; e < PS_OUT; e++)
                win[e] = win[e + 4];
        }
        long long row = i / per_row;
        store_outputs<PS_OUT>(y + row * T, (i % per_row) * PS_TILE + base, T,
                              acc, true);
        __syncthreads(); /* buffer b is refilled next time round */
    }
    cp_wait<0>();
}

/* rung 6 where its 16-byte copies are safe (aligned rows, T % 4 == 0);
 * 0 (nothing launched) otherwise */
template <int KC>
static int launch_stream_rb(const float *x, const float *w, float *y, int B,
                            int C, int T, int K, cudaStream_t s)
{
    static int blocks_max = 0;
    if ((uintptr_t)x % 16 != 0 || (uintptr_t)y % 16 != 0 || T % 4 != 0)
        return 0;
    if (blocks_max == 0) {
        blocks_max = resident_blocks(conv_stream_rb<KC>, PS_THREADS, 0);
        if (blocks_max == 0)
            return 0;
    }
    long long tiles = (long long)B * C * ((T + PS_TILE - 1) / PS_TILE);
    long long blocks = tiles < blocks_max ? tiles : blocks_max;
    conv_stream_rb<KC>
        <<<(unsigned)blocks, PS_THREADS, 0, s>>>(x, w, y, C, T, K, tiles);
    return 1;
}

// ----------------------------------------------------------------------------
// Part B kernel 7: three half-length filters for the work of four
//
// Split a row into its even and odd samples and the filter into its even
// and odd taps: each output pair (y[2n], y[2n+1]) is made of four
// half-length filters, even taps on even samples and so on. Karatsuba's
// identity (Winograd's minimal filtering, F(2,2), in one dimension) makes
// it three:
//
//   A[n] = sum_m W0[m] V0[n+m]         (even taps on the even stream)
//   Bq[n] = sum_m W1[m] V1[n+m]        (odd taps on the odd stream)
//   P[n] = sum_m (W0 + W1)[m] S[n+m]   (S[p] = V1[p] + V0[p+1])
//   y[2n] = A[n] + Bq[n],  y[2n+1] = P[n] - A[n+1] - Bq[n]
//
// so a K-tap filter costs 3K/4 multiply-adds an output instead of K: a
// thread's 8 pairs are 25 sums of K/2 taps (A once more, for A[n0 + 8])
// where rung 6's 16 outputs are 16 sums of K. Rung 6's persistent grid
// brings the raw tiles in by cp.async as before; each tile is then split
// into the three streams in shared memory (3 stores an output pair,
// against 3K/2 multiply-adds), and a thread computes its pairs from three
// register windows sliding four taps a step. The streams have a 4-float
// gap every 8 floats, so that a quarter warp's 16-byte reads, 8 floats
// apart, hit distinct banks. Everything is double-buffered (110 KB a
// block, two blocks an SM), which leaves one barrier a tile: after it the
// block splits the next tile (copied while the last one was multiplied),
// issues the copies of the tile after that, and multiplies the streams
// split last time round (with one set of streams the split needs
// a barrier of its own before the arithmetic). The error stays at FP32
// level: P's terms are sums of two, and taking A and Bq from it adds a few
// roundings of numbers no larger than the output's own terms.

#define FF_THREADS 256
#define FF_PAIRS   8 /* output pairs a thread */
#define FF_TILE    (FF_THREADS * 2 * FF_PAIRS)
#define FF_SKEW(p) ((p) + (p) / 8 * 4)

/* the shared memory of rung 7 for a KC-tap filter, in floats */
template <int KC> struct ff_layout {
    static constexpr int SPAN = KC + FF_TILE; /* raw: s[p] = x[t0 - KC + p] */
    static constexpr int RAW = SPAN + 4; /* + the 4 zeros the split reads */
    static constexpr int HALF = KC / 2;  /* taps of a half filter */
    static constexpr int NS = FF_TILE / 2 + HALF; /* a stream's length */
    static constexpr int SS = FF_SKEW(NS);
    /* everything double-buffered: the raw tiles and weights, the three
     * streams, the three half filters */
    static constexpr size_t floats = 2 * (RAW + KC + 3 * SS + 3 * HALF);
};

template <int KC>
__global__ void __launch_bounds__(FF_THREADS, 2)
    conv_fastfir(const float *__restrict__ x, const float *__restrict__ w,
                 float *__restrict__ y, int C, int T, int K, long long tiles)
{
    using L = ff_layout<KC>;
    extern __shared__ __align__(16) float ff_smem[];
    float *raw = ff_smem;         /* [2][RAW] */
    float *rw = raw + 2 * L::RAW; /* [2][KC]: K weights, zeros in front */
    float *st = rw + 2 * KC;      /* [2][3][SS]: V0, V1, S */
    float *wt = st + 6 * L::SS;   /* [2][3][HALF]: W0, W1, W0 + W1 */
    const int tid = threadIdx.x;
    const long long per_row = (T + FF_TILE - 1) / FF_TILE;

    /* tile i's copies into buffer b (T % 4 == 0, 16-byte aligned rows) */
    auto issue = [&](long long i, int b) {
        long long row = i / per_row, t0 = (i % per_row) * FF_TILE;
        const float *xr = x + row * T;
        for (int q = tid; q < L::SPAN / 4; q += FF_THREADS) {
            long long tt = t0 - KC + 4 * q;
            int ok = tt >= 0 && tt < T;
            cp_async16z(raw + b * L::RAW + 4 * q, ok ? xr + tt : xr,
                        ok ? 16 : 0);
        }
        const float *wr = w + (row % C) * K;
        for (int k = tid; k < KC; k += FF_THREADS) {
            int ok = k >= KC - K;
            cp_async4(rw + b * KC + k, ok ? wr + k - (KC - K) : wr, ok ? 4 : 0);
        }
    };

    /* buffer b's raw tile into its three streams and half filters: with
     * v[p] = s[p + 1], V0[p] = v[2p], V1[p] = v[2p + 1], S[p] = V1[p] +
     * V0[p + 1]; four of each a step */
    auto split = [&](int b) {
        const float *r = raw + b * L::RAW;
        float *o3 = st + b * 3 * L::SS;
        for (int q = tid; q < L::NS / 4; q += FF_THREADS) {
            float4 lo = *(const float4 *)(r + 8 * q);
            float4 hi = *(const float4 *)(r + 8 * q + 4);
            float2 nx = *(const float2 *)(r + 8 * q + 8);
            float *o = o3 + FF_SKEW(4 * q);
            *(float4 *)o = make_float4(lo.y, lo.w, hi.y, hi.w);
            *(float4 *)(o + L::SS) = make_float4(lo.z, hi.x, hi.z, nx.x);
            *(float4 *)(o + 2 * L::SS) =
                make_float4(lo.z + lo.w, hi.x + hi.y, hi.z + hi.w, nx.x + nx.y);
        }
        if (tid < L::HALF) {
            float e = rw[b * KC + 2 * tid], d = rw[b * KC + 2 * tid + 1];
            float *u = wt + b * 3 * L::HALF;
            u[tid] = e;
            u[L::HALF + tid] = d;
            u[2 * L::HALF + tid] = e + d;
        }
    };

    long long i = blockIdx.x;
    if (i >= tiles)
        return;
    if (tid < 8) /* the split's last group reads 2 floats past the tile */
        raw[(tid / 4) * L::RAW + L::SPAN + tid % 4] = 0.0f;
    const long long G = gridDim.x;
    issue(i, 0);
    cp_commit();
    if (i + G < tiles)
        issue(i + G, 1);
    cp_commit();
    cp_wait<1>();
    __syncthreads();
    split(0);
    int b = 0;
    for (; i < tiles; i += G, b ^= 1) {
        /* one barrier a tile: after it, tile i's streams are whole (split
         * last time round), the next tile's copies have landed, and every
         * thread is done with the streams of the tile before */
        cp_wait<0>();
        __syncthreads();
        if (i + G < tiles) {
            split(b ^ 1); /* the next tile, for next time round */
            if (i + 2 * G < tiles)
                issue(i + 2 * G, b); /* into the raw buffer split last time */
        }
        cp_commit();
        const float *sb = st + b * 3 * L::SS;
        const float *wb = wt + b * 3 * L::HALF;

        /* pairs n0 .. n0 + 7 (A to n0 + 8): window f[j] = stream[n0 + 4 kb + j]
         */
        const int n0 = FF_PAIRS * tid;
        float a[FF_PAIRS + 1], bq[FF_PAIRS], pq[FF_PAIRS];
        float fa[FF_PAIRS + 4], fb[FF_PAIRS + 4], fp[FF_PAIRS + 4];
#pragma unroll
        for (int m = 0; m < FF_PAIRS; m++)
            a[m] = bq[m] = pq[m] = 0.0f;
        a[FF_PAIRS] = 0.0f;
#pragma unroll
        for (int q = 0; q < FF_PAIRS / 4; q++) {
            int o = FF_SKEW(n0 + 4 * q);
            *(float4 *)&fa[4 * q] = *(const float4 *)(sb + o);
            *(float4 *)&fb[4 * q] = *(const float4 *)(sb + L::SS + o);
            *(float4 *)&fp[4 * q] = *(const float4 *)(sb + 2 * L::SS + o);
        }
#pragma unroll
        for (int kb = 0; kb < L::HALF / 4; kb++) {
            int o = FF_SKEW(n0 + FF_PAIRS + 4 * kb);
            *(float4 *)&fa[FF_PAIRS] = *(const float4 *)(sb + o);
            *(float4 *)&fb[FF_PAIRS] = *(const float4 *)(sb + L::SS + o);
            *(float4 *)&fp[FF_PAIRS] = *(const float4 *)(sb + 2 * L::SS + o);
            float4 u0 = *(const float4 *)(wb + 4 * kb);
            float4 u1 = *(const float4 *)(wb + L::HALF + 4 * kb);
            float4 u2 = *(const float4 *)(wb + 2 * L::HALF + 4 * kb);
            const float w0[4] = {u0.x, u0.y, u0.z, u0.w};
            const float w1[4] = {u1.x, u1.y, u1.z, u1.w};
            const float w2[4] = {u2.x, u2.y, u2.z, u2.w};
#pragma unroll
            for (int kk = 0; kk < 4; kk++) {
#pragma unroll
                for (int m = 0; m <= FF_PAIRS; m++)
                    a[m] = fmaf(w0[kk], fa[m + kk], a[m]);
#pragma unroll
                for (int m = 0; m < FF_PAIRS; m++) {
                    bq[m] = fmaf(w1[kk], fb[m + kk], bq[m]);
                    pq[m] = fmaf(w2[kk], fp[m + kk], pq[m]);
                }
            }
#pragma unroll
            for (int e = 0; e < FF_PAIRS; e++) {
                fa[e] = fa[e + 4];
                fb[e] = fb[e + 4];
                fp[e] = fp[e + 4];
            }
        }

        float out[2 * FF_PAIRS];
#pragma unroll
        for (int m = 0; m < FF_PAIRS; m++) {
            out[2 * m] = a[m] + bq[m];
            out[2 * m + 1] = pq[m] - a[m + 1] - bq[m];
        }
        long long row = i / per_row;
        store_outputs<2 * FF_PAIRS>(
            y + row * T, (i % per_row) * FF_TILE + 2 * n0, T, out, true);
    }
    cp_wait<0>();
}

/* rung 7 where it runs (16-byte aligned rows, T % 4 == 0, and the shared
 * memory it asks for granted); 0 (nothing launched) otherwise */
template <int KC>
static int launch_fastfir(const float *x, const float *w, float *y, int B,
                          int C, int T, int K, cudaStream_t s)
{
    static int blocks_max = -1;
    constexpr size_t smem = ff_layout<KC>::floats * sizeof(float);
    if ((uintptr_t)x % 16 != 0 || (uintptr_t)y % 16 != 0 || T % 4 != 0)
        return 0;
    if (blocks_max < 0) /* 0 where the shared memory is refused: rung 6 */
        blocks_max = resident_blocks(conv_fastfir<KC>, FF_THREADS, smem);
    if (blocks_max == 0)
        return 0;
    long long tiles = (long long)B * C * ((T + FF_TILE - 1) / FF_TILE);
    long long blocks = tiles < blocks_max ? tiles : blocks_max;
    conv_fastfir<KC>
        <<<(unsigned)blocks, FF_THREADS, smem, s>>>(x, w, y, C, T, K, tiles);
    return 1;
}

// ----------------------------------------------------------------------------
// rung 8: the convolution theorem (overlap-save with FFTs of 256 points)
//
// A K-tap filter costs K multiply-adds an output by any direct method; a
// Fourier transform turns the convolution into one complex product a
// frequency. Cut a row into segments of 128 outputs; segment s needs the
// 256 inputs x[128 s - 128 .. 128 s + 127], and the circular convolution of
// those 256 with the filter (reversed, zero-padded to 256: h[j] =
// w[K - 1 - j]) equals the wanted outputs in its upper half for any K <=
// 129. Two segments go through one complex transform, one as the real part
// and one as the imaginary part: the filter is real, so the product with
// its spectrum keeps the two apart, and the inverse returns segment 2p in
// the real parts and segment 2p + 1 in the imaginary parts.
//
// A 256-point transform is 16 x 16 (the "four-step" algorithm): 16 lanes
// of a warp hold 16 points each, lane l the points 16 a + l. Each lane
// transforms its 16 in registers (two radix-4 passes), multiplies by
// W^(l k1), and the 16 lanes swap through shared memory (a 16 x 17 buffer,
// free of bank conflicts), then transform again. The spectrum comes out
// in a scrambled order (lane l holds frequencies l + 16 k2), which is the
// order the filter's spectrum is stored in and the order the inverse
// consumes, so nothing is ever put back in order. A lane issues about
// 1060 instructions for its 16 of a pair's 256 outputs, whatever K is,
// where a thread of rung 7 issues about 2100 for 16 outputs at K = 128. The
// error is a few roundings of each transform's values, far inside the
// tolerance.
//
// A block takes one channel (its filter's spectrum computed once, into
// shared memory) and up to FT_ROWS rows of it; its 16 lane groups share the
// rows' segment pairs, each group a run of consecutive pairs, so a row is
// read once (the upper 128 inputs of pair p are the lower half of pair
// p + 1's) and each pair's loads are issued before the last pair is
// transformed.

#define FT_THREADS 256
#define FT_GROUPS  (FT_THREADS / 16)
#define FT_ROWS    8  /* rows of a channel a block */
#define FT_LD      17 /* float2s a row of a 16 x 16 buffer: no bank conflicts */

__device__ __forceinline__ float2 c_add(float2 a, float2 b)
{
    return make_float2(a.x + b.x, a.y + b.y);
}
__device__ __forceinline__ float2 c_sub(float2 a, float2 b)
{
    return make_float2(a.x - b.x, a.y - b.y);
}
/* a b */
__device__ __forceinline__ float2 c_mul(float2 a, float2 b)
{
    return make_float2(fmaf(a.x, b.x, -a.y * b.y), fmaf(a.x, b.y, a.y * b.x));
}
/* a conj(b) */
__device__ __forceinline__ float2 c_mulc(float2 a, float2 b)
{
    return make_float2(fmaf(a.x, b.x, a.y * b.y), fmaf(a.y, b.x, -a.x * b.y));
}

/* the 4-point transform of (x0, x1, x2, x3) in place: forward with
 * e^(-2 pi i / 4) = -i, inverse (unscaled) with +i */
template <bool INV>
__device__ __forceinline__ void dft4(float2 &x0, float2 &x1, float2 &x2,
                                     float2 &x3)
{
    float2 t0 = c_add(x0, x2), t1 = c_sub(x0, x2);
    float2 t2 = c_add(x1, x3), t3 = c_sub(x1, x3);
    x0 = c_add(t0, t2);
    x2 = c_sub(t0, t2);
    /* t1 - i t3 and t1 + i t3 */
    float2 m = make_float2(t1.x + t3.y, t1.y - t3.x);
    float2 p = make_float2(t1.x - t3.y, t1.y + t3.x);
    x1 = INV ? p : m;
    x3 = INV ? m : p;
}

/* x * e^(-+2 pi i e / 16) for e = n2 k1 (n2, k1 < 4): the constants of
 * fft16's middle step */
template <bool INV> __device__ __forceinline__ float2 tw16(float2 x, int e)
{
    const float c1 = 0.92387953251128674f, s1 = 0.38268343236508978f,
                r = 0.70710678118654752f;
    float c, s; /* e^(-2 pi i e / 16) = c - i s */
    switch (e) {
    case 1: c = c1, s = s1; break;
    case 2: c = r, s = r; break;
    case 3: c = s1, s = c1; break;
    case 6: c = -r, s = r; break;
    case 9: c = -c1, s = -s1; break;
    default: /* 4: -i (forward), +i (inverse) */
        return INV ? make_float2(-x.y, x.x) : make_float2(x.y, -x.x);
    }
    if (INV)
        s = -s;
    return make_float2(fmaf(x.x, c, x.y * s), fmaf(x.y, c, -x.x * s));
}

/* the 16-point transform of v in place (natural order in and out): 16 = 4
 * x 4, n = 4 n1 + n2, k = k1 + 4 k2 */
template <bool INV> __device__ __forceinline__ void fft16(float2 *v)
{
#pragma unroll
    for (int n2 = 0; n2 < 4; n2++) /* over n1: v[4 k1 + n2] */
        dft4<INV>(v[n2], v[4 + n2], v[8 + n2], v[12 + n2]);
#pragma unroll
    for (int k1 = 1; k1 < 4; k1++)
#pragma unroll
        for (int n2 = 1; n2 < 4; n2++)
            v[4 * k1 + n2] = tw16<INV>(v[4 * k1 + n2], n2 * k1);
#pragma unroll
    for (int k1 = 0; k1 < 4; k1++) /* over n2: X[k1 + 4 k2] at 4 k1 + k2 */
        dft4<INV>(v[4 * k1], v[4 * k1 + 1], v[4 * k1 + 2], v[4 * k1 + 3]);
    float2 t[16];
#pragma unroll
    for (int k1 = 0; k1 < 4; k1++)
#pragma unroll
        for (int k2 = 0; k2 < 4; k2++)
            t[k1 + 4 * k2] = v[4 * k1 + k2];
#pragma unroll
    for (int k = 0; k < 16; k++)
        v[k] = t[k];
}

/* lane l of a group of 16. Forward: v[a] = z[16 a + l] in, v[k2] =
 * Z[l + 16 k2] out (Z the 256-point transform of z). INV, the inverse
 * (unscaled): v[k2] = Z[l + 16 k2] in, v[a] = 256 z[16 a + l] out: the
 * same steps with conjugate twiddles. tw[l * FT_LD + m] = W^(l m), W =
 * e^(-2 pi i / 256); buf is the group's 16 x FT_LD buffer; mask the
 * group's lanes */
template <bool INV>
__device__ __forceinline__ void fft256(float2 *v, const float2 *tw, float2 *buf,
                                       int l, unsigned mask)
{
    fft16<INV>(v); /* over the first index: v[k1] = Y_l[k1] */
#pragma unroll
    for (int k1 = 1; k1 < 16; k1++)
        v[k1] = INV ? c_mulc(v[k1], tw[l * FT_LD + k1])
                    : c_mul(v[k1], tw[l * FT_LD + k1]);
    __syncwarp(mask); /* the buffer's last readers are done */
#pragma unroll
    for (int k1 = 0; k1 < 16; k1++)
        buf[k1 * FT_LD + l] = v[k1];
    __syncwarp(mask);
#pragma unroll
    for (int b = 0; b < 16; b++) /* Y_b[l] */
        v[b] = buf[l * FT_LD + b];
    fft16<INV>(v); /* over the second: v[k2] = Z[l + 16 k2] (INV: v[a]) */
}

/* rows b C + c of channel c = blockIdx.x, b = FT_ROWS blockIdx.y .. (at
 * most FT_ROWS of them), K <= 129 */
__global__ void __launch_bounds__(FT_THREADS)
    conv_fft(const float *__restrict__ x, const float *__restrict__ w,
             float *__restrict__ y, int B, int C, int T, int K)
{
    __shared__ float2 tw[16 * FT_LD], hs[16 * FT_LD];
    __shared__ float2 bufs[FT_GROUPS][16 * FT_LD];
    const int tid = threadIdx.x, l = tid % 16, g = tid / 16;
    const unsigned mask = 0xffffu << (tid & 16);
    float2 *buf = bufs[g];
    const int c = blockIdx.x, b0 = blockIdx.y * FT_ROWS;
    const int rows = min(FT_ROWS, B - b0);

    { /* W^(l m), m < 16, for every lane l */
        int tl = tid / 16, m = tid % 16;
        float s, co;
        sincospif((float)(tl * m) / 128.0f, &s, &co);
        tw[tl * FT_LD + m] = make_float2(co, -s);
    }
    __syncthreads();
    if (g == 0) { /* the filter's spectrum, divided by 256 */
        float2 v[16];
        const float *wc = w + (long long)c * K;
#pragma unroll
        for (int a = 0; a < 16; a++) {
            int j = 16 * a + l;
            v[a] = make_float2(j < K ? wc[K - 1 - j] : 0.0f, 0.0f);
        }
        fft256<false>(v, tw, buf, l, mask);
#pragma unroll
        for (int k2 = 0; k2 < 16; k2++)
            hs[l * FT_LD + k2] =
                make_float2(v[k2].x * (1.0f / 256), v[k2].y * (1.0f / 256));
    }
    __syncthreads();

    /* the group's run of (row, pair) items, pair p making outputs 256 p ..
     * 256 p + 255 of its row */
    const int pairs = (T + 255) / 256, items = rows * pairs;
    const int per = (items + FT_GROUPS - 1) / FT_GROUPS;
    const int first = g * per, last = min(items, first + per);
    float lo[8], hi[16]; /* the next item's inputs: x[256 p - 128 + 16 a + l]
                            for a < 8, then x[256 p + 16 a + l] */
    auto load = [&](int it, bool carry) {
        int r = it / pairs, p = it - r * pairs;
        const float *xr = x + ((long long)(b0 + r) * C + c) * T + 256 * p + l;
        if (carry) { /* the upper half of the item before */
#pragma unroll
            for (int a = 0; a < 8; a++)
                lo[a] = hi[8 + a];
        } else if (p > 0) { /* 128 <= 256 p - 128 + 16 a + l < 256 p < T */
#pragma unroll
            for (int a = 0; a < 8; a++)
                lo[a] = __ldcs(xr - 128 + 16 * a);
        } else { /* p = 0: x[16 a + l - 128], all before the row */
#pragma unroll
            for (int a = 0; a < 8; a++)
                lo[a] = 0.0f;
        }
        if (256 * p + 256 <= T) { /* the whole pair inside the row */
#pragma unroll
            for (int a = 0; a < 16; a++)
                hi[a] = __ldcs(xr + 16 * a);
        } else {
#pragma unroll
            for (int a = 0; a < 16; a++)
                hi[a] = 256 * p + 16 * a + l < T ? __ldcs(xr + 16 * a) : 0.0f;
        }
    };
    if (first < last)
        load(first, false);
    for (int it = first; it < last; it++) {
        float2 v[16];
#pragma unroll
        for (int a = 0; a < 16; a++)
            v[a] = make_float2(a < 8 ? lo[a] : hi[a - 8], hi[a]);
        int r = it / pairs, p = it - r * pairs;
        if (it + 1 < last)
            load(it + 1, p + 1 < pairs);
        fft256<false>(v, tw, buf, l, mask);
#pragma unroll
        for (int k2 = 0; k2 < 16; k2++)
            v[k2] = c_mul(v[k2], hs[l * FT_LD + k2]);
        fft256<true>(v, tw, buf, l, mask);
        float *yr = y + ((long long)(b0 + r) * C + c) * T + 256 * p + l;
        if (256 * p + 256 <= T) {
#pragma unroll
            for (int a = 8; a < 16; a++) {
                __stcs(yr + 16 * (a - 8), v[a].x);
                __stcs(yr + 16 * (a - 8) + 128, v[a].y);
            }
        } else {
#pragma unroll
            for (int a = 8; a < 16; a++) {
                int t = 256 * p + 16 * (a - 8) + l;
                if (t < T)
                    __stcs(yr + 16 * (a - 8), v[a].x);
                if (t + 128 < T)
                    __stcs(yr + 16 * (a - 8) + 128, v[a].y);
            }
        }
    }
}

/* rung 8 where its grid fits (a block for each channel and FT_ROWS of its
 * rows: at most 65535 of those); 0 (nothing launched) otherwise */
static int launch_fft(const float *x, const float *w, float *y, int B, int C,
                      int T, int K, cudaStream_t s)
{
    int chunks = (B + FT_ROWS - 1) / FT_ROWS;
    if (chunks > 65535)
        return 0;
    dim3 grid((unsigned)C, (unsigned)chunks);
    conv_fft<<<grid, FT_THREADS, 0, s>>>(x, w, y, B, C, T, K);
    return 1;
}

// ----------------------------------------------------------------------------
// launchers and dispatch

/* rung A7 at radius <= 8 where it runs; 0 otherwise */
static int stencil_tma_any(const float *in, float *out, const float *w, int n,
                           int radius, cudaStream_t s)
{
    switch (radius) {
    case 1: return launch_tma<1>(in, w, out, n, s);
    case 2: return launch_tma<2>(in, w, out, n, s);
    case 3: return launch_tma<3>(in, w, out, n, s);
    case 4: return launch_tma<4>(in, w, out, n, s);
    case 5: return launch_tma<5>(in, w, out, n, s);
    case 6: return launch_tma<6>(in, w, out, n, s);
    case 7: return launch_tma<7>(in, w, out, n, s);
    default: return launch_tma<8>(in, w, out, n, s);
    }
}

/* rungs A5 and A6 (PIPE) at radius <= 8 */
template <bool PIPE>
static void stencil_stream(const float *in, float *out, const float *w, int n,
                           int radius, cudaStream_t s)
{
    switch (radius) {
    case 1: launch_stream<1, 1, PIPE>(in, w, out, 1, 1, n, s); break;
    case 2: launch_stream<2, 2, PIPE>(in, w, out, 1, 1, n, s); break;
    case 3: launch_stream<3, 3, PIPE>(in, w, out, 1, 1, n, s); break;
    case 4: launch_stream<4, 4, PIPE>(in, w, out, 1, 1, n, s); break;
    case 5: launch_stream<5, 5, PIPE>(in, w, out, 1, 1, n, s); break;
    case 6: launch_stream<6, 6, PIPE>(in, w, out, 1, 1, n, s); break;
    case 7: launch_stream<7, 7, PIPE>(in, w, out, 1, 1, n, s); break;
    default: launch_stream<8, 8, PIPE>(in, w, out, 1, 1, n, s); break;
    }
}

extern "C" void stencil_1d(const float *in, float *out, const float *w, int n,
                           int radius, cudaStream_t stream)
{
    static int kernel = 0;
    if (!kernel)
        kernel = env_int("STENCIL_KERNEL", 7, 1, 7);
    if (kernel == 7 && radius <= 8 &&
        stencil_tma_any(in, out, w, n, radius, stream)) {
        /* rung 7 launched */
    } else if (kernel >= 6 && radius <= 8) {
        stencil_stream<true>(in, out, w, n, radius, stream);
    } else if (kernel == 5 && radius <= 8) {
        stencil_stream<false>(in, out, w, n, radius, stream);
    } else if (kernel >= 4 && radius <= 16) {
        if (radius <= 1)
            stencil_window<1>(in, out, w, n, radius, stream);
        else if (radius <= 2)
            stencil_window<2>(in, out, w, n, radius, stream);
        else if (radius <= 3)
            stencil_window<3>(in, out, w, n, radius, stream);
        else if (radius <= 4)
            stencil_window<4>(in, out, w, n, radius, stream);
        else if (radius <= 8)
            stencil_window<8>(in, out, w, n, radius, stream);
        else
            stencil_window<16>(in, out, w, n, radius, stream);
    } else if (kernel == 1) {
        stencil_kernel1<<<(n + 255) / 256, 256, 0, stream>>>(in, out, w, n,
                                                             radius);
    } else if (kernel == 2) {
        size_t smem = (256 + 2 * radius) * sizeof(float);
        stencil_kernel2<<<(n + 255) / 256, 256, smem, stream>>>(in, out, w, n,
                                                                radius);
    } else { /* rung 3, and rung 4 for R > 16 */
        /* weights to constant memory: a device-to-device copy, async */
        cudaMemcpyToSymbolAsync(c_w, w, (2 * radius + 1) * sizeof(float), 0,
                                cudaMemcpyDeviceToDevice, stream);
        int aligned = (uintptr_t)in % 16 == 0;
        int blocks = (n + A3_TILE - 1) / A3_TILE;
        stencil_kernel3<<<blocks, A3_THREADS, 0, stream>>>(in, out, n, radius,
                                                           aligned);
    }
}

extern "C" void causal_conv1d(const float *x, const float *w, float *y, int B,
                              int C, int T, int K, cudaStream_t stream)
{
    static int kernel = 0;
    if (!kernel)
        kernel = env_int("CONV1D_KERNEL", 8, 1, 8);
    long long rows = (long long)B * C;
    if (kernel == 5 && K <= 9) {
        switch (K) {
        case 2: launch_stream<1, 0>(x, w, y, rows, C, T, stream); break;
        case 3: launch_stream<2, 0>(x, w, y, rows, C, T, stream); break;
        case 4: launch_stream<3, 0>(x, w, y, rows, C, T, stream); break;
        case 5: launch_stream<4, 0>(x, w, y, rows, C, T, stream); break;
        case 6: launch_stream<5, 0>(x, w, y, rows, C, T, stream); break;
        case 7: launch_stream<6, 0>(x, w, y, rows, C, T, stream); break;
        case 8: launch_stream<7, 0>(x, w, y, rows, C, T, stream); break;
        default: launch_stream<8, 0>(x, w, y, rows, C, T, stream); break;
        }
    } else if (kernel >= 8 && K > 32 && K <= 128 &&
               launch_fft(x, w, y, B, C, T, K, stream)) {
        /* rung 8 launched */
    } else if (kernel >= 7 && K > 32 &&
               (K <= 64 ? launch_fastfir<64>(x, w, y, B, C, T, K, stream)
                        : launch_fastfir<128>(x, w, y, B, C, T, K, stream))) {
        /* rung 7 launched */
    } else if (kernel >= 6 && K > 32 &&
               (K <= 64 ? launch_stream_rb<64>(x, w, y, B, C, T, K, stream)
                        : launch_stream_rb<128>(x, w, y, B, C, T, K, stream))) {
        /* rung 6 launched */
    } else if (kernel >= 4 && K > 32) {
        if (K <= 64)
            launch_regblock<64>(x, w, y, B, C, T, K, stream);
        else
            launch_regblock<128>(x, w, y, B, C, T, K, stream);
    } else if (kernel >= 3 && K <= 32) {
        if (K <= 2)
            conv_window<2>(x, w, y, B, C, T, K, stream);
        else if (K <= 4)
            conv_window<4>(x, w, y, B, C, T, K, stream);
        else if (K <= 8)
            conv_window<8>(x, w, y, B, C, T, K, stream);
        else if (K <= 16)
            conv_window<16>(x, w, y, B, C, T, K, stream);
        else
            conv_window<32>(x, w, y, B, C, T, K, stream);
    } else if (kernel == 1) {
        long long total = rows * T;
        conv1d_kernel1<<<(unsigned)((total + 255) / 256), 256, 0, stream>>>(
            x, w, y, total, C, T, K);
    } else { /* rung 2, and rung 3 for K > 32 */
        dim3 grid((unsigned)rows, (T + B2_TILE - 1) / B2_TILE);
        conv1d_kernel2<<<grid, B2_THREADS, 0, stream>>>(x, w, y, C, T, K);
    }
}
