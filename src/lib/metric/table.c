/* SPDX-License-Identifier: MIT */
/* The metric table: see metric.h. */
#include "metric/metric.h"

#include <string.h>

#include "sample.h"

#define F(field) offsetof(gt_sample, field)
/* The tree's figure of a probe's value (sample_slots.h). */
#define TREE(slot) (offsetof(gt_sample, tree) + sizeof(double) * (slot))
#define SETS(kind, main_, desc_, comb_, f0, f1, f2) \
    {{main_, kind, F(f0), NULL}, {desc_, kind, F(f1), NULL}, {comb_, kind, F(f2), NULL}}

const gt_metric gt_metric_table[] = {
    {"ram", GT_METRIC_PACKAGE, "FLOAT", GT_MU_RAM, GT_MA_MAX, "Max RAM", "gpu_tracker_ram_bytes",
     "Resident memory (private + shared RSS); system: the machine's used RAM.", "RAM", -1, NULL,
     SETS(GT_MC_RSS, "main_ram", "descendants_ram", "combined_ram", main, descendants, combined)},
    {"system_ram", GT_METRIC_PACKAGE, "FLOAT", GT_MU_RAM, GT_MA_MAX, "Max RAM", "gpu_tracker_ram_bytes",
     "Resident memory (private + shared RSS); system: the machine's used RAM.", "RAM", -1, NULL,
     {{"system_ram", GT_MC_RAM, F(system_ram), NULL}}},
    {"gpu_ram", GT_METRIC_PACKAGE, "BIGINT", GT_MU_GPU_RAM, GT_MA_MAX, "Max GPU RAM", "gpu_tracker_gpu_ram_bytes",
     "GPU memory; system: used on the selected GPUs.", "GPU RAM", -1, NULL,
     SETS(GT_MC_GPU_RAM, "main_gpu_ram", "descendants_gpu_ram", "combined_gpu_ram", main_gpu_ram,
          descendants_gpu_ram, combined_gpu_ram)},
    {"system_gpu_ram", GT_METRIC_PACKAGE, "FLOAT", GT_MU_GPU_RAM, GT_MA_MAX, "Max GPU RAM",
     "gpu_tracker_gpu_ram_bytes", "GPU memory; system: used on the selected GPUs.", "GPU RAM", -1, NULL,
     {{"system_gpu_ram", GT_MC_GPU_RAM, F(system_gpu_ram), NULL}}},
    {"gpu_utilization", GT_METRIC_PACKAGE, "BIGINT", GT_MU_PERCENT, GT_MA_TIME_MEAN, "GPU utilization",
     "gpu_tracker_gpu_utilization_percent",
     "GPU utilization summed over the selected GPUs, in percent of one GPU.", "GPU utilization", -1, NULL,
     {{"gpu_sum_utilization_percent", GT_MC_FLOAT, F(gpu_sum_percent), NULL},
      {"gpu_hardware_utilization_percent", GT_MC_GPU_HW, F(gpu_sum_percent), NULL}}},
    {"n_threads", GT_METRIC_PACKAGE, "BIGINT", GT_MU_COUNT, GT_MA_MAX, "Max threads", "gpu_tracker_threads",
     "Number of threads.", NULL, -1, NULL,
     SETS(GT_MC_INT, "main_n_threads", "descendants_n_threads", "combined_n_threads", main_n_threads,
          descendants_n_threads, combined_n_threads)},
    {"cpu_system", GT_METRIC_PACKAGE, "FLOAT", GT_MU_PERCENT, GT_MA_TIME_MEAN, "CPU utilization",
     "gpu_tracker_cpu_utilization_percent", "CPU use over the last sampling interval, in percent of one core.",
     "CPU utilization", -1, NULL,
     {{"cpu_system_sum_utilization_percent", GT_MC_CPU, F(cpu_system_sum), NULL},
      {"cpu_system_hardware_utilization_percent", GT_MC_SYS_HW, F(cpu_system_sum), NULL}}},
    {"cpu_main", GT_METRIC_PACKAGE, "FLOAT", GT_MU_PERCENT, GT_MA_TIME_MEAN, "CPU utilization",
     "gpu_tracker_cpu_utilization_percent", "CPU use over the last sampling interval, in percent of one core.",
     "CPU utilization", -1, NULL,
     {{"cpu_main_sum_utilization_percent", GT_MC_CPU, F(cpu_main_sum), NULL},
      {"cpu_main_hardware_utilization_percent", GT_MC_CPU_HW, F(cpu_main_sum), NULL}}},
    {"cpu_descendants", GT_METRIC_PACKAGE, "FLOAT", GT_MU_PERCENT, GT_MA_TIME_MEAN, "CPU utilization",
     "gpu_tracker_cpu_utilization_percent", "CPU use over the last sampling interval, in percent of one core.",
     "CPU utilization", -1, NULL,
     {{"cpu_descendants_sum_utilization_percent", GT_MC_CPU, F(cpu_descendants_sum), NULL},
      {"cpu_descendants_hardware_utilization_percent", GT_MC_CPU_HW, F(cpu_descendants_sum), NULL}}},
    {"cpu_combined", GT_METRIC_PACKAGE, "FLOAT", GT_MU_PERCENT, GT_MA_TIME_MEAN, "CPU utilization",
     "gpu_tracker_cpu_utilization_percent", "CPU use over the last sampling interval, in percent of one core.",
     "CPU utilization", -1, NULL,
     {{"cpu_combined_sum_utilization_percent", GT_MC_CPU, F(cpu_combined_sum), NULL},
      {"cpu_combined_hardware_utilization_percent", GT_MC_CPU_HW, F(cpu_combined_sum), NULL}}},
    {"timestamp", GT_METRIC_PACKAGE, "FLOAT", GT_MU_SECONDS, GT_MA_NONE, NULL,
     "gpu_tracker_last_sample_timestamp_seconds", "Unix time of the latest sample.", NULL, -1, NULL,
     {{"timestamp", GT_MC_FLOAT, F(timestamp), NULL}}},
    /* The tree's storage I/O (/proc/PID/io, metric/probe.c): bytes since
     * each process started, summed over the live members, whose counters
     * hold those of the members they reaped; NULL where a member's could
     * not be read.  The rate: the whole tree's bytes per second over the
     * interval that ends at the row (NULL on the first row, or where the
     * total fell: a member left the tree with its counts). */
    {"disk_read", GT_METRIC_OWN, "BIGINT", GT_MU_BYTES, GT_MA_LAST, "Disk read", "gpu_tracker_disk_read_bytes_total",
     "Bytes the tracked processes read from storage.", "Disk read", GT_PV_DISK_READ, "disk_read_bytes",
     {{"main_disk_read_bytes", GT_MC_COUNT, TREE(GT_TREE_SUM(GT_PV_DISK_READ, 0)), "main"},
      {"descendants_disk_read_bytes", GT_MC_COUNT, TREE(GT_TREE_SUM(GT_PV_DISK_READ, 1)), "descendants"},
      {"combined_disk_read_bytes", GT_MC_COUNT, TREE(GT_TREE_SUM(GT_PV_DISK_READ, 2)), "combined"}}},
    {"disk_write", GT_METRIC_OWN, "BIGINT", GT_MU_BYTES, GT_MA_LAST, "Disk written",
     "gpu_tracker_disk_write_bytes_total", "Bytes the tracked processes caused to be written to storage.",
     "Disk written", GT_PV_DISK_WRITE, "disk_write_bytes",
     {{"main_disk_write_bytes", GT_MC_COUNT, TREE(GT_TREE_SUM(GT_PV_DISK_WRITE, 0)), "main"},
      {"descendants_disk_write_bytes", GT_MC_COUNT, TREE(GT_TREE_SUM(GT_PV_DISK_WRITE, 1)), "descendants"},
      {"combined_disk_write_bytes", GT_MC_COUNT, TREE(GT_TREE_SUM(GT_PV_DISK_WRITE, 2)), "combined"}}},
    {"disk_rate", GT_METRIC_OWN, "FLOAT", GT_MU_BYTES_PER_S, GT_MA_TIME_MEAN, "Disk I/O rate", NULL, NULL,
     "Disk I/O rate", -1, NULL,
     {{"combined_disk_read_bytes_per_second", GT_MC_FLOAT, TREE(GT_TREE_RATE(GT_PV_DISK_READ)), "read"},
      {"combined_disk_write_bytes_per_second", GT_MC_FLOAT, TREE(GT_TREE_RATE(GT_PV_DISK_WRITE)), "written"}}},
    /* Joules since the first sample. */
    {"energy", GT_METRIC_ENERGY, "FLOAT", GT_MU_JOULES, GT_MA_LAST, "Energy", NULL, NULL, NULL, -1, NULL,
     {{"cpu_energy_joules", GT_MC_FLOAT, F(cpu_energy), NULL},
      {"dram_energy_joules", GT_MC_FLOAT, F(dram_energy), NULL},
      {"gpu_energy_joules", GT_MC_FLOAT, F(gpu_energy), NULL}}},
};
const size_t gt_metric_count = sizeof gt_metric_table / sizeof *gt_metric_table;

