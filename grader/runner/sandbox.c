/* sandbox.c: the runner narrows itself: user, limits, the files it may
 * read (Landlock), and the system calls it may make (a seccomp allow-list)
 * (sandbox.h). */
#define _GNU_SOURCE
#include "runner/sandbox.h"

#include "confine/landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/landlock.h>
#include <pthread.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#define FILE_LIMIT (1u << 20) /* bytes any file may grow to */

/* AddressSanitizer (make SANITIZE=1) reserves terabytes of address space
 * for its shadow: no address-space limit under it */
#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#else
#define ASAN 0
#endif
#define PROC_LIMIT 512 /* processes and threads of the user */

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

/* ---- a mount namespace of its own ---------------------------------------- */

/* The jail's root is a tmpfs mounted over /tmp in the runner's own mount
 * namespace (the host's /tmp is untouched); the runner pivots into it. */
#define JAIL "/tmp"

/* write @p text to @p path (a /proc file of this process) */
static int put_text(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* @p host inside the jail, at the same path, read-only: a folder or file
 * bound, a symbolic link made again (/lib -> usr/lib), nothing when the
 * host has none; 0, or -1 */
static int jail_bind(const char *host, int dev)
{
    char at[4200];
    snprintf(at, sizeof at, JAIL "%s", host);
    struct stat st;
    if (lstat(host, &st) != 0)
        return 0;
    if (lstat(at, &st) == 0)
        return 0; /* already there: a folder of an outer binding */
    /* the parents, made in the tmpfs */
    for (char *p = at + strlen(JAIL) + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        mkdir(at, 0755);
        *p = '/';
    }
    char link[4200];
    ssize_t n = readlink(host, link, sizeof link - 1);
    if (n > 0) {
        link[n] = '\0';
        return symlink(link, at);
    }
    if (S_ISDIR(st.st_mode) ? mkdir(at, 0755) != 0 : 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        int fd = open(at, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
            return -1;
        close(fd);
    }
    if (mount(host, at, NULL, MS_BIND | MS_REC, NULL) != 0)
        return -1;
    unsigned long ro =
        MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | (dev ? 0 : MS_NODEV);
    return mount(NULL, at, NULL, ro, NULL);
}

/* Call @p each on every folder of the shared libraries mapped into this
 * process (the CUDA runtime's, the C library's, cuBLAS's beside the
 * runtime), once each: a library file, not the runner itself nor its load
 * guard (their folder is the course's build), nor a memory file such as
 * the submission's sealed copy ("/memfd:submission.so (deleted)"). The
 * loader finds the submission's libraries there. ORs what @p each returns;
 * -1 when the maps cannot be read. */
static int each_library_dir(int (*each)(const char *dir, void *ctx), void *ctx)
{
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f)
        return -1;
    char line[4400], done[64][1024];
    int ndone = 0, rc = 0;
    while (fgets(line, sizeof line, f)) {
        char *file = strchr(line, '/');
        if (!file)
            continue;
        file[strcspn(file, "\n")] = '\0';
        char *slash = strrchr(file, '/');
        if (!slash || !strstr(slash, ".so") || strstr(file, " (deleted)") ||
            !strcmp(slash, "/cl-audit.so") || !strncmp(file, "/memfd:", 7) ||
            !strncmp(file, "/dev/", 5))
            continue;
        *slash = '\0';
        int seen = 0;
        for (int i = 0; i < ndone && !seen; i++)
            seen = strcmp(done[i], file) == 0;
        if (seen || ndone == 64 || strlen(file) >= sizeof done[0])
            continue;
        snprintf(done[ndone++], sizeof done[0], "%s", file[0] ? file : "/");
        rc |= each(done[ndone - 1], ctx);
    }
    fclose(f);
    return rc;
}

/* Call @p each on every device file a runner needs that this machine
 * has: the GPU's (its numbered ones too), /dev/null, /dev/zero and the
 * random sources. ORs what @p each returns. */
static int each_device(int (*each)(const char *path, void *ctx), void *ctx)
{
    static const char *const devs[] = {
        "/dev/nvidiactl",      "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools",
        "/dev/nvidia-modeset", "/dev/null",       "/dev/zero",
        "/dev/urandom",        "/dev/random",     "/dev/nvidia-caps"};
    int rc = 0;
    for (size_t i = 0; i < sizeof devs / sizeof devs[0]; i++)
        if (access(devs[i], F_OK) == 0)
            rc |= each(devs[i], ctx);
    for (int i = 0; i < 64; i++) {
        char d[32];
        snprintf(d, sizeof d, "/dev/nvidia%d", i);
        if (access(d, F_OK) == 0)
            rc |= each(d, ctx);
    }
    return rc;
}

static int bind_dir(const char *dir, void *ctx)
{
    (void)ctx;
    return jail_bind(dir, 0);
}

static int bind_device(const char *path, void *ctx)
{
    (void)ctx;
    return jail_bind(path, 1);
}

/* Before anything else runs in the runner (no thread yet, still root, or
 * in a user namespace of its own): a mount namespace whose root holds the
 * system's programs, libraries and settings (/usr, /lib, /etc: read-only),
 * the folders of the libraries already mapped, the GPU's and the few other
 * devices it needs, /sys read-only, and /proc (its own, that hides other
 * users' processes, where it may mount one). The course's tree is not in
 * it: a path of it is not even there to stat. 0, or -1 (the runner goes
 * on without it, and the report says so). */
static int jail(char *note, size_t len)
{
    uid_t uid = geteuid();
    gid_t gid = getegid();
    int user_ns = uid != 0;
    if (unshare(CLONE_NEWNS | (user_ns ? CLONE_NEWUSER : 0)) != 0) {
        add_note(note, len, "no mount namespace");
        return -1;
    }
    if (user_ns) { /* the same user inside as outside */
        char map[64];
        snprintf(map, sizeof map, "%u %u 1", (unsigned)uid, (unsigned)uid);
        put_text("/proc/self/setgroups", "deny");
        if (put_text("/proc/self/uid_map", map) != 0)
            goto fail;
        snprintf(map, sizeof map, "%u %u 1", (unsigned)gid, (unsigned)gid);
        if (put_text("/proc/self/gid_map", map) != 0)
            goto fail;
    }
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
        mount("jail", JAIL, "tmpfs", MS_NOSUID, "mode=0755,size=1m") != 0)
        goto fail;
    static const char *const sys[] = {"/usr", "/lib",  "/lib32", "/lib64",
                                      "/bin", "/sbin", "/etc",   "/sys"};
    int rc = 0;
    for (size_t i = 0; i < sizeof sys / sizeof sys[0]; i++)
        rc |= jail_bind(sys[i], 0);
    rc |= each_library_dir(bind_dir, NULL);
    /* the devices: each node bound (never a new device filesystem) */
    mkdir(JAIL "/dev", 0755);
    rc |= each_device(bind_device, NULL);
    if (symlink("/proc/self/fd", JAIL "/dev/fd") != 0)
        rc = -1; /* a fresh tmpfs that refuses a link is no jail */
    /* /proc: its own where it may mount one (root: other users' processes
     * hidden), else the host's, bound */
    mkdir(JAIL "/proc", 0555);
    if (mount("proc", JAIL "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
              "hidepid=2") != 0 &&
        mount("/proc", JAIL "/proc", NULL, MS_BIND | MS_REC, NULL) != 0)
        rc = -1;
    mkdir(JAIL "/tmp", 0755);
    mkdir(JAIL "/.old", 0700);
    if (rc != 0 || syscall(SYS_pivot_root, JAIL, JAIL "/.old") != 0 ||
        chdir("/") != 0 || umount2("/.old", MNT_DETACH) != 0)
        goto fail;
    rmdir("/.old");
    /* nothing more may be written or made in it */
    mount(NULL, "/", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID, NULL);
    return 0;
fail:
    add_note(note, len, "no mount namespace (a step failed)");
    return -1;
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
    /* first, while nothing else runs here and root is still root */
    if (o->jail && jail(note, len) == 0)
        bits |= CL_SBX_JAIL;
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
        (!o->as_bytes || ASAN ||
         set_limit(RLIMIT_AS, (rlim_t)o->as_bytes) == 0))
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

