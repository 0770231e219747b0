/* SPDX-License-Identifier: MIT */
/* Beyond the public API, for the programs that link the static library:
 * the command, and a privileged program that tracks on behalf of a user
 * and writes into that user's folder (the SPANK plugin, as root in
 * slurmstepd). */
#ifndef GT_TRACKER_OWNER_H
#define GT_TRACKER_OWNER_H
#include <sys/types.h>

#include "gpu_tracker.h"
#include "metric/fold.h"
#include "tracker/aggregate.h"

/* A copy of t's aggregate (all zero before the first sample): each GPU's
 * figures over the run (gpus, for --efficiency), the latest sample's
 * value of each own metric (own.col[k].now, for the metrics endpoint;
 * called from the tracker's on_timepoint, the sample that timepoint is). */
void gt_tracker_aggregate(gt_tracker *t, gt_aggregate *out);

/* gt_tracker_usage's usage so far, in this library's version, and the
 * run's figures of the metric table's own rows in *own (unless NULL), for
 * gt_report_write (report/usage_write.h): the report with every figure.
 * Fails as gt_tracker_usage. */
gt_status gt_tracker_results(gt_tracker *t, gt_usage *u, gt_metric_run *own, gt_error *err);

/* Gives t's tracking file to uid:gid through the descriptor the tracker
 * holds, never by name (and so the file re-created at stop when it was
 * deleted while tracking).  Call it before gt_tracker_start.  Only a CSV
 * tracking file without side files (per_process, per_gpu): anything else
 * is GT_ERR_INVALID, and GT_ERR_IO when fchown fails. */
gt_status gt_tracker_chown_files(gt_tracker *t, uid_t uid, gid_t gid, gt_error *err);
#endif
