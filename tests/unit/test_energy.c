/* SPDX-License-Identifier: MIT */
/* Energy: RAPL discovery and reading on a fixture sysfs tree written here,
 * wraparound, attribution by CPU-time share, units, and the report section. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "energy/energy.h"
#include "energy/rapl.h"
#include "energy/span.h"
#include "gpu_tracker.h"

/* ---- a fixture sysfs tree ------------------------------------------------ */

static char root[64];

static void put(const char *rel, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    /* Written in place, never renamed: the reader keeps energy_uj open. */
    FILE *f = fopen(path, "r+");
    if (!f)
        f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(ftruncate(fileno(f), (off_t)strlen(text)), 0);
    assert_int_equal(fclose(f), 0);
}

static void dir(const char *rel)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
}

/* zone "intel-rapl:0:1", domain name, max range, counter */
static void zone(const char *z, const char *name, const char *max, const char *uj)
{
    char rel[128];
    snprintf(rel, sizeof rel, "class/powercap/%s", z);
    dir(rel);
    snprintf(rel, sizeof rel, "class/powercap/%s/name", z);
    put(rel, name);
    snprintf(rel, sizeof rel, "class/powercap/%s/max_energy_range_uj", z);
    put(rel, max);
    snprintf(rel, sizeof rel, "class/powercap/%s/energy_uj", z);
    put(rel, uj);
}

static void counter(const char *z, const char *uj)
{
    char rel[128];
    snprintf(rel, sizeof rel, "class/powercap/%s/energy_uj", z);
    put(rel, uj);
}

static int setup_tree(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/gt-sysfs-XXXXXX");
    assert_non_null(mkdtemp(root));
    dir("class");
    dir("class/powercap");
    dir("class/powercap/intel-rapl"); /* the control type: no counter */
    zone("intel-rapl:1", "psys\n", "262143328850\n", "100\n");
    zone("intel-rapl:0", "package-0\n", "1000000000\n", "999000000\n");
    zone("intel-rapl:0:1", "dram\n", "65532610987\n", "0\n");
    zone("intel-rapl:0:0", "core\n", "65532610987\n", "500\n");
    /* The MMIO copy of package-0: reading it too would count it twice. */
    zone("intel-rapl-mmio:0", "package-0\n", "1000000000\n", "5\n");
    return 0;
}

static int teardown_tree(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

/* ---- pure helpers -------------------------------------------------------- */

static void test_delta_wraps(void **state)
{
    (void)state;
    assert_int_equal(gt_rapl_delta(100, 350, 1000), 250);
    assert_int_equal(gt_rapl_delta(900, 100, 1000), 200); /* 900 -> 1000, 0 -> 100 */
    assert_int_equal(gt_rapl_delta(1000, 0, 1000), 0);
    assert_int_equal(gt_rapl_delta(5, 5, 1000), 0);
    /* The largest counter the kernel exposes (2^32 units scaled) wraps too. */
    assert_true(gt_rapl_delta(262143328800ULL, 10, 262143328850ULL) == 60);
}

static void test_parse(void **state)
{
    (void)state;
    uint64_t v = 1;
    assert_int_equal(gt_rapl_parse_u64("123\n", 4, &v), 0);
    assert_true(v == 123);
    assert_int_equal(gt_rapl_parse_u64("18446744073709551615", 20, &v), 0);
    assert_true(v == UINT64_MAX);
    assert_int_equal(gt_rapl_parse_u64("18446744073709551616", 20, &v), -1);
    assert_int_equal(gt_rapl_parse_u64("", 0, &v), -1);
    assert_int_equal(gt_rapl_parse_u64("\n", 1, &v), -1);
    assert_int_equal(gt_rapl_parse_u64("-1\n", 3, &v), -1);
    assert_int_equal(gt_rapl_parse_u64("12x\n", 4, &v), -1);
}

static void test_units(void **state)
{
    (void)state;
    gt_energy_unit u;
    const char *names[] = {"joules", "kilojoules", "watt-hours", "kilowatt-hours"};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(gt_energy_unit_parse(names[i], &u), GT_OK);
        assert_int_equal(u, i);
        assert_string_equal(gt_energy_unit_name(u), names[i]);
    }
    assert_int_equal(gt_energy_unit_parse("watts", &u), GT_ERR_INVALID);
    assert_int_equal(gt_energy_unit_parse(NULL, &u), GT_ERR_INVALID);
}

