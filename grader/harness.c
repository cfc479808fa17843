/* harness.c: the case protocol, run by the judge (see harness.h). */
#define _GNU_SOURCE
#include "harness.h"

#include "errcheck.h"
#include "gate.h"
#include "guard.h"
#include "judge_gpu.h"
#include "labs/glue.h"
#include "rng.h"
#include "sandbox.h"
#include "score.h"
#include "stats.h"
#include "symbols.h"
#include "timing.h"
#include "trace.h"

#include <cublas_v2.h>
#include <cudnn.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define HELLO_TIMEOUT_S 120.0 /* CUDA start-up in a fresh runner */
#define DRY_RUNS        12    /* empty frames timed before loading */
#define WARMUPS         2     /* checked, untimed calls before timing */
#define MIN_SAMPLES     10
#define MAX_SAMPLES     200
#define MAX_TOTAL_MS    2000.0
#define STABLE_REL      0.01
#define SPOT_CHECKS     2     /* timed calls checked on the CPU, at random */
#define TRACE_SPOTS     2     /* timed calls traced at random (not timed) */
#define OUTPUT_CAP      65536 /* bytes of the runner's output relayed */
/* unexplained time allowed per call, in the lower quartile of the calls:
 * on an H200 honest references showed at most 0.06 ms (0.28 ms at 5 ms
 * calls), with spikes of 0.2-0.5 ms in a quarter of the calls (the OS,
 * the GPU's time slices); a submission that hides work after its timed
 * window shows it in every call */
#define ALLOW_ABS_MS  0.10
#define ALLOW_REL     0.15
#define WORKSPACE_CAP ((uint64_t)16 << 30)

/* ---- the judge's process-wide state ---------------------------------------
 */

static struct {
    int gpu;                /* the lab runs on the GPU */
    cudaStream_t s;         /* the judge's stream */
    struct cl_timer *timer; /* L2 flush */
    cudaEvent_t e0, e1;
    cublasHandle_t blas;
    cudnnHandle_t dnn;
} J;

int cl_judge_init(int gpu, char *why, size_t len)
{
    /* the runners are waited for (and seen to stop, runner_pause()):
     * children must not be reaped behind our back, whatever SIGCHLD
     * disposition the grader was started with */
    signal(SIGCHLD, SIG_DFL);
    J.gpu = gpu;
    if (!gpu)
        return 0;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        snprintf(why, len, "no CUDA GPU found (%s)",
                 e != cudaSuccess ? cudaGetErrorString(e) : "zero devices");
        cudaGetLastError();
        return -1;
    }
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaStreamCreate(&J.s));
    CUDA_CHECK(cudaEventCreate(&J.e0));
    CUDA_CHECK(cudaEventCreate(&J.e1));
    J.timer = cl_timer_create(J.s);
    return 0;
}

void cl_judge_shutdown(void)
{
    if (!J.gpu)
        return;
    if (J.blas)
        cublasDestroy(J.blas);
    if (J.dnn)
        cudnnDestroy(J.dnn);
    cl_timer_destroy(J.timer);
    memset(&J, 0, sizeof J);
}

void *cl_judge_cublas(void)
{
    if (!J.blas) {
        CUBLAS_CHECK(cublasCreate(&J.blas));
        CUBLAS_CHECK(cublasSetMathMode(J.blas, CUBLAS_DEFAULT_MATH));
    }
    return J.blas;
}

void *cl_judge_cudnn(void)
{
    if (!J.dnn)
        CUDNN_CHECK(cudnnCreate(&J.dnn));
    return J.dnn;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- the plan ----------------------------------------------------------- */

int cl_plan_buf(struct cl_plan *p, const char *name, enum cl_role role,
                enum cl_elem elem, size_t count, size_t offset)
{
    if (p->nbuf >= CL_MAX_BUFS)
        cl_fatal(__FILE__, __LINE__, "cl_plan_buf", "grader",
                 "too many buffers in one case");
    struct cl_buf_plan *b = &p->buf[p->nbuf];
    memset(b, 0, sizeof *b);
    b->name = name;
    b->role = role;
    b->elem = elem;
    b->count = count;
    b->offset = offset;
    return p->nbuf++;
}

/* ---- buffers: the live ones (shared with the runner) and the judge's ----- */

struct hb {
    size_t bytes;        /* usable */
    size_t alloc;        /* the whole allocation */
    size_t at;           /* guard + offset */
    unsigned char *base; /* device memory, or a shared mapping (CPU) */
    void *ptr;           /* base + at */
    int fd;              /* CPU: its memfd */
    unsigned char handle[64];
    void *mirror; /* the baseline's version (outputs, state) */
    void *native; /* GPU: the judge's own copy of an input or of
                     the first state, filled, then copied over */
    int mapped;   /* sent to (or allocated by) the runner */
    int imported; /* GPU: the runner's memory, mapped here */
};

/* the sizes of a buffer with its guards, before anyone allocates it */
static void hb_size(struct hb *b, size_t bytes, size_t offset)
{
    memset(b, 0, sizeof *b);
    b->fd = -1;
    b->bytes = bytes;
    b->at = CL_GUARD_BYTES + offset;
    b->alloc = b->at + bytes + CL_GUARD_BYTES;
}

/* GPU: map the runner's allocation, arm its guards, and make the judge's
 * own copy for an input */
static void hb_import(struct hb *b, const unsigned char *handle, int native)
{
    cudaIpcMemHandle_t h;
    memcpy(&h, handle, sizeof h);
    CUDA_CHECK(cudaIpcOpenMemHandle((void **)&b->base, h,
                                    cudaIpcMemLazyEnablePeerAccess));
    b->imported = 1;
    b->ptr = b->base + b->at;
    CUDA_CHECK(cudaMemsetAsync(b->base, CL_CANARY, b->at, J.s));
    CUDA_CHECK(cudaMemsetAsync(b->base + b->at + b->bytes, CL_CANARY,
                               CL_GUARD_BYTES, J.s));
    if (native)
        CUDA_CHECK(cudaMalloc(&b->native, b->bytes ? b->bytes : 1));
}

/* the CPU lab: a shared memfd, mapped here and sent to the runner */
static void hb_alloc(struct hb *b, size_t bytes, size_t offset)
{
    hb_size(b, bytes, offset);
    b->fd = memfd_create("cl-buffer", MFD_CLOEXEC);
    if (b->fd < 0 || ftruncate(b->fd, (off_t)b->alloc) != 0)
        cl_fatal(__FILE__, __LINE__, "memfd_create", "libc", strerror(errno));
    b->base =
        mmap(NULL, b->alloc, PROT_READ | PROT_WRITE, MAP_SHARED, b->fd, 0);
    if (b->base == MAP_FAILED)
        cl_fatal(__FILE__, __LINE__, "mmap", "libc", strerror(errno));
    memset(b->base, CL_CANARY, b->alloc);
    b->ptr = b->base + b->at;
}

static void hb_free(struct hb *b, int device_ok)
{
    if (J.gpu) {
        if (b->imported)
            cudaIpcCloseMemHandle(b->base); /* the runner may be gone */
        if (device_ok) {
            if (b->native)
                CUDA_CHECK(cudaFree(b->native));
            if (b->mirror)
                CUDA_CHECK(cudaFree(b->mirror));
        }
    } else {
        if (b->base)
            munmap(b->base, b->alloc);
        if (b->fd >= 0)
            close(b->fd);
        free(b->mirror);
    }
    memset(b, 0, sizeof *b);
    b->fd = -1;
}

static void *mirror_alloc(size_t bytes)
{
    void *p = NULL;
    if (J.gpu)
        CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
    else
        p = cl_xcalloc(1, bytes ? bytes : 1);
    return p;
}

static void mem_set(void *p, int v, size_t n)
{
    if (!n)
        return;
    if (J.gpu)
        CUDA_CHECK(cudaMemsetAsync(p, v, n, J.s));
    else
        memset(p, v, n);
}

static void mem_copy(void *dst, const void *src, size_t n)
{
    if (!n)
        return;
    if (J.gpu)
        CUDA_CHECK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, J.s));
    else
        memcpy(dst, src, n);
}

static void mem_sync(void)
{
    if (J.gpu)
        CUDA_CHECK(cudaStreamSynchronize(J.s));
}