/* ---- the files it may read: Landlock ------------------------------------- */

static int allow_dir(const char *dir, void *ctx)
{
    return cl_landlock_allow(*(int *)ctx, dir, CL_LL_READ);
}

/* a device, read and written (a folder of them, as /dev/nvidia-caps,
 * listed too) */
static int allow_device(const char *path, void *ctx)
{
    return cl_landlock_allow(
        *(int *)ctx, path, CL_LL_READ_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_DIR);
}

int cl_sandbox_confine(char *note, size_t len)
{
    int abi = cl_landlock_abi();
    if (abi < 1) {
        snprintf(note, len,
                 "no Landlock in this kernel: the runner can read every file "
                 "its user can");
        return -1;
    }
    int rs = cl_landlock_ruleset(abi, 1);
    if (rs < 0) {
        snprintf(note, len, "Landlock refused a ruleset: %s", strerror(errno));
        return -1;
    }
    char self[64];
    snprintf(self, sizeof self, "/proc/%d", (int)getpid());
    int rc = 0;
    /* the dynamic loader's cache and the system's library folders */
    rc |=
        cl_landlock_allow(rs, "/etc/ld.so.cache", LANDLOCK_ACCESS_FS_READ_FILE);
    static const char *const libs[] = {"/lib", "/lib64", "/usr/lib",
                                       "/usr/lib64"};
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++)
        rc |= cl_landlock_allow(rs, libs[i], CL_LL_READ);
    rc |= each_library_dir(allow_dir, &rs);
    /* the GPU's device files, /dev/null and the random sources */
    rc |= each_device(allow_device, &rs);
    /* itself in /proc (its maps, its threads), and the machine's facts in
     * /sys the driver reads */
    const uint64_t look =
        LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
    rc |= cl_landlock_allow(rs, self, look);
    rc |= cl_landlock_allow(rs, "/proc/driver/nvidia", CL_LL_READ);
    rc |= cl_landlock_allow(rs, "/sys/devices", look);
    rc |= cl_landlock_allow(rs, "/sys/bus/pci", look);
    if (rc != 0) {
        close(rs);
        snprintf(note, len, "Landlock refused a rule: %s", strerror(errno));
        return -1;
    }
    if (cl_landlock_enforce(rs) != 0) {
        snprintf(note, len, "Landlock: %s", strerror(errno));
        return -1;
    }
    snprintf(note, len, "Landlock ABI %d", abi);
    return 0;
}

