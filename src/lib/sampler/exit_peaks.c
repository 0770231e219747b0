/* SPDX-License-Identifier: MIT */
#include "sampler/exit_peaks.h"

#include <stdlib.h>

#include "proc/taskstats.h"
#include "util/error.h"

/* Exits of the tree kept to resolve later records that name them as parent,
 * and records waiting for their parent; both rings, fixed at open. */
#define RECENT 1024
#define PENDING 1024
/* Drains a record may wait for its parent to be seen. */
#define MAX_AGE 2

typedef struct pending {
    gt_exit_record r;
    unsigned long drain; /* the drain it arrived in; 0: slot free */
} pending;

struct gt_exit_peaks {
    gt_taskstats *ts;
    pid_t main, root, self;
    uint64_t main_hwm, desc_hwm;
    int complete;
    pid_t recent[RECENT];
    size_t n_recent, recent_at;
    pending wait[PENDING];
    size_t wait_at, n_waiting; /* slots in use: none, and no scan of them */
    unsigned long drains;
    gt_member_fn is_member;
    void *ctx;
    gt_exit_taken_fn on_taken;
    void *taken_ctx;
};

gt_exit_peaks *gt_exit_peaks_new(pid_t main, pid_t root, pid_t self)
{
    gt_exit_peaks *x = calloc(1, sizeof *x);
    if (!x)
        return NULL;
    x->main = main;
    x->root = root;
    x->self = self;
    x->complete = 1;
    return x;
}

gt_status gt_exit_peaks_open(pid_t main, pid_t root, pid_t self, gt_exit_peaks **out,
                             gt_error *err)
{
    *out = gt_exit_peaks_new(main, root, self);
    if (!*out)
        return gt_err(err, GT_ERR_NOMEM, "out of memory");
    gt_status st = gt_taskstats_open(&(*out)->ts, err);
    if (st != GT_OK)
        gt_exit_peaks_close(out);
    return st;
}

static int was_recent(const gt_exit_peaks *x, pid_t pid)
{
    for (size_t i = 0; i < x->n_recent; i++)
        if (x->recent[i] == pid)
            return 1;
    return 0;
}

static void unwait(gt_exit_peaks *x, pending *p)
{
    p->drain = 0;
    x->n_waiting--;
}

static void take_record(gt_exit_peaks *x, const gt_exit_record *r)
{
    pid_t tgid = r->tgid;
    uint64_t hwm = r->hiwater_rss;
    if (x->on_taken)
        x->on_taken(x->taken_ctx, r);
    if (tgid == x->main) {
        if (hwm > x->main_hwm)
            x->main_hwm = hwm;
        return;
    }
    if (hwm > x->desc_hwm)
        x->desc_hwm = hwm;
    if (!was_recent(x, tgid)) {
        x->recent[x->recent_at] = tgid;
        x->recent_at = (x->recent_at + 1) % RECENT;
        if (x->n_recent < RECENT)
            x->n_recent++;
    }
    /* Its children's records that came first. */
    for (size_t i = 0; x->n_waiting && i < PENDING; i++) {
        pending *p = &x->wait[i];
        if (p->drain && p->r.ppid == tgid) {
            unwait(x, p);
            take_record(x, &p->r);
        }
    }
}

static int is_tracked(gt_exit_peaks *x, pid_t pid)
{
    return pid == x->main || (pid != x->self && pid != x->root && x->is_member(x->ctx, pid));
}

void gt_exit_peaks_add(gt_exit_peaks *x, const gt_exit_record *r)
{
    if ((r->tgid == x->self || r->tgid == x->root) && r->tgid != x->main)
        return; /* the tracker or the launcher, neither of them tracked */
    if (is_tracked(x, r->tgid) || r->ppid == x->root || is_tracked(x, r->ppid) ||
        was_recent(x, r->ppid)) {
        take_record(x, r);
        return;
    }
    /* Most likely another program's; the oldest waiting record gives way. */
    if (x->wait[x->wait_at].drain)
        x->n_waiting--;
    if (x->drains)
        x->n_waiting++;
    x->wait[x->wait_at] = (pending){*r, x->drains};
    x->wait_at = (x->wait_at + 1) % PENDING;
}

static void on_exit_record(void *ctx, const gt_exit_record *r)
{
    gt_exit_peaks_add(ctx, r);
}

void gt_exit_peaks_drain(gt_exit_peaks *x, gt_member_fn is_member, void *ctx)
{
    x->is_member = is_member;
    x->ctx = ctx;
    x->drains++;
    /* Records that waited: their parent may have been seen by this walk. */
    for (size_t i = 0; x->n_waiting && i < PENDING; i++) {
        pending *p = &x->wait[i];
        if (!p->drain)
            continue;
        if (is_tracked(x, p->r.ppid)) {
            unwait(x, p);
            take_record(x, &p->r);
        } else if (x->drains - p->drain > MAX_AGE) {
            unwait(x, p);
        }
    }
    if (x->ts && gt_taskstats_drain(x->ts, on_exit_record, x) < 0)
        x->complete = 0;
}

void gt_exit_peaks_on_taken(gt_exit_peaks *x, gt_exit_taken_fn fn, void *ctx)
{
    x->on_taken = fn;
    x->taken_ctx = ctx;
}

uint64_t gt_exit_peaks_main(const gt_exit_peaks *x) { return x->main_hwm; }
uint64_t gt_exit_peaks_descendants(const gt_exit_peaks *x) { return x->desc_hwm; }
int gt_exit_peaks_complete(const gt_exit_peaks *x) { return x->complete; }

void gt_exit_peaks_close(gt_exit_peaks **xp)
{
    if (!xp || !*xp)
        return;
    gt_taskstats_close(&(*xp)->ts);
    free(*xp);
    *xp = NULL;
}
