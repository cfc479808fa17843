/* test_measure.c: the judge's statistics (judge/measure.h) on the CPU: the
 * series and their bounds, the frame and its noise, the scored time of a
 * call (the judge's clock, which a report may lower by the noise at most),
 * and the physical floor. */
#include "judge/measure.h"

#include <check.h>
#include <math.h>
#include <string.h>

#include "tests/suite.h"

/* a series takes no more than its room, and nothing that is not positive:
 * the judge once wrote 202 samples into 200 (a heap corruption) */
START_TEST(test_series_refuses_overflow_and_nonpositive)
{
    struct cl_series s = cl_series_make(4);
    ck_assert_int_eq(s.cap, 4);
    for (int i = 1; i <= 10; i++)
        ck_assert_int_eq(cl_series_push(&s, i), i <= 4);
    ck_assert_int_eq(s.n, 4);
    ck_assert_int_eq(cl_series_push(&s, 0), 0);
    cl_series_free(&s);
    s = cl_series_make(8);
    ck_assert_int_eq(cl_series_push(&s, 0.0), 0);
    ck_assert_int_eq(cl_series_push(&s, -1.0), 0);
    ck_assert_int_eq(cl_series_push(&s, NAN), 0);
    ck_assert_int_eq(s.n, 0);
    ck_assert_double_eq(cl_series_median(&s), 0.0);
    ck_assert_double_eq(cl_series_quantile(&s, 0.5), 0.0);
    cl_series_free(&s);
    ck_assert_ptr_null(s.v);
}
END_TEST

START_TEST(test_series_quantiles_keep_samples_in_order)
{
    struct cl_series s = cl_series_make(16);
    const double v[] = {5, 1, 4, 2, 3}; /* unsorted on purpose */
    for (int i = 0; i < 5; i++)
        cl_series_push(&s, v[i]);
    ck_assert_double_eq(cl_series_median(&s), 3.0);
    ck_assert_double_eq_tol(cl_series_quantile(&s, 0.25), 2.0, 1e-12);
    ck_assert_double_eq_tol(cl_series_quantile(&s, 0.75), 4.0, 1e-12);
    ck_assert_double_eq(cl_series_quantile(&s, 0.0), 1.0);
    ck_assert_double_eq(cl_series_quantile(&s, 1.0), 5.0);
    /* the series itself stays in the order taken */
    ck_assert_double_eq(s.v[0], 5.0);
    /* fewer than min samples count as settled: nothing to judge yet */
    ck_assert_int_eq(cl_series_settled(&s, 10, 0.01), 1);
    cl_series_free(&s);
}
END_TEST

/* the frame: the median of the empty frames, noise twice their middle
 * half's spread, never below the minimum */
START_TEST(test_frame_noise_robust_and_never_below_minimum)
{
    struct cl_series d = cl_series_make(16);
    struct cl_frame f = cl_frame_of(&d);
    ck_assert_double_eq(f.median_ms, 0.0);
    ck_assert_double_eq(f.noise_ms, CL_NOISE_MIN_MS);
    const double v[] = {0.060, 0.061, 0.059, 0.062, 0.058,
                        0.060, 0.061, 0.059, 0.500}; /* one OS hiccup */
    for (int i = 0; i < 9; i++)
        cl_series_push(&d, v[i]);
    f = cl_frame_of(&d);
    ck_assert_double_eq_tol(f.median_ms, 0.060, 1e-12);
    /* p25 0.059, p75 0.061: noise 0.004, the hiccup does not count */
    ck_assert_double_eq_tol(f.noise_ms, 0.004, 1e-9);
    /* a steady frame still has the minimum */
    cl_series_free(&d);
    d = cl_series_make(4);
    for (int i = 0; i < 4; i++)
        cl_series_push(&d, 0.06);
    ck_assert_double_eq(cl_frame_of(&d).noise_ms, CL_NOISE_MIN_MS);
    cl_series_free(&d);
}
END_TEST

/* a call's scored time: the judge's clock less the frame; an honest report
 * within the noise is kept (it is the more precise); a report that lies
 * lowers it by the noise at most; one that says more than the judge saw
 * counts against the submission; no report: the judge's alone */
