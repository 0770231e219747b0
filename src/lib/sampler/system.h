/* SPDX-License-Identifier: MIT */
/* The machine-wide figures of a sample: RAM used and its capacity
 * (/proc/meminfo), each core's busy time (/proc/stat) and the PID last
 * given out (/proc/loadavg), read through descriptors kept for the
 * sampler's life. */
#ifndef GT_SAMPLER_SYSTEM_H
#define GT_SAMPLER_SYSTEM_H
#include <stdint.h>
#include <sys/types.h>

#include "sampler/sampler_state.h"

/* Reads RAM used into *used, MemTotal into s->ram_capacity and the cores'
 * times into s->cores_cur (*ncores of them, at most MAX_CORES).  Returns
 * 0, or why not as an errno value (EMFILE: too few descriptors; EPROTO:
 * text not understood). */
int gt_system_read(gt_sampler *s, uint64_t *used, int *ncores);

/* The PID last given out in this PID namespace; 0 when unknown. */
pid_t gt_system_last_pid(gt_sampler *s);

/* The machine's CPU: each core's busy share since the last reading (or,
 * for the first sample with CPU figures, since the first), summed into
 * out->cpu_system_sum; the last reading's figure again where this sample
 * read none (fresh = 0).  A fresh reading becomes the next one's base. */
void gt_system_cpu(gt_sampler *s, gt_sample *out, int ncores, int fresh);

/* Closes the kept descriptors of the system files. */
void gt_system_close(gt_sampler *s);
#endif
