/* SPDX-License-Identifier: MIT */
/* GPUs of any DRM driver through the kernel's per-client counters: each open
 * DRM file of a process shows, in /proc/PID/fdinfo/FD, its driver, device
 * (drm-pdev), client (drm-client-id), busy time per engine and memory per
 * region (the kernel's Documentation/gpu/drm-usage-stats.rst).  No vendor
 * library is needed.
 *
 * Devices are the /sys/class/drm/cardN of the drivers known to print those
 * counters (usage_drivers), told apart by their PCI address, which is also
 * their UUID here.  Only the tracked processes' descriptors are read, so
 * the cost follows the tracked tree, not the machine; a descriptor is
 * stat()ed each sample and its fdinfo read only while it is a character
 * device not already known as another kind of file.
 *
 * A client (drm-pdev + drm-client-id) is counted once however many
 * descriptors or processes hold it (dup, fork, SCM_RIGHTS): it goes to the
 * first holder in the order main process, then descendants, by PID.
 *
 * Per-process utilization (the table's SM percent): for each engine, its
 * busy time's growth over the wall time since the share was last taken,
 * divided by the engine's capacity (a class of identical engines); for xe,
 * busy cycles over the GPU clock's cycles.  A process's figure is its busiest engine
 * (its clients' shares of each engine added): a share of one engine is what
 * NVML's SM percent is too, while a sum over engines of different kinds
 * (render, copy, video) could pass 100 % and mean nothing. */
#include "gpu/drm_fdinfo.h"
#include "gpu/backend.h"
#include "util/grow.h"
#include "util/test_hooks.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Drivers that print the usage counters (drm-usage-stats.rst and the
 * drivers' own documentation).  Others (display-only drivers such as ast
 * on servers' management chips, NVIDIA's nvidia-drm) would show a GPU
 * with nothing to read. */
static const char *const usage_drivers[] = {"amdgpu", "i915", "xe", "msm", "panfrost", "panthor",
                                            "v3d", "lima", "etnaviv", NULL};


typedef struct drm_dev {
    char id[GT_DRM_NAME_MAX];       /* PCI address, else the device's name */
    char driver[GT_DRM_NAME_MAX];
    int pci;
    int dirfd;                      /* sys/class/drm/cardN/device */
} drm_dev;

/* One engine's counters at one reading of a client. */
typedef struct eng_read {
    char name[GT_DRM_NAME_MAX];
    uint64_t ns, cycles, total, capacity;
    int has_ns, has_cycles;         /* has_cycles: busy and total cycles */
    double pct;                     /* share since the last published reading, percent */
    int pct_valid;
} eng_read;

/* A client's counters are read at every sample (cur), and its shares taken
 * when gpu.c asks for per-process utilization (want_sm), over the time since
 * they were last taken (base): a sample that skips them loses nothing, since
 * the counters are cumulative. */
typedef struct client {
    size_t dev;
    int has_id;
    uint64_t id;
    pid_t pid;                      /* without an id: the descriptor is the client */
    int fd;
    unsigned long gen;              /* scan it was last seen at */
    pid_t owner;                    /* its first holder at that scan */
    int mem_valid;
    uint64_t mem;
    uint64_t cur_t, base_t;         /* wall time of the readings */
    int has_base;
    eng_read cur[GT_DRM_MAX_ENGINES], base[GT_DRM_MAX_ENGINES];
    size_t n_cur, n_base;
} client;

/* A descriptor of a tracked process, as last seen. */
typedef struct fdent {
    pid_t pid;
    int fd;
    dev_t dev;
    ino_t ino;
    int drm;                        /* a client of a device served here: read each sample */
} fdent;

typedef struct drm_state {
    int proc_fd;
    drm_dev *devs;
    int n_devs;
    uint64_t (*now_ns)(void);
    client *cl;
    size_t n_cl, cap_cl;
    fdent *fds, *next;              /* sorted by (pid, fd); next: the sample being read */
    size_t n_fds, cap_fds, n_next, cap_next;
    unsigned long scanned;          /* procs.seq of the last scan */
    int have_scanned;
    unsigned long gen;              /* scans so far */
    char buf[16384];
} drm_state;

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Reads name (relative to dirfd) into buf, NUL-terminated; its length or -1. */
static ssize_t read_at(int dirfd, const char *name, char *buf, size_t cap)
{
    int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got + 1 < cap) {
        ssize_t n = read(fd, buf + got, cap - 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    return (ssize_t)got;
}

__attribute__((format(printf, 3, 4)))
static void set_why(gt_gpu_why *why, const char *func, const char *fmt, ...)
{
    if (!why)
        return;
    why->func = func;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why->detail, sizeof why->detail, fmt, ap);
    va_end(ap);
}

