/* SPDX-License-Identifier: MIT */
/* The tracking report, as the Python package prints a Tracker (text) and
 * its to_json() (JSON laid out as its command line prints it, json.dumps
 * with indent=1), followed by gpu-tracker's own sections.
 * Both formats walk the same description of the layout, so they cannot
 * drift apart. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpu_tracker.h"
#include "abi.h"
#include "analysis/efficiency.h"
#include "report/usage_write.h"
#include "report/json_string.h"
#include "util/text.h"
#include "util/pyfloat.h"

/* K_FIGURE: a double that NaN marks unavailable (text "unavailable", JSON
 * null), any other value written as it is. */
typedef enum { K_SECTION, K_STR, K_FLOAT, K_INT, K_FIGURE, K_END } kind;

/* One line of the layout: a text label, a JSON key and a value. */
typedef struct item {
    kind k;
    const char *label, *key;
    const char *s;
    double f;
    long i;
} item;

#define SECTION(l, k) {K_SECTION, l, k, NULL, 0, 0}
/* A section written only when cond holds (i marks it omitted). */
#define SECTION_IF(l, k, cond) {K_SECTION, l, k, NULL, 0, !(cond)}
#define END {K_END, NULL, NULL, NULL, 0, 0}
#define STR(l, k, v) {K_STR, l, k, v, 0, 0}
/* A string written only when cond holds (f marks it omitted). */
#define STR_IF(l, k, v, cond) {K_STR, l, k, v, !(cond), 0}
#define FLT(l, k, v) {K_FLOAT, l, k, NULL, v, 0}
#define INT(l, k, v) {K_INT, l, k, NULL, 0, v}

static int indent(FILE *out, int n)
{
    for (int i = 0; i < n; i++)
        if (fputc(' ', out) == EOF)
            return -1;
    return 0;
}

/* A JSON string literal; NULL is null.  Energy reasons quote udev rules. */
static void put_json_str(FILE *out, const char *s)
{
    if (s)
        gt_json_put_string(out, s);
    else
        fputs("null", out);
}

/* Python's str(round(x, 3)) for text, repr(x) for JSON. */
static void put_float(FILE *out, double x, int text)
{
    char b[GT_PYFLOAT_BUFSZ];
    gt_pyfloat_repr(text ? gt_pyround(x, 3) : x, b, sizeof b);
    fputs(b, out);
}

static void write_text(FILE *out, const item *it, size_t n)
{
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        if (it[i].k == K_END) {
            depth--;
            continue;
        }
        if (i > 0) /* the Python package ends without a newline */
            fputc('\n', out);
        indent(out, 3 * depth);
        fprintf(out, "%s:", it[i].label);
        switch (it[i].k) {
        case K_SECTION: depth++; break;
        case K_STR:
            fputc(' ', out);
            gt_text_put(out, it[i].s ? it[i].s : "unavailable", GT_TEXT_CONTROLS, 0);
            break;
        case K_INT:
            if (it[i].i < 0 && it[i].s) /* s marks a count that may be unknown */
                fputs(" unavailable", out);
            else
                fprintf(out, " %ld", it[i].i);
            break;
        case K_FLOAT:
            if (it[i].f < 0 && it[i].s) { /* s marks a value that may be unavailable, or says what it is */
                fputc(' ', out);
                fputs(it[i].s[0] ? it[i].s : "unavailable", out);
            } else {
                fputc(' ', out);
                put_float(out, it[i].f, 1);
            }
            break;
        case K_FIGURE:
            fputc(' ', out);
            if (isnan(it[i].f))
                fputs("unavailable", out);
            else
                put_float(out, it[i].f, 1);
            break;
        case K_END: break;
        }
    }
}

