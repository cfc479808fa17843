/**
 * @file invoke.h
 * @brief The runner's half of each lab: build a call's host-side
 *        arguments, make the call, ask for the workspace size.
 *
 * Linked into the runner only: this is the code that calls the
 * submission's entry points (found by the names in protocol/glue.h) with
 * the case's buffers.
 */
#ifndef CL_RUNNER_INVOKE_H
#define CL_RUNNER_INVOKE_H

#include "protocol/glue.h"

#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A call as the runner makes it: the submission's entry points, the
 *  case's buffers (the student's pointers, in plan order) and the case. */
struct cl_bound {
    void *const *fn;     /**< the entry points, in the glue's order */
    void *const *buf;    /**< the buffers, in the plan's order */
    const size_t *bytes; /**< their usable sizes */
    int nbuf;            /**< how many */
    const void *arg;     /**< the lab's case struct */
    long long tag;       /**< per call: Lab 4's step number */
};

/** How the runner calls a lab. */
struct cl_glue {
    const char *id; /**< "01" */
    /** Build what the call needs on the host (structs of pointers) into
     *  @p scratch before the timed window; returns bytes used, or 0 when
     *  the arguments do not fit the buffers (the runner refuses). */
    size_t (*prepare)(const struct cl_bound *b, void *scratch, size_t cap);
    /** Make the call, with what prepare() built. */
    void (*invoke)(const struct cl_bound *b, const void *scratch,
                   cudaStream_t s);
    /** The workspace the submission asks for; NULL: the lab has none. */
    size_t (*query)(const struct cl_bound *b, const void *scratch);
};

/** The glue of lab @p id ("00" to "06"); NULL if none. */
const struct cl_glue *cl_glue_find(const char *id);

#ifdef __cplusplus
}
#endif

#endif /* CL_RUNNER_INVOKE_H */
