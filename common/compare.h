/**
 * @file compare.h
 * @brief Compare a float32 result with a double-precision reference.
 *
 * An element passes when |got - ref| <= atol + rtol * |ref|. NaN and
 * infinity never pass, and an element still holding the poison pattern is
 * counted as never written. The relative L2 error ||got - ref|| / ||ref||
 * must also stay under max_rel_l2 (0 disables that check). The first few
 * mismatches are kept with index, got and expected.
 */
#ifndef CL_COMPARE_H
#define CL_COMPARE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CL_MAX_REPORTED 5 /**< mismatches kept for the message */

/** Tolerances for one comparison. */
struct cl_tolerance {
    double atol;       /**< absolute part */
    double rtol;       /**< relative part */
    double max_rel_l2; /**< bound on ||got-ref||/||ref||; 0 = not checked */
};

/** One wrong element. */
struct cl_mismatch {
    size_t index;    /**< element index */
    double got;      /**< what the student wrote */
    double expected; /**< the reference */
    int unwritten;   /**< 1 when got is the poison pattern */
};

/** Outcome of a comparison. */
struct cl_compare {
    size_t n;           /**< elements compared */
    size_t n_bad;       /**< elements outside the tolerance (all kinds) */
    size_t n_unwritten; /**< of those, still poisoned */
    size_t n_nonfinite; /**< of those, NaN or infinite (not poison) */
    double max_abs_err; /**< over finite elements */
    double rel_l2;      /**< ||got-ref|| / ||ref|| over finite elements */
    int norm_ok;        /**< rel_l2 within max_rel_l2 */
    int pass;           /**< n_bad == 0 && norm_ok */
    int n_reported;     /**< entries used in first[] */
    struct cl_mismatch first[CL_MAX_REPORTED]; /**< the first mismatches */
};

/**
 * Compare @p got[idx[k]] with @p ref[k] for k < n, or got[k] with ref[k]
 * when @p idx is NULL (sampled checks of large outputs pass the indices).
 */
void cl_compare_f32(const float *got, const double *ref, const size_t *idx,
                    size_t n, const struct cl_tolerance *tol,
                    struct cl_compare *out);

/**
 * One or two sentences for the student: how many were wrong, how many were
 * never written, the first mismatches. @p what names the output. Returns
 * the number of characters written.
 */
int cl_compare_describe(const struct cl_compare *c, const char *what, char *buf,
                        size_t len);

#ifdef __cplusplus
}
#endif

#endif /* CL_COMPARE_H */