static void write_json(FILE *out, const item *it, size_t n)
{
    int depth = 1, first = 1;
    fputc('{', out);
    for (size_t i = 0; i < n; i++) {
        if (it[i].k == K_END) {
            depth--;
            fputc('\n', out);
            indent(out, depth);
            fputc('}', out);
            first = 0;
            continue;
        }
        fputs(first ? "\n" : ",\n", out);
        indent(out, depth);
        fprintf(out, "\"%s\": ", it[i].key);
        first = 0;
        switch (it[i].k) {
        case K_SECTION:
            fputc('{', out);
            depth++;
            first = 1;
            break;
        case K_STR: put_json_str(out, it[i].s); break;
        case K_INT:
            if (it[i].i < 0 && it[i].s)
                fputs("null", out);
            else
                fprintf(out, "%ld", it[i].i);
            break;
        case K_FLOAT:
            if (it[i].f < 0 && it[i].s)
                fputs("null", out);
            else
                put_float(out, it[i].f, 0);
            break;
        case K_FIGURE:
            if (isnan(it[i].f))
                fputs("null", out);
            else
                put_float(out, it[i].f, 0);
            break;
        case K_END: break;
        }
    }
    fputs("\n}", out);
}

/* Copies the layout into dst without the omitted sections (their items and
 * nested sections included); returns the number of items kept. */
static size_t drop_omitted(item *dst, const item *src, size_t n)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (src[i].k == K_STR && src[i].f)
            continue;
        if (src[i].k == K_SECTION && src[i].i) {
            int depth = 1;
            while (depth > 0 && ++i < n)
                depth += src[i].k == K_SECTION ? 1 : src[i].k == K_END ? -1 : 0;
            continue;
        }
        dst[kept++] = src[i];
    }
    return kept;
}

/* What the Max RAM figures are (the Python package's section, whose layout
 * stays its own): the largest sums at one sample. */
#define GT_MAX_RAM_METHOD "sampled: the largest at one sample, a lower bound of the peak"

#define PERCENTS(label, key, p)                                                     \
    SECTION(label, key), FLT("Max sum percent", "max_sum_percent", (p).max_sum_percent), \
        FLT("Max hardware percent", "max_hardware_percent", (p).max_hardware_percent), \
        FLT("Mean sum percent", "mean_sum_percent", (p).mean_sum_percent),          \
        FLT("Mean hardware percent", "mean_hardware_percent", (p).mean_hardware_percent), END

/* A value that may be unavailable (< 0: "unavailable", JSON null). */
#define FLT_OPT(l, k, v) {K_FLOAT, l, k, "", v, 0}
/* A count that may be unknown (< 0: "unavailable", JSON null). */
#define INT_OPT(l, k, v) {K_INT, l, k, "", 0, v}

/* CPU percents are unavailable (< 0) when no interval was closed. */
#define CPU_PERCENTS(label, key, p)                                                   \
    SECTION(label, key), FLT_OPT("Max sum percent", "max_sum_percent", (p).max_sum_percent), \
        FLT_OPT("Max hardware percent", "max_hardware_percent", (p).max_hardware_percent), \
        FLT_OPT("Mean sum percent", "mean_sum_percent", (p).mean_sum_percent),          \
        FLT_OPT("Mean hardware percent", "mean_hardware_percent", (p).mean_hardware_percent), END

#define RSS(label, key, r)                                                          \
    SECTION(label, key), FLT_OPT("Total RSS", "total_rss", (r).total_rss),         \
        FLT_OPT("Private RSS", "private_rss", (r).private_rss),                    \
        FLT_OPT("Shared RSS", "shared_rss", (r).shared_rss), END

/* A RAPL DRAM domain: "dram", or a package's "package-N:dram". */
static int is_dram(const struct gt_energy_domain *d)
{
    size_t len = strlen(d->name);
    return !d->gpu && len >= 4 && strcmp(d->name + len - 4, "dram") == 0 &&
           (len == 4 || d->name[len - 5] == ':');
}

/* Per-domain items of energy domain i (at most 8 items); a DRAM domain has
 * its memory-share attribution beside the CPU-time one. */
