/* SPDX-License-Identifier: MIT */
/* Vendor detection, --guuids selection, and per-sample dispatch to the
 * selected backend (backend.h).  Figures a backend cannot read are warned
 * about once per device and figure, and left out of the sums. */
#include "gpu/gpu.h"
#include "gpu/backend.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/timespec.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Share of one core that the readings a driver makes slow may use: on an
 * H200 with driver 580, nvmlDeviceGetTotalEnergyConsumption costs 3.4 ms
 * of CPU a call and nvmlDeviceGetProcessUtilization 1.3 ms, while memory,
 * utilization, power and the process lists cost 0.2 to 13 us.  Each of the
 * two is read again once its last call's CPU time over this share has
 * passed (cheap calls so come every sample), and at the first and the last
 * sample.  The energy counter is cumulative, so the run's total stays the
 * counter's exact difference. */
#define SLOW_READ_BUDGET 0.01

/* Figures warned about once per device (bits of dev.warned). */
enum { W_MEM = 1, W_UTIL = 2, W_PROCS = 4, W_PROC_MEM = 8, W_POWER = 16, W_ENERGY = 32, W_SM = 64 };

typedef struct dev {
    int index;               /* vendor's index */
    char uuid[GT_GPU_UUID_MAX];
    uint64_t total;
    int selected, lost;
    unsigned warned;
    size_t reading;          /* slot in readings[] when selected */
    /* Monotonic seconds from which the energy counter and per-process SM
     * utilization are read again (SLOW_READ_BUDGET). */
    double energy_due, sm_due;
    gt_gpu_rc sm_rc;         /* of the last reading of the SM utilization */
} dev;

/* A process's SM percent at the last reading of it, carried to the samples
 * that do not read it again. */
typedef struct sm_seen {
    pid_t pid;
    size_t slot;
    double percent;
} sm_seen;

struct gt_gpu {
    const gt_gpu_vendor *v;
    void *st;
    dev *devs;
    int n, n_selected;
    gt_gpu_procs procs;
    size_t *proc_dev;        /* devs[] slot of each procs entry; SIZE_MAX: system-wide */
    size_t proc_dev_cap;
    gt_gpu_device_reading *readings;
    gt_log_fn log;
    void *log_ctx;
    int quiet;
    unsigned warned;         /* system-wide process listing (W_PROCS, W_PROC_MEM) */
    int checked_pid_ns;      /* the PID-namespace check has run (see pid_ns_check) */
    int read_all;            /* the next sample reads every figure (gt_gpu_read_all) */
    sm_seen *sm;             /* the processes' SM percents of the last sample */
    size_t n_sm, sm_cap;
};

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return gt_ts_seconds(&ts);
}

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return gt_ts_seconds(&ts);
}

/* After a slow reading that started at cpu0 (thread CPU seconds): the
 * monotonic time from which it may run again. */
static double next_due(double cpu0)
{
    return mono_s() + (thread_cpu_s() - cpu0) / SLOW_READ_BUDGET;
}

int gt_gpu_procs_reserve(gt_gpu_procs *p, size_t n)
{
    if (n <= p->cap)
        return 0;
    size_t cap = gt_grow_cap(p->cap, n, 16, sizeof *p->v);
    gt_gpu_proc *v = cap ? realloc(p->v, cap * sizeof *v) : NULL;
    if (!v)
        return -1;
    p->v = v;
    p->cap = cap;
    return 0;
}