/* ---- the system calls it may make: a seccomp allow-list ------------------
 */

/* the rules are added with libseccomp; a system call this architecture
 * lacks is no error */
static int add_rule(scmp_filter_ctx f, uint32_t action, int nr, unsigned n,
                    const struct scmp_arg_cmp *cmp)
{
    if (nr < 0)
        return 0;
    int rc = seccomp_rule_add_array(f, action, nr, n, cmp);
    return rc == -EDOM || rc == -EOPNOTSUPP ? 0 : rc;
}

/* allowed (when the arguments match @p cmp) */
static int rule(scmp_filter_ctx f, int nr, unsigned n,
                const struct scmp_arg_cmp *cmp)
{
    return add_rule(f, SCMP_ACT_ALLOW, nr, n, cmp);
}

/* answered with @p err, never made */
static int refuse(scmp_filter_ctx f, int nr, unsigned n,
                  const struct scmp_arg_cmp *cmp, int err)
{
    return add_rule(f, SCMP_ACT_ERRNO(err), nr, n, cmp);
}

static int allow_each(scmp_filter_ctx f, const int *nrs, size_t count)
{
    int rc = 0;
    for (size_t i = 0; i < count; i++)
        rc |= rule(f, nrs[i], 0, NULL);
    return rc;
}
#define ALLOW_EACH(f, list) allow_each(f, list, sizeof list / sizeof list[0])

/* What the C and C++ runtimes, the CUDA runtime and driver (after their
 * start, which comes before the filter) and the runner itself call, as
 * measured on the GPU host (tools/syscall-census.sh): memory, threads and
 * their waits, time, the runner's own socket and pipes, reading files
 * (Landlock says which), device ioctls. Anything else ends the runner. */
