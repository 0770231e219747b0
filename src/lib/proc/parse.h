/* SPDX-License-Identifier: MIT */
/* Pure parsers for Linux /proc text: a buffer in, a struct out, no I/O.
 * Each returns 0 on success and -1 when the text is malformed (never a
 * silent zero); the readers in procfs.c feed them. */
#ifndef GT_PROC_PARSE_H
#define GT_PROC_PARSE_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct gt_proc_stat {
    pid_t pid, ppid;
    /* The kernel's command name (at most 15 bytes), as it is: it may hold
     * any byte but NUL, ')' and blanks included. */
    char comm[16];
    char state;                  /* 'R', 'S', 'Z', ... */
    uint64_t utime, stime;       /* clock ticks */
    uint64_t cutime, cstime;     /* ticks of waited-for children */
    uint64_t minflt, majflt;     /* page faults */
    int num_threads;
    uint64_t starttime;          /* ticks after boot */
    uint64_t rss_pages;          /* field 24 */
} gt_proc_stat;

/* /proc/PID/stat.  The command name may hold spaces and ')': fields are
 * read after the last ')'. */
int gt_parse_stat(const char *buf, size_t len, gt_proc_stat *out);

typedef struct gt_mem_rollup {   /* bytes */
    uint64_t rss, private_clean, private_dirty, shared_clean, shared_dirty;
} gt_mem_rollup;

/* /proc/PID/smaps_rollup: sums of the kB fields above (the header line with
 * the address range is skipped). */
int gt_parse_smaps_rollup(const char *buf, size_t len, gt_mem_rollup *out);

/* /proc/PID/smaps: cb is called once per mapping, in file order, with the
 * mapping's path as the kernel prints it (may be empty for anonymous
 * memory, or "[heap]", "[stack]", a file path with spaces, a "(deleted)"
 * suffix) and its private and shared bytes. */
typedef void (*gt_smaps_cb)(void *ctx, const char *path, size_t path_len,
                            uint64_t private_bytes, uint64_t shared_bytes);
int gt_parse_smaps(const char *buf, size_t len, gt_smaps_cb cb, void *ctx);

/* /proc/PID/status: VmHWM in bytes (0 and success when the field is absent,
 * as for kernel threads and zombies). */
int gt_parse_status_hwm(const char *buf, size_t len, uint64_t *vmhwm);

/* /proc/PID/status: VmRSS in bytes, the kernel's own counters (anonymous,
 * file and shmem pages), read without walking any page table.  *found is 0
 * where the field is absent (kernel threads, zombies). */
int gt_parse_status_rss(const char *buf, size_t len, uint64_t *vmrss, int *found);

/* Files of "key: number" lines (/proc/PID/io, ...): out[k] is the number
 * of the line starting with keys[k] (which includes its ':').  -1 when a
 * key is missing or given twice, a number is malformed or followed by
 * anything but blanks, or the file is cut short; at most 32 keys. */
int gt_parse_keyed(const char *buf, size_t len, const char *const *keys, int n, uint64_t *out);

typedef struct gt_meminfo {      /* bytes */
    uint64_t total, free, buffers, cached, sreclaimable, shmem, available;
} gt_meminfo;

/* /proc/meminfo. */
int gt_parse_meminfo(const char *buf, size_t len, gt_meminfo *out);
/* "used" exactly as psutil computes it, so figures agree with the Python
 * package: total - free - buffers - (cached + sreclaimable), or
 * total - free when that would be negative. */
uint64_t gt_meminfo_used(const gt_meminfo *m);

typedef struct gt_cpu_times {    /* ticks */
    uint64_t busy, total;        /* busy = total - idle - iowait */
} gt_cpu_times;

/* /proc/stat: the per-core "cpuN" lines (not the aggregate "cpu" line) into
 * cpus[0..max); *n gets the number of cores found.  total excludes guest and
 * guest_nice, which the kernel already counts in user and nice. */
int gt_parse_proc_stat(const char *buf, size_t len, gt_cpu_times *cpus, int max,
                       int *n);

/* /proc/loadavg's last field: the PID (or thread ID) most recently given
 * out in the reader's PID namespace, which every new task visible there
 * moves.  0 with *pid set, -1 when the text is not "L1 L5 L15 R/T PID\n". */
int gt_parse_loadavg_last_pid(const char *buf, size_t len, pid_t *pid);

/* A list of decimal PIDs separated by blanks or newlines, as in
 * /proc/PID/task/TID/children.  Stores up to max, returns the count found
 * (which may exceed max) or -1 on a malformed token. */
int gt_parse_pid_list(const char *buf, size_t len, pid_t *out, int max);
#endif
