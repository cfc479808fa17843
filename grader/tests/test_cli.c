/* test_cli.c: the grader's command line. Options, lab names, usage errors
 * and what never grades run in this process through cl_cli_main(), with
 * its stdout and stderr captured; grades of the self-test lab (00) and of
 * Lab 1 without a GPU run the grader's binary, as a user does. Each test
 * checks the exit code against enum cl_exit, what is said, and what is
 * written (results.json, gradebook.csv). */
#define _GNU_SOURCE
#include "parent/cli.h"
#include "parent/engine.h"
#include "parent/gradebook.h"
#include "fileio.h"
#include "tests/grade_proc.h"
#include "parent/grade.h"
#include "tests/shell.h"
#include "specs/labs.h"
#include "tests/suite.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HONEST      CL_BUILD_DIR "/selftest/honest.so"
#define HANG        CL_BUILD_DIR "/selftest/hang.so"
#define HANG_BIG    CL_BUILD_DIR "/selftest/hang_big.so"
#define ECHO_INPUTS CL_BUILD_DIR "/selftest/echo_inputs.so"
#define SOLUTION_01 CL_BUILD_DIR "/solution/01-vector-add.so"
#define FIXTURE(n)  CL_BUILD_DIR "/fixtures/lab01/" n ".so"
#define LIMIT_S     120.0

// ---- in this process -------------------------------------------------------

static char *cap_out, *cap_err; /* what the last cli() printed */

/* cl_cli_main(argv) with fds 1 and 2 captured into cap_out / cap_err */
static int cli(int argc, const char **argv)
{
    char dir[] = "/tmp/cl-cli-XXXXXX", out[64], err[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(err, sizeof err, "%s/err", dir);
    fflush(NULL);
    int save1 = dup(1), save2 = dup(2);
    int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(o, 0);
    ck_assert_int_ge(e, 0);
    dup2(o, 1);
    dup2(e, 2);
    close(o);
    close(e);
    int rc = cl_cli_main(argc, (char **)argv, NULL);
    fflush(NULL);
    dup2(save1, 1);
    dup2(save2, 2);
    close(save1);
    close(save2);
    free(cap_out);
    free(cap_err);
    cap_out = grade_proc_slurp(out);
    cap_err = grade_proc_slurp(err);
    unlink(out);
    unlink(err);
    rmdir(dir);
    return rc;
}

#define CLI(...)                                                               \
    ({                                                                         \
        const char *argv_[] = {"grade", __VA_ARGS__, NULL};                    \
        cli((int)(sizeof argv_ / sizeof argv_[0]) - 1, argv_);                 \
    })

/* the captured stderr says @p text */
#define ERR_SAYS(text)                                                         \
    ck_assert_msg(strstr(cap_err, text) != NULL, "stderr lacks '%s':\n%s",     \
                  text, cap_err)
#define OUT_SAYS(text)                                                         \
    ck_assert_msg(strstr(cap_out, text) != NULL, "stdout lacks '%s':\n%s",     \
                  text, cap_out)

// ---- the binary
// --------------------------------------------------------------

/* `grade ARGS...` (the binary); the caller frees */
#define GRADE(p, ...)                                                          \
    do {                                                                       \
        const char *a_[] = {__VA_ARGS__, NULL};                                \
        ck_assert_int_eq(grade_proc_init(p), 0);                               \
        ck_assert_int_eq(grade_proc_run(p, a_, NULL, LIMIT_S), 0);             \
        ck_assert_msg(!(p)->timed_out, "the grader ran past %.0f s", LIMIT_S); \
    } while (0)

/* the status of case @p name in results.json, or NULL */
static const char *case_status(const cJSON *json, const char *name)
{
    const cJSON *c;
    cJSON_ArrayForEach(
        c, cJSON_GetObjectItemCaseSensitive(
               cJSON_GetObjectItemCaseSensitive(json, "extra_data"), "cases"))
    {
        if (strcmp(json_str(c, "name"), name) == 0)
            return json_str(c, "status");
    }
    return NULL;
}

static int case_count(const cJSON *json)
{
    return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(json, "tests"));
}

// ---- usage
// -------------------------------------------------------------------

/* Unknown labs, options and values, a missing value and two labs are usage
 * errors (exit 2) with one line that says which, and nothing is graded. */
START_TEST(test_cli_usage_errors)
{
    ck_assert_int_eq(CLI("no-such-lab"), CL_EXIT_USAGE);
    ERR_SAYS("grade: unknown lab 'no-such-lab' (labs: 01 vector-add, 02 "
             "stencil, 03 matmul, 04 multi-tensor-apply, 05 gru, 06 "
             "seq2seq)\nTry 'grade --help'.\n");
    ck_assert_ptr_null(strstr(cap_err, "selftest")); /* lab 00 is hidden */
    ck_assert_str_eq(cap_out, "");
    ck_assert_int_eq(CLI("--bogus", "00"), CL_EXIT_USAGE);
    ERR_SAYS("unknown option '--bogus'");
    ck_assert_int_eq(CLI("00", "--seed", "x1"), CL_EXIT_USAGE);
    ERR_SAYS("bad seed 'x1' (a non-negative integer)");
    ck_assert_int_eq(CLI("00", "--seed", "-5"), CL_EXIT_USAGE);
    ERR_SAYS("bad seed '-5'");
    ck_assert_int_eq(CLI("00", "--seed", "99999999999999999999999"),
                     CL_EXIT_USAGE);
    ERR_SAYS("bad seed '99999999999999999999999'");
    ck_assert_int_eq(CLI("00", "--timeout", "0"), CL_EXIT_USAGE);
    ERR_SAYS("bad timeout '0' (seconds, > 0)");
    ck_assert_int_eq(CLI("00", "-t", "soon"), CL_EXIT_USAGE);
    ERR_SAYS("bad timeout 'soon'");
    ck_assert_int_eq(CLI("00", "--timeout"), CL_EXIT_USAGE);
    ERR_SAYS("option '--timeout' needs a value");
    ck_assert_int_eq(CLI("00", "--format", "xml"), CL_EXIT_USAGE);
    ERR_SAYS("bad format 'xml' (csv, canvas or gradescope)");
    ck_assert_int_eq(CLI("01", "02"), CL_EXIT_USAGE);
    ERR_SAYS("one lab at a time (extra argument '02')");
    const char *argv[] = {"grade", NULL};
    ck_assert_int_eq(cli(1, argv), CL_EXIT_USAGE);
    ERR_SAYS("which lab? (for example: grade 01)");
    ck_assert_str_eq(cap_out, "");
}
END_TEST

