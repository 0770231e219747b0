/* SPDX-License-Identifier: MIT */
/* Reports equal the Python package's output byte for byte; gpu-tracker's
 * own sections follow in their order, the metric table's own rows in the
 * Other metrics section (labels, keys and units from the table). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpu_tracker.h"
#include "report/usage_write.h"
#include "own_column.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *b = malloc(1 << 16);
    *len = fread(b, 1, (1 << 16) - 1, f);
    b[*len] = '\0';
    fclose(f);
    return b;
}

static char *render(const gt_usage *u, gt_format fmt)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(gt_usage_write(u, fmt, f), GT_OK);
    fclose(f);
    return buf;
}

static const char *ref_dir(void)
{
    const char *d = getenv("GT_REF");
    return d ? d : "tests/fixtures/reference";
}

/* The usage behind tracker-output/False-Linux-bytes-megabytes-seconds: the values
 * of its JSON file, in the units named there. */
static gt_usage bytes_megabytes_seconds(void)
{
    gt_usage u = GT_USAGE_INIT;
    u.max_ram.unit = "bytes";
    u.max_ram.system_capacity = 67000000000.0;
    u.max_ram.system = 31000000000.0;
    u.max_ram.main = (gt_rss_values){16754.0, 6718.0, 10036.0};
    u.max_ram.descendants = (gt_rss_values){30208.0, 13818.0, 16390.0};
    u.max_ram.combined = (gt_rss_values){42553.0, 20536.0, 22017.0};
    u.max_gpu_ram.unit = "megabytes";
    u.max_gpu_ram.system_capacity = 36594.0;
    u.max_gpu_ram.system = 6500.0;
    u.max_gpu_ram.main = 1600.0;
    u.max_gpu_ram.descendants = 4300.0;
    u.max_gpu_ram.combined = 5800.0;
    u.cpu_utilization.system_core_count = 4;
    u.cpu_utilization.n_expected_cores = 3;
    u.cpu_utilization.system = (gt_percentages){276.3, 69.075, 261.9666666666667, 65.49166666666667};
    u.cpu_utilization.main = (gt_percentages){198.9, 66.3, 119.7, 39.9};
    u.cpu_utilization.descendants = (gt_percentages){142.2, 47.4, 129.73333333333332, 43.24444444444445};
    u.cpu_utilization.combined = (gt_percentages){311.6, 103.86666666666667, 249.4333333333333, 83.14444444444445};
    u.cpu_utilization.main_n_threads = 2;
    u.cpu_utilization.descendants_n_threads = 6;
    u.cpu_utilization.combined_n_threads = 8;
    u.gpu_utilization.system_gpu_count = 3;
    u.gpu_utilization.n_expected_gpus = 3;
    u.gpu_utilization.gpu_percentages = (gt_percentages){150.0, 50.0, 95.0, 31.666666666666668};
    u.compute_time.unit = "seconds";
    u.compute_time.time = 300.0;
    u.peak_ram.main = u.peak_ram.largest_descendant = -1; /* not in the Python layout */
    return u;
}

/* The reference JSON files are laid out with indent=2, the Python package's
 * command line (and ours) prints indent=1: the reference's indentation is
 * halved, everything else must match byte for byte. */
static void halve_indentation(char *s)
{
    char *w = s;
    for (char *r = s; *r;) {
        size_t n = 0;
        while (r[n] == ' ')
            n++;
        for (size_t i = 0; i < n / 2; i++)
            *w++ = ' ';
        r += n;
        while (*r && *r != '\n')
            *w++ = *r++;
        if (*r)
            *w++ = *r++;
    }
    *w = '\0';
}

static void expect_file(const char *name, const char *got)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tracker-output/%s", ref_dir(), name);
    size_t len;
    char *want = slurp(path, &len);
    if (strstr(name, ".json"))
        halve_indentation(want);
    assert_string_equal(got, want);
    free(want);
}

static void test_text_matches_reference(void **state)
{
    (void)state;
    gt_usage u = bytes_megabytes_seconds();
    char *got = render(&u, GT_FORMAT_TEXT);
    expect_file("False-Linux-bytes-megabytes-seconds.txt", got);
    free(got);
}

static void test_json_matches_reference(void **state)
{
    (void)state;
    gt_usage u = bytes_megabytes_seconds();
    char *got = render(&u, GT_FORMAT_JSON);
    expect_file("False-Linux-bytes-megabytes-seconds.json", got);
    free(got);
}

static double num(const cJSON *o, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    const cJSON *cur = o;
    for (char *tok = strtok(buf, "."); tok; tok = strtok(NULL, "."))
        cur = cJSON_GetObjectItemCaseSensitive(cur, tok);
    assert_non_null(cur);
    return cur->valuedouble;
}

