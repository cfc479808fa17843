/* Load a forbidden library during the call, once nothing may be opened:
 * if it works anyway, compute a wrong answer so that it shows. */
#define _GNU_SOURCE
#include "common.h"

#include <dlfcn.h>

void selftest_add(const float *a, const float *b, float *c, int n)
{
    void *lib = dlopen("libz.so.1", RTLD_NOW);
    honest_add(a, b, c, n);
    if (lib)
        c[0] = -1.0f;
}