static void test_cpu_share(void **state)
{
    (void)state;
    gt_sample s = {0};
    assert_true(gt_energy_cpu_share(&s) == 0.0); /* closes no interval */
    s.cpu_valid = 1;
    s.cpu_system_sum = 150.0;
    s.cpu_combined_sum = 75.0;
    assert_true(gt_energy_cpu_share(&s) == 0.5);
    s.cpu_combined_sum = 160.0; /* tick rounding: never above the machine */
    assert_true(gt_energy_cpu_share(&s) == 1.0);
    s.cpu_combined_sum = 0.0;
    assert_true(gt_energy_cpu_share(&s) == 0.0);
}

/* ---- on the fixture tree ------------------------------------------------- */

static void test_discovery(void **state)
{
    (void)state;
    gt_rapl *r;
    assert_int_equal(gt_rapl_open(root, &r, NULL), GT_OK);
    assert_int_equal(gt_rapl_count(r), 4);
    const char *want[] = {"package-0", "package-0:core", "package-0:dram", "psys"};
    const gt_rapl_kind kinds[] = {GT_RAPL_PACKAGE, GT_RAPL_CORE, GT_RAPL_DRAM, GT_RAPL_PSYS};
    for (int i = 0; i < 4; i++) {
        assert_string_equal(gt_rapl_name(r, i), want[i]);
        assert_int_equal(gt_rapl_kind_of(r, i), kinds[i]);
        assert_true(gt_rapl_readable(r, i));
    }
    assert_string_equal(gt_rapl_unavailable(r), "");
    uint64_t v;
    assert_int_equal(gt_rapl_read(r, 0, &v), 0);
    assert_true(v == 999000000);
    counter("intel-rapl:0", "4000000\n");
    assert_int_equal(gt_rapl_read(r, 0, &v), 0); /* the same fd, read again */
    assert_true(v == 4000000);
    counter("intel-rapl:0", "999000000\n");
    gt_rapl_close(&r);
    assert_null(r);
    gt_rapl_close(&r);
}

static gt_sample interval(double system, double combined)
{
    gt_sample s = {0};
    s.cpu_valid = 1;
    s.cpu_system_sum = system;
    s.cpu_combined_sum = combined;
    return s;
}

/* Counters advanced by known amounts give exactly those joules, through a
 * wrap of package-0; half the machine's CPU time attributes half. */
