/**
 * @file device.h
 * @brief The judge's own GPU: its stream, L2 flush, library handles, and
 *        memory helpers that work the same on the CPU self-test lab.
 *
 * One judge serves one lab: cl_judge_init() says whether that lab runs on
 * the GPU. Every judge module that touches memory goes through the helpers
 * here, so that the CPU lab (shared host memory) and the GPU labs (device
 * memory, some of it mapped from the runner) take the same code paths.
 */
#ifndef CL_JUDGE_DEVICE_H
#define CL_JUDGE_DEVICE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Set up the judge's side for a lab (@p gpu: a GPU lab): stream, events,
 *  the L2 flush. Returns 0, or -1 (no GPU) with the reason. */
int cl_judge_init(int gpu, char *why, size_t len);

/** Free what cl_judge_init() made (the process is about to exit). */
void cl_judge_shutdown(void);

/** 1 when the lab runs on the GPU, 0 for the CPU self-test lab. */
int cl_judge_gpu(void);

/** The judge's stream (NULL on the CPU lab). */
cudaStream_t cl_judge_stream(void);

/** Flush the L2 cache on the judge's stream (nothing on the CPU lab). */
void cl_judge_flush_l2(void);

/** The judge's cuBLAS handle (default FP32 math) and cuDNN handle,
 *  created on first use. */
void *cl_judge_cublas(void);
/** See cl_judge_cublas(). */
void *cl_judge_cudnn(void);

/** Time @p run(ctx) on the judge's stream with CUDA events, behind the L2
 *  flush and the gate (what a timed baseline and the ceiling go through);
 *  the CPU lab times it with the clock. Milliseconds. */
double cl_judge_time(void (*run)(void *ctx), void *ctx);

/** Memory of @p bytes (at least 1) on the device, or zeroed on the host
 *  (CPU lab); free with cl_judge_free(). */
void *cl_judge_alloc(size_t bytes);
/** Free what cl_judge_alloc() returned (NULL is fine). */
void cl_judge_free(void *p);

/** memset, memcpy (any direction) and stream sync, on the judge's stream
 *  or on the host. */
void cl_mem_set(void *p, int v, size_t n);
/** See cl_mem_set(). */
void cl_mem_copy(void *dst, const void *src, size_t n);
/** See cl_mem_set(). */
void cl_mem_sync(void);
/** A blocking copy to host memory @p dst. */
void cl_mem_read(void *dst, const void *src, size_t n);

/** How many other processes hold a compute context on the judge's GPU,
 *  the judge and @p mine (a runner, or 0) not counted, as the driver's
 *  management library (NVML, loaded when first asked) lists them; -1
 *  when it cannot tell (no NVML, no answer in time, the CPU lab). The
 *  driver lists only processes it can name in the judge's PID namespace:
 *  one in another container is not counted (docs/grading.md). */
int cl_judge_gpu_others(pid_t mine);

/** 64 bits from the kernel's random source: what the runner cannot
 *  predict (the case's salt, the rows a check samples). */
uint64_t cl_private_random(void);

#ifdef __cplusplus
}
#endif

#endif /* CL_JUDGE_DEVICE_H */
