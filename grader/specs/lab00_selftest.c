/*
 * Lab 0 spec: the grader's self-test, on the CPU.
 *
 * c = a + b in a shared library built with gcc, graded by the same
 * harness, judge and sandboxed runner as the real labs, with no GPU: the
 * fixtures in grader/tests/selftest/ try to break out of the sandbox, fool
 * the judge or bring it down, and `make selftest` (or `grade 00 --lib
 * FIXTURE.so`) shows that none of them can on this machine. Its imports
 * are not checked, so that every fixture reaches the sandbox; libz stands
 * in for a forbidden library.
 */
#include "protocol/glue.h"
#include "judge/spec.h"
#include "specs/refs.h"

#include <stdio.h>
#include <stdlib.h>

#define CASE(nm, kd, n_, q)                                                    \
    {                                                                          \
        .name = nm, .kind = kd, .arg = &(const struct selftest_case){.n = n_}, \
        .quick = q                                                             \
    }

static const struct cl_case cases[] = {
    CASE("n=1", CL_CASE_CORRECT, 1, 1),
    CASE("n=1000", CL_CASE_CORRECT, 1000, 1),
    CASE("n=2^20", CL_CASE_CORRECT, 1 << 20, 0),
    CASE("speed", CL_CASE_SPEED, 1 << 24, 0),
};

static int plan(const void *arg, struct cl_plan *p)
{
    const struct selftest_case *c = arg;
    cl_plan_buf(p, "a", CL_IN, CL_F32, (size_t)c->n, 0);
    cl_plan_buf(p, "b", CL_IN, CL_F32, (size_t)c->n, 0);
    cl_plan_buf(p, "c", CL_OUT, CL_F32, (size_t)c->n, 0);
    p->work = 3.0 * 4 * c->n;
    p->tol = (struct cl_tolerance){0.0, 1e-6, 1e-6};
    return 0;
}

static int check(struct cl_check *ck)
{
    const struct selftest_case *c = ck->arg;
    double *ref = cl_xmalloc((size_t)c->n * sizeof *ref);
    vector_add_ref(cl_check_input(ck, SELF_A, ck->call),
                   cl_check_input(ck, SELF_B, ck->call), ref, (size_t)c->n);
    struct cl_compare cmp;
    cl_compare_f32(cl_check_output(ck, SELF_C), ref, NULL, (size_t)c->n,
                   &ck->plan->tol, &cmp);
    free(ref);
    char what[64];
    snprintf(what, sizeof what, "%sc", ck->when);
    return cl_verdict(&cmp, what, ck->r);
}

// ---- the baseline: the same sum, by the judge
// ---------------------------------

struct add {
    const float *a, *b;
    float *c;
    int n;
};

static void *add_create(const struct cl_base_ctx *b, char *why, size_t len)
{
    struct add *s = cl_xmalloc(sizeof *s);
    (void)why;
    (void)len;
    *s = (struct add){b->in[SELF_A], b->in[SELF_B], b->out[SELF_C],
                      ((const struct selftest_case *)b->arg)->n};
    return s;
}

static const char *add_name(void *st, int i)
{
    (void)st;
    (void)i;
    return "the judge's loop";
}

static int add_run(void *st, int i, cudaStream_t s)
{
    struct add *a = st;
    (void)i;
    (void)s;
    for (int k = 0; k < a->n; k++)
        a->c[k] = a->a[k] + a->b[k];
    return 0;
}

static const struct cl_baseline add = {.count = 1,
                                       .create = add_create,
                                       .name = add_name,
                                       .run = add_run,
                                       .destroy = free};

static const char *const forbidden[] = {"z", NULL};
static const struct cl_caps caps = {.forbidden = forbidden, .any_import = 1};

const struct cl_lab cl_lab_selftest = {
    .id = "00",
    .slug = "selftest",
    .title = "The grader's self-test (CPU)",
    .source = "grader/tests/selftest/honest.c",
    .todo = "TODO(selftest)",
    .caps = &caps,
    .baseline = "the judge's loop",
    .ceiling = NULL,
    .metric = CL_METRIC_GBPS,
    .needs_gpu = 0,
    .profile_case = "speed",
    .cases = cases,
    .ncases = (int)(sizeof cases / sizeof cases[0]),
    .arg_size = sizeof(struct selftest_case),
    .plan = plan,
    .check = check,
    .base = &add,
};
