/* A constructor forks a daemon that would outlive the grade and rewrite
 * its results. */
#define _GNU_SOURCE
#include "common.h"

#include <stdio.h>
#include <unistd.h>

__attribute__((constructor)) static void daemonise(void)
{
    if (fork() == 0) {
        setsid();
        sleep(5);
        FILE *f = fopen("/tmp/cl-selftest-daemon", "w");
        if (f)
            fclose(f);
        _exit(0);
    }
}

void selftest_add(const float *a, const float *b, float *c, int n)
{
    honest_add(a, b, c, n);
}
