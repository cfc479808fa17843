/* Red team: do the work inside the empty frame, with no hook at all.
 *
 * A thread of the submission watches the inputs. Were an empty frame run
 * between the judge's writing of a call's inputs and the call (as when the
 * frame was clocked beside each call), the thread would see the new inputs
 * while the runner serves that frame, take stdout's lock (the runner
 * flushes stdout at the end of every command, so the frame's reply waits
 * for the lock) and compute the sum; the call would then find it done and
 * return at once, and the work would be subtracted with the frame.
 *
 * The grader must time the work: no empty frame runs between the inputs
 * and the call, so the sum is computed inside the call's own clock. */
#define _GNU_SOURCE
#include "common.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static struct {
    const float *a, *b;
    float *c;
    int n;
    _Atomic float seen_a0, seen_b0; /* the inputs the sum in c is of */
    atomic_int ready;
} w;

static void *watch(void *arg)
{
    (void)arg;
    for (;;) {
        if (!w.n || (w.a[0] == w.seen_a0 && w.b[0] == w.seen_b0))
            continue;
        flockfile(stdout);
        float a0 = w.a[0], b0 = w.b[0];
        honest_add(w.a, w.b, w.c, w.n);
        w.seen_a0 = a0;
        w.seen_b0 = b0;
        funlockfile(stdout);
    }
    return NULL;
}

void selftest_add(const float *a, const float *b, float *c, int n)
{
    static int started;
    if (!started) {
        w.a = a;
        w.b = b;
        w.c = c;
        w.n = n;
        pthread_t t;
        started = pthread_create(&t, NULL, watch, NULL) == 0;
    }
    if (a == w.a && b == w.b && c == w.c && n == w.n && a[0] == w.seen_a0 &&
        b[0] == w.seen_b0)
        return; /* the thread did it already, in the frame */
    honest_add(a, b, c, n);
}
