/**
 * @file trace.h
 * @brief What the student's call launched on the GPU, seen with CUPTI.
 *
 * The runner records every kernel, copy and memset of each call with
 * CUPTI's activity API (grader/runner/trace_cupti.h): name, grid, block,
 * stream and GPU time. The judge reads the record (struct cl_trace in
 * proto.h) as untrusted data: it names the launches in the report, and it
 * rejects work on a stream other than the one handed over, kernels of a
 * library the lab forbids, and traced GPU time that the timed window does
 * not account for (cl_trace_verdict()).
 */
#ifndef CL_JUDGE_TRACE_H
#define CL_JUDGE_TRACE_H

#include "protocol/proto.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The outcome of checking a trace. */
enum cl_trace_rule {
    CL_TRACE_OK = 0,     /**< nothing wrong */
    CL_TRACE_OFF_STREAM, /**< work on another stream: the case fails */
    CL_TRACE_LIBRARY     /**< a forbidden library's kernel: the case fails */
};

/**
 * Check trace @p t of a call against the rules: no launch off the given
 * stream; no kernel whose name contains one of @p forbidden
 * (NULL-terminated prefixes such as "cublas", "cudnn"). The first broken
 * rule is returned and described in @p why. A trace is the runner's
 * report: it can only incriminate the submission, never vouch for it (no
 * time rests on it, and an empty or missing one decides nothing).
 */
enum cl_trace_rule cl_trace_verdict(const struct cl_trace *t,
                                    const char *const *forbidden, char *why,
                                    size_t len);

/**
 * A kernel name for people: demangled, without its parameter list, cut to
 * fit, and with anything unprintable replaced (names come from the
 * student's code). Writes into @p buf.
 */
void cl_trace_name(const char *raw, char *buf, size_t len);

/**
 * The launches of @p t, one per line, as "  name<<<grid, block>>> x N
 * 0.812 ms" (copies and memsets with their bytes), at most @p max lines,
 * each prefixed with @p indent. Returns the characters written.
 */
int cl_trace_describe(const struct cl_trace *t, const char *indent, int max,
                      char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* CL_JUDGE_TRACE_H */
