/* test_grader.c: the engine, scoring, report, JSON, symbols and CLI, on the
 * CPU. Isolation is tested with labs whose "submission" runs on the CPU:
 * they crash, hang, abort, exit and write out of bounds on purpose. */
#define _GNU_SOURCE
#include "cli.h"
#include "engine.h"
#include "fatal.h"
#include "gru.h"
#include "labkit.h"
#include "guard.h"
#include "refs.h"
#include "seq2seq.h"
#include "shell.h"
#include "report.h"
#include "score.h"
#include "symbols.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CL_BUILD_DIR
#define CL_BUILD_DIR "build"
#endif
#define FIXTURE(name) CL_BUILD_DIR "/fixtures/lab01/" name ".so"
#define SOLUTION_SO   CL_BUILD_DIR "/solution/01-vector-add.so"

// ---- a lab that runs on the CPU -------------------------------------------

enum behaviour {
    B_PASS,
    B_SEGV,
    B_HANG,
    B_ABORT,
    B_EXIT,
    B_WRONG,
    B_OOB,
    B_STICKY,
    B_FATAL,
    B_PID,
    B_SPEED
};

static void *cpu_setup(void *lib, char *err, size_t len)
{
    (void)err;
    (void)len;
    return lib; /* any non-NULL state */
}

static void cpu_run(void *state, const struct cl_ctx *ctx,
                    const struct cl_case *c, struct cl_result *r)
{
    (void)state;
    unsigned char buf[16 + 8 + 16]; /* guard, 8 bytes of output, guard */
    volatile int *null = NULL;
    r->status = CL_ST_PASS;
    switch ((enum behaviour)c->p[0]) {
    case B_PASS: break;
    case B_SEGV: *null = 1; break;
    case B_HANG: sleep(60); break;
    case B_ABORT: abort();
    case B_EXIT: exit(3);
    case B_WRONG:
        r->status = CL_ST_WRONG;
        snprintf(r->msg, sizeof r->msg, "c: 1 of 1 elements wrong");
        break;
    case B_OOB: {
        /* the "student" writes 9 bytes into an 8-byte output */
        memset(buf, CL_CANARY, sizeof buf);
        memset(buf + 16, 0, 9);
        size_t first = 0;
        size_t bad = cl_scan_bytes(buf + 24, 16, CL_CANARY, &first, NULL);
        struct cl_guard_report g = {0, bad, (long)(8 + first) / 4};
        if (cl_guard_describe(&g, "c", 4, r->msg, sizeof r->msg))
            r->status = CL_ST_OOB;
        break;
    }
    case B_STICKY:
        r->status = CL_ST_CUDA;
        r->restart = 1;
        snprintf(r->msg, sizeof r->msg, "sticky %d", (int)getpid());
        break;
    case B_FATAL: cl_fatal("lab.c", 7, "cudaMemcpy(...)", "CUDA", "boom");
    case B_PID: snprintf(r->msg, sizeof r->msg, "%d", (int)getpid()); break;
    case B_SPEED:
        if (ctx->timing) {
            r->timed = 1;
            r->t_ms = 2.0;
            r->base_ms = 1.0;
            r->work = 1e6;
        }
        break;
    }
}

#define CASE(name, b, kind, pts)                                               \
    {                                                                          \
        name, kind, pts, {b, 0, 0, 0, 0, 0}, 1, 0, CL_VS_DEFAULT               \
    }

static const struct cl_case mixed_cases[] = {
    CASE("pass", B_PASS, CL_CASE_CORRECT, 10),
    CASE("segv", B_SEGV, CL_CASE_CORRECT, 10),
    CASE("abort", B_ABORT, CL_CASE_CORRECT, 10),
    CASE("exit", B_EXIT, CL_CASE_CORRECT, 10),
    CASE("wrong", B_WRONG, CL_CASE_CORRECT, 10),
    CASE("oob", B_OOB, CL_CASE_CORRECT, 10),
    CASE("hang", B_HANG, CL_CASE_CORRECT, 10),
    CASE("fatal", B_FATAL, CL_CASE_CORRECT, 10),
    CASE("after", B_PASS, CL_CASE_CORRECT, 10),
    CASE("speed", B_SPEED, CL_CASE_SPEED, 30),
};

static const struct cl_case good_cases[] = {
    CASE("pid-1", B_PID, CL_CASE_CORRECT, 10),
    CASE("sticky", B_STICKY, CL_CASE_CORRECT, 0),
    CASE("pid-2", B_PID, CL_CASE_CORRECT, 10),
    CASE("speed", B_SPEED, CL_CASE_SPEED, 30),
};

static const struct cl_case clean_cases[] = {
    CASE("speed", B_SPEED, CL_CASE_SPEED, 30),
    CASE("pass", B_PASS, CL_CASE_CORRECT, 10),
    CASE("sweep", B_SPEED, CL_CASE_BENCH, 0),
};

static const struct cl_case hang_cases[] = {
    CASE("hang-1", B_HANG, CL_CASE_CORRECT, 10),
    CASE("hang-2", B_HANG, CL_CASE_CORRECT, 10),
    CASE("pass", B_PASS, CL_CASE_CORRECT, 10),
};

#define CPU_LAB(var, id_, slug_, cases_)                                       \
    static const struct cl_lab var = {                                         \
        .id = id_,                                                             \
        .slug = slug_,                                                         \
        .title = "CPU test lab",                                               \
        .source = "labs/01-vector-add/vector_add.cu",                          \
        .todo = "TODO(lab1)",                                                  \
        .baseline = "reference",                                               \
        .metric = CL_METRIC_GBPS,                                              \
        .speed_target = 1.0,                                                   \
        .speed_vs = CL_VS_BASELINE,                                            \
        .needs_gpu = 0,                                                        \
        .timeout_s = 5.0,                                                      \
        .cases = cases_,                                                       \
        .ncases = sizeof cases_ / sizeof cases_[0],                            \
        .setup = cpu_setup,                                                    \
        .run = cpu_run}

CPU_LAB(mixed_lab, "91", "mixed", mixed_cases);
CPU_LAB(good_lab, "92", "good", good_cases);
CPU_LAB(clean_lab, "93", "clean", clean_cases);
CPU_LAB(hang_lab, "94", "hangs", hang_cases);

static struct cl_grade_opts cpu_opts(void)
{
    struct cl_grade_opts o;
    memset(&o, 0, sizeof o);
    o.lib_path = "libm.so.6";
    o.seed = 7;
    o.timeout_s = 1.0;
    return o;
}

static struct cl_grade g; /* large: keep it off the stack */

static const struct cl_result *result(const char *name)
{
    for (int k = 0; k < g.n; k++)
        if (strcmp(g.lab->cases[g.r[k].index].name, name) == 0)
            return &g.r[k];
    ck_abort_msg("no result for case %s", name);
    return NULL;
}

// ---- isolation ------------------------------------------------------------

