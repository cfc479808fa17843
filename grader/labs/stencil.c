/*
 * Lab 2 spec: 1D stencil (part A) and depthwise causal conv1d (part B).
 *
 * Baselines: cuDNN's convolution forward, FP32 with CUDNN_FMA_MATH and the
 * fastest algorithm cudnnFindConvolutionForwardAlgorithmEx reports; for
 * part B, the left padding a framework does first is timed with it.
 * Speed credit is a fraction of memcpy bandwidth measured in the same run.
 */
#include "baselines.h"
#include "labkit.h"
#include "refs.h"
#include "rng.h"
#include "stencil.h"

#include <cudnn.h>

#include "errcheck.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// cases: part A p = {0, n, R}; part B p = {1, B, C, T, K}

enum { PART_A = 0, PART_B = 1 };

#define A(name, n, r, pts, quick)                                              \
    {                                                                          \
        name, CL_CASE_CORRECT, pts, {PART_A, n, r}, quick, 0, CL_VS_DEFAULT    \
    }
#define B(name, b, c, t, k, pts, quick)                                        \
    {                                                                          \
        name, CL_CASE_CORRECT, pts, {PART_B, b, c, t, k}, quick, 0,            \
            CL_VS_DEFAULT                                                      \
    }

#define BENCH_A(name, n)                                                       \
    {                                                                          \
        name, CL_CASE_BENCH, 0, {PART_A, n, 3}, 0, 0, CL_VS_DEFAULT            \
    }
#define BENCH_B(name, t)                                                       \
    {                                                                          \
        name, CL_CASE_BENCH, 0, {PART_B, 8, 1024, t, 4}, 0, 0, CL_VS_DEFAULT   \
    }

static const struct cl_case cases[] = {
    A("A:n=1,R=1", 1, 1, 4, 1),
    A("A:n=5,R=3", 5, 3, 4, 1),
    A("A:n=1000,R=8", 1000, 8, 4, 1),
    A("A:n=100003,R=1", 100003, 1, 4, 0),
    A("A:n=100003,R=3", 100003, 3, 4, 1),
    A("A:n=100003,R=16", 100003, 16, 4, 0),
    A("A:n=100003,R=32", 100003, 32, 4, 0),
    B("B:1x5x3,K=31", 1, 5, 3, 31, 4, 1),
    B("B:2x37x1001,K=4", 2, 37, 1001, 4, 4, 1),
    B("B:2x33x2049,K=2", 2, 33, 2049, 2, 4, 0),
    B("B:1x7x300,K=31", 1, 7, 300, 31, 4, 0),
    B("B:3x19x517,K=128", 3, 19, 517, 128, 4, 0),
    {"A:n=2^26,R=3",
     CL_CASE_SPEED,
     15,
     {PART_A, 1 << 26, 3},
     0,
     0,
     CL_VS_DEFAULT},
    {"A:n=2^26,R=8",
     CL_CASE_SPEED,
     12,
     {PART_A, 1 << 26, 8},
     0,
     0,
     CL_VS_DEFAULT},
    {"B:8x1024x4096,K=4",
     CL_CASE_SPEED,
     15,
     {PART_B, 8, 1024, 4096, 4},
     0,
     0,
     CL_VS_DEFAULT},
    /* long kernels are arithmetic-bound: here the race is against cuDNN */
    {"B:8x1024x4096,K=128",
     CL_CASE_SPEED,
     10,
     {PART_B, 8, 1024, 4096, 128},
     0,
     1.0,
     CL_VS_BASELINE},
    /* the size sweep of make bench: timed, never scored */
    BENCH_A("A:n=2^16,R=3", 1 << 16),
    BENCH_A("A:n=2^18,R=3", 1 << 18),
    BENCH_A("A:n=2^20,R=3", 1 << 20),
    BENCH_A("A:n=2^22,R=3", 1 << 22),
    BENCH_A("A:n=2^24,R=3", 1 << 24),
    BENCH_B("B:8x1024x256,K=4", 256),
    BENCH_B("B:8x1024x1024,K=4", 1024),
};

// ----------------------------------------------------------------------------
// CPU references (double accumulation)

void stencil_ref(const float *in, const float *w, double *ref, long n,
                 int radius)
{
    for (long i = 0; i < n; i++) {
        double acc = 0.0;
        for (int j = -radius; j <= radius; j++)
            if (i + j >= 0 && i + j < n)
                acc += (double)w[j + radius] * in[i + j];
        ref[i] = acc;
    }
}

