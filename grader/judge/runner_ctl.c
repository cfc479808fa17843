/* runner_ctl.c: the judge's control of a runner process (runner_ctl.h). */
#define _GNU_SOURCE
#include "judge/runner_ctl.h"

#include "fileio.h"
#include "judge/device.h"
#include "now.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define OUTPUT_CAP 65536 /* bytes of the runner's output relayed */

/* the runner's output, to our stderr: at most OUTPUT_CAP bytes of it, each
 * line marked as the submission's (so that no line of it passes for the
 * grader's in a log of both streams), control characters (terminal
 * escapes that could erase or redraw the grader's report) shown as '?';
 * a bounded amount per call, so that a runner that writes without end
 * cannot keep the judge from its clock */
#define RELAY_MARK "[your code] "

static void relay_out(struct cl_runner *rn, const char *buf, size_t n)
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
    struct cl_runner *rn = ctx;
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

/* the environment a runner gets: nothing but what CUDA and the ladders
 * and their knobs need (docs/grading.md), and the load guard (LD_AUDIT
 * names @p audit, grader/runner/audit.c) unless a census runs; in tool
 * mode, all of ours (a profiler's injection must reach it) */
static char **runner_env(int tool, int census, const char *audit)
{
    static char *env[64];
    static char ld_audit[4300];
    int n = 0;
    if (tool)
        return environ;
    static const char *const keep[] = {
        "CUDA_VISIBLE_DEVICES=", "CUDA_DEVICE_ORDER=", "LD_LIBRARY_PATH=",
        /* a sanitizer build (make SANITIZE=1) of the runner */
        "ASAN_OPTIONS=", "UBSAN_OPTIONS=", NULL};
    for (char **e = environ; *e && n < 56; e++) {
        int ok = 0;
        for (const char *const *k = keep; *k; k++)
            ok |= strncmp(*e, *k, strlen(*k)) == 0;
        /* a ladder, VAR_KERNEL=k, and a knob of a kernel, VAR_KERNEL_X=v */
        const char *eq = strchr(*e, '=');
        if (eq && eq - *e > 7 && strncmp(eq - 7, "_KERNEL", 7) == 0)
            ok = 1;
        const char *in = eq ? strstr(*e, "_KERNEL_") : NULL;
        if (in && in > *e && in + 8 < eq)
            ok = 1;
        if (ok)
            env[n++] = *e;
    }
    if (!census) {
        snprintf(ld_audit, sizeof ld_audit, "LD_AUDIT=%s", audit);
        env[n++] = ld_audit;
    }
    env[n++] = "PATH=/usr/bin:/bin";
    env[n++] = "HOME=/nonexistent";
    env[n++] = "CUDA_CACHE_DISABLE=1";
    env[n] = NULL;
    return env;
}

/* the user and group a root judge runs the runner as: "nobody", or 65534
 * where there is no such user */
static void default_user(uid_t *uid, gid_t *gid)
{
    struct passwd *pw = getpwnam("nobody");
    *uid = pw ? pw->pw_uid : 65534;
    *gid = pw ? pw->pw_gid : 65534;
}

/* may the judge await a reply awake (await_awake())? Only with a CPU for
 * it and another for the runner: confined to one (taskset, a one-CPU
 * Slurm job or container), a judge that polls takes the CPU the runner
 * needs to reply, and an honest call is clocked milliseconds late (an
 * H100 host, 2026-11-26: Lab 2's reference at 2.8 ms for 0.2 ms of
 * events, 1.2 of 15 points) */
static int cpus_for_two(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    return sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) >= 2;
}

