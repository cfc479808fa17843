/* baselines.cu: kernels the library baselines launch beside the library. */
#include "baselines.h"

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
