/*
 * Lab 1 spec: vector add.
 *
 * Cases, the CPU reference, the cuDNN baseline (cudnnOpTensor ADD) and the
 * memcpy ceiling. The engine runs this inside its worker process.
 */
#include "labkit.h"
#include "refs.h"
#include "rng.h"
#include "vector_add.h"

#include <cudnn.h>

#include "errcheck.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// cases: p[0] = n, p[1..3] = byte offsets of a, b, c from 16-byte alignment

static const struct cl_case cases[] = {
    {"n=1", CL_CASE_CORRECT, 6, {1, 0, 0, 0}, 1, 0, CL_VS_DEFAULT},
    {"n=2", CL_CASE_CORRECT, 6, {2, 0, 0, 0}, 1, 0, CL_VS_DEFAULT},
    {"n=3", CL_CASE_CORRECT, 6, {3, 0, 0, 0}, 1, 0, CL_VS_DEFAULT},
    {"n=31", CL_CASE_CORRECT, 6, {31, 0, 0, 0}, 1, 0, CL_VS_DEFAULT},
    {"n=1000003", CL_CASE_CORRECT, 9, {1000003, 0, 0, 0}, 1, 0, CL_VS_DEFAULT},
    {"offset-4B", CL_CASE_CORRECT, 9, {1000003, 4, 4, 4}, 0, 0, CL_VS_DEFAULT},
    {"misaligned",
     CL_CASE_CORRECT,
     9,
     {1000003, 4, 8, 12},
     0,
     0,
     CL_VS_DEFAULT},
    {"n=2^20", CL_CASE_CORRECT, 9, {1 << 20, 0, 0, 0}, 0, 0, CL_VS_DEFAULT},
    {"n=2^28", CL_CASE_SPEED, 40, {1 << 28, 0, 0, 0}, 0, 0, CL_VS_DEFAULT},
    /* the size sweep of make bench: timed, never scored */
    {"n=2^15", CL_CASE_BENCH, 0, {1 << 15, 0, 0, 0}, 0, 0, CL_VS_DEFAULT},
    {"n=2^17", CL_CASE_BENCH, 0, {1 << 17, 0, 0, 0}, 0, 0, CL_VS_DEFAULT},
    {"n=2^19", CL_CASE_BENCH, 0, {1 << 19, 0, 0, 0}, 0, 0, CL_VS_DEFAULT},
    {"n=2^21", CL_CASE_BENCH, 0, {1 << 21, 0, 0, 0}, 0, 0, CL_VS_DEFAULT},
    {"n=2^23", CL_CASE_BENCH, 0, {1 << 23, 0, 0, 0}, 0, 0, CL_VS_DEFAULT},
    {"n=2^25", CL_CASE_BENCH, 0, {1 << 25, 0, 0, 0}, 0, 0, CL_VS_DEFAULT},
    {"n=2^27", CL_CASE_BENCH, 0, {1 << 27, 0, 0, 0}, 0, 0, CL_VS_DEFAULT},
};

// ----------------------------------------------------------------------------
// CPU reference (double)

void vector_add_ref(const float *a, const float *b, double *ref, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ref[i] = (double)a[i] + (double)b[i];
}

// ----------------------------------------------------------------------------
// state: the student's function and the cuDNN baseline

struct state {
    vector_add_fn fn;
    cudnnHandle_t dnn;
    cudnnTensorDescriptor_t desc;
    cudnnOpTensorDescriptor_t op;
};

