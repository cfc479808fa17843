/* test_score.c: scoring (score.h) on the CPU: speed credit along a band,
 * the ratio a speed case is scored on (speedup over the baseline or
 * fraction of the ceiling's throughput), the physical floor, the status
 * names, and a whole grade's totals under the built-in policy, built by
 * hand from a real lab's cases. */
#include "parent/grade.h"
#include "parent/policy.h"
#include "parent/report.h"
#include "parent/score.h"
#include "specs/labs.h"
#include "tests/suite.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

static struct cl_grade g; /* large: keep it off the stack */

/* a grade of every scored case of @p lab (spec order), each PASS */
static void grade_of(const struct cl_lab *lab)
{
    memset(&g, 0, sizeof g);
    g.lab = lab;
    for (int i = 0; i < lab->ncases; i++) {
        enum cl_case_kind k = lab->cases[i].kind;
        if (k != CL_CASE_CORRECT && k != CL_CASE_SPEED)
            continue;
        g.r[g.n].index = i;
        g.r[g.n].status = CL_ST_PASS;
        g.n++;
    }
}

/* the result of case @p name in g (fails the test when absent) */
static struct cl_result *result(const char *name)
{
    for (int k = 0; k < g.n; k++)
        if (strcmp(g.lab->cases[g.r[k].index].name, name) == 0)
            return &g.r[k];
    ck_abort_msg("no result for case %s", name);
    return NULL;
}

/* times for a ratio of @p ratio against the copy ceiling */
static void time_vs_ceiling(struct cl_result *r, double ratio)
{
    r->timed = 1;
    r->work = 3e9; /* 1.5e9 per ms at 2 ms */
    r->t_ms = 2.0;
    r->ceil_work = 1.5e9 / ratio; /* the copy: ceil_work per 1 ms */
    r->ceil_ms = 1.0;
    r->base_ms = 8.0; /* a speedup of 4 (unused under ceiling rules) */
}

// ---- speed credit ---------------------------------------------------------

/* credit is nothing at or below zero_at, linear in the band, full above */
START_TEST(test_speed_credit_linear_between_zero_and_full)
{
    struct cl_speed_rule band = {CL_VS_BASELINE, 0.5, 1.0};
    ck_assert_double_eq(cl_speed_credit(10, 0.25, &band), 0.0);
    ck_assert_double_eq(cl_speed_credit(10, 0.5, &band), 0.0);
    ck_assert_double_eq_tol(cl_speed_credit(10, 0.75, &band), 5.0, 1e-12);
    ck_assert_double_eq_tol(cl_speed_credit(10, 0.6, &band), 2.0, 1e-12);
    ck_assert_double_eq(cl_speed_credit(10, 1.0, &band), 10.0);
    ck_assert_double_eq(cl_speed_credit(10, 3.0, &band), 10.0);
    /* a band from 0: credit proportional to the ratio */
    struct cl_speed_rule from0 = {CL_VS_BASELINE, 0.0, 0.7};
    ck_assert_double_eq_tol(cl_speed_credit(40, 0.35, &from0), 20.0, 1e-12);
    ck_assert_double_eq_tol(cl_speed_credit(40, 0.07, &from0), 4.0, 1e-12);
    ck_assert_double_eq(cl_speed_credit(40, 0.0, &from0), 0.0);
    ck_assert_double_eq(cl_speed_credit(40, -1.0, &from0), 0.0);
    /* no points, no credit */
    ck_assert_double_eq(cl_speed_credit(0, 2.0, &from0), 0.0);
}
END_TEST

/* an empty or inverted band gives nothing instead of dividing by zero */
START_TEST(test_bad_speed_band_gives_no_credit)
{
    struct cl_speed_rule empty = {CL_VS_BASELINE, 1.0, 1.0};
    struct cl_speed_rule inverted = {CL_VS_BASELINE, 1.0, 0.5};
    struct cl_speed_rule zero = {CL_VS_BASELINE, 0.0, 0.0};
    ck_assert_double_eq(cl_speed_credit(40, 2.0, &empty), 0.0);
    ck_assert_double_eq(cl_speed_credit(40, 2.0, &inverted), 0.0);
    ck_assert_double_eq(cl_speed_credit(40, 1.0, &zero), 0.0);
}
END_TEST