/* the guard zones of @p b, read back and scanned */
static int hb_guards(const struct hb *b, struct cl_guard_report *g)
{
    size_t front = b->at;
    unsigned char *h = cl_xmalloc(front + CL_GUARD_BYTES);
    if (J.gpu) {
        CUDA_CHECK(cudaMemcpy(h, b->base, front, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(h + front, b->base + b->at + b->bytes,
                              CL_GUARD_BYTES, cudaMemcpyDeviceToHost));
    } else {
        memcpy(h, b->base, front);
        memcpy(h + front, b->base + b->at + b->bytes, CL_GUARD_BYTES);
    }
    size_t ff = 0, fl = 0, bf = 0;
    memset(g, 0, sizeof *g);
    g->front_bad = cl_scan_bytes(h, front, CL_CANARY, &ff, &fl);
    g->back_bad =
        cl_scan_bytes(h + front, CL_GUARD_BYTES, CL_CANARY, &bf, NULL);
    free(h);
    /* the write nearest the buffer is the likely culprit (4-byte elements) */
    if (g->front_bad)
        g->first_bad = -(long)((front - fl + 3) / 4);
    else if (g->back_bad)
        g->first_bad = (long)((b->bytes + bf) / 4);
    return g->front_bad || g->back_bad;
}

/* ---- fills ------------------------------------------------------------------
 */

struct fill_ctx {
    struct hb *live; /* device (or shared) buffers, or NULL */
    void **host;     /* host images, or NULL */
    const struct cl_plan *plan;
    const struct cl_lab_data *data;
};

static unsigned char *fill_target(const struct cl_fill *f, int buf,
                                  size_t from_byte, size_t n_bytes)
{
    struct fill_ctx *c = f->ctx;
    if (buf < 0 || buf >= c->plan->nbuf)
        cl_fatal(__FILE__, __LINE__, "fill", "grader", "no such buffer");
    size_t bytes = c->plan->buf[buf].count * 4;
    if (from_byte > bytes || n_bytes > bytes - from_byte)
        cl_fatal(__FILE__, __LINE__, "fill", "grader",
                 "a fill runs past its buffer");
    if (c->live) /* the judge's own copy, when the buffer has one */
        return (unsigned char *)(c->live[buf].native ? c->live[buf].native
                                                     : c->live[buf].ptr) +
               from_byte;
    if (!c->host[buf])
        c->host[buf] = cl_xcalloc(1, bytes ? bytes : 1);
    return (unsigned char *)c->host[buf] + from_byte;
}

static void fill_uniform(const struct cl_fill *f, int buf, size_t from,
                         size_t n, uint64_t stream, uint64_t index0, float lo,
                         float hi)
{
    struct fill_ctx *c = f->ctx;
    float *p = (float *)fill_target(f, buf, from * 4, n * 4);
    if (c->live && J.gpu)
        cl_fill_uniform_device_at(p, n, f->seed, stream, index0, lo, hi, J.s);
    else
        cl_fill_uniform_host_at(p, n, f->seed, stream, index0, lo, hi);
}

static void fill_ints(const struct cl_fill *f, int buf, size_t from, size_t n,
                      uint64_t stream, int mod)
{
    struct fill_ctx *c = f->ctx;
    int *p = (int *)fill_target(f, buf, from * 4, n * 4);
    if (c->live && J.gpu)
        cl_fill_ints_device(p, n, f->seed, stream, mod, J.s);
    else
        cl_fill_ints_host(p, n, f->seed, stream, mod);
}

static void fill_bytes(const struct cl_fill *f, int buf, size_t from, size_t n,
                       unsigned char v)
{
    struct fill_ctx *c = f->ctx;
    unsigned char *p = fill_target(f, buf, from, n);
    if (c->live)
        mem_set(p, v, n);
    else
        memset(p, v, n);
}

static void fill_copy(const struct cl_fill *f, int buf, size_t from,
                      const void *src, size_t n)
{
    struct fill_ctx *c = f->ctx;
    unsigned char *p = fill_target(f, buf, from, n);
    if (c->live && J.gpu) {
        CUDA_CHECK(cudaMemcpyAsync(p, src, n, cudaMemcpyHostToDevice, J.s));
        CUDA_CHECK(cudaStreamSynchronize(J.s)); /* src may be temporary */
    } else {
        memcpy(p, src, n);
    }
}

void cl_fill_default(const struct cl_fill *f, const struct cl_plan *p)
{
    for (int i = 0; i < p->nbuf; i++) {
        const struct cl_buf_plan *b = &p->buf[i];
        if (b->role != CL_IN && !(b->role == CL_STATE && f->first))
            continue;
        if (b->elem == CL_F32)
            f->uniform(f, i, 0, b->count, (uint64_t)i + 1, 0, -1.0f, 1.0f);
        else
            f->ints(f, i, 0, b->count, (uint64_t)i + 1, 0x7fffffff);
    }
}

static void run_fill(const struct cl_lab *lab, const void *arg,
                     const struct cl_plan *plan, struct fill_ctx *fc,
                     uint64_t seed, int call, int first)
{
    struct cl_fill f = {seed,         call,      first,
                        fill_uniform, fill_ints, fill_bytes,
                        fill_copy,    fc->data,  fc};
    fc->plan = plan;
    if (lab->fill)
        lab->fill(&f, arg, call);
    else
        cl_fill_default(&f, plan);
}

void cl_fill_host(const struct cl_lab *lab, const void *arg,
                  const struct cl_plan *plan, const struct cl_lab_data *data,
                  uint64_t seed, int call, int first, void **img)
{
    struct fill_ctx fc = {NULL, img, plan, data};
    run_fill(lab, arg, plan, &fc, seed, call, first);
}

/* ---- the runner: spawn, talk, reap ------------------------------------- */

struct runner {
    pid_t pid;
    int sock;
    int out; /* its stdout and stderr */
    size_t relayed;
    int mid_line; /* the relayed output stopped inside a line */
    uint32_t seq;
    struct cl_hello hello;
    char exe[4200];     /* its program */
    char refs[4][1024]; /* the grader's references beside it (grader_file) */
    int nrefs;          /* -1: not looked up yet */
    int pausable;       /* stopped between commands (not in tool mode) */
    int paused;         /* stopped by the judge now */
    int gone;           /* reaped while pausing it: its status is in st */
    int st;
    clockid_t cpu;  /* its CPU-time clock (all its threads) */
    double wall_ms; /* the last talk(): see talk() */
};

/* the runner's output, to our stderr: at most OUTPUT_CAP bytes of it, each
 * line marked as the submission's (so that no line of it passes for the
 * grader's in a log of both streams), control characters (terminal
 * escapes that could erase or redraw the grader's report) shown as '?';
 * a bounded amount per call, so that a runner that writes without end
 * cannot keep the judge from its clock */
#define RELAY_MARK "[your code] "

static void relay_out(struct runner *rn, const char *buf, size_t n)
{
    size_t from = 0;
    for (size_t i = 0; i < n; i++) {
        if (!rn->mid_line) {
            fputs(RELAY_MARK, stderr);
            rn->mid_line = 1;
        }
        if (buf[i] == '\n') {
            fwrite(buf + from, 1, i + 1 - from, stderr);
            from = i + 1;
            rn->mid_line = 0;
        }
    }
    if (from < n)
        fwrite(buf + from, 1, n - from, stderr);
}

static void relay(int fd, void *ctx)
{
    struct runner *rn = ctx;
    char buf[4096];
    for (int reads = 0; reads < 64; reads++) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0)
            return;
        size_t keep = rn->relayed < OUTPUT_CAP ? OUTPUT_CAP - rn->relayed : 0;
        if ((size_t)n < keep)
            keep = (size_t)n;
        for (size_t i = 0; i < keep; i++) {
            unsigned char ch = (unsigned char)buf[i];
            if ((ch < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f)
                buf[i] = '?';
        }
        relay_out(rn, buf, keep);
        if (rn->relayed < OUTPUT_CAP && rn->relayed + (size_t)n >= OUTPUT_CAP) {
            fprintf(stderr, "\n[the submission's output was cut here]\n");
            rn->mid_line = 0;
        }
        rn->relayed += (size_t)n;
    }
}

static const char *self_dir(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    if (n <= 0)
        return ".";
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash)
        *slash = '\0';
    return buf;
}

/* the environment a runner gets: nothing but what CUDA and the ladders
 * need (docs/grading.md); in tool mode, all of ours */
static char **runner_env(int tool)
{
    static char *env[64];
    int n = 0;
    if (tool)
        return environ;
    static const char *const keep[] = {
        "CUDA_VISIBLE_DEVICES=", "CUDA_DEVICE_ORDER=", "LD_LIBRARY_PATH=",
        NULL};
    for (char **e = environ; *e && n < 56; e++) {
        int ok = 0;
        for (const char *const *k = keep; *k; k++)
            ok |= strncmp(*e, *k, strlen(*k)) == 0;
        /* a reference's ladder: VAR_KERNEL=k */
        const char *eq = strchr(*e, '=');
        if (eq && eq - *e > 7 && strncmp(eq - 7, "_KERNEL", 7) == 0)
            ok = 1;
        if (ok)
            env[n++] = *e;
    }
    env[n++] = "PATH=/usr/bin:/bin";
    env[n++] = "HOME=/nonexistent";
    env[n++] = "CUDA_CACHE_DISABLE=1";
    env[n] = NULL;
    return env;
}

