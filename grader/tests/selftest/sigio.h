/* What the SIGIO red-team fixtures share (rt_sigio_*.c, rt_hibits_*.c):
 * each defines MODE and makes, in its first call, one system call the
 * allow-list lets through but whose arguments reach beyond the runner:
 *
 *   1  fcntl(F_SETOWN, the judge) and O_ASYNC on a pipe, then a write:
 *      SIGIO, whose default action ends a process, at the judge
 *   2  fcntl(F_SETOWN_EX, the judge)     3  fcntl(F_SETSIG)
 *   4  fcntl(F_SETFL, O_ASYNC)           5  ioctl(FIOSETOWN, the judge)
 *   6  ioctl(SIOCSPGRP, the judge)       7  ioctl(FIOASYNC)
 *   8  fcntl with 1 << 32 | F_SETOWN: the kernel reads the low 32 bits
 *   9  kill(itself, 1 << 32 | SIGCONT): undoes the judge's stop
 *  10  rt_sigaction(1 << 32 | SIGSYS): a handler of its own for the
 *      trap, which then swallows a socket() the filter traps
 *
 * Where the kernel has Landlock's signal scope (Linux 6.12), it stops
 * the signals themselves; the sandbox must refuse the calls everywhere:
 * the case is forbidden, named by the call. */
#define _GNU_SOURCE
#include "common.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MODE
#error "define MODE before including sigio.h"
#endif

static void swallow(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)si;
    (void)uc; /* the trapped call returns, unnamed */
}

static void attack(void)
{
    int p[2];
    if (pipe(p) != 0)
        return;
    long judge = (long)getppid(), big = 1L << 32;
    struct f_owner_ex ex = {F_OWNER_PID, (pid_t)judge};
    int on = 1, pid = (int)judge;
    switch (MODE) {
    case 1:
        fcntl(p[0], F_SETOWN, (int)judge);
        fcntl(p[0], F_SETFL, O_ASYNC);
        (void)!write(p[1], "x", 1);
        break;
    case 2: fcntl(p[0], F_SETOWN_EX, &ex); break;
    case 3: fcntl(p[0], F_SETSIG, SIGTERM); break;
    case 4: fcntl(p[0], F_SETFL, O_ASYNC | O_NONBLOCK); break;
    case 5: ioctl(p[0], FIOSETOWN, &pid); break;
    case 6: ioctl(p[0], SIOCSPGRP, &pid); break;
    case 7: ioctl(p[0], FIOASYNC, &on); break;
    case 8: syscall(SYS_fcntl, (long)p[0], big | F_SETOWN, judge); break;
    case 9: syscall(SYS_kill, (long)getpid(), big | SIGCONT); break;
    case 10: {
        /* the kernel's struct: handler, flags, restorer, mask */
        struct {
            void *handler;
            unsigned long flags;
            void *restorer;
            unsigned long mask;
        } k = {(void *)swallow, SA_SIGINFO, NULL, 0};
        syscall(SYS_rt_sigaction, big | SIGSYS, &k, NULL, 8L);
        syscall(SYS_socket, (long)AF_INET, (long)SOCK_STREAM, 0L);
        break;
    }
    }
}

void selftest_add(const float *a, const float *b, float *c, int n)
{
    static int calls;
    if (calls++ == 0)
        attack();
    honest_add(a, b, c, n);
}
