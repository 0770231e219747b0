/* SPDX-License-Identifier: MIT */
/* gt_merge_write: the job report as text for people or JSON for scripts
 * (cJSON does the escaping of file names; unavailable figures are null):
 * the job, its nodes, and the files of each node.  Names from the files
 * (hosts, tasks) and the file names are shown by the rule of util/text.h:
 * valid UTF-8 in JSON, and no control character in the text. */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/merge.h"
#include "metric/fold.h"
#include "util/text.h"

static const char *const series_keys[GT_MERGE_NSERIES] = {"ram", "gpu_ram", "cpu_percent", "gpu_percent"};

static void put(FILE *out, const char *label, double v, const char *unit)
{
    if (isnan(v))
        fprintf(out, "      %-34s n/a\n", label);
    else
        fprintf(out, "      %-34s %.3f %s\n", label, v, unit);
}

static void cell(FILE *out, double v)
{
    if (isnan(v))
        fprintf(out, " %12s", "n/a");
    else
        fprintf(out, " %12.3f", v);
}

/* Right-aligned in width characters, as printf's "%*s" does for ASCII. */
static void put_right(FILE *out, const char *s, int width)
{
    for (int pad = width - (int)gt_text_width(s, GT_TEXT_CONTROLS); pad > 0; pad--)
        fputc(' ', out);
    gt_text_put(out, s, GT_TEXT_CONTROLS, 0);
}

static void file_row(FILE *out, const gt_merge_part *p)
{
    fputs("        ", out);
    gt_text_put(out, p->name, GT_TEXT_CONTROLS, 22);
    fputc(' ', out);
    put_right(out, p->task ? p->task : "-", 6);
    fprintf(out, " %12zu", p->samples);
    cell(out, p->stop - p->start);
    cell(out, p->max[GT_MERGE_RAM]);
    cell(out, p->max[GT_MERGE_GPU_RAM]);
    cell(out, p->mean_cpu_percent);
    cell(out, p->max[GT_MERGE_CPU]);
    cell(out, p->cpu_seconds);
    cell(out, p->energy_joules);
    fputc('\n', out);
}

/* The metric table's own rows in the report, as the run's report gives
 * them (Other metrics, other_metrics): each row with a report label that
 * the job or a node has a figure of, its columns labelled by the table. */

/* Row: the first own column of the next row to show at or after *k, and
 * its row; NULL after the last.  *end: the column after the row's last. */
static const gt_metric *own_row(const gt_merge *m, int *k, int *end)
{
    const gt_metric *row, *next;
    for (; gt_metric_own_column(*k, &row); *k = *end) {
        int read = 0;
        for (*end = *k; gt_metric_own_column(*end, &next) && next == row; (*end)++) {
            read |= !isnan(m->own[*end]);
            for (size_t n = 0; n < m->nnodes; n++)
                read |= !isnan(m->nodes[n].own[*end]);
        }
        if (row->label && read)
            return row;
    }
    return NULL;
}

/* The unit's name of row in the report's units. */
static const char *own_unit(const gt_merge *m, const gt_metric *row)
{
    gt_metric_run run = {.ram_unit = m->ram_unit, .gpu_ram_unit = m->gpu_ram_unit};
    return gt_metric_unit_name(row, &run);
}

/* A column's key: its label, else its name. */
static const char *own_key(const gt_metric_column *c)
{
    return c->label ? c->label : c->name;
}

static void own_cell(FILE *out, double v)
{
    if (isnan(v))
        fprintf(out, " %16s", "n/a");
    else
        fprintf(out, " %16.3f", v);
}

/* Other metrics: a table per row, the job's figures then each node's. */
static void own_text(const gt_merge *m, FILE *out)
{
    int k = 0, end;
    const gt_metric *row = own_row(m, &k, &end);
    if (!row)
        return;
    fprintf(out, "Other metrics (a node: the sum over its files, a rate the mean over its span of that sum; the job: "
                 "the same over its nodes)\n");
    for (; row; k = end, row = own_row(m, &k, &end)) {
        fprintf(out, "   %s (%s)\n      %-24s", row->label, own_unit(m, row), "name");
        for (int c = k; c < end; c++) {
            char head[64];
            snprintf(head, sizeof head, "%s", own_key(gt_metric_own_column(c, NULL)));
            head[0] = (char)toupper((unsigned char)head[0]);
            fprintf(out, " %16s", head);
        }
        fprintf(out, "\n      %-24s", "job");
        for (int c = k; c < end; c++)
            own_cell(out, m->own[c]);
        fputc('\n', out);
        for (size_t n = 0; n < m->nnodes; n++) {
            fputs("      ", out);
            gt_text_put(out, m->nodes[n].name, GT_TEXT_CONTROLS, 24);
            for (int c = k; c < end; c++)
                own_cell(out, m->nodes[n].own[c]);
            fputc('\n', out);
        }
    }
}

