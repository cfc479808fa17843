/**
 * @file score.h
 * @brief Scoring: speed credit, the physical floor, and a grade's totals.
 *
 * Correctness points are earned case by case. Speed points are earned only
 * when every correctness check of the run passed: a speed case earns
 * points * min(1, ratio / target), where the ratio is the speedup over the
 * baseline (baseline median / student median) or the fraction of the
 * ceiling's throughput reached, as the lab or case says (docs/grading.md).
 */
#ifndef CL_SCORE_H
#define CL_SCORE_H

#include "grader.h"

#ifdef __cplusplus
extern "C" {
#endif

/** points * min(1, speedup / target); 0 for a non-positive speedup. */
double cl_speed_credit(double points, double speedup, double target);

/**
 * The least time in ms that @p work (bytes or FLOPs) can take on @p g: work
 * over the theoretical memory bandwidth (or 1.25x the measured copy rate
 * when the theory is unknown), or over twice the measured SGEMM rate.
 * 0 when nothing is known.
 */
double cl_floor_ms(enum cl_metric m, double work, const struct cl_gpu_info *g);

/**
 * The ratio that case @p c's speed credit is measured by: the speedup over
 * the baseline, or the student's throughput as a fraction of the ceiling's
 * (0 when not timed). The target it is compared with goes to *target.
 */
double cl_speed_ratio(const struct cl_lab *lab, const struct cl_case *c,
                      const struct cl_result *r, double *target);

/** Fill the per-case and total scores of @p g from its results. */
void cl_score_grade(struct cl_grade *g);

#ifdef __cplusplus
}
#endif

#endif /* CL_SCORE_H */