static int usage_driver(const char *d)
{
    for (const char *const *p = usage_drivers; *p; p++)
        if (!strcmp(*p, d))
            return 1;
    return 0;
}

/* The value of "KEY=" in a uevent text, copied into out; -1 when absent. */
static int uevent_value(const char *text, const char *key, char *out, size_t cap)
{
    size_t kl = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, key, kl) || p[kl] != '=')
            continue;
        const char *v = p + kl + 1;
        size_t n = strcspn(v, "\n");
        if (n == 0 || n >= cap)
            return -1;
        memcpy(out, v, n);
        out[n] = '\0';
        return 0;
    }
    return -1;
}

static int cmp_dev(const void *a, const void *b)
{
    return strcmp(((const drm_dev *)a)->id, ((const drm_dev *)b)->id);
}

/* The cards of sys_root/class/drm whose driver prints usage counters. */
static int find_devices(drm_state *s, const char *sys_root)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/class/drm", sys_root ? sys_root : "/sys");
    DIR *d = opendir(path);
    if (!d)
        return 0;
    struct dirent *de;
    int cap = 0;
    while ((de = readdir(d))) {
        const char *n = de->d_name;
        if (strncmp(n, "card", 4) || !n[4] || strspn(n + 4, "0123456789") != strlen(n + 4))
            continue;   /* connectors (card0-DP-1) and render nodes */
        char dev_path[PATH_MAX + 300];
        snprintf(dev_path, sizeof dev_path, "%s/%s/device", path, n);
        int dfd = open(dev_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
            continue;
        drm_dev dv = {.dirfd = dfd};
        if (read_at(dfd, "uevent", s->buf, sizeof s->buf) < 0 ||
            uevent_value(s->buf, "DRIVER", dv.driver, sizeof dv.driver) != 0 || !usage_driver(dv.driver)) {
            close(dfd);
            continue;
        }
        dv.pci = uevent_value(s->buf, "PCI_SLOT_NAME", dv.id, sizeof dv.id) == 0;
        if (!dv.pci) {
            /* A platform device: its name, as its sysfs link ends. */
            char link[PATH_MAX];
            ssize_t ln = readlink(dev_path, link, sizeof link - 1);
            const char *base = n;
            if (ln > 0) {
                link[ln] = '\0';
                const char *slash = strrchr(link, '/');
                base = slash ? slash + 1 : link;
            }
            size_t bl = strlen(base);
            if (bl >= sizeof dv.id)
                bl = sizeof dv.id - 1;
            memcpy(dv.id, base, bl);
            dv.id[bl] = '\0';
        }
        if (s->n_devs == cap) {
            int nc = cap ? cap * 2 : 4;
            drm_dev *v = realloc(s->devs, (size_t)nc * sizeof *v);
            if (!v) {
                close(dfd);
                closedir(d);
                return -1;
            }
            s->devs = v;
            cap = nc;
        }
        s->devs[s->n_devs++] = dv;
    }
    closedir(d);
    if (s->n_devs > 1)
        qsort(s->devs, (size_t)s->n_devs, sizeof *s->devs, cmp_dev);
    return 0;
}

static void drm_shutdown(void *state)
{
    drm_state *s = state;
    if (!s)
        return;
    for (int i = 0; i < s->n_devs; i++)
        close(s->devs[i].dirfd);
    if (s->proc_fd >= 0)
        close(s->proc_fd);
    free(s->devs);
    free(s->cl);
    free(s->fds);
    free(s->next);
    free(s);
}

