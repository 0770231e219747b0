/* gpu-tracker sub-track analyze --tf=FILE --stf=FILE [-o FILE] [-f text|json] */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "gpu_tracker.h"
#include "subopt.h"

static const char usage_text[] =
    "Usage: gpu-tracker sub-track analyze --tf=<tracking-file> --stf=<sub-track-file> "
    "[--output=<output>] [--format=<format>]\n"
    "\n"
    "Summary statistics of the tracking file, overall and within the calls of every code block\n"
    "of the sub-tracking file (CSV or SQLite).\n"
    "\n"
    "    --tf=<tracking-file>     The tracking file (.csv or .sqlite) written with --tf.\n"
    "    --stf=<sub-track-file>   The sub-tracking file (.csv or .sqlite).\n"
    "    -o --output=<output>     Write the results to this file instead of the screen.\n"
    "    -f --format=<format>     'text' (default) or 'json' (the input of 'sub-track compare').\n";

static int exit_status(gt_status st)
{
    return st == GT_ERR_IO || st == GT_ERR_NOMEM || st == GT_ERR_SYS ? GT_EXIT_FAILURE
                                                                       : GT_EXIT_USAGE;
}

int gt_cli_subtrack_analyze(int argc, char **argv)
{
    const char *tf = NULL, *stf = NULL, *output = NULL, *format = "text";
    for (int i = 1; i < argc; i++) {
        int m;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(usage_text, stdout);
            return 0;
        }
        if ((m = gt_subopt_value(argc, argv, &i, "--tf", 0, &tf)) ||
            (m = gt_subopt_value(argc, argv, &i, "--stf", 0, &stf)) ||
            (m = gt_subopt_value(argc, argv, &i, "--output", 'o', &output)) ||
            (m = gt_subopt_value(argc, argv, &i, "--format", 'f', &format))) {
            if (m < 0)
                return GT_EXIT_USAGE;
            continue;
        }
        return gt_subopt_usage_error("analyze", "unknown argument '%s'; see --help", argv[i]);
    }
    if (!tf || !stf)
        return gt_subopt_usage_error("analyze", "needs --tf=<tracking-file> and --stf=<sub-track-file>");
    gt_format fmt;
    if (!strcmp(format, "text"))
        fmt = GT_FORMAT_TEXT;
    else if (!strcmp(format, "json"))
        fmt = GT_FORMAT_JSON;
    else
        return gt_subopt_usage_error("analyze", "invalid format '%s': must be 'text' or 'json'",
                                     format);

    gt_results *r = NULL;
    gt_error err;
    gt_status st = gt_analyze(tf, stf, &r, &err);
    if (st != GT_OK) {
        fprintf(stderr, "gpu-tracker: %s\n", err.msg);
        return exit_status(st);
    }
    FILE *out = stdout;
    if (output && !(out = fopen(output, "w"))) {
        perror(output);
        gt_results_free(&r);
        return GT_EXIT_FAILURE;
    }
    st = gt_results_write(r, fmt, out);
    if (out != stdout ? fclose(out) != 0 : fflush(out) != 0)
        st = GT_ERR_IO;
    gt_results_free(&r);
    if (st != GT_OK) {
        fprintf(stderr, "gpu-tracker: cannot write the results to %s\n",
                output ? output : "the screen");
        return GT_EXIT_FAILURE;
    }
    return 0;
}
