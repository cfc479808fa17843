/* Never return. */
#include "common.h"

void selftest_add(const float *a, const float *b, float *c, int n)
{
    volatile int forever = 1;
    while (forever)
        ;
    honest_add(a, b, c, n);
}
