/* SPDX-License-Identifier: MIT */
/* AMD backend: the ROCm SMI library (librocm_smi64) loaded with dlopen at run
 * time, and initialized only where sysfs shows an AMD GPU.  The types and
 * functions it uses are declared once, in rocm_smi_decl.h (checked against
 * AMD's rocm_smi.h).  ROCm SMI lists compute processes system-wide (not per
 * device), with each process's VRAM summed over the devices it uses. */
#include "gpu/backend.h"
#include "gpu/rocm_smi_decl.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/procfs.h"

/* A pointer to the function `name` as rocm_smi_decl.h declares it: the
 * library's functions are only ever reached through dlsym. */
#define FN(name) __typeof__(name) *

typedef struct rsmi {
    void *lib;
    FN(rsmi_shut_down) shut_down;
    FN(rsmi_status_string) status_string;
    FN(rsmi_dev_unique_id_get) unique_id;
    FN(rsmi_dev_memory_total_get) mem_total;
    FN(rsmi_dev_memory_usage_get) mem_used;
    FN(rsmi_dev_busy_percent_get) busy;
    FN(rsmi_dev_power_ave_get) power_ave;
    FN(rsmi_dev_energy_count_get) energy;
    FN(rsmi_compute_process_info_get) procs;
    FN(rsmi_compute_process_info_by_pid_get) proc_by_pid;
    uint32_t n;
    rsmi_process_info_t *buf;
    uint32_t cap;
} rsmi;

static gt_gpu_rc fail(const rsmi *m, rsmi_status_t r, const char *func, gt_gpu_why *why)
{
    const char *text = NULL;
    if (m->status_string && m->status_string(r, &text) != RSMI_STATUS_SUCCESS)
        text = NULL;
    why->func = func;
    snprintf(why->detail, sizeof why->detail, "%s, ROCm SMI status %u", text ? text : "unknown error", r);
    switch (r) {
    case RSMI_STATUS_NOT_SUPPORTED: return GT_GPU_UNSUPPORTED;
    case RSMI_STATUS_PERMISSION: return GT_GPU_NO_PERMISSION;
    default: return GT_GPU_ERROR;
    }
}

static gt_gpu_rc missing(const char *func, gt_gpu_why *why)
{
    why->func = func;
    snprintf(why->detail, sizeof why->detail, "not exported by the loaded ROCm SMI");
    return GT_GPU_MISSING;
}

#define SYM(m, name) gt_gpu_dlsym((m)->lib, (const char *const[]){name, NULL}, NULL)
/* The function `name` of the library, with the type rocm_smi_decl.h gives it:
 * the symbol is the declaration's name, so the two cannot differ. */
#define RESOLVE(m, name) ((FN(name))SYM(m, #name))

static void release(rsmi *m)
{
    if (!m)
        return;
    if (m->lib)
        dlclose(m->lib);
    free(m->buf);
    free(m);
}

static void rs_shutdown(void *state)
{
    rsmi *m = state;
    if (m && m->shut_down)
        m->shut_down();
    release(m);
}

/* The first line of the small file dir/name into buf; 0, or -1 when it
 * cannot be read. */
static int read_line_at(int dir, const char *name, char *buf, size_t size)
{
    int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = gt_pread_full(fd, buf, size - 1, 0);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* Whether <root>/class/drm has a card (cardN, not its connectors cardN-*)
 * whose device is AMD's (PCI vendor 0x1002, what the library's own discovery
 * looks for) or is driven by amdgpu.  -1 when the folder cannot be read for
 * another reason than its absence. */
static int drm_has_amd(const char *root)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/class/drm", root);
    DIR *d = opendir(path);
    if (!d)
        return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
    int found = 0;
    const struct dirent *e;
    while (!found && (e = readdir(d))) {
        const char *num = e->d_name + 4;
        if (strncmp(e->d_name, "card", 4) || !*num || strspn(num, "0123456789") != strlen(num))
            continue;
        int card = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (card < 0)
            continue;
        char vendor[32], driver[4096];
        if (read_line_at(card, "device/vendor", vendor, sizeof vendor) == 0 && !strcmp(vendor, "0x1002"))
            found = 1;
        ssize_t n = readlinkat(card, "device/driver", driver, sizeof driver - 1);
        if (n > 0) {
            driver[n] = '\0';
            const char *base = strrchr(driver, '/');
            found |= !strcmp(base ? base + 1 : driver, "amdgpu");
        }
        close(card);
    }
    closedir(d);
    return found;
}

/* Whether an AMD GPU can be present, decided from sysfs (root NULL: /sys)
 * before the library is initialized, as AMD's own tools do: where none can
 * be, rsmi_init only fails, and prints its failure on stderr ("Failed to
 * open drm root directory ...", "Exception caught: rsmi_init.") into the
 * tracked command's output.  Besides the DRM cards, a GPU node of the KFD
 * topology (gpu_id not 0; CPU nodes have 0) counts.  A folder that cannot
 * be read counts as a possible GPU: then the library decides.  0 fills why
 * with what was looked for. */
