/* sandbox.c: the runner narrows itself (user, limits, seccomp). */
#define _GNU_SOURCE
#include "runner/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#define FILE_LIMIT (1u << 20) /* bytes any file may grow to */
#define PROC_LIMIT 512        /* processes and threads of the user */

static void add_note(char *note, size_t len, const char *what)
{
    size_t used = strlen(note);
    if (used < len)
        snprintf(note + used, len - used, "%s%s", used ? "; " : "", what);
}

static int set_limit(int res, rlim_t v)
{
    struct rlimit r = {v, v};
    return setrlimit(res, &r);
}

int cl_sandbox_enter(const struct cl_sandbox_opts *o, pid_t judge, char *note,
                     size_t len)
{
    int bits = 0;
    if (len)
        note[0] = '\0';
    if (getsid(0) == getpid())
        bits |= CL_SBX_SESSION;
    else
        add_note(note, len, "no session of its own");
    if (!o->enabled) {
        add_note(note, len, "tool mode: sandbox off");
        return bits;
    }
    /* if memory runs out, this process goes first, not the judge (as
     * root, before the user change makes /proc/self root's) */
    int oom = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (oom < 0 || write(oom, "1000", 4) != 4)
        add_note(note, len, "no OOM priority");
    if (oom >= 0)
        close(oom);
    /* the judge spawned it with an emptied environment; relative paths
     * resolve from the root, not from the grader's directory */
    if (chdir("/") == 0)
        bits |= CL_SBX_ENV;
    else
        add_note(note, len, "could not leave the grader's directory");
    if (geteuid() == 0) {
        if (setgroups(0, NULL) == 0 && setgid(o->gid) == 0 &&
            setuid(o->uid) == 0 && setuid(0) != 0)
            bits |= CL_SBX_USER;
        else
            add_note(note, len, "could not drop root");
    }
    rlim_t cpu = o->cpu_s > 1 ? (rlim_t)o->cpu_s : 1;
    if (set_limit(RLIMIT_CPU, cpu) == 0 &&
        set_limit(RLIMIT_FSIZE, FILE_LIMIT) == 0 &&
        set_limit(RLIMIT_CORE, 0) == 0 &&
        (!(bits & CL_SBX_USER) || set_limit(RLIMIT_NPROC, PROC_LIMIT) == 0) &&
        (!o->as_bytes || set_limit(RLIMIT_AS, (rlim_t)o->as_bytes) == 0))
        bits |= CL_SBX_LIMITS;
    else
        add_note(note, len, "resource limits refused");
    /* die with the judge; set after the user change, which clears it */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == 0 && getppid() == judge)
        bits |= CL_SBX_PDEATH;
    else
        add_note(note, len, "no parent-death signal");
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        add_note(note, len, "no-new-privileges refused");
    return bits;
}

/* add a rule; a system call this architecture lacks is no error */
static int rule(scmp_filter_ctx f, uint32_t action, int nr, unsigned n,
                const struct scmp_arg_cmp *cmp)
{
    if (nr < 0)
        return 0; /* not on this architecture */
    int rc = seccomp_rule_add_array(f, action, nr, n, cmp);
    return rc == -EDOM || rc == -EOPNOTSUPP ? 0 : rc;
}

/* the same rule for every call of a list */
static int rule_each(scmp_filter_ctx f, uint32_t action, const int *nrs,
                     size_t count, unsigned n, const struct scmp_arg_cmp *cmp)
{
    int rc = 0;
    for (size_t i = 0; i < count; i++)
        rc |= rule(f, action, nrs[i], n, cmp);
    return rc;
}
#define RULE_EACH(f, action, list, n, cmp)                                     \
    rule_each(f, action, list, sizeof list / sizeof list[0], n, cmp)

#define KILL   SCMP_ACT_KILL_PROCESS
#define REFUSE SCMP_ACT_ERRNO(EACCES)

