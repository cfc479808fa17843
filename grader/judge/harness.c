/* harness.c: the case protocol, run by the judge (see harness.h). */
#define _GNU_SOURCE
#include "judge/harness.h"

#include "errcheck.h"
#include "guard.h"
#include "judge/baseline.h"
#include "judge/case.h"
#include "judge/clock.h"
#include "judge/judge_gpu.h"
#include "judge/measure.h"
#include "judge/trace.h"
#include "now.h"
#include "protocol/gate.h"
#include "rng.h"
#include "stats.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HELLO_TIMEOUT_S 120.0 /* CUDA start-up in a fresh runner */
#define FRAME_WARMUPS   4     /* empty frames before loading, not clocked */
#define FRAMES          24    /* then clocked: the frame and its noise */
#define LOADED_FRAMES   8     /* clocked once more after timing, loaded */
#define WARMUPS         2     /* checked, untimed calls before timing */
#define MIN_SAMPLES     10
#define MAX_SAMPLES     200
#define MAX_TOTAL_MS    2000.0
#define STABLE_REL      0.01
#define SPOT_CHECKS     2 /* timed calls checked on the CPU, at random */
#define TRACE_SPOTS     2 /* timed calls traced at random (not timed) */
#define WORKSPACE_CAP   ((uint64_t)16 << 30)

/* ---- verdicts ---------------------------------------------------------------
 */

static const char *error_hint(int e)
{
    switch (e) {
    case cudaErrorInvalidConfiguration:
        return "launch configuration out of range: zero blocks, more than "
               "1024 threads per block, or too much shared memory";
    case cudaErrorIllegalAddress:
        return "a kernel read or wrote outside its memory: check the bounds "
               "test and the index arithmetic";
    case cudaErrorMisalignedAddress:
        return "a vector load or store on a pointer that is not aligned "
               "to its width";
    case cudaErrorLaunchOutOfResources:
        return "too many registers or threads per block for this launch";
    case cudaErrorAssert: return "a device-side assert failed";
    default: return "see the CUDA documentation for this error";
    }
}

/* the runner is gone or silent: say so in the result */
static int runner_lost(struct case_run *k, int talk_rc, const char *during)
{
    char why[512] = "";
    int sigsys = 0;
    if (talk_rc != TALK_EOF) { /* it is still there: ended here */
        cl_runner_reap(&k->rn, 1, NULL, 0, NULL);
        k->runner_dead = 1;
    }
    if (talk_rc == TALK_TIMEOUT)
        return cl_case_fail(
            k, CL_ST_TIMEOUT,
            "no result after %g s%s: the kernel hangs or is far "
            "too slow (an infinite loop, or a barrier not every "
            "thread reaches?)",
            k->limit_s, during);
    if (talk_rc == TALK_NO_PAUSE)
        return cl_case_fail(
            k, CL_ST_CRASH,
            "the process running your code could not be paused "
            "within %.0f s after its reply%s (a thread stuck in the "
            "kernel?)",
            CL_PAUSE_WAIT_S, during);
    if (talk_rc == TALK_BAD) /* killed here: not a crash of its own */
        return cl_case_fail(k, CL_ST_FORBIDDEN,
                            "the grader got a reply the runner did not send%s: "
                            "your code wrote to the grader's socket",
                            during);
    cl_runner_reap(&k->rn, 1, why, sizeof why, &sigsys);
    k->runner_dead = 1;
    return cl_case_fail(k, sigsys ? CL_ST_FORBIDDEN : CL_ST_CRASH, "%s%s", why,
                        during);
}

/* forbidden libraries, or the grader's own references, mapped into the
 * runner (read by the kernel, not the runner): 1 when one is */
static int maps_check(struct case_run *k)
{
    char hit[512] = "";
    switch (cl_runner_maps(&k->rn, k->lab->caps, hit, sizeof hit)) {
    case CL_MAPS_OWN:
        return cl_case_fail(
            k, CL_ST_FORBIDDEN,
            "a file of the grader's own references was loaded into "
            "the process running your code (%s): the work must be "
            "your own",
            hit);
    case CL_MAPS_LIBRARY:
        return cl_case_fail(
            k, CL_ST_FORBIDDEN,
            "a library this lab forbids was loaded into the process "
            "running your code (%s): the work must be your own "
            "kernels",
            hit);
    default: return 0;
    }
}

/* ---- the runner's start, buffers and submission ----------------------------
 */

static int start_runner(struct case_run *k)
{
    char why[512] = "";
    struct cl_runner_spec sp = {
        .exe = k->o->run->runner,
        .lab_id = k->lab->id,
        .cpu_lab = !k->lab->needs_gpu,
        .tool_mode = !cl_run_sandboxed(k->o->run),
        .no_trace = k->o->run->no_trace,
        .census = k->o->run->census,
        .limit_s = k->limit_s,
        .submission_fd = k->o->submission_fd,
    };
    if (cl_runner_spawn(&k->rn, &sp, why, sizeof why) != 0)
        return cl_case_fail(k, CL_ST_INTERNAL, "%s", why);
    int rc = cl_runner_hello(&k->rn, HELLO_TIMEOUT_S);
    if (rc != TALK_OK) {
        cl_runner_reap(&k->rn, 1, why, sizeof why, NULL);
        k->runner_dead = 1;
        return cl_case_fail(k, CL_ST_INTERNAL, "the runner did not start (%s)",
                            rc == TALK_TIMEOUT ? "timed out"
                            : why[0]           ? why
                                               : "no answer");
    }
    k->r->sandbox = k->rn.hello.sandboxed;
    k->r->runner_uid = k->rn.hello.uid;
    if (!k->rn.hello.ok) {
        cl_runner_reap(&k->rn, 1, NULL, 0, NULL);
        k->runner_dead = 1;
        return cl_case_fail(k, CL_ST_INTERNAL, "%s", k->rn.hello.why);
    }
    if (k->rn.hello.sandbox[0])
        fprintf(stderr, "grade: runner sandbox: %s\n", k->rn.hello.sandbox);
    return 0;
}

