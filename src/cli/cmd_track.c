/* SPDX-License-Identifier: MIT */
/* gpu-tracker [options] -e "cmd" | -- cmd args... | --attach=PID
 *
 * Runs the command as a child (no shell), tracks it and every descendant
 * until it exits, prints the report, and exits with the command's status. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>

#include <cjson/cJSON.h>

#include "commands.h"
#include "jobname.h"
#include "options.h"
#include "gpu_tracker.h"
#include "live.h"
#include "outfile.h"
#include "util/argv.h"

static const char usage_text[] =
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
    "Options:\n"
    "    -h --help               Show this help message and exit.\n"
    "    -v --version            Show the version and exit.\n"
    "    -e --execute=<command>  The command to run with its arguments, in quotes, e.g. \"ls -l -a\". Split like a\n"
    "                            shell splits words (quotes, backslashes), but no shell runs: nothing is expanded.\n"
    "    --                      Everything after it is the command and its arguments, unsplit.\n"
    "    --attach=<pid>          Track a running process and its descendants until it exits or Ctrl-C.\n"
    "    -o --output=<output>    File to write the report to. If not set, prints to the screen.\n"
    "    -f --format=<format>    'text' or 'json'. Defaults to 'text'.\n"
    "    --tconfig=<config-file> JSON file with the Tracker's keyword arguments (sleep_time, ram_unit, gpu_ram_unit,\n"
    "                            time_unit, n_expected_cores, gpu_uuids, disable_logs, gpu_brand, tracking_file,\n"
    "                            overwrite, energy_unit, per_process, per_gpu). Command-line options override it.\n"
    "    --st=<sleep-time>       Seconds between samples (0.001 to 86400). Defaults to 1.0.\n"
    "    --ru=<ram-unit>         One of 'bytes', 'kilobytes', 'megabytes', 'gigabytes', or 'terabytes'. Defaults to gigabytes.\n"
    "    --gru=<gpu-ram-unit>    One of 'bytes', 'kilobytes', 'megabytes', 'gigabytes', or 'terabytes'. Defaults to gigabytes.\n"
    "    --tu=<time-unit>        One of 'seconds', 'minutes', 'hours', or 'days'. Defaults to hours.\n"
    "    --nec=<num-cores>       The number of cores expected to be used. Defaults to all cores of the system.\n"
    "    --guuids=<gpu-uuids>    Comma-separated UUIDs of the GPUs to track utilization of. Defaults to all GPUs.\n"
    "    --disable-logs          Suppress warnings.\n"
    "    --gb=<gpu-brand>        'nvidia' or 'amd'. Defaults to the brand detected, checking NVIDIA first.\n"
    "    --tf=<tracking-file>    Store every sample in this file: CSV (.csv) or SQLite (.sqlite).\n"
    "                            Here and in --output, %j %s %N %t %h are Slurm's job, step, node,\n"
    "                            task rank and the host name (%% for a '%').\n"
    "    --overwrite             Overwrite the tracking file if it already exists.\n"
    "    --eu=<energy-unit>      Unit of the Energy section: 'joules', 'kilojoules', 'watt-hours', or\n"
    "                            'kilowatt-hours'. Defaults to joules.\n"
    "    --quiet                 No live status line on stderr (shown only when stderr is a terminal).\n"
    "    --metrics=<host:port>   Serve the current values for Prometheus at http://<host:port>/metrics\n"
    "                            (host defaults to 127.0.0.1; port 0 picks a free port).\n"
    "    --wait-descendants      When the command exits, keep tracking until every descendant it left\n"
    "                            running has exited too.\n"
    "    --per-process           Record every tracked process at every sample (table 'processes', or\n"
    "                            <tracking-file>.processes.csv) and report the top processes.\n"
    "    --per-gpu               Record every selected GPU at every sample (table 'gpus', or\n"
    "                            <tracking-file>.gpus.csv); needs --tf.\n"
    "\n"
    "Exit status: the command's own (128+N if signal N killed it); 127 if it cannot be started;\n"
    "2 for invalid options; 1 if tracking failed.\n";

/* Settings gathered from --tconfig and the command line, in that order. */
typedef struct settings {
    gt_options o;
    const char *execute, *output, *format, *tconfig;
    pid_t attach;
    char **cmd;           /* after "--" */
    char *tconfig_strs[2]; /* tracking_file and gpu_uuids from the config */
    char *job_names[2];    /* output and tracking_file with Slurm patterns expanded */
    const char *metrics;
    int quiet, wait_descendants;
} settings;