static int amd_gpu_possible(const char *root, gt_gpu_why *why)
{
    if (!root)
        root = "/sys";
    int drm = drm_has_amd(root);
    if (drm != 0)
        return 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/class/kfd/kfd/topology/nodes", root);
    DIR *d = opendir(path);
    if (!d && errno != ENOENT && errno != ENOTDIR)
        return 1;
    int found = 0;
    const struct dirent *e;
    while (d && !found && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char name[300], id[32];
        snprintf(name, sizeof name, "%s/gpu_id", e->d_name);
        found = read_line_at(dirfd(d), name, id, sizeof id) == 0 && strcmp(id, "0") && id[0];
    }
    if (d)
        closedir(d);
    if (!found) {
        why->func = "rsmi_init";
        snprintf(why->detail, sizeof why->detail,
                 "not called: no AMD GPU in %s/class/drm (no card of PCI vendor 0x1002 or driver amdgpu) nor in "
                 "the KFD topology", root);
    }
    return found;
}

static gt_gpu_found rs_init(const char *sysfs_root, void **state, int *count, gt_gpu_why *why)
{
    static const char *const names[] = {"librocm_smi64.so.1", "librocm_smi64.so",
                                        "/opt/rocm/lib/librocm_smi64.so.1", NULL};
    rsmi *m = calloc(1, sizeof *m);
    if (!m)
        return GT_GPU_NOT_INSTALLED;
    if (!(m->lib = gt_gpu_dlopen("GT_ROCM_SMI_LIBRARY", names))) {
        release(m);
        return GT_GPU_NOT_INSTALLED;
    }
    if (!amd_gpu_possible(sysfs_root, why)) {
        release(m);
        return GT_GPU_NO_DEVICE;
    }
    m->status_string = RESOLVE(m, rsmi_status_string);
    FN(rsmi_init) init = RESOLVE(m, rsmi_init);
    m->shut_down = RESOLVE(m, rsmi_shut_down);
    FN(rsmi_num_monitor_devices) num = RESOLVE(m, rsmi_num_monitor_devices);
    if (!init || !m->shut_down || !num) {
        missing(!init ? "rsmi_init" : !m->shut_down ? "rsmi_shut_down" : "rsmi_num_monitor_devices", why);
        m->shut_down = NULL;
        release(m);
        return GT_GPU_NO_DEVICE;
    }
    rsmi_status_t r = init(0);
    if (r != RSMI_STATUS_SUCCESS) {
        fail(m, r, "rsmi_init", why);
        m->shut_down = NULL;
        release(m);
        return GT_GPU_NO_DEVICE;
    }
    if ((r = num(&m->n)) != RSMI_STATUS_SUCCESS || m->n == 0) {
        if (r != RSMI_STATUS_SUCCESS)
            fail(m, r, "rsmi_num_monitor_devices", why);
        else
            snprintf(why->detail, sizeof why->detail, "no device"), why->func = "rsmi_num_monitor_devices";
        rs_shutdown(m);
        return GT_GPU_NO_DEVICE;
    }
    m->unique_id = RESOLVE(m, rsmi_dev_unique_id_get);
    m->mem_total = RESOLVE(m, rsmi_dev_memory_total_get);
    m->mem_used = RESOLVE(m, rsmi_dev_memory_usage_get);
    m->busy = RESOLVE(m, rsmi_dev_busy_percent_get);
    m->power_ave = RESOLVE(m, rsmi_dev_power_ave_get);
    m->energy = RESOLVE(m, rsmi_dev_energy_count_get);
    m->procs = RESOLVE(m, rsmi_compute_process_info_get);
    m->proc_by_pid = RESOLVE(m, rsmi_compute_process_info_by_pid_get);
    *state = m;
    *count = (int)m->n;
    return GT_GPU_FOUND;
}

/* rocm-smi's "Unique ID": the GPU's 64-bit serial, in hex. */
static gt_gpu_rc rs_uuid(void *state, int i, char *buf, size_t len, gt_gpu_why *why)
{
    rsmi *m = state;
    if (!m->unique_id)
        return missing("rsmi_dev_unique_id_get", why);
    uint64_t id;
    rsmi_status_t r = m->unique_id((uint32_t)i, &id);
    if (r != RSMI_STATUS_SUCCESS)
        return fail(m, r, "rsmi_dev_unique_id_get", why);
    snprintf(buf, len, "0x%" PRIx64, id);
    return GT_GPU_OK;
}

static gt_gpu_rc rs_memory_total(void *state, int i, uint64_t *bytes, gt_gpu_why *why)
{
    rsmi *m = state;
    if (!m->mem_total)
        return missing("rsmi_dev_memory_total_get", why);
    rsmi_status_t r = m->mem_total((uint32_t)i, RSMI_MEM_TYPE_VRAM, bytes);
    return r == RSMI_STATUS_SUCCESS ? GT_GPU_OK : fail(m, r, "rsmi_dev_memory_total_get", why);
}

