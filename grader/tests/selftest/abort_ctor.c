/* Abort while being loaded: the submission's failure, not the grader's. */
#include "common.h"

#include <stdlib.h>

__attribute__((constructor)) static void boom(void)
{
    abort();
}

void selftest_add(const float *a, const float *b, float *c, int n)
{
    honest_add(a, b, c, n);
}