/* "1.0 GiB" / "61.2 MiB", Slurm's units, as the advice writes them. */
static void put_bytes(FILE *out, double b)
{
    if (b >= 1073741824.0)
        fprintf(out, "%.1f GiB", b / 1073741824.0);
    else
        fprintf(out, "%.1f MiB", b / 1048576.0);
}

/* Node k's GPUs, each with its figures (e: the node's efficiency), or why
 * it has none. */
static void gpus_text(const gt_merge *m, size_t k, const gt_efficiency *e, FILE *out)
{
    char bar[96], note[256];
    const gt_merge_node *nd = &m->nodes[k];
    if (nd->ngpus)
        fprintf(out, "      GPUs: %zu (from the per-GPU rows of %zu file%s; mean utilization: %s)\n", nd->ngpus,
                nd->files_with_gpu_table, nd->files_with_gpu_table == 1 ? "" : "s", GT_MERGE_GPU_MEAN_METHOD);
    for (int i = 0; i < e->use.n_devices; i++) {
        const gt_eff_gpu *d = &e->use.devices[i];
        fprintf(out, "      GPU %d", d->index);
        if (*d->uuid) {
            fputs(" (", out);
            gt_text_put(out, d->uuid, GT_TEXT_CONTROLS, 0);
            fputc(')', out);
        }
        fputs(": utilization ", out);
        if (d->mean_percent >= 0) {
            gt_eff_bar(d->mean_percent, bar, sizeof bar);
            fprintf(out, "%s %.3f %%", bar, d->mean_percent);
        } else {
            fputs("unknown", out);
        }
        fputs(", memory peak ", out);
        if (d->mem_peak_bytes >= 0)
            put_bytes(out, d->mem_peak_bytes);
        else
            fputs("unknown", out);
        if (e->device_mem_percent[i] >= 0) {
            gt_eff_bar(e->device_mem_percent[i], bar, sizeof bar);
            fputs(" of ", out);
            put_bytes(out, d->mem_capacity_bytes);
            fprintf(out, " %s %.3f %%\n", bar, e->device_mem_percent[i]);
        } else {
            fputs(", capacity unknown\n", out);
        }
    }
    if (nd->ngpus > (size_t)e->use.n_devices)
        fprintf(out, "      (%zu more GPUs not shown)\n", nd->ngpus - (size_t)e->use.n_devices);
    if (gt_merge_node_gpu_note(m, k, note, sizeof note))
        fprintf(out, "      GPU figures: %s\n", note);
}

/* The Efficiency section, last: each node against the request its files
 * record, then the job's CPU efficiency. */
static void efficiency_text(const gt_merge *m, FILE *out)
{
    char bar[96];
    fprintf(out, "Efficiency (each node against the request its files record; its figures are sampled: lower "
                 "bounds)\n");
    for (size_t k = 0; k < m->nnodes; k++) {
        gt_efficiency e;
        gt_merge_node_efficiency(m, k, &e);
        fprintf(out, "   %s: ", m->nodes[k].name);
        if (e.req.mem_bytes >= 0) {
            put_bytes(out, e.req.mem_bytes);
            fprintf(out, " (%s)", e.req.mem_source);
        } else {
            fputs("memory unknown", out);
        }
        if (e.req.cores >= 0)
            fprintf(out, ", %g cores (%s)\n", e.req.cores, e.req.cores_source);
        else
            fputs(", cores unknown\n", out);
        if (e.cpu_percent >= 0) {
            gt_eff_bar(e.cpu_percent, bar, sizeof bar);
            fprintf(out, "      CPU efficiency: %s %.3f CPU seconds over %g cores for %.3f s (%s)\n", bar, e.use.cpu_s,
                    e.req.cores, e.use.wall_s, e.use.cpu_method);
        }
        if (e.mem_percent >= 0) {
            gt_eff_bar(e.mem_percent, bar, sizeof bar);
            fprintf(out, "      Memory: %s peak ", bar);
            put_bytes(out, e.use.mem_peak_bytes);
            fprintf(out, " (%s); advised %s\n", e.use.mem_method, e.advised_mem);
        }
        gpus_text(m, k, &e, out);
        const char *advice[][2] = {{"memory", e.advice_mem},
                                   {"cores", e.advice_cores},
                                   {"gpus", e.advice_gpus},
                                   {"time", e.advice_time}};
        for (size_t i = 0; i < sizeof advice / sizeof *advice; i++)
            if (advice[i][1][0])
                fprintf(out, "      Advice (%s): %s\n", advice[i][0], advice[i][1]);
    }
    double job = gt_merge_cpu_efficiency(m);
    if (job >= 0) {
        gt_eff_bar(job, bar, sizeof bar);
        fprintf(out, "   Job CPU efficiency: %s\n", bar);
    }
}

