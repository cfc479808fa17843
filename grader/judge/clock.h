/**
 * @file clock.h
 * @brief The judge's clock on a timed call: the check that stops it (the
 *        call's output sampled as the reply arrives) and the proof that the
 *        GPU is idle before a baseline and a call are timed.
 */
#ifndef CL_JUDGE_CLOCK_H
#define CL_JUDGE_CLOCK_H

#include "judge/judge_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

struct case_run;

/** What cl_clock_stop() checks, and what it found. */
struct cl_clock_stop {
    struct case_run *k; /**< the case */
    unsigned bad;       /**< samples unwritten or wrong */
    int frame;          /**< an empty frame: read as a call's, not judged */
    double check_ms;    /**< how long the check took (CL_TIMING_DETAIL) */
};

/** The check that stops the judge's clock (a cl_runner_talk_clocked()
 *  hook): the case's outputs sampled at places drawn now (@p ctx is a
 *  struct cl_clock_stop). */
void cl_clock_stop(void *ctx);

/**
 * Whether another context runs work on the GPU: the idle probe (longer
 * than a time slice) against the limits it showed on the idle GPU at the
 * judge's start; with @p retries, a busy probe is tried again a few times,
 * 2 ms apart. The last probe goes to @p p. 1: busy.
 */
int cl_clock_gpu_busy(struct cl_probe *p, int retries);

#ifdef __cplusplus
}
#endif

#endif /* CL_JUDGE_CLOCK_H */
