/* SPDX-License-Identifier: MIT */
/* The metric table: each measured quantity once, with the columns it has
 * in the tracking file (CSV and SQLite), where each column's value sits in
 * the sample and how its cell is made, and what the other consumers need
 * to know of it.  One row per quantity; a new quantity is a new row (and,
 * where it reads a new /proc file, a probe: probe.h).
 *
 * Read today by: the tracking file's columns and cells (store/row.c), the
 * column order check (gt_metric_check), the plots, which draw one chart
 * per plot group of gpu-tracker's own quantities (plot/plot_file.c), and
 * the processes table, which has a column for each row with a per-process
 * value (perproc/perproc.c); for gpu-tracker's own rows, the run's
 * aggregate, which folds each column by its row's agg (metric/fold.c),
 * the report's Other metrics section (label; report/usage_write.c) and the
 * exposition (prom, help; metrics/exposition.c).  The Python package's
 * rows keep their hand-written fold, reports and series (their layouts
 * are fixed); label, prom and help describe them. */
#ifndef GT_METRIC_METRIC_H
#define GT_METRIC_METRIC_H
#include <stddef.h>

#include "sample_slots.h"

/* How a column's cell comes from its field of gt_sample. */
typedef enum gt_metric_cell {
    GT_MC_RSS,     /* a gt_rss: private and shared converted apart, then added */
    GT_MC_RAM,     /* uint64_t bytes in the RAM unit */
    GT_MC_GPU_RAM, /* uint64_t bytes in the GPU RAM unit */
    GT_MC_FLOAT,   /* a double as it is (NaN: NULL) */
    GT_MC_INT,     /* an int */
    GT_MC_COUNT,   /* a double holding a whole number, written as one (NaN: NULL) */
    GT_MC_GPU_HW,  /* a GPU sum percent over the expected GPUs (0 when none) */
    GT_MC_CPU,     /* a CPU sum percent, NULL while the sample has none */
    GT_MC_CPU_HW,  /* the same over the expected cores */
    GT_MC_SYS_HW,  /* the same over the system's cores */
} gt_metric_cell;

/* Where a quantity's columns go in the tracking file.  The Python
 * package's columns keep their places, timestamp last (its readers and the
 * reference files rely on them); gpu-tracker's own follow; the energy
 * columns come last because the sub-tracking analysis finds them by their
 * suffix from the end.  The columns are laid out by place, then by row:
 * a new quantity of place GT_METRIC_OWN lands after timestamp and before
 * the energy columns wherever its row is written. */
typedef enum gt_metric_place {
    GT_METRIC_PACKAGE, /* the Python package's */
    GT_METRIC_OWN,     /* gpu-tracker's own, every file */
    GT_METRIC_ENERGY,  /* *_energy_joules, files of runs that measure energy */
    GT_METRIC_PLACES
} gt_metric_place;

typedef enum gt_metric_unit {
    GT_MU_RAM,          /* bytes, written in the RAM unit */
    GT_MU_GPU_RAM,      /* bytes, written in the GPU RAM unit */
    GT_MU_BYTES,        /* bytes, always */
    GT_MU_BYTES_PER_S,  /* bytes per second */
    GT_MU_PERCENT,
    GT_MU_COUNT,
    GT_MU_SECONDS,      /* Unix seconds */
    GT_MU_JOULES,
} gt_metric_unit;

/* How the run's figure comes from the samples (metric/fold.c). */
typedef enum gt_metric_agg {
    GT_MA_MAX,        /* the largest sample */
    GT_MA_TIME_MEAN,  /* the mean weighed by each sample's interval */
    GT_MA_LAST,       /* the last sample: a running total */
    GT_MA_SUM,
    GT_MA_NONE,       /* not aggregated (the timestamp) */
} gt_metric_agg;

typedef struct gt_metric_column {
    const char *name;
    gt_metric_cell cell;
    size_t field;      /* offset in gt_sample */
    const char *label; /* its series in the row's plot chart; NULL: the name */
} gt_metric_column;

#define GT_METRIC_MAX_COLUMNS 4

typedef struct gt_metric {
    const char *id;
    gt_metric_place place;
    /* The SQL type of its columns: those pandas gave them in the Python
     * package's files (`.schema` of a tracking.sqlite it wrote), which
     * readers may rely on. */
    const char *sql_type;
    gt_metric_unit unit;
    gt_metric_agg agg;
    const char *label;       /* the report's label; NULL: not in the reports */
    const char *prom, *help; /* the Prometheus family and its help; NULL: not exposed */
    /* The plot group: one chart per group, the rows' columns its series
     * (GT_PLOT_MAX_SERIES at most), for GT_METRIC_OWN rows of a byte or
     * percent unit; NULL: not plotted by the table (the Python package's
     * columns have charts of their own). */
    const char *plot;
    /* Its column of the processes table (--per-process), after that
     * table's own and before its GPU columns: the GT_PV_* slot of
     * gt_sample_proc.values it shows, -1: none, and its name. */
    int per_process;
    const char *proc_column;
    gt_metric_column col[GT_METRIC_MAX_COLUMNS]; /* in file order; unused: name NULL */
} gt_metric;

/* The table, in its order. */
extern const gt_metric gt_metric_table[];
extern const size_t gt_metric_count;

/* The number of tracking-file columns of each place; the store's arrays
 * are sized by them (gt_metric_check proves them against the table). */
#define GT_METRIC_NPACKAGE_COLUMNS 22
#define GT_METRIC_NOWN_COLUMNS 8
#define GT_METRIC_NENERGY_COLUMNS 3

/* The tracking file's columns in file order: by place, then by row.
 * Start with an iterator of zeros; each call gives the next column (and
 * its row in *metric unless NULL), NULL after the last. */
typedef struct gt_metric_iter {
    const gt_metric *table; /* NULL: gt_metric_table */
    size_t n;               /* the rows of table */
    int place, k;
    size_t m;
} gt_metric_iter;
const gt_metric_column *gt_metric_next(gt_metric_iter *it, const gt_metric **metric);

/* The tracking file's column i (0 ..); NULL past the last. */
const gt_metric_column *gt_metric_column_at(int i, const gt_metric **metric);

/* NULL when the table keeps the rules of the file layout (the counts
 * above; timestamp the last of the package's columns; the energy columns
 * and only they named *_energy_joules, and none *_power_watts, which the
 * power columns after them are; every name once), else what is wrong. */
const char *gt_metric_check(void);
/* The same for another table of n rows (the tests' ill-formed ones),
 * without the counts. */
const char *gt_metric_check_table(const gt_metric *table, size_t n);
#endif
