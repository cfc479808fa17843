/* guard.c: guard-zone and poison logic (host) and the device buffer. */
#include "guard.h"

#include "errcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t cl_scan_bytes(const unsigned char *p, size_t n, unsigned char pattern,
                     size_t *first, size_t *last)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == pattern)
            continue;
        if (bad == 0 && first)
            *first = i;
        if (last)
            *last = i;
        bad++;
    }
    return bad;
}

size_t cl_count_poison_f32(const float *p, size_t n, size_t *first)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, &p[i], sizeof bits);
        if (bits != CL_POISON_F32)
            continue;
        if (count == 0 && first)
            *first = i;
        count++;
    }
    return count;
}

int cl_guard_describe(const struct cl_guard_report *r, const char *what,
                      size_t elem, char *buf, size_t len)
{
    (void)elem;
    if (len)
        buf[0] = '\0';
    if (r->front_bad == 0 && r->back_bad == 0)
        return 0;
    if (r->back_bad && r->front_bad)
        snprintf(buf, len,
                 "out-of-bounds writes on both sides of %s (%zu bytes before "
                 "it, %zu after it; first at element %ld)",
                 what, r->front_bad, r->back_bad, r->first_bad);
    else if (r->back_bad)
        snprintf(buf, len,
                 "out-of-bounds write past the end of %s: %zu bytes changed, "
                 "first at element %ld",
                 what, r->back_bad, r->first_bad);
    else
        snprintf(buf, len,
                 "out-of-bounds write before the start of %s: %zu bytes "
                 "changed, first at element %ld",
                 what, r->front_bad, r->first_bad);
    return 1;
}

void cl_dbuf_create(struct cl_dbuf *b, size_t bytes, size_t offset)
{
    memset(b, 0, sizeof *b);
    size_t total = CL_GUARD_BYTES + offset + bytes + CL_GUARD_BYTES;
    CUDA_CHECK(cudaMalloc((void **)&b->d_base, total));
    b->ptr = b->d_base + CL_GUARD_BYTES + offset;
    b->bytes = bytes;
    b->offset = offset;
}

void cl_dbuf_destroy(struct cl_dbuf *b)
{
    if (b->d_base)
        CUDA_CHECK(cudaFree(b->d_base));
    memset(b, 0, sizeof *b);
}

void cl_dbuf_poison(const struct cl_dbuf *b, cudaStream_t s)
{
    if (b->bytes)
        CUDA_CHECK(cudaMemsetAsync(b->ptr, CL_POISON, b->bytes, s));
}

void cl_dbuf_arm(const struct cl_dbuf *b, cudaStream_t s)
{
    CUDA_CHECK(
        cudaMemsetAsync(b->d_base, CL_CANARY, CL_GUARD_BYTES + b->offset, s));
    CUDA_CHECK(cudaMemsetAsync((unsigned char *)b->ptr + b->bytes, CL_CANARY,
                               CL_GUARD_BYTES, s));
}

int cl_dbuf_check(const struct cl_dbuf *b, size_t elem, cudaStream_t s,
                  struct cl_guard_report *r)
{
    size_t front_n = CL_GUARD_BYTES + b->offset;
    unsigned char *h = cl_xmalloc(front_n + CL_GUARD_BYTES);
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaMemcpy(h, b->d_base, front_n, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(h + front_n, (unsigned char *)b->ptr + b->bytes,
                          CL_GUARD_BYTES, cudaMemcpyDeviceToHost));
    size_t ff = 0, fl = 0, bf = 0;
    memset(r, 0, sizeof *r);
    r->front_bad = cl_scan_bytes(h, front_n, CL_CANARY, &ff, &fl);
    r->back_bad =
        cl_scan_bytes(h + front_n, CL_GUARD_BYTES, CL_CANARY, &bf, NULL);
    if (elem == 0)
        elem = 1;
    if (r->front_bad) /* the write nearest the buffer is the likely culprit */
        r->first_bad = -(long)((front_n - fl + elem - 1) / elem);
    else if (r->back_bad)
        r->first_bad = (long)((b->bytes + bf) / elem);
    free(h);
    return r->front_bad || r->back_bad;
}
