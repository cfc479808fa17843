/* build.c: cl-build, the confined build of one submission.
 *
 *   cl-build [options] SOURCE OUTPUT -- COMPILER [FLAGS...]
 *
 * A submission's source is the student's code, and a compiler runs what a
 * source asks of it: an #include or an .incbin reads any file the
 * compiler can read, and an #include of /dev/zero never ends. So every
 * way of grading (make grade, make check, make grade-class, Slurm, the
 * Gradescope bundle, GitHub Classroom) builds through this program, which
 *
 *  - copies SOURCE (read here, by the caller) and the lab's headers
 *    (--headers DIR: its *.h) into a scratch folder of its own, so that
 *    the compiler sees no path of the course;
 *  - runs COMPILER FLAGS -I SCRATCH/include -o SCRATCH/out/lib.so
 *    SCRATCH/src/NAME in a new session, as another user when started as
 *    root (uid 65533: neither the grader's nor the runners' nobody), with
 *    no-new-privileges, resource limits (CPU time, address space, file
 *    size, processes) and a wall-clock limit (the whole process group is
 *    killed), an environment of its own, and
 *  - Landlock: it may read and run only the toolkit (the compiler's own
 *    prefix), the system's headers, libraries and programs, and its
 *    scratch folder; write only there; use no TCP port; and signal no
 *    process outside (Linux 6.12); and seccomp: no socket, no ptrace, no
 *    other process's memory, no io_uring, no BPF, no namespaces;
 *  - copies the library out to OUTPUT when it built.
 *
 * A read the sandbox refused ("Permission denied" on a path) is named, and
 * the exit status says it: 0 built; 1 the source does not compile (or ran
 * past a limit); 2 usage; 4 the source reads a file outside the build
 * (the grade is 0, as for a forbidden library); 6 the build could not be
 * confined or run. Where the kernel has no Landlock, the build runs
 * unconfined with a warning (a student's own machine, a hosted notebook),
 * unless --strict or CL_BUILD_STRICT=1 (what every grading path sets):
 * then it refuses (6), unless CL_BUILD_UNCONFINED=1 (a grading host that
 * knowingly accepts it).
 */
#define _GNU_SOURCE
#include "confine/landlock.h"
#include "now.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { B_OK = 0, B_FAILED = 1, B_USAGE = 2, B_OUTSIDE = 4, B_INTERNAL = 6 };

#define BUILD_UID 65533        /* a root caller's build runs as this user */
#define CPU_S     300          /* seconds of CPU, each process */
#define AS_BYTES  (8ULL << 30) /* address space, each process */
/* AddressSanitizer (make SANITIZE=1) has reserved terabytes for its shadow
 * before the fork: under it the compiler gets no address-space limit (its
 * CPU, file and wall limits stay), or the child's first allocation fails */
#if defined(__SANITIZE_ADDRESS__)
#define AS_LIMITED 0
#else
#define AS_LIMITED 1
#endif
#define FILE_BYTES  (512ULL << 20)
#define PROCS       1024         /* of the build's user */
#define WALL_S      300          /* the whole build (CL_BUILD_TIMEOUT) */
#define MAX_LOG     (256u << 10) /* of the compiler's output, relayed */
#define MAX_HEADERS 8
#define MAX_ARGS    200

static const char *prog = "cl-build";

static int say(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

/* ---- files ----------------------------------------------------------------
 */

static int copy_file(const char *from, const char *to, mode_t mode)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return -1;
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (out < 0) {
        close(in);
        return -1;
    }
    char buf[65536];
    ssize_t n;
    int rc = 0;
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n) {
            rc = -1;
            break;
        }
    if (n < 0)
        rc = -1;
    close(in);
    if (close(out) != 0)
        rc = -1;
    return rc;
}

/* call @p fn on everything beneath @p path, then on @p path itself (our
 * scratch folder: no link is followed) */
