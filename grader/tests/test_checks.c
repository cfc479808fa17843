/* test_checks.c: what a spec's check() and versus() read of a call, on the
 * CPU (the self-test lab's case n=1000, no runner, no GPU): the inputs a
 * check regenerates are the ones the call got; cl_check_output() reads the
 * submission's outputs or the baseline's, as the check's source says; the
 * default comparison and the count of unwritten elements; the check that
 * stops the judge's clock, with and without the baseline's values. */
#define _GNU_SOURCE
#include "guard.h"
#include "judge/baseline.h"
#include "judge/case.h"
#include "judge/checks.h"
#include "judge/clock.h"
#include "specs/labs.h"
#include "tests/suite.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define N 1000 /* case n=1000 */
enum { A, B, C };

static struct case_run k;
static struct cl_case_opts o;
static struct cl_run_opts ro;
static struct cl_result r;

/* case n=1000 of the self-test lab, planned, its buffers allocated and
 * filled as call 0 is, its baseline made and run into the mirrors */
static void setup(void)
{
    const struct cl_lab *lab = cl_lab_find("00", NULL);
    ck_assert_ptr_nonnull(lab);
    memset(&k, 0, sizeof k);
    memset(&o, 0, sizeof o);
    memset(&ro, 0, sizeof ro);
    ro.seed = 7;
    o.run = &ro;
    memset(&r, 0, sizeof r);
    r.status = CL_ST_PASS;
    k.lab = lab;
    k.index = 1;
    k.c = &lab->cases[1];
    ck_assert_str_eq(k.c->name, "n=1000");
    k.o = &o;
    k.r = &r;
    memcpy(k.arg, k.c->arg, lab->arg_size);
    ck_assert_int_eq(lab->plan(k.arg, &k.plan), 0);
    k.plan.check_calls = 1;
    ck_assert_int_eq(k.plan.nbuf, 3);
    cl_base_init(&k, lab->base);
    for (int i = 0; i < k.plan.nbuf; i++)
        cl_gbuf_alloc(&k.hb[i], k.plan.buf[i].count * 4, 0);
    void *img[CL_MAX_BUFS] = {k.hb[A].ptr, k.hb[B].ptr};
    cl_fill_host(lab, k.arg, &k.plan, NULL, ro.seed, 0, 1, img);
    ck_assert_int_eq(cl_case_resources(&k), 0);
    cl_base_prepare(&k, 0);
    double ms[CL_MAX_BASELINES];
    ck_assert_int_eq(cl_base_call(&k, 0, ms), 0);
    ck_assert_int_eq(cl_base_ran(&k), 1);
    /* the submission's answer: right, until a test spoils it */
    const float *a = k.hb[A].ptr, *b = k.hb[B].ptr;
    float *c = k.hb[C].ptr;
    for (int i = 0; i < N; i++)
        c[i] = a[i] + b[i];
}

static void teardown(void)
{
    cl_base_free(&k);
    for (int i = 0; i < k.plan.nbuf; i++)
        cl_gbuf_free(&k.hb[i], 1);
    cl_case_free_outputs(&k);
    cl_case_forget_inputs(&k);
}

static float *out_c(void)
{
    return k.hb[C].ptr;
}

static const float *mirror_c(void)
{
    return (const float *)k.hb[C].mirror;
}

/* the images a check regenerates are bit for bit the call's inputs, and
 * the submission's and the baseline's outputs are read from their own
 * buffers */
START_TEST(test_check_regenerates_the_inputs_of_the_call)
{
    struct cl_check ck;
    cl_check_init(&k, &ck, 0, "", &r, CL_FROM_SUBMISSION);
    ck_assert_mem_eq(cl_check_input(&ck, A, 0), k.hb[A].ptr, N * 4);
    ck_assert_mem_eq(cl_check_input(&ck, B, 0), k.hb[B].ptr, N * 4);
    ck_assert_mem_eq(cl_check_output(&ck, C), out_c(), N * 4);
    ck_assert_ptr_null(cl_check_output(&ck, 3));
    cl_case_forget_outputs(&k);
    cl_check_init(&k, &ck, 0, "", &r, CL_FROM_BASELINE);
    ck_assert_mem_eq(cl_check_output(&ck, C), mirror_c(), N * 4);
    cl_case_forget_outputs(&k);
    cl_case_forget_inputs(&k);
}
END_TEST

/* one wrong element: the submission's check fails and names it; the same
 * check on the baseline's outputs, which are right, passes */
