/* SPDX-License-Identifier: MIT */
/* The table each GPU backend fills (nvml.c, rocm_smi.c, drm_fdinfo.c);
 * vendors.h lists them, vendors.c keeps them in one array, gpu.c is the only
 * caller of their functions and the rest of the code reads their names
 * through the brand functions of the public API (vendors.c).  Everything a
 * vendor is (its name on the command line, the library it loads and the
 * variable that overrides it, the text its warnings name, what it can
 * read) is in its own file and its entry here, so a new vendor is that file
 * and one line in vendors.h (and, where --gb is to name it, one enumerator
 * at the end of gt_gpu_brand in the public header).
 *
 * A vendor backend loads its library with dlopen (drm_fdinfo.c reads the
 * kernel's files and needs none), declares only the types and functions it
 * uses, and keeps all its state in the opaque pointer that init returns (no
 * file globals), so two trackers can each hold one.
 *
 * Every reading returns a gt_gpu_rc and, when not GT_GPU_OK, fills a
 * gt_gpu_why naming the vendor function and its error text; gpu.c turns that
 * into one warning per device and figure.  A reading that failed leaves its
 * output untouched: not available is not zero. */
#ifndef GT_GPU_BACKEND_H
#define GT_GPU_BACKEND_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "gpu_tracker.h"
#include "gpu/gpu.h"

typedef enum gt_gpu_rc {
    GT_GPU_OK = 0,
    GT_GPU_MISSING,       /* the installed library lacks the function */
    GT_GPU_UNSUPPORTED,   /* the device or driver does not support it */
    GT_GPU_NO_PERMISSION,
    GT_GPU_LOST,          /* the device fell off the bus or was removed */
    GT_GPU_ERROR          /* any other failure */
} gt_gpu_rc;

typedef struct gt_gpu_why {
    const char *func;     /* vendor function that failed (static string) */
    /* The vendor's error text and code, as "<text>, <library> error <code>"
     * (or "status"): "Driver Not Loaded, NVML error 9".  The notebook's
     * status line reads the text and the library's name from it. */
    char detail[192];
} gt_gpu_why;

/* What init found. */
typedef enum gt_gpu_found {
    GT_GPU_FOUND = 0,       /* library loaded and initialized, >= 1 device */
    GT_GPU_NOT_INSTALLED,   /* the library cannot be loaded */
    GT_GPU_NO_DEVICE        /* loaded, but it cannot initialize or sees no device */
} gt_gpu_found;

/* One process's use of a device at one sample. */
typedef struct gt_gpu_proc {
    pid_t pid;
    int mem_valid;          /* 0: the vendor reports no figure for it */
    uint64_t mem_bytes;
    int sm_valid;           /* per-process SM utilization known */
    double sm_percent;
} gt_gpu_proc;

/* A growable process list owned by gpu.c, filled by the backend; grow()
 * makes room for at least n entries (0 on success, -1 out of memory). */
typedef struct gt_gpu_procs {
    gt_gpu_proc *v;
    size_t n, cap;
    /* Per call, set by the backend: sm_rc is GT_GPU_OK when per-process SM
     * utilization was read (processes absent from the vendor's samples were
     * idle: sm_valid with 0 percent); otherwise sm_why says why not. */
    gt_gpu_rc sm_rc;
    gt_gpu_why sm_why;
    /* Set by gpu.c before each call: 0 when per-process SM utilization is
     * not to be read this time (a slow reading held to its budget; gpu.c
     * carries the last percents).  The backend then leaves sm_* alone. */
    int want_sm;
    /* Set by gpu.c before each call: the sample's tracked processes, and a
     * number that grows by one each sample, for a backend that reads
     * per-process files itself (drm_fdinfo.c) rather than asking a driver
     * for every process of the machine. */
    const gt_pidset *pids;
    unsigned long seq;
} gt_gpu_procs;
int gt_gpu_procs_reserve(gt_gpu_procs *p, size_t n);

typedef struct gt_gpu_vendor {
    /* The brand's name: what --gb, the --tconfig key gpu_brand and the
     * Python Tracker's gpu_brand take ("nvidia"), where brand is not
     * GT_GPU_AUTO. */
    const char *name;
    /* What the warnings name when the vendor cannot be used: the library and
     * its file ("NVIDIA NVML library (libnvidia-ml.so.1)"), where the Python
     * package's warnings name its command. */
    const char *tool;
    /* The public enumerator --gb selects it by; GT_GPU_AUTO: only tried
     * under detection, never named (drm_fdinfo.c). */
    gt_gpu_brand brand;
    /* Loads and initializes the library.  GT_GPU_FOUND: *state is set and
     * must be released with shutdown.  Otherwise nothing is held and why (if
     * the library loaded) says what failed.  *count is the device count.
     * sysfs_root (NULL: /sys) is where a backend may look for its devices
     * before initializing the library. */
    gt_gpu_found (*init)(const char *sysfs_root, void **state, int *count, gt_gpu_why *why);
    void (*shutdown)(void *state);   /* accepts NULL; unloads the library */
    /* Static facts of device i (0 <= i < count): UUID as the vendor's tool
     * prints it, total memory in bytes (GT_GPU_UNSUPPORTED where the driver
     * gives none: the device is kept, its capacity left out of the sum). */
    gt_gpu_rc (*uuid)(void *state, int i, char *buf, size_t len, gt_gpu_why *why);
    gt_gpu_rc (*memory_total)(void *state, int i, uint64_t *bytes, gt_gpu_why *why);
    /* Per-sample readings of device i. */
    gt_gpu_rc (*memory_used)(void *state, int i, uint64_t *bytes, gt_gpu_why *why);
    gt_gpu_rc (*utilization)(void *state, int i, double *percent, gt_gpu_why *why);
    gt_gpu_rc (*power)(void *state, int i, double *watts, gt_gpu_why *why);
    /* Cumulative energy counter in joules; only differences are meaningful. */
    gt_gpu_rc (*energy)(void *state, int i, double *joules, gt_gpu_why *why);
    /* Processes using device i, appended to out.  When procs_per_device is 0
     * the vendor only lists processes system-wide: called once per sample
     * with i = -1. */
    int procs_per_device;
    gt_gpu_rc (*processes)(void *state, int i, gt_gpu_procs *out, gt_gpu_why *why);
    /* 1 when per-process utilization costs nothing beyond the listing itself
     * (drm_fdinfo.c reads both from the same files): it is then read every
     * sample, never held to the slow readings' budget (gpu.c). */
    int sm_free;
} gt_gpu_vendor;

#define GT_GPU_VENDOR(v) extern const gt_gpu_vendor v;
#include "gpu/vendors.h"
#undef GT_GPU_VENDOR

/* Every backend, in detection order (vendors.h). */
enum {
    GT_GPU_N_VENDORS = 0
#define GT_GPU_VENDOR(v) + 1
#include "gpu/vendors.h"
#undef GT_GPU_VENDOR
};
extern const gt_gpu_vendor *const gt_gpu_vendors[GT_GPU_N_VENDORS];
/* The backend --gb names by brand, or NULL (GT_GPU_AUTO, or a number no
 * backend has). */
const gt_gpu_vendor *gt_gpu_vendor_of(gt_gpu_brand brand);

/* Shared by the backends: dlopen of the library named by the environment
 * variable env, else of each name in order (NULL-terminated).  NULL when none
 * loads. */
void *gt_gpu_dlopen(const char *env, const char *const *names);
/* The first of names (NULL-terminated, newest version first) that handle
 * exports, or NULL. */
void *gt_gpu_dlsym(void *handle, const char *const *names, const char **found);
#endif
