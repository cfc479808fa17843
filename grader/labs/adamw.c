/*
 * Lab 4 spec: a fused AdamW step over lists of tensors.
 *
 * Each case builds a list of tensors in four arenas (params, grads, first
 * and second moments) with a canary gap between tensors, runs three
 * consecutive steps (so the bias correction changes) and compares with a
 * double-precision reference. Baseline: the per-tensor loop; ceiling: a
 * device-to-device copy (AdamW moves 28 bytes per element: p, g, m, v in,
 * p, m, v out).
 */
#include "adamw.h"
#include "baselines.h"
#include "labkit.h"
#include "refs.h"
#include "rng.h"

#include "errcheck.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// cases: p[0] = list kind, p[1], p[2] its parameters

enum { L_ONE, L_EMPTY, L_ODD, L_MANY, L_SMALL, L_GPT2, L_UNIFORM };

#define CORRECT(name, kind, pts, quick)                                        \
    {                                                                          \
        name, CL_CASE_CORRECT, pts, {kind, 0, 0}, quick, 0, CL_VS_DEFAULT      \
    }
#define SWEEP(name, count, n)                                                  \
    {                                                                          \
        name, CL_CASE_BENCH, 0, {L_UNIFORM, count, n}, 0, 0, CL_VS_DEFAULT     \
    }

static const struct cl_case cases[] = {
    CORRECT("one-element", L_ONE, 15, 1),
    CORRECT("with-empty", L_EMPTY, 15, 1),
    CORRECT("odd-unaligned", L_ODD, 15, 1),
    CORRECT("3000-tensors", L_MANY, 15, 0),
    /* many small tensors: fusion against the per-tensor loop */
    {"1000-small", CL_CASE_SPEED, 20, {L_SMALL, 0, 0}, 0, 5.0, CL_VS_BASELINE},
    /* a whole model (148 tensors, 124 M parameters): bandwidth */
    {"gpt2-small", CL_CASE_SPEED, 20, {L_GPT2, 0, 0}, 0, 0, CL_VS_DEFAULT},
    SWEEP("16x2^12", 16, 1 << 12),
    SWEEP("16x2^14", 16, 1 << 14),
    SWEEP("16x2^16", 16, 1 << 16),
    SWEEP("16x2^18", 16, 1 << 18),
    SWEEP("16x2^20", 16, 1 << 20),
    SWEEP("16x2^22", 16, 1 << 22),
};

static const struct adamw_hparams HP = {1e-3f, 0.9f, 0.999f, 1e-8f, 0.1f, 1};
#define STEPS 3  /* consecutive steps checked */
#define GAP   64 /* canary floats between tensors */

// ----------------------------------------------------------------------------
// CPU reference (double) and the lists

void adamw_ref(double *p, double *m, double *v, const float *g, long long n,
               const struct adamw_ref_hp *hp)
{
    double bc1 = 1.0 - pow(hp->beta1, hp->step);
    double bc2 = 1.0 - pow(hp->beta2, hp->step);
    for (long long i = 0; i < n; i++) {
        p[i] *= 1.0 - hp->lr * hp->weight_decay;
        m[i] = hp->beta1 * m[i] + (1.0 - hp->beta1) * g[i];
        v[i] = hp->beta2 * v[i] + (1.0 - hp->beta2) * (double)g[i] * g[i];
        p[i] -= hp->lr / bc1 * m[i] / (sqrt(v[i]) / sqrt(bc2) + hp->eps);
    }
}

int adamw_gpt2_sizes(long long *sizes, int max)
{
    const long long d = 768, vocab = 50257, ctx = 1024;
    long long all[148];
    int n = 0;
    all[n++] = vocab * d; /* wte */
    all[n++] = ctx * d;   /* wpe */
    for (int layer = 0; layer < 12; layer++) {
        long long block[] = {
            d, d, d * 3 * d, 3 * d, d * d,     d,
            d, d, d * 4 * d, 4 * d, 4 * d * d, d}; /* ln_1, attn, ln_2, mlp */
        for (int k = 0; k < 12; k++)
            all[n++] = block[k];
    }
    all[n++] = d; /* ln_f */
    all[n++] = d;
    for (int i = 0; i < n && i < max; i++)
        sizes[i] = all[i];
    return n;
}

/* the sizes of a case's list (fixed: the seed changes values, not shapes);
 * returns the count, *misalign the floats every pointer is shifted by */
