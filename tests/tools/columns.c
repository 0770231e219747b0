/* SPDX-License-Identifier: MIT */
/* Prints the tracking file's timepoint columns as the metric table lays
 * them out (metric/metric.h), comma-separated as a CSV header holds them,
 * so that tests compare a file against the table instead of spelling its
 * count or its places: a new row then changes no test but its own.
 *
 *   columns [--energy] [NAME...]
 *
 * --energy: with the energy columns, as a run that measures energy writes
 * them (without: the columns every file has).  With NAMEs, prints instead
 * each one's place, 1 for the first column (awk's $N), one per line; a
 * name the layout lacks is an error (exit 1).  The power columns that
 * follow the energy columns are no part of the table (the RAPL domains
 * and GPUs present name them): a test appends the ones it expects.
 *
 * It reads the table through gt_metric_next, not through the store's
 * gt_store_column_name, so a store that writes the table's columns in
 * another order differs from what this prints. */
#include <stdio.h>
#include <string.h>

#include "metric/metric.h"

/* The place of name (1 ..), 0 where the layout lacks it. */
static int place_of(const char *name, int energy)
{
    gt_metric_iter it = {0};
    const gt_metric *m;
    const gt_metric_column *c;
    for (int i = 1; (c = gt_metric_next(&it, &m)) != NULL; i++) {
        if (m->place == GT_METRIC_ENERGY && !energy)
            break;
        if (!strcmp(c->name, name))
            return i;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int energy = 0, first = 1;
    if (argc > first && !strcmp(argv[first], "--energy")) {
        energy = 1;
        first++;
    }
    if (gt_metric_check()) {
        fprintf(stderr, "columns: the metric table breaks the layout's rules: %s\n", gt_metric_check());
        return 1;
    }
    if (argc > first) {
        for (int i = first; i < argc; i++) {
            int p = place_of(argv[i], energy);
            if (!p) {
                fprintf(stderr, "columns: no column '%s' in the tracking file%s\n", argv[i],
                        energy ? "" : " without energy (--energy)");
                return 1;
            }
            printf("%d\n", p);
        }
        return 0;
    }
    gt_metric_iter it = {0};
    const gt_metric *m;
    const gt_metric_column *c;
    for (int i = 0; (c = gt_metric_next(&it, &m)) != NULL && (energy || m->place != GT_METRIC_ENERGY); i++)
        printf("%s%s", i ? "," : "", c->name);
    printf("\n");
    return ferror(stdout) || fflush(stdout) ? 1 : 0;
}
