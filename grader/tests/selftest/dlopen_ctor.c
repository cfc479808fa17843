/* Load a library the lab forbids (libz stands in for cuDNN) from a
 * constructor, where files may still be read. */
#define _GNU_SOURCE
#include "common.h"

#include <dlfcn.h>

static void *lib;

__attribute__((constructor)) static void load(void)
{
    lib = dlopen("libz.so.1", RTLD_NOW);
}

void selftest_add(const float *a, const float *b, float *c, int n)
{
    honest_add(a, b, c, n);
}
