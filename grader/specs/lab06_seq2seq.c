/*
 * Lab 6 spec: greedy decoding with a GRU encoder-decoder, against the
 * framework-style cuDNN + cuBLAS pipeline.
 *
 * Correctness: teacher-forced logits (seq2seq_forced) against a double CPU
 * model, and greedy tokens (seq2seq_greedy) against the CPU's greedy
 * decode. A token that differs from the reference is accepted only at a
 * near-tie (the reference's logits of the two tokens within the
 * tolerance), after which that sentence is not compared further: the two
 * decodes have parted ways legitimately. Random models (PyTorch's
 * initialisation) cover the edges; the trained model must translate its
 * held-out test set as well as the reference does (within 0.5 points of
 * exact-match accuracy). Large batches are compared in full with the
 * pipeline's decode on the same model.
 *
 * Baseline: the pipeline an eager framework runs (pipeline.c), eager and
 * captured once in a CUDA graph; the faster is the baseline.
 */
#include "specs/baselines.h"
#include "specs/labs.h"
#include "protocol/glue.h"
#include "judge/spec.h"
#include "specs/refs.h"
#include "specs/seq2seq_data.h"

#include "errcheck.h"
#include "split.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* embedding and hidden sizes of the random models */
#define SMALL 16, 24
#define MID   48, 100
#define BIG   256, 512

#define CASE(nm, kd, k, s, t, b, v, e, h, q)                                   \
    {                                                                          \
        .name = nm, .kind = kd,                                                \
        .arg = &(const struct s2s_case){.kind = k,                             \
                                        .S = s,                                \
                                        .T = t,                                \
                                        .B = b,                                \
                                        .v_src = v,                            \
                                        .v_tgt = v,                            \
                                        .E = e,                                \
                                        .H = h},                               \
        .quick = q                                                             \
    }
/* d: SMALL, MID or BIG, two arguments once expanded */
#define CORRECT(name, k, s, t, b, v, d, quick)                                 \
    CASE(name, CL_CASE_CORRECT, k, s, t, b, v, d, quick)
#define SPEED(name, kind, t, b, d)                                             \
    CASE(name, kind, S2S_SPEED, 32, t, b, 8192, d, 0)

static const struct cl_case cases[] = {
    CORRECT("forced-b1-s1-t1", S2S_FORCED, 1, 1, 1, 1001, SMALL, 1),
    CORRECT("forced-b5-s7-t9", S2S_FORCED, 7, 9, 5, 1001, MID, 1),
    CORRECT("greedy-b1-s1-t1", S2S_GREEDY, 1, 1, 1, 37, SMALL, 1),
    CORRECT("greedy-b3-s6-t12", S2S_GREEDY, 6, 12, 3, 1001, MID, 1),
    CORRECT("greedy-b64-s32-t32", S2S_GREEDY, 32, 32, 64, 8192, BIG, 0),
    /* the trained model on its held-out test set: sizes from the data */
    CASE("translate", CL_CASE_CORRECT, S2S_MODEL, 0, 0, 0, 0, 0, 0, 0),
    /* V = 8192, E = 256, H = 512, S = T = 32 */
    SPEED("b1", CL_CASE_SPEED, 32, 1, BIG),
    SPEED("b8", CL_CASE_SPEED, 32, 8, BIG),
    SPEED("b64", CL_CASE_SPEED, 32, 64, BIG),
    SPEED("b256", CL_CASE_SPEED, 32, 256, BIG),
    SPEED("b32", CL_CASE_BENCH, 32, 32, BIG),
    SPEED("b128", CL_CASE_BENCH, 32, 128, BIG),
    SPEED("b1-t128", CL_CASE_BENCH, 128, 1, BIG),
    CASE("examples", CL_CASE_DEMO, S2S_DEMO, 0, 0, 0, 0, 0, 0, 0),
};

#define MAX_ROWS   4  /* sentences checked against the CPU in a batch */
#define DEMO_LINES 12 /* examples the demo prints */

static int trained(const struct s2s_case *c)
{
    return c->kind == S2S_MODEL || c->kind == S2S_DEMO;
}

