/* Red team: learn the course's tree without reading it. Landlock refuses
 * opens, but not stat, access or readlink: the runner's own path
 * (/proc/self/exe) names the tree, and stat then shows its files' names,
 * sizes and dates (is there a solutions/? how big is the reference?).
 * A constructor tries: any one that succeeds makes every answer wrong.
 *
 * The grader must keep the tree out of sight: the runner lives in a mount
 * namespace of its own, whose root holds the system's libraries and
 * devices, not the course: none of these paths exists there, and the
 * honest sum passes. */
#define _GNU_SOURCE
#include "common.h"

#include <sys/stat.h>
#include <unistd.h>

#ifndef CL_ROOT
#define CL_ROOT "."
#endif

static int seen;

__attribute__((constructor)) static void look(void)
{
    static const char *const paths[] = {
        CL_ROOT,           CL_ROOT "/Makefile", CL_ROOT "/solutions",
        CL_ROOT "/grader", "/proc/1/root" CL_ROOT};
    struct stat st;
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        seen |= stat(paths[i], &st) == 0 || access(paths[i], F_OK) == 0;
    /* the runner's own path, and its folder */
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        seen |= stat(exe, &st) == 0;
    }
}

void selftest_add(const float *a, const float *b, float *c, int n)
{
    honest_add(a, b, c, n);
    if (seen && n > 0)
        c[0] += 1.0f; /* the tree was in sight: say so */
}