gt_gpu_found gt_drm_fdinfo_open(const char *proc_root, const char *sys_root, uint64_t (*now_ns)(void),
                                void **state, int *count, gt_gpu_why *why)
{
    drm_state *s = calloc(1, sizeof *s);
    if (!s) {
        set_why(why, "drm fdinfo", "%s", "out of memory");
        return GT_GPU_NOT_INSTALLED;
    }
    s->now_ns = now_ns ? now_ns : mono_ns;
    s->proc_fd = -1;
    if (find_devices(s, sys_root) != 0 || s->n_devs == 0) {
        drm_shutdown(s);
        return GT_GPU_NOT_INSTALLED;
    }
    s->proc_fd = open(proc_root ? proc_root : "/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (s->proc_fd < 0) {
        set_why(why, "open", "%s: cannot open the process folder", proc_root ? proc_root : "/proc");
        drm_shutdown(s);
        return GT_GPU_NO_DEVICE;
    }
    *state = s;
    *count = s->n_devs;
    return GT_GPU_FOUND;
}

static gt_gpu_found drm_init(const char *sysfs_root, void **state, int *count, gt_gpu_why *why)
{
    /* The test build points sysfs_root at a fixture tree, and this
     * reader's /proc at another (the sampler keeps the real one, whose PIDs
     * the fixture names). */
    return gt_drm_fdinfo_open(gt_hook_fdinfo_proc_root(), sysfs_root, NULL, state, count, why);
}

static gt_gpu_rc drm_uuid(void *state, int i, char *buf, size_t len, gt_gpu_why *why)
{
    (void)why;
    drm_state *s = state;
    snprintf(buf, len, "%s", s->devs[i].id);
    return GT_GPU_OK;
}

/* A decimal sysfs attribute of device i (amdgpu's mem_info_vram_*,
 * gpu_busy_percent). */
static gt_gpu_rc sys_value(drm_state *s, int i, const char *name, uint64_t *v, gt_gpu_why *why)
{
    const drm_dev *d = &s->devs[i];
    char buf[64];
    ssize_t n = strcmp(d->driver, "amdgpu") ? -1 : read_at(d->dirfd, name, buf, sizeof buf);
    if (n < 0) {
        set_why(why, name, "the %s driver gives no such figure in sysfs", d->driver);
        return GT_GPU_UNSUPPORTED;
    }
    const char *u;
    size_t ul;
    char *e = buf + n;
    while (e > buf && (e[-1] == '\n' || e[-1] == ' '))
        e--;
    if (gt_drm_fdinfo_uint(buf, e, v, &u, &ul) != 0 || ul != 0) {
        set_why(why, name, "unreadable value '%.60s'", buf);
        return GT_GPU_ERROR;
    }
    return GT_GPU_OK;
}

static gt_gpu_rc drm_memory_total(void *state, int i, uint64_t *bytes, gt_gpu_why *why)
{
    return sys_value(state, i, "mem_info_vram_total", bytes, why);
}

static gt_gpu_rc drm_memory_used(void *state, int i, uint64_t *bytes, gt_gpu_why *why)
{
    return sys_value(state, i, "mem_info_vram_used", bytes, why);
}

static gt_gpu_rc drm_utilization(void *state, int i, double *percent, gt_gpu_why *why)
{
    uint64_t v;
    gt_gpu_rc rc = sys_value(state, i, "gpu_busy_percent", &v, why);
    if (rc == GT_GPU_OK)
        *percent = (double)v;
    return rc;
}

static gt_gpu_rc drm_power(void *state, int i, double *watts, gt_gpu_why *why)
{
    (void)watts;
    drm_state *s = state;
    set_why(why, "drm fdinfo", "the %s driver's power is not read through fdinfo", s->devs[i].driver);
    return GT_GPU_UNSUPPORTED;
}

static gt_gpu_rc drm_energy(void *state, int i, double *joules, gt_gpu_why *why)
{
    (void)joules;
    drm_state *s = state;
    set_why(why, "drm fdinfo", "the %s driver's energy is not read through fdinfo", s->devs[i].driver);
    return GT_GPU_UNSUPPORTED;
}

/* The device a client's fdinfo names: by drm-pdev, else by driver where
 * only one device has it; -1 when none (or ambiguous). */
static int device_of(const drm_state *s, const gt_drm_client_info *c)
{
    int hit = -1;
    for (int i = 0; i < s->n_devs; i++) {
        if (c->pdev[0] ? strcmp(s->devs[i].id, c->pdev) != 0 : strcmp(s->devs[i].driver, c->driver) != 0)
            continue;
        if (hit >= 0)
            return -1;
        hit = i;
    }
    return hit;
}

