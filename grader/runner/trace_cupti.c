/* trace_cupti.c: the runner's CUPTI activity records of each call. */
#define _GNU_SOURCE
#include "runner/trace_cupti.h"

#include <cupti.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUF_BYTES (4u << 20)
#define MAX_SPANS 4096

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cl_trace g_acc;         /* the call being collected */
static uint64_t g_span[MAX_SPANS][2]; /* its GPU intervals */
static int g_nspan;
static uint32_t g_ours = 0xffffffffu, g_legacy = 0xffffffffu;

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size,
                                      size_t *max_records)
{
    *buf = aligned_alloc(8, BUF_BYTES);
    *size = *buf ? BUF_BYTES : 0;
    *max_records = 0;
}

static int stream_class(uint32_t id)
{
    return id == g_ours     ? CL_ON_STREAM
           : id == g_legacy ? CL_ON_LEGACY
                            : CL_ON_OTHER;
}

/* one launch into the accumulated trace (lock held) */
static void add(int kind, const char *name, uint32_t stream, const int *grid,
                const int *block, uint64_t start, uint64_t end, double bytes)
{
    struct cl_trace *t = &g_acc;
    int cls = stream_class(stream);
    t->on = 1;
    t->launches++;
    t->off_stream += cls == CL_ON_OTHER;
    if (g_nspan < MAX_SPANS && end >= start) {
        g_span[g_nspan][0] = start;
        g_span[g_nspan][1] = end;
        g_nspan++;
    }
    double ms = end > start ? (end - start) * 1e-6 : 0.0;
    for (int i = 0; i < t->n; i++) {
        struct cl_trace_rec *r = &t->rec[i];
        if (r->kind == kind && r->stream == cls &&
            strncmp(r->name, name, CL_NAME_MAX - 1) == 0 &&
            memcmp(r->grid, grid, sizeof r->grid) == 0 &&
            memcmp(r->block, block, sizeof r->block) == 0) {
            r->count++;
            r->ms += ms;
            r->bytes += bytes;
            return;
        }
    }
    if (t->n == CL_TRACE_MAX) {
        t->dropped++;
        return;
    }
    struct cl_trace_rec *r = &t->rec[t->n++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name ? name : "?");
    r->kind = kind;
    r->stream = cls;
    memcpy(r->grid, grid, sizeof r->grid);
    memcpy(r->block, block, sizeof r->block);
    r->count = 1;
    r->ms = ms;
    r->bytes = bytes;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id,
                                      uint8_t *buf, size_t size, size_t valid)
{
    (void)ctx;
    (void)stream_id;
    (void)size;
    CUpti_Activity *r = NULL;
    static const int none[3] = {0, 0, 0};
    pthread_mutex_lock(&g_lock);
    while (valid > 0 &&
           cuptiActivityGetNextRecord(buf, valid, &r) == CUPTI_SUCCESS) {
        if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
            r->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
            const CUpti_ActivityKernel10 *k = (const void *)r;
            int grid[3] = {k->gridX, k->gridY, k->gridZ};
            int block[3] = {k->blockX, k->blockY, k->blockZ};
            add(0, k->name, k->streamId, grid, block, k->start, k->end, 0);
        } else if (r->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
            const CUpti_ActivityMemcpy6 *m = (const void *)r;
            add(1, "memcpy", m->streamId, none, none, m->start, m->end,
                (double)m->bytes);
        } else if (r->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
            const CUpti_ActivityMemset4 *m = (const void *)r;
            add(2, "memset", m->streamId, none, none, m->start, m->end,
                (double)m->bytes);
        }
    }
    pthread_mutex_unlock(&g_lock);
    free(buf);
}

static const CUpti_ActivityKind kinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMSET};

void cl_trace_cupti_enable(int on)
{
    for (size_t i = 0; i < 3; i++) {
        if (on)
            cuptiActivityEnable(kinds[i]);
        else
            cuptiActivityDisable(kinds[i]);
    }
}

int cl_trace_cupti_init(char *why, size_t len)
{
    CUptiResult r =
        cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    for (size_t i = 0; r == CUPTI_SUCCESS && i < 3; i++)
        r = cuptiActivityEnable(kinds[i]);
    if (r != CUPTI_SUCCESS) {
        const char *s = NULL;
        cuptiGetResultString(r, &s);
        snprintf(why, len, "CUPTI: %s", s ? s : "error");
        return -1;
    }
    return 0;
}

void cl_trace_cupti_streams(void *stream)
{
    /* no context named: CUPTI finds the stream's own */
    cuptiGetStreamIdEx(NULL, (CUstream)stream, 0, &g_ours);
    cuptiGetStreamIdEx(NULL, (CUstream)0, 0, &g_legacy);
}

static int by_start(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

void cl_trace_cupti_collect(struct cl_trace *t)
{
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    pthread_mutex_lock(&g_lock);
    /* the union of the intervals: time the GPU spent on the call */
    qsort(g_span, (size_t)g_nspan, sizeof g_span[0], by_start);
    uint64_t busy = 0, cur_s = 0, cur_e = 0;
    for (int i = 0; i < g_nspan; i++) {
        if (i == 0 || g_span[i][0] > cur_e) {
            busy += cur_e - cur_s;
            cur_s = g_span[i][0];
            cur_e = g_span[i][1];
        } else if (g_span[i][1] > cur_e) {
            cur_e = g_span[i][1];
        }
    }
    busy += cur_e - cur_s;
    g_acc.busy_ms = busy * 1e-6;
    g_acc.on = 1;
    *t = g_acc;
    memset(&g_acc, 0, sizeof g_acc);
    g_nspan = 0;
    pthread_mutex_unlock(&g_lock);
}