static void test_fold_exact(void **state)
{
    (void)state;
    gt_energy *e;
    assert_int_equal(gt_energy_open(root, &e, NULL), GT_OK);
    gt_energy_reading rd;
    gt_sample s0 = {0};
    gt_energy_read(e, &rd);
    gt_energy_fold(e, &rd, &s0);
    assert_true(s0.cpu_energy == 0.0 && s0.dram_energy == 0.0);
    assert_true(isnan(s0.gpu_energy));

    /* +3 J on package-0 across its wrap (999 J -> 1000 J -> 2 J), +1 J dram. */
    counter("intel-rapl:0", "2000000\n");
    counter("intel-rapl:0:1", "1000000\n");
    gt_sample s1 = interval(100.0, 50.0);
    gt_energy_read(e, &rd);
    gt_energy_fold(e, &rd, &s1);
    assert_true(s1.cpu_energy == 3.0);
    assert_true(s1.dram_energy == 1.0);

    /* +2 J more, all while the tracked processes used a quarter. */
    counter("intel-rapl:0", "4000000\n");
    gt_sample s2 = interval(200.0, 50.0);
    gt_energy_read(e, &rd);
    gt_energy_fold(e, &rd, &s2);
    assert_true(s2.cpu_energy == 5.0);

    gt_usage u = GT_USAGE_INIT;
    gt_energy_usage(e, GT_ENERGY_UNIT_JOULES, &u);
    assert_string_equal(u.energy.unit, "joules");
    assert_int_equal(u.energy.n_domains, 4);
    assert_string_equal(u.energy.cpu_unavailable, "");
    assert_string_equal(u.energy.domains[0].name, "package-0");
    assert_string_equal(u.energy.domains[0].source, "rapl");
    assert_true(u.energy.domains[0].available);
    assert_true(u.energy.domains[0].energy == 5.0);
    assert_true(u.energy.domains[0].attributed_energy == 3.0 * 0.5 + 2.0 * 0.25);
    assert_true(u.energy.domains[0].mean_power_watts > 0);
    assert_true(u.energy.domains[0].max_power_watts >= u.energy.domains[0].mean_power_watts);
    assert_true(u.energy.domains[2].energy == 1.0);
    assert_true(u.energy.domains[3].energy == 0.0); /* psys did not move: a real 0 */
    assert_non_null(strstr(u.energy.cpu_attribution_method, "cpu_time_share"));

    gt_energy_usage(e, GT_ENERGY_UNIT_WATT_HOURS, &u);
    assert_true(fabs(u.energy.domains[0].energy - 5.0 / 3600.0) < 1e-15);
    gt_energy_usage(e, GT_ENERGY_UNIT_KILOJOULES, &u);
    assert_true(fabs(u.energy.domains[0].energy - 0.005) < 1e-15);
    gt_energy_close(&e);
    assert_null(e);
    counter("intel-rapl:0", "999000000\n");
    counter("intel-rapl:0:1", "0\n");
}

/* Power per domain kind over each interval: the counter's difference (a
 * wrap included) over the interval's length, at readings whose times the
 * test sets; no interval, or a domain not read, is NaN, never 0.  DRAM is
 * also attributed by the tracked processes' share of the used RAM. */
