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

START_TEST(test_lab1_bad_fixture_gets_its_status_and_text)
{
    char path[256];
    snprintf(path, sizeof path, CL_BUILD_DIR "/fixtures/lab01/%s.so",
             lab1_bad[_i].fixture);
    expect(path, lab1_bad[_i].only, lab1_bad[_i].status, lab1_bad[_i].text);
}
END_TEST

/* a case of a graded fixture: its status (ANY_STATUS: not asked) and what
 * its message must say (NULL: not asked) */
#define ANY_STATUS CL_ST_COUNT
struct case_want {
    const char *name;
    enum cl_status status;
    const char *text;
};

/* Labs 2 to 6's known-bad fixtures, graded on @c cases (as grade_lab reads
 * them: "quick", "correct", case names; NULL, every case). A row whose
 * @c exit is CL_EXIT_FAILED runs and is caught (expect_caught: some case
 * fails as @c caught, none is timed, less than full marks); any other
 * @c exit is the grade's (a refusal before anything runs), with no points.
 * Then each case of @c want (up to the first unnamed one) has its status
 * and its text. */
static const struct bad_fixture {
    const char *lab, *fixture, *cases;
    enum cl_exit exit;
    enum cl_status caught;
    struct case_want want[3];
} labs_bad[] = {
    {"02", "no_sync", "correct", CL_EXIT_FAILED, CL_ST_WRONG, {{0}}},
    {"02",
     "halo_off_by_one",
     "quick",
     CL_EXIT_FAILED,
     CL_ST_WRONG,
     {{"A:n=1000,R=8", CL_ST_WRONG, NULL},
      {"B:2x37x1001,K=4", CL_ST_PASS, NULL}}},
    {"02",
     "wrong_boundary",
     "quick",
     CL_EXIT_FAILED,
     CL_ST_WRONG,
     {{"A:n=1000,R=8", CL_ST_PASS, NULL},
      {"B:2x37x1001,K=4", CL_ST_WRONG, NULL}}},
    {"03", "no_barrier", "correct", CL_EXIT_FAILED, CL_ST_WRONG, {{0}}},
    /* caught by the precision checks, not by a wrong formula: a K = 1
     * product of TF32-rounded inputs is within the elementwise bound */
    {"03",
     "tf32",
     "quick|1000x1000x1000",
     CL_EXIT_FAILED,
     CL_ST_WRONG,
     {{"1000x1000x1000", ANY_STATUS, "row"}}},
    /* a remembered state is no answer to the next step's gradient */
    {"04", "same_step", "correct", CL_EXIT_FAILED, CL_ST_WRONG, {{0}}},
    {"04",
     "ignore_tail",
     "quick",
     CL_EXIT_FAILED,
     CL_ST_WRONG,
     {{"odd-unaligned", CL_ST_WRONG, NULL}}},
    /* work off the given stream, on a stateful lab: the trace forbids it
     * in the checked calls, the speed case's among them */
    {"04",
     "offstream",
     "quick|1000-small",
     CL_EXIT_FAILED,
     CL_ST_FORBIDDEN,
     {{"odd-unaligned", CL_ST_FORBIDDEN, "another stream"},
      {"1000-small", CL_ST_FORBIDDEN, "another stream"}}},
    /* the message says cuDNN agrees with the grader's reference */
    {"05",
     "swap_gates",
     "quick",
     CL_EXIT_FAILED,
     CL_ST_WRONG,
     {{"cell-b1-h100", CL_ST_WRONG, NULL},
      {"t7-b3-l3-h100", CL_ST_WRONG, "cuDNN"}}},
    {"05",
     "reset_early",
     "quick",
     CL_EXIT_FAILED,
     CL_ST_WRONG,
     {{"cell-b5-i200-h160", CL_ST_WRONG, NULL}}},
    /* FP32 is required: operands rounded to half fail everywhere */
    {"05",
     "half",
     "quick|t32-b8-l2-h512",
     CL_EXIT_FAILED,
     CL_ST_WRONG,
     {{"t32-b8-l2-h512", CL_ST_WRONG, NULL}}},
    /* only the rows the old grader sampled: the large batches fail */
    {"05",
     "partial_rows",
     "quick|t5-b37-l2-h512|cell-b64-i768-h512",
     CL_EXIT_FAILED,
     CL_ST_WRONG,
     {{"t1-b1-l1-h100", CL_ST_PASS, NULL},
      {"t5-b37-l2-h512", CL_ST_WRONG, NULL},
      {"cell-b64-i768-h512", CL_ST_WRONG, NULL}}},
    /* cuDNN is refused before anything runs */
    {"05", "cudnn", NULL, CL_EXIT_FORBIDDEN, ANY_STATUS, {{0}}},
    {"06",
     "no_context",
     "quick",
     CL_EXIT_FAILED,
     CL_ST_WRONG,
     {{"forced-b5-s7-t9", CL_ST_WRONG, NULL}}},
    /* teacher forcing never uses the start token: only greedy fails */
    {"06",
     "first_token",
     "quick",
     CL_EXIT_FAILED,
     CL_ST_WRONG,
     {{"forced-b5-s7-t9", CL_ST_PASS, NULL},
      {"greedy-b3-s6-t12", CL_ST_WRONG, NULL}}},
    {"06", "cudnn", NULL, CL_EXIT_FORBIDDEN, ANY_STATUS, {{0}}},
};

