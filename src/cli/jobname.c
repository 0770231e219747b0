/* SPDX-License-Identifier: MIT */
/* Slurm-style file-name patterns for --tf and --output. */
#include "jobname.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "options.h"
#include "util/grow.h"

/* A positive count from the environment, or 0 when unset or not a number. */
static long env_count(const char *name)
{
    const char *v = getenv(name);
    char *end;
    if (!v || !*v)
        return 0;
    errno = 0;
    long n = strtol(v, &end, 10);
    return errno || *end || n < 0 ? 0 : n;
}

/* The text a conversion stands for, or NULL with *why set. */
static const char *conversion(char c, char *host, size_t host_size, const char **why)
{
    const char *var = NULL;
    switch (c) {
    case 'j': var = "SLURM_JOB_ID"; break;
    case 's': var = "SLURM_STEP_ID"; break;
    case 'N': var = "SLURMD_NODENAME"; break;
    case 't': var = "SLURM_PROCID"; break;
    case 'h':
        if (gethostname(host, host_size) != 0) {
            *why = "the host name cannot be read";
            return NULL;
        }
        host[host_size - 1] = '\0';
        return host;
    case '%': return "%";
    default: *why = "unknown"; return NULL;
    }
    const char *v = getenv(var);
    if (!v || !*v) {
        *why = var;
        return NULL;
    }
    return v;
}

/* Whether pattern has conversion %c, read as the expansion reads it: "%%t"
 * is a literal "%t", no task rank. */
static int has_conversion(const char *pattern, char c)
{
    for (const char *p = pattern; *p; p++)
        if (*p == '%') {
            if (p[1] == c)
                return 1;
            if (!p[1])
                break;
            p++;
        }
    return 0;
}

/* Whether tasks of this step would share the name: Slurm sets
 * SLURM_STEP_NUM_TASKS for the tasks of an srun step, not in a batch
 * script, where one gpu-tracker runs however many tasks the job has. */
static int shared_by_tasks(const char *pattern)
{
    long tasks = env_count("SLURM_STEP_NUM_TASKS"), nodes = env_count("SLURM_STEP_NUM_NODES");
    if (tasks <= 1 || has_conversion(pattern, 't'))
        return 0;
    if ((has_conversion(pattern, 'N') || has_conversion(pattern, 'h')) && tasks == nodes)
        return 0;
    return 1;
}

int gt_cli_job_name(const char *pattern, const char *option, char **out)
{
    *out = NULL;
    if (shared_by_tasks(pattern))
        return gt_cli_usage_error("%s '%s': the %s tasks of this Slurm step would all write this one file; "
                                  "put %%t (task rank) in the name",
                                  option, pattern, getenv("SLURM_STEP_NUM_TASKS"));
    if (!strchr(pattern, '%'))
        return 0;
    size_t cap = strlen(pattern) + 1, len = 0;
    char *s = malloc(cap), host[HOST_NAME_MAX + 1];
    if (!s) {
        fputs("gpu-tracker: out of memory\n", stderr);
        return GT_EXIT_FAILURE;
    }
    for (const char *p = pattern; *p; p++) {
        const char *add = p, *why = NULL;
        size_t n = 1;
        if (*p == '%') {
            if (!(add = conversion(p[1], host, sizeof host, &why))) {
                free(s);
                if (!p[1] || !strcmp(why, "unknown"))
                    return gt_cli_usage_error("%s '%s': unknown pattern '%%%.1s': valid are %%j (job), %%s "
                                              "(step), %%N (node), %%t (task), %%h (host) and %%%%",
                                              option, pattern, p + 1);
                if (!strncmp(why, "SLURM", 5))
                    return gt_cli_usage_error("%s '%s': '%%%c' needs %s, which is not set (not a Slurm task?)",
                                              option, pattern, p[1], why);
                return gt_cli_usage_error("%s '%s': %s", option, pattern, why);
            }
            n = strlen(add);
            p++;
        }
        if (len + n + 1 > cap) {
            cap = gt_grow_cap(cap, len + n + 1, 1, 1);
            char *t = cap ? realloc(s, cap) : NULL;
            if (!t) {
                free(s);
                fputs("gpu-tracker: out of memory\n", stderr);
                return GT_EXIT_FAILURE;
            }
            s = t;
        }
        memcpy(s + len, add, n);
        len += n;
    }
    s[len] = '\0';
    *out = s;
    return 0;
}

int gt_cli_job_names(const char **output, const char **tracking_file, char *owned[2])
{
    const char **names[2] = {output, tracking_file};
    static const char *const options[2] = {"--output", "--tf"};
    for (int i = 0; i < 2; i++) {
        int rc;
        if (!*names[i])
            continue;
        if ((rc = gt_cli_job_name(*names[i], options[i], &owned[i])))
            return rc;
        if (owned[i])
            *names[i] = owned[i];
    }
    return 0;
}
