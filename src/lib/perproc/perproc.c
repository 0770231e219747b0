/* SPDX-License-Identifier: MIT */
#include "perproc/perproc.h"
#include "metric/metric.h"
#include "store/row.h"
#include "store/side.h"
#include "store/table.h"
#include "util/error.h"
#include "util/units.h"
#include "util/grow.h"
#include "util/timespec.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROC_BASE_COLS 10
#define GPU_COLS 7
/* The columns that tell a gpus table: files made before total_gpu_ram
 * (the 7th) have only these. */
#define GPU_ID_COLS 6

/* What is kept of one process between samples. */
typedef struct entry {
    pid_t pid, ppid;
    uint64_t starttime;
    char comm[16];
    double cpu_base;       /* its CPU time when tracking began (0: born since) */
    double cpu_last, ts_last;
    uint64_t peak;         /* largest total RSS read, bytes */
    int peak_valid;
} entry;

typedef struct entries {
    entry *v;
    size_t n, cap;
} entries;

typedef struct gt_top_process top_process;

struct gt_perproc {
    gt_perproc_config cfg;
    gt_side *procs, *gpus;
    /* The metric table's per-process columns, after the base columns. */
    const gt_metric *own[GT_PV_SLOTS];
    int n_own;
    int n_gpu_cols;        /* selected GPUs with columns in the processes table */
    const char **names;    /* processes table column names and types */
    const char **types;
    char (*gpu_col)[48];   /* the GPU columns' names */
    gt_cell *cells;
    double hz, first_ticks;  /* clock ticks since boot when tracking began */
    pthread_mutex_t mu;    /* guards cur and the finished tops against gt_perproc_top */
    entries prev, cur;
    /* Processes that lived and exited between two samples, from their exit
     * records (scratch of one sample). */
    top_process *unseen;
    size_t n_unseen, unseen_cap;
    /* Processes that have left the tree: the best of them so far. */
    top_process by_ram[GT_TOP_PROCESSES], by_cpu[GT_TOP_PROCESSES];
    int n_by_ram, n_by_cpu;
};

static const char *const proc_names[PROC_BASE_COLS] = {
    "timestamp", "pid", "ppid", "command", "cpu_percent",
    "total_rss", "private_rss", "shared_rss", "ram_percent", "n_threads",
};
static const char *const proc_types[PROC_BASE_COLS] = {
    "FLOAT", "BIGINT", "BIGINT", "TEXT", "FLOAT", "FLOAT", "FLOAT", "FLOAT", "FLOAT", "BIGINT",
};
static const char *const gpu_names[GPU_COLS] = {
    "timestamp", "gpu_index", "uuid", "used_gpu_ram", "utilization_percent", "power_watts", "total_gpu_ram",
};
static const char *const gpu_types[GPU_COLS] = {"FLOAT", "BIGINT", "TEXT", "FLOAT", "FLOAT", "FLOAT", "FLOAT"};

const char *const gt_perproc_tables[] = {"processes", "gpus", NULL};

const char *gt_perproc_option(const char *table)
{
    return !strcmp(table, "processes") ? "--per-process" : !strcmp(table, "gpus") ? "--per-gpu" : NULL;
}

/* Whether t's first n columns are names[0..n) (the processes table's GPU
 * columns follow its base columns, as many as GPUs were selected). */
static int begins_with(const gt_table *t, const char *const *names, int n)
{
    if (gt_table_ncols(t) < n)
        return 0;
    for (int i = 0; i < n; i++)
        if (strcmp(gt_table_name(t, i), names[i]) != 0)
            return 0;
    return 1;
}