void causal_conv1d_ref(const float *x, const float *w, double *ref, long row0,
                       long nrows, int C, int T, int K)
{
    for (long r = row0; r < row0 + nrows; r++) {
        const float *xr = x + r * T, *wr = w + (r % C) * K;
        for (int t = 0; t < T; t++) {
            double acc = 0.0;
            for (int k = 0; k < K; k++) {
                int tt = t - (K - 1) + k;
                if (tt >= 0)
                    acc += (double)wr[k] * xr[tt];
            }
            ref[(r - row0) * T + t] = acc;
        }
    }
}

// ----------------------------------------------------------------------------
// state

struct state {
    stencil_1d_fn stencil;
    causal_conv1d_fn conv;
    cudnnHandle_t dnn;
};

static void *setup(void *lib, char *err, size_t len)
{
    struct state *s = cl_xmalloc(sizeof *s);
    if (!(s->stencil =
              (stencil_1d_fn)cl_entry_point(lib, "stencil_1d", err, len)) ||
        !(s->conv = (causal_conv1d_fn)cl_entry_point(lib, "causal_conv1d", err,
                                                     len))) {
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
// the cuDNN baseline: one convolution, its fastest FP32 algorithm

struct dnn_conv {
    cudnnHandle_t h;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnConvolutionFwdAlgo_t algo;
    void *ws;
    size_t ws_bytes;
    const float *x, *w;
    float *y;
    /* part B: the framework's padding step before the convolution */
    const float *unpadded;
    float *padded;
    long long rows;
    int T, pad;
};

/* x (N, C, 1, Win) convolved with w (C, 1 or C/groups, 1, K) -> y */
static void dnn_conv_create(struct dnn_conv *d, cudnnHandle_t h, int N, int C,
                            int Win, int K, int pad, int groups, int Wout)
{
    memset(d, 0, sizeof *d);
    d->h = h;
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&d->xd));
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&d->yd));
    CUDNN_CHECK(cudnnCreateFilterDescriptor(&d->wd));
    CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&d->cd));
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(d->xd, CUDNN_TENSOR_NCHW,
                                           CUDNN_DATA_FLOAT, N, C, 1, Win));
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(d->yd, CUDNN_TENSOR_NCHW,
                                           CUDNN_DATA_FLOAT, N, C, 1, Wout));
    CUDNN_CHECK(cudnnSetFilter4dDescriptor(
        d->wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, C, C / groups, 1, K));
    CUDNN_CHECK(cudnnSetConvolution2dDescriptor(
        d->cd, 0, pad, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CUDNN_CHECK(cudnnSetConvolutionGroupCount(d->cd, groups));
    CUDNN_CHECK(cudnnSetConvolutionMathType(d->cd, CUDNN_FMA_MATH));
}

/* try every algorithm on the real buffers; keep the fastest true-FP32 one */
static int dnn_conv_find(struct dnn_conv *d, cudaStream_t s, char *name,
                         size_t len)
{
    enum { MAX_ALGOS = 16 };
    cudnnConvolutionFwdAlgoPerf_t perf[MAX_ALGOS];
    int found = 0;
    size_t scratch_bytes = (size_t)256 << 20;
    void *scratch = NULL;
    CUDA_CHECK(cudaMalloc(&scratch, scratch_bytes));
    CUDNN_CHECK(cudnnSetStream(d->h, s));
    CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(
        d->h, d->xd, d->x, d->wd, d->w, d->cd, d->yd, d->y, MAX_ALGOS, &found,
        perf, scratch, scratch_bytes));
    CUDA_CHECK(cudaFree(scratch));
    for (int i = 0; i < found; i++) {
        if (perf[i].status != CUDNN_STATUS_SUCCESS ||
            perf[i].mathType != CUDNN_FMA_MATH)
            continue;
        d->algo = perf[i].algo;
        d->ws_bytes = perf[i].memory;
        if (d->ws_bytes)
            CUDA_CHECK(cudaMalloc(&d->ws, d->ws_bytes));
        snprintf(name, len, "cuDNN algo %d", (int)d->algo);
        return 0;
    }
    return -1;
}

static void dnn_conv_destroy(struct dnn_conv *d)
{
    if (d->ws)
        CUDA_CHECK(cudaFree(d->ws));
    CUDNN_CHECK(cudnnDestroyConvolutionDescriptor(d->cd));
    CUDNN_CHECK(cudnnDestroyFilterDescriptor(d->wd));
    CUDNN_CHECK(cudnnDestroyTensorDescriptor(d->yd));
    CUDNN_CHECK(cudnnDestroyTensorDescriptor(d->xd));
}

