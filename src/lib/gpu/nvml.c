/* SPDX-License-Identifier: MIT */
/* NVIDIA backend: libnvidia-ml (NVML) loaded with dlopen at run time, so
 * gpu-tracker builds and runs without the driver or CUDA.  The types and
 * functions it uses are declared once, in nvml_decl.h (checked against a
 * header generated from NVIDIA's nvml.h); versioned functions are resolved
 * newest first. */
#include "gpu/backend.h"
#include "gpu/nvml_decl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A pointer to the function `name` as nvml_decl.h declares it: the
 * library's functions are only ever reached through dlsym. */
#define FN(name) __typeof__(name) *

/* A process-listing function (compute or graphics), with the name it
 * resolved to; one of v3, v2, v1 is set, newest first. */
typedef struct proc_query {
    const char *name;
    FN(nvmlDeviceGetComputeRunningProcesses_v3) v3;
    FN(nvmlDeviceGetComputeRunningProcesses_v2) v2;
    FN(nvmlDeviceGetComputeRunningProcesses) v1;
} proc_query;

typedef struct nvml {
    void *lib;
    FN(nvmlShutdown) shutdown;
    FN(nvmlErrorString) error_string;
    FN(nvmlDeviceGetUUID) get_uuid;
    FN(nvmlDeviceGetMemoryInfo) memory;
    FN(nvmlDeviceGetMemoryInfo_v2) memory_v2;
    FN(nvmlDeviceGetUtilizationRates) utilization;
    FN(nvmlDeviceGetPowerUsage) power;
    FN(nvmlDeviceGetTotalEnergyConsumption) energy;
    FN(nvmlDeviceGetProcessUtilization) proc_util;
    proc_query compute, graphics;
    int n;
    nvmlDevice_t *dev;
    void *buf;                      /* process structs, reused each sample */
    size_t buf_bytes;
    nvmlProcessUtilizationSample_t *ubuf;
    unsigned int ucap;
} nvml;

static gt_gpu_rc fail(const nvml *m, nvmlReturn_t r, const char *func, gt_gpu_why *why)
{
    why->func = func;
    const char *text = m->error_string ? m->error_string(r) : NULL;
    snprintf(why->detail, sizeof why->detail, "%s, NVML error %u", text ? text : "unknown error", r);
    switch (r) {
    case NVML_ERROR_NOT_SUPPORTED: return GT_GPU_UNSUPPORTED;
    case NVML_ERROR_NO_PERMISSION: return GT_GPU_NO_PERMISSION;
    case NVML_ERROR_FUNCTION_NOT_FOUND: return GT_GPU_MISSING;
    case NVML_ERROR_GPU_IS_LOST:
    case NVML_ERROR_GPU_NOT_FOUND: return GT_GPU_LOST;
    default: return GT_GPU_ERROR;
    }
}

static gt_gpu_rc missing(const char *func, gt_gpu_why *why)
{
    why->func = func;
    snprintf(why->detail, sizeof why->detail, "not exported by the loaded NVML");
    return GT_GPU_MISSING;
}

#define SYM(m, ...) gt_gpu_dlsym((m)->lib, (const char *const[]){__VA_ARGS__, NULL}, NULL)
/* The function `name` of the library, with the type nvml_decl.h gives it:
 * the symbol is the declaration's name, so the two cannot differ. */
#define RESOLVE(m, name) ((FN(name))SYM(m, #name))

static void release(nvml *m)
{
    if (!m)
        return;
    if (m->lib)
        dlclose(m->lib);
    free(m->dev);
    free(m->buf);
    free(m->ubuf);
    free(m);
}

static void nv_shutdown(void *state)
{
    nvml *m = state;
    if (m && m->shutdown)
        m->shutdown();
    release(m);
}

/* The newest of names (NULL-terminated: _v3, _v2, unversioned, or from _v2
 * on) that lib exports, into q; the version is told by the name's suffix. */
static void resolve_listing(void *lib, const char *const *names, proc_query *q)
{
    memset(q, 0, sizeof *q);
    void *f = gt_gpu_dlsym(lib, names, &q->name);
    if (!f)
        return;
    size_t len = strlen(q->name);
    if (len > 3 && !strcmp(q->name + len - 3, "_v3"))
        q->v3 = (FN(nvmlDeviceGetComputeRunningProcesses_v3))f;
    else if (len > 3 && !strcmp(q->name + len - 3, "_v2"))
        q->v2 = (FN(nvmlDeviceGetComputeRunningProcesses_v2))f;
    else
        q->v1 = (FN(nvmlDeviceGetComputeRunningProcesses))f;
}

