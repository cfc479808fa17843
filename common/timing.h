/**
 * @file timing.h
 * @brief Time GPU work with CUDA events: warm-up, L2 flush, interleaving,
 *        adaptive repeats, median.
 *
 * Host clocks time the launch, not the kernel: launches return before the
 * GPU has done the work. Events recorded on the stream bracket the work
 * itself. Before every timed call the L2 is flushed (a memset over twice its
 * size), so each call starts cold, as it would in a real model. Several
 * functions are timed round-robin in one loop, so drift in clocks or
 * temperature affects all of them alike.
 */
#ifndef CL_TIMING_H
#define CL_TIMING_H

#include "stats.h"

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Work to time: enqueue it on @p s. */
typedef void (*cl_timed_fn)(void *ctx, cudaStream_t s);

/** One function to time and, afterwards, its statistics. */
struct cl_timed {
    const char *name;   /**< for messages */
    cl_timed_fn fn;     /**< enqueues the work */
    void *ctx;          /**< passed to fn */
    struct cl_stats ms; /**< filled in: milliseconds per call */
};

/** How long to time. */
struct cl_timing_opts {
    int warmup;          /**< untimed calls of each function first */
    int min_reps;        /**< at least this many timed calls */
    int max_reps;        /**< at most this many */
    double max_total_ms; /**< stop adding repeats after this much GPU time */
    double stable_rel;   /**< stop once every median moves less than this */
    int flush_l2;        /**< flush L2 before each timed call */
};

/** Defaults: 3 warm-ups, 10 to 200 repeats, 2 s, 1% stability, flush on. */
struct cl_timing_opts cl_timing_defaults(void);

/** A device-to-device copy to time: the ceiling of memory-bound labs. */
struct cl_copy {
    void *dst;       /**< destination, device */
    const void *src; /**< source, device */
    size_t bytes;    /**< bytes copied (each read once, written once) */
};

/** A cl_timed_fn: enqueue the copy described by @p ctx (a cl_copy). */
void cl_run_copy(void *ctx, cudaStream_t s);

/** Timing state: stream, events and the flush buffer. */
struct cl_timer;

/** Create a timer on @p s; the flush buffer is twice the device's L2. */
struct cl_timer *cl_timer_create(cudaStream_t s);
/** Free a timer (NULL is fine). */
void cl_timer_destroy(struct cl_timer *t);
/** Evict the L2 (enqueued on the timer's stream); returns the memset's error.
 */
cudaError_t cl_timer_flush_l2(struct cl_timer *t);

/**
 * Time @p n functions interleaved. Fills items[k].ms. Returns the first CUDA
 * error seen after a timed call (the student's code may fail under
 * repetition) or cudaSuccess; errors in the timer's own calls are fatal.
 */
cudaError_t cl_time_interleaved(struct cl_timer *t, struct cl_timed *items,
                                int n, const struct cl_timing_opts *o);

#ifdef __cplusplus
}
#endif

#endif /* CL_TIMING_H */