static void test_power_exact(void **state)
{
    (void)state;
    assert_true(gt_energy_power(3.0, 2.0) == 1.5);
    assert_true(isnan(gt_energy_power(3.0, 0.0)));
    assert_true(isnan(gt_energy_power(NAN, 2.0)));

    gt_energy *e;
    assert_int_equal(gt_energy_open(root, &e, NULL), GT_OK);
    gt_power_column cols[GT_POWER_SLOTS];
    /* The GPUs' columns follow, named by each device's index, in the order
     * the samples list the devices. */
    const gt_gpu_device_reading gpus[2] = {{.index = 1}, {.index = 3}};
    assert_int_equal(gt_energy_power_columns(e, gpus, 2, cols), 6);
    const char *names[] = {"package_power_watts", "core_power_watts", "dram_power_watts", "psys_power_watts",
                           "gpu_1_power_watts", "gpu_3_power_watts"};
    const int slots[] = {GT_POWER_PACKAGE, GT_POWER_CORE, GT_POWER_DRAM, GT_POWER_PSYS, GT_POWER_GPU0,
                         GT_POWER_GPU0 + 1};
    for (int k = 0; k < 6; k++) {
        assert_string_equal(cols[k].name, names[k]);
        assert_int_equal(cols[k].slot, slots[k]);
    }
    assert_int_equal(gt_energy_power_columns(e, NULL, 0, cols), 4);
    assert_true(gt_energy_measured(e, 0) && gt_energy_measured(NULL, 2) && !gt_energy_measured(NULL, 0));

    gt_energy_reading rd;
    gt_sample s = interval(100.0, 50.0);
    gt_energy_read(e, &rd);
    rd.t = 100.0;
    gt_energy_fold(e, &rd, &s);
    for (int k = 0; k < GT_POWER_SLOTS; k++)
        assert_true(isnan(s.power_watts[k])); /* the first reading closes no interval */

    /* Over 2 s: package-0 999 J -> 1000 J (wrap) -> 2 J is 3 J, dram +1 J;
     * core and psys stand still.  The tree holds a quarter of used RAM. */
    counter("intel-rapl:0", "2000000\n");
    counter("intel-rapl:0:1", "1000000\n");
    s = interval(100.0, 50.0);
    s.combined.private_rss = 1500;
    s.combined.shared_rss = 500;
    s.system_ram = 8000;
    gt_energy_read(e, &rd);
    rd.t = 102.0;
    gt_energy_fold(e, &rd, &s);
    assert_true(s.power_watts[GT_POWER_PACKAGE] == 1.5);
    assert_true(s.power_watts[GT_POWER_DRAM] == 0.5);
    assert_true(s.power_watts[GT_POWER_CORE] == 0.0); /* a real 0 */
    assert_true(s.power_watts[GT_POWER_PSYS] == 0.0);
    assert_true(isnan(s.power_watts[GT_POWER_UNCORE])); /* no such domain */
    assert_true(isnan(s.power_watts[GT_POWER_GPU0]));

    /* The DRAM counter fails to read at 104 s: no DRAM power there, and the
     * next interval runs from its last reading (102 s). */
    counter("intel-rapl:0:1", "3000000\n");
    s = interval(100.0, 50.0);
    gt_energy_read(e, &rd);
    rd.t = 104.0;
    rd.ok[2] = 0;
    gt_energy_fold(e, &rd, &s);
    assert_true(isnan(s.power_watts[GT_POWER_DRAM]));
    assert_true(s.power_watts[GT_POWER_PACKAGE] == 0.0);
    s = interval(100.0, 50.0);
    s.combined.private_rss = 4000; /* half of the used RAM now */
    s.system_ram = 8000;
    gt_energy_read(e, &rd);
    rd.t = 106.0;
    gt_energy_fold(e, &rd, &s);
    assert_true(s.power_watts[GT_POWER_DRAM] == 0.5); /* 2 J over 4 s */
    assert_true(s.dram_energy == 3.0);

    gt_usage u = GT_USAGE_INIT;
    gt_energy_usage(e, GT_ENERGY_UNIT_JOULES, &u);
    assert_string_equal(u.energy.domains[2].name, "package-0:dram");
    /* 1 J at a quarter, then 2 J at a half; by CPU time half of each. */
    assert_true(u.dram_memory_share.attributed_energy[2] == 1.0 * 0.25 + 2.0 * 0.5);
    assert_true(u.energy.domains[2].attributed_energy == 1.5);
    assert_true(u.dram_memory_share.attributed_energy[0] < 0); /* package: not DRAM */
    assert_non_null(strstr(u.dram_memory_share.method, "memory_share"));
    assert_true(u.energy.domains[2].max_power_watts == 0.5);
    gt_energy_close(&e);
    counter("intel-rapl:0", "999000000\n");
    counter("intel-rapl:0:1", "0\n");
}

/* A domain whose counter cannot be read is named once with the reason; the
 * others are still measured, and nothing unreadable becomes a zero. */
static void test_unreadable_domain(void **state)
{
    (void)state;
    counter("intel-rapl:0:0", "not a number\n");
    gt_energy *e;
    assert_int_equal(gt_energy_open(root, &e, NULL), GT_OK);
    gt_energy_reading rd;
    gt_sample s = {0};
    gt_energy_read(e, &rd);
    gt_energy_fold(e, &rd, &s);
    gt_usage u = GT_USAGE_INIT;
    gt_energy_usage(e, GT_ENERGY_UNIT_JOULES, &u);
    assert_non_null(strstr(u.energy.cpu_unavailable, "some of 4 RAPL domains cannot be read"));
    assert_non_null(strstr(u.energy.cpu_unavailable, "package-0:core: Invalid argument"));
    assert_false(u.energy.domains[1].available);
    assert_true(u.energy.domains[1].energy < 0);
    assert_true(u.energy.domains[1].attributed_energy < 0);
    assert_true(u.energy.domains[0].available);
    assert_true(u.energy.domains[0].energy == 0.0);
    gt_energy_close(&e);
    counter("intel-rapl:0:0", "500\n");
}

