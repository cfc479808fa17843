/* judge_gpu.cu: device comparison and the streaming copy of the judge. */
#include "judge/judge_gpu.h"

#include "errcheck.h"
#include "guard.h"

#include <math.h>

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

static unsigned grid_for(size_t n)
{
    size_t b = (n + THREADS - 1) / THREADS;
    return (unsigned)(b < 1 ? 1 : b > 8192 ? 8192 : b);
}

extern "C" void cl_compare_device(const void *got, const void *want, size_t n,
                                  int is_int, double atol, double rtol,
                                  struct cl_devcmp *out, cudaStream_t s)
{
    struct cl_devcmp init;
    memset(&init, 0, sizeof init);
    init.first_bad = n;
    struct cl_devcmp *d = scratch();
    CUDA_CHECK(
        cudaMemcpyAsync(d, &init, sizeof init, cudaMemcpyHostToDevice, s));
    if (n) {
        compare_kernel<<<grid_for(n), THREADS, 0, s>>>(got, want, n, is_int,
                                                       atol, rtol, d);
        CUDA_CHECK_LAUNCH();
    }
    CUDA_CHECK(cudaMemcpyAsync(out, d, sizeof *out, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
}

__global__ static void poison_kernel(const unsigned *p, size_t n,
                                     struct cl_devcmp *out)
{
    unsigned long long c = 0, first = n;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        if (p[i] == CL_POISON_F32) {
            c++;
            first = i < first ? i : first;
        }
    for (int o = 16; o > 0; o >>= 1) {
        c += __shfl_down_sync(0xffffffffu, c, o);
        unsigned long long f = __shfl_down_sync(0xffffffffu, first, o);
        first = f < first ? f : first;
    }
    if ((threadIdx.x & 31) == 0) {
        add_u64(&out->n_poison, c);
        if (first < n)
            atomicMin(&out->first_bad, first);
    }
}

extern "C" unsigned long long cl_count_poison_device(const void *p, size_t n,
                                                     unsigned long long *first,
                                                     cudaStream_t s)
{
    struct cl_devcmp init, res;
    memset(&init, 0, sizeof init);
    init.first_bad = n;
    struct cl_devcmp *d = scratch();
    CUDA_CHECK(
        cudaMemcpyAsync(d, &init, sizeof init, cudaMemcpyHostToDevice, s));
    if (n) {
        poison_kernel<<<grid_for(n), THREADS, 0, s>>>((const unsigned *)p, n,
                                                      d);
        CUDA_CHECK_LAUNCH();
    }
    CUDA_CHECK(cudaMemcpyAsync(&res, d, sizeof res, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    if (first)
        *first = res.first_bad;
    return res.n_poison;
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
