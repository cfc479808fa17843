/* test_faults.c: the faults only a GPU can show, whose verdict needs no
 * clock: every skeleton earns nothing, every known-bad fixture of Labs 1
 * to 6 gets its status and message and no points, a hang and a kernel
 * fault stop one case each, and the hostile fixtures the static check
 * refuses or the checks catch. It asserts no timing, so make test runs it
 * beside the other suites while test_gpu waits for an idle GPU. Without a
 * GPU the suite says so and skips. */
#define _GNU_SOURCE
#include "tests/gpu_grading.h"
#include "tests/suite.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

/* Lab 1's known-bad fixtures, one case each: the status it must get and
 * what its message must say (and no points) */
static const struct {
    const char *fixture, *only;
    enum cl_status status;
    const char *text;
} lab1_bad[] = {
    {"nothing", "n=31", CL_ST_WRONG, "none of the 31"},
    {"short_by_one", "n=1000003", CL_ST_WRONG, "1 never written"},
    {"past_end", "n=31", CL_ST_OOB, "past the end of c"},
    {"before_start", "n=31", CL_ST_OOB, "before the start of c"},
    {"nan", "n=31", CL_ST_WRONG, "NaN"},
    {"half", "n=1000003", CL_ST_WRONG, "wrong"},
    {"crash_host", "n=31", CL_ST_CRASH, "signal 11"},
    {"crash_kernel", "n=31", CL_ST_CUDA, "cudaErrorIllegal"},
};

START_TEST(test_fixture_table)
{
    char path[256];
    snprintf(path, sizeof path, CL_BUILD_DIR "/fixtures/lab01/%s.so",
             lab1_bad[_i].fixture);
    expect(path, lab1_bad[_i].only, lab1_bad[_i].status, lab1_bad[_i].text);
}
END_TEST

START_TEST(test_lab1_skeleton_scores_zero)
{
    expect_skeleton("01", CL_BUILD_DIR "/student/01-vector-add.so");
    const struct cl_result *r = result("n=1000003");
    /* the skeleton's kernel body is a TODO: nothing is written */
    ck_assert_ptr_nonnull(strstr(r->msg, "none of the 1000003 elements"));
}
END_TEST

START_TEST(test_fixture_hang)
{
    grade(FIXTURE("hang"), NULL, 3.0);
    ck_assert_int_eq(g.r[0].status, CL_ST_TIMEOUT);
    ck_assert_int_eq(g.r[1].status, CL_ST_TIMEOUT);
    ck_assert_int_eq(g.r[2].status, CL_ST_NOT_RUN);
    ck_assert_double_eq(g.score, 0.0);
}
END_TEST

START_TEST(test_crash_does_not_stop_the_run)
{
    /* every case of the kernel fault is caught, each in a fresh worker */
    ck_assert_int_eq(grade(FIXTURE("crash_kernel"), "quick", 20.0),
                     CL_EXIT_FAILED);
    for (int k = 0; k < g.n; k++)
        ck_assert_int_eq(g.r[k].status, CL_ST_CUDA);
}
END_TEST

START_TEST(test_hostile_refused)
{
    expect_refused("01", FIXTURE("forge_pipe"), "'write'");
    expect_refused("01", FIXTURE("patch_checks"), "'mprotect'");
    expect_refused("01", FIXTURE("kill_grader"), "other processes");
    expect_refused("01", FIXTURE("daemon"), "'fork'");
    expect_refused("01", FIXTURE("dlopen_cudnn"), "dynamic loading");
    expect_refused("01", FIXTURE("write_cache"), "'fopen'");
    expect_refused("01", FIXTURE("raw_syscall"), "system call instruction");
    expect_refused("06", CL_BUILD_DIR "/fixtures/lab06/chdir_data.so",
                   "'chdir'");
}
END_TEST

START_TEST(test_hostile_abort_while_loading)
{
    /* the submission's failure (exit 5), not the grader's (exit 6) */
    ck_assert_int_eq(grade(FIXTURE("abort_ctor"), NULL, 20.0), CL_EXIT_LOAD);
    ck_assert_ptr_nonnull(strstr(g.summary, "while loading"));
    ck_assert_double_eq(g.score, 0.0);
}
END_TEST

START_TEST(test_hostile_heap_scan)
{
    /* the reference lives in the judge: there is nothing to find */
    expect(FIXTURE("heap_scan"), "n=1000003", CL_ST_WRONG, "none of");
}
END_TEST

