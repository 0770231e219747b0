/* SPDX-License-Identifier: MIT */
/* A fake librocm_smi64 for the tests: gpu-tracker loads it through the same
 * dlopen path as the real library (GT_ROCM_SMI_LIBRARY names it).  It serves
 * what the JSON scenario file named by FAKE_RSMI_SCENARIO describes:
 *
 * {
 *   "errors": {"rsmi_init": 8},                  return codes of global calls
 *   "devices": [{
 *     "unique_id": "0x1a2b", "total": bytes,
 *     "errors": {"rsmi_dev_power_ave_get": 2},   returned on every call
 *     "samples": [{                              sample k is the (k+1)-th
 *       "used": bytes, "busy": percent,          reading; the last repeats
 *       "power_uw": uW, "energy": count, "resolution_uj": uJ per count,
 *       "procs": [{"pid": P | "pid_file": path, "vram": bytes}]
 *     }]
 *   }]
 * }
 *
 * A sample is one rsmi_dev_memory_usage_get call.  ROCm SMI lists compute
 * processes system-wide: a PID on several devices is one process whose VRAM
 * is the sum.  FAKE_RSMI_LOG, when set, gets one line per rsmi_init,
 * rsmi_shut_down and sample ("sample DEVICE N"). */
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The types and prototypes gpu-tracker's backend uses (src/lib/gpu), so
 * that the fake defines exactly what the backend declares. */
#include "gpu/rocm_smi_decl.h"

struct fake_dev {
    const cJSON *json;
    long reads;
};

static cJSON *scenario;
static struct fake_dev devs[16];
static uint32_t n_devs;
static int initialized;

__attribute__((format(printf, 1, 2)))
static void log_line(const char *fmt, ...)
{
    const char *path = getenv("FAKE_RSMI_LOG");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (!f)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    fclose(f);
}

static int error_in(const cJSON *obj, const char *func)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(obj, "errors"), func);
    return cJSON_IsNumber(e) ? e->valueint : 0;
}

static double num(const cJSON *obj, const char *key, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static const cJSON *sample_of(const struct fake_dev *d)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(d->json, "samples");
    int n = cJSON_GetArraySize(s);
    if (n == 0)
        return NULL;
    long k = d->reads - 2;
    k = k < 0 ? 0 : k >= n ? n - 1 : k;
    return cJSON_GetArrayItem(s, (int)k);
}

/* Not initialized (RSMI_STATUS_INIT_ERROR), bad index (INVALID_ARGS), or
 * the error the scenario sets. */
static int check(uint32_t i, const char *func)
{
    if (!initialized)
        return 8;
    if (i >= n_devs)
        return 1;
    return error_in(devs[i].json, func);
}

static uint32_t pid_of(const cJSON *p)
{
    const cJSON *file = cJSON_GetObjectItemCaseSensitive(p, "pid_file");
    if (!cJSON_IsString(file))
        return (uint32_t)num(p, "pid", 0);
    FILE *f = fopen(file->valuestring, "r");
    unsigned int pid = 0;
    if (f) {
        if (fscanf(f, "%u", &pid) != 1)
            pid = 0;
        fclose(f);
    }
    return pid;
}

rsmi_status_t rsmi_status_string(rsmi_status_t s, const char **text)
{
    switch (s) {
    case 0: *text = "RSMI_STATUS_SUCCESS: The function has been executed successfully."; break;
    case 2: *text = "RSMI_STATUS_NOT_SUPPORTED: The requested information or action is not available"; break;
    case 4: *text = "RSMI_STATUS_PERMISSION: The user ID of the calling process does not have permission"; break;
    case 8: *text = "RSMI_STATUS_INIT_ERROR: An error occurred during initialization"; break;
    default: *text = "RSMI_STATUS_UNKNOWN_ERROR: An unknown error occurred"; break;
    }
    return 0;
}

rsmi_status_t rsmi_init(uint64_t flags)
{
    (void)flags;
    log_line("rsmi_init");
    const char *path = getenv("FAKE_RSMI_SCENARIO");
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f)
        return 8;
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    cJSON_Delete(scenario);
    if (!(scenario = cJSON_Parse(text)))
        return 8;
    int e = error_in(scenario, "rsmi_init");
    if (e) {
        cJSON_Delete(scenario);
        scenario = NULL;
        return e;
    }
    n_devs = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(scenario, "devices")) {
        if (n_devs < 16)
            devs[n_devs++] = (struct fake_dev){it, 0};
    }
    initialized = 1;
    return 0;
}

rsmi_status_t rsmi_shut_down(void)
{
    log_line("rsmi_shut_down");
    initialized = 0;
    cJSON_Delete(scenario);
    scenario = NULL;
    return 0;
}