static int allow_common(scmp_filter_ctx f, pid_t self)
{
    static const int plain[] = {
        /* reading and writing descriptors it has */
        SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev),
        SCMP_SYS(pread64), SCMP_SYS(pwrite64), SCMP_SYS(lseek), SCMP_SYS(close),
        SCMP_SYS(fstat), SCMP_SYS(newfstatat), SCMP_SYS(statx), SCMP_SYS(fcntl),
        SCMP_SYS(dup), SCMP_SYS(dup3), SCMP_SYS(poll), SCMP_SYS(ppoll),
        SCMP_SYS(select), SCMP_SYS(pselect6), SCMP_SYS(epoll_create1),
        SCMP_SYS(epoll_ctl), SCMP_SYS(epoll_wait), SCMP_SYS(epoll_pwait),
        SCMP_SYS(eventfd2), SCMP_SYS(pipe2), SCMP_SYS(sendmsg),
        SCMP_SYS(recvmsg), SCMP_SYS(sendto), SCMP_SYS(recvfrom),
        SCMP_SYS(getdents64), SCMP_SYS(fstatfs), SCMP_SYS(statfs),
        SCMP_SYS(getcwd), SCMP_SYS(readlink), SCMP_SYS(readlinkat),
        SCMP_SYS(access), SCMP_SYS(faccessat), SCMP_SYS(faccessat2),
        SCMP_SYS(stat), SCMP_SYS(lstat),
        /* memory (mmap and mprotect below, with their rules) */
        SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(madvise), SCMP_SYS(brk),
        SCMP_SYS(mlock), SCMP_SYS(munlock), SCMP_SYS(mincore),
        SCMP_SYS(get_mempolicy), SCMP_SYS(mbind), SCMP_SYS(set_mempolicy),
        /* threads, their waits, signals to itself */
        SCMP_SYS(futex), SCMP_SYS(set_robust_list), SCMP_SYS(get_robust_list),
        SCMP_SYS(rseq), SCMP_SYS(set_tid_address), SCMP_SYS(gettid),
        SCMP_SYS(getpid), SCMP_SYS(getppid), SCMP_SYS(exit),
        SCMP_SYS(exit_group), SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn),
        SCMP_SYS(sigaltstack), SCMP_SYS(rt_sigtimedwait),
        SCMP_SYS(rt_sigsuspend), SCMP_SYS(restart_syscall),
        SCMP_SYS(sched_yield), SCMP_SYS(sched_getaffinity),
        SCMP_SYS(sched_getparam), SCMP_SYS(sched_getscheduler),
        SCMP_SYS(sched_get_priority_max), SCMP_SYS(sched_get_priority_min),
        SCMP_SYS(getcpu), SCMP_SYS(membarrier), SCMP_SYS(arch_prctl),
        /* time */
        SCMP_SYS(clock_gettime), SCMP_SYS(clock_getres),
        SCMP_SYS(clock_nanosleep), SCMP_SYS(nanosleep), SCMP_SYS(gettimeofday),
        SCMP_SYS(time), SCMP_SYS(times), SCMP_SYS(getrusage),
        /* facts about itself and the machine */
        SCMP_SYS(getuid), SCMP_SYS(geteuid), SCMP_SYS(getgid),
        SCMP_SYS(getegid), SCMP_SYS(getresuid), SCMP_SYS(getresgid),
        SCMP_SYS(getgroups), SCMP_SYS(getpgrp), SCMP_SYS(getpgid),
        SCMP_SYS(getsid), SCMP_SYS(uname), SCMP_SYS(sysinfo),
        SCMP_SYS(getrandom), SCMP_SYS(getrlimit), SCMP_SYS(getpriority),
        SCMP_SYS(umask)};
    int rc = ALLOW_EACH(f, plain);
    /* ioctl on its descriptors (the GPU's device files), fcntl, signal
     * handlers: each but for the commands the refusals filter traps
     * (refusals(), a filter of its own: in one filter an allowed call
     * would override them) */
    rc |= rule(f, SCMP_SYS(ioctl), 0, NULL);
    rc |= rule(f, SCMP_SYS(rt_sigaction), 0, NULL);
    /* signals only to itself (never SIGCONT: refusals()) */
    struct scmp_arg_cmp kill_self = SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self);
    rc |= rule(f, SCMP_SYS(kill), 1, &kill_self);
    rc |= rule(f, SCMP_SYS(tgkill), 1, &kill_self);
    /* threads, never processes (clone3 hides its flags: it answers ENOSYS
     * and glibc falls back to clone) */
    struct scmp_arg_cmp thread =
        SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD);
    rc |= rule(f, SCMP_SYS(clone), 1, &thread);
    rc |= refuse(f, SCMP_SYS(clone3), 0, NULL, ENOSYS);
    /* scheduling of itself only (pid 0 is the caller) */
    struct scmp_arg_cmp me = SCMP_A0(SCMP_CMP_EQ, 0);
    rc |= rule(f, SCMP_SYS(sched_setaffinity), 1, &me);
    struct scmp_arg_cmp prio[2] = {SCMP_A0(SCMP_CMP_EQ, PRIO_PROCESS),
                                   SCMP_A1(SCMP_CMP_EQ, 0)};
    rc |= rule(f, SCMP_SYS(setpriority), 2, prio);
    /* limits read, never set */
    struct scmp_arg_cmp no_new = SCMP_A2(SCMP_CMP_EQ, 0);
    rc |= rule(f, SCMP_SYS(prlimit64), 1, &no_new);
    /* a thread's name and the like; never the parent-death signal, the
     * dumpable flag or no-new-privileges */
    static const int prctl_ok[] = {PR_SET_NAME,     PR_GET_NAME,
                                   PR_GET_DUMPABLE, PR_GET_PDEATHSIG,
                                   PR_SET_VMA,      PR_GET_NO_NEW_PRIVS};
    for (size_t i = 0; i < sizeof prctl_ok / sizeof prctl_ok[0]; i++) {
        struct scmp_arg_cmp op = SCMP_A0(SCMP_CMP_EQ, prctl_ok[i]);
        rc |= rule(f, SCMP_SYS(prctl), 1, &op);
    }
    /* memory that is never written and executable at once, and no
     * executable memory that was not mapped from a file */
    struct scmp_arg_cmp no_exec = SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0);
    rc |= rule(f, SCMP_SYS(mmap), 1, &no_exec);
    rc |= rule(f, SCMP_SYS(mprotect), 1, &no_exec);
    return rc;
}

