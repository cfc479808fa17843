/**
 * @file refs.h
 * @brief CPU references of the labs: plain C, double accumulation.
 *
 * The grader computes expected outputs with these; the unit tests check
 * them against values worked out by hand.
 */
#ifndef CL_REFS_H
#define CL_REFS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Lab 1: ref[i] = (double)a[i] + (double)b[i] for i < n. */
void vector_add_ref(const float *a, const float *b, double *ref, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* CL_REFS_H */