/* System V IPC and POSIX message queues: objects that outlive the process
 * (state left for a later run, or for another student's runner in a
 * batch), and shmat(SHM_EXEC) maps anonymous memory executable; with them
 * perf_event_open (the machine's counters, a side channel) and kcmp.
 * Killed in the CPU lab only: the CUDA runtime imports shmget and shmat,
 * and no GPU run has yet shown that a GPU runner (its CUDA driver
 * included) never needs any of them (docs/grading.md, threat model) */
static int no_ipc(scmp_filter_ctx f)
{
    static const int ipc[] = {
        SCMP_SYS(perf_event_open), SCMP_SYS(kcmp),
        SCMP_SYS(shmget),          SCMP_SYS(shmat),
        SCMP_SYS(shmctl),          SCMP_SYS(shmdt),
        SCMP_SYS(msgget),          SCMP_SYS(msgsnd),
        SCMP_SYS(msgrcv),          SCMP_SYS(msgctl),
        SCMP_SYS(semget),          SCMP_SYS(semop),
        SCMP_SYS(semtimedop),      SCMP_SYS(semctl),
        SCMP_SYS(mq_open),         SCMP_SYS(mq_unlink),
        SCMP_SYS(mq_timedsend),    SCMP_SYS(mq_timedreceive),
        SCMP_SYS(mq_notify),       SCMP_SYS(mq_getsetattr)};
    return RULE_EACH(f, KILL, ipc, 0, NULL);
}

