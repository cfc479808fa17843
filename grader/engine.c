/* engine.c: the grader's process, the judge it forks, and the case loop. */
#define _GNU_SOURCE
#include "engine.h"

#include "errcheck.h"
#include "fileio.h"
#include "harness.h"
#include "labs/glue.h"
#include "policy.h"
#include "score.h"
#include "symbols.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- the pipe protocol between the grader and the judge ------------------ */

enum { MSG_HELLO = 1, MSG_RESULT = 2 };
enum { HELLO_OK = 0, HELLO_NO_GPU, HELLO_FAILED };

struct msg {
    int type;
    int hello;              /* HELLO_* for MSG_HELLO */
    char text[1024];        /* why, when hello != HELLO_OK */
    struct cl_gpu_info gpu; /* with MSG_HELLO */
    struct cl_result r;     /* with MSG_RESULT */
};

struct cmd {
    int index; /* case index; -1 ends the judge */
    int timing;
};

#define HELLO_TIMEOUT_S 300.0 /* CUDA start-up plus a first calibration */
#define MAX_HANGS       2     /* after this many timeouts, stop running */

static int write_full(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* 0: read; 1: end of file; 2: timed out; -1: error */
static int read_full_timeout(int fd, void *p, size_t n, double timeout_s)
{
    char *c = p;
    double deadline = timeout_s > 0 ? now_s() + timeout_s : 0;
    while (n > 0) {
        int ms = -1;
        if (timeout_s > 0) {
            double left = deadline - now_s();
            if (left <= 0)
                return 2;
            ms = (int)(left * 1000) + 1;
        }
        struct pollfd pfd = {fd, POLLIN, 0};
        int pr = poll(&pfd, 1, ms);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr < 0)
            return -1;
        if (pr == 0)
            continue; /* the deadline check above decides */
        ssize_t r = read(fd, c, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            return 1;
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

/* ---- the judge (a child of the grader) ------------------------------------
 */

static int g_res_fd = -1;
static int g_case = -1;

/* a CUDA error in the judge's own calls: report it, then cl_fatal exits */
static void judge_fatal_hook(const char *m)
{
    static struct msg msg;
    memset(&msg, 0, sizeof msg);
    if (g_case < 0) {
        msg.type = MSG_HELLO;
        msg.hello = HELLO_FAILED;
        snprintf(msg.text, sizeof msg.text, "%s", m);
    } else {
        msg.type = MSG_RESULT;
        msg.r.index = g_case;
        msg.r.status = CL_ST_INTERNAL;
        msg.r.restart = 1;
        snprintf(msg.r.msg, sizeof msg.r.msg, "the grader failed: %s", m);
    }
    write_full(g_res_fd, &msg, sizeof msg);
}

struct run {
    const struct cl_lab *lab;
    const struct cl_grade_opts *o;
    const struct cl_policy *policy;
    int sub_fd; /* the sealed copy of the submission */
    struct cl_lab_data *data;
};

static __attribute__((noreturn)) void judge_main(const struct run *run,
                                                 int cmd_fd, int res_fd)
{
    static struct msg m;
    struct cl_gpu_info gpu;
    const struct cl_lab *lab = run->lab;
    const struct cl_grade_opts *o = run->o;
    memset(&m, 0, sizeof m);
    memset(&gpu, 0, sizeof gpu);
    g_res_fd = res_fd;
    cl_set_fatal_hook(judge_fatal_hook);
    /* no other process of this user may read the judge's memory */
    prctl(PR_SET_DUMPABLE, 0);
    m.type = MSG_HELLO;
    if (lab->needs_gpu) {
        if (cl_gpu_query(&gpu, m.text, sizeof m.text) != 0 ||
            cl_judge_init(1, m.text, sizeof m.text) != 0) {
            m.hello = HELLO_NO_GPU;
            write_full(res_fd, &m, sizeof m);
            _exit(0);
        }
        char dir[4096];
        if (o->cache_dir)
            snprintf(dir, sizeof dir, "%s", o->cache_dir);
        else
            cl_default_cache_dir(dir, sizeof dir);
        cl_gpu_calibrate(&gpu, dir, o->recalibrate);
        m.gpu = gpu;
    } else {
        cl_judge_init(0, NULL, 0);
    }
    if (write_full(res_fd, &m, sizeof m) != 0)
        _exit(0);

    struct cl_case_opts co;
    memset(&co, 0, sizeof co);
    co.seed = o->seed;
    co.profile = o->profile;
    co.tool_mode = o->tool_mode || o->profile;
    co.no_trace = o->no_trace;
    co.demo = o->demo;
    co.submission_fd = run->sub_fd;
    co.runner = o->runner;
    co.gpu = lab->needs_gpu ? &gpu : NULL;
    co.data = run->data;
    double limit =
        o->timeout_s > 0 ? o->timeout_s : cl_policy_timeout(run->policy, lab);
    for (;;) {
        struct cmd c;
        if (read_full_timeout(cmd_fd, &c, sizeof c, 0) != 0 || c.index < 0 ||
            c.index >= lab->ncases)
            break;
        memset(&m, 0, sizeof m);
        m.type = MSG_RESULT;
        g_case = c.index;
        co.timing = c.timing;
        co.limit_s = limit;
        cl_case_run(lab, c.index, &co, &m.r);
        m.r.index = c.index;
        fflush(stdout);
        if (write_full(res_fd, &m, sizeof m) != 0)
            break;
        g_case = -1;
        if (m.r.restart) {
            fflush(NULL);
            _exit(0); /* the judge's context is gone: a fresh one next */
        }
    }
    cl_judge_shutdown();
    fflush(NULL);
    _exit(0);
}

/* ---- the grader's side --------------------------------------------------- */

struct judge {
    pid_t pid;
    int cmd_fd;
    int res_fd;
};

static int spawn(struct judge *w, const struct run *run)
{
    int cp[2], rp[2];
    if (pipe2(cp, O_CLOEXEC) != 0)
        return -1;
    if (pipe2(rp, O_CLOEXEC) != 0) {
        close(cp[0]);
        close(cp[1]);
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(cp[0]);
        close(cp[1]);
        close(rp[0]);
        close(rp[1]);
        return -1;
    }
    if (pid == 0) {
        close(cp[1]);
        close(rp[0]);
        judge_main(run, cp[0], rp[1]);
    }
    close(cp[0]);
    close(rp[1]);
    w->pid = pid;
    w->cmd_fd = cp[1];
    w->res_fd = rp[0];
    return 0;
}

/* Stop the judge (kill it when @p force) and describe how it ended. */
static void reap(struct judge *w, int force, char *why, size_t len)
{
    if (w->pid <= 0)
        return;
    if (force)
        kill(w->pid, SIGKILL);
    close(w->cmd_fd);
    int st = 0;
    while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
        ;
    close(w->res_fd);
    w->pid = 0;
    if (!why)
        return;
    if (WIFSIGNALED(st))
        snprintf(why, len, "the grader's judge died: signal %d (%s)",
                 WTERMSIG(st), strsignal(WTERMSIG(st)));
    else
        snprintf(why, len, "the grader's judge exited with status %d",
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* Start a judge and read its hello. Returns HELLO_* and fills g->gpu. */
static int start_judge(struct judge *w, const struct run *run,
                       struct cl_grade *g)
{
    static struct msg m;
    if (spawn(w, run) != 0) {
        snprintf(g->summary, sizeof g->summary, "cannot start the judge: %s",
                 strerror(errno));
        return HELLO_FAILED;
    }
    int rc = read_full_timeout(w->res_fd, &m, sizeof m, HELLO_TIMEOUT_S);
    if (rc != 0 || m.type != MSG_HELLO) {
        char why[512] = "";
        reap(w, 1, why, sizeof why);
        snprintf(g->summary, sizeof g->summary,
                 "the judge did not start (%s)%s%s",
                 rc == 2 ? "timed out" : "no answer", why[0] ? ": " : "", why);
        return HELLO_FAILED;
    }
    if (m.hello != HELLO_OK) {
        snprintf(g->summary, sizeof g->summary, "%s", m.text);
        reap(w, 1, NULL, 0);
        return m.hello;
    }
    if (run->lab->needs_gpu) {
        g->gpu = m.gpu;
        g->have_gpu = 1;
    }
    return HELLO_OK;
}

static int select_cases(const struct cl_lab *lab, const struct cl_grade_opts *o,
                        struct cl_grade *g)
{
    /* correctness first, then speed; --bench: speed and the size sweep;
     * --demo: the demo cases alone */
    for (int kind = CL_CASE_CORRECT; kind <= CL_CASE_DEMO; kind++) {
        if (o->demo    ? kind != CL_CASE_DEMO
            : o->bench ? kind == CL_CASE_CORRECT || kind == CL_CASE_DEMO
                       : kind == CL_CASE_BENCH || kind == CL_CASE_DEMO)
            continue;
        for (int i = 0; i < lab->ncases && g->n < CL_MAX_CASES; i++) {
            const struct cl_case *c = &lab->cases[i];
            if ((int)c->kind != kind)
                continue;
            if (o->only_case && strcmp(o->only_case, c->name) != 0)
                continue;
            if (o->quick && !c->quick && !o->only_case)
                continue;
            memset(&g->r[g->n], 0, sizeof g->r[g->n]);
            g->r[g->n].index = i;
            g->r[g->n].status = CL_ST_NOT_RUN;
            g->n++;
        }
    }
    return g->n;
}

static void mark_rest(struct cl_grade *g, int from, enum cl_status st,
                      const char *msg)
{
    for (int k = from; k < g->n; k++) {
        g->r[k].status = st;
        snprintf(g->r[k].msg, sizeof g->r[k].msg, "%s", msg);
    }
}

/* the submission's bytes, once, into a sealed memfd: what is checked is
 * what runs */
static int seal_submission(const char *path, unsigned char **bytes,
                           size_t *size, char *why, size_t len)
{
    char *buf = cl_read_file(path, size);
    if (!buf) {
        snprintf(why, len, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    int fd = memfd_create("submission.so", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0 || write_full(fd, buf, *size) != 0 ||
        fcntl(fd, F_ADD_SEALS,
              F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
        snprintf(why, len, "cannot copy the submission: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        free(buf);
        return -1;
    }
    *bytes = (unsigned char *)buf;
    return fd;
}

static enum cl_exit check_bytes(const struct cl_lab *lab,
                                const unsigned char *buf, size_t size,
                                const char *name, char *why, size_t len)
{
    struct cl_symtab t;
    const struct cl_glue *glue = cl_glue_find(lab->id);
    if (cl_symtab_parse(buf, size, name, &t, why, len) != 0)
        return CL_EXIT_LOAD;
    enum cl_caps_verdict v =
        cl_caps_check(lab->caps, glue ? glue->entries : NULL, &t, why, len);
    cl_symtab_free(&t);
    return v == CL_CAPS_OK        ? CL_EXIT_OK
           : v == CL_CAPS_MISSING ? CL_EXIT_LOAD
                                  : CL_EXIT_FORBIDDEN;
}

enum cl_exit cl_check_submission(const struct cl_lab *lab, const char *path,
                                 char *why, size_t len)
{
    size_t size = 0;
    char *buf = cl_read_file(path, &size);
    if (!buf) {
        snprintf(why, len, "cannot read %s: %s", path, strerror(errno));
        return CL_EXIT_LOAD;
    }
    enum cl_exit rc =
        check_bytes(lab, (unsigned char *)buf, size, path, why, len);
    free(buf);
    return rc;
}

static void progress(const struct cl_grade_opts *o, int k, int n,
                     const char *name)
{
    if (!o->progress)
        return;
    if (name)
        fprintf(stderr, "\r\033[K[%d/%d] %s ...", k + 1, n, name);
    else
        fprintf(stderr, "\r\033[K");
    fflush(stderr);
}

/* Run case k on the judge (starting one if needed). */
static void run_one(const struct run *run, struct cl_grade *g, struct judge *w,
                    int k, int timing)
{
    static struct msg m;
    struct cl_result *r = &g->r[k];
    double call = run->o->timeout_s > 0
                      ? run->o->timeout_s
                      : cl_policy_timeout(run->policy, run->lab);
    /* a case makes many calls when timed; the judge enforces the call's
     * limit on the runner, this one only guards against a stuck judge */
    double limit = (timing ? 6 : 3) * call + 300;
    if (w->pid <= 0) {
        int h = start_judge(w, run, g);
        if (h != HELLO_OK) {
            r->status = CL_ST_INTERNAL;
            snprintf(r->msg, sizeof r->msg, "%s", g->summary);
            return;
        }
    }
    struct cmd cmd = {r->index, timing};
    if (write_full(w->cmd_fd, &cmd, sizeof cmd) != 0) {
        reap(w, 1, r->msg, sizeof r->msg);
        r->status = CL_ST_INTERNAL;
        return;
    }
    int rc = read_full_timeout(w->res_fd, &m, sizeof m, limit);
    if (rc == 0 && m.type == MSG_RESULT && m.r.index == r->index) {
        *r = m.r;
        r->msg[sizeof r->msg - 1] = '\0';
        if (r->restart)
            reap(w, 1, NULL, 0);
        return;
    }
    reap(w, 1, r->msg, sizeof r->msg);
    r->status = rc == 2 ? CL_ST_TIMEOUT : CL_ST_INTERNAL;
    if (rc == 2)
        snprintf(r->msg, sizeof r->msg, "the case took more than %.0f s in all",
                 limit);
}

enum cl_exit cl_grade_run(const struct cl_lab *lab,
                          const struct cl_grade_opts *o, struct cl_grade *g)
{
    double t0 = now_s();
    memset(g, 0, sizeof *g);
    g->lab = lab;
    g->seed = o->seed;
    g->lib_path = o->lib_path;
    const struct cl_policy *policy =
        o->policy ? o->policy : cl_policy_default();
    g->policy_name = policy->name;
    g->policy = policy;
    signal(SIGPIPE, SIG_IGN);
    /* nothing of the grader's memory is for other processes of this user */
    prctl(PR_SET_DUMPABLE, 0);

    if (select_cases(lab, o, g) == 0) {
        if (o->demo && !o->only_case)
            snprintf(g->summary, sizeof g->summary, "lab %s has no demo",
                     lab->id);
        else
            snprintf(g->summary, sizeof g->summary,
                     "no case named '%s' in lab %s",
                     o->only_case ? o->only_case : "(quick)", lab->id);
        return g->exit_code = CL_EXIT_USAGE;
    }
    struct run run = {lab, o, policy, -1, NULL};
    unsigned char *bytes = NULL;
    size_t size = 0;
    enum cl_exit rc = CL_EXIT_OK;
    run.sub_fd = seal_submission(o->lib_path, &bytes, &size, g->summary,
                                 sizeof g->summary);
    if (run.sub_fd < 0)
        rc = CL_EXIT_LOAD;
    if (rc == CL_EXIT_OK)
        rc = check_bytes(lab, bytes, size, o->lib_path, g->summary,
                         sizeof g->summary);
    free(bytes);
    if (rc == CL_EXIT_OK && lab->load_data &&
        lab->load_data(&run.data, g->summary, sizeof g->summary) != 0)
        rc = CL_EXIT_DATA;
    struct judge w = {0, -1, -1};
    if (rc == CL_EXIT_OK) {
        int h = start_judge(&w, &run, g);
        rc = h == HELLO_OK       ? CL_EXIT_OK
             : h == HELLO_NO_GPU ? CL_EXIT_NO_GPU
                                 : CL_EXIT_INTERNAL;
    }
    if (rc != CL_EXIT_OK) {
        mark_rest(g, 0, CL_ST_NOT_RUN, g->summary);
        cl_score_grade(g, policy);
        g->elapsed_s = now_s() - t0;
        if (run.sub_fd >= 0)
            close(run.sub_fd);
        return g->exit_code = rc;
    }

    int hangs = 0, correct = 1;
    for (int k = 0; k < g->n; k++) {
        const struct cl_case *c = &lab->cases[g->r[k].index];
        if (hangs >= MAX_HANGS) {
            mark_rest(g, k, CL_ST_NOT_RUN,
                      "not run: earlier cases hung; fix the hang first");
            break;
        }
        int timing = (c->kind == CL_CASE_SPEED || c->kind == CL_CASE_BENCH) &&
                     correct && !o->profile;
        progress(o, k, g->n, c->name);
        run_one(&run, g, &w, k, timing);
        struct cl_result *r = &g->r[k];
        if (r->sandbox && !g->sandbox) {
            g->sandbox = r->sandbox;
            g->runner_uid = r->runner_uid;
        }
        hangs += r->status == CL_ST_TIMEOUT;
        if (!cl_status_correct(r->status))
            correct = 0;
        if (r->load_failed) {
            /* the submission's own failure, before any case could run */
            snprintf(g->summary, sizeof g->summary, "%s", r->msg);
            mark_rest(g, k + 1, CL_ST_NOT_RUN,
                      "not run: the submission failed while loading");
            rc = CL_EXIT_LOAD;
            break;
        }
        if (c->kind != CL_CASE_CORRECT && c->kind != CL_CASE_DEMO && !timing &&
            r->status == CL_ST_PASS && !r->msg[0])
            snprintf(r->msg, sizeof r->msg,
                     "correct, but not timed: speed counts once every "
                     "correctness case passes");
    }
    progress(o, 0, 0, NULL);
    if (w.pid > 0) {
        struct cmd stop = {-1, 0};
        char eof;
        write_full(w.cmd_fd, &stop, sizeof stop);
        /* give its clean-up a few seconds, then stop waiting */
        int done = read_full_timeout(w.res_fd, &eof, 1, 10.0) == 1;
        reap(&w, !done, NULL, 0);
    }
    close(run.sub_fd);
    cl_score_grade(g, policy);
    g->elapsed_s = now_s() - t0;
    if (rc == CL_EXIT_LOAD)
        return g->exit_code = rc;
    return g->exit_code = g->all_correct ? CL_EXIT_OK : CL_EXIT_FAILED;
}
