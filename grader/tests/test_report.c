/* test_report.c: the grade as results.json, as the terminal table and as
 * CSV, and the bonus line (grader/report.h). The grades come from real
 * runs of the self-test lab (00) through the engine in this process (an
 * honest submission, every case; one that writes past its output), and
 * from copies of them changed by hand for what a CPU run cannot show:
 * unconfirmed, too-fast, forbidden, not-run and timeout cases, a trace, a
 * bonus, a case name with a comma. */
#define _GNU_SOURCE
#include "parent/engine.h"
#include "fileio.h"
#include "parent/policy.h"
#include "parent/report.h"
#include "parent/score.h"
#include "specs/labs.h"
#include "tests/suite.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef CL_BUILD_DIR
#define CL_BUILD_DIR "build"
#endif
#define HONEST   CL_BUILD_DIR "/selftest/honest.so"
#define SCRIBBLE CL_BUILD_DIR "/selftest/scribble.so"

/* the real grades, made once before the tests (which inherit them) */
static struct cl_grade honest, scribble;
static enum cl_exit honest_rc = -1, scribble_rc = -1;
static const struct cl_lab *lab00;

static void grade_once(void)
{
    struct cl_grade_opts o;
    memset(&o, 0, sizeof o);
    lab00 = cl_lab_find("00", NULL);
    o.run.seed = 7;
    o.lib_path = HONEST;
    /* on a busy host the honest speed case may come out unconfirmed (the
     * judge's clock sees scheduling delays): grade again, after a pause,
     * three times at most */
    for (int i = 0; i < 4; i++) {
        if (i)
            sleep(2 * (unsigned)i);
        honest_rc = cl_grade_run(lab00, &o, &honest);
        if (honest.n < 4 || honest.r[3].status != CL_ST_UNCONFIRMED)
            break;
    }
    o.lib_path = SCRIBBLE;
    o.quick = 1;
    scribble_rc = cl_grade_run(lab00, &o, &scribble);
}

static struct cl_grade g; /* a copy to change; large: off the stack */

/* g = the honest grade, which every test checks first */
static void use_honest(void)
{
    ck_assert_msg(honest_rc == CL_EXIT_OK, "the honest grade: exit %d (%s)",
                  honest_rc, honest.summary);
    ck_assert_int_eq(honest.n, 4);
    ck_assert_msg(honest.r[3].status == CL_ST_PASS,
                  "the honest grade's speed case: %s (%s); is the host busy?",
                  cl_status_name(honest.r[3].status), honest.r[3].msg);
    g = honest;
}

/* the result of case @p name in g */
static struct cl_result *res(const char *name)
{
    for (int k = 0; k < g.n; k++)
        if (strcmp(g.lab->cases[g.r[k].index].name, name) == 0)
            return &g.r[k];
    ck_abort_msg("no case %s", name);
    return NULL;
}

/* what cl_report_print() prints for g */
static char *table(int color, const char *source)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cl_report_print(f, &g, color, source);
    fclose(f);
    return text;
}

static char *csv(const char *label, int header)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cl_report_csv(f, &g, label, header);
    fclose(f);
    return text;
}

/* a measured double through cJSON's printing: equal to 1e-12, relative */
#define NEAR(got, want) ck_assert_double_eq_tol(got, want, 1e-12 * fabs(want))

#define SAYS(text, what)                                                       \
    ck_assert_msg(strstr(text, what) != NULL, "lacks '%s':\n%s", what, text)

static cJSON *json_of(void)
{
    char *text = cl_report_json(&g);
    ck_assert_ptr_nonnull(text);
    cJSON *o = cJSON_Parse(text);
    ck_assert_msg(o != NULL, "not JSON:\n%s", text);
    cJSON_free(text);
    return o;
}

static double num(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    ck_assert_msg(cJSON_IsNumber(v), "no number '%s'", name);
    return v->valuedouble;
}

static const char *str(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    ck_assert_msg(cJSON_IsString(v), "no string '%s'", name);
    return v->valuestring;
}

static const cJSON *item(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    ck_assert_msg(v != NULL, "no '%s'", name);
    return v;
}

/* a policy: the default with @p json laid over it */
static struct cl_policy *policy_with(const char *json)
{
    static struct cl_policy p;
    char err[512];
    p = *cl_policy_default();
    ck_assert_msg(cl_policy_parse(&p, json, NULL, err, sizeof err) == 0, "%s",
                  err);
    return &p;
}

