/* Red team: undo the judge's pause between commands.
 *
 * The judge stops the runner (SIGSTOP) from the moment it reads a reply
 * until it sends the next command, so that no thread of the submission
 * runs while it checks the outputs or times the baseline. A SIGCONT that
 * arrives while that stop is taking effect cancels it; a signal to itself
 * is otherwise allowed. Here a thread sends itself SIGCONT without end
 * while another finishes the work after the reply (as rt_late_thread).
 *
 * The grader must stop it: the sandbox kills the runner on any SIGCONT it
 * sends, even to itself ("forbidden"). */
#define _GNU_SOURCE
#include "common.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

static struct {
    const float *a, *b;
    float *c;
    int n;
    atomic_int seq;
} job;

static void *keep_going(void *arg)
{
    (void)arg;
    for (;;)
        kill(getpid(), SIGCONT);
    return NULL;
}

static void *worker(void *arg)
{
    int done = 0;
    (void)arg;
    for (;;) {
        int s = atomic_load(&job.seq);
        if (s == done)
            continue;
        int h = job.n / 2;
        honest_add(job.a + h, job.b + h, job.c + h, job.n - h);
        done = s;
    }
    return NULL;
}

void selftest_add(const float *a, const float *b, float *c, int n)
{
    static int calls;
    if (calls++ == 0) {
        pthread_t t;
        pthread_create(&t, NULL, worker, NULL);
        pthread_create(&t, NULL, keep_going, NULL);
        kill(getpid(), SIGCONT); /* once here too: no race to lose */
        honest_add(a, b, c, n);
        return;
    }
    job.a = a;
    job.b = b;
    job.c = c;
    job.n = n;
    atomic_fetch_add(&job.seq, 1);
    honest_add(a, b, c, n / 2);
}