/* The commands of allowed calls that are trapped all the same, in a filter
 * of their own (the kernel takes the strictest answer of all the filters).
 * An int argument is compared in its low 32 bits, the ones the kernel
 * reads: 1 << 32 | SIGCONT is SIGCONT.
 *  - SIGCONT, even to itself: the judge stops the runner between
 *    commands, and a SIGCONT from inside would undo that;
 *  - a handler for SIGSYS: the runner's own names a trapped call;
 *  - signals that a descriptor sends to a process it names (SIGIO and
 *    its kin): the owner of a file (fcntl F_SETOWN, F_SETOWN_EX, ioctl
 *    FIOSETOWN, SIOCSPGRP), the signal it sends (F_SETSIG), asynchronous
 *    I/O switched on (F_SETFL with O_ASYNC, FIOASYNC), leases and
 *    directory notices (F_SETLEASE, F_NOTIFY): with no Landlock signal
 *    scope (Linux before 6.12) they reach other processes;
 *  - input pushed into a terminal (TIOCSTI, TIOCLINUX). */
static int refusals(scmp_filter_ctx f)
{
    const scmp_datum_t lo = 0xffffffffu;
    int rc = 0;
    struct scmp_arg_cmp c;
    c = SCMP_A1(SCMP_CMP_MASKED_EQ, lo, SIGCONT);
    rc |= add_rule(f, SCMP_ACT_TRAP, SCMP_SYS(kill), 1, &c);
    c = SCMP_A2(SCMP_CMP_MASKED_EQ, lo, SIGCONT);
    rc |= add_rule(f, SCMP_ACT_TRAP, SCMP_SYS(tgkill), 1, &c);
    c = SCMP_A0(SCMP_CMP_MASKED_EQ, lo, SIGSYS);
    rc |= add_rule(f, SCMP_ACT_TRAP, SCMP_SYS(rt_sigaction), 1, &c);
    static const unsigned long ioctls[] = {TIOCSTI, TIOCLINUX, FIOSETOWN,
                                           SIOCSPGRP, FIOASYNC};
    for (size_t i = 0; i < sizeof ioctls / sizeof ioctls[0]; i++) {
        c = SCMP_A1(SCMP_CMP_MASKED_EQ, lo, ioctls[i]);
        rc |= add_rule(f, SCMP_ACT_TRAP, SCMP_SYS(ioctl), 1, &c);
    }
    static const int fcntls[] = {F_SETOWN, F_SETOWN_EX, F_SETSIG, F_SETLEASE,
                                 F_NOTIFY};
    for (size_t i = 0; i < sizeof fcntls / sizeof fcntls[0]; i++) {
        c = SCMP_A1(SCMP_CMP_MASKED_EQ, lo, (scmp_datum_t)fcntls[i]);
        rc |= add_rule(f, SCMP_ACT_TRAP, SCMP_SYS(fcntl), 1, &c);
    }
    struct scmp_arg_cmp async[2] = {
        SCMP_A1(SCMP_CMP_MASKED_EQ, lo, F_SETFL),
        SCMP_A2(SCMP_CMP_MASKED_EQ, O_ASYNC, O_ASYNC)};
    rc |= add_rule(f, SCMP_ACT_TRAP, SCMP_SYS(fcntl), 2, async);
    return rc;
}

