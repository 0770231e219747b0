/* SPDX-License-Identifier: MIT */
/* gpu-tracker plot --tf=FILE [--stf=FILE [--host=HOST]] -o FILE.html|FILE.svg */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "gpu_tracker.h"
#include "options.h"

static const char usage_text[] =
    "Usage: gpu-tracker plot --tf=<tracking-file> [--stf=<sub-track-file> [--host=<host>]]\n"
    "                        --output=<file.html|file.svg>\n"
    "\n"
    "Draws the tracking file as timelines of RAM, GPU RAM, CPU and GPU utilization, with the code\n"
    "blocks of the sub-tracking file as labelled spans on the time axis.  The output is one\n"
    "self-contained file: an HTML page (.html) or an SVG image (.svg).\n"
    "\n"
    "    --tf=<tracking-file>     The tracking file (.csv or .sqlite) written with --tf.\n"
    "    --stf=<sub-track-file>   A sub-tracking file (.csv or .sqlite) of the same run.\n"
    "    --host=<host>            Only the marks of this host, for a sub-tracking file of several\n"
    "                             nodes (its tracking file is that node's); --host= selects the marks\n"
    "                             written without a host.\n"
    "    -o --output=<file>       The plot to write; its extension chooses the format.\n";

static const gt_cli_opt optdefs[] = {
    {.longname = "--tf", .arg = "<tracking-file>"},
    {.longname = "--stf", .arg = "<sub-track-file>"},
    {.longname = "--output", .shortname = 'o', .arg = "<file>"},
    {.longname = "--help", .shortname = 'h'},
    {.longname = "--host", .arg = "<host>"},
};

int gt_cli_plot(int argc, char **argv)
{
    const char *tf = NULL, *stf = NULL, *output = NULL, *host = NULL;
    for (int i = 1; i < argc; i++) {
        const gt_cli_opt *d;
        const char *v;
        int rc = gt_cli_next_opt(argc, argv, &i, optdefs, sizeof optdefs / sizeof *optdefs, "gpu-tracker plot",
                                 &d, &v);
        if (rc)
            return rc;
        if (!strcmp(d->longname, "--help")) {
            fputs(usage_text, stdout);
            return 0;
        }
        if (!strcmp(d->longname, "--tf"))
            tf = v;
        else if (!strcmp(d->longname, "--stf"))
            stf = v;
        else if (!strcmp(d->longname, "--host"))
            host = v;
        else
            output = v;
    }
    if (!tf || !output)
        return gt_cli_usage_error("plot needs --tf=<tracking-file> and --output=<file.html|file.svg>; "
                                  "see 'gpu-tracker plot --help'");
    if (host && !stf)
        return gt_cli_usage_error("plot: --host selects marks of a sub-tracking file: it needs --stf");
    gt_error err;
    gt_status st = gt_plot_write_host(tf, stf, host, output, &err);
    if (st != GT_OK) {
        fprintf(stderr, "gpu-tracker: %s\n", err.msg);
        /* As 'sub-track analyze': unreadable or unwritable files and lack of
         * memory are failures; invalid arguments or file content are usage
         * errors. */
        return st == GT_ERR_IO || st == GT_ERR_NOMEM || st == GT_ERR_SYS ? GT_EXIT_FAILURE : GT_EXIT_USAGE;
    }
    return 0;
}
