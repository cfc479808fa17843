/* Write forged "done, in no time" replies on the runner's socket (fd 3)
 * for the next command numbers, then compute honestly: the judge must
 * neither take them for the runner's answers nor believe their times. */
#define _GNU_SOURCE
#include "common.h"
#include "protocol/proto.h"

#include <string.h>
#include <sys/socket.h>

void selftest_add(const float *a, const float *b, float *c, int n)
{
    static unsigned char
        msg[sizeof(struct cl_msg_head) + sizeof(struct cl_reply)];
    struct cl_reply r;
    memset(&r, 0, sizeof r);
    r.ok = 1;
    r.span_ms = 1e-6;
    honest_add(a, b, c, n);
    for (unsigned seq = 1; seq < 200; seq++) {
        struct cl_msg_head h = {CL_MSG_MAGIC, R_CALL, sizeof r, seq};
        memcpy(msg, &h, sizeof h);
        memcpy(msg + sizeof h, &r, sizeof r);
        send(CL_RUNNER_FD, msg, sizeof msg, MSG_DONTWAIT | MSG_NOSIGNAL);
    }
}
