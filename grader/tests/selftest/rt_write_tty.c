/* Red team: write a perfect score on the terminal and on the judge's own
 * stdout (/proc/PPID/fd/1), where the report goes, while loading.
 *
 * The grader must stop it: the runner's filter refuses an open for
 * writing (EACCES), so nothing is written and the honest sum passes. */
#define _GNU_SOURCE
#include "common.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char fake[] = "score: 50.0 / 50.0\n";

__attribute__((constructor)) static void on_load(void)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/1", (int)getppid());
    const char *const paths[] = {"/dev/tty", path};
    for (int i = 0; i < 2; i++) {
        int fd = open(paths[i], O_WRONLY);
        if (fd >= 0) {
            if (write(fd, fake, strlen(fake)) < 0)
                (void)0;
            close(fd);
        }
    }
}

void selftest_add(const float *a, const float *b, float *c, int n)
{
    honest_add(a, b, c, n);
}