static gt_percentages pcts(const cJSON *o, const char *base)
{
    char k[128];
    gt_percentages p;
    snprintf(k, sizeof k, "%s.max_sum_percent", base);
    p.max_sum_percent = num(o, k);
    snprintf(k, sizeof k, "%s.max_hardware_percent", base);
    p.max_hardware_percent = num(o, k);
    snprintf(k, sizeof k, "%s.mean_sum_percent", base);
    p.mean_sum_percent = num(o, k);
    snprintf(k, sizeof k, "%s.mean_hardware_percent", base);
    p.mean_hardware_percent = num(o, k);
    return p;
}

static gt_rss_values rssv(const cJSON *o, const char *base)
{
    char k[128];
    gt_rss_values r;
    snprintf(k, sizeof k, "%s.total_rss", base);
    r.total_rss = num(o, k);
    snprintf(k, sizeof k, "%s.private_rss", base);
    r.private_rss = num(o, k);
    snprintf(k, sizeof k, "%s.shared_rss", base);
    r.shared_rss = num(o, k);
    return r;
}

/* Every reference report: the usage read from its JSON renders to exactly
 * its .txt and .json. */
static void test_all_references(void **state)
{
    (void)state;
    const char *names[] = {"False-Linux-bytes-megabytes-seconds", "False-Linux-kilobytes-bytes-days",
                           "False-Linux-kilobytes-gigabytes-minutes", "False-Linux-megabytes-kilobytes-hours",
                           "True-Linux-bytes-megabytes-seconds", "True-Linux-kilobytes-bytes-days",
                           "True-Linux-kilobytes-gigabytes-minutes", "True-Linux-megabytes-kilobytes-hours"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char path[512], fname[256];
        size_t len;
        snprintf(path, sizeof path, "%s/tracker-output/%s.json", ref_dir(), names[i]);
        char *text = slurp(path, &len);
        cJSON *j = cJSON_Parse(text);
        assert_non_null(j);
        gt_usage u = GT_USAGE_INIT;
        u.max_ram.unit = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "max_ram"), "unit")->valuestring;
        u.max_ram.system_capacity = num(j, "max_ram.system_capacity");
        u.max_ram.system = num(j, "max_ram.system");
        u.max_ram.main = rssv(j, "max_ram.main");
        u.max_ram.descendants = rssv(j, "max_ram.descendants");
        u.max_ram.combined = rssv(j, "max_ram.combined");
        u.max_gpu_ram.unit = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "max_gpu_ram"), "unit")->valuestring;
        u.max_gpu_ram.system_capacity = num(j, "max_gpu_ram.system_capacity");
        u.max_gpu_ram.system = num(j, "max_gpu_ram.system");
        u.max_gpu_ram.main = num(j, "max_gpu_ram.main");
        u.max_gpu_ram.descendants = num(j, "max_gpu_ram.descendants");
        u.max_gpu_ram.combined = num(j, "max_gpu_ram.combined");
        u.cpu_utilization.system_core_count = (int)num(j, "cpu_utilization.system_core_count");
        u.cpu_utilization.n_expected_cores = (int)num(j, "cpu_utilization.n_expected_cores");
        u.cpu_utilization.system = pcts(j, "cpu_utilization.system");
        u.cpu_utilization.main = pcts(j, "cpu_utilization.main");
        u.cpu_utilization.descendants = pcts(j, "cpu_utilization.descendants");
        u.cpu_utilization.combined = pcts(j, "cpu_utilization.combined");
        u.cpu_utilization.main_n_threads = (int)num(j, "cpu_utilization.main_n_threads");
        u.cpu_utilization.descendants_n_threads = (int)num(j, "cpu_utilization.descendants_n_threads");
        u.cpu_utilization.combined_n_threads = (int)num(j, "cpu_utilization.combined_n_threads");
        u.gpu_utilization.system_gpu_count = (int)num(j, "gpu_utilization.system_gpu_count");
        u.gpu_utilization.n_expected_gpus = (int)num(j, "gpu_utilization.n_expected_gpus");
        u.gpu_utilization.gpu_percentages = pcts(j, "gpu_utilization.gpu_percentages");
        u.compute_time.unit = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "compute_time"), "unit")->valuestring;
        u.compute_time.time = num(j, "compute_time.time");
        u.peak_ram.main = u.peak_ram.largest_descendant = -1;
        char *got = render(&u, GT_FORMAT_JSON);
        snprintf(fname, sizeof fname, "%s.json", names[i]);
        expect_file(fname, got);
        free(got);
        got = render(&u, GT_FORMAT_TEXT);
        snprintf(fname, sizeof fname, "%s.txt", names[i]);
        expect_file(fname, got);
        free(got);
        cJSON_Delete(j);
        free(text);
    }
}

