/**
 * @file spec.h
 * @brief What a lab spec (grader/specs/) gives the judge and may use: the
 *        lab and its cases (lab.h), the plan and fills of its buffers
 *        (buffers.h), what its check() reads (checks.h), the judge's GPU
 *        helpers (device.h), and its library baseline(s) (below). The
 *        judge's own state and protocol (case.h, harness.h) are not a
 *        spec's.
 */
#ifndef CL_JUDGE_SPEC_H
#define CL_JUDGE_SPEC_H

#include "compare.h"
#include "fatal.h"
#include "judge/buffers.h"
#include "judge/checks.h"
#include "judge/device.h"
#include "judge/lab.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What a baseline sees: the case and the judge's own pointers. */
struct cl_base_ctx {
    const void *arg;                /**< the case struct */
    const struct cl_plan *plan;     /**< its buffers */
    const struct cl_lab_data *data; /**< the lab's data, or NULL */
    void *const *in;  /**< the live buffers (inputs and state as the
                           student sees them), device pointers */
    void *const *out; /**< the baseline's own outputs and state, one per
                           CL_OUT/CL_STATE buffer (NULL for the others) */
};

#define CL_MAX_BASELINES 8 /**< baselines of one lab, at most */

/** A lab's library baseline(s): each is timed; the fastest counts. */
struct cl_baseline {
    int count; /**< how many (Lab 5: cuDNN's algorithms), at most
                    CL_MAX_BASELINES: a case with more is an internal
                    error */
    /** Per case; NULL with the reason in @p why (an internal error). */
    void *(*create)(const struct cl_base_ctx *b, char *why, size_t len);
    /** The name of baseline @p i for the report. */
    const char *(*name)(void *st, int i);
    /** Whether baseline @p i works for this case; why not in @p why. */
    int (*usable)(void *st, int i, char *why, size_t len);
    /** After each fill: what the inputs changed (repack weights); may be
     *  NULL. @p call is the call's number. */
    void (*prepare)(void *st, int call);
    /** Run baseline @p i on @p s into the baseline's outputs; 0, or a
     *  library status when the library refused. */
    int (*run)(void *st, int i, cudaStream_t s);
    /** Free what create() made. */
    void (*destroy)(void *st);
};

#ifdef __cplusplus
}
#endif

#endif /* CL_JUDGE_SPEC_H */
