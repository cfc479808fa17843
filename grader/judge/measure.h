/**
 * @file measure.h
 * @brief The judge's statistics: series of timed calls, their medians and
 *        quantiles, when they have settled, and the physical floor.
 *
 * Pure functions of numbers: nothing here touches a process or a GPU, so
 * every rule that turns measurements into a scored time is tested without
 * one (grader/tests/test_measure.c).
 */
#ifndef CL_JUDGE_MEASURE_H
#define CL_JUDGE_MEASURE_H

#include "gpuinfo.h"
#include "judge/lab.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A series of positive samples (ms), at most @c cap of them. */
struct cl_series {
    double *v; /**< the samples, in the order taken */
    int n;     /**< how many */
    int cap;   /**< room for */
};

/** A series with room for @p cap samples; free with cl_series_free(). */
struct cl_series cl_series_make(int cap);

/** Free the samples of @p s. */
void cl_series_free(struct cl_series *s);

/** Add @p x when it is positive and there is room; 1 when added. */
int cl_series_push(struct cl_series *s, double x);

/** The median (0 when empty). */
double cl_series_median(const struct cl_series *s);

/** Quantile @p q in [0, 1], interpolated (0 when empty). */
double cl_series_quantile(const struct cl_series *s, double q);

/** Whether the series has settled: fewer than @p min samples count as
 *  settled (nothing to judge yet); then its median has moved by less than
 *  @p rel over the last samples (cl_stats_stable()). */
int cl_series_settled(const struct cl_series *s, int min, double rel);

/** The empty frame of a case: the judge's clock around a command that
 *  calls nothing, and how much it varies. */
struct cl_frame {
    double median_ms; /**< subtracted from the judge's clock of a call */
    double noise_ms;  /**< how far the runner's report may lower it */
};

/** The least noise a frame is given (ms): a clock read and a wake-up. */
#define CL_NOISE_MIN_MS 0.002

/**
 * The frame of the empty frames in @p dry: their median, and as noise
 * twice the spread of their middle half (p75 - p25), at least
 * CL_NOISE_MIN_MS: honest calls' reported times sit within it of the
 * judge's clock.
 */
struct cl_frame cl_frame_of(const struct cl_series *dry);

/**
 * The time a call is scored at (ms): the judge's own clock @p judge_ms
 * (from the command to a checked output) less the frame. The runner's
 * report @p event_ms (its CUDA events; negative: none) may refine that
 * down by at most the frame's noise and never below: a report that lies
 * lowers nothing more. At least 0.
 */
double cl_call_scored_ms(double event_ms, double judge_ms,
                         const struct cl_frame *f);

/** How far above the runner's events a case's scored time may sit before
 *  the case is given a second look: a share of the events, and at least
 *  CL_SECOND_LOOK_MIN_MS. */
#define CL_SECOND_LOOK_REL    0.01
#define CL_SECOND_LOOK_MIN_MS 0.001
/** Where a look stops being worth another: a scored time above the events
 *  by as much as half of them and CL_SECOND_LOOK_MAX_MS is no runner's
 *  host noise (0.4 ms at most on the H100, over a thousand launches) but
 *  events that do not hold the call. */
#define CL_SECOND_LOOK_MAX_REL 0.5
#define CL_SECOND_LOOK_MAX_MS  0.5
/** The most gradings of one case: the first and two more looks. */
#define CL_MAX_LOOKS 3

/**
 * Whether the passed, timed case @p r is graded once more, from a fresh
 * runner: its scored time was set by the judge's clock, above the
 * runner's events by more than CL_SECOND_LOOK_REL (and
 * CL_SECOND_LOOK_MIN_MS), and by less than CL_SECOND_LOOK_MAX_REL of them
 * (and CL_SECOND_LOOK_MAX_MS). The judge's clock of an honest call runs above
 * its events by the runner's own host time, which a grading now and then
 * finds slow (tens of microseconds that a short case cannot hide); a
 * submission that under-reports its events is looked at twice and scored
 * on the judge's clock both times.
 */
int cl_second_look_due(const struct cl_result *r);

/**
 * Which of two gradings of one case stands, the first @p first (passed,
 * cl_second_look_due()) or the second look @p again: 1 for @p again.
 * A failure of the second look stands when it is the submission's (every
 * status but `pass`, `internal-error`, `unconfirmed` and `not-run`); the
 * grader's or the host's failure in it does not undo a passed first look;
 * of two passes, the faster stands.
 */
int cl_second_look_keeps(const struct cl_result *first,
                         const struct cl_result *again);

/**
 * The least time in ms that @p work (bytes or FLOPs) can take on @p g: the
 * bytes beyond what the L2 can hold written at the call's end, over the
 * theoretical memory bandwidth (or 1.25x the measured copy rate when the
 * theory is unknown); or the FLOPs over six times the FP32 SIMT peak
 * from the clock, twelve times from compute capability 10 (else that many
 * times the measured SGEMM rate): FP32-accurate splits on the tensor
 * cores (3xTF32, error-corrected FP16) reach up to about 5 times that peak
 * on the A100 and Hopper and 10 times on the B200. The theory, not a
 * measurement, where it is known: a peak measured low (a busy GPU, a
 * sanitizer) must not make an honest time look faster than physics. 0
 * when nothing is known.
 */
double cl_floor_ms(enum cl_metric m, double work, const struct cl_gpu_info *g);

#ifdef __cplusplus
}
#endif

#endif /* CL_JUDGE_MEASURE_H */
