/**
 * @file split.h
 * @brief A loop over independent items, spread over the CPUs this process
 *        may run on (the judge's large fills and its CPU reference checks).
 *
 * The items are cut into contiguous parts, one a thread; each part runs
 * the same code it would on one thread, so whatever the split, every item
 * comes out the same bytes.
 */
#ifndef CL_SPLIT_H
#define CL_SPLIT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Items @p from .. @p to - 1 of a split loop. */
typedef void (*cl_split_fn)(void *ctx, size_t from, size_t to);

/** Threads a split uses at most: CL_CHECK_THREADS when it is a number from
 *  1 up, else the CPUs this process may run on; 16 at most. */
int cl_split_threads(void);

/**
 * Runs fn(ctx, from, to) over items 0 .. n - 1 in contiguous parts of at
 * least @p min_part items (so one part, on this thread, below 2 *
 * min_part), at most cl_split_threads() of them, and returns when all are
 * done. A part whose thread cannot start runs on this thread. @p fn runs
 * on several threads at once: it reads what the caller holds and writes
 * only its own items' results.
 */
void cl_split(size_t n, size_t min_part, cl_split_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* CL_SPLIT_H */