/* --help, --version and --list answer 0; a lab is found by any of its
 * names; lab 00 is not listed but has its cases. */
START_TEST(test_cli_ok_paths)
{
    ck_assert_int_eq(CLI("--help"), CL_EXIT_OK);
    OUT_SAYS("usage: grade [options] LAB\n");
    /* the exit codes it promises are grader.h's */
    OUT_SAYS("exit codes: 0 graded, all correct; 1 graded, a case failed; 2 "
             "usage error");
    OUT_SAYS("3 no GPU; 4 uses what the lab forbids; 5 submission cannot be\n"
             "loaded");
    ck_assert_int_eq(CLI("--version"), CL_EXIT_OK);
    char *v = cl_read_file("VERSION", NULL), want[64];
    ck_assert_ptr_nonnull(v);
    v[strcspn(v, "\n")] = '\0';
    snprintf(want, sizeof want, "cuda-labs grader %s\n", v);
    free(v);
    ck_assert_str_eq(cap_out, want);

    ck_assert_int_eq(CLI("--list"), CL_EXIT_OK);
    ck_assert_int_eq(count_of(cap_out, "\n"), 6);
    OUT_SAYS("01  vector-add           Vector add\n");
    OUT_SAYS("06  seq2seq");
    ck_assert_ptr_null(strstr(cap_out, "00  "));

    ck_assert_int_eq(CLI("vector-add", "--list"), CL_EXIT_OK);
    char *by_slug = strdup(cap_out);
    /* a speed case says what earns its full credit, as the README does */
    OUT_SAYS("n=2^28                     speed     40.0 points  full credit "
             "at 90% of the copy ceiling (none at 60%)\n");
    OUT_SAYS("n=1                        correct    6.0 points  (quick)\n");
    ck_assert_int_eq(CLI("1", "--list"), CL_EXIT_OK);
    ck_assert_str_eq(cap_out, by_slug);
    ck_assert_int_eq(CLI("01-vector-add", "--list"), CL_EXIT_OK);
    ck_assert_str_eq(cap_out, by_slug);
    free(by_slug);

    ck_assert_int_eq(CLI("00", "--list"), CL_EXIT_OK);
    ck_assert_str_eq(cap_out,
                     "n=1                        correct   10.0 points  "
                     "(quick)\n"
                     "n=1000                     correct   10.0 points  "
                     "(quick)\n"
                     "n=2^20                     correct   10.0 points\n"
                     "speed                      speed     20.0 points  "
                     "full credit at 1.00x the judge's loop\n");
    ck_assert_int_eq(CLI("selftest", "--list"), CL_EXIT_OK);
    OUT_SAYS("speed                      speed     20.0 points  full credit "
             "at 1.00x the judge's loop\n");
}
END_TEST

/* --which names a lab's source; --collect needs a batch directory and
 * turns its results.json files into gradebook.csv rows. */
START_TEST(test_cli_which_and_collect)
{
    ck_assert_int_eq(CLI("stencil", "--which"), CL_EXIT_OK);
    ck_assert_str_eq(cap_out, "02 stencil labs/02-stencil/stencil.cu\n");
    ck_assert_int_eq(access("labs/02-stencil/stencil.cu", R_OK), 0);
    ck_assert_int_eq(CLI("0", "--which"), CL_EXIT_OK);
    ck_assert_str_eq(cap_out, "00 selftest grader/tests/selftest/honest.c\n");
    ck_assert_int_eq(CLI("99", "--which"), CL_EXIT_USAGE);
    ERR_SAYS("unknown lab '99'");
    /* no batch there: said, not a crash */
    ck_assert_int_eq(CLI("00", "--collect", "/nonexistent"), CL_EXIT_USAGE);
    ERR_SAYS("/nonexistent is not a folder");
    ck_assert_int_eq(CLI("00", "--collect"), CL_EXIT_USAGE);
    ERR_SAYS("option '--collect' needs a value");

    char dir[] = "/tmp/cl-collect-XXXXXX", path[128];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/results", dir);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    ck_assert_int_eq(CLI("00", "--collect", dir), CL_EXIT_OK);
    OUT_SAYS("gradebook: 0 rows in");
    snprintf(path, sizeof path, "%s/gradebook.csv", dir);
    char *csv = cl_read_file(path, NULL);
    ck_assert_ptr_nonnull(csv);
    ck_assert_str_eq(csv, "student,lab,score,max_score,correctness,speed,"
                          "status,detail,key,id,email,late\n");
    free(csv);

    /* two graded submissions: one right, one writing past its buffer */
    struct grade_proc p;
    char json[160];
    snprintf(json, sizeof json, "%s/results/alice.json", dir);
    GRADE(&p, "00", "--lib", HONEST, "-q", "--seed", "5", "--json", json);
    ck_assert_int_eq(p.rc, CL_EXIT_OK);
    grade_proc_free(&p);
    snprintf(json, sizeof json, "%s/results/bob.json", dir);
    GRADE(&p, "00", "--lib", CL_BUILD_DIR "/selftest/scribble.so", "-q",
          "--seed", "5", "--json", json);
    ck_assert_int_eq(p.rc, CL_EXIT_FAILED);
    grade_proc_free(&p);
    ck_assert_int_eq(CLI("00", "--collect", dir), CL_EXIT_OK);
    OUT_SAYS("gradebook: 2 rows in");
    csv = cl_read_file(path, NULL);
    ck_assert_ptr_nonnull(csv);
    /* (graded with --quick: the rows say so) */
    ck_assert_msg(strstr(csv, "\nalice,00,20.00,20.00,20.00,,graded (only "
                              "the quick cases),") != NULL,
                  "%s", csv);
    ck_assert_msg(strstr(csv, "\nbob,00,0.00,20.00,0.00,,graded: "
                              "out-of-bounds (only the quick cases),") != NULL,
                  "%s", csv);
    ck_assert_int_eq(count_of(csv, "\n"), 3);
    free(csv);

    /* another lab's batch: refused (exit 2), naming the lab, and no
     * gradebook written over */
    ck_assert_int_eq(CLI("01", "--collect", dir), CL_EXIT_USAGE);
    ERR_SAYS("is a result of lab 00, not of lab 01: collect that batch with "
             "'grade 00 --collect");
    ck_assert_str_eq(cap_out, "");
    /* the batch's own record of its lab (tools/grade-class.sh writes it) */
    snprintf(path, sizeof path, "%s/lab", dir);
    ck_assert_int_eq(cl_write_atomic(path, "00 selftest\n", 12), 0);
    ck_assert_int_eq(CLI("02", "--collect", dir), CL_EXIT_USAGE);
    ERR_SAYS("is a batch of lab 00, not of lab 02");
    ck_assert_int_eq(CLI("00", "--collect", dir), CL_EXIT_OK);
    /* a file where the folder should be */
    ck_assert_int_eq(CLI("00", "--collect", path), CL_EXIT_USAGE);
    ERR_SAYS("is not a folder");
    ck_assert_int_eq(sh("rm -rf %s", dir), 0);
}
END_TEST