START_TEST(test_isolation_statuses)
{
    struct cl_grade_opts o = cpu_opts();
    ck_assert_int_eq(cl_grade_run(&mixed_lab, &o, &g), CL_EXIT_FAILED);
    ck_assert_int_eq(g.n, 10);
    ck_assert_int_eq(result("pass")->status, CL_ST_PASS);
    ck_assert_int_eq(result("segv")->status, CL_ST_CRASH);
    ck_assert_ptr_nonnull(strstr(result("segv")->msg, "signal 11"));
    ck_assert_ptr_nonnull(strstr(result("segv")->msg, "device pointer"));
    ck_assert_int_eq(result("abort")->status, CL_ST_CRASH);
    ck_assert_ptr_nonnull(strstr(result("abort")->msg, "assert"));
    ck_assert_int_eq(result("exit")->status, CL_ST_CRASH);
    ck_assert_ptr_nonnull(strstr(result("exit")->msg, "status 3"));
    ck_assert_int_eq(result("wrong")->status, CL_ST_WRONG);
    ck_assert_int_eq(result("oob")->status, CL_ST_OOB);
    ck_assert_str_eq(result("oob")->msg,
                     "out-of-bounds write past the end of c: 1 bytes "
                     "changed, first at element 2");
    ck_assert_int_eq(result("hang")->status, CL_ST_TIMEOUT);
    ck_assert_int_eq(result("fatal")->status, CL_ST_CUDA);
    ck_assert_ptr_nonnull(strstr(result("fatal")->msg, "lab.c:7: CUDA "
                                                       "error: boom"));
    /* the grade goes on after every failure */
    ck_assert_int_eq(result("after")->status, CL_ST_PASS);
    /* correctness failed: the speed case ran, untimed, for no points */
    ck_assert_int_eq(result("speed")->status, CL_ST_PASS);
    ck_assert_int_eq(result("speed")->timed, 0);
    ck_assert_ptr_nonnull(strstr(result("speed")->msg, "not timed"));
    ck_assert_double_eq(g.score, 20.0);
    ck_assert_double_eq(g.max_score, 120.0);
    ck_assert_double_eq(g.speed_score, 0.0);
    ck_assert_int_eq(g.all_correct, 0);
}
END_TEST

START_TEST(test_sticky_error_restarts_worker)
{
    struct cl_grade_opts o = cpu_opts();
    ck_assert_int_eq(cl_grade_run(&good_lab, &o, &g), CL_EXIT_FAILED);
    ck_assert_int_eq(result("sticky")->status, CL_ST_CUDA);
    int pid1 = atoi(result("pid-1")->msg), pid2 = atoi(result("pid-2")->msg);
    int sticky = 0;
    sscanf(result("sticky")->msg, "sticky %d", &sticky);
    ck_assert_int_eq(pid1, sticky); /* one worker until the sticky error */
    ck_assert_int_ne(pid2, sticky); /* then a fresh one */
    ck_assert_int_eq(result("pid-2")->status, CL_ST_PASS);
}
END_TEST

START_TEST(test_speed_only_after_correctness)
{
    struct cl_grade_opts o = cpu_opts();
    ck_assert_int_eq(cl_grade_run(&clean_lab, &o, &g), CL_EXIT_OK);
    /* the speed case is listed first in the spec but runs last */
    ck_assert_str_eq(g.lab->cases[g.r[0].index].name, "pass");
    const struct cl_result *s = result("speed");
    ck_assert_int_eq(s->timed, 1);
    /* speedup 1.0/2.0 = 0.5 against a target of 1.0: half of 30 points */
    ck_assert_double_eq_tol(s->score, 15.0, 1e-9);
    ck_assert_double_eq_tol(g.score, 25.0, 1e-9);
    ck_assert_int_eq(g.all_correct, 1);
}
END_TEST

START_TEST(test_bench_mode)
{
    struct cl_grade_opts o = cpu_opts();
    /* a normal run leaves the sweep out */
    ck_assert_int_eq(cl_grade_run(&clean_lab, &o, &g), CL_EXIT_OK);
    ck_assert_int_eq(g.n, 2);
    /* --bench: the speed case and the sweep, both timed, nothing scored
     * beyond the speed case's points */
    o.bench = 1;
    ck_assert_int_eq(cl_grade_run(&clean_lab, &o, &g), CL_EXIT_OK);
    ck_assert_int_eq(g.n, 2);
    ck_assert_str_eq(g.lab->cases[g.r[0].index].name, "speed");
    ck_assert_str_eq(g.lab->cases[g.r[1].index].name, "sweep");
    ck_assert_int_eq(result("sweep")->timed, 1);
    ck_assert_double_eq(result("sweep")->max_score, 0.0);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cl_report_csv(f, &g, "rung 7", 1);
    fclose(f);
    ck_assert_str_eq(text,
                     "lab,code,case,work,time_ms,baseline_ms,ceiling_ms,rate,"
                     "baseline_rate,ceiling_rate\n"
                     "93,rung 7,speed,1e+06,2,1,0,0.5,1,0\n"
                     "93,rung 7,sweep,1e+06,2,1,0,0.5,1,0\n");
    free(text);
}
END_TEST

START_TEST(test_repeated_hangs_stop_the_run)
{
    struct cl_grade_opts o = cpu_opts();
    o.timeout_s = 0.5;
    ck_assert_int_eq(cl_grade_run(&hang_lab, &o, &g), CL_EXIT_FAILED);
    ck_assert_int_eq(result("hang-1")->status, CL_ST_TIMEOUT);
    ck_assert_int_eq(result("hang-2")->status, CL_ST_TIMEOUT);
    ck_assert_int_eq(result("pass")->status, CL_ST_NOT_RUN);
    ck_assert_ptr_nonnull(strstr(result("pass")->msg, "hung"));
}
END_TEST

START_TEST(test_case_selection)
{
    struct cl_grade_opts o = cpu_opts();
    o.only_case = "wrong";
    ck_assert_int_eq(cl_grade_run(&mixed_lab, &o, &g), CL_EXIT_FAILED);
    ck_assert_int_eq(g.n, 1);
    ck_assert_double_eq(g.max_score, 10.0);
    o.only_case = "no-such-case";
    ck_assert_int_eq(cl_grade_run(&mixed_lab, &o, &g), CL_EXIT_USAGE);
    ck_assert_ptr_nonnull(strstr(g.summary, "no-such-case"));
}
END_TEST

START_TEST(test_unloadable_submission)
{
    struct cl_grade_opts o = cpu_opts();
    o.lib_path = "/nonexistent/sub.so";
    ck_assert_int_eq(cl_grade_run(&clean_lab, &o, &g), CL_EXIT_LOAD);
    ck_assert_ptr_nonnull(strstr(g.summary, "cannot load"));
    ck_assert_int_eq(g.r[0].status, CL_ST_NOT_RUN);
}
END_TEST

// ---- scoring ----------------------------------------------------------------

START_TEST(test_speed_credit)
{
    ck_assert_double_eq(cl_speed_credit(40, 1.2, 1.0), 40.0);
    ck_assert_double_eq(cl_speed_credit(40, 1.0, 1.0), 40.0);
    ck_assert_double_eq(cl_speed_credit(40, 0.5, 1.0), 20.0);
    ck_assert_double_eq(cl_speed_credit(40, 0.35, 0.7), 20.0);
    ck_assert_double_eq(cl_speed_credit(40, 0.0, 1.0), 0.0);
    ck_assert_double_eq(cl_speed_credit(40, -1.0, 1.0), 0.0);
    ck_assert_double_eq(cl_speed_credit(40, 1.0, 0.0), 0.0);
}
END_TEST

