/* baseline.c: the library baseline(s) of a case, and what the judge makes
 * for a case before its runner starts (baseline.h). */
#include "judge/baseline.h"

#include "errcheck.h"
#include "judge/judge_gpu.h"

#include <stdio.h>
#include <string.h>

void cl_base_init(struct case_run *k, const struct cl_baseline *spec)
{
    memset(&k->bl, 0, sizeof k->bl);
    k->bl.spec = spec;
}

void cl_base_drop(struct case_run *k)
{
    k->bl.spec = NULL;
}

void cl_base_free(struct case_run *k)
{
    if (k->bl.st)
        k->bl.spec->destroy(k->bl.st);
    k->bl.st = NULL;
    if (k->bl.ceil.base && !k->device_broken) {
        cl_judge_free(k->bl.ceil.base);
        cl_judge_free(k->bl.ceil.mirror);
    }
    k->bl.ceil = (struct cl_gbuf){0};
}

int cl_base_count(const struct case_run *k)
{
    return k->bl.spec ? k->bl.spec->count : 0;
}

int cl_base_usable(const struct case_run *k, int i)
{
    return k->bl.spec && i >= 0 && i < cl_base_count(k) && k->bl.ok[i];
}

const char *cl_base_name(const struct case_run *k, int i)
{
    return k->bl.spec->name(k->bl.st, i);
}

void cl_base_prepare(struct case_run *k, int call)
{
    k->bl.ran = 0;
    if (k->bl.spec && k->bl.spec->prepare)
        k->bl.spec->prepare(k->bl.st, call);
}

int cl_base_call(struct case_run *k, int timed, double *base_ms)
{
    for (int i = 0; i < cl_base_count(k); i++) {
        if (!k->bl.ok[i] || (!timed && k->bl.ran))
            continue;
        if (timed)
            base_ms[i] = cl_base_time(k, i);
        else if (cl_base_run(k, i))
            return 1;
        k->bl.ran = 1;
        if (k->has_state)
            break; /* state moves once per call */
    }
    return 0;
}

int cl_base_ran(const struct case_run *k)
{
    return k->bl.ran;
}

int cl_ceiling_ready(const struct case_run *k)
{
    return k->bl.ceil.base && k->plan.ceil_bytes > 0;
}

struct cl_gbuf *cl_ceiling_bufs(struct case_run *k)
{
    return &k->bl.ceil;
}

static int base_create(struct case_run *k)
{
    if (!k->bl.spec)
        return 0;
    if (k->bl.spec->count < 1 || k->bl.spec->count > CL_MAX_BASELINES)
        return cl_case_fail(
            k, CL_ST_INTERNAL,
            "the lab has %d baselines; the grader takes 1 to %d",
            k->bl.spec->count, CL_MAX_BASELINES);
    char why[512] = "";
    for (int i = 0; i < k->plan.nbuf; i++) {
        k->bl.in_ptrs[i] = k->hb[i].native ? k->hb[i].native : k->hb[i].ptr;
        const struct cl_buf_plan *p = &k->plan.buf[i];
        if (p->role == CL_OUT || p->role == CL_STATE) {
            if (!k->hb[i].mirror)
                k->hb[i].mirror = cl_judge_alloc(k->hb[i].bytes);
            k->bl.out_ptrs[i] = k->hb[i].mirror;
        }
    }
    struct cl_base_ctx b = {k->arg, &k->plan, k->o->data, k->bl.in_ptrs,
                            k->bl.out_ptrs};
    k->bl.st = k->bl.spec->create(&b, why, sizeof why);
    if (!k->bl.st)
        return cl_case_fail(k, CL_ST_INTERNAL, "baseline: %.900s", why);
    int any = 0;
    for (int i = 0; i < cl_base_count(k); i++) {
        k->bl.ok[i] = !k->bl.spec->usable ||
                      k->bl.spec->usable(k->bl.st, i, why, sizeof why);
        any |= k->bl.ok[i];
    }
    if (!any)
        return cl_case_fail(k, CL_ST_INTERNAL, "baseline: %.900s", why);
    return 0;
}

/* Everything the judge needs for the case, made before the runner starts:
 * its own copies of the inputs, the baseline's outputs, the ceiling's
 * buffers and the baseline itself (handles, workspaces). A submission that
 * takes all the GPU's memory then fails alone, never the judge. */
