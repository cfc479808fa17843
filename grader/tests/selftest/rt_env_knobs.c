/* Self-test submission: what it finds in its environment. It sums
 * honestly only where the grader's ladder variables reached it, a rung
 * (SELFTEST_KERNEL=2) and a knob of one (SELFTEST_KERNEL_TILE=64), and
 * nothing else of the grader's environment did (a secret, and two names
 * that only look like a ladder's: SELFTEST_KERNELS, SELFTEST_KERNEL_);
 * otherwise it writes zeros. Its row in expect.tsv grades it without the
 * variables (wrong); test_sandbox.c's test_env_reaches_runner with them
 * (pass), and with the knob missing (wrong). */
#include "common.h"

#include <stdlib.h>
#include <string.h>

/* NAME is set to WANT (NULL: NAME is not set at all) */
static int env_is(const char *name, const char *want)
{
    const char *v = getenv(name);
    return want ? v && strcmp(v, want) == 0 : v == NULL;
}

void selftest_add(const float *a, const float *b, float *c, int n)
{
    int as_sent = env_is("SELFTEST_KERNEL", "2") &&
                  env_is("SELFTEST_KERNEL_TILE", "64") &&
                  env_is("CL_TEST_SECRET", NULL) &&
                  env_is("SELFTEST_KERNELS", NULL) &&
                  env_is("SELFTEST_KERNEL_", NULL) &&
                  env_is("HOME", "/nonexistent");
    if (as_sent)
        honest_add(a, b, c, n);
    else
        memset(c, 0, (size_t)n * sizeof *c);
}
