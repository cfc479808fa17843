/*
 * Lab 2 spec: 1D stencil (part A) and depthwise causal conv1d (part B).
 *
 * Part A is checked in full against the CPU; part B on up to 256 rows
 * picked after the call, and in full against cuDNN when it has more.
 * Baseline: cuDNN's convolution (cudnn_conv.c); for part B the left
 * padding a framework does first is timed with it. Speed is scored as a
 * fraction of the copy ceiling, except for the arithmetic-bound K = 128
 * case (the policy's).
 */
#include "specs/baselines.h"
#include "protocol/glue.h"
#include "judge/spec.h"
#include "specs/refs.h"

#include "errcheck.h"

#include <stdio.h>
#include <stdlib.h>

#define A(nm, kd, n_, r, q)                                                    \
    {                                                                          \
        .name = nm, .kind = kd,                                                \
        .arg = &(const struct stencil_case){.part = STENCIL_A,                 \
                                            .n = n_,                           \
                                            .radius = r},                      \
        .quick = q                                                             \
    }
#define B(nm, kd, b, c, t, k, q)                                               \
    {                                                                          \
        .name = nm, .kind = kd,                                                \
        .arg =                                                                 \
            &(const struct stencil_case){                                      \
                .part = STENCIL_B, .B = b, .C = c, .T = t, .K = k},            \
        .quick = q                                                             \
    }

static const struct cl_case cases[] = {
    A("A:n=1,R=1", CL_CASE_CORRECT, 1, 1, 1),
    A("A:n=5,R=3", CL_CASE_CORRECT, 5, 3, 1),
    A("A:n=1000,R=8", CL_CASE_CORRECT, 1000, 8, 1),
    A("A:n=100003,R=1", CL_CASE_CORRECT, 100003, 1, 0),
    A("A:n=100003,R=3", CL_CASE_CORRECT, 100003, 3, 1),
    A("A:n=100003,R=16", CL_CASE_CORRECT, 100003, 16, 0),
    A("A:n=100003,R=32", CL_CASE_CORRECT, 100003, 32, 0),
    B("B:1x5x3,K=31", CL_CASE_CORRECT, 1, 5, 3, 31, 1),
    B("B:2x37x1001,K=4", CL_CASE_CORRECT, 2, 37, 1001, 4, 1),
    B("B:2x33x2049,K=2", CL_CASE_CORRECT, 2, 33, 2049, 2, 0),
    B("B:1x7x300,K=31", CL_CASE_CORRECT, 1, 7, 300, 31, 0),
    B("B:3x19x517,K=128", CL_CASE_CORRECT, 3, 19, 517, 128, 0),
    A("A:n=2^26,R=3", CL_CASE_SPEED, 1 << 26, 3, 0),
    A("A:n=2^26,R=8", CL_CASE_SPEED, 1 << 26, 8, 0),
    B("B:8x1024x4096,K=4", CL_CASE_SPEED, 8, 1024, 4096, 4, 0),
    B("B:8x1024x4096,K=128", CL_CASE_SPEED, 8, 1024, 4096, 128, 0),
    /* the size sweep of make bench: timed, never scored */
    A("A:n=2^16,R=3", CL_CASE_BENCH, 1 << 16, 3, 0),
    A("A:n=2^18,R=3", CL_CASE_BENCH, 1 << 18, 3, 0),
    A("A:n=2^20,R=3", CL_CASE_BENCH, 1 << 20, 3, 0),
    A("A:n=2^22,R=3", CL_CASE_BENCH, 1 << 22, 3, 0),
    A("A:n=2^24,R=3", CL_CASE_BENCH, 1 << 24, 3, 0),
    B("B:8x1024x256,K=4", CL_CASE_BENCH, 8, 1024, 256, 4, 0),
    B("B:8x1024x1024,K=4", CL_CASE_BENCH, 8, 1024, 1024, 4, 0),
};

#define MAX_ROWS 256 /* rows of part B checked against the CPU */

static long rows_of(const struct stencil_case *c)
{
    return c->part == STENCIL_A ? 1 : (long)c->B * c->C;
}

static int plan(const void *arg, struct cl_plan *p)
{
    const struct stencil_case *c = arg;
    int a = c->part == STENCIL_A;
    size_t nx = a ? (size_t)c->n : (size_t)c->B * c->C * c->T;
    size_t nw = a ? 2 * (size_t)c->radius + 1 : (size_t)c->C * c->K;
    int terms = a ? 2 * c->radius + 1 : c->K;
    cl_plan_buf(p, a ? "in" : "x", CL_IN, CL_F32, nx, 0);
    cl_plan_buf(p, "w", CL_IN, CL_F32, nw, 0);
    cl_plan_buf(p, a ? "out" : "y", CL_OUT, CL_F32, nx, 0);
    /* the least traffic: read the input and the weights, write the output */
    p->work = (2.0 * nx + nw) * sizeof(float);
    p->ceil_bytes = 2.0 * nx * sizeof(float);
    /* FP32 summation of K products of magnitude <= 1 */
    p->tol = (struct cl_tolerance){2e-7 * terms, 1e-5, 1e-5};
    p->versus = rows_of(c) > MAX_ROWS;
    return 0;
}