static int list_sizes(const struct cl_case *c, long long **out, int *misalign)
{
    static const long long empty[] = {0, 5, 0, 4096, 0, 1, 0};
    static const long long odd[] = {3, 7, 1001, 65537, 131075, 5};
    int count;
    long long *s;
    *misalign = 0;
    switch (c->p[0]) {
    case L_ONE: count = 1; break;
    case L_EMPTY: count = 7; break;
    case L_ODD: count = 6; break;
    case L_MANY: count = 3000; break;
    case L_SMALL: count = 1000; break;
    case L_GPT2: count = adamw_gpt2_sizes(NULL, 0); break;
    default: count = (int)c->p[1]; break;
    }
    s = cl_xcalloc((size_t)count, sizeof *s);
    for (int i = 0; i < count; i++) {
        uint64_t h = cl_mix64(0x5eed0000ULL + (uint64_t)i);
        switch (c->p[0]) {
        case L_ONE: s[i] = 1; break;
        case L_EMPTY: s[i] = empty[i]; break;
        case L_ODD: s[i] = odd[i]; break;
        case L_MANY: s[i] = 1 + (long long)(h % 2000); break;
        case L_SMALL: s[i] = 1 + (long long)(h % 10000); break;
        case L_GPT2: break;
        default: s[i] = c->p[2]; break;
        }
    }
    if (c->p[0] == L_GPT2)
        adamw_gpt2_sizes(s, count);
    if (c->p[0] == L_ODD)
        *misalign = 1;
    *out = s;
    return count;
}

// ----------------------------------------------------------------------------
// state

struct state {
    adamw_step_fn fn;
};

static void *setup(void *lib, char *err, size_t len)
{
    struct state *s = cl_xmalloc(sizeof *s);
    if (!(s->fn = (adamw_step_fn)cl_entry_point(lib, "adamw_step", err, len))) {
        free(s);
        return NULL;
    }
    return s;
}

static void teardown(void *p)
{
    free(p);
}

// ----------------------------------------------------------------------------
// arenas: four buffers with the tensors laid out one after another

enum { A_P, A_G, A_M, A_V, N_ARENAS };
static const char *const arena_names[] = {"param", "grad", "exp_avg",
                                          "exp_avg_sq"};

struct arenas {
    int count;
    long long *n;    /* sizes */
    long long *off;  /* first float of each tensor */
    long long total; /* floats in an arena, gaps included */
    struct cl_dbuf d[N_ARENAS];
    float *init[N_ARENAS]; /* host images: initial p, m, v; g of step 1 */
    struct adamw_tensor *list;
};

static void arenas_create(struct arenas *a, const struct cl_case *c,
                          uint64_t seed)
{
    int misalign = 0;
    memset(a, 0, sizeof *a);
    a->count = list_sizes(c, &a->n, &misalign);
    a->off = calloc((size_t)a->count, sizeof *a->off);
    a->list = calloc((size_t)a->count, sizeof *a->list);
    long long cur = GAP;
    for (int i = 0; i < a->count; i++) {
        cur = (cur + 3) / 4 * 4 + misalign;
        a->off[i] = cur;
        cur += a->n[i] + GAP;
    }
    a->total = cur;
    size_t bytes = (size_t)a->total * sizeof(float);
    for (int k = 0; k < N_ARENAS; k++) {
        cl_dbuf_create(&a->d[k], bytes, 0);
        a->init[k] = cl_xmalloc(bytes);
        memset(a->init[k], CL_CANARY, bytes);
    }
    for (int i = 0; i < a->count; i++) {
        long long o = a->off[i];
        for (long long j = 0; j < a->n[i]; j++) {
            a->init[A_P][o + j] =
                cl_rand_uniform(seed, 1, (uint64_t)(o + j), -1.0f, 1.0f);
            a->init[A_M][o + j] = 0.0f; /* a fresh optimizer */
            a->init[A_V][o + j] = 0.0f;
        }
        float *base[N_ARENAS];
        for (int k = 0; k < N_ARENAS; k++)
            base[k] = (float *)a->d[k].ptr + o;
        a->list[i].param = base[A_P];
        a->list[i].grad = base[A_G];
        a->list[i].exp_avg = base[A_M];
        a->list[i].exp_avg_sq = base[A_V];
        a->list[i].n = a->n[i];
    }
}

/* the gradient of step s, into the host image of the grad arena */
static void fill_grad(struct arenas *a, uint64_t seed, int step)
{
    for (int i = 0; i < a->count; i++) {
        long long o = a->off[i];
        for (long long j = 0; j < a->n[i]; j++)
            a->init[A_G][o + j] = cl_rand_uniform(
                seed, 10 + (uint64_t)step, (uint64_t)(o + j), -1.0f, 1.0f);
    }
}

