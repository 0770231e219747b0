/* SPDX-License-Identifier: MIT */
/* Fuzz target: the request of a run from text it does not control.  The
 * first byte picks the input: Slurm's environment (lines "NAME=value"), a
 * cgroup limit file, or /proc/self/cgroup under a root that has no files.
 * A figure is unknown (< 0, no source) or a positive finite one with its
 * source, never 0; the efficiency figures and advice of any request are
 * finite or unknown, and their text fits. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/efficiency.h"
#include "analysis/request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) abort(); } while (0)
#define MAX_VARS 32

static void check_request(const gt_request *r)
{
    CHECK((r->mem_bytes < 0 && !r->mem_source) || (r->mem_bytes > 0 && isfinite(r->mem_bytes) && r->mem_source));
    CHECK((r->cores < 0 && !r->cores_source) || (r->cores > 0 && isfinite(r->cores) && r->cores_source));
    CHECK((r->gpus < 0 && !r->gpus_source) || (r->gpus >= 0 && r->gpus_source));
    CHECK(r->nodes == -1 || r->nodes > 0);
    CHECK(r->cpus_per_task == -1 || r->cpus_per_task > 0);
    CHECK((r->time_limit_s < 0 && !r->time_source) || (r->time_limit_s > 0 && r->time_source));
}

static void check_efficiency(const gt_request *r)
{
    gt_eff_usage u = {.wall_s = 10, .cpu_s = 5, .cpu_method = "exact", .mem_peak_bytes = 123456789,
                      .mem_method = "exact", .n_gpus = 1, .gpu_mean_percent = 1, .gpu_mem_peak_bytes = 1,
                      .gpu_mem_capacity_bytes = 2};
    gt_efficiency e;
    gt_efficiency_compute(r, &u, &e);
    CHECK(e.cpu_percent < 0 || isfinite(e.cpu_percent));
    CHECK(e.mem_percent < 0 || isfinite(e.mem_percent));
    CHECK(memchr(e.advice_mem, 0, sizeof e.advice_mem) && memchr(e.advice_cores, 0, sizeof e.advice_cores));
    char bar[96];
    gt_eff_bar(e.mem_percent, bar, sizeof bar);
    CHECK(bar[0] == '[');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096)
        return 0;
    char *text = malloc(size);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    gt_request r;
    gt_request_init(&r);
    switch (data[0] % 3) {
    case 0: {
        const char *env[MAX_VARS + 1];
        size_t n = 0;
        for (char *line = strtok(text, "\n"); line && n < MAX_VARS; line = strtok(NULL, "\n"))
            env[n++] = line;
        env[n] = NULL;
        gt_request_from_env(env, &r);
        break;
    }
    case 1: {
        double v[] = {gt_cgroup_v2_memory_max(text), gt_cgroup_v2_cpu_max(text), gt_cgroup_v1_memory_limit(text),
                      gt_cgroup_v1_cpu_quota(text, text)};
        for (size_t i = 0; i < sizeof v / sizeof *v; i++)
            CHECK(v[i] < 0 || (v[i] >= 0 && isfinite(v[i])));
        break;
    }
    default:
        gt_request_from_cgroup("/nonexistent-gt-fuzz-root", text, &r);
        CHECK(r.mem_bytes < 0 && r.cores < 0); /* no file to read: nothing known */
        break;
    }
    check_request(&r);
    check_efficiency(&r);
    free(text);
    return 0;
}
