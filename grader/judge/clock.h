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

/** Samples per output in the check that stops the judge's clock. */
#define CL_SAMPLES 64

/**
 * The check that stops the judge's clock on a call: CL_SAMPLES elements of
 * every output (and state) at positions drawn from @p seed, with @p values
 * compared with the baseline's (when the plan does not say poison only),
 * else only seen written. On the device for a GPU lab, in the shared
 * memory for the CPU lab. Returns how many samples failed.
 */
unsigned cl_clock_sample(struct case_run *k, uint64_t seed, int values);

/** What cl_clock_stop() checks, and what it found. */
struct cl_clock_stop {
    struct case_run *k; /**< the case */
    unsigned bad;       /**< samples unwritten or wrong */
    int values;         /**< compare values with the baseline's: it ran for
                             the call, or an empty frame reads the buffers
                             as a call's check does (its count unjudged) */
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