/* Rounding in text: str(round(x, 3)) with Python's rules. */
static void test_text_rounding(void **state)
{
    (void)state;
    gt_usage u = bytes_megabytes_seconds();
    u.compute_time.time = 0.0010899075534608628;
    u.max_ram.main.total_rss = 16.753999999999998;
    u.max_ram.system = 2.5132195840000002;
    char *got = render(&u, GT_FORMAT_TEXT);
    assert_non_null(strstr(got, "   Unit: seconds\n   Time: 0.001"));
    assert_non_null(strstr(got, "      Total RSS: 16.754\n"));
    assert_non_null(strstr(got, "   System: 2.513\n"));
    free(got);
    got = render(&u, GT_FORMAT_JSON);
    assert_non_null(strstr(got, "\"time\": 0.0010899075534608628\n"));
    assert_non_null(strstr(got, "\"total_rss\": 16.753999999999998,\n"));
    free(got);
}

static void test_peak_section(void **state)
{
    (void)state;
    gt_usage u = bytes_megabytes_seconds();
    u.peak_ram.unit = "bytes";
    u.peak_ram.main = 209715200.0;
    u.peak_ram.largest_descendant = -1;
    u.peak_ram_method.main = "exact";
    u.peak_ram_method.largest_descendant = NULL;
    char *got = render(&u, GT_FORMAT_TEXT);
    assert_non_null(strstr(got, "   Time: 300.0\nPeak RAM (kernel high-water mark):\n   Unit: bytes\n"
                                "   Main: 209715200.0\n   Largest descendant: unavailable\n"
                                "   Main method: exact\n   Largest descendant method: unavailable\n"
                                "   Max RAM method: sampled: the largest at one sample, a lower bound of the peak"));
    free(got);
    got = render(&u, GT_FORMAT_JSON);
    assert_non_null(strstr(got, " },\n \"peak_ram\": {\n  \"unit\": \"bytes\",\n  \"main\": 209715200.0,\n"
                                "  \"largest_descendant\": null,\n  \"main_method\": \"exact\",\n"
                                "  \"largest_descendant_method\": null,\n"
                                "  \"max_ram_method\": "
                                "\"sampled: the largest at one sample, a lower bound of the peak\"\n }\n}"));
    free(got);
}

/* The max_ram methods: a section of our own after Peak RAM, with the reason
 * only where the figures are not exact; none for a usage without them. */
static void test_max_ram_method_section(void **state)
{
    (void)state;
    gt_usage u = bytes_megabytes_seconds();
    u.peak_ram.main = u.peak_ram.largest_descendant = -1;
    u.max_ram_method.main = u.max_ram_method.descendants = u.max_ram_method.combined = "exact (kernel events)";
    u.max_ram_method.combined_peak_time = 1795656861.529881;
    u.max_ram_method.bound_per_process = 0.786;
    u.max_ram_method.processes = 3;
    char *got = render(&u, GT_FORMAT_TEXT);
    assert_non_null(strstr(got, "   Time: 300.0\nMax RAM method:\n   Main: exact (kernel events)\n"
                                "   Descendants: exact (kernel events)\n   Combined: exact (kernel events)\n"
                                "   Main peak time: 0.0\n   Descendants peak time: 0.0\n"
                                "   Combined peak time: 1795656861.53\n   Bound per process: 0.786\n"
                                "   Processes: 3"));
    assert_null(strstr(got, "Reason"));
    free(got);
    u.max_ram_method.main = u.max_ram_method.descendants = u.max_ram_method.combined = "lower bound (sampled)";
    u.max_ram_method.processes = 0;
    snprintf(u.max_ram_method.reason, sizeof u.max_ram_method.reason, "the event backend is off (events off)");
    got = render(&u, GT_FORMAT_JSON);
    assert_non_null(strstr(got, "  \"processes\": 0,\n  \"reason\": \"the event backend is off (events off)\"\n }"));
    free(got);
    u.max_ram_method.main = u.max_ram_method.descendants = u.max_ram_method.combined = NULL;
    got = render(&u, GT_FORMAT_JSON);
    assert_null(strstr(got, "max_ram_method"));
    free(got);
}

/* Memory that could not be read reads "unavailable" / null, with the reason
 * once, never 0. */
