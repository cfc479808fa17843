/* gpu_grading.h: grade a lab inside a GPU suite (test_gpu, test_faults),
 * in the suite's own process, and assert what the grade says. Test code
 * only; the suites run from the project root. Each test runs in a child
 * that Check forks; the GPU probe (gpu_present) runs in a child of its
 * own, so that the suite's process stays free of CUDA for the forks. */
#ifndef CL_TEST_GPU_GRADING_H
#define CL_TEST_GPU_GRADING_H

#include "parent/engine.h"
#include "gpuinfo.h"
#include "specs/labs.h"

#include <check.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CL_BUILD_DIR
#define CL_BUILD_DIR "build"
#endif
#define FIXTURE(name)  CL_BUILD_DIR "/fixtures/lab01/" name ".so"
#define FIXTURE2(name) CL_BUILD_DIR "/fixtures/lab02/" name ".so"
#define FIXTURE3(name) CL_BUILD_DIR "/fixtures/lab03/" name ".so"
#define FIXTURE4(name) CL_BUILD_DIR "/fixtures/lab04/" name ".so"
#define FIXTURE5(name) CL_BUILD_DIR "/fixtures/lab05/" name ".so"
#define FIXTURE6(name) CL_BUILD_DIR "/fixtures/lab06/" name ".so"

/* the last grade (each test's child process has its own) */
static struct cl_grade g;

/* Grade @p lib as @p lab on the cases @p cases names: NULL, every case;
 * else names separated by '|', where "quick" stands for the lab's quick
 * cases and "correct" for all its correctness cases. Whole labs are the
 * soak's (make soak): here each test grades what it asserts, so that the
 * suite fits a few minutes. */
static inline enum cl_exit grade_lab(const char *lab, const char *lib,
                                     const char *cases, double timeout)
{
    const struct cl_lab *l = cl_lab_find(lab, NULL);
    ck_assert_ptr_nonnull(l);
    struct cl_grade_opts o;
    memset(&o, 0, sizeof o);
    o.lib_path = lib;
    o.run.seed = 2024;
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

static inline enum cl_exit grade(const char *lib, const char *cases,
                                 double timeout)
{
    return grade_lab("01", lib, cases, timeout);
}

/* whether this host lets a process make a mount namespace of its own, as
 * the runner does (root, or an unprivileged user namespace), tried in a
 * child: a container that refuses both runs the runner without one */
static inline int jail_possible(void)
{
    pid_t p = fork();
    if (p == 0) {
        int user = geteuid() != 0;
        _exit(unshare(CLONE_NEWNS | (user ? CLONE_NEWUSER : 0)) == 0 &&
                      (user || (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE,
                                      NULL) == 0 &&
                                mount("probe", "/tmp", "tmpfs", MS_NOSUID,
                                      "size=1m") == 0))
                  ? 0
                  : 1);
    }
    int st = 0;
    return p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) &&
           WEXITSTATUS(st) == 0;
}

/* the last grade's runners had their own mount namespace wherever the
 * host allows one (the default for every lab: CL_RUNNER_JAIL=0 is the
 * only way out), with the GPU's driver started inside it */
static inline void expect_jail(void)
{
    if (getenv("CL_RUNNER_JAIL") && !strcmp(getenv("CL_RUNNER_JAIL"), "0"))
        return;
    if (!jail_possible()) {
        printf("note: this host refuses a mount namespace: the runner ran "
               "without one\n");
        return;
    }
    ck_assert_msg(g.sandbox & CL_SBX_JAIL,
                  "%s: the runner had no mount namespace of its own "
                  "(sandbox bits 0x%x)",
                  g.lab->id, (unsigned)g.sandbox);
}

/* every correctness check of @p cases passed and every speed case among
 * them was timed (in a handout tree, with no solutions/, there is nothing
 * to check) */
static inline void expect_solution(const char *lab, const char *lib,
                                   const char *cases)
{
    if (access("solutions", F_OK) != 0) {
        printf("skip: no %s in a handout tree\n", lib);
        return;
    }
    ck_assert_int_eq(grade_lab(lab, lib, cases, 0), CL_EXIT_OK);
    ck_assert_int_eq(g.all_correct, 1);
    ck_assert_double_eq(g.correct_score, g.correct_max);
    expect_jail();
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
static inline void expect_skeleton(const char *lab, const char *lib)
{
    ck_assert_int_eq(grade_lab(lab, lib, "quick", 0), CL_EXIT_FAILED);
    ck_assert_double_eq(g.score, 0.0);
    for (int k = 0; k < g.n; k++) {
        ck_assert_int_eq(g.r[k].status, CL_ST_WRONG);
        ck_assert_int_eq(g.r[k].timed, 0);
    }
}

/* some case of @p cases fails, as @p status, and none is timed */
static inline void expect_caught(const char *lab, const char *lib,
                                 const char *cases, enum cl_status status)
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

static inline const struct cl_result *result(const char *name)
{
    for (int k = 0; k < g.n; k++)
        if (strcmp(g.lab->cases[g.r[k].index].name, name) == 0)
            return &g.r[k];
    ck_abort_msg("no result for %s", name);
    return NULL;
}

static inline void expect(const char *fixture, const char *only,
                          enum cl_status st, const char *text)
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

/* refused before anything runs, naming what it used */
static inline void expect_refused(const char *lab, const char *lib,
                                  const char *what)
{
    ck_assert_int_eq(grade_lab(lab, lib, NULL, 20.0), CL_EXIT_FORBIDDEN);
    ck_assert_msg(strstr(g.summary, what) != NULL, "%s: '%s' lacks '%s'", lib,
                  g.summary, what);
    ck_assert_double_eq(g.score, 0.0);
}

/* does this machine have a CUDA GPU? asked in a child, so that this process
 * stays free of CUDA for Check's forks */
static inline int gpu_present(char *why, size_t len)
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

#endif
