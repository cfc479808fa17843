/**
 * @file score.h
 * @brief Scoring: speed credit and a grade's totals.
 *
 * Correctness points are earned case by case. Speed points are earned only
 * when every correctness check of the run passed (a case the grader
 * itself failed on, internal-error, does not hold them back: that case
 * is to be regraded): a speed case earns its
 * points times the fraction its ratio reaches along the policy's band
 * (nothing at or below zero_at, all of it at full_at), where the ratio is
 * the speedup over the baseline (baseline median / student median) or the
 * fraction of the ceiling's throughput reached (docs/grading.md). The
 * ratio is computed here, once, and stored in the result: the report, the
 * gradebook, the bench CSV and the plots read it from there.
 */
#ifndef CL_SCORE_H
#define CL_SCORE_H

#include "parent/grade.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cl_policy;

/** points * clamp((ratio - zero_at) / (full_at - zero_at), 0, 1). */
double cl_speed_credit(double points, double ratio,
                       const struct cl_speed_rule *rule);

/**
 * The ratio a timed result is scored on under @p rule: the speedup over the
 * baseline, or the student's throughput as a fraction of the ceiling's
 * (0 when not timed).
 */
double cl_speed_ratio(const struct cl_speed_rule *rule,
                      const struct cl_result *r);

/** What a ratio of @p lab is a fraction of: its ceiling's name ("copy"),
 *  or the default for its metric. */
const char *cl_ceiling_name(const struct cl_lab *lab);

/**
 * @p rule in words, as the README's grading tables write it: "0.70x
 * cublasSgemm", or "90% of the copy ceiling (none at 60%)". Returns what
 * snprintf returns.
 */
int cl_speed_rule_text(char *buf, size_t len, const struct cl_lab *lab,
                       const struct cl_speed_rule *rule);

/** Fill the per-case and total scores of @p g under @p policy (NULL: the
 *  built-in default). */
void cl_score_grade(struct cl_grade *g, const struct cl_policy *policy);

#ifdef __cplusplus
}
#endif

#endif /* CL_SCORE_H */