static int check(struct cl_check *ck)
{
    const struct stencil_case *c = ck->arg;
    int a = c->part == STENCIL_A;
    if (cl_check_written(ck, ST_Y))
        return 1;
    const float *x = cl_check_input(ck, ST_X, ck->call);
    const float *w = cl_check_input(ck, ST_W, ck->call);
    const float *got = cl_check_output(ck, ST_Y);
    long len = a ? c->n : c->T;
    int rows[MAX_ROWS];
    int n = cl_check_rows(ck, (int)rows_of(c), MAX_ROWS, rows);
    double *ref = cl_xmalloc((size_t)len * sizeof *ref);
    int bad = 0;
    for (int i = 0; i < n && !bad; i++) {
        if (a)
            stencil_ref(x, w, ref, c->n, c->radius);
        else
            causal_conv1d_ref(x, w, ref, rows[i], 1, c->C, c->T, c->K);
        struct cl_compare cmp;
        cl_compare_f32(got + (size_t)rows[i] * len, ref, NULL, (size_t)len,
                       &ck->plan->tol, &cmp);
        char what[96];
        if (a)
            snprintf(what, sizeof what, "%sout", ck->when);
        else
            snprintf(what, sizeof what, "%sy row b=%d c=%d (t index)", ck->when,
                     rows[i] / c->C, rows[i] % c->C);
        bad = cl_verdict(&cmp, what, ck->r);
    }
    free(ref);
    return bad;
}

// ---- the baseline: cuDNN's convolution (and the padding before it) --------

struct conv {
    struct cl_cudnn_conv *d;
    const float *x;
    float *padded; /* part B: F.pad(x, (K - 1, 0)) */
    long long rows;
    int T, pad;
};

static void *conv_create(const struct cl_base_ctx *b, char *why, size_t len)
{
    const struct stencil_case *c = b->arg;
    struct conv *v = cl_xcalloc(1, sizeof *v);
    struct cudnnContext *h = cl_judge_cudnn();
    if (c->part == STENCIL_A) {
        int nw = 2 * c->radius + 1;
        v->d = cl_cudnn_conv_create(h, 1, 1, c->n, nw, c->radius, 1, c->n,
                                    b->in[ST_X], b->in[ST_W], b->out[ST_Y], why,
                                    len);
    } else {
        v->x = b->in[ST_X];
        v->rows = (long long)c->B * c->C;
        v->T = c->T;
        v->pad = c->K - 1;
        CUDA_CHECK(cudaMalloc((void **)&v->padded,
                              (size_t)v->rows * (c->T + v->pad) * 4));
        v->d = cl_cudnn_conv_create(h, c->B, c->C, c->T + v->pad, c->K, 0, c->C,
                                    c->T, v->padded, b->in[ST_W], b->out[ST_Y],
                                    why, len);
    }
    if (!v->d) {
        if (v->padded)
            CUDA_CHECK(cudaFree(v->padded));
        free(v);
        return NULL;
    }
    return v;
}

static const char *conv_name(void *st, int i)
{
    (void)i;
    return cl_cudnn_conv_name(((struct conv *)st)->d);
}

static int conv_run(void *st, int i, cudaStream_t s)
{
    struct conv *v = st;
    (void)i;
    if (v->padded)
        cl_pad_left(v->x, v->padded, v->rows, v->T, v->pad, s);
    return cl_cudnn_conv_run(v->d, s);
}

static void conv_destroy(void *st)
{
    struct conv *v = st;
    cl_cudnn_conv_destroy(v->d);
    if (v->padded)
        CUDA_CHECK(cudaFree(v->padded));
    free(v);
}

static const struct cl_baseline conv = {.count = 1,
                                        .create = conv_create,
                                        .name = conv_name,
                                        .run = conv_run,
                                        .destroy = conv_destroy};

static const char *const forbidden[] = {
    "cublas", "cudnn", "curand", "cufft", "cusparse", "cusolver", "npp", NULL};
static const struct cl_caps caps = {.forbidden = forbidden};

const struct cl_lab cl_lab_stencil = {
    .id = "02",
    .slug = "stencil",
    .title = "Stencil and depthwise causal convolution",
    .source = "labs/02-stencil/stencil.cu",
    .todo = "TODO(lab2)",
    .caps = &caps,
    .baseline = "cuDNN conv",
    .ceiling = "copy",
    .metric = CL_METRIC_GBPS,
    .needs_gpu = 1,
    .profile_case = "A:n=2^26,R=3",
    .cases = cases,
    .ncases = (int)(sizeof cases / sizeof cases[0]),
    .arg_size = sizeof(struct stencil_case),
    .plan = plan,
    .check = check,
    .base = &conv,
};
