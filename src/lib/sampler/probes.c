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

void gt_probes_read(gt_sampler *s, proc_entry *e, const proc_entry *idle)
{
    for (int f = 0; f < GT_PROBE_COUNT; f++) {
        const gt_probe *pr = &gt_probes[f];
        /* An unreadable file stands too: the process's credentials
         * change only while it runs. */
        if (idle && pr->idle_stable) {
            for (int v = pr->first; v < pr->first + pr->n; v++)
                e->values[v] = idle->values[v];
            e->probe_err[f] = idle->probe_err[f];
            continue;
        }
        const char *d;
        errno = 0;
        ssize_t n = read_file(s, e, f, &d);
        int ok = n > 0 && pr->parse(d, (size_t)n, e->values + pr->first) == 0;
        e->probe_err[f] = ok ? 0 : n < 0 && errno ? errno : EINVAL;
        if (!ok)
            for (int v = pr->first; v < pr->first + pr->n; v++)
                e->values[v] = NAN;
    }
}