static void test_no_rapl(void **state)
{
    (void)state;
    gt_energy *e;
    assert_int_equal(gt_energy_open("/nonexistent-sysfs", &e, NULL), GT_OK);
    gt_energy_reading rd;
    gt_sample s = {0};
    gt_energy_read(e, &rd);
    gt_energy_fold(e, &rd, &s);
    assert_true(isnan(s.cpu_energy) && isnan(s.dram_energy));
    gt_usage u = GT_USAGE_INIT;
    gt_energy_usage(e, GT_ENERGY_UNIT_JOULES, &u);
    assert_int_equal(u.energy.n_domains, 0);
    assert_non_null(strstr(u.energy.cpu_unavailable, "no RAPL energy counters"));
    assert_non_null(strstr(u.energy.cpu_unavailable, "/nonexistent-sysfs/class/powercap"));
    gt_energy_close(&e);
}

/* ---- the report section -------------------------------------------------- */

static char *render(const gt_usage *u, gt_format fmt)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(gt_usage_write(u, fmt, f), GT_OK);
    fclose(f);
    return buf;
}

static void test_report_section(void **state)
{
    (void)state;
    gt_usage u = GT_USAGE_INIT;
    u.max_ram.unit = u.max_gpu_ram.unit = "bytes";
    u.compute_time.unit = "hours";
    u.peak_ram.main = u.peak_ram.largest_descendant = -1;
    /* Not measured: no section at all (the Python package's layout). */
    char *txt = render(&u, GT_FORMAT_TEXT);
    assert_null(strstr(txt, "Energy"));
    free(txt);

    u.energy.unit = "joules";
    u.energy.cpu_attribution_method = "cpu_time_share: x";
    u.energy.n_domains = 2;
    u.energy.domains[0] = (struct gt_energy_domain){
        .name = "package-0", .source = "rapl", .available = 1, .energy = 5.0,
        .mean_power_watts = 2.5, .max_power_watts = 4.0, .attributed_energy = 1.25};
    u.energy.domains[1] = (struct gt_energy_domain){
        .name = "package-0:core", .source = "rapl", .energy = -1, .mean_power_watts = -1,
        .max_power_watts = -1, .attributed_energy = -1};
    snprintf(u.energy.cpu_unavailable, sizeof u.energy.cpu_unavailable,
             "some cannot be read; udev rule 'RUN+=\"/bin/chmod\"'");
    txt = render(&u, GT_FORMAT_TEXT);
    assert_non_null(strstr(txt, "\nEnergy:\n   Unit: joules\n   CPU (RAPL):\n"
                                "      Unavailable: some cannot be read; udev rule 'RUN+=\"/bin/chmod\"'\n"
                                "      Attribution method: cpu_time_share: x\n      Domains:\n"
                                "         package-0:\n            Source: rapl\n"
                                "            Energy: 5.0\n            Mean power (watts): 2.5\n"
                                "            Max power (watts): 4.0\n"
                                "            Attributed energy (estimate): 1.25\n"));
    assert_non_null(strstr(txt, "         package-0:core:\n            Source: rapl\n"
                                "            Energy: unavailable\n"));
    free(txt);

    char *js = render(&u, GT_FORMAT_JSON);
    cJSON *o = cJSON_Parse(js);
    assert_non_null(o);
    const cJSON *cpu = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "energy"), "cpu");
    assert_string_equal(cJSON_GetObjectItem(cpu, "unavailable")->valuestring,
                        u.energy.cpu_unavailable);
    const cJSON *doms = cJSON_GetObjectItem(cpu, "domains");
    const cJSON *pk = cJSON_GetObjectItem(doms, "package-0");
    assert_true(cJSON_GetObjectItem(pk, "energy")->valuedouble == 5.0);
    assert_true(cJSON_GetObjectItem(pk, "attributed_energy_estimate")->valuedouble == 1.25);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(doms, "package-0:core"), "energy")));
    cJSON_Delete(o);
    free(js);

    /* Everything read: JSON keeps "unavailable" as null, text leaves it out. */
    u.energy.cpu_unavailable[0] = '\0';
    js = render(&u, GT_FORMAT_JSON);
    o = cJSON_Parse(js);
    assert_non_null(o);
    cpu = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "energy"), "cpu");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(cpu, "unavailable")));
    cJSON_Delete(o);
    free(js);
    txt = render(&u, GT_FORMAT_TEXT);
    assert_null(strstr(txt, "Unavailable"));
    assert_null(strstr(txt, "GPU:")); /* no GPU selected: no GPU group */
    free(txt);

    u.energy.n_domains = 3;
    u.energy.gpu_attribution_method = "gpu_utilization_share: y";
    u.energy.domains[2] = (struct gt_energy_domain){
        .name = "gpu-0", .source = "power_integrated", .gpu = 1, .available = 1, .energy = 300.0,
        .mean_power_watts = 150.0, .max_power_watts = 150.0, .attributed_energy = 75.0};
    txt = render(&u, GT_FORMAT_TEXT);
    assert_non_null(strstr(txt, "\n   GPU:\n      Attribution method: gpu_utilization_share: y\n"
                                "      Devices:\n         gpu-0:\n"
                                "            Source: power_integrated\n            Energy: 300.0\n"));
    free(txt);
    js = render(&u, GT_FORMAT_JSON);
    o = cJSON_Parse(js);
    assert_non_null(o);
    const cJSON *g0 = cJSON_GetObjectItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "energy"), "gpu"), "devices"),
        "gpu-0");
    assert_string_equal(cJSON_GetObjectItem(g0, "source")->valuestring, "power_integrated");
    assert_true(cJSON_GetObjectItem(g0, "attributed_energy_estimate")->valuedouble == 75.0);
    cJSON_Delete(o);
    free(js);
}

