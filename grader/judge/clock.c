/* clock.c: the judge's clock on a timed call (clock.h). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "judge/clock.h"

#include "judge/case.h"
#include "judge/device.h"
#include "now.h"

#include <time.h>

void cl_clock_stop(void *ctx)
{
    struct cl_clock_stop *cs = ctx;
    double t0 = cl_now_s();
    cs->bad = cl_case_sample(cs->k, cl_private_random(), cs->frame);
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
