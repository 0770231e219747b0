/* SPDX-License-Identifier: MIT */
/* File names for one job's many trackers: `srun gpu-tracker --tf=...` starts
 * one gpu-tracker per task, and each needs a file of its own. */
#ifndef GT_CLI_JOBNAME_H
#define GT_CLI_JOBNAME_H

/* Expands in pattern, from the environment Slurm gives each task:
 *   %j  SLURM_JOB_ID      %s  SLURM_STEP_ID    %N  SLURMD_NODENAME
 *   %t  SLURM_PROCID      %h  the host name    %%  a '%'
 * into *out (malloc'd; NULL when pattern has no '%', so the name is used as
 * given).  option names the option in messages ("--tf").  Refuses, as a
 * usage error, an unknown %x, a variable that is not set, and a name that
 * several tasks of the step would share: with SLURM_STEP_NUM_TASKS > 1 the
 * name needs %t, or %N/%h when each node runs one task.  Returns 0 or the
 * exit status after printing the message. */
int gt_cli_job_name(const char *pattern, const char *option, char **out);

/* gt_cli_job_name for the report (-o) and the tracking file (--tf), each
 * NULL when not given: expanded names replace *output and *tracking_file,
 * their storage in owned[0] and owned[1] for the caller to free. */
int gt_cli_job_names(const char **output, const char **tracking_file, char *owned[2]);

#endif
