/*
 * Lab 4 spec: a fused AdamW step over lists of tensors.
 *
 * A case lays a list of tensors out in four arenas (param, grad, exp_avg,
 * exp_avg_sq) with a canary gap between tensors (glue.c). The state
 * (param and the moments) starts fresh and moves on with every call, as
 * training would; each call gets a new gradient and the next step number.
 * After the first three steps the state is checked against a double CPU
 * reference; every step is compared with the per-tensor loop (the
 * baseline), run by the judge from the same state. Speed is a fraction of
 * the copy ceiling (AdamW moves 28 bytes per element: p, g, m, v in; p, m,
 * v out), and for many small tensors a speedup over the loop.
 */
#include "specs/baselines.h"
#include "protocol/glue.h"
#include "guard.h"
#include "judge/spec.h"
#include "specs/refs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CASE(nm, kd, l, c, n_, q)                                              \
    {                                                                          \
        .name = nm, .kind = kd,                                                \
        .arg = &(const struct adamw_case){.list = l, .count = c, .n = n_},     \
        .quick = q                                                             \
    }

static const struct cl_case cases[] = {
    CASE("one-element", CL_CASE_CORRECT, AW_ONE, 0, 0, 1),
    CASE("with-empty", CL_CASE_CORRECT, AW_EMPTY, 0, 0, 1),
    CASE("odd-unaligned", CL_CASE_CORRECT, AW_ODD, 0, 0, 1),
    CASE("3000-tensors", CL_CASE_CORRECT, AW_MANY, 0, 0, 0),
    /* many small tensors: fusion against the per-tensor loop */
    CASE("1000-small", CL_CASE_SPEED, AW_SMALL, 0, 0, 0),
    /* a whole model (148 tensors, 124 M parameters): bandwidth */
    CASE("gpt2-small", CL_CASE_SPEED, AW_GPT2, 0, 0, 0),
    CASE("16x2^12", CL_CASE_BENCH, AW_UNIFORM, 16, 1 << 12, 0),
    CASE("16x2^14", CL_CASE_BENCH, AW_UNIFORM, 16, 1 << 14, 0),
    CASE("16x2^16", CL_CASE_BENCH, AW_UNIFORM, 16, 1 << 16, 0),
    CASE("16x2^18", CL_CASE_BENCH, AW_UNIFORM, 16, 1 << 18, 0),
    CASE("16x2^20", CL_CASE_BENCH, AW_UNIFORM, 16, 1 << 20, 0),
    CASE("16x2^22", CL_CASE_BENCH, AW_UNIFORM, 16, 1 << 22, 0),
};

#define STEPS 3 /* consecutive steps checked against the CPU */

static const char *const arena_names[] = {"param", "grad", "exp_avg",
                                          "exp_avg_sq"};
static const struct cl_tolerance tols[AW_ARENAS] = {
    {1e-6, 1e-5, 1e-5}, /* param */
    {0, 0, 0},          /* grad: an input */
    {1e-7, 1e-5, 1e-5}, /* exp_avg */
    {1e-9, 1e-5, 1e-5}, /* exp_avg_sq */
};

static int plan(const void *arg, struct cl_plan *p)
{
    struct adamw_layout l;
    cl_adamw_layout(arg, &l);
    for (int k = 0; k < AW_ARENAS; k++) {
        int i = cl_plan_buf(p, arena_names[k], k == AW_G ? CL_IN : CL_STATE,
                            CL_F32, (size_t)l.total, 0);
        p->buf[i].has_tol = k != AW_G;
        p->buf[i].tol = tols[k];
    }
    p->work = 28.0 * (double)l.elems;
    p->ceil_bytes = 2.0 * (double)l.total * sizeof(float);
    p->tol = tols[AW_P];
    p->check_calls = STEPS;
    p->versus = 1;
    cl_adamw_layout_free(&l);
    return 0;
}