/* Longer intervals are surely a typo; beyond about 1e9 s the wake-up time
 * no longer fits a time_t. */
#define MAX_SLEEP_TIME 86400.0

static int parse_double(const char *name, const char *v, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (errno || end == v || *end || !isfinite(d) || d < 0.001 || d > MAX_SLEEP_TIME)
        return gt_cli_usage_error("invalid value '%s' for %s: must be a number of seconds, at least 0.001 and at "
                                  "most 86400", v, name);
    *out = d;
    return 0;
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

static int set_ram_unit(const char *name, const char *v, gt_ram_unit *u)
{
    if (gt_ram_unit_parse(v, u) != GT_OK)
        return gt_cli_usage_error("invalid value '%s' for %s: valid units are 'bytes', 'kilobytes', 'megabytes', "
                           "'gigabytes', 'terabytes'", v, name);
    return 0;
}

static int set_time_unit(const char *v, gt_time_unit *u)
{
    if (gt_time_unit_parse(v, u) != GT_OK)
        return gt_cli_usage_error("invalid value '%s' for %s: valid units are 'seconds', 'minutes', 'hours', 'days'",
                           v, "--tu");
    return 0;
}

static int set_energy_unit(const char *name, const char *v, gt_energy_unit *u)
{
    if (gt_energy_unit_parse(v, u) != GT_OK)
        return gt_cli_usage_error("invalid value '%s' for %s: valid units are 'joules', 'kilojoules', "
                           "'watt-hours', 'kilowatt-hours'", v, name);
    return 0;
}

static int set_brand(const char *v, gt_gpu_brand *b)
{
    if (gt_gpu_brand_parse(v, b) != GT_OK)
        return gt_cli_usage_error("invalid value '%s' for %s: valid brands are 'nvidia', 'amd'", v, "--gb");
    return 0;
}

/* Applies one option; name is canonical ("--st"), v its value or NULL. */
static int apply(settings *s, const char *name, const char *v)
{
    long n;
    if (!strcmp(name, "--execute"))
        s->execute = v;
    else if (!strcmp(name, "--output"))
        s->output = v;
    else if (!strcmp(name, "--format")) {
        if (strcmp(v, "text") && strcmp(v, "json"))
            return gt_cli_usage_error("invalid value '%s' for %s: valid formats are 'text', 'json'", v, "--format");
        s->format = v;
    } else if (!strcmp(name, "--tconfig"))
        s->tconfig = v;
    else if (!strcmp(name, "--st"))
        return parse_double("--st", v, &s->o.sleep_time);
    else if (!strcmp(name, "--ru"))
        return set_ram_unit("--ru", v, &s->o.ram_unit);
    else if (!strcmp(name, "--gru"))
        return set_ram_unit("--gru", v, &s->o.gpu_ram_unit);
    else if (!strcmp(name, "--tu"))
        return set_time_unit(v, &s->o.time_unit);
    else if (!strcmp(name, "--nec")) {
        if (parse_posint("--nec", v, INT_MAX, &n))
            return GT_EXIT_USAGE;
        s->o.n_expected_cores = (int)n;
    } else if (!strcmp(name, "--guuids")) {
        if (!*v)
            return gt_cli_usage_error("invalid value '%s' for %s: give at least one GPU UUID", v, "--guuids");
        s->o.gpu_uuids = v;
    } else if (!strcmp(name, "--disable-logs"))
        s->o.disable_logs = 1;
    else if (!strcmp(name, "--gb"))
        return set_brand(v, &s->o.gpu_brand);
    else if (!strcmp(name, "--tf"))
        s->o.tracking_file = v;
    else if (!strcmp(name, "--overwrite"))
        s->o.overwrite = 1;
    else if (!strcmp(name, "--eu"))
        return set_energy_unit("--eu", v, &s->o.energy_unit);
    else if (!strcmp(name, "--metrics"))
        s->metrics = v;
    else if (!strcmp(name, "--quiet"))
        s->quiet = 1;
    else if (!strcmp(name, "--wait-descendants"))
        s->wait_descendants = 1;
    else if (!strcmp(name, "--per-process"))
        s->o.per_process = 1;
    else if (!strcmp(name, "--per-gpu"))
        s->o.per_gpu = 1;
    else if (!strcmp(name, "--attach")) {
        if (parse_posint("--attach", v, INT_MAX, &n))
            return GT_EXIT_USAGE;
        s->attach = (pid_t)n;
    }
    return 0;
}

typedef struct optdef {
    const char *longname; /* canonical */
    char shortname;
    int has_arg;
} optdef;

static const optdef optdefs[] = {
    {"--execute", 'e', 1}, {"--output", 'o', 1}, {"--format", 'f', 1}, {"--tconfig", 0, 1},
    {"--st", 0, 1},        {"--ru", 0, 1},       {"--gru", 0, 1},      {"--tu", 0, 1},
    {"--nec", 0, 1},       {"--guuids", 0, 1},   {"--disable-logs", 0, 0},
    {"--gb", 0, 1},        {"--tf", 0, 1},       {"--overwrite", 0, 0}, {"--attach", 0, 1},
    {"--help", 'h', 0},    {"--version", 'v', 0},
    {"--eu", 0, 1},
    {"--metrics", 0, 1},   {"--quiet", 0, 0},
    {"--wait-descendants", 0, 0},
    {"--per-process", 0, 0}, {"--per-gpu", 0, 0},
};

/* Reads --tconfig into s->o; the command line is applied afterwards. */
static int load_tconfig(settings *s, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "gpu-tracker: cannot read config file '%s': %s\n", path, strerror(errno));
        return GT_EXIT_USAGE;
    }
    char buf[65536];
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    int too_big = !feof(f);
    fclose(f);
    buf[len] = '\0';
    if (too_big)
        return gt_cli_usage_error("config file '%s' is larger than %s", path, "64 KiB");
    cJSON *root = cJSON_Parse(buf);
    if (!root || !cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return gt_cli_usage_error("config file '%s' is not a JSON object", path);
    }
    int rc = 0;
    char num[64];
    for (cJSON *it = root->child; it && !rc; it = it->next) {
        const char *k = it->string;
        /* Numbers and strings are checked by the same code as the options. */
        const char *sv = cJSON_IsString(it) ? it->valuestring : NULL;
        if (!strcmp(k, "sleep_time") && cJSON_IsNumber(it)) {
            snprintf(num, sizeof num, "%.17g", it->valuedouble);
            rc = parse_double("sleep_time", num, &s->o.sleep_time);
        } else if (!strcmp(k, "n_expected_cores") && cJSON_IsNumber(it)) {
            snprintf(num, sizeof num, "%.17g", it->valuedouble);
            rc = apply(s, "--nec", num);
        } else if (!strcmp(k, "ram_unit") && sv)
            rc = set_ram_unit("ram_unit", sv, &s->o.ram_unit);
        else if (!strcmp(k, "gpu_ram_unit") && sv)
            rc = set_ram_unit("gpu_ram_unit", sv, &s->o.gpu_ram_unit);
        else if (!strcmp(k, "time_unit") && sv)
            rc = set_time_unit(sv, &s->o.time_unit);
        else if (!strcmp(k, "energy_unit") && sv)
            rc = set_energy_unit("energy_unit", sv, &s->o.energy_unit);
        else if (!strcmp(k, "gpu_brand") && sv)
            rc = set_brand(sv, &s->o.gpu_brand);
        else if (!strcmp(k, "disable_logs") && cJSON_IsBool(it))
            s->o.disable_logs = cJSON_IsTrue(it);
        else if (!strcmp(k, "overwrite") && cJSON_IsBool(it))
            s->o.overwrite = cJSON_IsTrue(it);
        else if (!strcmp(k, "per_process") && cJSON_IsBool(it))
            s->o.per_process = cJSON_IsTrue(it);
        else if (!strcmp(k, "per_gpu") && cJSON_IsBool(it))
            s->o.per_gpu = cJSON_IsTrue(it);
        else if ((!strcmp(k, "tracking_file") && sv) || (!strcmp(k, "gpu_uuids") && (sv || cJSON_IsArray(it)))) {
            /* gpu_uuids may be a list, as in Python, or a comma-separated string. */
            char *copy = NULL;
            if (cJSON_IsArray(it)) {
                size_t total = 1;
                for (cJSON *u = it->child; u; u = u->next)
                    total += cJSON_IsString(u) ? strlen(u->valuestring) + 1 : 0;
                copy = calloc(1, total);
                for (cJSON *u = it->child; copy && u; u = u->next) {
                    if (!cJSON_IsString(u)) {
                        rc = gt_cli_usage_error("config file '%s': gpu_uuids must be a list of strings", path);
                        break;
                    }
                    if (*copy)
                        strcat(copy, ",");
                    strcat(copy, u->valuestring);
                }
            } else {
                copy = strdup(sv);
            }
            if (!copy || rc) {
                free(copy);
                rc = rc ? rc : GT_EXIT_FAILURE;
                break;
            }
            int slot = !strcmp(k, "tracking_file") ? 0 : 1;
            free(s->tconfig_strs[slot]); /* a key given twice: the last wins */
            s->tconfig_strs[slot] = copy;
            if (!strcmp(k, "tracking_file"))
                s->o.tracking_file = copy;
            else if (!*copy)
                rc = gt_cli_usage_error("config file '%s': gpu_uuids must name at least one GPU", path);
            else
                s->o.gpu_uuids = copy;
        } else {
            rc = gt_cli_usage_error("config file '%s': invalid key or value type for '%s'; valid keys: sleep_time, "
                             "ram_unit, gpu_ram_unit, time_unit, n_expected_cores, gpu_uuids, disable_logs, "
                             "gpu_brand, tracking_file, overwrite, energy_unit, per_process, per_gpu", path, k);
        }
    }
    cJSON_Delete(root);
    return rc;
}