/* ---- GPU devices --------------------------------------------------------- */

static gt_gpu_device_reading gpu_counter(int index, double joules)
{
    return (gt_gpu_device_reading){.index = index, .energy_valid = 1, .energy_joules = joules,
                           .power_valid = 1, .power_watts = 999.0};
}

/* Folds one reading at time t with the given GPU devices; the tracked
 * processes hold a quarter of the GPUs' used memory. */
static gt_sample fold_gpus(gt_energy *e, double t, const gt_gpu_device_reading *g, size_t n)
{
    gt_energy_reading rd;
    gt_energy_read(e, &rd);
    rd.t = t;
    gt_sample s = {0};
    s.n_gpus = n;
    memcpy(s.gpus, g, n * sizeof *g);
    s.combined_gpu_ram = 1000;
    s.system_gpu_ram = 4000;
    gt_energy_fold(e, &rd, &s);
    return s;
}

/* The energy counter's difference, never the power draw, when the counter
 * exists; a counter that goes back gives nothing for that interval. */
static void test_gpu_counter(void **state)
{
    (void)state;
    gt_energy *e;
    assert_int_equal(gt_energy_open("/nonexistent-sysfs", &e, NULL), GT_OK);
    gt_gpu_device_reading g[2] = {gpu_counter(0, 1000.0), gpu_counter(3, 50.0)};
    gt_sample s = fold_gpus(e, 10.0, g, 2);
    assert_true(s.gpu_energy == 0.0);
    g[0].energy_joules = 1010.5;
    g[1].energy_joules = 52.0;
    assert_true(isnan(s.power_watts[GT_POWER_GPU0]));
    s = fold_gpus(e, 11.0, g, 2);
    assert_true(s.gpu_energy == 12.5);
    assert_true(s.power_watts[GT_POWER_GPU0] == 10.5); /* the counter's, not the 999 W drawn */
    assert_true(s.power_watts[GT_POWER_GPU0 + 1] == 2.0);
    assert_true(isnan(s.power_watts[GT_POWER_GPU0 + 2]));
    g[0].energy_joules = 3.0; /* driver reloaded */
    s = fold_gpus(e, 12.0, g, 2);
    assert_true(s.gpu_energy == 12.5);
    assert_true(isnan(s.power_watts[GT_POWER_GPU0])); /* no figure, not a negative one */
    assert_true(s.power_watts[GT_POWER_GPU0 + 1] == 0.0);
    g[0].energy_joules = 7.0;
    s = fold_gpus(e, 14.0, g, 2);
    assert_true(s.gpu_energy == 16.5);
    assert_true(s.power_watts[GT_POWER_GPU0] == 2.0);

    gt_usage u = GT_USAGE_INIT;
    gt_energy_usage(e, GT_ENERGY_UNIT_JOULES, &u);
    assert_int_equal(u.energy.n_domains, 2);
    assert_string_equal(u.energy.domains[0].name, "gpu-0");
    assert_string_equal(u.energy.domains[1].name, "gpu-3");
    assert_true(u.energy.domains[0].gpu);
    assert_string_equal(u.energy.domains[0].source, "energy_counter");
    assert_true(u.energy.domains[0].energy == 14.5);
    assert_true(u.energy.domains[0].attributed_energy == 14.5 / 4);
    assert_true(u.energy.domains[0].mean_power_watts == 14.5 / 4.0);
    assert_true(u.energy.domains[0].max_power_watts == 10.5);
    assert_true(u.energy.domains[1].energy == 2.0);
    assert_string_equal(u.energy.gpu_unavailable, "");
    assert_non_null(strstr(u.energy.gpu_attribution_method, "gpu_utilization_share"));
    gt_energy_close(&e);
}

