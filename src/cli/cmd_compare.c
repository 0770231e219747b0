/* SPDX-License-Identifier: MIT */
/* gpu-tracker sub-track compare: compares tracking sessions from the JSON
 * results files of `sub-track analyze -f json`. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compare.h"
#include "gpu_tracker.h"
#include "option_tables.h"
#include "options.h"
#include "outfile.h"
#include "util/grow.h"

static const char usage_head[] =
    "Compares the resource usage of tracking sessions, overall and per code block.\n"
    "\n"
    "Usage:\n"
    "    gpu-tracker sub-track compare [--output=<output>] [--format=<format>] [--cconfig=<config-file>] "
    "[-m <name>=<file-path>...] [--stat=<statistic>]\n"
    "\n"
    "Options:\n";

static const char usage_tail[] =
    "\n"
    "Exit status: 0 on success, 2 for invalid options or input files, 1 if the output cannot be written.\n";

/* How the options reach gt_cli_compare_settings (defined below). */
static int apply_mapping(void *ctx, const char *name, const char *v);
static int apply_stat(void *ctx, const char *name, const char *v);
static int apply_cconfig(void *ctx, const char *name, const char *v);
static int apply_format(void *ctx, const char *name, const char *v);

/* In --help's order; --help lists the entries with help. */
const gt_cli_opt gt_cli_compare_opts[] = {
    {.longname = "-m", .shortname = 'm', .apply = apply_mapping, .arg = "<name>=<file-path>",
     .help = "A session's name and its results file (from 'sub-track analyze -f json'). Repeat for every "
             "session; the first is the one the others are matched to."},
    {.longname = "--stat", .apply = apply_stat, .arg = "<statistic>",
     .help = "'min', 'max', 'mean' or 'std'. Defaults to 'mean'."},
    {.longname = "--cconfig", .apply = apply_cconfig, .early = 1, .arg = "<config-file>",
     .help = "JSON object with 'file_path_map' (name -> file) and/or 'statistic'. -m adds to (or replaces a name "
             "of) the map; --stat overrides the statistic."},
    {.longname = "--output", .shortname = 'o', .store = GT_CLI_STRING,
     .field = offsetof(gt_cli_compare_settings, output), .arg = "<output>",
     .help = "File to write the comparison to. If not set, prints to the screen."},
    {.longname = "--format", .shortname = 'f', .apply = apply_format, .arg = "<format>",
     .help = "'text' or 'json'. Defaults to 'text'."},
    {.longname = "--help", .shortname = 'h'},
};

const size_t gt_cli_compare_n_opts = sizeof gt_cli_compare_opts / sizeof *gt_cli_compare_opts;

int gt_cli_compare_usage(FILE *out)
{
    fputs(usage_head, out);
    gt_cli_print_opts(out, gt_cli_compare_opts, gt_cli_compare_n_opts);
    fputs(usage_tail, out);
    return ferror(out) ? -1 : 0;
}

static int sessions_put(gt_cli_sessions *s, const char *name, size_t name_len, const char *file)
{
    for (size_t i = 0; i < s->n; i++)
        if (strlen(s->names[i]) == name_len && !strncmp(s->names[i], name, name_len)) {
            char *f = strdup(file);
            if (!f)
                return -1;
            free(s->files[i]);
            s->files[i] = f;
            return 0;
        }
    if (s->n == s->cap) {
        size_t cap = gt_grow_cap(s->cap, s->n + 1, 8, sizeof *s->names);
        char **n = cap ? realloc(s->names, cap * sizeof *n) : NULL;
        if (!n)
            return -1;
        s->names = n;
        char **f = realloc(s->files, cap * sizeof *f);
        if (!f)
            return -1;
        s->files = f;
        s->cap = cap;
    }
    s->names[s->n] = strndup(name, name_len);
    s->files[s->n] = strdup(file);
    if (!s->names[s->n] || !s->files[s->n]) {
        free(s->names[s->n]);
        free(s->files[s->n]);
        return -1;
    }
    s->n++;
    return 0;
}

void gt_cli_compare_settings_free(gt_cli_compare_settings *s)
{
    for (size_t i = 0; i < s->ss.n; i++) {
        free(s->ss.names[i]);
        free(s->ss.files[i]);
    }
    free(s->ss.names);
    free(s->ss.files);
    free(s->stat);
    memset(s, 0, sizeof *s);
}

static int out_of_memory(void)
{
    fputs("gpu-tracker: out of memory\n", stderr);
    return GT_EXIT_FAILURE;
}

static int set_stat(gt_cli_compare_settings *s, const char *v)
{
    char *copy = strdup(v);
    if (!copy)
        return out_of_memory();
    free(s->stat);
    s->stat = copy;
    return 0;
}

static int add_mapping(gt_cli_compare_settings *s, const char *v)
{
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1])
        return gt_cli_usage_error("invalid value '%s' for -m: expected <name>=<file-path>", v);
    if (sessions_put(&s->ss, v, (size_t)(eq - v), eq + 1))
        return out_of_memory();
    return 0;
}