START_TEST(test_speed_ratio_kinds)
{
    struct cl_case c = {"x", CL_CASE_SPEED, 40, {0}, 0, 0.0, CL_VS_DEFAULT};
    struct cl_lab lab = clean_lab;
    struct cl_result r;
    memset(&r, 0, sizeof r);
    r.timed = 1;
    r.t_ms = 2.0;
    r.base_ms = 3.0;
    r.work = 8e9; /* 4000 GB/s */
    r.ceil_ms = 1.0;
    r.ceil_work = 5e9; /* 5000 GB/s */
    double target = 0;
    ck_assert_double_eq_tol(cl_speed_ratio(&lab, &c, &r, &target), 1.5, 1e-12);
    ck_assert_double_eq(target, 1.0);
    lab.speed_vs = CL_VS_CEILING;
    lab.speed_target = 0.85;
    ck_assert_double_eq_tol(cl_speed_ratio(&lab, &c, &r, &target), 0.8, 1e-12);
    ck_assert_double_eq(target, 0.85);
    /* a case overrides the lab */
    c.vs = CL_VS_BASELINE;
    c.target = 2.0;
    ck_assert_double_eq_tol(cl_speed_ratio(&lab, &c, &r, &target), 1.5, 1e-12);
    ck_assert_double_eq(target, 2.0);
    r.timed = 0;
    ck_assert_double_eq(cl_speed_ratio(&lab, &c, &r, &target), 0.0);
}
END_TEST

START_TEST(test_physical_floor)
{
    struct cl_gpu_info gi;
    memset(&gi, 0, sizeof gi);
    ck_assert_double_eq(cl_floor_ms(CL_METRIC_GBPS, 1e9, &gi), 0.0);
    gi.memcpy_gbps = 4000; /* no theory: 1.25x the copy = 5000 GB/s */
    ck_assert_double_eq_tol(cl_floor_ms(CL_METRIC_GBPS, 1e9, &gi), 0.2, 1e-12);
    gi.bw_theory_gbps = 4800; /* 3 GB at 4.8 TB/s = 0.625 ms */
    ck_assert_double_eq_tol(cl_floor_ms(CL_METRIC_GBPS, 3e9, &gi), 0.625,
                            1e-12);
    gi.sgemm_tflops = 50; /* 1e12 FLOP at 2 x 50 TFLOP/s = 10 ms */
    ck_assert_double_eq_tol(cl_floor_ms(CL_METRIC_TFLOPS, 1e12, &gi), 10.0,
                            1e-9);
}
END_TEST

START_TEST(test_status_names)
{
    ck_assert_str_eq(cl_status_name(CL_ST_PASS), "pass");
    ck_assert_str_eq(cl_status_name(CL_ST_OOB), "out-of-bounds");
    ck_assert_str_eq(cl_status_name(CL_ST_TIMEOUT), "timeout");
    ck_assert_str_eq(cl_status_name(CL_ST_INTERNAL), "internal-error");
    ck_assert_str_eq(cl_status_name((enum cl_status)99), "unknown");
}
END_TEST

START_TEST(test_reference_vector_add)
{
    /* worked by hand: 1.5 + 2.25 = 3.75; -1 + 1 = 0; 2^-23 + 1 exactly */
    float a[] = {1.5f, -1.0f, 1.1920929e-7f, 3.0e38f};
    float b[] = {2.25f, 1.0f, 1.0f, 3.0e38f};
    double ref[4];
    vector_add_ref(a, b, ref, 4);
    ck_assert_double_eq(ref[0], 3.75);
    ck_assert_double_eq(ref[1], 0.0);
    ck_assert_double_eq(ref[2], 1.0 + 1.1920928955078125e-7);
    ck_assert_double_eq_tol(ref[3], 6.0e38, 1e31); /* no float overflow */
}
END_TEST

START_TEST(test_reference_stencil)
{
    /* R = 1, w = (1, 10, 100): out[i] = in[i-1] + 10 in[i] + 100 in[i+1] */
    float in[] = {1, 2, 3, 4};
    float w[] = {1, 10, 100};
    double ref[4];
    stencil_ref(in, w, ref, 4, 1);
    ck_assert_double_eq(ref[0], 210.0); /* 0 + 10 + 200: zero on the left */
    ck_assert_double_eq(ref[1], 321.0);
    ck_assert_double_eq(ref[2], 432.0);
    ck_assert_double_eq(ref[3], 43.0); /* 3 + 40 + 0: zero on the right */
    /* n = 1 with R = 2: only the centre weight sees data */
    float one[] = {2};
    float w5[] = {9, 9, 0.5f, 9, 9};
    stencil_ref(one, w5, ref, 1, 2);
    ck_assert_double_eq(ref[0], 1.0);
}
END_TEST

START_TEST(test_reference_causal_conv1d)
{
    /* C = 2, T = 3, K = 2: y[t] = w[c,0] x[t-1] + w[c,1] x[t] */
    float x[] = {1, 2, 3, 4, 5, 6}; /* row 0 (c=0), row 1 (c=1) */
    float w[] = {1, 10, 2, 20};
    double ref[6];
    causal_conv1d_ref(x, w, ref, 0, 2, 2, 3, 2);
    ck_assert_double_eq(ref[0], 10.0); /* x[-1] is zero */
    ck_assert_double_eq(ref[1], 21.0);
    ck_assert_double_eq(ref[2], 32.0);
    ck_assert_double_eq(ref[3], 80.0);
    ck_assert_double_eq(ref[4], 108.0);
    ck_assert_double_eq(ref[5], 130.0);
    /* one row from the middle: row 1 alone */
    causal_conv1d_ref(x, w, ref, 1, 1, 2, 3, 2);
    ck_assert_double_eq(ref[0], 80.0);
    ck_assert_double_eq(ref[2], 130.0);
    /* K > T: only the last K-1.. weights see data */
    float w4[] = {1000, 100, 10, 1};
    causal_conv1d_ref(x, w4, ref, 0, 1, 1, 2, 4);
    ck_assert_double_eq(ref[0], 1.0);      /* w[3] x[0] */
    ck_assert_double_eq(ref[1], 10 + 2.0); /* w[2] x[0] + w[3] x[1] */
}
END_TEST

START_TEST(test_reference_matmul)
{
    /* [[1 2 3] [4 5 6]] x [[7 8] [9 10] [11 12]] = [[58 64] [139 154]] */
    float A[] = {1, 2, 3, 4, 5, 6};
    float B[] = {7, 8, 9, 10, 11, 12};
    double C[4];
    matmul_ref(A, B, C, 0, 2, 2, 3);
    ck_assert_double_eq(C[0], 58.0);
    ck_assert_double_eq(C[1], 64.0);
    ck_assert_double_eq(C[2], 139.0);
    ck_assert_double_eq(C[3], 154.0);
    matmul_ref(A, B, C, 1, 1, 2, 3); /* the second row alone */
    ck_assert_double_eq(C[0], 139.0);
    ck_assert_double_eq(C[1], 154.0);
    /* products of floats are exact in double: 2^-24 * 2^-24 survives */
    float a1[] = {5.9604645e-8f}, b1[] = {5.9604645e-8f};
    matmul_ref(a1, b1, C, 0, 1, 1, 1);
    ck_assert_double_eq(C[0], 3.552713678800501e-15);
}
END_TEST