/* load the refusals, once, before the first allow-list */
static int load_refusals(char *note, size_t len)
{
    scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
    if (!f) {
        snprintf(note, len, "seccomp: cannot create a filter");
        return -1;
    }
    int rc = seccomp_attr_set(f, SCMP_FLTATR_CTL_TSYNC, 1);
    rc |= seccomp_attr_set(f, SCMP_FLTATR_CTL_NNP, 0);
    rc |= refusals(f);
    if (rc == 0)
        rc = seccomp_load(f);
    seccomp_release(f);
    if (rc != 0) {
        snprintf(note, len, "seccomp refusals: %s", strerror(-rc));
        return -1;
    }
    return 0;
}

/* Opening a file is refused (EACCES), not trapped: the CUDA libraries
 * open files now and then during calls (cuBLAS in Labs 5 and 6, measured
 * on the GPU host) and live with the refusal. Stage 1 refuses opens for
 * writing (one rule per flag: each is a bit of the flags), stage 2 every
 * open. */
static int refuse_opens(scmp_filter_ctx f, int stage)
{
    int rc = refuse(f, SCMP_SYS(openat2), 0, NULL, ENOSYS);
    rc |= refuse(f, SCMP_SYS(creat), 0, NULL, EACCES);
    if (stage == 2) {
        rc |= refuse(f, SCMP_SYS(open), 0, NULL, EACCES);
        return rc | refuse(f, SCMP_SYS(openat), 0, NULL, EACCES);
    }
    static const unsigned write_flags[] = {O_WRONLY, O_RDWR,   O_CREAT,
                                           O_TRUNC,  O_APPEND, __O_TMPFILE};
    for (size_t i = 0; i < sizeof write_flags / sizeof write_flags[0]; i++) {
        unsigned fl = write_flags[i];
        struct scmp_arg_cmp at = SCMP_A2(SCMP_CMP_MASKED_EQ, fl, fl);
        struct scmp_arg_cmp op = SCMP_A1(SCMP_CMP_MASKED_EQ, fl, fl);
        rc |= refuse(f, SCMP_SYS(openat), 1, &at, EACCES);
        rc |= refuse(f, SCMP_SYS(open), 1, &op, EACCES);
    }
    return rc;
}

/* stage 1 only: files opened for reading (Landlock says which; opened
 * for writing, refused), and code mapped from a file, read-only (the
 * submission and its libraries) */
static int allow_loading(scmp_filter_ctx f)
{
    int rc = 0;
    /* O_TMPFILE holds O_DIRECTORY: its own bit alone, or opendir() is a write
     */
    unsigned wr = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND |
                  (O_TMPFILE & ~O_DIRECTORY);
    struct scmp_arg_cmp ro_at = SCMP_A2(SCMP_CMP_MASKED_EQ, wr, 0);
    struct scmp_arg_cmp ro = SCMP_A1(SCMP_CMP_MASKED_EQ, wr, 0);
    rc |= rule(f, SCMP_SYS(openat), 1, &ro_at);
    rc |= rule(f, SCMP_SYS(open), 1, &ro);
    struct scmp_arg_cmp file_code[2] = {
        SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC | PROT_WRITE, PROT_EXEC),
        SCMP_A3(SCMP_CMP_MASKED_EQ, MAP_ANONYMOUS, 0)};
    rc |= rule(f, SCMP_SYS(mmap), 2, file_code);
    /* and the runner's own stage 2, which narrows, never widens */
    struct scmp_arg_cmp set_filter =
        SCMP_A0(SCMP_CMP_EQ, 1 /* SECCOMP_SET_MODE_FILTER */);
    rc |= rule(f, SCMP_SYS(seccomp), 1, &set_filter);
    return rc;
}

/* ---- the census: what the runner calls beyond the list ------------------- */

static struct {
    int fd; /* the filter's notification descriptor */
    int stage;
    struct seccomp_notif *req; /* allocated before the filter exists */
    struct seccomp_notif_resp *resp;
    unsigned char seen[1024];
} census = {-1, 0, NULL, NULL, {0}};

