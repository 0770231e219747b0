/* SPDX-License-Identifier: MIT */
/* A fake libnvidia-ml for the tests: gpu-tracker loads it through the same
 * dlopen path as the real library (GT_NVML_LIBRARY names it).  It serves
 * what the JSON scenario file named by FAKE_NVML_SCENARIO describes:
 *
 * {
 *   "errors": {"nvmlInit_v2": 9},               return codes of global calls
 *   "init_hold": path,                          nvmlInit* returns once path
 *                                               exists (a test acts while
 *                                               gpu-tracker sets up)
 *   "devices": [{
 *     "uuid": "GPU-...", "total": bytes,
 *     "errors": {"nvmlDeviceGetPowerUsage": 3},  returned on every call
 *     "lost_after": N,                           GPU_IS_LOST after N samples
 *     "slow_us": us,                             CPU time each energy and
 *                                                process-utilization call burns
 *     "sm_period_ms": ms,                        the driver takes a utilization
 *                                                sample every ms (default: at
 *                                                each call)
 *     "samples": [{                              sample k is the (k+1)-th
 *       "used": bytes, "util": percent,          reading; the last repeats
 *       "reserved": bytes,                       the driver's own, beside "used"
 *       "power_mw": mW, "energy_mj": mJ,
 *       "errors": {...},                         this sample only
 *       "compute": [{"pid": P | "pid_file": path, "mem": bytes | null,
 *                    "sm": percent}],
 *       "graphics": [...]
 *     }]
 *   }]
 * }
 *
 * A sample is one nvmlDeviceGetMemoryInfo(_v2) call (gpu-tracker reads it
 * once per device and sample, and once when it starts, which sees sample 0
 * too).  As real drivers do, the unversioned call counts the reserved
 * memory as used; _v2 reports it apart.
 * "pid_file" entries take the PID a workload wrote there; they are skipped
 * while the file is absent.  FAKE_NVML_LOG, when set, names a file that
 * gets one line per call of nvmlInit*, nvmlShutdown and per sample
 * ("sample DEVICE N", N = 0 for the reading at start).
 *
 * Built with FAKE_NVML_OLD (nvml_old.c) it is a driver from before the
 * versioned functions: only nvmlInit, nvmlDeviceGetCount,
 * nvmlDeviceGetHandleByIndex and the unversioned process listings (v1
 * structs), and no power, energy or process utilization.  Built with
 * FAKE_NVML_CC (nvml_cc.c) it is a driver of R525 to R530, whose _v3
 * listings write 32-byte entries; it exports the _v2 listings too. */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The types and prototypes gpu-tracker's backend uses (src/lib/gpu), so
 * that the fake defines exactly what the backend declares. */
#include "gpu/nvml_decl.h"

struct nvmlDevice_st {
    const cJSON *json;
    long reads;     /* nvmlDeviceGetMemoryInfo calls */
};
typedef struct nvmlDevice_st fake_dev;

static cJSON *scenario;
static fake_dev devs[16];
static int n_devs, initialized;

__attribute__((format(printf, 1, 2)))
static void log_line(const char *fmt, ...)
{
    const char *path = getenv("FAKE_NVML_LOG");
    if (!path)
        return;
    FILE *f = fopen(path, "a");
    if (f) {
        va_list ap;
        va_start(ap, fmt);
        vfprintf(f, fmt, ap);
        va_end(ap);
        fputc('\n', f);
        fclose(f);
    }
}

static int error_in(const cJSON *obj, const char *func)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(obj, "errors"), func);
    return cJSON_IsNumber(e) ? e->valueint : 0;
}

static const cJSON *sample_of(const fake_dev *d)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(d->json, "samples");
    int n = cJSON_GetArraySize(s);
    if (n == 0)
        return NULL;
    long k = d->reads - 2;
    if (k < 0)
        k = 0;
    if (k >= n)
        k = n - 1;
    return cJSON_GetArrayItem(s, (int)k);
}

