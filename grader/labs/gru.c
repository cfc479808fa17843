/*
 * Lab 5 spec: a GRU forward pass against cuDNN.
 *
 * Part A (gru_cell) is checked on one step; part B (gru_forward) on whole
 * sequences through stacked layers, and timed. Inputs are uniform in
 * [-1, 1), weights and biases uniform in [-1/sqrt(H), 1/sqrt(H)] (PyTorch's
 * initialisation). The reference is a double CPU GRU; batch rows are
 * independent, so large batches are checked on 8 rows spread over the
 * batch (every element is still checked for being written). cuDNN's own
 * output on the same weights is checked against the same reference on
 * every sequence case, so the definition the student is held to is
 * cuDNN's.
 *
 * Baseline: cudnnRNNForward, inference, CUDNN_FMA_MATH, with every
 * algorithm cuDNN supports for the shape (standard, persist-static,
 * persist-dynamic); all are timed and the fastest is the baseline.
 */
#include "baselines.h"
#include "gru.h"
#include "labkit.h"
#include "refs.h"
#include "rng.h"

#include <cudnn.h>

#include "errcheck.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// cases: p = {part, T, B, I, H, L}

enum { P_CELL, P_FWD };

#define CELL(name, b, i, h, pts, quick)                                        \
    {                                                                          \
        name, CL_CASE_CORRECT, pts, {P_CELL, 1, b, i, h, 1}, quick, 0,         \
            CL_VS_DEFAULT                                                      \
    }
#define FWD(name, kind, t, b, i, h, l, pts, quick)                             \
    {                                                                          \
        name, kind, pts, {P_FWD, t, b, i, h, l}, quick, 0, CL_VS_DEFAULT       \
    }

static const struct cl_case cases[] = {
    CELL("cell-b1-h100", 1, 64, 100, 6, 1),
    CELL("cell-b5-i200-h160", 5, 200, 160, 6, 1),
    CELL("cell-b64-i768-h512", 64, 768, 512, 6, 0),
    FWD("t1-b1-l1-h100", CL_CASE_CORRECT, 1, 1, 32, 100, 1, 6, 1),
    FWD("t7-b3-l3-h100", CL_CASE_CORRECT, 7, 3, 48, 100, 3, 7, 1),
    FWD("t64-b2-i40-h96", CL_CASE_CORRECT, 64, 2, 40, 96, 2, 6, 0),
    FWD("t5-b37-l2-h512", CL_CASE_CORRECT, 5, 37, 256, 512, 2, 6, 0),
    FWD("t32-b8-l2-h512", CL_CASE_CORRECT, 32, 8, 256, 512, 2, 7, 0),
    /* the headline shape, T = 32, I = 256, H = 512, two layers */
    FWD("t32-b1", CL_CASE_SPEED, 32, 1, 256, 512, 2, 14, 0),
    FWD("t32-b8", CL_CASE_SPEED, 32, 8, 256, 512, 2, 8, 0),
    FWD("t32-b64", CL_CASE_SPEED, 32, 64, 256, 512, 2, 14, 0),
    FWD("t32-b256", CL_CASE_SPEED, 32, 256, 256, 512, 2, 6, 0),
    /* one step of Lab 6's decoder: input [embedding; context] */
    FWD("decoder-step", CL_CASE_SPEED, 1, 1, 768, 512, 1, 8, 0),
    /* the sweep of make bench: timed, never scored */
    FWD("t32-b32", CL_CASE_BENCH, 32, 32, 256, 512, 2, 0, 0),
    FWD("t32-b128", CL_CASE_BENCH, 32, 128, 256, 512, 2, 0, 0),
    FWD("t128-b1", CL_CASE_BENCH, 128, 1, 256, 512, 2, 0, 0),
    FWD("t32-b1-h1024", CL_CASE_BENCH, 32, 1, 1024, 1024, 2, 0, 0),
    FWD("t32-b64-h1024", CL_CASE_BENCH, 32, 64, 1024, 1024, 2, 0, 0),
    FWD("t32-b1-l4", CL_CASE_BENCH, 32, 1, 512, 512, 4, 0, 0),
};

#define MAX_ROWS 8 /* batch rows checked against the CPU, at most */

// ----------------------------------------------------------------------------
// CPU reference (double)

static double sigmoid(double v)
{
    return 1.0 / (1.0 + exp(-v));
}