static void upload(struct arenas *a, int k, cudaStream_t s)
{
    CUDA_CHECK(cudaMemcpyAsync(a->d[k].ptr, a->init[k],
                               (size_t)a->total * sizeof(float),
                               cudaMemcpyHostToDevice, s));
}

static void arenas_destroy(struct arenas *a, int free_device)
{
    for (int k = 0; k < N_ARENAS; k++) {
        if (free_device)
            cl_dbuf_destroy(&a->d[k]);
        free(a->init[k]);
    }
    free(a->n);
    free(a->off);
    free(a->list);
}

// ----------------------------------------------------------------------------
// the reference after STEPS steps, and the check

struct reference {
    double *p, *m, *v; /* per tensor, packed without gaps */
    long long elems;
};

static void reference_create(struct reference *r, struct arenas *a,
                             uint64_t seed)
{
    r->elems = 0;
    for (int i = 0; i < a->count; i++)
        r->elems += a->n[i];
    size_t bytes = (size_t)(r->elems ? r->elems : 1) * sizeof(double);
    r->p = cl_xmalloc(bytes);
    r->m = cl_xcalloc(1, bytes);
    r->v = cl_xcalloc(1, bytes);
    long long at = 0;
    for (int i = 0; i < a->count; i++)
        for (long long j = 0; j < a->n[i]; j++)
            r->p[at++] = a->init[A_P][a->off[i] + j];
    for (int step = 1; step <= STEPS; step++) {
        struct adamw_ref_hp hp = {HP.lr,  HP.beta1,        HP.beta2,
                                  HP.eps, HP.weight_decay, step};
        fill_grad(a, seed, step);
        at = 0;
        for (int i = 0; i < a->count; i++) {
            adamw_ref(r->p + at, r->m + at, r->v + at, a->init[A_G] + a->off[i],
                      a->n[i], &hp);
            at += a->n[i];
        }
    }
}

static void reference_destroy(struct reference *r)
{
    free(r->p);
    free(r->m);
    free(r->v);
}

/* run STEPS steps of the student's code from the initial state */
static int run_steps(struct state *st, struct arenas *a, uint64_t seed,
                     cudaStream_t s, struct cl_result *r)
{
    for (int k = 0; k < N_ARENAS; k++)
        cl_dbuf_arm(&a->d[k], s);
    upload(a, A_P, s);
    upload(a, A_M, s);
    upload(a, A_V, s);
    for (int step = 1; step <= STEPS; step++) {
        fill_grad(a, seed, step);
        upload(a, A_G, s);
        CUDA_CHECK(cudaStreamSynchronize(s));
        struct adamw_hparams hp = HP;
        hp.step = step;
        st->fn(a->list, a->count, hp, s);
        if (cl_student_error(s, "in adamw_step", r))
            return 1;
    }
    return 0;
}

/* gaps untouched, and p, m, v within tolerance of the reference */
static int check_state(struct arenas *a, const struct reference *ref,
                       cudaStream_t s, const char *when, struct cl_result *r)
{
    const struct cl_dbuf *bufs[] = {&a->d[A_P], &a->d[A_G], &a->d[A_M],
                                    &a->d[A_V]};
    if (cl_check_guards(bufs, arena_names, N_ARENAS, sizeof(float), s, r))
        return 1;
    const struct cl_tolerance tol[] = {
        {1e-6, 1e-5, 1e-5}, /* param */
        {0, 0, 0},          /* grad: not compared */
        {1e-7, 1e-5, 1e-5}, /* exp_avg */
        {1e-9, 1e-5, 1e-5}, /* exp_avg_sq */
    };
    const double *want[] = {ref->p, NULL, ref->m, ref->v};
    size_t bytes = (size_t)a->total * sizeof(float);
    float *h = cl_xmalloc(bytes);
    float *packed = cl_xmalloc((size_t)ref->elems * sizeof *packed);
    int bad = 0;
    for (int k = 0; k < N_ARENAS && !bad; k++) {
        CUDA_CHECK(cudaMemcpy(h, a->d[k].ptr, bytes, cudaMemcpyDeviceToHost));
        /* the gaps between tensors are guard zones too */
        for (int i = 0; i <= a->count && !bad; i++) {
            long long from = i ? a->off[i - 1] + a->n[i - 1] : 0;
            long long to = i < a->count ? a->off[i] : a->total;
            size_t first = 0;
            if (cl_scan_bytes((unsigned char *)(h + from),
                              (size_t)(to - from) * 4, CL_CANARY, &first,
                              NULL)) {
                r->status = CL_ST_OOB;
                snprintf(r->msg, sizeof r->msg,
                         "%s: a write between tensors: %s, %s tensor %d "
                         "(float %lld past its end)",
                         when, arena_names[k], i ? "after" : "before",
                         i ? i - 1 : 0, (long long)(first / 4));
                bad = 1;
            }
        }
        if (bad || !want[k])
            continue;
        long long at = 0;
        for (int i = 0; i < a->count; i++) {
            memcpy(packed + at, h + a->off[i], (size_t)a->n[i] * 4);
            at += a->n[i];
        }
        struct cl_compare cmp;
        cl_compare_f32(packed, want[k], NULL, (size_t)ref->elems, &tol[k],
                       &cmp);
        if (!cmp.pass) {
            char what[128];
            snprintf(what, sizeof what,
                     "%s after %d steps, %s (index over all tensors)", when,
                     STEPS, arena_names[k]);
            bad = cl_verdict(&cmp, what, r);
        }
    }
    free(h);
    free(packed);
    return bad;
}

