/* exit() in the middle of a call. */
#include "common.h"

#include <stdlib.h>

void selftest_add(const float *a, const float *b, float *c, int n)
{
    honest_add(a, b, c, n);
    exit(0);
}
