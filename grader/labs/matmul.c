/*
 * Lab 3 spec: SGEMM against cuBLAS.
 *
 * Baseline: cublasSgemm in cuBLAS's default math mode (true FP32, no TF32),
 * row-major through the transpose identity C^T = B^T A^T, with no copies.
 * Correctness: a double CPU reference on every row of small cases and on
 * 33 evenly spaced rows of large ones; every element is checked for being
 * written.
 */
#include "labkit.h"
#include "matmul.h"
#include "refs.h"
#include "rng.h"

#include <cublas_v2.h>

#include "errcheck.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// cases: p = {M, N, K}

#define CORRECT(name, m, n, k, pts, quick)                                     \
    {                                                                          \
        name, CL_CASE_CORRECT, pts, {m, n, k}, quick, 0, CL_VS_DEFAULT         \
    }

static const struct cl_case cases[] = {
    CORRECT("1x1x1", 1, 1, 1, 8, 1),
    CORRECT("17x33x65", 17, 33, 65, 8, 1),
    CORRECT("31x29x1000", 31, 29, 1000, 8, 1),
    CORRECT("1000x1000x1000", 1000, 1000, 1000, 8, 0),
    CORRECT("1024x1024x1024", 1024, 1024, 1024, 8, 0),
    CORRECT("128x128x8", 128, 128, 8, 5, 1),
    CORRECT("4096x4096x4096", 4096, 4096, 4096, 5, 0),
    {"4096^3", CL_CASE_SPEED, 35, {4096, 4096, 4096}, 0, 0, CL_VS_DEFAULT},
    {"8192x64x1280", CL_CASE_SPEED, 15, {8192, 64, 1280}, 0, 0, CL_VS_DEFAULT},
    /* the size sweep of make bench: timed, never scored */
    {"256^3", CL_CASE_BENCH, 0, {256, 256, 256}, 0, 0, CL_VS_DEFAULT},
    {"512^3", CL_CASE_BENCH, 0, {512, 512, 512}, 0, 0, CL_VS_DEFAULT},
    {"1024^3", CL_CASE_BENCH, 0, {1024, 1024, 1024}, 0, 0, CL_VS_DEFAULT},
    {"2048^3", CL_CASE_BENCH, 0, {2048, 2048, 2048}, 0, 0, CL_VS_DEFAULT},
};

// ----------------------------------------------------------------------------
// CPU reference (double)

void matmul_ref(const float *A, const float *B, double *ref, long row0,
                long nrows, int N, int K)
{
    for (long i = row0; i < row0 + nrows; i++) {
        double *out = ref + (i - row0) * N;
        for (int j = 0; j < N; j++)
            out[j] = 0.0;
        for (int k = 0; k < K; k++) {
            double a = A[i * K + k];
            const float *b = B + (size_t)k * N;
            for (int j = 0; j < N; j++)
                out[j] += a * b[j];
        }
    }
}

// ----------------------------------------------------------------------------
// state

struct state {
    matmul_fn fn;
    cublasHandle_t blas;
};

static void *setup(void *lib, char *err, size_t len)
{
    struct state *s = cl_xmalloc(sizeof *s);
    if (!(s->fn = (matmul_fn)cl_entry_point(lib, "matmul", err, len))) {
        free(s);
        return NULL;
    }
    CUBLAS_CHECK(cublasCreate(&s->blas));
    CUBLAS_CHECK(cublasSetMathMode(s->blas, CUBLAS_DEFAULT_MATH));
    return s;
}

static void teardown(void *p)
{
    struct state *s = p;
    if (!s)
        return;
    CUBLAS_CHECK(cublasDestroy(s->blas));
    free(s);
}

// ----------------------------------------------------------------------------
// the timed calls

struct call {
    struct state *st;
    const float *A, *B;
    float *C;
    int M, N, K;
};

static void run_student(void *p, cudaStream_t s)
{
    struct call *c = p;
    c->st->fn(c->A, c->B, c->C, c->M, c->N, c->K, s);
}

/* row-major C = A B is column-major C^T = B^T A^T: swap the operands */
static void run_cublas(void *p, cudaStream_t s)
{
    struct call *c = p;
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasSetStream(c->st->blas, s));
    CUBLAS_CHECK(cublasSgemm(c->st->blas, CUBLAS_OP_N, CUBLAS_OP_N, c->N, c->M,
                             c->K, &one, c->B, c->N, c->A, c->K, &zero, c->C,
                             c->N));
}

// ----------------------------------------------------------------------------
// one case

/* FP32 accumulation of K products of magnitude <= 1: the elementwise bound
 * grows with K; the norm bound (2e-5) sits between FP32 (about 4e-6 at
 * K = 4096) and TF32 (about 2e-4) */
static struct cl_tolerance tolerance(int K)
{
    struct cl_tolerance t = {1e-6 * K, 1e-5, 2e-5};
    return t;
}

/* the rows checked against the CPU: all of them, or 33 spread evenly */
static int rows_checked(long M, long N, long K, int *rows)
{
    return cl_spread_indices((int)M, M * N * K <= (1L << 27) ? (int)M : 33,
                             rows);
}