/* decode the base64 line --classroom printed into JSON (the caller frees) */
static cJSON *classroom_json(const char *b64)
{
    char in[] = "/tmp/cl-b64-XXXXXX";
    int fd = mkstemp(in);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, b64, strlen(b64)), (ssize_t)strlen(b64));
    close(fd);
    char cmd[400], out[160];
    snprintf(out, sizeof out, "%s.json", in);
    snprintf(cmd, sizeof cmd, "base64 -d %s > %s", in, out);
    ck_assert_int_eq(sh("%s", cmd), 0);
    char *text = cl_read_file(out, NULL);
    ck_assert_ptr_nonnull(text);
    cJSON *j = cJSON_Parse(text);
    ck_assert_msg(cJSON_IsObject(j), "not JSON: %s", text);
    free(text);
    unlink(in);
    unlink(out);
    return j;
}

/* --classroom: GitHub Classroom's autograding result (what
 * autograding-grading-reporter decodes): every case with its score and
 * the lab's points as max_score; a compile error is a zero of the lab's
 * points; no GPU or no results is no score at all; another lab's results
 * are refused */
START_TEST(test_classroom_result)
{
    char dir[] = "/tmp/cl-class-XXXXXX", json[96], path[96];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(json, sizeof json, "%s/results.json", dir);
    struct grade_proc p;
    GRADE(&p, "00", "--lib", CL_BUILD_DIR "/selftest/scribble.so", "-q",
          "--seed", "5", "--json", json);
    ck_assert_int_eq(p.rc, CL_EXIT_FAILED);
    grade_proc_free(&p);
    ck_assert_int_eq(CLI("00", "--classroom", json), CL_EXIT_OK);
    ck_assert_int_eq(count_of(cap_out, "\n"), 1);
    cJSON *j = classroom_json(cap_out);
    ck_assert_double_eq(json_num(j, "version"), 1);
    ck_assert_str_eq(json_str(j, "status"), "fail");
    ck_assert_double_eq(json_num(j, "max_score"), 20);
    const cJSON *t, *tests = cJSON_GetObjectItem(j, "tests");
    ck_assert_int_eq(cJSON_GetArraySize(tests), 2);
    double sum = 0;
    cJSON_ArrayForEach(t, tests)
    {
        ck_assert_str_eq(json_str(t, "test_code"), "make grade LAB=00");
        ck_assert_ptr_nonnull(cJSON_GetObjectItem(t, "line_no"));
        sum += json_num(t, "score");
    }
    ck_assert_double_eq(sum, 0); /* out of bounds: every case failed */
    ck_assert_ptr_nonnull(strstr(
        json_str(cJSON_GetArrayItem(tests, 0), "message"), "out-of-bounds"));
    cJSON_Delete(j);

    /* a right one: each case's points, status pass */
    GRADE(&p, "00", "--lib", HONEST, "-q", "--seed", "5", "--json", json);
    ck_assert_int_eq(p.rc, CL_EXIT_OK);
    grade_proc_free(&p);
    ck_assert_int_eq(CLI("00", "--classroom", json), CL_EXIT_OK);
    j = classroom_json(cap_out);
    ck_assert_str_eq(json_str(j, "status"), "pass");
    sum = 0;
    cJSON_ArrayForEach(t, cJSON_GetObjectItem(j, "tests"))
    {
        ck_assert_str_eq(json_str(t, "status"), "pass");
        sum += json_num(t, "score");
    }
    ck_assert_double_eq(sum, 20);
    cJSON_Delete(j);

    /* not this lab's */
    ck_assert_int_eq(CLI("01", "--classroom", json), CL_EXIT_USAGE);
    ERR_SAYS("the results are of lab 00, not of lab 01");

    /* a compile error (the batch's status file): 0 of the lab's points */
    snprintf(path, sizeof path, "%s/lab.status", dir);
    const char *st = "compile-error\tx.cu(3): error: \"y\" is undefined\n";
    ck_assert_int_eq(cl_write_atomic(path, st, strlen(st)), 0);
    ck_assert_int_eq(CLI("00", "--classroom", path), CL_EXIT_OK);
    j = classroom_json(cap_out);
    ck_assert_str_eq(json_str(j, "status"), "fail");
    ck_assert_double_eq(json_num(j, "max_score"), 50);
    t = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "tests"), 0);
    ck_assert_str_eq(json_str(t, "name"), "compile-error");
    ck_assert_double_eq(json_num(t, "score"), 0);
    ck_assert_str_eq(json_str(t, "message"),
                     "x.cu(3): error: \"y\" is undefined");
    cJSON_Delete(j);

    /* no results at all, or no GPU: no score (max_score 0), an error */
    snprintf(path, sizeof path, "%s/none.json", dir);
    ck_assert_int_eq(CLI("00", "--classroom", path), CL_EXIT_OK);
    j = classroom_json(cap_out);
    ck_assert_str_eq(json_str(j, "status"), "error");
    ck_assert_double_eq(json_num(j, "max_score"), 0);
    cJSON_Delete(j);
    const char *nogpu =
        "{\"score\": 0, \"max_score\": 100, \"output\": \"no NVIDIA driver "
        "or GPU found\", \"tests\": [], \"extra_data\": {\"lab\": \"01\", "
        "\"status\": \"not graded: no GPU\", \"exit_code\": 3}}";
    ck_assert_int_eq(cl_write_atomic(path, nogpu, strlen(nogpu)), 0);
    ck_assert_int_eq(CLI("01", "--classroom", path), CL_EXIT_OK);
    j = classroom_json(cap_out);
    ck_assert_str_eq(json_str(j, "status"), "error");
    ck_assert_double_eq(json_num(j, "max_score"), 0);
    t = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "tests"), 0);
    ck_assert_str_eq(json_str(t, "message"), "no NVIDIA driver or GPU found");
    cJSON_Delete(j);
    /* not a results.json */
    ck_assert_int_eq(CLI("00", "--classroom", "Makefile"), CL_EXIT_USAGE);
    ERR_SAYS("Makefile is not a results.json of this grader");
    sh("rm -rf %s", dir);
}
END_TEST