static int runner_spawn(struct runner *rn, const struct cl_lab *lab,
                        const struct cl_case_opts *o, double limit_s, char *why,
                        size_t len)
{
    int sv[2] = {-1, -1}, out[2] = {-1, -1};
    memset(rn, 0, sizeof *rn);
    rn->sock = rn->out = -1;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0 ||
        pipe2(out, O_CLOEXEC) != 0) {
        snprintf(why, len, "cannot make the runner's channels: %s",
                 strerror(errno));
        return -1;
    }
    char *exe = rn->exe, dir[4096];
    const size_t exe_len = sizeof rn->exe;
    if (o->runner)
        snprintf(exe, exe_len, "%s", o->runner);
    else {
        /* beside us (build/bin), or beside the test programs' bin */
        self_dir(dir, sizeof dir);
        snprintf(exe, exe_len, "%s/cl-runner", dir);
        if (access(exe, X_OK) != 0)
            snprintf(exe, exe_len, "%s/../bin/cl-runner", dir);
    }
    char uid[16], gid[16], cpu[32];
    uid_t u;
    gid_t g;
    cl_sandbox_default_user(&u, &g);
    snprintf(uid, sizeof uid, "%u", (unsigned)u);
    snprintf(gid, sizeof gid, "%u", (unsigned)g);
    snprintf(cpu, sizeof cpu, "%.0f", 2 * limit_s + 60);
    char *argv[16];
    int a = 0;
    argv[a++] = exe;
    argv[a++] = (char *)lab->id;
    if (geteuid() == 0) {
        argv[a++] = "--uid";
        argv[a++] = uid;
        argv[a++] = "--gid";
        argv[a++] = gid;
    }
    argv[a++] = "--cpu-s";
    argv[a++] = cpu;
    if (o->tool_mode)
        argv[a++] = "--tool";
    if (o->no_trace)
        argv[a++] = "--no-trace";
    const char *forge = getenv("CL_TEST_FORGE_SPAN");
    if (forge && !lab->needs_gpu) { /* the self-test of the clock check */
        argv[a++] = "--test-forge-span";
        argv[a++] = (char *)forge;
    }
    argv[a] = NULL;

    /* the sources above every target, so that no dup2 clobbers another */
    int src_out = fcntl(out[1], F_DUPFD_CLOEXEC, 16);
    int src_sock = fcntl(sv[1], F_DUPFD_CLOEXEC, 16);
    int src_sub = fcntl(o->submission_fd, F_DUPFD_CLOEXEC, 16);
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, src_out, 1);
    posix_spawn_file_actions_adddup2(&fa, src_out, 2);
    posix_spawn_file_actions_adddup2(&fa, src_sock, CL_RUNNER_FD);
    posix_spawn_file_actions_adddup2(&fa, src_sub, CL_SUBMIT_FD);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &all);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
    fflush(NULL);
    int rc =
        posix_spawn(&rn->pid, exe, &fa, &at, argv, runner_env(o->tool_mode));
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(src_out);
    close(src_sock);
    close(src_sub);
    close(sv[1]);
    close(out[1]);
    if (rc != 0) {
        close(sv[0]);
        close(out[0]);
        snprintf(why, len, "cannot start the runner %.300s: %s", exe,
                 strerror(rc));
        return -1;
    }
    rn->sock = sv[0];
    rn->out = out[0];
    rn->pausable = !o->tool_mode; /* a tool's process is not the runner */
    rn->nrefs = -1;
    if (clock_getcpuclockid(rn->pid, &rn->cpu) != 0)
        rn->cpu = (clockid_t)-1;
    fcntl(rn->out, F_SETFL, O_NONBLOCK);
    return 0;
}

/* Between commands the runner is stopped (SIGSTOP; its sandbox forbids it
 * SIGCONT), from the moment its reply is read until the next command is
 * sent: nothing of the submission runs while the judge fills inputs,
 * poisons outputs, times the baseline or reads the results. A thread that
 * finishes the work after the reply, competes with the judge's timing or
 * watches the next inputs arrive is frozen with everything else. 0 when
 * stopped (or it ended: then its status is kept for runner_reap), -1 when
 * it would not stop in time. */
#define PAUSE_WAIT_S 5.0

static int runner_pause(struct runner *rn)
{
    if (!rn->pausable || rn->paused || rn->gone || rn->pid <= 0)
        return 0;
    if (kill(rn->pid, SIGSTOP) != 0)
        return 0; /* already gone: the next step says why */
    double t0 = now_s(), deadline = t0 + PAUSE_WAIT_S;
    for (;;) {
        int st = 0;
        pid_t w = waitpid(rn->pid, &st, WUNTRACED | WNOHANG);
        if (w == rn->pid && WIFSTOPPED(st)) {
            rn->paused = 1;
            return 0;
        }
        if (w == rn->pid) { /* it ended first */
            rn->gone = 1;
            rn->st = st;
            return 0;
        }
        if (w < 0 && errno != EINTR)
            return -1; /* not ours to wait for: cannot tell it stopped */
        double t = now_s();
        if (t > deadline)
            return -1; /* a thread stuck in the kernel */
        if (t - t0 < 0.02) {
            sched_yield(); /* a stop takes microseconds: see it at once */
        } else {
            struct timespec ts = {0, 100000};
            nanosleep(&ts, NULL);
        }
    }
}

/* the CPU time the runner has used, all its threads together (ms) */
static double runner_cpu_ms(const struct runner *rn)
{
    struct timespec ts;
    if (rn->cpu == (clockid_t)-1 || rn->gone || clock_gettime(rn->cpu, &ts))
        return 0;
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static void runner_resume(struct runner *rn)
{
    if (rn->paused && !rn->gone && rn->pid > 0)
        kill(rn->pid, SIGCONT);
    rn->paused = 0;
}

/* how the runner ended, in a sentence; sets *sigsys for the sandbox */
static void runner_reap(struct runner *rn, int force, char *why, size_t len,
                        int *sigsys)
{
    if (sigsys)
        *sigsys = 0;
    if (rn->pid <= 0)
        return;
    if (force)
        kill(-rn->pid, SIGKILL); /* its whole session: nothing outlives it */
    int st = rn->st;             /* when runner_pause() reaped it already */
    while (!rn->gone && waitpid(rn->pid, &st, 0) < 0 && errno == EINTR)
        ;
    kill(-rn->pid, SIGKILL);
    rn->gone = rn->paused = 0;
    if (rn->out >= 0) {
        relay(rn->out, rn);
        if (rn->mid_line) /* its last line, ended for it */
            fputc('\n', stderr);
        rn->mid_line = 0;
        close(rn->out);
    }
    if (rn->sock >= 0)
        close(rn->sock);
    rn->pid = 0;
    rn->sock = rn->out = -1;
    if (!why)
        return;
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        const char *hint = "";
        if (sig == SIGSYS) {
            if (sigsys)
                *sigsys = 1;
            snprintf(why, len,
                     "the sandbox stopped your code: it made a system call "
                     "a lab submission may not (starting a process or "
                     "program, signalling or reading another process, "
                     "opening a socket, or making memory executable)");
            return;
        }
        if (sig == SIGSEGV || sig == SIGBUS)
            hint = ": a bad pointer on the CPU side (a device pointer "
                   "dereferenced in host code?)";
        else if (sig == SIGABRT)
            hint = ": abort() or a failed assert";
        else if (sig == SIGFPE)
            hint = ": an arithmetic fault on the CPU side";
        else if (sig == SIGXCPU)
            hint = ": it used up its CPU time";
        else if (sig == SIGXFSZ)
            hint = ": it wrote a file past the size limit";
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

enum { TALK_OK = 0, TALK_EOF, TALK_TIMEOUT, TALK_BAD, TALK_NO_PAUSE };

/* one command and its reply; what the reply says is checked by the caller.
 * The runner runs from the command until it is paused after its reply
 * (runner_pause()). rn->wall_ms is the judge's time from sending the
 * command to reading the reply, plus the CPU time the runner used from
 * then until it stopped: work that goes on after the reply (a thread
 * finishing the call's work) counts where the clock check sees it, and
 * the wait for a busy machine to run the stop does not */
static int talk(struct runner *rn, uint32_t type, const void *p, uint32_t len,
                const int *fds, int nfds, uint32_t want, void *reply,
                uint32_t reply_len, double timeout_s)
{
    uint32_t seq = ++rn->seq;
    runner_resume(rn);
    double t0 = now_s();
    rn->wall_ms = 0;
    if (cl_msg_send(rn->sock, type, seq, p, len, fds, nfds) != 0)
        return TALK_EOF;
    uint32_t t = 0, s = 0, l = 0;
    int rc = cl_msg_recv(rn->sock, &t, &s, reply, reply_len, &l, NULL, 0, NULL,
                         timeout_s, rn->out, relay, rn);
    double replied = now_s(), cpu = rc == 0 ? runner_cpu_ms(rn) : 0;
    if (rc == 0 && runner_pause(rn) != 0)
        return TALK_NO_PAUSE;
    double late = rc == 0 ? runner_cpu_ms(rn) - cpu : 0;
    rn->wall_ms = (replied - t0) * 1e3 + (late > 0 ? late : 0);
    if (rc == 1)
        return TALK_EOF;
    if (rc == 2)
        return TALK_TIMEOUT;
    /* the runner answers every command once, in order: a reply to another
     * command (stale or forged) was written by something else in its
     * process, and so is a malformed one */
    if (rc != 0 || t != want || l != reply_len || s != seq)
        return TALK_BAD;
    return TALK_OK;
}

/* ---- one case
 * ---------------------------------------------------------------- */

#define MAX_CALL_IMAGES 4

struct kase {
    const struct cl_lab *lab;
    int index;
    const struct cl_case *c;
    const struct cl_case_opts *o;
    unsigned char arg[CL_ARG_MAX];
    struct cl_plan plan;
    struct hb hb[CL_MAX_BUFS];
    struct runner rn;
    int runner_dead;   /* the runner is gone (crash, timeout) */
    int device_broken; /* the judge's own context is unusable */
    double limit_s;
    double dry_ms; /* wall time of an empty frame */
    int has_state;
    int timing_case; /* the case is timed: the untimed-work rule applies */
    uint64_t salt;   /* private: the inputs after the check round */
    /* the baseline */
    const struct cl_baseline *base;
    void *base_st;
    int base_ok[8];
    void *in_ptrs[CL_MAX_BUFS], *out_ptrs[CL_MAX_BUFS];
    /* host images per call, for checks */
    struct {
        int call, used;
        uint64_t seed;
        void *img[CL_MAX_BUFS];
    } inputs[MAX_CALL_IMAGES];
    void *outputs[CL_MAX_BUFS];
    void *base_copies[CL_MAX_BUFS];
    int outputs_from_mirror;
    int base_ran; /* the baseline ran on the current call */
    struct cl_result *r;
};

/* the check round replays from the seed; the calls after it (warm-ups,
 * timed calls) also take the case's private salt, which the runner never
 * sees: the seed has 10^9 values, found by search from the first call's
 * inputs in about a second, and from it every later input would be known
 * in advance (answers computed while nothing is timed, then copied) */
static uint64_t call_seed(const struct kase *k, int call)
{
    if (call < k->plan.check_calls)
        return k->o->seed;
    return cl_mix64(k->o->seed ^ k->salt ^
                    cl_mix64(0x9e3779b97f4a7c15ULL * (uint64_t)(k->index + 1) +
                             (uint64_t)call));
}

static uint64_t private_random(void)
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v)
        v = (uint64_t)now_s() * 2654435761u ^ (uint64_t)getpid();
    return v;
}

