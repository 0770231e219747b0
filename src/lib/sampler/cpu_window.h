/* SPDX-License-Identifier: MIT */
/* The span over which a sample's CPU percent is measured.
 *
 * The kernel's CPU counters are exact in total but late in time: the
 * whole-process CPU clock of a thread that runs without sleeping advances
 * only at the scheduler tick (1/CONFIG_HZ: 4 ms at HZ=250), and a reaped
 * child's time reaches its parent's cutime in 10 ms USER_HZ ticks.  Read
 * every millisecond, a one-thread spin shows 0 % three times, then 400 %.
 * So a sample's percent is taken over the last interval or, when that is
 * shorter than the window's span, over the intervals since the latest
 * sample at least one span old: the error is then at most one tick per
 * running thread (and per reaping parent) divided by the span.
 *
 * A window's average alone would not add up: under load the sampler is
 * late exactly when the tracked threads run, and a long interval credited
 * with the window's rate counts CPU time twice.  So each interval is
 * credited with the CPU time the kernel reported in it, at most the
 * window's rate (plus GT_CPU_SLACK) times its length; the rest is carried
 * to the following intervals, and a negative report (a tick-rounded total
 * below what was credited before) is a debt paid from later ones.  The
 * credits plus the carry always add up to the kernel's totals.  A carry
 * larger than ticks can make is the window lagging a rising rate (more
 * threads start): it is paid out at once, up to what the set's threads and
 * the cores can run, so that the intervals' CPU seconds keep up with the
 * kernel's. */
#ifndef GT_SAMPLER_CPU_WINDOW_H
#define GT_SAMPLER_CPU_WINDOW_H

/* Samples kept: at --st=0.001 a 0.2 s span needs 201.  With more samples
 * per span than this, the window is this many intervals instead. */
#define GT_CPU_WINDOW_POINTS 1024

/* What a sample knew: monotonic seconds, CPU seconds accumulated so far by
 * main and by the descendants (their reaped children included), their
 * thread counts, and the monotonic seconds just before main's clock was
 * read (t is just after it): a rate is measured from the earlier end's
 * t_main to the later end's t, so a sampler delayed between reading the
 * clock and the time can make it lower, never higher. */
typedef struct gt_cpu_point {
    double t, main, desc;
    int main_threads, desc_threads;
    double t_main;
} gt_cpu_point;

typedef struct gt_cpu_window {
    gt_cpu_point p[GT_CPU_WINDOW_POINTS];
    unsigned head, n; /* oldest kept point, count */
    double span;
} gt_cpu_window;

/* Cores: what an interval may be credited above its window's rate, so
 * that the carry drains although the rate itself is only an estimate. */
#define GT_CPU_SLACK 0.02

/* Seconds of carry per core, beyond which the carry is no tick's rounding
 * but CPU time the window's rate lags behind (a process that starts more
 * threads): one USER_HZ tick (10 ms, the coarsest of the kernel's sources)
 * per core the set may use. */
#define GT_CPU_HOLD_PER_CORE 0.01

typedef struct gt_cpu_flow {
    double carry; /* seconds reported but not yet credited; < 0: a debt */
} gt_cpu_flow;

/* Adds delta seconds reported during an interval of wall seconds and
 * returns the seconds credited to it: at most rate (cores) times wall, or,
 * while more than hold seconds would be carried, up to bound (cores, the
 * most the set can run: its threads, the machine's cores) times wall, down
 * to hold. */
double gt_cpu_flow_credit(gt_cpu_flow *f, double delta, double wall, double rate, double bound, double hold);

/* Keeps what is carried within what the clocks' lateness explains (tol
 * seconds: a tick per thread that may have run, whose time the kernel had
 * not yet added to the clock), crediting the rest now, up to most seconds
 * in all (what the threads and cores can run in the interval).  Without
 * it, CPU time the window's rate had not let through at a burst would be
 * credited to the intervals after it, in which the process may sleep.
 * Returns the interval's credit. */
double gt_cpu_flow_settle(gt_cpu_flow *f, double credit, double tol, double most);

/* The bound a credit may reach above the window's rate: a carry is paid
 * out above the rate only while the window lags a rise it began before,
 * threads started (more now than at the window's start) or processes came
 * (churned); where the same threads ran throughout, the rate stands, so a
 * spinning thread beside a sleeping one never reads more than one core
 * because it was slowed down a while ago.  Returns bound or rate. */
double gt_cpu_payout_bound(int threads_from, int threads_now, int churned, double rate, double bound);

void gt_cpu_window_init(gt_cpu_window *w, double span);

/* Adds the point of a new sample (t later than every point before) and
 * returns the point its percents are measured from: the latest one at
 * least span older, or the oldest kept while none is; NULL for the first
 * point.  The pointer is valid until the next call. */
const gt_cpu_point *gt_cpu_window_add(gt_cpu_window *w, const gt_cpu_point *now);
#endif
