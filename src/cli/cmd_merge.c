/* SPDX-License-Identifier: MIT */
/* gpu-tracker merge DIR|FILE... [-f text|json] [-o FILE] [--align=SECONDS] */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "files.h"
#include "analysis/merge.h"
#include "gpu_tracker.h"
#include "option_tables.h"
#include "options.h"
#include "perproc/perproc.h"
#include "store/side.h"
#include "outfile.h"

static const char usage_head[] =
    "Usage: gpu-tracker merge <directory>|<tracking-file>... [--format=<format>] [--output=<output>]\n"
    "                         [--align=<seconds>]\n"
    "\n"
    "One report of a job from the tracking files of its nodes or tasks (e.g. written by\n"
    "'srun gpu-tracker --tf=track-%j-%N-%t.sqlite -- ...'): each file's figures, each node's and the\n"
    "job's, whose peaks are the largest sums across files at one time.  Files whose static data name\n"
    "the same host (several tasks of one node) are summed into that node first; a file that names\n"
    "none is a node of its own.  A file given twice (overlapping globs) is read once; the side\n"
    "files of --per-process and --per-gpu (t.processes.csv, t.gpus.csv) are left out when their\n"
    "tracking file is given too.\n"
    "\n"
    "    <directory>             Every .csv and .sqlite tracking file in it, not the side files.\n";

typedef struct settings {
    const char *output, *format, *align;
    const char **args; /* the files and directories named, room for argc */
    size_t nargs;
} settings;

#define STRING(member) .store = GT_CLI_STRING, .field = offsetof(settings, member)

static int add_arg(void *ctx, const char *arg)
{
    settings *s = ctx;
    s->args[s->nargs++] = arg;
    return 0;
}

/* In --help's order; --help lists the entries with help. */
const gt_cli_opt gt_cli_merge_opts[] = {
    {.longname = "--format", .shortname = 'f', STRING(format), .arg = "<format>",
     .help = "'text' (default) or 'json'."},
    {.longname = "--output", .shortname = 'o', STRING(output), .arg = "<output>",
     .help = "Write the report to this file instead of the screen."},
    {.longname = "--align", STRING(align), .arg = "<seconds>",
     .help = "Step of the time grid on which files are summed (default 1)."},
    {.longname = "--help", .shortname = 'h'},
};

const size_t gt_cli_merge_n_opts = sizeof gt_cli_merge_opts / sizeof *gt_cli_merge_opts;

int gt_cli_merge_usage(FILE *out)
{
    fputs(usage_head, out);
    return gt_cli_print_opts(out, gt_cli_merge_opts, gt_cli_merge_n_opts);
}

/* Whether path is a side file (--per-process, --per-gpu) named as one
 * beside its tracking file ("t.processes.csv" beside "t.csv"); *stem: the
 * length of the tracking file's name without ".csv".  Only such names are
 * opened, to read their header. */
static int is_side_file(const char *path, size_t *stem)
{
    for (const char *const *t = gt_perproc_tables; *t; t++) {
        const char *table;
        if ((*stem = gt_side_stem_len(path, *t)))
            return (table = gt_perproc_table_of(path)) && !strcmp(table, *t);
    }
    return 0;
}

/* Leaves out of paths[0..*n) the side files: in a directory all of them,
 * as they are no tracking files; among files given (a glob over a job's
 * folder gives both) those whose tracking file is given too.  A side
 * file given without it stays, for the merge to say what it is.  Returns
 * 0, or -1 after a message (out of memory). */
static int drop_side_files(const char **paths, size_t *n, int from_dir, const gt_cli_file_id *ids, size_t nids)
{
    size_t kept = 0, stem;
    for (size_t i = 0; i < *n; i++) {
        if (is_side_file(paths[i], &stem)) {
            char *owner = NULL;
            if (!from_dir && asprintf(&owner, "%.*s.csv", (int)stem, paths[i]) < 0) {
                fputs("gpu-tracker: out of memory\n", stderr);
                return -1;
            }
            int known = from_dir || gt_cli_file_known(ids, nids, owner);
            free(owner);
            if (known)
                continue;
        }
        paths[kept++] = paths[i];
    }
    *n = kept;
    return 0;
}

/* The inputs, each file once (gt_cli_unique_files): the tracking files in
 * one directory, or the files as given, without the side files beside them
 * (drop_side_files); *paths malloc'd, its strings args' or *listed's.
 * Returns 0 or an exit status after a message. */