/* the state starts fresh (the gaps canaries); each call, a new gradient */
static void fill(const struct cl_fill *f, const void *arg, int call)
{
    struct adamw_layout l;
    cl_adamw_layout(arg, &l);
    size_t bytes = (size_t)l.total * sizeof(float);
    for (int k = 0; k < AW_ARENAS; k++)
        if (f->first || k == AW_G)
            f->bytes(f, k, 0, bytes, CL_CANARY);
    for (int i = 0; i < l.count; i++) {
        size_t o = (size_t)l.off[i], n = (size_t)l.n[i];
        if (f->first) {
            f->uniform(f, AW_P, o, n, 1, o, -1.0f, 1.0f);
            f->bytes(f, AW_M, o * 4, n * 4, 0);
            f->bytes(f, AW_V, o * 4, n * 4, 0);
        }
        f->uniform(f, AW_G, o, n, 10 + (uint64_t)call + 1, o, -1.0f, 1.0f);
    }
    cl_adamw_layout_free(&l);
}

/* a write between tensors, found in the host copy of arena @p k */
static int gaps(struct cl_check *ck, const struct adamw_layout *l, int k)
{
    const unsigned char *h = cl_check_output(ck, k);
    for (int i = 0; i <= l->count; i++) {
        long long from = i ? l->off[i - 1] + l->n[i - 1] : 0;
        long long to = i < l->count ? l->off[i] : l->total;
        size_t first = 0;
        if (!cl_scan_bytes(h + from * 4, (size_t)(to - from) * 4, CL_CANARY,
                           &first, NULL))
            continue;
        ck->r->status = CL_ST_OOB;
        snprintf(ck->r->msg, sizeof ck->r->msg,
                 "%sa write between tensors: %s, %s tensor %d (float %lld "
                 "past its end)",
                 ck->when, arena_names[k], i ? "after" : "before",
                 i ? i - 1 : 0, (long long)(first / 4));
        return 1;
    }
    return 0;
}

/* the state after STEPS steps against the CPU's */
static int check(struct cl_check *ck)
{
    struct adamw_layout l;
    cl_adamw_layout(ck->arg, &l);
    int bad = 0;
    for (int k = 0; k < AW_ARENAS && !bad; k++)
        bad = gaps(ck, &l, k);
    size_t elems = (size_t)(l.elems ? l.elems : 1);
    double *st[3];
    float *got = cl_xmalloc(elems * sizeof *got);
    for (int k = 0; k < 3; k++)
        st[k] = cl_xcalloc(elems, sizeof(double));
    const float *p0 = cl_check_input(ck, AW_P, 0);
    for (int i = 0, at = 0; i < l.count; at += (int)l.n[i], i++)
        for (long long j = 0; j < l.n[i]; j++)
            st[0][at + j] = p0[l.off[i] + j];
    for (int step = 1; step <= STEPS && !bad; step++) {
        const float *g = cl_check_input(ck, AW_G, step - 1);
        struct adamw_hparams h = cl_adamw_hparams(step);
        struct adamw_ref_hp hp = {h.lr,  h.beta1,        h.beta2,
                                  h.eps, h.weight_decay, step};
        adamw_ref_list(st[0], st[1], st[2], g, l.count, l.n, l.off, &hp);
    }
    static const int arena[3] = {AW_P, AW_M, AW_V};
    for (int k = 0; k < 3 && !bad; k++) {
        const float *h = cl_check_output(ck, arena[k]);
        for (long long i = 0, at = 0; i < l.count; at += l.n[i], i++)
            memcpy(got + at, h + l.off[i], (size_t)l.n[i] * sizeof *got);
        struct cl_compare cmp;
        cl_compare_f32(got, st[k], NULL, (size_t)l.elems, &tols[arena[k]],
                       &cmp);
        char what[128];
        snprintf(what, sizeof what,
                 "%safter %d steps, %s (index over all tensors)", ck->when,
                 STEPS, arena_names[arena[k]]);
        bad = cl_verdict(&cmp, what, ck->r);
    }
    for (int k = 0; k < 3; k++)
        free(st[k]);
    free(got);
    cl_adamw_layout_free(&l);
    return bad;
}