static void *setup(void *lib, char *err, size_t len)
{
    struct state *s = cl_xmalloc(sizeof *s);
    if (!(s->fn = (vector_add_fn)cl_entry_point(lib, "vector_add", err, len))) {
        free(s);
        return NULL;
    }
    CUDNN_CHECK(cudnnCreate(&s->dnn));
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&s->desc));
    CUDNN_CHECK(cudnnCreateOpTensorDescriptor(&s->op));
    CUDNN_CHECK(cudnnSetOpTensorDescriptor(
        s->op, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
    return s;
}

static void teardown(void *p)
{
    struct state *s = p;
    if (!s)
        return;
    CUDNN_CHECK(cudnnDestroyOpTensorDescriptor(s->op));
    CUDNN_CHECK(cudnnDestroyTensorDescriptor(s->desc));
    CUDNN_CHECK(cudnnDestroy(s->dnn));
    free(s);
}

// ----------------------------------------------------------------------------
// the timed calls

struct call {
    struct state *st;
    const float *a, *b;
    float *c;
    int n;
};

static void run_student(void *p, cudaStream_t s)
{
    struct call *c = p;
    c->st->fn(c->a, c->b, c->c, c->n, s);
}

static void run_cudnn(void *p, cudaStream_t s)
{
    struct call *c = p;
    const float one = 1.0f, zero = 0.0f;
    CUDNN_CHECK(cudnnSetStream(c->st->dnn, s));
    CUDNN_CHECK(cudnnOpTensor(c->st->dnn, c->st->op, &one, c->st->desc, c->a,
                              &one, c->st->desc, c->b, &zero, c->st->desc,
                              c->c));
}

// ----------------------------------------------------------------------------
// one case

static void run(void *p, const struct cl_ctx *ctx, const struct cl_case *cs,
                struct cl_result *r)
{
    struct state *st = p;
    cudaStream_t s = ctx->stream;
    int n = (int)cs->p[0];
    size_t bytes = (size_t)n * sizeof(float);
    struct cl_dbuf a, b, c, base;
    memset(&base, 0, sizeof base);
    const struct cl_dbuf *bufs[] = {&a, &b, &c};
    const char *names[] = {"a", "b", "c"};

    /* inputs on both sides, output poisoned, guards armed */
    float *ha = cl_input_create(&a, (size_t)n, (size_t)cs->p[1], ctx, 1);
    float *hb = cl_input_create(&b, (size_t)n, (size_t)cs->p[2], ctx, 2);
    cl_output_create(&c, (size_t)n, (size_t)cs->p[3], ctx);
    double *ref = cl_xmalloc((size_t)n * sizeof *ref);
    vector_add_ref(ha, hb, ref, (size_t)n);
    CUDA_CHECK(cudaStreamSynchronize(s));

    /* the sum of two inputs is exact in float: only rounding of a wrong
     * formula or lower precision can miss this tolerance */
    const struct cl_tolerance tol = {0.0, 1e-6, 1e-6};
    struct call call = {st, a.ptr, b.ptr, c.ptr, n};
    cl_profile_mark(ctx, 1);
    st->fn(a.ptr, b.ptr, c.ptr, n, s);
    cl_profile_mark(ctx, 0);
    if (cl_student_error(s, "in vector_add", r) ||
        cl_check_guards(bufs, names, 3, sizeof(float), s, r) ||
        cl_check_output(c.ptr, ref, (size_t)n, &tol, "c", r))
        goto done;
    r->status = CL_ST_PASS;
    if (!ctx->timing)
        goto done;

    /* time student, cuDNN and memcpy interleaved; re-check afterwards */
    cl_dbuf_create(&base, bytes, 0);
    struct call dnn = {st, a.ptr, b.ptr, base.ptr, n};
    /* the ceiling: n floats copied into the baseline's buffer */
    struct cl_copy cp = {base.ptr, a.ptr, bytes};
    struct cl_timed items[] = {
        {"vector_add", run_student, &call, {0}},
        {"cudnnOpTensor", run_cudnn, &dnn, {0}},
        {"memcpy", cl_run_copy, &cp, {0}},
    };
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(st->desc, CUDNN_TENSOR_NCHW,
                                           CUDNN_DATA_FLOAT, 1, 1, 1, n));
    run_cudnn(&dnn, s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    struct cl_result check = *r;
    if (cl_check_output(base.ptr, ref, (size_t)n, &tol, "cuDNN", &check)) {
        r->status = CL_ST_INTERNAL;
        snprintf(r->msg, sizeof r->msg, "baseline is wrong: %.900s", check.msg);
        goto done;
    }
    cl_dbuf_poison(&c, s);
    if (cl_time_case(ctx, items, 3, r))
        goto done;
    r->work = 3.0 * bytes;      /* read a and b, write c */
    r->ceil_work = 2.0 * bytes; /* memcpy: read n floats, write n floats */
    if (cl_check_guards(bufs, names, 3, sizeof(float), s, r) ||
        cl_check_output(c.ptr, ref, (size_t)n, &tol, "c (after timing)", r))
        r->timed = 0;

done:
    if (!r->restart) {
        for (int i = 0; i < 3; i++)
            cl_dbuf_destroy((struct cl_dbuf *)bufs[i]);
        cl_dbuf_destroy(&base);
    }
    free(ha);
    free(hb);
    free(ref);
}

// ----------------------------------------------------------------------------
// the spec

static const char *const symbols[] = {"vector_add", NULL};
static const char *const forbidden[] = {"cublas", "cudnn",    "curand",
                                        "cufft",  "cusparse", "cusolver",
                                        "npp",    "nvjpeg",   NULL};

const struct cl_lab cl_lab_vector_add = {
    .id = "01",
    .slug = "vector-add",
    .title = "Vector add",
    .source = "labs/01-vector-add/vector_add.cu",
    .todo = "TODO(lab1)",
    .symbols = symbols,
    .forbidden = forbidden,
    .baseline = "cudnnOpTensor",
    .ceiling = "memcpy",
    .metric = CL_METRIC_GBPS,
    .speed_target = 1.0,
    .speed_vs = CL_VS_BASELINE,
    .needs_gpu = 1,
    .timeout_s = 30.0,
    .profile_case = "n=2^28",
    .cases = cases,
    .ncases = (int)(sizeof cases / sizeof cases[0]),
    .setup = setup,
    .run = run,
    .teardown = teardown,
};