const gt_metric_column *gt_metric_next(gt_metric_iter *it, const gt_metric **metric)
{
    if (!it->table) {
        it->table = gt_metric_table;
        it->n = gt_metric_count;
    }
    for (; it->place < GT_METRIC_PLACES; it->place++, it->m = 0)
        for (; it->m < it->n; it->m++, it->k = 0) {
            const gt_metric *m = &it->table[it->m];
            if ((int)m->place == it->place && it->k < GT_METRIC_MAX_COLUMNS && m->col[it->k].name) {
                if (metric)
                    *metric = m;
                return &m->col[it->k++];
            }
        }
    return NULL;
}

const gt_metric_column *gt_metric_column_at(int i, const gt_metric **metric)
{
    gt_metric_iter it = {0};
    const gt_metric_column *c = NULL;
    for (int k = 0; k <= i && (c = gt_metric_next(&it, metric)) != NULL; k++)
        ;
    return c;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && !strcmp(s + n - k, tail);
}

/* The rules of gt_metric_check over table, and the columns of each place
 * in count. */
static const char *check(const gt_metric *table, size_t n, int *count)
{
    gt_metric_iter it = {table, n, 0, 0, 0};
    const gt_metric *m;
    const gt_metric_column *c;
    int timestamp = 0;
    for (int i = 0; (c = gt_metric_next(&it, &m)) != NULL; i++) {
        count[m->place]++;
        if (ends_with(c->name, "_power_watts"))
            return "a column is named *_power_watts, as only the power columns after the energy columns may be";
        if ((m->place == GT_METRIC_ENERGY) != ends_with(c->name, "_energy_joules"))
            return "the energy columns, and only they, are named *_energy_joules";
        /* The run's fold (metric/fold.c) reads an own row's value without
         * the run's static data, which the *_HW kinds divide by. */
        if (m->place == GT_METRIC_OWN &&
            (c->cell == GT_MC_GPU_HW || c->cell == GT_MC_CPU_HW || c->cell == GT_MC_SYS_HW))
            return "gpu-tracker's own columns take no *_HW cell kind";
        if (m->place == GT_METRIC_PACKAGE && timestamp)
            return "timestamp is the last of the Python package's columns";
        timestamp |= !strcmp(c->name, "timestamp");
        if (!strcmp(c->name, "timestamp") && m->place != GT_METRIC_PACKAGE)
            return "timestamp is one of the Python package's columns";
        gt_metric_iter before = {table, n, 0, 0, 0};
        for (int j = 0; j < i; j++)
            if (!strcmp(gt_metric_next(&before, NULL)->name, c->name))
                return "a column name is used twice";
    }
    return timestamp ? NULL : "the Python package's columns end with timestamp";
}

const char *gt_metric_check_table(const gt_metric *table, size_t n)
{
    int count[GT_METRIC_PLACES] = {0};
    return check(table, n, count);
}

const char *gt_metric_check(void)
{
    static const int want[GT_METRIC_PLACES] = {GT_METRIC_NPACKAGE_COLUMNS, GT_METRIC_NOWN_COLUMNS,
                                               GT_METRIC_NENERGY_COLUMNS};
    int count[GT_METRIC_PLACES] = {0};
    const char *why = check(gt_metric_table, gt_metric_count, count);
    for (int p = 0; !why && p < GT_METRIC_PLACES; p++)
        if (count[p] != want[p])
            why = "the column counts in metric.h differ from the table";
    return why;
}
