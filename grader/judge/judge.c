/* judge.c: the judge process and the parent's pipe to it (judge.h). */
#define _GNU_SOURCE
#include "judge/judge.h"

#include "fatal.h"
#include "fileio.h"
#include "judge/device.h"
#include "judge/harness.h"
#include "now.h"
#include "protocol/proto.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the pipe protocol between the parent and the judge ------------------ */

enum { MSG_HELLO = 1, MSG_RESULT = 2 };

struct msg {
    int type;
    int hello;              /* CL_JUDGE_* for MSG_HELLO */
    char text[1024];        /* why, when hello != CL_JUDGE_OK */
    struct cl_gpu_info gpu; /* with MSG_HELLO */
    struct cl_result r;     /* with MSG_RESULT */
};

struct cmd {
    int index; /* case index; -1 ends the judge */
    int timing;
};

#define HELLO_TIMEOUT_S 300.0 /* CUDA start-up plus a first calibration */
#define STOP_WAIT_S     10.0  /* the judge's clean-up at the end */

static volatile sig_atomic_t g_interrupt;
static double g_interrupt_at; /* when the first one came (cl_now_s) */

/* The same stop often arrives twice at once: timeout(1), told to stop,
 * signals its command and then the command's process group, which holds
 * the command too (grade-class runs each grade so). A repeat within
 * REPEAT_S of the first is that echo; a later one (a second Ctrl-C) ends
 * the process as usual. */
#define REPEAT_S 0.5

static void on_interrupt(int sig)
{
    double now = cl_now_s(); /* (clock_gettime: safe in a handler) */
    if (!g_interrupt) {
        g_interrupt_at = now;
        g_interrupt = sig;
        return;
    }
    if (now - g_interrupt_at < REPEAT_S)
        return;
    signal(sig, SIG_DFL);
    raise(sig);
}

void cl_judge_catch_interrupts(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_interrupt;
        sigfillset(&sa.sa_mask);       /* one handler at a time */
        sigaction(sigs[i], &sa, NULL); /* no SA_RESTART: a wait ends */
    }
}

int cl_judge_interrupted(void)
{
    return g_interrupt;
}

/* 0: read; 1: end of file; 2: timed out; 3: interrupted (the parent's
 * cl_judge_catch_interrupts()); -1: error */
