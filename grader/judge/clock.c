/* clock.c: the judge's clock on a timed call (clock.h). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "judge/clock.h"

#include "guard.h"
#include "judge/case.h"
#include "judge/device.h"
#include "now.h"

#include <math.h>
#include <string.h>
#include <time.h>

/* the CPU lab's side of the sampled check: the same rules on the host */
static unsigned sample_host(const struct cl_sample_buf *b, int nbuf, int k,
                            uint64_t seed)
{
    unsigned bad = 0;
    for (int y = 0; y < nbuf; y++)
        for (int i = 0; i < k && b[y].n > 0; i++) {
            uint64_t at =
                i == 0   ? 0
                : i == 1 ? b[y].n - 1
                         : cl_mix64(seed + (uint64_t)y * 0x9e3779b97f4a7c15ULL +
                                    (uint64_t)i) %
                               b[y].n;
            unsigned g, w;
            memcpy(&g, (const unsigned char *)b[y].got + 4 * at, 4);
            if (!b[y].want) {
                bad += g == CL_POISON_F32;
                continue;
            }
            memcpy(&w, (const unsigned char *)b[y].want + 4 * at, 4);
            if (b[y].is_int) {
                bad += g != w;
                continue;
            }
            float gf, wf;
            memcpy(&gf, &g, 4);
            memcpy(&wf, &w, 4);
            double d = fabs((double)gf - (double)wf);
            bad += g == CL_POISON_F32 || !isfinite(gf) ||
                   !(d <= b[y].atol + b[y].rtol * fabs((double)wf));
        }
    return bad;
}

unsigned cl_clock_sample(struct case_run *k, uint64_t seed, int values)
{
    struct cl_sample_buf b[CL_SAMPLE_BUFS];
    int n = 0;
    for (int i = 0; i < k->plan.nbuf && n < CL_SAMPLE_BUFS; i++) {
        const struct cl_buf_plan *p = &k->plan.buf[i];
        const struct cl_gbuf *g = &k->hb[i];
        if ((p->role != CL_OUT && p->role != CL_STATE) || !g->ptr || !p->count)
            continue;
        int vs = values && g->mirror && !k->plan.sample_written_only;
        if (!vs && p->role == CL_STATE)
            continue; /* state is not poisoned: nothing to see */
        const struct cl_tolerance *t = p->has_tol ? &p->tol : &k->plan.tol;
        b[n++] = (struct cl_sample_buf){g->ptr,      vs ? g->mirror : NULL,
                                        p->count,    p->elem == CL_I32,
                                        2 * t->atol, 2 * t->rtol};
    }
    return cl_judge_gpu()
               ? cl_sample_check(b, n, CL_SAMPLES, seed, cl_judge_stream())
               : sample_host(b, n, CL_SAMPLES, seed);
}

void cl_clock_stop(void *ctx)
{
    struct cl_clock_stop *cs = ctx;
    double t0 = cl_now_s();
    cs->bad = cl_clock_sample(cs->k, cl_private_random(), cs->values);
    cs->check_ms = (cl_now_s() - t0) * 1e3;
}

/* the probe's length: longer than the GPU's time slice between contexts
 * (2.4 ms on an H100 with driver 580, measured 2026-11-26), so that any
 * other context with work takes a slice in it: a gap in its reads; work
 * running when it is launched makes it start a slice late */
#define PROBE_NS      3000000ULL
#define PROBE_RETRIES 3      /* a busy probe is tried again, 2 ms apart */
#define PROBE_GAP_US  100.0  /* idle: 0.1 us at most between reads */
#define PROBE_LATE_US 1000.0 /* idle: 20-40 us from launch to start */

/* what the probe sees on an idle GPU, measured once per judge */
static struct {
    int done;
    double gap_us, late_us; /* the most of each: idle limits */
} calm;

static void calibrate_probe(void)
{
    if (calm.done)
        return;
    calm.done = 1;
    calm.gap_us = 0;
    calm.late_us = 0;
    struct cl_probe first; /* the first launch loads the module: not counted */
    cl_idle_probe(PROBE_NS, cl_judge_stream(), &first);
    for (int i = 0; i < 4; i++) {
        struct cl_probe p;
        cl_idle_probe(PROBE_NS, cl_judge_stream(), &p);
        double late = p.wall_us - PROBE_NS * 1e-3;
        calm.gap_us = p.gap_us > calm.gap_us ? p.gap_us : calm.gap_us;
        calm.late_us = late > calm.late_us ? late : calm.late_us;
    }
}

/* busy: a gap in the probe's reads no idle probe shows, or a probe that
 * ended far later than it should have */
static int probe_busy(struct cl_probe *p)
{
    cl_idle_probe(PROBE_NS, cl_judge_stream(), p);
    double gap_limit =
        4 * calm.gap_us > PROBE_GAP_US ? 4 * calm.gap_us : PROBE_GAP_US;
    double late_limit =
        4 * calm.late_us > PROBE_LATE_US ? 4 * calm.late_us : PROBE_LATE_US;
    if (late_limit > 1.5 * PROBE_LATE_US) /* below a time slice, always */
        late_limit = 1.5 * PROBE_LATE_US;
    return p->gap_us > gap_limit || p->wall_us - PROBE_NS * 1e-3 > late_limit;
}

int cl_clock_gpu_busy(struct cl_probe *p, int retries)
{
    calibrate_probe();
    for (int i = 0; i < (retries ? PROBE_RETRIES : 1); i++) {
        if (!probe_busy(p))
            return 0;
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    return 1;
}
