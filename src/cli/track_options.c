/* SPDX-License-Identifier: MIT */
/* The track command's options: one table, and the parser, --help text and
 * --tconfig keys that follow from it. */
#include "track_options.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "commands.h"
#include "gpu/brands.h"

static const char usage_head[] =
    "Tracks the computational resource usage (RAM, GPU RAM, CPU utilization, GPU utilization,\n"
    "and compute time) of a process corresponding to a given shell command.\n"
    "\n"
    "Usage:\n"
    "    gpu-tracker -h | --help\n"
    "    gpu-tracker -v | --version\n"
    "    gpu-tracker --execute=<command> [options]\n"
    "    gpu-tracker [options] -- <command> [<argument>...]\n"
    "    gpu-tracker --attach=<pid> [options]\n"
    "    gpu-tracker sub-track combine --stf=<sub-track-file> [-p <file-path>]...\n"
    "    gpu-tracker sub-track analyze --tf=<tracking-file> --stf=<sub-track-file> [--output=<output>] [--format=<format>]\n"
    "    gpu-tracker sub-track compare [--output=<output>] [--format=<format>] [--cconfig=<config-file>] [-m <name>=<file-path>...] [--stat=<statistic>]\n"
    "    gpu-tracker plot --tf=<tracking-file> [--stf=<sub-track-file>] --output=<file.html|file.svg>\n"
    "    gpu-tracker merge <directory>|<tracking-file>... [--format=<format>] [--output=<output>] [--align=<seconds>]\n"
    "\n"
    "Options:\n";

static const char usage_tail[] =
    "\n"
    "Exit status: the command's own (128+N if signal N killed it); 127 if it cannot be started;\n"
    "2 for invalid options; 1 if tracking failed.\n";

/* The apply functions of the table.  name is the option or the config key
 * as given; some messages name the option whatever the user wrote, as they
 * always have. */

/* v as a finite number, all of it; 0, or -1. */
static int parse_number(const char *v, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(v, &end);
    return errno || end == v || *end || !isfinite(*out) ? -1 : 0;
}

static int set_sleep_time(void *ctx, const char *name, const char *v)
{
    gt_cli_track_settings *s = ctx;
    double d;
    if (parse_number(v, &d) != 0 || d < GT_SLEEP_TIME_MIN || d > GT_SLEEP_TIME_MAX)
        return gt_cli_usage_error("invalid value '%s' for %s: must be a number of seconds, at least %g and at most %g",
                                  v, name, GT_SLEEP_TIME_MIN, GT_SLEEP_TIME_MAX);
    s->o.sleep_time = d;
    return 0;
}

/* A percent of one core, as the user thinks of CPU use; the library takes
 * a share.  Above 100 the walks could starve the sampling they serve. */
static int set_walk_budget(void *ctx, const char *name, const char *v)
{
    gt_cli_track_settings *s = ctx;
    double d;
    if (parse_number(v, &d) != 0 || d <= 0 || d > 100)
        return gt_cli_usage_error("invalid value '%s' for %s: must be a percent of one core, above 0 and at most "
                                  "100", v, name);
    s->o.walk_budget = d / 100;
    return 0;
}

static int set_events(void *ctx, const char *name, const char *v)
{
    static const char *const modes[] = {[GT_EVENTS_AUTO] = "auto", [GT_EVENTS_ON] = "on",
                                        [GT_EVENTS_OFF] = "off"};
    for (int i = 0; i < (int)(sizeof modes / sizeof *modes); i++)
        if (!strcmp(v, modes[i])) {
            ((gt_cli_track_settings *)ctx)->o.events = i;
            return 0;
        }
    return gt_cli_usage_error("invalid value '%s' for %s: valid values are 'auto', 'on', 'off'", v, name);
}

static int parse_posint(const char *name, const char *v, long max, long *out)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end || n <= 0 || n > max)
        return gt_cli_usage_error("invalid value '%s' for %s: must be a positive integer", v, name);
    *out = n;
    return 0;
}