void gru_cell_ref(const double *x, const double *h, double *h_new,
                  const struct gru_weights *w, int I, int H)
{
    for (int j = 0; j < H; j++) {
        double gi[3], gh[3];
        for (int g = 0; g < 3; g++) {
            const float *wi = w->w_ih + ((size_t)g * H + j) * I;
            const float *wh = w->w_hh + ((size_t)g * H + j) * H;
            double si = w->b_ih[g * H + j], sh = w->b_hh[g * H + j];
            for (int k = 0; k < I; k++)
                si += (double)wi[k] * x[k];
            for (int k = 0; k < H; k++)
                sh += (double)wh[k] * h[k];
            gi[g] = si;
            gh[g] = sh;
        }
        double r = sigmoid(gi[0] + gh[0]);
        double z = sigmoid(gi[1] + gh[1]);
        double n = tanh(gi[2] + r * gh[2]);
        h_new[j] = (1.0 - z) * n + z * h[j];
    }
}

void gru_forward_ref(const float *x, const float *h0,
                     const struct gru_weights *layers, int T, int B, int I,
                     int H, int L, int b, double *y, double *h_n)
{
    int width = I > H ? I : H;
    double *in = cl_xmalloc((size_t)T * width * sizeof *in);
    double *out = cl_xmalloc((size_t)T * H * sizeof *out);
    double *h = cl_xmalloc((size_t)H * sizeof *h);
    for (int t = 0; t < T; t++)
        for (int k = 0; k < I; k++)
            in[(size_t)t * width + k] = x[((size_t)t * B + b) * I + k];
    for (int l = 0; l < L; l++) {
        int In = l ? H : I;
        for (int k = 0; k < H; k++)
            h[k] = h0[((size_t)l * B + b) * H + k];
        for (int t = 0; t < T; t++) {
            gru_cell_ref(in + (size_t)t * width, h, out + (size_t)t * H,
                         &layers[l], In, H);
            memcpy(h, out + (size_t)t * H, (size_t)H * sizeof *h);
        }
        memcpy(h_n + (size_t)l * H, h, (size_t)H * sizeof *h);
        for (int t = 0; t < T; t++)
            memcpy(in + (size_t)t * width, out + (size_t)t * H,
                   (size_t)H * sizeof *in);
    }
    memcpy(y, out, (size_t)T * H * sizeof *y);
    free(in);
    free(out);
    free(h);
}

// ----------------------------------------------------------------------------
// state

struct state {
    gru_cell_fn cell;
    gru_workspace_size_fn ws_size;
    gru_forward_fn forward;
    cudnnHandle_t dnn;
};

static void *setup(void *lib, char *err, size_t len)
{
    struct state *s = cl_xcalloc(1, sizeof *s);
    if (!(s->cell = (gru_cell_fn)cl_entry_point(lib, "gru_cell", err, len)) ||
        !(s->ws_size = (gru_workspace_size_fn)cl_entry_point(
              lib, "gru_workspace_size", err, len)) ||
        !(s->forward =
              (gru_forward_fn)cl_entry_point(lib, "gru_forward", err, len))) {
        free(s);
        return NULL;
    }
    CUDNN_CHECK(cudnnCreate(&s->dnn));
    return s;
}

static void teardown(void *p)
{
    struct state *s = p;
    if (!s)
        return;
    CUDNN_CHECK(cudnnDestroy(s->dnn));
    free(s);
}

// ----------------------------------------------------------------------------
// the model's weights: one guarded arena per layer, w_ih | w_hh | b_ih | b_hh

struct model {
    int L;
    struct cl_dbuf arena[8];
    float *host[8];
    struct gru_weights dev[8], cpu[8];
};

static void model_create(struct model *m, const struct cl_ctx *ctx, int I,
                         int H, int L)
{
    float k = 1.0f / sqrtf((float)H);
    m->L = L;
    for (int l = 0; l < L; l++) {
        size_t in = l ? (size_t)H : (size_t)I;
        size_t n_ih = 3 * (size_t)H * in, n_hh = 3 * (size_t)H * H;
        size_t n = n_ih + n_hh + 6 * (size_t)H;
        m->host[l] = cl_xmalloc(n * sizeof(float));
        cl_fill_uniform_host(m->host[l], n, ctx->seed, 100 + (uint64_t)l, -k,
                             k);
        cl_dbuf_create(&m->arena[l], n * sizeof(float), 0);
        cl_dbuf_arm(&m->arena[l], ctx->stream);
        CUDA_CHECK(cudaMemcpy(m->arena[l].ptr, m->host[l], n * sizeof(float),
                              cudaMemcpyHostToDevice));
        const float *h = m->host[l], *d = m->arena[l].ptr;
        size_t off[4] = {0, n_ih, n_ih + n_hh, n_ih + n_hh + 3 * (size_t)H};
        struct gru_weights cw = {h + off[0], h + off[1], h + off[2],
                                 h + off[3]};
        struct gru_weights dw = {d + off[0], d + off[1], d + off[2],
                                 d + off[3]};
        m->cpu[l] = cw;
        m->dev[l] = dw;
    }
}

