/* buffers.c: plans, guarded buffers and fills (buffers.h). */
#define _GNU_SOURCE
#include "judge/buffers.h"

#include "errcheck.h"
#include "fatal.h"
#include "judge/device.h"
#include "rng.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- the plan ----------------------------------------------------------- */

int cl_plan_buf(struct cl_plan *p, const char *name, enum cl_role role,
                enum cl_elem elem, size_t count, size_t offset)
{
    if (p->nbuf >= CL_MAX_BUFS)
        cl_fatal(__FILE__, __LINE__, "cl_plan_buf", "grader",
                 "too many buffers in one case");
    struct cl_buf_plan *b = &p->buf[p->nbuf];
    memset(b, 0, sizeof *b);
    b->name = name;
    b->role = role;
    b->elem = elem;
    b->count = count;
    b->offset = offset;
    return p->nbuf++;
}

/* ---- buffers: the live ones (shared with the runner) and the judge's ----- */

/* the sizes of a buffer with its guards, before anyone allocates it */
void cl_gbuf_size(struct cl_gbuf *b, size_t bytes, size_t offset)
{
    memset(b, 0, sizeof *b);
    b->fd = -1;
    b->bytes = bytes;
    b->at = CL_GUARD_BYTES + offset;
    b->alloc = b->at + bytes + CL_GUARD_BYTES;
}

/* GPU: map the runner's allocation, arm its guards, and make the judge's
 * own copy for an input */
/* the size of the allocation that holds device address @p p (the driver's
 * cuMemGetAddressRange, found through the runtime): 0 when unknown */
static size_t allocation_size(void *p)
{
    typedef int (*range_fn)(unsigned long long *, size_t *, unsigned long long);
    static range_fn range;
    if (!range) {
        void *fn = NULL;
        enum cudaDriverEntryPointQueryResult q;
#if CUDART_VERSION >= 12050
        cudaError_t e = cudaGetDriverEntryPointByVersion(
            "cuMemGetAddressRange", &fn, 12000, cudaEnableDefault, &q);
#else
        cudaError_t e = cudaGetDriverEntryPoint("cuMemGetAddressRange", &fn,
                                                cudaEnableDefault, &q);
#endif
        if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !fn) {
            cudaGetLastError();
            return 0;
        }
        range = (range_fn)fn;
    }
    unsigned long long base = 0;
    size_t size = 0;
    if (range(&base, &size, (unsigned long long)(uintptr_t)p) != 0 ||
        base != (unsigned long long)(uintptr_t)p)
        return 0;
    return size;
}

void cl_gbuf_own(struct cl_gbuf *b)
{
    if (!b->native)
        b->native = cl_judge_alloc(b->bytes);
}

int cl_gbuf_import(struct cl_gbuf *b, const unsigned char *handle)
{
    cudaIpcMemHandle_t h;
    void *base = NULL;
    memcpy(&h, handle, sizeof h);
    if (cudaIpcOpenMemHandle(&base, h, cudaIpcMemLazyEnablePeerAccess) !=
        cudaSuccess) {
        cudaGetLastError(); /* not a handle this process can open */
        return -1;
    }
    if (allocation_size(base) < b->alloc) { /* not the planned buffer */
        cudaIpcCloseMemHandle(base);
        return -1;
    }
    b->base = base;
    b->imported = 1;
    b->ptr = b->base + b->at;
    CUDA_CHECK(cudaMemsetAsync(b->base, CL_CANARY, b->at, cl_judge_stream()));
    CUDA_CHECK(cudaMemsetAsync(b->base + b->at + b->bytes, CL_CANARY,
                               CL_GUARD_BYTES, cl_judge_stream()));
    return 0;
}

/* the CPU lab: a shared memfd, mapped here and sent to the runner */
void cl_gbuf_alloc(struct cl_gbuf *b, size_t bytes, size_t offset)
{
    cl_gbuf_size(b, bytes, offset);
    b->fd = memfd_create("cl-buffer", MFD_CLOEXEC);
    if (b->fd < 0 || ftruncate(b->fd, (off_t)b->alloc) != 0)
        cl_fatal(__FILE__, __LINE__, "memfd_create", "libc", strerror(errno));
    b->base =
        mmap(NULL, b->alloc, PROT_READ | PROT_WRITE, MAP_SHARED, b->fd, 0);
    if (b->base == MAP_FAILED)
        cl_fatal(__FILE__, __LINE__, "mmap", "libc", strerror(errno));
    memset(b->base, CL_CANARY, b->alloc);
    b->ptr = b->base + b->at;
}

void cl_gbuf_free(struct cl_gbuf *b, int device_ok)
{
    if (cl_judge_gpu()) {
        if (b->imported)
            cudaIpcCloseMemHandle(b->base); /* the runner may be gone */
        if (device_ok) {
            if (b->native)
                CUDA_CHECK(cudaFree(b->native));
            if (b->mirror)
                CUDA_CHECK(cudaFree(b->mirror));
        }
    } else {
        if (b->base)
            munmap(b->base, b->alloc);
        if (b->fd >= 0)
            close(b->fd);
        free(b->mirror);
    }
    memset(b, 0, sizeof *b);
    b->fd = -1;
}