static gt_gpu_found nv_init(const char *sysfs_root, void **state, int *count, gt_gpu_why *why)
{
    (void)sysfs_root;   /* NVML finds its devices through the driver */
    static const char *const names[] = {"libnvidia-ml.so.1", "libnvidia-ml.so", NULL};
    nvml *m = calloc(1, sizeof *m);
    if (!m)
        return GT_GPU_NOT_INSTALLED;
    if (!(m->lib = gt_gpu_dlopen("GT_NVML_LIBRARY", names))) {
        release(m);
        return GT_GPU_NOT_INSTALLED;
    }
    m->error_string = RESOLVE(m, nvmlErrorString);
    FN(nvmlInit_v2) init = (FN(nvmlInit_v2))SYM(m, "nvmlInit_v2", "nvmlInit");
    m->shutdown = RESOLVE(m, nvmlShutdown);
    FN(nvmlDeviceGetCount_v2) get_count =
        (FN(nvmlDeviceGetCount_v2))SYM(m, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
    FN(nvmlDeviceGetHandleByIndex_v2) get_handle =
        (FN(nvmlDeviceGetHandleByIndex_v2))SYM(m, "nvmlDeviceGetHandleByIndex_v2",
                                               "nvmlDeviceGetHandleByIndex");
    if (!init || !m->shutdown || !get_count || !get_handle) {
        missing(!init ? "nvmlInit_v2" : !m->shutdown ? "nvmlShutdown"
                : !get_count ? "nvmlDeviceGetCount_v2" : "nvmlDeviceGetHandleByIndex_v2", why);
        m->shutdown = NULL;
        release(m);
        return GT_GPU_NO_DEVICE;
    }
    nvmlReturn_t r = init();
    if (r != NVML_SUCCESS) {
        fail(m, r, "nvmlInit_v2", why);
        release(m);
        return GT_GPU_NO_DEVICE;
    }
    unsigned int n = 0;
    if ((r = get_count(&n)) != NVML_SUCCESS || n == 0) {
        if (r != NVML_SUCCESS)
            fail(m, r, "nvmlDeviceGetCount_v2", why);
        else
            snprintf(why->detail, sizeof why->detail, "no device"), why->func = "nvmlDeviceGetCount_v2";
        nv_shutdown(m);
        return GT_GPU_NO_DEVICE;
    }
    m->dev = calloc(n, sizeof *m->dev);
    if (!m->dev) {
        nv_shutdown(m);
        return GT_GPU_NOT_INSTALLED;
    }
    m->n = (int)n;
    for (unsigned int i = 0; i < n; i++)
        if (get_handle(i, &m->dev[i]) != NVML_SUCCESS)
            m->dev[i] = NULL;   /* reported by the first reading of it */

    m->get_uuid = RESOLVE(m, nvmlDeviceGetUUID);
    m->memory = RESOLVE(m, nvmlDeviceGetMemoryInfo);
    m->memory_v2 = RESOLVE(m, nvmlDeviceGetMemoryInfo_v2);
    m->utilization = RESOLVE(m, nvmlDeviceGetUtilizationRates);
    m->power = RESOLVE(m, nvmlDeviceGetPowerUsage);
    m->energy = RESOLVE(m, nvmlDeviceGetTotalEnergyConsumption);
    m->proc_util = RESOLVE(m, nvmlDeviceGetProcessUtilization);
    /* Drivers R525 to R530 write 32-byte entries from the _v3 listings
     * (nvml_decl.h): they are the ones that export
     * nvmlDeviceGetConfComputeMemSizeInfo (R525 on) but not
     * nvmlDeviceGetRunningProcessDetailList (R535 on), and get the _v2
     * listings, whose entries are the 24 bytes declared. */
    int v3_wide = SYM(m, "nvmlDeviceGetConfComputeMemSizeInfo") && !SYM(m, "nvmlDeviceGetRunningProcessDetailList");
    static const char *const compute[] = {"nvmlDeviceGetComputeRunningProcesses_v3",
                                          "nvmlDeviceGetComputeRunningProcesses_v2",
                                          "nvmlDeviceGetComputeRunningProcesses", NULL};
    static const char *const graphics[] = {"nvmlDeviceGetGraphicsRunningProcesses_v3",
                                           "nvmlDeviceGetGraphicsRunningProcesses_v2",
                                           "nvmlDeviceGetGraphicsRunningProcesses", NULL};
    resolve_listing(m->lib, compute + v3_wide, &m->compute);
    resolve_listing(m->lib, graphics + v3_wide, &m->graphics);
    *state = m;
    *count = m->n;
    return GT_GPU_FOUND;
}

/* The device handle of index i, or a failure when NVML refused it. */
static nvmlDevice_t device(const nvml *m, int i)
{
    return i >= 0 && i < m->n ? m->dev[i] : NULL;
}

static gt_gpu_rc no_handle(gt_gpu_why *why)
{
    why->func = "nvmlDeviceGetHandleByIndex_v2";
    snprintf(why->detail, sizeof why->detail, "no handle for this device");
    return GT_GPU_ERROR;
}

static gt_gpu_rc nv_uuid(void *state, int i, char *buf, size_t len, gt_gpu_why *why)
{
    nvml *m = state;
    nvmlDevice_t d = device(m, i);
    if (!d)
        return no_handle(why);
    if (!m->get_uuid)
        return missing("nvmlDeviceGetUUID", why);
    nvmlReturn_t r = m->get_uuid(d, buf, (unsigned int)len);
    if (r != NVML_SUCCESS)
        return fail(m, r, "nvmlDeviceGetUUID", why);
    buf[len - 1] = '\0';
    return GT_GPU_OK;
}

/* Total and used memory of device i.  The unversioned function counts the
 * memory the driver reserves for itself (615 MiB of an H200) as used; _v2
 * reports it apart and its used is what nvidia-smi prints, so _v2 is read
 * where the driver has it (R510 and later), the unversioned one otherwise. */
static gt_gpu_rc read_memory(nvml *m, int i, nvmlMemory_t *mem, gt_gpu_why *why)
{
    nvmlDevice_t d = device(m, i);
    if (!d)
        return no_handle(why);
    if (m->memory_v2) {
        nvmlMemory_v2_t v2 = {.version = nvmlMemory_v2};
        nvmlReturn_t r = m->memory_v2(d, &v2);
        if (r == NVML_SUCCESS) {
            mem->total = v2.total, mem->free = v2.free, mem->used = v2.used;
            return GT_GPU_OK;
        }
        if (r != NVML_ERROR_ARGUMENT_VERSION_MISMATCH && r != NVML_ERROR_FUNCTION_NOT_FOUND)
            return fail(m, r, "nvmlDeviceGetMemoryInfo_v2", why);
        m->memory_v2 = NULL;   /* a driver that exports it but knows no version 2 */
    }
    if (!m->memory)
        return missing("nvmlDeviceGetMemoryInfo", why);
    nvmlReturn_t r = m->memory(d, mem);
    return r == NVML_SUCCESS ? GT_GPU_OK : fail(m, r, "nvmlDeviceGetMemoryInfo", why);
}

static gt_gpu_rc nv_memory_total(void *state, int i, uint64_t *bytes, gt_gpu_why *why)
{
    nvmlMemory_t mem;
    gt_gpu_rc rc = read_memory(state, i, &mem, why);
    if (rc == GT_GPU_OK)
        *bytes = mem.total;
    return rc;
}

static gt_gpu_rc nv_memory_used(void *state, int i, uint64_t *bytes, gt_gpu_why *why)
{
    nvmlMemory_t mem;
    gt_gpu_rc rc = read_memory(state, i, &mem, why);
    if (rc == GT_GPU_OK)
        *bytes = mem.used;
    return rc;
}

static gt_gpu_rc nv_utilization(void *state, int i, double *percent, gt_gpu_why *why)
{
    nvml *m = state;
    nvmlDevice_t d = device(m, i);
    if (!d)
        return no_handle(why);
    if (!m->utilization)
        return missing("nvmlDeviceGetUtilizationRates", why);
    nvmlUtilization_t u;
    nvmlReturn_t r = m->utilization(d, &u);
    if (r != NVML_SUCCESS)
        return fail(m, r, "nvmlDeviceGetUtilizationRates", why);
    *percent = u.gpu;
    return GT_GPU_OK;
}

static gt_gpu_rc nv_power(void *state, int i, double *watts, gt_gpu_why *why)
{
    nvml *m = state;
    nvmlDevice_t d = device(m, i);
    if (!d)
        return no_handle(why);
    if (!m->power)
        return missing("nvmlDeviceGetPowerUsage", why);
    unsigned int mw;
    nvmlReturn_t r = m->power(d, &mw);
    if (r != NVML_SUCCESS)
        return fail(m, r, "nvmlDeviceGetPowerUsage", why);
    *watts = mw / 1000.0;
    return GT_GPU_OK;
}

static gt_gpu_rc nv_energy(void *state, int i, double *joules, gt_gpu_why *why)
{
    nvml *m = state;
    nvmlDevice_t d = device(m, i);
    if (!d)
        return no_handle(why);
    if (!m->energy)
        return missing("nvmlDeviceGetTotalEnergyConsumption", why);
    unsigned long long mj;
    nvmlReturn_t r = m->energy(d, &mj);
    if (r != NVML_SUCCESS)
        return fail(m, r, "nvmlDeviceGetTotalEnergyConsumption", why);
    *joules = (double)mj / 1000.0;
    return GT_GPU_OK;
}

/* Appends the processes one listing function reports.  NVML answers
 * INSUFFICIENT_SIZE with the count it needs; processes may start between
 * the calls, so it is retried a few times with room to spare. */
static gt_gpu_rc list(nvml *m, nvmlDevice_t d, const proc_query *q, gt_gpu_procs *out, gt_gpu_why *why)
{
    /* _v2 and _v3 entries share their layout (nvml_decl.h). */
    size_t esize = q->v1 ? sizeof(nvmlProcessInfo_v1_t) : q->v2 ? sizeof(nvmlProcessInfo_v2_t)
                                                           : sizeof(nvmlProcessInfo_t);
    unsigned int n = 0;
    nvmlReturn_t r = NVML_ERROR_INSUFFICIENT_SIZE;
    for (int tries = 0; tries < 4 && r == NVML_ERROR_INSUFFICIENT_SIZE; tries++) {
        size_t need = ((size_t)n + 8) * esize;
        if (need > m->buf_bytes) {
            void *b = realloc(m->buf, need);
            if (!b) {
                why->func = q->name;
                snprintf(why->detail, sizeof why->detail, "out of memory");
                return GT_GPU_ERROR;
            }
            m->buf = b;
            m->buf_bytes = need;
        }
        n = (unsigned int)(m->buf_bytes / esize);
        r = q->v3 ? q->v3(d, &n, m->buf) : q->v2 ? q->v2(d, &n, m->buf) : q->v1(d, &n, m->buf);
    }
    if (r != NVML_SUCCESS)
        return fail(m, r, q->name, why);
    if (gt_gpu_procs_reserve(out, out->n + n) != 0) {
        why->func = q->name;
        snprintf(why->detail, sizeof why->detail, "out of memory");
        return GT_GPU_ERROR;
    }
    for (unsigned int k = 0; k < n; k++) {
        unsigned int pid;
        unsigned long long mem;
        if (q->v1) {
            const nvmlProcessInfo_v1_t *p = (const nvmlProcessInfo_v1_t *)m->buf + k;
            pid = p->pid, mem = p->usedGpuMemory;
        } else {
            const nvmlProcessInfo_v2_t *p = (const nvmlProcessInfo_v2_t *)m->buf + k;
            pid = p->pid, mem = p->usedGpuMemory;
        }
        gt_gpu_proc *e = &out->v[out->n++];
        e->pid = (pid_t)pid;
        e->mem_valid = mem != (unsigned long long)NVML_VALUE_NOT_AVAILABLE;
        e->mem_bytes = e->mem_valid ? mem : 0;
        e->sm_valid = 0;
        e->sm_percent = 0;
    }
    return GT_GPU_OK;
}

static unsigned long long now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (unsigned long long)ts.tv_sec * 1000000ull + (unsigned long long)ts.tv_nsec / 1000;
}

