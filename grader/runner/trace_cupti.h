/**
 * @file trace_cupti.h
 * @brief The runner's trace of a call: CUPTI's activity records of every
 *        kernel, copy and memset, collected into a struct cl_trace
 *        (protocol/proto.h) that the judge reads as a report.
 */
#ifndef CL_RUNNER_TRACE_CUPTI_H
#define CL_RUNNER_TRACE_CUPTI_H

#include "protocol/proto.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Start CUPTI's activity records (before CUDA creates its context).
 *  Returns 0, or -1 with the reason in @p why. */
int cl_trace_cupti_init(char *why, size_t len);

/** Remember which CUPTI stream ids are the student's stream and the legacy
 *  default stream (after the context exists). */
void cl_trace_cupti_streams(void *stream);

/** Record launches from now on (@p on = 1), or stop recording: tracing
 *  slows every launch, so timed calls run without it. */
void cl_trace_cupti_enable(int on);

/** Flush the records of the call just made into @p t (and forget them). */
void cl_trace_cupti_collect(struct cl_trace *t);

#ifdef __cplusplus
}
#endif

#endif /* CL_RUNNER_TRACE_CUPTI_H */
