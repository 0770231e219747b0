/* SPDX-License-Identifier: MIT */
#include "sampler/walk_due.h"

int gt_walk_refresh_due(double age, double cost, double budget, double refresh)
{
    double every = budget > 0 ? cost * 10 / budget : refresh;
    return age >= (every > refresh ? every : refresh);
}