static int gather(const char **args, size_t nargs, char ***listed, size_t *nlisted, const char ***paths,
                  size_t *npaths)
{
    struct stat sb;
    const char *dir = NULL;
    gt_cli_file_id *ids = NULL;
    size_t nids = 0;
    for (size_t i = 0; i < nargs; i++)
        if (stat(args[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
            if (nargs > 1)
                return gt_cli_usage_error("merge: '%s' is a directory: give one directory, or files only",
                                          args[i]);
            dir = args[i];
        }
    if (dir) {
        if (gt_cli_list_dir(dir, listed, nlisted) != 0)
            return GT_EXIT_FAILURE;
        if (!*nlisted)
            return gt_cli_usage_error("merge: directory '%s' holds no .csv or .sqlite file", dir);
    }
    size_t n = dir ? *nlisted : nargs;
    if (!(*paths = malloc(n * sizeof **paths))) {
        fputs("gpu-tracker: out of memory\n", stderr);
        return GT_EXIT_FAILURE;
    }
    for (size_t i = 0; i < n; i++)
        (*paths)[i] = dir ? (*listed)[i] : args[i];
    int rc = gt_cli_unique_files(*paths, &n, &ids, &nids) || drop_side_files(*paths, &n, dir != NULL, ids, nids);
    free(ids);
    *npaths = n;
    if (rc)
        return GT_EXIT_FAILURE;
    if (!n)
        return gt_cli_usage_error("merge: directory '%s' holds no tracking file, only the side files that "
                                  "--per-process and --per-gpu write beside one",
                                  dir);
    return 0;
}

int gt_cli_merge(int argc, char **argv)
{
    const char **args = calloc((size_t)argc, sizeof *args);
    const char **paths = NULL;
    char **listed = NULL;
    size_t nlisted = 0, npaths = 0;
    gt_merge *m = NULL;
    gt_cli_outfile out = {0};
    int rc;
    if (!args) {
        fputs("gpu-tracker: out of memory\n", stderr);
        return GT_EXIT_FAILURE;
    }
    settings s = {.format = "text", .args = args};
    if ((rc = gt_cli_parse(argc, argv, gt_cli_merge_opts, gt_cli_merge_n_opts, "gpu-tracker merge", gt_cli_merge_usage,
                           &s, add_arg))) {
        rc = rc < 0 ? 0 : rc;
        goto done;
    }
    const char *output = s.output, *format = s.format, *align_text = s.align;
    size_t nargs = s.nargs;
    gt_format fmt = GT_FORMAT_TEXT;
    gt_merge_options mo = GT_MERGE_OPTIONS_INIT; /* the library's default grid unless --align */
    char *end;
    rc = GT_EXIT_USAGE;
    if (!strcmp(format, "json"))
        fmt = GT_FORMAT_JSON;
    else if (strcmp(format, "text")) {
        rc = gt_cli_usage_error("merge: invalid format '%s': must be 'text' or 'json'", format);
        goto done;
    }
    if (align_text) {
        errno = 0;
        mo.align_seconds = strtod(align_text, &end);
        if (errno || end == align_text || *end || !isfinite(mo.align_seconds) ||
            mo.align_seconds < GT_MERGE_MIN_ALIGN) {
            rc = gt_cli_usage_error("merge: invalid value '%s' for --align: must be a number of seconds, at "
                                    "least %g",
                                    align_text, GT_MERGE_MIN_ALIGN);
            goto done;
        }
    }
    if (!nargs) {
        rc = gt_cli_usage_error("merge: needs a directory or tracking files; see 'gpu-tracker merge --help'");
        goto done;
    }
    if ((rc = gather(args, nargs, &listed, &nlisted, &paths, &npaths)))
        goto done;
    if (output && (rc = gt_cli_outfile_check(output, "--output", paths, npaths, "the input")))
        goto done;
    gt_error err;
    gt_status st = gt_merge_files((const char *const *)paths, npaths, &mo, &m, &err);
    if (st != GT_OK) {
        fprintf(stderr, "gpu-tracker: %s\n", err.msg);
        rc = gt_cli_status_exit(st);
        goto done;
    }
    if (output && gt_cli_outfile_open(output, &out) != 0) {
        rc = GT_EXIT_FAILURE;
        goto done;
    }
    errno = 0;
    st = gt_merge_write(m, fmt, out.f ? out.f : stdout);
    if (st == GT_OK && !out.f && fflush(stdout) != 0)
        st = GT_ERR_IO;
    if (st != GT_OK) {
        fprintf(stderr, "gpu-tracker: cannot write the report to '%s': %s\n", output ? output : "stdout",
                gt_cli_write_reason(st));
        rc = GT_EXIT_FAILURE;
        goto done;
    }
    rc = gt_cli_outfile_commit(&out);
done:
    gt_cli_outfile_discard(&out);
    gt_merge_free(&m);
    gt_cli_list_free(listed, nlisted);
    free(paths);
    free(args);
    return rc;
}