static double num(const cJSON *obj, const char *key, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* The code a device function returns before doing anything: not
 * initialized, bad handle, lost, or an error the scenario sets. */
static int check(const fake_dev *d, const char *func)
{
    if (!initialized)
        return 1;   /* NVML_ERROR_UNINITIALIZED */
    if (!d || d < devs || d >= devs + n_devs)
        return 2;   /* NVML_ERROR_INVALID_ARGUMENT */
    const cJSON *lost = cJSON_GetObjectItemCaseSensitive(d->json, "lost_after");
    if (cJSON_IsNumber(lost) && d->reads - 1 > lost->valueint)
        return 15;  /* NVML_ERROR_GPU_IS_LOST */
    int e = error_in(d->json, func);
    if (!e && sample_of(d))
        e = error_in(sample_of(d), func);
    return e;
}

const char *nvmlErrorString(nvmlReturn_t r)
{
    switch (r) {
    case 0: return "Success";
    case 1: return "Uninitialized";
    case 2: return "Invalid Argument";
    case 3: return "Not Supported";
    case 4: return "Insufficient Permissions";
    case 7: return "Insufficient Size";
    case 9: return "Driver Not Loaded";
    case 15: return "GPU is lost";
    default: return "Unknown Error";
    }
}

static nvmlReturn_t do_init(const char *name)
{
    log_line("%s", name);
    const char *path = getenv("FAKE_NVML_SCENARIO");
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f)
        return 9;   /* NVML_ERROR_DRIVER_NOT_LOADED */
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    cJSON_Delete(scenario);
    if (!(scenario = cJSON_Parse(text)))
        return 999;
    const cJSON *hold = cJSON_GetObjectItemCaseSensitive(scenario, "init_hold");
    /* At most 600 s: a test that died cannot leave the tracker waiting. */
    for (int i = 0; cJSON_IsString(hold) && access(hold->valuestring, F_OK) != 0 && i < 60000; i++)
        nanosleep(&(struct timespec){0, 10000000L}, NULL);
    int e = error_in(scenario, "nvmlInit_v2");
    if (e) {
        cJSON_Delete(scenario);
        scenario = NULL;
        return e;
    }
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(scenario, "devices");
    n_devs = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, list) {
        if (n_devs < 16)
            devs[n_devs++] = (fake_dev){it, 0};
    }
    initialized = 1;
    return 0;
}

nvmlReturn_t nvmlShutdown(void)
{
    log_line("nvmlShutdown");
    if (!initialized)
        return 1;
    initialized = 0;
    cJSON_Delete(scenario);
    scenario = NULL;
    return 0;
}

static nvmlReturn_t do_count(unsigned int *n)
{
    if (!initialized)
        return 1;
    int e = error_in(scenario, "nvmlDeviceGetCount_v2");
    if (e)
        return e;
    *n = (unsigned int)n_devs;
    return 0;
}

static nvmlReturn_t do_handle(unsigned int i, nvmlDevice_t *d)
{
    if (!initialized)
        return 1;
    if (i >= (unsigned int)n_devs)
        return 2;
    int e = error_in(devs[i].json, "nvmlDeviceGetHandleByIndex_v2");
    if (e)
        return e;
    *d = &devs[i];
    return 0;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *buf, unsigned int len)
{
    int e = check(d, "nvmlDeviceGetUUID");
    if (e)
        return e;
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(d->json, "uuid");
    if (!cJSON_IsString(u) || strlen(u->valuestring) >= len)
        return 7;
    strcpy(buf, u->valuestring);
    return 0;
}

/* One sample's memory figures: total, used (the driver's reserved memory
 * left out) and reserved; the error the scenario gives func, or 0. */
static int memory(nvmlDevice_t d, const char *func, unsigned long long v[3])
{
    if (initialized && d >= devs && d < devs + n_devs) {
        d->reads++;
        log_line("sample %d %ld", (int)(d - devs), d->reads - 1);
    }
    int e = check(d, func);
    if (e)
        return e;
    v[0] = (unsigned long long)num(d->json, "total", 0);
    v[1] = (unsigned long long)num(sample_of(d), "used", 0);
    v[2] = (unsigned long long)num(sample_of(d), "reserved", 0);
    return 0;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m)
{
    unsigned long long v[3];
    int e = memory(d, "nvmlDeviceGetMemoryInfo", v);
    if (e)
        return e;
    m->total = v[0];
    m->used = v[1] + v[2];
    m->free = m->total > m->used ? m->total - m->used : 0;
    return 0;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u)
{
    int e = check(d, "nvmlDeviceGetUtilizationRates");
    if (e)
        return e;
    u->gpu = (unsigned int)num(sample_of(d), "util", 0);
    u->memory = 0;
    return 0;
}

/* The PID of a process entry: "pid", or the number in "pid_file"; 0 while
 * that file does not exist yet. */
