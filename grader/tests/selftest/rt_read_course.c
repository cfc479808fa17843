/* Red team: read the course's own files from the runner. On a grading
 * host the tree holds the reference solutions (solutions/), their builds
 * (build/solution/, build/check/solution/), the self-test's references
 * and the grader itself, often readable by every user. A constructor
 * (seccomp stage 1: files may be opened for reading) tries each; any one
 * that opens makes every answer wrong, so the case's status shows it.
 *
 * The grader must keep them out of reach: Landlock confines the runner to
 * what the C and CUDA runtimes need, so every open fails and the honest
 * sum passes. (Without Landlock in the kernel, test_sandbox skips this
 * row, and the report's sandbox line says the files are not confined.) */
#define _GNU_SOURCE
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#ifndef CL_ROOT
#define CL_ROOT "."
#endif
#ifndef CL_BUILD_DIR
#define CL_BUILD_DIR "build"
#endif

static int leaked;

static void try_file(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        char c;
        leaked |= read(fd, &c, 1) >= 0;
        close(fd);
    }
}

static void try_dir(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        leaked |= readdir(d) != NULL;
        closedir(d);
    }
}

__attribute__((constructor)) static void on_load(void)
{
    try_dir(CL_ROOT);
    try_dir(CL_ROOT "/solutions");
    try_file(CL_ROOT "/solutions/01-vector-add/vector_add.cu");
    try_file(CL_ROOT "/Makefile");
    try_file(CL_ROOT "/grader/parent/policy.json");
    try_dir(CL_ROOT "/" CL_BUILD_DIR "/solution");
    try_file(CL_ROOT "/" CL_BUILD_DIR "/solution/01-vector-add.so");
    try_file(CL_ROOT "/" CL_BUILD_DIR "/selftest/honest.so");
    try_file(CL_ROOT "/" CL_BUILD_DIR "/bin/grade");
    try_file("/etc/passwd");
    try_dir("/tmp");
}

void selftest_add(const float *a, const float *b, float *c, int n)
{
    honest_add(a, b, c, n);
    for (int i = 0; leaked && i < n; i++)
        c[i] += 1.0f;
}
