/* Red team: patch the runner's own code to report a faster time.
 *
 * The runner is linked with -z relro -z now, so defining clock_gettime in
 * the submission changes nothing (it is loaded RTLD_LOCAL, after the
 * runner's relocations). But mprotect() without PROT_EXEC is allowed, so a
 * constructor finds the runner's GOT slot for clock_gettime
 * (dl_iterate_phdr, the dynamic section), makes its RELRO page writable
 * and points the slot at a clock that runs at half speed. Every time the
 * runner reports is then half the truth; the answers are honest.
 *
 * The grader must not believe it: a call is scored by the judge's own
 * clock (less the empty frame), which a report may lower by the frame's
 * noise at most; the halved report changes nothing, and the case passes
 * at its true time. */
#define _GNU_SOURCE
#include "common.h"
#include "got.h"

#include <time.h>

static struct timespec origin;
static int patched;

static int slow_clock(clockid_t id, struct timespec *ts)
{
    struct timespec now;
    int rc = clock_gettime(id, &now); /* our own GOT: the real one */
    if (rc != 0 || id != CLOCK_MONOTONIC)
        return rc;
    double d = (double)(now.tv_sec - origin.tv_sec) +
               (double)(now.tv_nsec - origin.tv_nsec) * 1e-9;
    d *= 0.5;
    ts->tv_sec = origin.tv_sec + (time_t)d;
    ts->tv_nsec = origin.tv_nsec + (long)((d - (double)(time_t)d) * 1e9);
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
    return 0;
}

__attribute__((constructor)) static void hijack(void)
{
    clock_gettime(CLOCK_MONOTONIC, &origin);
    patched = got_patch("clock_gettime", (void *)slow_clock);
}

void selftest_add(const float *a, const float *b, float *c, int n)
{
    honest_add(a, b, c, n);
    if (!patched)
        c[0] = -1.0f; /* the patch failed: say so rather than pass */
}
