/* SPDX-License-Identifier: MIT */
/* The metric table's own column named name: its index among the own
 * columns, as gt_metric_own_column() counts them (and as a gt_metric_run
 * holds their figures).  Fails the test where the table has none. */
#ifndef GT_TEST_OWN_COLUMN_H
#define GT_TEST_OWN_COLUMN_H
#include <string.h>

#include "metric/fold.h"

static int own(const char *name)
{
    const gt_metric_column *c;
    for (int k = 0; (c = gt_metric_own_column(k, NULL)) != NULL; k++)
        if (!strcmp(c->name, name))
            return k;
    fail_msg("no own column %s", name);
    return -1;
}
#endif
