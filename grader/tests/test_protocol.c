/* test_protocol.c: the judge's side of the protocol, fuzzed. The runner is
 * the student's process, so every byte it sends may be hostile: first the
 * message layer alone (random datagrams, lying headers, descriptors no one
 * asked for, through a socket pair), then whole grades of the self-test
 * lab in which the runner rewrites its own replies at random once the
 * submission is loaded (CL_TEST_FUZZ, runner/fuzz.c): fields at their
 * edges, cut or padded messages, other types and sequence numbers,
 * duplicates, forged trap reports, descriptors, sudden deaths. Nothing of
 * it may bring the judge down, become the grader's own failure, or reach
 * the report as anything but printable text.
 * CL_FUZZ_ROUNDS=N grades N times (default 24); CL_FUZZ_SEED=S starts the
 * seeds at S (default: random, printed). */
#define _GNU_SOURCE
#include "now.h"
#include "protocol/proto.h"
#include "rng.h"
#include "tests/grade_proc.h"
#include "tests/suite.h"

#include <check.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define SELFTEST CL_BUILD_DIR "/selftest/"

static uint64_t drawn;

static uint64_t next(void)
{
    return cl_rand_bits(0x243f6a8885a308d3ULL, 0, drawn++);
}

static int open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    ck_assert_ptr_nonnull(d);
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

/* one datagram: a header that may lie, a payload of any length, and
 * perhaps descriptors */
static void send_random(int fd)
{
    static unsigned char b[sizeof(struct cl_msg_head) + CL_MSG_MAX + 64];
    size_t n;
    switch (next() % 4) {
    case 0: n = next() % 32; break;
    case 1: n = sizeof(struct cl_msg_head) + next() % 1024; break;
    case 2: n = sizeof(struct cl_msg_head) + sizeof(struct cl_reply); break;
    default: n = next() % sizeof b; break;
    }
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)next();
    if (n >= sizeof(struct cl_msg_head) && next() % 4 != 0) {
        struct cl_msg_head h = {CL_MSG_MAGIC, (uint32_t)(next() % 16),
                                (uint32_t)(n - sizeof h), (uint32_t)next()};
        switch (next() % 4) { /* a length that lies, now and then */
        case 0: h.len = (uint32_t)next(); break;
        case 1: h.len += 1; break;
        default: break;
        }
        memcpy(b, &h, sizeof h);
    }
    struct iovec iov = {b, n};
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    union {
        char c[CMSG_SPACE(sizeof(int) * 8)];
        struct cmsghdr align;
    } ctl;
    int pipes[8];
    int np = next() % 3 == 0 ? (int)(next() % 8) + 1 : 0;
    for (int i = 0; i + 1 < np; i += 2)
        ck_assert_int_eq(pipe(pipes + i), 0);
    if (np % 2)
        pipes[np - 1] = dup(0);
    if (np) {
        memset(&ctl, 0, sizeof ctl);
        m.msg_control = ctl.c;
        m.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)np);
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)np);
        memcpy(CMSG_DATA(c), pipes, sizeof(int) * (size_t)np);
    }
    /* a datagram too large for the socket's buffer is refused: fine */
    (void)sendmsg(fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
    for (int i = 0; i < np; i++)
        close(pipes[i]);
}

/* The message layer: whatever arrives, a message is taken only when its
 * header's magic and length match what came, never longer than the room
 * given; the descriptors that came with it are handed over up to the
 * room for them and the rest closed (none leaks, whatever the message);
 * nothing else is ever read as a message. */
