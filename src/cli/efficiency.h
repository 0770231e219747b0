/* SPDX-License-Identifier: MIT */
/* The Efficiency section of the track command (--efficiency): what the run
 * used, from its report and the command's own accounting, against its
 * request. */
#ifndef GT_CLI_EFFICIENCY_H
#define GT_CLI_EFFICIENCY_H
#include <stddef.h>

#include "gpu_tracker.h"
#include "analysis/efficiency.h"
#include "tracker/gpu_tally.h"

/* What the command knows beyond the report. */
typedef struct gt_cli_eff_facts {
    int attached;              /* --attach: no child of ours to account */
    size_t descendants_left;   /* alive when tracking stopped */
    double sampled_cpu_s;      /* the last sample's CPU seconds; < 0 none */
    /* Seconds from the command's release to the end of tracking, the span
     * the getrusage CPU time is spent in (tracking starts just after the
     * release); < 0: the report's compute time (--attach). */
    double wall_s;
    const gt_gpu_tally *gpus;  /* each selected GPU over the run; NULL: none */
} gt_cli_eff_facts;

/* The figures of e from u and f, against the request this process detects
 * (Slurm, cgroup, machine). */
void gt_cli_efficiency(const gt_usage *u, const gt_cli_eff_facts *f, gt_efficiency *e);

#endif