static void test_ram_unavailable(void **state)
{
    (void)state;
    gt_usage u = bytes_megabytes_seconds();
    u.peak_ram.main = u.peak_ram.largest_descendant = -1;
    u.max_ram.main = (gt_rss_values){-1, -1, -1};
    u.max_ram.combined = (gt_rss_values){-1, -1, -1};
    snprintf(u.ram_unavailable, sizeof u.ram_unavailable, "the memory of process 7 cannot be read: x");
    char *got = render(&u, GT_FORMAT_TEXT);
    assert_non_null(strstr(got, "   Main:\n      Total RSS: unavailable\n      Private RSS: unavailable\n"
                                "      Shared RSS: unavailable\n"));
    assert_non_null(strstr(got, "   Unavailable: the memory of process 7 cannot be read: x\nMax GPU RAM:"));
    free(got);
    got = render(&u, GT_FORMAT_JSON);
    assert_non_null(strstr(got, "\"main\": {\n   \"total_rss\": null,\n   \"private_rss\": null,\n"
                                "   \"shared_rss\": null\n  }"));
    assert_non_null(strstr(got, "  \"unavailable\": \"the memory of process 7 cannot be read: x\"\n },\n"
                                " \"max_gpu_ram\""));
    free(got);
}

/* Where each title starts in text, or -1 when missing. */
static long where(const char *text, const char *title)
{
    const char *p = strstr(text, title);
    return p ? (long)(p - text) : -1;
}

/* gpu-tracker's own sections come after the Python package's, in one fixed
 * order: peak RAM, the GPU's per-process SM utilization, GPU power.
 * Scripts that read the text report section by section rely on it. */
static void test_own_sections_in_order(void **state)
{
    (void)state;
    gt_usage u = bytes_megabytes_seconds();
    u.peak_ram.unit = "bytes";
    u.peak_ram.main = 1.0;
    u.peak_ram.largest_descendant = 2.0;
    u.gpu_process_utilization.available = 1;
    u.gpu_process_utilization.main = (gt_percentages){10, 10, 5, 5};
    u.gpu_power.available = 1;
    u.gpu_power.unit = "watts";
    u.gpu_power.max = 250;
    u.gpu_power.mean = 100;
    static const char *const text[] = {"\nCompute time:\n", "\nPeak RAM (kernel high-water mark):\n",
                                       "\nGPU process utilization (SM):\n", "\nGPU power:\n"};
    static const char *const json[] = {"\"compute_time\": {", "\"peak_ram\": {", "\"gpu_process_utilization\": {",
                                       "\"gpu_power\": {"};
    for (int f = 0; f < 2; f++) {
        char *got = render(&u, f ? GT_FORMAT_JSON : GT_FORMAT_TEXT);
        const char *const *titles = f ? json : text;
        long prev = where(got, f ? "\"max_ram\": {" : "Max RAM:\n");
        assert_true(prev >= 0);
        for (int i = 0; i < 4; i++) {
            long at = where(got, titles[i]);
            if (at <= prev)
                fail_msg("'%s' at %ld, not after the section before it (at %ld)", titles[i], at, prev);
            prev = at;
        }
        free(got);
    }
}

/* --per-process: the top processes last, each list keyed by rank; a peak
 * that could not be read is unavailable / null; the whole JSON parses. */
static void test_top_processes(void **state)
{
    (void)state;
    gt_usage u = bytes_megabytes_seconds();
    char *got = render(&u, GT_FORMAT_TEXT);
    assert_null(strstr(got, "Top processes"));
    free(got);
    u.top_processes.available = 1;
    u.top_processes.n = 2;
    u.top_processes.by_peak_ram[0] = (struct gt_top_process){41, "pf_child_a", 125829120.0, 1.25};
    u.top_processes.by_peak_ram[1] = (struct gt_top_process){40, "a \"b\"", -1, 0.5};
    u.top_processes.by_cpu_seconds[0] = u.top_processes.by_peak_ram[0];
    u.top_processes.by_cpu_seconds[1] = u.top_processes.by_peak_ram[1];
    got = render(&u, GT_FORMAT_TEXT);
    assert_non_null(strstr(got, "   Time: 300.0\nTop processes:\n   Unit: bytes\n"
                                "   Peak RSS method: lower bound (sampled)\n   By peak RAM:\n      1:\n"
                                "         PID: 41\n         Command: pf_child_a\n         Peak RSS: 125829120.0\n"
                                "         CPU seconds: 1.25\n      2:\n         PID: 40\n         Command: a \"b\"\n"
                                "         Peak RSS: unavailable\n         CPU seconds: 0.5\n   By CPU seconds:\n"));
    free(got);
    got = render(&u, GT_FORMAT_JSON);
    cJSON *j = cJSON_Parse(got);
    assert_non_null(j);
    cJSON *top = cJSON_GetObjectItemCaseSensitive(j, "top_processes");
    cJSON *second = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(top, "by_peak_ram"), "2");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(second, "command")->valuestring, "a \"b\"");
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(second, "peak_rss")));
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(second, "pid")->valueint, 40);
    cJSON *first = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(top, "by_cpu_seconds"), "1");
    assert_true(cJSON_GetObjectItemCaseSensitive(first, "cpu_seconds")->valuedouble == 1.25);
    assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(top, "by_cpu_seconds"), "3"));
    cJSON_Delete(j);
    free(got);
    u.peak_ram_method.largest_descendant = "exact";
    got = render(&u, GT_FORMAT_JSON);
    assert_non_null(strstr(got, "\"peak_rss_method\": \"kernel high-water mark\""));
    free(got);
}