static void walk(const char *path, void (*fn)(const char *p, int dir))
{
    struct stat st;
    int dir = lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
    DIR *d = dir ? opendir(path) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char sub[PATH_MAX];
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        walk(sub, fn);
    }
    if (d)
        closedir(d);
    fn(path, dir);
}

static void remove_one(const char *p, int dir)
{
    if (dir)
        rmdir(p);
    else
        unlink(p);
}

static void give_one(const char *p, int dir)
{
    (void)dir;
    (void)!lchown(p, BUILD_UID, BUILD_UID);
}

/* the real path of program @p name as a shell would find it in PATH */
static int which(const char *name, char out[PATH_MAX])
{
    if (strchr(name, '/'))
        return realpath(name, out) ? 0 : -1;
    const char *path = getenv("PATH");
    char list[8192];
    snprintf(list, sizeof list, "%s", path ? path : "/usr/bin:/bin");
    char *save = NULL;
    for (char *d = strtok_r(list, ":", &save); d;
         d = strtok_r(NULL, ":", &save)) {
        char cand[PATH_MAX];
        snprintf(cand, sizeof cand, "%s/%s", d, name);
        if (access(cand, X_OK) == 0 && realpath(cand, out))
            return 0;
    }
    return -1;
}

/* the prefix of an installed program: /usr/local/cuda-13.0 for its
 * bin/nvcc, /opt/gcc for its bin/gcc */
static void prefix_of(const char *prog_path, char *out, size_t len)
{
    snprintf(out, len, "%s", prog_path);
    for (int i = 0; i < 2; i++) {
        char *slash = strrchr(out, '/');
        if (slash && slash != out)
            *slash = '\0';
    }
}

/* is @p path @p dir or beneath it? */
static int beneath(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* ---- what the build may read ------------------------------------------- */

struct reach {
    char dirs[24][PATH_MAX]; /* read and run beneath */
    int n;
};

static void reach_add(struct reach *r, const char *dir)
{
    char real[PATH_MAX];
    if (!realpath(dir, real))
        return;
    for (int i = 0; i < r->n; i++)
        if (beneath(real, r->dirs[i]))
            return;
    if (r->n < (int)(sizeof r->dirs / sizeof r->dirs[0]))
        snprintf(r->dirs[r->n++], PATH_MAX, "%s", real);
}

/* the system's headers, libraries and programs, and the compilers' own
 * prefixes (the toolkit; a compiler outside /usr, as /opt/gcc) */
static void reach_system(struct reach *r, const char *compiler)
{
    static const char *const sys[] = {
        "/usr/include", "/usr/lib", "/usr/lib64", "/usr/libexec", "/usr/bin",
        "/usr/sbin",    "/lib",     "/lib64",     "/bin",         "/sbin"};
    for (size_t i = 0; i < sizeof sys / sizeof sys[0]; i++)
        reach_add(r, sys[i]);
    char p[PATH_MAX], pre[PATH_MAX];
    const char *names[] = {compiler, "gcc", "g++", "cc", "c++", NULL};
    for (int i = 0; names[i]; i++)
        if (which(names[i], p) == 0) {
            prefix_of(p, pre, sizeof pre);
            /* a compiler in /usr/bin is the system's: not all of /usr */
            if (strcmp(pre, "/usr") != 0 && strcmp(pre, "/") != 0)
                reach_add(r, pre);
        }
}

/* ---- the confined child ------------------------------------------------- */

static int set_limit(int res, rlim_t v)
{
    struct rlimit rl = {v, v};
    return setrlimit(res, &rl);
}

/* no network, no other process, no kernel interfaces beyond a compiler's
 * (a filter of its own over whatever the caller has) */
static int seccomp_build(void)
{
    scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
    if (!f)
        return -1;
    static const int denied[] = {SCMP_SYS(socket),
                                 SCMP_SYS(ptrace),
                                 SCMP_SYS(process_vm_readv),
                                 SCMP_SYS(process_vm_writev),
                                 SCMP_SYS(pidfd_getfd),
                                 SCMP_SYS(io_uring_setup),
                                 SCMP_SYS(io_uring_enter),
                                 SCMP_SYS(io_uring_register),
                                 SCMP_SYS(bpf),
                                 SCMP_SYS(perf_event_open),
                                 SCMP_SYS(userfaultfd),
                                 SCMP_SYS(keyctl),
                                 SCMP_SYS(add_key),
                                 SCMP_SYS(request_key),
                                 SCMP_SYS(unshare),
                                 SCMP_SYS(setns),
                                 SCMP_SYS(mount),
                                 SCMP_SYS(umount2),
                                 SCMP_SYS(pivot_root),
                                 SCMP_SYS(chroot),
                                 SCMP_SYS(move_mount),
                                 SCMP_SYS(open_tree),
                                 SCMP_SYS(fsopen),
                                 SCMP_SYS(fsmount),
                                 SCMP_SYS(kcmp),
                                 SCMP_SYS(personality)};
    int rc = seccomp_attr_set(f, SCMP_FLTATR_CTL_NNP, 0);
    for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++) {
        if (denied[i] < 0)
            continue;
        int r = seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), denied[i], 0);
        if (r != 0 && r != -EDOM && r != -EOPNOTSUPP)
            rc |= r;
    }
    if (rc == 0)
        rc = seccomp_load(f);
    seccomp_release(f);
    return rc;
}