static gt_status write_text(const gt_merge *m, FILE *out)
{
    const char *ru = gt_ram_unit_name(m->ram_unit), *gu = gt_ram_unit_name(m->gpu_ram_unit);
    fprintf(out, "Job (%zu tracking files on %zu nodes, aligned on %g-second steps)\n", m->nparts, m->nnodes,
            m->align);
    put(out, "Compute time:", m->stop - m->start, "seconds");
    put(out, "Peak RAM (sum across files):", m->peak[GT_MERGE_RAM], ru);
    put(out, "Peak GPU RAM (sum across files):", m->peak[GT_MERGE_GPU_RAM], gu);
    put(out, "Peak CPU (sum across files):", m->peak[GT_MERGE_CPU], "percent");
    put(out, "Peak GPU (sum across files):", m->peak[GT_MERGE_GPU], "percent");
    put(out, "CPU time:", m->cpu_seconds, "seconds");
    put(out, "Energy:", m->energy_joules, "joules");
    if (!isnan(m->parts[m->largest].max[GT_MERGE_RAM])) {
        fprintf(out, "      %-34s ", "Largest by RAM:");
        gt_text_put(out, m->parts[m->largest].name, GT_TEXT_CONTROLS, 0);
        fprintf(out, " (%.3f %s)\n", m->parts[m->largest].max[GT_MERGE_RAM], ru);
    }
    if (m->without_node)
        fprintf(out, "      %zu of the files record no host (not made under Slurm or with GT_SUBTRACK_HOST): "
                     "each counts as a node of its own\n",
                m->without_node);
    fprintf(out, "Nodes (sums across each node's files; RAM in %s, GPU RAM in %s)\n", ru, gu);
    fprintf(out, "      %-24s %12s %12s %12s %12s %12s %12s %12s %12s %12s\n", "name", "files", "samples", "time s",
            "peak RAM", "peak GPU RAM", "peak CPU %", "peak GPU %", "CPU s", "energy J");
    for (size_t k = 0; k < m->nnodes; k++) {
        const gt_merge_node *nd = &m->nodes[k];
        fputs("      ", out);
        gt_text_put(out, nd->name, GT_TEXT_CONTROLS, 24);
        fprintf(out, " %12zu %12zu", nd->nparts, nd->samples);
        cell(out, nd->stop - nd->start);
        for (int s = 0; s < GT_MERGE_NSERIES; s++)
            cell(out, nd->peak[s]);
        cell(out, nd->cpu_seconds);
        cell(out, nd->energy_joules);
        fputc('\n', out);
    }
    fprintf(out, "Files by node (RAM in %s, GPU RAM in %s)\n", ru, gu);
    fprintf(out, "        %-22s %6s %12s %12s %12s %12s %12s %12s %12s %12s\n", "name", "task", "samples", "time s",
            "peak RAM", "peak GPU RAM", "mean CPU %", "peak CPU %", "CPU s", "energy J");
    for (size_t k = 0; k < m->nnodes; k++) {
        if (!m->nodes[k].own_file) {
            fputs("      ", out);
            gt_text_put(out, m->nodes[k].name, GT_TEXT_CONTROLS, 0);
            fputc('\n', out);
        } else if (k == 0 || !m->nodes[k - 1].own_file)
            fprintf(out, "      (no host recorded)\n");
        for (size_t i = 0; i < m->nparts; i++)
            if (m->parts[i].node == k)
                file_row(out, &m->parts[i]);
    }
    own_text(m, out);
    if (m->with_request)
        efficiency_text(m, out);
    return ferror(out) ? GT_ERR_IO : GT_OK;
}

