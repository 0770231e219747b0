/* SPDX-License-Identifier: MIT */
/* The Cgroup section of the usage from a reading of the counters. */
#include <stdio.h>

#include "cgroup/cgroup.h"
#include "util/error.h"
#include "util/units.h"

/* What the cgroup's memory figures are, beside the RSS ones. */
#define CGROUP_V1_METHOD                                                                                  \
    "cgroup v1 memory.max_usage_in_bytes: the group's charged memory, page cache and kernel memory "    \
    "included (what its limit and the OOM killer compare), not RSS"
#define CGROUP_V2_METHOD                                                                                  \
    "cgroup v2 memory.peak: the group's charged memory, page cache and kernel memory included (what "   \
    "its limit and the OOM killer compare), not RSS"

void gt_cgroup_usage(const gt_cgroup_reading *r, gt_ram_unit ru, gt_usage *u)
{
    u->cgroup.available = 1;
    u->cgroup.version = r->version;
    gt_text_fit(u->cgroup.path, sizeof u->cgroup.path, "%s", r->mem_path);
    gt_text_fit(u->cgroup.cpu_path, sizeof u->cgroup.cpu_path, "%s", r->cpu_path);
    u->cgroup.memory_peak = r->mem_peak >= 0 ? gt_ram_in_unit((double)r->mem_peak, ru) : -1.0;
    u->cgroup.memory_current = r->mem_current >= 0 ? gt_ram_in_unit((double)r->mem_current, ru) : -1.0;
    u->cgroup.memory_limit = r->mem_limit >= 0 ? gt_ram_in_unit((double)r->mem_limit, ru) : -1.0;
    u->cgroup.limit_none = r->limit_none;
    /* Below 0 where the limit was lowered under an earlier peak. */
    u->cgroup.memory_headroom = r->mem_limit >= 0 && r->mem_peak >= 0
                                    ? gt_ram_in_unit((double)r->mem_limit - (double)r->mem_peak, ru)
                                    : -1.0;
    u->cgroup.cpu_ns = r->cpu_ns;
    u->cgroup.cpu_seconds = r->cpu_ns >= 0 ? (double)r->cpu_ns / 1e9 : -1.0;
    u->cgroup.memory_method = !r->mem_path[0] ? NULL : r->version == 1 ? CGROUP_V1_METHOD : CGROUP_V2_METHOD;
    gt_text_fit(u->cgroup.unavailable, sizeof u->cgroup.unavailable, "%s", r->why);
}