START_TEST(test_reference_adamw)
{
    /* p = 1, g = 0.5, fresh state, lr 0.1, wd 0.5, eps 0, step 1:
     * p = 0.95 (decay); m = 0.05; v = 0.00025; bias corrections 0.1 and
     * 0.001; update = (0.1 / 0.1) * 0.05 / (sqrt(0.00025) / sqrt(0.001))
     * = 0.05 / 0.5 = 0.1; p = 0.85 */
    double p = 1, m = 0, v = 0;
    float g = 0.5f;
    struct adamw_ref_hp hp = {0.1, 0.9, 0.999, 0.0, 0.5, 1};
    adamw_ref(&p, &m, &v, &g, 1, &hp);
    ck_assert_double_eq_tol(m, 0.05, 1e-15);
    ck_assert_double_eq_tol(v, 0.00025, 1e-15);
    ck_assert_double_eq_tol(p, 0.85, 1e-12);
    /* step 2, same gradient: m = 0.095, v = 0.00049975; corrections 0.19
     * and 0.001999; update = 0.1 / 0.19 * 0.095 / (sqrt(0.00049975 /
     * 0.001999)) = 0.05 / 0.5 = 0.1 (a constant gradient keeps |update| =
     * lr); p = 0.85 * 0.95 - 0.1 */
    hp.step = 2;
    adamw_ref(&p, &m, &v, &g, 1, &hp);
    ck_assert_double_eq_tol(m, 0.095, 1e-15);
    ck_assert_double_eq_tol(p, 0.85 * 0.95 - 0.1, 1e-12);
}
END_TEST

START_TEST(test_reference_gru_cell)
{
    /* zero weights and biases: r = z = 1/2, n = tanh(0) = 0, h' = h / 2 */
    const float zero[3] = {0, 0, 0};
    struct gru_weights w0 = {zero, zero, zero, zero};
    double x = 1.0, h = 0.8, out = 0.0;
    gru_cell_ref(&x, &h, &out, &w0, 1, 1);
    ck_assert_double_eq_tol(out, 0.4, 1e-15);

    /* x = 1, h = 1/2; W_ir = ln 3 (r = 3/4), b_iz = -ln 3 (z = 1/4),
     * W_hn = 2 and b_hn = 1: n = tanh(r * (2 * 1/2 + 1)) = tanh(1.5), so
     * h' = 3/4 tanh(1.5) + 1/4 * 1/2. Swapping r and z, or applying r
     * before the product (tanh(2 * 3/8 + 1) = tanh(1.75)), gives another
     * value. */
    const float l3 = (float)log(3.0);
    const float w_ih[3] = {l3, 0, 0}, w_hh[3] = {0, 0, 2};
    const float b_ih[3] = {0, -l3, 0}, b_hh[3] = {0, 0, 1};
    struct gru_weights w = {w_ih, w_hh, b_ih, b_hh};
    h = 0.5;
    gru_cell_ref(&x, &h, &out, &w, 1, 1);
    ck_assert_double_eq_tol(out, 0.75 * tanh(1.5) + 0.125, 1e-7);
    ck_assert_double_eq_tol(out, 0.8038611902336498, 1e-7);

    /* two units: unit 1's rows are 1, 3 and 5 of each matrix; with only
     * W_in's row of unit 1 set, unit 0 is h / 2 and unit 1 mixes in x */
    const float w2_ih[6] = {0, 0, 0, 0, 0, 1}, w2_hh[12] = {0};
    const float b2[6] = {0};
    struct gru_weights w2 = {w2_ih, w2_hh, b2, b2};
    double h2[2] = {0.8, -0.6}, out2[2];
    gru_cell_ref(&x, h2, out2, &w2, 1, 2);
    ck_assert_double_eq_tol(out2[0], 0.4, 1e-15);
    ck_assert_double_eq_tol(out2[1], 0.5 * tanh(1.0) - 0.3, 1e-15);
}
END_TEST

START_TEST(test_reference_gru_forward)
{
    /* T = 2, B = 2, I = H = 1, two layers. Layer 0 has zero weights, so
     * it halves h each step; layer 1 has W_in = 1 only, so each step is
     * h' = tanh(x) / 2 + h / 2 with x the output of layer 0. Batch row 1
     * starts from h0 = 0.8 (layer 0) and -0.6 (layer 1):
     *   layer 0: 0.4, 0.2
     *   layer 1: tanh(0.4) / 2 - 0.3 = -0.110025518872388,
     *            tanh(0.2) / 2 - 0.110025518872388 / 2 = 0.043674900676258 */
    const float zero[3] = {0, 0, 0}, w_in[3] = {0, 0, 1};
    struct gru_weights layers[2] = {{zero, zero, zero, zero},
                                    {w_in, zero, zero, zero}};
    const float x[4] = {9, 0.5f, 9, -0.5f}; /* (T, B, I): unused weights */
    const float h0[4] = {0.1f, 0.8f, 0.2f, -0.6f}; /* (L, B, H) */
    double y[2], hn[2];
    gru_forward_ref(x, h0, layers, 2, 2, 1, 1, 2, 1, y, hn);
    ck_assert_double_eq_tol(y[0], -0.11002551887238754, 1e-7);
    ck_assert_double_eq_tol(y[1], 0.04367490067625823, 1e-7);
    ck_assert_double_eq_tol(hn[0], 0.2, 1e-7);
    ck_assert_double_eq_tol(hn[1], 0.04367490067625823, 1e-7);
    /* row 0 starts elsewhere, so it ends elsewhere */
    gru_forward_ref(x, h0, layers, 2, 2, 1, 1, 2, 0, y, hn);
    ck_assert_double_eq_tol(hn[0], 0.025, 1e-7);
}
END_TEST

/* a model of V = 2, E = H = 1 worked by hand: the encoder's z gate is shut
 * (bias -100), so h' = tanh(x) and the context is tanh(E_src[src]); the
 * decoder's GRU has zero weights, so d_t = d_{t-1} / 2 from d_{-1} = c;
 * the output layer reads [e; d; c] as o_0 = -e + 2d, o_1 = e + c */
static void tiny_model(struct seq2seq_model *m)
{
    static const float enc_emb[2] = {0.5f, 2.0f}, dec_emb[2] = {1, -1};
    static const float enc_ih[3] = {0, 0, 1}, enc_b[3] = {0, -100, 0};
    static const float zero[6] = {0};
    static const float fc_w[6] = {-1, 2, 0, 1, 0, 1}, fc_b[2] = {0, 0};
    memset(m, 0, sizeof *m);
    m->v_src = m->v_tgt = 2;
    m->emb = m->hid = 1;
    m->enc_emb = enc_emb;
    m->enc.w_ih = enc_ih;
    m->enc.w_hh = zero;
    m->enc.b_ih = enc_b;
    m->enc.b_hh = zero;
    m->dec_emb = dec_emb;
    m->dec.w_ih = zero; /* (3, 2) */
    m->dec.w_hh = zero;
    m->dec.b_ih = zero;
    m->dec.b_hh = zero;
    m->fc_w = fc_w;
    m->fc_b = fc_b;
}

