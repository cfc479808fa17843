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

/** The case's baseline part, empty, for the lab's @p spec (NULL: none). */
void cl_base_init(struct case_run *k, const struct cl_baseline *spec);

/** The case runs without its baseline (its plan says nobase). */
void cl_base_drop(struct case_run *k);

/** The baseline's state and the ceiling's buffers, freed (the case's
 *  end; device memory is left alone once the judge's context broke). */
void cl_base_free(struct case_run *k);

/** How many baselines the case has (0: none). */
int cl_base_count(const struct case_run *k);

/** Baseline @p i was made and said it can run this case. */
int cl_base_usable(const struct case_run *k, int i);

/** Baseline @p i's name ("persist-static"). */
const char *cl_base_name(const struct case_run *k, int i);

/** A new call: the baselines prepare for call @p call (the state they
 *  read), and none has run for it yet. */
void cl_base_prepare(struct case_run *k, int call);

/**
 * The baselines on the current call, into their outputs (the mirrors):
 * with @p timed every usable one, each timed into @p base_ms[i]; without,
 * the first usable one only. A stateful case runs one (its state moves
 * once per call). 1 (verdict set) when a library refused.
 */
int cl_base_call(struct case_run *k, int timed, double *base_ms);

/** A baseline ran on the current call (its outputs are in the mirrors). */
int cl_base_ran(const struct case_run *k);

/** The ceiling's copy buffers were made (a timed case on the GPU). */
int cl_ceiling_ready(const struct case_run *k);

/** The ceiling's copy buffers, for a check that reads after timing. */
struct cl_gbuf *cl_ceiling_bufs(struct case_run *k);

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
