/**
 * @file stats.h
 * @brief Summary statistics of timing samples (pure C, no CUDA).
 */
#ifndef CL_STATS_H
#define CL_STATS_H

#ifdef __cplusplus
extern "C" {
#endif

/** Summary of n samples (milliseconds, or any unit). */
struct cl_stats {
    int n;         /**< number of samples */
    double median; /**< the figure the grader reports */
    double min;    /**< fastest sample */
    double max;    /**< slowest sample */
    double mean;   /**< arithmetic mean */
    double q1;     /**< first quartile (linear interpolation) */
    double q3;     /**< third quartile */
    double spread; /**< (q3 - q1) / median: the relative spread */
};

/** Quantile @p q in [0, 1] of sorted @p x (linear interpolation). */
double cl_quantile_sorted(const double *x, int n, double q);

/**
 * Summarise @p n samples into @p out (the samples are not modified).
 * Returns 0, or -1 when n < 1 (then @p out is zeroed).
 */
int cl_stats_compute(const double *samples, int n, struct cl_stats *out);

/**
 * True when the median of the last half of @p samples is within @p rel of
 * the median of all of them: more repeats would not move the figure.
 * Needs at least 6 samples.
 */
int cl_stats_stable(const double *samples, int n, double rel);

#ifdef __cplusplus
}
#endif

#endif /* CL_STATS_H */