START_TEST(test_hostile_offstream)
{
    grade(FIXTURE("offstream"), "quick", 60.0);
    ck_assert_int_eq(result("n=31")->status, CL_ST_FORBIDDEN);
    ck_assert_ptr_nonnull(strstr(result("n=31")->msg, "another stream"));
    ck_assert_double_eq(g.score, 0.0);
}
END_TEST

START_TEST(test_lab2_skeleton)
{
    expect_skeleton("02", CL_BUILD_DIR "/student/02-stencil.so");
}
END_TEST

START_TEST(test_lab2_no_sync)
{
    expect_caught("02", FIXTURE2("no_sync"), "correct", CL_ST_WRONG);
}
END_TEST

START_TEST(test_lab2_halo_off_by_one)
{
    expect_caught("02", FIXTURE2("halo_off_by_one"), "quick", CL_ST_WRONG);
    ck_assert_int_eq(result("A:n=1000,R=8")->status, CL_ST_WRONG);
    ck_assert_int_eq(result("B:2x37x1001,K=4")->status, CL_ST_PASS);
}
END_TEST

START_TEST(test_lab2_wrong_boundary)
{
    expect_caught("02", FIXTURE2("wrong_boundary"), "quick", CL_ST_WRONG);
    ck_assert_int_eq(result("A:n=1000,R=8")->status, CL_ST_PASS);
    ck_assert_int_eq(result("B:2x37x1001,K=4")->status, CL_ST_WRONG);
}
END_TEST

START_TEST(test_lab3_skeleton)
{
    expect_skeleton("03", CL_BUILD_DIR "/student/03-matmul.so");
}
END_TEST

START_TEST(test_lab3_no_barrier)
{
    expect_caught("03", FIXTURE3("no_barrier"), "correct", CL_ST_WRONG);
}
END_TEST

START_TEST(test_lab3_unguarded_edge)
{
    grade_lab("03", FIXTURE3("unguarded_edge"), "17x33x65", 20.0);
    ck_assert_msg(g.r[0].status == CL_ST_WRONG || g.r[0].status == CL_ST_CUDA,
                  "status %s", cl_status_name(g.r[0].status));
    ck_assert_double_eq(g.score, 0.0);
}
END_TEST

START_TEST(test_lab3_tf32)
{
    expect_caught("03", FIXTURE3("tf32"), "quick|1000x1000x1000", CL_ST_WRONG);
    /* caught by the precision checks, not by a wrong formula: a K = 1
     * product of TF32-rounded inputs is within the elementwise bound */
    ck_assert_ptr_nonnull(strstr(result("1000x1000x1000")->msg, "row"));
}
END_TEST

START_TEST(test_lab4_skeleton)
{
    expect_skeleton("04", CL_BUILD_DIR "/student/04-multi-tensor-apply.so");
}
END_TEST

START_TEST(test_lab4_same_step)
{
    /* a remembered state is no answer to the next step's gradient */
    expect_caught("04", FIXTURE4("same_step"), "correct", CL_ST_WRONG);
}
END_TEST

START_TEST(test_lab4_ignore_tail)
{
    expect_caught("04", FIXTURE4("ignore_tail"), "quick", CL_ST_WRONG);
    ck_assert_int_eq(result("odd-unaligned")->status, CL_ST_WRONG);
}
END_TEST

START_TEST(test_lab5_skeleton)
{
    expect_skeleton("05", CL_BUILD_DIR "/student/05-gru.so");
}
END_TEST

START_TEST(test_lab5_swap_gates)
{
    expect_caught("05", FIXTURE5("swap_gates"), "quick", CL_ST_WRONG);
    ck_assert_int_eq(result("cell-b1-h100")->status, CL_ST_WRONG);
    ck_assert_int_eq(result("t7-b3-l3-h100")->status, CL_ST_WRONG);
    /* the message says cuDNN agrees with the grader's reference */
    ck_assert_ptr_nonnull(strstr(result("t7-b3-l3-h100")->msg, "cuDNN"));
}
END_TEST

START_TEST(test_lab5_reset_early)
{
    expect_caught("05", FIXTURE5("reset_early"), "quick", CL_ST_WRONG);
    ck_assert_int_eq(result("cell-b5-i200-h160")->status, CL_ST_WRONG);
}
END_TEST

START_TEST(test_lab5_half_precision)
{
    /* FP32 is required: operands rounded to half fail everywhere */
    expect_caught("05", FIXTURE5("half"), "quick|t32-b8-l2-h512", CL_ST_WRONG);
    ck_assert_int_eq(result("t32-b8-l2-h512")->status, CL_ST_WRONG);
}
END_TEST

