/* Remember the first answer per output pointer and return it again:
 * right once, wrong as soon as the inputs change. */
#include "common.h"

#include <stdlib.h>
#include <string.h>

void selftest_add(const float *a, const float *b, float *c, int n)
{
    static float *saved;
    static const float *for_c;
    static int saved_n;
    if (saved && for_c == c && saved_n == n) {
        memcpy(c, saved, (size_t)n * sizeof *c);
        return;
    }
    honest_add(a, b, c, n);
    free(saved);
    saved = malloc((size_t)n * sizeof *saved);
    if (saved)
        memcpy(saved, c, (size_t)n * sizeof *c);
    for_c = c;
    saved_n = n;
}
