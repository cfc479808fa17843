/* Red team: run the course's own reference instead of one's own code.
 *
 * The grader's tree is readable by the runner's user, and while loading
 * (seccomp stage 1) files may be opened for reading and mapped
 * executable. A constructor finds the grader from /proc/self/exe
 * (build/bin/cl-runner), loads the reference build beside it (for lab 00,
 * build/selftest/honest.so; for a real lab, build/solution/NN-name.so)
 * and the call hands its work to the reference's entry point. If the
 * reference cannot be found, it computes honestly (and passes).
 *
 * The grader must stop it: a file of the grader's own tree mapped into the
 * runner (other than the runner itself) is refused ("forbidden"). */
#define _GNU_SOURCE
#include "common.h"

#include <dlfcn.h>
#include <string.h>
#include <unistd.h>

static void (*borrowed)(const float *, const float *, float *, int);

__attribute__((constructor)) static void borrow(void)
{
    char path[4096];
    ssize_t k = readlink("/proc/self/exe", path, sizeof path - 64);
    if (k <= 0)
        return;
    path[k] = '\0';
    char *bin = strstr(path, "/bin/cl-runner");
    if (!bin)
        return;
    strcpy(bin, "/selftest/honest.so");
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib)
        borrowed = (void (*)(const float *, const float *, float *, int))dlsym(
            lib, "selftest_add");
}

void selftest_add(const float *a, const float *b, float *c, int n)
{
    if (borrowed)
        borrowed(a, b, c, n);
    else
        honest_add(a, b, c, n);
}