/* the speed case timed at @p base_ms / @p t_ms, rescored */
static void set_speed(double t_ms, double base_ms)
{
    struct cl_result *s = res("speed");
    s->timed = 1;
    s->t_ms = t_ms;
    s->base_ms = base_ms;
    cl_score_grade(&g, g.policy);
}

// ---- the real grades
// -----------------------------------------------------------

/* The honest grade itself: every case passed, the speed case was timed
 * against the judge's loop, and the score is what score.c makes of it. */
START_TEST(test_honest_passes_and_scribble_scores_zero)
{
    use_honest();
    ck_assert_int_eq(g.all_correct, 1);
    ck_assert_int_eq(g.exit_code, CL_EXIT_OK);
    ck_assert_double_eq(g.correct_score, 30.0);
    ck_assert_double_eq(g.max_score, 50.0);
    const struct cl_result *s = res("speed");
    ck_assert_int_eq(s->status, CL_ST_PASS);
    ck_assert_int_eq(s->timed, 1);
    ck_assert_int_ge(s->samples, 10);
    ck_assert_double_gt(s->t_ms, 0.0);
    ck_assert_double_gt(s->base_ms, 0.0);
    ck_assert_double_eq_tol(s->ratio, s->base_ms / s->t_ms, 1e-12);
    ck_assert_double_eq(s->target, 1.0);
    ck_assert_double_eq_tol(s->score, 20.0 * fmin(1.0, s->ratio), 1e-9);
    ck_assert_double_eq_tol(g.score, 30.0 + s->score, 1e-9);
    ck_assert_ptr_nonnull(strstr(g.policy_name, "default"));

    ck_assert_int_eq(scribble_rc, CL_EXIT_FAILED);
    ck_assert_int_eq(scribble.n, 2);
    ck_assert_int_eq(scribble.r[0].status, CL_ST_OOB);
    ck_assert_int_eq(scribble.r[1].status, CL_ST_OOB);
    ck_assert_double_eq(scribble.score, 0.0);
    ck_assert_double_eq(scribble.max_score, 20.0);
}
END_TEST

// ---- results.json
// ----------------------------------------------------------------

/* results.json of the honest grade parses back to the grade: totals, one
 * test per case with name, score, max_score, status and output, the
 * leaderboard, and extra_data with every case's status and times. */