static size_t energy_domain_items(const gt_usage *u, int i, item *it)
{
    const struct gt_energy_domain *d = &u->energy.domains[i];
    size_t n = 0;
    it[n++] = (item)SECTION(d->name, d->name);
    it[n++] = (item)STR("Source", "source", d->source);
    it[n++] = (item){K_FLOAT, "Energy", "energy", "", d->energy, 0};
    it[n++] = (item){K_FLOAT, "Mean power (watts)", "mean_power_watts", "", d->mean_power_watts, 0};
    it[n++] = (item){K_FLOAT, "Max power (watts)", "max_power_watts", "", d->max_power_watts, 0};
    it[n++] = (item){K_FLOAT, "Attributed energy (estimate)", "attributed_energy_estimate", "",
                     d->attributed_energy, 0};
    if (u->dram_memory_share.method && is_dram(d))
        it[n++] = (item){K_FLOAT, "Attributed energy by memory share (estimate)",
                         "attributed_energy_memory_share_estimate", "",
                         u->dram_memory_share.attributed_energy[i], 0};
    it[n++] = (item)END;
    return n;
}

#define ENERGY_MAX_ITEMS (13 + 8 * GT_ENERGY_MAX_DOMAINS)

/* Whether the CPU group has a DRAM domain to attribute by memory share. */
static int has_dram(const gt_usage *u)
{
    for (int i = 0; u->dram_memory_share.method && i < u->energy.n_domains && i < GT_ENERGY_MAX_DOMAINS; i++)
        if (is_dram(&u->energy.domains[i]))
            return 1;
    return 0;
}

/* One group of the Energy section: its domains (those whose gpu flag is
 * gpu), the reason some are unavailable (stated once), the attribution. */
static size_t energy_group(const gt_usage *u, gt_format fmt, int gpu, item *it)
{
    const char *why = gpu ? u->energy.gpu_unavailable : u->energy.cpu_unavailable;
    int n_dom = 0;
    for (int i = 0; i < u->energy.n_domains && i < GT_ENERGY_MAX_DOMAINS; i++)
        n_dom += u->energy.domains[i].gpu == gpu;
    if (!n_dom)
        return 0; /* nothing measured: left out (the tracker logs why once) */
    size_t n = 0;
    it[n++] = gpu ? (item)SECTION("GPU", "gpu") : (item)SECTION("CPU (RAPL)", "cpu");
    if (why[0] || fmt == GT_FORMAT_JSON) /* JSON keeps the key: null when all is read */
        it[n++] = (item)STR("Unavailable", "unavailable", why[0] ? why : NULL);
    if (n_dom > 0) {
        it[n++] = (item)STR("Attribution method", "attribution_method",
                            gpu ? u->energy.gpu_attribution_method
                                : u->energy.cpu_attribution_method);
        if (!gpu && has_dram(u))
            it[n++] = (item)STR("DRAM attribution method", "dram_attribution_method",
                                u->dram_memory_share.method);
        it[n++] = gpu ? (item)SECTION("Devices", "devices") : (item)SECTION("Domains", "domains");
        for (int i = 0; i < u->energy.n_domains && i < GT_ENERGY_MAX_DOMAINS; i++)
            if (u->energy.domains[i].gpu == gpu)
                n += energy_domain_items(u, i, it + n);
        it[n++] = (item)END;
    }
    it[n++] = (item)END;
    return n;
}

/* gpu-tracker's Energy section; none when no energy was measured, so a
 * machine without RAPL or GPUs prints the Python package's report. */
static size_t energy_items(const gt_usage *u, gt_format fmt, item *it)
{
    if (!u->energy.unit)
        return 0;
    size_t n = 0;
    it[n++] = (item)SECTION("Energy", "energy");
    it[n++] = (item)STR("Unit", "unit", u->energy.unit);
    size_t groups = energy_group(u, fmt, 0, it + n);
    groups += energy_group(u, fmt, 1, it + n + groups);
    if (!groups)
        return 0;
    n += groups;
    it[n++] = (item)END;
    return n;
}

/* The Other metrics section: at most a section per own column's row (each
 * row has one), with its unit and a figure per column. */
