/* SPDX-License-Identifier: MIT */
/* The calls of code blocks: a sub-tracking file's start and stop marks
 * paired as the Python package pairs them.  The one pairing that analysis,
 * plots and gt_subtrack_calls() share. */
#ifndef GT_ANALYSIS_CALLS_H
#define GT_ANALYSIS_CALLS_H

#include <stddef.h>

#include "gpu_tracker.h"
#include "store/marks_layout.h"
#include "store/table.h"

typedef struct gt_mark {
    const char *name; /* the table's text: valid while the table is */
    const char *host; /* "" when the file has no host column or cell */
    long long pid;
    int position;     /* 0 start, 1 stop */
    double ts;
} gt_mark;

typedef struct gt_call {
    double start, stop;
} gt_call;

/* Reads the marks of a sub-tracking table (columns process_id,
 * code_block_name, position, timestamp and optionally host) into *out
 * (caller frees), sorted by code block name, then host, then as the Python
 * package sorts a block's marks: by process ID, timestamp, position.  A
 * process is a host and a process ID, since every node of a cluster has
 * its own PIDs; without a host column every host is "" and the order is the
 * package's.  GT_ERR_FORMAT naming the row for a process ID, position or
 * timestamp that is not one; GT_ERR_NOMEM. */
gt_status gt_marks_load(const gt_table *t, gt_mark **out, size_t *n, gt_error *err);

/* Keeps in m[0..*n) the marks of one host, in their order.  host NULL: the
 * marks must all be of one host (any), else GT_ERR_INVALID naming two of
 * them, since pairing several hosts' marks against one node's tracking
 * file would mix nodes silently.  A host that no mark has is GT_ERR_INVALID
 * too.  path names the file in messages. */
gt_status gt_marks_select_host(const char *path, gt_mark *m, size_t *n, const char *host, gt_error *err);

/* Pairs the sorted marks m[0..n) of one code block: the last mark of a
 * process is dropped when it is a start (a call still open when the file
 * was read), then the marks are taken two by two in that order (so a
 * recursive block's nested marks pair by time, as in the package).
 * calls needs room for n / 2; open (NULL: not wanted) for one timestamp per
 * process, receiving the dropped starts.  A process is a (host, process
 * ID).  GT_ERR_FORMAT, naming path and the block, for a pair of two processes, a stop paired with a later start,
 * or a mark left without a partner. */
gt_status gt_marks_pair(const char *path, const gt_mark *m, size_t n, gt_call *calls, size_t *ncalls,
                        double *open, size_t *nopen, gt_error *err);

/* One code block's calls, as gt_blocks_pair pairs them. */
typedef struct gt_block_calls {
    const char *name;     /* the table's text: valid while the table is */
    const gt_call *calls; /* in gt_marks_pair's order */
    size_t ncalls;
    const double *open;   /* the starts still open, one per process at most */
    size_t nopen;
} gt_block_calls;

/* The code blocks of a sub-tracking table, in name order, each paired. */
typedef struct gt_block_set {
    gt_block_calls *blocks;
    size_t nblocks;
    gt_call *calls; /* every block's calls, the first block's first */
    double *open;   /* every block's open starts */
} gt_block_set;

/* Which marks gt_blocks_pair pairs. */
typedef struct gt_blocks_want {
    int every_host;   /* 1: the marks of every host; 0: of one, as gt_marks_select_host selects */
    const char *host; /* for gt_marks_select_host when !every_host */
    const char *only; /* one code block's marks (then the set has it first, or none); NULL: all */
} gt_blocks_want;

/* The one path from a sub-tracking table to its calls that analysis, plots
 * and gt_subtrack_calls() share: the marks loaded (gt_marks_load), one
 * host's kept (gt_marks_select_host), grouped by code block, each block
 * paired (gt_marks_pair, with its open starts).  Messages name the table's
 * path.  On failure *out is empty. */
gt_status gt_blocks_pair(const gt_table *t, const gt_blocks_want *want, gt_block_set *out, gt_error *err);

void gt_block_set_free(gt_block_set *s);

#endif