START_TEST(test_json_round_trip)
{
    use_honest();
    cJSON *o = json_of();
    ck_assert_double_eq_tol(num(o, "score"), g.score, 1e-9);
    ck_assert_double_eq(num(o, "max_score"), 50.0);
    ck_assert_double_eq(num(o, "execution_time"),
                        (double)(int)(g.elapsed_s + 0.5));
    char want[256];
    snprintf(want, sizeof want,
             "Lab 00 selftest: %.1f / 50.0 (correctness 30.0, speed %.1f)",
             g.score, g.speed_score);
    ck_assert_str_eq(str(o, "output"), want);

    static const char *const names[] = {"n=1", "n=1000", "n=2^20",
                                        "speed (speed)"};
    static const double points[] = {10, 10, 10, 20};
    const cJSON *tests = item(o, "tests");
    ck_assert_int_eq(cJSON_GetArraySize(tests), 4);
    for (int k = 0; k < 4; k++) {
        const cJSON *t = cJSON_GetArrayItem(tests, k);
        ck_assert_str_eq(str(t, "name"), names[k]);
        ck_assert_double_eq(num(t, "max_score"), points[k]);
        ck_assert_double_eq_tol(num(t, "score"), g.r[k].score, 1e-9);
        ck_assert_str_eq(str(t, "status"), "passed");
        /* the status, and the case's message when it has one (a pass may
         * carry a note, as the loaded frames' on a busy machine) */
        char out[sizeof g.r[k].msg + 16];
        snprintf(out, sizeof out, "pass%s%s", g.r[k].msg[0] ? ": " : "",
                 g.r[k].msg);
        ck_assert_str_eq(str(t, "output"), out);
    }

    const cJSON *board = item(o, "leaderboard");
    ck_assert_int_eq(cJSON_GetArraySize(board), 1);
    const cJSON *l = cJSON_GetArrayItem(board, 0);
    ck_assert_str_eq(str(l, "name"), "speedup vs the judge's loop, speed");
    ck_assert_double_eq_tol(num(l, "value"), res("speed")->ratio, 1e-12);
    ck_assert_str_eq(str(l, "order"), "desc");

    const cJSON *x = item(o, "extra_data");
    ck_assert_str_eq(str(x, "lab"), "00");
    ck_assert_str_eq(str(x, "slug"), "selftest");
    ck_assert_str_eq(str(x, "seed"), "7");
    ck_assert_str_eq(str(x, "status"), "graded");
    ck_assert_double_eq(num(x, "exit_code"), 0.0);
    ck_assert(cJSON_IsTrue(item(x, "all_correct")));
    ck_assert_double_eq(num(x, "correctness_score"), 30.0);
    ck_assert_double_eq_tol(num(x, "speed_score"), g.speed_score, 1e-9);
    ck_assert_str_eq(str(x, "metric"), "GB/s");
    ck_assert_str_eq(str(x, "baseline"), "the judge's loop");
    ck_assert_str_eq(str(x, "policy"), "default");
    ck_assert_int_eq(strncmp(str(x, "sandbox"), "sandbox: own session", 20), 0);
    SAYS(str(x, "sandbox"), "seccomp allow-list, no files opened");
    ck_assert_ptr_null(cJSON_GetObjectItem(x, "gpu")); /* the CPU lab */
    ck_assert_ptr_null(cJSON_GetObjectItem(x, "versions"));

    const cJSON *cases = item(x, "cases");
    ck_assert_int_eq(cJSON_GetArraySize(cases), 4);
    for (int k = 0; k < 3; k++) { /* correctness: no times */
        const cJSON *c = cJSON_GetArrayItem(cases, k);
        ck_assert_str_eq(str(c, "name"), g.lab->cases[g.r[k].index].name);
        ck_assert_str_eq(str(c, "status"), "pass");
        ck_assert(cJSON_IsFalse(item(c, "timed")));
        ck_assert_ptr_null(cJSON_GetObjectItem(c, "time_ms"));
        ck_assert_ptr_null(cJSON_GetObjectItem(c, "trace"));
    }
    const struct cl_result *s = res("speed");
    const cJSON *c = cJSON_GetArrayItem(cases, 3);
    ck_assert_str_eq(str(c, "name"), "speed");
    ck_assert(cJSON_IsTrue(item(c, "timed")));
    NEAR(num(c, "time_ms"), s->t_ms);
    NEAR(num(c, "baseline_ms"), s->base_ms);
    ck_assert_double_eq_tol(num(c, "speedup"), s->base_ms / s->t_ms, 1e-12);
    NEAR(num(c, "ratio"), s->ratio);
    ck_assert_double_eq(num(c, "target"), 1.0);
    ck_assert_str_eq(str(c, "vs"), "baseline");
    /* 3 float arrays of 2^24 elements per call, in GB/s */
    ck_assert_double_eq_tol(num(c, "throughput"),
                            12.0 * (1 << 24) / (s->t_ms * 1e-3) / 1e9, 1e-9);
    ck_assert_double_eq(num(c, "samples"), s->samples);
    NEAR(num(c, "judge_ms"), s->judge_ms);
    NEAR(num(c, "event_ms"), s->event_ms);
    NEAR(num(c, "frame_ms"), s->frame_ms);
    NEAR(num(c, "noise_ms"), s->noise_ms);
    ck_assert_ptr_null(cJSON_GetObjectItem(c, "ceiling_ms")); /* none */
    ck_assert_ptr_null(cJSON_GetObjectItem(c, "trace"));      /* no CUPTI */
    cJSON_Delete(o);
}
END_TEST

/* The sandbox line names what the runner lacked: Landlock (files not
 * confined: the course's answers must be off the host), the user change,
 * seccomp; a full sandbox has no warning. */