/* ---- checks ---------------------------------------------------------- */

static void forget_outputs(struct kase *k)
{
    for (int i = 0; i < CL_MAX_BUFS; i++) {
        free(k->outputs[i]);
        free(k->base_copies[i]);
        k->outputs[i] = k->base_copies[i] = NULL;
    }
}

static void forget_inputs(struct kase *k)
{
    for (int c = 0; c < MAX_CALL_IMAGES; c++) {
        for (int i = 0; i < CL_MAX_BUFS; i++)
            free(k->inputs[c].img[i]);
        memset(&k->inputs[c], 0, sizeof k->inputs[c]);
    }
}

const void *cl_check_input(struct cl_check *ck, int buf, int call)
{
    struct kase *k = ck->h;
    int slot = -1;
    for (int c = 0; c < MAX_CALL_IMAGES; c++)
        if (k->inputs[c].used && k->inputs[c].call == call)
            slot = c;
    if (slot < 0) {
        for (int c = 0; c < MAX_CALL_IMAGES && slot < 0; c++)
            if (!k->inputs[c].used)
                slot = c;
        if (slot < 0)
            cl_fatal(__FILE__, __LINE__, "cl_check_input", "grader",
                     "too many calls' inputs at once");
        struct fill_ctx fc = {NULL, k->inputs[slot].img, &k->plan, k->o->data};
        run_fill(k->lab, k->arg, &k->plan, &fc, call_seed(k, call), call,
                 call == 0);
        k->inputs[slot].used = 1;
        k->inputs[slot].call = call;
    }
    return k->inputs[slot].img[buf];
}

const void *cl_check_output(struct cl_check *ck, int buf)
{
    struct kase *k = ck->h;
    if (buf < 0 || buf >= k->plan.nbuf)
        return NULL;
    if (!k->outputs[buf]) {
        size_t n = k->hb[buf].bytes;
        const void *src = k->outputs_from_mirror && k->hb[buf].mirror
                              ? k->hb[buf].mirror
                              : k->hb[buf].ptr;
        k->outputs[buf] = cl_xmalloc(n ? n : 1);
        if (J.gpu)
            CUDA_CHECK(
                cudaMemcpy(k->outputs[buf], src, n, cudaMemcpyDeviceToHost));
        else
            memcpy(k->outputs[buf], src, n);
    }
    return k->outputs[buf];
}

static int by_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

int cl_check_rows(struct cl_check *ck, int count, int max, int *out)
{
    if (count <= max) {
        for (int i = 0; i < count; i++)
            out[i] = i;
        return count;
    }
    out[0] = 0;
    out[1] = count - 1;
    int n = 2;
    uint64_t s = ck->pick;
    while (n < max) {
        s = cl_mix64(s + 0x9e3779b97f4a7c15ULL);
        int v = (int)(s % (uint64_t)count), dup = 0;
        for (int i = 0; i < n; i++)
            dup |= out[i] == v;
        if (!dup)
            out[n++] = v;
    }
    qsort(out, (size_t)n, sizeof *out, by_int);
    return n;
}

int cl_verdict(const struct cl_compare *c, const char *what,
               struct cl_result *r)
{
    if (c->pass)
        return 0;
    r->status = CL_ST_WRONG;
    cl_compare_describe(c, what, r->msg, sizeof r->msg);
    return 1;
}

int cl_check_written(struct cl_check *ck, int buf)
{
    struct kase *k = ck->h;
    size_t n = k->plan.buf[buf].count, first = 0;
    const float *got = cl_check_output(ck, buf);
    size_t unwritten = cl_count_poison_f32(got, n, &first);
    if (!unwritten)
        return 0;
    ck->r->status = CL_ST_WRONG;
    if (unwritten == n)
        snprintf(ck->r->msg, sizeof ck->r->msg,
                 "%s%s: none of the %zu elements was written", ck->when,
                 k->plan.buf[buf].name, n);
    else
        snprintf(ck->r->msg, sizeof ck->r->msg,
                 "%s%s: %zu of %zu elements never written; first at [%zu]",
                 ck->when, k->plan.buf[buf].name, unwritten, n, first);
    return 1;
}

static void check_init(struct kase *k, struct cl_check *ck, int call,
                       const char *when, struct cl_result *r)
{
    memset(ck, 0, sizeof *ck);
    ck->lab = k->lab;
    ck->arg = k->arg;
    ck->plan = &k->plan;
    ck->data = k->o->data;
    ck->call = call;
    ck->pick = private_random();
    ck->when = when;
    ck->demo = k->o->demo;
    ck->r = r;
    ck->h = k;
}

const void *cl_vs_baseline(struct cl_vs *v, int buf)
{
    struct kase *k = v->ck.h;
    if (buf < 0 || buf >= k->plan.nbuf || !k->hb[buf].mirror)
        return NULL;
    if (!k->base_copies[buf]) {
        size_t n = k->hb[buf].bytes;
        k->base_copies[buf] = cl_xmalloc(n ? n : 1);
        if (J.gpu)
            CUDA_CHECK(cudaMemcpy(k->base_copies[buf], k->hb[buf].mirror, n,
                                  cudaMemcpyDeviceToHost));
        else
            memcpy(k->base_copies[buf], k->hb[buf].mirror, n);
    }
    return k->base_copies[buf];
}

static void devcmp(const struct hb *b, const struct cl_buf_plan *p, double atol,
                   double rtol, struct cl_devcmp *d)
{
    if (J.gpu) {
        cl_compare_device(b->ptr, b->mirror, p->count, p->elem == CL_I32, atol,
                          rtol, d, J.s);
        return;
    }
    /* the CPU lab: the same rules on the host */
    memset(d, 0, sizeof *d);
    d->first_bad = p->count;
    const unsigned *g = b->ptr, *w = b->mirror;
    for (size_t i = 0; i < p->count; i++) {
        float gf, wf;
        memcpy(&gf, &g[i], 4);
        memcpy(&wf, &w[i], 4);
        int poison = g[i] == CL_POISON_F32, fin = !poison && isfinite(gf);
        double diff = fabs((double)gf - wf);
        int wrong = p->elem == CL_I32
                        ? g[i] != w[i]
                        : !fin || !(diff <= atol + rtol * fabs((double)wf));
        d->n_poison += poison;
        if (fin) {
            d->err2 += diff * diff;
            d->max_err = diff > d->max_err ? diff : d->max_err;
        }
        d->ref2 += (double)wf * wf;
        if (wrong) {
            d->n_bad++;
            if (i < d->first_bad)
                d->first_bad = i;
        }
    }
}

int cl_vs_default(struct cl_vs *v, int *bad_buf, size_t *first_bad)
{
    struct kase *k = v->ck.h;
    const struct cl_tolerance *t = &k->plan.tol;
    for (int i = 0; i < k->plan.nbuf; i++) {
        const struct cl_buf_plan *p = &k->plan.buf[i];
        if ((p->role != CL_OUT && p->role != CL_STATE) || !k->hb[i].mirror)
            continue;
        struct cl_devcmp d;
        if (p->has_tol)
            t = &p->tol;
        else
            t = &k->plan.tol;
        devcmp(&k->hb[i], p, v->scale * t->atol, v->scale * t->rtol, &d);
        double rel = d.ref2 > 0 ? sqrt(d.err2 / d.ref2) : sqrt(d.err2);
        int norm_bad = p->elem == CL_F32 && t->max_rel_l2 > 0 &&
                       rel > v->scale * t->max_rel_l2;
        if (!d.n_bad && !norm_bad)
            continue;
        if (bad_buf)
            *bad_buf = i;
        if (first_bad)
            *first_bad = (size_t)d.first_bad;
        struct cl_result *r = v->ck.r;
        r->status = CL_ST_WRONG;
        if (d.n_poison == p->count)
            snprintf(r->msg, sizeof r->msg,
                     "%s%s: none of the %zu elements was written", v->ck.when,
                     p->name, p->count);
        else if (d.n_bad)
            snprintf(r->msg, sizeof r->msg,
                     "%s%s: %llu of %zu elements differ from %s's on the same "
                     "inputs (%llu never written, %llu NaN or Inf); first at "
                     "[%llu]",
                     v->ck.when, p->name, d.n_bad, p->count, k->lab->baseline,
                     d.n_poison, d.n_nonfinite, d.first_bad);
        else
            snprintf(r->msg, sizeof r->msg,
                     "%s%s: every element is close to %s's, but the relative "
                     "L2 error %.3g is too large (lower precision than "
                     "FP32?)",
                     v->ck.when, p->name, k->lab->baseline, rel);
        return 1;
    }
    return 0;
}

