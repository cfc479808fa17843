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

static int patched;

__attribute__((constructor)) static void hijack(void)
{
    patched = got_slow_clock(0.5);
}

void selftest_add(const float *a, const float *b, float *c, int n)
{
    honest_add(a, b, c, n);
    if (!patched)
        c[0] = -1.0f; /* the patch failed: say so rather than pass */
}