static int stage1(scmp_filter_ctx f)
{
    static const int kill_always[] = {
        SCMP_SYS(execve),
        SCMP_SYS(execveat),
        SCMP_SYS(fork),
        SCMP_SYS(vfork),
        SCMP_SYS(ptrace),
        SCMP_SYS(process_vm_readv),
        SCMP_SYS(process_vm_writev),
        SCMP_SYS(tkill),
        SCMP_SYS(pidfd_open),
        SCMP_SYS(pidfd_send_signal),
        SCMP_SYS(pidfd_getfd),
        SCMP_SYS(setsid),
        SCMP_SYS(setpgid),
        SCMP_SYS(socket),
        SCMP_SYS(socketpair),
        SCMP_SYS(connect),
        SCMP_SYS(bind),
        SCMP_SYS(listen),
        SCMP_SYS(memfd_create),
        SCMP_SYS(pkey_mprotect),
        SCMP_SYS(io_uring_setup),
        SCMP_SYS(io_uring_enter),
        SCMP_SYS(io_uring_register),
        SCMP_SYS(userfaultfd),
        SCMP_SYS(bpf),
        SCMP_SYS(unshare),
        SCMP_SYS(setns),
        SCMP_SYS(mount),
        SCMP_SYS(umount2),
        SCMP_SYS(pivot_root),
        SCMP_SYS(chroot),
        SCMP_SYS(kexec_load),
        SCMP_SYS(kexec_file_load),
        SCMP_SYS(init_module),
        SCMP_SYS(finit_module),
        SCMP_SYS(delete_module),
        SCMP_SYS(reboot),
        SCMP_SYS(swapon),
        SCMP_SYS(swapoff),
        SCMP_SYS(acct),
        SCMP_SYS(keyctl),
        SCMP_SYS(add_key),
        SCMP_SYS(request_key),
        SCMP_SYS(personality),
        SCMP_SYS(name_to_handle_at),
        SCMP_SYS(open_by_handle_at),
        SCMP_SYS(settimeofday),
        SCMP_SYS(clock_settime),
        SCMP_SYS(adjtimex),
        SCMP_SYS(sethostname),
        SCMP_SYS(setdomainname),
        /* other processes, the kernel, the hardware */
        SCMP_SYS(process_madvise),
        SCMP_SYS(process_mrelease),
        SCMP_SYS(fanotify_init),
        SCMP_SYS(syslog),
        SCMP_SYS(quotactl),
        SCMP_SYS(vhangup),
        SCMP_SYS(ioperm),
        SCMP_SYS(iopl),
        SCMP_SYS(modify_ldt),
        SCMP_SYS(uselib),
    };
    static const int refuse_always[] = {
        SCMP_SYS(creat),     SCMP_SYS(unlink),    SCMP_SYS(unlinkat),
        SCMP_SYS(rename),    SCMP_SYS(renameat),  SCMP_SYS(renameat2),
        SCMP_SYS(mkdir),     SCMP_SYS(mkdirat),   SCMP_SYS(rmdir),
        SCMP_SYS(link),      SCMP_SYS(linkat),    SCMP_SYS(symlink),
        SCMP_SYS(symlinkat), SCMP_SYS(chmod),     SCMP_SYS(fchmod),
        SCMP_SYS(fchmodat),  SCMP_SYS(chown),     SCMP_SYS(fchown),
        SCMP_SYS(lchown),    SCMP_SYS(fchownat),  SCMP_SYS(truncate),
        SCMP_SYS(ftruncate), SCMP_SYS(mknod),     SCMP_SYS(mknodat),
        SCMP_SYS(utime),     SCMP_SYS(utimes),    SCMP_SYS(utimensat),
        SCMP_SYS(futimesat), SCMP_SYS(chdir),     SCMP_SYS(fchdir),
        SCMP_SYS(setuid),    SCMP_SYS(setgid),    SCMP_SYS(setreuid),
        SCMP_SYS(setregid),  SCMP_SYS(setresuid), SCMP_SYS(setresgid),
        SCMP_SYS(setgroups), SCMP_SYS(setfsuid),  SCMP_SYS(setfsgid),
        SCMP_SYS(setrlimit),
    };
    pid_t me = getpid();
    int rc = 0;
    rc |= RULE_EACH(f, KILL, kill_always, 0, NULL);
    rc |= RULE_EACH(f, REFUSE, refuse_always, 0, NULL);
    /* signals only to itself, by every call that sends one */
    struct scmp_arg_cmp other = SCMP_A0(SCMP_CMP_NE, (scmp_datum_t)me);
    rc |= rule(f, KILL, SCMP_SYS(kill), 1, &other);
    rc |= rule(f, KILL, SCMP_SYS(tgkill), 1, &other);
    rc |= rule(f, KILL, SCMP_SYS(rt_sigqueueinfo), 1, &other);
    rc |= rule(f, KILL, SCMP_SYS(rt_tgsigqueueinfo), 1, &other);
    /* and never SIGCONT: the judge stops the runner (SIGSTOP) whenever it
     * is not serving a command, and a SIGCONT sent from inside, even to
     * itself, would cancel that pause while it takes effect */
    struct scmp_arg_cmp cont1 = SCMP_A1(SCMP_CMP_EQ, SIGCONT);
    struct scmp_arg_cmp cont2 = SCMP_A2(SCMP_CMP_EQ, SIGCONT);
    rc |= rule(f, KILL, SCMP_SYS(kill), 1, &cont1);
    rc |= rule(f, KILL, SCMP_SYS(rt_sigqueueinfo), 1, &cont1);
    rc |= rule(f, KILL, SCMP_SYS(tgkill), 1, &cont2);
    rc |= rule(f, KILL, SCMP_SYS(rt_tgsigqueueinfo), 1, &cont2);
    /* the parent-death signal stays: without it a runner whose judge is
     * killed from outside lives on in its own session */
    struct scmp_arg_cmp pdeath = SCMP_A0(SCMP_CMP_EQ, PR_SET_PDEATHSIG);
    rc |= rule(f, KILL, SCMP_SYS(prctl), 1, &pdeath);
    /* no scheduling changes to other processes (another runner of the same
     * user, in a batch): pid 0 is the caller itself */
    struct scmp_arg_cmp pid_other = SCMP_A0(SCMP_CMP_NE, 0);
    static const int sched_calls[] = {
        SCMP_SYS(sched_setaffinity), SCMP_SYS(sched_setscheduler),
        SCMP_SYS(sched_setparam),    SCMP_SYS(sched_setattr),
        SCMP_SYS(migrate_pages),     SCMP_SYS(move_pages)};
    rc |= RULE_EACH(f, REFUSE, sched_calls, 1, &pid_other);
    struct scmp_arg_cmp prio_which = SCMP_A0(SCMP_CMP_NE, PRIO_PROCESS);
    struct scmp_arg_cmp prio_who = SCMP_A1(SCMP_CMP_NE, 0);
    rc |= rule(f, REFUSE, SCMP_SYS(setpriority), 1, &prio_which);
    rc |= rule(f, REFUSE, SCMP_SYS(setpriority), 1, &prio_who);
    struct scmp_arg_cmp io_who = SCMP_A1(SCMP_CMP_NE, 0);
    rc |= rule(f, REFUSE, SCMP_SYS(ioprio_set), 1, &io_who);
    /* threads, never processes; clone3 cannot be inspected: glibc falls
     * back to clone when it is missing */
    struct scmp_arg_cmp proc = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0);
    rc |= rule(f, KILL, SCMP_SYS(clone), 1, &proc);
    rc |= rule(f, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0, NULL);
    /* no code may be made writable, nor anonymous memory executable */
    struct scmp_arg_cmp exec2 =
        SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC);
    rc |= rule(f, KILL, SCMP_SYS(mprotect), 1, &exec2);
    struct scmp_arg_cmp anon_exec[2] = {
        SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC),
        SCMP_A3(SCMP_CMP_MASKED_EQ, MAP_ANONYMOUS, MAP_ANONYMOUS)};
    rc |= rule(f, KILL, SCMP_SYS(mmap), 2, anon_exec);
    /* nor any mapping writable and executable at once (a private mapping
     * of a file, written after it is mapped, is anonymous code too) */
    struct scmp_arg_cmp wx = SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_WRITE | PROT_EXEC,
                                     PROT_WRITE | PROT_EXEC);
    rc |= rule(f, KILL, SCMP_SYS(mmap), 1, &wx);
    /* limits may be read, never raised */
    struct scmp_arg_cmp set_new = SCMP_A2(SCMP_CMP_NE, 0);
    rc |= rule(f, REFUSE, SCMP_SYS(prlimit64), 1, &set_new);
    /* files only for reading */
    static const int write_flags[] = {O_WRONLY, O_RDWR,   O_CREAT,
                                      O_TRUNC,  O_APPEND, O_TMPFILE};
    for (size_t i = 0; i < sizeof write_flags / sizeof write_flags[0]; i++) {
        unsigned fl = (unsigned)write_flags[i];
        struct scmp_arg_cmp at = SCMP_A2(SCMP_CMP_MASKED_EQ, fl, fl);
        struct scmp_arg_cmp op = SCMP_A1(SCMP_CMP_MASKED_EQ, fl, fl);
        rc |= rule(f, REFUSE, SCMP_SYS(openat), 1, &at);
        rc |= rule(f, REFUSE, SCMP_SYS(open), 1, &op);
    }
    rc |= rule(f, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0, NULL);
    return rc;
}

static int stage2(scmp_filter_ctx f)
{
    int rc = 0;
    rc |= rule(f, REFUSE, SCMP_SYS(open), 0, NULL);
    rc |= rule(f, REFUSE, SCMP_SYS(openat), 0, NULL);
    struct scmp_arg_cmp exec2 =
        SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC);
    rc |= rule(f, KILL, SCMP_SYS(mmap), 1, &exec2);
    return rc;
}

int cl_sandbox_seccomp(int stage, int ipc, char *note, size_t len)
{
    scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
    if (!f) {
        snprintf(note, len, "seccomp: cannot create a filter");
        return -1;
    }
    int rc = seccomp_attr_set(f, SCMP_FLTATR_ACT_BADARCH, KILL);
    rc |= stage == 1 ? stage1(f) : stage2(f);
    if (stage == 1 && !ipc)
        rc |= no_ipc(f);
    if (rc == 0)
        rc = seccomp_load(f);
    seccomp_release(f);
    if (rc != 0) {
        snprintf(note, len, "seccomp stage %d: %s", stage, strerror(-rc));
        return -1;
    }
    return 0;
}