/* GPU: have the runner allocate the planned buffers not yet allocated
 * (the workspace comes later), and map them here */
static int alloc_buffers(struct case_run *k, int asked)
{
    struct cl_map *m = &k->wire.map, *got = &k->wire.got;
    memset(m, 0, sizeof *m);
    m->total = k->plan.nbuf;
    for (int i = 0; i < k->plan.nbuf; i++) {
        const struct cl_buf_plan *p = &k->plan.buf[i];
        struct cl_gbuf *b = &k->hb[i];
        if (b->mapped || p->ask != asked)
            continue;
        struct cl_map_buf *mb = &m->b[m->n++];
        mb->index = i;
        mb->alloc = b->alloc;
        mb->at = b->at;
        mb->bytes = b->bytes;
        b->mapped = 1;
    }
    if (!m->n)
        return 0;
    int rc = cl_runner_talk(&k->rn, J_ALLOC, m, sizeof *m, NULL, 0, R_ALLOCATED,
                            got, sizeof *got, 120.0);
    if (rc != TALK_OK)
        return runner_lost(k, rc, " while allocating the buffers");
    /* the workspace comes after the submission loaded: from then on what
     * the runner says may be the submission's doing, and costs it */
    if (got->n != m->n)
        return asked ? cl_case_fail(
                           k, CL_ST_CUDA,
                           "the process running your code could not "
                           "allocate the workspace your function asked for "
                           "(out of GPU memory: does your code hold "
                           "memory of its own?)")
                     : cl_case_fail(k, CL_ST_INTERNAL,
                                    "the runner could not allocate the case's "
                                    "buffers (out of GPU memory?)");
    for (int j = 0; j < got->n; j++) {
        int i = m->b[j].index; /* ours, not the reply's */
        if (cl_gbuf_import(&k->hb[i], got->b[j].handle) != 0)
            return asked
                       ? cl_case_fail(k, CL_ST_FORBIDDEN,
                                      "the process running your code answered "
                                      "with memory that is not the workspace "
                                      "the grader planned (a forged handle)")
                       : cl_case_fail(
                             k, CL_ST_INTERNAL,
                             "the runner's buffer %s could not be mapped",
                             k->plan.buf[i].name);
    }
    cl_mem_sync();
    return 0;
}

/* the CPU lab: send the buffers that are allocated and not yet mapped */
static int map_buffers(struct case_run *k)
{
    struct cl_map *m = &k->wire.map;
    struct cl_reply *rep = &k->wire.rep;
    int fds[CL_MAX_BUFS];
    memset(m, 0, sizeof *m);
    m->total = k->plan.nbuf;
    for (int i = 0; i < k->plan.nbuf; i++) {
        struct cl_gbuf *b = &k->hb[i];
        if (!b->base || b->mapped)
            continue;
        struct cl_map_buf *mb = &m->b[m->n];
        mb->index = i;
        mb->alloc = b->alloc;
        mb->at = b->at;
        mb->bytes = b->bytes;
        fds[m->n++] = b->fd;
        b->mapped = 1;
    }
    if (!m->n)
        return 0;
    int rc = cl_runner_talk(&k->rn, J_MAP, m, sizeof *m, fds, m->n, R_MAPPED,
                            rep, sizeof *rep, 60.0);
    if (rc != TALK_OK)
        return runner_lost(k, rc, " while mapping the buffers");
    if (!rep->ok)
        return cl_case_fail(k, CL_ST_INTERNAL,
                            "the runner could not map the buffers: %.400s",
                            rep->why);
    return 0;
}

/* the buffers the runner does not have yet: allocated by it (GPU) or
 * sent to it (the CPU lab) */
static int share_buffers(struct case_run *k, int asked)
{
    return cl_judge_gpu() ? alloc_buffers(k, asked) : map_buffers(k);
}

static void call_cmd(struct case_run *k, struct cl_call_cmd *c, int call,
                     int gate, int trace)
{
    memset(c, 0, sizeof *c);
    c->gate_us = cl_judge_gpu() ? gate : 0;
    c->profile = k->o->run->profile;
    c->trace = trace && !k->o->run->no_trace;
    c->arg_len = (int32_t)k->lab->arg_size;
    c->tag = call + 1;
    memcpy(c->arg, k->arg, k->lab->arg_size);
}

/* call @p call's inputs, filled and written into the runner's buffers;
 * its outputs poisoned */
static void write_inputs(struct case_run *k, int call)
{
    struct cl_fill_ctx fc = {k->hb, NULL, &k->plan, k->o->data};
    cl_fill_run(k->lab, k->arg, &k->plan, &fc, cl_case_seed(k, call), call,
                call == 0);
    for (int i = 0; i < k->plan.nbuf; i++) {
        struct cl_gbuf *b = &k->hb[i];
        enum cl_role role = k->plan.buf[i].role;
        if (role == CL_OUT)
            cl_mem_set(b->ptr, CL_POISON, b->bytes);
        /* what the judge filled, into the runner's buffer */
        if (b->native && (role == CL_IN || (role == CL_STATE && call == 0)))
            cl_mem_copy(b->ptr, b->native, b->bytes);
        if (role == CL_STATE && call == 0 && b->mirror)
            cl_mem_copy(b->mirror, b->native ? b->native : b->ptr, b->bytes);
    }
}