static int set_n_expected_cores(void *ctx, const char *name, const char *v)
{
    gt_cli_track_settings *s = ctx;
    long n;
    (void)name;
    if (parse_posint("--nec", v, INT_MAX, &n))
        return GT_EXIT_USAGE;
    s->o.n_expected_cores = (int)n;
    return 0;
}

static int set_attach(void *ctx, const char *name, const char *v)
{
    gt_cli_track_settings *s = ctx;
    long n;
    if (parse_posint(name, v, INT_MAX, &n))
        return GT_EXIT_USAGE;
    s->attach = (pid_t)n;
    return 0;
}

static int ram_unit(const char *name, const char *v, gt_ram_unit *u)
{
    if (gt_ram_unit_parse(v, u) != GT_OK)
        return gt_cli_usage_error("invalid value '%s' for %s: valid units are 'bytes', 'kilobytes', 'megabytes', "
                                  "'gigabytes', 'terabytes'", v, name);
    return 0;
}

static int set_ram_unit(void *ctx, const char *name, const char *v)
{
    return ram_unit(name, v, &((gt_cli_track_settings *)ctx)->o.ram_unit);
}

static int set_gpu_ram_unit(void *ctx, const char *name, const char *v)
{
    return ram_unit(name, v, &((gt_cli_track_settings *)ctx)->o.gpu_ram_unit);
}

static int set_time_unit(void *ctx, const char *name, const char *v)
{
    (void)name;
    if (gt_time_unit_parse(v, &((gt_cli_track_settings *)ctx)->o.time_unit) != GT_OK)
        return gt_cli_usage_error("invalid value '%s' for %s: valid units are 'seconds', 'minutes', 'hours', 'days'",
                                  v, "--tu");
    return 0;
}

static int set_energy_unit(void *ctx, const char *name, const char *v)
{
    if (gt_energy_unit_parse(v, &((gt_cli_track_settings *)ctx)->o.energy_unit) != GT_OK)
        return gt_cli_usage_error("invalid value '%s' for %s: valid units are 'joules', 'kilojoules', "
                                  "'watt-hours', 'kilowatt-hours'", v, name);
    return 0;
}

static int set_gpu_brand(void *ctx, const char *name, const char *v)
{
    (void)name;
    if (gt_gpu_brand_parse(v, &((gt_cli_track_settings *)ctx)->o.gpu_brand) != GT_OK) {
        char brands[256];
        gt_gpu_brand_list(brands, sizeof brands, ", ");
        return gt_cli_usage_error("invalid value '%s' for %s: valid brands are %s", v, "--gb", brands);
    }
    return 0;
}

static int set_gpu_uuids(void *ctx, const char *name, const char *v)
{
    gt_cli_track_settings *s = ctx;
    if (!*v && s->config)
        return gt_cli_usage_error("config file '%s': %s must name at least one GPU", s->config, name);
    if (!*v)
        return gt_cli_usage_error("invalid value '%s' for %s: give at least one GPU UUID", v, name);
    s->o.gpu_uuids = v;
    return 0;
}

static int set_format(void *ctx, const char *name, const char *v)
{
    (void)name;
    if (strcmp(v, "text") && strcmp(v, "json"))
        return gt_cli_usage_error("invalid value '%s' for %s: valid formats are 'text', 'json'", v, "--format");
    ((gt_cli_track_settings *)ctx)->format = v;
    return 0;
}

static int show_help(void *ctx, const char *name, const char *v)
{
    (void)ctx, (void)name, (void)v;
    gt_cli_track_usage(stdout);
    return -1;
}

static int show_version(void *ctx, const char *name, const char *v)
{
    (void)ctx, (void)name, (void)v;
    printf("gpu-tracker %s\n", gt_version());
    return -1;
}

static int load_tconfig(void *ctx, const char *name, const char *v)
{
    (void)name;
    return gt_cli_track_load_tconfig(ctx, v);
}

