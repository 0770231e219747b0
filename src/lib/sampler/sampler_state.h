/* SPDX-License-Identifier: MIT */
/* The sampler's state between samples, shared by the files that take a
 * sample: sampler.c (the order of a sample, the sampler's life), walk.c
 * (the tree), children.c (each process's children), kept.c (descriptors
 * kept across samples), memory.c, system.c and gpu_attribution.c; cpu.c's
 * arithmetic sees only its books.  Nothing outside src/lib/sampler/
 * includes it. */
#ifndef GT_SAMPLER_STATE_H
#define GT_SAMPLER_STATE_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "gpu/gpu.h"
#include "proc/parse.h"
#include "proc/procfs.h"
#include "sampler/cpu.h"
#include "sampler/exit_peaks.h"
#include "sampler/paths.h"
#include "sampler/sampler.h"
#include "util/grow.h"
#include "util/timespec.h"

#define MAX_CORES 4096

/* Shared memory of one mapping path within one process. */
typedef struct path_use {
    uint32_t id;
    uint64_t shared;
} path_use;

/* A thread's children file, kept open across samples. */
typedef struct thread_file {
    pid_t tid;
    int fd;
} thread_file;

typedef struct proc_entry {
    pid_t pid;
    int is_main;
    int stat_fd, children_fd;  /* kept open across samples, or -1 */
    int status_fd;             /* kept once its memory was read, or -1 */
    /* Several threads: the task folder and each thread's children file. */
    int task_fd;
    thread_file *tf;
    uint32_t ntf, tfcap;
    uint64_t starttime;        /* ticks since boot: tells a reused PID apart */
    /* Seconds: own CPU time (nanoseconds from the process's CPU clock, or
     * utime+stime ticks where that clock cannot be read) and reaped
     * children's (cutime+cstime: ticks only). */
    double cpu, ccpu;
    int cpu_from_clock;
    int threads;
    char state;
    pid_t ppid;
    char comm[16];
    /* Unchanged faults and RSS mean unchanged memory figures: RSS grows
     * only through page faults (counted, GUP's included, to the thread that
     * takes them, so another process writing into it moves its RSS, not
     * its faults) and anything that shrinks it changes it. */
    uint64_t activity[2];
    uint64_t private_rss, shared_rss, hwm;
    int hwm_ok;                /* hwm was read from a live process */
    int mem_denied;            /* errno when its memory could not be read */
    int mem_read;              /* its memory figures were read (0: status failed) */
    /* The metric table's probe files (kept open across samples, or -1),
     * the values read from them (NaN: unread) and each read's errno. */
    int probe_fd[GT_PROBE_SLOTS];
    double values[GT_PV_SLOTS];
    int probe_err[GT_PROBE_SLOTS];
    /* Per-path shared memory, re-read only when the total changes. */
    path_use *paths;
    uint32_t npaths, cap;
    int paths_valid;
    /* The last page-table walk: whether there was one (with per-path data
     * or not), the shared bytes it found, the RSS and time it saw, and the
     * CPU seconds it took. */
    int walked, walked_paths;
    uint64_t walk_shared, walk_rss;
    double walk_t, walk_cost;
    /* Idle processes (see visit()): the CPU clock read at this sample, when
     * stat and the children were last read (boot-time seconds), and where
     * its children are in the walk's queue. */
    uint64_t clock_ns;
    double full_t;
    size_t kids_at, nkids;
    int skipped;               /* stat and children taken from the last sample */
    int kids_unread;           /* a children file could not be read */
    /* Prev list only: a member of this sample is the same process (PID and
     * starttime), so it neither exited nor left the tree. */
    int matched;
    /* 1 + index in the last sample's list of the same process (same PID and
     * starttime), 0 if none: found once by the walk, which every later
     * look-up of the sample reuses (the last list does not move during a
     * sample; this one is re-sorted, so it holds no pointers into itself). */
    size_t prev_i;
} proc_entry;

/* A PID to visit; from_kept: listed by the last sample's children of an
 * idle parent, so it must still be the process seen then. */
typedef struct queued {
    pid_t pid;
    int from_kept;
} queued;

typedef struct proc_list {
    proc_entry *v;
    size_t n, cap;
} proc_list;