/* No counter (NVML's NOT_SUPPORTED): power integrated over the samples, and
 * labelled so; a device with neither is unavailable, with the reason. */
static void test_gpu_power_integrated(void **state)
{
    (void)state;
    gt_energy *e;
    assert_int_equal(gt_energy_open("/nonexistent-sysfs", &e, NULL), GT_OK);
    gt_gpu_device_reading g[2] = {{.index = 0, .power_valid = 1, .power_watts = 100.0}, {.index = 1}};
    gt_sample s = fold_gpus(e, 5.0, g, 2);
    assert_true(s.gpu_energy == 0.0);
    g[0].power_watts = 200.0;
    s = fold_gpus(e, 7.0, g, 2);
    assert_true(s.gpu_energy == 300.0); /* (100 + 200) / 2 W over 2 s */
    assert_true(s.power_watts[GT_POWER_GPU0] == 150.0);
    assert_true(isnan(s.power_watts[GT_POWER_GPU0 + 1])); /* neither counter nor power */
    gt_usage u = GT_USAGE_INIT;
    gt_energy_usage(e, GT_ENERGY_UNIT_KILOJOULES, &u);
    assert_string_equal(u.energy.domains[0].source, "power_integrated");
    assert_true(u.energy.domains[0].energy == 0.3);
    assert_true(u.energy.domains[0].mean_power_watts == 150.0);
    assert_false(u.energy.domains[1].available);
    assert_true(u.energy.domains[1].energy < 0);
    assert_string_equal(u.energy.domains[1].source, "none");
    assert_non_null(strstr(u.energy.gpu_unavailable, "gpu-1: the vendor library gave neither"));
    gt_energy_close(&e);
}

/* ---- through the public API ---------------------------------------------- */

/* The library reads $GT_SYSFS_ROOT and fills gt_usage.energy: a counter that
 * moves by 2 J through its wrap while a region runs gives exactly 2 J. */