static const eng_read *eng_named(const eng_read *v, size_t n, const char *name)
{
    for (size_t k = 0; k < n; k++)
        if (!strcmp(v[k].name, name))
            return &v[k];
    return NULL;
}

/* Takes a reading of a client seen at this sample for the first time.  A
 * counter below its last value keeps the last one (the kernel lets them
 * lag, and catch up later). */
static void client_update(client *cl, const gt_drm_client_info *c, uint64_t now)
{
    cl->mem_valid = c->mem_valid;
    cl->mem = c->mem_bytes;
    eng_read next[GT_DRM_MAX_ENGINES];
    size_t nn = 0;
    for (size_t k = 0; k < c->n_eng; k++) {
        const gt_drm_engine *g = &c->eng[k];
        if (!g->has_ns && !(g->has_cycles && g->has_total))
            continue;
        eng_read *q = &next[nn++];
        memset(q, 0, sizeof *q);
        memcpy(q->name, g->name, sizeof q->name);
        q->has_ns = g->has_ns;
        q->has_cycles = g->has_cycles && g->has_total;
        q->ns = g->ns;
        q->cycles = g->cycles;
        q->total = g->total;
        q->capacity = g->capacity;
        const eng_read *p = eng_named(cl->cur, cl->n_cur, g->name);
        if (p && q->has_ns && p->has_ns && q->ns < p->ns)
            q->ns = p->ns;
        if (p && q->has_cycles && p->has_cycles) {
            if (q->cycles < p->cycles)
                q->cycles = p->cycles;
            if (q->total < p->total)
                q->total = p->total;
        }
    }
    memcpy(cl->cur, next, nn * sizeof *next);
    cl->n_cur = nn;
    cl->cur_t = now;
}

/* Each engine's share from the last published reading to this one: busy
 * cycles over the GPU clock's where the driver gives both, else busy time
 * over wall time, per engine of the class; then this reading becomes the
 * base of the next. */
static void client_share(client *cl)
{
    uint64_t wall = cl->cur_t > cl->base_t ? cl->cur_t - cl->base_t : 0;
    for (size_t k = 0; k < cl->n_cur; k++) {
        eng_read *q = &cl->cur[k];
        const eng_read *p = cl->has_base ? eng_named(cl->base, cl->n_base, q->name) : NULL;
        q->pct_valid = 0;
        q->pct = 0;
        if (p && q->has_cycles && p->has_cycles && q->total > p->total && q->cycles >= p->cycles) {
            q->pct = 100.0 * (double)(q->cycles - p->cycles) / (double)(q->total - p->total) / (double)q->capacity;
            q->pct_valid = 1;
        } else if (p && q->has_ns && p->has_ns && wall > 0 && q->ns >= p->ns) {
            q->pct = 100.0 * (double)(q->ns - p->ns) / (double)wall / (double)q->capacity;
            q->pct_valid = 1;
        }
        if (q->pct > 100.0)
            q->pct = 100.0;   /* engine time lags and catches up in bursts */
    }
    memcpy(cl->base, cl->cur, cl->n_cur * sizeof *cl->cur);
    cl->n_base = cl->n_cur;
    cl->base_t = cl->cur_t;
    cl->has_base = 1;
}

static client *client_find(drm_state *s, size_t dev, const gt_drm_client_info *c, pid_t pid, int fd)
{
    for (size_t k = 0; k < s->n_cl; k++) {
        client *cl = &s->cl[k];
        if (cl->dev == dev && cl->has_id == c->has_id &&
            (c->has_id ? cl->id == c->client_id : cl->pid == pid && cl->fd == fd))
            return cl;
    }
    if (s->n_cl == s->cap_cl) {
        size_t cap = gt_grow_cap(s->cap_cl, s->n_cl + 1, 8, sizeof *s->cl);
        client *v = cap ? realloc(s->cl, cap * sizeof *v) : NULL;
        if (!v)
            return NULL;
        s->cl = v;
        s->cap_cl = cap;
    }
    client *cl = &s->cl[s->n_cl++];
    memset(cl, 0, sizeof *cl);
    cl->dev = dev;
    cl->has_id = c->has_id;
    cl->id = c->client_id;
    cl->pid = pid;
    cl->fd = fd;
    return cl;
}