static void model_destroy(struct model *m, int free_device)
{
    for (int l = 0; l < m->L; l++) {
        if (free_device)
            cl_dbuf_destroy(&m->arena[l]);
        free(m->host[l]);
    }
}

static int model_guards(struct model *m, cudaStream_t s, struct cl_result *r)
{
    static const char *const names[] = {
        "weights of layer 0", "weights of layer 1", "weights of layer 2",
        "weights of layer 3", "weights of layer 4", "weights of layer 5",
        "weights of layer 6", "weights of layer 7"};
    const struct cl_dbuf *bufs[8];
    for (int l = 0; l < m->L; l++)
        bufs[l] = &m->arena[l];
    return cl_check_guards(bufs, names, m->L, sizeof(float), s, r);
}

// ----------------------------------------------------------------------------
// checking: the rows compared with the CPU, tolerance

/* FP32 rounding through T steps and L layers grows roughly as the square
 * root of the step count; half precision (2^-11) or TF32 (2^-11 on every
 * product) is off by far more */
static struct cl_tolerance tolerance(int T, int L)
{
    double grow = 1.0 + sqrt((double)T * L);
    struct cl_tolerance t = {2e-5 * grow, 1e-4, 1e-5 * grow};
    return t;
}

/* got (rows of H floats at stride) against ref, on the checked batch rows */
static int check_rows(const float *h_got, size_t total, const double *ref,
                      int steps, int B, int H, const int *rows, int nrows,
                      const struct cl_tolerance *tol, const char *what,
                      struct cl_result *r)
{
    size_t first = 0, unwritten = cl_count_poison_f32(h_got, total, &first);
    if (unwritten) {
        r->status = CL_ST_WRONG;
        snprintf(r->msg, sizeof r->msg,
                 "%s: %zu of %zu elements never written; the first at "
                 "[%zu][%zu][%zu]",
                 what, unwritten, total, first / ((size_t)B * H), first / H % B,
                 first % H);
        return 1;
    }
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
    cl_compare_f32(h_got, want, idx, n, tol, &cmp);
    char where[160];
    snprintf(where, sizeof where,
             "%s (index = (step * %d + batch) * %d + unit)", what, B, H);
    int bad = cl_verdict(&cmp, where, r);
    free(idx);
    free(want);
    return bad;
}

// ----------------------------------------------------------------------------
// part A: one cell

static void run_cell(struct state *st, const struct cl_ctx *ctx,
                     const struct cl_case *cs, struct cl_result *r)
{
    int B = (int)cs->p[2], I = (int)cs->p[3], H = (int)cs->p[4];
    cudaStream_t s = ctx->stream;
    struct model m;
    struct cl_dbuf x, h, out;
    model_create(&m, ctx, I, H, 1);
    float *hx = cl_input_create(&x, (size_t)B * I, 0, ctx, 1);
    float *hh = cl_input_create(&h, (size_t)B * H, 0, ctx, 2);
    cl_output_create(&out, (size_t)B * H, 0, ctx);
    const struct cl_dbuf *bufs[] = {&x, &h, &out};
    const char *names[] = {"x", "h", "h_new"};

    cl_profile_mark(ctx, 1);
    st->cell(x.ptr, h.ptr, out.ptr, &m.dev[0], B, I, H, s);
    cl_profile_mark(ctx, 0);
    if (cl_student_error(s, "in gru_cell", r) ||
        cl_check_guards(bufs, names, 3, sizeof(float), s, r) ||
        model_guards(&m, s, r))
        goto done;

    int rows[MAX_ROWS], nrows = cl_spread_indices(B, MAX_ROWS, rows);
    double *ref = cl_xmalloc((size_t)nrows * H * sizeof *ref);
    double *xd = cl_xmalloc((size_t)I * sizeof *xd);
    double *hd = cl_xmalloc((size_t)H * sizeof *hd);
    for (int i = 0; i < nrows; i++) {
        for (int k = 0; k < I; k++)
            xd[k] = hx[(size_t)rows[i] * I + k];
        for (int k = 0; k < H; k++)
            hd[k] = hh[(size_t)rows[i] * H + k];
        gru_cell_ref(xd, hd, ref + (size_t)i * H, &m.cpu[0], I, H);
    }
    float *got = cl_xmalloc((size_t)B * H * sizeof *got);
    CUDA_CHECK(cudaMemcpy(got, out.ptr, (size_t)B * H * sizeof *got,
                          cudaMemcpyDeviceToHost));
    struct cl_tolerance tol = tolerance(1, 1);
    if (!check_rows(got, (size_t)B * H, ref, 1, B, H, rows, nrows, &tol,
                    "h_new", r))
        r->status = CL_ST_PASS;
    free(got);
    free(ref);
    free(xd);
    free(hd);

done:
    if (!r->restart) {
        for (int i = 0; i < 3; i++)
            cl_dbuf_destroy((struct cl_dbuf *)bufs[i]);
    }
    model_destroy(&m, !r->restart);
    free(hx);
    free(hh);
}