/* Fills sm_percent of the processes [first, out->n) from the utilization
 * samples NVML kept for the last second: each process's newest.  The
 * driver takes a process's sample every few hundred milliseconds (an H200
 * with driver 580 keeps one per process), so a process without one in the
 * last second has been idle; asking only for samples newer than the last
 * call instead would count a busy process idle at every call that comes
 * before the driver's next sample. */
static void sm_utilization(nvml *m, int i, size_t first, gt_gpu_procs *out)
{
    if (!m->proc_util) {
        out->sm_rc = missing("nvmlDeviceGetProcessUtilization", &out->sm_why);
        return;
    }
    nvmlDevice_t d = m->dev[i];
    /* The first call asks for the last second only, not the driver's whole
     * buffer of older samples. */
    unsigned long long since = now_us() - 1000000ull;
    unsigned int n = 0;
    nvmlReturn_t r = NVML_ERROR_INSUFFICIENT_SIZE;
    for (int tries = 0; tries < 4 && r == NVML_ERROR_INSUFFICIENT_SIZE; tries++) {
        if (n + 8 > m->ucap) {
            nvmlProcessUtilizationSample_t *b = realloc(m->ubuf, (n + 32) * sizeof *b);
            if (!b) {
                out->sm_rc = GT_GPU_ERROR;
                out->sm_why.func = "nvmlDeviceGetProcessUtilization";
                snprintf(out->sm_why.detail, sizeof out->sm_why.detail, "out of memory");
                return;
            }
            m->ubuf = b;
            m->ucap = n + 32;
        }
        n = m->ucap;
        r = m->proc_util(d, m->ubuf, &n, since);
    }
    for (size_t k = first; k < out->n; k++)
        out->v[k].sm_valid = 1;  /* absent from the samples: idle */
    if (r == NVML_ERROR_NOT_FOUND) {  /* no sample since `since`: all idle */
        out->sm_rc = GT_GPU_OK;
        return;
    }
    if (r != NVML_SUCCESS) {
        for (size_t k = first; k < out->n; k++)
            out->v[k].sm_valid = 0;
        out->sm_rc = fail(m, r, "nvmlDeviceGetProcessUtilization", &out->sm_why);
        return;
    }
    for (size_t k = first; k < out->n; k++) {
        unsigned long long at = 0;
        for (unsigned int s = 0; s < n; s++)
            if ((pid_t)m->ubuf[s].pid == out->v[k].pid && m->ubuf[s].timeStamp >= at) {
                at = m->ubuf[s].timeStamp;
                out->v[k].sm_percent = m->ubuf[s].smUtil;
            }
    }
    out->sm_rc = GT_GPU_OK;
}

