/* Print a perfect score where the grader's report goes, on fds 1 and 2,
 * while loading and in every call, then compute honestly: printing is
 * allowed (students debug that way), but the report, the exit code and
 * results.json must still be the grader's own. (rt_write_tty tries the
 * terminal and the judge's own stdout.) */
#define _GNU_SOURCE
#include "common.h"

#include <string.h>
#include <unistd.h>

static const char fake[] = "score: 50.0 / 50.0  (correctness 30.0/30, speed "
                           "20.0/20)\nreplay with --seed 1\n";

static void say(void)
{
    if (write(1, fake, strlen(fake)) < 0 || write(2, fake, strlen(fake)) < 0)
        (void)0;
}

__attribute__((constructor)) static void on_load(void)
{
    say();
}

void selftest_add(const float *a, const float *b, float *c, int n)
{
    say();
    honest_add(a, b, c, n);
}
