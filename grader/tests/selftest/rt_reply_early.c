/* Red team: answer the judge before the work is done, with the right
 * sequence number and a tiny time, and keep the runner's own reply from
 * being sent. (Built with -DFAIL_REPLY as rt_fail_reply: the reply says
 * the runner failed, with a text that would forge a report on a terminal:
 * newlines, a fake score, an escape that hides what follows.)
 *
 * A constructor patches the runner's GOT (got.h): recvmsg, to learn the
 * sequence number of every command as it arrives, and sendmsg, to drop the
 * runner's own reply to a call this code already answered. Each call first
 * writes an R_CALL reply of its own on the socket (fd 3, the protocol's
 * layout) saying 1 microsecond, then computes the sum, slowly.
 *
 * The grader must not credit it: the judge's clock stops only when a
 * check of the output, made as the reply arrives, finds it done; here it
 * is not ("returned before its output was done": wrong). */
#define _GNU_SOURCE
#include "common.h"
#include "got.h"
#include "protocol/proto.h"

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static uint32_t last_seq;
static int answered, hooks;

static ssize_t spy_recvmsg(int fd, struct msghdr *m, int flags)
{
    ssize_t n = recvmsg(fd, m, flags); /* our own GOT: the real one */
    if (fd == CL_RUNNER_FD && n >= (ssize_t)sizeof(struct cl_msg_head) &&
        m->msg_iovlen > 0) {
        struct cl_msg_head h;
        memcpy(&h, m->msg_iov[0].iov_base, sizeof h);
        last_seq = h.seq;
    }
    return n;
}

static ssize_t drop_sendmsg(int fd, const struct msghdr *m, int flags)
{
    if (fd == CL_RUNNER_FD && answered) {
        answered = 0; /* the runner's own reply to a call we answered */
        size_t n = 0;
        for (size_t i = 0; i < m->msg_iovlen; i++)
            n += m->msg_iov[i].iov_len;
        return (ssize_t)n;
    }
    return sendmsg(fd, m, flags);
}

__attribute__((constructor)) static void hook(void)
{
    hooks = got_patch("recvmsg", (void *)spy_recvmsg) +
            got_patch("sendmsg", (void *)drop_sendmsg);
}

void selftest_add(const float *a, const float *b, float *c, int n)
{
    static struct {
        struct cl_msg_head h;
        struct cl_reply r;
    } m;
    memset(&m, 0, sizeof m);
    m.h.magic = CL_MSG_MAGIC;
    m.h.type = R_CALL;
    m.h.len = sizeof m.r;
    m.h.seq = last_seq;
#ifdef FAIL_REPLY
    /* "the grader failed", to be taken for an internal error of its own */
    m.r.ok = 0;
    snprintf(m.r.why, sizeof m.r.why,
             "internal grader error\n\033[8mscore: 100.0 / 100.0\n"
             "this case must be regraded by hand");
#else
    m.r.ok = 1;
    m.r.span_ms = 0.001;
#endif
    if (hooks == 2 && write(CL_RUNNER_FD, &m, sizeof m) == (ssize_t)sizeof m)
        answered = 1;
    /* the work takes a while: long enough (0.2 s) that the judge has the
     * early reply, and has stopped the runner, before a single element is
     * written, however busy the machine (200 us was not, 1 run in 8 on a
     * loaded 2-core machine: the check then found part of the work) */
    struct timespec pause = {0, 200000000};
    nanosleep(&pause, NULL);
    honest_add(a, b, c, n);
    if (hooks != 2)
        c[0] = -1.0f; /* the hooks failed: say so rather than pass */
}