/* the trained model's sizes, and the test set as the batch */
static void bind_data(const struct cl_lab_data *d, void *arg)
{
    struct s2s_case *c = arg;
    if (!trained(c))
        return;
    c->S = d->S;
    c->T = d->T;
    c->B = c->kind == S2S_DEMO && d->n > DEMO_LINES ? DEMO_LINES : d->n;
    c->v_src = d->v_src;
    c->v_tgt = d->v_tgt;
    c->E = d->E;
    c->H = d->H;
}

/* logits carry FP32 rounding through S + T GRU steps and a long dot
 * product; TF32 or half precision is off by far more */
static struct cl_tolerance tolerance(int S, int T)
{
    double grow = 1.0 + sqrt((double)(S + T));
    struct cl_tolerance t = {3e-5 * grow, 1e-4, 1.5e-5 * grow};
    return t;
}

static int plan(const void *arg, struct cl_plan *p)
{
    const struct s2s_case *c = arg;
    int S = c->S, T = c->T, B = c->B, E = c->E, H = c->H, V = c->v_tgt;
    if (S < 1 || T < 1 || B < 1)
        return -1;
    cl_plan_buf(p, "model", CL_IN, CL_F32,
                cl_s2s_floats(c->v_src, c->v_tgt, E, H), 0);
    cl_plan_buf(p, "src", CL_IN, CL_I32, (size_t)S * B, 0);
    int ws = cl_plan_buf(p, "workspace", CL_WORK, CL_F32, 0, 0);
    p->buf[ws].ask = 1;
    if (c->kind == S2S_FORCED) {
        cl_plan_buf(p, "y_in", CL_IN, CL_I32, (size_t)T * B, 0);
        cl_plan_buf(p, "out", CL_OUT, CL_F32, (size_t)T * B * V, 0);
    } else {
        cl_plan_buf(p, "tokens", CL_OUT, CL_I32, (size_t)T * B, 0);
        cl_plan_buf(p, "logits", CL_OUT, CL_F32, (size_t)T * B, 0);
    }
    /* FLOPs of the model's products: encoder, decoder GRU, output layer */
    p->work = 2.0 * B *
              ((double)S * 3 * H * (E + H) +
               (double)T * (3.0 * H * (E + 2 * H) + (double)V * (E + 2 * H)));
    p->tol = tolerance(S, T);
    p->nobase = c->kind == S2S_FORCED || trained(c);
    p->versus = !p->nobase && B > MAX_ROWS;
    /* a decode may part from the baseline's at a near-tie: the check that
     * stops the judge's clock looks only that the outputs were written */
    p->sample_written_only = 1;
    return 0;
}

static void fill(const struct cl_fill *f, const void *arg, int call)
{
    const struct s2s_case *c = arg;
    (void)call;
    if (trained(c)) {
        const struct cl_lab_data *d = f->data;
        f->copy(f, S2S_ARENA, 0, d->model, d->floats * sizeof(float));
        for (int s = 0; s < c->S; s++) /* the first B sentences */
            f->copy(f, S2S_SRC, (size_t)s * c->B * 4, d->ids + (size_t)s * d->n,
                    (size_t)c->B * 4);
        return;
    }
    /* PyTorch's initialisation: embeddings uniform in [-1, 1), GRU and
     * linear weights in +-1/sqrt(fan) */
    struct s2s_slot sl[S2S_SLOTS];
    int n = cl_s2s_slots(c->v_src, c->v_tgt, c->E, c->H, sl);
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        size_t cnt = (size_t)(sl[i].rows * (sl[i].cols ? sl[i].cols : 1));
        float k = strstr(sl[i].name, "embedding") ? 1.0f
                  : strstr(sl[i].name, "fc_out")
                      ? 1.0f / sqrtf((float)(c->E + 2 * c->H))
                      : 1.0f / sqrtf((float)c->H);
        f->uniform(f, S2S_ARENA, off, cnt, 200 + (uint64_t)i, 0, -k, k);
        off += cnt;
    }
    f->ints(f, S2S_SRC, 0, (size_t)c->S * c->B, 1, c->v_src);
    if (c->kind == S2S_FORCED) {
        f->ints(f, S2S_IN, 0, (size_t)c->T * c->B, 2, c->v_tgt);
        int *sos = cl_xmalloc((size_t)c->B * sizeof *sos);
        for (int b = 0; b < c->B; b++)
            sos[b] = S2S_SOS;
        f->copy(f, S2S_IN, 0, sos, (size_t)c->B * sizeof *sos);
        free(sos);
    }
}

