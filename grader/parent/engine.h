/**
 * @file engine.h
 * @brief Grade one submission for one lab: the processes around the cases.
 *
 * Three kinds of process take part (docs/grading.md, "Threat model"):
 *
 *  - the grader's own process (this one) never touches CUDA and never runs
 *    student code: it checks the submission's ELF file against the lab's
 *    capabilities, reads the lab's data, starts the judge, collects each
 *    case's result as it comes, scores, and writes the report;
 *  - the judge, forked from it before CUDA starts, decides: it makes the
 *    inputs and their host copies, computes the references, runs and times
 *    the library baselines, checks every output and confirms every time;
 *  - for each case, a runner (cl-runner), spawned by the judge in a
 *    session of its own and sandboxed, which alone loads and calls the
 *    submission.
 *
 * A runner that crashes, hangs or breaks a rule ends its case only; a
 * judge that fails is replaced and the grade goes on with the next case.
 * Correctness cases run first; speed cases are timed only when all of them
 * passed.
 */
#ifndef CL_ENGINE_H
#define CL_ENGINE_H

#include "parent/grade.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Grade @p o->lib_path for @p lab into @p g. Returns the exit code, also
 * stored in g->exit_code; g->summary says why when nothing was graded.
 * Returns CL_EXIT_USAGE when a name in @p o->only is no case of the lab.
 */
enum cl_exit cl_grade_run(const struct cl_lab *lab,
                          const struct cl_grade_opts *o, struct cl_grade *g);

/**
 * The static checks alone (--check): read @p path and hold it against the
 * lab's entry points and capabilities. Returns CL_EXIT_OK, CL_EXIT_LOAD or
 * CL_EXIT_FORBIDDEN with the reason in @p why. Needs no GPU.
 */
enum cl_exit cl_check_submission(const struct cl_lab *lab, const char *path,
                                 char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* CL_ENGINE_H */
