/* SPDX-License-Identifier: MIT */
/* Tracking files: the rows the Python package wrote for the same figures
 * (the CSV files of tracker-output/, four unit combinations), its SQLite schema, empty
 * cells for unavailable figures, and an existing file left alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "heap.h"
#include "store/lockwait.h"
#include "store/row.h"
#include "store/store.h"

static const char *ref_dir(void)
{
    const char *d = getenv("GT_REF");
    return d ? d : "tests/fixtures/reference";
}

/* Lines of a small text file, NUL-terminated in place; caller frees lines[0]. */
static int read_lines(const char *path, char **lines, int max)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *b = calloc(1, 1 << 16);
    size_t len = fread(b, 1, (1 << 16) - 1, f);
    fclose(f);
    int n = 0;
    for (char *p = b; p < b + len && n < max;) {
        lines[n++] = p;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    if (n == 0)
        free(b);
    return n;
}

/* The measurements behind the reference files, in bytes and percent.  RAM is
 * private + shared: the Python package converts each part and adds them,
 * which is what makes 16754 bytes 16.753999999999998 kilobytes. */
static const uint64_t ram_parts[3][3][2] = {
    {{4565, 4566}, {6138, 6138}, {8490, 8491}},
    {{6004, 6001}, {9145, 9145}, {13388, 13388}},
    {{6718, 10036}, {13818, 16390}, {20536, 22017}},
};
static const uint64_t system_ram[3] = {30000000000ULL, 31000000000ULL, 29000000000ULL};
static const uint64_t gpu_ram[3][4] = {
    {0, 0, 0, 0},
    {1600000000ULL, 900000000ULL, 2500000000ULL, 3000000000ULL},
    {1500000000ULL, 4300000000ULL, 5800000000ULL, 6500000000ULL},
};
static const int threads[3][3] = {{0, 5, 5}, {0, 4, 4}, {2, 6, 8}};
static const double cpu[3][4] = { /* system, main, descendants, combined */
    {270.5, 60.4, 134.3, 194.7},
    {239.1, 198.9, 112.7, 311.6},
    {276.3, 99.8, 142.2, 242.0},
};

typedef struct ref_case {
    const char *name;
    gt_ram_unit ram, gpu_ram;
    gt_time_unit time;
    int cores, gpus;          /* expected cores and GPUs */
    double gpu_sum[3];        /* the synthetic GPU figures differ per file */
} ref_case;

static const ref_case cases[] = {
    {"False-Linux-bytes-megabytes-seconds", GT_RAM_UNIT_BYTES, GT_RAM_UNIT_MEGABYTES, GT_TIME_UNIT_SECONDS, 3, 3, {0, 150, 135}},
    {"False-Linux-kilobytes-bytes-days", GT_RAM_UNIT_KILOBYTES, GT_RAM_UNIT_BYTES, GT_TIME_UNIT_DAYS, 4, 3, {0, 150, 135}},
    {"False-Linux-kilobytes-gigabytes-minutes", GT_RAM_UNIT_KILOBYTES, GT_RAM_UNIT_GIGABYTES, GT_TIME_UNIT_MINUTES, 2, 1, {0, 75, 55}},
    {"False-Linux-megabytes-kilobytes-hours", GT_RAM_UNIT_MEGABYTES, GT_RAM_UNIT_KILOBYTES, GT_TIME_UNIT_HOURS, 1, 2, {0, 125, 100}},
};

static gt_static_data static_of(const ref_case *c)
{
    return (gt_static_data){
        .ram_unit = c->ram, .gpu_ram_unit = c->gpu_ram, .time_unit = c->time,
        .ram_system_capacity = 67000000000ULL, .gpu_ram_system_capacity = 36594000000ULL,
        .system_core_count = 4, .n_expected_cores = c->cores,
        .system_gpu_count = 3, .n_expected_gpus = c->gpus,
    };
}

