/* Red team: return early and let a thread finish the work afterwards.
 *
 * A worker thread, started by a constructor (threads are allowed), waits
 * for a job; selftest_add() computes the first half of c, then hands the
 * second half to the worker and returns at once, so the runner's timed
 * window holds half the work and the judge's wall clock sees a fast
 * reply. The worker writes the rest while the judge is still checking the
 * first half (the judge reads c from the front). The first call (the
 * correctness check) is done honestly.
 *
 * The grader must not accept it: the runner is stopped (SIGSTOP) as soon as
 * its reply arrives, so the late writes never land and c is found unwritten
 * ("wrong"); never a pass with a speedup. */
#define _GNU_SOURCE
#include "common.h"

#include <pthread.h>
#include <stdatomic.h>

static struct {
    const float *a, *b;
    float *c;
    int n;
    atomic_int seq;
} job;

static void *worker(void *arg)
{
    int done = 0;
    (void)arg;
    for (;;) {
        int s = atomic_load(&job.seq);
        if (s == done)
            continue; /* spin: a futex would be as good */
        int h = job.n / 2;
        honest_add(job.a + h, job.b + h, job.c + h, job.n - h);
        done = s;
    }
    return NULL;
}

__attribute__((constructor)) static void start(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
}

void selftest_add(const float *a, const float *b, float *c, int n)
{
    static int calls;
    if (calls++ == 0) { /* the check call: honest, so timing starts */
        honest_add(a, b, c, n);
        return;
    }
    job.a = a;
    job.b = b;
    job.c = c;
    job.n = n;
    honest_add(a, b, c, n / 2);    /* the first half, timed */
    atomic_fetch_add(&job.seq, 1); /* the second half starts as we return */
}