/* Adds a string as valid UTF-8 (cJSON copies bytes as they are); NULL when
 * out of memory. */
static cJSON *str(cJSON *o, const char *key, const char *s)
{
    char *e = gt_text_escape_dup(s, 0);
    cJSON *item = e ? cJSON_AddStringToObject(o, key, e) : NULL;
    free(e);
    return item;
}

/* A string item as str() adds it; NULL when out of memory. */
static cJSON *str_item(const char *s)
{
    char *e = gt_text_escape_dup(s, 0);
    cJSON *item = e ? cJSON_CreateString(e) : NULL;
    free(e);
    return item;
}

/* Adds a number, or null when unavailable; NULL when out of memory. */
static cJSON *num(cJSON *o, const char *key, double v)
{
    return isnan(v) ? cJSON_AddNullToObject(o, key) : cJSON_AddNumberToObject(o, key, v);
}

/* "other_metrics" of the job or a node (own: its figures), keyed as the
 * run's report keys it: each row by its id, with its unit and a figure per
 * column keyed by the column's label, null where unknown; nothing where no
 * row is shown.  0 when out of memory. */
static int own_json(const gt_merge *m, const double *own, cJSON *o)
{
    int k = 0, end;
    const gt_metric *row = own_row(m, &k, &end);
    cJSON *sec;
    if (!row)
        return 1;
    if (!(sec = cJSON_AddObjectToObject(o, "other_metrics")))
        return 0;
    for (; row; k = end, row = own_row(m, &k, &end)) {
        cJSON *r = cJSON_AddObjectToObject(sec, row->id);
        if (!r || !cJSON_AddStringToObject(r, "unit", own_unit(m, row)))
            return 0;
        for (int c = k; c < end; c++)
            if (!num(r, own_key(gt_metric_own_column(c, NULL)), own[c]))
                return 0;
    }
    return 1;
}

/* "nodes": one object per node, with its files' names; NULL when out of
 * memory. */
static cJSON *nodes_json(const gt_merge *m, cJSON *root)
{
    cJSON *nodes = cJSON_AddArrayToObject(root, "nodes");
    for (size_t k = 0; nodes && k < m->nnodes; k++) {
        const gt_merge_node *nd = &m->nodes[k];
        cJSON *o = cJSON_CreateObject(), *files, *peak, *at;
        if (!o || !cJSON_AddItemToArray(nodes, o)) {
            cJSON_Delete(o);
            return NULL;
        }
        if (!(nd->own_file ? cJSON_AddNullToObject(o, "host") : str(o, "host", nd->name)) ||
            !str(o, "name", nd->name) || !(files = cJSON_AddArrayToObject(o, "files")) ||
            !num(o, "samples", (double)nd->samples) || !num(o, "start", nd->start) || !num(o, "stop", nd->stop) ||
            !num(o, "compute_time_seconds", nd->stop - nd->start) || !num(o, "cpu_seconds", nd->cpu_seconds) ||
            !num(o, "energy_joules", nd->energy_joules) || !(peak = cJSON_AddObjectToObject(o, "peak")) ||
            !(at = cJSON_AddObjectToObject(o, "peak_time")))
            return NULL;
        for (int s = 0; s < GT_MERGE_NSERIES; s++)
            if (!num(peak, series_keys[s], nd->peak[s]) || !num(at, series_keys[s], nd->peak_time[s]))
                return NULL;
        if (!own_json(m, nd->own, o))
            return NULL;
        for (size_t i = 0; i < m->nparts; i++) {
            cJSON *name;
            if (m->parts[i].node == k &&
                (!(name = str_item(m->parts[i].name)) || !cJSON_AddItemToArray(files, name))) {
                cJSON_Delete(name);
                return NULL;
            }
        }
    }
    return nodes;
}

/* A string as str() adds it, or null for NULL or ""; NULL when out of
 * memory. */
static cJSON *str_or_null(cJSON *o, const char *key, const char *v)
{
    return v && *v ? str(o, key, v) : cJSON_AddNullToObject(o, key);
}

static cJSON *opt(cJSON *o, const char *key, double v)
{
    return num(o, key, v < 0 ? NAN : v);
}

