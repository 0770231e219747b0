/* SPDX-License-Identifier: MIT */
/* The kernel side of the event backend: membership of the tracked tree and
 * its resident memory, kept by the scheduler's fork/exec/exit tracepoints
 * and the mm counters' rss_stat tracepoint, so that the sums of the tree's
 * RSS and their peaks are exact to the event, not to the sample.
 *
 * CO-RE: the few kernel types used are declared below with
 * preserve_access_index, so the object is relocated against the running
 * kernel's BTF at load time; no vmlinux.h of the build machine is needed.
 *
 * Exactness: each event reads the mm's counters as the kernel keeps them,
 * percpu_counter's global count, which lags the true count by less than the
 * counter batch on every CPU (gt_events_bound_per_process() in events.h;
 * docs/measurements.md). */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "events/events_shared.h"

/* The kernel's counters of an mm: enum mm_counter's order. */
#define MM_FILEPAGES 0
#define MM_ANONPAGES 1
#define MM_SHMEMPAGES 3
#define NR_MM_COUNTERS 4

struct percpu_counter {
    __s64 count;
} __attribute__((preserve_access_index));

struct mm_struct {
    struct percpu_counter rss_stat[NR_MM_COUNTERS];
} __attribute__((preserve_access_index));

struct signal_struct {
    struct {
        int counter;
    } live;
} __attribute__((preserve_access_index));

struct task_struct {
    int pid;
    int tgid;
    struct mm_struct *mm;
    struct signal_struct *signal;
} __attribute__((preserve_access_index));

/* The kernel lets only programs of a GPL-compatible license call the
 * helpers used here; MIT code may be distributed under the GPL. */
char LICENSE[] SEC("license") = "Dual MIT/GPL";

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, GT_EVENTS_MAX_PROCS);
    __type(key, __u32);
    __type(value, struct gt_events_member);
} members SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, GT_EVENTS_MAX_PROCS);
    __type(key, __u64);
    __type(value, struct gt_events_mm);
} mms SEC(".maps");

struct state_val {
    struct bpf_spin_lock lock;
    struct gt_events_sums s;
};

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct state_val);
} state SEC(".maps");

/* 1 while the main process's mm is not known (user space sets it): only
 * then does an event of an mm not in the maps need a second look, which
 * every other process's memory events on the machine are spared. */
__u32 main_pending = 0;

static __always_inline struct state_val *get_state(void)
{
    __u32 zero = 0;
    return bpf_map_lookup_elem(&state, &zero);
}

static __always_inline void lost(__u64 why)
{
    struct state_val *st = get_state();
    if (st)
        __sync_fetch_and_or(&st->s.lost, why);
}

/* The global count of a percpu_counter can dip below 0 while CPUs hold
 * their parts. */
static __always_inline __s64 positive(__s64 v)
{
    return v > 0 ? v : 0;
}

/* Constant indices: CO-RE relocates an array element only where the index
 * is known to the compiler (the kernel's percpu_counter is larger than the
 * part declared here). */
static __always_inline __s64 rss_pages(struct mm_struct *mm)
{
    return positive(BPF_CORE_READ(mm, rss_stat[MM_FILEPAGES].count)) +
           positive(BPF_CORE_READ(mm, rss_stat[MM_ANONPAGES].count)) +
           positive(BPF_CORE_READ(mm, rss_stat[MM_SHMEMPAGES].count));
}

/* The same for the tracepoint's own argument, a pointer the kernel vouches
 * for: read directly, without a helper call per counter, on the path every
 * page fault of the tree takes. */
static __always_inline __s64 rss_pages_arg(struct mm_struct *mm)
{
    return positive(mm->rss_stat[MM_FILEPAGES].count) + positive(mm->rss_stat[MM_ANONPAGES].count) +
           positive(mm->rss_stat[MM_SHMEMPAGES].count);
}

/* Raises sum i's peak to v, a value the sum had, with the time: only
 * when v is above it (a peak only grows, so the unlocked look is safe),
 * and then under the lock, so that a peak and its time always go
 * together.  No helper may be called under the lock: the time is read
 * before. */
static __always_inline void peak_up(struct state_val *st, int i, __s64 v)
{
    if (v <= st->s.peak[i])
        return;
    __u64 now = bpf_ktime_get_boot_ns();
    bpf_spin_lock(&st->lock);
    if (v > st->s.peak[i]) {
        st->s.peak[i] = v;
        st->s.peak_ns[i] = now;
    }
    bpf_spin_unlock(&st->lock);
}

/* Moves the record of mm to `pages` and the sums with it.  Lock-free on
 * the path every page fault takes: the exchange makes each mm's part of
 * the sums the last reading applied, whatever the CPUs' order (a thread's
 * reading applied after a later one's is corrected by the mm's next
 * event), and each atomic add returns a value the sum really had, so the
 * peaks are those of the sums' actual states. */
static __always_inline void set_pages(struct gt_events_mm *r, __s64 pages)
{
    struct state_val *st = get_state();
    if (!st)
        return;
    int cls = r->cls ? 1 : 0;
    __s64 delta = pages - __sync_lock_test_and_set(&r->pages, pages);
    if (pages > r->hwm)
        r->hwm = pages;
    if (!delta)
        return;
    __s64 part = __sync_fetch_and_add(&st->s.sum[cls], delta) + delta;
    __s64 all = __sync_fetch_and_add(&st->s.sum[2], delta) + delta;
    if (delta > 0) {
        peak_up(st, cls, part);
        peak_up(st, 2, all);
    }
}

