/* SPDX-License-Identifier: MIT */
/* gpu-tracker plot --tf=FILE [--stf=FILE [--host=HOST]] -o FILE.html|FILE.svg */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "gpu_tracker.h"
#include "option_tables.h"
#include "options.h"
#include "outfile.h"

static const char usage_head[] =
    "Usage: gpu-tracker plot --tf=<tracking-file> [--stf=<sub-track-file> [--host=<host>]]\n"
    "                        --output=<file.html|file.svg>\n"
    "\n"
    "Draws the tracking file as timelines of RAM, GPU RAM, CPU and GPU utilization, with the code\n"
    "blocks of the sub-tracking file as labelled spans on the time axis.  The output is one\n"
    "self-contained file: an HTML page (.html) or an SVG image (.svg).\n"
    "\n";

typedef struct settings {
    const char *tf, *stf, *host, *output;
} settings;

#define STRING(member) .store = GT_CLI_STRING, .field = offsetof(settings, member)

/* In --help's order; --help lists the entries with help. */
const gt_cli_opt gt_cli_plot_opts[] = {
    {.longname = "--tf", STRING(tf), .arg = "<tracking-file>",
     .help = "The tracking file (.csv or .sqlite) written with --tf."},
    {.longname = "--stf", STRING(stf), .arg = "<sub-track-file>",
     .help = "A sub-tracking file (.csv or .sqlite) of the same run."},
    {.longname = "--host", STRING(host), .arg = "<host>",
     .help = "Only the code blocks of this host's marks, for a sub-tracking file of several nodes (the tracking "
             "file must be that host's); without it such a file is refused, and a host with no marks is refused "
             "with the file's hosts named. --host= (empty) selects the marks written without a host."},
    {.longname = "--output", .shortname = 'o', STRING(output), .arg = "<file>",
     .help = "The plot to write; its extension chooses the format."},
    {.longname = "--help", .shortname = 'h'},
};

const size_t gt_cli_plot_n_opts = sizeof gt_cli_plot_opts / sizeof *gt_cli_plot_opts;

int gt_cli_plot_usage(FILE *out)
{
    fputs(usage_head, out);
    return gt_cli_print_opts(out, gt_cli_plot_opts, gt_cli_plot_n_opts);
}

int gt_cli_plot(int argc, char **argv)
{
    settings s = {0};
    int rc = gt_cli_parse(argc, argv, gt_cli_plot_opts, gt_cli_plot_n_opts, "gpu-tracker plot", gt_cli_plot_usage,
                          &s, NULL);
    if (rc)
        return rc < 0 ? 0 : rc;
    const char *tf = s.tf, *stf = s.stf, *output = s.output, *host = s.host;
    if (!tf || !output)
        return gt_cli_usage_error("plot needs --tf=<tracking-file> and --output=<file.html|file.svg>; "
                                  "see 'gpu-tracker plot --help'");
    if (host && !stf)
        return gt_cli_usage_error("plot: --host selects marks of a sub-tracking file: it needs --stf");
    const char *inputs[] = {tf, stf};
    rc = gt_cli_outfile_check(output, "--output", inputs, stf ? 2 : 1, "the input");
    if (rc)
        return rc;
    gt_error err;
    gt_plot_options po = GT_PLOT_OPTIONS_INIT;
    po.sub_tracking_file = stf;
    po.host = host;
    gt_status st = gt_plot_write(tf, output, &po, &err);
    if (st != GT_OK) {
        fprintf(stderr, "gpu-tracker: %s\n", err.msg);
        return gt_cli_status_exit(st);
    }
    return 0;
}