START_TEST(test_sandbox_line_warns)
{
    use_honest();
    g.sandbox |= CL_SBX_FILES | CL_SBX_SECCOMP1 | CL_SBX_SECCOMP2;
    cJSON *o = json_of();
    const char *line = str(item(o, "extra_data"), "sandbox");
    SAYS(line, "files confined (Landlock), seccomp allow-list");
    ck_assert_ptr_null(strstr(line, "NOT CONFINED"));
    cJSON_Delete(o);

    /* no Landlock, but a mount namespace of its own: confined all the
     * same (the course is not in it) */
    g.sandbox = (g.sandbox & ~CL_SBX_FILES) | CL_SBX_JAIL;
    o = json_of();
    line = str(item(o, "extra_data"), "sandbox");
    SAYS(line, "own mount namespace");
    ck_assert_ptr_null(strstr(line, "NOT CONFINED"));
    cJSON_Delete(o);

    g.sandbox &= ~(CL_SBX_FILES | CL_SBX_JAIL);
    o = json_of();
    line = str(item(o, "extra_data"), "sandbox");
    SAYS(line, "; FILES NOT CONFINED (no Landlock, no mount namespace here): "
               "keep solutions/ and build/ off this host");
    ck_assert_ptr_null(strstr(line, "Landlock),"));
    cJSON_Delete(o);

    g.sandbox &= ~(CL_SBX_SECCOMP1 | CL_SBX_SECCOMP2);
    o = json_of();
    line = str(item(o, "extra_data"), "sandbox");
    SAYS(line, "NO SECCOMP");
    cJSON_Delete(o);
}
END_TEST

/* A trace becomes a list of launches with their names (demangled), shapes,
 * counts, times and streams, and the busy time. */
START_TEST(test_trace_listed_in_json_and_table)
{
    use_honest();
    struct cl_result *s = res("speed");
    memset(&s->trace, 0, sizeof s->trace);
    s->trace.on = 1;
    s->trace.n = 2;
    s->trace.busy_ms = 1.25;
    struct cl_trace_rec *k = &s->trace.rec[0];
    snprintf(k->name, sizeof k->name, "_Z10vector_addPKfS0_Pfi");
    k->kind = 0;
    k->stream = CL_ON_STREAM;
    k->grid[0] = 4096, k->grid[1] = k->grid[2] = 1;
    k->block[0] = 256, k->block[1] = k->block[2] = 1;
    k->count = 2;
    k->ms = 0.5;
    struct cl_trace_rec *m = &s->trace.rec[1];
    m->kind = 1;
    m->stream = CL_ON_OTHER;
    m->count = 1;
    m->ms = 0.25;
    m->bytes = 4e6;
    cJSON *o = json_of();
    const cJSON *c =
        cJSON_GetArrayItem(item(item(o, "extra_data"), "cases"), 3);
    const cJSON *tr = item(c, "trace");
    ck_assert_int_eq(cJSON_GetArraySize(tr), 2);
    const cJSON *t0 = cJSON_GetArrayItem(tr, 0),
                *t1 = cJSON_GetArrayItem(tr, 1);
    ck_assert_str_eq(str(t0, "name"), "vector_add");
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(cJSON_GetArrayItem(item(t0, "grid"), i)->valueint,
                         i ? 1 : 4096);
        ck_assert_int_eq(cJSON_GetArrayItem(item(t0, "block"), i)->valueint,
                         i ? 1 : 256);
    }
    ck_assert_double_eq(num(t0, "count"), 2.0);
    ck_assert_double_eq(num(t0, "ms"), 0.5);
    ck_assert_str_eq(str(t0, "stream"), "given");
    ck_assert_str_eq(str(t1, "name"), "memcpy");
    ck_assert_double_eq(num(t1, "count"), 1.0);
    ck_assert_double_eq(num(t1, "ms"), 0.25);
    ck_assert_str_eq(str(t1, "stream"), "other");
    ck_assert_double_eq(num(c, "trace_busy_ms"), 1.25);
    /* the correctness cases traced nothing */
    ck_assert_ptr_null(cJSON_GetObjectItem(
        cJSON_GetArrayItem(item(item(o, "extra_data"), "cases"), 0), "trace"));
    cJSON_Delete(o);
    /* and the table lists the launches under the case */
    char *t = table(0, NULL);
    SAYS(t, "  speed: your call launched (one timed call):\n"
            "      vector_add<<<4096, 256>>> x 2 0.5000 ms\n"
            "      memcpy 4 MB 0.2500 ms  (another stream)\n");
    free(t);
}
END_TEST

/* cl_report_write_json() replaces an existing file by a new one (another
 * inode: renamed into place), and on failure leaves what was there and no
 * temporary file: a missing directory, a directory in the way, a write
 * cut short by the file size limit. */