static void census_line(const char *fmt, long a, const char *s)
{
    char line[1200];
    int n = snprintf(line, sizeof line, fmt, census.stage, a, s);
    if (n > 0)
        (void)!write(2, line,
                     (size_t)n < sizeof line ? (size_t)n : sizeof line);
}

/* the census's own thread: every call the list lacks is named once, every
 * file opened (its path read from the caller's memory, ours too) named,
 * and then let through */
static void *census_main(void *arg)
{
    (void)arg;
    struct seccomp_notif *req = census.req;
    struct seccomp_notif_resp *resp = census.resp;
    for (;;) {
        if (seccomp_notify_receive(census.fd, req) != 0) {
            if (errno == EINTR || errno == ENOENT)
                continue;
            break;
        }
        int nr = req->data.nr;
        char *name = seccomp_syscall_resolve_num_arch(req->data.arch, nr);
        if (nr == SCMP_SYS(openat) || nr == SCMP_SYS(open)) {
            const char *path =
                (const char *)(uintptr_t)(nr == SCMP_SYS(openat)
                                              ? req->data.args[1]
                                              : req->data.args[0]);
            char p[1024];
            snprintf(p, sizeof p, "%s", path ? path : "(null)");
            census_line("census: stage %d open 0x%lx %s\n",
                        (long)(nr == SCMP_SYS(openat) ? req->data.args[2]
                                                      : req->data.args[1]),
                        p);
        } else if (nr >= 0 && nr < (int)sizeof census.seen * 8 &&
                   !(census.seen[nr / 8] & (1u << (nr % 8)))) {
            census.seen[nr / 8] |= (unsigned char)(1u << (nr % 8));
            census_line("census: stage %d call %ld %s\n", nr,
                        name ? name : "?");
        }
        free(name);
        resp->id = req->id;
        resp->val = 0;
        resp->error = 0;
        resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
        seccomp_notify_respond(census.fd, resp);
    }
    return NULL;
}

int cl_sandbox_seccomp(int stage, int census_mode, char *note, size_t len)
{
    if (census_mode && census.fd >= 0) {
        census.stage = stage; /* the census's filter lists stage 2 too */
        return 0;
    }
    /* the refusals first (not in the census, which traps nothing) */
    if (stage == 1 && !census_mode && load_refusals(note, len) != 0)
        return -1;
    /* the census thread's buffers, sized by a call its filter lacks */
    if (census_mode && seccomp_notify_alloc(&census.req, &census.resp) != 0) {
        snprintf(note, len, "seccomp: no notifications here");
        return -1;
    }
    scmp_filter_ctx f =
        seccomp_init(census_mode ? SCMP_ACT_NOTIFY : SCMP_ACT_TRAP);
    if (!f) {
        snprintf(note, len, "seccomp: cannot create a filter");
        return -1;
    }
    /* every thread, CUDA's own among them, gets the filter: a host
     * callback runs on a thread the submission did not start */
    int rc = seccomp_attr_set(f, SCMP_FLTATR_CTL_TSYNC, 1);
    /* no-new-privileges is set already (cl_sandbox_enter()) */
    rc |= seccomp_attr_set(f, SCMP_FLTATR_CTL_NNP, 0);
    rc |= seccomp_attr_set(f, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    rc |= allow_common(f, getpid());
    if (!census_mode)
        rc |= refuse_opens(f, stage);
    if (stage == 1 && !census_mode)
        rc |= allow_loading(f);
    if (stage == 1 && census_mode) { /* opens are what the census lists */
        struct scmp_arg_cmp file_code[2] = {
            SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC | PROT_WRITE, PROT_EXEC),
            SCMP_A3(SCMP_CMP_MASKED_EQ, MAP_ANONYMOUS, 0)};
        rc |= rule(f, SCMP_SYS(mmap), 2, file_code);
    }
    if (rc == 0)
        rc = seccomp_load(f);
    if (rc == 0 && census_mode) {
        int fd = seccomp_notify_fd(f);
        if (fd >= 0) {
            census.stage = stage;
            if (census.fd < 0) {
                census.fd = fd;
                pthread_t t;
                /* started under the filter: its own calls are listed */
                if (pthread_create(&t, NULL, census_main, NULL) == 0)
                    pthread_detach(t);
            } else {
                census.fd = fd;
            }
        }
    }
    seccomp_release(f);
    if (rc != 0) {
        snprintf(note, len, "seccomp stage %d: %s", stage, strerror(-rc));
        return -1;
    }
    return 0;
}
