/* Red team: predict the timed calls' inputs and answer from a table.
 *
 * The inputs come from a public counter-based generator keyed by the run's
 * seed, and the default seed is one of 10^9 values. In the untimed check
 * call this submission finds the seed by brute force from a[0..3] (about a
 * second on two threads), derives the seeds of the calls that follow the
 * way the judge did before their seeds took a private salt (the case's
 * index and the call's number; cl_case_seed() in grader/judge/case.h), and
 * computes their answers while nothing is timed.
 * The warm-up and timed calls then copy the expected c from the table
 * without reading a or b (two streams of memory instead of three), trusting
 * the prediction.
 *
 * The grader must not accept it: the inputs of the calls after the check
 * round must not be predictable from anything the runner can see (they
 * take a private salt), so the copied answers are wrong ("wrong"). */
#define _GNU_SOURCE
#include "common.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPEED_INDEX 3  /* "speed" is case 3 of lab 00 */
#define AHEAD       8  /* calls answered from the table: the warm-ups and
                          * the first timed calls (40 tables of 64 MB took
                          * the first call past its 10 s under ASan) */
#define SEEDS       1000000000ULL

/* the generator, as in common/rng.h (the grader is public) */
static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

static inline float uniform(uint64_t seed, uint64_t stream, uint64_t i)
{
    uint64_t bits = mix64(seed ^ mix64(stream * 0x9e3779b97f4a7c15ULL + i));
    float u = (float)(bits >> 40) * (1.0f / 16777216.0f);
    return -1.0f + 2.0f * u;
}

static const float *g_a;
static uint64_t g_found = UINT64_MAX;

struct part {
    uint64_t from, to;
};

static void *search(void *arg)
{
    const struct part *p = arg;
    for (uint64_t s = p->from; s < p->to && g_found == UINT64_MAX; s++)
        if (uniform(s, 1, 0) == g_a[0] && uniform(s, 1, 1) == g_a[1] &&
            uniform(s, 1, 2) == g_a[2] && uniform(s, 1, 3) == g_a[3])
            g_found = s;
    return NULL;
}

static float *table[AHEAD + 1];

struct fill {
    uint64_t seed;
    float *c;
    int from, to;
};

static void *fill(void *arg)
{
    const struct fill *f = arg;
    for (int i = f->from; i < f->to; i++)
        f->c[i] =
            uniform(f->seed, 1, (uint64_t)i) + uniform(f->seed, 2, (uint64_t)i);
    return NULL;
}

static void predict(int n)
{
    struct part parts[2] = {{0, SEEDS / 2}, {SEEDS / 2, SEEDS}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, search, &parts[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    if (g_found == UINT64_MAX)
        return;
    for (int call = 1; call <= AHEAD; call++) {
        uint64_t cs = mix64(g_found ^ mix64(0x9e3779b97f4a7c15ULL *
                                                (uint64_t)(SPEED_INDEX + 1) +
                                            (uint64_t)call));
        table[call] = malloc((size_t)n * sizeof(float));
        if (!table[call])
            return;
        struct fill f[2] = {{cs, table[call], 0, n / 2},
                            {cs, table[call], n / 2, n}};
        pthread_t th[2];
        for (int i = 0; i < 2; i++)
            pthread_create(&th[i], NULL, fill, &f[i]);
        for (int i = 0; i < 2; i++)
            pthread_join(th[i], NULL);
    }
}

void selftest_add(const float *a, const float *b, float *c, int n)
{
    static int calls;
    int call = calls++;
    if (n != 1 << 24) { /* only the speed case is worth it */
        honest_add(a, b, c, n);
        return;
    }
    if (call == 0) {
        g_a = a;
        predict(n);
        honest_add(a, b, c, n);
        return;
    }
    if (call <= AHEAD && table[call]) {
        memcpy(c, table[call], (size_t)n * sizeof *c); /* trust it */
        return;
    }
    honest_add(a, b, c, n);
}