static unsigned int pid_of(const cJSON *p)
{
    const cJSON *file = cJSON_GetObjectItemCaseSensitive(p, "pid_file");
    if (!cJSON_IsString(file))
        return (unsigned int)num(p, "pid", 0);
    FILE *f = fopen(file->valuestring, "r");
    unsigned int pid = 0;
    if (f) {
        if (fscanf(f, "%u", &pid) != 1)
            pid = 0;
        fclose(f);
    }
    return pid;
}

/* The process entries of one list of the current sample whose PID is known,
 * each pid file read once.  A call answers from this one snapshot, as the
 * driver does: a workload (re)writing its pid file between a count and a
 * fill must not make the returned count disagree with the entries written,
 * or the caller reads whatever its buffer held before. */
#define MAX_PROCS 64
typedef struct snapshot {
    unsigned int n;
    unsigned int pid[MAX_PROCS];
    const cJSON *entry[MAX_PROCS];
} snapshot;

/* Appends to s; -1 when a scenario lists more than the fake holds. */
static int take_snapshot(const cJSON *procs, snapshot *s)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, procs) {
        unsigned int pid = pid_of(p);
        if (!pid)
            continue;
        if (s->n == MAX_PROCS)
            return -1;
        s->pid[s->n] = pid;
        s->entry[s->n++] = p;
    }
    return 0;
}

/* The entries a listing writes: nvmlProcessInfo_v1_t, nvmlProcessInfo_t
 * (the _v2 layout), or the 32-byte entries of the _v3 listings of drivers
 * R525 to R530, whose nvml.h (CUDA 12.0, 12.1) added a field that CUDA 12.2
 * moved elsewhere (see src/lib/gpu/nvml_decl.h). */
enum layout { V1, V2, V3_CC };
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
    unsigned long long usedGpuCcProtectedMemory;
} process_info_cc;

static nvmlReturn_t list(nvmlDevice_t d, const char *func, const char *key, unsigned int *count,
                         void *out, enum layout layout)
{
    int e = check(d, func);
    if (e)
        return e;
    snapshot s = {0};
    if (take_snapshot(cJSON_GetObjectItemCaseSensitive(sample_of(d), key), &s) != 0)
        return 999;
    if (*count < s.n || (!out && s.n)) {
        *count = s.n;
        return 7;   /* NVML_ERROR_INSUFFICIENT_SIZE */
    }
    for (unsigned int k = 0; k < s.n; k++) {
        const cJSON *mem = cJSON_GetObjectItemCaseSensitive(s.entry[k], "mem");
        unsigned long long bytes = cJSON_IsNumber(mem) ? (unsigned long long)mem->valuedouble : ULLONG_MAX;
        if (layout == V1)
            ((nvmlProcessInfo_v1_t *)out)[k] = (nvmlProcessInfo_v1_t){s.pid[k], bytes};
        else if (layout == V2)
            ((nvmlProcessInfo_t *)out)[k] = (nvmlProcessInfo_t){s.pid[k], bytes, 0xFFFFFFFF, 0xFFFFFFFF};
        else
            ((process_info_cc *)out)[k] = (process_info_cc){s.pid[k], bytes, 0xFFFFFFFF, 0xFFFFFFFF, 0};
    }
    *count = s.n;
    return 0;
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_v1_t *p)
{
    return list(d, "nvmlDeviceGetComputeRunningProcesses", "compute", n, p, V1);
}

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_v1_t *p)
{
    return list(d, "nvmlDeviceGetGraphicsRunningProcesses", "graphics", n, p, V1);
}

#ifdef FAKE_NVML_OLD
nvmlReturn_t nvmlInit(void) { return do_init("nvmlInit"); }
nvmlReturn_t nvmlDeviceGetCount(unsigned int *n) { return do_count(n); }
nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int i, nvmlDevice_t *d) { return do_handle(i, d); }
#else
nvmlReturn_t nvmlInit_v2(void) { return do_init("nvmlInit_v2"); }

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, nvmlMemory_v2_t *m)
{
    if (!m || m->version != nvmlMemory_v2)
        return 25;  /* NVML_ERROR_ARGUMENT_VERSION_MISMATCH */
    unsigned long long v[3];
    int e = memory(d, "nvmlDeviceGetMemoryInfo_v2", v);
    if (e)
        return e;
    m->total = v[0];
    m->used = v[1];
    m->reserved = v[2];
    m->free = m->total > v[1] + v[2] ? m->total - v[1] - v[2] : 0;
    return 0;
}
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n) { return do_count(n); }
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d) { return do_handle(i, d); }