START_TEST(test_reference_seq2seq)
{
    struct seq2seq_model m;
    tiny_model(&m);
    const int src[1] = {1}; /* S = B = 1: x = 2, c = tanh(2) */
    double c = tanh(2.0), o[4];
    int tok[2];
    /* greedy from sos = 1 (e = -1): step 0 o = (1 + c, c - 1) -> 0;
     * then e = 1, d = c / 4: o = (-1 + c / 2, 1 + c) -> 1 */
    seq2seq_ref(&m, src, 1, 1, 0, 2, 1, NULL, tok, o);
    ck_assert_int_eq(tok[0], 0);
    ck_assert_int_eq(tok[1], 1);
    ck_assert_double_eq_tol(o[0], 1 + c, 1e-12);
    ck_assert_double_eq_tol(o[1], c - 1, 1e-12);
    ck_assert_double_eq_tol(o[2], -1 + c / 2, 1e-12);
    ck_assert_double_eq_tol(o[3], 1 + c, 1e-12);
    /* teacher forcing with inputs (1, 1): e = -1 both steps, d = c/2, c/4 */
    const int y_in[2] = {1, 1};
    seq2seq_ref(&m, src, 1, 1, 0, 2, 1, y_in, tok, o);
    ck_assert_double_eq_tol(o[2], 1 + c / 2, 1e-12);
    ck_assert_double_eq_tol(o[3], c - 1, 1e-12);
    /* a source of two steps, batch of two: sentence 1 reads column 1 */
    const int src2[4] = {0, 0, 0, 1}; /* (S, B): row s, column b */
    seq2seq_ref(&m, src2, 2, 2, 1, 1, 1, NULL, tok, o);
    ck_assert_double_eq_tol(o[1], tanh(2.0) - 1, 1e-12);
    seq2seq_ref(&m, src2, 2, 2, 0, 1, 1, NULL, tok, o);
    ck_assert_double_eq_tol(o[1], tanh(0.5) - 1, 1e-12);
}
END_TEST

START_TEST(test_greedy_comparison)
{
    /* reference: tokens (2, 0, 1) with logits rows of V = 3 */
    const int ref[3] = {2, 0, 1};
    const double lg[9] = {0.1, 0.2, 0.9, 0.5, 0.49999, 0.1, 0.0, 1.0, 0.2};
    int got[3] = {2, 0, 1}, step = -1;
    float gl[3] = {0.9f, 0.5f, 1.0f};
    char why[256];
    ck_assert_int_eq(seq2seq_compare_greedy(got, gl, ref, lg, 3, 3, 1e-4, 1e-5,
                                            &step, why, sizeof why),
                     0);
    ck_assert_int_eq(step, 3);
    /* step 1 picks 1 (0.49999 vs 0.5): a near-tie, accepted; the rest is
     * not compared (step 2 is wrong on purpose) */
    got[1] = 1;
    got[2] = 0;
    ck_assert_int_eq(seq2seq_compare_greedy(got, gl, ref, lg, 3, 3, 1e-4, 1e-5,
                                            &step, why, sizeof why),
                     1);
    ck_assert_int_eq(step, 1);
    /* the same with a tolerance below the gap: wrong */
    ck_assert_int_eq(seq2seq_compare_greedy(got, gl, ref, lg, 3, 3, 1e-6, 1e-5,
                                            &step, why, sizeof why),
                     -1);
    ck_assert_ptr_nonnull(strstr(why, "not a tie"));
    /* right tokens, a wrong logit */
    int ok[3] = {2, 0, 1};
    float bad[3] = {0.9f, 0.5f, 1.01f};
    ck_assert_int_eq(seq2seq_compare_greedy(ok, bad, ref, lg, 3, 3, 1e-4, 1e-5,
                                            &step, why, sizeof why),
                     -1);
    ck_assert_int_eq(step, 2);
    ck_assert_ptr_nonnull(strstr(why, "its logit"));
    /* a token outside the vocabulary */
    int out[3] = {2, 7, 1};
    ck_assert_int_eq(seq2seq_compare_greedy(out, gl, ref, lg, 3, 3, 1e-4, 1e-5,
                                            &step, why, sizeof why),
                     -1);
    ck_assert_ptr_nonnull(strstr(why, "outside [0, 3)"));
}
END_TEST

START_TEST(test_spread_indices)
{
    int out[8];
    /* all of a small count */
    ck_assert_int_eq(cl_spread_indices(5, 8, out), 5);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(out[i], i);
    /* a large one: the first, the last, evenly between */
    ck_assert_int_eq(cl_spread_indices(64, 8, out), 8);
    const int want[8] = {0, 9, 18, 27, 36, 45, 54, 63};
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(out[i], want[i]);
    ck_assert_int_eq(cl_spread_indices(1, 4, out), 1);
    ck_assert_int_eq(out[0], 0);
    ck_assert_int_eq(cl_spread_indices(100, 1, out), 1);
    ck_assert_int_eq(out[0], 0);
}
END_TEST

START_TEST(test_bonus_line)
{
    static const struct cl_case cs[] = {
        {"right", CL_CASE_CORRECT, 50, {0}, 1, 0, CL_VS_DEFAULT},
        {"fast", CL_CASE_SPEED, 25, {0}, 1, 0, CL_VS_DEFAULT},
        {"slow", CL_CASE_SPEED, 25, {0}, 1, 0, CL_VS_DEFAULT},
    };
    static struct cl_lab lab = {.id = "95",
                                .slug = "bonus",
                                .title = "bonus",
                                .todo = "TODO(x)",
                                .baseline = "best cuDNN",
                                .speed_target = 1.0,
                                .speed_vs = CL_VS_BASELINE,
                                .bonus_at = 1.5,
                                .cases = cs,
                                .ncases = 3};
    memset(&g, 0, sizeof g);
    g.lab = &lab;
    g.n = 3;
    for (int k = 0; k < 3; k++) {
        g.r[k].index = k;
        g.r[k].status = CL_ST_PASS;
    }
    g.r[1].timed = g.r[2].timed = 1;
    g.r[1].t_ms = 1.0;
    g.r[1].base_ms = 2.0; /* 2x: a bonus */
    g.r[2].t_ms = 1.0;
    g.r[2].base_ms = 1.2; /* 1.2x: full points, no bonus */
    cl_score_grade(&g);
    ck_assert_double_eq(g.score, 100.0);
    int which[4];
    ck_assert_int_eq(cl_bonus_cases(&g, which, 4), 1);
    ck_assert_int_eq(which[0], 1);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cl_report_print(f, &g, 0, NULL);
    fclose(f);
    ck_assert_ptr_nonnull(
        strstr(text, "bonus: 1.5x best cuDNN or better on fast (2.00x)"));
    ck_assert_ptr_null(strstr(text, "slow (1.20x)"));
    free(text);

    /* no bonus while a case is wrong, and none for a lab without one */
    g.r[0].status = CL_ST_WRONG;
    cl_score_grade(&g);
    ck_assert_int_eq(cl_bonus_cases(&g, which, 4), 0);
    g.r[0].status = CL_ST_PASS;
    lab.bonus_at = 0;
    cl_score_grade(&g);
    ck_assert_int_eq(cl_bonus_cases(&g, which, 4), 0);
}
END_TEST

