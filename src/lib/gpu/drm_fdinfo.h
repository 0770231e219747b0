/* SPDX-License-Identifier: MIT */
/* The DRM fdinfo backend's parser and its opening over given roots, for the
 * unit tests; the tracker reaches the backend through gt_gpu_drm_fdinfo
 * (backend.h) only. */
#ifndef GT_GPU_DRM_FDINFO_H
#define GT_GPU_DRM_FDINFO_H
#include <stddef.h>
#include <stdint.h>
#include "gpu/backend.h"

#define GT_DRM_MAX_ENGINES 16
#define GT_DRM_NAME_MAX 32

/* One engine (drm-engine-<name>, drm-cycles-<name>, ...) of one client. */
typedef struct gt_drm_engine {
    char name[GT_DRM_NAME_MAX];
    int has_ns, has_cycles, has_total;
    uint64_t ns;            /* drm-engine-<name>: busy time */
    uint64_t cycles;        /* drm-cycles-<name>: busy cycles */
    uint64_t total;         /* drm-total-cycles-<name>: the GPU's clock */
    uint64_t capacity;      /* drm-engine-capacity-<name>; 1 when absent */
} gt_drm_engine;

/* What one /proc/PID/fdinfo/FD says of its DRM client. */
typedef struct gt_drm_client_info {
    char driver[GT_DRM_NAME_MAX];
    char pdev[GT_DRM_NAME_MAX];   /* "" where the driver prints none */
    int has_id;
    uint64_t client_id;
    /* The client's GPU memory (see drm_fdinfo.c: client_memory); 0-valid
     * when the driver prints no memory key. */
    int mem_valid;
    uint64_t mem_bytes;
    gt_drm_engine eng[GT_DRM_MAX_ENGINES];
    size_t n_eng;
    /* drm- lines whose value could not be read (no number, overflow, an
     * unknown unit): left out, counted here. */
    unsigned bad_lines;
} gt_drm_client_info;

/* Parses an fdinfo text (len bytes, not NUL-terminated).  1: a DRM client
 * (a drm-driver line); 0: another kind of file. */
int gt_drm_fdinfo_parse(const char *text, size_t len, gt_drm_client_info *out);

/* Reads "<uint>[ws][unit]" from [p, e) (an fdinfo value, a sysfs figure):
 * 0 and the value in *v, *unit and *ulen the unit's text; -1 for no digits,
 * overflow or trailing text. */
int gt_drm_fdinfo_uint(const char *p, const char *e, uint64_t *v, const char **unit, size_t *ulen);

/* Opens the backend over proc_root and sys_root (NULL: /proc and /sys);
 * what the vendor table's init does with the real ones.  now_ns, when not
 * NULL, replaces CLOCK_MONOTONIC for the utilization's wall time. */
gt_gpu_found gt_drm_fdinfo_open(const char *proc_root, const char *sys_root, uint64_t (*now_ns)(void),
                                void **state, int *count, gt_gpu_why *why);
#endif