static gt_gpu_rc rs_memory_used(void *state, int i, uint64_t *bytes, gt_gpu_why *why)
{
    rsmi *m = state;
    if (!m->mem_used)
        return missing("rsmi_dev_memory_usage_get", why);
    rsmi_status_t r = m->mem_used((uint32_t)i, RSMI_MEM_TYPE_VRAM, bytes);
    return r == RSMI_STATUS_SUCCESS ? GT_GPU_OK : fail(m, r, "rsmi_dev_memory_usage_get", why);
}

static gt_gpu_rc rs_utilization(void *state, int i, double *percent, gt_gpu_why *why)
{
    rsmi *m = state;
    if (!m->busy)
        return missing("rsmi_dev_busy_percent_get", why);
    uint32_t p;
    rsmi_status_t r = m->busy((uint32_t)i, &p);
    if (r != RSMI_STATUS_SUCCESS)
        return fail(m, r, "rsmi_dev_busy_percent_get", why);
    *percent = p;
    return GT_GPU_OK;
}

static gt_gpu_rc rs_power(void *state, int i, double *watts, gt_gpu_why *why)
{
    rsmi *m = state;
    if (!m->power_ave)
        return missing("rsmi_dev_power_ave_get", why);
    uint64_t uw;
    rsmi_status_t r = m->power_ave((uint32_t)i, 0, &uw);
    if (r != RSMI_STATUS_SUCCESS)
        return fail(m, r, "rsmi_dev_power_ave_get", why);
    *watts = (double)uw / 1e6;
    return GT_GPU_OK;
}

static gt_gpu_rc rs_energy(void *state, int i, double *joules, gt_gpu_why *why)
{
    rsmi *m = state;
    if (!m->energy)
        return missing("rsmi_dev_energy_count_get", why);
    uint64_t count, ts;
    float resolution_uj;
    rsmi_status_t r = m->energy((uint32_t)i, &count, &resolution_uj, &ts);
    if (r != RSMI_STATUS_SUCCESS)
        return fail(m, r, "rsmi_dev_energy_count_get", why);
    *joules = (double)count * (double)resolution_uj / 1e6;
    return GT_GPU_OK;
}

/* The system-wide compute process list; each process's VRAM comes from the
 * per-PID query, which fills vram_usage where the list may not. */
static gt_gpu_rc rs_processes(void *state, int i, gt_gpu_procs *out, gt_gpu_why *why)
{
    (void)i;
    rsmi *m = state;
    out->sm_rc = missing("per-process SM utilization", &out->sm_why);
    out->sm_why.func = NULL;   /* ROCm SMI has none: not a degradation to warn about */
    if (!m->procs)
        return missing("rsmi_compute_process_info_get", why);
    uint32_t n = 0;
    rsmi_status_t r = RSMI_STATUS_INSUFFICIENT_SIZE;
    for (int tries = 0; tries < 4 && r == RSMI_STATUS_INSUFFICIENT_SIZE; tries++) {
        if (n + 8 > m->cap) {
            rsmi_process_info_t *b = realloc(m->buf, (n + 32) * sizeof *b);
            if (!b) {
                why->func = "rsmi_compute_process_info_get";
                snprintf(why->detail, sizeof why->detail, "out of memory");
                return GT_GPU_ERROR;
            }
            m->buf = b;
            m->cap = n + 32;
        }
        n = m->cap;
        r = m->procs(m->buf, &n);
    }
    if (r != RSMI_STATUS_SUCCESS)
        return fail(m, r, "rsmi_compute_process_info_get", why);
    if (gt_gpu_procs_reserve(out, out->n + n) != 0) {
        why->func = "rsmi_compute_process_info_get";
        snprintf(why->detail, sizeof why->detail, "out of memory");
        return GT_GPU_ERROR;
    }
    for (uint32_t k = 0; k < n; k++) {
        gt_gpu_proc *e = &out->v[out->n];
        memset(e, 0, sizeof *e);
        e->pid = (pid_t)m->buf[k].process_id;
        rsmi_process_info_t one;
        if (m->proc_by_pid) {
            r = m->proc_by_pid(m->buf[k].process_id, &one);
            if (r == RSMI_STATUS_NOT_FOUND)
                continue;   /* ended between the two calls */
            if (r == RSMI_STATUS_SUCCESS) {
                e->mem_valid = 1;
                e->mem_bytes = one.vram_usage;
            }
        } else {
            e->mem_valid = 1;
            e->mem_bytes = m->buf[k].vram_usage;
        }
        out->n++;
    }
    return GT_GPU_OK;
}

const gt_gpu_vendor gt_gpu_rocm_smi = {
    .name = "amd",
    .tool = "ROCm SMI library (librocm_smi64.so.1)",
    .brand = GT_GPU_AMD,
    .init = rs_init,
    .shutdown = rs_shutdown,
    .uuid = rs_uuid,
    .memory_total = rs_memory_total,
    .memory_used = rs_memory_used,
    .utilization = rs_utilization,
    .power = rs_power,
    .energy = rs_energy,
    .procs_per_device = 0,
    .processes = rs_processes,
};
