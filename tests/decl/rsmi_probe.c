/* SPDX-License-Identifier: MIT */
/* Prints the answer of a ROCm SMI library (argv[1], or the name
 * gpu-tracker loads first) to each function gpu-tracker calls, in the order
 * it calls them, through the declarations the backend uses: one line
 * "function status text" each (stdout), whatever rsmi_init answered; each
 * call after rsmi_init runs in a child of its own, so that a call that
 * crashes the library is recorded as "killed by signal N".  What the
 * library prints itself goes to stderr.  Recorded in
 * docs/measurements.md; run by tests/e2e/gpu_rocm_real.sh. */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu/rocm_smi_decl.h"

#define FN(name) __typeof__(name) *

static void *lib;
static FN(rsmi_status_string) status_string;

static void *sym(const char *name)
{
    void *f = dlsym(lib, name);
    if (!f)
        printf("%s missing\n", name);
    return f;
}

static void show(const char *func, rsmi_status_t r, const char *value)
{
    const char *text = NULL;
    if (!status_string || status_string(r, &text) != RSMI_STATUS_SUCCESS || !text)
        text = "?";
    printf("%s %u %s%s%s\n", func, r, text, value ? " | " : "", value ? value : "");
    fflush(stdout);
}

/* Runs the call in a child; nonzero in the child (which makes the call
 * and exits), 0 in the parent once the child has ended. */
static int in_child(const char *func)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        return 1;
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        printf("%s not run: fork or wait failed\n", func);
    else if (WIFSIGNALED(status))
        printf("%s killed by signal %d\n", func, WTERMSIG(status));
    return 0;
}
#define CHILD(func, call) do { if (in_child(func)) { call; exit(0); } } while (0)

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "librocm_smi64.so.1";
    if (!(lib = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
        printf("dlopen %s: %s\n", path, dlerror());
        return 1;
    }
    status_string = (FN(rsmi_status_string))sym("rsmi_status_string");
    FN(rsmi_init) init = (FN(rsmi_init))sym("rsmi_init");
    FN(rsmi_num_monitor_devices) num = (FN(rsmi_num_monitor_devices))sym("rsmi_num_monitor_devices");
    FN(rsmi_dev_unique_id_get) unique_id = (FN(rsmi_dev_unique_id_get))sym("rsmi_dev_unique_id_get");
    FN(rsmi_dev_memory_total_get) total = (FN(rsmi_dev_memory_total_get))sym("rsmi_dev_memory_total_get");
    FN(rsmi_dev_memory_usage_get) used = (FN(rsmi_dev_memory_usage_get))sym("rsmi_dev_memory_usage_get");
    FN(rsmi_dev_busy_percent_get) busy = (FN(rsmi_dev_busy_percent_get))sym("rsmi_dev_busy_percent_get");
    FN(rsmi_dev_power_ave_get) power = (FN(rsmi_dev_power_ave_get))sym("rsmi_dev_power_ave_get");
    FN(rsmi_dev_energy_count_get) energy = (FN(rsmi_dev_energy_count_get))sym("rsmi_dev_energy_count_get");
    FN(rsmi_compute_process_info_get) procs = (FN(rsmi_compute_process_info_get))sym("rsmi_compute_process_info_get");
    FN(rsmi_compute_process_info_by_pid_get) by_pid =
        (FN(rsmi_compute_process_info_by_pid_get))sym("rsmi_compute_process_info_by_pid_get");
    FN(rsmi_shut_down) shut_down = (FN(rsmi_shut_down))sym("rsmi_shut_down");
    if (!status_string || !init || !num || !unique_id || !total || !used || !busy || !power || !energy ||
        !procs || !by_pid || !shut_down)
        return 1;
    show("rsmi_init", init(0), NULL);
    char v[64];
    uint32_t n = 0;
    uint64_t x = 0, ts = 0;
    uint32_t pct = 0;
    float res = 0;
    rsmi_process_info_t one;
    /* CALL(func, call): the status of call, in a child (see in_child). */
#define CALL(func, call) CHILD(#func, show(#func, call, NULL))
    if (in_child("rsmi_num_monitor_devices")) {
        rsmi_status_t r = num(&n);
        snprintf(v, sizeof v, "%" PRIu32 " devices", n);
        show("rsmi_num_monitor_devices", r, v);
        exit(0);
    }
    CALL(rsmi_dev_unique_id_get, unique_id(0, &x));
    CALL(rsmi_dev_memory_total_get, total(0, RSMI_MEM_TYPE_VRAM, &x));
    CALL(rsmi_dev_memory_usage_get, used(0, RSMI_MEM_TYPE_VRAM, &x));
    CALL(rsmi_dev_busy_percent_get, busy(0, &pct));
    CALL(rsmi_dev_power_ave_get, power(0, 0, &x));
    CALL(rsmi_dev_energy_count_get, energy(0, &x, &res, &ts));
    if (in_child("rsmi_compute_process_info_get")) {
        rsmi_status_t r = procs(NULL, &n);
        snprintf(v, sizeof v, "%" PRIu32 " processes", n);
        show("rsmi_compute_process_info_get", r, v);
        exit(0);
    }
    CALL(rsmi_compute_process_info_by_pid_get, by_pid((uint32_t)getpid(), &one));
    CALL(rsmi_shut_down, shut_down());
    dlclose(lib);
    return 0;
}
