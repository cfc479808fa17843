/**
 * @file run_opts.h
 * @brief What one grading run is asked to do beyond its cases: set once
 *        from the command line (parent/cli.c) and read by pointer by the
 *        engine, the judge, each case and each runner it starts.
 */
#ifndef CL_JUDGE_RUN_OPTS_H
#define CL_JUDGE_RUN_OPTS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A grading run's options (struct cl_grade_opts holds them as .run). */
struct cl_run_opts {
    uint64_t seed;         /**< input seed */
    int profile;           /**< mark the student's call for a profiler;
                                nothing is timed and the sandbox is off */
    int tool_mode;         /**< under a profiler or sanitizer: sandbox off */
    int no_trace;          /**< no CUPTI trace (measurements only) */
    int census;            /**< the runners list their system calls and
                                trap none (maintainers, trusted code only) */
    int demo;              /**< the demo cases, which print examples */
    const char *runner;    /**< the runner program; NULL: beside us */
    const char *cache_dir; /**< calibration cache; NULL: default */
    int recalibrate;       /**< measure the GPU's peaks again */
};

/** The runners are sandboxed: not under a tool, not profiled (a profiler
 *  must attach to them). */
static inline int cl_run_sandboxed(const struct cl_run_opts *o)
{
    return !o->tool_mode && !o->profile;
}

#ifdef __cplusplus
}
#endif

#endif /* CL_JUDGE_RUN_OPTS_H */
