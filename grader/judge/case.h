/**
 * @file case.h
 * @brief The judge's state of one case as it runs: private to the judge's
 *        modules. Each part has one owner: the baselines' is baseline.c's
 *        (struct cl_case_baseline, asked through baseline.h), the check
 *        images are checks.c's (struct cl_check_images), the check that
 *        stops the clock is clock.c's (clock.h), the runner is
 *        runner_ctl.c's; harness.c runs the protocol around them, and a
 *        run's options arrive by pointer (run_opts.h).
 */
#ifndef CL_JUDGE_CASE_H
#define CL_JUDGE_CASE_H

#include "judge/buffers.h"
#include "judge/harness.h"
#include "judge/measure.h"
#include "judge/runner_ctl.h"
#include "rng.h"

#include <stdarg.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CL_CALL_IMAGES 4 /**< calls whose host input images a check keeps */

/** The case's baselines: baseline.c's part of the case (harness.c asks
 *  through baseline.h). */
struct cl_case_baseline {
    const struct cl_baseline *spec; /* the lab's, or NULL */
    void *st;                       /* its state, from spec->create */
    int ok[CL_MAX_BASELINES];       /* usable for this case */
    void *in_ptrs[CL_MAX_BUFS], *out_ptrs[CL_MAX_BUFS]; /* what it reads
                                                           and writes */
    int ran;             /* one ran on the current call (into the mirrors) */
    struct cl_gbuf ceil; /* the ceiling's copy buffers (timed GPU cases) */
};

/** The host images a check reads: checks.c's part of the case. Made on
 *  demand for a check and forgotten after it. */
struct cl_check_images {
    struct {
        int call, used;
        void *img[CL_MAX_BUFS];
    } inputs[CL_CALL_IMAGES];       /* inputs per call, regenerated */
    void *outputs[CL_MAX_BUFS];     /* the submission's or the baseline's */
    void *base_copies[CL_MAX_BUFS]; /* the baseline's, for versus() */
    /* the memory of those two, kept from call to call (each is read whole
     * over it) and freed with the case: a fresh allocation per call pays
     * its page faults again, a second a gigabyte */
    struct cl_kept {
        void *p;
        size_t cap;
    } outputs_mem[CL_MAX_BUFS], base_copies_mem[CL_MAX_BUFS];
};

/** One case from its plan to its last call. */
struct case_run {
    const struct cl_lab *lab;
    int index;                     /* the case's index in the lab */
    const struct cl_case *c;       /* the case */
    const struct cl_case_opts *o;  /* how the engine runs it */
    unsigned char arg[CL_ARG_MAX]; /* the case struct, bound to the data */
    struct cl_plan plan;
    struct cl_gbuf hb[CL_MAX_BUFS]; /* the plan's buffers, guarded */
    struct cl_runner rn;
    int runner_dead;         /* the runner is gone (crash, timeout) */
    int device_broken;       /* the judge's own context is unusable */
    double limit_s;          /* per call */
    struct cl_series frames; /* the judge's clock around the empty frames
                                before the load (ms): the frame a timed
                                call is measured against */
    int loaded;              /* the submission is in the runner */
    int has_state;   /* a buffer is CL_STATE: the state moves each call */
    int timing_case; /* the case is timed: the untimed-work rule applies */
    uint64_t salt;   /* private: the inputs after the check round */
    struct cl_case_baseline bl; /* baseline.c's */
    struct cl_check_images img; /* checks.c's */
    /* the messages of the current command: a few KiB each, kept here
     * rather than on the stack, one of each in use at a time */
    struct {
        struct cl_map map, got; /* J_MAP / J_ALLOC and R_ALLOCATED */
        struct cl_call_cmd cmd; /* J_CALL, J_QUERY, J_DRY */
        struct cl_reply rep;    /* every other reply */
    } wire;
    struct cl_result *r; /* the verdict */
};

/** The seed of call @p call: the run's seed in the check round; the calls
 *  after it (warm-ups, timed calls) also take the case's private salt,
 *  which the runner never sees: the seed has 10^9 values, found by search
 *  from the first call's inputs in about a second, and from it every later
 *  input would be known in advance (answers computed while nothing is
 *  timed, then copied). */
static inline uint64_t cl_case_seed(const struct case_run *k, int call)
{
    if (call < k->plan.check_calls)
        return k->o->run->seed;
    return cl_mix64(k->o->run->seed ^ k->salt ^
                    cl_mix64(0x9e3779b97f4a7c15ULL * (uint64_t)(k->index + 1) +
                             (uint64_t)call));
}

/** The case's verdict: status @p st and the message; returns 1 (the
 *  protocol's steps return it when they end the case). */
static inline __attribute__((format(printf, 3, 4))) int
cl_case_fail(struct case_run *k, enum cl_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    k->r->status = st;
    vsnprintf(k->r->msg, sizeof k->r->msg, fmt, ap);
    va_end(ap);
    return 1;
}

/** Forget the host copies of outputs (and of the baseline's) a check made:
 *  the next check reads them again, into the same memory. */
void cl_case_forget_outputs(struct case_run *k);

/** Forget them and free their memory (the case's end). */
void cl_case_free_outputs(struct case_run *k);

/** Free the host input images a check regenerated. */
void cl_case_forget_inputs(struct case_run *k);

/** A check of call @p call of @p k reading @p source's outputs, its
 *  verdict into @p r, its messages prefixed with @p when. */
void cl_check_init(struct case_run *k, struct cl_check *ck, int call,
                   const char *when, struct cl_result *r,
                   enum cl_check_source source);

/** The lab's check() of call @p call on @p source's outputs, which it
 *  then forgets (the input images stay for the next check of the call);
 *  1 when wrong (verdict in @p r). */
int cl_case_check(struct case_run *k, int call, const char *when,
                  struct cl_result *r, enum cl_check_source source);

#ifdef __cplusplus
}
#endif

#endif /* CL_JUDGE_CASE_H */