const char *gt_perproc_table_of(const char *path)
{
    gt_table *t = NULL;
    gt_error err;
    const char *table = NULL;
    size_t n = strlen(path);
    if (n < 4 || strcmp(path + n - 4, ".csv") != 0 ||
        gt_table_read_columns(path, GT_TABLE_HEADER, NULL, GT_TABLE_ALL_TEXT, &t, &err) != GT_OK)
        return NULL;
    if (begins_with(t, proc_names, PROC_BASE_COLS))
        table = "processes";
    else if (begins_with(t, gpu_names, GPU_ID_COLS))
        table = "gpus";
    gt_table_free(&t);
    return table;
}

static gt_cell fcell(double v)
{
    return isnan(v) ? (gt_cell){.kind = GT_CELL_NULL} : (gt_cell){.kind = GT_CELL_FLOAT, .f = v};
}
static gt_cell icell(long long v) { return (gt_cell){.kind = GT_CELL_INT, .i = v}; }
static gt_cell tcell(const char *s) { return (gt_cell){.kind = GT_CELL_TEXT, .s = s}; }
static const gt_cell null_cell = {.kind = GT_CELL_NULL};

static int grow(void **v, size_t *cap, size_t need, size_t elem)
{
    return gt_grow_array(v, cap, need, 16, elem);
}

static gt_status open_tables(gt_perproc *p, gt_error *err)
{
    const gt_gpu_device_reading *dev = p->cfg.gpus;
    p->n_gpu_cols = (int)p->cfg.n_gpus;
    p->n_own = 0;
    for (size_t r = 0; r < gt_metric_count && p->n_own < GT_PV_SLOTS; r++)
        if (gt_metric_table[r].per_process >= 0 && gt_metric_table[r].proc_column)
            p->own[p->n_own++] = &gt_metric_table[r];
    int gpu_at = PROC_BASE_COLS + p->n_own, ncols = gpu_at + 2 * p->n_gpu_cols;
    if (!(p->names = calloc((size_t)ncols, sizeof *p->names)) ||
        !(p->types = calloc((size_t)ncols, sizeof *p->types)) ||
        !(p->gpu_col = calloc((size_t)(2 * p->n_gpu_cols + 1), sizeof *p->gpu_col)) ||
        !(p->cells = calloc((size_t)(ncols > GPU_COLS ? ncols : GPU_COLS), sizeof *p->cells)))
        return gt_err(err, GT_ERR_NOMEM, "out of memory");
    for (int i = 0; i < PROC_BASE_COLS; i++) {
        p->names[i] = proc_names[i];
        p->types[i] = proc_types[i];
    }
    for (int i = 0; i < p->n_own; i++) {
        p->names[PROC_BASE_COLS + i] = p->own[i]->proc_column;
        p->types[PROC_BASE_COLS + i] = p->own[i]->sql_type;
    }
    /* Named by the vendor's index, as nvidia-smi numbers the GPUs. */
    for (int g = 0; g < p->n_gpu_cols; g++) {
        for (int k = 0; k < 2; k++) {
            char *name = p->gpu_col[2 * g + k];
            snprintf(name, sizeof *p->gpu_col, k ? "gpu%d_sm_percent" : "gpu%d_ram", dev[g].index);
            p->names[gpu_at + 2 * g + k] = name;
            p->types[gpu_at + 2 * g + k] = "FLOAT";
        }
    }
    gt_status st = GT_OK;
    if (p->cfg.per_process)
        st = gt_side_open(p->cfg.tracking_file, "processes", p->names, p->types, ncols,
                          p->cfg.overwrite, &p->procs, err);
    if (st == GT_OK && p->cfg.per_gpu)
        st = gt_side_open(p->cfg.tracking_file, "gpus", gpu_names, gpu_types, GPU_COLS, p->cfg.overwrite,
                          &p->gpus, err);
    gt_side *sides[] = {p->procs, p->gpus};
    for (int i = 0; i < 2; i++)
        if (sides[i]) {
            gt_side_set_log(sides[i], p->cfg.log, p->cfg.log_ctx);
            gt_side_set_lockwait(sides[i], p->cfg.lockwait);
        }
    return st;
}

