/* test_gpu.c: what only a GPU can show. common/'s device helpers, and the
 * grader on Lab 1 with the reference, the skeleton and every known-bad
 * fixture. Without a GPU the suite says so and skips.
 *
 * The runner process never touches CUDA: each test runs in a child that
 * Check forks, and the GPU probe runs in a child of its own. */
#define _GNU_SOURCE
#include "parent/engine.h"
#include "errcheck.h"
#include "fileio.h"
#include "gpuinfo.h"
#include "guard.h"
#include "rng.h"
#include "timing.h"
#include "labs/labs.h"
#include "tests/suite.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CL_BUILD_DIR
#define CL_BUILD_DIR "build"
#endif
#define FIXTURE(name) CL_BUILD_DIR "/fixtures/lab01/" name ".so"

// ---- common/ on the device
// ----------------------------------------------------

START_TEST(test_device_fill_matches_host)
{
    const size_t n = 1000003;
    float *d, *h = malloc(n * sizeof *h), *want = malloc(n * sizeof *want);
    CUDA_CHECK(cudaMalloc((void **)&d, n * sizeof *d));
    cl_fill_uniform_device(d, n, 99, 4, -2.0f, 2.0f, 0);
    CUDA_CHECK(cudaMemcpy(h, d, n * sizeof *h, cudaMemcpyDeviceToHost));
    cl_fill_uniform_host(want, n, 99, 4, -2.0f, 2.0f);
    ck_assert_int_eq(memcmp(h, want, n * sizeof *h), 0);
    CUDA_CHECK(cudaFree(d));
    free(h);
    free(want);
}
END_TEST

START_TEST(test_guard_catches_device_writes)
{
    struct cl_dbuf b;
    struct cl_guard_report r;
    cl_dbuf_create(&b, 40 * sizeof(float), 4); /* misaligned on purpose */
    ck_assert_uint_eq((uintptr_t)b.ptr % 16, 4);
    cl_dbuf_arm(&b, 0);
    cl_dbuf_poison(&b, 0);
    ck_assert_int_eq(cl_dbuf_check(&b, sizeof(float), 0, &r), 0);

    /* every element poisoned */
    float h[40];
    CUDA_CHECK(cudaMemcpy(h, b.ptr, sizeof h, cudaMemcpyDeviceToHost));
    ck_assert_uint_eq(cl_count_poison_f32(h, 40, NULL), 40);

    /* one float past the end */
    CUDA_CHECK(cudaMemset((float *)b.ptr + 40, 0, sizeof(float)));
    ck_assert_int_eq(cl_dbuf_check(&b, sizeof(float), 0, &r), 1);
    ck_assert_uint_eq(r.back_bad, 4);
    ck_assert_uint_eq(r.front_bad, 0);
    ck_assert_int_eq(r.first_bad, 40);

    /* two floats before the start */
    cl_dbuf_arm(&b, 0);
    CUDA_CHECK(cudaMemset((float *)b.ptr - 2, 0, sizeof(float)));
    ck_assert_int_eq(cl_dbuf_check(&b, sizeof(float), 0, &r), 1);
    ck_assert_uint_eq(r.front_bad, 4);
    ck_assert_int_eq(r.first_bad, -2);
    cl_dbuf_destroy(&b);
}
END_TEST

struct memset_ctx {
    void *p;
    size_t bytes;
};

static void run_memset(void *ctx, cudaStream_t s)
{
    struct memset_ctx *m = ctx;
    CUDA_CHECK(cudaMemsetAsync(m->p, 1, m->bytes, s));
}

START_TEST(test_timing_statistics)
{
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    struct cl_timer *t = cl_timer_create(s);
    struct memset_ctx m = {NULL, (size_t)256 << 20};
    CUDA_CHECK(cudaMalloc(&m.p, m.bytes));
    struct cl_timed items[2] = {{"a", run_memset, &m, {0}},
                                {"b", run_memset, &m, {0}}};
    struct cl_timing_opts o = cl_timing_defaults();
    ck_assert_int_eq(cl_time_interleaved(t, items, 2, &o), cudaSuccess);
    for (int k = 0; k < 2; k++) {
        ck_assert_int_ge(items[k].ms.n, o.min_reps);
        ck_assert_int_le(items[k].ms.n, o.max_reps);
        ck_assert_double_gt(items[k].ms.median, 0.0);
        ck_assert_double_le(items[k].ms.min, items[k].ms.median);
        ck_assert_double_ge(items[k].ms.max, items[k].ms.median);
    }
    CUDA_CHECK(cudaFree(m.p));
    cl_timer_destroy(t);
    CUDA_CHECK(cudaStreamDestroy(s));
}
END_TEST