/* "gpu" of node k: each GPU's figures and why any are missing, or null
 * where the node tracked no GPU; NULL when out of memory. */
static cJSON *gpus_json(const gt_merge *m, size_t k, const gt_efficiency *e, cJSON *o)
{
    char note[256];
    const gt_merge_node *nd = &m->nodes[k];
    if (!nd->files_with_gpus && !nd->ngpus)
        return cJSON_AddNullToObject(o, "gpu");
    cJSON *gpu = cJSON_AddObjectToObject(o, "gpu"), *devs;
    if (!gpu || !num(gpu, "files_with_gpus", (double)nd->files_with_gpus) ||
        !num(gpu, "files_with_per_gpu_rows", (double)nd->files_with_gpu_table) ||
        !str_or_null(gpu, "note", gt_merge_node_gpu_note(m, k, note, sizeof note)) ||
        !cJSON_AddStringToObject(gpu, "mean_utilization_method", GT_MERGE_GPU_MEAN_METHOD) ||
        !(devs = cJSON_AddArrayToObject(gpu, "devices")))
        return NULL;
    for (int i = 0; i < e->use.n_devices; i++) {
        const gt_eff_gpu *d = &e->use.devices[i];
        cJSON *g = cJSON_CreateObject();
        if (!g || !cJSON_AddItemToArray(devs, g)) {
            cJSON_Delete(g);
            return NULL;
        }
        if (!num(g, "index", d->index) || !str(g, "uuid", d->uuid) || !num(g, "files", (double)nd->gpus[i].files) ||
            !num(g, "samples", (double)nd->gpus[i].n_util) ||
            !opt(g, "mean_utilization_percent", d->mean_percent) || !opt(g, "memory_peak_bytes", d->mem_peak_bytes) ||
            !opt(g, "memory_capacity_bytes", d->mem_capacity_bytes) ||
            !opt(g, "memory_percent_of_capacity", e->device_mem_percent[i]))
            return NULL;
    }
    return gpu;
}

/* "efficiency": the job's CPU efficiency and each node's figures against
 * its request; NULL when out of memory. */
static cJSON *efficiency_json(const gt_merge *m, cJSON *root)
{
    cJSON *eff = cJSON_AddObjectToObject(root, "efficiency"), *nodes;
    if (!eff || !opt(eff, "cpu_efficiency_percent", gt_merge_cpu_efficiency(m)) ||
        !(nodes = cJSON_AddArrayToObject(eff, "nodes")))
        return NULL;
    for (size_t k = 0; k < m->nnodes; k++) {
        gt_efficiency e;
        gt_merge_node_efficiency(m, k, &e);
        cJSON *o = cJSON_CreateObject(), *req, *adv;
        if (!o || !cJSON_AddItemToArray(nodes, o)) {
            cJSON_Delete(o);
            return NULL;
        }
        if (!cJSON_AddStringToObject(o, "name", m->nodes[k].name) || !(req = cJSON_AddObjectToObject(o, "request")) ||
            !opt(req, "memory_bytes", e.req.mem_bytes) || !str_or_null(req, "memory_source", e.req.mem_source) ||
            !opt(req, "cores", e.req.cores) || !str_or_null(req, "cores_source", e.req.cores_source) ||
            !opt(req, "gpus", e.req.gpus) || !str_or_null(req, "gpus_source", e.req.gpus_source) ||
            !opt(req, "cpus_per_task", e.req.cpus_per_task) || !opt(req, "nodes", e.req.nodes) ||
            !opt(req, "time_limit_seconds", e.req.time_limit_s) ||
            !str_or_null(req, "time_limit_source", e.req.time_source) ||
            !opt(o, "cpu_seconds", e.use.cpu_s) || !str_or_null(o, "cpu_seconds_method", e.use.cpu_method) ||
            !opt(o, "wall_seconds", e.use.wall_s) || !opt(o, "cpu_efficiency_percent", e.cpu_percent) ||
            !opt(o, "memory_peak_bytes", e.use.mem_peak_bytes) || !str_or_null(o, "memory_peak_method", e.use.mem_method) ||
            !opt(o, "memory_percent_of_request", e.mem_percent) || !str_or_null(o, "advised_request", e.advised_mem) ||
            !gpus_json(m, k, &e, o) || !(adv = cJSON_AddObjectToObject(o, "advice")) || !str_or_null(adv, "memory", e.advice_mem) ||
            !str_or_null(adv, "cores", e.advice_cores) || !str_or_null(adv, "gpus", e.advice_gpus) ||
            !str_or_null(adv, "time", e.advice_time))
            return NULL;
    }
    return eff;
}

