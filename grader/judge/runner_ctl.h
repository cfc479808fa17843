/**
 * @file runner_ctl.h
 * @brief The judge's control of a runner: start it sandboxed, relay its
 *        output, send it commands and read its replies, pause it between
 *        commands, look at what it has mapped, and reap it.
 *
 * A runner (grader/runner/) is the one process that executes a
 * submission. Everything it says is untrusted: the judge checks each
 * reply's type, size and sequence number here, and its fields where they
 * are used.
 */
#ifndef CL_JUDGE_RUNNER_CTL_H
#define CL_JUDGE_RUNNER_CTL_H

#include "judge/lab.h"
#include "protocol/proto.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/** How long a runner may take to stop after its reply (a thread stuck in
 *  the kernel), seconds. */
#define CL_PAUSE_WAIT_S 5.0

/** What cl_runner_talk() found. */
enum {
    TALK_OK = 0,  /**< the reply to this command, of the expected type */
    TALK_EOF,     /**< the runner is gone */
    TALK_TIMEOUT, /**< no reply in time */
    TALK_BAD,     /**< a reply the runner did not send: stale, forged or
                       malformed */
    TALK_NO_PAUSE /**< it replied, but would not stop afterwards */
};

/** One runner process, as the judge holds it. */
struct cl_runner {
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
    int spin;           /* a clocked reply is awaited awake (GPU labs) */
    int paused;         /* stopped by the judge now */
    int gone;           /* reaped while pausing it: its status is in st */
    int st;
    clockid_t cpu;   /* its CPU-time clock (all its threads) */
    double wall_ms;  /* the last talk(): see talk() */
    double reply_ms; /* of it: from the command to the reply read */
    double late_ms;  /* of it: the runner's CPU time after its reply */
    int trapped;     /* its sandbox trapped a system call: sig says which */
    struct cl_sigsys sig;
};

/** What a runner is started with. */
struct cl_runner_spec {
    const char *exe;    /**< the runner program; NULL: beside the grader */
    const char *lab_id; /**< the lab it runs ("05") */
    int cpu_lab;        /**< the CPU self-test lab */
    int tool_mode;      /**< under a profiler or sanitizer: sandbox off */
    int no_trace;       /**< no CUPTI trace */
    int census;         /**< list its system calls, trap none */
    double limit_s;     /**< the case's time limit per call */
    int submission_fd;  /**< the sealed submission (its fd 4) */
};

/** Start a runner for @p sp in a new session, as nobody when we are root,
 *  with an emptied environment. 0, or -1 with the reason. */
int cl_runner_spawn(struct cl_runner *rn, const struct cl_runner_spec *sp,
                    char *why, size_t len);

/** Make text from the runner (@p cap bytes at @p s) fit for a terminal
 *  and a report: ended within cap, anything but printable ASCII shown as
 *  '?'. cl_runner_hello() and cl_runner_talk() clean what they read. */
void cl_runner_clean(char *s, size_t cap);

/** Read the runner's R_HELLO into rn->hello (its text fields ended)
 *  within @p timeout_s, relaying its output meanwhile. Returns TALK_*. */
int cl_runner_hello(struct cl_runner *rn, double timeout_s);

/** Stop the runner (SIGSTOP) and see it stopped; 0 when stopped or ended
 *  (its status kept for cl_runner_reap()), -1 when it would not stop. */
int cl_runner_pause(struct cl_runner *rn);

/** The CPU time the runner has used, all its threads together (ms). */
double cl_runner_cpu_ms(const struct cl_runner *rn);

/** Let a paused runner go on (SIGCONT). */
void cl_runner_resume(struct cl_runner *rn);

/** Reap the runner (kill its whole session first when @p force), relay
 *  the rest of its output, and say how it ended in @p why (may be NULL);
 *  *sigsys is set when the sandbox killed it. */
void cl_runner_reap(struct cl_runner *rn, int force, char *why, size_t len,
                    int *sigsys);

/**
 * Send one command (@p type, @p len bytes at @p p, @p nfds descriptors)
 * and read its reply of type @p want and exactly @p reply_len bytes into
 * @p reply within @p timeout_s; the runner is resumed before and paused
 * after. rn->wall_ms is the judge's time from the command to the reply,
 * plus the CPU time the runner used after the reply until it stopped.
 * Returns TALK_*.
 */
int cl_runner_talk(struct cl_runner *rn, uint32_t type, const void *p,
                   uint32_t len, const int *fds, int nfds, uint32_t want,
                   void *reply, uint32_t reply_len, double timeout_s);

/**
 * cl_runner_talk() for a command the judge times (J_CALL, J_DRY): when the
 * reply arrives, before the runner is paused, @p on_reply(@p ctx) runs
 * (the judge's check of the output) and its time counts in rn->wall_ms.
 */
int cl_runner_talk_clocked(struct cl_runner *rn, uint32_t type, const void *p,
                           uint32_t len, uint32_t want, void *reply,
                           uint32_t reply_len, double timeout_s,
                           void (*on_reply)(void *ctx), void *ctx);

/** What the runner has mapped (read from /proc/PID/maps). */
enum {
    CL_MAPS_CLEAN = 0, /**< nothing it may not have */
    CL_MAPS_LIBRARY,   /**< a library the lab forbids */
    CL_MAPS_OWN        /**< a file of the grader's own references */
};

/** Look at the runner's mappings; the offending file goes to @p hit.
 *  Returns CL_MAPS_*. */
int cl_runner_maps(struct cl_runner *rn, const struct cl_caps *caps, char *hit,
                   size_t len);

#ifdef __cplusplus
}
#endif

#endif /* CL_JUDGE_RUNNER_CTL_H */
