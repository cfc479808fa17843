/* judge_gpu.cu: device comparison and the streaming copy of the judge. */
#include "judge/judge_gpu.h"

#include "errcheck.h"
#include "guard.h"

#include <math.h>
#include <string.h>
#include <time.h>

#define THREADS 256

__device__ static void add_u64(unsigned long long *a, unsigned long long v)
{
    if (v)
        atomicAdd(a, v);
}

/* one warp's sum, then one atomic per warp */
__device__ static double warp_sum(double v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

__global__ static void compare_kernel(const void *got_, const void *want_,
                                      size_t n, int is_int, double atol,
                                      double rtol, struct cl_devcmp *out)
{
    const unsigned *got = (const unsigned *)got_;
    const unsigned *want = (const unsigned *)want_;
    unsigned long long bad = 0, poison = 0, nonfinite = 0;
    unsigned long long first = n;
    double err2 = 0, ref2 = 0, maxe = 0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        unsigned g = got[i], w = want[i];
        int wrong;
        if (is_int) {
            wrong = g != w;
            poison += wrong && g == CL_POISON_F32;
        } else {
            float gf = __uint_as_float(g), wf = __uint_as_float(w);
            double d = fabs((double)gf - (double)wf);
            int p = g == CL_POISON_F32, fin = !p && isfinite(gf);
            poison += p;
            nonfinite += !p && !fin;
            if (fin) {
                err2 += d * d;
                maxe = d > maxe ? d : maxe;
            }
            ref2 += (double)wf * wf;
            wrong = !fin || !(d <= atol + rtol * fabs((double)wf));
        }
        if (wrong) {
            bad++;
            if (i < first)
                first = i;
        }
    }
    err2 = warp_sum(err2);
    ref2 = warp_sum(ref2);
    for (int o = 16; o > 0; o >>= 1) {
        bad += __shfl_down_sync(0xffffffffu, bad, o);
        poison += __shfl_down_sync(0xffffffffu, poison, o);
        nonfinite += __shfl_down_sync(0xffffffffu, nonfinite, o);
        unsigned long long f = __shfl_down_sync(0xffffffffu, first, o);
        first = f < first ? f : first;
        double m = __shfl_down_sync(0xffffffffu, maxe, o);
        maxe = m > maxe ? m : maxe;
    }
    if ((threadIdx.x & 31) == 0) {
        add_u64(&out->n_bad, bad);
        add_u64(&out->n_poison, poison);
        add_u64(&out->n_nonfinite, nonfinite);
        if (first < n)
            atomicMin(&out->first_bad, first);
        atomicAdd(&out->err2, err2);
        atomicAdd(&out->ref2, ref2);
        /* non-negative doubles order like their bit patterns */
        atomicMax((unsigned long long *)&out->max_err,
                  (unsigned long long)__double_as_longlong(maxe));
    }
}

static struct cl_devcmp *scratch(void)
{
    static struct cl_devcmp *d;
    if (!d)
        CUDA_CHECK(cudaMalloc((void **)&d, sizeof *d));
    return d;
}

/* the scratch result, zeroed, its first bad index past the end */
static struct cl_devcmp *scratch_reset(size_t n, cudaStream_t s)
{
    struct cl_devcmp init;
    memset(&init, 0, sizeof init);
    init.first_bad = n;
    struct cl_devcmp *d = scratch();
    CUDA_CHECK(
        cudaMemcpyAsync(d, &init, sizeof init, cudaMemcpyHostToDevice, s));
    return d;
}

static unsigned grid_for(size_t n)
{
    size_t b = (n + THREADS - 1) / THREADS;
    return (unsigned)(b < 1 ? 1 : b > 8192 ? 8192 : b);
}