static gt_sample sample_of(const ref_case *c, int row)
{
    gt_sample s = {0};
    s.timestamp = 900 + 100 * row;
    gt_rss *r[3] = {&s.main, &s.descendants, &s.combined};
    for (int k = 0; k < 3; k++)
        *r[k] = (gt_rss){ram_parts[row][k][0], ram_parts[row][k][1]};
    s.system_ram = system_ram[row];
    s.main_gpu_ram = gpu_ram[row][0];
    s.descendants_gpu_ram = gpu_ram[row][1];
    s.combined_gpu_ram = gpu_ram[row][2];
    s.system_gpu_ram = gpu_ram[row][3];
    s.gpu_sum_percent = c->gpu_sum[row];
    s.main_n_threads = threads[row][0];
    s.descendants_n_threads = threads[row][1];
    s.combined_n_threads = threads[row][2];
    s.cpu_valid = 1;
    s.cpu_system_sum = cpu[row][0];
    s.cpu_main_sum = cpu[row][1];
    s.cpu_descendants_sum = cpu[row][2];
    s.cpu_combined_sum = cpu[row][3];
    /* No disk or energy counters: gpu-tracker's own cells, after the
     * Python package's columns, are empty. */
    for (int k = 0; k < GT_TREE_SLOTS; k++)
        s.tree[k] = NAN;
    s.cpu_energy = s.dram_energy = s.gpu_energy = NAN;
    return s;
}

static void write_file(const char *path, const ref_case *c, int overwrite, int with_energy)
{
    gt_static_data sd = static_of(c);
    gt_store *st;
    gt_error err;
    assert_int_equal(gt_store_open(path, overwrite, &sd, with_energy, &st, &err), GT_OK);
    for (int row = 0; row < 3; row++) {
        gt_sample s = sample_of(c, row);
        assert_int_equal(gt_store_append(st, &s, &err), GT_OK);
    }
    assert_int_equal(gt_store_close(&st, &err), GT_OK);
    assert_null(st);
}

/* The tracking file's columns as the metric table lays them out, read from
 * the table itself (gt_metric_next) and not through the store, so that a
 * store writing them in another order differs: the Python package's,
 * gpu-tracker's own, then the energy columns where with_energy.  A new row
 * of the table changes what these give, and no line of this file. */
static int layout(int with_energy, const char **names, const char **types)
{
    gt_metric_iter it = {0};
    const gt_metric *m;
    const gt_metric_column *c;
    int n = 0;
    while ((c = gt_metric_next(&it, &m)) != NULL && (with_energy || m->place != GT_METRIC_ENERGY)) {
        assert_true(n < GT_STORE_NCOLUMNS);
        names[n] = c->name;
        types[n++] = m->sql_type;
    }
    return n;
}

/* The place (0 ..) of column name in that layout. */
static int place_of(const char *name, int with_energy)
{
    const char *names[GT_STORE_NCOLUMNS], *types[GT_STORE_NCOLUMNS];
    int n = layout(with_energy, names, types);
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return i;
    fail_msg("no column %s in the layout", name);
    return -1;
}

/* The layout as a CSV header. */
static void layout_header(int with_energy, char *out, size_t size)
{
    const char *names[GT_STORE_NCOLUMNS], *types[GT_STORE_NCOLUMNS];
    int n = layout(with_energy, names, types);
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        int w = snprintf(out + len, size - len, "%s%s", i ? "," : "", names[i]);
        assert_true(w > 0 && (size_t)w < size - len);
        len += (size_t)w;
    }
}

/* The columns after timestamp, as pandas spells them in a CREATE TABLE:
 * "\tNAME TYPE, \n" each, the last "\tNAME TYPE\n)". */
static void layout_schema_tail(int with_energy, char *out, size_t size)
{
    const char *names[GT_STORE_NCOLUMNS], *types[GT_STORE_NCOLUMNS];
    int n = layout(with_energy, names, types);
    size_t len = 0;
    for (int i = GT_METRIC_NPACKAGE_COLUMNS; i < n; i++) {
        int w = snprintf(out + len, size - len, "\t%s %s%s", names[i], types[i], i + 1 < n ? ", \n" : "\n)");
        assert_true(w > 0 && (size_t)w < size - len);
        len += (size_t)w;
    }
}

