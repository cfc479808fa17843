/* baselines.cu: kernels the library baselines launch beside the library. */
#include "baselines.h"

#include "adamw.h"

#include "errcheck.h"

__global__ static void pad_left_kernel(const float *x, float *xp,
                                       long long total, int T, int pad)
{
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < total; i += stride) {
        long long row = i / (T + pad);
        int t = (int)(i % (T + pad));
        xp[i] = t < pad ? 0.0f : x[row * T + t - pad];
    }
}

extern "C" void cl_pad_left(const float *x, float *xp, long long rows, int T,
                            int pad, cudaStream_t s)
{
    long long total = rows * (T + pad);
    long long blocks = (total + 255) / 256;
    if (blocks > 1 << 20)
        blocks = 1 << 20;
    pad_left_kernel<<<(unsigned)blocks, 256, 0, s>>>(x, xp, total, T, pad);
    CUDA_CHECK_LAUNCH();
}

__global__ static void adamw_tensor_kernel(float *p, const float *g, float *m,
                                           float *v, long long n, float decay,
                                           float b1, float b2, float step_size,
                                           float bc2_sqrt, float eps)
{
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        float pi = p[i] * decay, gi = g[i];
        float mi = b1 * m[i] + (1.0f - b1) * gi;
        float vi = b2 * v[i] + (1.0f - b2) * gi * gi;
        p[i] = pi - step_size * mi / (sqrtf(vi) / bc2_sqrt + eps);
        m[i] = mi;
        v[i] = vi;
    }
}

extern "C" void cl_adamw_per_tensor(const struct adamw_tensor *ts, int count,
                                    const struct adamw_hparams *hp,
                                    cudaStream_t s)
{
    double bc1 = 1.0 - pow((double)hp->beta1, hp->step);
    double bc2 = 1.0 - pow((double)hp->beta2, hp->step);
    for (int i = 0; i < count; i++) {
        if (ts[i].n == 0)
            continue;
        long long blocks = (ts[i].n + 255) / 256;
        if (blocks > 4096)
            blocks = 4096;
        adamw_tensor_kernel<<<(unsigned)blocks, 256, 0, s>>>(
            ts[i].param, ts[i].grad, ts[i].exp_avg, ts[i].exp_avg_sq, ts[i].n,
            1.0f - hp->lr * hp->weight_decay, hp->beta1, hp->beta2,
            (float)(hp->lr / bc1), (float)sqrt(bc2), hp->eps);
        CUDA_CHECK_LAUNCH();
    }
}
