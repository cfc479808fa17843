/**
 * @file judge.h
 * @brief The judge process: forked by the parent, it runs one case at a
 *        time for one submission of one lab and sends each result back.
 *
 * The parent (grader/parent/engine.c) never touches CUDA; it starts a
 * judge with cl_judge_start(), asks for cases with cl_judge_case() and
 * stops it with cl_judge_stop(). The judge turns off core dumps and ptrace
 * access to itself, starts CUDA, calibrates the GPU once, and for each
 * case runs the protocol of harness.h with a fresh sandboxed runner.
 * Results travel over a pipe as each case ends, so a judge that dies
 * costs only the case it was running.
 */
#ifndef CL_JUDGE_JUDGE_H
#define CL_JUDGE_JUDGE_H

#include "gpuinfo.h"
#include "judge/lab.h"
#include "judge/run_opts.h"

#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What a judge serves: one submission of one lab, and how. */
struct cl_judge_run {
    const struct cl_lab *lab;       /**< the lab */
    const struct cl_lab_data *data; /**< its data (Lab 6), or NULL */
    int sub_fd;                     /**< the sealed submission */
    double limit_s;                 /**< per call */
    const struct cl_run_opts *opts; /**< the run's options */
};

/** A judge process, as the parent holds it. */
struct cl_judge {
    pid_t pid;  /**< 0: none running */
    int cmd_fd; /**< commands to it */
    int res_fd; /**< its results */
};

/** How a judge started. */
enum cl_judge_hello {
    CL_JUDGE_OK = 0, /**< ready: *gpu filled for a GPU lab */
    CL_JUDGE_NO_GPU, /**< no usable GPU: nothing can be graded */
    CL_JUDGE_FAILED  /**< it did not start (why says so) */
};

/** Fork a judge for @p run and wait for its hello; on success a GPU lab's
 *  GPU is described in @p gpu. Returns CL_JUDGE_*, with the reason in
 *  @p why when not CL_JUDGE_OK. */
int cl_judge_start(struct cl_judge *w, const struct cl_judge_run *run,
                   struct cl_gpu_info *gpu, char *why, size_t len);

/**
 * Run case @p index (timed when @p timing) on judge @p w into @p r; @p
 * limit_s bounds the whole case. A judge that dies, fails or outlasts
 * the limit is reaped here (w->pid becomes 0) and @p r says so:
 * CL_ST_INTERNAL with r->judge_died set, or CL_ST_TIMEOUT.
 */
void cl_judge_case(struct cl_judge *w, int index, int timing, double limit_s,
                   struct cl_result *r);

/** Stop judge @p w: ask it to end, then reap it (killed after a few
 *  seconds). */
void cl_judge_stop(struct cl_judge *w);

/**
 * Catch SIGINT and SIGTERM (once: a second one ends the process as
 * usual, unless it comes within half a second of the first, the same stop
 * sent twice as timeout(1) sends it, to its command and to the group the
 * command is in) and SIGHUP: the signal is noted, and a wait for the judge in
 * cl_judge_start() or cl_judge_case() gives up, the judge (and with it
 * the runner) is ended, and the case reads CL_ST_NOT_RUN, "interrupted".
 * The judge itself ignores a terminal's SIGINT: the parent decides.
 */
void cl_judge_catch_interrupts(void);

/** The signal that interrupted the grading, or 0. */
int cl_judge_interrupted(void);

#ifdef __cplusplus
}
#endif

#endif /* CL_JUDGE_JUDGE_H */