static struct seq2seq_model host_model(struct cl_check *ck)
{
    const struct s2s_case *c = ck->arg;
    return cl_s2s_model_at(cl_check_input(ck, S2S_ARENA, ck->call), c->v_src,
                           c->v_tgt, c->E, c->H);
}

/* The CPU reference of the checked sentences, a sentence a thread
 * (split.h): sentence rows[i]'s tokens at tokens + i * T, its logits at
 * logits + i * T * V. y_in: teacher forcing; NULL: greedy. */
struct rows_ref {
    const struct seq2seq_model *m;
    const int *src, *y_in, *rows;
    int S, B, T;
    int *tokens;
    double *logits;
};

static void rows_ref_part(void *ctx, size_t from, size_t to)
{
    const struct rows_ref *r = ctx;
    size_t T = (size_t)r->T, V = (size_t)r->m->v_tgt;
    for (size_t i = from; i < to; i++)
        seq2seq_ref(r->m, r->src, r->S, r->B, r->rows[i], r->T, S2S_SOS,
                    r->y_in, r->tokens + i * T, r->logits + i * T * V);
}

static void rows_ref(struct rows_ref *r, int n)
{
    r->tokens = cl_xmalloc((size_t)n * r->T * sizeof *r->tokens);
    r->logits = cl_xmalloc((size_t)n * r->T * r->m->v_tgt * sizeof *r->logits);
    cl_split((size_t)n, 1, rows_ref_part, r);
}

/* teacher forcing: every logit of the checked sentences */
static int check_forced(struct cl_check *ck)
{
    const struct s2s_case *c = ck->arg;
    int S = c->S, T = c->T, B = c->B, V = c->v_tgt, rows[8];
    struct seq2seq_model m = host_model(ck);
    const int *src = cl_check_input(ck, S2S_SRC, ck->call);
    const int *y_in = cl_check_input(ck, S2S_IN, ck->call);
    const float *got = cl_check_output(ck, S2S_OUT);
    int n = cl_check_rows(ck, B, 8, rows), bad = 0;
    struct rows_ref r = {&m, src, y_in, rows, S, B, T, NULL, NULL};
    rows_ref(&r, n);
    size_t *idx = cl_xmalloc((size_t)T * V * sizeof *idx);
    for (int i = 0; i < n && !bad; i++) {
        const double *ref = r.logits + (size_t)i * T * V;
        for (int t = 0; t < T; t++)
            for (int v = 0; v < V; v++)
                idx[(size_t)t * V + v] = ((size_t)t * B + rows[i]) * V + v;
        struct cl_compare cmp;
        cl_compare_f32(got, ref, idx, (size_t)T * V, &ck->plan->tol, &cmp);
        char what[160];
        snprintf(what, sizeof what,
                 "%slogits of sentence %d (index = (step * %d + sentence) * "
                 "%d + token)",
                 ck->when, rows[i], B, V);
        bad = cl_verdict(&cmp, what, ck->r);
    }
    free(r.tokens);
    free(r.logits);
    free(idx);
    return bad;
}