static int cmp_fdent(const void *a, const void *b)
{
    const fdent *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return (x->fd > y->fd) - (x->fd < y->fd);
}

static const fdent *fd_known(const drm_state *s, pid_t pid, int fd)
{
    fdent key = {.pid = pid, .fd = fd};
    return s->n_fds ? bsearch(&key, s->fds, s->n_fds, sizeof *s->fds, cmp_fdent) : NULL;
}

/* Reads one descriptor of pid; -1 out of memory. */
static int scan_fd(drm_state *s, pid_t pid, int fd_dir, int info_dir, const char *name, uint64_t now)
{
    struct stat st;
    if (fstatat(fd_dir, name, &st, 0) != 0)
        return 0;   /* closed meanwhile, or a file we may not see */
    int fd = atoi(name);
    const fdent *old = fd_known(s, pid, fd);
    int drm;
    if (old && old->dev == st.st_dev && old->ino == st.st_ino && !old->drm)
        drm = 0;     /* the same non-DRM file as before: nothing to read */
    else if (!S_ISCHR(st.st_mode))
        drm = 0;
    else {
        ssize_t n = read_at(info_dir, name, s->buf, sizeof s->buf);
        if (n < 0)
            return 0;   /* closed meanwhile: nothing known, read again if it comes back */
        if (n == (ssize_t)sizeof s->buf - 1) {
            /* A text longer than the buffer: its last line may be cut
             * ("12" of "1234 ns"), so it is left out. */
            char *nl = memrchr(s->buf, '\n', (size_t)n);
            n = nl ? nl - s->buf + 1 : 0;
        }
        gt_drm_client_info c;
        drm = n > 0 && gt_drm_fdinfo_parse(s->buf, (size_t)n, &c);
        int dev = drm ? device_of(s, &c) : -1;
        /* A client of a device not served here (a display-only card) is
         * as good as another file: the same file stays on that device. */
        drm = dev >= 0;
        if (dev >= 0) {
            client *cl = client_find(s, (size_t)dev, &c, pid, fd);
            if (!cl)
                return -1;
            if (cl->gen != s->gen) {
                /* Not yet seen at this sample: its first holder counts it. */
                client_update(cl, &c, now);
                cl->owner = pid;
                cl->gen = s->gen;
            }
        }
    }
    if (s->n_next == s->cap_next) {
        size_t cap = gt_grow_cap(s->cap_next, s->n_next + 1, 64, sizeof *s->next);
        fdent *v = cap ? realloc(s->next, cap * sizeof *v) : NULL;
        if (!v)
            return -1;
        s->next = v;
        s->cap_next = cap;
    }
    s->next[s->n_next++] = (fdent){pid, fd, st.st_dev, st.st_ino, drm};
    return 0;
}