static gt_gpu_rc nv_processes(void *state, int i, gt_gpu_procs *out, gt_gpu_why *why)
{
    nvml *m = state;
    nvmlDevice_t d = device(m, i);
    if (!d)
        return no_handle(why);
    if (!m->compute.name)
        return missing("nvmlDeviceGetComputeRunningProcesses_v3", why);
    size_t first = out->n;
    gt_gpu_rc rc = list(m, d, &m->compute, out, why);
    if (rc != GT_GPU_OK)
        return rc;
    size_t n_compute = out->n;
    /* Graphics processes count too; a driver without the listing gives
     * compute processes only, as nvidia-smi's compute-apps query does. */
    if (m->graphics.name && (rc = list(m, d, &m->graphics, out, why)) != GT_GPU_OK)
        return rc;
    /* A process doing both compute and graphics is in both lists with the
     * same per-process memory figure: keep one entry. */
    size_t w = n_compute;
    for (size_t k = n_compute; k < out->n; k++) {
        int dup = 0;
        for (size_t j = first; j < n_compute && !dup; j++)
            dup = out->v[j].pid == out->v[k].pid;
        if (!dup)
            out->v[w++] = out->v[k];
    }
    out->n = w;
    if (out->want_sm)
        sm_utilization(m, i, first, out);
    return GT_GPU_OK;
}

const gt_gpu_vendor gt_gpu_nvml = {
    .name = "nvidia",
    .tool = "NVIDIA NVML library (libnvidia-ml.so.1)",
    .brand = GT_GPU_NVIDIA,
    .init = nv_init,
    .shutdown = nv_shutdown,
    .uuid = nv_uuid,
    .memory_total = nv_memory_total,
    .memory_used = nv_memory_used,
    .utilization = nv_utilization,
    .power = nv_power,
    .energy = nv_energy,
    .procs_per_device = 1,
    .processes = nv_processes,
};
