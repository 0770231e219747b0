/* SPDX-License-Identifier: MIT */
/* Loader of the event backend (see events.h): the skeleton bpftool writes
 * from events.bpf.c at build time, its maps read in O(1) per sample. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "events/events.h"
#include "util/error.h"
#include "util/test_hooks.h"
#include "util/timespec.h"

uint64_t gt_events_bound_per_process(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 1)
        cpus = 1;
    uint64_t batch = (uint64_t)(2 * cpus > 32 ? 2 * cpus : 32);
    return 3 * batch * (uint64_t)cpus * (uint64_t)getpagesize();
}

#ifndef GT_HAVE_EVENTS

gt_status gt_events_open(pid_t main, gt_events **out, gt_error *err)
{
    (void)main;
    *out = NULL;
    return gt_err(err, GT_ERR_INVALID,
                  "this gpu-tracker was built without the event backend (libbpf, bpftool and clang were not found)");
}

void gt_events_read(gt_events *e, gt_events_reading *r)
{
    (void)e;
    memset(r, 0, sizeof *r);
    snprintf(r->why, sizeof r->why, "built without the event backend");
}

int gt_events_member(gt_events *e, pid_t pid, uint64_t *hwm_bytes, int *exited)
{
    (void)e;
    (void)pid;
    *hwm_bytes = 0;
    *exited = 0;
    return 0;
}

void gt_events_close(gt_events **e)
{
    if (e)
        *e = NULL;
}

#else

#include <pthread.h>
#include <stdarg.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "events/events_shared.h"
/* bpftool's generated code casts its const ELF bytes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wcast-qual"
#include "events.skel.h"
#pragma GCC diagnostic pop

struct gt_events {
    struct gt_events_bpf *skel;
    pid_t main;
    int state_fd, members_fd, mms_fd;
    /* CLOCK_REALTIME minus CLOCK_BOOTTIME at open, for the peaks' times. */
    double boot_to_unix;
};

/* libbpf's own messages: its warnings explain a failed load (a missing
 * tracepoint, the verifier's refusal), so the last one is kept for the
 * error, and nothing is printed: the library never writes to stderr.
 * libbpf has one such callback per process: a program that uses libbpf
 * itself finds its own replaced once a tracker loads the backend. */
static pthread_mutex_t print_mu = PTHREAD_MUTEX_INITIALIZER;
static char last_warning[200];

static int keep_warning(enum libbpf_print_level level, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
static int keep_warning(enum libbpf_print_level level, const char *fmt, va_list ap)
{
    if (level != LIBBPF_WARN)
        return 0;
    char buf[sizeof last_warning];
    vsnprintf(buf, sizeof buf, fmt, ap);
    size_t n = strlen(buf);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    if (n) {
        pthread_mutex_lock(&print_mu);
        memcpy(last_warning, buf, n + 1);
        pthread_mutex_unlock(&print_mu);
    }
    return 0;
}

static double clock_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return gt_ts_seconds(&ts);
}

/* Why loading failed, in words a user can act on: what failed (`step`),
 * the system's error and libbpf's last warning, which names the missing
 * tracepoint or the verifier's refusal. */
static gt_status load_failed(gt_error *err, const char *step, int e)
{
    char detail[sizeof last_warning];
    pthread_mutex_lock(&print_mu);
    memcpy(detail, last_warning, sizeof detail);
    pthread_mutex_unlock(&print_mu);
    if (e == EPERM) /* EACCES is the verifier's refusal, which the detail explains */
        return gt_err(err, GT_ERR_SYS,
                      "the event backend cannot %s: %s (it needs root, or CAP_BPF with CAP_PERFMON)", step,
                      strerror(e));
    return gt_err(err, GT_ERR_SYS, "the event backend cannot %s: %s%s%s", step, strerror(e),
                  detail[0] ? "; libbpf: " : "", detail);
}