#define OWN_MAX_ITEMS (2 + 4 * GT_METRIC_NOWN_COLUMNS)
#define OWN_LABEL_MAX 64

/* gpu-tracker's own rows of the metric table, as the run's aggregate
 * folded them (metric/fold.c): a section per row with a report label,
 * keyed by its id, its unit, and each column's figure keyed by the
 * column's label (its name where it has none; capitalised in the text).  A
 * row none of whose figures was read is left out, and the section where
 * none is left: a run whose counters could not be read at all, or a usage
 * without a run (gt_usage_write), prints the report it printed before. */
static size_t own_items(const gt_metric_run *run, char labels[GT_METRIC_NOWN_COLUMNS][OWN_LABEL_MAX], item *it)
{
    if (!run || !run->n_samples)
        return 0;
    size_t n = 0;
    it[n++] = (item)SECTION("Other metrics", "other_metrics");
    const gt_metric *row = NULL, *m;
    const gt_metric_column *c;
    for (int k = 0; (c = gt_metric_own_column(k, &m)) != NULL; k++) {
        if (!m->label)
            continue;
        if (m != row) {
            int read = 0;
            const gt_metric *mk;
            for (int j = k; gt_metric_own_column(j, &mk) && mk == m; j++)
                read |= !isnan(run->value[j]);
            if (!read)
                continue;
            if (row)
                it[n++] = (item)END;
            row = m;
            it[n++] = (item)SECTION(m->label, m->id);
            it[n++] = (item)STR("Unit", "unit", gt_metric_unit_name(m, run));
        }
        const char *key = c->label ? c->label : c->name;
        snprintf(labels[k], OWN_LABEL_MAX, "%s", key);
        labels[k][0] = (char)toupper((unsigned char)labels[k][0]);
        it[n++] = (item){K_FIGURE, labels[k], key, NULL, run->value[k], 0};
    }
    if (!row)
        return 0;
    it[n++] = (item)END;
    it[n++] = (item)END;
    return n;
}

/* Items of one ranked process (6). */
static size_t top_process_items(const struct gt_top_process *p, const char *rank, item *it)
{
    size_t n = 0;
    it[n++] = (item)SECTION(rank, rank);
    it[n++] = (item)INT("PID", "pid", (long)p->pid);
    it[n++] = (item)STR("Command", "command", p->command);
    it[n++] = (item)FLT_OPT("Peak RSS", "peak_rss", p->peak_rss);
    it[n++] = (item)FLT("CPU seconds", "cpu_seconds", p->cpu_seconds);
    it[n++] = (item)END;
    return n;
}

#define TOP_MAX_ITEMS (7 + 2 * 6 * GT_TOP_PROCESSES)

/* gpu-tracker's own, last: the top processes (--per-process), each list
 * keyed by rank ("1" the largest). */
static size_t top_items(const gt_usage *u, item *it)
{
    static const char *const ranks[GT_TOP_PROCESSES] = {"1", "2", "3", "4", "5"};
    if (!u->top_processes.available)
        return 0;
    int k = u->top_processes.n < GT_TOP_PROCESSES ? u->top_processes.n : GT_TOP_PROCESSES;
    size_t n = 0;
    it[n++] = (item)SECTION("Top processes", "top_processes");
    it[n++] = (item)STR("Unit", "unit", u->max_ram.unit);
    /* The peaks are the kernel's at every exit where the descendants' peak
     * is (taskstats), else the largest the samples read. */
    const char *dm = u->peak_ram_method.largest_descendant;
    it[n++] = (item)STR("Peak RSS method", "peak_rss_method",
                        dm && strncmp(dm, "exact", 5) == 0 ? "kernel high-water mark" : "lower bound (sampled)");
    it[n++] = (item)SECTION("By peak RAM", "by_peak_ram");
    for (int i = 0; i < k; i++)
        n += top_process_items(&u->top_processes.by_peak_ram[i], ranks[i], it + n);
    it[n++] = (item)END;
    it[n++] = (item)SECTION("By CPU seconds", "by_cpu_seconds");
    for (int i = 0; i < k; i++)
        n += top_process_items(&u->top_processes.by_cpu_seconds[i], ranks[i], it + n);
    it[n++] = (item)END;
    it[n++] = (item)END;
    return n;
}

