/* SPDX-License-Identifier: MIT */
/* Each GPU of a merged job's nodes, from the files' --per-gpu rows (see
 * merge.h). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/merge.h"
#include "store/table.h"
#include "util/error.h"
#include "util/units.h"

/* The node's GPU of that index and UUID, added where it has none yet;
 * NULL when out of memory. */
static gt_merge_gpu *node_gpu(gt_merge_node *nd, int index, const char *uuid)
{
    for (size_t k = 0; k < nd->ngpus; k++)
        if (*uuid ? !strcmp(nd->gpus[k].uuid, uuid) : !*nd->gpus[k].uuid && nd->gpus[k].index == index)
            return &nd->gpus[k];
    gt_merge_gpu *more = realloc(nd->gpus, (nd->ngpus + 1) * sizeof *more);
    if (!more)
        return NULL;
    nd->gpus = more;
    gt_merge_gpu *d = &nd->gpus[nd->ngpus++];
    *d = (gt_merge_gpu){.index = index, .mem_peak_bytes = NAN, .capacity_bytes = NAN};
    snprintf(d->uuid, sizeof d->uuid, "%s", uuid);
    return d;
}

/* Adds file p's per-GPU rows (--per-gpu), where it has them, into its node's
 * GPUs: one GPU per UUID whichever files saw it, its rows pooled. */
gt_status gt_merge_add_gpu_rows(gt_merge *m, gt_merge_part *p, gt_ram_unit unit, gt_error *err)
{
    static const char *const cols[] = {"gpu_index", "uuid", "used_gpu_ram", "utilization_percent", "?total_gpu_ram",
                                       NULL};
    static const char *const text[] = {"uuid", NULL};
    gt_merge_node *nd = &m->nodes[p->node];
    gt_table *t = NULL;
    gt_status st = gt_table_read_columns(p->path, GT_TABLE_GPUS, cols, text, &t, err);
    if (st != GT_OK || !t)
        return st;
    size_t n = gt_table_nrows(t);
    int total = gt_table_find(t, "total_gpu_ram");
    double *v[4] = {0};
    for (int c = 0; c < 4; c++)
        if (!(v[c] = malloc((n ? n : 1) * sizeof(double)))) {
            st = gt_err(err, GT_ERR_NOMEM, "out of memory reading '%s'", gt_table_path(t));
            goto done;
        }
    gt_table_copy_numbers(t, 0, 0, n, v[0]);
    gt_table_copy_numbers(t, 2, 0, n, v[1]);
    gt_table_copy_numbers(t, 3, 0, n, v[2]);
    for (size_t r = 0; r < n; r++)
        v[3][r] = total >= 0 ? gt_table_number(t, total, r) : NAN;
    /* An index that is an int, memory and percents never negative: as the
     * main table's figures are checked. */
    static const char *const names[4] = {"gpu_index", "used_gpu_ram", "utilization_percent", "total_gpu_ram"};
    for (int c = 0; c < 4 && st == GT_OK; c++)
        st = gt_table_check_range(gt_table_path(t), names[c], v[c], n, 0, c ? GT_TABLE_MAX_ABS_VALUE : INT_MAX, c != 0,
                                  err);
    if (st != GT_OK)
        goto done;
    double bytes = 1 / gt_ram_in_unit(1.0, unit);
    unsigned char *seen = NULL;
    for (size_t r = 0; r < n; r++) {
        gt_merge_gpu *d = node_gpu(nd, (int)v[0][r], gt_table_text(t, 1, r));
        if (!d) {
            st = gt_err(err, GT_ERR_NOMEM, "out of memory reading '%s'", gt_table_path(t));
            goto done;
        }
        if (!isnan(v[2][r])) {
            d->n_util++;
            d->sum_util += v[2][r];
        }
        if (!isnan(v[1][r]) && (isnan(d->mem_peak_bytes) || round(v[1][r] * bytes) > d->mem_peak_bytes))
            d->mem_peak_bytes = round(v[1][r] * bytes);
        if (!isnan(v[3][r]) && v[3][r] > 0)
            d->capacity_bytes = round(v[3][r] * bytes);
    }
    /* Each GPU counts the files that name it once. */
    if (nd->ngpus && !(seen = calloc(nd->ngpus, 1))) {
        st = gt_err(err, GT_ERR_NOMEM, "out of memory reading '%s'", gt_table_path(t));
        goto done;
    }
    for (size_t r = 0; r < n; r++)
        seen[node_gpu(nd, (int)v[0][r], gt_table_text(t, 1, r)) - nd->gpus] = 1;
    for (size_t k = 0; k < nd->ngpus; k++)
        nd->gpus[k].files += seen[k];
    free(seen);
    p->has_gpu_table = 1;
done:
    for (int c = 0; c < 4; c++)
        free(v[c]);
    gt_table_free(&t);
    return st;
}