// ----------------------------------------------------------------------------
// part B: a sequence

struct call {
    struct state *st;
    const float *x, *h0;
    float *y, *hn;
    const struct gru_weights *layers;
    int T, B, I, H, L;
    void *ws;
    size_t ws_bytes;
};

static void run_student(void *p, cudaStream_t s)
{
    struct call *c = p;
    c->st->forward(c->x, c->h0, c->y, c->hn, c->layers, c->T, c->B, c->I, c->H,
                   c->L, c->ws, c->ws_bytes, s);
}

/* the reference of the checked rows: y as (row, T, H), h_n as (row, L, H) */
struct fwd_ref {
    int rows[MAX_ROWS], nrows;
    double *y, *hn;
};

static void fwd_ref_create(struct fwd_ref *f, const float *hx, const float *hh0,
                           const struct model *m, int T, int B, int I, int H,
                           int L)
{
    f->nrows = cl_spread_indices(B, MAX_ROWS, f->rows);
    f->y = cl_xmalloc((size_t)f->nrows * T * H * sizeof *f->y);
    f->hn = cl_xmalloc((size_t)f->nrows * L * H * sizeof *f->hn);
    for (int i = 0; i < f->nrows; i++)
        gru_forward_ref(hx, hh0, m->cpu, T, B, I, H, L, f->rows[i],
                        f->y + (size_t)i * T * H, f->hn + (size_t)i * L * H);
}