/* the guard zones of @p b, read back and scanned */
int cl_gbuf_guards(const struct cl_gbuf *b, struct cl_guard_report *g)
{
    size_t front = b->at;
    unsigned char *h = cl_xmalloc(front + CL_GUARD_BYTES);
    if (cl_judge_gpu()) {
        CUDA_CHECK(cudaMemcpy(h, b->base, front, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(h + front, b->base + b->at + b->bytes,
                              CL_GUARD_BYTES, cudaMemcpyDeviceToHost));
    } else {
        memcpy(h, b->base, front);
        memcpy(h + front, b->base + b->at + b->bytes, CL_GUARD_BYTES);
    }
    size_t ff = 0, fl = 0, bf = 0;
    memset(g, 0, sizeof *g);
    g->front_bad = cl_scan_bytes(h, front, CL_CANARY, &ff, &fl);
    g->back_bad =
        cl_scan_bytes(h + front, CL_GUARD_BYTES, CL_CANARY, &bf, NULL);
    free(h);
    /* the write nearest the buffer is the likely culprit (4-byte elements) */
    if (g->front_bad)
        g->first_bad = -(long)((front - fl + 3) / 4);
    else if (g->back_bad)
        g->first_bad = (long)((b->bytes + bf) / 4);
    return g->front_bad || g->back_bad;
}

/* ---- fills ------------------------------------------------------------------
 */

static unsigned char *fill_target(const struct cl_fill *f, int buf,
                                  size_t from_byte, size_t n_bytes)
{
    struct cl_fill_ctx *c = f->ctx;
    if (buf < 0 || buf >= c->plan->nbuf)
        cl_fatal(__FILE__, __LINE__, "fill", "grader", "no such buffer");
    size_t bytes = c->plan->buf[buf].count * 4;
    if (from_byte > bytes || n_bytes > bytes - from_byte)
        cl_fatal(__FILE__, __LINE__, "fill", "grader",
                 "a fill runs past its buffer");
    if (c->live) /* the judge's own copy, when the buffer has one */
        return (unsigned char *)(c->live[buf].native ? c->live[buf].native
                                                     : c->live[buf].ptr) +
               from_byte;
    if (!c->host[buf])
        c->host[buf] = cl_xcalloc(1, bytes ? bytes : 1);
    return (unsigned char *)c->host[buf] + from_byte;
}

static void fill_uniform(const struct cl_fill *f, int buf, size_t from,
                         size_t n, uint64_t stream, uint64_t index0, float lo,
                         float hi)
{
    struct cl_fill_ctx *c = f->ctx;
    float *p = (float *)fill_target(f, buf, from * 4, n * 4);
    if (c->live && cl_judge_gpu())
        cl_fill_uniform_device_at(p, n, f->seed, stream, index0, lo, hi,
                                  cl_judge_stream());
    else
        cl_fill_uniform_host_at(p, n, f->seed, stream, index0, lo, hi);
}

static void fill_ints(const struct cl_fill *f, int buf, size_t from, size_t n,
                      uint64_t stream, int mod)
{
    struct cl_fill_ctx *c = f->ctx;
    int *p = (int *)fill_target(f, buf, from * 4, n * 4);
    if (c->live && cl_judge_gpu())
        cl_fill_ints_device(p, n, f->seed, stream, mod, cl_judge_stream());
    else
        cl_fill_ints_host(p, n, f->seed, stream, mod);
}

static void fill_bytes(const struct cl_fill *f, int buf, size_t from, size_t n,
                       unsigned char v)
{
    struct cl_fill_ctx *c = f->ctx;
    unsigned char *p = fill_target(f, buf, from, n);
    if (c->live)
        cl_mem_set(p, v, n);
    else
        memset(p, v, n);
}

static void fill_copy(const struct cl_fill *f, int buf, size_t from,
                      const void *src, size_t n)
{
    struct cl_fill_ctx *c = f->ctx;
    unsigned char *p = fill_target(f, buf, from, n);
    if (c->live && cl_judge_gpu()) {
        CUDA_CHECK(cudaMemcpyAsync(p, src, n, cudaMemcpyHostToDevice,
                                   cl_judge_stream()));
        CUDA_CHECK(cudaStreamSynchronize(
            cl_judge_stream())); /* src may be temporary */
    } else {
        memcpy(p, src, n);
    }
}

void cl_fill_default(const struct cl_fill *f, const struct cl_plan *p)
{
    for (int i = 0; i < p->nbuf; i++) {
        const struct cl_buf_plan *b = &p->buf[i];
        if (b->role != CL_IN && !(b->role == CL_STATE && f->first))
            continue;
        if (b->elem == CL_F32)
            f->uniform(f, i, 0, b->count, (uint64_t)i + 1, 0, -1.0f, 1.0f);
        else
            f->ints(f, i, 0, b->count, (uint64_t)i + 1, 0x7fffffff);
    }
}

void cl_fill_run(const struct cl_lab *lab, const void *arg,
                 const struct cl_plan *plan, struct cl_fill_ctx *fc,
                 uint64_t seed, int call, int first)
{
    struct cl_fill f = {seed,         call,      first,
                        fill_uniform, fill_ints, fill_bytes,
                        fill_copy,    fc->data,  fc};
    fc->plan = plan;
    if (lab->fill)
        lab->fill(&f, arg, call);
    else
        cl_fill_default(&f, plan);
}

void cl_fill_host(const struct cl_lab *lab, const void *arg,
                  const struct cl_plan *plan, const struct cl_lab_data *data,
                  uint64_t seed, int call, int first, void **img)
{
    struct cl_fill_ctx fc = {NULL, img, plan, data};
    cl_fill_run(lab, arg, plan, &fc, seed, call, first);
}