START_TEST(test_lab2_to_6_bad_fixture_is_caught)
{
    const struct bad_fixture *b = &labs_bad[_i];
    char path[256];
    snprintf(path, sizeof path, CL_BUILD_DIR "/fixtures/lab%s/%s.so", b->lab,
             b->fixture);
    if (b->exit == CL_EXIT_FAILED) {
        expect_caught(b->lab, path, b->cases, b->caught);
    } else {
        ck_assert_int_eq(grade_lab(b->lab, path, b->cases, 0), b->exit);
        ck_assert_double_eq(g.score, 0.0);
    }
    int nwant = (int)(sizeof b->want / sizeof b->want[0]);
    for (int k = 0; k < nwant && b->want[k].name; k++) {
        const struct case_want *w = &b->want[k];
        const struct cl_result *r = result(w->name);
        if (w->status != ANY_STATUS)
            ck_assert_msg(r->status == w->status,
                          "%s: %s: status %s, wanted %s (%s)", path, w->name,
                          cl_status_name(r->status), cl_status_name(w->status),
                          r->msg);
        if (w->text)
            ck_assert_msg(strstr(r->msg, w->text) != NULL,
                          "%s: %s: '%s' lacks '%s'", path, w->name, r->msg,
                          w->text);
    }
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

START_TEST(test_two_hangs_time_out_and_the_rest_is_not_run)
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

START_TEST(test_hostile_fixtures_refused_naming_what_they_use)
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

START_TEST(test_hostile_abort_while_loading_is_a_load_failure)
{
    /* the submission's failure (exit 5), not the grader's (exit 6) */
    ck_assert_int_eq(grade(FIXTURE("abort_ctor"), NULL, 20.0), CL_EXIT_LOAD);
    ck_assert_ptr_nonnull(strstr(g.summary, "while loading"));
    ck_assert_double_eq(g.score, 0.0);
}
END_TEST

START_TEST(test_hostile_heap_scan_finds_no_reference)
{
    /* the reference lives in the judge: there is nothing to find */
    expect(FIXTURE("heap_scan"), "n=1000003", CL_ST_WRONG, "none of");
}
END_TEST

START_TEST(test_hostile_offstream_work_is_forbidden)
{
    grade(FIXTURE("offstream"), "quick", 60.0);
    ck_assert_int_eq(result("n=31")->status, CL_ST_FORBIDDEN);
    ck_assert_ptr_nonnull(strstr(result("n=31")->msg, "another stream"));
    ck_assert_double_eq(g.score, 0.0);
}
END_TEST

START_TEST(test_lab2_skeleton_scores_zero)
{
    expect_skeleton("02", CL_BUILD_DIR "/student/02-stencil.so");
}
END_TEST

START_TEST(test_lab3_skeleton_scores_zero)
{
    expect_skeleton("03", CL_BUILD_DIR "/student/03-matmul.so");
}
END_TEST

START_TEST(test_lab3_unguarded_edge_fails_and_scores_zero)
{
    grade_lab("03", FIXTURE3("unguarded_edge"), "17x33x65", 20.0);
    ck_assert_msg(g.r[0].status == CL_ST_WRONG || g.r[0].status == CL_ST_CUDA,
                  "status %s", cl_status_name(g.r[0].status));
    ck_assert_double_eq(g.score, 0.0);
}
END_TEST

START_TEST(test_lab4_skeleton_scores_zero)
{
    expect_skeleton("04", CL_BUILD_DIR "/student/04-multi-tensor-apply.so");
}
END_TEST

START_TEST(test_lab5_skeleton_scores_zero)
{
    expect_skeleton("05", CL_BUILD_DIR "/student/05-gru.so");
}
END_TEST

START_TEST(test_lab6_skeleton_scores_zero)
{
    expect_skeleton("06", CL_BUILD_DIR "/student/06-seq2seq.so");
}
END_TEST

START_TEST(test_lab6_demo_translates_examples)
{
    struct cl_grade_opts o;
    memset(&o, 0, sizeof o);
    o.lib_path = CL_BUILD_DIR "/fixtures/lab06/correct.so";
    o.run.seed = 1;
    o.run.demo = 1;
    ck_assert_int_eq(cl_grade_run(cl_lab_find("06", NULL), &o, &g), CL_EXIT_OK);
    ck_assert_int_eq(g.n, 1);
    ck_assert_ptr_nonnull(strstr(g.r[0].msg, "examples translated right"));
}
END_TEST

int main(void)
{
    const TTest *tests[] = {
        test_lab1_skeleton_scores_zero,
        test_two_hangs_time_out_and_the_rest_is_not_run,
        test_crash_does_not_stop_the_run,
        test_hostile_fixtures_refused_naming_what_they_use,
        test_hostile_abort_while_loading_is_a_load_failure,
        test_hostile_heap_scan_finds_no_reference,
        test_hostile_offstream_work_is_forbidden,
        test_lab2_skeleton_scores_zero,
        test_lab3_skeleton_scores_zero,
        test_lab3_unguarded_edge_fails_and_scores_zero,
        test_lab4_skeleton_scores_zero,
        test_lab5_skeleton_scores_zero,
        test_lab6_skeleton_scores_zero,
        test_lab6_demo_translates_examples,
    };
    int n = (int)(sizeof tests / sizeof tests[0]);
    int rows = (int)(sizeof lab1_bad / sizeof lab1_bad[0]);
    int rows2 = (int)(sizeof labs_bad / sizeof labs_bad[0]);
    char why[256];
    if (!gpu_present(why, sizeof why))
        return cl_suite_run(NULL, n + rows + rows2, why);
    Suite *s = suite_create("faults");
    TCase *c = tcase_create("faults");
    tcase_set_timeout(c, 300);
    for (int i = 0; i < n; i++)
        tcase_add_test(c, tests[i]);
    tcase_add_loop_test(c, test_lab1_bad_fixture_gets_its_status_and_text, 0,
                        rows);
    tcase_add_loop_test(c, test_lab2_to_6_bad_fixture_is_caught, 0, rows2);
    suite_add_tcase(s, c);
    return cl_suite_run(s, 0, NULL);
}