#define FIELD(member) .field = offsetof(gt_cli_track_settings, member)

/* Every option of the track command.  To add one, add its entry here (in
 * the place --help should list it):
 *   .longname, .shortname (or none), .arg: the value's name in --help (none
 *       for an option without a value), .help: one paragraph for --help;
 *   how the value is stored: .store = GT_CLI_FLAG (an int set to 1) or
 *       GT_CLI_STRING (a const char *) with FIELD(member), or .apply = a
 *       function that checks the value and stores it, with a one-line usage
 *       error naming the option for a bad value (the member is added to
 *       gt_cli_track_settings, or is one of its gt_options o);
 *   a --tconfig key, if the Python Tracker takes the same keyword: .key and
 *       .json, its JSON type.
 * The parser, --help (with the list of --tconfig keys), the keys that
 * --tconfig accepts and, after `make man`, the man page's paragraph follow.
 * Then give it a row in the table of options of docs/tracking.md:
 * tests/e2e/cli_options.sh checks the page and that table, and
 * tests/unit/test_cli_options.c the table itself (docs/development.md has
 * an example). */
const gt_cli_opt gt_cli_track_opts[] = {
    {.longname = "--help", .shortname = 'h', .apply = show_help, .help = "Show the help message and exit."},
    {.longname = "--version", .shortname = 'v', .apply = show_version, .help = "Show the version and exit."},
    {.longname = "--execute", .shortname = 'e', .arg = "<command>", .store = GT_CLI_STRING, FIELD(execute),
     .help = "The command to run with its arguments, in quotes, e.g. \"ls -l -a\". Split like a shell splits "
             "words (quotes, backslashes), but no shell runs: nothing is expanded."},
    /* Taken by the parser before any option; the entry documents it. */
    {.longname = "--", .help = "Everything after it is the command and its arguments, unsplit."},
    {.longname = "--attach", .arg = "<pid>", .apply = set_attach,
     .help = "Track a running process and its descendants until it exits or Ctrl-C."},
    {.longname = "--output", .shortname = 'o', .arg = "<output>", .store = GT_CLI_STRING, FIELD(output),
     .help = "File to write the report to (under a temporary name, renamed when complete). If not set, prints "
             "to the screen."},
    {.longname = "--format", .shortname = 'f', .arg = "<format>", .apply = set_format,
     .help = "'text' or 'json'. Defaults to 'text'."},
    /* Read before every other option, so that the command line overrides it. */
    {.longname = "--tconfig", .arg = "<config-file>", .apply = load_tconfig, .early = 1,
     .help = "JSON file with the Tracker's keyword arguments ({keys}). Command-line options override it."},
    {.longname = "--st", .arg = "<sleep-time>", .apply = set_sleep_time, .key = "sleep_time",
     .json = GT_CLI_JSON_NUMBER,
     .help = "Seconds between samples (0.001 to 86400). Defaults to 1.0. The Max RAM figures are the largest at one "
             "sample: lower bounds of the peaks (Peak RAM has the kernel's high-water marks)."},
    {.longname = "--ru", .arg = "<ram-unit>", .apply = set_ram_unit, .key = "ram_unit", .json = GT_CLI_JSON_STRING,
     .help = "One of 'bytes', 'kilobytes', 'megabytes', 'gigabytes', or 'terabytes'. Defaults to gigabytes."},
    {.longname = "--gru", .arg = "<gpu-ram-unit>", .apply = set_gpu_ram_unit, .key = "gpu_ram_unit",
     .json = GT_CLI_JSON_STRING,
     .help = "One of 'bytes', 'kilobytes', 'megabytes', 'gigabytes', or 'terabytes'. Defaults to gigabytes."},
    {.longname = "--tu", .arg = "<time-unit>", .apply = set_time_unit, .key = "time_unit",
     .json = GT_CLI_JSON_STRING, .help = "One of 'seconds', 'minutes', 'hours', or 'days'. Defaults to hours."},
    {.longname = "--nec", .arg = "<num-cores>", .apply = set_n_expected_cores, .key = "n_expected_cores",
     .json = GT_CLI_JSON_NUMBER,
     .help = "The number of cores expected to be used. Defaults to all cores of the system."},
    /* A list, as in Python, or a comma-separated string. */
    {.longname = "--guuids", .arg = "<gpu-uuids>", .apply = set_gpu_uuids, .key = "gpu_uuids",
     .json = GT_CLI_JSON_STRINGS,
     .help = "Comma-separated UUIDs of the GPUs to track utilization of. Defaults to all GPUs."},
    {.longname = "--disable-logs", .store = GT_CLI_FLAG, FIELD(o.disable_logs), .key = "disable_logs",
     .json = GT_CLI_JSON_BOOL, .help = "Suppress warnings."},
    {.longname = "--gb", .arg = "<gpu-brand>", .apply = set_gpu_brand, .key = "gpu_brand",
     .json = GT_CLI_JSON_STRING,
     .help = "{brands}. Defaults to the brand detected, checking NVIDIA first."},
    {.longname = "--tf", .arg = "<tracking-file>", .store = GT_CLI_STRING, FIELD(o.tracking_file),
     .key = "tracking_file", .json = GT_CLI_JSON_STRING,
     .help = "Store every sample in this file: CSV (.csv) or SQLite (.sqlite). Here and in --output, %j %s %N "
             "%t %h are Slurm's job, step, node, task rank (SLURM_JOB_ID, SLURM_STEP_ID, SLURMD_NODENAME, "
             "SLURM_PROCID) and the host name (%% for a '%')."},
    {.longname = "--overwrite", .store = GT_CLI_FLAG, FIELD(o.overwrite), .key = "overwrite",
     .json = GT_CLI_JSON_BOOL, .help = "Overwrite the tracking file if it already exists."},
    {.longname = "--eu", .arg = "<energy-unit>", .apply = set_energy_unit, .key = "energy_unit",
     .json = GT_CLI_JSON_STRING,
     .help = "Unit of the Energy section: 'joules', 'kilojoules', 'watt-hours', or 'kilowatt-hours'. Defaults "
             "to joules."},
    {.longname = "--quiet", .store = GT_CLI_FLAG, FIELD(quiet),
     .help = "No live status line on stderr (shown only when stderr is a terminal)."},
    {.longname = "--metrics", .arg = "<host:port>", .store = GT_CLI_STRING, FIELD(metrics),
     .help = "Serve the current values for Prometheus at http://<host:port>/metrics (host defaults to "
             "127.0.0.1; port 0 picks a free port)."},
    {.longname = "--wait-descendants", .store = GT_CLI_FLAG, FIELD(wait_descendants),
     .help = "When the command exits, keep tracking until every descendant it left running has exited too."},
    {.longname = "--per-process", .store = GT_CLI_FLAG, FIELD(o.per_process), .key = "per_process",
     .json = GT_CLI_JSON_BOOL,
     .help = "Record every tracked process at every sample (PID, parent, command, CPU percent, total, private "
             "and shared RSS, percent of RAM, threads, and each GPU's memory and SM percent): table 'processes' "
             "of an SQLite tracking file, or the file <name>.processes.csv beside <name>.csv. The report ends "
             "with the top processes by peak RAM and by CPU seconds (also without --tf)."},
    {.longname = "--per-gpu", .store = GT_CLI_FLAG, FIELD(o.per_gpu), .key = "per_gpu", .json = GT_CLI_JSON_BOOL,
     .help = "Record every selected GPU at every sample (index, UUID, used memory, utilization, power, total "
             "memory): table 'gpus', or the file <name>.gpus.csv; merge gives each GPU's figures from them. "
             "Needs --tf."},
    {.longname = "--efficiency", .store = GT_CLI_FLAG, FIELD(efficiency),
     .help = "End the report with an Efficiency section: the request (Slurm's allocation on this node from its "
             "environment, else the cgroup's limits, else the machine's capacity), the CPU time over the "
             "allocated cores' time, the memory peak over the memory requested, the GPUs' mean utilization and "
             "memory peak over their capacity, and advice for the next request such as '--mem=12G'."},
    {.longname = "--walk-budget", .arg = "<percent>", .apply = set_walk_budget, .key = "walk_budget",
     .json = GT_CLI_JSON_NUMBER,
     .help = "Percent of one core (above 0, at most 100, e.g. 0.5) that the page-table walks (reading "
             "/proc/<pid>/smaps_rollup) may use to split RAM into private and shared. Defaults to 1. A larger "
             "budget keeps the private/shared split fresher on large processes, at a CPU cost; the total RSS is "
             "exact at every sample whatever the budget."},
    {.longname = "--events", .arg = "<mode>", .apply = set_events, .key = "events", .json = GT_CLI_JSON_STRING,
     .help = "'auto', 'on' or 'off': the event backend, a BPF program on the kernel's fork, exec, exit and "
             "rss_stat events that follows every process of the tree and makes the Max RAM totals (main, "
             "descendants, combined) exact to the event instead of the largest of the samples. It needs root, "
             "or CAP_BPF with CAP_PERFMON. 'auto' (the default) uses it where it loads and otherwise says why "
             "once; 'on' fails with the reason where it cannot load; 'off' never loads it. The report's Max RAM "
             "method section says which method gave each figure."},
    {.longname = "--cgroup", .store = GT_CLI_FLAG, FIELD(cgroup),
     .help = "Run the command in a cgroup made for it (gpu-tracker.<pid>, removed after it): on cgroup v1 under "
             "gpu-tracker's own groups of the memory and cpuacct hierarchies (needs root), else on cgroup v2 "
             "beside gpu-tracker's own group (needs a subtree delegated to the user that gives its children the "
             "memory controller). The report's Cgroup section then has the group's memory peak, limit and "
             "headroom and its CPU time. The group's memory counts page cache and kernel memory, which its "
             "limit and the OOM killer compare: a different figure from RSS. A command already in a cgroup of "
             "its own (a Slurm step under task/cgroup) has the section without it."},
};

