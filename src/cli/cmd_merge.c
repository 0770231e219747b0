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
#include "gpu_tracker.h"
#include "option_tables.h"
#include "options.h"
#include "outfile.h"

static const char usage_head[] =
    "Usage: gpu-tracker merge <directory>|<tracking-file>... [--format=<format>] [--output=<output>]\n"
    "                         [--align=<seconds>]\n"
    "\n"
    "One report of a job from the tracking files of its nodes or tasks (e.g. written by\n"
    "'srun gpu-tracker --tf=track-%j-%N-%t.sqlite -- ...'): each file's figures, each node's and the\n"
    "job's, whose peaks are the largest sums across files at one time.  Files whose static data name\n"
    "the same host (several tasks of one node) are summed into that node first; a file that names\n"
    "none is a node of its own.\n"
    "\n"
    "    <directory>             Every .csv and .sqlite file in it.\n";

/* In --help's order; --help lists the entries with help. */
const gt_cli_opt gt_cli_merge_opts[] = {
    {.longname = "--format", .shortname = 'f', .arg = "<format>", .help = "'text' (default) or 'json'."},
    {.longname = "--output", .shortname = 'o', .arg = "<output>",
     .help = "Write the report to this file instead of the screen."},
    {.longname = "--align", .arg = "<seconds>", .help = "Step of the time grid on which files are summed (default 1)."},
    {.longname = "--help", .shortname = 'h'},
};

const size_t gt_cli_merge_n_opts = sizeof gt_cli_merge_opts / sizeof *gt_cli_merge_opts;

int gt_cli_merge_usage(FILE *out)
{
    fputs(usage_head, out);
    return gt_cli_print_opts(out, gt_cli_merge_opts, gt_cli_merge_n_opts);
}

/* The inputs: the tracking files in one directory, or the files as given.
 * Returns 0 or an exit status after a message. */
static int gather(const char **args, size_t nargs, char ***listed, size_t *nlisted, const char *const **paths,
                  size_t *npaths)
{
    struct stat sb;
    for (size_t i = 0; i < nargs; i++)
        if (stat(args[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
            if (nargs > 1)
                return gt_cli_usage_error("merge: '%s' is a directory: give one directory, or files only",
                                          args[i]);
            if (gt_cli_list_dir(args[i], listed, nlisted) != 0)
                return GT_EXIT_FAILURE;
            if (!*nlisted)
                return gt_cli_usage_error("merge: directory '%s' holds no .csv or .sqlite file", args[i]);
            *paths = (const char *const *)*listed;
            *npaths = *nlisted;
            return 0;
        }
    *paths = args;
    *npaths = nargs;
    return 0;
}

int gt_cli_merge(int argc, char **argv)
{
    const char *output = NULL, *format = "text", *align_text = NULL;
    const char **args = calloc((size_t)argc, sizeof *args);
    const char *const *paths = NULL;
    char **listed = NULL;
    size_t nargs = 0, nlisted = 0, npaths = 0;
    gt_merge *m = NULL;
    gt_cli_outfile out = {0};
    int rc;
    if (!args) {
        fputs("gpu-tracker: out of memory\n", stderr);
        return GT_EXIT_FAILURE;
    }
    for (int i = 1; i < argc; i++) {
        const gt_cli_opt *d;
        const char *v;
        if (argv[i][0] != '-') {
            args[nargs++] = argv[i];
            continue;
        }
        if ((rc = gt_cli_next_opt(argc, argv, &i, gt_cli_merge_opts, gt_cli_merge_n_opts, "gpu-tracker merge", &d, &v)))
            goto done;
        if (!strcmp(d->longname, "--format"))
            format = v;
        else if (!strcmp(d->longname, "--output"))
            output = v;
        else if (!strcmp(d->longname, "--align"))
            align_text = v;
        else {
            gt_cli_merge_usage(stdout);
            rc = 0;
            goto done;
        }
    }
    gt_format fmt = GT_FORMAT_TEXT;
    double align = 1.0;
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
        align = strtod(align_text, &end);
        if (errno || end == align_text || *end || !isfinite(align) || align < 0.001) {
            rc = gt_cli_usage_error("merge: invalid value '%s' for --align: must be a number of seconds, at "
                                    "least 0.001",
                                    align_text);
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
    gt_status st = gt_merge_files(paths, npaths, align, &m, &err);
    if (st != GT_OK) {
        fprintf(stderr, "gpu-tracker: %s\n", err.msg);
        rc = st == GT_ERR_IO || st == GT_ERR_NOMEM ? GT_EXIT_FAILURE : GT_EXIT_USAGE;
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
                errno ? strerror(errno) : "write error");
        rc = GT_EXIT_FAILURE;
        goto done;
    }
    rc = gt_cli_outfile_commit(&out);
done:
    gt_cli_outfile_discard(&out);
    gt_merge_free(&m);
    gt_cli_list_free(listed, nlisted);
    free(args);
    return rc;
}
