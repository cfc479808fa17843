/**
 * @file gate.h
 * @brief The gate: one thread that keeps a stream busy for a set time.
 *
 * Every timed call, the student's in the runner and the baselines' in the
 * judge, is enqueued behind a gate of the same length: the host's launch
 * latency is then hidden the same way for everyone, and the stream is busy
 * when the call starts, on every call alike. The trace of a call starts
 * after its gate.
 */
#ifndef CL_GATE_H
#define CL_GATE_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CL_GATE_US 40 /**< its length, microseconds */

/** Enqueue a gate of @p us microseconds on @p s; the launch's error. */
cudaError_t cl_gate(int us, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif /* CL_GATE_H */
