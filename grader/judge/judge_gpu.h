/**
 * @file judge_gpu.h
 * @brief The judge's own kernels: whole-output comparison on the device,
 *        the sampled check that stops the judge's clock, the probe that
 *        shows the GPU idle, and the streaming copy that stands beside
 *        cudaMemcpy as the ceiling of bandwidth-bound labs.
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

/** One output of a sampled check: @p n elements of @p got, each sample
 *  compared with @p want (NULL: only that it was written, not poison). */
struct cl_sample_buf {
    const void *got;  /**< the student's buffer (the runner's memory) */
    const void *want; /**< the baseline's, or NULL */
    unsigned long long n;
    int is_int;        /**< ints compare equal; floats within tolerance */
    double atol, rtol; /**< |got - want| <= atol + rtol |want| */
};

#define CL_SAMPLE_BUFS 24 /**< outputs one sampled check takes, at most */

/**
 * The check that stops the judge's clock on a call: @p k elements of each
 * of the @p nbuf outputs in @p b, at positions drawn from @p seed (the
 * judge's, drawn after the reply) plus the first and the last, compared
 * on the device. Returns how many samples failed (0: the output was
 * complete and right where it was looked at). Synchronises @p s.
 */
unsigned cl_sample_check(const struct cl_sample_buf *b, int nbuf, int k,
                         unsigned long long seed, cudaStream_t s);

/** What the idle probe saw. */
struct cl_probe {
    double gap_us;  /**< the longest gap between two reads of the GPU's
                         clock by the probe: a time slice of another
                         context shows here */
    double wall_us; /**< the host's time from the launch to the end */
};

/**
 * The idle probe: one warp of the judge's context reads the GPU's global
 * timer for @p ns nanoseconds. Contexts share a GPU by time slices, so
 * work still running in another context (a runner's kernel left behind)
 * takes the GPU from the probe for a slice: a gap in its reads, and a
 * longer wall time. Synchronises @p s.
 */
void cl_idle_probe(unsigned long long ns, cudaStream_t s, struct cl_probe *out);

/** Allocate the small buffers these kernels use, once, at the judge's
 *  start: before any runner can take the GPU's memory. */
void cl_judge_gpu_reserve(void);

/** Copy @p bytes with 16-byte vector loads and stores, several in flight
 *  per thread, streaming cache hints; any alignment. */
void cl_stream_copy(void *dst, const void *src, size_t bytes, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif /* CL_JUDGE_GPU_H */
