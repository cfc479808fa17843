/* Right on the smallest case (n = 1), then never returns: a grade to
 * interrupt once a case is done (test_cli, Ctrl-C). */
#include "common.h"

void selftest_add(const float *a, const float *b, float *c, int n)
{
    volatile int forever = n > 1;
    while (forever)
        ;
    honest_add(a, b, c, n);
}