/* greedy: tokens and chosen logits of the checked sentences */
static int check_greedy(struct cl_check *ck)
{
    const struct s2s_case *c = ck->arg;
    int S = c->S, T = c->T, B = c->B, V = c->v_tgt, rows[MAX_ROWS], ties = 0;
    if (cl_check_written(ck, S2S_TOKENS) || cl_check_written(ck, S2S_LOGITS))
        return 1;
    struct seq2seq_model m = host_model(ck);
    const int *src = cl_check_input(ck, S2S_SRC, ck->call);
    const int *tok = cl_check_output(ck, S2S_TOKENS);
    const float *lg = cl_check_output(ck, S2S_LOGITS);
    int n = cl_check_rows(ck, B, MAX_ROWS, rows), bad = 0;
    struct rows_ref r = {&m, src, NULL, rows, S, B, T, NULL, NULL};
    rows_ref(&r, n);
    int *got = cl_xmalloc((size_t)T * sizeof *got);
    float *got_l = cl_xmalloc((size_t)T * sizeof *got_l);
    for (int i = 0; i < n && !bad; i++) {
        int b = rows[i], step;
        const int *ref = r.tokens + (size_t)i * T;
        const double *ref_l = r.logits + (size_t)i * T * V;
        for (int t = 0; t < T; t++) {
            got[t] = tok[(size_t)t * B + b];
            got_l[t] = lg[(size_t)t * B + b];
        }
        char why[400];
        double tie = ck->plan->tol.atol;
        int rc = seq2seq_compare_greedy(got, got_l, ref, ref_l, T, V, tie, tie,
                                        &step, why, sizeof why);
        ties += rc == 1;
        if (rc < 0) {
            ck->r->status = CL_ST_WRONG;
            snprintf(ck->r->msg, sizeof ck->r->msg, "%ssentence %d, %s",
                     ck->when, b, why);
            bad = 1;
        }
    }
    if (!bad && ties)
        snprintf(ck->r->msg, sizeof ck->r->msg,
                 "%d sentence(s) parted from the reference at a near-tie "
                 "(accepted)",
                 ties);
    free(r.tokens);
    free(r.logits);
    free(got);
    free(got_l);
    return bad;
}

/* the trained model: accuracy on the held-out set, or the demo's examples */
static int check_trained(struct cl_check *ck)
{
    const struct s2s_case *c = ck->arg;
    const struct cl_lab_data *d = ck->data;
    int S = c->S, T = c->T, B = c->B, mine = 0, theirs = 0;
    struct seq2seq_model m = host_model(ck);
    const int *src = cl_check_input(ck, S2S_SRC, ck->call);
    const int *tok = cl_check_output(ck, S2S_TOKENS);
    int *rows = cl_xmalloc((size_t)B * sizeof *rows);
    for (int b = 0; b < B; b++)
        rows[b] = b;
    struct rows_ref r = {&m, src, NULL, rows, S, B, T, NULL, NULL};
    rows_ref(&r, B);
    char out[400], ref[400];
    int demo = c->kind == S2S_DEMO;
    if (demo)
        printf("%-44s  %-48s  %s\n", "source", "your output", "reference");
    for (int b = 0; b < B; b++) {
        cl_s2s_words(&d->tgt, tok + b, T, B, out, sizeof out);
        cl_s2s_words(&d->tgt, r.tokens + (size_t)b * T, T, 1, ref, sizeof ref);
        mine += strcmp(out, d->line[b][1]) == 0;
        theirs += strcmp(ref, d->line[b][1]) == 0;
        if (demo)
            printf("%-44s  %-48s  %s%s\n", d->line[b][0], out, d->line[b][1],
                   strcmp(out, d->line[b][1]) ? "   <-- differs" : "");
    }
    free(rows);
    free(r.tokens);
    free(r.logits);
    if (demo) {
        fflush(stdout);
        snprintf(ck->r->msg, sizeof ck->r->msg,
                 "%d of %d examples translated right", mine, B);
        return 0;
    }
    double a = 100.0 * mine / B, ra = 100.0 * theirs / B;
    snprintf(ck->r->msg, sizeof ck->r->msg,
             "exact match on %d held-out sentences: %.2f%% (the reference: "
             "%.2f%%)",
             B, a, ra);
    if (fabs(a - ra) <= 0.5)
        return 0;
    ck->r->status = CL_ST_WRONG;
    return 1;
}

static int check(struct cl_check *ck)
{
    const struct s2s_case *c = ck->arg;
    return c->kind == S2S_FORCED ? check_forced(ck)
           : trained(c)          ? check_trained(ck)
                                 : check_greedy(ck);
}

/* every sentence against the pipeline's decode, with the same near-tie
 * rule: a token may differ only where both logits are within the
 * tolerance, and that sentence is compared no further */