/* y and h_n of a call against the reference */
static int check_forward(const struct call *c, const struct fwd_ref *f,
                         const char *who, struct cl_result *r)
{
    size_t ny = (size_t)c->T * c->B * c->H, nh = (size_t)c->L * c->B * c->H;
    float *gy = cl_xmalloc(ny * sizeof *gy), *gh = cl_xmalloc(nh * sizeof *gh);
    CUDA_CHECK(cudaMemcpy(gy, c->y, ny * sizeof *gy, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(gh, c->hn, nh * sizeof *gh, cudaMemcpyDeviceToHost));
    struct cl_tolerance tol = tolerance(c->T, c->L);
    char what[64];
    snprintf(what, sizeof what, "%sy", who);
    int bad = check_rows(gy, ny, f->y, c->T, c->B, c->H, f->rows, f->nrows,
                         &tol, what, r);
    snprintf(what, sizeof what, "%sh_n", who);
    if (!bad)
        bad = check_rows(gh, nh, f->hn, c->L, c->B, c->H, f->rows, f->nrows,
                         &tol, what, r);
    free(gy);
    free(gh);
    return bad;
}

/* cuDNN on the same inputs, checked against the same reference: a grader
 * whose reference disagreed with cuDNN must not grade anyone */
struct dnn {
    struct cl_cudnn_gru *g[CL_GRU_ALGOS];
    struct cl_cudnn_gru_call call[CL_GRU_ALGOS];
    char why[CL_GRU_ALGOS][256];
    struct cl_dbuf y, hn;
};

static int dnn_create(struct dnn *d, struct state *st, const struct call *c,
                      const struct fwd_ref *f, int all_algos,
                      struct cl_result *r)
{
    memset(d, 0, sizeof *d);
    cl_dbuf_create(&d->y, (size_t)c->T * c->B * c->H * sizeof(float), 0);
    cl_dbuf_create(&d->hn, (size_t)c->L * c->B * c->H * sizeof(float), 0);
    for (int a = 0; a < (all_algos ? CL_GRU_ALGOS : 1); a++) {
        d->g[a] = cl_cudnn_gru_create(st->dnn, a, c->T, c->B, c->I, c->H, c->L,
                                      c->layers, d->why[a], sizeof d->why[a]);
        if (!d->g[a])
            continue;
        struct cl_cudnn_gru_call dc = {d->g[a], c->x, c->h0, d->y.ptr,
                                       d->hn.ptr};
        d->call[a] = dc;
        cl_dbuf_poison(&d->y, 0);
        cl_dbuf_poison(&d->hn, 0);
        int rc =
            cl_cudnn_gru_forward(d->g[a], c->x, c->h0, d->y.ptr, d->hn.ptr, 0);
        CUDA_CHECK(cudaDeviceSynchronize());
        if (rc && a != CL_GRU_STANDARD) {
            snprintf(d->why[a], sizeof d->why[a], "cudnnRNNForward: %s",
                     cudnnGetErrorString((cudnnStatus_t)rc));
            cl_cudnn_gru_destroy(d->g[a]);
            d->g[a] = NULL;
            continue;
        }
        struct call dcall = *c;
        dcall.y = d->y.ptr;
        dcall.hn = d->hn.ptr;
        struct cl_result check = *r;
        char who[64];
        snprintf(who, sizeof who, "cuDNN %s: ", cl_gru_algo_name(a));
        if (rc || check_forward(&dcall, f, who, &check)) {
            r->status = CL_ST_INTERNAL;
            snprintf(r->msg, sizeof r->msg, "baseline is wrong: %.900s",
                     rc ? cudnnGetErrorString((cudnnStatus_t)rc) : check.msg);
            return 1;
        }
    }
    return 0;
}

static void dnn_destroy(struct dnn *d)
{
    for (int a = 0; a < CL_GRU_ALGOS; a++)
        cl_cudnn_gru_destroy(d->g[a]);
    cl_dbuf_destroy(&d->y);
    cl_dbuf_destroy(&d->hn);
}

/* time the student against every algorithm cuDNN ran; the fastest is the
 * baseline, and the message lists them all */
static int time_forward(const struct cl_ctx *ctx, struct call *c, struct dnn *d,
                        struct cl_result *r)
{
    struct cl_timed items[1 + CL_GRU_ALGOS];
    int n = 1;
    struct cl_timed student = {"gru_forward", run_student, c, {0}};
    items[0] = student;
    for (int a = 0; a < CL_GRU_ALGOS; a++)
        if (d->g[a]) {
            struct cl_timed t = {
                cl_gru_algo_name(a), cl_cudnn_gru_run, &d->call[a], {0}};
            items[n++] = t;
        }
    if (cl_time_case(ctx, items, n, r))
        return 1;
    int best = 1;
    for (int k = 2; k < n; k++)
        if (items[k].ms.median < items[best].ms.median)
            best = k;
    r->base_ms = items[best].ms.median;
    r->ceil_ms = 0;
    int len = snprintf(r->msg, sizeof r->msg, "cuDNN:");
    for (int a = 0, k = 1; a < CL_GRU_ALGOS; a++) {
        if (d->g[a])
            len += snprintf(r->msg + len, sizeof r->msg - len, " %s %.4f ms%s",
                            cl_gru_algo_name(a), items[k].ms.median,
                            k == best ? " (best)" : "");
        else
            len += snprintf(r->msg + len, sizeof r->msg - len,
                            " %s unsupported", cl_gru_algo_name(a));
        k += d->g[a] != NULL;
        if (a < CL_GRU_ALGOS - 1)
            len += snprintf(r->msg + len, sizeof r->msg - len, ";");
    }
    return 0;
}

static double forward_flops(const struct call *c)
{
    double per_step = 2.0 * c->B * 3.0 * c->H;
    return c->T * per_step *
           ((double)(c->I + c->H) + (c->L - 1) * 2.0 * (double)c->H);
}

static void run_forward(struct state *st, const struct cl_ctx *ctx,
                        const struct cl_case *cs, struct cl_result *r)
{
    int T = (int)cs->p[1], B = (int)cs->p[2], I = (int)cs->p[3],
        H = (int)cs->p[4], L = (int)cs->p[5];
    cudaStream_t s = ctx->stream;
    struct model m;
    struct cl_dbuf x, h0, y, hn, ws;
    struct dnn d;
    int have_dnn = 0;
    model_create(&m, ctx, I, H, L);
    float *hx = cl_input_create(&x, (size_t)T * B * I, 0, ctx, 1);
    float *hh0 = cl_input_create(&h0, (size_t)L * B * H, 0, ctx, 2);
    cl_output_create(&y, (size_t)T * B * H, 0, ctx);
    cl_output_create(&hn, (size_t)L * B * H, 0, ctx);
    size_t ws_bytes = st->ws_size(T, B, I, H, L);
    cl_dbuf_create(&ws, ws_bytes ? ws_bytes : 1, 0);
    cl_dbuf_arm(&ws, s);
    const struct cl_dbuf *bufs[] = {&x, &h0, &y, &hn, &ws};
    const char *names[] = {"x", "h0", "y", "h_n", "workspace"};
    struct call c = {st, x.ptr, h0.ptr, y.ptr, hn.ptr, m.dev,   T,
                     B,  I,     H,      L,     ws.ptr, ws_bytes};
    struct fwd_ref f;
    fwd_ref_create(&f, hx, hh0, &m, T, B, I, H, L);

    cl_profile_mark(ctx, 1);
    run_student(&c, s);
    cl_profile_mark(ctx, 0);
    if (cl_student_error(s, "in gru_forward", r) ||
        cl_check_guards(bufs, names, 5, sizeof(float), s, r) ||
        model_guards(&m, s, r))
        goto done;
    struct cl_result mine = *r;
    int wrong = check_forward(&c, &f, "", &mine);
    /* cuDNN on the same weights: every algorithm when timing */
    have_dnn = 1;
    if (dnn_create(&d, st, &c, &f, ctx->timing, r))
        goto done;
    if (wrong) {
        *r = mine;
        size_t at = strlen(r->msg);
        snprintf(r->msg + at, sizeof r->msg - at,
                 " (cuDNN's output on the same weights matches the "
                 "reference)");
        goto done;
    }
    r->status = CL_ST_PASS;
    if (!ctx->timing)
        goto done;

    cl_dbuf_poison(&y, s);
    cl_dbuf_poison(&hn, s);
    if (time_forward(ctx, &c, &d, r))
        goto done;
    r->work = forward_flops(&c);
    struct cl_result after = *r;
    if (cl_check_guards(bufs, names, 5, sizeof(float), s, &after) ||
        check_forward(&c, &f, "after timing: ", &after)) {
        *r = after;
        r->timed = 0;
    }

done:
    if (have_dnn && !r->restart)
        dnn_destroy(&d);
    if (!r->restart) {
        for (int i = 0; i < 5; i++)
            cl_dbuf_destroy((struct cl_dbuf *)bufs[i]);
    }
    model_destroy(&m, !r->restart);
    free(f.y);
    free(f.hn);
    free(hx);
    free(hh0);
}

static void run(void *p, const struct cl_ctx *ctx, const struct cl_case *cs,
                struct cl_result *r)
{
    if (cs->p[0] == P_CELL)
        run_cell(p, ctx, cs, r);
    else
        run_forward(p, ctx, cs, r);
}

// ----------------------------------------------------------------------------
// the spec

static const char *const symbols[] = {"gru_cell", "gru_workspace_size",
                                      "gru_forward", NULL};
static const char *const forbidden[] = {"cudnn", NULL};

const struct cl_lab cl_lab_gru = {
    .id = "05",
    .slug = "gru",
    .title = "GRU: a fused cell and a persistent layer",
    .source = "labs/05-gru/gru.cu",
    .todo = "TODO(lab5)",
    .symbols = symbols,
    .forbidden = forbidden,
    .baseline = "best cuDNN",
    .ceiling = NULL,
    .metric = CL_METRIC_TFLOPS,
    .speed_target = 1.0,
    .speed_vs = CL_VS_BASELINE,
    .bonus_at = 1.5,
    .needs_gpu = 1,
    .timeout_s = 120.0,
    .profile_case = "t32-b64",
    .cases = cases,
    .ncases = (int)(sizeof cases / sizeof cases[0]),
    .setup = setup,
    .run = run,
    .teardown = teardown,
};
