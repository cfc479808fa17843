/* Write one element past the end of c. */
#include "common.h"

void selftest_add(const float *a, const float *b, float *c, int n)
{
    honest_add(a, b, c, n);
    c[n] = 0.0f;
}
