/* What every self-test submission shares: the honest sum, and the entry
 * point's declaration. Each fixture tries one way out of the sandbox or
 * around the judge; grader/tests/test_sandbox.c says what must happen. */
#include <stddef.h>

void selftest_add(const float *a, const float *b, float *c, int n);

static inline void honest_add(const float *a, const float *b, float *c, int n)
{
    for (int i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}
