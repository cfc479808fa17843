/* rng_device.cu: device fills with the counter-based generator of rng.h. */
#include "errcheck.h"
#include "rng.h"

__global__ static void fill_uniform_kernel(float *p, size_t n, uint64_t seed,
                                           uint64_t stream, uint64_t index0,
                                           float lo, float hi)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        p[i] = cl_rand_uniform(seed, stream, index0 + i, lo, hi);
}

__global__ static void fill_ints_kernel(int *p, size_t n, uint64_t seed,
                                        uint64_t stream, uint64_t mod)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        p[i] = (int)(cl_rand_bits(seed, stream, i) % mod);
}

static unsigned blocks_for(size_t n)
{
    size_t blocks = (n + 255) / 256;
    return (unsigned)(blocks > 65536 ? 65536 : blocks);
}

extern "C" void cl_fill_uniform_device_at(float *d_p, size_t n, uint64_t seed,
                                          uint64_t stream, uint64_t index0,
                                          float lo, float hi, cudaStream_t s)
{
    if (n == 0)
        return;
    fill_uniform_kernel<<<blocks_for(n), 256, 0, s>>>(d_p, n, seed, stream,
                                                      index0, lo, hi);
    CUDA_CHECK_LAUNCH();
}

extern "C" void cl_fill_ints_device(int *d_p, size_t n, uint64_t seed,
                                    uint64_t stream, int mod, cudaStream_t s)
{
    if (n == 0 || mod <= 0)
        return;
    fill_ints_kernel<<<blocks_for(n), 256, 0, s>>>(d_p, n, seed, stream,
                                                   (uint64_t)mod);
    CUDA_CHECK_LAUNCH();
}
