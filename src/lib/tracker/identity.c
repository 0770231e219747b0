/* SPDX-License-Identifier: MIT */
#include "tracker/identity.h"

#include <stdlib.h>

#include "util/node.h"

gt_status gt_run_identity(char *node, size_t size, gt_store_extra *extra, size_t *n, gt_error *err)
{
    static const char *const slurm[][2] = {
        {"slurm_job_id", "SLURM_JOB_ID"}, {"slurm_step_id", "SLURM_STEP_ID"}, {"slurm_task_id", "SLURM_PROCID"},
        {"slurm_mem_per_node", "SLURM_MEM_PER_NODE"}, {"slurm_mem_per_cpu", "SLURM_MEM_PER_CPU"},
        {"slurm_cpus_on_node", "SLURM_CPUS_ON_NODE"}, {"slurm_gpus_on_node", "SLURM_GPUS_ON_NODE"},
        {"slurm_job_gpus", "SLURM_JOB_GPUS"}, {"slurm_cpus_per_task", "SLURM_CPUS_PER_TASK"},
        {"slurm_job_num_nodes", "SLURM_JOB_NUM_NODES"}, {"slurm_job_start_time", "SLURM_JOB_START_TIME"},
        {"slurm_job_end_time", "SLURM_JOB_END_TIME"}};
    int multi;
    gt_status st = gt_node_name(node, size, &multi, err);
    *n = 0;
    if (st != GT_OK || !multi)
        return st;
    extra[(*n)++] = (gt_store_extra){"host", node};
    const char *job = getenv("SLURM_JOB_ID");
    if (job && *job)
        for (size_t i = 0; i < sizeof slurm / sizeof *slurm; i++) {
            const char *v = getenv(slurm[i][1]);
            extra[(*n)++] = (gt_store_extra){slurm[i][0], v && *v ? v : NULL};
        }
    return GT_OK;
}