static void test_tracker_usage(void **state)
{
    (void)state;
    assert_int_equal(setenv("GT_SYSFS_ROOT", root, 1), 0);
    gt_options o;
    gt_options_init(&o, GT_STRUCT_VERSION);
    o.disable_logs = 1;
    o.sleep_time = 0.01;
    o.energy_unit = GT_ENERGY_UNIT_WATT_HOURS;
    gt_tracker *t;
    assert_int_equal(gt_tracker_new(&o, &t, NULL), GT_OK);
    assert_int_equal(gt_tracker_start(t, NULL), GT_OK);
    counter("intel-rapl:0", "1000000\n"); /* 999 J -> 1000 J -> 1 J */
    assert_int_equal(gt_tracker_stop(t, NULL), GT_OK);
    gt_usage u = GT_USAGE_INIT;
    assert_int_equal(gt_tracker_usage(t, &u, NULL), GT_OK);
    assert_string_equal(u.energy.unit, "watt-hours");
    assert_int_equal(u.energy.n_domains, 4);
    assert_string_equal(u.energy.domains[0].name, "package-0");
    assert_true(fabs(u.energy.domains[0].energy - 2.0 / 3600) < 1e-15);
    assert_true(u.energy.domains[0].attributed_energy >= 0);
    assert_true(u.energy.domains[0].attributed_energy <= u.energy.domains[0].energy);
    gt_tracker_free(&t);
    counter("intel-rapl:0", "999000000\n");

    o.energy_unit = (gt_energy_unit)7;
    gt_error e;
    assert_int_equal(gt_tracker_new(&o, &t, &e), GT_ERR_INVALID);
    assert_non_null(strstr(e.msg, "'kilowatt-hours'"));
    assert_int_equal(unsetenv("GT_SYSFS_ROOT"), 0);
}

/* ---- energy of a stretch, from a tracking file's cumulative columns ------ */

static void test_between(void **state)
{
    (void)state;
    const double ts[] = {10.0, 11.0, 12.0, 14.0};
    const double cum[] = {0.0, 5.0, 5.0, 25.0};
    assert_true(gt_energy_between(ts, cum, 4, 10.0, 14.0) == 25.0);
    assert_true(gt_energy_between(ts, cum, 4, 11.0, 12.0) == 0.0); /* a real 0 */
    assert_true(gt_energy_between(ts, cum, 4, 10.5, 13.0) == 15.0 - 2.5);
    assert_true(gt_energy_between(ts, cum, 4, 12.0, 12.0) == 0.0);
    /* Clamped to the sampled span; outside it, unavailable. */
    assert_true(gt_energy_between(ts, cum, 4, 5.0, 10.5) == 2.5);
    assert_true(gt_energy_between(ts, cum, 4, 13.0, 20.0) == 10.0);
    assert_true(isnan(gt_energy_between(ts, cum, 4, 1.0, 2.0)));
    assert_true(isnan(gt_energy_between(ts, cum, 4, 15.0, 16.0)));
    assert_true(isnan(gt_energy_between(ts, cum, 1, 10.0, 10.0)));
    assert_true(isnan(gt_energy_between(ts, cum, 4, 12.0, 11.0)));
    const double gap[] = {0.0, NAN, 5.0, 25.0};
    assert_true(isnan(gt_energy_between(ts, gap, 4, 10.5, 13.0)));
    assert_true(gt_energy_between(ts, gap, 4, 12.0, 14.0) == 20.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_delta_wraps),    cmocka_unit_test(test_parse),
        cmocka_unit_test(test_units),          cmocka_unit_test(test_cpu_share),
        cmocka_unit_test(test_discovery),      cmocka_unit_test(test_fold_exact),
        cmocka_unit_test(test_power_exact),
        cmocka_unit_test(test_unreadable_domain), cmocka_unit_test(test_no_rapl),
        cmocka_unit_test(test_report_section), cmocka_unit_test(test_gpu_counter),
        cmocka_unit_test(test_gpu_power_integrated), cmocka_unit_test(test_between),
        cmocka_unit_test(test_tracker_usage),
    };
    return cmocka_run_group_tests(tests, setup_tree, teardown_tree);
}
