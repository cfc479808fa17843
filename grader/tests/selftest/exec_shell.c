/* Start a program. */
#define _GNU_SOURCE
#include "common.h"

#include <unistd.h>

void selftest_add(const float *a, const float *b, float *c, int n)
{
    char *argv[] = {"/bin/sh", "-c", "touch /tmp/cl-selftest-exec", NULL};
    execv("/bin/sh", argv);
    honest_add(a, b, c, n);
}
