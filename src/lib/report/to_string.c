/* SPDX-License-Identifier: MIT */
/* Reports as malloc'd strings, for bindings (Python's ctypes) that cannot
 * hand the library a FILE *.  Each wraps the matching *_write function, so
 * the text is byte for byte what the CLI prints. */
#include <stdio.h>
#include <stdlib.h>

#include "gpu_tracker.h"
#include "report/usage_write.h"

enum report { USAGE, RESULTS, COMPARISON, REPORT };

/* A tracker's report: its usage and its own metrics (gt_report_string). */
typedef struct report_of {
    const gt_usage *u;
    const gt_metric_run *own;
} report_of;

static gt_status write_report(enum report kind, const void *obj, gt_format fmt, FILE *f)
{
    switch (kind) {
    case USAGE: return gt_usage_write(obj, fmt, f);
    case RESULTS: return gt_results_write(obj, fmt, f);
    case COMPARISON: return gt_comparison_write(obj, fmt, f);
    case REPORT: {
        const report_of *r = obj;
        return gt_report_write(r->u, r->own, NULL, fmt, f);
    }
    }
    return GT_ERR_INVALID;
}

static gt_status to_string(enum report kind, const void *obj, gt_format fmt, char **out)
{
    char *buf = NULL;
    size_t len = 0;
    if (!out)
        return GT_ERR_INVALID;
    *out = NULL;
    if (!obj)
        return GT_ERR_INVALID;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return GT_ERR_NOMEM;
    gt_status st = write_report(kind, obj, fmt, f);
    /* fclose flushes into buf; a failure there means the buffer could not grow. */
    if (fclose(f) != 0 && st == GT_OK)
        st = GT_ERR_NOMEM;
    if (st != GT_OK) {
        free(buf);
        return st;
    }
    *out = buf;
    return GT_OK;
}

gt_status gt_usage_string(const gt_usage *u, gt_format fmt, char **out)
{
    return to_string(USAGE, u, fmt, out);
}

gt_status gt_report_string(const gt_usage *u, const gt_metric_run *own, gt_format fmt, char **out)
{
    const report_of r = {u, own};
    return to_string(REPORT, u ? &r : NULL, fmt, out);
}

gt_status gt_results_string(const gt_results *r, gt_format fmt, char **out)
{
    return to_string(RESULTS, r, fmt, out);
}

gt_status gt_comparison_string(const gt_comparison *c, gt_format fmt, char **out)
{
    return to_string(COMPARISON, c, fmt, out);
}

void gt_string_free(char **s)
{
    if (!s)
        return;
    free(*s);
    *s = NULL;
}
