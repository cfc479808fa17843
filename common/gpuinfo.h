/**
 * @file gpuinfo.h
 * @brief What GPU this is, the library versions, and its measured peaks.
 *
 * The peaks are measured once per GPU (a 1 GiB device-to-device copy, and a
 * 4096^3 FP32 SGEMM through cuBLAS in its default math) and cached as JSON
 * under the cache directory, keyed by the GPU's UUID and the driver.
 */
#ifndef CL_GPUINFO_H
#define CL_GPUINFO_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A GPU and the software around it. Plain data: it crosses a pipe. */
struct cl_gpu_info {
    char name[256];   /**< e.g. "NVIDIA H200" */
    char uuid[48];    /**< "GPU-xxxxxxxx-..." */
    int device;       /**< CUDA device index */
    int cc_major;     /**< compute capability, major */
    int cc_minor;     /**< compute capability, minor */
    int sm_count;     /**< multiprocessors */
    size_t l2_bytes;  /**< L2 cache size */
    size_t mem_bytes; /**< global memory */
    int driver;       /**< cudaDriverGetVersion, e.g. 13000 */
    int runtime;      /**< cudaRuntimeGetVersion */
    int cublas;       /**< e.g. 130100 */
    int cudnn;        /**< e.g. 91400 */
    double
        bw_theory_gbps;  /**< from memory clock and bus width (0 if unknown) */
    double memcpy_gbps;  /**< measured D2D copy, bytes read + written */
    double sgemm_tflops; /**< measured FP32 SGEMM */
    double fp32_theory_tflops; /**< FP32 lanes x 2 x SMs x boost clock
                                    (0 if unknown) */
    int calibrated;            /**< memcpy_gbps and sgemm_tflops are valid */
};

/**
 * Why there is no usable GPU, in one sentence, from the error @p e of a
 * process's first CUDA call (cudaGetDeviceCount; cudaSuccess when it found
 * zero devices), into @p buf, which it returns. A machine without an NVIDIA
 * driver gets "no NVIDIA driver or GPU found" (the runtime's own words for
 * it are "CUDA driver version is insufficient for CUDA runtime version");
 * a driver too old for the runtime, a driver that sees no GPU (and a
 * CUDA_VISIBLE_DEVICES that hides them), a busy GPU and any other error
 * are said as such. Every place that reports a missing GPU (the grader,
 * the test suites' skip lines) words it through here.
 */
const char *cl_no_gpu_reason(cudaError_t e, char *buf, size_t len);

/**
 * Fill @p g for device 0. Returns 0, or -1 when there is no usable CUDA
 * device; then @p why (if not NULL) says why in one line.
 */
int cl_gpu_query(struct cl_gpu_info *g, char *why, size_t why_len);

/** Format a CUDA-style version (13000 -> "13.0", 91400 -> "9.14.0"). */
void cl_version_string(int v, int is_cudnn, char *buf, size_t len);

/**
 * The FP32 SIMT peak in TFLOP/s of a GPU of compute capability
 * @p major.@p minor with @p sms multiprocessors at @p clock_khz: its FP32
 * lanes per SM (64 on cc 6.0, 7.x and 8.0; 128 on the others from 5.0),
 * two FLOPs each (a fused multiply-add), every cycle. 0 when an argument
 * is not positive or the architecture predates 5.0.
 */
double cl_fp32_theory_tflops(int major, int minor, int sms, int clock_khz);

/**
 * Whether the measured peaks of @p g are those of an idle GPU, not of one
 * measured under a sanitizer or a profiler, or shared with other work: the
 * copy at least 10% of the theoretical bandwidth (a MIG slice gets its
 * share of a bus the driver gives whole) and the SGEMM at least 30% of the
 * FP32 peak (cuBLAS reaches 55% to 90% of it), each where the theory is
 * known; and neither rate zero. 1 or 0.
 */
int cl_peaks_plausible(const struct cl_gpu_info *g);

/**
 * Fill the measured peaks of @p g: read them from @p cache_dir when present,
 * plausible (cl_peaks_plausible) and @p force is 0; else, when
 * @p may_measure, measure them (once more when the first figures are not
 * plausible) and write the cache (best effort) only when they are. With
 * @p may_measure 0 (under a sanitizer or a profiler, which slow the GPU
 * many times over) nothing is measured or written: without a cache the
 * peaks stay 0 and g->calibrated 0.
 */
void cl_gpu_calibrate(struct cl_gpu_info *g, const char *cache_dir, int force,
                      int may_measure);

/** Write the peaks of @p g as JSON to @p path atomically; 0 on success. */
int cl_peaks_save(const struct cl_gpu_info *g, const char *path);

/**
 * Read peaks for @p g from @p path: only when the file names the same UUID
 * and driver, and its figures are plausible for @p g (cl_peaks_plausible:
 * a cache written by an older grader under a sanitizer is measured again).
 * Returns 0 and sets g->calibrated, or -1 and leaves @p g as it was.
 */
int cl_peaks_load(struct cl_gpu_info *g, const char *path);

/** The default cache directory: $CUDALABS_CACHE, $XDG_CACHE_HOME/cuda-labs
 *  or $HOME/.cache/cuda-labs. */
void cl_default_cache_dir(char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* CL_GPUINFO_H */
