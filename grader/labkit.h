/**
 * @file labkit.h
 * @brief Helpers that keep each lab spec small: run-and-check the student's
 *        call, guard checks, comparison verdicts, timing results.
 */
#ifndef CL_LABKIT_H
#define CL_LABKIT_H

#include "compare.h"
#include "grader.h"
#include "guard.h"
#include "timing.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Look up the entry point @p name in the submission @p lib (a dlopen
 * handle); NULL with the reason in @p err when it is missing.
 */
void *cl_entry_point(void *lib, const char *name, char *err, size_t len);

/**
 * An input of @p n floats: a guarded device buffer @p d (@p offset bytes
 * past an aligned start) filled on the device with uniform values in
 * [-1, 1) from stream @p stream of the run's seed. Returns the same values
 * on the host (malloc'd: free them).
 */
float *cl_input_create(struct cl_dbuf *d, size_t n, size_t offset,
                       const struct cl_ctx *ctx, uint64_t stream);

/** An output of @p n floats: a guarded device buffer, poisoned. */
void cl_output_create(struct cl_dbuf *d, size_t n, size_t offset,
                      const struct cl_ctx *ctx);

/**
 * Start (@p on = 1) or stop (0) the profiler's capture around the
 * student's call when the run is in --profile mode; nothing otherwise.
 * With `ncu --profile-from-start off` only the student's kernels are seen.
 */
void cl_profile_mark(const struct cl_ctx *ctx, int on);

/**
 * Synchronise @p s and collect the CUDA error the student's code left, if
 * any. On error fill @p r (status CL_ST_CUDA, a message naming @p when,
 * restart for sticky errors) and return 1.
 */
int cl_student_error(cudaStream_t s, const char *when, struct cl_result *r);

/**
 * Check the guard zones of @p n buffers named @p names (element size
 * @p elem). On a write outside a buffer fill @p r (CL_ST_OOB) and return 1.
 */
int cl_check_guards(const struct cl_dbuf *const *bufs, const char *const *names,
                    int n, size_t elem, cudaStream_t s, struct cl_result *r);

/**
 * Turn a failed comparison into a verdict: CL_ST_WRONG with the
 * description. Returns 1 when @p c failed, 0 when it passed.
 */
int cl_verdict(const struct cl_compare *c, const char *what,
               struct cl_result *r);

/**
 * Copy @p n floats of device output back and compare with @p ref.
 * Returns 1 (and fills @p r) when wrong.
 */
int cl_check_output(const float *d_out, const double *ref, size_t n,
                    const struct cl_tolerance *tol, const char *what,
                    struct cl_result *r);

/**
 * The indices a lab checks against its CPU reference: all @p count of them
 * when there are at most @p max, else @p max spread evenly from the first
 * to the last. Writes them into @p out (room for the smaller of the two)
 * and returns how many.
 */
int cl_spread_indices(int count, int max, int *out);

/**
 * Time @p n items (student first, then the baseline, then optionally the
 * ceiling) with the default options and store the medians in @p r. Returns
 * 1 (with @p r filled) when the student's code failed under repetition.
 */
int cl_time_case(const struct cl_ctx *ctx, struct cl_timed *items, int n,
                 struct cl_result *r);

#ifdef __cplusplus
}
#endif

#endif /* CL_LABKIT_H */