// ----------------------------------------------------------------------------
// timing

struct call {
    struct state *st;
    struct arenas *a;
};

static void run_student(void *p, cudaStream_t s)
{
    struct call *c = p;
    c->st->fn(c->a->list, c->a->count, HP, s);
}

static void run_loop(void *p, cudaStream_t s)
{
    struct call *c = p;
    cl_adamw_per_tensor(c->a->list, c->a->count, &HP, s);
}

// ----------------------------------------------------------------------------
// one case

static void run(void *p, const struct cl_ctx *ctx, const struct cl_case *cs,
                struct cl_result *r)
{
    struct state *st = p;
    cudaStream_t s = ctx->stream;
    struct arenas a;
    struct reference ref;
    struct cl_dbuf scratch;
    memset(&scratch, 0, sizeof scratch);
    arenas_create(&a, cs, ctx->seed);
    reference_create(&ref, &a, ctx->seed);

    cl_profile_mark(ctx, 1);
    int failed = run_steps(st, &a, ctx->seed, s, r);
    cl_profile_mark(ctx, 0);
    if (failed || check_state(&a, &ref, s, "output", r))
        goto done;
    r->status = CL_ST_PASS;
    if (!ctx->timing)
        goto done;

    /* time the student, the per-tensor loop and a copy of the param arena */
    size_t bytes = (size_t)a.total * sizeof(float);
    cl_dbuf_create(&scratch, bytes, 0);
    struct call call = {st, &a};
    struct cl_copy cp = {scratch.ptr, a.d[A_P].ptr, bytes};
    struct cl_timed items[] = {
        {"adamw_step", run_student, &call, {0}},
        {"per-tensor loop", run_loop, &call, {0}},
        {"memcpy", cl_run_copy, &cp, {0}},
    };
    if (cl_time_case(ctx, items, 3, r))
        goto done;
    r->work = 28.0 * (double)ref.elems;
    r->ceil_work = 2.0 * (double)bytes;
    /* the state has moved on: start again and check once more */
    if (run_steps(st, &a, ctx->seed, s, r) ||
        check_state(&a, &ref, s, "output after timing", r))
        r->timed = 0;

done:
    reference_destroy(&ref);
    if (!r->restart)
        cl_dbuf_destroy(&scratch);
    arenas_destroy(&a, !r->restart);
}

// ----------------------------------------------------------------------------
// the spec

static const char *const symbols[] = {"adamw_step", NULL};
static const char *const forbidden[] = {"cublas", "cudnn", NULL};

const struct cl_lab cl_lab_adamw = {
    .id = "04",
    .slug = "multi-tensor-apply",
    .title = "Multi-tensor apply: fused AdamW",
    .source = "labs/04-multi-tensor-apply/adamw.cu",
    .todo = "TODO(lab4)",
    .symbols = symbols,
    .forbidden = forbidden,
    .baseline = "per-tensor loop",
    .ceiling = "memcpy",
    .metric = CL_METRIC_GBPS,
    .speed_target = 0.80,
    .speed_vs = CL_VS_CEILING,
    .needs_gpu = 1,
    .timeout_s = 60.0,
    .profile_case = "gpt2-small",
    .cases = cases,
    .ncases = (int)(sizeof cases / sizeof cases[0]),
    .setup = setup,
    .run = run,
    .teardown = teardown,
};