int cl_runner_spawn(struct cl_runner *rn, const struct cl_runner_spec *sp,
                    char *why, size_t len)
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
    if (sp->exe)
        snprintf(exe, exe_len, "%s", sp->exe);
    else {
        /* beside us (build/bin), or beside the test programs' bin */
        if (!cl_self_dir(dir, sizeof dir))
            snprintf(dir, sizeof dir, ".");
        snprintf(exe, exe_len, "%s/cl-runner", dir);
        if (access(exe, X_OK) != 0)
            snprintf(exe, exe_len, "%s/../bin/cl-runner", dir);
    }
    /* the load guard, beside the runner */
    char audit[sizeof rn->exe + 16];
    snprintf(audit, sizeof audit, "%s", exe);
    char *slash = strrchr(audit, '/');
    snprintf(slash ? slash + 1 : audit,
             sizeof audit - (size_t)(slash ? slash + 1 - audit : 0),
             "cl-audit.so");
    char uid[16], gid[16], cpu[32];
    uid_t u;
    gid_t g;
    default_user(&u, &g);
    snprintf(uid, sizeof uid, "%u", (unsigned)u);
    snprintf(gid, sizeof gid, "%u", (unsigned)g);
    snprintf(cpu, sizeof cpu, "%.0f", 2 * sp->limit_s + 60);
    char *argv[24];
    int a = 0;
    argv[a++] = exe;
    argv[a++] = (char *)sp->lab_id;
    if (geteuid() == 0) {
        argv[a++] = "--uid";
        argv[a++] = uid;
        argv[a++] = "--gid";
        argv[a++] = gid;
    }
    argv[a++] = "--cpu-s";
    argv[a++] = cpu;
    if (sp->tool_mode)
        argv[a++] = "--tool";
    if (sp->census)
        argv[a++] = "--census";
    if (sp->no_trace)
        argv[a++] = "--no-trace";
    /* the runner's own mount namespace is on unless CL_RUNNER_JAIL=0 (a
     * host whose driver will not start inside one: docs/grading.md) */
    const char *jail = getenv("CL_RUNNER_JAIL");
    if (jail && !strcmp(jail, "1"))
        argv[a++] = "--jail";
    else if (jail && !strcmp(jail, "0"))
        argv[a++] = "--no-jail";
    const char *forge = getenv("CL_TEST_FORGE_SPAN");
    if (forge && sp->cpu_lab) { /* the self-test of the clock check */
        argv[a++] = "--test-forge-span";
        argv[a++] = (char *)forge;
    }
    const char *fuzz = getenv("CL_TEST_FUZZ");
    if (fuzz && sp->cpu_lab) { /* the self-test of the judge's side */
        argv[a++] = "--test-fuzz";
        argv[a++] = (char *)fuzz;
    }
    argv[a] = NULL;

    /* the sources above every target, so that no dup2 clobbers another */
    int src_out = fcntl(out[1], F_DUPFD_CLOEXEC, 16);
    int src_sock = fcntl(sv[1], F_DUPFD_CLOEXEC, 16);
    int src_sub = fcntl(sp->submission_fd, F_DUPFD_CLOEXEC, 16);
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
    int rc = posix_spawn(&rn->pid, exe, &fa, &at, argv,
                         runner_env(sp->tool_mode, sp->census, audit));
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
    rn->pausable = !sp->tool_mode; /* a tool's process is not the runner */
    rn->spin = !sp->cpu_lab && !sp->tool_mode && cpus_for_two();
    rn->nrefs = -1;
    if (clock_getcpuclockid(rn->pid, &rn->cpu) != 0)
        rn->cpu = (clockid_t)-1;
    fcntl(rn->out, F_SETFL, O_NONBLOCK);
    return 0;
}

int cl_runner_hello(struct cl_runner *rn, double timeout_s)
{
    uint32_t t = 0, l = 0;
    int rc = cl_msg_recv(rn->sock, &t, NULL, &rn->hello, sizeof rn->hello, &l,
                         NULL, 0, NULL, timeout_s, rn->out, relay, rn);
    if (rc == 2)
        return TALK_TIMEOUT;
    if (rc == 1)
        return TALK_EOF;
    if (rc != 0 || t != R_HELLO || l != sizeof rn->hello)
        return TALK_BAD;
    cl_runner_clean(rn->hello.why, sizeof rn->hello.why);
    cl_runner_clean(rn->hello.sandbox, sizeof rn->hello.sandbox);
    return TALK_OK;
}

/* Between commands the runner is stopped (SIGSTOP; its sandbox forbids it
 * SIGCONT), from the moment its reply is read until the next command is
 * sent: nothing of the submission runs while the judge fills inputs,
 * poisons outputs, times the baseline or reads the results. A thread that
 * finishes the work after the reply, competes with the judge's timing or
 * watches the next inputs arrive is frozen with everything else. 0 when
 * stopped (or it ended: then its status is kept for runner_reap), -1 when
 * it would not stop in time. */