static cJSON *to_json(const gt_merge *m)
{
    cJSON *root = cJSON_CreateObject(), *job, *files, *peak, *at;
    if (!root || !cJSON_AddStringToObject(root, "ram_unit", gt_ram_unit_name(m->ram_unit)) ||
        !cJSON_AddStringToObject(root, "gpu_ram_unit", gt_ram_unit_name(m->gpu_ram_unit)) ||
        !num(root, "align_seconds", m->align) || !(job = cJSON_AddObjectToObject(root, "job")) ||
        !(files = cJSON_AddArrayToObject(root, "files")))
        goto nomem;
    if (!num(job, "files", (double)m->nparts) || !num(job, "start", m->start) || !num(job, "stop", m->stop) ||
        !num(job, "compute_time_seconds", m->stop - m->start) || !num(job, "cpu_seconds", m->cpu_seconds) ||
        !num(job, "energy_joules", m->energy_joules) || !(peak = cJSON_AddObjectToObject(job, "peak")) ||
        !(at = cJSON_AddObjectToObject(job, "peak_time")))
        goto nomem;
    for (int s = 0; s < GT_MERGE_NSERIES; s++)
        if (!num(peak, series_keys[s], m->peak[s]) || !num(at, series_keys[s], m->peak_time[s]))
            goto nomem;
    const gt_merge_part *big = &m->parts[m->largest];
    if (!(isnan(big->max[GT_MERGE_RAM]) ? cJSON_AddNullToObject(job, "largest_by_ram")
                                        : str(job, "largest_by_ram", big->name)))
        goto nomem;
    if (!num(job, "nodes", (double)m->nnodes) || !num(job, "files_without_node", (double)m->without_node) ||
        !own_json(m, m->own, job) || !nodes_json(m, root))
        goto nomem;
    for (size_t i = 0; i < m->nparts; i++) {
        const gt_merge_part *p = &m->parts[i];
        cJSON *f = cJSON_CreateObject(), *fmax;
        if (!f || !cJSON_AddItemToArray(files, f))
            goto nomem_f;
        if (!str(f, "name", p->name) || !str(f, "path", p->path) ||
            !num(f, "samples", (double)p->samples) || !num(f, "start", p->start) || !num(f, "stop", p->stop) ||
            !num(f, "compute_time_seconds", p->stop - p->start) || !(fmax = cJSON_AddObjectToObject(f, "peak")) ||
            !num(f, "mean_cpu_percent", p->mean_cpu_percent) || !num(f, "cpu_seconds", p->cpu_seconds) ||
            !num(f, "energy_joules", p->energy_joules) ||
            !(m->nodes[p->node].own_file ? cJSON_AddNullToObject(f, "node")
                                         : str(f, "node", m->nodes[p->node].name)) ||
            !(p->task ? str(f, "task", p->task) : cJSON_AddNullToObject(f, "task")))
            goto nomem;
        for (int s = 0; s < GT_MERGE_NSERIES; s++)
            if (!num(fmax, series_keys[s], p->max[s]))
                goto nomem;
        continue;
    nomem_f:
        cJSON_Delete(f);
        goto nomem;
    }
    if (m->with_request && !efficiency_json(m, root))
        goto nomem;
    return root;
nomem:
    cJSON_Delete(root);
    return NULL;
}

static gt_status write_json(const gt_merge *m, FILE *out)
{
    cJSON *root = to_json(m);
    char *s = root ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!s)
        return GT_ERR_NOMEM;
    int bad = fputs(s, out) < 0 || fputc('\n', out) == EOF;
    cJSON_free(s);
    return bad ? GT_ERR_IO : GT_OK;
}

gt_status gt_merge_write(const gt_merge *m, gt_format fmt, FILE *out)
{
    if (!m || !out || !m->nparts || (fmt != GT_FORMAT_TEXT && fmt != GT_FORMAT_JSON))
        return GT_ERR_INVALID;
    return fmt == GT_FORMAT_JSON ? write_json(m, out) : write_text(m, out);
}
