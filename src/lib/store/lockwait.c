/* SPDX-License-Identifier: MIT */
#include "store/lockwait.h"

#include <errno.h>

#include "util/timespec.h"

static double ms_until(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(t->tv_sec - now.tv_sec) * 1e3 + (double)(t->tv_nsec - now.tv_nsec) / 1e6;
}

void gt_lockwait_arm(gt_lockwait *w, int ms)
{
    clock_gettime(CLOCK_MONOTONIC, &w->deadline);
    gt_ts_add(&w->deadline, ms / 1e3);
}

/* SQLite's busy handler: 0 gives up (SQLITE_BUSY), 1 tries again.  The
 * pause grows from 1 ms to 25 ms, as sqlite3_busy_timeout's does, and never
 * runs past the deadline. */
static int on_busy(void *ctx, int count)
{
    const gt_lockwait *w = ctx;
    double left = ms_until(&w->deadline);
    if (left <= 0)
        return 0;
    double pause = count < 5 ? 1 << count : 25;
    if (pause > left)
        pause = left;
    struct timespec ts = {(time_t)(pause / 1e3), (long)((pause - (double)(time_t)(pause / 1e3) * 1e3) * 1e6)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
    return 1;
}

void gt_lockwait_attach(gt_lockwait *w, sqlite3 *db)
{
    sqlite3_busy_handler(db, on_busy, w);
}
