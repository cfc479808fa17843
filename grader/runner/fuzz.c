/* fuzz.c: replies rewritten at random, for the self-test (fuzz.h). */
#define _GNU_SOURCE
#include "runner/fuzz.h"

#include "protocol/proto.h"
#include "rng.h"

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <unistd.h>

static struct {
    int on;
    uint64_t seed, drawn;
} fz;

void cl_fuzz_start(uint64_t seed)
{
    fz.on = seed != 0;
    fz.seed = seed;
    fz.drawn = 0;
}

int cl_fuzz_on(void)
{
    return fz.on;
}

/* each runner (one per case) its own sequence: the seed's stream of
 * the runner's pid */
static uint64_t next(void)
{
    return cl_rand_bits(fz.seed, (uint64_t)getpid(), fz.drawn++);
}

static uint32_t below(uint32_t n)
{
    return n ? (uint32_t)(next() % n) : 0;
}

static void noise(void *p, size_t n)
{
    unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)next();
}

static int32_t edge_int(void)
{
    static const int32_t v[] = {
        0,       1,       -1,   2, 24, CL_TRACE_MAX, CL_TRACE_MAX + 1,
        INT_MAX, INT_MIN, 65536};
    return below(3) == 0 ? (int32_t)next() : v[below(sizeof v / sizeof v[0])];
}

static double edge_double(void)
{
    static const double v[] = {0, -1, 1e-300, 1e300, 1e-3, 5, -0.0};
    switch (below(5)) {
    case 0: return NAN;
    case 1: return below(2) ? INFINITY : -INFINITY;
    case 2: {
        double d;
        uint64_t bits = next();
        memcpy(&d, &bits, sizeof d);
        return d;
    }
    default: return v[below(sizeof v / sizeof v[0])];
    }
}

/* text that ends nowhere and holds what a terminal obeys */
static void bad_text(char *s, size_t n)
{
    static const char *const bits[] = {
        "\033[8m", "\n", "score: 100.0 / 100.0", "\r", "\033]0;x\007", "%s%n"};
    size_t at = 0;
    while (at < n) {
        if (below(3) == 0) {
            const char *b = bits[below(sizeof bits / sizeof bits[0])];
            size_t k = strlen(b);
            if (k > n - at)
                k = n - at;
            memcpy(s + at, b, k);
            at += k;
        } else {
            s[at++] = (char)next();
        }
    }
}

/* a reply's fields at their edges */
static void bend_reply(struct cl_reply *r)
{
    int k = 1 + (int)below(4);
    while (k--) {
        switch (below(12)) {
        case 0: r->ok = edge_int(); break;
        case 1: r->cuda_err = edge_int(); break;
        case 2: r->sticky = edge_int(); break;
        case 3: bad_text(r->err_name, sizeof r->err_name); break;
        case 4: bad_text(r->why, sizeof r->why); break;
        case 5: r->span_ms = edge_double(); break;
        case 6: r->value = below(2) ? UINT64_MAX : next(); break;
        case 7:
            r->trace.on = edge_int();
            r->trace.n = edge_int();
            break;
        case 8:
            r->trace.dropped = edge_int();
            r->trace.launches = edge_int();
            r->trace.off_stream = edge_int();
            r->trace.busy_ms = edge_double();
            break;
        case 9:
            for (int i = 0; i < CL_TRACE_MAX; i++) {
                struct cl_trace_rec *t = &r->trace.rec[i];
                bad_text(t->name, sizeof t->name);
                t->kind = edge_int();
                t->stream = edge_int();
                t->count = edge_int();
                t->ms = edge_double();
                t->bytes = edge_double();
                for (int d = 0; d < 3; d++) {
                    t->grid[d] = edge_int();
                    t->block[d] = edge_int();
                }
            }
            r->trace.on = 1;
            r->trace.n = below(2) ? CL_TRACE_MAX : edge_int();
            break;
        default: noise(r, sizeof *r); break;
        }
    }
}

/* a datagram that is no message at all */
static int garbage(int fd)
{
    static unsigned char b[512];
    size_t n = below(sizeof b);
    noise(b, n);
    return send(fd, b, n, MSG_NOSIGNAL) < 0 ? -1 : 0;
}

int cl_fuzz_send(int fd, uint32_t type, uint32_t seq, const void *p,
                 uint32_t len)
{
    /* most replies go out as they are, so that grading goes on (a load
     * refused ends the whole grade: rarer still) */
    if (below(type == R_LOADED ? 8 : 3) != 0)
        return cl_msg_send(fd, type, seq, p, len, NULL, 0);
    static unsigned char buf[CL_MSG_MAX];
    if (len > sizeof buf)
        len = sizeof buf;
    memcpy(buf, p, len);
    uint32_t n = len, t = type, s = seq;
    switch (below(11)) {
    case 0: /* the fields at their edges */
        if (len == sizeof(struct cl_reply))
            bend_reply((struct cl_reply *)buf);
        else
            noise(buf, n);
        break;
    case 1: noise(buf, n); break;      /* all of it random */
    case 2: n = below(len + 1); break; /* cut short */
    case 3:                            /* too long, up to the largest message */
        n = len + 1 + below(sizeof buf - len);
        noise(buf + len, n - len);
        break;
    case 4: t = below(2) ? (uint32_t)next() : below(R_SIGSYS + 2); break;
    case 5: s = below(2) ? seq + 1 + below(3) : (uint32_t)next(); break;
    case 6: /* twice */ cl_msg_send(fd, type, seq, p, len, NULL, 0); break;
    case 7: { /* and then something else */
        int rc = cl_msg_send(fd, type, seq, p, len, NULL, 0);
        if (below(2)) {
            struct cl_sigsys sg = {(int32_t)next(), (uint32_t)next()};
            cl_msg_send(fd, R_SIGSYS, seq, &sg, sizeof sg, NULL, 0);
        } else {
            garbage(fd);
        }
        return rc;
    }
    case 8: { /* with descriptors the judge never asked for */
        int pipes[2];
        if (pipe2(pipes, 0) != 0)
            break;
        int rc = cl_msg_send(fd, type, seq, p, len, pipes, 2);
        close(pipes[0]);
        close(pipes[1]);
        return rc;
    }
    case 9: /* a trapped call named at random, or garbage first */
        if (below(2)) {
            struct cl_sigsys sg = {(int32_t)next(), (uint32_t)next()};
            return cl_msg_send(fd, R_SIGSYS, seq, &sg, sizeof sg, NULL, 0);
        }
        garbage(fd);
        break;
    default: /* no reply: a sudden end */
        if (below(2))
            _exit((int)below(256));
        raise(SIGSEGV);
        _exit(1);
    }
    return cl_msg_send(fd, t, s, buf, n, NULL, 0);
}