// ---- the ratio --------------------------------------------------------------

/* baseline: base_ms / t_ms; ceiling: (work / t) / (ceil_work / ceil_ms);
 * nothing untimed or without the times it needs */
START_TEST(test_speed_ratio_follows_rule_zero_without_times)
{
    struct cl_result r;
    memset(&r, 0, sizeof r);
    r.timed = 1;
    r.t_ms = 2.0;
    r.base_ms = 3.0;
    r.work = 8e9; /* 4e9 per ms */
    r.ceil_ms = 1.0;
    r.ceil_work = 5e9; /* 5e9 per ms */
    struct cl_speed_rule base = {CL_VS_BASELINE, 0.0, 1.0};
    struct cl_speed_rule ceil = {CL_VS_CEILING, 0.6, 0.9};
    struct cl_speed_rule dflt = {CL_VS_DEFAULT, 0.0, 1.0};
    ck_assert_double_eq_tol(cl_speed_ratio(&base, &r), 1.5, 1e-12);
    ck_assert_double_eq_tol(cl_speed_ratio(&ceil, &r), 0.8, 1e-12);
    /* an unresolved rule is the baseline's (the policy's default) */
    ck_assert_double_eq_tol(cl_speed_ratio(&dflt, &r), 1.5, 1e-12);
    /* the band does not change the ratio */
    ceil.zero_at = 0.0;
    ck_assert_double_eq_tol(cl_speed_ratio(&ceil, &r), 0.8, 1e-12);
    /* a ceiling not measured: no ratio, whatever the baseline */
    r.ceil_ms = 0.0;
    ck_assert_double_eq(cl_speed_ratio(&ceil, &r), 0.0);
    ck_assert_double_eq_tol(cl_speed_ratio(&base, &r), 1.5, 1e-12);
    r.ceil_ms = 1.0;
    r.ceil_work = 0.0;
    ck_assert_double_eq(cl_speed_ratio(&ceil, &r), 0.0);
    /* no baseline time */
    r.base_ms = 0.0;
    ck_assert_double_eq(cl_speed_ratio(&base, &r), 0.0);
    /* not timed, or a zero time: 0, not a division by zero */
    r.base_ms = 3.0;
    r.ceil_work = 5e9;
    r.t_ms = 0.0;
    ck_assert_double_eq(cl_speed_ratio(&base, &r), 0.0);
    ck_assert_double_eq(cl_speed_ratio(&ceil, &r), 0.0);
    r.t_ms = 2.0;
    r.timed = 0;
    ck_assert_double_eq(cl_speed_ratio(&base, &r), 0.0);
    ck_assert_double_eq(cl_speed_ratio(&ceil, &r), 0.0);
}
END_TEST

// ---- statuses ---------------------------------------------------------------

/* every status has its own short name as the report and results.json
 * print it; anything else is "unknown" */
START_TEST(test_each_status_has_a_unique_name)
{
    static const char *const want[CL_ST_COUNT] = {
        [CL_ST_PASS] = "pass",
        [CL_ST_WRONG] = "wrong",
        [CL_ST_OOB] = "out-of-bounds",
        [CL_ST_CUDA] = "cuda-error",
        [CL_ST_CRASH] = "crash",
        [CL_ST_TIMEOUT] = "timeout",
        [CL_ST_TOO_FAST] = "too-fast",
        [CL_ST_NOT_RUN] = "not-run",
        [CL_ST_INTERNAL] = "internal-error",
        [CL_ST_FORBIDDEN] = "forbidden",
        [CL_ST_UNCONFIRMED] = "unconfirmed",
    };
    for (int s = 0; s < CL_ST_COUNT; s++) {
        const char *name = cl_status_name((enum cl_status)s);
        ck_assert_ptr_nonnull(want[s]);
        ck_assert_str_eq(name, want[s]);
        for (int t = 0; t < s; t++)
            ck_assert_str_ne(name, cl_status_name((enum cl_status)t));
    }
    ck_assert_str_eq(cl_status_name(CL_ST_COUNT), "unknown");
    ck_assert_str_eq(cl_status_name((enum cl_status)99), "unknown");
    ck_assert_str_eq(cl_status_name((enum cl_status)(-1)), "unknown");
}
END_TEST

