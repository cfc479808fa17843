/**
 * @file labs.h
 * @brief The registry of the labs the grader knows.
 */
#ifndef CL_SPECS_LABS_H
#define CL_SPECS_LABS_H

#include "judge/lab.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Every lab the grader knows, in order; NULL-terminated. */
extern const struct cl_lab *const cl_labs[];

/**
 * Find a lab by "01", "1", "vector-add" or "01-vector-add"; NULL if none.
 * @p extra is searched first (tests pass their own labs), may be NULL.
 */
const struct cl_lab *cl_lab_find(const char *name,
                                 const struct cl_lab *const *extra);

/** What Labs 5 and 6 allow: cuBLAS (its imports and libraries), never
 *  cuDNN (their baseline). */
extern const struct cl_caps cl_caps_cublas_allowed;

#ifdef __cplusplus
}
#endif

#endif /* CL_SPECS_LABS_H */
