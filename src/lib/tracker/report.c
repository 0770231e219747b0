/* SPDX-License-Identifier: MIT */
/* The usage as the report the library writes, and one figure of it by its
 * path in the JSON: the way of reading results that assumes no struct
 * layout, so that a figure added to the report reaches every program
 * without a struct version. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpu_tracker.h"
#include "report/usage_write.h"
#include "tracker/owner.h"
#include "util/error.h"

gt_status gt_tracker_report(gt_tracker *t, gt_format fmt, char **out, gt_error *err)
{
    if (!out)
        return gt_err(err, GT_ERR_INVALID, "no place for the report: out is NULL");
    *out = NULL;
    if (fmt != GT_FORMAT_TEXT && fmt != GT_FORMAT_JSON)
        return gt_err(err, GT_ERR_INVALID, "report format %d is neither GT_FORMAT_TEXT nor GT_FORMAT_JSON", (int)fmt);
    /* In this library's own struct version: every figure it has, whatever
     * the version of the program's gt_options. */
    gt_usage u;
    gt_metric_run own;
    gt_status st = gt_tracker_results(t, &u, &own, err);
    if (st != GT_OK)
        return st;
    if ((st = gt_report_string(&u, &own, fmt, out)) != GT_OK)
        return gt_err(err, st, "cannot write the report: %s", gt_strerror(st));
    return GT_OK;
}

/* The member of the report at path (keys joined by '.'), or NULL with a
 * message naming the first key that is not there. */
static const cJSON *find(const cJSON *root, const char *path, gt_error *err)
{
    const cJSON *node = root;
    const char *key = path;
    for (;;) {
        const char *dot = strchr(key, '.');
        size_t len = dot ? (size_t)(dot - key) : strlen(key);
        if (len == 0) {
            gt_err(err, GT_ERR_INVALID, "figure '%s': an empty key (keys are joined by one '.')", path);
            return NULL;
        }
        const cJSON *child = NULL;
        if (cJSON_IsObject(node))
            for (child = node->child; child; child = child->next)
                if (child->string && strlen(child->string) == len && !memcmp(child->string, key, len))
                    break;
        if (!child) {
            gt_err(err, GT_ERR_INVALID, "figure '%s': the report has no '%.*s'", path, (int)(key - path + len),
                   path);
            return NULL;
        }
        if (!dot)
            return child;
        node = child;
        key = dot + 1;
    }
}

gt_status gt_tracker_figure(gt_tracker *t, const char *path, double *value, gt_error *err)
{
    if (!value)
        return gt_err(err, GT_ERR_INVALID, "no place for the figure: value is NULL");
    *value = NAN;
    if (!path)
        return gt_err(err, GT_ERR_INVALID, "no figure named: path is NULL");
    char *json = NULL;
    gt_status st = gt_tracker_report(t, GT_FORMAT_JSON, &json, err);
    if (st != GT_OK)
        return st;
    cJSON *root = cJSON_Parse(json);
    gt_string_free(&json);
    if (!root) /* the library's own JSON: only memory can fail it */
        return gt_err(err, GT_ERR_NOMEM, "out of memory reading the report");
    const cJSON *node = find(root, path, err);
    if (!node)
        st = GT_ERR_INVALID;
    else if (cJSON_IsNumber(node))
        *value = node->valuedouble;
    else if (cJSON_IsBool(node))
        *value = cJSON_IsTrue(node) ? 1.0 : 0.0;
    else if (!cJSON_IsNull(node)) /* null: unavailable, NaN */
        st = gt_err(err, GT_ERR_INVALID, "figure '%s' is not a number but %s", path,
                    cJSON_IsString(node) ? "text" : "a section of the report");
    cJSON_Delete(root);
    return st;
}
