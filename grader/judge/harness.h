/**
 * @file harness.h
 * @brief The case protocol, in one place, and what a lab spec gives it.
 *
 * The judge runs every case in the same order (cl_case_run()):
 *
 *  1. plan the buffers (the spec's plan()); allocate each with guard zones;
 *     start a sandboxed runner for the case and map the buffers into it;
 *  2. for each call: fill the inputs from the call's seed (the spec's
 *     fill(), the same function on the device and, for checks, on the
 *     host), poison the outputs, flush the L2, then ask the runner to make
 *     the call and read back its time and trace;
 *  3. check: the runner's end (crash, timeout, CUDA error), every guard
 *     zone, the libraries mapped into the runner, the trace's rules, every
 *     output element against the library baseline run by the judge on the
 *     same inputs (when the lab has one), and, on the check call and on
 *     timed calls picked at random after they ran, the CPU reference;
 *  4. for speed cases: after warm-up calls, time the baselines and the
 *     ceiling in the judge and the student in the runner, one fresh set of
 *     inputs per call, until the medians settle; score each call on the
 *     judge's own clock (from the command to a sampled check of its output)
 *     less the empty frame clocked before the load, which the runner's
 *     events may lower by that frame's noise at most; reject times under
 *     the physical floor. A look scored well above its events is graded
 *     again from a fresh runner, up to CL_MAX_LOOKS in all, and the faster
 *     pass stands (cl_case_run(), cl_second_look_due() in measure.h).
 *
 * A spec states data and small functions (spec.h): a case struct per lab,
 * plan() and fill() (buffers.h), check() against its CPU reference
 * (refs.h) with what checks.h gives it, and its baseline(s). Nothing in a
 * spec times, guards or re-checks. The modules of the protocol: runner_ctl.h
 * (the runner process), buffers.h, checks.h, measure.h (statistics),
 * device.h (the judge's GPU).
 */
#ifndef CL_JUDGE_HARNESS_H
#define CL_JUDGE_HARNESS_H

#include "judge/run_opts.h"
#include "judge/spec.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** How the engine runs one case. */
struct cl_case_opts {
    const struct cl_run_opts *run;  /**< the run's options */
    int timing;                     /**< time it (speed and bench cases) */
    double limit_s;                 /**< the case's time limit */
    int submission_fd;              /**< the sealed copy of the submission */
    const struct cl_gpu_info *gpu;  /**< NULL on the CPU lab */
    const struct cl_lab_data *data; /**< the lab's data, or NULL */
};

/** Run case @p index of @p lab in the judge; fills @p r. */
void cl_case_run(const struct cl_lab *lab, int index,
                 const struct cl_case_opts *o, struct cl_result *r);

#ifdef __cplusplus
}
#endif

#endif /* CL_JUDGE_HARNESS_H */