// ---- submissions
// -------------------------------------------------------------

/* A missing file (exit 5, as grader.h's CL_EXIT_LOAD and docs/grading.md
 * promise), a forbidden import (4), a missing entry point or a file that
 * is no library (5), and an unknown case (2, naming the cases). */
START_TEST(test_cli_submission_problems)
{
    ck_assert_int_eq(CLI("01", "--lib", "/nonexistent.so"), CL_EXIT_LOAD);
    ERR_SAYS("cannot read the submission '/nonexistent.so': No such file or "
             "directory (run 'make grade LAB=01' to build it)");
    ck_assert_int_eq(CLI("00", "--lib", "/nonexistent.so"), CL_EXIT_LOAD);
    ck_assert_str_eq(cap_out, "");
    /* refused on its imports before any GPU is needed */
    ck_assert_int_eq(CLI("01", "--lib", FIXTURE("cublas")), CL_EXIT_FORBIDDEN);
    OUT_SAYS("not graded: the submission uses 'cublas");
    ck_assert_int_eq(CLI("01", "--lib", FIXTURE("no_symbol")), CL_EXIT_LOAD);
    OUT_SAYS("does not define 'vector_add'");
    /* Lab 1's reference is no lab 00 submission */
    ck_assert_int_eq(CLI("00", "--lib", SOLUTION_01), CL_EXIT_LOAD);
    OUT_SAYS("not graded: the submission does not define 'selftest_add'");
    ck_assert_int_eq(CLI("00", "--lib", "Makefile"), CL_EXIT_LOAD);
    OUT_SAYS("not graded: Makefile is not a 64-bit ELF shared library");
    ck_assert_int_eq(CLI("00", "--lib", HONEST, "--case", "nope"),
                     CL_EXIT_USAGE);
    ERR_SAYS("grade: no case named 'nope' in lab 00\n");
    OUT_SAYS("n=1                        correct");
    OUT_SAYS("speed                      speed");
    ck_assert_ptr_null(strstr(cap_out, "score:")); /* nothing graded */
}
END_TEST

/* The static checks alone need no GPU: Lab 1's reference passes them, a
 * cuBLAS call is refused (4), a missing entry point too (5). */
START_TEST(test_check_without_gpu)
{
    ck_assert_int_eq(CLI("01", "--lib", SOLUTION_01, "--check"), CL_EXIT_OK);
    ck_assert_str_eq(cap_out,
                     "check: " SOLUTION_01 " passes the static checks of lab "
                     "01 (entry points, what it uses, no system call "
                     "instructions)\n");
    ck_assert_int_eq(CLI("01", "--lib", FIXTURE("cublas"), "--check"),
                     CL_EXIT_FORBIDDEN);
    ERR_SAYS("from a library this lab forbids");
    ERR_SAYS("(exit 4)");
    ck_assert_int_eq(CLI("01", "--lib", FIXTURE("no_symbol"), "--check"),
                     CL_EXIT_LOAD);
    ERR_SAYS("(exit 5)");
}
END_TEST

/* A forbidden import, with --json: results.json says so, scores nothing,
 * and runs no case. */
START_TEST(test_forbidden_is_reported_in_json)
{
    struct grade_proc p;
    ck_assert_int_eq(grade_proc_init(&p), 0);
    const char *args[] = {"01",     "--lib",     FIXTURE("cublas"),
                          "--json", p.json_path, NULL};
    ck_assert_int_eq(grade_proc_run(&p, args, NULL, LIMIT_S), 0);
    ck_assert_int_eq(p.rc, CL_EXIT_FORBIDDEN);
    ck_assert_ptr_nonnull(p.json);
    ck_assert_double_eq(json_num(p.json, "score"), 0.0);
    ck_assert_double_eq(json_num(p.json, "max_score"), 100.0);
    const cJSON *x = cJSON_GetObjectItem(p.json, "extra_data");
    ck_assert_str_eq(json_str(x, "status"), "forbidden library");
    ck_assert_int_eq((int)json_num(x, "exit_code"), CL_EXIT_FORBIDDEN);
    ck_assert_ptr_nonnull(strstr(json_str(p.json, "output"), "cublas"));
    ck_assert_int_eq(case_count(p.json), 9); /* the bench sweep is left out */
    ck_assert_str_eq(case_status(p.json, "n=1"), "not-run");
    ck_assert_str_eq(case_status(p.json, "n=2^28"), "not-run");
    grade_proc_free(&p);
}
END_TEST

