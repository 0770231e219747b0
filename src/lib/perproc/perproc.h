/* SPDX-License-Identifier: MIT */
/* --per-process and --per-gpu: rows of every tracked process and of every
 * selected GPU at every sample, in side tables of the tracking file
 * (store/side.h), and the report's top processes.  Fed on the sampling
 * thread with each sample, from what the sample carries alone (its
 * processes, devices, the processes the devices listed, and exits). */
#ifndef GT_PERPROC_PERPROC_H
#define GT_PERPROC_PERPROC_H
#include <stddef.h>
#include <stdint.h>
#include "gpu_tracker.h"
#include "sample.h"

typedef struct gt_perproc gt_perproc;

typedef struct gt_perproc_config {
    int per_process, per_gpu;
    const char *tracking_file;  /* NULL: the report's top processes only */
    int overwrite;
    gt_ram_unit ram_unit, gpu_ram_unit;
    gt_log_fn log; /* says that a side file deleted while tracking was re-created; NULL: not said */
    void *log_ctx;
    struct gt_lockwait *lockwait; /* the wait for an SQLite file's lock shared with the main table; NULL: none */
    uint64_t ram_capacity;      /* the machine's RAM, bytes (ram_percent); 0: unknown */
    /* The selected GPUs, as every sample's devices will list them: the
     * processes table has two columns for each, named by its index.  Read
     * at open only. */
    const gt_gpu_device_reading *gpus;
    size_t n_gpus;
} gt_perproc_config;

/* The side tables, NULL-terminated: "processes" (--per-process) and "gpus"
 * (--per-gpu). */
extern const char *const gt_perproc_tables[];
/* The option that writes side table `table` ("--per-process"), or NULL. */
const char *gt_perproc_option(const char *table);
/* The side table whose columns the header of CSV file path begins with:
 * "processes" or "gpus" (a side file, whatever its name), NULL for any
 * other file and for one that cannot be read (its reader says why).  Reads
 * the first line alone, so a tracking file's side files are told from
 * tracking files without reading their rows. */
const char *gt_perproc_table_of(const char *path);

/* Whether gt_perproc_open could create the side tables (gt_side_check),
 * changing nothing: checked with the tracking file before any file is
 * replaced. */
gt_status gt_perproc_check(const gt_perproc_config *cfg, gt_error *err);
/* Creates the side tables (the tracking file must exist already).  On
 * failure *out is NULL and no side file it created is left. */
gt_status gt_perproc_open(const gt_perproc_config *cfg, gt_perproc **out, gt_error *err);
/* Records sample s, on the thread that took it, before the next is taken
 * (its views are valid until then). */
gt_status gt_perproc_sample(gt_perproc *p, const gt_sample *s, gt_error *err);
/* Fills u->top_processes (any thread). */
void gt_perproc_top(gt_perproc *p, gt_usage *u);
/* Closes the side tables (no more rows are written; the top processes are
 * still followed and kept).  Every table that failed is named in err. */
gt_status gt_perproc_finish(gt_perproc *p, gt_error *err);
/* Closes the side tables and removes their CSV files, for a run that never
 * started. */
void gt_perproc_discard(gt_perproc *p);
/* Closes the side tables and frees; NULL-safe. */
gt_status gt_perproc_close(gt_perproc **p, gt_error *err);
#endif