int cl_case_resources(struct case_run *k)
{
    if (cl_judge_gpu())
        for (int i = 0; i < k->plan.nbuf; i++) {
            enum cl_role role = k->plan.buf[i].role;
            if (!k->plan.buf[i].ask && (role == CL_IN || role == CL_STATE))
                cl_gbuf_own(&k->hb[i]);
        }
    if (k->timing_case && k->plan.ceil_bytes > 0 && cl_judge_gpu()) {
        size_t bytes = (size_t)(k->plan.ceil_bytes / 2);
        k->bl.ceil.base = cl_judge_alloc(bytes);
        cl_mem_set(k->bl.ceil.base, 1, bytes);
        k->bl.ceil.ptr = k->bl.ceil.base;
        k->bl.ceil.mirror = cl_judge_alloc(bytes);
    }
    int rc = base_create(k);
    cl_mem_sync();
    return rc;
}

int cl_base_run(struct case_run *k, int i)
{
    int st = k->bl.spec->run(k->bl.st, i, cl_judge_stream());
    if (st != 0)
        return cl_case_fail(k, CL_ST_INTERNAL,
                            "baseline %s refused to run (status %d)",
                            cl_base_name(k, i), st);
    return 0;
}

int cl_base_first(const struct case_run *k)
{
    for (int i = 0; i < cl_base_count(k); i++)
        if (cl_base_usable(k, i))
            return i;
    return -1;
}

/* what the judge times: a baseline, or one of the ceiling's copies */
struct timed_base {
    struct case_run *k;
    int which; /* baseline index */
};

static void run_base(void *ctx)
{
    struct timed_base *t = ctx;
    cl_base_run(t->k, t->which);
}

/* the ceiling: copy half the case's bytes, by the runtime or by the
 * judge's own streaming kernel */
struct timed_copy {
    const struct cl_gbuf *buf;
    size_t bytes;
    int streaming;
};

static void run_copy(void *ctx)
{
    const struct timed_copy *t = ctx;
    if (t->streaming)
        cl_stream_copy(t->buf->mirror, t->buf->ptr, t->bytes,
                       cl_judge_stream());
    else
        CUDA_CHECK(cudaMemcpyAsync(t->buf->mirror, t->buf->ptr, t->bytes,
                                   cudaMemcpyDeviceToDevice,
                                   cl_judge_stream()));
}

/* the baselines' own check against the CPU reference (the check call):
 * the one that ran for the call, and when timing every other one too */
int cl_base_verify(struct case_run *k, int call, int timing)
{
    if (!k->bl.spec || !k->lab->check || (!timing && !k->plan.versus))
        return 0;
    for (int i = 0; i < cl_base_count(k); i++) {
        if (!k->bl.ok[i])
            continue;
        if (!k->bl.ran || i != cl_base_first(k)) {
            if (k->has_state)
                break; /* the state moved on: the first one stands */
            if (cl_base_run(k, i))
                return 1;
            cl_mem_sync();
        }
        struct cl_result br;
        memset(&br, 0, sizeof br);
        int wrong = cl_case_check(k, call, "", &br, CL_FROM_BASELINE);
        cl_case_forget_inputs(k);
        if (wrong)
            return cl_case_fail(k, CL_ST_INTERNAL,
                                "baseline %s is wrong: %.800s",
                                cl_base_name(k, i), br.msg);
        if (!timing)
            break;
    }
    return 0;
}

void cl_base_describe(struct case_run *k, struct cl_series *bs, int best)
{
    if (cl_base_count(k) < 2)
        return;
    char *msg = k->r->msg;
    size_t cap = sizeof k->r->msg, len = 0;
    int n = snprintf(msg, cap, "%s:", k->lab->baseline);
    len = n > 0 ? (size_t)n : 0;
    for (int i = 0; i < cl_base_count(k) && len < cap; i++) {
        const char *name = cl_base_name(k, i);
        if (k->bl.ok[i])
            n = snprintf(msg + len, cap - len, " %s %.4f ms%s;", name,
                         cl_series_median(&bs[i]), i == best ? " (best)" : "");
        else
            n = snprintf(msg + len, cap - len, " %s unsupported;", name);
        len += n > 0 ? (size_t)n : 0;
    }
    if (len > 0 && len < cap && msg[len - 1] == ';')
        msg[len - 1] = '\0';
}

double cl_base_time(struct case_run *k, int i)
{
    struct timed_base t = {k, i};
    return cl_judge_time(run_base, &t);
}

double cl_ceiling_time(struct case_run *k, int streaming)
{
    struct timed_copy t = {&k->bl.ceil, (size_t)(k->plan.ceil_bytes / 2),
                           streaming};
    return cl_judge_time(run_copy, &t);
}