START_TEST(test_gpu_query_and_calibration)
{
    struct cl_gpu_info g;
    char why[256];
    ck_assert_int_eq(cl_gpu_query(&g, why, sizeof why), 0);
    ck_assert_int_gt((int)strlen(g.name), 0);
    ck_assert_int_gt(g.sm_count, 0);
    ck_assert_int_ge(g.cc_major, 7);
    ck_assert_int_ge(g.cudnn, 90000);
    ck_assert_int_gt(g.cublas, 0);
    ck_assert_int_ge(g.runtime, 12000);
    char dir[] = "/tmp/cl-cal-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    cl_gpu_calibrate(&g, dir, 0);
    ck_assert_int_eq(g.calibrated, 1);
    ck_assert_double_gt(g.memcpy_gbps, 10.0); /* sanity, not a target */
    ck_assert_double_gt(g.sgemm_tflops, 0.1);
    struct cl_gpu_info again = g;
    again.calibrated = 0;
    again.memcpy_gbps = again.sgemm_tflops = 0;
    cl_gpu_calibrate(&again, dir, 0); /* from the cache this time */
    ck_assert_double_eq(again.memcpy_gbps, g.memcpy_gbps);
    ck_assert_double_eq(again.sgemm_tflops, g.sgemm_tflops);
}
END_TEST

// ---- the grader on Lab 1
// ------------------------------------------------------

static struct cl_grade g;

/* Grade @p lib as @p lab on the cases @p cases names: NULL, every case;
 * else names separated by '|', where "quick" stands for the lab's quick
 * cases and "correct" for all its correctness cases. Whole labs are the
 * soak's (make soak): here each test grades what it asserts, so that the
 * suite fits a few minutes. */
static enum cl_exit grade_lab(const char *lab, const char *lib,
                              const char *cases, double timeout)
{
    const struct cl_lab *l = cl_lab_find(lab, NULL);
    ck_assert_ptr_nonnull(l);
    struct cl_grade_opts o;
    memset(&o, 0, sizeof o);
    o.lib_path = lib;
    o.seed = 2024;
    o.timeout_s = timeout;
    static char list[1024];
    snprintf(list, sizeof list, "%s", cases ? cases : "");
    char *save = NULL;
    for (char *t = strtok_r(list, "|", &save); t;
         t = strtok_r(NULL, "|", &save)) {
        int quick = strcmp(t, "quick") == 0,
            correct = strcmp(t, "correct") == 0;
        for (int i = 0; (quick || correct) && i < l->ncases; i++)
            if ((quick && l->cases[i].quick) ||
                (correct && l->cases[i].kind == CL_CASE_CORRECT)) {
                ck_assert_int_lt(o.n_only, CL_MAX_ONLY);
                o.only[o.n_only++] = l->cases[i].name;
            }
        if (!quick && !correct) {
            ck_assert_int_lt(o.n_only, CL_MAX_ONLY);
            o.only[o.n_only++] = t;
        }
    }
    return cl_grade_run(l, &o, &g);
}

static enum cl_exit grade(const char *lib, const char *cases, double timeout)
{
    return grade_lab("01", lib, cases, timeout);
}

/* every correctness check of @p cases passed and every speed case among
 * them was timed (in a handout tree, with no solutions/, there is nothing
 * to check) */
