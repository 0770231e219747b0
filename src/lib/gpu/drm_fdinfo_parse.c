/* SPDX-License-Identifier: MIT */
/* The text of one DRM client's fdinfo (the kernel's
 * Documentation/gpu/drm-usage-stats.rst): its driver, device, client id,
 * each engine's busy time (or cycles) and each memory region's use. */
#include "gpu/drm_fdinfo.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REGIONS 16

typedef struct region {
    char name[GT_DRM_NAME_MAX];
    int has_resident, has_memory, has_total;
    uint64_t resident, memory, total;
} region;

/* Bytes of one unit name; 0 for an unknown one. */
static uint64_t unit_bytes(const char *u, size_t n)
{
    if (n == 0 || (n == 1 && u[0] == 'B'))
        return 1;
    if (n == 3 && !memcmp(u, "KiB", 3))
        return 1024;
    if (n == 3 && !memcmp(u, "MiB", 3))
        return 1024 * 1024;
    if (n == 3 && !memcmp(u, "GiB", 3))
        return 1024 * 1024 * 1024;
    return 0;
}

int gt_drm_fdinfo_uint(const char *p, const char *e, uint64_t *v, const char **unit, size_t *ulen)
{
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    if (p == e || *p < '0' || *p > '9')
        return -1;
    uint64_t x = 0;
    for (; p < e && *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (x > (UINT64_MAX - d) / 10)
            return -1;
        x = x * 10 + d;
    }
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    const char *u = p;
    while (p < e && *p != ' ' && *p != '\t' && *p != '\r')
        p++;
    *ulen = (size_t)(p - u);
    *unit = u;
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\r'))
        p++;
    if (p != e)
        return -1;
    *v = x;
    return 0;
}

/* A memory value in bytes; -1 for a malformed one or one past 2^64. */
static int read_bytes(const char *p, const char *e, uint64_t *v)
{
    const char *u;
    size_t n;
    uint64_t x;
    if (gt_drm_fdinfo_uint(p, e, &x, &u, &n) != 0)
        return -1;
    uint64_t m = unit_bytes(u, n);
    if (m == 0 || x > UINT64_MAX / m)
        return -1;
    *v = x * m;
    return 0;
}

static int read_plain(const char *p, const char *e, const char *want, uint64_t *v)
{
    const char *u;
    size_t n;
    if (gt_drm_fdinfo_uint(p, e, v, &u, &n) != 0)
        return -1;
    return n == 0 || (want && n == strlen(want) && !memcmp(u, want, n)) ? 0 : -1;
}

/* The string value of a line, trimmed; -1 when empty, too long, or holding
 * whitespace or control bytes (a NUL would end it early). */
static int read_str(const char *p, const char *e, char *out)
{
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        e--;
    if (p == e || (size_t)(e - p) >= GT_DRM_NAME_MAX)
        return -1;
    for (const char *q = p; q < e; q++)
        if ((unsigned char)*q <= ' ' || *q == 0x7f)
            return -1;
    memcpy(out, p, (size_t)(e - p));
    out[e - p] = '\0';
    return 0;
}

/* The named slot of a small table (engines or regions), added when new;
 * NULL when the name is too long or the table full. */
static gt_drm_engine *engine_of(gt_drm_client_info *c, const char *name, size_t n)
{
    if (n == 0 || n >= GT_DRM_NAME_MAX)
        return NULL;
    for (size_t k = 0; k < c->n_eng; k++)
        if (strlen(c->eng[k].name) == n && !memcmp(c->eng[k].name, name, n))
            return &c->eng[k];
    if (c->n_eng == GT_DRM_MAX_ENGINES)
        return NULL;
    gt_drm_engine *g = &c->eng[c->n_eng++];
    memset(g, 0, sizeof *g);
    memcpy(g->name, name, n);
    g->capacity = 1;
    return g;
}

static region *region_of(region *r, size_t *nr, const char *name, size_t n)
{
    if (n == 0 || n >= GT_DRM_NAME_MAX)
        return NULL;
    for (size_t k = 0; k < *nr; k++)
        if (strlen(r[k].name) == n && !memcmp(r[k].name, name, n))
            return &r[k];
    if (*nr == MAX_REGIONS)
        return NULL;
    region *g = &r[(*nr)++];
    memset(g, 0, sizeof *g);
    memcpy(g->name, name, n);
    return g;
}

static int starts(const char *k, size_t klen, const char *prefix, size_t *plen)
{
    *plen = strlen(prefix);
    return klen > *plen && !memcmp(k, prefix, *plen);
}

/* Device memory: a region whose name starts vram (amdgpu, xe) or local
 * (i915's lmem). */
