/**
 * @file sandbox.h
 * @brief The runner's sandbox: its own session, an unprivileged user, an
 *        empty environment, resource limits, the files it may read
 *        (Landlock) and the system calls it may make (a seccomp
 *        allow-list).
 *
 * The runner is the only process that executes a submission's code. It is
 * started by the judge with posix_spawn in a new session (so that the
 * judge can kill all of it, and anything it starts, with one signal), then
 * narrows itself in this order: the user (when started as root), the
 * limits, the parent-death signal and no-new-privileges; once CUDA is up
 * and just before the submission is loaded, the files it may read
 * (cl_sandbox_confine()) and seccomp stage 1 (the submission's
 * constructors run under both); before its first call, seccomp stage 2.
 * Each step that the platform cannot take is recorded, and the judge
 * prints the record in the run's header; none is skipped silently.
 */
#ifndef CL_RUNNER_SANDBOX_H
#define CL_RUNNER_SANDBOX_H

#include <stddef.h>
#include <sys/types.h>

#include "confine/landlock.h"
#include "protocol/proto.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What the judge asks of a runner's sandbox. */
struct cl_sandbox_opts {
    int enabled;  /**< 0: tool mode (profilers, sanitizers): no seccomp,
                       no user change, the environment kept */
    uid_t uid;    /**< when root: the user to become */
    gid_t gid;    /**< and its group */
    double cpu_s; /**< RLIMIT_CPU, seconds */
    unsigned long long as_bytes; /**< RLIMIT_AS (0: none). Only the CPU
                            lab sets it: CUDA reserves far more address
                            space than it uses */
    int jail; /**< a mount namespace of its own (cl_sandbox_enter()) */
};

/**
 * The first steps, before CUDA starts: the OOM killer's first choice
 * (oom_score_adj 1000), the user (only when running as root), the limits,
 * the parent-death signal (@p judge is the expected parent),
 * no-new-privileges. Returns the CL_SBX_* bits taken and writes
 * what was not possible into @p note. Never fails hard: the judge decides
 * from the bits.
 */
int cl_sandbox_enter(const struct cl_sandbox_opts *o, pid_t judge, char *note,
                     size_t len);

/**
 * Confine the files this process may reach with Landlock: reading the
 * system's and the mapped libraries' folders and the loader's cache (not
 * the runner's own folder, the course's build, nor a memory file's), the
 * GPU's device files,
 * /dev/null and the random sources, itself in /proc, and what the driver
 * reads in /proc/driver/nvidia and /sys; nothing may be written, made or
 * removed anywhere, no TCP port used, and (ABI 6) no signal or abstract
 * socket reach outside. Files already open are not affected (the
 * submission's sealed copy is read through /proc/self/fd). Returns 0, or
 * -1 with the reason in @p note (no Landlock, or it refused).
 */
int cl_sandbox_confine(char *note, size_t len);

/**
 * Install seccomp stage @p stage (1 or 2) in every thread of the process:
 * an allow-list of the system calls the C runtime, the CUDA runtime and
 * driver (after their start) and the runner make; any other call, or one
 * of these with arguments outside its rule, is trapped: the runner's
 * SIGSYS handler names it to the judge and the process dies. The rules:
 * signals only to itself and never SIGCONT, no handler for SIGSYS,
 * threads but no processes, no memory both writable and executable and no
 * executable memory not mapped from a file, no limits raised, scheduling
 * of itself only, no terminal input pushed (TIOCSTI). No exec, fork,
 * socket, ptrace, System V IPC, POSIX message queue, io_uring, bpf, mount
 * or namespace call is on the list. Stage 1 adds files opened for reading
 * and code mapped read-only from a file (the submission and its
 * libraries); stage 2 (before the first call) takes both away.
 *
 * @p census (maintainers: tools/syscall-census.sh): instead of trapping,
 * a thread of the runner names on stderr every call the list lacks and
 * every file opened, and lets them through; stage 2 then adds no filter.
 * Returns 0, or -1 with the reason in @p note.
 */
int cl_sandbox_seccomp(int stage, int census, char *note, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* CL_RUNNER_SANDBOX_H */