START_TEST(test_message_layer_fuzzed)
{
    int sv[2];
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
    int sz = 1 << 20;
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz);
    int before = open_fds();
    static union {
        struct cl_reply r;
        unsigned char raw[sizeof(struct cl_reply) + 64];
    } in;
    int taken = 0, refused = 0;
    for (int i = 0; i < 4000; i++) {
        send_random(sv[0]);
        uint32_t type = 0, seq = 0, len = 0xdeadbeef;
        int fds[2] = {-1, -1}, nfds = -1;
        memset(in.raw + sizeof in.r, 0xA5, 64);
        int want_fds = (int)(next() % 2);
        int rc = cl_msg_recv(sv[1], &type, &seq, &in.r, sizeof in.r, &len,
                             want_fds ? fds : NULL, want_fds ? 2 : 0,
                             want_fds ? &nfds : NULL, 0.5, -1, NULL, NULL);
        ck_assert_msg(rc == 0 || rc == -1 || rc == 2, "rc %d", rc);
        for (int k = 0; k < 64; k++) /* never written past the room */
            ck_assert_int_eq(in.raw[sizeof in.r + k], 0xA5);
        if (rc == 0) {
            ck_assert_uint_le(len, sizeof in.r);
            taken++;
        } else {
            refused++;
        }
        if (want_fds) {
            ck_assert_int_ge(nfds, 0);
            ck_assert_int_le(nfds, 2);
            if (rc != 0) /* a refused message keeps none */
                ck_assert_int_eq(nfds, 0);
            for (int k = 0; k < nfds; k++)
                close(fds[k]);
        }
    }
    /* both kinds were seen: the test reached both paths */
    ck_assert_int_gt(taken, 100);
    ck_assert_int_gt(refused, 100);
    ck_assert_int_eq(open_fds(), before);
    close(sv[0]);
    close(sv[1]);
}
END_TEST

/* a text fit for a terminal and a gradebook: printable ASCII, and in the
 * report's text also line breaks */
static int printable(const char *s, int lines)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c < 0x20 || c >= 0x7f) && !(lines && (c == '\n')))
            return 0;
    }
    return 1;
}

/* every string in @p o, at any depth, printable */
static const char *unprintable_in(const cJSON *o)
{
    if (cJSON_IsString(o) && !printable(o->valuestring, 1))
        return o->valuestring;
    for (const cJSON *c = o ? o->child : NULL; c; c = c->next) {
        const char *bad = unprintable_in(c);
        if (bad)
            return bad;
    }
    return NULL;
}

/* Whole grades with the runner's replies rewritten at random: the grader
 * ends every one with a verdict on the submission (graded, or refused at
 * load, exit 0, 1 or 5), never the grader's failure (exit 6, a case
 * internal-error, a judge that died), and no text of the runner's reaches
 * the report unprintable. The statuses seen are several: the fuzz reached
 * the judge's checks. */
START_TEST(test_judge_survives_fuzzed_replies)
{
    int rounds = getenv("CL_FUZZ_ROUNDS") ? atoi(getenv("CL_FUZZ_ROUNDS")) : 24;
    uint64_t seed0 = getenv("CL_FUZZ_SEED")
                         ? strtoull(getenv("CL_FUZZ_SEED"), NULL, 10)
                         : (uint64_t)time(NULL) % 100000 * 1000;
    printf("fuzzed replies: %d grades from seed %llu (CL_FUZZ_SEED)\n", rounds,
           (unsigned long long)seed0);
    char statuses[512] = "";
    int kinds = 0;
    for (int i = 0; i < rounds; i++) {
        char env[64];
        snprintf(env, sizeof env, "CL_TEST_FUZZ=%llu",
                 (unsigned long long)(seed0 + (uint64_t)i + 1));
        const char *const envs[] = {env, NULL};
        struct grade_proc p;
        ck_assert_int_eq(grade_proc_init(&p), 0);
        const char *const args[] = {"00",     "--lib",     SELFTEST "honest.so",
                                    "--seed", "7",         "--no-color",
                                    "--json", p.json_path, NULL};
        ck_assert_int_eq(grade_proc_run(&p, args, envs, 150), 0);
        ck_assert_msg(!p.timed_out, "%s: the grade did not end", env);
        ck_assert_msg(p.rc == 0 || p.rc == 1 || p.rc == 5,
                      "%s: exit %d\n%s\n%s", env, p.rc, p.out, p.err);
        ck_assert_msg(!strstr(p.err, "judge died") &&
                          !strstr(p.err, "running it again"),
                      "%s: the judge died\n%s", env, p.err);
        ck_assert_msg(printable(p.out, 1), "%s: unprintable report\n%s", env,
                      p.out);
        ck_assert_msg(p.json != NULL, "%s: no results.json\n%s", env, p.err);
        const char *bad = unprintable_in(p.json);
        ck_assert_msg(bad == NULL, "%s: unprintable text in results: %s", env,
                      bad ? bad : "");
        const cJSON *x = cJSON_GetObjectItem(p.json, "extra_data");
        ck_assert_str_ne(json_str(x, "status"), "internal error");
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItem(x, "cases"))
        {
            const char *st = json_str(c, "status");
            ck_assert_msg(strcmp(st, "internal") != 0 &&
                              strcmp(st, "internal-error") != 0,
                          "%s: case %s is the grader's failure\n%s", env,
                          json_str(c, "name"), p.out);
            char key[40];
            snprintf(key, sizeof key, " %s ", st);
            if (!strstr(statuses, key) &&
                strlen(statuses) + strlen(key) < sizeof statuses) {
                strcat(statuses, key);
                kinds++;
            }
        }
        grade_proc_free(&p);
    }
    printf("fuzzed replies: statuses seen:%s\n", statuses);
    if (rounds >= 12)
        ck_assert_msg(kinds >= 3, "the fuzz reached too little: %s", statuses);
}
END_TEST