const size_t gt_cli_track_n_opts = sizeof gt_cli_track_opts / sizeof *gt_cli_track_opts;

void gt_cli_track_settings_init(gt_cli_track_settings *s)
{
    memset(s, 0, sizeof *s);
    s->o = (gt_options)GT_OPTIONS_INIT;
}

void gt_cli_track_settings_free(gt_cli_track_settings *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_kept; i++)
        free(s->kept[i]);
    free(s->kept);
    s->kept = NULL;
    s->n_kept = 0;
}

int gt_cli_track_usage(FILE *out)
{
    fputs(usage_head, out);
    gt_cli_print_opts(out, gt_cli_track_opts, gt_cli_track_n_opts);
    fputs(usage_tail, out);
    return ferror(out) ? -1 : 0;
}

/* The entry whose key is k and whose JSON type it has, or NULL. */
static const gt_cli_opt *by_key(const cJSON *it)
{
    for (size_t k = 0; k < gt_cli_track_n_opts; k++) {
        const gt_cli_opt *d = &gt_cli_track_opts[k];
        if (!d->key || strcmp(d->key, it->string))
            continue;
        switch (d->json) {
        case GT_CLI_JSON_NONE:
            return NULL;
        case GT_CLI_JSON_NUMBER:
            return cJSON_IsNumber(it) ? d : NULL;
        case GT_CLI_JSON_STRING:
            return cJSON_IsString(it) ? d : NULL;
        case GT_CLI_JSON_BOOL:
            return cJSON_IsBool(it) ? d : NULL;
        case GT_CLI_JSON_STRINGS:
            return cJSON_IsString(it) || cJSON_IsArray(it) ? d : NULL;
        }
    }
    return NULL;
}