int cl_runner_pause(struct cl_runner *rn)
{
    if (!rn->pausable || rn->paused || rn->gone || rn->pid <= 0)
        return 0;
    if (kill(rn->pid, SIGSTOP) != 0)
        return 0; /* already gone: the next step says why */
    double t0 = cl_now_s(), deadline = t0 + CL_PAUSE_WAIT_S;
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
        double t = cl_now_s();
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
double cl_runner_cpu_ms(const struct cl_runner *rn)
{
    struct timespec ts;
    if (rn->cpu == (clockid_t)-1 || rn->gone || clock_gettime(rn->cpu, &ts))
        return 0;
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

void cl_runner_resume(struct cl_runner *rn)
{
    if (rn->paused && !rn->gone && rn->pid > 0)
        kill(rn->pid, SIGCONT);
    rn->paused = 0;
}

/* how the runner ended, in a sentence; sets *sigsys for the sandbox */
void cl_runner_reap(struct cl_runner *rn, int force, char *why, size_t len,
                    int *sigsys)
{
    if (sigsys)
        *sigsys = 0;
    if (rn->pid <= 0)
        return;
    if (force)
        kill(-rn->pid, SIGKILL); /* its whole session: nothing outlives it */
    int st = rn->st;             /* when cl_runner_pause() reaped it already */
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
    if (rn->trapped) {
        if (sigsys)
            *sigsys = 1;
        char *name = seccomp_syscall_resolve_num_arch(rn->sig.arch, rn->sig.nr);
        snprintf(why, len,
                 "the sandbox stopped your code: it made the system call "
                 "%s (number %d), which a lab submission may not make "
                 "(starting processes, other processes, sockets, files, "
                 "executable memory: docs/grading.md lists what may run)",
                 name ? name : "?", (int)rn->sig.nr);
        free(name);
        return;
    }
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

/* one command and its reply; what the reply says is checked by the caller.
 * The runner runs from the command until it is paused after its reply
 * (cl_runner_pause()). rn->wall_ms is the judge's time from sending the
 * command to reading the reply, plus the CPU time the runner used from
 * then until it stopped: work that goes on after the reply (a thread
 * finishing the call's work) counts where the clock check sees it, and
 * the wait for a busy machine to run the stop does not */
/* text from the runner, made fit for a terminal, results.json and a
 * gradebook cell: ended, and every byte that is not printable ASCII (an
 * escape sequence, a newline that would start a fake report line) shown
 * as '?' */
void cl_runner_clean(char *s, size_t cap)
{
    if (!cap)
        return;
    s[cap - 1] = '\0';
    for (size_t i = 0; s[i]; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
            s[i] = '?';
}

/* after the reply and the pause: a message still waiting was written by
 * something else in the runner (a forged reply), unless it is its SIGSYS
 * handler's last word */
static int extra_message(struct cl_runner *rn, void *reply, uint32_t cap)
{
    char c;
    if (recv(rn->sock, &c, 1, MSG_PEEK | MSG_DONTWAIT) <= 0)
        return TALK_OK;
    uint32_t t = 0, l = 0;
    if (cl_msg_recv(rn->sock, &t, NULL, reply, cap, &l, NULL, 0, NULL, 0.001,
                    -1, NULL, NULL) == 0 &&
        t == R_SIGSYS && l == sizeof rn->sig && cap >= sizeof rn->sig) {
        memcpy(&rn->sig, reply, sizeof rn->sig);
        rn->trapped = 1;
        return TALK_EOF;
    }
    return TALK_BAD;
}

/* The wait for a clocked reply, awake: the judge polls without sleeping
 * for up to SPIN_S, so that how long it waited does not change how long
 * it takes to notice the reply (a core that slept through a long call
 * wakes later than one that slept through a short frame: tens of
 * microseconds on the H100 host). The runner's output is relayed as it
 * comes. The reply itself is then read as any other. */
#define SPIN_S 0.25
static void await_awake(struct cl_runner *rn, double t0)
{
    while (cl_now_s() - t0 < SPIN_S) {
        struct pollfd pf[2] = {{rn->sock, POLLIN, 0}, {rn->out, POLLIN, 0}};
        if (poll(pf, rn->out >= 0 ? 2 : 1, 0) < 0 && errno != EINTR)
            return;
        if (rn->out >= 0 && (pf[1].revents & (POLLIN | POLLHUP)))
            relay(rn->out, rn);
        if (pf[0].revents)
            return;
    }
}

static int talk(struct cl_runner *rn, uint32_t type, const void *p,
                uint32_t len, const int *fds, int nfds, uint32_t want,
                void *reply, uint32_t reply_len, double timeout_s,
                void (*on_reply)(void *ctx), void *ctx)
{
    uint32_t seq = ++rn->seq;
    cl_runner_resume(rn);
    double t0 = cl_now_s();
    rn->wall_ms = rn->reply_ms = rn->late_ms = 0;
    if (cl_msg_send(rn->sock, type, seq, p, len, fds, nfds) != 0)
        return TALK_EOF;
    uint32_t t = 0, s = 0, l = 0;
    if (on_reply && rn->spin)
        await_awake(rn, t0);
    int rc = cl_msg_recv(rn->sock, &t, &s, reply, reply_len, &l, NULL, 0, NULL,
                         timeout_s, rn->out, relay, rn);
    rn->reply_ms = (cl_now_s() - t0) * 1e3;
    if (rc == 0 && on_reply && t == want)
        on_reply(ctx); /* the judge's check of the output stops its clock */
    double replied = cl_now_s(), cpu = rc == 0 ? cl_runner_cpu_ms(rn) : 0;
    if (rc == 0 && cl_runner_pause(rn) != 0)
        return TALK_NO_PAUSE;
    double late = rc == 0 ? cl_runner_cpu_ms(rn) - cpu : 0;
    rn->late_ms = late > 0 ? late : 0;
    rn->wall_ms = (replied - t0) * 1e3 + rn->late_ms;
    if (rc == 1)
        return TALK_EOF;
    if (rc == 2)
        return TALK_TIMEOUT;
    if (rc == 0 && t == R_SIGSYS && l == sizeof rn->sig &&
        reply_len >= sizeof rn->sig) {
        memcpy(&rn->sig, reply, sizeof rn->sig); /* then it kills itself */
        rn->trapped = 1;
        return TALK_EOF;
    }
    /* the runner answers every command once, in order: a reply to another
     * command (stale or forged) was written by something else in its
     * process, and so is a malformed one */
    if (rc != 0 || t != want || l != reply_len || s != seq)
        return TALK_BAD;
    if (reply_len == sizeof(struct cl_reply)) { /* its text, made safe */
        struct cl_reply *r = reply;
        cl_runner_clean(r->why, sizeof r->why);
        cl_runner_clean(r->err_name, sizeof r->err_name);
    }
    return extra_message(rn, reply, reply_len);
}

int cl_runner_talk_clocked(struct cl_runner *rn, uint32_t type, const void *p,
                           uint32_t len, uint32_t want, void *reply,
                           uint32_t reply_len, double timeout_s,
                           void (*on_reply)(void *ctx), void *ctx)
{
    return talk(rn, type, p, len, NULL, 0, want, reply, reply_len, timeout_s,
                on_reply, ctx);
}

int cl_runner_talk(struct cl_runner *rn, uint32_t type, const void *p,
                   uint32_t len, const int *fds, int nfds, uint32_t want,
                   void *reply, uint32_t reply_len, double timeout_s)
{
    return talk(rn, type, p, len, fds, nfds, want, reply, reply_len, timeout_s,
                NULL, NULL);
}

/* The grader's own references, beside the runner (build/bin/cl-runner):
 * the reference builds (build/solution, the fixtures, lab 00's
 * build/selftest) and sources (solutions/). The runner's user may be able
 * to read them, and while loading a submission may map files: one of
 * these mapped into the runner is the course's code doing the work. 1 when
 * @p file lies in one of them. */
static int grader_file(struct cl_runner *rn, const char *file)
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

int cl_runner_maps(struct cl_runner *rn, const struct cl_caps *caps, char *hit,
                   size_t len)
{
    if (rn->pid <= 0)
        return CL_MAPS_CLEAN;
    char path[64], line[4400];
    int found = CL_MAPS_CLEAN;
    snprintf(path, sizeof path, "/proc/%d/maps", (int)rn->pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return CL_MAPS_CLEAN; /* gone: the next step says why */
    while (found == CL_MAPS_CLEAN && fgets(line, sizeof line, f)) {
        const char *file = strchr(line, '/');
        if (!file)
            continue;
        line[strcspn(line, "\n")] = '\0';
        const char *base = strrchr(file, '/') + 1;
        if (caps && cl_caps_library_forbidden(caps, base)) {
            snprintf(hit, len, "%s", base);
            found = CL_MAPS_LIBRARY;
        } else if (grader_file(rn, file)) {
            snprintf(hit, len, "%.500s", file);
            found = CL_MAPS_OWN;
        }
    }
    fclose(f);
    return found;
}
