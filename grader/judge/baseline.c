/* baseline.c: the library baseline(s) of a case, and what the judge makes
 * for a case before its runner starts (baseline.h). */
#include "judge/baseline.h"

#include "errcheck.h"
#include "judge/judge_gpu.h"

#include <stdio.h>
#include <string.h>

int cl_base_count(const struct case_run *k)
{
    return k->base ? k->base->count : 0;
}

static int base_create(struct case_run *k)
{
    if (!k->base)
        return 0;
    if (k->base->count < 1 || k->base->count > CL_MAX_BASELINES)
        return cl_case_fail(
            k, CL_ST_INTERNAL,
            "the lab has %d baselines; the grader takes 1 to %d",
            k->base->count, CL_MAX_BASELINES);
    char why[512] = "";
    for (int i = 0; i < k->plan.nbuf; i++) {
        k->in_ptrs[i] = k->hb[i].native ? k->hb[i].native : k->hb[i].ptr;
        const struct cl_buf_plan *p = &k->plan.buf[i];
        if (p->role == CL_OUT || p->role == CL_STATE) {
            if (!k->hb[i].mirror)
                k->hb[i].mirror = cl_judge_alloc(k->hb[i].bytes);
            k->out_ptrs[i] = k->hb[i].mirror;
        }
    }
    struct cl_base_ctx b = {k->arg, &k->plan, k->o->data, k->in_ptrs,
                            k->out_ptrs};
    k->base_st = k->base->create(&b, why, sizeof why);
    if (!k->base_st)
        return cl_case_fail(k, CL_ST_INTERNAL, "baseline: %.900s", why);
    int any = 0;
    for (int i = 0; i < cl_base_count(k); i++) {
        k->base_ok[i] =
            !k->base->usable || k->base->usable(k->base_st, i, why, sizeof why);
        any |= k->base_ok[i];
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
        k->ceil.base = cl_judge_alloc(bytes);
        cl_mem_set(k->ceil.base, 1, bytes);
        k->ceil.ptr = k->ceil.base;
        k->ceil.mirror = cl_judge_alloc(bytes);
    }
    int rc = base_create(k);
    cl_mem_sync();
    return rc;
}

int cl_base_run(struct case_run *k, int i)
{
    int st = k->base->run(k->base_st, i, cl_judge_stream());
    if (st != 0)
        return cl_case_fail(k, CL_ST_INTERNAL,
                            "baseline %s refused to run (status %d)",
                            k->base->name(k->base_st, i), st);
    return 0;
}

int cl_base_first(const struct case_run *k)
{
    for (int i = 0; i < cl_base_count(k); i++)
        if (k->base_ok[i])
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
    if (!k->base || !k->lab->check || (!timing && !k->plan.versus))
        return 0;
    for (int i = 0; i < cl_base_count(k); i++) {
        if (!k->base_ok[i])
            continue;
        if (!k->base_ran || i != cl_base_first(k)) {
            if (k->has_state)
                break; /* the state moved on: the first one stands */
            if (cl_base_run(k, i))
                return 1;
            cl_mem_sync();
        }
        struct cl_result br;
        memset(&br, 0, sizeof br);
        struct cl_check bk;
        cl_check_init(k, &bk, call, "", &br);
        k->outputs_from_mirror = 1;
        int wrong = k->lab->check(&bk);
        k->outputs_from_mirror = 0;
        cl_case_forget_outputs(k);
        cl_case_forget_inputs(k);
        if (wrong)
            return cl_case_fail(k, CL_ST_INTERNAL,
                                "baseline %s is wrong: %.800s",
                                k->base->name(k->base_st, i), br.msg);
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
        const char *name = k->base->name(k->base_st, i);
        if (k->base_ok[i])
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
    struct timed_copy t = {&k->ceil, (size_t)(k->plan.ceil_bytes / 2),
                           streaming};
    return cl_judge_time(run_copy, &t);
}
