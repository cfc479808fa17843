/* split.c: see split.h */
#define _GNU_SOURCE /* sched_getaffinity */
#include "split.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#define MAX_THREADS 16

struct part {
    cl_split_fn fn;
    void *ctx;
    size_t from, to;
};

static void *part_thread(void *arg)
{
    const struct part *p = arg;
    p->fn(p->ctx, p->from, p->to);
    return NULL;
}

int cl_split_threads(void)
{
    const char *e = getenv("CL_CHECK_THREADS");
    char *end;
    long want = e && *e ? strtol(e, &end, 10) : 0;
    if (e && *e && *end == '\0' && want >= 1)
        return want > MAX_THREADS ? MAX_THREADS : (int)want;
    cpu_set_t set;
    int n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : n;
}

void cl_split(size_t n, size_t min_part, cl_split_fn fn, void *ctx)
{
    if (n == 0)
        return;
    size_t most = min_part ? n / min_part : n;
    size_t t = (size_t)cl_split_threads();
    if (t > most)
        t = most ? most : 1;
    struct part parts[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    /* part k: items k n / t to (k + 1) n / t, so no part is shorter than
     * n / t rounded down, which is min_part at least */
    for (size_t k = 0; k < t; k++) {
        parts[k] = (struct part){fn, ctx, k * n / t, (k + 1) * n / t};
        if (k > 0)
            started[k] =
                pthread_create(&tid[k], NULL, part_thread, &parts[k]) == 0;
    }
    fn(ctx, parts[0].from, parts[0].to);
    for (size_t k = 1; k < t; k++) {
        if (started[k])
            pthread_join(tid[k], NULL);
        else
            fn(ctx, parts[k].from, parts[k].to);
    }
}