/* The cells of a CSV line (tracking files quote nothing), split in place. */
static int split(char *line, char **cells, int max)
{
    int n = 0;
    for (char *p = line; n < max; p++) {
        cells[n++] = p;
        if (!(p = strchr(p, ',')))
            break;
        *p = '\0';
    }
    return n;
}

/* Checks the cells of line against the layout: as many as it has, the
 * named ones as want gives them (pairs of name and text, then NULL); then
 * cuts line after timestamp, leaving the Python package's cells. */
static void check_after_timestamp(char *line, int with_energy, const char *const *want)
{
    char *cells[GT_STORE_MAX_COLUMNS + 1];
    const char *names[GT_STORE_NCOLUMNS], *types[GT_STORE_NCOLUMNS];
    int n = layout(with_energy, names, types);
    char *copy = strdup(line);
    assert_non_null(copy);
    assert_int_equal(split(copy, cells, GT_STORE_MAX_COLUMNS + 1), n);
    for (int k = 0; want[k]; k += 2)
        assert_string_equal(cells[place_of(want[k], with_energy)], want[k + 1]);
    line[cells[GT_METRIC_NPACKAGE_COLUMNS] - copy - 1] = '\0';
    free(copy);
}

/* No energy read: empty energy cells, never 0. */
static const char *const no_energy[] = {"cpu_energy_joules", "", "dram_energy_joules", "", "gpu_energy_joules", "",
                                        NULL};
static const char *const nothing[] = {NULL};

/* Every timepoint cell equals the Python package's text for the same figure,
 * in all four unit combinations.  Only the timestamp differs in form: the
 * reference's synthetic timestamps were integers, ours are Unix seconds as
 * floats, as in the package's real files.  The header is the package's,
 * then gpu-tracker's own columns and, in a run that measures energy, its
 * three energy columns, as the metric table lays them out. */
static void test_csv_matches_reference(void **state)
{
    (void)state;
    char path[] = "/tmp/gt-test-store-XXXXXX.csv";
    int fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    close(fd);
    for (size_t i = 0; i < 2 * sizeof cases / sizeof *cases; i++) {
        int with_energy = (int)(i % 2);
        write_file(path, &cases[i / 2], 1, with_energy);
        char *got[8], *want[8], ref[512];
        snprintf(ref, sizeof ref, "%s/tracker-output/%s.csv", ref_dir(), cases[i / 2].name);
        assert_int_equal(read_lines(path, got, 8), 6);
        assert_int_equal(read_lines(ref, want, 8), 4);
        assert_string_equal(got[0], "ram_unit,gpu_ram_unit,time_unit,ram_system_capacity,"
                                    "gpu_ram_system_capacity,system_core_count,n_expected_cores,"
                                    "system_gpu_count,n_expected_gpus");
        char row[256];
        snprintf(row, sizeof row, "%s,%s,%s,", gt_ram_unit_name(cases[i / 2].ram),
                 gt_ram_unit_name(cases[i / 2].gpu_ram), gt_time_unit_name(cases[i / 2].time));
        assert_memory_equal(got[1], row, strlen(row));
        char head[4096];
        layout_header(with_energy, head, sizeof head);
        assert_string_equal(got[2], head);
        assert_true(!strncmp(got[2], want[0], strlen(want[0])) && got[2][strlen(want[0])] == ',');
        for (int r = 0; r < 3; r++) {
            /* the Python package's columns remain */
            check_after_timestamp(got[3 + r], with_energy, with_energy ? no_energy : nothing);
            char *cut = strrchr(got[3 + r], ',');
            assert_non_null(cut);
            snprintf(row, sizeof row, ",%d.0", 900 + 100 * r);
            assert_string_equal(cut, row);
            size_t n = (size_t)(cut - got[3 + r]);
            assert_true(strrchr(want[1 + r], ',') - want[1 + r] == (ptrdiff_t)n);
            assert_memory_equal(got[3 + r], want[1 + r], n);
        }
        free(got[0]);
        free(want[0]);
    }
    /* The static row in full, for one combination. */
    write_file(path, &cases[2], 1, 0);
    char *got[8];
    assert_int_equal(read_lines(path, got, 8), 6);
    assert_string_equal(got[1], "kilobytes,gigabytes,minutes,67000000.0,36.594,4,2,3,1");
    /* Unit names are the only text: nothing is ever quoted. */
    for (int l = 0; l < 6; l++)
        assert_null(strchr(got[l], '"'));
    free(got[0]);
    unlink(path);
}

