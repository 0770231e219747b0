/* SPDX-License-Identifier: MIT */
/* The GPU layer (gpu/gpu.h) over the fake NVML and ROCm SMI: what an energy
 * report reads per device (index, UUID, power, energy counter and their
 * valid flags), attribution by PID sets, and warnings once per figure.
 * GT_BUILD (set by tests/run.sh) locates the fakes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gpu/gpu.h"

static char dir[] = "/tmp/gt-test-gpu-XXXXXX";
static char scenario[256];
static int n_warnings;
static char last_warning[1024];

static void count_log(void *ctx, const char *msg)
{
    (void)ctx;
    n_warnings++;
    snprintf(last_warning, sizeof last_warning, "%s", msg);
}

static void use_fake(const char *lib, const char *scenario_var, const char *json)
{
    const char *build = getenv("GT_BUILD");
    char path[512];
    snprintf(path, sizeof path, "%s/fakes/%s", build ? build : "build", lib);
    setenv(strcmp(lib, "rocm_smi.so") ? "GT_NVML_LIBRARY" : "GT_ROCM_SMI_LIBRARY", path, 1);
    FILE *f = fopen(scenario, "w");
    assert_non_null(f);
    fputs(json, f);
    fclose(f);
    setenv(scenario_var, scenario, 1);
    n_warnings = 0;
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    snprintf(scenario, sizeof scenario, "%s/scenario.json", dir);
    setenv("GT_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    setenv("GT_ROCM_SMI_LIBRARY", "/nonexistent/librocm_smi64.so.1", 1);
    /* No DRM card either, whatever the machine has: the warnings counted
     * are those of the fake libraries alone. */
    setenv("GT_SYSFS_ROOT", "/nonexistent", 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(scenario);
    rmdir(dir);
    return 0;
}

static const char two_gpus[] =
    "{\"devices\": ["
    " {\"uuid\": \"GPU-a\", \"total\": 1000, \"samples\": ["
    "   {\"used\": 10, \"util\": 5, \"power_mw\": 100500, \"energy_mj\": 1000,"
    "    \"compute\": [{\"pid\": 100, \"mem\": 1, \"sm\": 7}, {\"pid\": 200, \"mem\": 20},"
    "                 {\"pid\": 1, \"mem\": 7}]},"
    "   {\"used\": 11, \"util\": 6, \"power_mw\": 120000, \"energy_mj\": 3500,"
    "    \"compute\": [{\"pid\": 100, \"mem\": 2, \"sm\": 9}, {\"pid\": 300, \"mem\": 400}]}]},"
    " {\"uuid\": \"GPU-b\", \"total\": 3000, \"lost_after\": 1,"
    "  \"errors\": {\"nvmlDeviceGetTotalEnergyConsumption\": 3},"
    "  \"samples\": [{\"used\": 30, \"util\": 50, \"power_mw\": 20000,"
    "    \"compute\": [{\"pid\": 201, \"mem\": 5000, \"sm\": 11}]}]}]}";

