/* engine.c: the worker process, its pipe protocol, and the case loop. */
#define _GNU_SOURCE
#include "engine.h"

#include "errcheck.h"
#include "score.h"
#include "symbols.h"
#include "timing.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- protocol -------------------------------------------------------- */

enum { MSG_HELLO = 1, MSG_RESULT = 2 };
enum { HELLO_OK = 0, HELLO_NO_GPU, HELLO_LOAD, HELLO_FAILED };

struct msg {
    int type;
    int hello;              /* HELLO_* for MSG_HELLO */
    char text[1024];        /* why, when hello != HELLO_OK */
    struct cl_gpu_info gpu; /* with MSG_HELLO */
    struct cl_result r;     /* with MSG_RESULT */
};

struct cmd {
    int index; /* case index; -1 ends the worker */
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

/* ---- the worker (child process) --------------------------------------- */

static int g_res_fd = -1;
static int g_case = -1;

/* a CUDA error in the grader's own calls: report it, then cl_fatal exits */
static void worker_fatal_hook(const char *m)
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
        msg.r.status = CL_ST_CUDA;
        msg.r.restart = 1;
        snprintf(msg.r.msg, sizeof msg.r.msg,
                 "a CUDA error surfaced in the grader after your code ran "
                 "(usually a fault in your kernel): %s",
                 m);
    }
    write_full(g_res_fd, &msg, sizeof msg);
}

static void check_floor(const struct cl_lab *lab, const struct cl_gpu_info *g,
                        struct cl_result *r)
{
    if (!g || !r->timed || r->status != CL_ST_PASS || r->t_ms <= 0)
        return;
    double floor = cl_floor_ms(lab->metric, r->work, g);
    if (floor > 0 && r->t_ms < floor) {
        r->status = CL_ST_TOO_FAST;
        snprintf(r->msg, sizeof r->msg,
                 "measured %.4f ms, below the physical floor of %.4f ms for "
                 "this much work: the timing is not trustworthy (work done "
                 "outside the stream, or skipped on repeated calls?)",
                 r->t_ms, floor);
    }
}

static __attribute__((noreturn)) void worker_main(const struct cl_lab *lab,
                                                  const struct cl_grade_opts *o,
                                                  int cmd_fd, int res_fd)
{
    static struct msg m;
    struct cl_gpu_info gpu;
    struct cl_ctx ctx;
    memset(&m, 0, sizeof m);
    memset(&gpu, 0, sizeof gpu);
    memset(&ctx, 0, sizeof ctx);
    g_res_fd = res_fd;
    cl_set_fatal_hook(worker_fatal_hook);
    m.type = MSG_HELLO;

    if (lab->needs_gpu) {
        if (cl_gpu_query(&gpu, m.text, sizeof m.text) != 0) {
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
        CUDA_CHECK(cudaStreamCreate(&ctx.stream));
        ctx.timer = cl_timer_create(ctx.stream);
        ctx.gpu = &gpu;
        m.gpu = gpu;
    }
    void *lib = dlopen(o->lib_path, RTLD_NOW | RTLD_LOCAL);
    void *state = NULL;
    if (!lib) {
        m.hello = HELLO_LOAD;
        snprintf(m.text, sizeof m.text, "cannot load the submission: %s",
                 dlerror());
    } else if (!(state = lab->setup(lib, m.text, sizeof m.text))) {
        m.hello = HELLO_LOAD;
    }
    if (write_full(res_fd, &m, sizeof m) != 0 || m.hello != HELLO_OK)
        _exit(0);

    ctx.seed = o->seed;
    ctx.profile = o->profile;
    for (;;) {
        struct cmd c;
        if (read_full_timeout(cmd_fd, &c, sizeof c, 0) != 0 || c.index < 0)
            break;
        memset(&m, 0, sizeof m);
        m.type = MSG_RESULT;
        g_case = c.index;
        ctx.timing = c.timing;
        lab->run(state, &ctx, &lab->cases[c.index], &m.r);
        m.r.index = c.index;
        check_floor(lab, ctx.gpu, &m.r);
        fflush(stdout);
        if (write_full(res_fd, &m, sizeof m) != 0)
            break;
        g_case = -1;
        if (m.r.restart) {
            fflush(NULL);
            _exit(0); /* after a sticky error nothing may be freed cleanly */
        }
    }
    if (lab->teardown)
        lab->teardown(state);
    if (ctx.timer)
        cl_timer_destroy(ctx.timer);
    fflush(NULL);
    _exit(0);
}

/* ---- the parent side --------------------------------------------------- */

struct worker {
    pid_t pid;
    int cmd_fd;
    int res_fd;
};

static int spawn(struct worker *w, const struct cl_lab *lab,
                 const struct cl_grade_opts *o)
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
        worker_main(lab, o, cp[0], rp[1]);
    }
    close(cp[0]);
    close(rp[1]);
    w->pid = pid;
    w->cmd_fd = cp[1];
    w->res_fd = rp[0];
    return 0;
}