START_TEST(test_lab5_partial_rows)
{
    /* only the rows the old grader sampled: the large batches fail */
    expect_caught("05", FIXTURE5("partial_rows"),
                  "quick|t5-b37-l2-h512|cell-b64-i768-h512", CL_ST_WRONG);
    ck_assert_int_eq(result("t1-b1-l1-h100")->status, CL_ST_PASS);
    ck_assert_int_eq(result("t5-b37-l2-h512")->status, CL_ST_WRONG);
    ck_assert_int_eq(result("cell-b64-i768-h512")->status, CL_ST_WRONG);
}
END_TEST

START_TEST(test_lab5_cudnn_rejected)
{
    ck_assert_int_eq(grade_lab("05", FIXTURE5("cudnn"), NULL, 0),
                     CL_EXIT_FORBIDDEN);
    ck_assert_double_eq(g.score, 0.0);
}
END_TEST

START_TEST(test_lab6_skeleton)
{
    expect_skeleton("06", CL_BUILD_DIR "/student/06-seq2seq.so");
}
END_TEST

START_TEST(test_lab6_no_context)
{
    expect_caught("06", FIXTURE6("no_context"), "quick", CL_ST_WRONG);
    ck_assert_int_eq(result("forced-b5-s7-t9")->status, CL_ST_WRONG);
}
END_TEST

START_TEST(test_lab6_first_token)
{
    /* teacher forcing never uses the start token: only greedy fails */
    expect_caught("06", FIXTURE6("first_token"), "quick", CL_ST_WRONG);
    ck_assert_int_eq(result("forced-b5-s7-t9")->status, CL_ST_PASS);
    ck_assert_int_eq(result("greedy-b3-s6-t12")->status, CL_ST_WRONG);
}
END_TEST

START_TEST(test_lab6_cudnn_rejected)
{
    ck_assert_int_eq(grade_lab("06", FIXTURE6("cudnn"), NULL, 0),
                     CL_EXIT_FORBIDDEN);
}
END_TEST

START_TEST(test_lab6_demo)
{
    struct cl_grade_opts o;
    memset(&o, 0, sizeof o);
    o.lib_path = CL_BUILD_DIR "/fixtures/lab06/correct.so";
    o.seed = 1;
    o.demo = 1;
    ck_assert_int_eq(cl_grade_run(cl_lab_find("06", NULL), &o, &g), CL_EXIT_OK);
    ck_assert_int_eq(g.n, 1);
    ck_assert_ptr_nonnull(strstr(g.r[0].msg, "examples translated right"));
}
END_TEST

int main(void)
{
    const TTest *tests[] = {
        test_lab1_skeleton_scores_zero,
        test_fixture_hang,
        test_crash_does_not_stop_the_run,
        test_hostile_refused,
        test_hostile_abort_while_loading,
        test_hostile_heap_scan,
        test_hostile_offstream,
        test_lab2_skeleton,
        test_lab2_no_sync,
        test_lab2_halo_off_by_one,
        test_lab2_wrong_boundary,
        test_lab3_skeleton,
        test_lab3_no_barrier,
        test_lab3_unguarded_edge,
        test_lab3_tf32,
        test_lab4_skeleton,
        test_lab4_same_step,
        test_lab4_ignore_tail,
        test_lab5_skeleton,
        test_lab5_swap_gates,
        test_lab5_reset_early,
        test_lab5_half_precision,
        test_lab5_partial_rows,
        test_lab5_cudnn_rejected,
        test_lab6_skeleton,
        test_lab6_no_context,
        test_lab6_first_token,
        test_lab6_cudnn_rejected,
        test_lab6_demo,
    };
    int n = (int)(sizeof tests / sizeof tests[0]);
    int rows = (int)(sizeof lab1_bad / sizeof lab1_bad[0]);
    char why[256];
    if (!gpu_present(why, sizeof why))
        return cl_suite_run(NULL, n + rows, why);
    Suite *s = suite_create("faults");
    TCase *c = tcase_create("faults");
    tcase_set_timeout(c, 300);
    for (int i = 0; i < n; i++)
        tcase_add_test(c, tests[i]);
    tcase_add_loop_test(c, test_fixture_table, 0, rows);
    suite_add_tcase(s, c);
    return cl_suite_run(s, 0, NULL);
}