static int versus(struct cl_vs *v)
{
    const struct s2s_case *c = v->ck.arg;
    int T = c->T, B = c->B;
    double tol = v->scale * v->ck.plan->tol.atol;
    if (cl_check_written(&v->ck, S2S_TOKENS) ||
        cl_check_written(&v->ck, S2S_LOGITS))
        return 1;
    const int *tok = cl_check_output(&v->ck, S2S_TOKENS);
    const float *lg = cl_check_output(&v->ck, S2S_LOGITS);
    const int *bt = cl_vs_baseline(v, S2S_TOKENS);
    const float *bl = cl_vs_baseline(v, S2S_LOGITS);
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++) {
            size_t i = (size_t)t * B + b;
            double gap = fabs((double)lg[i] - bl[i]);
            int near = gap <= tol + v->ck.plan->tol.rtol * fabs((double)bl[i]);
            if (tok[i] != bt[i] && near)
                break; /* parted at a near-tie: legitimately different */
            if (tok[i] == bt[i] && near)
                continue;
            v->ck.r->status = CL_ST_WRONG;
            snprintf(v->ck.r->msg, sizeof v->ck.r->msg,
                     "%ssentence %d, step %d: token %d (logit %.7g) where the "
                     "pipeline chose %d (logit %.7g) on the same model",
                     v->ck.when, b, t, tok[i], lg[i], bt[i], bl[i]);
            return 1;
        }
    return 0;
}

// ---- the baseline: the pipeline, eager and in a CUDA graph
// -------------------

struct pipe {
    struct cl_pipeline *p;
    int graph_ok;
    char why[256];
};

static void *pipe_create(const struct cl_base_ctx *b, char *why, size_t len)
{
    const struct s2s_case *c = b->arg;
    struct pipe *p = cl_xcalloc(1, sizeof *p);
    struct seq2seq_model m =
        cl_s2s_model_at(b->in[S2S_ARENA], c->v_src, c->v_tgt, c->E, c->H);
    p->p = cl_pipeline_create(cl_judge_cudnn(), cl_judge_cublas(), &m,
                              b->in[S2S_SRC], c->S, c->T, c->B,
                              b->out[S2S_TOKENS], b->out[S2S_LOGITS], why, len);
    if (!p->p) {
        free(p);
        return NULL;
    }
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    p->graph_ok = cl_pipeline_capture(p->p, s, p->why, sizeof p->why) == 0;
    CUDA_CHECK(cudaStreamDestroy(s));
    return p;
}

static const char *pipe_name(void *st, int i)
{
    (void)st;
    return i == 0 ? "eager" : "CUDA graph";
}

static int pipe_usable(void *st, int i, char *why, size_t len)
{
    struct pipe *p = st;
    if (i == 1 && !p->graph_ok)
        snprintf(why, len, "graph capture failed: %s", p->why);
    return i == 0 || p->graph_ok;
}

static void pipe_prepare(void *st, int call)
{
    (void)call;
    cl_pipeline_repack(((struct pipe *)st)->p);
}

static int pipe_run(void *st, int i, cudaStream_t s)
{
    struct pipe *p = st;
    if (i == 0)
        cl_pipeline_eager(p->p, s);
    else
        cl_pipeline_graph(p->p, s);
    return 0;
}

static void pipe_destroy(void *st)
{
    struct pipe *p = st;
    cl_pipeline_destroy(p->p);
    free(p);
}

static const struct cl_baseline pipeline = {.count = 2,
                                            .create = pipe_create,
                                            .name = pipe_name,
                                            .usable = pipe_usable,
                                            .prepare = pipe_prepare,
                                            .run = pipe_run,
                                            .destroy = pipe_destroy};

const struct cl_lab cl_lab_seq2seq = {
    .id = "06",
    .slug = "seq2seq",
    .title = "Seq2seq: greedy decoding, encoder to argmax",
    .source = "labs/06-seq2seq/seq2seq.cu",
    .todo = "TODO(lab6)",
    .caps = &cl_caps_cublas_allowed,
    .baseline = "cuDNN pipeline",
    .ceiling = NULL,
    .metric = CL_METRIC_TFLOPS,
    .needs_gpu = 1,
    .profile_case = "b1",
    .cases = cases,
    .ncases = (int)(sizeof cases / sizeof cases[0]),
    .arg_size = sizeof(struct s2s_case),
    .plan = plan,
    .fill = fill,
    .check = check,
    .versus = versus,
    .base = &pipeline,
    .load_data = cl_s2s_load,
    .bind_data = bind_data,
};