/* Stop the worker (kill it when @p force) and describe how it ended. */
static void reap(struct worker *w, int force, char *why, size_t len)
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
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        const char *hint = "";
        if (sig == SIGSEGV || sig == SIGBUS)
            hint = ": a bad pointer on the CPU side (a device pointer "
                   "dereferenced in host code?)";
        else if (sig == SIGABRT)
            hint = ": abort() or a failed assert";
        else if (sig == SIGFPE)
            hint = ": an arithmetic fault on the CPU side";
        snprintf(why, len, "your code crashed: signal %d (%s)%s", sig,
                 strsignal(sig), hint);
    } else if (WIFEXITED(st)) {
        snprintf(why, len,
                 "the process running your code exited with status %d "
                 "(exit() called from the submission?)",
                 WEXITSTATUS(st));
    } else {
        snprintf(why, len, "the process running your code ended abnormally");
    }
}

/* Start a worker and read its hello. Returns HELLO_* and fills g->gpu. */
static int start_worker(struct worker *w, const struct cl_lab *lab,
                        const struct cl_grade_opts *o, struct cl_grade *g)
{
    static struct msg m;
    if (spawn(w, lab, o) != 0) {
        snprintf(g->summary, sizeof g->summary, "cannot start a worker: %s",
                 strerror(errno));
        return HELLO_FAILED;
    }
    int rc = read_full_timeout(w->res_fd, &m, sizeof m, HELLO_TIMEOUT_S);
    if (rc != 0 || m.type != MSG_HELLO) {
        char why[512] = "";
        reap(w, 1, why, sizeof why);
        snprintf(g->summary, sizeof g->summary,
                 "the worker did not start (%s)%s%s",
                 rc == 2 ? "timed out" : "no answer", why[0] ? ": " : "", why);
        return HELLO_FAILED;
    }
    if (m.hello != HELLO_OK) {
        snprintf(g->summary, sizeof g->summary, "%s", m.text);
        reap(w, 1, NULL, 0);
        return m.hello;
    }
    if (lab->needs_gpu) {
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

/* Check the submission's symbols before running anything. */
static enum cl_exit check_symbols(const struct cl_lab *lab,
                                  const struct cl_grade_opts *o,
                                  struct cl_grade *g)
{
    struct cl_symtab t;
    char err[512];
    if (cl_symtab_read(o->lib_path, &t, err, sizeof err) != 0) {
        snprintf(g->summary, sizeof g->summary, "%s", err);
        return CL_EXIT_LOAD;
    }
    enum cl_exit rc = CL_EXIT_OK;
    for (const char *const *s = lab->symbols; s && *s; s++) {
        if (!cl_symtab_defines(&t, *s)) {
            snprintf(g->summary, sizeof g->summary,
                     "the submission does not define '%s' (was it renamed, "
                     "made static, or compiled without extern \"C\"?)",
                     *s);
            rc = CL_EXIT_LOAD;
            break;
        }
    }
    const char *bad =
        rc == CL_EXIT_OK ? cl_symtab_forbidden(&t, lab->forbidden) : NULL;
    if (bad) {
        snprintf(g->summary, sizeof g->summary,
                 "the submission uses '%s', from a library this lab forbids: "
                 "the work must be your own kernels",
                 bad);
        rc = CL_EXIT_FORBIDDEN;
    }
    cl_symtab_free(&t);
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

/* Run case k on the worker (starting one if needed). */
static void run_one(const struct cl_lab *lab, const struct cl_grade_opts *o,
                    struct cl_grade *g, struct worker *w, int k, int timing,
                    int *hangs)
{
    static struct msg m;
    struct cl_result *r = &g->r[k];
    const struct cl_case *c = &lab->cases[r->index];
    double limit = o->timeout_s > 0 ? o->timeout_s : lab->timeout_s;
    if (c->kind != CL_CASE_CORRECT && o->timeout_s <= 0)
        limit *= 4; /* timing repeats the call hundreds of times */

    if (w->pid <= 0) {
        int h = start_worker(w, lab, o, g);
        if (h != HELLO_OK) {
            r->status = CL_ST_INTERNAL;
            snprintf(r->msg, sizeof r->msg, "%s", g->summary);
            return;
        }
    }
    struct cmd cmd = {r->index, timing};
    if (write_full(w->cmd_fd, &cmd, sizeof cmd) != 0) {
        reap(w, 1, r->msg, sizeof r->msg);
        r->status = CL_ST_CRASH;
        return;
    }
    int rc = read_full_timeout(w->res_fd, &m, sizeof m, limit);
    if (rc == 0 && m.type == MSG_RESULT && m.r.index == r->index) {
        *r = m.r;
        if (r->restart) /* it exits by itself; do not wait on its teardown */
            reap(w, 1, NULL, 0);
        return;
    }
    if (rc == 2) {
        reap(w, 1, NULL, 0);
        r->status = CL_ST_TIMEOUT;
        snprintf(r->msg, sizeof r->msg,
                 "no result after %.0f s: the kernel hangs or is far too "
                 "slow (an infinite loop, or a barrier not every thread "
                 "reaches?)",
                 limit);
        ++*hangs;
        return;
    }
    reap(w, 1, r->msg, sizeof r->msg);
    r->status = CL_ST_CRASH;
}

enum cl_exit cl_grade_run(const struct cl_lab *lab,
                          const struct cl_grade_opts *o, struct cl_grade *g)
{
    double t0 = now_s();
    memset(g, 0, sizeof *g);
    g->lab = lab;
    g->seed = o->seed;
    g->lib_path = o->lib_path;
    signal(SIGPIPE, SIG_IGN);

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
    enum cl_exit rc = lab->symbols ? check_symbols(lab, o, g) : CL_EXIT_OK;
    if (rc == CL_EXIT_OK && lab->check_data &&
        lab->check_data(g->summary, sizeof g->summary) != 0)
        rc = CL_EXIT_DATA;
    struct worker w = {0, -1, -1};
    if (rc == CL_EXIT_OK) {
        int h = start_worker(&w, lab, o, g);
        rc = h == HELLO_OK       ? CL_EXIT_OK
             : h == HELLO_NO_GPU ? CL_EXIT_NO_GPU
             : h == HELLO_LOAD   ? CL_EXIT_LOAD
                                 : CL_EXIT_INTERNAL;
    }
    if (rc != CL_EXIT_OK) {
        mark_rest(g, 0, CL_ST_NOT_RUN, g->summary);
        cl_score_grade(g);
        g->elapsed_s = now_s() - t0;
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
        run_one(lab, o, g, &w, k, timing, &hangs);
        if (g->r[k].status != CL_ST_PASS && g->r[k].status != CL_ST_TOO_FAST)
            correct = 0;
        if (c->kind != CL_CASE_CORRECT && c->kind != CL_CASE_DEMO && !timing &&
            g->r[k].status == CL_ST_PASS && !g->r[k].msg[0])
            snprintf(g->r[k].msg, sizeof g->r[k].msg,
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
    cl_score_grade(g);
    g->elapsed_s = now_s() - t0;
    return g->exit_code = g->all_correct ? CL_EXIT_OK : CL_EXIT_FAILED;
}