gt_status gt_events_open(pid_t main, gt_events **out, gt_error *err)
{
    *out = NULL;
    if (getpagesize() != GT_EVENTS_PAGE_SIZE)
        return gt_err(err, GT_ERR_INVALID, "the event backend counts pages of %d bytes, this kernel's are %d",
                      GT_EVENTS_PAGE_SIZE, getpagesize());
    gt_events *e = calloc(1, sizeof *e);
    if (!e)
        return gt_err(err, GT_ERR_NOMEM, "out of memory");
    e->main = main;
    pthread_mutex_lock(&print_mu);
    last_warning[0] = '\0';
    pthread_mutex_unlock(&print_mu);
    libbpf_set_print(keep_warning);
    gt_status st = GT_OK;
    e->skel = gt_events_bpf__open();
    if (!e->skel) {
        st = load_failed(err, "open its BPF program", errno);
        goto fail;
    }
    /* Smaller maps in the test build only, so that tests can fill them. */
    long n = gt_hook_events_max_procs();
    if (n > 0 && n < GT_EVENTS_MAX_PROCS) {
        bpf_map__set_max_entries(e->skel->maps.members, (__u32)n);
        bpf_map__set_max_entries(e->skel->maps.mms, (__u32)n);
    }
    /* libbpf resolves the target's BTF at once: the failure of a kernel
     * without the tracepoint. */
    int rc;
    if (gt_hook_events_no_rss_stat() &&
        (rc = bpf_program__set_attach_target(e->skel->progs.gt_rss_stat, 0, "gt_no_such_tracepoint")) != 0) {
        st = load_failed(err, "find the kernel's tracepoint rss_stat", -rc);
        /* libbpf 1.1 frees the kernel's BTF it read for that lookup only at
         * the end of a load, never at close: the load releases it. */
        gt_events_bpf__load(e->skel);
        goto fail;
    }
    rc = gt_events_bpf__load(e->skel);
    if (rc) {
        st = load_failed(err, "load its BPF program", -rc);
        goto fail;
    }
    e->state_fd = bpf_map__fd(e->skel->maps.state);
    e->members_fd = bpf_map__fd(e->skel->maps.members);
    e->mms_fd = bpf_map__fd(e->skel->maps.mms);
    /* Main before the programs run: its first fork must find it. */
    __u32 key = (__u32)main;
    struct gt_events_member m = {.cls = 0};
    if (bpf_map_update_elem(e->members_fd, &key, &m, BPF_ANY) != 0) {
        st = load_failed(err, "fill its maps", errno);
        goto fail;
    }
    e->skel->bss->main_pending = 1;
    if ((rc = gt_events_bpf__attach(e->skel)) != 0) {
        st = load_failed(err, "attach its BPF program", -rc);
        goto fail;
    }
    e->boot_to_unix = clock_s(CLOCK_REALTIME) - clock_s(CLOCK_BOOTTIME);
    *out = e;
    return GT_OK;
fail:
    gt_events_close(&e);
    return st;
}

static uint64_t pages_to_bytes(__s64 pages)
{
    return pages > 0 ? (uint64_t)pages * GT_EVENTS_PAGE_SIZE : 0;
}

/* Recursion misses: events the kernel did not run a program for, because
 * one of ours was already running on that CPU. */
static uint64_t missed(const gt_events *e)
{
    struct bpf_program *progs[] = {e->skel->progs.gt_rss_stat, e->skel->progs.gt_fork, e->skel->progs.gt_exec,
                                   e->skel->progs.gt_exit};
    uint64_t n = 0;
    for (size_t i = 0; i < sizeof progs / sizeof *progs; i++) {
        struct bpf_prog_info info;
        __u32 len = sizeof info;
        memset(&info, 0, sizeof info);
        if (bpf_obj_get_info_by_fd(bpf_program__fd(progs[i]), &info, &len) == 0)
            n += info.recursion_misses;
    }
    return n;
}

void gt_events_read(gt_events *e, gt_events_reading *r)
{
    memset(r, 0, sizeof *r);
    struct {
        struct bpf_spin_lock lock;
        struct gt_events_sums s;
    } v;
    __u32 zero = 0;
    if (bpf_map_lookup_elem_flags(e->state_fd, &zero, &v, BPF_F_LOCK) != 0) {
        snprintf(r->why, sizeof r->why, "the event backend's sums could not be read: %s", strerror(errno));
        return;
    }
    for (int i = 0; i < 3; i++) {
        r->now[i] = pages_to_bytes(v.s.sum[i]);
        r->peak[i] = pages_to_bytes(v.s.peak[i]);
        r->peak_time[i] = v.s.peak_ns[i] ? e->boot_to_unix + (double)v.s.peak_ns[i] / 1e9 : 0.0;
    }
    r->n_members = v.s.n_members;
    r->n_exited = v.s.n_exited;
    uint64_t miss = missed(e);
    __u32 key = (__u32)e->main;
    struct gt_events_member m;
    int main_known = bpf_map_lookup_elem(e->members_fd, &key, &m) == 0 && m.attached;
    if (v.s.lost & GT_EVENTS_LOST_FULL)
        snprintf(r->why, sizeof r->why,
                 "more than %u processes: some were not followed by the event backend",
                 bpf_map__max_entries(e->skel->maps.members));
    else if (miss)
        snprintf(r->why, sizeof r->why, "the kernel dropped %llu events of the event backend",
                 (unsigned long long)miss);
    else if (!main_known)
        snprintf(r->why, sizeof r->why, "process %d has had no memory event since tracking began",
                 (int)e->main);
    else
        r->exact = 1;
}

int gt_events_member(gt_events *e, pid_t pid, uint64_t *hwm_bytes, int *exited)
{
    __u32 key = (__u32)pid;
    struct gt_events_member m;
    *hwm_bytes = 0;
    *exited = 0;
    if (bpf_map_lookup_elem(e->members_fd, &key, &m) != 0)
        return 0;
    *hwm_bytes = m.hwm_bytes;
    *exited = m.exit_ns != 0;
    struct gt_events_mm rec;
    if (m.mm && bpf_map_lookup_elem(e->mms_fd, &m.mm, &rec) == 0 && pages_to_bytes(rec.hwm) > *hwm_bytes)
        *hwm_bytes = pages_to_bytes(rec.hwm);
    return 1;
}

void gt_events_close(gt_events **ep)
{
    if (!ep || !*ep)
        return;
    gt_events_bpf__destroy((*ep)->skel);
    free(*ep);
    *ep = NULL;
}

#endif