gt_status gt_perproc_check(const gt_perproc_config *cfg, gt_error *err)
{
    gt_status st = GT_OK;
    if (cfg->tracking_file && cfg->per_process)
        st = gt_side_check(cfg->tracking_file, "processes", cfg->overwrite, err);
    if (st == GT_OK && cfg->tracking_file && cfg->per_gpu)
        st = gt_side_check(cfg->tracking_file, "gpus", cfg->overwrite, err);
    return st;
}

gt_status gt_perproc_open(const gt_perproc_config *cfg, gt_perproc **out, gt_error *err)
{
    *out = NULL;
    if (cfg->per_gpu && !cfg->tracking_file)
        return gt_err(err, GT_ERR_INVALID, "per_gpu needs a tracking file to write its rows to");
    gt_perproc *p = calloc(1, sizeof *p);
    if (!p)
        return gt_err(err, GT_ERR_NOMEM, "out of memory");
    p->cfg = *cfg;
    pthread_mutex_init(&p->mu, NULL);
    long hz = sysconf(_SC_CLK_TCK);
    p->hz = hz > 0 ? (double)hz : 100;
    /* Processes started from now on count with all their CPU time: the
     * command line lets its command run before the first sample, so a
     * child may be forked before a sample sees it. */
    struct timespec boot;
    clock_gettime(CLOCK_BOOTTIME, &boot);
    p->first_ticks = (gt_ts_seconds(&boot)) * p->hz;
    gt_status st = cfg->tracking_file ? open_tables(p, err) : GT_OK;
    p->cfg.gpus = NULL; /* borrowed for open only */
    if (st != GT_OK) {
        /* Left there, a file without a sample would make the next run
         * fail with "exists". */
        gt_side_discard(&p->procs);
        gt_side_discard(&p->gpus);
        gt_error ignored;
        gt_perproc_close(&p, &ignored);
        return st;
    }
    *out = p;
    return GT_OK;
}

/* A command name with control characters written as '?', so that a name
 * cannot break a row or a report line. */
