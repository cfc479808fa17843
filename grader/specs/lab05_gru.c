/*
 * Lab 5 spec: a GRU forward pass against cuDNN.
 *
 * Part A (gru_cell) is one step; part B (gru_forward) whole sequences
 * through stacked layers. Inputs are uniform in [-1, 1), weights and
 * biases uniform in [-1/sqrt(H), 1/sqrt(H)] (PyTorch's initialisation). The
 * reference is a double CPU GRU on up to 8 batch rows picked after the
 * call; every element of every row is compared with cuDNN's output on the
 * same weights, whose own rows are checked against the same reference, so
 * the definition the student is held to is cuDNN's.
 *
 * Baseline: cudnnRNNForward, inference, CUDNN_FMA_MATH, every algorithm
 * cuDNN supports for the shape (standard, persist-static,
 * persist-dynamic); all are timed and the fastest is the baseline.
 */
#include "specs/baselines.h"
#include "specs/labs.h"
#include "protocol/glue.h"
#include "judge/spec.h"
#include "specs/refs.h"

#include <cudnn.h>

#include "errcheck.h"
#include "split.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CELL(nm, b, i, h, q)                                                   \
    {                                                                          \
        .name = nm, .kind = CL_CASE_CORRECT,                                   \
        .arg =                                                                 \
            &(const struct gru_case){                                          \
                .part = GRU_CELL, .T = 1, .B = b, .I = i, .H = h, .L = 1},     \
        .quick = q                                                             \
    }
#define FWD(nm, kd, t, b, i, h, l, q)                                          \
    {                                                                          \
        .name = nm, .kind = kd,                                                \
        .arg =                                                                 \
            &(const struct gru_case){                                          \
                .part = GRU_FWD, .T = t, .B = b, .I = i, .H = h, .L = l},      \
        .quick = q                                                             \
    }

static const struct cl_case cases[] = {
    CELL("cell-b1-h100", 1, 64, 100, 1),
    CELL("cell-b5-i200-h160", 5, 200, 160, 1),
    CELL("cell-b64-i768-h512", 64, 768, 512, 0),
    FWD("t1-b1-l1-h100", CL_CASE_CORRECT, 1, 1, 32, 100, 1, 1),
    FWD("t7-b3-l3-h100", CL_CASE_CORRECT, 7, 3, 48, 100, 3, 1),
    FWD("t64-b2-i40-h96", CL_CASE_CORRECT, 64, 2, 40, 96, 2, 0),
    FWD("t5-b37-l2-h512", CL_CASE_CORRECT, 5, 37, 256, 512, 2, 0),
    FWD("t32-b8-l2-h512", CL_CASE_CORRECT, 32, 8, 256, 512, 2, 0),
    /* the headline shape, T = 32, I = 256, H = 512, two layers */
    FWD("t32-b1", CL_CASE_SPEED, 32, 1, 256, 512, 2, 0),
    FWD("t32-b8", CL_CASE_SPEED, 32, 8, 256, 512, 2, 0),
    FWD("t32-b64", CL_CASE_SPEED, 32, 64, 256, 512, 2, 0),
    FWD("t32-b256", CL_CASE_SPEED, 32, 256, 256, 512, 2, 0),
    /* one step of Lab 6's decoder: input [embedding; context] */
    FWD("decoder-step", CL_CASE_SPEED, 1, 1, 768, 512, 1, 0),
    /* the sweep of make bench: timed, never scored */
    FWD("t32-b32", CL_CASE_BENCH, 32, 32, 256, 512, 2, 0),
    FWD("t32-b128", CL_CASE_BENCH, 32, 128, 256, 512, 2, 0),
    FWD("t128-b1", CL_CASE_BENCH, 128, 1, 256, 512, 2, 0),
    FWD("t32-b1-h1024", CL_CASE_BENCH, 32, 1, 1024, 1024, 2, 0),
    FWD("t32-b64-h1024", CL_CASE_BENCH, 32, 64, 1024, 1024, 2, 0),
    FWD("t32-b1-l4", CL_CASE_BENCH, 32, 1, 512, 512, 4, 0),
};

#define MAX_ROWS 8 /* batch rows checked against the CPU, at most */

static const char *const weight_names[GRU_MAX_LAYERS] = {
    "weights of layer 0", "weights of layer 1", "weights of layer 2",
    "weights of layer 3", "weights of layer 4", "weights of layer 5",
    "weights of layer 6", "weights of layer 7"};

