/* SPDX-License-Identifier: MIT */
#include "util/node.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"

gt_status gt_node_name(char *buf, size_t size, int *multi, gt_error *err)
{
    const char *ask = getenv("GT_SUBTRACK_HOST"), *job = getenv("SLURM_JOB_ID");
    *multi = 0;
    if (size)
        buf[0] = '\0';
    if (!(job && *job) && !(ask && *ask && strcmp(ask, "0") != 0))
        return GT_OK;
    const char *name = getenv("SLURMD_NODENAME");
    if (name && *name) {
        snprintf(buf, size, "%s", name);
    } else {
        if (gethostname(buf, size) != 0)
            return gt_err(err, GT_ERR_SYS, "cannot get the host name: %s", strerror(errno));
        buf[size - 1] = '\0';
    }
    *multi = 1;
    return GT_OK;
}