/* Parses argv into s.  Returns 0, an exit status, or -1 after --help/-v. */
static int parse_args(int argc, char **argv, settings *s)
{
    /* Two passes: --tconfig first, so that command-line options override it. */
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 1; i < argc; i++) {
            const char *a = argv[i];
            if (!strcmp(a, "--")) {
                if (pass == 1)
                    s->cmd = argv + i + 1;
                break;
            }
            const optdef *d = NULL;
            const char *v = NULL;
            if (a[0] == '-' && a[1] == '-') {
                const char *eq = strchr(a, '=');
                size_t nl = eq ? (size_t)(eq - a) : strlen(a);
                for (size_t k = 0; k < sizeof optdefs / sizeof *optdefs; k++)
                    if (strlen(optdefs[k].longname) == nl && !strncmp(a, optdefs[k].longname, nl))
                        d = &optdefs[k];
                if (d && eq) {
                    if (!d->has_arg)
                        return gt_cli_usage_error("option '%s' takes no value", d->longname);
                    v = eq + 1;
                }
            } else if (a[0] == '-' && a[1] && a[1] != '-') {
                for (size_t k = 0; k < sizeof optdefs / sizeof *optdefs; k++)
                    if (optdefs[k].shortname == a[1])
                        d = &optdefs[k];
                if (d && a[2]) {
                    if (!d->has_arg)
                        return gt_cli_usage_error("option '%s' takes no value", a);
                    v = a + 2;
                }
            }
            if (!d)
                return gt_cli_usage_error("unknown option '%s'; see 'gpu-tracker --help'", a);
            if (d->has_arg && !v) {
                if (i + 1 >= argc || !strcmp(argv[i + 1], "--"))
                    return gt_cli_usage_error("option '%s' needs a value; see 'gpu-tracker --help'", a);
                v = argv[++i];
            }
            if (!strcmp(d->longname, "--help")) {
                if (pass == 1) {
                    fputs(usage_text, stdout);
                    return -1;
                }
                continue;
            }
            if (!strcmp(d->longname, "--version")) {
                if (pass == 1) {
                    printf("gpu-tracker %s\n", gt_version());
                    return -1;
                }
                continue;
            }
            int is_tconfig = !strcmp(d->longname, "--tconfig");
            if (pass == 0 && is_tconfig) {
                int rc = load_tconfig(s, v);
                if (rc)
                    return rc;
            } else if (pass == 1 && !is_tconfig) {
                int rc = apply(s, d->longname, v);
                if (rc)
                    return rc;
            }
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
    if (s->attach && s->wait_descendants)
        return gt_cli_usage_error("--wait-descendants needs a command to run: an attached process's orphans "
                                  "are not re-parented to gpu-tracker");
    if (s->o.per_gpu && !s->o.tracking_file)
        return gt_cli_usage_error("--per-gpu needs a tracking file (--tf) to write its rows to");
    return 0;
}