/* against the loop's state: a difference in a gap is a write out of bounds */
static int versus(struct cl_vs *v)
{
    int buf = 0;
    size_t at = 0;
    if (!cl_vs_default(v, &buf, &at))
        return 0;
    struct adamw_layout l;
    cl_adamw_layout(v->ck.arg, &l);
    int in_gap = 1;
    for (int i = 0; i < l.count && in_gap; i++)
        in_gap =
            !((long long)at >= l.off[i] && (long long)at < l.off[i] + l.n[i]);
    if (in_gap) {
        v->ck.r->status = CL_ST_OOB;
        snprintf(v->ck.r->msg, sizeof v->ck.r->msg,
                 "%sa write between tensors: %s, float %zu of the arena",
                 v->ck.when, arena_names[buf], at);
    }
    cl_adamw_layout_free(&l);
    return 1;
}

// ---- the baseline: the per-tensor loop, on the judge's copy of the state ---

struct loop {
    struct adamw_tensor *list;
    int count, step;
};

static void *loop_create(const struct cl_base_ctx *b, char *why, size_t len)
{
    struct adamw_layout l;
    struct loop *lp = cl_xcalloc(1, sizeof *lp);
    (void)why;
    (void)len;
    cl_adamw_layout(b->arg, &l);
    lp->count = l.count;
    lp->list = cl_xcalloc((size_t)l.count + 1, sizeof *lp->list);
    for (int i = 0; i < l.count; i++) {
        lp->list[i].param = (float *)b->out[AW_P] + l.off[i];
        lp->list[i].grad = (const float *)b->in[AW_G] + l.off[i];
        lp->list[i].exp_avg = (float *)b->out[AW_M] + l.off[i];
        lp->list[i].exp_avg_sq = (float *)b->out[AW_V] + l.off[i];
        lp->list[i].n = l.n[i];
    }
    cl_adamw_layout_free(&l);
    return lp;
}

static const char *loop_name(void *st, int i)
{
    (void)st;
    (void)i;
    return "per-tensor loop";
}

static void loop_prepare(void *st, int call)
{
    ((struct loop *)st)->step = call + 1;
}

static int loop_run(void *st, int i, cudaStream_t s)
{
    struct loop *lp = st;
    struct adamw_hparams hp = cl_adamw_hparams(lp->step);
    (void)i;
    cl_adamw_per_tensor(lp->list, lp->count, &hp, s);
    return 0;
}

static void loop_destroy(void *st)
{
    struct loop *lp = st;
    free(lp->list);
    free(lp);
}

static const struct cl_baseline loop = {.count = 1,
                                        .create = loop_create,
                                        .name = loop_name,
                                        .prepare = loop_prepare,
                                        .run = loop_run,
                                        .destroy = loop_destroy};

static const char *const forbidden[] = {"cublas", "cudnn", NULL};
static const struct cl_caps caps = {.forbidden = forbidden};

const struct cl_lab cl_lab_adamw = {
    .id = "04",
    .slug = "multi-tensor-apply",
    .title = "Multi-tensor apply: fused AdamW",
    .source = "labs/04-multi-tensor-apply/adamw.cu",
    .todo = "TODO(lab4)",
    .caps = &caps,
    .baseline = "per-tensor loop",
    .ceiling = "copy",
    .metric = CL_METRIC_GBPS,
    .needs_gpu = 1,
    .profile_case = "gpt2-small",
    .cases = cases,
    .ncases = (int)(sizeof cases / sizeof cases[0]),
    .arg_size = sizeof(struct adamw_case),
    .plan = plan,
    .fill = fill,
    .check = check,
    .versus = versus,
    .base = &loop,
};
