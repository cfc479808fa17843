/**
 * @file now.h
 * @brief The host's monotonic clock in seconds, for deadlines and for the
 *        judge's own timing (header-only: the parent, the judge and the
 *        runner each include it).
 */
#ifndef CL_NOW_H
#define CL_NOW_H

#include <time.h>

/** Seconds on CLOCK_MONOTONIC (only differences mean anything). */
static inline double cl_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#endif /* CL_NOW_H */