static int device_local(const char *name)
{
    return !strncmp(name, "vram", 4) || !strncmp(name, "local", 5);
}

/* A client's GPU memory: what is resident (drm-resident-, or its deprecated
 * alias drm-memory-; drm-total- where a driver prints only that) in the
 * device's own memory when the client shows any device-local region (a
 * discrete GPU: GTT and system regions are host memory the process's RAM
 * already holds or the driver pins for it), else in every region (an
 * integrated GPU, whose memory is the host's). */
static void client_memory(gt_drm_client_info *c, const region *r, size_t nr)
{
    int discrete = 0;
    for (size_t k = 0; k < nr; k++)
        discrete |= device_local(r[k].name);
    c->mem_valid = 0;
    c->mem_bytes = 0;
    for (size_t k = 0; k < nr; k++) {
        if (discrete && !device_local(r[k].name))
            continue;
        uint64_t v;
        if (r[k].has_resident)
            v = r[k].resident;
        else if (r[k].has_memory)
            v = r[k].memory;
        else if (r[k].has_total)
            v = r[k].total;
        else
            continue;
        c->mem_valid = 1;
        c->mem_bytes = v > UINT64_MAX - c->mem_bytes ? UINT64_MAX : c->mem_bytes + v;
    }
}

/* One "drm-<key>: value" line, key without its "drm-" prefix. */
static void parse_line(gt_drm_client_info *c, region *r, size_t *nr, int *driver,
                       const char *k, size_t klen, const char *v, const char *e)
{
    size_t pl;
    int ok = 1;
    uint64_t x;
    if (klen == 6 && !memcmp(k, "driver", 6)) {
        ok = read_str(v, e, c->driver) == 0;
        *driver |= ok;
    } else if (klen == 4 && !memcmp(k, "pdev", 4)) {
        ok = read_str(v, e, c->pdev) == 0;
    } else if (klen == 9 && !memcmp(k, "client-id", 9)) {
        if ((ok = read_plain(v, e, NULL, &x) == 0)) {
            c->has_id = 1;
            c->client_id = x;
        }
    } else if (starts(k, klen, "engine-capacity-", &pl)) {
        gt_drm_engine *g = engine_of(c, k + pl, klen - pl);
        if (g && (ok = read_plain(v, e, NULL, &x) == 0 && x > 0))
            g->capacity = x;
    } else if (starts(k, klen, "engine-", &pl)) {
        gt_drm_engine *g = engine_of(c, k + pl, klen - pl);
        if (g && (ok = read_plain(v, e, "ns", &x) == 0)) {
            g->ns = x;
            g->has_ns = 1;
        }
    } else if (starts(k, klen, "total-cycles-", &pl)) {
        gt_drm_engine *g = engine_of(c, k + pl, klen - pl);
        if (g && (ok = read_plain(v, e, NULL, &x) == 0)) {
            g->total = x;
            g->has_total = 1;
        }
    } else if (starts(k, klen, "cycles-", &pl)) {
        gt_drm_engine *g = engine_of(c, k + pl, klen - pl);
        if (g && (ok = read_plain(v, e, NULL, &x) == 0)) {
            g->cycles = x;
            g->has_cycles = 1;
        }
    } else if (starts(k, klen, "resident-", &pl) || starts(k, klen, "memory-", &pl) ||
               starts(k, klen, "total-", &pl)) {
        region *g = region_of(r, nr, k + pl, klen - pl);
        if (g && (ok = read_bytes(v, e, &x) == 0)) {
            if (k[0] == 'r') {
                g->resident = x;
                g->has_resident = 1;
            } else if (k[0] == 'm') {
                g->memory = x;
                g->has_memory = 1;
            } else {
                g->total = x;
                g->has_total = 1;
            }
        }
    }
    if (!ok)
        c->bad_lines++;
}

/* Keys hold no whitespace ("drm-x y: 1" is not a key) and no control
 * bytes (a NUL would cut an engine's or region's name short). */
static int key_chars(const char *p, const char *e)
{
    for (; p < e; p++)
        if ((unsigned char)*p <= ' ' || *p == 0x7f)
            return 0;
    return 1;
}

int gt_drm_fdinfo_parse(const char *text, size_t len, gt_drm_client_info *out)
{
    memset(out, 0, sizeof *out);
    region r[MAX_REGIONS];
    size_t nr = 0;
    int driver = 0;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        const char *colon = memchr(p, ':', (size_t)(e - p));
        if (colon && colon - p > 4 && !memcmp(p, "drm-", 4) && key_chars(p, colon))
            parse_line(out, r, &nr, &driver, p + 4, (size_t)(colon - p - 4), colon + 1, e);
        p = nl ? nl + 1 : end;
    }
    client_memory(out, r, nr);
    return driver;
}