/* right output: pass, too-fast (time rejected) and unconfirmed (time not
 * confirmed); everything else is not */
START_TEST(test_only_pass_too_fast_unconfirmed_are_correct)
{
    int correct = 0;
    for (int s = 0; s < CL_ST_COUNT; s++)
        correct += cl_status_correct((enum cl_status)s);
    ck_assert_int_eq(correct, 3);
    ck_assert_int_eq(cl_status_correct(CL_ST_PASS), 1);
    ck_assert_int_eq(cl_status_correct(CL_ST_TOO_FAST), 1);
    ck_assert_int_eq(cl_status_correct(CL_ST_UNCONFIRMED), 1);
    ck_assert_int_eq(cl_status_correct(CL_ST_WRONG), 0);
    ck_assert_int_eq(cl_status_correct(CL_ST_OOB), 0);
    ck_assert_int_eq(cl_status_correct(CL_ST_CUDA), 0);
    ck_assert_int_eq(cl_status_correct(CL_ST_CRASH), 0);
    ck_assert_int_eq(cl_status_correct(CL_ST_TIMEOUT), 0);
    ck_assert_int_eq(cl_status_correct(CL_ST_NOT_RUN), 0);
    ck_assert_int_eq(cl_status_correct(CL_ST_INTERNAL), 0);
    ck_assert_int_eq(cl_status_correct(CL_ST_FORBIDDEN), 0);
    ck_assert_int_eq(cl_status_correct((enum cl_status)99), 0);
}
END_TEST

// ---- a whole grade ----------------------------------------------------------

/* Lab 1 under the default policy: eight correctness cases worth 60, the
 * speed case n=2^28 worth 40 on the ceiling band 0.6..0.9; a ratio of
 * 0.75 earns half of it */
START_TEST(test_grade_totals_follow_default_policy_band)
{
    const struct cl_lab *lab = cl_lab_find("01", NULL);
    ck_assert_ptr_nonnull(lab);
    grade_of(lab);
    ck_assert_int_eq(g.n, 9);
    struct cl_result *s = result("n=2^28");
    time_vs_ceiling(s, 0.75);
    cl_score_grade(&g, NULL);
    ck_assert_int_eq(g.all_correct, 1);
    ck_assert_double_eq_tol(s->ratio, 0.75, 1e-12);
    ck_assert_double_eq_tol(s->target, 0.9, 1e-12);
    ck_assert_double_eq(s->max_score, 40.0);
    ck_assert_double_eq_tol(s->score, 20.0, 1e-9);
    ck_assert_double_eq(result("n=1")->score, 6.0);
    ck_assert_double_eq(result("n=1")->max_score, 6.0);
    ck_assert_double_eq(result("misaligned")->score, 9.0);
    ck_assert_double_eq(g.correct_score, 60.0);
    ck_assert_double_eq(g.correct_max, 60.0);
    ck_assert_double_eq_tol(g.speed_score, 20.0, 1e-9);
    ck_assert_double_eq(g.speed_max, 40.0);
    ck_assert_double_eq_tol(g.score, 80.0, 1e-9);
    ck_assert_double_eq(g.max_score, 100.0);
    /* the totals are the policy's */
    ck_assert_double_eq(g.max_score,
                        cl_policy_lab_max(cl_policy_default(), lab));
    /* at or past full_at, all of it, and no more */
    time_vs_ceiling(s, 1.2);
    cl_score_grade(&g, NULL);
    ck_assert_double_eq_tol(s->score, 40.0, 1e-9);
    ck_assert_double_eq_tol(g.score, 100.0, 1e-9);
    /* at zero_at, nothing */
    time_vs_ceiling(s, 0.6);
    cl_score_grade(&g, NULL);
    ck_assert_double_eq(s->score, 0.0);
    ck_assert_double_eq_tol(g.score, 60.0, 1e-9);
}
END_TEST