START_TEST(test_check_source_chooses_whose_outputs)
{
    ck_assert_int_eq(cl_case_check(&k, 0, "", &r, CL_FROM_SUBMISSION), 0);
    ck_assert_int_eq(r.status, CL_ST_PASS);
    out_c()[417] += 1.0f;
    ck_assert_int_eq(
        cl_case_check(&k, 0, "after timing: ", &r, CL_FROM_SUBMISSION), 1);
    ck_assert_int_eq(r.status, CL_ST_WRONG);
    ck_assert_msg(strstr(r.msg, "after timing: c") && strstr(r.msg, "417"),
                  "%s", r.msg);
    struct cl_result br = {.status = CL_ST_PASS};
    ck_assert_int_eq(cl_case_check(&k, 0, "", &br, CL_FROM_BASELINE), 0);
    ck_assert_int_eq(br.status, CL_ST_PASS);
    cl_case_forget_inputs(&k);
}
END_TEST

/* outputs never written keep the poison: counted, the first named */
START_TEST(test_unwritten_elements_are_counted)
{
    struct cl_check ck;
    cl_check_init(&k, &ck, 0, "", &r, CL_FROM_SUBMISSION);
    ck_assert_int_eq(cl_check_written(&ck, C), 0);
    cl_case_forget_outputs(&k);
    memset(out_c() + 600, CL_POISON, 3 * sizeof(float));
    cl_check_init(&k, &ck, 0, "", &r, CL_FROM_SUBMISSION);
    ck_assert_int_eq(cl_check_written(&ck, C), 1);
    ck_assert_str_eq(r.msg, "c: 3 of 1000 elements never written; first "
                            "at [600]");
    cl_case_forget_outputs(&k);
    memset(out_c(), CL_POISON, N * sizeof(float));
    r.status = CL_ST_PASS;
    cl_check_init(&k, &ck, 0, "", &r, CL_FROM_SUBMISSION);
    ck_assert_int_eq(cl_check_written(&ck, C), 1);
    ck_assert_str_eq(r.msg, "c: none of the 1000 elements was written");
    cl_case_forget_outputs(&k);
}
END_TEST

/* versus(): the student's outputs against the baseline's, within twice
 * the tolerance; the first wrong element and its buffer are named */
START_TEST(test_versus_default_compares_with_the_baseline)
{
    struct cl_vs v;
    cl_check_init(&k, &v.ck, 0, "", &r, CL_FROM_SUBMISSION);
    v.scale = 2.0;
    int bad_buf = -1;
    size_t first = 0;
    ck_assert_int_eq(cl_vs_default(&v, &bad_buf, &first), 0);
    ck_assert_mem_eq(cl_vs_baseline(&v, C), mirror_c(), N * 4);
    cl_case_forget_outputs(&k);
    out_c()[5] = mirror_c()[5] * (1 + 1e-7f); /* inside 2 x 1e-6 */
    out_c()[999] = mirror_c()[999] + 0.5f;
    cl_check_init(&k, &v.ck, 0, "", &r, CL_FROM_SUBMISSION);
    ck_assert_int_eq(cl_vs_default(&v, &bad_buf, &first), 1);
    ck_assert_int_eq(bad_buf, C);
    ck_assert_uint_eq(first, 999);
    ck_assert_int_eq(r.status, CL_ST_WRONG);
    cl_case_forget_outputs(&k);
}
END_TEST

/* the check that stops the clock: against the baseline's values when it
 * ran for the call, else only whether the samples were written */
START_TEST(test_clock_sample_checks_values_or_writes)
{
    ck_assert_uint_eq(cl_clock_sample(&k, 11, cl_base_ran(&k)), 0);
    for (int i = 0; i < N; i++)
        out_c()[i] += 1.0f;
    ck_assert_uint_eq(cl_clock_sample(&k, 11, cl_base_ran(&k)), CL_SAMPLES);
    /* no baseline on this call: wrong values pass, poison does not */
    cl_base_prepare(&k, 1);
    ck_assert_int_eq(cl_base_ran(&k), 0);
    ck_assert_uint_eq(cl_clock_sample(&k, 11, cl_base_ran(&k)), 0);
    memset(out_c(), CL_POISON, N * sizeof(float));
    ck_assert_uint_eq(cl_clock_sample(&k, 11, cl_base_ran(&k)), CL_SAMPLES);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("checks");
    TCase *t = tcase_create("core");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, test_check_regenerates_the_inputs_of_the_call);
    tcase_add_test(t, test_check_source_chooses_whose_outputs);
    tcase_add_test(t, test_unwritten_elements_are_counted);
    tcase_add_test(t, test_versus_default_compares_with_the_baseline);
    tcase_add_test(t, test_clock_sample_checks_values_or_writes);
    suite_add_tcase(s, t);
    return cl_suite_run(s, 0, NULL);
}
