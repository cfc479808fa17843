/* Red team: outlive the judge.
 *
 * The runner dies with the judge through PR_SET_PDEATHSIG, set before the
 * submission is loaded. A constructor switches it off (and names the
 * process like a system daemon): if the judge were then killed from
 * outside (an outer time limit, a crash), the runner, in a session of its
 * own, would live on as an orphan with no one left to kill it. If the
 * switch works, the answer is made wrong so that it shows.
 *
 * The grader must stop it: the sandbox kills the runner when it changes
 * its parent-death signal ("forbidden"). */
#define _GNU_SOURCE
#include "common.h"

#include <sys/prctl.h>

static int off;

__attribute__((constructor)) static void detach(void)
{
    int sig = -1;
    prctl(PR_SET_NAME, "kworker/0:1", 0, 0, 0);
    if (prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0) == 0 &&
        prctl(PR_GET_PDEATHSIG, &sig, 0, 0, 0) == 0 && sig == 0)
        off = 1;
}

void selftest_add(const float *a, const float *b, float *c, int n)
{
    honest_add(a, b, c, n);
    if (off)
        c[0] = -1.0f; /* it would outlive the judge */
}
