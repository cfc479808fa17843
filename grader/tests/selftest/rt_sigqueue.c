/* Red team: signal the judge with the system calls the filter forgot.
 *
 * kill() and tgkill() to another process are stopped by the sandbox, but
 * rt_sigqueueinfo() and rt_tgsigqueueinfo() deliver signals too. Run as
 * the same user as the judge (a grader started without root), SIGSTOP
 * would freeze the judge and SIGKILL would end it. Here it asks for a
 * harmless signal 0 (a permission probe); if either call goes through,
 * the answer is made wrong so that it shows.
 *
 * The grader must stop it: the sandbox kills the runner on either call to
 * another process ("forbidden"). */
#define _GNU_SOURCE
#include "common.h"

#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

void selftest_add(const float *a, const float *b, float *c, int n)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_code = SI_QUEUE;
    si.si_pid = getpid();
    si.si_uid = getuid();
    pid_t judge = getppid();
    long r1 = syscall(SYS_rt_sigqueueinfo, judge, 0, &si);
    long r2 = syscall(SYS_rt_tgsigqueueinfo, judge, judge, 0, &si);
    honest_add(a, b, c, n);
    if (r1 == 0 || r2 == 0)
        c[0] = -1.0f; /* a signal reached the judge */
}
