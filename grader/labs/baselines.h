/**
 * @file baselines.h
 * @brief Small GPU helpers that the library baselines need around the
 *        library call (what a framework would launch beside it).
 */
#ifndef CL_BASELINES_H
#define CL_BASELINES_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Left-pad each of @p rows rows of @p T floats with @p pad zeros:
 * xp is (rows, T + pad). This is F.pad(x, (pad, 0)) before a causal conv.
 */
void cl_pad_left(const float *x, float *xp, long long rows, int T, int pad,
                 cudaStream_t s);

struct adamw_tensor;
struct adamw_hparams;

/**
 * The per-tensor loop an unfused optimizer runs: one straightforward AdamW
 * kernel launch per non-empty tensor (Lab 4's baseline).
 */
void cl_adamw_per_tensor(const struct adamw_tensor *ts, int count,
                         const struct adamw_hparams *hp, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif /* CL_BASELINES_H */
