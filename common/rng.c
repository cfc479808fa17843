/* rng.c: host fill with the counter-based generator of rng.h. */
#include "rng.h"

void cl_fill_uniform_host(float *p, size_t n, uint64_t seed, uint64_t stream,
                          float lo, float hi)
{
    for (size_t i = 0; i < n; i++)
        p[i] = cl_rand_uniform(seed, stream, i, lo, hi);
}

void cl_fill_uniform_host_at(float *p, size_t n, uint64_t seed, uint64_t stream,
                             uint64_t index0, float lo, float hi)
{
    for (size_t i = 0; i < n; i++)
        p[i] = cl_rand_uniform(seed, stream, index0 + i, lo, hi);
}

void cl_fill_ints_host(int *p, size_t n, uint64_t seed, uint64_t stream,
                       int mod)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (int)(cl_rand_bits(seed, stream, i) % (uint64_t)mod);
}