/* CL_TIMING_DETAIL=1: where a case's empty frames and timed calls spend
 * their time, one line per timed case on stderr (medians, ms): the
 * judge's clock; the runner's own clock (untrusted: a diagnosis, never
 * scored) to the gate queued, the call returned and the GPU synchronized;
 * the events; the check that stops the judge's clock. For a maintainer
 * who asks why `judged` and the events differ on a host. */
enum {
    PH_START,
    PH_FRAMES,
    PH_LOAD,
    PH_CHECKS,
    PH_WARMUPS,
    PH_TIMED,
    PH_LOADED,
    PH_END,
    PH_N
};
enum {
    D_JUDGE,
    D_GATE,
    D_RETURNED,
    D_SYNCED,
    D_EVENTS,
    D_CHECK,
    D_REPLY,
    D_LATE,
    D_N
};
static struct {
    int on;
    struct cl_series s[2][D_N]; /* [0]: frames before the load, [1]: calls */
    double phase_s[PH_N];       /* seconds of each phase of one look */
    int calls[PH_N];            /* calls made in it */
    double mark;                /* when the current phase began */
    double cpu_s;               /* of all that, the CPU reference checks */
    int cpu_n;
} detail;

/* the phases of a look, in order, for the phase line of CL_TIMING_DETAIL:
 * where a case's seconds go on the host (a large case's CPU checks, its
 * runner's start) */
static const char *const phase_name[PH_N] = {
    "runner start", "frames",      "load",          "check calls",
    "warm-ups",     "timed calls", "loaded frames", "end"};

/* the phase that ended now: its seconds counted, the next one begun */
static void detail_phase(int ph)
{
    if (!detail.on)
        return;
    double now = cl_now_s();
    detail.phase_s[ph] += now - detail.mark;
    detail.mark = now;
}

static void detail_push(int call, const struct cl_runner *rn,
                        const struct cl_reply *rep,
                        const struct cl_clock_stop *cs)
{
    if (!detail.on)
        return;
    struct cl_series *s = detail.s[call];
    double v[D_N] = {rn->wall_ms,     rep->host_ms[0], rep->host_ms[1],
                     rep->host_ms[2], rep->span_ms,    cs->check_ms,
                     rn->reply_ms,    rn->late_ms};
    for (int i = 0; i < D_N; i++)
        cl_series_push(&s[i], v[i]);
}

static void detail_start(void)
{
    const char *on = getenv("CL_TIMING_DETAIL");
    detail.on = on && *on && strcmp(on, "0") != 0;
    memset(detail.phase_s, 0, sizeof detail.phase_s);
    memset(detail.calls, 0, sizeof detail.calls);
    detail.cpu_s = 0;
    detail.cpu_n = 0;
    detail.mark = cl_now_s();
    for (int c = 0; c < 2 && detail.on; c++)
        for (int i = 0; i < D_N; i++) {
            if (!detail.s[c][i].cap)
                detail.s[c][i] = cl_series_make(4 * MAX_SAMPLES);
            detail.s[c][i].n = 0;
        }
}

static void detail_print(const struct case_run *k)
{
    if (!detail.on)
        return;
    static const char *const what[2] = {"frame", "call"};
    fprintf(stderr, "timing detail %s %s:", k->lab->id, k->c->name);
    for (int c = 0; c < 2; c++) {
        const struct cl_series *s = detail.s[c];
        fprintf(stderr,
                " %s (%d): judge %.4f, runner gate %.4f returned %.4f synced "
                "%.4f, events %.4f, check %.4f, reply %.4f, late %.4f%s",
                what[c], s[D_JUDGE].n, cl_series_median(&s[D_JUDGE]),
                cl_series_median(&s[D_GATE]), cl_series_median(&s[D_RETURNED]),
                cl_series_median(&s[D_SYNCED]), cl_series_median(&s[D_EVENTS]),
                cl_series_median(&s[D_CHECK]), cl_series_median(&s[D_REPLY]),
                cl_series_median(&s[D_LATE]), c ? "\n" : ";");
    }
}

/* the phase line: one per look of every case (a case that fails early
 * shows where it stopped) */
static void detail_phases(const struct case_run *k)
{
    if (!detail.on)
        return;
    detail_phase(PH_END);
    fprintf(stderr, "timing phases %s %s:", k->lab->id, k->c->name);
    for (int i = 0; i < PH_N; i++)
        fprintf(stderr,
                detail.calls[i] ? " %s %.2f s (%d calls)," : " %s %.2f s,",
                phase_name[i], detail.phase_s[i], detail.calls[i]);
    fprintf(stderr, " of which CPU reference checks %.2f s (%d)\n",
            detail.cpu_s, detail.cpu_n);
}

/* whether the empty frames of @p k are prepared as its timed calls are
 * (frame_prep()): a timed case on the GPU, not under a tool */
static int frames_prepared(const struct case_run *k)
{
    return cl_judge_gpu() && cl_run_sandboxed(k->o->run) && k->timing_case;
}

/* What a timed call's preparation does on the GPU before its command and
 * owes nothing to the submission, done before an empty frame: the idle
 * probe, the baselines' timed runs as a call's (cl_base_call(): every
 * usable one, or a stateful case's first, which moves the judge's copy of
 * the state: the first call seeds it again, and no check reads it after
 * the loaded frames), the ceiling's two copies. The runner then sleeps as
 * long before a frame as before a call, and wakes as late: the frame
 * measures the same start as the call it is taken from (Lab 4's loop of a
 * thousand launches, left out of its frames, put 0.05 to 0.1 ms of the
 * judge's clock on each of its calls and none on the frame). */