/* Unavailable figures are empty cells: the first sample's CPU (no interval
 * closed yet) and a NaN. */
static void test_csv_empty_cells(void **state)
{
    (void)state;
    char path[] = "/tmp/gt-test-store-XXXXXX.csv";
    int fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    close(fd);
    gt_static_data sd = static_of(&cases[0]);
    gt_store *st;
    gt_error err;
    assert_int_equal(gt_store_open(path, 1, &sd, 1, &st, &err), GT_OK);
    gt_sample s = sample_of(&cases[0], 0);
    s.cpu_valid = 0;
    s.gpu_sum_percent = NAN;
    assert_int_equal(gt_store_append(st, &s, &err), GT_OK);
    /* A repeated value must print the same (the writer reuses its text). */
    s.cpu_valid = 1;
    s.gpu_sum_percent = -0.0;
    assert_int_equal(gt_store_append(st, &s, &err), GT_OK);
    s.gpu_sum_percent = 0.0;
    assert_int_equal(gt_store_append(st, &s, &err), GT_OK);
    /* Disk bytes are whole numbers; a rate is a float; an unread figure is
     * empty, never 0. */
    for (int set = 0; set < 3; set++) {
        s.tree[GT_TREE_SUM(GT_PV_DISK_READ, set)] = set == 1 ? NAN : 4096.0 * (set + 1);
        s.tree[GT_TREE_SUM(GT_PV_DISK_WRITE, set)] = set == 1 ? 0 : 1e15 + set;
    }
    s.tree[GT_TREE_RATE(GT_PV_DISK_READ)] = 2048.5;
    s.tree[GT_TREE_RATE(GT_PV_DISK_WRITE)] = 0;
    assert_int_equal(gt_store_append(st, &s, &err), GT_OK);
    assert_int_equal(gt_store_close(&st, &err), GT_OK);
    char *got[8];
    assert_int_equal(read_lines(path, got, 8), 7);
    static const char *const disk[] = {
        "timestamp", "900.0", "main_disk_read_bytes", "4096", "descendants_disk_read_bytes", "",
        "combined_disk_read_bytes", "12288", "main_disk_write_bytes", "1000000000000000",
        "descendants_disk_write_bytes", "0", "combined_disk_write_bytes", "1000000000000002",
        "combined_disk_read_bytes_per_second", "2048.5", "combined_disk_write_bytes_per_second", "0.0",
        "cpu_energy_joules", "", "dram_energy_joules", "", "gpu_energy_joules", "", NULL};
    check_after_timestamp(got[6], 1, disk);
    /* No disk counters read: empty cells, never 0. */
    static const char *const unread[] = {
        "main_disk_read_bytes", "", "descendants_disk_read_bytes", "", "combined_disk_read_bytes", "",
        "main_disk_write_bytes", "", "descendants_disk_write_bytes", "", "combined_disk_write_bytes", "",
        "combined_disk_read_bytes_per_second", "", "combined_disk_write_bytes_per_second", "",
        "cpu_energy_joules", "", "dram_energy_joules", "", "gpu_energy_joules", "", NULL};
    check_after_timestamp(got[3], 1, unread);
    check_after_timestamp(got[4], 1, unread);
    assert_string_equal(got[3], "9131.0,12276.0,16981.0,30000000000.0,0.0,0.0,0.0,0.0,,,0,5,5,,,,,,,,,900.0");
    assert_string_equal(got[4], "9131.0,12276.0,16981.0,30000000000.0,0.0,0.0,0.0,0.0,-0.0,-0.0,0,5,5,"
                                "270.5,67.625,60.4,20.133333333333333,134.3,44.76666666666667,"
                                "194.7,64.89999999999999,900.0");
    assert_memory_equal(got[5], "9131.0,12276.0,16981.0,30000000000.0,0.0,0.0,0.0,0.0,0.0,0.0,", 60);
    free(got[0]);
    unlink(path);
}

