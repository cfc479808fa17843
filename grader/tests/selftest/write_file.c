/* Write where the grader keeps its results and its calibration cache, and
 * change the working directory and the environment the data comes from. */
#define _GNU_SOURCE
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void selftest_add(const float *a, const float *b, float *c, int n)
{
    FILE *f = fopen("/tmp/cl-selftest-written", "w");
    if (f) {
        fputs("{\"score\": 100}\n", f);
        fclose(f);
    }
    if (chdir("/tmp") != 0)
        (void)0;
    setenv("CUDA_LABS_DATA", "/tmp/fake-data", 1);
    honest_add(a, b, c, n);
}