static int plan(const void *arg, struct cl_plan *p)
{
    const struct gru_case *c = arg;
    int cell = c->part == GRU_CELL, T = c->T, B = c->B, H = c->H, L = c->L;
    if (L < 1 || L > GRU_MAX_LAYERS)
        return -1;
    cl_plan_buf(p, "x", CL_IN, CL_F32, (size_t)T * B * c->I, 0);
    cl_plan_buf(p, cell ? "h" : "h0", CL_IN, CL_F32, (size_t)L * B * H, 0);
    cl_plan_buf(p, cell ? "h_new" : "y", CL_OUT, CL_F32, (size_t)T * B * H, 0);
    if (!cell) {
        cl_plan_buf(p, "h_n", CL_OUT, CL_F32, (size_t)L * B * H, 0);
        int ws = cl_plan_buf(p, "workspace", CL_WORK, CL_F32, 0, 0);
        p->buf[ws].ask = 1;
    }
    for (int l = 0; l < L; l++)
        cl_plan_buf(p, weight_names[l], CL_IN, CL_F32,
                    cl_gru_arena_floats(l ? H : c->I, H), 0);
    /* FLOPs of the products: the input and recurrent GEMMs of each layer */
    p->work = T * 2.0 * B * 3.0 * H *
              ((double)(c->I + H) + (L - 1) * 2.0 * (double)H);
    /* FP32 rounding through T steps and L layers grows roughly as the
     * square root of the step count; half precision (2^-11) or TF32 is off
     * by far more */
    double grow = 1.0 + sqrt((double)T * L);
    p->tol = (struct cl_tolerance){2e-5 * grow, 1e-4, 1e-5 * grow};
    p->versus = 1;
    return 0;
}

static void fill(const struct cl_fill *f, const void *arg, int call)
{
    const struct gru_case *c = arg;
    float k = 1.0f / sqrtf((float)c->H);
    (void)call;
    f->uniform(f, GRU_X, 0, (size_t)c->T * c->B * c->I, 1, 0, -1.0f, 1.0f);
    f->uniform(f, GRU_H, 0, (size_t)c->L * c->B * c->H, 2, 0, -1.0f, 1.0f);
    for (int l = 0; l < c->L; l++)
        f->uniform(f, cl_gru_weights_buf(c, l), 0,
                   cl_gru_arena_floats(l ? c->H : c->I, c->H),
                   100 + (uint64_t)l, 0, -k, k);
}

/* got (steps of B x H) against the reference of the checked rows */
static int check_rows(struct cl_check *ck, int buf, const double *ref,
                      int steps, const int *rows, int nrows)
{
    const struct gru_case *c = ck->arg;
    int B = c->B, H = c->H;
    if (cl_check_written(ck, buf))
        return 1;
    size_t n = (size_t)steps * nrows * H;
    size_t *idx = cl_xmalloc(n * sizeof *idx);
    double *want = cl_xmalloc(n * sizeof *want);
    size_t k = 0;
    for (int t = 0; t < steps; t++)
        for (int i = 0; i < nrows; i++)
            for (int j = 0; j < H; j++, k++) {
                idx[k] = ((size_t)t * B + rows[i]) * H + j;
                want[k] = ref[((size_t)i * steps + t) * H + j];
            }
    struct cl_compare cmp;
    cl_compare_f32(cl_check_output(ck, buf), want, idx, n, &ck->plan->tol,
                   &cmp);
    char where[200];
    snprintf(where, sizeof where,
             "%s%s (index = (step * %d + batch) * %d + unit)", ck->when,
             ck->plan->buf[buf].name, B, H);
    int bad = cl_verdict(&cmp, where, ck->r);
    free(idx);
    free(want);
    return bad;
}

/* the CPU reference of the checked rows, a row a thread (split.h) */
struct rows_ref {
    const struct gru_case *c;
    const float *x, *h0;
    const struct gru_weights *w;
    const int *rows;
    double *y, *hn;
};

static void rows_ref_part(void *ctx, size_t from, size_t to)
{
    const struct rows_ref *r = ctx;
    const struct gru_case *c = r->c;
    for (size_t i = from; i < to; i++)
        gru_forward_ref(r->x, r->h0, r->w, c->T, c->B, c->I, c->H, c->L,
                        r->rows[i], r->y + i * c->T * c->H,
                        r->hn + i * c->L * c->H);
}