/* Without a GPU, a GPU lab says so in one line, exits 3 and writes results
 * saying nothing was graded; with one, Lab 1's reference passes. */
START_TEST(test_no_gpu_or_graded)
{
    struct grade_proc p;
    ck_assert_int_eq(grade_proc_init(&p), 0);
    const char *args[] = {"01",  "--lib",  SOLUTION_01, "-c",
                          "n=1", "--json", p.json_path, NULL};
    ck_assert_int_eq(grade_proc_run(&p, args, NULL, LIMIT_S), 0);
    ck_assert_ptr_nonnull(p.json);
    const cJSON *x = cJSON_GetObjectItem(p.json, "extra_data");
    if (p.rc == CL_EXIT_NO_GPU) {
        ck_assert_str_eq(p.out, "");
        ck_assert_int_eq(count_of(p.err, "\n"), 1);
        /* in words a student understands: no driver is "no NVIDIA driver
         * or GPU found", never the runtime's "driver version is
         * insufficient" (common/gpuinfo.c, cl_no_gpu_reason) */
        int driver = 0;
        if (cudaDriverGetVersion(&driver) != cudaSuccess)
            driver = 0;
        if (driver == 0)
            ck_assert_str_eq(p.err, "grade: no NVIDIA driver or GPU found: "
                                    "nothing graded (exit 3)\n");
        ck_assert_msg(strncmp(p.err, "grade: ", 7) == 0 &&
                          strstr(p.err, "GPU") &&
                          !strstr(p.err, "insufficient"),
                      "%s", p.err);
        ck_assert_ptr_nonnull(strstr(p.err, ": nothing graded (exit 3)\n"));
        ck_assert_str_eq(json_str(x, "status"), "not graded: no GPU");
        ck_assert_int_eq((int)json_num(x, "exit_code"), CL_EXIT_NO_GPU);
        ck_assert_double_eq(json_num(p.json, "score"), 0.0);
        ck_assert_double_eq(json_num(p.json, "max_score"), 6.0);
        ck_assert_str_eq(case_status(p.json, "n=1"), "not-run");
        if (driver == 0)
            ck_assert_ptr_nonnull(strstr(json_str(p.json, "output"),
                                         "no NVIDIA driver or GPU found"));
        ck_assert_ptr_null(cJSON_GetObjectItem(x, "gpu"));
    } else {
        ck_assert_msg(p.rc == CL_EXIT_OK, "exit %d\n%s%s", p.rc, p.out, p.err);
        ck_assert_double_eq(json_num(p.json, "score"), 6.0);
        ck_assert_str_eq(json_str(x, "status"), "graded");
        ck_assert_ptr_nonnull(cJSON_GetObjectItem(x, "gpu"));
    }
    grade_proc_free(&p);
}
END_TEST

/* A submission that cannot be read: exit 5 from the engine, every case
 * not run, the reason in the summary. */
START_TEST(test_unloadable_submission)
{
    static struct cl_grade g;
    struct cl_grade_opts o;
    memset(&o, 0, sizeof o);
    o.lib_path = "/nonexistent/sub.so";
    o.run.seed = 7;
    const struct cl_lab *lab = cl_lab_find("00", NULL);
    ck_assert_ptr_nonnull(lab);
    ck_assert_int_eq(cl_grade_run(lab, &o, &g), CL_EXIT_LOAD);
    ck_assert_int_eq(g.exit_code, CL_EXIT_LOAD);
    ck_assert_msg(strstr(g.summary, "cannot read /nonexistent/sub.so") != NULL,
                  "%s", g.summary);
    ck_assert_int_eq(g.n, 4);
    for (int k = 0; k < g.n; k++)
        ck_assert_int_eq(g.r[k].status, CL_ST_NOT_RUN);
    ck_assert_double_eq(g.score, 0.0);
    ck_assert_double_eq(g.max_score, 50.0);
    ck_assert_int_eq(g.sandbox, 0); /* no runner started */
}
END_TEST

/* -c runs one case (quick or not), --quick the quick ones only. */
START_TEST(test_case_selection)
{
    struct grade_proc p;
    GRADE(&p, "00", "--lib", HONEST, "-c", "n=1000", "--seed", "3", "--json",
          p.json_path);
    ck_assert_int_eq(p.rc, CL_EXIT_OK);
    ck_assert_int_eq(case_count(p.json), 1);
    ck_assert_str_eq(case_status(p.json, "n=1000"), "pass");
    ck_assert_double_eq(json_num(p.json, "max_score"), 10.0);
    ck_assert_ptr_nonnull(strstr(p.out, "score: 10.0 / 10.0"));
    grade_proc_free(&p);

    GRADE(&p, "00", "--lib", HONEST, "--quick", "--seed", "3", "--json",
          p.json_path);
    ck_assert_int_eq(p.rc, CL_EXIT_OK);
    ck_assert_int_eq(case_count(p.json), 2);
    ck_assert_str_eq(case_status(p.json, "n=1"), "pass");
    ck_assert_str_eq(case_status(p.json, "n=1000"), "pass");
    ck_assert_ptr_null(case_status(p.json, "n=2^20"));
    ck_assert_ptr_null(case_status(p.json, "speed"));
    ck_assert_double_eq(json_num(p.json, "max_score"), 20.0);
    grade_proc_free(&p);

    /* a named case runs even when it is not quick */
    GRADE(&p, "00", "--lib", HONEST, "-q", "-c", "n=2^20", "--seed", "3",
          "--json", p.json_path);
    ck_assert_int_eq(p.rc, CL_EXIT_OK);
    ck_assert_int_eq(case_count(p.json), 1);
    ck_assert_str_eq(case_status(p.json, "n=2^20"), "pass");
    grade_proc_free(&p);
}
END_TEST

