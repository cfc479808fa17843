/**
 * @file checks.h
 * @brief What a spec's check() and versus() read of a call: the inputs
 *        regenerated on the host, the outputs copied back, the rows to
 *        sample, and the verdicts they write.
 */
#ifndef CL_JUDGE_CHECKS_H
#define CL_JUDGE_CHECKS_H

#include "compare.h"
#include "judge/buffers.h"
#include "judge/lab.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Whose outputs a check reads: the submission's, or the baseline's (the
 *  judge checks its library against the CPU reference with the same
 *  check()). */
enum cl_check_source { CL_FROM_SUBMISSION = 0, CL_FROM_BASELINE = 1 };

struct case_run; /* the judge's state of a case (judge/case.h) */

/** What check() sees of a call. */
struct cl_check {
    const struct cl_lab *lab;       /**< the lab */
    const void *arg;                /**< the case struct */
    const struct cl_plan *plan;     /**< its buffers */
    const struct cl_lab_data *data; /**< the lab's data (Lab 6), or NULL */
    int call;                       /**< the call checked */
    uint64_t pick;       /**< the judge's private random bits, drawn after the
                              call: sampled rows are chosen with them */
    const char *when;    /**< "" or "after timing: ", to prefix messages */
    int demo;            /**< --demo: print examples */
    struct cl_result *r; /**< the verdict goes here */
    enum cl_check_source source; /**< whose outputs cl_check_output()
                                      reads */
    struct case_run *h;          /**< the judge's case (opaque to a spec) */
};

/** Host image of input or state @p buf as filled for call @p call of the
 *  case (regenerated from the seed; kept until the check ends). */
const void *cl_check_input(struct cl_check *ck, int buf, int call);

/** Host copy of buffer @p buf after the call (outputs and state): the
 *  submission's, or the baseline's when ck->source says so. */
const void *cl_check_output(struct cl_check *ck, int buf);

/**
 * The rows (or sentences) a check compares: all @p count of them when
 * there are at most @p max, else @p max: the first, the last, and the rest
 * drawn with ck->pick, sorted. Writes them to @p out (room for @p max) and
 * returns how many.
 */
int cl_check_rows(struct cl_check *ck, int count, int max, int *out);

/** Turn a failed comparison into CL_ST_WRONG with its description;
 *  1 when @p c failed. */
int cl_verdict(const struct cl_compare *c, const char *what,
               struct cl_result *r);

/**
 * The common check of outputs that must all be written: counts the
 * poisoned elements of output @p buf; when any, sets CL_ST_WRONG with
 * "NAME: k of n elements never written; first at [i]" and returns 1.
 */
int cl_check_written(struct cl_check *ck, int buf);

/** The student's outputs against the baseline's, for a spec's versus(). */
struct cl_vs {
    struct cl_check ck; /**< the call (ck.r gets the verdict) */
    double scale;       /**< tolerances are widened by this (2: both sides
                             carry FP32 rounding) */
};

/** Host copy of the baseline's version of output @p buf. */
const void *cl_vs_baseline(struct cl_vs *v, int buf);

/** The default comparison: every element of every float output and state
 *  within v->scale times the tolerance of the baseline's, ints equal.
 *  Returns 1 when wrong (verdict set). *first_bad gets the first wrong
 *  element's index in the buffer *bad_buf (either may be NULL). */
int cl_vs_default(struct cl_vs *v, int *bad_buf, size_t *first_bad);

#ifdef __cplusplus
}
#endif

#endif /* CL_JUDGE_CHECKS_H */
