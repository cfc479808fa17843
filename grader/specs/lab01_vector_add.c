/*
 * Lab 1 spec: vector add, c = a + b.
 *
 * Checked in full against the CPU. Speed is scored against the copy
 * ceiling (the faster of cudaMemcpy and a streaming copy kernel, timed in
 * the same run); cudnnOpTensor (ADD) is the library shown beside it.
 */
#include "judge/spec.h"
#include "specs/baselines.h"
#include "specs/refs.h"
#include "protocol/glue.h"

#include <stdio.h>
#include <stdlib.h>

#define CASE(nm, kd, n, oa, ob, oc, q)                                         \
    {                                                                          \
        .name = nm, .kind = kd,                                                \
        .arg = &(const struct vadd_case){n, oa, ob, oc}, .quick = q            \
    }

static const struct cl_case cases[] = {
    CASE("n=1", CL_CASE_CORRECT, 1, 0, 0, 0, 1),
    CASE("n=2", CL_CASE_CORRECT, 2, 0, 0, 0, 1),
    CASE("n=3", CL_CASE_CORRECT, 3, 0, 0, 0, 1),
    CASE("n=31", CL_CASE_CORRECT, 31, 0, 0, 0, 1),
    CASE("n=1000003", CL_CASE_CORRECT, 1000003, 0, 0, 0, 1),
    CASE("offset-4B", CL_CASE_CORRECT, 1000003, 4, 4, 4, 0),
    CASE("misaligned", CL_CASE_CORRECT, 1000003, 4, 8, 12, 0),
    CASE("n=2^20", CL_CASE_CORRECT, 1 << 20, 0, 0, 0, 0),
    CASE("n=2^28", CL_CASE_SPEED, 1 << 28, 0, 0, 0, 0),
    /* the size sweep of make bench: timed, never scored */
    CASE("n=2^15", CL_CASE_BENCH, 1 << 15, 0, 0, 0, 0),
    CASE("n=2^17", CL_CASE_BENCH, 1 << 17, 0, 0, 0, 0),
    CASE("n=2^19", CL_CASE_BENCH, 1 << 19, 0, 0, 0, 0),
    CASE("n=2^21", CL_CASE_BENCH, 1 << 21, 0, 0, 0, 0),
    CASE("n=2^23", CL_CASE_BENCH, 1 << 23, 0, 0, 0, 0),
    CASE("n=2^25", CL_CASE_BENCH, 1 << 25, 0, 0, 0, 0),
    CASE("n=2^27", CL_CASE_BENCH, 1 << 27, 0, 0, 0, 0),
};

static int plan(const void *arg, struct cl_plan *p)
{
    const struct vadd_case *c = arg;
    cl_plan_buf(p, "a", CL_IN, CL_F32, (size_t)c->n, (size_t)c->off_a);
    cl_plan_buf(p, "b", CL_IN, CL_F32, (size_t)c->n, (size_t)c->off_b);
    cl_plan_buf(p, "c", CL_OUT, CL_F32, (size_t)c->n, (size_t)c->off_c);
    p->work = 3.0 * 4 * c->n;       /* read a and b, write c */
    p->ceil_bytes = 2.0 * 4 * c->n; /* a copy of n floats: read, write */
    /* the sum of two inputs is exact in float: only a wrong formula or
     * lower precision misses this */
    p->tol = (struct cl_tolerance){0.0, 1e-6, 1e-6};
    return 0;
}

static int check(struct cl_check *ck)
{
    const struct vadd_case *c = ck->arg;
    const float *a = cl_check_input(ck, VADD_A, ck->call);
    const float *b = cl_check_input(ck, VADD_B, ck->call);
    double *ref = cl_xmalloc((size_t)c->n * sizeof *ref);
    vector_add_ref(a, b, ref, (size_t)c->n);
    struct cl_compare cmp;
    cl_compare_f32(cl_check_output(ck, VADD_C), ref, NULL, (size_t)c->n,
                   &ck->plan->tol, &cmp);
    free(ref);
    char what[64];
    snprintf(what, sizeof what, "%sc", ck->when);
    return cl_verdict(&cmp, what, ck->r);
}

// ---- the baseline: cudnnOpTensor (ADD), specs/cudnn_optensor.c --------------

static void *op_create(const struct cl_base_ctx *b, char *why, size_t len)
{
    const struct vadd_case *c = b->arg;
    (void)why;
    (void)len;
    return cl_cudnn_add_create(c->n, b->in[VADD_A], b->in[VADD_B],
                               b->out[VADD_C]);
}

static const char *op_name(void *st, int i)
{
    (void)st;
    (void)i;
    return "cudnnOpTensor";
}

static int op_run(void *st, int i, cudaStream_t s)
{
    (void)i;
    return cl_cudnn_add_run(st, s);
}

static void op_destroy(void *st)
{
    cl_cudnn_add_destroy(st);
}

static const struct cl_baseline opt = {.count = 1,
                                       .create = op_create,
                                       .name = op_name,
                                       .run = op_run,
                                       .destroy = op_destroy};

static const char *const forbidden[] = {"cublas", "cudnn",    "curand",
                                        "cufft",  "cusparse", "cusolver",
                                        "npp",    "nvjpeg",   NULL};
static const struct cl_caps caps = {.forbidden = forbidden};

const struct cl_lab cl_lab_vector_add = {
    .id = "01",
    .slug = "vector-add",
    .title = "Vector add",
    .source = "labs/01-vector-add/vector_add.cu",
    .todo = "TODO(lab1)",
    .caps = &caps,
    .baseline = "cudnnOpTensor",
    .ceiling = "copy",
    .metric = CL_METRIC_GBPS,
    .needs_gpu = 1,
    .profile_case = "n=2^28",
    .cases = cases,
    .ncases = (int)(sizeof cases / sizeof cases[0]),
    .arg_size = sizeof(struct vadd_case),
    .plan = plan,
    .check = check,
    .base = &opt,
};