static int scan_pid(drm_state *s, pid_t pid, uint64_t now)
{
    char name[32];
    snprintf(name, sizeof name, "%d/fd", (int)pid);
    int fd_dir = openat(s->proc_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_dir < 0)
        return 0;   /* exited, or another user's: its clients stay unseen */
    snprintf(name, sizeof name, "%d/fdinfo", (int)pid);
    int info_dir = openat(s->proc_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int list = info_dir < 0 ? -1 : dup(fd_dir);
    DIR *d = list < 0 ? NULL : fdopendir(list);
    int rc = 0;
    if (d) {
        struct dirent *de;
        while (rc == 0 && (de = readdir(d)))
            if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
                rc = scan_fd(s, pid, fd_dir, info_dir, de->d_name, now);
        closedir(d);
    } else if (list >= 0)
        close(list);
    if (info_dir >= 0)
        close(info_dir);
    close(fd_dir);
    return rc;
}

/* Reads the tracked processes' DRM clients once per sample; -1 out of
 * memory. */
static int scan(drm_state *s, const gt_pidset *pids, unsigned long seq)
{
    s->scanned = seq;
    s->gen++;
    s->n_next = 0;
    uint64_t now = s->now_ns();
    int rc = 0;
    for (size_t k = 0; pids && rc == 0 && k < pids->n_main; k++)
        rc = scan_pid(s, pids->main[k], now);
    for (size_t k = 0; pids && rc == 0 && k < pids->n_desc; k++)
        rc = scan_pid(s, pids->desc[k], now);
    s->have_scanned = 1;
    if (rc != 0)
        return rc;
    if (s->n_next > 1)
        qsort(s->next, s->n_next, sizeof *s->next, cmp_fdent);
    fdent *t = s->fds;
    size_t tc = s->cap_fds;
    s->fds = s->next;
    s->n_fds = s->n_next;
    s->cap_fds = s->cap_next;
    s->next = t;
    s->cap_next = tc;
    s->n_next = 0;
    /* Clients no tracked process holds any more are forgotten. */
    size_t w = 0;
    for (size_t k = 0; k < s->n_cl; k++)
        if (s->cl[k].gen == s->gen)
            s->cl[w++] = s->cl[k];
    s->n_cl = w;
    return 0;
}

/* Percent of the busiest engine of pid's clients on device dev, each
 * engine's shares added over the clients; -1 when none is known yet. */
static double busiest(const drm_state *s, size_t dev, pid_t pid)
{
    struct { const char *name; double sum; } e[2 * GT_DRM_MAX_ENGINES];
    size_t ne = 0;
    for (size_t a = 0; a < s->n_cl; a++) {
        const client *cl = &s->cl[a];
        if (cl->dev != dev || cl->owner != pid)
            continue;
        for (size_t k = 0; k < cl->n_cur; k++) {
            if (!cl->cur[k].pct_valid)
                continue;
            size_t j = 0;
            while (j < ne && strcmp(e[j].name, cl->cur[k].name))
                j++;
            if (j == ne) {
                if (ne == sizeof e / sizeof *e)
                    continue;   /* more engine names than two clients' tables: left out */
                e[ne].name = cl->cur[k].name;
                e[ne++].sum = 0;
            }
            e[j].sum += cl->cur[k].pct;
        }
    }
    double best = -1;
    for (size_t j = 0; j < ne; j++)
        if (e[j].sum > best)
            best = e[j].sum;
    return best > 100.0 ? 100.0 : best;
}

static gt_gpu_rc drm_processes(void *state, int i, gt_gpu_procs *out, gt_gpu_why *why)
{
    drm_state *s = state;
    if ((!s->have_scanned || s->scanned != out->seq) && scan(s, out->pids, out->seq) != 0) {
        set_why(why, "drm fdinfo", "%s", "out of memory");
        return GT_GPU_ERROR;
    }
    size_t first = out->n;
    for (size_t k = 0; k < s->n_cl; k++) {
        const client *cl = &s->cl[k];
        if (cl->dev != (size_t)i)
            continue;
        gt_gpu_proc *p = NULL;
        for (size_t j = first; j < out->n; j++)
            if (out->v[j].pid == cl->owner)
                p = &out->v[j];
        if (!p) {
            if (gt_gpu_procs_reserve(out, out->n + 1) != 0) {
                set_why(why, "drm fdinfo", "%s", "out of memory");
                return GT_GPU_ERROR;
            }
            p = &out->v[out->n++];
            memset(p, 0, sizeof *p);
            p->pid = cl->owner;
        }
        if (cl->mem_valid) {
            p->mem_valid = 1;
            p->mem_bytes += cl->mem;
        }
    }
    if (!out->want_sm)
        return GT_GPU_OK;
    for (size_t k = 0; k < s->n_cl; k++)
        if (s->cl[k].dev == (size_t)i)
            client_share(&s->cl[k]);
    out->sm_rc = GT_GPU_OK;
    for (size_t j = first; j < out->n; j++) {
        double pct = busiest(s, (size_t)i, out->v[j].pid);
        out->v[j].sm_valid = pct >= 0;
        out->v[j].sm_percent = pct >= 0 ? pct : 0;
    }
    return GT_GPU_OK;
}

const gt_gpu_vendor gt_gpu_drm_fdinfo = {
    .name = "drm",
    .tool = "kernel's DRM fdinfo",
    /* Only under detection: --gb names a vendor library. */
    .brand = GT_GPU_AUTO,
    .init = drm_init,
    .shutdown = drm_shutdown,
    .uuid = drm_uuid,
    .memory_total = drm_memory_total,
    .memory_used = drm_memory_used,
    .utilization = drm_utilization,
    .power = drm_power,
    .energy = drm_energy,
    .procs_per_device = 1,
    .processes = drm_processes,
    .sm_free = 1,
};