START_TEST(test_scored_time_lowered_by_noise_at_most)
{
    const struct cl_frame f = {0.060, 0.004};
    /* honest: events 1.000 ms, judge 1.062 (frame 0.060, 2 us of noise) */
    ck_assert_double_eq_tol(cl_call_scored_ms(1.000, 1.062, &f), 1.000, 1e-12);
    ck_assert_double_eq_tol(cl_call_scored_ms(1.000, 1.058, &f), 1.000, 1e-12);
    /* a lie of any size: never below judge - frame - noise */
    for (double lie = 0.0; lie < 1.0; lie += 0.1)
        ck_assert_double_ge(cl_call_scored_ms(lie, 1.062, &f),
                            1.062 - 0.060 - 0.004 - 1e-12);
    ck_assert_double_eq_tol(cl_call_scored_ms(0.0, 1.062, &f), 0.998, 1e-12);
    /* more than the judge saw: the report stands */
    ck_assert_double_eq_tol(cl_call_scored_ms(2.0, 1.062, &f), 2.0, 1e-12);
    /* no report */
    ck_assert_double_eq_tol(cl_call_scored_ms(-1, 1.062, &f), 1.002, 1e-12);
    /* never negative */
    ck_assert_double_eq(cl_call_scored_ms(-1, 0.010, &f), 0.0);
    ck_assert_double_eq(cl_call_scored_ms(0.0, 0.030, &f), 0.0);
}
END_TEST

/* a passed, timed case scored above its events by more than 1% (and 1 us)
 * is looked at again; of the two, a failure of the submission's stands,
 * the grader's or the host's does not, and of two passes the faster */
START_TEST(test_second_look_due_past_gap_keeps_their_failure)
{
    struct cl_result r;
    memset(&r, 0, sizeof r);
    r.status = CL_ST_PASS;
    r.timed = 1;
    r.event_ms = 0.200;
    r.t_ms = 0.2019; /* 0.95% above */
    ck_assert_int_eq(cl_second_look_due(&r), 0);
    r.t_ms = 0.275; /* the false verdict of the H100 soak (Lab 2) */
    ck_assert_int_eq(cl_second_look_due(&r), 1);
    r.event_ms = 0.008; /* a short case: 1 us at least */
    r.t_ms = 0.0089;
    ck_assert_int_eq(cl_second_look_due(&r), 0);
    r.t_ms = 0.0091;
    ck_assert_int_eq(cl_second_look_due(&r), 1);
    r.event_ms = 3.0; /* per_tensor's thousand launches: 0.38 ms of host */
    r.t_ms = 3.38;
    ck_assert_int_eq(cl_second_look_due(&r), 1);
    r.t_ms = 4.6; /* half the events above them: no host noise */
    ck_assert_int_eq(cl_second_look_due(&r), 0);
    r.event_ms = 0.2; /* a short case: 0.5 ms at least */
    r.t_ms = 0.69;
    ck_assert_int_eq(cl_second_look_due(&r), 1);
    r.t_ms = 0.71;
    ck_assert_int_eq(cl_second_look_due(&r), 0);
    r.event_ms = 0.008;
    r.t_ms = 0.0091;
    r.restart = 1; /* no second look from a broken judge */
    ck_assert_int_eq(cl_second_look_due(&r), 0);
    r.restart = 0;
    r.event_ms = 0; /* no events reported: nothing to look twice at */
    ck_assert_int_eq(cl_second_look_due(&r), 0);
    r.event_ms = 0.008;
    r.timed = 0;
    ck_assert_int_eq(cl_second_look_due(&r), 0);
    r.timed = 1;
    r.status = CL_ST_WRONG;
    ck_assert_int_eq(cl_second_look_due(&r), 0);

    struct cl_result first, again;
    memset(&first, 0, sizeof first);
    memset(&again, 0, sizeof again);
    first.status = again.status = CL_ST_PASS;
    first.t_ms = 0.275;
    again.t_ms = 0.201;
    ck_assert_int_eq(cl_second_look_keeps(&first, &again), 1);
    again.t_ms = 0.300;
    ck_assert_int_eq(cl_second_look_keeps(&first, &again), 0);
    static const enum cl_status theirs[] = {
        CL_ST_WRONG,   CL_ST_OOB,      CL_ST_CUDA,     CL_ST_CRASH,
        CL_ST_TIMEOUT, CL_ST_TOO_FAST, CL_ST_FORBIDDEN};
    for (size_t i = 0; i < sizeof theirs / sizeof *theirs; i++) {
        again.status = theirs[i];
        ck_assert_int_eq(cl_second_look_keeps(&first, &again), 1);
    }
    static const enum cl_status not_theirs[] = {
        CL_ST_INTERNAL, CL_ST_UNCONFIRMED, CL_ST_NOT_RUN};
    for (size_t i = 0; i < sizeof not_theirs / sizeof *not_theirs; i++) {
        again.status = not_theirs[i];
        ck_assert_int_eq(cl_second_look_keeps(&first, &again), 0);
    }
}
END_TEST