static char *render_own(const gt_usage *u, const gt_metric_run *run, gt_format fmt)
{
    char *got = NULL;
    assert_int_equal(gt_report_string(u, run, fmt, &got), GT_OK);
    return got;
}

/* The metric table's own rows: after the Python package's sections and
 * ours but Top processes (which ends the report), each row's figures
 * under its label and unit, unread figures unavailable / null, a row
 * with none read left out, and no section without a figure. */
static void test_other_metrics(void **state)
{
    (void)state;
    gt_usage u = bytes_megabytes_seconds();
    u.gpu_power.available = 1;
    u.gpu_power.unit = "watts";
    u.top_processes.available = 1;
    gt_metric_run run = {.n_samples = 3};
    for (int k = 0; k < GT_METRIC_NOWN_COLUMNS; k++)
        run.value[k] = NAN;
    char *got = render_own(&u, &run, GT_FORMAT_TEXT), *plain = NULL;
    assert_int_equal(gt_usage_string(&u, GT_FORMAT_TEXT, &plain), GT_OK);
    assert_string_equal(got, plain); /* nothing read: the report without it */
    gt_string_free(&got);
    gt_string_free(&plain);

    run.value[own("main_disk_read_bytes")] = 1024;
    run.value[own("descendants_disk_read_bytes")] = 0;
    run.value[own("combined_disk_read_bytes_per_second")] = 2.5;
    got = render_own(&u, &run, GT_FORMAT_TEXT);
    assert_non_null(strstr(got, "   Mean: 0.0\nOther metrics:\n"
                                "   Disk read:\n      Unit: bytes\n      Main: 1024.0\n      Descendants: 0.0\n"
                                "      Combined: unavailable\n"
                                "   Disk I/O rate:\n      Unit: bytes per second\n      Read: 2.5\n"
                                "      Written: unavailable\nTop processes:\n"));
    assert_null(strstr(got, "Disk written"));
    gt_string_free(&got);
    got = render_own(&u, &run, GT_FORMAT_JSON);
    assert_non_null(strstr(got, "\n  \"mean\": 0.0\n },\n \"other_metrics\": {\n  \"disk_read\": {\n"
                                "   \"unit\": \"bytes\",\n   \"main\": 1024.0,\n   \"descendants\": 0.0,\n"
                                "   \"combined\": null\n  },\n  \"disk_rate\": {\n   \"unit\": \"bytes per second\",\n"
                                "   \"read\": 2.5,\n   \"written\": null\n  }\n },\n \"top_processes\": {"));
    cJSON *j = cJSON_Parse(got);
    assert_non_null(j);
    cJSON_Delete(j);
    gt_string_free(&got);
    /* A usage alone (gt_usage_write): no run, no section. */
    got = render(&u, GT_FORMAT_JSON);
    assert_null(strstr(got, "other_metrics"));
    free(got);
}

static void test_write_error(void **state)
{
    (void)state;
    gt_usage u = bytes_megabytes_seconds();
    FILE *f = fopen("/dev/full", "w");
    assert_non_null(f);
    setvbuf(f, NULL, _IONBF, 0);
    assert_int_equal(gt_usage_write(&u, GT_FORMAT_TEXT, f), GT_ERR_IO);
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_matches_reference), cmocka_unit_test(test_json_matches_reference),
        cmocka_unit_test(test_text_rounding),          cmocka_unit_test(test_peak_section),
        cmocka_unit_test(test_ram_unavailable),  cmocka_unit_test(test_max_ram_method_section),
        cmocka_unit_test(test_write_error),      cmocka_unit_test(test_all_references),
        cmocka_unit_test(test_own_sections_in_order), cmocka_unit_test(test_top_processes),
        cmocka_unit_test(test_other_metrics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