struct job {
    const char *scratch;
    char *const *argv;
    char *const *envp;
    const struct reach *reach;
    int landlock; /* the ABI to confine with (0: none) */
    int as_root;
    int out_fd; /* the compiler's stdout and stderr */
};

static void child(const struct job *j)
{
    char e[512];
    dup2(j->out_fd, 1);
    dup2(j->out_fd, 2);
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0)
        dup2(null, 0);
    /* no descriptor of the caller's beyond these three */
    for (int fd = 3; fd < 1024; fd++)
        close(fd);
    if (chdir(j->scratch) != 0)
        _exit(126);
    if (j->as_root && (setgroups(0, NULL) != 0 || setgid(BUILD_UID) != 0 ||
                       setuid(BUILD_UID) != 0 || setuid(0) == 0)) {
        snprintf(e, sizeof e, "cl-build: cannot drop root\n");
        (void)!write(2, e, strlen(e));
        _exit(126);
    }
    if (set_limit(RLIMIT_CPU, CPU_S) ||
        (AS_LIMITED && set_limit(RLIMIT_AS, AS_BYTES)) ||
        set_limit(RLIMIT_FSIZE, FILE_BYTES) || set_limit(RLIMIT_CORE, 0) ||
        (j->as_root && set_limit(RLIMIT_NPROC, PROCS))) {
        snprintf(e, sizeof e, "cl-build: resource limits refused\n");
        (void)!write(2, e, strlen(e));
        _exit(126);
    }
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 ||
        prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        _exit(126);
    if (j->landlock) {
        int rs = cl_landlock_ruleset(j->landlock, 1);
        int rc = rs < 0;
        for (int i = 0; rs >= 0 && i < j->reach->n; i++)
            rc |= cl_landlock_allow(rs, j->reach->dirs[i], CL_LL_READ);
        if (rs >= 0) {
            rc |= cl_landlock_allow(rs, "/etc/ld.so.cache", CL_LL_READ);
            rc |= cl_landlock_allow(rs, "/etc/localtime", CL_LL_READ);
            rc |= cl_landlock_allow(rs, "/dev/null", CL_LL_READ_WRITE_FILE);
            rc |= cl_landlock_allow(rs, "/dev/urandom", CL_LL_READ);
            rc |= cl_landlock_allow(rs, j->scratch, CL_LL_OWN);
        }
        if (rc || cl_landlock_enforce(rs) != 0) {
            snprintf(e, sizeof e, "cl-build: Landlock refused: %s\n",
                     strerror(errno));
            (void)!write(2, e, strlen(e));
            _exit(126);
        }
    }
    if (seccomp_build() != 0) {
        snprintf(e, sizeof e, "cl-build: seccomp refused\n");
        (void)!write(2, e, strlen(e));
        _exit(126);
    }
    execve(j->argv[0], j->argv, j->envp);
    snprintf(e, sizeof e, "cl-build: cannot run %s: %s\n", j->argv[0],
             strerror(errno));
    (void)!write(2, e, strlen(e));
    _exit(127);
}

