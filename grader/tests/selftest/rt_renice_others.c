/* Red team: slow down the other processes of the runner's user.
 *
 * Every runner runs as the same user (nobody). setpriority(PRIO_USER)
 * lowers the priority of all of them at once, and sched_setaffinity() and
 * setpriority(PRIO_PROCESS) of a given pid reach any one: in a batch that
 * grades several submissions on one host at once, one submission could
 * slow another's timed calls. Here it asks for the lowest priority for
 * the whole user and its process group; if either call works, the answer
 * is made wrong so that it shows.
 *
 * The grader must refuse it: scheduling changes to anything but the
 * caller itself fail with EACCES in the sandbox, and the honest sum then
 * passes ("pass"). */
#define _GNU_SOURCE
#include "common.h"

#include <sys/resource.h>

void selftest_add(const float *a, const float *b, float *c, int n)
{
    int user = setpriority(PRIO_USER, 0, 19);
    int group = setpriority(PRIO_PGRP, 0, 19);
    honest_add(a, b, c, n);
    if (user == 0 || group == 0)
        c[0] = -1.0f; /* every process of this user reniced */
}