int gt_cli_compare_load_config(gt_cli_compare_settings *s, const char *path)
{
    cJSON *root;
    int rc = gt_cli_load_config(path, &root);
    if (rc)
        return rc;
    for (const cJSON *it = root->child; it && !rc; it = it->next) {
        if (!strcmp(it->string, "statistic") && cJSON_IsString(it)) {
            rc = set_stat(s, it->valuestring);
        } else if (!strcmp(it->string, "file_path_map") && cJSON_IsObject(it)) {
            for (const cJSON *m = it->child; m && !rc; m = m->next) {
                if (!cJSON_IsString(m) || !*m->string || !*m->valuestring)
                    rc = gt_cli_usage_error("config file '%s': file_path_map must map names to file paths", path);
                else if (sessions_put(&s->ss, m->string, strlen(m->string), m->valuestring))
                    rc = out_of_memory();
            }
        } else {
            rc = gt_cli_usage_error("config file '%s': invalid key or value type for '%s'; valid keys: "
                                    "file_path_map (an object), statistic (a string)", path, it->string);
        }
    }
    cJSON_Delete(root);
    return rc;
}

static int apply_mapping(void *ctx, const char *name, const char *v)
{
    (void)name;
    return add_mapping(ctx, v);
}

static int apply_stat(void *ctx, const char *name, const char *v)
{
    (void)name;
    return set_stat(ctx, v);
}

static int apply_cconfig(void *ctx, const char *name, const char *v)
{
    (void)name;
    gt_cli_compare_settings *s = ctx;
    return gt_cli_compare_load_config(s, s->cconfig = v);
}

static int apply_format(void *ctx, const char *name, const char *v)
{
    (void)name;
    if (!strcmp(v, "pickle"))
        return gt_cli_usage_error("--format=pickle is written by `python3 -m gpu_tracker sub-track compare`; this "
                                  "program writes 'text' or 'json'");
    if (strcmp(v, "text") && strcmp(v, "json"))
        return gt_cli_usage_error("invalid value '%s' for %s: valid formats are 'text', 'json'", v, "--format");
    ((gt_cli_compare_settings *)ctx)->format = v;
    return 0;
}

static int run(gt_cli_compare_settings *s)
{
    if (s->ss.n == 0)
        return gt_cli_usage_error("no sessions to compare: give -m <name>=<file-path> (or file_path_map in "
                                  "--cconfig)");
    /* Inputs: the results files, and the config that named them. */
    int rc = s->output ? gt_cli_outfile_check(s->output, "--output", (const char *const *)s->ss.files, s->ss.n,
                                              "the input")
                       : 0;
    if (rc == 0 && s->output && s->cconfig)
        rc = gt_cli_outfile_check(s->output, "--output", &s->cconfig, 1, "the config file");
    if (rc)
        return rc;
    gt_comparison *c = NULL;
    gt_error e;
    gt_compare_options co = GT_COMPARE_OPTIONS_INIT;
    co.statistic = s->stat;
    co.log = gt_cli_log_stderr;
    gt_status st = gt_compare((const char *const *)s->ss.names, (const char *const *)s->ss.files, s->ss.n, &co,
                              &c, &e);
    if (st != GT_OK) {
        fprintf(stderr, "gpu-tracker: %s\n", e.msg);
        /* The results files are compare's arguments: one that cannot be
         * read is a usage error, the exception docs/tracking.md ("Exit
         * status") names, kept as docs/sub-tracking.md always said. */
        return st == GT_ERR_IO ? GT_EXIT_USAGE : gt_cli_status_exit(st);
    }
    gt_cli_outfile out = {0};
    if (s->output && gt_cli_outfile_open(s->output, &out) != 0) {
        gt_comparison_free(&c);
        return GT_EXIT_FAILURE;
    }
    FILE *f = out.f ? out.f : stdout;
    gt_format fmt = s->format && !strcmp(s->format, "json") ? GT_FORMAT_JSON : GT_FORMAT_TEXT;
    /* JSON ends its last line here; the text report ends it already. */
    errno = 0;
    st = gt_comparison_write(c, fmt, f);
    if (st != GT_OK || (fmt == GT_FORMAT_JSON && fputc('\n', f) == EOF) || fflush(f) != 0 || ferror(f)) {
        fprintf(stderr, "gpu-tracker: cannot write the comparison to '%s': %s\n", s->output ? s->output : "stdout",
                gt_cli_write_reason(st));
        gt_cli_outfile_discard(&out);
        rc = GT_EXIT_FAILURE;
    } else {
        rc = gt_cli_outfile_commit(&out);
    }
    gt_comparison_free(&c);
    return rc;
}

int gt_cli_subtrack_compare(int argc, char **argv)
{
    gt_cli_compare_settings s;
    memset(&s, 0, sizeof s);
    /* --cconfig first, so that the command line overrides it. */
    int rc = gt_cli_parse(argc, argv, gt_cli_compare_opts, gt_cli_compare_n_opts, "gpu-tracker sub-track compare",
                          gt_cli_compare_usage, &s, NULL);
    if (rc == 0)
        rc = run(&s);
    else if (rc < 0)
        rc = 0;
    gt_cli_compare_settings_free(&s);
    return rc;
}