START_TEST(test_json_written_atomically)
{
    use_honest();
    char dir[] = "/tmp/cl-report-XXXXXX", path[96];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/results.json", dir);
    g = scribble;
    ck_assert_int_eq(cl_report_write_json(&g, path), 0);
    struct stat before, after;
    ck_assert_int_eq(stat(path, &before), 0);
    char *old = cl_read_file(path, NULL);
    ck_assert_ptr_nonnull(old);
    char *want = cl_report_json(&g);
    ck_assert_str_eq(old, want);
    cJSON_free(want);

    g = honest;
    ck_assert_int_eq(cl_report_write_json(&g, path), 0);
    ck_assert_int_eq(stat(path, &after), 0);
    ck_assert_uint_ne(before.st_ino, after.st_ino);
    char *now = cl_read_file(path, NULL);
    cJSON *o = cJSON_Parse(now);
    ck_assert_ptr_nonnull(o);
    ck_assert_double_eq_tol(num(o, "score"), honest.score, 1e-9);
    cJSON_Delete(o);
    free(now);

    /* failures */
    ck_assert_int_eq(cl_report_write_json(&g, "/nonexistent-dir/r.json"), -1);
    ck_assert_int_ne(access("/nonexistent-dir", F_OK), 0);
    char sub[128];
    snprintf(sub, sizeof sub, "%s/in-the-way", dir);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    ck_assert_int_eq(cl_report_write_json(&g, sub), -1);
    struct stat st;
    ck_assert_int_eq(stat(sub, &st), 0);
    ck_assert(S_ISDIR(st.st_mode));
    /* the file size limit cuts the write short: the old file stays */
    g = scribble;
    ck_assert_int_eq(cl_report_write_json(&g, path), 0);
    free(old);
    old = cl_read_file(path, NULL);
    g = honest;
    struct rlimit lim, small;
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &lim), 0);
    small = lim;
    small.rlim_cur = 256;
    signal(SIGXFSZ, SIG_IGN);
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
    int rc = cl_report_write_json(&g, path);
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
    ck_assert_int_eq(rc, -1);
    now = cl_read_file(path, NULL);
    ck_assert_str_eq(now, old);
    free(now);
    free(old);
    /* nothing else was left in the directory */
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int entries = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            ck_assert_msg(++entries &&
                              (strcmp(e->d_name, "results.json") == 0 ||
                               strcmp(e->d_name, "in-the-way") == 0),
                          "left behind: %s", e->d_name);
    closedir(d);
    ck_assert_int_eq(entries, 2);
    rmdir(sub);
    unlink(path);
    rmdir(dir);
}
END_TEST

// ---- the table
// -------------------------------------------------------------------

/* The honest grade's table: the header, a row per case with its status
 * and points, the timed figures, the score line, the seed; no colour
 * unless asked. */
START_TEST(test_table_shows_cases_score_and_colour_on_request)
{
    use_honest();
    char *t = table(0, NULL);
    SAYS(t, "Lab 00: The grader's self-test (CPU)  (seed 7, on the CPU, "
            "policy default)\n");
    SAYS(t, "  sandbox: own session");
    SAYS(t, "  case                       status                time the "
            "judge's loop  speedup      GB/s     % copy        points\n");
    SAYS(t, "\n  n=1                        pass                     -      "
            "        -        -         -          -   10.0/10    \n");
    SAYS(t, "\n  n=2^20                     pass     ");
    const struct cl_result *s = res("speed");
    char row[256], tms[32], bms[32], sp[16], tp[16];
    snprintf(tms, sizeof tms, "%.4f ms", s->t_ms);
    snprintf(bms, sizeof bms, "%.4f ms", s->base_ms);
    snprintf(sp, sizeof sp, "%.2fx", s->base_ms / s->t_ms);
    snprintf(tp, sizeof tp, "%.1f", 12.0 * (1 << 24) / (s->t_ms * 1e-3) / 1e9);
    snprintf(row, sizeof row,
             "\n  %-26s %-14s %11s %14s %8s %9s %10s %6.1f/%-6g\n",
             "speed (speed)", "pass", tms, bms, sp, tp, "-", s->score, 20.0);
    SAYS(t, row);
    char score[128];
    snprintf(score, sizeof score,
             "\nscore: %.1f / 50.0  (correctness 30.0/30, speed %.1f/20)\n",
             g.score, g.speed_score);
    SAYS(t, score);
    ck_assert_ptr_null(strstr(t, "\033["));
    free(t);
    t = table(1, NULL);
    SAYS(t, "\033[1mLab 00");
    SAYS(t, "\033[32mpass");
    free(t);
}
END_TEST