#define EFF_DEVICE_ITEMS 11
#define EFF_MAX_ITEMS (56 + 2 + EFF_DEVICE_ITEMS * GT_EFF_MAX_GPUS)
#define EFF_NBARS (5 + 2 * GT_EFF_MAX_GPUS)

/* Appends the items of src to dst at *n. */
static void append(item *dst, size_t *n, const item *src, size_t count)
{
    memcpy(dst + *n, src, count * sizeof *src);
    *n += count;
}
#define APPEND(dst, n, ...)                                                              \
    do {                                                                                 \
        const item piece_[] = {__VA_ARGS__};                                             \
        append(dst, n, piece_, sizeof piece_ / sizeof *piece_);                          \
    } while (0)

/* gpu-tracker's Efficiency section (--efficiency), after every other: the
 * request, each figure against it, a bar per figure (text only), each
 * GPU's own figures keyed by its index, and the advice (text: only the
 * lines given; JSON: every key, null where none). */
static size_t efficiency_items(const gt_efficiency *e, gt_format fmt, char bars[EFF_NBARS][96], item *it)
{
    const gt_request *r = &e->req;
    const gt_eff_usage *u = &e->use;
    int text = fmt == GT_FORMAT_TEXT;
    const double percents[5] = {e->cpu_percent, e->mem_percent, e->gpu_percent, e->gpu_mem_percent,
                                e->cgroup_mem_percent};
    for (int i = 0; i < 5; i++)
        gt_eff_bar(percents[i], bars[i], sizeof bars[i]);
    const char *advice[4] = {e->advice_mem, e->advice_cores, e->advice_gpus, e->advice_time};
    item all[EFF_MAX_ITEMS];
    size_t n = 0;
    APPEND(all, &n, SECTION("Efficiency", "efficiency"),
           SECTION("Request", "request"),
           FLT_OPT("Memory bytes", "memory_bytes", r->mem_bytes),
           STR("Memory source", "memory_source", r->mem_source),
           FLT_OPT("Cores", "cores", r->cores),
           STR("Cores source", "cores_source", r->cores_source),
           INT_OPT("CPUs per task", "cpus_per_task", r->cpus_per_task),
           INT_OPT("GPUs", "gpus", r->gpus),
           STR("GPUs source", "gpus_source", r->gpus_source),
           INT_OPT("Nodes", "nodes", r->nodes),
           FLT_OPT("Time limit seconds", "time_limit_seconds", r->time_limit_s),
           STR("Time limit source", "time_limit_source", r->time_source),
           END,
           SECTION("CPU", "cpu"),
           FLT_OPT("CPU seconds", "cpu_seconds", u->cpu_s),
           STR("CPU seconds method", "cpu_seconds_method", u->cpu_method),
           FLT_OPT("Wall seconds", "wall_seconds", u->wall_s),
           FLT_OPT("Efficiency percent", "efficiency_percent", e->cpu_percent),
           STR_IF("Bar", "bar", bars[0], text && e->cpu_percent >= 0),
           END,
           SECTION("Memory", "memory"),
           FLT_OPT("Peak bytes", "peak_bytes", u->mem_peak_bytes),
           STR("Peak method", "peak_method", u->mem_method),
           FLT_OPT("Percent of request", "percent_of_request", e->mem_percent),
           STR_IF("Bar", "bar", bars[1], text && e->mem_percent >= 0),
           STR("Advised request", "advised_request", e->advised_mem[0] ? e->advised_mem : NULL),
           SECTION_IF("Cgroup", "cgroup", u->cgroup_mem_peak_bytes >= 0),
           FLT("Peak bytes", "peak_bytes", u->cgroup_mem_peak_bytes),
           STR("Peak method", "peak_method", u->cgroup_mem_method),
           FLT_OPT("Percent of request", "percent_of_request", e->cgroup_mem_percent),
           STR_IF("Bar", "bar", bars[4], text && e->cgroup_mem_percent >= 0),
           END,
           END,
           SECTION_IF("GPU", "gpu", u->n_gpus > 0),
           INT("GPUs tracked", "n_gpus", u->n_gpus),
           FLT_OPT("Mean utilization percent", "mean_utilization_percent", e->gpu_percent),
           STR_IF("Utilization bar", "utilization_bar", bars[2], text && e->gpu_percent >= 0),
           FLT_OPT("Memory peak bytes", "memory_peak_bytes", u->gpu_mem_peak_bytes),
           FLT_OPT("Memory capacity bytes", "memory_capacity_bytes", u->gpu_mem_capacity_bytes),
           FLT_OPT("Memory percent of capacity", "memory_percent_of_capacity", e->gpu_mem_percent),
           STR_IF("Memory bar", "memory_bar", bars[3], text && e->gpu_mem_percent >= 0),
           SECTION_IF("Devices", "devices", u->n_devices > 0));
    for (int i = 0; i < u->n_devices && i < GT_EFF_MAX_GPUS; i++) {
        const gt_eff_gpu *d = &u->devices[i];
        char *ubar = bars[5 + 2 * i], *mbar = bars[6 + 2 * i];
        gt_eff_bar(d->mean_percent, ubar, 96);
        gt_eff_bar(e->device_mem_percent[i], mbar, 96);
        APPEND(all, &n, SECTION(e->device_key[i], e->device_key[i]),
               STR("UUID", "uuid", d->uuid),
               FLT_OPT("Mean utilization percent", "mean_utilization_percent", d->mean_percent),
               STR_IF("Utilization bar", "utilization_bar", ubar, text && d->mean_percent >= 0),
               FLT_OPT("Memory peak bytes", "memory_peak_bytes", d->mem_peak_bytes),
               FLT_OPT("Memory capacity bytes", "memory_capacity_bytes", d->mem_capacity_bytes),
               FLT_OPT("Memory percent of capacity", "memory_percent_of_capacity", e->device_mem_percent[i]),
               STR_IF("Memory bar", "memory_bar", mbar, text && e->device_mem_percent[i] >= 0),
               END);
    }
    APPEND(all, &n, END, /* Devices */
           END,          /* GPU */
           SECTION("Advice", "advice"),
           STR_IF("Memory", "memory", advice[0][0] ? advice[0] : NULL, !text || advice[0][0]),
           STR_IF("Cores", "cores", advice[1][0] ? advice[1] : NULL, !text || advice[1][0]),
           STR_IF("GPUs", "gpus", advice[2][0] ? advice[2] : NULL, !text || advice[2][0]),
           STR_IF("Time", "time", advice[3][0] ? advice[3] : NULL, !text || advice[3][0]),
           END,
           END);
    return drop_omitted(it, all, n);
}

