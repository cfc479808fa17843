/**
 * @file baseline.h
 * @brief A case's library baseline(s) as the judge runs, times and checks
 *        them, and the resources the judge makes for a case before its
 *        runner starts (judge/harness.c runs the protocol around them).
 */
#ifndef CL_JUDGE_BASELINE_H
#define CL_JUDGE_BASELINE_H

#include "judge/case.h"
#include "judge/measure.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How many baselines the case has (0: none). */
int cl_base_count(const struct case_run *k);

/**
 * Everything the judge needs for case @p k, made before the runner
 * starts: its own copies of the inputs, the baseline's outputs, the
 * ceiling's buffers and the baseline itself (handles, workspaces). A
 * submission that takes all the GPU's memory then fails alone, never the
 * judge. 0, or 1 with the verdict set (internal-error).
 */
int cl_case_resources(struct case_run *k);

/** Run baseline @p i on the judge's stream; 1 (verdict set) when the
 *  library refused. */
int cl_base_run(struct case_run *k, int i);

/** The first baseline the case can use, or -1. */
int cl_base_first(const struct case_run *k);

/** Baseline @p i timed behind the flush and the gate (ms). */
double cl_base_time(struct case_run *k, int i);

/** The ceiling's copy timed alike: cudaMemcpy, or with @p streaming the
 *  judge's own streaming kernel (ms). */
double cl_ceiling_time(struct case_run *k, int streaming);

/** The baselines' own check against the CPU reference on call @p call:
 *  the one that ran, and with @p timing every other one too. 1 (verdict
 *  set, internal-error) when one is wrong. */
int cl_base_verify(struct case_run *k, int call, int timing);

/** "best cuDNN: a 0.1 ms; b 0.2 ms (best)" into the case's message when
 *  the lab has several baselines; @p bs their series, @p best the
 *  fastest. */
void cl_base_describe(struct case_run *k, struct cl_series *bs, int best);

#ifdef __cplusplus
}
#endif

#endif /* CL_JUDGE_BASELINE_H */