/* The hint names the first failing case, and the marker left in the
 * student's source; when all is correct but slow, the speed the case ran
 * at and the target the policy sets. */
START_TEST(test_hint_names_first_failure_or_speed_target)
{
    g = scribble;
    char *t = table(0, NULL);
    SAYS(t, "  n=1                        out-of-bounds");
    SAYS(t, "  n=1: out-of-bounds write past the end of c: 4 bytes changed, "
            "first at element 1\n");
    SAYS(t, "score: 0.0 / 20.0  (correctness 0.0/20, speed 0.0/0)\n");
    SAYS(t, "\nhint: start with case 'n=1'.");
    free(t);
    /* a source with two markers: the first one's line */
    char src[] = "/tmp/cl-src-XXXXXX";
    int fd = mkstemp(src);
    ck_assert_int_ge(fd, 0);
    static const char text[] = "int x;\n\n// TODO(selftest): a\nint y;\n"
                               "// TODO(selftest): b\n";
    ck_assert_int_eq(write(fd, text, sizeof text - 1),
                     (ssize_t)sizeof text - 1);
    close(fd);
    t = table(0, src);
    char want[256];
    snprintf(want, sizeof want,
             "hint: start with case 'n=1'. %s still has 2 TODO(selftest) "
             "markers; the first is at line 3.",
             src);
    SAYS(t, want);
    free(t);
    unlink(src);

    /* correct, half as fast as the judge's loop: half the speed points,
     * and the hint says 0.50x of the 1.00x the default policy asks */
    use_honest();
    set_speed(2.0, 1.0);
    ck_assert_double_eq_tol(res("speed")->score, 10.0, 1e-12);
    t = table(0, NULL);
    SAYS(t, "score: 40.0 / 50.0  (correctness 30.0/30, speed 10.0/20)\n");
    SAYS(t, "hint: correct everywhere; 'speed' runs at 0.50x the judge's "
            "loop, and full speed credit needs 1.00x (see the README's "
            "grading table).\n");
    free(t);
    /* a course's policy that asks for 2x: the hint names 2.00x */
    g.policy = policy_with("{\"name\": \"fast\", \"labs\": {\"00\": "
                           "{\"speed\": {\"full_at\": 2.0}}}}");
    g.policy_name = g.policy->name;
    cl_score_grade(&g, g.policy);
    ck_assert_double_eq_tol(res("speed")->score, 5.0, 1e-12);
    t = table(0, NULL);
    SAYS(t, "policy fast)\n");
    SAYS(t, "runs at 0.50x the judge's loop, and full speed credit needs "
            "2.00x");
    free(t);
    /* at full speed: no hint at all */
    set_speed(0.5, 1.0);
    t = table(0, NULL);
    ck_assert_ptr_null(strstr(t, "hint:"));
    free(t);
}
END_TEST

/* Statuses a CPU run of honest code cannot show, set by hand as the
 * engine leaves them (the speed case untimed after a failure, its figures
 * kept when unconfirmed or too fast): each is named in the table and in
 * results.json, earns what score.c gives it (speed only for a pass once
 * every correctness case passed), and none reaches the leaderboard or the
 * CSV. */