static int check_result(const struct call *c, const float *hA, const float *hB,
                        const float *d_C, const char *what, struct cl_result *r)
{
    size_t total = (size_t)c->M * c->N;
    float *got = cl_xmalloc(total * sizeof *got);
    int *rows = cl_xmalloc((size_t)(c->M > 33 ? c->M : 33) * sizeof *rows);
    double *ref = cl_xmalloc((size_t)c->N * sizeof *ref);
    CUDA_CHECK(
        cudaMemcpy(got, d_C, total * sizeof *got, cudaMemcpyDeviceToHost));
    int bad = 0;
    size_t first = 0, unwritten = cl_count_poison_f32(got, total, &first);
    if (unwritten) {
        r->status = CL_ST_WRONG;
        snprintf(r->msg, sizeof r->msg,
                 "%s: %zu of %zu elements never written; first at row %zu, "
                 "column %zu",
                 what, unwritten, total, first / c->N, first % c->N);
        bad = 1;
    }
    struct cl_tolerance tol = tolerance(c->K);
    int n = rows_checked(c->M, c->N, c->K, rows);
    for (int i = 0; i < n && !bad; i++) {
        matmul_ref(hA, hB, ref, rows[i], 1, c->N, c->K);
        struct cl_compare cmp;
        cl_compare_f32(got + (size_t)rows[i] * c->N, ref, NULL, (size_t)c->N,
                       &tol, &cmp);
        if (!cmp.pass) {
            char where[96];
            snprintf(where, sizeof where, "%s row %d (column index)", what,
                     rows[i]);
            bad = cl_verdict(&cmp, where, r);
        }
    }
    free(ref);
    free(rows);
    free(got);
    return bad;
}

static void run(void *p, const struct cl_ctx *ctx, const struct cl_case *cs,
                struct cl_result *r)
{
    struct state *st = p;
    cudaStream_t s = ctx->stream;
    struct call c = {
        st, NULL, NULL, NULL, (int)cs->p[0], (int)cs->p[1], (int)cs->p[2]};
    size_t na = (size_t)c.M * c.K, nb = (size_t)c.K * c.N,
           nc = (size_t)c.M * c.N;
    struct cl_dbuf a, b, cc, base;
    memset(&base, 0, sizeof base);
    const struct cl_dbuf *bufs[] = {&a, &b, &cc};
    const char *names[] = {"A", "B", "C"};
    float *hA = cl_input_create(&a, na, 0, ctx, 1);
    float *hB = cl_input_create(&b, nb, 0, ctx, 2);
    cl_output_create(&cc, nc, 0, ctx);
    c.A = a.ptr;
    c.B = b.ptr;
    c.C = cc.ptr;

    cl_profile_mark(ctx, 1);
    run_student(&c, s);
    cl_profile_mark(ctx, 0);
    if (cl_student_error(s, "in matmul", r) ||
        cl_check_guards(bufs, names, 3, sizeof(float), s, r) ||
        check_result(&c, hA, hB, cc.ptr, "C", r))
        goto done;
    r->status = CL_ST_PASS;
    if (!ctx->timing)
        goto done;

    cl_dbuf_create(&base, nc * sizeof(float), 0);
    struct call blas = c;
    blas.C = base.ptr;
    run_cublas(&blas, s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    struct cl_result check = *r;
    if (check_result(&blas, hA, hB, base.ptr, "cuBLAS", &check)) {
        r->status = CL_ST_INTERNAL;
        snprintf(r->msg, sizeof r->msg, "baseline is wrong: %.900s", check.msg);
        goto done;
    }
    struct cl_timed items[] = {
        {"matmul", run_student, &c, {0}},
        {"cublasSgemm", run_cublas, &blas, {0}},
    };
    cl_dbuf_poison(&cc, s);
    if (cl_time_case(ctx, items, 2, r))
        goto done;
    r->work = 2.0 * c.M * c.N * (double)c.K;
    if (cl_check_guards(bufs, names, 3, sizeof(float), s, r) ||
        check_result(&c, hA, hB, cc.ptr, "C after timing", r))
        r->timed = 0;

done:
    if (!r->restart) {
        for (int i = 0; i < 3; i++)
            cl_dbuf_destroy((struct cl_dbuf *)bufs[i]);
        cl_dbuf_destroy(&base);
    }
    free(hA);
    free(hB);
}

// ----------------------------------------------------------------------------
// the spec

static const char *const symbols[] = {"matmul", NULL};
static const char *const forbidden[] = {"cublas", "cudnn", "cusparse",
                                        "cusolver", NULL};

const struct cl_lab cl_lab_matmul = {
    .id = "03",
    .slug = "matmul",
    .title = "Tiled matrix multiply (SGEMM)",
    .source = "labs/03-matmul/matmul.cu",
    .todo = "TODO(lab3)",
    .symbols = symbols,
    .forbidden = forbidden,
    .baseline = "cublasSgemm",
    .ceiling = NULL,
    .metric = CL_METRIC_TFLOPS,
    .speed_target = 0.70,
    .speed_vs = CL_VS_BASELINE,
    .needs_gpu = 1,
    .timeout_s = 60.0,
    .profile_case = "4096^3",
    .cases = cases,
    .ncases = (int)(sizeof cases / sizeof cases[0]),
    .setup = setup,
    .run = run,
    .teardown = teardown,
};