static void run_dnn(void *p, cudaStream_t s)
{
    struct dnn_conv *d = p;
    const float one = 1.0f, zero = 0.0f;
    if (d->padded)
        cl_pad_left(d->unpadded, d->padded, d->rows, d->T, d->pad, s);
    CUDNN_CHECK(cudnnSetStream(d->h, s));
    CUDNN_CHECK(cudnnConvolutionForward(d->h, &one, d->xd, d->x, d->wd, d->w,
                                        d->cd, d->algo, d->ws, d->ws_bytes,
                                        &zero, d->yd, d->y));
}

// ----------------------------------------------------------------------------
// the student's calls and the ceiling

struct call {
    struct state *st;
    int part;
    const float *in, *w;
    float *out;
    int n, radius, B, C, T, K;
};

static void run_student(void *p, cudaStream_t s)
{
    struct call *c = p;
    if (c->part == PART_A)
        c->st->stencil(c->in, c->out, c->w, c->n, c->radius, s);
    else
        c->st->conv(c->in, c->w, c->out, c->B, c->C, c->T, c->K, s);
}

// ----------------------------------------------------------------------------
// one case

/* FP32 summation of K products of magnitude <= 1 */
static struct cl_tolerance tolerance(int terms)
{
    struct cl_tolerance t = {2e-7 * terms, 1e-5, 1e-5};
    return t;
}

/* rows of part B checked against the CPU: all, or an even sample of 256 */
static long sample_stride(long rows)
{
    return rows <= 256 ? 1 : (rows + 255) / 256;
}

static int check_result(const struct call *c, const float *hx, const float *hw,
                        const float *d_out, const char *what,
                        struct cl_result *r)
{
    long rows = c->part == PART_A ? 1 : (long)c->B * c->C;
    long len = c->part == PART_A ? c->n : c->T;
    size_t total = (size_t)rows * len;
    float *got = cl_xmalloc(total * sizeof *got);
    CUDA_CHECK(
        cudaMemcpy(got, d_out, total * sizeof *got, cudaMemcpyDeviceToHost));
    /* unwritten anywhere is caught in full, values on sampled rows */
    size_t first = 0, unwritten = cl_count_poison_f32(got, total, &first);
    int bad = 0;
    if (unwritten) {
        r->status = CL_ST_WRONG;
        snprintf(r->msg, sizeof r->msg,
                 "%s: %zu of %zu elements never written; first at [%zu]", what,
                 unwritten, total, first);
        bad = 1;
    }
    long stride = sample_stride(rows);
    double *ref = cl_xmalloc((size_t)len * sizeof *ref);
    struct cl_tolerance tol =
        tolerance(c->part == PART_A ? 2 * c->radius + 1 : c->K);
    for (long row = 0; row < rows && !bad; row += stride) {
        if (c->part == PART_A)
            stencil_ref(hx, hw, ref, c->n, c->radius);
        else
            causal_conv1d_ref(hx, hw, ref, row, 1, c->C, c->T, c->K);
        struct cl_compare cmp;
        cl_compare_f32(got + row * len, ref, NULL, (size_t)len, &tol, &cmp);
        if (!cmp.pass) {
            char where[64];
            if (c->part == PART_A)
                snprintf(where, sizeof where, "%s", what);
            else
                snprintf(where, sizeof where, "%s row b=%ld c=%ld (t index)",
                         what, row / c->C, row % c->C);
            bad = cl_verdict(&cmp, where, r);
        }
    }
    free(ref);
    free(got);
    return bad;
}

static void run(void *p, const struct cl_ctx *ctx, const struct cl_case *cs,
                struct cl_result *r)
{
    struct state *st = p;
    cudaStream_t s = ctx->stream;
    struct call c;
    memset(&c, 0, sizeof c);
    c.st = st;
    c.part = (int)cs->p[0];
    size_t nx, nw;
    if (c.part == PART_A) {
        c.n = (int)cs->p[1];
        c.radius = (int)cs->p[2];
        nx = (size_t)c.n;
        nw = 2 * (size_t)c.radius + 1;
    } else {
        c.B = (int)cs->p[1];
        c.C = (int)cs->p[2];
        c.T = (int)cs->p[3];
        c.K = (int)cs->p[4];
        nx = (size_t)c.B * c.C * c.T;
        nw = (size_t)c.C * c.K;
    }
    struct cl_dbuf x, w, y, base, pad;
    memset(&base, 0, sizeof base);
    memset(&pad, 0, sizeof pad);
    const struct cl_dbuf *bufs[] = {&x, &w, &y};
    const char *names[] = {c.part == PART_A ? "in" : "x", "w",
                           c.part == PART_A ? "out" : "y"};
    float *hx = cl_input_create(&x, nx, 0, ctx, 1);
    float *hw = cl_input_create(&w, nw, 0, ctx, 2);
    cl_output_create(&y, nx, 0, ctx);
    c.in = x.ptr;
    c.w = w.ptr;
    c.out = y.ptr;