START_TEST(test_edge_statuses_named_and_kept_off_leaderboard)
{
    static const struct {
        const char *c;
        enum cl_status st;
        const char *name;
        double score; /* of the grade */
        int all;      /* all_correct */
        int timed;    /* the speed case kept its figures */
    } cases[] = {
        {"speed", CL_ST_UNCONFIRMED, "unconfirmed", 30.0, 1, 1},
        {"speed", CL_ST_TOO_FAST, "too-fast", 30.0, 1, 1},
        {"speed", CL_ST_TIMEOUT, "timeout", 30.0, 0, 0},
        {"n=1", CL_ST_FORBIDDEN, "forbidden", 20.0, 0, 0},
        {"n=1000", CL_ST_TIMEOUT, "timeout", 20.0, 0, 0},
        {"n=2^20", CL_ST_NOT_RUN, "not-run", 20.0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        use_honest();
        set_speed(1.0, 1.0); /* full speed, were it believed */
        ck_assert_double_eq(g.score, 50.0);
        struct cl_result *r = res(cases[i].c);
        r->status = cases[i].st;
        snprintf(r->msg, sizeof r->msg, "set by hand %zu", i);
        res("speed")->timed = cases[i].timed;
        cl_score_grade(&g, NULL);
        ck_assert_msg(fabs(g.score - cases[i].score) < 1e-9,
                      "%s %s: score %g, want %g", cases[i].c, cases[i].name,
                      g.score, cases[i].score);
        ck_assert_int_eq(g.all_correct, cases[i].all);
        ck_assert_double_eq(res("speed")->score, 0.0);
        ck_assert_double_eq(r->score, 0.0);

        char *t = table(0, NULL);
        char row[128], msg[128];
        snprintf(row, sizeof row, "  %-26s %-14s ",
                 strcmp(cases[i].c, "speed") ? cases[i].c : "speed (speed)",
                 cases[i].name);
        SAYS(t, row);
        snprintf(msg, sizeof msg, "  %s: set by hand %zu\n", cases[i].c, i);
        SAYS(t, msg);
        if (!cases[i].all) { /* the hint points at the first failure */
            snprintf(msg, sizeof msg, "hint: start with case '%s'.",
                     cases[i].c);
            SAYS(t, msg);
        }
        free(t);

        cJSON *o = json_of();
        const cJSON *tests = item(o, "tests");
        const cJSON *x = item(o, "extra_data");
        int k = (int)(r - g.r);
        const cJSON *tt = cJSON_GetArrayItem(tests, k);
        ck_assert_str_eq(str(tt, "status"), "failed");
        ck_assert_double_eq(num(tt, "score"), 0.0);
        snprintf(msg, sizeof msg, "%s: set by hand %zu", cases[i].name, i);
        ck_assert_str_eq(str(tt, "output"), msg);
        ck_assert_str_eq(str(cJSON_GetArrayItem(item(x, "cases"), k), "status"),
                         cases[i].name);
        ck_assert_int_eq(cJSON_IsTrue(item(x, "all_correct")), cases[i].all);
        const cJSON *sp = cJSON_GetArrayItem(item(x, "cases"), 3);
        ck_assert_int_eq(cJSON_IsTrue(item(sp, "timed")), cases[i].timed);
        ck_assert_int_eq(cJSON_GetObjectItem(sp, "time_ms") != NULL,
                         cases[i].timed);
        ck_assert_int_eq(cJSON_GetArraySize(item(o, "leaderboard")), 0);
        cJSON_Delete(o);
        char *c = csv(NULL, 0);
        ck_assert_str_eq(c, "");
        free(c);
    }
}
END_TEST

/* A grade that never ran: the table says "not graded" with the reason,
 * and results.json names the exit's status. */
START_TEST(test_ungraded_run_reports_reason_not_score)
{
    static const struct {
        enum cl_exit code;
        const char *status;
    } codes[] = {
        {CL_EXIT_LOAD, "cannot load"},
        {CL_EXIT_FORBIDDEN, "forbidden library"},
        {CL_EXIT_INTERNAL, "internal error"},
        {CL_EXIT_DATA, "not graded: lab data missing or corrupt"},
        {CL_EXIT_NO_GPU, "not graded: no GPU"},
    };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        use_honest();
        for (int k = 0; k < g.n; k++) {
            g.r[k].status = CL_ST_NOT_RUN;
            g.r[k].timed = 0;
            snprintf(g.r[k].msg, sizeof g.r[k].msg, "why %zu", i);
        }
        g.exit_code = codes[i].code;
        snprintf(g.summary, sizeof g.summary, "why %zu", i);
        cl_score_grade(&g, NULL);
        ck_assert_double_eq(g.score, 0.0);
        char *t = table(0, NULL);
        char want[64];
        snprintf(want, sizeof want, "\nnot graded: why %zu\n", i);
        SAYS(t, want);
        ck_assert_ptr_null(strstr(t, "score:"));
        free(t);
        cJSON *o = json_of();
        ck_assert_str_eq(str(item(o, "extra_data"), "status"), codes[i].status);
        snprintf(want, sizeof want, "Lab 00 selftest: why %zu", i);
        ck_assert_str_eq(str(o, "output"), want);
        ck_assert_int_eq(cJSON_GetArraySize(item(o, "leaderboard")), 0);
        cJSON_Delete(o);
    }
}
END_TEST

// ---- CSV and the bonus line
// -----------------------------------------------------

