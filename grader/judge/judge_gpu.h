/**
 * @file judge_gpu.h
 * @brief The judge's own kernels: whole-output comparison on the device,
 *        and the streaming copy that stands beside cudaMemcpy as the
 *        ceiling of bandwidth-bound labs.
 */
#ifndef CL_JUDGE_GPU_H
#define CL_JUDGE_GPU_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The outcome of a device comparison. */
struct cl_devcmp {
    unsigned long long n_bad;       /**< elements outside the tolerance */
    unsigned long long n_poison;    /**< of those, never written */
    unsigned long long n_nonfinite; /**< of those, NaN or infinite */
    unsigned long long first_bad;   /**< the first bad index (n if none) */
    double err2;                    /**< sum of squared differences */
    double ref2;                    /**< sum of squared references */
    double max_err;                 /**< largest finite difference */
};

/**
 * Compare @p n elements of @p got with @p want on the device: floats
 * (|got - want| <= atol + rtol |want|, poison and non-finite never pass),
 * or with @p is_int, ints for equality. Synchronises @p s; fills @p out.
 * Errors in the judge's own calls are fatal.
 */
void cl_compare_device(const void *got, const void *want, size_t n, int is_int,
                       double atol, double rtol, struct cl_devcmp *out,
                       cudaStream_t s);

/** Count elements of @p p[0..n) equal to the poison pattern (4-byte
 *  elements); the first one's index into *first (n if none). */
unsigned long long cl_count_poison_device(const void *p, size_t n,
                                          unsigned long long *first,
                                          cudaStream_t s);

/** Copy @p bytes with 16-byte vector loads and stores, several in flight
 *  per thread, streaming cache hints; any alignment. */
void cl_stream_copy(void *dst, const void *src, size_t bytes, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif /* CL_JUDGE_GPU_H */
