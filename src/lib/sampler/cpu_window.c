/* SPDX-License-Identifier: MIT */
#include "sampler/cpu_window.h"

#include <stddef.h>

void gt_cpu_window_init(gt_cpu_window *w, double span)
{
    w->head = w->n = 0;
    w->span = span;
}

static const gt_cpu_point *at(const gt_cpu_window *w, unsigned i)
{
    return &w->p[(w->head + i) % GT_CPU_WINDOW_POINTS];
}

const gt_cpu_point *gt_cpu_window_add(gt_cpu_window *w, const gt_cpu_point *now)
{
    /* Points older than the latest one a span back are never needed again. */
    while (w->n >= 2 && now->t - at(w, 1)->t >= w->span) {
        w->head = (w->head + 1) % GT_CPU_WINDOW_POINTS;
        w->n--;
    }
    if (w->n == GT_CPU_WINDOW_POINTS) { /* full: the window is shorter */
        w->head = (w->head + 1) % GT_CPU_WINDOW_POINTS;
        w->n--;
    }
    w->p[(w->head + w->n) % GT_CPU_WINDOW_POINTS] = *now;
    w->n++;
    return w->n >= 2 ? at(w, 0) : NULL;
}

double gt_cpu_flow_credit(gt_cpu_flow *f, double delta, double wall, double rate, double bound, double hold)
{
    double due = f->carry + delta;
    double cap = wall > 0 && rate > 0 ? wall * rate : 0;
    double credit = due < 0 ? 0 : due > cap ? cap : due;
    if (due - credit > hold && wall > 0 && bound > rate) {
        double most = wall * bound;
        credit = due - hold < most ? due - hold : most;
    }
    f->carry = due - credit;
    return credit;
}

double gt_cpu_flow_settle(gt_cpu_flow *f, double credit, double tol, double most)
{
    double more = f->carry - tol;
    if (more > most - credit)
        more = most - credit;
    if (more <= 0)
        return credit;
    f->carry -= more;
    return credit + more;
}

double gt_cpu_payout_bound(int threads_from, int threads_now, int churned, double rate, double bound)
{
    return threads_now > threads_from || churned ? bound : rate;
}