/* Gives member m (process tgid) the mm it now runs in: its own record, or
 * the record of the process it shares the mm with. */
static __always_inline void attach_mm(struct gt_events_member *m, __u32 tgid, struct mm_struct *mm)
{
    __u64 key = (__u64)(unsigned long)mm;
    if (!mm)
        return;
    m->mm = key;
    m->attached = 1;
    if (m->cls == 0)
        main_pending = 0;
    if (bpf_map_lookup_elem(&mms, &key))
        return; /* shared with a member (vfork, CLONE_VM): counted once */
    struct gt_events_mm fresh = {.tgid = tgid, .cls = m->cls};
    if (bpf_map_update_elem(&mms, &key, &fresh, BPF_NOEXIST) != 0) {
        lost(GT_EVENTS_LOST_FULL);
        return;
    }
    struct gt_events_mm *r = bpf_map_lookup_elem(&mms, &key);
    if (r)
        set_pages(r, rss_pages(mm));
}

/* The process tgid leaves mm (exec, exit): its pages leave the sums, its
 * high-water mark goes to its member record. */
static __always_inline void detach_mm(struct gt_events_member *m, __u32 tgid)
{
    __u64 key = m->mm;
    m->mm = 0;
    struct gt_events_mm *r = bpf_map_lookup_elem(&mms, &key);
    if (!r || r->tgid != tgid)
        return; /* the mm belongs to another member, which keeps it */
    set_pages(r, 0);
    __u64 hwm = (__u64)r->hwm * GT_EVENTS_PAGE_SIZE;
    if (hwm > m->hwm_bytes)
        m->hwm_bytes = hwm;
    bpf_map_delete_elem(&mms, &key);
}

SEC("tp_btf/rss_stat")
int BPF_PROG(gt_rss_stat, struct mm_struct *mm, int member)
{
    if (member != MM_FILEPAGES && member != MM_ANONPAGES && member != MM_SHMEMPAGES)
        return 0;
    __u64 key = (__u64)(unsigned long)mm;
    struct gt_events_mm *r = bpf_map_lookup_elem(&mms, &key);
    if (r) {
        set_pages(r, rss_pages_arg(mm));
        return 0;
    }
    /* The main process, whose mm is not known before its first event or
     * exec, is known by its own events. */
    if (!main_pending)
        return 0;
    struct task_struct *cur = (struct task_struct *)bpf_get_current_task_btf();
    if (BPF_CORE_READ(cur, mm) != mm)
        return 0;
    __u32 tgid = BPF_CORE_READ(cur, tgid);
    struct gt_events_member *m = bpf_map_lookup_elem(&members, &tgid);
    if (m && !m->mm && !m->exit_ns)
        attach_mm(m, tgid, mm);
    return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(gt_fork, struct task_struct *parent, struct task_struct *child)
{
    __u32 tgid = BPF_CORE_READ(child, tgid);
    if ((__u32)BPF_CORE_READ(child, pid) != tgid)
        return 0; /* a thread: its process is already counted */
    __u32 ptgid = BPF_CORE_READ(parent, tgid);
    if (!bpf_map_lookup_elem(&members, &ptgid))
        return 0;
    struct gt_events_member fresh = {.cls = 1, .start_ns = bpf_ktime_get_boot_ns(), .parent = ptgid};
    if (bpf_map_update_elem(&members, &tgid, &fresh, BPF_ANY) != 0) {
        lost(GT_EVENTS_LOST_FULL);
        return 0;
    }
    struct state_val *st = get_state();
    if (st)
        __sync_fetch_and_add(&st->s.n_members, 1);
    struct gt_events_member *m = bpf_map_lookup_elem(&members, &tgid);
    if (m)
        attach_mm(m, tgid, BPF_CORE_READ(child, mm));
    return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(gt_exec, struct task_struct *p, int old_pid, void *bprm)
{
    __u32 tgid = BPF_CORE_READ(p, tgid);
    struct gt_events_member *m = bpf_map_lookup_elem(&members, &tgid);
    if (!m)
        return 0;
    struct mm_struct *mm = BPF_CORE_READ(p, mm);
    if (m->mm == (__u64)(unsigned long)mm)
        return 0;
    if (m->mm)
        detach_mm(m, tgid);
    attach_mm(m, tgid, mm);
    return 0;
}

/* Every thread's exit fires this; the process ends with its last thread,
 * the one that brought signal->live to 0 (read rather than the tracepoint's
 * group_dead argument, which older kernels lack). */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(gt_exit, struct task_struct *p)
{
    struct signal_struct *sig = BPF_CORE_READ(p, signal);
    if (BPF_CORE_READ(sig, live.counter) != 0)
        return 0;
    __u32 tgid = BPF_CORE_READ(p, tgid);
    struct gt_events_member *m = bpf_map_lookup_elem(&members, &tgid);
    if (!m || m->exit_ns)
        return 0;
    if (m->mm)
        detach_mm(m, tgid);
    m->exit_ns = bpf_ktime_get_boot_ns();
    struct state_val *st = get_state();
    if (st)
        __sync_fetch_and_add(&st->s.n_exited, 1);
    /* A descendant that exited leaves the map, which then holds only the
     * living: a long job forks far more processes over its life than are
     * alive at once.  The main process stays, for user space to see. */
    if (m->cls)
        bpf_map_delete_elem(&members, &tgid);
    return 0;
}