static void clean_comm(char dst[16], const char *src)
{
    size_t i = 0;
    for (; i < 15 && src[i]; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    dst[i] = '\0';
}

/* The command name and parent the sampler read (at this sample, or at
 * the last one that read an idle process's stat). */
static void take_comm(const gt_sample_proc *sp, entry *e)
{
    clean_comm(e->comm, sp->comm);
    e->ppid = sp->ppid;
}

/* The entry of process pid in l (sorted by PID), whatever its start. */
static entry *find_pid(entries *l, pid_t pid)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->v[mid].pid == pid)
            return &l->v[mid];
        if (l->v[mid].pid < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static entry *find(entries *l, pid_t pid, uint64_t starttime)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->v[mid].pid == pid)
            return l->v[mid].starttime == starttime ? &l->v[mid] : NULL;
        if (l->v[mid].pid < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static top_process as_top(const entry *e, gt_ram_unit ru)
{
    top_process t = {.pid = e->pid};
    memcpy(t.command, e->comm, sizeof t.command);
    t.peak_rss = e->peak_valid ? gt_ram_in_unit((double)e->peak, ru) : -1.0;
    t.cpu_seconds = e->cpu_last - e->cpu_base;
    if (t.cpu_seconds < 0)
        t.cpu_seconds = 0;
    return t;
}

/* Whether a ranks before b: larger first, ties by PID. */
static int better(const top_process *a, const top_process *b, int by_cpu)
{
    double x = by_cpu ? a->cpu_seconds : a->peak_rss, y = by_cpu ? b->cpu_seconds : b->peak_rss;
    return x != y ? x > y : a->pid < b->pid;
}

static void rank(top_process *top, int *n, const top_process *t, int by_cpu)
{
    int i = *n < GT_TOP_PROCESSES ? (*n)++ : GT_TOP_PROCESSES;
    if (i == GT_TOP_PROCESSES) {
        if (!better(t, &top[GT_TOP_PROCESSES - 1], by_cpu))
            return;
        i = GT_TOP_PROCESSES - 1;
    }
    for (; i > 0 && better(t, &top[i - 1], by_cpu); i--)
        top[i] = top[i - 1];
    top[i] = *t;
}

/* The GPU cells of process pid at sample s: memory on each selected device
 * (0 when the device's list lacks it, NULL when the list or the figure is
 * missing) and its SM percent (NULL where not read). */
static void gpu_cells(gt_perproc *p, pid_t pid, const gt_sample *s, gt_cell *c)
{
    const gt_gpu_device_reading *dev = s->devices;
    const gt_sample_gpu_proc *gp = s->gpu_procs;
    for (int g = 0; g < p->n_gpu_cols && (size_t)g < s->n_devices; g++) {
        double mem = 0, sm = 0;
        int mem_ok = dev[g].procs_valid, sm_ok = dev[g].sm_valid;
        for (size_t k = 0; k < s->n_gpu_procs; k++) {
            if (gp[k].pid != pid || gp[k].device != (size_t)g)
                continue;
            if (gp[k].mem_valid)
                mem += (double)gp[k].mem_bytes;
            else
                mem_ok = 0;
            if (gp[k].sm_valid)
                sm += gp[k].sm_percent;
        }
        c[2 * g] = mem_ok ? fcell(gt_gpu_ram_in_unit(mem, p->cfg.gpu_ram_unit)) : null_cell;
        c[2 * g + 1] = sm_ok ? fcell(sm) : null_cell;
    }
}

static gt_status gpu_rows(gt_perproc *p, const gt_sample *s, gt_error *err)
{
    const gt_gpu_device_reading *dev = s->devices;
    gt_status st = GT_OK;
    for (size_t g = 0; g < s->n_devices && st == GT_OK; g++) {
        gt_cell *c = p->cells;
        c[0] = fcell(s->timestamp);
        c[1] = icell(dev[g].index);
        c[2] = tcell(dev[g].uuid ? dev[g].uuid : "");
        c[3] = dev[g].mem_valid ? fcell(gt_gpu_ram_in_unit((double)dev[g].mem_used_bytes, p->cfg.gpu_ram_unit))
                                : null_cell;
        c[4] = dev[g].util_valid ? fcell(dev[g].util_percent) : null_cell;
        c[5] = dev[g].power_valid ? fcell(dev[g].power_watts) : null_cell;
        /* The capacity each row, so a reader needs no other table: merge
         * puts a GPU's memory peak against it. */
        c[6] = dev[g].mem_total_bytes ? fcell(gt_gpu_ram_in_unit((double)dev[g].mem_total_bytes, p->cfg.gpu_ram_unit))
                                      : null_cell;
        st = gt_side_add(p->gpus, c, err);
    }
    return st == GT_OK ? gt_side_end_sample(p->gpus, err) : st;
}

/* One row of process e (read as sp at sample s; old: its entry at the last
 * sample that saw it, or NULL). */
static gt_status proc_row(gt_perproc *p, const gt_sample_proc *sp, const entry *e, const entry *old,
                          const gt_sample *s, gt_error *err)
{
    gt_cell *c = p->cells;
    gt_ram_unit ru = p->cfg.ram_unit;
    uint64_t capacity = p->cfg.ram_capacity;
    double ts = s->timestamp;
    c[0] = fcell(ts);
    c[1] = icell(sp->pid);
    c[2] = icell(e->ppid);
    c[3] = tcell(e->comm);
    /* Over the time since the last sample that saw it; none at first sight. */
    double dt = old ? ts - old->ts_last : 0, dcpu = old ? sp->cpu_seconds - old->cpu_last : -1;
    c[4] = old && dt > 0 && dcpu >= 0 ? fcell(dcpu / dt * 100.0) : null_cell;
    if (sp->mem_valid) {
        /* Converted part by part and added, as the main table's RSS. */
        double priv = gt_ram_in_unit((double)sp->private_rss, ru), shared = gt_ram_in_unit((double)sp->shared_rss, ru);
        c[5] = fcell(priv + shared);
        c[6] = fcell(priv);
        c[7] = fcell(shared);
        c[8] = capacity ? fcell((double)(sp->private_rss + sp->shared_rss) / (double)capacity * 100.0) : null_cell;
    } else {
        c[5] = c[6] = c[7] = c[8] = null_cell;
    }
    c[9] = icell(sp->threads);
    /* The metric table's: NaN (unreadable, another user's) is NULL. */
    for (int i = 0; i < p->n_own; i++) {
        double v = sp->values[p->own[i]->per_process];
        c[PROC_BASE_COLS + i] = strcmp(p->own[i]->sql_type, "BIGINT") ? fcell(v) : gt_store_count_cell(v);
    }
    gpu_cells(p, sp->pid, s, c + PROC_BASE_COLS + p->n_own);
    return gt_side_add(p->procs, c, err);
}

/* The exit records of the tree since the last sample (taskstats), with
 * each process's high-water mark at its exit: a process a sample saw takes
 * it as its peak, and one that lived between two samples is ranked from its
 * records alone (its threads' CPU time added up).  With p->mu held, before
 * the processes gone are ranked.  -1: out of memory. */
static int take_exits(gt_perproc *p, const gt_sample *s)
{
    const gt_exit_record *x = s->exits;
    size_t nx = s->n_exits;
    p->n_unseen = 0;
    for (size_t i = 0; i < nx; i++) {
        const gt_exit_record *r = &x[i];
        entry *e = find_pid(&p->cur, r->tgid);
        if (!e)
            e = find_pid(&p->prev, r->tgid);
        if (e) {
            if (!e->peak_valid || r->hiwater_rss > e->peak) {
                e->peak = r->hiwater_rss;
                e->peak_valid = 1;
            }
            continue;
        }
        size_t k = 0;
        while (k < p->n_unseen && p->unseen[k].pid != r->tgid)
            k++;
        if (k == p->n_unseen) {
            if (grow((void **)&p->unseen, &p->unseen_cap, k + 1, sizeof *p->unseen) != 0)
                return -1;
            p->unseen[p->n_unseen++] = (top_process){.pid = r->tgid, .peak_rss = 0, .cpu_seconds = 0};
            clean_comm(p->unseen[k].command, r->comm);
        }
        top_process *t = &p->unseen[k];
        if (r->pid == r->tgid) /* the process's name is its leader's */
            clean_comm(t->command, r->comm);
        double hwm = gt_ram_in_unit((double)r->hiwater_rss, p->cfg.ram_unit);
        if (hwm > t->peak_rss)
            t->peak_rss = hwm;
        t->cpu_seconds += r->cpu_seconds;
    }
    for (size_t k = 0; k < p->n_unseen; k++) {
        rank(p->by_ram, &p->n_by_ram, &p->unseen[k], 0);
        rank(p->by_cpu, &p->n_by_cpu, &p->unseen[k], 1);
    }
    return s->exits_short ? -1 : 0;
}

gt_status gt_perproc_sample(gt_perproc *p, const gt_sample *s, gt_error *err)
{
    size_t n = s->n_procs;
    double ts = s->timestamp;
    if (grow((void **)&p->cur.v, &p->cur.cap, n, sizeof *p->cur.v) != 0)
        return gt_err(err, GT_ERR_NOMEM, "out of memory");
    gt_status st = GT_OK;
    p->cur.n = 0;
    for (size_t i = 0; i < n; i++) {
        const gt_sample_proc *sp = &s->procs[i];
        entry *old = find(&p->prev, sp->pid, sp->starttime);
        entry *e = &p->cur.v[p->cur.n++];
        if (old) {
            *e = *old;
        } else {
            *e = (entry){.pid = sp->pid, .starttime = sp->starttime};
            /* Born since the tracker was created: all its CPU time is the run's. */
            e->cpu_base = (double)sp->starttime + 1 >= p->first_ticks ? 0 : sp->cpu_seconds;
        }
        take_comm(sp, e);
        if (sp->mem_valid && (!e->peak_valid || sp->private_rss + sp->shared_rss > e->peak)) {
            e->peak = sp->private_rss + sp->shared_rss;
            e->peak_valid = 1;
        }
        /* The kernel's high-water mark holds what rose between samples. */
        if (sp->hwm > e->peak || (sp->hwm && !e->peak_valid)) {
            e->peak = sp->hwm;
            e->peak_valid = 1;
        }
        if (p->procs && st == GT_OK)
            st = proc_row(p, sp, e, old, s, err);
        e->cpu_last = sp->cpu_seconds;
        e->ts_last = ts;
    }
    if (p->procs && st == GT_OK)
        st = gt_side_end_sample(p->procs, err);
    if (p->gpus && st == GT_OK)
        st = gpu_rows(p, s, err);
    /* Processes gone since the last sample go into the finished tops. */
    pthread_mutex_lock(&p->mu);
    if (take_exits(p, s) != 0 && st == GT_OK)
        st = gt_err(err, GT_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < p->prev.n; i++) {
        const entry *e = &p->prev.v[i];
        if (find(&p->cur, e->pid, e->starttime))
            continue;
        top_process t = as_top(e, p->cfg.ram_unit);
        rank(p->by_ram, &p->n_by_ram, &t, 0);
        rank(p->by_cpu, &p->n_by_cpu, &t, 1);
    }
    entries tmp = p->prev;
    p->prev = p->cur;
    p->cur = tmp;
    pthread_mutex_unlock(&p->mu);
    return st;
}

void gt_perproc_top(gt_perproc *p, gt_usage *u)
{
    memset(&u->top_processes, 0, sizeof u->top_processes);
    if (!p || !p->cfg.per_process)
        return;
    u->top_processes.available = 1;
    pthread_mutex_lock(&p->mu);
    int nr = p->n_by_ram, nc = p->n_by_cpu;
    top_process *r = u->top_processes.by_peak_ram, *c = u->top_processes.by_cpu_seconds;
    memcpy(r, p->by_ram, sizeof p->by_ram);
    memcpy(c, p->by_cpu, sizeof p->by_cpu);
    for (size_t i = 0; i < p->prev.n; i++) { /* those alive at the last sample */
        top_process t = as_top(&p->prev.v[i], p->cfg.ram_unit);
        rank(r, &nr, &t, 0);
        rank(c, &nc, &t, 1);
    }
    pthread_mutex_unlock(&p->mu);
    u->top_processes.n = nr;
}

gt_status gt_perproc_finish(gt_perproc *p, gt_error *err)
{
    gt_error e2;
    gt_status st = gt_side_close(&p->procs, err);
    gt_status st2 = gt_side_close(&p->gpus, st == GT_OK ? err : &e2);
    if (st != GT_OK && st2 != GT_OK && err)
        gt_err_join(err, &e2);
    return st == GT_OK ? st2 : st;
}

void gt_perproc_discard(gt_perproc *p)
{
    gt_side_discard(&p->procs);
    gt_side_discard(&p->gpus);
}

gt_status gt_perproc_close(gt_perproc **pp, gt_error *err)
{
    if (!pp || !*pp)
        return GT_OK;
    gt_perproc *p = *pp;
    gt_status st = gt_perproc_finish(p, err);
    free(p->names);
    free(p->gpu_col);
    free(p->types);
    free(p->cells);
    free(p->prev.v);
    free(p->cur.v);
    free(p->unseen);
    pthread_mutex_destroy(&p->mu);
    free(p);
    *pp = NULL;
    return st;
}
