/* proto.c: framed messages with descriptors over a SOCK_SEQPACKET pair. */
#define _GNU_SOURCE
#include "protocol/proto.h"

#include "now.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_FDS CL_MAX_BUFS

/* room for the descriptors of one message, aligned for its header */
union fd_room {
    char b[CMSG_SPACE(sizeof(int) * MAX_FDS)];
    struct cmsghdr align;
};

/* a message of one buffer, with @p room_len bytes of @p room for
 * descriptors (0: none) */
static struct msghdr message(struct iovec *iov, union fd_room *room,
                             size_t room_len)
{
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = iov;
    m.msg_iovlen = 1;
    if (room_len) {
        memset(room, 0, sizeof *room);
        m.msg_control = room->b;
        m.msg_controllen = room_len;
    }
    return m;
}

int cl_msg_send(int fd, uint32_t type, uint32_t seq, const void *p,
                uint32_t len, const int *fds, int nfds)
{
    static unsigned char buf[sizeof(struct cl_msg_head) + CL_MSG_MAX];
    if (len > CL_MSG_MAX || nfds < 0 || nfds > MAX_FDS)
        return -1;
    struct cl_msg_head h = {CL_MSG_MAGIC, type, len, seq};
    memcpy(buf, &h, sizeof h);
    if (len)
        memcpy(buf + sizeof h, p, len);
    struct iovec iov = {buf, sizeof h + len};
    union fd_room room;
    struct msghdr m = message(
        &iov, &room, nfds > 0 ? CMSG_SPACE(sizeof(int) * (size_t)nfds) : 0);
    if (nfds > 0) {
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
    }
    for (;;) {
        ssize_t w = sendmsg(fd, &m, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        return w == (ssize_t)(sizeof h + len) ? 0 : -1;
    }
}

int cl_wait_readable(int fd, double deadline, const volatile sig_atomic_t *stop,
                     int extra, void (*on_extra)(int fd, void *ctx), void *ctx)
{
    for (;;) {
        int ms = -1;
        if (deadline > 0) {
            double left = deadline - cl_now_s();
            if (left <= 0)
                return 2;
            ms = (int)(left * 1000) + 1;
        }
        if (stop && *stop)
            return 3;
        struct pollfd pf[2] = {{fd, POLLIN, 0}, {extra, POLLIN, 0}};
        int n = poll(pf, extra >= 0 ? 2 : 1, ms);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (extra >= 0 && (pf[1].revents & (POLLIN | POLLHUP)) && on_extra)
            on_extra(extra, ctx);
        /* POLLNVAL too: the read that follows says what is wrong */
        if (pf[0].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))
            return 0;
    }
}

int cl_msg_recv(int fd, uint32_t *type, uint32_t *seq, void *p, uint32_t cap,
                uint32_t *len, int *fds, int maxfds, int *nfds,
                double timeout_s, int poll_extra,
                void (*on_extra)(int fd, void *ctx), void *extra_ctx)
{
    static unsigned char buf[sizeof(struct cl_msg_head) + CL_MSG_MAX + 1];
    double deadline = timeout_s > 0 ? cl_now_s() + timeout_s : 0;
    if (nfds)
        *nfds = 0;
    int w =
        cl_wait_readable(fd, deadline, NULL, poll_extra, on_extra, extra_ctx);
    if (w)
        return w;
    struct iovec iov = {buf, sizeof buf};
    union fd_room room;
    struct msghdr m = message(&iov, &room, sizeof room.b);
    ssize_t r;
    do
        r = recvmsg(fd, &m, MSG_CMSG_CLOEXEC);
    while (r < 0 && errno == EINTR);
    if (r < 0)
        return -1;
    /* descriptors first, so that none leaks whatever follows */
    int got = 0, keep = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        int tmp[MAX_FDS];
        if (k > MAX_FDS)
            k = MAX_FDS;
        memcpy(tmp, CMSG_DATA(c), sizeof(int) * (size_t)k);
        for (int i = 0; i < k; i++) {
            if (fds && got < maxfds)
                fds[got++] = tmp[i];
            else
                close(tmp[i]);
        }
        keep = got;
    }
    if (nfds)
        *nfds = keep;
    if (r == 0) { /* the end, or an empty message from a peer still there */
        for (int i = 0; i < keep; i++)
            close(fds[i]);
        if (nfds)
            *nfds = 0;
        struct pollfd hup = {fd, POLLRDHUP, 0};
        return poll(&hup, 1, 0) == 1 && (hup.revents & (POLLHUP | POLLRDHUP))
                   ? 1
                   : -1;
    }
    struct cl_msg_head h;
    int bad = (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || (size_t)r < sizeof h;
    if (!bad) {
        memcpy(&h, buf, sizeof h);
        bad = h.magic != CL_MSG_MAGIC || h.len > cap ||
              (size_t)r != sizeof h + h.len;
    }
    if (bad) {
        for (int i = 0; i < keep; i++)
            close(fds[i]);
        if (nfds)
            *nfds = 0;
        return -1;
    }
    *type = h.type;
    if (seq)
        *seq = h.seq;
    *len = h.len;
    if (h.len)
        memcpy(p, buf + sizeof h, h.len);
    return 0;
}

void cl_sandbox_describe(int bits, int uid, char *buf, size_t len)
{
    static const struct {
        int bit;
        const char *name;
    } steps[] = {
        {CL_SBX_SESSION, "own session"},
        {CL_SBX_USER, "user"},
        {CL_SBX_ENV, "empty environment"},
        {CL_SBX_LIMITS, "limits"},
        {CL_SBX_PDEATH, "dies with the judge"},
        {CL_SBX_JAIL, "own mount namespace"},
        {CL_SBX_FILES, "files confined (Landlock)"},
        {CL_SBX_SECCOMP1, "seccomp allow-list"},
        {CL_SBX_SECCOMP2, "no files opened"},
    };
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        if (!(bits & steps[i].bit))
            continue;
        int k;
        if (steps[i].bit == CL_SBX_USER) {
            struct passwd *pw = getpwuid((uid_t)uid);
            k = snprintf(buf + used, len - used, "%suser %s", used ? ", " : "",
                         pw ? pw->pw_name : "?");
        } else {
            k = snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
                         steps[i].name);
        }
        if (k < 0 || (size_t)k >= len - used)
            break;
        used += (size_t)k;
    }
}
