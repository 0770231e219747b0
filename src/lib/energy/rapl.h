/* SPDX-License-Identifier: MIT */
/* CPU energy counters of the kernel's powercap RAPL interface
 * (<sysfs>/class/powercap/intel-rapl:*, the same zones on AMD processors):
 * package, core, uncore, DRAM and psys domains, whichever exist.  Each
 * domain's energy_uj stays open for the whole run and is re-read with one
 * pread, so a reading costs one system call per domain. */
#ifndef GT_ENERGY_RAPL_H
#define GT_ENERGY_RAPL_H
#include <stdint.h>
#include "gpu_tracker.h"

typedef enum gt_rapl_kind {
    GT_RAPL_PACKAGE, GT_RAPL_CORE, GT_RAPL_UNCORE, GT_RAPL_DRAM, GT_RAPL_PSYS, GT_RAPL_OTHER
} gt_rapl_kind;

typedef struct gt_rapl gt_rapl;

/* Domains read at most; a machine has a handful per package. */
#define GT_RAPL_MAX_DOMAINS 16

/* Discovers the domains under sysfs_root (NULL: "/sys").  Fails only for
 * lack of memory: a machine without RAPL, or with counters it may not read,
 * gives a handle whose unavailable() text says why and how to fix it.
 * The caller owns *out (gt_rapl_close). */
gt_status gt_rapl_open(const char *sysfs_root, gt_rapl **out, gt_error *err);
void gt_rapl_close(gt_rapl **r);

/* Domains in zone order (a package, then its subzones).  Names are
 * "package-0", "package-0:core", "psys": a subzone carries its parent's name. */
int gt_rapl_count(const gt_rapl *r);
const char *gt_rapl_name(const gt_rapl *r, int i);
gt_rapl_kind gt_rapl_kind_of(const gt_rapl *r, int i);
/* Whether domain i could be read when it was discovered. */
int gt_rapl_readable(const gt_rapl *r, int i);
/* Why some or all domains cannot be read, with the fix; "" when none. */
const char *gt_rapl_unavailable(const gt_rapl *r);

/* Reads domain i's counter (microjoules).  Returns 0, or -1 with errno set
 * (an unreadable domain gives EBADF). */
int gt_rapl_read(gt_rapl *r, int i, uint64_t *uj);

/* Energy between two readings of a counter that wraps to 0 after reaching
 * max_range (max_energy_range_uj), assuming at most one wrap between them. */
uint64_t gt_rapl_delta(uint64_t prev, uint64_t cur, uint64_t max_range);
uint64_t gt_rapl_max_range(const gt_rapl *r, int i);

/* Parses a sysfs number ("123\n").  Returns 0, or -1 when s is not one. */
int gt_rapl_parse_u64(const char *s, size_t len, uint64_t *out);
#endif