static char *query_text(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &q, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    const unsigned char *t = sqlite3_column_text(q, 0);
    char *r = strdup(t ? (const char *)t : "(null)");
    sqlite3_finalize(q);
    return r;
}

/* The tables the Python package creates, spelled as it spells them (read
 * from a file it wrote), and the same figures as the CSV file. */
static void test_sqlite_layout(void **state)
{
    (void)state;
    char path[] = "/tmp/gt-test-store-XXXXXX.sqlite";
    int fd = mkstemps(path, 7);
    assert_true(fd >= 0);
    close(fd);
    write_file(path, &cases[2], 1, 1);

    char ref[512];
    snprintf(ref, sizeof ref, "%s/sub-tracking/tracking.sqlite", ref_dir());
    sqlite3 *py, *db;
    assert_int_equal(sqlite3_open_v2(ref, &py, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    const char *tables[] = {"data", "static_data"};
    for (int i = 0; i < 2; i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT sql FROM sqlite_master WHERE type='table' AND name='%s'",
                 tables[i]);
        char *want = query_text(py, sql), *got = query_text(db, sql);
        /* data: the Python package's columns, then gpu-tracker's own. */
        const char *py_end = "\ttimestamp FLOAT\n)";
        char *end = strstr(want, py_end);
        char full[4096], tail[4096];
        layout_schema_tail(1, tail, sizeof tail);
        if (i == 0 && end && !end[strlen(py_end)])
            assert_true(snprintf(full, sizeof full, "%.*s\ttimestamp FLOAT, \n%s", (int)(end - want), want, tail) <
                        (int)sizeof full);
        else
            snprintf(full, sizeof full, "%s", want);
        assert_string_equal(got, full);
        free(want);
        free(got);
    }
    char *v = query_text(db, "SELECT count(*) FROM sqlite_master WHERE type='table'");
    assert_string_equal(v, "2");
    free(v);
    v = query_text(db, "SELECT ram_unit || ',' || gpu_ram_unit || ',' || time_unit || ',' || "
                       "n_expected_cores || ',' || n_expected_gpus FROM static_data");
    assert_string_equal(v, "kilobytes,gigabytes,minutes,2,1");
    free(v);
    v = query_text(db, "SELECT count(*) FROM data");
    assert_string_equal(v, "3");
    free(v);
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT main_ram, combined_gpu_ram, "
                                            "cpu_main_hardware_utilization_percent, timestamp "
                                            "FROM data ORDER BY timestamp", -1, &q, NULL),
                     SQLITE_OK);
    const double want[3][4] = {{9.131, 0.0, 30.2, 900}, {12.005, 2.5, 99.45, 1000},
                               {16.753999999999998, 5.8, 49.9, 1100}};
    for (int r = 0; r < 3; r++) {
        assert_int_equal(sqlite3_step(q), SQLITE_ROW);
        for (int c = 0; c < 4; c++)
            assert_true(sqlite3_column_double(q, c) == want[r][c]);
    }
    sqlite3_finalize(q);
    sqlite3_close(db);
    /* Without energy, table data is the Python package's to the letter up
     * to timestamp, then gpu-tracker's own columns. */
    write_file(path, &cases[2], 1, 0);
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    const char *schema = "SELECT sql FROM sqlite_master WHERE type='table' AND name='data'";
    char *want_schema = query_text(py, schema), *got_schema = query_text(db, schema);
    char *py_tail = strstr(want_schema, "\ttimestamp FLOAT\n)");
    assert_non_null(py_tail);
    char full_schema[4096], tail[4096];
    layout_schema_tail(0, tail, sizeof tail);
    assert_true(snprintf(full_schema, sizeof full_schema, "%.*s\ttimestamp FLOAT, \n%s",
                         (int)(py_tail - want_schema), want_schema, tail) < (int)sizeof full_schema);
    assert_string_equal(got_schema, full_schema);
    free(want_schema);
    free(got_schema);
    v = query_text(db, "SELECT count(*) FROM data");
    assert_string_equal(v, "3");
    free(v);
    sqlite3_close(db);
    sqlite3_close(py);
    unlink(path);
}

