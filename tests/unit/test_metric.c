/* SPDX-License-Identifier: MIT */
/* The metric table (metric/metric.h): the tracking file's columns it lays
 * out are the ones the files have always had, in the same order and with
 * the same SQL types; a quantity of gpu-tracker's own lands after
 * timestamp and before the energy columns wherever its row is written;
 * a table that breaks the layout's rules is refused, saying which.  The
 * disk I/O probe: /proc/PID/io read to the byte, the tree's sums (an
 * unreadable member makes them unavailable, not smaller) and its rates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <math.h>

#include "metric/metric.h"
#include "metric/probe.h"
#include "store/row.h"

/* The columns and types of the files written before the table existed. */
static const char *const historical[][2] = {
    {"main_ram", "FLOAT"}, {"descendants_ram", "FLOAT"}, {"combined_ram", "FLOAT"}, {"system_ram", "FLOAT"},
    {"main_gpu_ram", "BIGINT"}, {"descendants_gpu_ram", "BIGINT"}, {"combined_gpu_ram", "BIGINT"},
    {"system_gpu_ram", "FLOAT"}, {"gpu_sum_utilization_percent", "BIGINT"},
    {"gpu_hardware_utilization_percent", "BIGINT"}, {"main_n_threads", "BIGINT"},
    {"descendants_n_threads", "BIGINT"}, {"combined_n_threads", "BIGINT"},
    {"cpu_system_sum_utilization_percent", "FLOAT"}, {"cpu_system_hardware_utilization_percent", "FLOAT"},
    {"cpu_main_sum_utilization_percent", "FLOAT"}, {"cpu_main_hardware_utilization_percent", "FLOAT"},
    {"cpu_descendants_sum_utilization_percent", "FLOAT"},
    {"cpu_descendants_hardware_utilization_percent", "FLOAT"},
    {"cpu_combined_sum_utilization_percent", "FLOAT"}, {"cpu_combined_hardware_utilization_percent", "FLOAT"},
    {"timestamp", "FLOAT"},
};
static const char *const energy[] = {"cpu_energy_joules", "dram_energy_joules", "gpu_energy_joules"};

static void test_layout(void **state)
{
    (void)state;
    assert_null(gt_metric_check());
    const int npackage = (int)(sizeof historical / sizeof *historical);
    assert_int_equal(GT_METRIC_NPACKAGE_COLUMNS, npackage);
    for (int i = 0; i < npackage; i++) {
        assert_string_equal(gt_store_column_name(i), historical[i][0]);
        assert_string_equal(gt_store_column_type(i), historical[i][1]);
    }
    /* gpu-tracker's own: after timestamp, before the energy columns. */
    for (int i = npackage; i < GT_STORE_NBASE_COLUMNS; i++) {
        const gt_metric *m;
        assert_non_null(gt_metric_column_at(i, &m));
        assert_int_equal(m->place, GT_METRIC_OWN);
    }
    for (int k = 0; k < 3; k++) {
        assert_string_equal(gt_store_column_name(GT_STORE_NBASE_COLUMNS + k), energy[k]);
        assert_string_equal(gt_store_column_type(GT_STORE_NBASE_COLUMNS + k), "FLOAT");
    }
    assert_null(gt_store_column_name(GT_STORE_NCOLUMNS));
    assert_null(gt_store_column_name(-1));
    assert_null(gt_metric_column_at(GT_STORE_NCOLUMNS, NULL));
}

#define ROW(id, place, ...) {id, place, "FLOAT", GT_MU_COUNT, GT_MA_MAX, NULL, NULL, NULL, NULL, -1, NULL, {__VA_ARGS__}}
#define COL(name) {name, GT_MC_FLOAT, 0, NULL}

/* A row of gpu-tracker's own written last, after the energy row, still
 * lands between timestamp and the energy columns. */
static void test_own_before_energy(void **state)
{
    (void)state;
    const gt_metric t[] = {
        ROW("a", GT_METRIC_PACKAGE, COL("a")),
        ROW("timestamp", GT_METRIC_PACKAGE, COL("timestamp")),
        ROW("energy", GT_METRIC_ENERGY, COL("cpu_energy_joules"), COL("gpu_energy_joules")),
        ROW("own", GT_METRIC_OWN, COL("main_x"), COL("combined_x")),
    };
    const char *want[] = {"a", "timestamp", "main_x", "combined_x", "cpu_energy_joules", "gpu_energy_joules"};
    gt_metric_iter it = {t, 4, 0, 0, 0};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        assert_string_equal(gt_metric_next(&it, NULL)->name, want[i]);
    assert_null(gt_metric_next(&it, NULL));
    assert_null(gt_metric_check_table(t, 4));
}