/* one wrong correctness case: its points are lost and no speed credit is
 * given anywhere, though the ratio is still recorded */
START_TEST(test_grade_speed_needs_correctness)
{
    const struct cl_lab *lab = cl_lab_find("01", NULL);
    grade_of(lab);
    struct cl_result *s = result("n=2^28");
    time_vs_ceiling(s, 0.9);
    result("n=31")->status = CL_ST_WRONG;
    cl_score_grade(&g, NULL);
    ck_assert_int_eq(g.all_correct, 0);
    ck_assert_double_eq(result("n=31")->score, 0.0);
    ck_assert_double_eq(result("n=31")->max_score, 6.0);
    ck_assert_double_eq(g.correct_score, 54.0);
    ck_assert_double_eq(g.speed_score, 0.0);
    ck_assert_double_eq(s->score, 0.0);
    ck_assert_double_eq_tol(s->ratio, 0.9, 1e-12);
    ck_assert_double_eq(g.score, 54.0);
    ck_assert_double_eq(g.max_score, 100.0);
    /* a crash, an out-of-bounds write or a forbidden call: the same */
    static const enum cl_status bad[] = {CL_ST_OOB, CL_ST_CRASH,
                                         CL_ST_FORBIDDEN, CL_ST_TIMEOUT};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        result("n=31")->status = bad[i];
        cl_score_grade(&g, NULL);
        ck_assert_int_eq(g.all_correct, 0);
        ck_assert_double_eq(g.score, 54.0);
    }
    /* the speed case itself failing costs its points and the flag */
    result("n=31")->status = CL_ST_PASS;
    s->status = CL_ST_WRONG;
    cl_score_grade(&g, NULL);
    ck_assert_int_eq(g.all_correct, 0);
    ck_assert_double_eq(g.score, 60.0);
}
END_TEST

/* a speed case whose time was not confirmed, or was rejected as too fast:
 * correct (the other cases keep their credit), but no speed credit */
START_TEST(test_unconfirmed_or_too_fast_earns_no_speed_credit)
{
    const struct cl_lab *lab = cl_lab_find("02", NULL);
    grade_of(lab);
    /* every speed case at full speed: 2x the ceiling and the baseline */
    for (int k = 0; k < g.n; k++)
        if (lab->cases[g.r[k].index].kind == CL_CASE_SPEED)
            time_vs_ceiling(&g.r[k], 2.0);
    cl_score_grade(&g, NULL);
    ck_assert_double_eq_tol(g.score, 100.0, 1e-9);
    double full = result("A:n=2^26,R=3")->score;
    ck_assert_double_eq_tol(full, 15.0, 1e-9);
    result("A:n=2^26,R=3")->status = CL_ST_UNCONFIRMED;
    cl_score_grade(&g, NULL);
    ck_assert_int_eq(g.all_correct, 1);
    ck_assert_double_eq(result("A:n=2^26,R=3")->score, 0.0);
    ck_assert_double_eq(result("A:n=2^26,R=3")->max_score, 15.0);
    ck_assert_double_eq_tol(result("A:n=2^26,R=8")->score, 12.0, 1e-9);
    ck_assert_double_eq(g.correct_score, 48.0);
    ck_assert_double_eq_tol(g.speed_score, 37.0, 1e-9);
    ck_assert_double_eq_tol(g.score, 85.0, 1e-9);
    result("A:n=2^26,R=3")->status = CL_ST_TOO_FAST;
    cl_score_grade(&g, NULL);
    ck_assert_int_eq(g.all_correct, 1);
    ck_assert_double_eq(result("A:n=2^26,R=3")->score, 0.0);
    ck_assert_double_eq_tol(g.score, 85.0, 1e-9);
    /* a correctness case can be neither: anything but pass earns nothing */
    result("A:n=2^26,R=3")->status = CL_ST_PASS;
    result("A:n=1,R=1")->status = CL_ST_UNCONFIRMED;
    cl_score_grade(&g, NULL);
    ck_assert_double_eq(result("A:n=1,R=1")->score, 0.0);
    ck_assert_double_eq_tol(g.score, 96.0, 1e-9);
}
END_TEST