START_TEST(test_gpt2_sizes)
{
    long long sizes[200];
    int n = adamw_gpt2_sizes(sizes, 200);
    ck_assert_int_eq(n, 148); /* 12 per layer, 2 embeddings, ln_f's 2 */
    long long total = 0;
    for (int i = 0; i < n; i++)
        total += sizes[i];
    ck_assert_int_eq(total, 124439808LL); /* GPT-2 small's parameter count */
    ck_assert_int_eq(sizes[0], 50257LL * 768);
    ck_assert_int_eq(sizes[4], 768LL * 2304); /* layer 0's c_attn weight */
}
END_TEST

// ---- report and results.json
// -------------------------------------------------

static void sample_grade(void)
{
    struct cl_grade_opts o = cpu_opts();
    ck_assert_int_eq(cl_grade_run(&clean_lab, &o, &g), CL_EXIT_OK);
}

START_TEST(test_json_round_trip)
{
    sample_grade();
    char *text = cl_report_json(&g);
    ck_assert_ptr_nonnull(text);
    cJSON *o = cJSON_Parse(text);
    ck_assert_ptr_nonnull(o);
    ck_assert_double_eq_tol(cJSON_GetObjectItem(o, "score")->valuedouble, 25.0,
                            1e-9);
    ck_assert_double_eq(cJSON_GetObjectItem(o, "max_score")->valuedouble, 40.0);
    ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(o, "execution_time")));
    cJSON *tests = cJSON_GetObjectItem(o, "tests");
    ck_assert_int_eq(cJSON_GetArraySize(tests), 2);
    cJSON *t0 = cJSON_GetArrayItem(tests, 0);
    ck_assert_str_eq(cJSON_GetObjectItem(t0, "name")->valuestring, "pass");
    ck_assert_str_eq(cJSON_GetObjectItem(t0, "status")->valuestring, "passed");
    cJSON *t1 = cJSON_GetArrayItem(tests, 1);
    ck_assert_str_eq(cJSON_GetObjectItem(t1, "name")->valuestring,
                     "speed (speed)");
    ck_assert_double_eq_tol(cJSON_GetObjectItem(t1, "score")->valuedouble, 15.0,
                            1e-9);
    cJSON *board = cJSON_GetObjectItem(o, "leaderboard");
    ck_assert_int_eq(cJSON_GetArraySize(board), 1);
    ck_assert_double_eq_tol(
        cJSON_GetObjectItem(cJSON_GetArrayItem(board, 0), "value")->valuedouble,
        0.5, 1e-12);
    cJSON *x = cJSON_GetObjectItem(o, "extra_data");
    ck_assert_str_eq(cJSON_GetObjectItem(x, "seed")->valuestring, "7");
    ck_assert_str_eq(cJSON_GetObjectItem(x, "status")->valuestring, "graded");
    ck_assert_str_eq(cJSON_GetObjectItem(x, "lab")->valuestring, "93");
    cJSON *cases = cJSON_GetObjectItem(x, "cases");
    ck_assert_double_eq(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cases, 1), "time_ms")
            ->valuedouble,
        2.0);
    cJSON_Delete(o);
    cJSON_free(text);
}
END_TEST

START_TEST(test_json_written_atomically)
{
    sample_grade();
    char dir[] = "/tmp/cl-json-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/results.json", dir);
    ck_assert_int_eq(cl_report_write_json(&g, path), 0);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    cJSON *o = cJSON_Parse(buf);
    ck_assert_ptr_nonnull(o);
    cJSON_Delete(o);
    ck_assert_int_eq(cl_report_write_json(&g, "/nonexistent/r.json"), -1);
}
END_TEST

START_TEST(test_table_report)
{
    struct cl_grade_opts o = cpu_opts();
    cl_grade_run(&mixed_lab, &o, &g);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cl_report_print(f, &g, 0, "labs/01-vector-add/vector_add.cu");
    fclose(f);
    ck_assert_ptr_nonnull(strstr(text, "Lab 91: CPU test lab"));
    ck_assert_ptr_nonnull(strstr(text, "segv"));
    ck_assert_ptr_nonnull(strstr(text, "crash"));
    ck_assert_ptr_nonnull(strstr(text, "score: 20.0 / 120.0"));
    ck_assert_ptr_nonnull(strstr(text, "hint: start with case 'segv'"));
    /* the skeleton's first TODO is pointed at, with its line */
    ck_assert_ptr_nonnull(strstr(text, "TODO(lab1) markers; the first is "
                                       "at line"));
    ck_assert_ptr_null(strstr(text, "\033[")); /* no colour */
    free(text);
}
END_TEST

START_TEST(test_find_marker)
{
    int count = 0;
    int line = cl_find_marker("labs/01-vector-add/vector_add.cu", "TODO(lab1)",
                              &count);
    ck_assert_int_gt(line, 10);
    ck_assert_int_eq(count, 3);
    ck_assert_int_eq(cl_find_marker("solutions/01-vector-add/vector_add.cu",
                                    "TODO(lab1)", &count),
                     0);
    ck_assert_int_eq(count, 0);
    ck_assert_int_eq(cl_find_marker("/nonexistent", "x", &count), 0);
}
END_TEST

// ---- symbols --------------------------------------------------------------

static const char *const lab1_forbidden[] = {"cublas", "cudnn", NULL};

START_TEST(test_symbols_solution_clean)
{
    struct cl_symtab t;
    char err[256];
    ck_assert_int_eq(cl_symtab_read(SOLUTION_SO, &t, err, sizeof err), 0);
    ck_assert_int_eq(cl_symtab_defines(&t, "vector_add"), 1);
    ck_assert_int_eq(cl_symtab_defines(&t, "matmul"), 0);
    ck_assert_ptr_null(cl_symtab_forbidden(&t, lab1_forbidden));
    cl_symtab_free(&t);
}
END_TEST

START_TEST(test_symbols_forbidden_cublas)
{
    struct cl_symtab t;
    char err[256];
    ck_assert_int_eq(cl_symtab_read(FIXTURE("cublas"), &t, err, sizeof err), 0);
    const char *bad = cl_symtab_forbidden(&t, lab1_forbidden);
    ck_assert_ptr_nonnull(bad);
    ck_assert_int_eq(strncmp(bad, "cublas", 6), 0);
    cl_symtab_free(&t);
}
END_TEST

START_TEST(test_symbols_cxx_linkage)
{
    struct cl_symtab t;
    char err[256];
    ck_assert_int_eq(cl_symtab_read(FIXTURE("no_symbol"), &t, err, sizeof err),
                     0);
    ck_assert_int_eq(cl_symtab_defines(&t, "vector_add"), 0);
    cl_symtab_free(&t);
}
END_TEST

START_TEST(test_symbols_bad_files)
{
    struct cl_symtab t;
    char err[256];
    ck_assert_int_eq(cl_symtab_read("/nonexistent.so", &t, err, sizeof err),
                     -1);
    ck_assert_ptr_nonnull(strstr(err, "cannot read"));
    ck_assert_int_eq(cl_symtab_read("Makefile", &t, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "not a 64-bit ELF"));
    /* a truncated library: the header survives, the sections do not */
    char path[] = "/tmp/cl-trunc-XXXXXX";
    int fd = mkstemp(path);
    FILE *in = fopen(SOLUTION_SO, "rb");
    char head[256];
    ck_assert_int_eq(fread(head, 1, sizeof head, in), sizeof head);
    fclose(in);
    ck_assert_int_eq(write(fd, head, sizeof head), (ssize_t)sizeof head);
    close(fd);
    ck_assert_int_eq(cl_symtab_read(path, &t, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "truncated"));
    unlink(path);
}
END_TEST

