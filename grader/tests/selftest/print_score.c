/* Print a perfect score where the grader's report goes: on fds 1 and 2
 * (while loading and in every call), on the terminal, and on the judge's
 * own stdout through /proc; then compute honestly. The report, the exit
 * code and results.json must still be the grader's own. */
#define _GNU_SOURCE
#include "common.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char fake[] = "score: 50.0 / 50.0  (correctness 30.0/30, speed "
                           "20.0/20)\nreplay with --seed 1\n";

static void say_everywhere(void)
{
    char path[64];
    if (write(1, fake, strlen(fake)) < 0 || write(2, fake, strlen(fake)) < 0)
        (void)0;
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

__attribute__((constructor)) static void on_load(void)
{
    say_everywhere();
}

void selftest_add(const float *a, const float *b, float *c, int n)
{
    say_everywhere();
    honest_add(a, b, c, n);
}