/* CSV: the header with the ratio column, one line per timed passing case
 * with its figures in %.6g, the label, and ';' for a comma in a name. */
START_TEST(test_csv_has_one_row_per_timed_passing_case)
{
    use_honest();
    char *c = csv("rung 1", 1);
    const struct cl_result *s = res("speed");
    double work = 12.0 * (1 << 24);
    char want[512];
    snprintf(want, sizeof want,
             "lab,code,case,work,time_ms,baseline_ms,ceiling_ms,rate,"
             "baseline_rate,ceiling_rate,ratio\n"
             "00,rung 1,speed,%.6g,%.6g,%.6g,0,%.6g,%.6g,0,%.6g\n",
             work, s->t_ms, s->base_ms, work / (s->t_ms * 1e-3) / 1e9,
             work / (s->base_ms * 1e-3) / 1e9, s->ratio);
    ck_assert_str_eq(c, want);
    free(c);
    /* no header, the default label, a ratio set by hand */
    set_speed(2.0, 1.0);
    c = csv(NULL, 0);
    ck_assert_str_eq(c, "00,student,speed,2.01327e+08,2,1,0,100.663,201.327,"
                        "0,0.5\n");
    free(c);
    /* a case named with a comma (as Lab 2's are) */
    static struct cl_case named[4];
    static struct cl_lab lab;
    lab = *lab00;
    memcpy(named, lab00->cases, sizeof named);
    named[3].name = "B:1x5x3,K=31";
    lab.cases = named;
    g.lab = &lab;
    c = csv(NULL, 0);
    ck_assert_ptr_nonnull(strstr(c, "00,student,B:1x5x3;K=31,"));
    free(c);
    /* the correctness cases never appear, timed or not */
    g = scribble;
    c = csv("x", 0);
    ck_assert_str_eq(c, "");
    free(c);
}
END_TEST

/* The bonus line: with a policy's bonus_at of 1.5, a speed case at 2x is
 * named (and not one at 1.2x); never while a case is wrong, never under
 * the default policy (lab 00 has no bonus). */
START_TEST(test_bonus_line_only_when_correct_and_fast_enough)
{
    use_honest();
    g.policy = policy_with("{\"labs\": {\"00\": {\"bonus_at\": 1.5}}}");
    set_speed(1.0, 2.0);
    int which[4] = {-1, -1, -1, -1};
    ck_assert_int_eq(cl_bonus_cases(&g, which, 4), 1);
    ck_assert_int_eq(which[0], 3);
    char *t = table(0, NULL);
    SAYS(t, "\nbonus: 1.5x the judge's loop or better on speed (2.00x)\n");
    free(t);
    set_speed(1.0, 1.2);
    ck_assert_int_eq(cl_bonus_cases(&g, which, 4), 0);
    t = table(0, NULL);
    ck_assert_ptr_null(strstr(t, "bonus:"));
    free(t);
    set_speed(1.0, 2.0);
    res("n=1")->status = CL_ST_WRONG;
    cl_score_grade(&g, g.policy);
    ck_assert_int_eq(cl_bonus_cases(&g, which, 4), 0);
    use_honest();
    set_speed(1.0, 2.0);
    ck_assert_double_eq(cl_policy_bonus(cl_policy_default(), lab00), 0.0);
    ck_assert_int_eq(cl_bonus_cases(&g, which, 4), 0);
}
END_TEST

static Suite *report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("report");
    tcase_set_timeout(tc, 120);
    tcase_add_unchecked_fixture(tc, grade_once, NULL);
    tcase_add_test(tc, test_honest_passes_and_scribble_scores_zero);
    tcase_add_test(tc, test_json_round_trip);
    tcase_add_test(tc, test_trace_listed_in_json_and_table);
    tcase_add_test(tc, test_sandbox_line_warns);
    tcase_add_test(tc, test_json_written_atomically);
    tcase_add_test(tc, test_table_shows_cases_score_and_colour_on_request);
    tcase_add_test(tc, test_hint_names_first_failure_or_speed_target);
    tcase_add_test(tc, test_edge_statuses_named_and_kept_off_leaderboard);
    tcase_add_test(tc, test_ungraded_run_reports_reason_not_score);
    tcase_add_test(tc, test_csv_has_one_row_per_timed_passing_case);
    tcase_add_test(tc, test_bonus_line_only_when_correct_and_fast_enough);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return cl_suite_run(report_suite(), 0, NULL);
}
