/**
 * @file sandbox.h
 * @brief The runner's sandbox: its own session, an unprivileged user, an
 *        empty environment, resource limits and a seccomp filter.
 *
 * The runner is the only process that executes a submission's code. It is
 * started by the judge with posix_spawn in a new session (so that the
 * judge can kill all of it, and anything it starts, with one signal), then
 * narrows itself in this order: the user (when started as root), the
 * limits, the parent-death signal and no-new-privileges, and once CUDA is
 * up, seccomp in two stages: before the submission is loaded (its
 * constructors run under it) and, stricter, after its entry points are
 * found. Each step that the platform cannot take is recorded, and the
 * judge prints the record in the run's header; none is skipped silently.
 */
#ifndef CL_RUNNER_SANDBOX_H
#define CL_RUNNER_SANDBOX_H

#include <stddef.h>
#include <sys/types.h>

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
 * Install seccomp stage @p stage (1 or 2). Stage 1 kills the process on
 * any attempt to start a process or program, signal or trace another
 * process (or send itself SIGCONT, which would undo the judge's pause
 * between commands), read or write another's memory, leave the session,
 * give up its parent-death signal, open a socket, or make memory
 * executable that was not mapped from a file, or writable and executable
 * at once; and, unless @p ipc, use System V IPC or POSIX message queues
 * (objects that outlive the process) or perf_event_open (the CPU lab
 * passes 0, GPU labs 1 until a GPU run shows CUDA never needs them); and
 * refuses (EACCES) files opened for writing, changes to the file system,
 * and scheduling changes to other processes. Stage 2 adds: no file may be
 * opened at all, and no memory made executable. Returns 0, or -1 with the
 * reason in @p note.
 */
int cl_sandbox_seccomp(int stage, int ipc, char *note, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* CL_RUNNER_SANDBOX_H */
