/**
 * @file rng.h
 * @brief Counter-based random inputs, identical on the host and the device.
 *
 * Element @c i of stream @c s under seed @c seed is a pure function of the
 * three, so the grader can fill a buffer on the GPU and recompute any
 * element on the CPU, and a seed replays a run exactly. Values are
 * multiples of 2^-23 in [lo, hi) for lo, hi small powers of two, so they are
 * exact in float on both sides.
 */
#ifndef CL_RNG_H
#define CL_RNG_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

/** Marks functions compiled for both the host and the device. */
#ifdef __CUDACC__
#define CL_HD __host__ __device__
#else
#define CL_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** splitmix64's finaliser: a bijective 64-bit mix. */
CL_HD static inline uint64_t cl_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/** 64 random bits for element @p i of stream @p stream. */
CL_HD static inline uint64_t cl_rand_bits(uint64_t seed, uint64_t stream,
                                          uint64_t i)
{
    return cl_mix64(seed ^ cl_mix64(stream * 0x9e3779b97f4a7c15ULL + i));
}

/** Uniform float in [0, 1): a multiple of 2^-24. */
CL_HD static inline float cl_rand_unit(uint64_t seed, uint64_t stream,
                                       uint64_t i)
{
    return (float)(cl_rand_bits(seed, stream, i) >> 40) * (1.0f / 16777216.0f);
}

/** Uniform float in [lo, hi), rounded the same way on host and device. */
CL_HD static inline float cl_rand_uniform(uint64_t seed, uint64_t stream,
                                          uint64_t i, float lo, float hi)
{
    float u = cl_rand_unit(seed, stream, i);
#ifdef __CUDA_ARCH__
    return __fadd_rn(lo, __fmul_rn(hi - lo, u));
#else
    return lo + (hi - lo) * u;
#endif
}

/** Fill host memory with elements index0 .. index0 + n - 1 of the stream:
 *  p[i] = cl_rand_uniform(seed, stream, index0 + i, lo, hi). */
void cl_fill_uniform_host_at(float *p, size_t n, uint64_t seed, uint64_t stream,
                             uint64_t index0, float lo, float hi);

/**
 * Fill device memory the same way, asynchronously on @p s. The launch is
 * checked; errors end the process through cl_fatal().
 */
void cl_fill_uniform_device_at(float *d_p, size_t n, uint64_t seed,
                               uint64_t stream, uint64_t index0, float lo,
                               float hi, cudaStream_t s);

/** Random ints in [0, mod): p[i] = cl_rand_bits(seed, stream, i) % mod. */
void cl_fill_ints_host(int *p, size_t n, uint64_t seed, uint64_t stream,
                       int mod);

/** The device fill of cl_fill_ints_host(), on @p s. */
void cl_fill_ints_device(int *d_p, size_t n, uint64_t seed, uint64_t stream,
                         int mod, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif /* CL_RNG_H */