static void expect_solution(const char *lab, const char *lib, const char *cases)
{
    if (access("solutions", F_OK) != 0) {
        printf("skip: no %s in a handout tree\n", lib);
        return;
    }
    ck_assert_int_eq(grade_lab(lab, lib, cases, 0), CL_EXIT_OK);
    ck_assert_int_eq(g.all_correct, 1);
    ck_assert_double_eq(g.correct_score, g.correct_max);
    for (int k = 0; k < g.n; k++) {
        const struct cl_result *r = &g.r[k];
        if (g.lab->cases[r->index].kind != CL_CASE_SPEED)
            continue;
        ck_assert_msg(r->status == CL_ST_PASS && r->timed,
                      "%s: %s not timed (%s)", lab, g.lab->cases[r->index].name,
                      r->msg);
        ck_assert_double_gt(r->t_ms, 0.0);
        ck_assert_double_gt(r->base_ms, 0.0);
        ck_assert_double_gt(r->score, 0.0);
    }
}

/* the skeleton compiles, runs, and earns nothing (on the quick cases) */
static void expect_skeleton(const char *lab, const char *lib)
{
    ck_assert_int_eq(grade_lab(lab, lib, "quick", 0), CL_EXIT_FAILED);
    ck_assert_double_eq(g.score, 0.0);
    for (int k = 0; k < g.n; k++) {
        ck_assert_int_eq(g.r[k].status, CL_ST_WRONG);
        ck_assert_int_eq(g.r[k].timed, 0);
    }
}

/* some case of @p cases fails, as @p status, and none is timed */
static void expect_caught(const char *lab, const char *lib, const char *cases,
                          enum cl_status status)
{
    ck_assert_int_eq(grade_lab(lab, lib, cases, 20.0), CL_EXIT_FAILED);
    int seen = 0;
    for (int k = 0; k < g.n; k++) {
        seen += g.r[k].status == status;
        ck_assert_int_eq(g.r[k].timed, 0);
    }
    ck_assert_msg(seen > 0, "%s: no case failed as %s", lib,
                  cl_status_name(status));
    ck_assert_double_lt(g.score, g.correct_max);
}

static const struct cl_result *result(const char *name)
{
    for (int k = 0; k < g.n; k++)
        if (strcmp(g.lab->cases[g.r[k].index].name, name) == 0)
            return &g.r[k];
    ck_abort_msg("no result for %s", name);
    return NULL;
}