// ---- the command line -----------------------------------------------------

static int cli(int argc, const char **argv)
{
    /* keep the test log readable: the CLI's own output goes nowhere */
    ck_assert_ptr_nonnull(freopen("/dev/null", "w", stdout));
    ck_assert_ptr_nonnull(freopen("/dev/null", "w", stderr));
    return cl_cli_main(argc, (char **)argv, NULL);
}

#define CLI(...)                                                               \
    ({                                                                         \
        const char *argv_[] = {"grade", __VA_ARGS__, NULL};                    \
        cli((int)(sizeof argv_ / sizeof argv_[0]) - 1, argv_);                 \
    })

/* Lab 6's data: the shipped model passes every check; a missing or
 * damaged one is refused with exit 7 before any GPU is needed */
START_TEST(test_lab6_data_checked)
{
    const struct cl_lab *lab = cl_lab_find("06", NULL);
    char err[600], dir[] = "/tmp/cl-data-XXXXXX";
    ck_assert_ptr_nonnull(lab->check_data);
    unsetenv("CUDA_LABS_DATA");
    ck_assert_msg(lab->check_data(err, sizeof err) == 0, "%s", err);
    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("CUDA_LABS_DATA", dir, 1);
    ck_assert_int_eq(lab->check_data(err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "cannot read"));
    ck_assert_int_eq(CLI("06", "--lib", CL_BUILD_DIR "/student/06-seq2seq.so"),
                     CL_EXIT_DATA);
    /* the model cut short */
    const char *real = "labs/06-seq2seq/data";
    ck_assert_int_eq(sh("cp %s/*.vocab %s/test.tsv %s/ && head -c 100000 "
                        "%s/model.safetensors > %s/model.safetensors",
                        real, real, dir, real, dir),
                     0);
    ck_assert_int_eq(lab->check_data(err, sizeof err), -1);
    ck_assert_msg(strstr(err, "truncated") != NULL, "%s", err);
    /* a header length field of garbage */
    ck_assert_int_eq(sh("printf garbage! | dd of=%s/model.safetensors "
                        "conv=notrunc 2>/dev/null",
                        dir),
                     0);
    ck_assert_int_eq(lab->check_data(err, sizeof err), -1);
    ck_assert_msg(strstr(err, "does not fit") != NULL, "%s", err);
    /* a tensor renamed (one missing, one unexpected) */
    ck_assert_int_eq(sh("cp %s/model.safetensors %s/ && sed -i "
                        "s/fc_out.bias/fc_out.bia5/ %s/model.safetensors",
                        real, dir, dir),
                     0);
    ck_assert_int_eq(lab->check_data(err, sizeof err), -1);
    ck_assert_msg(strstr(err, "unexpected tensor 'decoder.fc_out.bia5'") !=
                      NULL,
                  "%s", err);
    /* the whole model, but a vocabulary one word short */
    ck_assert_int_eq(sh("cp %s/model.safetensors %s/ && head -n -1 "
                        "%s/tgt.vocab > %s/v && mv %s/v %s/tgt.vocab",
                        real, dir, real, dir, dir, dir),
                     0);
    ck_assert_int_eq(lab->check_data(err, sizeof err), -1);
    ck_assert_msg(strstr(err, "do not match the model") != NULL, "%s", err);
    /* a test sentence with an unknown word */
    ck_assert_int_eq(sh("cp %s/tgt.vocab %s/ && printf "
                        "\"eleventy one\\tx\\n\" >> %s/test.tsv",
                        real, dir, dir),
                     0);
    ck_assert_int_eq(lab->check_data(err, sizeof err), -1);
    ck_assert_msg(strstr(err, "unknown word") != NULL, "%s", err);
    unsetenv("CUDA_LABS_DATA");
    sh("rm -rf %s", dir);
}
END_TEST

START_TEST(test_cli_usage_errors)
{
    ck_assert_int_eq(CLI("no-such-lab"), CL_EXIT_USAGE);
    ck_assert_int_eq(CLI("--bogus", "01"), CL_EXIT_USAGE);
    ck_assert_int_eq(CLI("01", "--seed", "x1"), CL_EXIT_USAGE);
    ck_assert_int_eq(CLI("01", "--seed", "-5"), CL_EXIT_USAGE);
    ck_assert_int_eq(CLI("01", "--timeout", "0"), CL_EXIT_USAGE);
    ck_assert_int_eq(CLI("01", "--timeout"), CL_EXIT_USAGE);
    ck_assert_int_eq(CLI("01", "02"), CL_EXIT_USAGE);
    const char *argv[] = {"grade", NULL};
    ck_assert_int_eq(cli(1, argv), CL_EXIT_USAGE);
}
END_TEST

START_TEST(test_cli_ok_paths)
{
    ck_assert_int_eq(CLI("--help"), CL_EXIT_OK);
    ck_assert_int_eq(CLI("--version"), CL_EXIT_OK);
    ck_assert_int_eq(CLI("--list"), CL_EXIT_OK);
    ck_assert_int_eq(CLI("vector-add", "--list"), CL_EXIT_OK);
    ck_assert_int_eq(CLI("1", "--list"), CL_EXIT_OK);
    ck_assert_int_eq(CLI("01-vector-add", "--list"), CL_EXIT_OK);
}
END_TEST

START_TEST(test_cli_which_and_collect)
{
    ck_assert_int_eq(CLI("stencil", "--which"), CL_EXIT_OK);
    ck_assert_int_eq(CLI("99", "--which"), CL_EXIT_USAGE);
    /* a batch folder without results/ is an error, said, not a crash */
    ck_assert_int_eq(CLI("01", "--collect", "/nonexistent"), CL_EXIT_INTERNAL);
    ck_assert_int_eq(CLI("01", "--collect"), CL_EXIT_USAGE);
    char dir[] = "/tmp/cl-collect-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/results", dir);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    ck_assert_int_eq(CLI("01", "--collect", dir), CL_EXIT_OK);
    snprintf(path, sizeof path, "%s/gradebook.csv", dir);
    ck_assert_int_eq(access(path, R_OK), 0); /* a header, no rows */
}
END_TEST

START_TEST(test_cli_submission_problems)
{
    ck_assert_int_eq(CLI("01", "--lib", "/nonexistent.so"), CL_EXIT_LOAD);
    ck_assert_int_eq(CLI("01", "--lib", FIXTURE("cublas")), CL_EXIT_FORBIDDEN);
    ck_assert_int_eq(CLI("01", "--lib", FIXTURE("no_symbol")), CL_EXIT_LOAD);
    ck_assert_int_eq(CLI("01", "--lib", SOLUTION_SO, "--case", "nope"),
                     CL_EXIT_USAGE);
}
END_TEST