extern "C" void cl_compare_device(const void *got, const void *want, size_t n,
                                  int is_int, double atol, double rtol,
                                  struct cl_devcmp *out, cudaStream_t s)
{
    struct cl_devcmp *d = scratch_reset(n, s);
    if (n) {
        compare_kernel<<<grid_for(n), THREADS, 0, s>>>(got, want, n, is_int,
                                                       atol, rtol, d);
        CUDA_CHECK_LAUNCH();
    }
    CUDA_CHECK(cudaMemcpyAsync(out, d, sizeof *out, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
}

/* ---- the sampled check that stops the judge's clock ------------------------
 */

struct sample_args {
    struct cl_sample_buf b[CL_SAMPLE_BUFS];
    int nbuf, k;
    unsigned long long seed;
};

__device__ static unsigned long long mix64(unsigned long long x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* block y: buffer y; thread i: sample i (0: the first element, 1: the
 * last, then drawn) */
__global__ static void sample_kernel(const __grid_constant__ sample_args a,
                                     unsigned *bad)
{
    const struct cl_sample_buf &b = a.b[blockIdx.y];
    for (int i = threadIdx.x; i < a.k && b.n > 0; i += blockDim.x) {
        unsigned long long at =
            i == 0   ? 0
            : i == 1 ? b.n - 1
                     : mix64(a.seed + blockIdx.y * 0x9e3779b97f4a7c15ULL +
                             (unsigned long long)i) %
                           b.n;
        unsigned g = ((const unsigned *)b.got)[at];
        int wrong;
        if (!b.want) {
            wrong = g == CL_POISON_F32;
        } else {
            unsigned w = ((const unsigned *)b.want)[at];
            if (b.is_int) {
                wrong = g != w;
            } else {
                float gf = __uint_as_float(g), wf = __uint_as_float(w);
                double d = fabs((double)gf - (double)wf);
                wrong = g == CL_POISON_F32 || !isfinite(gf) ||
                        !(d <= b.atol + b.rtol * fabs((double)wf));
            }
        }
        if (wrong)
            atomicAdd(bad, 1u);
    }
}

static unsigned *sample_scratch(void)
{
    static unsigned *d;
    if (!d)
        CUDA_CHECK(cudaMalloc((void **)&d, sizeof *d));
    return d;
}

extern "C" unsigned cl_sample_check(const struct cl_sample_buf *b, int nbuf,
                                    int k, unsigned long long seed,
                                    cudaStream_t s)
{
    if (nbuf <= 0 || k <= 0)
        return 0;
    struct sample_args a;
    memset(&a, 0, sizeof a);
    a.nbuf = nbuf < CL_SAMPLE_BUFS ? nbuf : CL_SAMPLE_BUFS;
    a.k = k;
    a.seed = seed;
    memcpy(a.b, b, (size_t)a.nbuf * sizeof *b);
    unsigned *d = sample_scratch(), bad = 0;
    CUDA_CHECK(cudaMemsetAsync(d, 0, sizeof *d, s));
    sample_kernel<<<dim3(1, (unsigned)a.nbuf), 128, 0, s>>>(a, d);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpyAsync(&bad, d, sizeof bad, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    return bad;
}

/* ---- the idle probe ---------------------------------------------------------
 */

__device__ static unsigned long long global_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* one warp reads the clock for ns; lane 0 keeps the longest gap */
__global__ static void probe_kernel(unsigned long long ns,
                                    unsigned long long *gap)
{
    unsigned long long t0 = global_ns(), last = t0, now, most = 0;
    do {
        now = global_ns();
        if (now - last > most)
            most = now - last;
        last = now;
    } while (now - t0 < ns);
    if (threadIdx.x == 0)
        *gap = most;
}

static unsigned long long *probe_scratch(void)
{
    static unsigned long long *d;
    if (!d)
        CUDA_CHECK(cudaMalloc((void **)&d, sizeof *d));
    return d;
}

extern "C" void cl_judge_gpu_reserve(void)
{
    scratch();
    sample_scratch();
    probe_scratch();
}

extern "C" void cl_idle_probe(unsigned long long ns, cudaStream_t s,
                              struct cl_probe *out)
{
    unsigned long long *d = probe_scratch();
    unsigned long long gap = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    probe_kernel<<<1, 32, 0, s>>>(ns, d);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpyAsync(&gap, d, sizeof gap, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    out->gap_us = gap * 1e-3;
    out->wall_us = (double)(t1.tv_sec - t0.tv_sec) * 1e6 +
                   (t1.tv_nsec - t0.tv_nsec) * 1e-3;
}

/* the streaming copy: 16-byte vectors, four in flight per thread */
__global__ static void __launch_bounds__(THREADS)
    copy16_kernel(int4 *__restrict__ dst, const int4 *__restrict__ src,
                  size_t n16)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n16; i += 4 * stride) {
        int4 a = __ldcs(src + i), b = __ldcs(src + i + stride),
             c = __ldcs(src + i + 2 * stride), d = __ldcs(src + i + 3 * stride);
        __stcs(dst + i, a);
        __stcs(dst + i + stride, b);
        __stcs(dst + i + 2 * stride, c);
        __stcs(dst + i + 3 * stride, d);
    }
    for (; i < n16; i += stride)
        __stcs(dst + i, __ldcs(src + i));
}

extern "C" void cl_stream_copy(void *dst, const void *src, size_t bytes,
                               cudaStream_t s)
{
    size_t n16 = bytes / 16;
    int aligned = ((uintptr_t)dst % 16 == 0) && ((uintptr_t)src % 16 == 0);
    if (!aligned || n16 == 0) {
        CUDA_CHECK(
            cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
        return;
    }
    static int blocks;
    if (!blocks) {
        int dev = 0, sms = 0, per = 0;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per, copy16_kernel, THREADS, 0));
        blocks = sms * (per > 0 ? per : 1);
    }
    size_t want = (n16 + THREADS - 1) / THREADS;
    unsigned grid = (unsigned)(want < (size_t)blocks ? want : (size_t)blocks);
    copy16_kernel<<<grid ? grid : 1, THREADS, 0, s>>>((int4 *)dst,
                                                      (const int4 *)src, n16);
    CUDA_CHECK_LAUNCH();
    size_t tail = bytes - n16 * 16;
    if (tail)
        CUDA_CHECK(cudaMemcpyAsync((char *)dst + n16 * 16,
                                   (const char *)src + n16 * 16, tail,
                                   cudaMemcpyDeviceToDevice, s));
}