#ifdef FAKE_NVML_CC
#define V3 V3_CC
/* Only its presence tells the drivers of that window (with the absence of
 * nvmlDeviceGetRunningProcessDetailList, R535 on). */
nvmlReturn_t nvmlDeviceGetConfComputeMemSizeInfo(nvmlDevice_t d, void *info);
nvmlReturn_t nvmlDeviceGetConfComputeMemSizeInfo(nvmlDevice_t d, void *info)
{
    (void)info;
    int e = check(d, "nvmlDeviceGetConfComputeMemSizeInfo");
    return e ? (nvmlReturn_t)e : NVML_ERROR_NOT_SUPPORTED;
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_v2_t *p)
{
    return list(d, "nvmlDeviceGetComputeRunningProcesses_v2", "compute", n, p, V2);
}

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v2(nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_v2_t *p)
{
    return list(d, "nvmlDeviceGetGraphicsRunningProcesses_v2", "graphics", n, p, V2);
}
#else
#define V3 V2
#endif

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_t *p)
{
    return list(d, "nvmlDeviceGetComputeRunningProcesses_v3", "compute", n, p, V3);
}

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_t *p)
{
    return list(d, "nvmlDeviceGetGraphicsRunningProcesses_v3", "graphics", n, p, V3);
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int *mw)
{
    int e = check(d, "nvmlDeviceGetPowerUsage");
    if (e)
        return e;
    *mw = (unsigned int)num(sample_of(d), "power_mw", 0);
    return 0;
}

static double thread_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Burns the device's "slow_us" of this thread's CPU time, as a driver whose
 * call is slow does, and counts the call in FAKE_NVML_LOG ("slow FUNC"). */
static void slow(nvmlDevice_t d, const char *func)
{
    if (!initialized || d < devs || d >= devs + n_devs)
        return;
    log_line("slow %s", func);
    double us = num(d->json, "slow_us", 0), t0 = thread_us();
    while (thread_us() - t0 < us)
        ;
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t d, unsigned long long *mj)
{
    slow(d, "nvmlDeviceGetTotalEnergyConsumption");
    int e = check(d, "nvmlDeviceGetTotalEnergyConsumption");
    if (e)
        return e;
    *mj = (unsigned long long)num(sample_of(d), "energy_mj", 0);
    return 0;
}

/* One utilization sample, stamped now, per process entry with "sm". */
nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t d, nvmlProcessUtilizationSample_t *u,
                                             unsigned int *n, unsigned long long last_seen)
{
    slow(d, "nvmlDeviceGetProcessUtilization");
    int e = check(d, "nvmlDeviceGetProcessUtilization");
    if (e)
        return e;
    /* Entries with "sm", from one snapshot of both lists (see list()). */
    snapshot s = {0};
    if (take_snapshot(cJSON_GetObjectItemCaseSensitive(sample_of(d), "compute"), &s) != 0 ||
        take_snapshot(cJSON_GetObjectItemCaseSensitive(sample_of(d), "graphics"), &s) != 0)
        return 999;
    unsigned int need = 0;
    for (unsigned int k = 0; k < s.n; k++)
        if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(s.entry[k], "sm")))
            need++;
    if (!need)
        return 6;   /* NVML_ERROR_NOT_FOUND: no sample since last_seen */
    if (!u || *n < need) {
        *n = need;
        return 7;
    }
    /* As a real driver: samples are taken every "sm_period_ms" (stamped at
     * the start of their period), and only those newer than last_seen are
     * returned. */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long long now = (unsigned long long)ts.tv_sec * 1000000ull + (unsigned long long)ts.tv_nsec / 1000;
    unsigned long long period = (unsigned long long)num(d->json, "sm_period_ms", 0) * 1000ull;
    if (period)
        now -= now % period;
    if (now <= last_seen)
        return 6;
    unsigned int at = 0;
    for (unsigned int k = 0; k < s.n; k++)
        if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(s.entry[k], "sm")))
            u[at++] = (nvmlProcessUtilizationSample_t){s.pid[k], now, (unsigned int)num(s.entry[k], "sm", 0), 0, 0, 0};
    *n = need;
    return 0;
}
#endif
