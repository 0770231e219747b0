/* SPDX-License-Identifier: MIT */
/* gpu-tracker sub-track combine --stf=OUT -p FILE... | -p DIR */
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
    "Usage: gpu-tracker sub-track combine --stf=<sub-track-file> -p <file-path>...\n"
    "       gpu-tracker sub-track combine --stf=<sub-track-file> -p <directory>\n"
    "\n"
    "Combines sub-tracking files (e.g. one per process) into one new sub-tracking file.\n"
    "\n";

typedef struct settings {
    const char *stf;
    const char **paths; /* room for argc */
    size_t npaths;
} settings;

/* A file after -p, or after the file after it, as a shell glob gives them. */
static int add_path(void *ctx, const char *path)
{
    settings *s = ctx;
    s->paths[s->npaths++] = path;
    return 0;
}

static int apply_path(void *ctx, const char *name, const char *path)
{
    (void)name;
    return add_path(ctx, path);
}

/* In --help's order; --help lists the entries with help. */
const gt_cli_opt gt_cli_combine_opts[] = {
    {.longname = "--stf", .store = GT_CLI_STRING, .field = offsetof(settings, stf), .arg = "<sub-track-file>",
     .help = "The file to create (.csv or .sqlite); it must not exist."},
    {.longname = "--path", .shortname = 'p', .apply = apply_path, .arg = "<file-path>",
     .help = "A file to combine; all must have the extension of --stf. Files may also follow one -p: -p a.csv "
             "b.csv. Given once with a directory: every .csv or .sqlite file in it, by name."},
    {.longname = "--help", .shortname = 'h'},
};

const size_t gt_cli_combine_n_opts = sizeof gt_cli_combine_opts / sizeof *gt_cli_combine_opts;

int gt_cli_combine_usage(FILE *out)
{
    fputs(usage_head, out);
    return gt_cli_print_opts(out, gt_cli_combine_opts, gt_cli_combine_n_opts);
}

int gt_cli_subtrack_combine(int argc, char **argv)
{
    const char **paths = calloc((size_t)argc, sizeof *paths);
    char **listed = NULL;
    size_t npaths = 0, nlisted = 0;
    int rc = GT_EXIT_USAGE;
    struct stat sb;

    if (!paths) {
        fputs("gpu-tracker: out of memory\n", stderr);
        return GT_EXIT_FAILURE;
    }
    settings s = {.paths = paths};
    if ((rc = gt_cli_parse(argc, argv, gt_cli_combine_opts, gt_cli_combine_n_opts, "gpu-tracker sub-track combine",
                           gt_cli_combine_usage, &s, add_path))) {
        rc = rc < 0 ? 0 : rc;
        goto done;
    }
    const char *stf = s.stf;
    npaths = s.npaths;
    if (!stf || npaths == 0) {
        rc = gt_cli_usage_error("sub-track combine: needs --stf=<sub-track-file> and at least one -p");
        goto done;
    }
    if (npaths == 1 && stat(paths[0], &sb) == 0 && S_ISDIR(sb.st_mode)) {
        if (gt_cli_list_dir(paths[0], &listed, &nlisted) != 0) {
            rc = GT_EXIT_FAILURE;
            goto done;
        }
        if (nlisted == 0) {
            rc = gt_cli_usage_error("sub-track combine: directory '%s' holds no '.csv' or '.sqlite' file",
                                    paths[0]);
            goto done;
        }
    } else {
        for (size_t i = 0; i < npaths; i++)
            if (stat(paths[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
                rc = gt_cli_usage_error("sub-track combine: '%s' is a directory: give one -p with a "
                                        "directory, or files only",
                                        paths[i]);
                goto done;
            }
    }
    /* It must not exist, so it is no input; nor may it be a file kept
     * beside one. */
    if ((rc = listed ? gt_cli_outfile_check(stf, "--stf", (const char *const *)listed, nlisted, "the input")
                     : gt_cli_outfile_check(stf, "--stf", paths, npaths, "the input")))
        goto done;
    gt_error err;
    gt_status st = listed ? gt_subtrack_combine(stf, (const char *const *)listed, nlisted, &err)
                          : gt_subtrack_combine(stf, paths, npaths, &err);
    if (st != GT_OK) {
        fprintf(stderr, "gpu-tracker: %s\n", err.msg);
        rc = gt_cli_status_exit(st);
        goto done;
    }
    rc = 0;
done:
    gt_cli_list_free(listed, nlisted);
    free(paths);
    return rc;
}