/* ---- the case's parts -----------------------------------------------------
 */

static int fail(struct kase *k, enum cl_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct kase *k, enum cl_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    k->r->status = st;
    vsnprintf(k->r->msg, sizeof k->r->msg, fmt, ap);
    va_end(ap);
    return 1;
}

static const char *error_hint(int e)
{
    switch (e) {
    case cudaErrorInvalidConfiguration:
        return "launch configuration out of range: zero blocks, more than "
               "1024 threads per block, or too much shared memory";
    case cudaErrorIllegalAddress:
        return "a kernel read or wrote outside its memory: check the bounds "
               "test and the index arithmetic";
    case cudaErrorMisalignedAddress:
        return "a vector load or store on a pointer that is not aligned "
               "to its width";
    case cudaErrorLaunchOutOfResources:
        return "too many registers or threads per block for this launch";
    case cudaErrorAssert: return "a device-side assert failed";
    default: return "see the CUDA documentation for this error";
    }
}

/* the runner is gone or silent: say so in the result */
static int runner_lost(struct kase *k, int talk_rc, const char *during)
{
    char why[512] = "";
    int sigsys = 0;
    if (talk_rc == TALK_TIMEOUT) {
        runner_reap(&k->rn, 1, NULL, 0, NULL);
        k->runner_dead = 1;
        return fail(k, CL_ST_TIMEOUT,
                    "no result after %g s%s: the kernel hangs or is far "
                    "too slow (an infinite loop, or a barrier not every "
                    "thread reaches?)",
                    k->limit_s, during);
    }
    if (talk_rc == TALK_NO_PAUSE) {
        runner_reap(&k->rn, 1, NULL, 0, NULL);
        k->runner_dead = 1;
        return fail(k, CL_ST_CRASH,
                    "the process running your code could not be paused "
                    "within %.0f s after its reply%s (a thread stuck in the "
                    "kernel?)",
                    PAUSE_WAIT_S, during);
    }
    if (talk_rc == TALK_BAD) { /* killed here: not a crash of its own */
        runner_reap(&k->rn, 1, NULL, 0, NULL);
        k->runner_dead = 1;
        return fail(k, CL_ST_FORBIDDEN,
                    "the grader got a reply the runner did not send%s: "
                    "your code wrote to the grader's socket",
                    during);
    }
    runner_reap(&k->rn, 1, why, sizeof why, &sigsys);
    k->runner_dead = 1;
    return fail(k, sigsys ? CL_ST_FORBIDDEN : CL_ST_CRASH, "%s%s", why, during);
}

/* The grader's own references, beside the runner (build/bin/cl-runner):
 * the reference builds (build/solution, the fixtures, lab 00's
 * build/selftest) and sources (solutions/). The runner's user may be able
 * to read them, and while loading a submission may map files: one of
 * these mapped into the runner is the course's code doing the work. 1 when
 * @p file lies in one of them. */
static int grader_file(struct runner *rn, const char *file)
{
    static const char *const dirs[] = {"../solution", "../selftest",
                                       "../fixtures", "../../solutions"};
    if (rn->nrefs < 0) { /* once per runner */
        char dir[4400], real[4096];
        const char *slash = strrchr(rn->exe, '/');
        rn->nrefs = 0;
        for (size_t i = 0; slash && i < sizeof dirs / sizeof dirs[0]; i++) {
            snprintf(dir, sizeof dir, "%.*s/%s", (int)(slash - rn->exe),
                     rn->exe, dirs[i]);
            if (realpath(dir, real) && strlen(real) > 1 &&
                strlen(real) < sizeof rn->refs[0])
                snprintf(rn->refs[rn->nrefs++], sizeof rn->refs[0], "%s", real);
        }
    }
    for (int i = 0; i < rn->nrefs; i++) {
        size_t n = strlen(rn->refs[i]);
        if (strncmp(file, rn->refs[i], n) == 0 && file[n] == '/')
            return 1;
    }
    return 0;
}

/* forbidden libraries, or the grader's own references (grader_file()),
 * mapped into the runner (read by the kernel, not the runner): 1 when one
 * is */