    cl_profile_mark(ctx, 1);
    run_student(&c, s);
    cl_profile_mark(ctx, 0);
    if (cl_student_error(
            s, c.part == PART_A ? "in stencil_1d" : "in causal_conv1d", r) ||
        cl_check_guards(bufs, names, 3, sizeof(float), s, r) ||
        check_result(&c, hx, hw, y.ptr, names[2], r))
        goto done;
    r->status = CL_ST_PASS;
    if (!ctx->timing)
        goto done;

    /* the baseline, checked once, then everything timed together */
    struct dnn_conv d;
    char algo[32];
    cl_dbuf_create(&base, nx * sizeof(float), 0);
    if (c.part == PART_A) {
        dnn_conv_create(&d, st->dnn, 1, 1, c.n, (int)nw, c.radius, 1, c.n);
        d.x = x.ptr;
    } else {
        cl_dbuf_create(&pad, (nx + (size_t)c.B * c.C * (c.K - 1)) * 4, 0);
        dnn_conv_create(&d, st->dnn, c.B, c.C, c.T + c.K - 1, c.K, 0, c.C, c.T);
        d.x = pad.ptr;
        d.unpadded = x.ptr;
        d.padded = pad.ptr;
        d.rows = (long long)c.B * c.C;
        d.T = c.T;
        d.pad = c.K - 1;
        cl_pad_left(x.ptr, pad.ptr, d.rows, c.T, d.pad, s);
    }
    d.w = w.ptr;
    d.y = base.ptr;
    if (dnn_conv_find(&d, s, algo, sizeof algo) != 0) {
        r->status = CL_ST_INTERNAL;
        snprintf(r->msg, sizeof r->msg,
                 "cuDNN has no FP32 (FMA) algorithm for this shape");
        dnn_conv_destroy(&d);
        goto done;
    }
    run_dnn(&d, s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    struct cl_result check = *r;
    if (check_result(&c, hx, hw, base.ptr, "cuDNN", &check)) {
        r->status = CL_ST_INTERNAL;
        snprintf(r->msg, sizeof r->msg, "baseline is wrong: %.900s", check.msg);
        dnn_conv_destroy(&d);
        goto done;
    }
    struct cl_copy cp = {base.ptr, x.ptr, nx * sizeof(float)};
    struct cl_timed items[] = {
        {"student", run_student, &c, {0}},
        {"cuDNN", run_dnn, &d, {0}},
        {"memcpy", cl_run_copy, &cp, {0}},
    };
    cl_dbuf_poison(&y, s);
    int failed = cl_time_case(ctx, items, 3, r);
    dnn_conv_destroy(&d);
    if (failed)
        goto done;
    /* the least traffic: read the input and the weights, write the output */
    r->work = (2.0 * nx + nw) * sizeof(float);
    r->ceil_work = 2.0 * nx * sizeof(float);
    if (cl_check_guards(bufs, names, 3, sizeof(float), s, r) ||
        check_result(&c, hx, hw, y.ptr, "output after timing", r))
        r->timed = 0;

done:
    if (!r->restart) {
        for (int i = 0; i < 3; i++)
            cl_dbuf_destroy((struct cl_dbuf *)bufs[i]);
        cl_dbuf_destroy(&base);
        cl_dbuf_destroy(&pad);
    }
    free(hx);
    free(hw);
}

// ----------------------------------------------------------------------------
// the spec

static const char *const symbols[] = {"stencil_1d", "causal_conv1d", NULL};
static const char *const forbidden[] = {
    "cublas", "cudnn", "curand", "cufft", "cusparse", "cusolver", "npp", NULL};

const struct cl_lab cl_lab_stencil = {
    .id = "02",
    .slug = "stencil",
    .title = "Stencil and depthwise causal convolution",
    .source = "labs/02-stencil/stencil.cu",
    .todo = "TODO(lab2)",
    .symbols = symbols,
    .forbidden = forbidden,
    .baseline = "cuDNN conv",
    .ceiling = "memcpy",
    .metric = CL_METRIC_GBPS,
    .speed_target = 0.80,
    .speed_vs = CL_VS_CEILING,
    .needs_gpu = 1,
    .timeout_s = 30.0,
    .profile_case = "A:n=2^26,R=3",
    .cases = cases,
    .ncases = (int)(sizeof cases / sizeof cases[0]),
    .setup = setup,
    .run = run,
    .teardown = teardown,
};