static void test_rules(void **state)
{
    (void)state;
    const gt_metric after_timestamp[] = {
        ROW("timestamp", GT_METRIC_PACKAGE, COL("timestamp")),
        ROW("late", GT_METRIC_PACKAGE, COL("late")),
    };
    assert_string_equal(gt_metric_check_table(after_timestamp, 2),
                        "timestamp is the last of the Python package's columns");
    const gt_metric own_energy[] = {
        ROW("timestamp", GT_METRIC_PACKAGE, COL("timestamp")),
        ROW("own", GT_METRIC_OWN, COL("x_energy_joules")),
    };
    assert_string_equal(gt_metric_check_table(own_energy, 2),
                        "the energy columns, and only they, are named *_energy_joules");
    const gt_metric power[] = {
        ROW("timestamp", GT_METRIC_PACKAGE, COL("timestamp")),
        ROW("own", GT_METRIC_OWN, COL("x_power_watts")),
    };
    assert_non_null(strstr(gt_metric_check_table(power, 2), "_power_watts"));
    const gt_metric twice[] = {
        ROW("timestamp", GT_METRIC_PACKAGE, COL("timestamp")),
        ROW("own", GT_METRIC_OWN, COL("x"), COL("x")),
    };
    assert_string_equal(gt_metric_check_table(twice, 2), "a column name is used twice");
    const gt_metric own_hw[] = {
        ROW("timestamp", GT_METRIC_PACKAGE, COL("timestamp")),
        ROW("own", GT_METRIC_OWN, {"x", GT_MC_CPU_HW, 0, NULL}),
    };
    assert_string_equal(gt_metric_check_table(own_hw, 2), "gpu-tracker's own columns take no *_HW cell kind");
    const gt_metric no_timestamp[] = {ROW("own", GT_METRIC_OWN, COL("x"))};
    assert_string_equal(gt_metric_check_table(no_timestamp, 1), "the Python package's columns end with timestamp");
}

/* The io probe on text captured from /proc/PID/io (tests/fixtures/proc/io),
 * and on text that is not what the kernel writes. */
static void test_io_parse(void **state)
{
    (void)state;
    const gt_probe *io = &gt_probes[GT_PROBE_IO];
    assert_string_equal(io->file, "io");
    assert_int_equal(io->first, GT_PV_DISK_READ);
    assert_int_equal(io->n, 2);
    const char *text = "rchar: 2751665772\nwchar: 292635338\nsyscr: 819478\nsyscw: 150700\n"
                       "read_bytes: 3076096\nwrite_bytes: 307920896\ncancelled_write_bytes: 105824256\n";
    double v[2] = {0, 0};
    assert_int_equal(io->parse(text, strlen(text), v), 0);
    assert_true(v[0] == 3076096 && v[1] == 307920896);
    const char *cut = "read_bytes: 3076096\nwrite_bytes: 3079";
    assert_int_equal(io->parse(cut, strlen(cut), v), -1);
    const char *none = "rchar: 1\n";
    assert_int_equal(io->parse(none, strlen(none), v), -1);
}

static gt_sample_proc proc(int is_main, double read, double write)
{
    gt_sample_proc p = {.is_main = is_main};
    p.values[GT_PV_DISK_READ] = read;
    p.values[GT_PV_DISK_WRITE] = write;
    return p;
}

static void test_tree(void **state)
{
    (void)state;
    double t0[GT_TREE_SLOTS], t1[GT_TREE_SLOTS];
    gt_sample_proc a[] = {proc(0, 10, 4096), proc(1, 1, 8192), proc(0, 100, 0)};
    gt_probe_tree(a, 3, NULL, 0.5, t0);
    assert_true(t0[GT_TREE_SUM(GT_PV_DISK_READ, 0)] == 1);
    assert_true(t0[GT_TREE_SUM(GT_PV_DISK_READ, 1)] == 110);
    assert_true(t0[GT_TREE_SUM(GT_PV_DISK_READ, 2)] == 111);
    assert_true(t0[GT_TREE_SUM(GT_PV_DISK_WRITE, 2)] == 12288);
    /* No sample before: no rate. */
    assert_true(isnan(t0[GT_TREE_RATE(GT_PV_DISK_READ)]));
    /* The child that wrote 4096 bytes was reaped by main, which now holds
     * its counters: the total stands, and the rate is what was new. */
    gt_sample_proc b[] = {proc(1, 11, 8192 + 4096 + 1024), proc(0, 100, 0)};
    gt_probe_tree(b, 2, t0, 0.5, t1);
    assert_true(t1[GT_TREE_SUM(GT_PV_DISK_WRITE, 2)] == 12288 + 1024);
    assert_true(t1[GT_TREE_RATE(GT_PV_DISK_WRITE)] == 2048);
    assert_true(t1[GT_TREE_RATE(GT_PV_DISK_READ)] == 0);
    /* A member whose counters could not be read: unavailable, not less. */
    gt_sample_proc c[] = {proc(1, 11, 13312), proc(0, NAN, NAN)};
    gt_probe_tree(c, 2, t1, 0.5, t0);
    assert_true(t0[GT_TREE_SUM(GT_PV_DISK_WRITE, 0)] == 13312);
    assert_true(isnan(t0[GT_TREE_SUM(GT_PV_DISK_WRITE, 1)]));
    assert_true(isnan(t0[GT_TREE_SUM(GT_PV_DISK_WRITE, 2)]));
    assert_true(isnan(t0[GT_TREE_RATE(GT_PV_DISK_WRITE)]));
    /* A total that fell (a member left the tree with its counts, reaped by
     * no member) gives no rate rather than a negative one. */
    gt_sample_proc d[] = {proc(1, 11, 13312)};
    gt_probe_tree(d, 1, t1, 0.5, t0);
    assert_true(t0[GT_TREE_SUM(GT_PV_DISK_READ, 2)] == 11);
    assert_true(isnan(t0[GT_TREE_RATE(GT_PV_DISK_READ)]));
    assert_true(t0[GT_TREE_RATE(GT_PV_DISK_WRITE)] == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_own_before_energy),
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_io_parse),
        cmocka_unit_test(test_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