/* bytes past what the L2 holds over the theoretical bandwidth (else 1.25x
 * the copy), FLOPs over six times the FP32 peak, twelve from cc 10 (else
 * as many times the SGEMM rate); 0 when the GPU's rates are unknown */
START_TEST(test_physical_floor_from_matching_rate_else_zero)
{
    struct cl_gpu_info gi;
    memset(&gi, 0, sizeof gi);
    ck_assert_double_eq(cl_floor_ms(CL_METRIC_GBPS, 1e9, &gi), 0.0);
    ck_assert_double_eq(cl_floor_ms(CL_METRIC_TFLOPS, 1e12, &gi), 0.0);
    gi.memcpy_gbps = 4000; /* no theory: 1.25x the copy = 5000 GB/s */
    ck_assert_double_eq_tol(cl_floor_ms(CL_METRIC_GBPS, 1e9, &gi), 0.2, 1e-12);
    /* a bandwidth says nothing about FLOPs */
    ck_assert_double_eq(cl_floor_ms(CL_METRIC_TFLOPS, 1e12, &gi), 0.0);
    gi.bw_theory_gbps = 4800; /* the theory wins: 3 GB at 4.8 TB/s */
    ck_assert_double_eq_tol(cl_floor_ms(CL_METRIC_GBPS, 3e9, &gi), 0.625,
                            1e-12);
    /* 60 MB of L2 may hold writes not yet in memory at the call's end */
    gi.l2_bytes = 60000000;
    ck_assert_double_eq_tol(cl_floor_ms(CL_METRIC_GBPS, 3e9, &gi),
                            (3e9 - 6e7) / 4.8e12 * 1e3, 1e-12);
    ck_assert_double_eq(cl_floor_ms(CL_METRIC_GBPS, 5e7, &gi), 0.0);
    gi.sgemm_tflops = 50; /* 1e12 FLOP at 6 x 50 TFLOP/s = 3.33 ms */
    ck_assert_double_eq_tol(cl_floor_ms(CL_METRIC_TFLOPS, 1e12, &gi), 1e3 / 300,
                            1e-9);
    /* the theory wins: an SGEMM measured 80 times slow (under a sanitizer)
     * must not lift the floor above an honest time */
    gi.cc_major = 9;
    gi.fp32_theory_tflops = 62.5; /* 1e12 FLOP at 6 x 62.5 = 2.67 ms */
    gi.sgemm_tflops = 0.8;
    ck_assert_double_eq_tol(cl_floor_ms(CL_METRIC_TFLOPS, 1e12, &gi), 1e3 / 375,
                            1e-9);
    /* Blackwell's tensor cores: twelve times (1e12 at 12 x 62.5) */
    gi.cc_major = 10;
    ck_assert_double_eq_tol(cl_floor_ms(CL_METRIC_TFLOPS, 1e12, &gi), 1e3 / 750,
                            1e-9);
    /* and a FLOP rate says nothing about bytes */
    memset(&gi, 0, sizeof gi);
    gi.sgemm_tflops = 50;
    ck_assert_double_eq(cl_floor_ms(CL_METRIC_GBPS, 1e9, &gi), 0.0);
    /* no work, no floor */
    gi.bw_theory_gbps = 4800;
    ck_assert_double_eq(cl_floor_ms(CL_METRIC_GBPS, 0.0, &gi), 0.0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("measure");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_series_quantiles_keep_samples_in_order);
    tcase_add_test(core, test_frame_noise_robust_and_never_below_minimum);
    tcase_add_test(core, test_scored_time_lowered_by_noise_at_most);
    tcase_add_test(core, test_second_look_due_past_gap_keeps_their_failure);
    tcase_add_test(core, test_physical_floor_from_matching_rate_else_zero);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_series_refuses_overflow_and_nonpositive);
    suite_add_tcase(s, limits);
    return cl_suite_run(s, 0, NULL);
}
