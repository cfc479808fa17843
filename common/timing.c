/* timing.c: CUDA-event timing with L2 flush and adaptive repeats. */
#include "timing.h"

#include "errcheck.h"

#include <stdlib.h>
#include <string.h>

struct cl_timer {
    cudaStream_t s;
    void *d_flush;
    size_t flush_bytes;
    int flush_round;
};

void cl_run_copy(void *ctx, cudaStream_t s)
{
    const struct cl_copy *c = ctx;
    CUDA_CHECK(
        cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, s));
}

struct cl_timing_opts cl_timing_defaults(void)
{
    struct cl_timing_opts o = {3, 10, 200, 2000.0, 0.01, 1};
    return o;
}

struct cl_timer *cl_timer_create(cudaStream_t s)
{
    struct cl_timer *t = cl_xcalloc(1, sizeof *t);
    int dev = 0, l2 = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    t->s = s;
    t->flush_bytes = 2 * (size_t)(l2 > 0 ? l2 : 64 << 20);
    CUDA_CHECK(cudaMalloc(&t->d_flush, t->flush_bytes));
    return t;
}

void cl_timer_destroy(struct cl_timer *t)
{
    if (!t)
        return;
    CUDA_CHECK(cudaFree(t->d_flush));
    free(t);
}

cudaError_t cl_timer_flush_l2(struct cl_timer *t)
{
    /* a different value each time, so no layer can skip the writes */
    t->flush_round = (t->flush_round + 1) & 0x7f;
    return cudaMemsetAsync(t->d_flush, t->flush_round, t->flush_bytes, t->s);
}

static cudaError_t sync_error(cudaStream_t s)
{
    cudaError_t e = cudaStreamSynchronize(s);
    if (e == cudaSuccess)
        e = cudaGetLastError();
    return e;
}

cudaError_t cl_time_interleaved(struct cl_timer *t, struct cl_timed *items,
                                int n, const struct cl_timing_opts *o)
{
    int cap = o->max_reps > 0 ? o->max_reps : 1;
    double *samples = cl_xcalloc((size_t)n * (size_t)cap, sizeof *samples);
    cudaEvent_t *ev = cl_xcalloc(2 * (size_t)n, sizeof *ev);
    for (int k = 0; k < 2 * n; k++)
        CUDA_CHECK(cudaEventCreate(&ev[k]));

    cudaError_t err = cudaSuccess;
    for (int w = 0; w < o->warmup && err == cudaSuccess; w++) {
        for (int k = 0; k < n; k++)
            items[k].fn(items[k].ctx, t->s);
        err = sync_error(t->s);
    }

    int reps = 0;
    double total = 0.0;
    while (err == cudaSuccess && reps < cap) {
        for (int k = 0; k < n; k++) {
            if (o->flush_l2 && (err = cl_timer_flush_l2(t)) != cudaSuccess)
                break;
            /* a failure here is the timed code's sticky error, not ours */
            if ((err = cudaEventRecord(ev[2 * k], t->s)) != cudaSuccess)
                break;
            items[k].fn(items[k].ctx, t->s);
            if ((err = cudaEventRecord(ev[2 * k + 1], t->s)) != cudaSuccess)
                break;
        }
        if (err == cudaSuccess)
            err = sync_error(t->s);
        if (err != cudaSuccess)
            break;
        for (int k = 0; k < n; k++) {
            float ms = 0.0f;
            CUDA_CHECK(cudaEventElapsedTime(&ms, ev[2 * k], ev[2 * k + 1]));
            samples[(size_t)k * cap + reps] = ms;
            total += ms;
        }
        reps++;
        if (reps < o->min_reps)
            continue;
        int stable = 1;
        for (int k = 0; k < n && stable; k++)
            stable =
                cl_stats_stable(samples + (size_t)k * cap, reps, o->stable_rel);
        if (stable || total >= o->max_total_ms)
            break;
    }
    for (int k = 0; k < n; k++)
        cl_stats_compute(samples + (size_t)k * cap, reps, &items[k].ms);
    for (int k = 0; k < 2 * n; k++)
        cudaEventDestroy(ev[k]); /* may fail after a sticky error */
    free(ev);
    free(samples);
    return err;
}