/* CL_TIMING_DETAIL=1: one line per timed case on stderr, the empty frames
 * before the load (4 warm-ups and 24) and the counted calls split by the
 * judge's clock, the runner's own and the events; each judge's clock
 * brackets the runner's, which brackets the events; and one line per look
 * of every case, its seconds phase by phase. (Without it, no line:
 * test_sandbox's speed_of().) */
START_TEST(test_timing_detail)
{
    struct grade_proc p;
    setenv("CL_TIMING_DETAIL", "1", 1);
    GRADE(&p, "00", "--lib", HONEST, "-c", "speed", "--seed", "3");
    unsetenv("CL_TIMING_DETAIL");
    ck_assert_int_eq(p.rc, CL_EXIT_OK);
    const char *line = strstr(p.err, "timing detail 00 speed: ");
    ck_assert_msg(line != NULL, "%s", p.err);
    int nf = 0, nc = 0;
    double f[8], c[8];
    int got = sscanf(
        line,
        "timing detail 00 speed: frame (%d): judge %lf, runner gate %lf "
        "returned %lf synced %lf, events %lf, check %lf, reply %lf, late %lf; "
        "call (%d): judge %lf, runner gate %lf returned %lf synced %lf, "
        "events %lf, check %lf, reply %lf, late %lf",
        &nf, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &nc, &c[0],
        &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7]);
    ck_assert_msg(got == 18, "%.300s", line);
    ck_assert_int_eq(nf, 28);
    ck_assert_int_ge(nc, 10);
    ck_assert_msg(c[4] > 0 && c[3] >= c[4] && c[0] >= c[3] && c[5] > 0,
                  "%.300s", line);
    ck_assert_msg(f[0] >= f[3] && f[0] < c[0], "%.300s", line);
    /* the judge's clock is the reply's wait, its check and the runner's
     * CPU time after the reply (medians: to within a little) */
    ck_assert_msg(c[6] >= c[3] && c[6] <= c[0] && c[7] >= 0 && f[7] >= 0,
                  "%.300s", line);
    /* and where the look's seconds went, phase by phase: the check call,
     * the two warm-ups, every timed call (the counted ones and the two
     * traced), and the CPU checks among them (the check call's and one or
     * two picked at random) */
    const char *ph = strstr(p.err, "timing phases 00 speed: ");
    ck_assert_msg(ph != NULL, "%s", p.err);
    double s[9];
    int checks = 0, warm = 0, timed = 0, cpu = 0;
    got = sscanf(ph,
                 "timing phases 00 speed: runner start %lf s, frames %lf s, "
                 "load %lf s, check calls %lf s (%d calls), warm-ups %lf s "
                 "(%d calls), timed calls %lf s (%d calls), loaded frames %lf "
                 "s, end %lf s, of which CPU reference checks %lf s (%d)",
                 &s[0], &s[1], &s[2], &s[3], &checks, &s[4], &warm, &s[5],
                 &timed, &s[6], &s[7], &s[8], &cpu);
    ck_assert_msg(got == 13, "%.400s", ph);
    ck_assert_int_eq(checks, 1);
    ck_assert_int_eq(warm, 2);
    ck_assert_int_eq(timed, nc + 2);
    ck_assert_msg(cpu >= 2 && cpu <= 3, "%.400s", ph);
    for (int i = 0; i < 9; i++)
        ck_assert_msg(s[i] >= 0, "%.400s", ph);
    ck_assert_msg(s[5] > 0 && s[8] <= s[3] + s[4] + s[5] + 0.01, "%.400s", ph);
    grade_proc_free(&p);
}
END_TEST

/* the lines echo_inputs printed (its inputs, relayed to stderr) */
static char *input_lines(const char *err)
{
    char *out = calloc(1, strlen(err) + 1);
    for (const char *p = strstr(err, "inputs: "); p;
         p = strstr(p + 1, "inputs: "))
        strncat(out, p, strcspn(p, "\n") + 1);
    return out;
}

/* The same seed gives the same inputs and statuses, another seed other
 * inputs; the report and results.json name the seed, random or given. */
START_TEST(test_seed_reproducible)
{
    struct grade_proc a, b, c;
    GRADE(&a, "00", "--lib", ECHO_INPUTS, "-q", "--seed", "42", "--json",
          a.json_path);
    GRADE(&b, "00", "--lib", ECHO_INPUTS, "-q", "--seed", "42", "--json",
          b.json_path);
    GRADE(&c, "00", "--lib", ECHO_INPUTS, "-q", "--seed", "43", "--json",
          c.json_path);
    ck_assert_int_eq(a.rc, CL_EXIT_OK);
    ck_assert_int_eq(b.rc, CL_EXIT_OK);
    ck_assert_int_eq(c.rc, CL_EXIT_OK);
    char *ia = input_lines(a.err), *ib = input_lines(b.err),
         *ic = input_lines(c.err);
    ck_assert_int_eq(count_of(ia, "\n"), 2); /* one call per case */
    ck_assert_ptr_nonnull(strstr(ia, "inputs: n=1 "));
    ck_assert_ptr_nonnull(strstr(ia, "inputs: n=1000 "));
    ck_assert_str_eq(ia, ib);
    ck_assert_str_ne(ia, ic);
    free(ia);
    free(ib);
    free(ic);
    ck_assert_str_eq(case_status(a.json, "n=1000"),
                     case_status(b.json, "n=1000"));
    ck_assert_ptr_nonnull(strstr(a.out, "(seed 42, "));
    ck_assert_ptr_nonnull(strstr(a.out, "\nreplay with --seed 42\n"));
    ck_assert_str_eq(
        json_str(cJSON_GetObjectItem(a.json, "extra_data"), "seed"), "42");
    grade_proc_free(&a);
    grade_proc_free(&b);
    grade_proc_free(&c);

    /* no --seed: a random one, printed, and the same in results.json */
    GRADE(&a, "00", "--lib", HONEST, "-c", "n=1", "--json", a.json_path);
    ck_assert_int_eq(a.rc, CL_EXIT_OK);
    const char *seed =
        json_str(cJSON_GetObjectItem(a.json, "extra_data"), "seed");
    ck_assert_ptr_nonnull(seed);
    char line[64];
    snprintf(line, sizeof line, "\nreplay with --seed %s\n", seed);
    ck_assert_msg(strstr(a.out, line) != NULL, "%s", a.out);
    grade_proc_free(&a);
}
END_TEST