/* The value of it as the option's text, in memory s keeps; NULL after a
 * message. */
static char *value_text(gt_cli_track_settings *s, const cJSON *it, const char *path, int *rc)
{
    char *text = NULL;
    *rc = GT_EXIT_FAILURE;
    char **kept = realloc(s->kept, (s->n_kept + 1) * sizeof *kept);
    if (!kept)
        goto oom;
    s->kept = kept;
    if (cJSON_IsNumber(it)) {
        char num[64];
        snprintf(num, sizeof num, "%.17g", it->valuedouble);
        text = strdup(num);
    } else if (cJSON_IsBool(it)) {
        text = strdup(cJSON_IsTrue(it) ? "true" : "false");
    } else if (cJSON_IsString(it)) {
        text = strdup(it->valuestring);
    } else { /* a list of strings, joined with commas */
        size_t total = 1;
        for (const cJSON *u = it->child; u; u = u->next) {
            if (!cJSON_IsString(u)) {
                *rc = gt_cli_usage_error("config file '%s': %s must be a list of strings", path, it->string);
                return NULL;
            }
            total += strlen(u->valuestring) + 1;
        }
        text = calloc(1, total);
        for (const cJSON *u = it->child; text && u; u = u->next) {
            if (*text)
                strcat(text, ",");
            strcat(text, u->valuestring);
        }
    }
    if (!text)
        goto oom;
    s->kept[s->n_kept++] = text;
    *rc = 0;
    return text;
oom:
    fputs("gpu-tracker: out of memory\n", stderr);
    return NULL;
}