static void test_devices_power_energy(void **state)
{
    (void)state;
    use_fake("nvml.so", "FAKE_NVML_SCENARIO", two_gpus);
    gt_gpu *g = NULL;
    gt_error err;
    assert_int_equal(gt_gpu_open(GT_GPU_AUTO, NULL, NULL, count_log, NULL, 0, &g, &err), GT_OK);
    assert_int_equal(gt_gpu_count(g), 2);
    assert_int_equal(gt_gpu_expected(g), 2);
    assert_true(gt_gpu_capacity(g) == 4000);
    size_t n;
    const gt_gpu_device_reading *d = gt_gpu_devices(g, &n);
    assert_int_equal(n, 2);
    assert_int_equal(d[0].index, 0);
    assert_string_equal(d[0].uuid, "GPU-a");
    assert_int_equal(d[1].index, 1);
    assert_string_equal(d[1].uuid, "GPU-b");

    const pid_t main_pid[] = {100}, desc[] = {200, 201, 300};
    gt_pidset pids = {main_pid, 1, desc, 3};
    gt_gpu_reading r;
    gt_gpu_sample(g, &pids, &r);
    /* PIDs 100...300 need not exist: PID 1, listed too, does, so this is no
     * foreign PID namespace. */
    assert_true(r.system_bytes == 40);
    assert_true(r.main_bytes == 1);
    assert_true(r.descendants_bytes == 5020);
    assert_true(r.combined_bytes == 5021);
    assert_true(r.sum_util_percent == 55.0);
    assert_true(r.sm_valid);
    assert_true(r.main_sm_percent == 7.0 && r.descendants_sm_percent == 11.0 && r.combined_sm_percent == 18.0);
    assert_int_equal(r.n_devices, 2);
    assert_ptr_equal(r.devices, d);
    assert_true(d[0].power_valid && d[0].power_watts == 100.5);
    assert_true(d[0].energy_valid && d[0].energy_joules == 1.0);
    assert_true(d[1].power_valid && d[1].power_watts == 20.0);
    assert_false(d[1].energy_valid);   /* NOT_SUPPORTED: unavailable, not zero */
    assert_int_equal(n_warnings, 1);
    assert_non_null(strstr(last_warning, "nvmlDeviceGetTotalEnergyConsumption"));

    /* Sample 2, which reads everything (as the run's last sample does): the
     * counter moved by 2.5 J; GPU-b is lost. */
    gt_gpu_read_all(g);
    gt_gpu_sample(g, &pids, &r);
    assert_true(d[0].energy_valid && d[0].energy_joules == 3.5);
    assert_true(d[0].power_watts == 120.0);
    assert_false(d[1].power_valid);
    assert_false(d[1].energy_valid);
    assert_true(r.system_bytes == 11);
    assert_true(r.descendants_bytes == 400);
    assert_true(r.sum_util_percent == 6.0);
    assert_int_equal(n_warnings, 2);
    assert_non_null(strstr(last_warning, "GPU 1 (GPU-b) is lost"));
    /* Later samples warn no more. */
    gt_gpu_sample(g, &pids, &r);
    gt_gpu_sample(g, &pids, &r);
    assert_int_equal(n_warnings, 2);
    gt_gpu_close(&g);
    assert_null(g);
    gt_gpu_close(&g);
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A driver whose energy counter and process utilization cost 2 ms of CPU a
 * call: both are read at the first sample, then held to 1 % of a core (one
 * call per 0.2 s of wall time), with the SM percents of the last reading
 * carried between; a sample after gt_gpu_read_all reads both. */
static const char slow_gpu[] =
    "{\"devices\": [{\"uuid\": \"GPU-s\", \"total\": 1000, \"slow_us\": 2000, \"samples\": ["
    "  {\"used\": 10, \"util\": 50, \"energy_mj\": 1000, \"compute\": [{\"pid\": 100, \"mem\": 1, \"sm\": 40}, {\"pid\": 1, \"mem\": 7}]},"
    "  {\"used\": 10, \"util\": 50, \"energy_mj\": 2000, \"compute\": [{\"pid\": 100, \"mem\": 1, \"sm\": 60},"
    "                                                     {\"pid\": 200, \"mem\": 1, \"sm\": 30}, {\"pid\": 1, \"mem\": 7}]}]}]}";

static void test_slow_readings_budget(void **state)
{
    (void)state;
    use_fake("nvml.so", "FAKE_NVML_SCENARIO", slow_gpu);
    gt_gpu *g = NULL;
    gt_error err;
    assert_int_equal(gt_gpu_open(GT_GPU_AUTO, NULL, NULL, count_log, NULL, 0, &g, &err), GT_OK);
    size_t n;
    const gt_gpu_device_reading *d = gt_gpu_devices(g, &n);
    const pid_t main_pid[] = {100}, desc[] = {200};
    gt_pidset pids = {main_pid, 1, desc, 1};
    gt_gpu_reading r;
    gt_gpu_sample(g, &pids, &r);
    assert_true(d[0].energy_valid && d[0].energy_joules == 1.0);
    assert_true(r.sm_valid && r.main_sm_percent == 40.0);
    /* PID 1, listed too, exists: this is no foreign PID namespace.  Samples
     * back to back: each reads memory and the process list (the
     * fake's second sample from here on: PID 200 appears, PID 100 at 60 %),
     * while the slow readings wait for their budget. */
    double t0 = mono();
    int energy_reads = 0, sm_fresh = 0;
    for (int i = 0; i < 200; i++) {
        gt_gpu_sample(g, &pids, &r);
        assert_true(r.sm_valid);
        assert_true(r.descendants_bytes == 1);
        energy_reads += d[0].energy_valid;
        if (r.main_sm_percent == 60.0)
            sm_fresh++;
        else   /* carried: the last reading's 40 %, and the new PID 200 idle */
            assert_true(r.main_sm_percent == 40.0 && r.descendants_sm_percent == 0.0);
    }
    double allowed = 1 + (mono() - t0) / 0.2;
    assert_true(energy_reads <= allowed);
    assert_true(sm_fresh <= allowed);
    assert_true(energy_reads < 200 && sm_fresh < 200);
    gt_gpu_read_all(g);
    gt_gpu_sample(g, &pids, &r);
    assert_true(d[0].energy_valid && d[0].energy_joules == 2.0);
    assert_true(r.main_sm_percent == 60.0 && r.descendants_sm_percent == 30.0);
    if (n_warnings) print_message("warning: %s\n", last_warning);
    assert_int_equal(n_warnings, 0);
    gt_gpu_close(&g);
}

static void test_selection(void **state)
{
    (void)state;
    use_fake("nvml.so", "FAKE_NVML_SCENARIO", two_gpus);
    gt_gpu *g = NULL;
    gt_error err;
    assert_int_equal(gt_gpu_open(GT_GPU_NVIDIA, "GPU-b", NULL, count_log, NULL, 0, &g, &err), GT_OK);
    assert_int_equal(gt_gpu_expected(g), 1);
    size_t n;
    const gt_gpu_device_reading *d = gt_gpu_devices(g, &n);
    assert_int_equal(n, 1);
    assert_int_equal(d[0].index, 1);
    gt_gpu_close(&g);

    assert_int_equal(gt_gpu_open(GT_GPU_AUTO, "GPU-a,GPU-c", NULL, count_log, NULL, 0, &g, &err), GT_ERR_GPU);
    assert_null(g);
    assert_string_equal(err.msg, "GPU UUID of GPU-c is not valid. Available UUIDs are: GPU-a, GPU-b");
    assert_int_equal(gt_gpu_open(GT_GPU_AUTO, " , ", NULL, count_log, NULL, 0, &g, &err), GT_ERR_GPU);
    assert_null(g);
}

static void test_no_gpu(void **state)
{
    (void)state;
    setenv("GT_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    n_warnings = 0;
    gt_gpu *g = NULL;
    gt_error err;
    assert_int_equal(gt_gpu_open(GT_GPU_AUTO, "GPU-x", NULL, count_log, NULL, 0, &g, &err), GT_OK);
    assert_int_equal(gt_gpu_count(g), 0);
    assert_int_equal(n_warnings, 1);
    /* The Python package's words for its two libraries; a vendor backend
     * added after them is named before "could be loaded". */
    assert_ptr_equal(strstr(last_warning, "Neither the NVIDIA NVML library (libnvidia-ml.so.1) nor the ROCm SMI "
                                          "library (librocm_smi64.so.1)"), last_warning);
    assert_non_null(strstr(last_warning, ") could be loaded. Install a GPU driver to profile the GPU. "));
    size_t n = 9;
    gt_gpu_devices(g, &n);
    assert_int_equal(n, 0);
    gt_gpu_reading r;
    gt_gpu_sample(g, &(gt_pidset){0}, &r);
    assert_int_equal(r.n_devices, 0);
    assert_false(r.sm_valid);
    gt_gpu_close(&g);
    /* disable_logs: no warning at all. */
    assert_int_equal(gt_gpu_open(GT_GPU_AUTO, NULL, NULL, count_log, NULL, 1, &g, &err), GT_OK);
    assert_int_equal(n_warnings, 1);
    gt_gpu_close(&g);
}

static void test_rocm_energy(void **state)
{
    (void)state;
    setenv("GT_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    use_fake("rocm_smi.so", "FAKE_RSMI_SCENARIO",
             "{\"devices\": [{\"unique_id\": \"0xff\", \"total\": 64,"
             " \"samples\": [{\"used\": 8, \"busy\": 3, \"power_uw\": 42000000, \"energy\": 1000,"
             " \"resolution_uj\": 15.25, \"procs\": [{\"pid\": 100, \"vram\": 6}, {\"pid\": 1, \"vram\": 1}]}]}]}");
    gt_gpu *g = NULL;
    gt_error err;
    /* A sysfs tree without an AMD GPU: the library is not initialized. */
    char root[300], card[400];
    snprintf(root, sizeof root, "%s/sys", dir);
    assert_int_equal(gt_gpu_open(GT_GPU_AUTO, NULL, root, count_log, NULL, 0, &g, &err), GT_OK);
    assert_int_equal(gt_gpu_count(g), 0);
    assert_int_equal(n_warnings, 2);
    assert_non_null(strstr(last_warning, "rsmi_init: not called: no AMD GPU in "));
    gt_gpu_close(&g);
    /* One DRM card of AMD's PCI vendor: it is. */
    const char *const parts[] = {"", "/class", "/class/drm", "/class/drm/card0", "/class/drm/card0/device"};
    for (size_t k = 0; k < sizeof parts / sizeof *parts; k++) {
        snprintf(card, sizeof card, "%s%s", root, parts[k]);
        assert_int_equal(mkdir(card, 0700), 0);
    }
    snprintf(card, sizeof card, "%s/class/drm/card0/device/vendor", root);
    FILE *f = fopen(card, "w");
    assert_non_null(f);
    fputs("0x1002\n", f);
    fclose(f);
    n_warnings = 0;
    assert_int_equal(gt_gpu_open(GT_GPU_AUTO, NULL, root, count_log, NULL, 0, &g, &err), GT_OK);
    const pid_t main_pid[] = {100};
    gt_gpu_reading r;
    gt_gpu_sample(g, &(gt_pidset){main_pid, 1, NULL, 0}, &r);
    assert_int_equal(r.n_devices, 1);
    assert_string_equal(r.devices[0].uuid, "0xff");
    assert_true(r.devices[0].power_valid && r.devices[0].power_watts == 42.0);
    assert_true(r.devices[0].energy_valid && r.devices[0].energy_joules == 1000 * 15.25 / 1e6);
    assert_true(r.main_bytes == 6 && r.system_bytes == 8);
    assert_false(r.sm_valid);  /* ROCm SMI has no per-process SM figure */
    assert_int_equal(n_warnings, 0);
    gt_gpu_close(&g);
    setenv("GT_ROCM_SMI_LIBRARY", "/nonexistent/librocm_smi64.so.1", 1);
    unlink(card);
    for (size_t k = sizeof parts / sizeof *parts; k-- > 0;) {
        snprintf(card, sizeof card, "%s%s", root, parts[k]);
        assert_int_equal(rmdir(card), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_devices_power_energy), cmocka_unit_test(test_selection),
        cmocka_unit_test(test_no_gpu),               cmocka_unit_test(test_rocm_energy),
        cmocka_unit_test(test_slow_readings_budget),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