/* a case with its own rule: Lab 2's K=128 conv is scored against cuDNN
 * (baseline, full at 1.0), the other speed cases against the copy */
START_TEST(test_case_rule_overrides_lab_speed_rule)
{
    const struct cl_lab *lab = cl_lab_find("02", NULL);
    grade_of(lab);
    struct cl_result *k128 = result("B:8x1024x4096,K=128");
    struct cl_result *k4 = result("B:8x1024x4096,K=4");
    time_vs_ceiling(k128, 0.4); /* speedup 8 / 2 = 4 over the baseline */
    k128->base_ms = 1.0;        /* now 0.5x the baseline */
    time_vs_ceiling(k4, 0.4);
    cl_score_grade(&g, NULL);
    ck_assert_double_eq_tol(k128->ratio, 0.5, 1e-12);
    ck_assert_double_eq_tol(k128->target, 1.0, 1e-12);
    ck_assert_double_eq_tol(k128->score, 5.0, 1e-9); /* half of 10 */
    ck_assert_double_eq_tol(k4->ratio, 0.4, 1e-12);
    ck_assert_double_eq_tol(k4->target, 0.8, 1e-12);
    ck_assert_double_eq_tol(k4->score, 7.5, 1e-9); /* half of 15 */
    /* each result carries its speedup and what its ratio is of, for the
     * report to print as scored */
    ck_assert_double_eq_tol(k128->speedup, 0.5, 1e-12);
    ck_assert_int_eq(k128->vs_ceiling, 0);
    ck_assert_double_eq_tol(k4->speedup, k4->base_ms / k4->t_ms, 1e-12);
    ck_assert_double_gt(k4->speedup, 0);
    ck_assert_int_eq(k4->vs_ceiling, 1);
    ck_assert_double_eq(result("A:n=1,R=1")->speedup, 0.0);
    k4->base_ms = 0; /* no baseline time: no speedup, no division */
    cl_score_grade(&g, NULL);
    ck_assert_double_eq(k4->speedup, 0.0);
}
END_TEST

/* bench and demo cases are never scored, but a timed bench case gets its
 * ratio for the CSV and the plots; an empty grade earns nothing */
START_TEST(test_bench_cases_and_empty_grade_earn_nothing)
{
    const struct cl_lab *lab = cl_lab_find("01", NULL);
    grade_of(lab);
    int bench = -1;
    for (int i = 0; i < lab->ncases; i++)
        if (strcmp(lab->cases[i].name, "n=2^15") == 0)
            bench = i;
    ck_assert_int_eq(lab->cases[bench].kind, CL_CASE_BENCH);
    struct cl_result *b = &g.r[g.n++];
    b->index = bench;
    b->status = CL_ST_PASS;
    time_vs_ceiling(b, 0.5);
    cl_score_grade(&g, NULL);
    ck_assert_double_eq(b->max_score, 0.0);
    ck_assert_double_eq(b->score, 0.0);
    ck_assert_double_eq_tol(b->ratio, 0.5, 1e-12);
    ck_assert_double_eq(g.max_score, 100.0);
    ck_assert_double_eq(g.score, 60.0); /* the speed case is untimed */
    memset(&g, 0, sizeof g);
    g.lab = lab;
    cl_score_grade(&g, NULL);
    ck_assert_int_eq(g.all_correct, 0);
    ck_assert_double_eq(g.score, 0.0);
    ck_assert_double_eq(g.max_score, 0.0);
}
END_TEST