void *gt_gpu_dlopen(const char *env, const char *const *names)
{
    const char *path = env ? getenv(env) : NULL;
    /* A named library replaces the search, so a test or a user pointing at
     * one build never silently gets another. */
    if (path && *path)
        return dlopen(path, RTLD_NOW | RTLD_LOCAL);
    for (; *names; names++) {
        void *h = dlopen(*names, RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    return NULL;
}

void *gt_gpu_dlsym(void *handle, const char *const *names, const char **found)
{
    for (; *names; names++) {
        void *f = dlsym(handle, *names);
        if (f) {
            if (found)
                *found = *names;
            return f;
        }
    }
    return NULL;
}

__attribute__((format(printf, 2, 3)))
static void warn(const gt_gpu *g, const char *fmt, ...)
{
    if (g->quiet || !g->log)
        return;
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    g->log(g->log_ctx, msg);
}

static const char *rc_text(gt_gpu_rc rc)
{
    switch (rc) {
    case GT_GPU_MISSING: return "missing from the installed library";
    case GT_GPU_UNSUPPORTED: return "not supported";
    case GT_GPU_NO_PERMISSION: return "no permission";
    case GT_GPU_LOST: return "the GPU is lost";
    default: return "failed";
    }
}

/* Warns once that figure `bit` of device d is degraded, saying what the
 * report leaves out because of it.  A lost device is warned about once and
 * not read again. */
static void degrade(gt_gpu *g, dev *d, unsigned bit, gt_gpu_rc rc, const gt_gpu_why *why,
                    const char *consequence)
{
    if (rc == GT_GPU_LOST && d) {
        if (!d->lost)
            warn(g, "GPU %d (%s) is lost (%s: %s); its figures are left out from now on.",
                 d->index, d->uuid, why->func ? why->func : "?", why->detail);
        d->lost = 1;
        return;
    }
    unsigned *warned = d ? &d->warned : &g->warned;
    if (*warned & bit)
        return;
    *warned |= bit;
    char where[GT_GPU_UUID_MAX + 32] = "";
    if (d)
        snprintf(where, sizeof where, "GPU %d (%s): ", d->index, d->uuid);
    if (rc == GT_GPU_MISSING)
        warn(g, "%s%s is %s; %s.", where, why->func ? why->func : "?", rc_text(rc), consequence);
    else
        warn(g, "%s%s: %s (%s); %s.", where, why->func ? why->func : "?", rc_text(rc),
             why->detail, consequence);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Marks the devices named in the comma-separated list; GT_ERR_GPU for a
 * name that matches none, listing the valid UUIDs as the Python package
 * does (sorted, comma-separated). */
static gt_status select_devices(gt_gpu *g, const char *uuids, gt_error *err)
{
    if (!uuids) {
        for (int i = 0; i < g->n; i++)
            g->devs[i].selected = 1;
        return GT_OK;
    }
    const char *p = uuids;
    int any = 0;
    while (*p) {
        size_t len = strcspn(p, ",");
        const char *s = p, *e = p + len;
        while (s < e && (*s == ' ' || *s == '\t'))
            s++;
        while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        if (e > s) {
            any = 1;
            int hit = 0;
            for (int i = 0; i < g->n; i++)
                if (strlen(g->devs[i].uuid) == (size_t)(e - s) && !memcmp(g->devs[i].uuid, s, (size_t)(e - s)))
                    hit = g->devs[i].selected = 1;
            if (!hit) {
                const char *names[64];
                int n = g->n < 64 ? g->n : 64;
                for (int i = 0; i < n; i++)
                    names[i] = g->devs[i].uuid;
                qsort(names, (size_t)n, sizeof *names, cmp_str);
                char list[384] = "";
                size_t at = 0;
                for (int i = 0; i < n && at < sizeof list; i++)
                    at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "", names[i]);
                return gt_err(err, GT_ERR_GPU, "GPU UUID of %.*s is not valid. Available UUIDs are: %s",
                              (int)(e - s), s, list);
            }
        }
        p += len;
        if (*p == ',')
            p++;
    }
    if (!any)
        return gt_err(err, GT_ERR_GPU, "gpu_uuids is not None but the set is empty. "
                                       "Please provide a set of at least one GPU UUID.");
    return GT_OK;
}

/* Reads the static facts of every device.  A device whose UUID or capacity
 * cannot be read is left out of the system with a warning. */
static gt_status load_devices(gt_gpu *g, int count)
{
    g->devs = calloc((size_t)count, sizeof *g->devs);
    if (!g->devs)
        return GT_ERR_NOMEM;
    for (int i = 0; i < count; i++) {
        dev *d = &g->devs[g->n];
        gt_gpu_why why = {0};
        gt_gpu_rc rc = g->v->uuid(g->st, i, d->uuid, sizeof d->uuid, &why);
        if (rc == GT_GPU_OK) {
            rc = g->v->memory_total(g->st, i, &d->total, &why);
            if (rc == GT_GPU_UNSUPPORTED) {
                /* The device's other figures are still worth having. */
                warn(g, "GPU %d (%s): %s: %s (%s); the GPU RAM capacity leaves this GPU out.", i, d->uuid,
                     why.func ? why.func : "?", rc_text(rc), why.detail);
                d->total = 0;
                rc = GT_GPU_OK;
            }
        }
        if (rc != GT_GPU_OK) {
            warn(g, "GPU %d: %s: %s (%s); this GPU is left out.", i, why.func ? why.func : "?",
                 rc_text(rc), why.detail);
            memset(d, 0, sizeof *d);
            continue;
        }
        d->index = i;
        g->n++;
    }
    return GT_OK;
}

static void cannot_use(const gt_gpu *g, const gt_gpu_vendor *v, gt_gpu_found f, const gt_gpu_why *why)
{
    if (f == GT_GPU_NO_DEVICE) {
        warn(g, "The %s is installed but cannot connect to a GPU. "
                "The GPU RAM and GPU utilization values will remain 0.0.", v->tool);
        if (why->func)
            warn(g, "%s: %s", why->func, why->detail);
    }
}

/* No vendor library could be loaded: the warning names every library --gb
 * could name (the Python package names its commands). */
static void not_loaded(const gt_gpu *g)
{
    char list[512] = "";
    size_t at = 0;
    for (size_t k = 0; k < GT_GPU_N_VENDORS; k++)
        if (gt_gpu_vendors[k]->brand != GT_GPU_AUTO && at < sizeof list)
            at += (size_t)snprintf(list + at, sizeof list - at, "%s the %s", at ? " nor" : "Neither",
                                   gt_gpu_vendors[k]->tool);
    warn(g, "%s could be loaded. Install a GPU driver to profile the GPU. "
            "Otherwise the GPU RAM and GPU utilization values will remain 0.0.", list);
}

gt_status gt_gpu_open(gt_gpu_brand brand, const char *uuids, const char *sysfs_root, gt_log_fn log,
                      void *log_ctx, int disable_logs, gt_gpu **out, gt_error *err)
{
    if (brand != GT_GPU_AUTO && !gt_gpu_vendor_of(brand))
        return gt_err(err, GT_ERR_INVALID, "invalid GPU brand %d", (int)brand);
    gt_gpu *g = calloc(1, sizeof *g);
    if (!g)
        return gt_err(err, GT_ERR_NOMEM, "out of memory");
    g->log = log;
    g->log_ctx = log_ctx;
    g->quiet = disable_logs;

    gt_gpu_found found[GT_GPU_N_VENDORS];
    gt_gpu_why why[GT_GPU_N_VENDORS];
    memset(why, 0, sizeof why);
    int count = 0;
    for (size_t k = 0; k < GT_GPU_N_VENDORS; k++) {
        found[k] = GT_GPU_NOT_INSTALLED;
        if (brand != GT_GPU_AUTO && brand != gt_gpu_vendors[k]->brand)
            continue;
        found[k] = gt_gpu_vendors[k]->init(sysfs_root, &g->st, &count, &why[k]);
        if (found[k] == GT_GPU_FOUND) {
            g->v = gt_gpu_vendors[k];
            break;
        }
    }
    if (!g->v) {
        /* As the Python package: the first installed brand that cannot
         * connect is named, else none is installed. */
        size_t k = 0;
        while (k < GT_GPU_N_VENDORS && found[k] == GT_GPU_NOT_INSTALLED)
            k++;
        if (k < GT_GPU_N_VENDORS)
            cannot_use(g, gt_gpu_vendors[k], found[k], &why[k]);
        else if (brand == GT_GPU_AUTO)
            not_loaded(g);
        else
            warn(g, "The %s could not be loaded. The GPU RAM and GPU utilization values will remain 0.0.",
                 gt_gpu_vendor_of(brand)->tool);
        *out = g;
        return GT_OK;
    }

    gt_status st = load_devices(g, count);
    if (st != GT_OK) {
        gt_gpu_close(&g);
        return gt_err(err, st, "out of memory");
    }
    if ((st = select_devices(g, uuids, err)) != GT_OK) {
        gt_gpu_close(&g);
        return st;
    }
    g->readings = calloc((size_t)g->n + 1, sizeof *g->readings);
    if (!g->readings) {
        gt_gpu_close(&g);
        return gt_err(err, GT_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < g->n; i++) {
        dev *d = &g->devs[i];
        if (!d->selected)
            continue;
        d->reading = (size_t)g->n_selected++;
        g->readings[d->reading].index = d->index;
        g->readings[d->reading].uuid = d->uuid;
        g->readings[d->reading].mem_total_bytes = d->total;
    }
    *out = g;
    return GT_OK;
}

int gt_gpu_count(const gt_gpu *g) { return g ? g->n : 0; }
int gt_gpu_expected(const gt_gpu *g) { return g ? g->n_selected : 0; }

uint64_t gt_gpu_capacity(const gt_gpu *g)
{
    uint64_t sum = 0;
    for (int i = 0; g && i < g->n; i++)
        sum += g->devs[i].total;
    return sum;
}

const gt_gpu_device_reading *gt_gpu_devices(const gt_gpu *g, size_t *n)
{
    *n = g ? (size_t)g->n_selected : 0;
    return g ? g->readings : NULL;
}

static int in_set(const pid_t *v, size_t n, pid_t pid)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] == pid)
            return 1;
        if (v[mid] < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* A sample that does not read the SM utilization of device slot `slot`
 * gives the processes [first, procs.n) it listed their percents of the
 * last sample; a process new since then is taken as idle until the next
 * reading. */
static void carry_sm(gt_gpu *g, size_t slot, size_t first)
{
    g->procs.sm_rc = g->devs[slot].sm_rc;
    if (g->procs.sm_rc != GT_GPU_OK)
        return;
    for (size_t k = first; k < g->procs.n; k++) {
        gt_gpu_proc *p = &g->procs.v[k];
        p->sm_valid = 1;
        p->sm_percent = 0;
        for (size_t j = 0; j < g->n_sm; j++)
            if (g->sm[j].pid == p->pid && g->sm[j].slot == slot) {
                p->sm_percent = g->sm[j].percent;
                break;
            }
    }
}

/* Keeps the processes' SM percents of this sample for carry_sm. */
static void keep_sm(gt_gpu *g)
{
    g->n_sm = 0;
    if (g->procs.n > g->sm_cap) {
        size_t cap = gt_grow_cap(g->sm_cap, g->procs.n, 16, sizeof *g->sm);
        sm_seen *v = cap ? realloc(g->sm, cap * sizeof *v) : NULL;
        if (!v)
            return;   /* out of memory: the next samples count them idle */
        g->sm = v;
        g->sm_cap = cap;
    }
    for (size_t k = 0; k < g->procs.n; k++)
        if (g->procs.v[k].sm_valid && g->proc_dev[k] != SIZE_MAX)
            g->sm[g->n_sm++] = (sm_seen){g->procs.v[k].pid, g->proc_dev[k], g->procs.v[k].sm_percent};
}

/* Lists the processes of device slot `slot` (SIZE_MAX: system-wide); sets
 * *sm_ok when per-process SM utilization of a selected GPU was read. */
static void read_procs(gt_gpu *g, size_t slot, int *sm_ok)
{
    dev *d = slot == SIZE_MAX ? NULL : &g->devs[slot];
    size_t before = g->procs.n;
    gt_gpu_why why = {0};
    g->procs.sm_rc = GT_GPU_MISSING;
    memset(&g->procs.sm_why, 0, sizeof g->procs.sm_why);
    g->procs.want_sm = !d || g->read_all || g->v->sm_free || mono_s() >= d->sm_due;
    double cpu0 = thread_cpu_s();
    gt_gpu_rc rc = g->v->processes(g->st, d ? d->index : -1, &g->procs, &why);
    if (rc != GT_GPU_OK) {
        g->procs.n = before;
        degrade(g, d, W_PROCS, rc, &why,
                d ? "the GPU RAM of the main process and its descendants leaves this GPU out"
                  : "the GPU RAM of the main process and its descendants is not counted");
        return;
    }
    if (g->procs.n > g->proc_dev_cap) {
        size_t cap = g->procs.cap;
        size_t *v = realloc(g->proc_dev, cap * sizeof *v);
        if (!v) {
            g->procs.n = before;
            return;
        }
        g->proc_dev = v;
        g->proc_dev_cap = cap;
    }
    if (d && g->procs.want_sm) {
        d->sm_due = next_due(cpu0);
        d->sm_rc = g->procs.sm_rc;
    } else if (d)
        carry_sm(g, slot, before);
    if (d && d->selected) {
        g->readings[d->reading].procs_valid = 1;
        g->readings[d->reading].sm_valid = g->procs.sm_rc == GT_GPU_OK;
        if (g->procs.sm_rc == GT_GPU_OK)
            *sm_ok = 1;
        else if (g->procs.sm_why.func)
            degrade(g, d, W_SM, g->procs.sm_rc, &g->procs.sm_why,
                    "the SM utilization of the tracked processes leaves this GPU out");
    }
    for (size_t i = before; i < g->procs.n; i++) {
        g->proc_dev[i] = slot;
        if (!g->procs.v[i].mem_valid) {
            why.func = "per-process GPU memory";
            snprintf(why.detail, sizeof why.detail, "the driver gives no figure for PID %d",
                     (int)g->procs.v[i].pid);
            degrade(g, d, W_PROC_MEM, GT_GPU_UNSUPPORTED, &why,
                    "the GPU RAM of such processes is not counted");
        }
    }
}

/* The driver reports PIDs of the host's PID namespace.  Inside a container
 * with its own namespace none of them exists here, so no GPU memory can be
 * attributed: say so once, the first time processes are listed. */
static void pid_ns_check(gt_gpu *g)
{
    if (g->checked_pid_ns || g->procs.n == 0)
        return;
    g->checked_pid_ns = 1;
    for (size_t k = 0; k < g->procs.n; k++)
        if (kill(g->procs.v[k].pid, 0) == 0 || errno != ESRCH)
            return;
    warn(g, "None of the %zu processes that the GPU driver lists exists in this PID namespace (a container?): "
            "GPU RAM of the main process and its descendants cannot be attributed and stays 0.0.",
         g->procs.n);
}

void gt_gpu_sample(gt_gpu *g, const gt_pidset *pids, gt_gpu_reading *out)
{
    memset(out, 0, sizeof *out);
    if (!g || !g->v)
        return;
    g->procs.n = 0;
    g->procs.pids = pids;
    g->procs.seq++;
    int any_sm = 0;
    for (int i = 0; i < g->n; i++) {
        dev *d = &g->devs[i];
        gt_gpu_device_reading *r = d->selected ? &g->readings[d->reading] : NULL;
        if (r)
            r->power_valid = r->energy_valid = r->mem_valid = r->util_valid = r->procs_valid =
                r->sm_valid = 0;
        if (d->lost)
            continue;
        gt_gpu_why why = {0};
        uint64_t used;
        gt_gpu_rc rc = g->v->memory_used(g->st, d->index, &used, &why);
        if (rc == GT_GPU_OK) {
            out->system_bytes += used;
            if (r) {
                r->mem_valid = 1;
                r->mem_used_bytes = used;
            }
        } else
            degrade(g, d, W_MEM, rc, &why, "the system GPU RAM leaves this GPU out");
        if (d->lost)
            continue;
        if (r) {
            double pct;
            if ((rc = g->v->utilization(g->st, d->index, &pct, &why)) == GT_GPU_OK) {
                out->sum_util_percent += pct;
                r->util_valid = 1;
                r->util_percent = pct;
            } else
                degrade(g, d, W_UTIL, rc, &why, "the GPU utilization leaves this GPU out");
            if (!d->lost && (rc = g->v->power(g->st, d->index, &r->power_watts, &why)) == GT_GPU_OK)
                r->power_valid = 1;
            else if (!d->lost)
                degrade(g, d, W_POWER, rc, &why, "its power draw is unavailable");
            if (!d->lost && (g->read_all || mono_s() >= d->energy_due)) {
                double cpu0 = thread_cpu_s();
                if ((rc = g->v->energy(g->st, d->index, &r->energy_joules, &why)) == GT_GPU_OK)
                    r->energy_valid = 1;
                else
                    degrade(g, d, W_ENERGY, rc, &why, "its energy counter is unavailable");
                d->energy_due = next_due(cpu0);
            }
            if (d->lost) {
                r->power_valid = r->energy_valid = 0;
                continue;
            }
        }
        if (g->v->procs_per_device)
            read_procs(g, (size_t)i, &any_sm);
    }
    if (!g->v->procs_per_device)
        read_procs(g, SIZE_MAX, &any_sm);
    pid_ns_check(g);
    keep_sm(g);
    g->read_all = 0;

    for (size_t k = 0; k < g->procs.n; k++) {
        const gt_gpu_proc *p = &g->procs.v[k];
        int is_main = in_set(pids->main, pids->n_main, p->pid);
        int is_desc = !is_main && in_set(pids->desc, pids->n_desc, p->pid);
        if (!is_main && !is_desc)
            continue;
        if (p->mem_valid)
            *(is_main ? &out->main_bytes : &out->descendants_bytes) += p->mem_bytes;
        /* Per-process SM utilization counts on the selected GPUs only, as
         * the device utilization does. */
        size_t slot = g->proc_dev[k];
        if (p->sm_valid && slot != SIZE_MAX && g->devs[slot].selected)
            *(is_main ? &out->main_sm_percent : &out->descendants_sm_percent) += p->sm_percent;
    }
    out->combined_bytes = out->main_bytes + out->descendants_bytes;
    out->combined_sm_percent = out->main_sm_percent + out->descendants_sm_percent;
    out->sm_valid = any_sm;
    out->n_devices = (size_t)g->n_selected;
    out->devices = g->readings;
}

void gt_gpu_read_all(gt_gpu *g)
{
    if (g)
        g->read_all = 1;
}

size_t gt_gpu_last_procs(const gt_gpu *g, const gt_gpu_proc **procs, size_t *slot, size_t cap)
{
    *procs = g ? g->procs.v : NULL;
    size_t n = g ? g->procs.n : 0;
    for (size_t k = 0; k < n && k < cap; k++) {
        size_t d = g->proc_dev[k];
        slot[k] = d != SIZE_MAX && g->devs[d].selected ? g->devs[d].reading : SIZE_MAX;
    }
    return n;
}

void gt_gpu_close(gt_gpu **gp)
{
    if (!gp || !*gp)
        return;
    gt_gpu *g = *gp;
    if (g->v)
        g->v->shutdown(g->st);
    free(g->devs);
    free(g->procs.v);
    free(g->proc_dev);
    free(g->sm);
    free(g->readings);
    free(g);
    *gp = NULL;
}