START_TEST(test_lab1_solution)
{
    if (access("solutions", F_OK) != 0)
        return; /* a handout tree */
    ck_assert_int_eq(grade(CL_BUILD_DIR "/solution/01-vector-add.so", NULL, 0),
                     CL_EXIT_OK);
    ck_assert_int_eq(g.all_correct, 1);
    ck_assert_double_eq(g.correct_score, g.correct_max);
    const struct cl_result *s = result("n=2^28");
    ck_assert_int_eq(s->status, CL_ST_PASS);
    ck_assert_int_eq(s->timed, 1);
    ck_assert_double_gt(s->t_ms, 0.0);
    ck_assert_double_gt(s->base_ms, 0.0);
    ck_assert_double_gt(s->ceil_ms, 0.0);
    ck_assert_double_eq(s->work, 3.0 * 4 * (1 << 28));
    ck_assert_double_gt(s->score, 0.0);
    ck_assert_int_eq(g.have_gpu, 1);
    /* the trace: what the timed call launched, on the given stream */
    ck_assert_int_eq(s->trace.on, 1);
    ck_assert_int_gt(s->trace.n, 0);
    ck_assert_int_eq(s->trace.off_stream, 0);
    ck_assert_int_gt(s->samples, 9);
    /* the judge's clock and the runner's events agree on honest code */
    ck_assert_double_gt(s->judge_ms, 0.0);
    ck_assert_double_lt(fabs(s->judge_ms - s->event_ms),
                        0.05 * s->event_ms + 2 * s->noise_ms);
    printf("lab 1 solution: %.4f ms, %.1f%% of the copy ceiling; judge "
           "%.4f ms, events %.4f ms, frame %.4f ms, noise %.4f ms\n",
           s->t_ms, 100 * s->ratio, s->judge_ms, s->event_ms, s->frame_ms,
           s->noise_ms);
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

static void expect(const char *fixture, const char *only, enum cl_status st,
                   const char *text)
{
    grade(fixture, only, 10.0);
    const struct cl_result *r = result(only);
    ck_assert_msg(r->status == st, "%s: status %s, wanted %s (%s)", fixture,
                  cl_status_name(r->status), cl_status_name(st), r->msg);
    if (text)
        ck_assert_msg(strstr(r->msg, text) != NULL, "%s: '%s' lacks '%s'",
                      fixture, r->msg, text);
    ck_assert_double_eq(r->score, 0.0);
}

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

// ---- hostile submissions (docs/grading.md, "Threat model")
// -------------------

/* refused before anything runs, naming what it used */
static void expect_refused(const char *lab, const char *lib, const char *what)
{
    ck_assert_int_eq(grade_lab(lab, lib, NULL, 20.0), CL_EXIT_FORBIDDEN);
    ck_assert_msg(strstr(g.summary, what) != NULL, "%s: '%s' lacks '%s'", lib,
                  g.summary, what);
    ck_assert_double_eq(g.score, 0.0);
}

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

START_TEST(test_hostile_cache_and_spin)
{
    /* right on each case's first call; replayed answers to fresh inputs
     * are wrong: no speed credit */
    grade(FIXTURE("cache_spin"), "quick|n=2^28", 60.0);
    ck_assert_double_eq(g.correct_score, g.correct_max);
    ck_assert_int_eq(result("n=2^28")->status, CL_ST_WRONG);
    ck_assert_double_eq(g.speed_score, 0.0);
}
END_TEST

START_TEST(test_hostile_stream_query)
{
    /* checked and timed calls start alike, behind the same gate: the
     * query answers the same on every call, so the fixture either does
     * the work everywhere (and is graded as the honest kernel it then is)
     * or nowhere (wrong everywhere); never right when checked and idle
     * when timed (H200, 2026-11-26: the stream is idle, all pass) */
    grade(FIXTURE("stream_query"), "quick|n=2^28", 60.0);
    int pass = 0, wrong = 0;
    for (int k = 0; k < g.n; k++) {
        pass += g.r[k].status == CL_ST_PASS;
        wrong += g.r[k].status == CL_ST_WRONG;
    }
    ck_assert_msg(pass == g.n || wrong == g.n,
                  "stream_query: %d of %d pass, %d wrong", pass, g.n, wrong);
}
END_TEST

START_TEST(test_hostile_linger)
{
    /* the runner's sync and events hooked, a kernel left spinning: the
     * judge's clock (to a checked output, waiting for the GPU) and its idle
     * probe give it no speed it did not earn. On an H100 (2026-11-26) it
     * passed at 1.85 ms by the judge's clock, its events saying 0.001 ms
     * (the honest kernel alone: 0.74 ms), 0 of 40 points; caught outright
     * (wrong, forbidden) is as good */
    grade(FIXTURE("linger"), "n=2^28", 60.0);
    const struct cl_result *r = result("n=2^28");
    printf("lab 1 linger: %s, %.4f ms (events %.4f ms): %s\n",
           cl_status_name(r->status), r->t_ms, r->event_ms, r->msg);
    ck_assert_msg(r->status == CL_ST_PASS || r->status == CL_ST_WRONG ||
                      r->status == CL_ST_FORBIDDEN,
                  "linger: %s: %s", cl_status_name(r->status), r->msg);
    if (r->status == CL_ST_PASS) /* the lie bought nothing */
        ck_assert_double_gt(r->t_ms, 100 * r->event_ms);
    ck_assert_double_eq(g.speed_score, 0.0);
}
END_TEST

START_TEST(test_lab1_thrust)
{
    /* honest Thrust code (NVTX off in the build): every correctness point,
     * and timed */
    ck_assert_int_eq(grade(FIXTURE("thrust"), "quick|n=2^28", 0), CL_EXIT_OK);
    ck_assert_double_eq(g.correct_score, g.correct_max);
    ck_assert_int_eq(result("n=2^28")->timed, 1);
}
END_TEST

START_TEST(test_lab1_naive_band)
{
    /* every correctness point, and speed points in the band (60% to 90% of
     * the copy ceiling): on an H100 (2026-11-26) one thread per element
     * already reaches 90% and earns them all, so only "some" is asserted */
    ck_assert_int_eq(grade(FIXTURE("naive"), "quick|n=2^28", 0), CL_EXIT_OK);
    const struct cl_result *r = result("n=2^28");
    ck_assert_int_eq(r->status, CL_ST_PASS);
    ck_assert_int_eq(r->timed, 1);
    ck_assert_double_gt(r->ratio, 0.5);
    ck_assert_double_gt(r->score, 0.0);
    printf("lab 1 naive: %.1f%% of the copy ceiling, %.1f of %.0f points\n",
           100 * r->ratio, r->score, r->max_score);
}
END_TEST

// ---- Lab 2
// -------------------------------------------------------------------

#define FIXTURE2(name) CL_BUILD_DIR "/fixtures/lab02/" name ".so"

START_TEST(test_lab2_solution)
{
    expect_solution("02", CL_BUILD_DIR "/solution/02-stencil.so",
                    "quick|B:8x1024x4096,K=4");
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

// ---- Lab 3
// -------------------------------------------------------------------

#define FIXTURE3(name) CL_BUILD_DIR "/fixtures/lab03/" name ".so"

START_TEST(test_lab3_solution)
{
    expect_solution("03", CL_BUILD_DIR "/solution/03-matmul.so",
                    "quick|8192x64x1280");
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

// ---- Lab 4
// -------------------------------------------------------------------

#define FIXTURE4(name) CL_BUILD_DIR "/fixtures/lab04/" name ".so"

START_TEST(test_lab4_solution)
{
    expect_solution("04", CL_BUILD_DIR "/solution/04-multi-tensor-apply.so",
                    "quick|1000-small");
}
END_TEST

START_TEST(test_lab4_solution_4k_params)
{
    /* the same reference built for the 4 KB parameter limit: many more
     * launches, the same answers */
    expect_solution("04", CL_BUILD_DIR "/solution/04-multi-tensor-apply-4k.so",
                    "quick|1000-small");
}
END_TEST

START_TEST(test_lab4_skeleton)
{
    expect_skeleton("04", CL_BUILD_DIR "/student/04-multi-tensor-apply.so");
}
END_TEST

START_TEST(test_lab4_per_tensor_scores_low)
{
    /* correct, so every correctness point; unfused, so little speed on the
     * small-tensor list (its speedup over the per-tensor loop is about 1) */
    ck_assert_int_eq(
        grade_lab("04", FIXTURE4("per_tensor"), "quick|1000-small", 0),
        CL_EXIT_OK);
    ck_assert_double_eq(g.correct_score, g.correct_max);
    const struct cl_result *r = result("1000-small");
    ck_assert_int_eq(r->timed, 1);
    ck_assert_double_lt(r->score, 0.5 * r->max_score);
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

// ---- Lab 5
// -------------------------------------------------------------------

#define FIXTURE5(name) CL_BUILD_DIR "/fixtures/lab05/" name ".so"

START_TEST(test_lab5_solution)
{
    expect_solution("05", CL_BUILD_DIR "/solution/05-gru.so", "quick|t32-b64");
    /* every speed case names each cuDNN algorithm it raced */
    ck_assert_ptr_nonnull(strstr(result("t32-b64")->msg, "standard"));
    ck_assert_ptr_nonnull(strstr(result("t32-b64")->msg, "(best)"));
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

START_TEST(test_lab5_unfused_scores_partly)
{
    /* correct without cuBLAS or persistence: every correctness point and
     * some, not all, of the speed points */
    ck_assert_int_eq(grade_lab("05", FIXTURE5("correct"),
                               "quick|t32-b1|t32-b8|t32-b64|t32-b256|"
                               "decoder-step",
                               0),
                     CL_EXIT_OK);
    ck_assert_double_eq(g.correct_score, g.correct_max);
    ck_assert_double_gt(g.speed_score, 0.0);
    ck_assert_double_lt(g.speed_score, g.speed_max);
}
END_TEST

// ---- Lab 6
// -------------------------------------------------------------------

#define FIXTURE6(name) CL_BUILD_DIR "/fixtures/lab06/" name ".so"

START_TEST(test_lab6_solution)
{
    expect_solution("06", CL_BUILD_DIR "/solution/06-seq2seq.so",
                    "quick|translate|b1");
    if (access("solutions", F_OK) == 0) {
        ck_assert_ptr_nonnull(strstr(result("b1")->msg, "CUDA graph"));
        ck_assert_ptr_nonnull(strstr(result("translate")->msg, "exact match"));
    }
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

START_TEST(test_lab6_naive_correct)
{
    /* a thread per output, no graph: right, and slower than the pipeline */
    ck_assert_int_eq(grade_lab("06", FIXTURE6("correct"), "quick|b1|b64", 0),
                     CL_EXIT_OK);
    ck_assert_double_eq(g.correct_score, g.correct_max);
    ck_assert_double_lt(g.speed_score, g.speed_max);
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

// ---- the probe and the runner -----------------------------------------------

/* does this machine have a CUDA GPU? asked in a child, so that this process
 * stays free of CUDA for Check's forks */
static int gpu_present(char *why, size_t len)
{
    int p[2];
    if (pipe(p) != 0)
        return 0;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        int n = 0;
        cudaError_t e = cudaGetDeviceCount(&n);
        char msg[200];
        cl_no_gpu_reason(e, msg, sizeof msg);
        if (write(p[1], msg, strlen(msg) + 1) < 0)
            _exit(2);
        _exit(e == cudaSuccess && n > 0 ? 0 : 1);
    }
    close(p[1]);
    ssize_t got = read(p[0], why, len - 1);
    why[got > 0 ? got : 0] = '\0';
    close(p[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int main(void)
{
    struct {
        const TTest *t;
        int limits;
    } tests[] = {
        {test_device_fill_matches_host, 0},
        {test_guard_catches_device_writes, 0},
        {test_timing_statistics, 0},
        {test_gpu_query_and_calibration, 0},
        {test_lab1_solution, 0},
        {test_lab1_skeleton_scores_zero, 0},
        {test_fixture_hang, 1},
        {test_crash_does_not_stop_the_run, 1},
        {test_hostile_refused, 1},
        {test_hostile_abort_while_loading, 1},
        {test_hostile_heap_scan, 1},
        {test_hostile_offstream, 1},
        {test_hostile_cache_and_spin, 1},
        {test_hostile_stream_query, 1},
        {test_hostile_linger, 1},
        {test_lab1_naive_band, 0},
        {test_lab1_thrust, 0},
        {test_lab2_solution, 0},
        {test_lab2_skeleton, 0},
        {test_lab2_no_sync, 1},
        {test_lab2_halo_off_by_one, 1},
        {test_lab2_wrong_boundary, 1},
        {test_lab3_solution, 0},
        {test_lab3_skeleton, 0},
        {test_lab3_no_barrier, 1},
        {test_lab3_unguarded_edge, 1},
        {test_lab3_tf32, 1},
        {test_lab4_solution, 0},
        {test_lab4_solution_4k_params, 0},
        {test_lab4_skeleton, 0},
        {test_lab4_per_tensor_scores_low, 1},
        {test_lab4_ignore_tail, 1},
        {test_lab4_same_step, 1},
        {test_lab5_solution, 0},
        {test_lab5_skeleton, 0},
        {test_lab5_swap_gates, 1},
        {test_lab5_reset_early, 1},
        {test_lab5_half_precision, 1},
        {test_lab5_cudnn_rejected, 1},
        {test_lab5_partial_rows, 1},
        {test_lab5_unfused_scores_partly, 1},
        {test_lab6_solution, 0},
        {test_lab6_skeleton, 0},
        {test_lab6_no_context, 1},
        {test_lab6_first_token, 1},
        {test_lab6_cudnn_rejected, 1},
        {test_lab6_naive_correct, 1},
        {test_lab6_demo, 1},
    };
    int n = (int)(sizeof tests / sizeof tests[0]);
    char why[256];
    int rows = (int)(sizeof lab1_bad / sizeof lab1_bad[0]);
    if (!gpu_present(why, sizeof why))
        return cl_suite_run(NULL, n + rows, why);
    Suite *s = suite_create("gpu");
    TCase *core = tcase_create("core"), *limits = tcase_create("limits");
    tcase_set_timeout(core, 300);
    tcase_set_timeout(limits, 300);
    for (int i = 0; i < n; i++)
        tcase_add_test(tests[i].limits ? limits : core, tests[i].t);
    tcase_add_loop_test(limits, test_fixture_table, 0, rows);
    suite_add_tcase(s, core);
    suite_add_tcase(s, limits);
    return cl_suite_run(s, 0, NULL);
}