struct gt_sampler {
    gt_procfs *fs;
    pid_t main_pid, root;
    int self_tracking;         /* the tracked process is this process */
    pid_t self_pid, self_tid;  /* this process; the sampling thread (0: not yet known) */
    gt_gpu *gpu;               /* owned; NULL: no GPUs */
    long hz;
    proc_list prev, cur;
    int have_prev, main_alive;
    queued *queue, *prev_queue;  /* this walk's and the last one's */
    size_t queue_cap, prev_queue_cap;
    pid_t *pids_main, *pids_desc;
    size_t pids_cap, pids_main_cap;
    /* An idle process's stat and children are read again at least this
     * often (seconds); the boot-time clock at this sample; 1: read all. */
    double idle_refresh, now;
    int full_walk;
    /* A read failed or a process vanished at this sample: the next one
     * reads every process, so a failure is never carried over. */
    int read_failed;
    /* The PID last given out (/proc/loadavg) at this sample's start and the
     * last one's, 0 where unknown; no_new_tasks: the same, so no member has
     * a new child or thread (see kids_stand()). */
    pid_t last_pid, prev_last_pid;
    int no_new_tasks;
    gt_paths *paths;
    uint64_t *max_desc, *max_comb; /* per path id, zero between samples */
    size_t max_cap;
    /* Interval state.  The wall time of an interval is taken between the
     * monotonic clock read right after the main process's CPU clock, so a
     * sampler delayed between the two reads (a loaded machine) does not
     * stretch one and not the other. */
    double read_mono;
    double read_mono_main; /* just before main's clock was read */
    int use_clock;             /* CPU clocks of other processes readable */
    /* The CPU totals, window and flows, over read_mono (t) and
     * read_mono_main (t_main) of each sample. */
    gt_cpu_books cpu;
    int closing;   /* the sample being taken is the run's last */
    /* Boot-time ticks of the last sample (before the first: of the
     * sampler's creation), from which a process is born within the
     * interval and counts with all its CPU time. */
    double prev_boot_ticks;
    /* The caller launched main held before its exec (it is the tree's root
     * and not main): nothing of the command ran before the sampler, so the
     * first sample counts all of main's CPU time too. */
    int launched;
    struct timespec self_thread_cpu; /* read with the main process's clock */
    double prev_self_thread_cpu;
    double prev_root_ccpu, root_ccpu_now;
    /* fds kept open across samples (two per process), within a budget from
     * the open-files soft limit; beyond it a process's files are opened and
     * closed each sample, so a huge tree cannot exhaust the limit. */
    int kept_fds, fd_budget, budget_checked;
    int meminfo_fd, stat_fd, loadavg_fd;
    /* The last reading of the system-wide figures, taken at most every
     * system_period seconds: when (boot-time seconds), RAM used, the
     * cores' summed busy percent. */
    double system_period, system_t;
    uint64_t system_used;
    double system_sum;
    /* The root's files, kept across samples like a member's although the
     * root itself is not tracked. */
    proc_entry root_files;
    gt_cpu_times cores_prev[MAX_CORES];
    gt_cpu_times cores_cur[MAX_CORES];
    gt_cpu_times cores_first[MAX_CORES]; /* at the first sample: a whole run's baseline */
    int ncores;
    uint64_t ram_capacity;
    uint64_t desc_hwm_max;
    gt_exit_peaks *exits;     /* NULL: no taskstats, peaks are sampled */
    /* The tree's exit records attributed at this sample (the sample's
     * exits); taken_short: some were not kept. */
    gt_exit_record *taken;
    size_t n_taken, taken_cap;
    int taken_short;
    /* The sample's views (gt_sample.procs, .gpu_procs), reused from sample
     * to sample; gpu_slot: scratch of gt_gpu_last_procs. */
    gt_sample_proc *procs_view;
    size_t procs_view_cap;
    gt_sample_gpu_proc *gpu_procs_view;
    size_t gpu_procs_view_cap;
    size_t *gpu_slot;
    size_t gpu_slot_cap;
    size_t desc_alive;
    /* Scratch while reading one process's smaps. */
    proc_entry *smaps_target;
    uint64_t smaps_private, smaps_shared;
    int need_paths;           /* several processes: shared memory per path */
    int same_members;         /* this sample's members are the last one's */
    /* Page-table walks within a CPU budget: seconds of CPU they may still
     * use (refilled at walk_budget per second of wall time, may run into
     * debt), and where the next sample's round of walks starts. */
    double walk_budget, walk_allowance, walk_refill_t;
    size_t walk_next;
    /* The last sample's tree figures (the base of the rates) and its
     * timestamp; have_tree: there was one. */
    double tree_prev[GT_TREE_SLOTS];
    double tree_prev_t;
    int have_tree;
};

static inline int grow(void **v, size_t *cap, size_t need, size_t elem)
{
    return gt_grow_array(v, cap, need, 16, elem);
}
#endif