int gt_cli_track_load_tconfig(gt_cli_track_settings *s, const char *path)
{
    cJSON *root;
    int rc = gt_cli_load_config(path, &root);
    if (rc)
        return rc;
    s->config = path;
    for (const cJSON *it = root->child; it && !rc; it = it->next) {
        const gt_cli_opt *d = by_key(it);
        if (!d) {
            char keys[1024];
            rc = gt_cli_usage_error("config file '%s': invalid key or value type for '%s'; valid keys: %s", path,
                                    it->string,
                                    gt_cli_config_keys(gt_cli_track_opts, gt_cli_track_n_opts, keys, sizeof keys));
            break;
        }
        /* Values are checked by the same code as the options. */
        const char *v = value_text(s, it, path, &rc);
        if (v)
            rc = gt_cli_apply(d, s, d->key, v);
    }
    s->config = NULL;
    cJSON_Delete(root);
    return rc;
}

int gt_cli_track_parse(int argc, char **argv, gt_cli_track_settings *s)
{
    /* Two passes: --tconfig first, so that command-line options override it. */
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 1; i < argc; i++) {
            if (!strcmp(argv[i], "--")) {
                if (pass == 1)
                    s->cmd = argv + i + 1;
                break;
            }
            const gt_cli_opt *d;
            const char *v;
            int rc = gt_cli_next_opt(argc, argv, &i, gt_cli_track_opts, gt_cli_track_n_opts, "gpu-tracker", &d, &v);
            if (rc)
                return rc;
            if (d->early != (pass == 0))
                continue;
            if ((rc = gt_cli_apply(d, s, d->longname, v)))
                return rc;
        }
    }
    int modes = !!s->execute + !!s->cmd + !!s->attach;
    if (modes == 0)
        return gt_cli_usage_error("nothing to track: give --execute=<command>, -- <command>, or --attach=<pid>; "
                                  "see 'gpu-tracker --help'");
    if (modes > 1)
        return gt_cli_usage_error("give only one of --execute, -- <command>, and --attach");
    if (s->cmd && !s->cmd[0])
        return gt_cli_usage_error("no command after '--'");
    if (s->attach && s->cgroup)
        return gt_cli_usage_error("--cgroup needs a command to run: gpu-tracker moves it into the group before it "
                                  "starts");
    if (s->attach && s->wait_descendants)
        return gt_cli_usage_error("--wait-descendants needs a command to run: an attached process's orphans "
                                  "are not re-parented to gpu-tracker");
    return 0;
}
