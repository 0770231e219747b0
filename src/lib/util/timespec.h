/* SPDX-License-Identifier: MIT */
/* Seconds of a struct timespec and the few sums on it that waits and
 * intervals need. */
#ifndef GT_UTIL_TIMESPEC_H
#define GT_UTIL_TIMESPEC_H
#include <math.h>
#include <time.h>

static inline double gt_ts_seconds(const struct timespec *t)
{
    return (double)t->tv_sec + (double)t->tv_nsec / 1e9;
}

/* b - a, seconds. */
static inline double gt_ts_elapsed(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* Moves ts sec seconds (0 or more) later, nanoseconds kept below 1e9. */
static inline void gt_ts_add(struct timespec *ts, double sec)
{
    double whole = floor(sec);
    ts->tv_sec += (time_t)whole;
    ts->tv_nsec += (long)((sec - whole) * 1e9);
    while (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

static inline int gt_ts_before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}
#endif