START_TEST(test_forbidden_is_reported_in_json)
{
    char dir[] = "/tmp/cl-forb-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/r.json", dir);
    ck_assert_int_eq(CLI("01", "--lib", FIXTURE("cublas"), "--json", path),
                     CL_EXIT_FORBIDDEN);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char buf[16384];
    buf[fread(buf, 1, sizeof buf - 1, f)] = '\0';
    fclose(f);
    cJSON *o = cJSON_Parse(buf);
    ck_assert_double_eq(cJSON_GetObjectItem(o, "score")->valuedouble, 0.0);
    ck_assert_double_eq(cJSON_GetObjectItem(o, "max_score")->valuedouble,
                        100.0);
    cJSON *x = cJSON_GetObjectItem(o, "extra_data");
    ck_assert_str_eq(cJSON_GetObjectItem(x, "status")->valuestring,
                     "forbidden library");
    ck_assert_ptr_nonnull(
        strstr(cJSON_GetObjectItem(o, "output")->valuestring, "cublas"));
    cJSON_Delete(o);
}
END_TEST

/* Without a GPU, lab 01 says so and grades nothing; with one, it grades. */
START_TEST(test_no_gpu_or_graded)
{
    struct cl_grade_opts o = cpu_opts();
    o.lib_path = SOLUTION_SO;
    o.only_case = "n=1";
    o.timeout_s = 60;
    const struct cl_lab *lab = cl_lab_find("01", NULL);
    enum cl_exit rc = cl_grade_run(lab, &o, &g);
    if (rc == CL_EXIT_NO_GPU) {
        ck_assert_ptr_nonnull(strstr(g.summary, "no CUDA GPU"));
        ck_assert_int_eq(g.r[0].status, CL_ST_NOT_RUN);
        ck_assert_double_eq(g.score, 0.0);
        char *text = cl_report_json(&g);
        cJSON *j = cJSON_Parse(text);
        ck_assert_str_eq(
            cJSON_GetObjectItem(cJSON_GetObjectItem(j, "extra_data"), "status")
                ->valuestring,
            "not graded: no GPU");
        cJSON_Delete(j);
        cJSON_free(text);
    } else {
        ck_assert_int_eq(rc, CL_EXIT_OK);
        ck_assert_double_eq(g.score, 6.0);
    }
}
END_TEST

/* every lab's spec is whole: unique case names, correctness and speed
 * cases, a size sweep for make bench, a profile case that exists, points
 * that add up to 100 */
START_TEST(test_lab_specs_consistent)
{
    for (const struct cl_lab *const *l = cl_labs; *l; l++) {
        const struct cl_lab *lab = *l;
        int kinds[4] = {0, 0, 0, 0}, profile_found = 0;
        double points = 0;
        for (int i = 0; i < lab->ncases; i++) {
            const struct cl_case *c = &lab->cases[i];
            kinds[c->kind]++;
            points += c->points;
            if (c->kind == CL_CASE_BENCH || c->kind == CL_CASE_DEMO)
                ck_assert_double_eq(c->points, 0.0);
            if (strcmp(c->name, lab->profile_case) == 0)
                profile_found = 1;
            for (int j = 0; j < i; j++)
                ck_assert_msg(strcmp(c->name, lab->cases[j].name) != 0,
                              "lab %s: case %s twice", lab->id, c->name);
        }
        ck_assert_msg(kinds[CL_CASE_CORRECT] > 0, "lab %s", lab->id);
        ck_assert_msg(kinds[CL_CASE_SPEED] > 0, "lab %s", lab->id);
        ck_assert_msg(kinds[CL_CASE_BENCH] > 0, "lab %s: no sweep", lab->id);
        ck_assert_msg(profile_found, "lab %s: profile case %s", lab->id,
                      lab->profile_case);
        ck_assert_msg(points == 100.0, "lab %s: %g points", lab->id, points);
        ck_assert_ptr_nonnull(lab->todo);
        ck_assert_ptr_nonnull(lab->baseline);
        ck_assert_double_gt(lab->speed_target, 0.0);
    }
}
END_TEST

START_TEST(test_lab_lookup)
{
    ck_assert_ptr_nonnull(cl_lab_find("01", NULL));
    ck_assert_ptr_eq(cl_lab_find("1", NULL), cl_lab_find("vector-add", NULL));
    ck_assert_ptr_eq(cl_lab_find("01-vector-add", NULL),
                     cl_lab_find("01", NULL));
    ck_assert_ptr_null(cl_lab_find("vector", NULL));
    ck_assert_ptr_null(cl_lab_find("", NULL));
    ck_assert_ptr_null(cl_lab_find("99", NULL));
    const struct cl_lab *extra[] = {&clean_lab, NULL};
    ck_assert_ptr_eq(cl_lab_find("93", extra), &clean_lab);
}
END_TEST

static Suite *grader_suite(void)
{
    Suite *s = suite_create("grader");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 60);
    tcase_add_test(core, test_isolation_statuses);
    tcase_add_test(core, test_sticky_error_restarts_worker);
    tcase_add_test(core, test_speed_only_after_correctness);
    tcase_add_test(core, test_speed_credit);
    tcase_add_test(core, test_reference_gru_cell);
    tcase_add_test(core, test_reference_gru_forward);
    tcase_add_test(core, test_bonus_line);
    tcase_add_test(core, test_spread_indices);
    tcase_add_test(core, test_reference_seq2seq);
    tcase_add_test(core, test_greedy_comparison);
    tcase_add_test(core, test_lab6_data_checked);
    tcase_add_test(core, test_status_names);
    tcase_add_test(core, test_reference_vector_add);
    tcase_add_test(core, test_reference_stencil);
    tcase_add_test(core, test_reference_causal_conv1d);
    tcase_add_test(core, test_reference_matmul);
    tcase_add_test(core, test_reference_adamw);
    tcase_add_test(core, test_gpt2_sizes);
    tcase_add_test(core, test_json_round_trip);
    tcase_add_test(core, test_json_written_atomically);
    tcase_add_test(core, test_table_report);
    tcase_add_test(core, test_find_marker);
    tcase_add_test(core, test_symbols_solution_clean);
    tcase_add_test(core, test_symbols_forbidden_cublas);
    tcase_add_test(core, test_cli_ok_paths);
    tcase_add_test(core, test_lab_lookup);
    tcase_add_test(core, test_lab_specs_consistent);
    tcase_add_test(core, test_no_gpu_or_graded);
    suite_add_tcase(s, core);

    TCase *limits = tcase_create("limits");
    tcase_set_timeout(limits, 60);
    tcase_add_test(limits, test_repeated_hangs_stop_the_run);
    tcase_add_test(limits, test_case_selection);
    tcase_add_test(limits, test_bench_mode);
    tcase_add_test(limits, test_unloadable_submission);
    tcase_add_test(limits, test_physical_floor);
    tcase_add_test(limits, test_speed_ratio_kinds);
    tcase_add_test(limits, test_symbols_cxx_linkage);
    tcase_add_test(limits, test_symbols_bad_files);
    tcase_add_test(limits, test_cli_usage_errors);
    tcase_add_test(limits, test_cli_submission_problems);
    tcase_add_test(limits, test_cli_which_and_collect);
    tcase_add_test(limits, test_forbidden_is_reported_in_json);
    suite_add_tcase(s, limits);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(grader_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed;
}
