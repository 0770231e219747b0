/* SPDX-License-Identifier: MIT */
/* The CPU arithmetic of a sample: see cpu.h. */
#include "sampler/cpu.h"

#include <math.h>
#include <string.h>

void gt_cpu_interval_member(gt_cpu_interval *iv, const gt_cpu_reading *last, const gt_cpu_reading *now,
                            double born_from, int launched)
{
    double dcpu, dccpu;
    if (last && last->from_clock == now->from_clock) {
        dcpu = now->cpu - last->cpu;
        dccpu = now->ccpu - last->ccpu;
    } else if (!last && ((double)now->starttime >= born_from - 1 || (now->is_main && launched))) {
        dcpu = now->cpu; /* born during the interval */
        dccpu = now->ccpu;
        iv->churn = 1;
    } else {
        dcpu = 0; /* first seen now, or its clock changed: baseline only */
        dccpu = last ? now->ccpu - last->ccpu : 0;
    }
    if (now->is_main)
        iv->main += dcpu;
    else
        iv->desc += dcpu;
    /* Time of reaped children shows up in their parent's cutime. */
    iv->desc += dccpu;
    iv->churn |= dccpu != 0;
}

void gt_cpu_interval_exited(gt_cpu_interval *iv, const gt_cpu_reading *last)
{
    iv->desc -= last->cpu + last->ccpu;
    iv->churn = 1;
}

void gt_cpu_interval_root(gt_cpu_interval *iv, double last_ccpu, double now_ccpu)
{
    if (last_ccpu < 0) /* unknown before the first sample */
        return;
    iv->desc += now_ccpu - last_ccpu;
    iv->churn |= now_ccpu != last_ccpu;
}

void gt_cpu_interval_self(gt_cpu_interval *iv, double last_thread, double now_thread)
{
    iv->main -= now_thread - last_thread;
}

void gt_cpu_books_init(gt_cpu_books *b, double span)
{
    memset(b, 0, sizeof *b);
    gt_cpu_window_init(&b->window, span);
    b->tick = b->user_tick = 0.01; /* USER_HZ's, until the caller knows better */
}

void gt_cpu_books_add(gt_cpu_books *b, const gt_cpu_interval *iv, double t)
{
    b->int_main = iv->main;
    b->int_desc = iv->desc;
    b->cum_main += iv->main;
    b->cum_desc += iv->desc;
    if (iv->churn)
        b->churn_t = t;
}

static double clamp(double v, double hi)
{
    return v < 0 ? 0 : v > hi ? hi : v;
}

/* The cores a set running at rate keeps busy: the rate rounded up (a
 * tenth of a core of tick noise left out), at least one, at most the
 * threads seen and the bound. */
static double busy_cores(double rate, double seen, double bound)
{
    double n = ceil(rate - 0.1);
    if (n < 1)
        n = 1;
    if (n > seen)
        n = seen;
    return n < bound ? n : bound;
}

void gt_cpu_books_percents(gt_cpu_books *b, const gt_cpu_point *now, int ncores, int closing, gt_sample *out)
{
    const gt_cpu_point *from = gt_cpu_window_add(&b->window, now);
    double span = from ? now->t - from->t : 0;
    double wall = now->t - b->last_t;
    /* Until the window spans its length, the rate is tick noise: such a
     * sample has no CPU figures, except the run's last, whose rate over the
     * whole run is the best there is (otherwise a short run reads 0 %). */
    int ready = span >= b->window.span || b->window.n >= GT_CPU_WINDOW_POINTS;
    if (wall <= 0 || !from || (!ready && !(closing && span > 0)))
        return;
    /* The first sample with figures covers all the time since the first
     * sample, so the CPU time seen before the window filled belongs to an
     * interval too: its rate is the whole run's (CPU clocks are exact up to
     * one tick per thread over it), and the sum of the intervals' CPU
     * seconds is the kernel's total. */
    int since_first = !b->seen;
    double dm = b->int_main, dd = b->int_desc;
    gt_cpu_point first = {b->first_t, 0, 0, 0, 0, b->first_t_main}; /* cum_main and cum_desc start there */
    if (since_first) {
        from = &first;
        span = wall = now->t - first.t;
        dm = now->main;
        dd = now->desc;
    }
    double cores = ncores > 0 ? ncores : 1;
    double mt = now->main_threads > from->main_threads ? now->main_threads : from->main_threads;
    double dt = now->desc_threads > from->desc_threads ? now->desc_threads : from->desc_threads;
    for (unsigned i = 0; since_first && i < b->window.n; i++) { /* threads at any sample kept */
        const gt_cpu_point *q = &b->window.p[(b->window.head + i) % GT_CPU_WINDOW_POINTS];
        if (q->main_threads > mt)
            mt = q->main_threads;
        if (q->desc_threads > dt)
            dt = q->desc_threads;
    }
    /* A clock lags by a tick for each thread running when it is read, and
     * those are in the sampled counts (one created and joined between two
     * samples runs at neither reading). */
    double seen_main = mt < cores ? mt : cores, seen_desc = dt < cores ? dt : cores;
    double lag_main = b->tick * seen_main, lag_desc = b->tick * seen_desc;
    if (b->churn_t > from->t)
        dt = cores;
    /* A thread created and joined between two samples is in no sampled
     * count, but its CPU time is in the group's clock: where a task was
     * created within the span, only the cores bound the rate. */
    if (b->spawn_t > from->t)
        mt = dt = cores;
    double bm = mt < cores ? mt : cores, bd = dt < cores ? dt : cores;
    double rm = clamp((now->main - from->main) / (now->t - from->t_main) + GT_CPU_SLACK, bm);
    double rd = clamp((now->desc - from->desc) / span + GT_CPU_SLACK, bd);
    if (rm + rd > cores) /* the descendants' bound was the looser */
        rd = cores - rm;
    double m = gt_cpu_flow_credit(&b->flow_main, dm, wall, rm,
                                  gt_cpu_payout_bound(from->main_threads, now->main_threads, 0, rm, bm),
                                  bm * GT_CPU_HOLD_PER_CORE);
    /* Settled at most at the cores the set's threads keep busy, as the
     * window's rate rounds up: a spinning thread beside a sleeping one is
     * one, whatever delay it made up for (never more than the threads seen:
     * time beyond it is of threads that came and went, which the window's
     * rate pays). */
    m = gt_cpu_flow_settle(&b->flow_main, m, lag_main,
                           wall * busy_cores((now->main - from->main) / (now->t - from->t_main), seen_main, bm));
    if (bd > cores - m / wall) /* main took more than its window's rate */
        bd = cores - m / wall;
    if (rd > bd)
        rd = bd;
    double d = gt_cpu_flow_credit(&b->flow_desc, dd, wall, rd,
                                  gt_cpu_payout_bound(from->desc_threads, now->desc_threads,
                                                      b->churn_t > from->t, rd, bd),
                                  bd * GT_CPU_HOLD_PER_CORE);
    /* A reaped child's time arrives in USER_HZ ticks, rounded down. */
    int churned = b->churn_t > from->t;
    d = gt_cpu_flow_settle(&b->flow_desc, d, lag_desc + (churned ? b->user_tick : 0),
                           wall * busy_cores((now->desc - from->desc) / span, churned ? bd : seen_desc, bd));
    out->cpu_valid = 1;
    out->cpu_since_first = since_first;
    out->cpu_span = wall;
    b->seen = 1;
    out->cpu_main_sum = m / wall * 100;
    out->cpu_descendants_sum = d / wall * 100;
    out->cpu_combined_sum = out->cpu_main_sum + out->cpu_descendants_sum;
}