static int read_full_timeout(int fd, void *p, size_t n, double timeout_s)
{
    char *c = p;
    double deadline = timeout_s > 0 ? cl_now_s() + timeout_s : 0;
    while (n > 0) {
        int w = cl_wait_readable(fd, deadline, &g_interrupt, -1, NULL, NULL);
        if (w)
            return w; /* 2 timed out, 3 interrupted, -1 */
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

/* ---- the judge (a child of the parent) ------------------------------------
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
        msg.hello = CL_JUDGE_FAILED;
        snprintf(msg.text, sizeof msg.text, "%s", m);
    } else {
        msg.type = MSG_RESULT;
        msg.r.index = g_case;
        msg.r.status = CL_ST_INTERNAL;
        msg.r.restart = 1;
        msg.r.judge_died = 1;
        snprintf(msg.r.msg, sizeof msg.r.msg, "the grader failed: %s", m);
    }
    cl_write_full(g_res_fd, &msg, sizeof msg);
}

/* The self-test of a judge's death (CPU lab only): CL_TEST_JUDGE_DIES=
 * CASE:FILE aborts the judge as it starts CASE, once per FILE (created
 * then): "always" in place of FILE, every time */
static void test_judge_death(const struct cl_lab *lab, int index)
{
    const char *spec = getenv("CL_TEST_JUDGE_DIES");
    const char *colon = spec ? strchr(spec, ':') : NULL;
    if (!colon || lab->needs_gpu)
        return;
    const char *name = lab->cases[index].name;
    if (strlen(name) != (size_t)(colon - spec) ||
        strncmp(spec, name, (size_t)(colon - spec)) != 0)
        return;
    if (strcmp(colon + 1, "always") != 0) {
        int fd = open(colon + 1, O_CREAT | O_EXCL | O_WRONLY, 0600);
        if (fd < 0)
            return; /* it died here once already */
        close(fd);
    }
    abort();
}

/* A large case's CPU checks allocate and free gigabytes each (the input
 * images, the reference, 4 GiB for Lab 1 at n = 2^28), four times a look:
 * glibc maps blocks that large afresh and unmaps them when freed, and
 * the kernel then faults every page in again, which took most of each
 * check's seconds. Freed memory stays in the judge's heap instead, for
 * the next check and the next case to reuse: the judge's peak is the same,
 * but it is not handed back until the judge ends. */
static void keep_freed_memory(void)
{
    mallopt(M_MMAP_MAX, 0);        /* every block from the heap */
    mallopt(M_TRIM_THRESHOLD, -1); /* and none of it trimmed */
}

static __attribute__((noreturn)) void judge_main(const struct cl_judge_run *run,
                                                 int cmd_fd, int res_fd)
{
    static struct msg m;
    struct cl_gpu_info gpu;
    const struct cl_lab *lab = run->lab;
    memset(&m, 0, sizeof m);
    memset(&gpu, 0, sizeof gpu);
    g_res_fd = res_fd;
    cl_set_fatal_hook(judge_fatal_hook);
    /* a terminal's ^C reaches the whole foreground group: the parent
     * decides what it means, and ends this process */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    /* no other process of this user may read the judge's memory */
    prctl(PR_SET_DUMPABLE, 0);
    keep_freed_memory();
    m.type = MSG_HELLO;
    if (lab->needs_gpu) {
        if (cl_gpu_query(&gpu, m.text, sizeof m.text) != 0 ||
            cl_judge_init(1, m.text, sizeof m.text) != 0) {
            m.hello = CL_JUDGE_NO_GPU;
            cl_write_full(res_fd, &m, sizeof m);
            _exit(0);
        }
        char dir[4096];
        if (run->opts->cache_dir)
            snprintf(dir, sizeof dir, "%s", run->opts->cache_dir);
        else
            cl_default_cache_dir(dir, sizeof dir);
        /* not under a sanitizer or a profiler: what it measured there
         * would be cached as this GPU's peaks */
        cl_gpu_calibrate(&gpu, dir, run->opts->recalibrate,
                         cl_run_sandboxed(run->opts));
        m.gpu = gpu;
    } else {
        cl_judge_init(0, NULL, 0);
    }
    if (cl_write_full(res_fd, &m, sizeof m) != 0)
        _exit(0);

    struct cl_case_opts co = {
        .run = run->opts,
        .limit_s = run->limit_s,
        .submission_fd = run->sub_fd,
        .gpu = lab->needs_gpu ? &gpu : NULL,
        .data = run->data,
    };
    for (;;) {
        struct cmd c;
        if (read_full_timeout(cmd_fd, &c, sizeof c, 0) != 0 || c.index < 0 ||
            c.index >= lab->ncases)
            break;
        memset(&m, 0, sizeof m);
        m.type = MSG_RESULT;
        g_case = c.index;
        co.timing = c.timing;
        test_judge_death(lab, c.index);
        cl_case_run(lab, c.index, &co, &m.r);
        m.r.index = c.index;
        fflush(stdout);
        if (cl_write_full(res_fd, &m, sizeof m) != 0)
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

/* ---- the parent's side ------------------------------------------------------
 */

static int spawn(struct cl_judge *w, const struct cl_judge_run *run)
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
static void reap(struct cl_judge *w, int force, char *why, size_t len)
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
    w->cmd_fd = w->res_fd = -1;
    if (!why)
        return;
    if (WIFSIGNALED(st))
        snprintf(why, len, "the grader's judge died: signal %d (%s)",
                 WTERMSIG(st), strsignal(WTERMSIG(st)));
    else
        snprintf(why, len, "the grader's judge exited with status %d",
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

int cl_judge_start(struct cl_judge *w, const struct cl_judge_run *run,
                   struct cl_gpu_info *gpu, char *why, size_t len)
{
    static struct msg m;
    if (spawn(w, run) != 0) {
        snprintf(why, len, "cannot start the judge: %s", strerror(errno));
        return CL_JUDGE_FAILED;
    }
    int rc = read_full_timeout(w->res_fd, &m, sizeof m, HELLO_TIMEOUT_S);
    if (rc != 0 || m.type != MSG_HELLO) {
        char died[512] = "";
        reap(w, 1, died, sizeof died);
        if (rc == 3)
            snprintf(why, len, "interrupted");
        else
            snprintf(why, len, "the judge did not start (%s)%s%s",
                     rc == 2 ? "timed out" : "no answer", died[0] ? ": " : "",
                     died);
        return CL_JUDGE_FAILED;
    }
    if (m.hello != CL_JUDGE_OK) {
        m.text[sizeof m.text - 1] = '\0';
        snprintf(why, len, "%s", m.text);
        reap(w, 1, NULL, 0);
        return m.hello == CL_JUDGE_NO_GPU ? CL_JUDGE_NO_GPU : CL_JUDGE_FAILED;
    }
    if (gpu)
        *gpu = m.gpu;
    return CL_JUDGE_OK;
}

void cl_judge_case(struct cl_judge *w, int index, int timing, double limit_s,
                   struct cl_result *r)
{
    static struct msg m;
    memset(r, 0, sizeof *r);
    r->index = index;
    struct cmd cmd = {index, timing};
    int rc = -1;
    if (cl_write_full(w->cmd_fd, &cmd, sizeof cmd) == 0)
        rc = read_full_timeout(w->res_fd, &m, sizeof m, limit_s);
    if (rc == 0 && m.type == MSG_RESULT && m.r.index == index) {
        *r = m.r;
        r->msg[sizeof r->msg - 1] = '\0';
        if (r->restart)
            reap(w, 1, NULL, 0);
        return;
    }
    reap(w, 1, r->msg, sizeof r->msg);
    if (rc == 3) {
        r->status = CL_ST_NOT_RUN;
        snprintf(r->msg, sizeof r->msg, "not run: interrupted");
        return;
    }
    r->status = rc == 2 ? CL_ST_TIMEOUT : CL_ST_INTERNAL;
    r->judge_died = rc != 2;
    if (rc == 2)
        snprintf(r->msg, sizeof r->msg, "the case took more than %.0f s in all",
                 limit_s);
}

void cl_judge_stop(struct cl_judge *w)
{
    if (w->pid <= 0)
        return;
    struct cmd stop = {-1, 0};
    char eof;
    cl_write_full(w->cmd_fd, &stop, sizeof stop);
    /* give its clean-up a few seconds, then stop waiting */
    int done = read_full_timeout(w->res_fd, &eof, 1, STOP_WAIT_S) == 1;
    reap(w, !done, NULL, 0);
}
