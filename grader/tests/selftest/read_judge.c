/* Read the judge's memory (where the references live): through
 * /proc/PPID/mem. If it works, prove it by failing on purpose. */
#define _GNU_SOURCE
#include "common.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

void selftest_add(const float *a, const float *b, float *c, int n)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/mem", (int)getppid());
    int fd = open(path, O_RDONLY);
    honest_add(a, b, c, n);
    if (fd >= 0) {
        c[0] = 12345.0f; /* the escape worked: make it visible */
        close(fd);
    }
}
