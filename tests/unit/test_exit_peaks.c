/* SPDX-License-Identifier: MIT */
/* Attribution of exit records to the tracked tree: records of the machine's
 * other processes are left out, a child's record that arrives before its
 * parent's is kept until the parent is known, main's own figure is apart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sampler/exit_peaks.h"

#define MAIN 100
#define ROOT 50
#define SELF 50
#define MB (1024 * 1024)

/* The tree's members at the last walk. */
static const pid_t *members;
static size_t n_members;

static int is_member(void *ctx, pid_t pid)
{
    (void)ctx;
    for (size_t i = 0; i < n_members; i++)
        if (members[i] == pid)
            return 1;
    return 0;
}

static void add(gt_exit_peaks *x, pid_t tgid, pid_t ppid, uint64_t mib)
{
    gt_exit_record r = {.pid = tgid, .tgid = tgid, .ppid = ppid, .hiwater_rss = mib * MB};
    gt_exit_peaks_add(x, &r);
}

static void test_attribution(void **state)
{
    (void)state;
    static const pid_t walk[] = {MAIN, 101};
    members = walk;
    n_members = 2;
    gt_exit_peaks *x = gt_exit_peaks_new(MAIN, ROOT, SELF);
    assert_non_null(x);
    gt_exit_peaks_drain(x, is_member, NULL);
    add(x, 900, 1, 500);      /* another user's process */
    add(x, SELF, 1, 400);     /* the tracker itself */
    add(x, 101, MAIN, 30);    /* a member */
    assert_true(gt_exit_peaks_descendants(x) == 30 * MB);
    /* 201 forked and exited between walks; its child 202 exits first. */
    add(x, 202, 201, 70);
    assert_true(gt_exit_peaks_descendants(x) == 30 * MB);
    add(x, 201, MAIN, 20);
    assert_true(gt_exit_peaks_descendants(x) == 70 * MB);
    /* An orphan re-parented to the root (the subreaper). */
    add(x, 301, ROOT, 80);
    assert_true(gt_exit_peaks_descendants(x) == 80 * MB);
    /* A child of an exited member whose record came earlier. */
    add(x, 203, 201, 90);
    assert_true(gt_exit_peaks_descendants(x) == 90 * MB);
    /* Main's own exit is main's figure, not a descendant's. */
    add(x, MAIN, ROOT, 120);
    assert_true(gt_exit_peaks_main(x) == 120 * MB);
    assert_true(gt_exit_peaks_descendants(x) == 90 * MB);
    assert_int_equal(gt_exit_peaks_complete(x), 1);
    gt_exit_peaks_close(&x);
    assert_null(x);
}

/* A waiting record is settled by the next walk that sees its parent, and
 * dropped after two drains without it. */
static void test_waiting(void **state)
{
    (void)state;
    static const pid_t walk1[] = {MAIN};
    static const pid_t walk2[] = {MAIN, 400};
    gt_exit_peaks *x = gt_exit_peaks_new(MAIN, ROOT, SELF);
    members = walk1;
    n_members = 1;
    gt_exit_peaks_drain(x, is_member, NULL);
    add(x, 401, 400, 60); /* 400 born after the walk */
    add(x, 501, 500, 99); /* 500 is not ours */
    assert_true(gt_exit_peaks_descendants(x) == 0);
    members = walk2;
    n_members = 2;
    gt_exit_peaks_drain(x, is_member, NULL);
    assert_true(gt_exit_peaks_descendants(x) == 60 * MB);
    gt_exit_peaks_drain(x, is_member, NULL);
    gt_exit_peaks_drain(x, is_member, NULL);
    gt_exit_peaks_drain(x, is_member, NULL);
    add(x, 500, MAIN, 1); /* too late: 501's record is gone */
    assert_true(gt_exit_peaks_descendants(x) == 60 * MB);
    gt_exit_peaks_close(&x);
}

/* How long a record waits, on both sides of the bound: one that arrived in
 * drain D is still settled by a parent seen in drain D + 2 (it waited two
 * drains), and is gone by drain D + 3. */
static void test_wait_bound(void **state)
{
    (void)state;
    static const pid_t walk[] = {MAIN};
    members = walk;
    n_members = 1;
    gt_exit_peaks *x = gt_exit_peaks_new(MAIN, ROOT, SELF);
    gt_exit_peaks_drain(x, is_member, NULL); /* D */
    add(x, 601, 600, 40);                    /* 600 not seen yet */
    gt_exit_peaks_drain(x, is_member, NULL); /* D + 1 */
    gt_exit_peaks_drain(x, is_member, NULL); /* D + 2 */
    add(x, 600, MAIN, 1);                    /* the parent, a member's child */
    assert_true(gt_exit_peaks_descendants(x) == 40 * MB);
    add(x, 701, 700, 50);                    /* arrives in D + 2 */
    gt_exit_peaks_drain(x, is_member, NULL);
    gt_exit_peaks_drain(x, is_member, NULL);
    gt_exit_peaks_drain(x, is_member, NULL); /* three drains later */
    add(x, 700, MAIN, 2);
    assert_true(gt_exit_peaks_descendants(x) == 40 * MB);
    gt_exit_peaks_close(&x);
}

/* Attached to an ancestor: the tracker is a child of main, and its own
 * threads' exits are not a descendant's. */
static void test_tracker_under_main(void **state)
{
    (void)state;
    static const pid_t walk[] = {MAIN};
    members = walk;
    n_members = 1;
    gt_exit_peaks *x = gt_exit_peaks_new(MAIN, MAIN, 60);
    gt_exit_peaks_drain(x, is_member, NULL);
    gt_exit_record thread = {.pid = 61, .tgid = 60, .ppid = MAIN, .hiwater_rss = 400 * MB};
    gt_exit_peaks_add(x, &thread);
    add(x, 102, MAIN, 5);
    assert_true(gt_exit_peaks_descendants(x) == 5 * MB);
    gt_exit_peaks_close(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attribution),
        cmocka_unit_test(test_waiting),
        cmocka_unit_test(test_wait_bound),
        cmocka_unit_test(test_tracker_under_main),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