static void frame_prep(struct case_run *k)
{
    if (!frames_prepared(k))
        return;
    struct cl_probe p;
    cl_clock_gpu_busy(&p, 0);
    double base_ms[CL_MAX_BASELINES];
    cl_base_call(k, 1, base_ms);
    if (cl_ceiling_ready(k)) {
        cl_ceiling_time(k, 0);
        cl_ceiling_time(k, 1);
    }
}

/* One empty frame on the judge's clock, clocked as a timed call is: the
 * judge's preparation of a call done first (frame_prep(), the L2 flush),
 * then the command, to the sampled check of the outputs that stops the
 * clock, reading what a call's check reads. 0, with its time in @p ms. */
static int clocked_frame(struct case_run *k, double *ms)
{
    struct cl_call_cmd *c = &k->wire.cmd;
    struct cl_reply *rep = &k->wire.rep;
    frame_prep(k);
    if (cl_judge_gpu()) {
        cl_judge_flush_l2();
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    struct cl_clock_stop cs = {k, 0, 1, 0}; /* read as a call's check */
    call_cmd(k, c, 0, CL_GATE_US, 0);
    int rc = cl_runner_talk_clocked(&k->rn, J_DRY, c, sizeof *c, R_CALL, rep,
                                    sizeof *rep, 30.0, cl_clock_stop, &cs);
    if (rc != TALK_OK)
        return runner_lost(k, rc, " (the runner's own frame)");
    if (!rep->ok || rep->cuda_err)
        return cl_case_fail(k, k->loaded ? CL_ST_CRASH : CL_ST_INTERNAL,
                            "the runner's frame failed: %.400s", rep->why);
    *ms = k->rn.wall_ms;
    if (!k->loaded)
        detail_push(0, &k->rn, rep, &cs);
    return 0;
}

/* Empty frames before the student's code is loaded: the runner's CUDA and
 * the protocol warmed up, then the frame every timed call of the case is
 * measured against, and its noise (k->frames). Nothing of the submission
 * exists yet to slow, hold or fill them; once it is loaded, no empty frame
 * runs between the judge's writing of a call's inputs and the call. */
static int dry_runs(struct case_run *k)
{
    /* the baselines frame_prep() runs read the first call's inputs (a
     * stateful case's state too, seeded again by its first call) */
    if (frames_prepared(k) && cl_base_count(k)) {
        write_inputs(k, 0);
        cl_base_prepare(k, 0);
        cl_mem_sync();
    }
    for (int i = 0; i < FRAME_WARMUPS + FRAMES; i++) {
        double ms = 0;
        if (clocked_frame(k, &ms))
            return 1;
        if (i >= FRAME_WARMUPS)
            cl_series_push(&k->frames, ms);
    }
    return 0;
}

static int load_submission(struct case_run *k)
{
    struct cl_reply *rep = &k->wire.rep;
    int rc = cl_runner_talk(&k->rn, J_LOAD, NULL, 0, NULL, 0, R_LOADED, rep,
                            sizeof *rep, k->limit_s);
    if (rc != TALK_OK) {
        runner_lost(k, rc,
                    " while loading (in a constructor or static "
                    "initialiser of your code?)");
        k->r->load_failed = 1;
        return 1;
    }
    k->loaded = 1;
    if (!rep->ok) {
        rep->why[sizeof rep->why - 1] = '\0';
        k->r->load_failed = 1;
        return cl_case_fail(k, CL_ST_CRASH, "%s", rep->why);
    }
    return maps_check(k);
}

/* the workspace the student asks for, allocated and mapped */
static int ask_workspace(struct case_run *k)
{
    struct cl_call_cmd *c = &k->wire.cmd;
    struct cl_reply *rep = &k->wire.rep;
    for (int i = 0; i < k->plan.nbuf; i++) {
        if (!k->plan.buf[i].ask)
            continue;
        call_cmd(k, c, 0, 0, 0);
        int rc = cl_runner_talk(&k->rn, J_QUERY, c, sizeof *c, NULL, 0, R_QUERY,
                                rep, sizeof *rep, k->limit_s);
        if (rc != TALK_OK)
            return runner_lost(k, rc, " in your workspace-size function");
        if (!rep->ok) /* after the load: the submission's process failed */
            return cl_case_fail(k, CL_ST_CRASH,
                                "the process running your code failed in your "
                                "workspace-size function: %.400s",
                                rep->why);
        if (rep->cuda_err)
            return cl_case_fail(
                k, CL_ST_CUDA,
                "CUDA error in your workspace-size function: %.60s "
                "(%.300s)",
                rep->err_name, rep->why);
        if (rep->value > WORKSPACE_CAP)
            return cl_case_fail(
                k, CL_ST_WRONG,
                "your workspace-size function asked for %llu bytes; "
                "the grader gives at most %llu",
                (unsigned long long)rep->value,
                (unsigned long long)WORKSPACE_CAP);
        size_t bytes = (size_t)rep->value;
        k->plan.buf[i].count = (bytes + 3) / 4;
        if (cl_judge_gpu())
            cl_gbuf_size(&k->hb[i], bytes, k->plan.buf[i].offset);
        else
            cl_gbuf_alloc(&k->hb[i], bytes, k->plan.buf[i].offset);
    }
    return share_buffers(k, 1);
}

/* ---- a call -----------------------------------------------------------------
 */

/* what one call measured */
struct shot {
    double span_ms;   /* the runner's report (its events): a hint */
    double judge_ms;  /* the judge's clock: command to a checked output */
    unsigned unready; /* samples unwritten or wrong when the clock stopped */
    double base_ms[CL_MAX_BASELINES];
    double copy_ms, stream_ms; /* the ceiling's two copies */
    struct cl_trace trace;
};

/* Before a timed call's baseline and the call itself, and after every
 * write of the judge into the runner's buffers: no other context may be
 * running work. A busy GPU is probed again; if it stays busy, the runner
 * is ended and the GPU probed a few times more. Still busy: another
 * process's work, and the time cannot be trusted. Idle from then on, the
 * work was the submission's (left running after its call returned), but
 * only if no other process holds a context on the GPU: another's work may
 * have ended in the same moment (two queues of a class on one GPU did,
 * H100, 2026-11-27), and the verdict is then unconfirmed, never forbidden.
 * 0: idle. */
#define IDLE_PROBES 5 /* idle after the runner ended: so many probes */
static int prove_idle(struct case_run *k)
{
    if (!cl_judge_gpu() || !cl_run_sandboxed(k->o->run))
        return 0;
    struct cl_probe p;
    if (!cl_clock_gpu_busy(&p, 1))
        return 0;
    double gap = p.gap_us;
    pid_t runner = k->rn.pid;
    cl_runner_reap(&k->rn, 1, NULL, 0, NULL);
    k->runner_dead = 1;
    int busy = 0;
    for (int i = 0; i < IDLE_PROBES && !busy; i++)
        busy = cl_clock_gpu_busy(&p, 0);
    int others = busy ? 0 : cl_judge_gpu_others(runner);
    if (!busy && others <= 0)
        return cl_case_fail(
            k, CL_ST_FORBIDDEN,
            "your code left work running on the GPU after its call "
            "returned: the grader's probe lost the GPU to it for "
            "%.0f us at a time while the runner was stopped, and "
            "had it back once the runner ended",
            gap);
    if (!busy)
        return cl_case_fail(
            k, CL_ST_UNCONFIRMED,
            "the GPU was busy while this case was timed (the grader's "
            "probe lost it for %.0f us at a time) and idle once your "
            "code ended, but %d other process%s held the GPU too, and "
            "the work may have been theirs: the time cannot be trusted; "
            "grade again on an idle GPU",
            gap, others, others == 1 ? "" : "es");
    return cl_case_fail(
        k, CL_ST_UNCONFIRMED,
        "another process used the GPU while this case was timed "
        "(the grader's probe lost the GPU for %.0f us at a time, "
        "with your code ended): the time cannot be trusted; grade "
        "again on an idle GPU",
        p.gap_us);
}

/* what the baseline does on a call */
enum { BASE_IF_PLANNED, BASE_UNTIMED, BASE_TIMED };

/* how one call is made (one_call()) */
struct call_plan {
    int call;             /* its number in the case */
    int mode;             /* BASE_* */
    int cpu_check;        /* check it against the CPU reference too */
    int trace;            /* record its launches (slows them: not timed) */
    const char *when;     /* prefix of its messages */
    struct cl_gbuf *ceil; /* the ceiling's buffer, when timed */
};

/* the judge's half of a call: inputs, poison, the GPU proved idle,
 * baselines (timed or not) */
static int prepare_call(struct case_run *k, const struct call_plan *cp,
                        struct shot *sh)
{
    int call = cp->call;
    write_inputs(k, call);
    if (cp->mode == BASE_TIMED) {
        /* the writes above done, nothing of the runner's may be running */
        cl_mem_sync();
        if (prove_idle(k))
            return 1;
    }
    cl_base_prepare(k, call);
    if ((cp->mode != BASE_IF_PLANNED || k->plan.versus) &&
        cl_base_call(k, cp->mode == BASE_TIMED, sh->base_ms))
        return 1;
    if (cp->mode == BASE_TIMED && cl_judge_gpu() && cp->ceil &&
        cp->ceil->base) {
        sh->copy_ms = cl_ceiling_time(k, 0);
        sh->stream_ms = cl_ceiling_time(k, 1);
    }
    if (cl_judge_gpu()) {
        cl_judge_flush_l2();
        /* all of the judge's work, on any stream, done before the call */
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    return 0;
}

/* the check of a call that came back: guards, trace, libraries */
static int after_call(struct case_run *k, const struct cl_reply *rep,
                      struct shot *sh)
{
    if (!rep->ok) /* after the load: the submission's process failed */
        return cl_case_fail(k, CL_ST_CRASH,
                            "the process running your code failed in its call: "
                            "%.400s",
                            rep->why);
    if (rep->cuda_err) {
        char name[64];
        snprintf(name, sizeof name, "%s", rep->err_name);
        return cl_case_fail(k, CL_ST_CUDA,
                            "CUDA error in your call: %.60s (%.300s): %s", name,
                            rep->why, error_hint(rep->cuda_err));
    }
    sh->span_ms =
        isfinite(rep->span_ms) && rep->span_ms >= 0 ? rep->span_ms : -1;
    sh->trace = rep->trace;
    sh->trace.n = sh->trace.n < 0              ? 0
                  : sh->trace.n > CL_TRACE_MAX ? CL_TRACE_MAX
                                               : sh->trace.n;
    for (int i = 0; i < k->plan.nbuf; i++) {
        struct cl_guard_report g;
        if (!cl_gbuf_guards(&k->hb[i], &g))
            continue;
        k->r->status = CL_ST_OOB;
        cl_guard_describe(&g, k->plan.buf[i].name, 4, k->r->msg,
                          sizeof k->r->msg);
        return 1;
    }
    if (maps_check(k))
        return 1;
    char why[512];
    enum cl_trace_rule rule = cl_trace_verdict(
        &sh->trace, cl_caps_forbidden_prefixes(k->lab->caps), why, sizeof why);
    if (rule == CL_TRACE_OFF_STREAM || rule == CL_TRACE_LIBRARY)
        return cl_case_fail(k, CL_ST_FORBIDDEN, "%s", why);
    return 0;
}

/* the student's outputs against the CPU reference and the baseline */
static int verify_call(struct case_run *k, int call, int cpu, const char *when)
{
    int wrong = 0;
    if (cpu && k->lab->check) {
        double t0 = detail.on ? cl_now_s() : 0;
        wrong = cl_case_check(k, call, when, k->r, CL_FROM_SUBMISSION);
        if (wrong && cl_base_first(k) >= 0) {
            /* is the reference right? the baseline says */
            struct cl_result br = *k->r;
            br.status = CL_ST_PASS;
            int base_wrong =
                cl_case_check(k, call, when, &br, CL_FROM_BASELINE);
            size_t at = strlen(k->r->msg);
            const char *name = cl_base_name(k, cl_base_first(k));
            if (!base_wrong)
                snprintf(k->r->msg + at, sizeof k->r->msg - at,
                         " (%s%s%s on the same inputs matches the reference)",
                         k->lab->baseline,
                         strcmp(name, k->lab->baseline) ? " " : "",
                         strcmp(name, k->lab->baseline) ? name : "");
        }
        cl_case_forget_inputs(k);
        if (detail.on) {
            detail.cpu_s += cl_now_s() - t0;
            detail.cpu_n++;
        }
        if (wrong)
            return 1;
    }
    if (!cl_base_ran(k))
        return 0;
    struct cl_vs v;
    cl_check_init(k, &v.ck, call, when, k->r, CL_FROM_SUBMISSION);
    v.scale = 2.0;
    wrong = k->lab->versus ? k->lab->versus(&v) : cl_vs_default(&v, NULL, NULL);
    cl_case_forget_outputs(k);
    cl_case_forget_inputs(k);
    return wrong;
}

/* STATE buffers follow the baseline's state into the next call */
static void resync_state(struct case_run *k)
{
    for (int i = 0; i < k->plan.nbuf; i++)
        if (k->plan.buf[i].role == CL_STATE && k->hb[i].mirror)
            cl_mem_copy(k->hb[i].ptr, k->hb[i].mirror, k->hb[i].bytes);
    cl_mem_sync();
}

/* one call, start to end: 0 when it passed every check. A timed call is
 * clocked by the judge from the command to a check of its output (the
 * clock stops when the check does), after an empty frame clocked alike */
static int one_call(struct case_run *k, const struct call_plan *cp,
                    struct shot *sh)
{
    struct cl_call_cmd *c = &k->wire.cmd;
    struct cl_reply *rep = &k->wire.rep;
    int timing = cp->mode == BASE_TIMED;
    memset(sh, 0, sizeof *sh);
    if (prepare_call(k, cp, sh))
        return 1;
    struct cl_clock_stop cs = {k, 0, cl_base_ran(k), 0};
    /* straight from the judge's writes to the call: the runner does not
     * run between them (it is stopped), so no thread of it sees the
     * inputs before the clock starts */
    call_cmd(k, c, cp->call, CL_GATE_US, cp->trace);
    int rc = cl_runner_talk_clocked(&k->rn, J_CALL, c, sizeof *c, R_CALL, rep,
                                    sizeof *rep, k->limit_s,
                                    timing ? cl_clock_stop : NULL, &cs);
    sh->judge_ms = k->rn.wall_ms; /* and its CPU work after the reply */
    if (timing && !cp->trace && rc == TALK_OK)
        detail_push(1, &k->rn, rep, &cs);
    sh->unready = cs.bad;
    if (rc != TALK_OK)
        return runner_lost(k, rc, "");
    if (after_call(k, rep, sh))
        return 1;
    if (verify_call(k, cp->call, cp->cpu_check, cp->when))
        return 1;
    if (timing && sh->unready)
        return cl_case_fail(
            k, CL_ST_WRONG,
            "%syour function returned before its output was done: "
            "%u of the outputs the grader sampled as the call "
            "returned were not yet written or not yet right (work "
            "left running after the call returned?)",
            cp->when, sh->unready);
    if (k->has_state)
        resync_state(k);
    return 0;
}

/* ---- timing -----------------------------------------------------------------
 */

/* A few empty frames once more, after the timed calls, with the
 * submission loaded: a finding when they are slower than before the load
 * (threads or hooks of the submission at work between calls), never a
 * correction (r->frame_loaded_ms; the message says so). 1: the runner
 * failed in them (the case's failure is set). */
static int loaded_frames(struct case_run *k)
{
    struct cl_series s = cl_series_make(LOADED_FRAMES);
    int failed = 0;
    for (int i = 0; i < LOADED_FRAMES && !failed; i++) {
        double ms = 0;
        failed = clocked_frame(k, &ms);
        if (!failed)
            cl_series_push(&s, ms);
    }
    if (!failed)
        k->r->frame_loaded_ms = cl_series_median(&s);
    cl_series_free(&s);
    return failed;
}

/* the finding of loaded_frames(), added to the case's message */
static void note_loaded_frames(struct case_run *k, const struct cl_frame *f)
{
    struct cl_result *r = k->r;
    double more = r->frame_loaded_ms - f->median_ms;
    double notable = 3 * f->noise_ms > 0.05 ? 3 * f->noise_ms : 0.05;
    if (more <= notable || r->status != CL_ST_PASS)
        return;
    size_t at = strlen(r->msg);
    snprintf(r->msg + at, sizeof r->msg - at,
             "%snote: with your code loaded, an empty call took %.3f ms more "
             "than before it was loaded (threads or hooks at work between "
             "calls?): your time is measured against the empty call before "
             "the load, so this gains nothing",
             at ? "; " : "", more);
}

static void time_case(struct case_run *k)
{
    struct cl_result *r = k->r;
    /* every call of the loop below pushes its baselines and ceilings, the
     * traced ones too: room for all of them */
    int cap = MAX_SAMPLES + TRACE_SPOTS;
    struct cl_series judged = cl_series_make(cap), told = cl_series_make(cap);
    struct cl_series cp = cl_series_make(cap), sc = cl_series_make(cap);
    struct cl_series bs[CL_MAX_BASELINES];
    for (int i = 0; i < CL_MAX_BASELINES; i++)
        bs[i] = cl_series_make(cap);
    double *events = cl_xcalloc((size_t)cap, sizeof *events);
    int call = k->plan.check_calls;
    struct shot sh;
    /* warm-ups: checked like every call, not timed */
    for (int w = 0; w < WARMUPS; w++, call++) {
        struct call_plan p = {call, BASE_UNTIMED,       0,
                              1,    "during warm-up: ", NULL};
        detail.calls[PH_WARMUPS]++;
        if (one_call(k, &p, &sh))
            goto out;
    }
    detail_phase(PH_WARMUPS);
    int spots_left = SPOT_CHECKS, traces_left = TRACE_SPOTS;
    double total = 0;
    uint64_t dice = cl_private_random();
    for (int n = 0; n < MAX_SAMPLES + TRACE_SPOTS; n++, call++) {
        dice = cl_mix64(dice + (uint64_t)n);
        int spot = spots_left > 0 && (dice % 6 == 0 || n == MIN_SAMPLES - 1);
        int traced = traces_left > 0 && n > 0 &&
                     ((dice >> 8) % 5 == 0 || n == MIN_SAMPLES + 1);
        spots_left -= spot;
        traces_left -= traced;
        struct call_plan p = {call,   BASE_TIMED,       spot && !k->has_state,
                              traced, "after timing: ", cl_ceiling_bufs(k)};
        detail.calls[PH_TIMED]++;
        if (one_call(k, &p, &sh))
            goto out;
        for (int i = 0; i < CL_MAX_BASELINES; i++)
            cl_series_push(&bs[i], sh.base_ms[i]);
        cl_series_push(&cp, sh.copy_ms);
        cl_series_push(&sc, sh.stream_ms);
        if (traced) { /* its launches were slowed by the trace */
            r->trace = sh.trace;
            continue;
        }
        /* every counted call: the judge's clock, and beside it (for the
         * scored time, within the frame's noise) what the runner said */
        events[judged.n] = sh.span_ms;
        if (!cl_series_push(&judged, sh.judge_ms))
            continue;
        cl_series_push(&told, sh.span_ms);
        total += sh.judge_ms + sh.base_ms[0];
        int settled = judged.n >= MIN_SAMPLES &&
                      cl_series_settled(&judged, MIN_SAMPLES, STABLE_REL) &&
                      !traces_left;
        for (int i = 0; i < CL_MAX_BASELINES && settled; i++)
            settled = cl_series_settled(&bs[i], MIN_SAMPLES, STABLE_REL);
        if (settled || total > MAX_TOTAL_MS || judged.n >= MAX_SAMPLES)
            break;
    }
    /* the scored time of each call: the judge's clock less the frame
     * clocked before the load, which the runner's report may lower by that
     * frame's noise at most */
    detail_phase(PH_TIMED);
    struct cl_frame f = cl_frame_of(&k->frames);
    int lost = loaded_frames(k);
    detail_phase(PH_LOADED);
    if (lost)
        goto out;
    struct cl_series scored = cl_series_make(cap), net = cl_series_make(cap);
    for (int i = 0; i < judged.n; i++) {
        cl_series_push(&scored, cl_call_scored_ms(events[i], judged.v[i], &f));
        cl_series_push(&net, judged.v[i] - f.median_ms);
    }
    struct cl_stats st;
    cl_stats_compute(scored.v, scored.n, &st);
    r->timed = scored.n > 0;
    r->samples = scored.n;
    r->t_ms = st.median;
    r->t_spread = st.spread;
    r->event_ms = cl_series_median(&told);
    r->judge_ms = cl_series_median(&net);
    r->frame_ms = f.median_ms;
    r->noise_ms = f.noise_ms;
    r->work = k->plan.work;
    cl_series_free(&scored);
    cl_series_free(&net);
    int best = -1;
    for (int i = 0; i < CL_MAX_BASELINES; i++)
        if (bs[i].n && (best < 0 ||
                        cl_series_median(&bs[i]) < cl_series_median(&bs[best])))
            best = i;
    r->base_ms = best >= 0 ? cl_series_median(&bs[best]) : 0;
    double c1 = cl_series_median(&cp), c2 = cl_series_median(&sc);
    r->ceil_ms = c1 > 0 && (c2 <= 0 || c1 < c2) ? c1 : c2;
    r->ceil_work = r->ceil_ms > 0 ? k->plan.ceil_bytes : 0;
    if (r->status == CL_ST_PASS)
        cl_base_describe(k, bs, best);
    note_loaded_frames(k, &f);
    detail_print(k);
    if (k->o->gpu && r->status == CL_ST_PASS && r->t_ms > 0) {
        double floor = cl_floor_ms(k->lab->metric, r->work, k->o->gpu);
        if (floor > 0 && r->t_ms < floor) {
            r->status = CL_ST_TOO_FAST;
            snprintf(r->msg, sizeof r->msg,
                     "measured %.4f ms, below the physical floor of %.4f ms "
                     "for this much work: the timing is not trustworthy",
                     r->t_ms, floor);
        }
    }
out:
    free(events);
    cl_series_free(&judged);
    cl_series_free(&told);
    cl_series_free(&cp);
    cl_series_free(&sc);
    for (int i = 0; i < CL_MAX_BASELINES; i++)
        cl_series_free(&bs[i]);
}

/* ---- the case ---------------------------------------------------------------
 */

static void finish_runner(struct case_run *k)
{
    if (k->rn.pid > 0 && !k->runner_dead)
        cl_msg_send(k->rn.sock, J_EXIT, ++k->rn.seq, NULL, 0, NULL, 0);
    /* nothing of it may outlive the case: its whole session goes */
    cl_runner_reap(&k->rn, 1, NULL, 0, NULL);
}

/* the plan of case @p index bound to the lab's data, its buffers sized
 * (GPU: the runner allocates them once it is up) or allocated (CPU) */
static int plan_case(struct case_run *k)
{
    const struct cl_lab *lab = k->lab;
    if (lab->arg_size > CL_ARG_MAX)
        return cl_case_fail(k, CL_ST_INTERNAL, "case struct too large");
    memcpy(k->arg, k->c->arg, lab->arg_size);
    if (lab->bind_data && k->o->data)
        lab->bind_data(k->o->data, k->arg);
    if (lab->plan(k->arg, &k->plan) != 0)
        return cl_case_fail(k, CL_ST_INTERNAL, "no plan for case %s",
                            k->c->name);
    if (k->plan.check_calls < 1)
        k->plan.check_calls = 1;
    /* a profiled call is neither timed nor scored: no baseline (under the
     * profiler, cuDNN's search for Lab 2's K=128 ran for minutes); the CPU's
     * rows alone check the output */
    if (k->plan.nobase || k->o->run->profile)
        cl_base_drop(k);
    for (int i = 0; i < k->plan.nbuf; i++) {
        const struct cl_buf_plan *p = &k->plan.buf[i];
        k->has_state |= p->role == CL_STATE;
        if (p->ask)
            continue;
        if (cl_judge_gpu())
            cl_gbuf_size(&k->hb[i], p->count * 4, p->offset);
        else
            cl_gbuf_alloc(&k->hb[i], p->count * 4, p->offset);
    }
    cl_mem_sync();
    return 0;
}

/* one grading of case @p index, from a fresh runner */
static void case_once(const struct cl_lab *lab, int index,
                      const struct cl_case_opts *o, struct cl_result *r)
{
    /* a case's state is large (host images, the messages): one, reused */
    static struct case_run k;
    memset(&k, 0, sizeof k);
    memset(r, 0, sizeof *r);
    r->index = index;
    r->status = CL_ST_PASS;
    k.lab = lab;
    k.index = index;
    k.c = &lab->cases[index];
    k.o = o;
    k.r = r;
    k.limit_s = o->limit_s;
    cl_base_init(&k, lab->base);
    k.salt = cl_private_random();
    k.rn.sock = k.rn.out = -1;
    k.frames = cl_series_make(FRAMES);
    detail_start();
    if (plan_case(&k)) {
        cl_series_free(&k.frames);
        return;
    }
    int timing = o->timing && !o->run->profile;
    k.timing_case = timing;
    int ok =
        !cl_case_resources(&k) && !start_runner(&k) && !share_buffers(&k, 0);
    detail_phase(PH_START);
    ok = ok && !dry_runs(&k);
    detail_phase(PH_FRAMES);
    ok = ok && !load_submission(&k) && !ask_workspace(&k);
    detail_phase(PH_LOAD);
    struct shot sh;
    memset(&sh, 0, sizeof sh);
    for (int call = 0; ok && call < k.plan.check_calls; call++) {
        int last = call == k.plan.check_calls - 1;
        struct call_plan p = {call, BASE_IF_PLANNED, last, 1, "", NULL};
        detail.calls[PH_CHECKS]++;
        ok = !one_call(&k, &p, &sh);
        if (ok && last)
            ok = !cl_base_verify(&k, call, timing);
    }
    detail_phase(PH_CHECKS);
    r->trace = sh.trace;
    if (ok && timing)
        time_case(&k);
    /* the runner's buffers unmapped here before it goes */
    for (int i = 0; i < k.plan.nbuf; i++)
        if (k.hb[i].imported) {
            cudaIpcCloseMemHandle(k.hb[i].base);
            k.hb[i].imported = 0;
        }
    finish_runner(&k);
    cl_base_free(&k);
    for (int i = 0; i < k.plan.nbuf; i++)
        cl_gbuf_free(&k.hb[i], !k.device_broken);
    cl_case_free_outputs(&k);
    cl_case_forget_inputs(&k);
    cl_series_free(&k.frames);
    detail_phases(&k);
    if (cl_judge_gpu()) {
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            r->restart = 1; /* the judge's own context is gone */
            if (r->status == CL_ST_PASS)
                cl_case_fail(&k, CL_ST_INTERNAL,
                             "the grader's GPU context failed: %s",
                             cudaGetErrorString(e));
        }
    }
}

void cl_case_run(const struct cl_lab *lab, int index,
                 const struct cl_case_opts *o, struct cl_result *r)
{
    case_once(lab, index, o, r);
    r->looks = 1;
    double first = r->t_ms;
    /* the judge's clock set the score, above the events: once more, a
     * fresh runner and fresh frames, up to CL_MAX_LOOKS in all, until a
     * look is scored near its events (cl_second_look_keeps()) */
    static struct cl_result again;
    for (int n = 2; n <= CL_MAX_LOOKS && cl_second_look_due(r); n++) {
        case_once(lab, index, o, &again);
        int restart = r->restart | again.restart;
        if (cl_second_look_keeps(r, &again))
            *r = again;
        r->looks = n;
        r->first_look_ms = first;
        r->restart = restart;
        if (again.status != CL_ST_PASS)
            break; /* nothing more to learn from it */
        if (!cl_second_look_due(&again))
            break;
    }
}
