/* measure.c: the judge's statistics (measure.h). */
#include "judge/measure.h"

#include "fatal.h"
#include "stats.h"

#include <stdlib.h>
#include <string.h>

struct cl_series cl_series_make(int cap)
{
    struct cl_series s = {cl_xcalloc(cap > 0 ? (size_t)cap : 1, sizeof(double)),
                          0, cap > 0 ? cap : 0};
    return s;
}

void cl_series_free(struct cl_series *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

int cl_series_push(struct cl_series *s, double x)
{
    if (!(x > 0) || s->n >= s->cap)
        return 0;
    s->v[s->n++] = x;
    return 1;
}

double cl_series_median(const struct cl_series *s)
{
    struct cl_stats st;
    return cl_stats_compute(s->v, s->n, &st) == 0 ? st.median : 0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cl_series_quantile(const struct cl_series *s, double q)
{
    if (!s->n)
        return 0;
    double *v = cl_xmalloc((size_t)s->n * sizeof *v);
    memcpy(v, s->v, (size_t)s->n * sizeof *v);
    qsort(v, (size_t)s->n, sizeof *v, by_value);
    double x = cl_quantile_sorted(v, s->n, q);
    free(v);
    return x;
}

int cl_series_settled(const struct cl_series *s, int min, double rel)
{
    return s->n < min || cl_stats_stable(s->v, s->n, rel);
}

struct cl_frame cl_frame_of(const struct cl_series *dry)
{
    struct cl_frame f = {0, CL_NOISE_MIN_MS};
    if (dry->n == 0)
        return f;
    f.median_ms = cl_series_median(dry);
    double spread =
        cl_series_quantile(dry, 0.75) - cl_series_quantile(dry, 0.25);
    if (2 * spread > f.noise_ms)
        f.noise_ms = 2 * spread;
    return f;
}

double cl_call_scored_ms(double event_ms, double judge_ms,
                         const struct cl_frame *f)
{
    double judged = judge_ms - f->median_ms;
    double t = judged;
    if (event_ms >= 0) {
        double lowest = judged - f->noise_ms;
        t = event_ms > lowest ? event_ms : lowest;
    }
    return t > 0 ? t : 0;
}

int cl_second_look_due(const struct cl_result *r)
{
    if (r->status != CL_ST_PASS || !r->timed || r->restart || r->event_ms <= 0)
        return 0;
    double over = CL_SECOND_LOOK_REL * r->event_ms;
    if (over < CL_SECOND_LOOK_MIN_MS)
        over = CL_SECOND_LOOK_MIN_MS;
    double noise = CL_SECOND_LOOK_MAX_REL * r->event_ms;
    if (noise < CL_SECOND_LOOK_MAX_MS)
        noise = CL_SECOND_LOOK_MAX_MS;
    double excess = r->t_ms - r->event_ms;
    return excess > over && excess < noise;
}

int cl_second_look_keeps(const struct cl_result *first,
                         const struct cl_result *again)
{
    if (again->status == CL_ST_INTERNAL || again->status == CL_ST_UNCONFIRMED ||
        again->status == CL_ST_NOT_RUN)
        return 0; /* the grader's or the host's, not the submission's */
    if (again->status != CL_ST_PASS)
        return 1;
    return first->status != CL_ST_PASS || again->t_ms < first->t_ms;
}

double cl_floor_ms(enum cl_metric m, double work, const struct cl_gpu_info *g)
{
    double rate = 0.0; /* units per second */
    if (m == CL_METRIC_GBPS) {
        if (g->bw_theory_gbps > 0)
            rate = g->bw_theory_gbps * 1e9;
        else if (g->memcpy_gbps > 0)
            rate = 1.25 * g->memcpy_gbps * 1e9;
        /* as much as the L2 holds may still sit in it, written, when the
         * call ends: those bytes need not have reached memory yet */
        work -= (double)g->l2_bytes;
        if (work < 0)
            work = 0;
    } else {
        /* FP32-accurate work on the tensor cores reaches several times the
         * FP32 peak: the 3xTF32 split about 2.7 times it on the A100, 2.5
         * on Hopper, 5 on the B200; an error-corrected FP16 split (three
         * products) up to 5.3, 4.9 and 10 at the FP16 peak: six times it,
         * twelve from cc 10 */
        double over = g->cc_major >= 10 ? 12.0 : 6.0;
        if (g->fp32_theory_tflops > 0)
            rate = over * g->fp32_theory_tflops * 1e12;
        else if (g->sgemm_tflops > 0)
            rate = over * g->sgemm_tflops * 1e12;
    }
    return rate > 0 ? work / rate * 1e3 : 0.0;
}