/* ---- the compiler's words ------------------------------------------------ */

/* the assembler's "file not found: PATH" (.incbin) for a path that does
 * exist outside the scratch folder: the sandbox hid it */
static int hidden_path(const char *log, const char *scratch, char *path,
                       size_t len)
{
    static const char *const says[] = {"file not found: ", "can't open ", NULL};
    for (int k = 0; says[k]; k++)
        for (const char *at = log; (at = strstr(at, says[k]));) {
            at += strlen(says[k]);
            size_t n = strcspn(at, " \n:\"'");
            if (n && n < len && at[0] == '/') {
                snprintf(path, len, "%.*s", (int)n, at);
                struct stat st;
                if (!beneath(path, scratch) && stat(path, &st) == 0)
                    return 1;
            }
        }
    return 0;
}

/* the first path the sandbox refused to the compiler, from its output
 * ("NAME: Permission denied", gcc's and nvcc's and the assembler's way of
 * saying so), into @p path; 0 when there is none */
static int refused_path(const char *log, const char *scratch, char *path,
                        size_t len)
{
    if (hidden_path(log, scratch, path, len))
        return 1;
    const char *at = log;
    while ((at = strstr(at, "Permission denied"))) {
        /* the line it is on */
        const char *line = at;
        while (line > log && line[-1] != '\n')
            line--;
        /* the path: the last word before the reason that starts with / */
        const char *p = NULL;
        for (const char *c = line; c < at; c++)
            if (*c == '/' && (c == line || c[-1] == ' ' || c[-1] == '"' ||
                              c[-1] == '\'' || c[-1] == '<' || c[-1] == '`'))
                p = c;
        if (p) {
            size_t n = 0;
            while (p + n < at && p[n] != ':' && p[n] != '"' && p[n] != '\'' &&
                   p[n] != '>' && p[n] != ' ' && p[n] != '\n')
                n++;
            if (n && !beneath(p, scratch)) {
                snprintf(path, len, "%.*s", (int)n, p);
                return 1;
            }
        }
        at += 17;
    }
    return 0;
}

/* the compiler's output to our stderr, the scratch folder's paths cut
 * ("/tmp/cl-build-x/src/vector_add.cu:3:1" reads "vector_add.cu:3:1") */
static void relay(const char *log, const char *scratch)
{
    char src[PATH_MAX + 16], inc[PATH_MAX + 16];
    snprintf(src, sizeof src, "%s/src/", scratch);
    snprintf(inc, sizeof inc, "%s/include/", scratch);
    size_t ns = strlen(src), ni = strlen(inc);
    for (const char *c = log; *c;) {
        if (!strncmp(c, src, ns)) {
            c += ns;
        } else if (!strncmp(c, inc, ni)) {
            c += ni;
        } else {
            fputc(*c, stderr);
            c++;
        }
    }
}

static volatile sig_atomic_t stopping;
static void on_stop(int sig)
{
    stopping = sig;
}

/* ---- main -------------------------------------------------------------- */

static int usage(void)
{
    fprintf(stderr,
            "usage: %s [--headers DIR]... [--name FILE] [--timeout SEC] "
            "[--strict] [--keep] SOURCE OUTPUT -- COMPILER [FLAGS...]\n"
            "Build SOURCE into the shared library OUTPUT with COMPILER, "
            "confined\n(reads only the toolkit, the system's headers and "
            "libraries and the\nheaders of DIR; writes only its scratch "
            "folder; no network; limits).\n"
            "exit: 0 built, 1 does not compile, 2 usage, 4 reads a file "
            "outside the\nbuild, 6 cannot confine or run the build\n",
            prog);
    return B_USAGE;
}

