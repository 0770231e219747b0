/* SPDX-License-Identifier: MIT */
/* The metric table's probe files of one member: see probes.h. */
#include "sampler/probes.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "metric/probe.h"
#include "sampler/kept.h"

/* Reads probe f's file through its kept descriptor, opening it anew when
 * there is none or the process it referred to has exited (the stat read
 * of this sample said the PID is the same process).  -1 with errno. */
static ssize_t read_file(gt_sampler *s, proc_entry *e, int f, const char **d)
{
    ssize_t n = e->probe_fd[f] >= 0 ? gt_procfs_pread(s->fs, e->probe_fd[f], d) : -1;
    if (n > 0)
        return n;
    gt_kept_close(s, &e->probe_fd[f]);
    char rel[48];
    snprintf(rel, sizeof rel, "%d/%s", (int)e->pid, gt_probes[f].file);
    e->probe_fd[f] = gt_kept_open(s, rel);
    if (e->probe_fd[f] >= 0)
        return gt_procfs_pread(s->fs, e->probe_fd[f], d);
    /* Over the descriptor budget, or the open failed: a one-off read says
     * which (EACCES: not ours to read). */
    return gt_procfs_read_small(s->fs, gt_procfs_root(s->fs), rel, d);
}

/* Probe f's values of e: last's (with its error), or 0 where last is NULL. */
static void stand(proc_entry *e, const proc_entry *last, int f)
{
    const gt_probe *pr = &gt_probes[f];
    for (int v = pr->first; v < pr->first + pr->n; v++)
        e->values[v] = last ? last->values[v] : 0;
    e->probe_err[f] = last ? last->probe_err[f] : 0;
}

/* The process has been reaped: its folder is gone.  A live one without
 * the file (a kernel built without its counters) is not. */
static int gone(gt_sampler *s, const proc_entry *e)
{
    char rel[32];
    const char *d;
    snprintf(rel, sizeof rel, "%d/stat", (int)e->pid);
    errno = 0;
    return gt_procfs_read_small(s->fs, gt_procfs_root(s->fs), rel, &d) <= 0 && (errno == ENOENT || errno == ESRCH);
}

void gt_probes_read(gt_sampler *s, proc_entry *e, const proc_entry *last, int idle)
{
    for (int f = 0; f < GT_PROBE_COUNT; f++) {
        const gt_probe *pr = &gt_probes[f];
        /* An unreadable file stands too: the process's credentials
         * change only while it runs. */
        if (idle && last && pr->idle_stable) {
            stand(e, last, f);
            continue;
        }
        const char *d;
        errno = 0;
        ssize_t n = read_file(s, e, f, &d);
        int ok = n > 0 && pr->parse(d, (size_t)n, e->values + pr->first) == 0;
        int err = ok ? 0 : n < 0 && errno ? errno : EINVAL;
        /* Reaped since its stat was read: not unreadable, or one reaped
         * child would blank the tree's figure of this sample.  Its parent
         * was read before it, so before the reaping: its last values keep
         * the tree's total from falling, and fall short of its final ones,
         * which the parent holds at the next sample. */
        if ((err == ENOENT || err == ESRCH) && gone(s, e)) {
            stand(e, last, f);
            continue;
        }
        e->probe_err[f] = err;
        if (!ok)
            for (int v = pr->first; v < pr->first + pr->n; v++)
                e->values[v] = NAN;
    }
}
