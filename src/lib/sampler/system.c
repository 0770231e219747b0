/* SPDX-License-Identifier: MIT */
/* The machine-wide figures of a sample: see system.h. */
#include "sampler/system.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "proc/parse.h"
#include "proc/procfs.h"

/* The system files stay open for the sampler's life (outside the budget of
 * the processes' kept descriptors: three, whatever the tree). */
static ssize_t read_kept(gt_sampler *s, int *fd, const char *name, const char **d)
{
    if (*fd < 0)
        *fd = gt_procfs_note_open(s->fs, openat(gt_procfs_root(s->fs), name, O_RDONLY | O_CLOEXEC));
    return *fd < 0 ? -1 : gt_procfs_pread(s->fs, *fd, d);
}

pid_t gt_system_last_pid(gt_sampler *s)
{
    const char *d;
    ssize_t n = read_kept(s, &s->loadavg_fd, "loadavg", &d);
    pid_t pid;
    return n > 0 && gt_parse_loadavg_last_pid(d, (size_t)n, &pid) == 0 ? pid : 0;
}

int gt_system_read(gt_sampler *s, uint64_t *used, int *ncores)
{
    const char *d;
    ssize_t n = read_kept(s, &s->meminfo_fd, "meminfo", &d);
    if (n < 0)
        return errno ? errno : EIO;
    gt_meminfo mi;
    if (gt_parse_meminfo(d, (size_t)n, &mi) != 0)
        return EPROTO;
    *used = gt_meminfo_used(&mi);
    s->ram_capacity = mi.total;
    n = read_kept(s, &s->stat_fd, "stat", &d);
    if (n < 0)
        return errno ? errno : EIO;
    if (gt_parse_proc_stat(d, (size_t)n, s->cores_cur, MAX_CORES, ncores) != 0)
        return EPROTO;
    if (*ncores > MAX_CORES)
        *ncores = MAX_CORES;
    return 0;
}

void gt_system_cpu(gt_sampler *s, gt_sample *out, int ncores, int fresh)
{
    if (!fresh) {
        out->cpu_system_sum = s->system_sum;
        return;
    }
    if (s->have_prev) {
        double sys = 0;
        const gt_cpu_times *base = out->cpu_since_first ? s->cores_first : s->cores_prev;
        int nc = ncores < s->ncores ? ncores : s->ncores;
        for (int c = 0; c < nc; c++) {
            uint64_t dt = s->cores_cur[c].total - base[c].total;
            uint64_t db = s->cores_cur[c].busy - base[c].busy;
            if (s->cores_cur[c].total > base[c].total && s->cores_cur[c].busy >= base[c].busy)
                sys += (double)db / (double)dt * 100.0;
        }
        out->cpu_system_sum = s->system_sum = sys;
    } else {
        memcpy(s->cores_first, s->cores_cur, sizeof(gt_cpu_times) * (size_t)ncores);
    }
    memcpy(s->cores_prev, s->cores_cur, sizeof(gt_cpu_times) * (size_t)ncores);
    s->ncores = ncores;
}

void gt_system_close(gt_sampler *s)
{
    if (s->meminfo_fd >= 0)
        close(s->meminfo_fd);
    if (s->stat_fd >= 0)
        close(s->stat_fd);
    if (s->loadavg_fd >= 0)
        close(s->loadavg_fd);
    s->meminfo_fd = s->stat_fd = s->loadavg_fd = -1;
}
