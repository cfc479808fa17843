/* rng.c: host fill with the counter-based generator of rng.h. A large fill
 * is split over a few threads: every element is a pure function of its
 * index, so the result is the same bytes whatever the split. */
#define _GNU_SOURCE /* sched_getaffinity */
#include "rng.h"

#include <pthread.h>
#include <sched.h>

#define SPLIT_FROM  (1u << 20) /* elements: below this, one thread */
#define MAX_THREADS 8

/* one part of a fill: floats in [lo, hi) or ints modulo mod */
struct part {
    float *f;
    int *i;
    size_t from, n;
    uint64_t seed, stream, index0;
    float lo, hi;
    int mod;
};

static void fill_part(const struct part *p)
{
    if (p->f)
        for (size_t k = p->from; k < p->from + p->n; k++)
            p->f[k] = cl_rand_uniform(p->seed, p->stream, p->index0 + k, p->lo,
                                      p->hi);
    else
        for (size_t k = p->from; k < p->from + p->n; k++)
            p->i[k] = (int)(cl_rand_bits(p->seed, p->stream, p->index0 + k) %
                            (uint64_t)p->mod);
}

static void *fill_thread(void *arg)
{
    fill_part(arg);
    return NULL;
}

/* the CPUs this process may run on, at most MAX_THREADS */
static int fill_threads(void)
{
    cpu_set_t set;
    int n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : n;
}

/* fill @p whole's elements 0 .. n-1, in parts on threads when it is large;
 * a thread that cannot start leaves its part to this one */
static void fill(struct part whole, size_t n)
{
    int t = n >= SPLIT_FROM ? fill_threads() : 1;
    struct part parts[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    size_t per = (n + (size_t)t - 1) / (size_t)t;
    for (int k = 0; k < t; k++) {
        parts[k] = whole;
        parts[k].from = (size_t)k * per < n ? (size_t)k * per : n;
        parts[k].n = parts[k].from + per < n ? per : n - parts[k].from;
        if (k > 0)
            started[k] =
                pthread_create(&tid[k], NULL, fill_thread, &parts[k]) == 0;
    }
    fill_part(&parts[0]);
    for (int k = 1; k < t; k++) {
        if (started[k])
            pthread_join(tid[k], NULL);
        else
            fill_part(&parts[k]);
    }
}

void cl_fill_uniform_host_at(float *p, size_t n, uint64_t seed, uint64_t stream,
                             uint64_t index0, float lo, float hi)
{
    struct part w = {.f = p,
                     .seed = seed,
                     .stream = stream,
                     .index0 = index0,
                     .lo = lo,
                     .hi = hi};
    fill(w, n);
}

void cl_fill_ints_host(int *p, size_t n, uint64_t seed, uint64_t stream,
                       int mod)
{
    struct part w = {.i = p, .seed = seed, .stream = stream, .mod = mod};
    fill(w, n);
}
