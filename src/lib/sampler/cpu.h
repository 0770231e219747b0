/* SPDX-License-Identifier: MIT */
/* The CPU arithmetic of a sample, over readings only (no /proc, no clock):
 * each process's CPU seconds in the interval between two samples, summed
 * for main and the descendants, and the interval's percents, credited
 * within the window's rate (see cpu_window.h for why). */
#ifndef GT_SAMPLER_CPU_H
#define GT_SAMPLER_CPU_H
#include <stdint.h>

#include "sampler/cpu_window.h"
#include "sample.h"

/* One process's CPU time as a sample read it. */
typedef struct gt_cpu_reading {
    int is_main;
    uint64_t starttime; /* ticks after boot */
    /* Seconds: its own threads' (nanoseconds from its CPU clock where
     * from_clock, else utime+stime ticks), its reaped children's
     * (cutime+cstime: ticks only). */
    double cpu, ccpu;
    int from_clock;
} gt_cpu_reading;

/* The CPU seconds of one interval, summed process by process (start at
 * zero); churn: processes came or went, or reaped children's time
 * arrived, so the descendants' threads do not bound their rate. */
typedef struct gt_cpu_interval {
    double main, desc;
    int churn;
} gt_cpu_interval;

/* Adds a member of this sample, now, to iv; last: the same process (PID
 * and starttime) at the last sample, NULL where it was no member then.
 * Its delta is its own time since last, to main's or the descendants'
 * sum, and its reaped children's since last, to the descendants' (an
 * exited member's time arrives through its reaper's cutime).  A process
 * not seen before counts with all its time where it was born within the
 * interval (starttime from born_from - 1 ticks on) or where it is main and
 * launched (held by the caller until the sampler was ready); otherwise, or
 * where its clock changed (clock or ticks), its reading is a baseline
 * only. */
void gt_cpu_interval_member(gt_cpu_interval *iv, const gt_cpu_reading *last, const gt_cpu_reading *now,
                            double born_from, int launched);

/* A descendant of the last sample that exited (reaped by a member or by
 * the root): its final time arrived through cutime, so the part earlier
 * intervals counted is taken out (a total may step back by a tick's
 * rounding, which the window absorbs). */
void gt_cpu_interval_exited(gt_cpu_interval *iv, const gt_cpu_reading *last);

/* The root's reaped children's time (the root itself, the launcher, is not
 * tracked) from last_ccpu to now_ccpu, seconds; last_ccpu below 0: unknown,
 * nothing added. */
void gt_cpu_interval_root(gt_cpu_interval *iv, double last_ccpu, double now_ccpu);

/* Takes the sampling thread's CPU time from last_thread to now_thread
 * seconds out of main's (when the tracked process is the sampler's own). */
void gt_cpu_interval_self(gt_cpu_interval *iv, double last_thread, double now_thread);

/* What the CPU percents are measured from, kept across samples. */
typedef struct gt_cpu_books {
    gt_cpu_window window;
    gt_cpu_flow flow_main, flow_desc;
    double cum_main, cum_desc; /* CPU seconds since the first sample */
    double int_main, int_desc; /* in the last interval */
    double churn_t;            /* t of the latest interval with churn */
    /* t of the latest sample before which a task may have been created (the
     * last PID moved, or is unknown): threads that came and went between
     * two samples are in no sampled thread count.  Set by the caller. */
    double spawn_t;
    double first_t, first_t_main; /* the first sample's t and t_main (caller) */
    double last_t;                /* the last sample's t (caller) */
    int seen;                     /* some sample so far had CPU figures */
    /* Seconds a running thread's time may lag in its process's clock (the
     * scheduler tick, or a USER_HZ tick where CPU clocks are not read), and
     * a USER_HZ tick (a reaped child's rounding).  0.01 s each until the
     * caller sets them. */
    double tick, user_tick;
} gt_cpu_books;

/* Empty books whose window spans span seconds. */
void gt_cpu_books_init(gt_cpu_books *b, double span);

/* Closes the interval that ends at t: iv's seconds become the last
 * interval's and are added to the totals. */
void gt_cpu_books_add(gt_cpu_books *b, const gt_cpu_interval *iv, double t);

/* The CPU percents of the interval that ends at now (its t after
 * b->last_t; main and desc: b's totals) into out (cpu_valid and the
 * cpu_*_sum figures, cpu_span, cpu_since_first), or none while the window
 * is shorter than its span, except at the run's last sample (closing).
 * What the kernel reported in the interval is credited at most at the
 * window's rate, or at what could have run while more than ticks'
 * rounding is carried and threads started since the window's start: main
 * by its threads, the descendants by theirs (by all ncores when processes
 * came or went, whose threads are unknown), and main + descendants by the
 * cores.  What stays carried is kept within a tick per thread seen (the
 * clocks' lateness): beyond it, it is credited at once, up to the cores the
 * set keeps busy (gt_cpu_flow_settle), so that rows after a burst in which
 * nothing runs are not credited with it, and a run's last row leaves little
 * uncredited.  The first sample with figures covers the whole run so far. */
void gt_cpu_books_percents(gt_cpu_books *b, const gt_cpu_point *now, int ncores, int closing, gt_sample *out);
#endif
