/* rng.c: host fill with the counter-based generator of rng.h. A large fill
 * is split over threads (split.h): every element is a pure function of its
 * index, so the result is the same bytes whatever the split. */
#include "rng.h"

#include "split.h"

#define SPLIT_PART (1u << 17) /* elements a thread takes, at least */

/* a fill: floats in [lo, hi) or ints modulo mod */
struct fill {
    float *f;
    int *i;
    uint64_t seed, stream, index0;
    float lo, hi;
    int mod;
};

static void fill_part(void *ctx, size_t from, size_t to)
{
    const struct fill *p = ctx;
    if (p->f)
        for (size_t k = from; k < to; k++)
            p->f[k] = cl_rand_uniform(p->seed, p->stream, p->index0 + k, p->lo,
                                      p->hi);
    else
        for (size_t k = from; k < to; k++)
            p->i[k] = (int)(cl_rand_bits(p->seed, p->stream, p->index0 + k) %
                            (uint64_t)p->mod);
}

void cl_fill_uniform_host_at(float *p, size_t n, uint64_t seed, uint64_t stream,
                             uint64_t index0, float lo, float hi)
{
    struct fill w = {.f = p,
                     .seed = seed,
                     .stream = stream,
                     .index0 = index0,
                     .lo = lo,
                     .hi = hi};
    cl_split(n, SPLIT_PART, fill_part, &w);
}

void cl_fill_ints_host(int *p, size_t n, uint64_t seed, uint64_t stream,
                       int mod)
{
    struct fill w = {.i = p, .seed = seed, .stream = stream, .mod = mod};
    cl_split(n, SPLIT_PART, fill_part, &w);
}
