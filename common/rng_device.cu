/* rng_device.cu: device fill with the counter-based generator of rng.h. */
#include "errcheck.h"
#include "rng.h"

__global__ static void fill_uniform_kernel(float *p, size_t n, uint64_t seed,
                                           uint64_t stream, float lo, float hi)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        p[i] = cl_rand_uniform(seed, stream, i, lo, hi);
}

extern "C" void cl_fill_uniform_device(float *d_p, size_t n, uint64_t seed,
                                       uint64_t stream, float lo, float hi,
                                       cudaStream_t s)
{
    if (n == 0)
        return;
    size_t blocks = (n + 255) / 256;
    if (blocks > 65536)
        blocks = 65536;
    fill_uniform_kernel<<<(unsigned)blocks, 256, 0, s>>>(d_p, n, seed, stream,
                                                         lo, hi);
    CUDA_CHECK_LAUNCH();
}
