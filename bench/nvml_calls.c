/* SPDX-License-Identifier: MIT */
/* nvml_calls [N]: what each NVML function gpu-tracker calls in a sample
 * costs on this machine's driver: N calls of each on device 0 (default
 * 200), printed as wall and CPU microseconds per call.  Loads
 * libnvidia-ml.so.1 with dlopen, as gpu-tracker does; a function the
 * library lacks or that fails is reported and skipped.  Run it while a
 * process uses the GPU, so the process listings are not empty. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* gpu-tracker's own declarations, checked against NVIDIA's nvml.h by
 * tests/e2e/gpu_decl.sh. */
#include "gpu/nvml_decl.h"

/* The function f, of the type nvml_decl.h gives the function name. */
#define AS(name, f) ((__typeof__(name) *)(f))

static void *lib;
static nvmlDevice_t dev;
static unsigned long long since;
static union { nvmlMemory_t m1; nvmlMemory_v2_t m2; nvmlUtilization_t u; nvmlProcessInfo_t p[256];
               nvmlProcessUtilizationSample_t s[1024]; unsigned int ui; unsigned long long ull; } out;

static double now(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* One call of the function named, with the arguments gpu-tracker passes. */
static nvmlReturn_t call(const char *name, void *f)
{
    unsigned int n;
    if (!strcmp(name, "nvmlDeviceGetMemoryInfo"))
        return AS(nvmlDeviceGetMemoryInfo, f)(dev, &out.m1);
    if (!strcmp(name, "nvmlDeviceGetMemoryInfo_v2")) {
        out.m2.version = (unsigned int)nvmlMemory_v2;
        return AS(nvmlDeviceGetMemoryInfo_v2, f)(dev, &out.m2);
    }
    if (!strcmp(name, "nvmlDeviceGetUtilizationRates"))
        return AS(nvmlDeviceGetUtilizationRates, f)(dev, &out.u);
    if (!strcmp(name, "nvmlDeviceGetPowerUsage"))
        return AS(nvmlDeviceGetPowerUsage, f)(dev, &out.ui);
    if (!strcmp(name, "nvmlDeviceGetTotalEnergyConsumption"))
        return AS(nvmlDeviceGetTotalEnergyConsumption, f)(dev, &out.ull);
    if (!strcmp(name, "nvmlDeviceGetProcessUtilization")) {
        n = 1024;
        nvmlReturn_t r = AS(nvmlDeviceGetProcessUtilization, f)(dev, out.s, &n, since);
        return r == NVML_ERROR_NOT_FOUND ? NVML_SUCCESS : r; /* no sample since the last call */
    }
    /* The _v3 process listings, compute and graphics: one type.  Drivers R525
     * to R530 write 32-byte entries (see gpu/nvml.c), so the count offered is
     * what fits at 32 bytes each. */
    n = (unsigned int)(sizeof out.p / 32);
    return AS(nvmlDeviceGetComputeRunningProcesses_v3, f)(dev, &n, out.p);
}

int main(int argc, char **argv)
{
    int calls = argc > 1 ? atoi(argv[1]) : 200;
    if (calls < 1)
        calls = 1;
    if (!(lib = dlopen("libnvidia-ml.so.1", RTLD_NOW))) {
        fprintf(stderr, "nvml_calls: %s\n", dlerror());
        return 3;
    }
    __typeof__(nvmlInit_v2) *init;
    __typeof__(nvmlDeviceGetHandleByIndex_v2) *handle;
    *(void **)&init = dlsym(lib, "nvmlInit_v2");
    *(void **)&handle = dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
    if (!init || !handle || init() || handle(0, &dev)) {
        fprintf(stderr, "nvml_calls: NVML does not initialize\n");
        return 3;
    }
    static const char *const names[] = {
        "nvmlDeviceGetMemoryInfo", "nvmlDeviceGetMemoryInfo_v2", "nvmlDeviceGetUtilizationRates",
        "nvmlDeviceGetPowerUsage", "nvmlDeviceGetTotalEnergyConsumption",
        "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v3",
        "nvmlDeviceGetProcessUtilization", NULL};
    printf("%-44s %12s %12s %s\n", "function", "wall us", "cpu us", "calls");
    for (int k = 0; names[k]; k++) {
        void *f = dlsym(lib, names[k]);
        if (!f) {
            printf("%-44s not exported\n", names[k]);
            continue;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        since = (unsigned long long)ts.tv_sec * 1000000ull - 1000000ull;
        nvmlReturn_t r = call(names[k], f);
        if (r) {
            printf("%-44s error %u\n", names[k], r);
            continue;
        }
        double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
        for (int i = 0; i < calls; i++)
            call(names[k], f);
        double w = now(CLOCK_MONOTONIC) - w0, c = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
        printf("%-44s %12.1f %12.1f %d\n", names[k], w / calls, c / calls, calls);
    }
    /* What one reading of the per-process utilization holds: how many
     * samples of each process the driver keeps for the last second. */
    void *f = dlsym(lib, "nvmlDeviceGetProcessUtilization");
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    since = ((unsigned long long)ts.tv_sec - 1) * 1000000ull + (unsigned long long)ts.tv_nsec / 1000;
    unsigned int n = 1024;
    if (f && AS(nvmlDeviceGetProcessUtilization, f)(dev, out.s, &n, since) == NVML_SUCCESS)
        for (unsigned int i = 0; i < n; i++)
            /* In doubles: a sample stamped after ts (taken during the
             * call) is a negative age, not a wrapped one. */
            printf("sample pid %u at %.3f s: sm %u mem %u\n", out.s[i].pid,
                   ((double)out.s[i].timeStamp - ((double)ts.tv_sec * 1e6 + (double)(ts.tv_nsec / 1000))) / 1e6,
                   out.s[i].smUtil, out.s[i].memUtil);
    return 0;
}
