/* stats.c: median, quartiles and a stability test for timing samples. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cl_quantile_sorted(const double *x, int n, double q)
{
    if (n <= 0)
        return 0.0;
    double pos = q * (n - 1);
    int lo = (int)floor(pos);
    int hi = lo + 1 < n ? lo + 1 : lo;
    double frac = pos - lo;
    return x[lo] + (x[hi] - x[lo]) * frac;
}

static double *sorted_copy(const double *samples, int n)
{
    double *x = malloc((size_t)n * sizeof *x);
    if (!x)
        return NULL;
    memcpy(x, samples, (size_t)n * sizeof *x);
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    return x;
}

int cl_stats_compute(const double *samples, int n, struct cl_stats *out)
{
    memset(out, 0, sizeof *out);
    if (n < 1)
        return -1;
    double *x = sorted_copy(samples, n);
    if (!x)
        return -1;
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += x[i];
    out->n = n;
    out->min = x[0];
    out->max = x[n - 1];
    out->mean = sum / n;
    out->median = cl_quantile_sorted(x, n, 0.5);
    out->q1 = cl_quantile_sorted(x, n, 0.25);
    out->q3 = cl_quantile_sorted(x, n, 0.75);
    out->spread = out->median > 0 ? (out->q3 - out->q1) / out->median : 0.0;
    free(x);
    return 0;
}

int cl_stats_stable(const double *samples, int n, double rel)
{
    if (n < 6)
        return 0;
    struct cl_stats all, tail;
    if (cl_stats_compute(samples, n, &all) || all.median <= 0)
        return 0;
    if (cl_stats_compute(samples + n / 2, n - n / 2, &tail))
        return 0;
    return fabs(tail.median - all.median) <= rel * all.median;
}