/* a policy of the course's own: its points and its band are used */
START_TEST(test_course_policy_sets_points_and_band)
{
    static struct cl_policy p;
    char err[256];
    p = *cl_policy_default();
    ck_assert_msg(cl_policy_parse(&p,
                                  "{\"labs\": {\"01\": {\"speed\": {\"zero_at\""
                                  ": 0.5, \"full_at\": 1.0}, \"cases\": "
                                  "{\"n=2^28\": 20, \"n=1\": 26}}}}",
                                  NULL, err, sizeof err) == 0,
                  "%s", err);
    const struct cl_lab *lab = cl_lab_find("01", NULL);
    grade_of(lab);
    time_vs_ceiling(result("n=2^28"), 0.75);
    cl_score_grade(&g, &p);
    ck_assert_double_eq_tol(result("n=2^28")->score, 10.0, 1e-9);
    ck_assert_double_eq_tol(result("n=2^28")->target, 1.0, 1e-12);
    ck_assert_double_eq(result("n=1")->score, 26.0);
    ck_assert_double_eq(g.correct_max, 80.0);
    ck_assert_double_eq(g.speed_max, 20.0);
    ck_assert_double_eq_tol(g.score, 90.0, 1e-9);
}
END_TEST

/* the bonus (Lab 5: 1.5x cuDNN): timed passing cases at or past it, and
 * none while a case is wrong or in a lab without one */
START_TEST(test_bonus_cases_are_timed_passes_past_bonus_at)
{
    const struct cl_lab *lab = cl_lab_find("05", NULL);
    grade_of(lab);
    struct cl_result *b1 = result("t32-b1"), *b8 = result("t32-b8");
    struct cl_result *b64 = result("t32-b64");
    b1->timed = b8->timed = b64->timed = 1;
    b1->t_ms = b8->t_ms = b64->t_ms = 1.0;
    b1->base_ms = 2.0;  /* 2x: a bonus */
    b8->base_ms = 1.5;  /* exactly 1.5x: a bonus */
    b64->base_ms = 1.2; /* full points, no bonus */
    cl_score_grade(&g, NULL);
    ck_assert_double_eq(cl_policy_bonus(cl_policy_default(), lab), 1.5);
    int which[8];
    ck_assert_int_eq(cl_bonus_cases(&g, which, 8), 2);
    ck_assert_str_eq(lab->cases[g.r[which[0]].index].name, "t32-b1");
    ck_assert_str_eq(lab->cases[g.r[which[1]].index].name, "t32-b8");
    /* room for one: still counts both */
    ck_assert_int_eq(cl_bonus_cases(&g, which, 1), 2);
    /* unconfirmed time: no bonus for that case */
    b1->status = CL_ST_UNCONFIRMED;
    cl_score_grade(&g, NULL);
    ck_assert_int_eq(cl_bonus_cases(&g, which, 8), 1);
    b1->status = CL_ST_PASS;
    result("cell-b1-h100")->status = CL_ST_WRONG;
    cl_score_grade(&g, NULL);
    ck_assert_int_eq(cl_bonus_cases(&g, which, 8), 0);
    /* Lab 3 has no bonus */
    grade_of(cl_lab_find("03", NULL));
    g.r[g.n - 1].timed = 1;
    g.r[g.n - 1].t_ms = 1.0;
    g.r[g.n - 1].base_ms = 10.0;
    cl_score_grade(&g, NULL);
    ck_assert_int_eq(cl_bonus_cases(&g, which, 8), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("score");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_speed_credit_linear_between_zero_and_full);
    tcase_add_test(core, test_speed_ratio_follows_rule_zero_without_times);
    tcase_add_test(core, test_each_status_has_a_unique_name);
    tcase_add_test(core, test_only_pass_too_fast_unconfirmed_are_correct);
    tcase_add_test(core, test_grade_totals_follow_default_policy_band);
    tcase_add_test(core, test_grade_speed_needs_correctness);
    tcase_add_test(core, test_unconfirmed_or_too_fast_earns_no_speed_credit);
    tcase_add_test(core, test_case_rule_overrides_lab_speed_rule);
    tcase_add_test(core, test_course_policy_sets_points_and_band);
    tcase_add_test(core, test_bonus_cases_are_timed_passes_past_bonus_at);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_bad_speed_band_gives_no_credit);
    tcase_add_test(limits, test_bench_cases_and_empty_grade_earn_nothing);
    suite_add_tcase(s, limits);
    return cl_suite_run(s, 0, NULL);
}