rsmi_status_t rsmi_num_monitor_devices(uint32_t *n)
{
    if (!initialized)
        return 8;
    int e = error_in(scenario, "rsmi_num_monitor_devices");
    if (e)
        return e;
    *n = n_devs;
    return 0;
}

rsmi_status_t rsmi_dev_unique_id_get(uint32_t i, uint64_t *id)
{
    int e = check(i, "rsmi_dev_unique_id_get");
    if (e)
        return e;
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(devs[i].json, "unique_id");
    *id = cJSON_IsString(u) ? strtoull(u->valuestring, NULL, 0) : 0;
    return 0;
}

rsmi_status_t rsmi_dev_memory_total_get(uint32_t i, rsmi_memory_type_t type, uint64_t *total)
{
    int e = check(i, "rsmi_dev_memory_total_get");
    if (e)
        return e;
    if (type != RSMI_MEM_TYPE_VRAM)
        return 1;
    *total = (uint64_t)num(devs[i].json, "total", 0);
    return 0;
}

rsmi_status_t rsmi_dev_memory_usage_get(uint32_t i, rsmi_memory_type_t type, uint64_t *used)
{
    if (initialized && i < n_devs) {
        devs[i].reads++;
        log_line("sample %u %ld", i, devs[i].reads - 1);
    }
    int e = check(i, "rsmi_dev_memory_usage_get");
    if (e)
        return e;
    if (type != RSMI_MEM_TYPE_VRAM)
        return 1;
    *used = (uint64_t)num(sample_of(&devs[i]), "used", 0);
    return 0;
}

rsmi_status_t rsmi_dev_busy_percent_get(uint32_t i, uint32_t *percent)
{
    int e = check(i, "rsmi_dev_busy_percent_get");
    if (e)
        return e;
    *percent = (uint32_t)num(sample_of(&devs[i]), "busy", 0);
    return 0;
}

rsmi_status_t rsmi_dev_power_ave_get(uint32_t i, uint32_t sensor, uint64_t *power)
{
    int e = check(i, "rsmi_dev_power_ave_get");
    if (e)
        return e;
    if (sensor != 0)
        return 1;
    *power = (uint64_t)num(sample_of(&devs[i]), "power_uw", 0);
    return 0;
}

rsmi_status_t rsmi_dev_energy_count_get(uint32_t i, uint64_t *count, float *resolution, uint64_t *ts)
{
    int e = check(i, "rsmi_dev_energy_count_get");
    if (e)
        return e;
    *count = (uint64_t)num(sample_of(&devs[i]), "energy", 0);
    *resolution = (float)num(sample_of(&devs[i]), "resolution_uj", 15.3);
    *ts = 0;
    return 0;
}

/* The process with this PID summed over the devices; 0 when none. */
static int find(uint32_t pid, rsmi_process_info_t *out)
{
    int found = 0;
    memset(out, 0, sizeof *out);
    for (uint32_t i = 0; i < n_devs; i++) {
        const cJSON *p;
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(sample_of(&devs[i]), "procs")) {
            if (pid_of(p) == pid) {
                found = 1;
                out->process_id = pid;
                out->vram_usage += (uint64_t)num(p, "vram", 0);
            }
        }
    }
    return found;
}

rsmi_status_t rsmi_compute_process_info_get(rsmi_process_info_t *procs, uint32_t *n)
{
    if (!initialized)
        return 8;
    int e = error_in(scenario, "rsmi_compute_process_info_get");
    if (e)
        return e;
    uint32_t pids[256], count = 0;
    for (uint32_t i = 0; i < n_devs; i++) {
        const cJSON *p;
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(sample_of(&devs[i]), "procs")) {
            uint32_t pid = pid_of(p), k = 0;
            while (k < count && pids[k] != pid)
                k++;
            if (pid && k == count && count < 256)
                pids[count++] = pid;
        }
    }
    if (!procs) {
        *n = count;
        return 0;
    }
    uint32_t room = *n;
    for (uint32_t k = 0; k < count && k < room; k++) {
        /* vram_usage left 0: the figure must come from the per-PID query. */
        procs[k] = (rsmi_process_info_t){pids[k], k + 1, 0, 0, 0};
    }
    *n = count < room ? count : room;
    return count > room ? 11 : 0;
}

rsmi_status_t rsmi_compute_process_info_by_pid_get(uint32_t pid, rsmi_process_info_t *proc)
{
    if (!initialized)
        return 8;
    int e = error_in(scenario, "rsmi_compute_process_info_by_pid_get");
    if (e)
        return e;
    return find(pid, proc) ? 0 : 10;
}
