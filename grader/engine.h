/**
 * @file engine.h
 * @brief Grade one submission for one lab, in isolation.
 *
 * The calling process never touches CUDA (it is not fork-safe). It forks a
 * worker that initialises CUDA, loads the submission with dlopen and runs
 * one case per command, sending each result back over a pipe. A worker
 * that crashes, hangs past the case's limit or hits a sticky CUDA error is
 * killed and replaced; its case gets the matching status and the grade goes
 * on with the next case. Correctness cases run first; speed cases are timed
 * only when all of them passed.
 */
#ifndef CL_ENGINE_H
#define CL_ENGINE_H

#include "grader.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Grade @p o->lib_path for @p lab into @p g. Returns the exit code, also
 * stored in g->exit_code; g->summary says why when nothing was graded.
 * Returns CL_EXIT_USAGE when @p o->only_case names no case.
 */
enum cl_exit cl_grade_run(const struct cl_lab *lab,
                          const struct cl_grade_opts *o, struct cl_grade *g);

#ifdef __cplusplus
}
#endif

#endif /* CL_ENGINE_H */