static gt_status write_usage(const gt_usage *u, const gt_metric_run *own, const gt_efficiency *eff, gt_format fmt,
                             FILE *out)
{
    const item layout[] = {
        SECTION("Max RAM", "max_ram"),
        STR("Unit", "unit", u->max_ram.unit),
        FLT("System capacity", "system_capacity", u->max_ram.system_capacity),
        FLT("System", "system", u->max_ram.system),
        RSS("Main", "main", u->max_ram.main),
        RSS("Descendants", "descendants", u->max_ram.descendants),
        RSS("Combined", "combined", u->max_ram.combined),
        STR_IF("Unavailable", "unavailable", u->ram_unavailable, u->ram_unavailable[0]),
        END,
        SECTION("Max GPU RAM", "max_gpu_ram"),
        STR("Unit", "unit", u->max_gpu_ram.unit),
        FLT("System capacity", "system_capacity", u->max_gpu_ram.system_capacity),
        FLT("System", "system", u->max_gpu_ram.system),
        FLT("Main", "main", u->max_gpu_ram.main),
        FLT("Descendants", "descendants", u->max_gpu_ram.descendants),
        FLT("Combined", "combined", u->max_gpu_ram.combined),
        END,
        SECTION("CPU utilization", "cpu_utilization"),
        INT("System core count", "system_core_count", u->cpu_utilization.system_core_count),
        INT("Number of expected cores", "n_expected_cores", u->cpu_utilization.n_expected_cores),
        CPU_PERCENTS("System", "system", u->cpu_utilization.system),
        CPU_PERCENTS("Main", "main", u->cpu_utilization.main),
        CPU_PERCENTS("Descendants", "descendants", u->cpu_utilization.descendants),
        CPU_PERCENTS("Combined", "combined", u->cpu_utilization.combined),
        INT("Main number of threads", "main_n_threads", u->cpu_utilization.main_n_threads),
        INT("Descendants number of threads", "descendants_n_threads",
            u->cpu_utilization.descendants_n_threads),
        INT("Combined number of threads", "combined_n_threads", u->cpu_utilization.combined_n_threads),
        END,
        SECTION("GPU utilization", "gpu_utilization"),
        INT("System GPU count", "system_gpu_count", u->gpu_utilization.system_gpu_count),
        INT("Number of expected GPUs", "n_expected_gpus", u->gpu_utilization.n_expected_gpus),
        PERCENTS("GPU percentages", "gpu_percentages", u->gpu_utilization.gpu_percentages),
        END,
        SECTION("Compute time", "compute_time"),
        STR("Unit", "unit", u->compute_time.unit),
        FLT("Time", "time", u->compute_time.time),
        END,
        /* gpu-tracker's own: kernel high-water marks.  Omitted when neither
         * is known, so output then equals the Python package's. */
        SECTION_IF("Peak RAM (kernel high-water mark)", "peak_ram",
                   u->peak_ram.main >= 0 || u->peak_ram.largest_descendant >= 0),
        STR("Unit", "unit", u->peak_ram.unit),
        FLT_OPT("Main", "main", u->peak_ram.main),
        FLT_OPT("Largest descendant", "largest_descendant", u->peak_ram.largest_descendant),
        STR("Main method", "main_method", u->peak_ram_method.main),
        STR("Largest descendant method", "largest_descendant_method",
            u->peak_ram_method.largest_descendant),
        /* The Python package's Max RAM section keeps its layout, so what
         * its figures are is said here, beside the peaks they are not;
         * a usage with the Max RAM method section (version 3 on) says it
         * there, per total, as the event backend may make them exact. */
        STR_IF("Max RAM method", "max_ram_method", GT_MAX_RAM_METHOD, !u->max_ram_method.combined),
        END,
        /* gpu-tracker's own: how max_ram's total RSS figures were obtained
         * (a usage of version 3 or later). */
        SECTION_IF("Max RAM method", "max_ram_method", u->max_ram_method.combined != NULL),
        STR("Main", "main", u->max_ram_method.main),
        STR("Descendants", "descendants", u->max_ram_method.descendants),
        STR("Combined", "combined", u->max_ram_method.combined),
        FLT("Main peak time", "main_peak_time", u->max_ram_method.main_peak_time),
        FLT("Descendants peak time", "descendants_peak_time", u->max_ram_method.descendants_peak_time),
        FLT("Combined peak time", "combined_peak_time", u->max_ram_method.combined_peak_time),
        FLT("Bound per process", "bound_per_process", u->max_ram_method.bound_per_process),
        INT("Processes", "processes", (long)u->max_ram_method.processes),
        STR_IF("Reason", "reason", u->max_ram_method.reason, u->max_ram_method.reason[0]),
        END,
        /* gpu-tracker's own: the counters of the command's own cgroup,
         * where it has one. */
        SECTION_IF("Cgroup", "cgroup", u->cgroup.available),
        STR("Path", "path", u->cgroup.path[0] ? u->cgroup.path : NULL),
        STR_IF("CPU path", "cpu_path", u->cgroup.cpu_path[0] ? u->cgroup.cpu_path : NULL,
               fmt == GT_FORMAT_JSON || strcmp(u->cgroup.cpu_path, u->cgroup.path) != 0),
        INT("Version", "version", u->cgroup.version),
        STR("Unit", "unit", u->max_ram.unit),
        FLT_OPT("Memory peak", "memory_peak", u->cgroup.memory_peak),
        FLT_OPT("Memory current", "memory_current", u->cgroup.memory_current),
        /* JSON null for both: unavailable names the limit where unread */
        {K_FLOAT, "Memory limit", "memory_limit", u->cgroup.limit_none ? "none" : "", u->cgroup.memory_limit, 0},
        FLT_OPT("Memory headroom", "memory_headroom", u->cgroup.memory_headroom),
        INT_OPT("CPU time (ns)", "cpu_ns", (long)u->cgroup.cpu_ns),
        FLT_OPT("CPU seconds", "cpu_seconds", u->cgroup.cpu_seconds),
        STR("Memory method", "memory_method", u->cgroup.memory_method),
        STR_IF("Unavailable", "unavailable", u->cgroup.unavailable[0] ? u->cgroup.unavailable : NULL,
               fmt == GT_FORMAT_JSON || u->cgroup.unavailable[0]),
        END,
        /* gpu-tracker's own GPU figures, where the vendor library has them. */
        SECTION_IF("GPU process utilization (SM)", "gpu_process_utilization",
                   u->gpu_process_utilization.available),
        PERCENTS("Main", "main", u->gpu_process_utilization.main),
        PERCENTS("Descendants", "descendants", u->gpu_process_utilization.descendants),
        PERCENTS("Combined", "combined", u->gpu_process_utilization.combined),
        END,
        SECTION_IF("GPU power", "gpu_power", u->gpu_power.available),
        STR("Unit", "unit", u->gpu_power.unit),
        FLT("Max", "max", u->gpu_power.max),
        FLT("Mean", "mean", u->gpu_power.mean),
        END,
    };
    item shown[sizeof layout / sizeof *layout + ENERGY_MAX_ITEMS + OWN_MAX_ITEMS + TOP_MAX_ITEMS + EFF_MAX_ITEMS];
    char bars[EFF_NBARS][96];
    char own_labels[GT_METRIC_NOWN_COLUMNS][OWN_LABEL_MAX];
    size_t n = drop_omitted(shown, layout, sizeof layout / sizeof *layout);
    n += energy_items(u, fmt, shown + n);
    n += own_items(own, own_labels, shown + n);
    n += top_items(u, shown + n);
    if (eff)
        n += efficiency_items(eff, fmt, bars, shown + n);
    errno = 0;
    if (fmt == GT_FORMAT_JSON)
        write_json(out, shown, n);
    else
        write_text(out, shown, n);
    return ferror(out) ? GT_ERR_IO : GT_OK;
}

/* The program's usage, of its version, read into the library's layout:
 * fields it lacks are zero, which reads as "not measured". */
gt_status gt_usage_write(const gt_usage *u, gt_format fmt, FILE *out)
{
    return gt_report_write(u, NULL, NULL, fmt, out);
}

gt_status gt_report_write(const gt_usage *u, const gt_metric_run *own, const gt_efficiency *e, gt_format fmt,
                          FILE *out)
{
    if (!u || !out || (fmt != GT_FORMAT_TEXT && fmt != GT_FORMAT_JSON))
        return GT_ERR_INVALID;
    if (gt_abi_check(GT_ABI_USAGE, u->version, NULL) != GT_OK)
        return GT_ERR_INVALID;
    gt_usage full;
    memset(&full, 0, sizeof full);
    gt_abi_read(GT_ABI_USAGE, u, &full);
    return write_usage(&full, own, e, fmt, out);
}
