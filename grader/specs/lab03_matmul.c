/*
 * Lab 3 spec: SGEMM against cuBLAS.
 *
 * Baseline: cublasSgemm in cuBLAS's default math mode (true FP32, no TF32),
 * row-major through the transpose identity C^T = B^T A^T, with no copies.
 * Correctness: a double CPU reference on every row of small cases, and on
 * 33 rows (the first, the last, and 31 picked after the call) of large
 * ones, whose every element is then compared with cuBLAS's.
 */
#include "protocol/glue.h"
#include "judge/spec.h"
#include "specs/refs.h"

#include <cublas_v2.h>

#include "errcheck.h"

#include <stdio.h>
#include <stdlib.h>

#define CASE(nm, kd, m, n, k, q)                                               \
    {                                                                          \
        .name = nm, .kind = kd,                                                \
        .arg = &(const struct mm_case){.M = m, .N = n, .K = k}, .quick = q     \
    }

static const struct cl_case cases[] = {
    CASE("1x1x1", CL_CASE_CORRECT, 1, 1, 1, 1),
    CASE("17x33x65", CL_CASE_CORRECT, 17, 33, 65, 1),
    CASE("31x29x1000", CL_CASE_CORRECT, 31, 29, 1000, 1),
    CASE("1000x1000x1000", CL_CASE_CORRECT, 1000, 1000, 1000, 0),
    CASE("1024x1024x1024", CL_CASE_CORRECT, 1024, 1024, 1024, 0),
    CASE("128x128x8", CL_CASE_CORRECT, 128, 128, 8, 1),
    CASE("4096x4096x4096", CL_CASE_CORRECT, 4096, 4096, 4096, 0),
    CASE("4096^3", CL_CASE_SPEED, 4096, 4096, 4096, 0),
    CASE("8192x64x1280", CL_CASE_SPEED, 8192, 64, 1280, 0),
    /* the size sweep of make bench: timed, never scored */
    CASE("256^3", CL_CASE_BENCH, 256, 256, 256, 0),
    CASE("512^3", CL_CASE_BENCH, 512, 512, 512, 0),
    CASE("1024^3", CL_CASE_BENCH, 1024, 1024, 1024, 0),
    CASE("2048^3", CL_CASE_BENCH, 2048, 2048, 2048, 0),
};

#define SAMPLED_ROWS 33

/* every row while the CPU reference stays cheap */
static int sampled(const struct mm_case *c)
{
    return (long)c->M * c->N * c->K > (1L << 27);
}

static int plan(const void *arg, struct cl_plan *p)
{
    const struct mm_case *c = arg;
    cl_plan_buf(p, "A", CL_IN, CL_F32, (size_t)c->M * c->K, 0);
    cl_plan_buf(p, "B", CL_IN, CL_F32, (size_t)c->K * c->N, 0);
    cl_plan_buf(p, "C", CL_OUT, CL_F32, (size_t)c->M * c->N, 0);
    p->work = 2.0 * c->M * c->N * (double)c->K;
    /* FP32 accumulation of K products of magnitude <= 1: the elementwise
     * bound grows with K; the norm bound (2e-5) sits between FP32 (about
     * 4e-6 at K = 4096) and TF32 (about 2e-4) */
    p->tol = (struct cl_tolerance){1e-6 * c->K, 1e-5, 2e-5};
    p->versus = sampled(c);
    return 0;
}

static int check(struct cl_check *ck)
{
    const struct mm_case *c = ck->arg;
    if (cl_check_written(ck, MM_C))
        return 1;
    const float *A = cl_check_input(ck, MM_A, ck->call);
    const float *B = cl_check_input(ck, MM_B, ck->call);
    const float *got = cl_check_output(ck, MM_C);
    int *rows = cl_xmalloc((size_t)(c->M > SAMPLED_ROWS ? c->M : SAMPLED_ROWS) *
                           sizeof *rows);
    int n = cl_check_rows(ck, c->M, sampled(c) ? SAMPLED_ROWS : c->M, rows);
    double *ref = cl_xmalloc((size_t)c->N * sizeof *ref);
    int bad = 0;
    for (int i = 0; i < n && !bad; i++) {
        matmul_ref(A, B, ref, rows[i], 1, c->N, c->K);
        struct cl_compare cmp;
        cl_compare_f32(got + (size_t)rows[i] * c->N, ref, NULL, (size_t)c->N,
                       &ck->plan->tol, &cmp);
        char what[96];
        snprintf(what, sizeof what, "%sC row %d (column index)", ck->when,
                 rows[i]);
        bad = cl_verdict(&cmp, what, ck->r);
    }
    free(ref);
    free(rows);
    return bad;
}

// ---- the baseline: cublasSgemm
// ------------------------------------------------

struct gemm {
    const float *A, *B;
    float *C;
    int M, N, K;
};

static void *gemm_create(const struct cl_base_ctx *b, char *why, size_t len)
{
    const struct mm_case *c = b->arg;
    struct gemm *g = cl_xmalloc(sizeof *g);
    (void)why;
    (void)len;
    *g =
        (struct gemm){b->in[MM_A], b->in[MM_B], b->out[MM_C], c->M, c->N, c->K};
    return g;
}

static const char *gemm_name(void *st, int i)
{
    (void)st;
    (void)i;
    return "cublasSgemm";
}

/* row-major C = A B is column-major C^T = B^T A^T: swap the operands */
static int gemm_run(void *st, int i, cudaStream_t s)
{
    struct gemm *g = st;
    const float one = 1.0f, zero = 0.0f;
    cublasHandle_t h = cl_judge_cublas();
    (void)i;
    CUBLAS_CHECK(cublasSetStream(h, s));
    return (int)cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, g->N, g->M, g->K, &one,
                            g->B, g->N, g->A, g->K, &zero, g->C, g->N);
}

static const struct cl_baseline gemm = {.count = 1,
                                        .create = gemm_create,
                                        .name = gemm_name,
                                        .run = gemm_run,
                                        .destroy = free};

static const char *const forbidden[] = {"cublas", "cudnn", "cusparse",
                                        "cusolver", NULL};
static const struct cl_caps caps = {.forbidden = forbidden};

const struct cl_lab cl_lab_matmul = {
    .id = "03",
    .slug = "matmul",
    .title = "Tiled matrix multiply (SGEMM)",
    .source = "labs/03-matmul/matmul.cu",
    .todo = "TODO(lab3)",
    .caps = &caps,
    .baseline = "cublasSgemm",
    .ceiling = NULL,
    .metric = CL_METRIC_TFLOPS,
    .needs_gpu = 1,
    .profile_case = "4096^3",
    .cases = cases,
    .ncases = (int)(sizeof cases / sizeof cases[0]),
    .arg_size = sizeof(struct mm_case),
    .plan = plan,
    .check = check,
    .base = &gemm,
};