/* Forks the command, held at a gate until the tracker is ready.  exec_fd is
 * a close-on-exec pipe: EOF means exec succeeded, an int means errno. */
static pid_t spawn_gated(char **cmd, const sigset_t *oldmask, const struct sigaction *xfsz,
                         const struct rlimit *nofile, int *gate_w, int *exec_r)
{
    int gate[2], ex[2];
    if (pipe2(gate, O_CLOEXEC) != 0)
        return -1;
    if (pipe2(ex, O_CLOEXEC) != 0) {
        close(gate[0]);
        close(gate[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(gate[1]);
        close(ex[0]);
        char c;
        /* EOF without a byte: the tracker gave up; do not run the command. */
        if (read(gate[0], &c, 1) != 1)
            _exit(GT_EXIT_FAILURE);
        signal(SIGPIPE, SIG_DFL);
        sigaction(SIGXFSZ, xfsz, NULL);
        if (nofile)
            setrlimit(RLIMIT_NOFILE, nofile); /* the limit the command was given */
        sigprocmask(SIG_SETMASK, oldmask, NULL);
        execvp(cmd[0], cmd);
        int e = errno;
        if (write(ex[1], &e, sizeof e) < 0)
            _exit(GT_EXIT_NOEXEC);
        _exit(GT_EXIT_NOEXEC);
    }
    close(gate[0]);
    close(ex[1]);
    if (pid < 0) {
        close(gate[1]);
        close(ex[0]);
        return -1;
    }
    *gate_w = gate[1];
    *exec_r = ex[0];
    return pid;
}

static int exit_status_of(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return GT_EXIT_FAILURE;
}

/* Reaps this process's exited children other than keep, and returns how
 * many are still running.  Orphans re-parented to a subreaper become
 * children of any of its threads, so every thread's list is read. */
static int reap_others(pid_t keep)
{
    int alive = 0;
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        char path[64], buf[4096];
        snprintf(path, sizeof path, "/proc/self/task/%.20s/children", de->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
        if (fd >= 0)
            close(fd);
        if (n <= 0)
            continue;
        buf[n] = '\0';
        for (char *p = buf, *end; *p; p = end) {
            long pid = strtol(p, &end, 10);
            if (end == p)
                break;
            if (pid > 0 && pid != keep && waitpid((pid_t)pid, NULL, WNOHANG) == 0)
                alive++;
        }
    }
    closedir(d);
    return alive;
}

/* Waits for the child to exit, forwarding signals sent to the tracker and
 * reaping orphaned descendants that the subreaper inherits; with
 * wait_descendants, then until no descendant is left (every one is then
 * our child: the subreaper inherits the orphans), or a signal to stop.
 * Returns once the child is a zombie (not yet reaped, so the last sample
 * still sees its final CPU times). */
static void wait_child(pid_t child, int sfd, int wait_descendants)
{
    int child_done = 0;
    for (;;) {
        siginfo_t si = {0};
        if (!child_done && waitid(P_PID, (id_t)child, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
            si.si_pid == child) {
            if (!wait_descendants)
                return;
            child_done = 1;
        }
        /* With the child a zombie, waitid(P_ALL) would keep finding it. */
        if (child_done && reap_others(child) == 0)
            return;
        /* Reap other exited children (orphans we adopted). */
        for (;;) {
            memset(&si, 0, sizeof si);
            if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0 ||
                si.si_pid == child)
                break;
            waitpid(si.si_pid, NULL, 0);
        }
        struct signalfd_siginfo ssi;
        ssize_t n = sfd >= 0 ? read(sfd, &ssi, sizeof ssi) : -1;
        if (n != (ssize_t)sizeof ssi) {
            if (sfd < 0)
                usleep(10000); /* no signalfd: poll for the child's exit */
            continue;
        }
        if (ssi.ssi_signo == SIGCHLD)
            continue;
        if (child_done)
            return; /* stop waiting for descendants; they run on */
        /* A terminal's Ctrl-C already reached the child's process group;
         * forward only signals sent to the tracker itself (kill, timeout). */
        if (ssi.ssi_code == SI_USER || ssi.ssi_code == SI_QUEUE || ssi.ssi_code == SI_TKILL)
            kill(child, (int)ssi.ssi_signo);
    }
}

/* Waits until the attached process exits or the user interrupts. */
static int wait_attached(pid_t pid, int sfd)
{
    int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
    for (;;) {
        struct pollfd fds[2] = {{sfd, POLLIN, 0}, {pfd, POLLIN, 0}};
        int r = poll(fds, pfd >= 0 ? 2 : 1, pfd >= 0 ? -1 : 50);
        if (r > 0 && (fds[0].revents & POLLIN)) {
            struct signalfd_siginfo ssi;
            if (read(sfd, &ssi, sizeof ssi) == (ssize_t)sizeof ssi && ssi.ssi_signo != SIGCHLD) {
                if (pfd >= 0)
                    close(pfd);
                return 1; /* interrupted */
            }
        }
        if ((pfd >= 0 && r > 0 && (fds[1].revents & POLLIN)) || (pfd < 0 && kill(pid, 0) != 0 && errno == ESRCH))
            break;
    }
    if (pfd >= 0)
        close(pfd);
    return 0;
}

/* Where each sample goes while the command runs, besides the tracker. */
typedef struct watchers {
    gt_cli_live *live;
    gt_metrics *metrics;
} watchers;

static void on_timepoint(void *ctx, const gt_timepoint *tp)
{
    watchers *w = ctx;
    if (w->live)
        gt_cli_live_update(w->live, tp);
    if (w->metrics)
        gt_metrics_update(w->metrics, tp);
}

/* Writes the report to out.  A reader that closed the pipe it reads our
 * stdout from (`gpu-tracker ... | head -1`) wanted no more: that is not a
 * failure, and the command's own status stands. */
static int write_report(gt_tracker *t, const settings *s, FILE *out)
{
    gt_usage u;
    if (gt_tracker_usage(t, &u) != GT_OK) {
        fprintf(stderr, "gpu-tracker: %s\n", gt_tracker_error(t));
        return GT_EXIT_FAILURE;
    }
    gt_format fmt = s->format && !strcmp(s->format, "json") ? GT_FORMAT_JSON : GT_FORMAT_TEXT;
    /* The library's report ends where the Python package's str() does; a
     * report on the screen or in a file ends its last line. */
    if (gt_usage_write(&u, fmt, out) != GT_OK || fputc('\n', out) == EOF || fflush(out) != 0 || ferror(out)) {
        if (out == stdout && errno == EPIPE)
            return 0;
        fprintf(stderr, "gpu-tracker: cannot write the report to '%s': %s\n", s->output ? s->output : "stdout",
                strerror(errno));
        return GT_EXIT_FAILURE;
    }
    return 0;
}

int gt_cli_track(int argc, char **argv)
{
    settings s;
    memset(&s, 0, sizeof s);
    gt_options_init(&s.o);
    s.o.log = gt_cli_log_stderr;
    int rc = parse_args(argc, argv, &s);
    int split_argc = 0;
    char **split = NULL;
    gt_cli_outfile out = {0};
    gt_tracker *t = NULL;
    int sfd = -1, gate = -1, exec_r = -1;
    pid_t child = -1;
    sigset_t mask, oldmask;
    watchers w = {NULL, NULL};
    if (rc) {
        rc = rc < 0 ? 0 : rc;
        goto done;
    }
    if (s.execute) {
        gt_error e;
        if (gt_argv_split(s.execute, &split_argc, &split, &e) != GT_OK) {
            rc = gt_cli_usage_error("%s", e.msg);
            goto done;
        }
        if (split_argc == 0) {
            rc = gt_cli_usage_error("the command given to --execute is empty");
            goto done;
        }
        s.cmd = split;
    }
    if ((rc = gt_cli_job_names(&s.output, &s.o.tracking_file, s.job_names)))
        goto done;
    /* The report would go into the tracking file, or (with --overwrite) to
     * the old file's inode, unlinked when the tracking file replaces it. */
    if (s.output && s.o.tracking_file && gt_cli_same_file(s.output, s.o.tracking_file)) {
        rc = gt_cli_usage_error("the report (--output '%s') and the tracking file (--tf '%s') must be different "
                                "files", s.output, s.o.tracking_file);
        goto done;
    }
    /* Nothing is written under the report's name before the report is
     * complete: a run refused below leaves an existing file as it was. */
    if (s.output && (rc = gt_cli_outfile_open(s.output, &out)) != 0)
        goto done;
    /* A reader that goes away must not kill us before the command's status
     * is known; our writes see EPIPE instead. */
    signal(SIGPIPE, SIG_IGN);

    /* Signals are taken through a signalfd on this thread only; the
     * sampling thread created later inherits the blocked mask. */
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    /* A signal that was ignored when we started (nohup's SIGHUP, SIGINT in
     * a background job) stays ignored, for us and for the command. */
    const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof forwarded / sizeof *forwarded; i++) {
        struct sigaction sa;
        if (sigaction(forwarded[i], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
            sigaddset(&mask, forwarded[i]);
    }
    sigprocmask(SIG_BLOCK, &mask, &oldmask);
    sfd = signalfd(-1, &mask, SFD_CLOEXEC);
    /* A tracking file that reaches the file-size limit (ulimit -f) must fail
     * its write with EFBIG, not kill the tracker; the command gets the
     * disposition we were started with. */
    struct sigaction xfsz_ign = {.sa_handler = SIG_IGN}, xfsz_old;
    sigaction(SIGXFSZ, &xfsz_ign, &xfsz_old);
    /* Opened after the mask is set: its thread must not take our signals. */
    if (s.metrics) {
        gt_error e;
        if (gt_metrics_open(s.metrics, &w.metrics, &e) != GT_OK) {
            rc = gt_cli_usage_error("%s", e.msg);
            goto done;
        }
        if (!s.quiet)
            fprintf(stderr, "gpu-tracker: metrics at http://%s/metrics\n", gt_metrics_address(w.metrics));
    }

    /* Every process of a large tree costs descriptors: take what the hard
     * limit allows (the command gets its own limit back before exec). */
    struct rlimit nofile;
    const struct rlimit *restore = NULL;
    if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
        struct rlimit raised = {nofile.rlim_max, nofile.rlim_max};
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
            restore = &nofile;
    }
    gt_error err;
    struct rusage self_ru;
    if (!s.attach) {
        /* Orphaned grandchildren are re-parented to us, not to init, so they
         * stay in the tracked tree. */
        prctl(PR_SET_CHILD_SUBREAPER, 1);
        getrusage(RUSAGE_SELF, &self_ru);
        child = spawn_gated(s.cmd, &oldmask, &xfsz_old, restore, &gate, &exec_r);
        if (child < 0) {
            fprintf(stderr, "gpu-tracker: cannot start '%s': %s\n", s.cmd[0], strerror(errno));
            rc = GT_EXIT_FAILURE;
            goto done;
        }
        s.o.process_id = child;
        s.o.tree_root = getpid();
    } else {
        s.o.process_id = s.attach;
        if (kill(s.attach, 0) != 0 && errno == ESRCH) {
            fprintf(stderr, "gpu-tracker: no process with PID %d\n", (int)s.attach);
            rc = GT_EXIT_USAGE;
            goto done;
        }
    }
    s.o.on_timepoint = on_timepoint;
    s.o.on_timepoint_ctx = &w;
    if (gt_tracker_new(&s.o, &t, &err) != GT_OK) {
        fprintf(stderr, "gpu-tracker: %s\n", err.msg);
        rc = GT_EXIT_USAGE;
        goto done;
    }
    if (!s.attach) {
        int e = 0;
        if (write(gate, "g", 1) != 1 || read(exec_r, &e, sizeof e) > 0) {
            fprintf(stderr, "gpu-tracker: cannot run '%s': %s\n", s.cmd[0], strerror(e ? e : errno));
            rc = GT_EXIT_NOEXEC;
            goto done;
        }
    }
    if (!s.quiet)
        w.live = gt_cli_live_start(STDERR_FILENO);
    if (gt_tracker_start(t) != GT_OK) {
        fprintf(stderr, "gpu-tracker: %s\n", gt_tracker_error(t));
        rc = GT_EXIT_FAILURE;
        goto done;
    }
    int status = 0, interrupted = 0;
    if (!s.attach) {
        wait_child(child, sfd, s.wait_descendants);
    } else {
        interrupted = wait_attached(s.attach, sfd);
    }
    gt_status st = gt_tracker_stop(t);
    gt_cli_live_stop(&w.live); /* after the last sample, before the report */
    if (!s.attach) {
        struct rusage ru;
        if (wait4(child, &status, 0, &ru) == child)
            gt_tracker_set_main_maxrss(t, (uint64_t)ru.ru_maxrss * 1024, (uint64_t)self_ru.ru_maxrss * 1024);
        child = -1;
        rc = exit_status_of(status);
        int code = WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
        size_t left = gt_tracker_descendants_alive(t);
        if (left > 0 && !s.o.disable_logs)
            fprintf(stderr,
                    "gpu-tracker: warning: the command exited leaving %zu descendant process%s running, "
                    "not tracked after that (--wait-descendants tracks until they exit)\n",
                    left, left == 1 ? "" : "es");
        printf("Resource tracking complete. Process completed with status code: %d\n", code);
    } else {
        rc = 0;
        if (interrupted)
            printf("Resource tracking stopped. Process %d is still running.\n", (int)s.attach);
        else
            printf("Resource tracking complete. Process %d has exited.\n", (int)s.attach);
    }
    if (fflush(stdout) != 0 && errno == EPIPE)
        clearerr(stdout);
    /* Samples were lost (tracking file unwritable, /proc unreadable): the
     * message says which, and a command that succeeded exits with 1, as for
     * a report that cannot be written. */
    if (st != GT_OK) {
        fprintf(stderr, "gpu-tracker: %s\n", gt_tracker_error(t));
        if (rc == 0)
            rc = GT_EXIT_FAILURE;
    }
    if (write_report(t, &s, out.f ? out.f : stdout) != 0) {
        if (rc == 0)
            rc = GT_EXIT_FAILURE;
        gt_cli_outfile_discard(&out); /* an older report stays whole */
    } else if (gt_cli_outfile_commit(&out) != 0 && rc == 0) {
        rc = GT_EXIT_FAILURE;
    }

done:
    if (gate >= 0)
        close(gate); /* an unopened gate makes the held child exit */
    if (exec_r >= 0)
        close(exec_r);
    if (child > 0)
        waitpid(child, NULL, 0);
    gt_tracker_free(&t);
    gt_cli_live_stop(&w.live);
    gt_metrics_free(&w.metrics);
    if (sfd >= 0)
        close(sfd);
    gt_cli_outfile_discard(&out);
    for (int i = 0; i < 2; i++) {
        free(s.tconfig_strs[i]);
        free(s.job_names[i]);
    }
    gt_argv_free(&split);
    return rc;
}