int main(int argc, char **argv)
{
    const char *headers[MAX_HEADERS], *name = NULL;
    int nh = 0, strict = 0, keep = 0, a = 1;
    double wall = WALL_S;
    const char *t = getenv("CL_BUILD_TIMEOUT");
    if (t && atof(t) > 0)
        wall = atof(t);
    for (; a < argc && strncmp(argv[a], "--", 2) == 0 && argv[a][2]; a++) {
        if (!strcmp(argv[a], "--headers") && a + 1 < argc && nh < MAX_HEADERS)
            headers[nh++] = argv[++a];
        else if (!strcmp(argv[a], "--timeout") && a + 1 < argc &&
                 atof(argv[a + 1]) > 0)
            wall = atof(argv[++a]);
        else if (!strcmp(argv[a], "--name") && a + 1 < argc)
            name = argv[++a];
        else if (!strcmp(argv[a], "--strict"))
            strict = 1;
        else if (!strcmp(argv[a], "--keep"))
            keep = 1;
        else
            return usage();
    }
    if (argc - a < 4 || strcmp(argv[a + 2], "--") != 0)
        return usage();
    const char *source = argv[a], *output = argv[a + 1];
    char **cc = argv + a + 3;
    int ncc = argc - a - 3;
    if (ncc < 1 || ncc > MAX_ARGS)
        return usage();
    const char *env_strict = getenv("CL_BUILD_STRICT");
    if (env_strict && !strcmp(env_strict, "1"))
        strict = 1;
    const char *env_unc = getenv("CL_BUILD_UNCONFINED");
    if (env_unc && !strcmp(env_unc, "1"))
        strict = 0;

    /* the compiler, resolved here (the build's PATH is its own) */
    char compiler[PATH_MAX];
    if (which(cc[0], compiler) != 0)
        return say(B_INTERNAL, "no compiler '%s' in PATH", cc[0]);

    /* the scratch folder: src/ (the source), include/ (the headers),
     * out/, tmp/ */
    const char *tmpdir = getenv("TMPDIR");
    char scratch[PATH_MAX];
    snprintf(scratch, sizeof scratch, "%s/cl-build-XXXXXX",
             tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(scratch))
        return say(B_INTERNAL, "cannot make a scratch folder in %s: %s",
                   tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
    char real_scratch[PATH_MAX];
    if (!realpath(scratch, real_scratch))
        snprintf(real_scratch, sizeof real_scratch, "%s", scratch);
    char d[PATH_MAX + 32], src_copy[PATH_MAX + 64], lib[PATH_MAX + 32];
    static const char *const subs[] = {"src", "include", "out", "tmp"};
    for (int i = 0; i < 4; i++) {
        snprintf(d, sizeof d, "%s/%s", real_scratch, subs[i]);
        mkdir(d, 0700);
    }
    /* the copy's name: the lab's (--name), else the source's, in letters
     * a shell reads as they are (nvcc hands names to a shell of its own) */
    char base[256];
    const char *b0 = name ? name : strrchr(source, '/');
    b0 = name ? name : b0 ? b0 + 1 : source;
    snprintf(base, sizeof base, "%s", b0);
    for (char *c = base; *c; c++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789._-",
                    *c))
            *c = '_';
    if (base[0] == '.' || base[0] == '-')
        base[0] = '_';
    snprintf(src_copy, sizeof src_copy, "%s/src/%s", real_scratch, base);
    int rc = B_INTERNAL;
    if (copy_file(source, src_copy, 0600) != 0) {
        rc = say(B_USAGE, "cannot read %s: %s", source, strerror(errno));
        goto out;
    }
    for (int h = 0; h < nh; h++) {
        DIR *dir = opendir(headers[h]);
        struct dirent *e;
        while (dir && (e = readdir(dir))) {
            size_t n = strlen(e->d_name);
            if (n < 3 || strcmp(e->d_name + n - 2, ".h") != 0)
                continue;
            char from[PATH_MAX + 300], to[PATH_MAX + 300];
            snprintf(from, sizeof from, "%s/%s", headers[h], e->d_name);
            snprintf(to, sizeof to, "%s/include/%s", real_scratch, e->d_name);
            if (copy_file(from, to, 0600) != 0 && errno != EEXIST) {
                closedir(dir);
                rc = say(B_INTERNAL, "cannot copy %s: %s", from,
                         strerror(errno));
                goto out;
            }
        }
        if (dir)
            closedir(dir);
        else {
            rc = say(B_USAGE, "no folder %s", headers[h]);
            goto out;
        }
    }

    /* what it may read, and a check that none of it holds the course */
    struct reach reach = {.n = 0};
    reach_system(&reach, compiler);
    char out_dir[PATH_MAX];
    snprintf(out_dir, sizeof out_dir, "%s", output);
    char *os = strrchr(out_dir, '/');
    if (os)
        *os = '\0';
    const char *course[] = {CL_ROOT, source, os ? out_dir : ".", NULL};
    for (int i = 0; course[i]; i++) {
        char real[PATH_MAX];
        if (!realpath(course[i], real))
            continue;
        for (int k = 0; k < reach.n; k++)
            if (beneath(real, reach.dirs[k])) {
                rc = say(B_INTERNAL,
                         "%s lies inside %s, which every build may read: "
                         "move the course and the submissions elsewhere",
                         real, reach.dirs[k]);
                goto out;
            }
    }
    int abi = cl_landlock_abi();
    const char *no_ll = getenv("CL_BUILD_TEST_NO_LANDLOCK"); /* test_batch */
    if (no_ll && !strcmp(no_ll, "1"))
        abi = 0;
    if (!abi) {
        if (strict) {
            rc = say(B_INTERNAL,
                     "this kernel has no Landlock (Linux 5.13 or newer), so "
                     "the build of a submission cannot be confined: it "
                     "could read any file this user can. Grade on a newer "
                     "kernel, or set CL_BUILD_UNCONFINED=1 to build "
                     "anyway (docs/grading.md, \"What is not closed\")");
            goto out;
        }
        say(0, "warning: no Landlock in this kernel: the build is NOT "
               "confined to the toolkit and the lab's headers");
    }
    int as_root = geteuid() == 0;
    if (as_root)
        walk(real_scratch, give_one);

    /* the command: the compiler's flags, then ours */
    char *args[MAX_ARGS + 8];
    int na = 0;
    args[na++] = compiler;
    for (int i = 1; i < ncc; i++)
        args[na++] = cc[i];
    char inc[PATH_MAX + 32];
    snprintf(inc, sizeof inc, "-I%s/include", real_scratch);
    snprintf(lib, sizeof lib, "%s/out/lib.so", real_scratch);
    args[na++] = inc;
    args[na++] = "-o";
    args[na++] = lib;
    args[na++] = src_copy;
    args[na] = NULL;
    /* an environment of its own: the toolkit first on PATH */
    char path_env[3 * PATH_MAX + 64], home[PATH_MAX + 16], tmp[PATH_MAX + 16];
    char cdir[PATH_MAX];
    snprintf(cdir, sizeof cdir, "%s", compiler);
    char *slash = strrchr(cdir, '/');
    if (slash)
        *slash = '\0';
    char gcc[PATH_MAX] = "", gdir[PATH_MAX] = "";
    if (which("gcc", gcc) == 0) {
        snprintf(gdir, sizeof gdir, "%s", gcc);
        char *s2 = strrchr(gdir, '/');
        if (s2)
            *s2 = '\0';
    }
    snprintf(path_env, sizeof path_env, "PATH=%s%s%s:/usr/bin:/bin", cdir,
             gdir[0] ? ":" : "", gdir);
    snprintf(home, sizeof home, "HOME=%s/tmp", real_scratch);
    snprintf(tmp, sizeof tmp, "TMPDIR=%s/tmp", real_scratch);
    char *envp[] = {path_env, home, tmp, "LC_ALL=C", NULL};

    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0) {
        rc = say(B_INTERNAL, "pipe: %s", strerror(errno));
        goto out;
    }
    struct job job = {real_scratch, args, envp, &reach, abi, as_root, pfd[1]};
    signal(SIGINT, on_stop);
    signal(SIGTERM, on_stop);
    signal(SIGHUP, on_stop);
    pid_t pid = fork();
    if (pid < 0) {
        rc = say(B_INTERNAL, "fork: %s", strerror(errno));
        goto out;
    }
    if (pid == 0) {
        setsid();
        child(&job);
    }
    close(pfd[1]);
    /* the compiler's output, kept (up to MAX_LOG) and relayed; the wall
     * clock, and the caller's Ctrl-C, end the whole group */
    char *log = malloc(MAX_LOG + 1);
    size_t got = 0;
    int cut = 0, timed_out = 0;
    double deadline = cl_now_s() + wall;
    for (;;) {
        double left = deadline - cl_now_s();
        if (left <= 0 || stopping) {
            timed_out = left <= 0;
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            break;
        }
        struct pollfd p = {pfd[0], POLLIN, 0};
        int pr = poll(&p, 1, left > 1 ? 1000 : (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0)
            continue;
        char buf[8192];
        ssize_t n = read(pfd[0], buf, sizeof buf);
        if (n <= 0)
            break;
        size_t room = got < MAX_LOG ? MAX_LOG - got : 0;
        size_t take = (size_t)n < room ? (size_t)n : room;
        if (log && take) {
            memcpy(log + got, buf, take);
            got += take;
        }
        if ((size_t)n > take)
            cut = 1;
    }
    close(pfd[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    kill(-pid, SIGKILL); /* nothing of the build outlives it */
    if (log)
        log[got] = '\0';
    if (log && got)
        relay(log, real_scratch);
    if (cut)
        say(0, "(the compiler's output was cut at %u KiB)", MAX_LOG >> 10);
    char path[PATH_MAX];
    if (stopping) {
        rc = say(130, "interrupted: nothing built");
    } else if (timed_out) {
        rc = say(B_FAILED,
                 "the build ran past %.0f s and was stopped (an #include "
                 "of a file that never ends?)",
                 wall);
    } else if (log && refused_path(log, real_scratch, path, sizeof path)) {
        rc = say(B_OUTSIDE,
                 "your file reads %s, which the build may not read: it "
                 "reads only your file, the lab's header, the toolkit's and "
                 "the system's headers (the course's files and anyone "
                 "else's are out of its reach)",
                 path);
    } else if (WIFEXITED(st) && WEXITSTATUS(st) == 126) {
        rc = say(B_INTERNAL, "the build could not be confined (above)");
    } else if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
        rc = say(B_INTERNAL, "the compiler could not be run (above)");
    } else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        rc = B_FAILED;
        if (log && strstr(log, "No such file or directory") &&
            strstr(log, "#include"))
            say(0,
                "note: the build has your file alone, in a folder of "
                "its own, beside the lab's header: an #include of another "
                "file of yours or of the course finds nothing (put all "
                "your code in %s)",
                base);
        if (WIFSIGNALED(st))
            say(0,
                "the compiler was killed by signal %d (a resource "
                "limit: %d s of CPU, %llu GiB of memory, %llu MiB a "
                "file)",
                WTERMSIG(st), CPU_S, AS_BYTES >> 30, FILE_BYTES >> 20);
    } else {
        /* built: the library, out to OUTPUT (atomically) */
        char part[PATH_MAX + 16];
        snprintf(part, sizeof part, "%s.part", output);
        unlink(part);
        if (copy_file(lib, part, 0755) != 0 || rename(part, output) != 0) {
            rc =
                say(B_INTERNAL, "cannot write %s: %s", output, strerror(errno));
            unlink(part);
        } else {
            rc = B_OK;
        }
    }
    free(log);
out:
    if (keep)
        say(0, "scratch kept: %s", real_scratch);
    else
        walk(real_scratch, remove_one);
    return rc;
}