/* the wait of the judge and the runner: ends at its deadline, at the stop
 * flag, when its descriptor has something, never early; a readable extra
 * descriptor is handed to its callback and the wait goes on */
static void count_extra(int fd, void *ctx)
{
    char c;
    ck_assert_int_eq(read(fd, &c, 1), 1);
    (*(int *)ctx)++;
}

START_TEST(test_wait_ends_at_deadline_stop_or_data)
{
    int p[2], q[2], calls = 0;
    ck_assert_int_eq(pipe(p), 0);
    ck_assert_int_eq(pipe(q), 0);
    double t0 = cl_now_s();
    ck_assert_int_eq(cl_wait_readable(p[0], t0 + 0.2, NULL, -1, NULL, NULL), 2);
    double waited = cl_now_s() - t0;
    ck_assert_msg(waited >= 0.2 && waited < 5, "waited %.3f s", waited);
    volatile sig_atomic_t stop = 1;
    ck_assert_int_eq(cl_wait_readable(p[0], 0, &stop, -1, NULL, NULL), 3);
    stop = 0;
    ck_assert_int_eq(write(q[1], "x", 1), 1);
    ck_assert_int_eq(write(p[1], "y", 1), 1);
    ck_assert_int_eq(cl_wait_readable(p[0], cl_now_s() + 5, &stop, q[0],
                                      count_extra, &calls),
                     0);
    ck_assert_int_eq(calls, 1);
    /* the other end closed: ready, and the read says end of file */
    char c;
    ck_assert_int_eq(read(p[0], &c, 1), 1);
    close(p[1]);
    ck_assert_int_eq(
        cl_wait_readable(p[0], cl_now_s() + 5, NULL, -1, NULL, NULL), 0);
    ck_assert_int_eq(read(p[0], &c, 1), 0);
    /* a closed descriptor is "ready": its read fails at once, no spin */
    close(p[0]);
    t0 = cl_now_s();
    ck_assert_int_eq(cl_wait_readable(p[0], t0 + 2, NULL, -1, NULL, NULL), 0);
    ck_assert_msg(cl_now_s() - t0 < 1, "spun %.3f s", cl_now_s() - t0);
    close(q[0]);
    close(q[1]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("protocol");
    TCase *unit = tcase_create("messages");
    tcase_add_test(unit, test_message_layer_fuzzed);
    tcase_add_test(unit, test_wait_ends_at_deadline_stop_or_data);
    suite_add_tcase(s, unit);
    TCase *grades = tcase_create("grades");
    tcase_set_timeout(grades, 900);
    tcase_add_test(grades, test_judge_survives_fuzzed_replies);
    suite_add_tcase(s, grades);
    return cl_suite_run(s, 0, NULL);
}
