/* SPDX-License-Identifier: MIT */
/* gpu-tracker sub-track analyze --tf=FILE --stf=FILE [--host=NAME] [-o FILE] [-f text|json] */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "gpu_tracker.h"
#include "option_tables.h"
#include "options.h"
#include "outfile.h"

static const char usage_head[] =
    "Usage: gpu-tracker sub-track analyze --tf=<tracking-file> --stf=<sub-track-file> "
    "[--host=<name>] [--output=<output>] [--format=<format>]\n"
    "\n"
    "Summary statistics of the tracking file, overall and within the calls of every code block\n"
    "of the sub-tracking file (CSV or SQLite).\n"
    "\n";

typedef struct settings {
    const char *tf, *stf, *host, *output, *format;
} settings;

#define STRING(member) .store = GT_CLI_STRING, .field = offsetof(settings, member)

/* In --help's order; --help lists the entries with help. */
const gt_cli_opt gt_cli_analyze_opts[] = {
    {.longname = "--tf", STRING(tf), .arg = "<tracking-file>",
     .help = "The tracking file (.csv or .sqlite) written with --tf."},
    {.longname = "--stf", STRING(stf), .arg = "<sub-track-file>", .help = "The sub-tracking file (.csv or .sqlite)."},
    {.longname = "--host", STRING(host), .arg = "<name>",
     .help = "Only the marks of this host, for a sub-tracking file combined from several nodes (its marks carry "
             "a 'host' column); --tf must be that host's tracking file. Marks of several hosts are refused "
             "without it; --host= (empty) selects the marks written without a host."},
    {.longname = "--output", .shortname = 'o', STRING(output), .arg = "<output>",
     .help = "Write the results to this file instead of the screen."},
    {.longname = "--format", .shortname = 'f', STRING(format), .arg = "<format>",
     .help = "'text' (default) or 'json' (the input of 'sub-track compare')."},
    {.longname = "--help", .shortname = 'h'},
};

const size_t gt_cli_analyze_n_opts = sizeof gt_cli_analyze_opts / sizeof *gt_cli_analyze_opts;

int gt_cli_analyze_usage(FILE *out)
{
    fputs(usage_head, out);
    return gt_cli_print_opts(out, gt_cli_analyze_opts, gt_cli_analyze_n_opts);
}

int gt_cli_subtrack_analyze(int argc, char **argv)
{
    settings s = {.format = "text"};
    int rc = gt_cli_parse(argc, argv, gt_cli_analyze_opts, gt_cli_analyze_n_opts, "gpu-tracker sub-track analyze",
                          gt_cli_analyze_usage, &s, NULL);
    if (rc)
        return rc < 0 ? 0 : rc;
    const char *tf = s.tf, *stf = s.stf, *host = s.host, *output = s.output, *format = s.format;
    if (!tf || !stf)
        return gt_cli_usage_error("sub-track analyze needs --tf=<tracking-file> and --stf=<sub-track-file>");
    gt_format fmt;
    if (!strcmp(format, "text"))
        fmt = GT_FORMAT_TEXT;
    else if (!strcmp(format, "json"))
        fmt = GT_FORMAT_JSON;
    else if (!strcmp(format, "pickle"))
        return gt_cli_usage_error("sub-track analyze: --format=pickle is written by `python3 -m gpu_tracker "
                                  "sub-track analyze`; this program writes 'text' or 'json' (JSON is what "
                                  "'sub-track compare' reads)");
    else
        return gt_cli_usage_error("sub-track analyze: invalid format '%s': must be 'text' or 'json'",
                                  format);

    const char *inputs[] = {tf, stf};
    if (output && (rc = gt_cli_outfile_check(output, "--output", inputs, 2, "the input")))
        return rc;

    gt_results *r = NULL;
    gt_error err;
    gt_analyze_options ao = GT_ANALYZE_OPTIONS_INIT;
    ao.sub_tracking_file = stf;
    ao.host = host;
    gt_status st = gt_analyze(tf, &ao, &r, &err);
    if (st != GT_OK) {
        fprintf(stderr, "gpu-tracker: %s\n", err.msg);
        return gt_cli_status_exit(st);
    }
    gt_cli_outfile out = {0};
    if (output && gt_cli_outfile_open(output, &out) != 0) {
        gt_results_free(&r);
        return GT_EXIT_FAILURE;
    }
    FILE *f = out.f ? out.f : stdout;
    errno = 0;
    st = gt_results_write(r, fmt, f);
    if (st == GT_OK && fmt == GT_FORMAT_JSON && fputc('\n', f) == EOF) /* text ends its last line already */
        st = GT_ERR_IO;
    if (st == GT_OK && !out.f && fflush(stdout) != 0)
        st = GT_ERR_IO;
    gt_results_free(&r);
    if (st != GT_OK) {
        fprintf(stderr, "gpu-tracker: cannot write the results to %s: %s\n", output ? output : "the screen",
                gt_cli_write_reason(st));
        gt_cli_outfile_discard(&out);
        return GT_EXIT_FAILURE;
    }
    return gt_cli_outfile_commit(&out);
}