/* Two cases that hang stop the run: the rest are not run, and the report
 * says why (through cl_cli_main, with --json). */
START_TEST(test_repeated_hangs_stop_the_run)
{
    char dir[] = "/tmp/cl-hang-XXXXXX", path[96];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/r.json", dir);
    ck_assert_int_eq(
        CLI("00", "--lib", HANG, "-t", "0.5", "--seed", "1", "--json", path),
        CL_EXIT_FAILED);
    OUT_SAYS("n=1: no result after 0.5 s: the kernel hangs");
    OUT_SAYS("n=2^20: not run: earlier cases hung; fix the hang first\n");
    char *text = cl_read_file(path, NULL);
    ck_assert_ptr_nonnull(text);
    cJSON *j = cJSON_Parse(text);
    ck_assert_ptr_nonnull(j);
    ck_assert_str_eq(case_status(j, "n=1"), "timeout");
    ck_assert_str_eq(case_status(j, "n=1000"), "timeout");
    ck_assert_str_eq(case_status(j, "n=2^20"), "not-run");
    ck_assert_str_eq(case_status(j, "speed"), "not-run");
    ck_assert_double_eq(json_num(j, "score"), 0.0);
    cJSON_Delete(j);
    free(text);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* Ctrl-C during a grade: a real SIGINT to a real run, its output to a
 * file. The case under way (it hangs) ends at once, not at its 60 s
 * limit; the case done before it is reported, in the file too (the lines
 * go out as written); the exit is 130; results.json is written, marked
 * incomplete and "not graded", which no gradebook counts as a score. */
START_TEST(test_interrupt_keeps_what_was_done)
{
    char dir[] = "/tmp/cl-int-XXXXXX", path[96];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(
        sh("(" CL_BUILD_DIR "/bin/grade 00 --lib " HANG_BIG " -t 60 --seed 1 "
           "--no-color --json %s/r.json > %s/out.txt 2> %s/err.txt & p=$!; "
           "sleep 4; t=$(date +%%s); kill -INT $p; wait $p; echo $? > "
           "%s/rc; echo $(( $(date +%%s) - t )) > %s/secs)",
           dir, dir, dir, dir, dir),
        0);
    ck_assert_int_eq(sh("test \"$(cat %s/rc)\" = 130", dir), 0);
    ck_assert_int_eq(sh("test \"$(cat %s/secs)\" -lt 15", dir), 0);
    ck_assert_int_eq(
        sh("grep -Eq '^  n=1 +pass' %s/out.txt && grep -Eq '^  n=1000 +"
           "not-run' %s/out.txt && grep -q '^interrupted: 1 of 4 cases "
           "graded' %s/out.txt && grep -q 'n=1000: not run: interrupted' "
           "%s/out.txt && ! grep -q '^score:' %s/out.txt",
           dir, dir, dir, dir, dir),
        0);
    snprintf(path, sizeof path, "%s/r.json", dir);
    char *text = cl_read_file(path, NULL);
    ck_assert_ptr_nonnull(text);
    cJSON *j = cJSON_Parse(text);
    ck_assert_ptr_nonnull(j);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(j, "incomplete")));
    ck_assert_str_eq(case_status(j, "n=1"), "pass");
    ck_assert_str_eq(case_status(j, "n=1000"), "not-run");
    ck_assert_str_eq(case_status(j, "speed"), "not-run");
    const cJSON *x = cJSON_GetObjectItem(j, "extra_data");
    ck_assert_str_eq(cJSON_GetObjectItem(x, "status")->valuestring,
                     "not graded: interrupted");
    ck_assert_ptr_nonnull(
        strstr(cJSON_GetObjectItem(j, "output")->valuestring, "not a score"));
    cJSON_Delete(j);
    free(text);
    /* a gradebook reads it as not graded */
    struct cl_grade_row row;
    char err[256];
    memset(&row, 0, sizeof row);
    ck_assert_int_eq(cl_grade_row_from_json(path, &row, err, sizeof err), 0);
    ck_assert_int_eq(row.graded, 0);
    sh("rm -rf %s", dir);
}
END_TEST

/* The same stop sent twice at once, as timeout(1) sends it (to the grade,
 * then to the process group the grade is in): one interruption, not a
 * second Ctrl-C that kills the grade before it writes what it did. */
START_TEST(test_interrupt_sent_twice_at_once)
{
    char dir[] = "/tmp/cl-int2-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    for (int run = 0; run < 3; run++) {
        ck_assert_int_eq(
            sh("rm -f %s/r.json; timeout -s INT --preserve-status 4 "
               "" CL_BUILD_DIR "/bin/grade 00 --lib " HANG_BIG " -t 60 "
               "--seed 1 --no-color --json %s/r.json > %s/out.txt 2>&1; "
               "echo $? > %s/rc",
               dir, dir, dir, dir),
            0);
        ck_assert_int_eq(sh("test \"$(cat %s/rc)\" = 130", dir), 0);
        ck_assert_int_eq(sh("grep -q '^interrupted: 1 of 4 cases graded' "
                            "%s/out.txt && grep -Eq '\"incomplete\":"
                            "[[:space:]]*true' %s/r.json",
                            dir, dir),
                         0);
    }
    sh("rm -rf %s", dir);
}
END_TEST