static int maps_check(struct kase *k)
{
    if (k->rn.pid <= 0)
        return 0;
    char path[64], line[4400], hit[512] = "";
    int own = 0;
    snprintf(path, sizeof path, "/proc/%d/maps", (int)k->rn.pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0; /* gone: the next step says why */
    while (!hit[0] && fgets(line, sizeof line, f)) {
        const char *file = strchr(line, '/');
        if (!file)
            continue;
        line[strcspn(line, "\n")] = '\0';
        const char *base = strrchr(file, '/') + 1;
        if (k->lab->caps && cl_caps_library_forbidden(k->lab->caps, base))
            snprintf(hit, sizeof hit, "%s", base);
        else if (grader_file(&k->rn, file)) {
            snprintf(hit, sizeof hit, "%.500s", file);
            own = 1;
        }
    }
    fclose(f);
    if (!hit[0])
        return 0;
    if (own)
        return fail(k, CL_ST_FORBIDDEN,
                    "a file of the grader's own references was loaded into "
                    "the process running your code (%s): the work must be "
                    "your own",
                    hit);
    return fail(k, CL_ST_FORBIDDEN,
                "a library this lab forbids was loaded into the process "
                "running your code (%s): the work must be your own kernels",
                hit);
}

static int start_runner(struct kase *k)
{
    char why[512];
    if (runner_spawn(&k->rn, k->lab, k->o, k->limit_s, why, sizeof why) != 0)
        return fail(k, CL_ST_INTERNAL, "%s", why);
    uint32_t t = 0, l = 0;
    int rc =
        cl_msg_recv(k->rn.sock, &t, NULL, &k->rn.hello, sizeof k->rn.hello, &l,
                    NULL, 0, NULL, HELLO_TIMEOUT_S, k->rn.out, relay, &k->rn);
    if (rc != 0 || t != R_HELLO || l != sizeof k->rn.hello) {
        runner_reap(&k->rn, 1, why, sizeof why, NULL);
        k->runner_dead = 1;
        return fail(k, CL_ST_INTERNAL, "the runner did not start (%s)",
                    rc == 2  ? "timed out"
                    : why[0] ? why
                             : "no answer");
    }
    k->rn.hello.why[sizeof k->rn.hello.why - 1] = '\0';
    k->rn.hello.sandbox[sizeof k->rn.hello.sandbox - 1] = '\0';
    k->r->sandbox = k->rn.hello.sandboxed;
    k->r->runner_uid = k->rn.hello.uid;
    if (!k->rn.hello.ok) {
        runner_reap(&k->rn, 1, NULL, 0, NULL);
        k->runner_dead = 1;
        return fail(k, CL_ST_INTERNAL, "%s", k->rn.hello.why);
    }
    if (k->rn.hello.sandbox[0])
        fprintf(stderr, "grade: runner sandbox: %s\n", k->rn.hello.sandbox);
    return 0;
}

/* GPU: have the runner allocate the planned buffers not yet allocated
 * (the workspace comes later), and map them here */
static int alloc_buffers(struct kase *k, int asked)
{
    static struct cl_map m, got;
    memset(&m, 0, sizeof m);
    m.total = k->plan.nbuf;
    for (int i = 0; i < k->plan.nbuf; i++) {
        const struct cl_buf_plan *p = &k->plan.buf[i];
        struct hb *b = &k->hb[i];
        if (b->mapped || p->ask != asked)
            continue;
        struct cl_map_buf *mb = &m.b[m.n++];
        mb->index = i;
        mb->alloc = b->alloc;
        mb->at = b->at;
        mb->bytes = b->bytes;
        b->mapped = 1;
    }
    if (!m.n)
        return 0;
    int rc = talk(&k->rn, J_ALLOC, &m, sizeof m, NULL, 0, R_ALLOCATED, &got,
                  sizeof got, 120.0);
    if (rc != TALK_OK)
        return runner_lost(k, rc, " while allocating the buffers");
    if (got.n != m.n)
        return fail(k, CL_ST_INTERNAL,
                    "the runner could not allocate the case's buffers (out of "
                    "GPU memory?)");
    for (int j = 0; j < got.n; j++) {
        int i = m.b[j].index; /* ours, not the reply's */
        enum cl_role role = k->plan.buf[i].role;
        hb_import(&k->hb[i], got.b[j].handle,
                  role == CL_IN || role == CL_STATE);
    }
    mem_sync();
    return 0;
}

/* send the buffers [from, to) that are allocated and not yet mapped */
static int map_buffers(struct kase *k)
{
    static struct cl_map m;
    static struct cl_reply rep;
    int fds[CL_MAX_BUFS];
    memset(&m, 0, sizeof m);
    m.total = k->plan.nbuf;
    for (int i = 0; i < k->plan.nbuf; i++) {
        struct hb *b = &k->hb[i];
        if (!b->base || b->mapped)
            continue;
        struct cl_map_buf *mb = &m.b[m.n];
        memcpy(mb->handle, b->handle, sizeof mb->handle);
        mb->index = i;
        mb->alloc = b->alloc;
        mb->at = b->at;
        mb->bytes = b->bytes;
        fds[m.n++] = b->fd;
        b->mapped = 1;
    }
    if (!m.n)
        return 0;
    int rc = talk(&k->rn, J_MAP, &m, sizeof m, fds, J.gpu ? 0 : m.n, R_MAPPED,
                  &rep, sizeof rep, 60.0);
    if (rc != TALK_OK)
        return runner_lost(k, rc, " while mapping the buffers");
    if (!rep.ok)
        return fail(k, CL_ST_INTERNAL,
                    "the runner could not map the "
                    "buffers: %.400s",
                    rep.why);
    return 0;
}

static void call_cmd(struct kase *k, struct cl_call_cmd *c, int call, int gate,
                     int trace)
{
    memset(c, 0, sizeof *c);
    c->gate_us = J.gpu ? gate : 0;
    c->profile = k->o->profile;
    c->trace = trace && !k->o->no_trace;
    c->arg_len = (int32_t)k->lab->arg_size;
    c->tag = call + 1;
    memcpy(c->arg, k->arg, k->lab->arg_size);
}

/* empty frames before the student's code is loaded: the wall time of one */
static int dry_runs(struct kase *k)
{
    static struct cl_call_cmd c;
    static struct cl_reply rep;
    double w[DRY_RUNS];
    call_cmd(k, &c, 0, CL_GATE_US, 0);
    for (int i = 0; i < DRY_RUNS; i++) {
        /* resumed and paused around it like a call (talk()) */
        int rc = talk(&k->rn, J_DRY, &c, sizeof c, NULL, 0, R_CALL, &rep,
                      sizeof rep, 30.0);
        w[i] = k->rn.wall_ms;
        if (rc != TALK_OK)
            return runner_lost(k, rc, " (the runner's own frame)");
        if (!rep.ok || rep.cuda_err)
            return fail(k, CL_ST_INTERNAL, "the runner's frame failed: %.400s",
                        rep.why);
    }
    struct cl_stats st;
    cl_stats_compute(w, DRY_RUNS, &st);
    k->dry_ms = st.median;
    return 0;
}

static int load_submission(struct kase *k)
{
    static struct cl_reply rep;
    int rc = talk(&k->rn, J_LOAD, NULL, 0, NULL, 0, R_LOADED, &rep, sizeof rep,
                  k->limit_s);
    if (rc != TALK_OK) {
        runner_lost(k, rc,
                    " while loading (in a constructor or static "
                    "initialiser of your code?)");
        k->r->load_failed = 1;
        return 1;
    }
    if (!rep.ok) {
        rep.why[sizeof rep.why - 1] = '\0';
        k->r->load_failed = 1;
        return fail(k, CL_ST_CRASH, "%s", rep.why);
    }
    return maps_check(k);
}

/* the workspace the student asks for, allocated and mapped */
static int ask_workspace(struct kase *k)
{
    static struct cl_call_cmd c;
    static struct cl_reply rep;
    for (int i = 0; i < k->plan.nbuf; i++) {
        if (!k->plan.buf[i].ask)
            continue;
        call_cmd(k, &c, 0, 0, 0);
        int rc = talk(&k->rn, J_QUERY, &c, sizeof c, NULL, 0, R_QUERY, &rep,
                      sizeof rep, k->limit_s);
        if (rc != TALK_OK)
            return runner_lost(k, rc, " in your workspace-size function");
        if (!rep.ok)
            return fail(k, CL_ST_INTERNAL, "%.400s", rep.why);
        if (rep.cuda_err)
            return fail(k, CL_ST_CUDA,
                        "CUDA error in your workspace-size function: %.60s "
                        "(%.300s)",
                        rep.err_name, rep.why);
        if (rep.value > WORKSPACE_CAP)
            return fail(k, CL_ST_WRONG,
                        "your workspace-size function asked for %llu bytes; "
                        "the grader gives at most %llu",
                        (unsigned long long)rep.value,
                        (unsigned long long)WORKSPACE_CAP);
        k->plan.buf[i].count = (size_t)((rep.value + 3) / 4);
        if (J.gpu)
            hb_size(&k->hb[i], (size_t)rep.value, k->plan.buf[i].offset);
        else
            hb_alloc(&k->hb[i], (size_t)rep.value, k->plan.buf[i].offset);
    }
    return J.gpu ? alloc_buffers(k, 1) : map_buffers(k);
}

/* ---- the baseline
 * ------------------------------------------------------------- */

static int base_create(struct kase *k)
{
    if (!k->base)
        return 0;
    char why[512] = "";
    for (int i = 0; i < k->plan.nbuf; i++) {
        k->in_ptrs[i] = k->hb[i].native ? k->hb[i].native : k->hb[i].ptr;
        const struct cl_buf_plan *p = &k->plan.buf[i];
        if (p->role == CL_OUT || p->role == CL_STATE) {
            if (!k->hb[i].mirror)
                k->hb[i].mirror = mirror_alloc(k->hb[i].bytes);
            k->out_ptrs[i] = k->hb[i].mirror;
        }
    }
    struct cl_base_ctx b = {k->arg, &k->plan, k->o->data, k->in_ptrs,
                            k->out_ptrs};
    k->base_st = k->base->create(&b, why, sizeof why);
    if (!k->base_st)
        return fail(k, CL_ST_INTERNAL, "baseline: %.900s", why);
    int any = 0;
    for (int i = 0; i < k->base->count && i < 8; i++) {
        k->base_ok[i] =
            !k->base->usable || k->base->usable(k->base_st, i, why, sizeof why);
        any |= k->base_ok[i];
    }
    if (!any)
        return fail(k, CL_ST_INTERNAL, "baseline: %.900s", why);
    return 0;
}

static int base_run(struct kase *k, int i)
{
    int st = k->base->run(k->base_st, i, J.s);
    if (st != 0)
        return fail(k, CL_ST_INTERNAL, "baseline %s refused to run (status %d)",
                    k->base->name(k->base_st, i), st);
    return 0;
}

static int first_base(const struct kase *k)
{
    for (int i = 0; k->base && i < k->base->count && i < 8; i++)
        if (k->base_ok[i])
            return i;
    return -1;
}

/* ---- a call
 * ------------------------------------------------------------------ */

/* what one call measured */
struct shot {
    double span_ms; /* the student's, in the runner */
    double wall_ms; /* the judge's clock around the command */
    double base_ms[8];
    double copy_ms, stream_ms;
    struct cl_trace trace;
};

static double timed_item(int which, struct kase *k, void *ctx)
{
    if (!J.gpu) { /* the CPU lab: its baseline, by the clock */
        double t0 = now_s();
        if (which >= 0)
            base_run(k, which);
        return (now_s() - t0) * 1e3;
    }
    float ms = 0;
    cl_timer_flush_l2(J.timer);
    CUDA_CHECK(cl_gate(CL_GATE_US, J.s));
    CUDA_CHECK(cudaEventRecord(J.e0, J.s));
    if (which >= 0)
        base_run(k, which);
    else {
        const struct hb *src = ctx;
        size_t bytes = (size_t)(k->plan.ceil_bytes / 2);
        if (which == -1)
            CUDA_CHECK(cudaMemcpyAsync(src->mirror, src->ptr, bytes,
                                       cudaMemcpyDeviceToDevice, J.s));
        else
            cl_stream_copy(src->mirror, src->ptr, bytes, J.s);
    }
    CUDA_CHECK(cudaEventRecord(J.e1, J.s));
    CUDA_CHECK(cudaEventSynchronize(J.e1));
    CUDA_CHECK(cudaEventElapsedTime(&ms, J.e0, J.e1));
    return ms;
}

/* what the baseline does on a call */
enum { BASE_IF_PLANNED, BASE_UNTIMED, BASE_TIMED };

/* the judge's half of a call: inputs, poison, baselines (timed or not) */
static int prepare_call(struct kase *k, int call, int mode, struct shot *sh,
                        struct hb *ceil)
{
    struct fill_ctx fc = {k->hb, NULL, &k->plan, k->o->data};
    run_fill(k->lab, k->arg, &k->plan, &fc, call_seed(k, call), call,
             call == 0);
    for (int i = 0; i < k->plan.nbuf; i++) {
        struct hb *b = &k->hb[i];
        enum cl_role role = k->plan.buf[i].role;
        if (role == CL_OUT)
            mem_set(b->ptr, CL_POISON, b->bytes);
        /* what the judge filled, into the runner's buffer */
        if (b->native && (role == CL_IN || (role == CL_STATE && call == 0)))
            mem_copy(b->ptr, b->native, b->bytes);
        if (role == CL_STATE && call == 0 && b->mirror)
            mem_copy(b->mirror, b->native ? b->native : b->ptr, b->bytes);
    }
    if (k->base && k->base->prepare)
        k->base->prepare(k->base_st, call);
    k->base_ran = 0;
    if (k->base && (mode != BASE_IF_PLANNED || k->plan.versus)) {
        for (int i = 0; i < k->base->count && i < 8; i++) {
            if (!k->base_ok[i] || (mode != BASE_TIMED && k->base_ran))
                continue;
            if (mode == BASE_TIMED)
                sh->base_ms[i] = timed_item(i, k, NULL);
            else if (base_run(k, i))
                return 1;
            k->base_ran = 1;
            if (k->has_state)
                break; /* state moves once per call */
        }
    }
    if (mode == BASE_TIMED && J.gpu && ceil && ceil->base) {
        sh->copy_ms = timed_item(-1, k, ceil);
        sh->stream_ms = timed_item(-2, k, ceil);
    }
    if (J.gpu) {
        cl_timer_flush_l2(J.timer);
        /* all of the judge's work, on any stream, done before the call */
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    return 0;
}

/* the check of a call that came back: guards, trace, libraries */
static int after_call(struct kase *k, const struct cl_reply *rep,
                      struct shot *sh, int timing)
{
    if (!rep->ok)
        return fail(k, CL_ST_INTERNAL, "%.400s", rep->why);
    if (rep->cuda_err) {
        char name[64];
        snprintf(name, sizeof name, "%s", rep->err_name);
        return fail(k, CL_ST_CUDA,
                    "CUDA error in your call: %.60s (%.300s): %s", name,
                    rep->why, error_hint(rep->cuda_err));
    }
    sh->span_ms =
        isfinite(rep->span_ms) && rep->span_ms >= 0 ? rep->span_ms : -1;
    sh->trace = rep->trace;
    sh->trace.n = sh->trace.n < 0              ? 0
                  : sh->trace.n > CL_TRACE_MAX ? CL_TRACE_MAX
                                               : sh->trace.n;
    for (int i = 0; i < k->plan.nbuf; i++) {
        struct cl_guard_report g;
        if (!hb_guards(&k->hb[i], &g))
            continue;
        k->r->status = CL_ST_OOB;
        cl_guard_describe(&g, k->plan.buf[i].name, 4, k->r->msg,
                          sizeof k->r->msg);
        return 1;
    }
    if (maps_check(k))
        return 1;
    char why[512];
    enum cl_trace_rule rule = cl_trace_verdict(
        &sh->trace, sh->span_ms, cl_caps_forbidden_prefixes(k->lab->caps), why,
        sizeof why);
    if (rule == CL_TRACE_OFF_STREAM || rule == CL_TRACE_LIBRARY)
        return fail(k, CL_ST_FORBIDDEN, "%s", why);
    if (rule == CL_TRACE_UNTIMED && (timing || k->timing_case)) {
        k->r->status = CL_ST_UNCONFIRMED;
        snprintf(k->r->msg, sizeof k->r->msg, "%s", why);
    }
    return 0;
}

/* the student's outputs against the CPU reference and the baseline */
static int verify_call(struct kase *k, int call, int cpu, const char *when)
{
    int wrong = 0;
    if (cpu && k->lab->check) {
        struct cl_check ck;
        check_init(k, &ck, call, when, k->r);
        wrong = k->lab->check(&ck);
        forget_outputs(k);
        if (wrong && k->base && first_base(k) >= 0) {
            /* is the reference right? the baseline says */
            struct cl_result br = *k->r;
            br.status = CL_ST_PASS;
            struct cl_check bk;
            check_init(k, &bk, call, when, &br);
            k->outputs_from_mirror = 1;
            int base_wrong = k->lab->check(&bk);
            k->outputs_from_mirror = 0;
            forget_outputs(k);
            size_t at = strlen(k->r->msg);
            const char *name = k->base->name(k->base_st, first_base(k));
            if (!base_wrong)
                snprintf(k->r->msg + at, sizeof k->r->msg - at,
                         " (%s%s%s on the same inputs matches the reference)",
                         k->lab->baseline,
                         strcmp(name, k->lab->baseline) ? " " : "",
                         strcmp(name, k->lab->baseline) ? name : "");
        }
        forget_inputs(k);
        if (wrong)
            return 1;
    }
    if (!k->base_ran)
        return 0;
    struct cl_vs v;
    check_init(k, &v.ck, call, when, k->r);
    v.scale = 2.0;
    wrong = k->lab->versus ? k->lab->versus(&v) : cl_vs_default(&v, NULL, NULL);
    forget_outputs(k);
    forget_inputs(k);
    return wrong;
}

/* the baselines' own check against the CPU reference (the check call):
 * the one that ran for the call, and when timing every other one too */
static int verify_baselines(struct kase *k, int call, int timing)
{
    if (!k->base || !k->lab->check || (!timing && !k->plan.versus))
        return 0;
    for (int i = 0; i < k->base->count && i < 8; i++) {
        if (!k->base_ok[i])
            continue;
        if (!k->base_ran || i != first_base(k)) {
            if (k->has_state)
                break; /* the state moved on: the first one stands */
            if (base_run(k, i))
                return 1;
            mem_sync();
        }
        struct cl_result br;
        memset(&br, 0, sizeof br);
        struct cl_check bk;
        check_init(k, &bk, call, "", &br);
        k->outputs_from_mirror = 1;
        int wrong = k->lab->check(&bk);
        k->outputs_from_mirror = 0;
        forget_outputs(k);
        forget_inputs(k);
        if (wrong)
            return fail(k, CL_ST_INTERNAL, "baseline %s is wrong: %.800s",
                        k->base->name(k->base_st, i), br.msg);
        if (!timing)
            break;
    }
    return 0;
}

/* STATE buffers follow the baseline's state into the next call */
static void resync_state(struct kase *k)
{
    for (int i = 0; i < k->plan.nbuf; i++)
        if (k->plan.buf[i].role == CL_STATE && k->hb[i].mirror)
            mem_copy(k->hb[i].ptr, k->hb[i].mirror, k->hb[i].bytes);
    mem_sync();
}

/* one call, start to end: 0 when it passed every check; @p trace
 * records its launches (which slows them: traced calls are not timed) */
static int one_call(struct kase *k, int call, int mode, int cpu_check,
                    int trace, const char *when, struct shot *sh,
                    struct hb *ceil)
{
    static struct cl_call_cmd c;
    static struct cl_reply rep;
    int timing = mode == BASE_TIMED;
    memset(sh, 0, sizeof *sh);
    if (prepare_call(k, call, mode, sh, ceil))
        return 1;
    if (timing) {
        /* one empty frame first: it takes the GPU back from the judge's
         * context, so that the call's own frame is what dry_runs() timed */
        static struct cl_call_cmd d;
        call_cmd(k, &d, call, CL_GATE_US, 0);
        int drc = talk(&k->rn, J_DRY, &d, sizeof d, NULL, 0, R_CALL, &rep,
                       sizeof rep, 30.0);
        if (drc != TALK_OK)
            return runner_lost(k, drc, " (the runner's own frame)");
    }
    call_cmd(k, &c, call, CL_GATE_US, trace);
    int rc = talk(&k->rn, J_CALL, &c, sizeof c, NULL, 0, R_CALL, &rep,
                  sizeof rep, k->limit_s);
    sh->wall_ms = k->rn.wall_ms; /* and its work after the reply */
    if (rc != TALK_OK)
        return runner_lost(k, rc, "");
    if (after_call(k, &rep, sh, timing))
        return 1;
    if (verify_call(k, call, cpu_check, when))
        return 1;
    if (k->has_state)
        resync_state(k);
    return 0;
}

/* ---- timing ----------------------------------------------------------------
 */

struct series {
    double *v;
    int n, cap;
};

static void push(struct series *s, double x)
{
    if (x > 0 && s->n < s->cap)
        s->v[s->n++] = x;
}

static double median_of(const struct series *s)
{
    struct cl_stats st;
    return cl_stats_compute(s->v, s->n, &st) == 0 ? st.median : 0;
}

static double quantile_of(struct series *s, double q)
{
    if (!s->n)
        return 0;
    double *v = cl_xmalloc((size_t)s->n * sizeof *v);
    memcpy(v, s->v, (size_t)s->n * sizeof *v);
    for (int i = 1; i < s->n; i++) /* insertion sort: a few hundred */
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    double x = cl_quantile_sorted(v, s->n, q);
    free(v);
    return x;
}

static int stable(const struct series *s)
{
    return s->n < MIN_SAMPLES || cl_stats_stable(s->v, s->n, STABLE_REL);
}

static void describe_baselines(struct kase *k, struct series *bs, int best)
{
    if (!k->base || k->base->count < 2)
        return;
    int len = snprintf(k->r->msg, sizeof k->r->msg, "%s:", k->lab->baseline);
    for (int i = 0; i < k->base->count && i < 8; i++) {
        const char *name = k->base->name(k->base_st, i);
        if (k->base_ok[i])
            len += snprintf(k->r->msg + len, sizeof k->r->msg - len,
                            " %s %.4f ms%s;", name, median_of(&bs[i]),
                            i == best ? " (best)" : "");
        else
            len += snprintf(k->r->msg + len, sizeof k->r->msg - len,
                            " %s unsupported;", name);
        if (len >= (int)sizeof k->r->msg)
            break;
    }
    if (len > 0 && len < (int)sizeof k->r->msg && k->r->msg[len - 1] == ';')
        k->r->msg[len - 1] = '\0';
}

static void time_case(struct kase *k)
{
    struct cl_result *r = k->r;
    struct hb ceil;
    memset(&ceil, 0, sizeof ceil);
    if (k->plan.ceil_bytes > 0 && J.gpu) {
        size_t bytes = (size_t)(k->plan.ceil_bytes / 2);
        CUDA_CHECK(cudaMalloc((void **)&ceil.base, bytes));
        CUDA_CHECK(cudaMemsetAsync(ceil.base, 1, bytes, J.s));
        ceil.ptr = ceil.base;
        ceil.mirror = mirror_alloc(bytes);
    }
    /* every call of the loop below pushes its baselines and ceilings, the
     * traced ones too: room for all of them */
    int cap = MAX_SAMPLES + TRACE_SPOTS;
    struct series stu = {cl_xcalloc(cap, sizeof(double)), 0, cap};
    struct series un = {cl_xcalloc(cap, sizeof(double)), 0, cap};
    struct series cp = {cl_xcalloc(cap, sizeof(double)), 0, cap};
    struct series sc = {cl_xcalloc(cap, sizeof(double)), 0, cap};
    struct series bs[8];
    for (int i = 0; i < 8; i++)
        bs[i] = (struct series){cl_xcalloc(cap, sizeof(double)), 0, cap};
    int call = k->plan.check_calls;
    struct shot sh;
    /* warm-ups: checked like every call, not timed */
    for (int w = 0; w < WARMUPS; w++, call++)
        if (one_call(k, call, BASE_UNTIMED, 0, 1, "during warm-up: ", &sh,
                     NULL))
            goto out;
    int spots_left = SPOT_CHECKS, traces_left = TRACE_SPOTS, untimed = 0;
    double total = 0;
    uint64_t dice = private_random();
    for (int n = 0; n < MAX_SAMPLES + TRACE_SPOTS; n++, call++) {
        dice = cl_mix64(dice + (uint64_t)n);
        int spot = spots_left > 0 && (dice % 6 == 0 || n == MIN_SAMPLES - 1);
        int traced = traces_left > 0 && n > 0 &&
                     ((dice >> 8) % 5 == 0 || n == MIN_SAMPLES + 1);
        spots_left -= spot;
        traces_left -= traced;
        if (one_call(k, call, BASE_TIMED, spot && !k->has_state, traced,
                     "after timing: ", &sh, &ceil))
            goto out;
        if (r->status == CL_ST_UNCONFIRMED)
            untimed = 1;
        for (int i = 0; i < 8; i++)
            push(&bs[i], sh.base_ms[i]);
        push(&cp, sh.copy_ms);
        push(&sc, sh.stream_ms);
        if (traced) { /* its launches were slowed by the trace */
            r->trace = sh.trace;
            continue;
        }
        push(&stu, sh.span_ms);
        if (un.n < un.cap)
            un.v[un.n++] = sh.wall_ms - k->dry_ms - sh.span_ms;
        total += sh.span_ms + sh.base_ms[0];
        int settled = stu.n >= MIN_SAMPLES && stable(&stu) && !traces_left;
        for (int i = 0; i < 8 && settled; i++)
            settled = stable(&bs[i]);
        if (settled || total > MAX_TOTAL_MS || stu.n >= MAX_SAMPLES)
            break;
    }
    /* the figures */
    struct cl_stats st;
    cl_stats_compute(stu.v, stu.n, &st);
    r->timed = stu.n > 0;
    r->samples = stu.n;
    r->t_ms = st.median;
    r->t_spread = st.spread;
    r->work = k->plan.work;
    int best = -1;
    for (int i = 0; i < 8; i++)
        if (bs[i].n && (best < 0 || median_of(&bs[i]) < median_of(&bs[best])))
            best = i;
    r->base_ms = best >= 0 ? median_of(&bs[best]) : 0;
    double c1 = median_of(&cp), c2 = median_of(&sc);
    r->ceil_ms = c1 > 0 && (c2 <= 0 || c1 < c2) ? c1 : c2;
    r->ceil_work = r->ceil_ms > 0 ? k->plan.ceil_bytes : 0;
    r->unexplained_ms = quantile_of(&un, 0.25);
    if (r->status == CL_ST_PASS)
        describe_baselines(k, bs, best);
    /* the student's time, confirmed by the judge's own clock */
    if (r->status == CL_ST_PASS && !k->o->tool_mode &&
        r->unexplained_ms > ALLOW_ABS_MS &&
        r->unexplained_ms > ALLOW_REL * r->t_ms) {
        r->status = CL_ST_UNCONFIRMED;
        snprintf(r->msg, sizeof r->msg,
                 "the time could not be confirmed: the grader's own clock "
                 "saw %.4f ms per call that the timed window does not "
                 "account for (work left running after your function "
                 "returned?)",
                 r->unexplained_ms);
    }
    if (untimed && r->status == CL_ST_PASS)
        r->status = CL_ST_UNCONFIRMED;
    if (k->o->gpu && r->status == CL_ST_PASS && r->t_ms > 0) {
        double floor = cl_floor_ms(k->lab->metric, r->work, k->o->gpu);
        if (floor > 0 && r->t_ms < floor) {
            r->status = CL_ST_TOO_FAST;
            snprintf(r->msg, sizeof r->msg,
                     "measured %.4f ms, below the physical floor of %.4f ms "
                     "for this much work: the timing is not trustworthy",
                     r->t_ms, floor);
        }
    }
out:
    free(stu.v);
    free(un.v);
    free(cp.v);
    free(sc.v);
    for (int i = 0; i < 8; i++)
        free(bs[i].v);
    if (ceil.base && !k->device_broken) {
        CUDA_CHECK(cudaFree(ceil.base));
        CUDA_CHECK(cudaFree(ceil.mirror));
    }
}

/* ---- the case
 * ---------------------------------------------------------------- */

static void finish_runner(struct kase *k)
{
    if (k->rn.pid > 0 && !k->runner_dead)
        cl_msg_send(k->rn.sock, J_EXIT, ++k->rn.seq, NULL, 0, NULL, 0);
    /* nothing of it may outlive the case: its whole session goes */
    runner_reap(&k->rn, 1, NULL, 0, NULL);
}

void cl_case_run(const struct cl_lab *lab, int index,
                 const struct cl_case_opts *o, struct cl_result *r)
{
    static struct kase k;
    memset(&k, 0, sizeof k);
    memset(r, 0, sizeof *r);
    r->index = index;
    r->status = CL_ST_PASS;
    k.lab = lab;
    k.index = index;
    k.c = &lab->cases[index];
    k.o = o;
    k.r = r;
    k.limit_s = o->limit_s;
    k.base = lab->base;
    k.salt = private_random();
    k.rn.pid = 0;
    k.rn.sock = k.rn.out = -1;
    if (lab->arg_size > CL_ARG_MAX) {
        fail(&k, CL_ST_INTERNAL, "case struct too large");
        return;
    }
    memcpy(k.arg, k.c->arg, lab->arg_size);
    if (lab->bind_data && o->data)
        lab->bind_data(o->data, k.arg);
    if (lab->plan(k.arg, &k.plan) != 0) {
        fail(&k, CL_ST_INTERNAL, "no plan for case %s", k.c->name);
        return;
    }
    if (k.plan.check_calls < 1)
        k.plan.check_calls = 1;
    if (k.plan.nobase)
        k.base = NULL;
    for (int i = 0; i < k.plan.nbuf; i++) {
        k.has_state |= k.plan.buf[i].role == CL_STATE;
        if (k.plan.buf[i].ask)
            continue;
        if (J.gpu) /* the runner allocates it, once it is up */
            hb_size(&k.hb[i], k.plan.buf[i].count * 4, k.plan.buf[i].offset);
        else
            hb_alloc(&k.hb[i], k.plan.buf[i].count * 4, k.plan.buf[i].offset);
    }
    mem_sync();
    int timing = o->timing && !o->profile;
    k.timing_case = timing;
    int ok = !start_runner(&k) &&
             !(J.gpu ? alloc_buffers(&k, 0) : map_buffers(&k)) &&
             !dry_runs(&k) && !load_submission(&k) && !ask_workspace(&k) &&
             !base_create(&k);
    struct shot sh;
    memset(&sh, 0, sizeof sh);
    for (int call = 0; ok && call < k.plan.check_calls; call++) {
        int last = call == k.plan.check_calls - 1;
        ok = !one_call(&k, call, BASE_IF_PLANNED, last, 1, "", &sh, NULL);
        if (ok && last)
            ok = !verify_baselines(&k, call, timing);
    }
    r->trace = sh.trace;
    if (ok && lab->finish) {
        struct cl_check ck;
        check_init(&k, &ck, k.plan.check_calls - 1, "", r);
        ok = !lab->finish(&ck);
        forget_outputs(&k);
        forget_inputs(&k);
    }
    if (ok && timing)
        time_case(&k);
    /* the runner's buffers unmapped here before it goes */
    for (int i = 0; i < k.plan.nbuf; i++)
        if (k.hb[i].imported) {
            cudaIpcCloseMemHandle(k.hb[i].base);
            k.hb[i].imported = 0;
        }
    finish_runner(&k);
    if (k.base_st)
        k.base->destroy(k.base_st);
    for (int i = 0; i < k.plan.nbuf; i++)
        hb_free(&k.hb[i], !k.device_broken);
    forget_outputs(&k);
    forget_inputs(&k);
    if (J.gpu) {
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            r->restart = 1; /* the judge's own context is gone */
            if (r->status == CL_ST_PASS)
                fail(&k, CL_ST_INTERNAL, "the grader's GPU context failed: %s",
                     cudaGetErrorString(e));
        }
    }
}