static int check(struct cl_check *ck)
{
    const struct gru_case *c = ck->arg;
    int T = c->T, B = c->B, I = c->I, H = c->H, L = c->L, rows[MAX_ROWS];
    int n = cl_check_rows(ck, B, MAX_ROWS, rows);
    const float *x = cl_check_input(ck, GRU_X, ck->call);
    const float *h0 = cl_check_input(ck, GRU_H, ck->call);
    struct gru_weights w[GRU_MAX_LAYERS];
    for (int l = 0; l < L; l++)
        w[l] = cl_gru_weights_at(
            cl_check_input(ck, cl_gru_weights_buf(c, l), ck->call), l ? H : I,
            H);
    double *y = cl_xmalloc((size_t)n * T * H * sizeof *y);
    double *hn = cl_xmalloc((size_t)n * L * H * sizeof *hn);
    struct rows_ref r = {c, x, h0, w, rows, y, hn};
    cl_split((size_t)n, 1, rows_ref_part, &r);
    int bad = check_rows(ck, GRU_OUT, y, T, rows, n) ||
              (c->part == GRU_FWD && check_rows(ck, GRU_HN, hn, L, rows, n));
    free(y);
    free(hn);
    return bad;
}

// ---- the baseline: cuDNN, every algorithm it offers for the shape -----------

struct dnn {
    struct cl_cudnn_gru *g[CL_GRU_ALGOS];
    char why[CL_GRU_ALGOS][160];
    struct gru_weights w[GRU_MAX_LAYERS];
    struct cl_cudnn_gru_call call;
    float *hn_scratch; /* a cell has no h_n of its own */
};

static void *dnn_create(const struct cl_base_ctx *b, char *why, size_t len)
{
    const struct gru_case *c = b->arg;
    struct dnn *d = cl_xcalloc(1, sizeof *d);
    for (int l = 0; l < c->L; l++)
        d->w[l] = cl_gru_weights_at(b->in[cl_gru_weights_buf(c, l)],
                                    l ? c->H : c->I, c->H);
    float *hn =
        b->out[GRU_HN < b->plan->nbuf && c->part == GRU_FWD ? GRU_HN : GRU_OUT];
    if (c->part == GRU_CELL) {
        CUDA_CHECK(cudaMalloc((void **)&d->hn_scratch,
                              (size_t)c->B * c->H * sizeof(float)));
        hn = d->hn_scratch;
    }
    struct cl_cudnn_gru_call call = {NULL, b->in[GRU_X], b->in[GRU_H],
                                     b->out[GRU_OUT], hn};
    d->call = call;
    for (int a = 0; a < CL_GRU_ALGOS; a++)
        d->g[a] =
            cl_cudnn_gru_create(cl_judge_cudnn(), a, c->T, c->B, c->I, c->H,
                                c->L, d->w, d->why[a], sizeof d->why[a]);
    if (!d->g[CL_GRU_STANDARD]) {
        snprintf(why, len, "cuDNN refused its standard algorithm: %s",
                 d->why[CL_GRU_STANDARD]);
        return NULL;
    }
    return d;
}

static const char *dnn_name(void *st, int i)
{
    (void)st;
    return cl_gru_algo_name(i);
}

static int dnn_usable(void *st, int i, char *why, size_t len)
{
    struct dnn *d = st;
    if (!d->g[i])
        snprintf(why, len, "%s", d->why[i]);
    return d->g[i] != NULL;
}

static void dnn_prepare(void *st, int call)
{
    struct dnn *d = st;
    (void)call;
    for (int a = 0; a < CL_GRU_ALGOS; a++)
        if (d->g[a])
            cl_cudnn_gru_repack(d->g[a], d->w);
}

static int dnn_run(void *st, int i, cudaStream_t s)
{
    struct dnn *d = st;
    struct cl_cudnn_gru_call *c = &d->call;
    return cl_cudnn_gru_forward(d->g[i], c->x, c->h0, c->y, c->h_n, s);
}

static void dnn_destroy(void *st)
{
    struct dnn *d = st;
    for (int a = 0; a < CL_GRU_ALGOS; a++)
        cl_cudnn_gru_destroy(d->g[a]);
    if (d->hn_scratch)
        CUDA_CHECK(cudaFree(d->hn_scratch));
    free(d);
}

static const struct cl_baseline dnn = {.count = CL_GRU_ALGOS,
                                       .create = dnn_create,
                                       .name = dnn_name,
                                       .usable = dnn_usable,
                                       .prepare = dnn_prepare,
                                       .run = dnn_run,
                                       .destroy = dnn_destroy};

const struct cl_lab cl_lab_gru = {
    .id = "05",
    .slug = "gru",
    .title = "GRU: a fused cell and a persistent layer",
    .source = "labs/05-gru/gru.cu",
    .todo = "TODO(lab5)",
    .caps = &cl_caps_cublas_allowed,
    .baseline = "best cuDNN",
    .ceiling = NULL,
    .metric = CL_METRIC_TFLOPS,
    .needs_gpu = 1,
    .profile_case = "t32-b64",
    .cases = cases,
    .ncases = (int)(sizeof cases / sizeof cases[0]),
    .arg_size = sizeof(struct gru_case),
    .plan = plan,
    .fill = fill,
    .check = check,
    .base = &dnn,
};