/* --json into a directory that is not there: exit 2 before anything runs
 * (no report, no file). */
START_TEST(test_json_dir_missing)
{
    ck_assert_int_eq(
        CLI("00", "--lib", HONEST, "--json", "/nonexistent-dir/r.json"),
        CL_EXIT_USAGE);
    ERR_SAYS("cannot write --json '/nonexistent-dir/r.json': its directory "
             "does not exist (nothing was graded)");
    ck_assert_str_eq(cap_out, "");
    ck_assert_int_ne(access("/nonexistent-dir", F_OK), 0);
    /* a folder, an empty name, a name ending in '/': exit 2, before any
     * case runs (nothing printed, nothing written) */
    ck_assert_int_eq(CLI("00", "--lib", HONEST, "--json", "/tmp"),
                     CL_EXIT_USAGE);
    ERR_SAYS("cannot write --json '/tmp': it is a folder (--json needs a file "
             "name)");
    ck_assert_str_eq(cap_out, "");
    ck_assert_int_eq(CLI("00", "--lib", HONEST, "--json", ""), CL_EXIT_USAGE);
    ERR_SAYS("cannot write --json '': an empty name");
    ck_assert_str_eq(cap_out, "");
    ck_assert_int_eq(CLI("00", "--lib", HONEST, "--json", "/tmp/cl-no-such/"),
                     CL_EXIT_USAGE);
    ERR_SAYS("a name ending in '/'");
    /* checked before the submission: a missing one is still exit 2 here */
    ck_assert_int_eq(CLI("00", "--lib", "/nonexistent.so", "--json", "/tmp"),
                     CL_EXIT_USAGE);
}
END_TEST

/* A bad policy file is refused with one line and exit 2 before anything
 * runs; a good one changes the points and is named in the report. */
START_TEST(test_policy_file)
{
    static const struct {
        const char *json, *says;
    } bad[] = {
        {"{", "not valid JSON"},
        {"{\"labs\": {\"99\": {}}}", "labs.99: no such lab"},
        {"{\"labs\": {\"00\": {\"cases\": {\"nope\": 3}}}}",
         "labs.00.cases.nope: no such"},
        {"{\"labs\": {\"00\": {\"timeout_s\": -1}}}",
         "labs.00.timeout_s: must be a number"},
        {"{\"labs\": {\"00\": {\"cases\": {\"n=1\": -3}}}}",
         "labs.00.cases.n=1: must be a number"},
        {"{\"labs\": {\"00\": {\"speed\": {\"vs\": \"moon\"}}}}",
         "labs.00.speed.vs: must be \"baseline\" or \"ceiling\""},
    };
    char dir[] = "/tmp/cl-pol-XXXXXX", path[96];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/p.json", dir);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(
            cl_write_atomic(path, bad[i].json, strlen(bad[i].json)), 0);
        ck_assert_int_eq(CLI("00", "--lib", HONEST, "--policy", path),
                         CL_EXIT_USAGE);
        ck_assert_msg(strstr(cap_err, bad[i].says) != NULL,
                      "policy %s: stderr '%s' lacks '%s'", bad[i].json, cap_err,
                      bad[i].says);
        ck_assert_int_eq(count_of(cap_err, "\n"), 1);
        ck_assert_str_eq(cap_out, "");
    }
    ck_assert_int_eq(
        CLI("00", "--lib", HONEST, "--policy", "/nonexistent.json"),
        CL_EXIT_USAGE);
    ERR_SAYS("cannot read the policy /nonexistent.json");

    static const char good[] =
        "{\"name\": \"half marks\", \"labs\": {\"00\": {\"cases\": "
        "{\"n=1\": 5}}}}";
    ck_assert_int_eq(cl_write_atomic(path, good, strlen(good)), 0);
    ck_assert_int_eq(CLI("00", "--list", "--policy", path), CL_EXIT_OK);
    OUT_SAYS("n=1                        correct    5.0 points  (quick)\n");
    ck_assert_int_eq(CLI("00", "--lib", HONEST, "-c", "n=1", "--seed", "2",
                         "--policy", path),
                     CL_EXIT_OK);
    OUT_SAYS("policy half marks)");
    OUT_SAYS("score: 5.0 / 5.0");
    unlink(path);
    rmdir(dir);
}
END_TEST

static Suite *cli_suite(void)
{
    Suite *s = suite_create("cli");
    TCase *quick = tcase_create("options");
    tcase_set_timeout(quick, 60);
    tcase_add_test(quick, test_cli_usage_errors);
    tcase_add_test(quick, test_cli_ok_paths);
    tcase_add_test(quick, test_cli_submission_problems);
    tcase_add_test(quick, test_check_without_gpu);
    tcase_add_test(quick, test_json_dir_missing);
    tcase_add_test(quick, test_unloadable_submission);
    suite_add_tcase(s, quick);
    TCase *runs = tcase_create("runs");
    tcase_set_timeout(runs, LIMIT_S * 3);
    tcase_add_test(runs, test_cli_which_and_collect);
    tcase_add_test(runs, test_forbidden_is_reported_in_json);
    tcase_add_test(runs, test_no_gpu_or_graded);
    tcase_add_test(runs, test_case_selection);
    tcase_add_test(runs, test_timing_detail);
    tcase_add_test(runs, test_seed_reproducible);
    tcase_add_test(runs, test_repeated_hangs_stop_the_run);
    tcase_add_test(runs, test_interrupt_keeps_what_was_done);
    tcase_add_test(runs, test_interrupt_sent_twice_at_once);
    tcase_add_test(runs, test_policy_file);
    tcase_add_test(runs, test_classroom_result);
    suite_add_tcase(s, runs);
    return s;
}

int main(void)
{
    return cl_suite_run(cli_suite(), 0, NULL);
}
