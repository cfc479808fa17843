/* Red team: swallow a trapped system call by rerouting the runner's SIGSYS
 * handler.
 *
 * The handler names the trapped call to the judge and ends the runner. Had
 * it done so through the runner's PLT (write, syscall), a submission could
 * point those GOT slots at functions of its own (mprotect without
 * PROT_EXEC is allowed; got.h): the report would vanish, the kill would
 * return, and the trapped call would simply fail. Here the slots are
 * patched, then a socket() is made, which the filter traps.
 *
 * The grader must still name it: the handler makes raw system calls, so
 * the case is forbidden. */
#define _GNU_SOURCE
#include "common.h"
#include "got.h"

#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static ssize_t quiet_write(int fd, const void *p, size_t n)
{
    (void)fd;
    (void)p;
    return (ssize_t)n;
}

static long quiet_syscall(long nr, long a, long b, long c)
{
    (void)nr;
    (void)a;
    (void)b;
    (void)c;
    return 0;
}

void selftest_add(const float *a, const float *b, float *c, int n)
{
    got_patch("write", (void *)quiet_write);
    got_patch("syscall", (void *)quiet_syscall);
    syscall(SYS_socket, (long)AF_INET, (long)SOCK_STREAM, 0L);
    honest_add(a, b, c, n);
}
