/* labkit.c: the common steps of a lab spec's run function. */
#include "labkit.h"

#include "errcheck.h"
#include "rng.h"

#include <cuda_profiler_api.h>
#include <dlfcn.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* errors that leave the context usable; everything else needs a restart */
static int is_sticky(cudaError_t e)
{
    switch (e) {
    case cudaErrorInvalidConfiguration:
    case cudaErrorInvalidValue:
    case cudaErrorLaunchOutOfResources:
    case cudaErrorInvalidDeviceFunction:
    case cudaErrorInvalidResourceHandle:
    case cudaErrorMemoryAllocation: return 0;
    default: return 1;
    }
}

static const char *error_hint(cudaError_t e)
{
    switch (e) {
    case cudaErrorInvalidConfiguration:
        return "launch configuration out of range: zero blocks, more than "
               "1024 threads per block, or too much shared memory";
    case cudaErrorIllegalAddress:
        return "a kernel read or wrote outside its memory: check the bounds "
               "test and the index arithmetic";
    case cudaErrorMisalignedAddress:
        return "a vector load or store on a pointer that is not aligned "
               "to its width";
    case cudaErrorLaunchOutOfResources:
        return "too many registers or threads per block for this launch";
    case cudaErrorAssert: return "a device-side assert failed";
    default: return "see the CUDA documentation for this error";
    }
}

void *cl_entry_point(void *lib, const char *name, char *err, size_t len)
{
    void *f = dlsym(lib, name);
    if (!f)
        snprintf(err, len, "the submission has no %s: %s", name, dlerror());
    return f;
}

float *cl_input_create(struct cl_dbuf *d, size_t n, size_t offset,
                       const struct cl_ctx *ctx, uint64_t stream)
{
    cl_dbuf_create(d, n * sizeof(float), offset);
    cl_dbuf_arm(d, ctx->stream);
    cl_fill_uniform_device(d->ptr, n, ctx->seed, stream, -1.0f, 1.0f,
                           ctx->stream);
    float *h = cl_xmalloc(n * sizeof *h);
    cl_fill_uniform_host(h, n, ctx->seed, stream, -1.0f, 1.0f);
    return h;
}

void cl_output_create(struct cl_dbuf *d, size_t n, size_t offset,
                      const struct cl_ctx *ctx)
{
    cl_dbuf_create(d, n * sizeof(float), offset);
    cl_dbuf_arm(d, ctx->stream);
    cl_dbuf_poison(d, ctx->stream);
}

void cl_profile_mark(const struct cl_ctx *ctx, int on)
{
    if (!ctx->profile)
        return;
    if (on) {
        CUDA_CHECK(cudaDeviceSynchronize()); /* the grader's fills first */
        CUDA_CHECK(cudaProfilerStart());
    } else {
        cudaProfilerStop(); /* errors belong to the student's call */
    }
}

int cl_student_error(cudaStream_t s, const char *when, struct cl_result *r)
{
    cudaError_t e = cudaStreamSynchronize(s);
    if (e == cudaSuccess)
        e = cudaGetLastError();
    if (e == cudaSuccess)
        return 0;
    cudaGetLastError(); /* clear a non-sticky error for the next case */
    r->status = CL_ST_CUDA;
    r->restart = is_sticky(e);
    snprintf(r->msg, sizeof r->msg, "CUDA error %s: %s (%s): %s", when,
             cudaGetErrorName(e), cudaGetErrorString(e), error_hint(e));
    return 1;
}

int cl_check_guards(const struct cl_dbuf *const *bufs, const char *const *names,
                    int n, size_t elem, cudaStream_t s, struct cl_result *r)
{
    for (int i = 0; i < n; i++) {
        struct cl_guard_report g;
        if (!cl_dbuf_check(bufs[i], elem, s, &g))
            continue;
        r->status = CL_ST_OOB;
        cl_guard_describe(&g, names[i], elem, r->msg, sizeof r->msg);
        return 1;
    }
    return 0;
}

int cl_verdict(const struct cl_compare *c, const char *what,
               struct cl_result *r)
{
    if (c->pass)
        return 0;
    r->status = CL_ST_WRONG;
    cl_compare_describe(c, what, r->msg, sizeof r->msg);
    return 1;
}

int cl_check_output(const float *d_out, const double *ref, size_t n,
                    const struct cl_tolerance *tol, const char *what,
                    struct cl_result *r)
{
    float *h = cl_xmalloc(n * sizeof *h);
    CUDA_CHECK(cudaMemcpy(h, d_out, n * sizeof *h, cudaMemcpyDeviceToHost));
    struct cl_compare c;
    cl_compare_f32(h, ref, NULL, n, tol, &c);
    free(h);
    return cl_verdict(&c, what, r);
}

int cl_time_case(const struct cl_ctx *ctx, struct cl_timed *items, int n,
                 struct cl_result *r)
{
    struct cl_timing_opts o = cl_timing_defaults();
    cudaError_t e = cl_time_interleaved(ctx->timer, items, n, &o);
    if (e != cudaSuccess) {
        r->status = CL_ST_CUDA;
        r->restart = is_sticky(e);
        snprintf(r->msg, sizeof r->msg,
                 "CUDA error while timing (your code failed when called "
                 "repeatedly): %s (%s)",
                 cudaGetErrorName(e), cudaGetErrorString(e));
        return 1;
    }
    r->timed = 1;
    r->t_ms = items[0].ms.median;
    r->t_spread = items[0].ms.spread;
    r->base_ms = n > 1 ? items[1].ms.median : 0;
    r->ceil_ms = n > 2 ? items[2].ms.median : 0;
    return 0;
}

int cl_spread_indices(int count, int max, int *out)
{
    int n = count < max ? count : max;
    for (int i = 0; i < n; i++)
        out[i] = n == 1 ? 0 : (int)((long long)i * (count - 1) / (n - 1));
    return n;
}
