/* rng.c: host fill with the counter-based generator of rng.h. */
#include "rng.h"

void cl_fill_uniform_host(float *p, size_t n, uint64_t seed, uint64_t stream,
                          float lo, float hi)
{
    for (size_t i = 0; i < n; i++)
        p[i] = cl_rand_uniform(seed, stream, i, lo, hi);
}
