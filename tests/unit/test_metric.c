/* SPDX-License-Identifier: MIT */
/* The metric table (metric/metric.h): the tracking file's columns it lays
 * out are the ones the files have always had, in the same order and with
 * the same SQL types; a quantity of gpu-tracker's own lands after
 * timestamp and before the energy columns wherever its row is written;
 * a table that breaks the layout's rules is refused, saying which. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "metric/metric.h"
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

#define ROW(id, place, ...) {id, place, "FLOAT", GT_MU_COUNT, GT_MA_MAX, NULL, NULL, NULL, NULL, -1, {__VA_ARGS__}}
#define COL(name) {name, GT_MC_FLOAT, 0}

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
    const gt_metric no_timestamp[] = {ROW("own", GT_METRIC_OWN, COL("x"))};
    assert_string_equal(gt_metric_check_table(no_timestamp, 1), "the Python package's columns end with timestamp");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_own_before_energy),
        cmocka_unit_test(test_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