/* Another program holding the write lock while samples arrive: the rows
 * wait in order, nothing is lost, and no append fails. */
static void test_sqlite_outside_writer(void **state)
{
    (void)state;
    char path[] = "/tmp/gt-test-store-XXXXXX.sqlite";
    int fd = mkstemps(path, 7);
    assert_true(fd >= 0);
    close(fd);
    gt_static_data sd = static_of(&cases[0]);
    gt_store *st = NULL;
    gt_error err;
    assert_int_equal(gt_store_open(path, 1, &sd, 0, &st, &err), GT_OK);
    gt_sample smp = sample_of(&cases[0], 0);
    smp.timestamp = 1;
    assert_int_equal(gt_store_append(st, &smp, &err), GT_OK);
    sqlite3 *other;
    assert_int_equal(sqlite3_open(path, &other), SQLITE_OK);
    assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE; CREATE TABLE mine (x)", NULL, NULL, NULL), SQLITE_OK);
    for (int i = 2; i <= 4; i++) { /* while the lock is held */
        smp.timestamp = i;
        assert_int_equal(gt_store_append(st, &smp, &err), GT_OK);
    }
    assert_int_equal(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    smp.timestamp = 5;
    assert_int_equal(gt_store_append(st, &smp, &err), GT_OK);
    /* A row still queued when the lock is released is written at close. */
    assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE; INSERT INTO mine VALUES (1)", NULL, NULL, NULL), SQLITE_OK);
    smp.timestamp = 6;
    assert_int_equal(gt_store_append(st, &smp, &err), GT_OK);
    assert_int_equal(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(gt_store_close(&st, &err), GT_OK);
    char *v = query_text(other, "SELECT group_concat(timestamp, ' ') FROM (SELECT timestamp FROM data ORDER BY rowid)");
    assert_string_equal(v, "1.0 2.0 3.0 4.0 5.0 6.0");
    free(v);
    sqlite3_close(other);
    unlink(path);
}

/* A lock held for long: the queue holds GT_LOCKWAIT_QUEUE_BYTES of rows
 * (GT_STORE_MAX_COLUMNS cells each); the samples after are dropped and
 * counted at close, and every queued one is written once the lock is free,
 * in order. */
static void test_sqlite_queue_cap(void **state)
{
    (void)state;
    char path[] = "/tmp/gt-test-store-XXXXXX.sqlite";
    int fd = mkstemps(path, 7);
    assert_true(fd >= 0);
    close(fd);
    gt_static_data sd = static_of(&cases[0]);
    gt_store *st = NULL;
    gt_error err;
    assert_int_equal(gt_store_open(path, 1, &sd, 0, &st, &err), GT_OK);
    gt_lockwait w;
    gt_lockwait_arm(&w, 0); /* no waiting: this test holds the lock */
    gt_store_set_lockwait(st, &w);
    sqlite3 *other;
    assert_int_equal(sqlite3_open(path, &other), SQLITE_OK);
    assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    const size_t fit = GT_LOCKWAIT_QUEUE_BYTES / (GT_STORE_MAX_COLUMNS * sizeof(gt_cell));
    const size_t n = fit + 100;
    gt_sample smp = sample_of(&cases[0], 0);
    for (size_t i = 1; i <= n; i++) {
        smp.timestamp = (double)i;
        assert_int_equal(gt_store_append(st, &smp, &err), GT_OK);
    }
    assert_int_equal(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    gt_lockwait_arm(&w, GT_LOCKWAIT_CLOSE_MS);
    assert_int_equal(gt_store_close(&st, &err), GT_ERR_IO);
    char want[96];
    snprintf(want, sizeof want, "cannot write %zu samples to table 'data'", n - fit);
    assert_non_null(strstr(err.msg, want));
    char *v = query_text(other, "SELECT count(*) || ' ' || min(timestamp) || ' ' || max(timestamp) || ' ' || "
                                "sum(timestamp) FROM data");
    char expect[96];
    snprintf(expect, sizeof expect, "%zu 1.0 %zu.0 %zu.0", fit, fit, fit * (fit + 1) / 2);
    assert_string_equal(v, expect);
    free(v);
    sqlite3_close(other);
    unlink(path);
}

/* The rows that waited for a lock are not kept once written: a long wait's
 * queue (8 MiB here) is given back to the allocator, where it was kept
 * before at its largest for the rest of the run. */
static void test_sqlite_queue_released(void **state)
{
    (void)state;
    char path[] = "/tmp/gt-test-store-XXXXXX.sqlite";
    int fd = mkstemps(path, 7);
    assert_true(fd >= 0);
    close(fd);
    gt_static_data sd = static_of(&cases[0]);
    gt_store *st = NULL;
    gt_error err;
    assert_int_equal(gt_store_open(path, 1, &sd, 0, &st, &err), GT_OK);
    gt_lockwait w;
    gt_lockwait_arm(&w, 0); /* no waiting: this test holds the lock */
    gt_store_set_lockwait(st, &w);
    sqlite3 *other;
    assert_int_equal(sqlite3_open(path, &other), SQLITE_OK);
    assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    const size_t row = GT_STORE_MAX_COLUMNS * sizeof(gt_cell), n = (8u << 20) / row;
    gt_sample smp = sample_of(&cases[0], 0);
    for (size_t i = 1; i <= n; i++) {
        smp.timestamp = (double)i;
        assert_int_equal(gt_store_append(st, &smp, &err), GT_OK);
    }
    size_t held = heap_in_use();
    assert_int_equal(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    smp.timestamp = (double)(n + 1);
    assert_int_equal(gt_store_append(st, &smp, &err), GT_OK); /* writes the queue and this sample */
    size_t after = heap_in_use();
    /* Half the queue's bytes at least: SQLite's page cache (2 MiB by
     * default) may grow while it writes the rows. */
    if (!(after + n * row / 2 <= held))
        fail_msg("%zu bytes in use with %zu rows waiting, %zu after they were written: the queue was kept", held, n,
                 after);
    char *v = query_text(other, "SELECT count(*) FROM data");
    char want[32];
    snprintf(want, sizeof want, "%zu", n + 1);
    assert_string_equal(v, want);
    free(v);
    assert_int_equal(gt_store_close(&st, &err), GT_OK);
    sqlite3_close(other);
    unlink(path);
}

/* Another program truncates the CSV file mid-run: the next row is refused
 * with a message, rather than written after a hole of NUL bytes. */
static void test_csv_truncated_by_another_program(void **state)
{
    (void)state;
    char path[] = "/tmp/gt-test-store-XXXXXX.csv";
    int fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    close(fd);
    gt_static_data sd = static_of(&cases[0]);
    gt_store *st = NULL;
    gt_error err;
    assert_int_equal(gt_store_open(path, 1, &sd, 1, &st, &err), GT_OK);
    gt_sample smp = sample_of(&cases[0], 0);
    assert_int_equal(gt_store_append(st, &smp, &err), GT_OK);
    assert_int_equal(truncate(path, 0), 0);
    assert_int_equal(gt_store_append(st, &smp, &err), GT_ERR_IO);
    assert_non_null(strstr(err.msg, "was truncated by another program while tracking"));
    assert_int_equal(gt_store_close(&st, &err), GT_OK);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fgetc(f), EOF); /* no NUL bytes, no headless row */
    fclose(f);
    unlink(path);
}

/* An existing file (or a link in its place) is refused and left as it was;
 * overwrite replaces it; an unknown extension is refused. */
static void test_existing_file(void **state)
{
    (void)state;
    const char *exts[] = {".csv", ".sqlite"};
    for (int i = 0; i < 2; i++) {
        char path[64];
        snprintf(path, sizeof path, "/tmp/gt-test-store-XXXXXX%s", exts[i]);
        int fd = mkstemps(path, (int)strlen(exts[i]));
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "keep\n", 5), 5);
        close(fd);
        gt_static_data sd = static_of(&cases[0]);
        gt_store *st = NULL;
        gt_error err;
        assert_int_equal(gt_store_open(path, 0, &sd, 1, &st, &err), GT_ERR_EXISTS);
        assert_null(st);
        assert_non_null(strstr(err.msg, "--overwrite"));
        char *got[2];
        assert_int_equal(read_lines(path, got, 2), 1);
        assert_string_equal(got[0], "keep");
        free(got[0]);
        write_file(path, &cases[0], 1, 1);
        unlink(path);
    }
    gt_static_data sd = static_of(&cases[0]);
    gt_store *st = NULL;
    gt_error err;
    assert_int_equal(gt_store_open("/tmp/gt-test-store.txt", 1, &sd, 1, &st, &err), GT_ERR_INVALID);
    assert_non_null(strstr(err.msg, "'.csv' or '.sqlite'"));
}

/* Static columns of gpu-tracker's own after the Python package's: given at
 * open (the node) and added before the first sample (a model's complexity),
 * quoted in CSV where needed; refused after a sample or with a bad key. */
static void test_extra_static(void **state)
{
    (void)state;
    gt_static_data sd = static_of(&cases[0]);
    const gt_store_extra node[] = {{"host", "n1"}, {"slurm_task_id", NULL}};
    const char *const paths[] = {"/tmp/gt-test-store-extra.csv", "/tmp/gt-test-store-extra.sqlite"};
    for (int i = 0; i < 2; i++) {
        gt_store *st;
        gt_error err;
        assert_int_equal(gt_store_open_extra(paths[i], 1, &sd, 0, node, 2, NULL, 0, &st, &err), GT_OK);
        assert_int_equal(gt_store_add_static(st, "model_not_counted", "ReLU,GELU", &err), GT_OK);
        assert_int_equal(gt_store_add_static(st, "Bad key", "1", &err), GT_ERR_INVALID);
        assert_int_equal(gt_store_add_static(st, "host", "n2", &err), GT_ERR_INVALID);
        assert_int_equal(gt_store_add_static(st, "model_macs", "42", &err), GT_OK);
        gt_sample s = sample_of(&cases[0], 0);
        assert_int_equal(gt_store_append(st, &s, &err), GT_OK);
        assert_int_equal(gt_store_add_static(st, "late", "1", &err), GT_ERR_STATE);
        assert_int_equal(gt_store_close(&st, &err), GT_OK);
        if (i == 0) {
            char *got[8];
            assert_int_equal(read_lines(paths[i], got, 8), 4);
            assert_string_equal(got[0], "ram_unit,gpu_ram_unit,time_unit,ram_system_capacity,"
                                        "gpu_ram_system_capacity,system_core_count,n_expected_cores,"
                                        "system_gpu_count,n_expected_gpus,host,slurm_task_id,model_not_counted,"
                                        "model_macs");
            assert_non_null(strstr(got[1], ",n1,,\"ReLU,GELU\",42"));
            assert_memory_equal(got[2], "main_ram,", 9);
            free(got[0]);
        } else {
            sqlite3 *db = NULL;
            assert_int_equal(sqlite3_open(paths[i], &db), SQLITE_OK);
            char *v = query_text(db, "SELECT host || '/' || ifnull(slurm_task_id, 'null') || '/' || "
                                     "model_not_counted || '/' || model_macs FROM static_data");
            assert_string_equal(v, "n1/null/ReLU,GELU/42");
            free(v);
            v = query_text(db, "SELECT count(*) FROM data");
            assert_string_equal(v, "1");
            free(v);
            sqlite3_close(db);
        }
        unlink(paths[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_matches_reference),
        cmocka_unit_test(test_csv_empty_cells),
        cmocka_unit_test(test_sqlite_layout),
        cmocka_unit_test(test_sqlite_outside_writer),
        cmocka_unit_test(test_sqlite_queue_cap),
        cmocka_unit_test(test_sqlite_queue_released),
        cmocka_unit_test(test_csv_truncated_by_another_program),
        cmocka_unit_test(test_existing_file),
        cmocka_unit_test(test_extra_static),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
