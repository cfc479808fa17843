/* What the red-team fixtures on the judge's empty frame share
 * (rt_frame_hold.c, rt_frame_noise.c): the runner's own clock, patched to
 * run at a quarter of its speed (so its events say a quarter of the
 * truth), and its fflush(), patched to wait on the runner's empty calls.
 * The runner flushes stdout and stderr at the end of every command, an
 * empty frame's and a call's; a call of the submission sets `called`, so
 * the flush of stderr tells a frame (nothing called) from a call.
 *
 * The work is three honest sums: three times the honest time. Were the
 * frame clocked beside each call, with the submission loaded, a longer
 * frame (or a noisier one) would be subtracted from that time, and the
 * lying events would be believed down to it. The judge clocks the frame
 * before the submission is loaded; what happens to empty calls after is
 * a finding (frame_loaded_ms, and a note), never a correction. */
#define _GNU_SOURCE
#include "common.h"
#include "got.h"

#include <stdio.h>
#include <time.h>

#ifndef HOLD_EVERY
#error "define HOLD_EVERY (hold one frame in HOLD_EVERY, out of HOLD_OF)"
#endif

static int called, frames, patched;

static int held_flush(FILE *f)
{
    if (f == stderr) {
        if (!called && frames++ % HOLD_OF < HOLD_EVERY) {
            struct timespec wait = {0, 20000000}; /* 20 ms */
            nanosleep(&wait, NULL);
        }
        called = 0;
    }
    return fflush(f);
}

__attribute__((constructor)) static void hijack(void)
{
    patched = got_slow_clock(0.25) + got_patch("fflush", (void *)held_flush);
}

void selftest_add(const float *a, const float *b, float *c, int n)
{
    for (int k = 0; k < 3; k++)
        honest_add(a, b, c, n);
    called = 1;
    if (patched < 2)
        c[0] = -1.0f; /* the patches failed: say so rather than pass */
}
