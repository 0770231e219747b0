/* SPDX-License-Identifier: MIT */
#include "sampler/paths.h"
#include "util/grow.h"

#include <stdlib.h>
#include <string.h>

typedef struct slot {
    uint64_t hash;
    size_t off, len; /* into the arena */
    uint32_t id;
    int used;
} slot;

struct gt_paths {
    slot *slots;
    size_t nslots, count;
    char *arena;
    size_t arena_len, arena_cap;
};

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

gt_paths *gt_paths_new(void)
{
    gt_paths *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->nslots = 256;
    p->slots = calloc(p->nslots, sizeof *p->slots);
    if (!p->slots) {
        free(p);
        return NULL;
    }
    return p;
}

void gt_paths_free(gt_paths **pp)
{
    if (!pp || !*pp)
        return;
    free((*pp)->slots);
    free((*pp)->arena);
    free(*pp);
    *pp = NULL;
}

size_t gt_paths_count(const gt_paths *p) { return p->count; }

static slot *find(slot *slots, size_t nslots, uint64_t h, const char *arena,
                  const char *s, size_t n)
{
    for (size_t i = h & (nslots - 1);; i = (i + 1) & (nslots - 1)) {
        slot *sl = &slots[i];
        if (!sl->used || (sl->hash == h && sl->len == n &&
                          (n == 0 || memcmp(arena + sl->off, s, n) == 0)))
            return sl;
    }
}

static int rehash(gt_paths *p)
{
    size_t nn = p->nslots * 2;
    slot *ns = calloc(nn, sizeof *ns);
    if (!ns)
        return -1;
    for (size_t i = 0; i < p->nslots; i++)
        if (p->slots[i].used)
            for (size_t j = p->slots[i].hash & (nn - 1);; j = (j + 1) & (nn - 1))
                if (!ns[j].used) {
                    ns[j] = p->slots[i];
                    break;
                }
    free(p->slots);
    p->slots = ns;
    p->nslots = nn;
    return 0;
}

int gt_paths_intern(gt_paths *p, const char *path, size_t len, uint32_t *id)
{
    uint64_t h = fnv1a(path, len);
    slot *sl = find(p->slots, p->nslots, h, p->arena, path, len);
    if (sl->used) {
        *id = sl->id;
        return 0;
    }
    if ((p->count + 1) * 2 > p->nslots) {
        if (rehash(p) != 0)
            return -1;
        sl = find(p->slots, p->nslots, h, p->arena, path, len);
    }
    if (p->arena_len + len > p->arena_cap) {
        size_t nc = gt_grow_cap(p->arena_cap, p->arena_len + len, 4096, 1);
        char *na = nc ? realloc(p->arena, nc) : NULL;
        if (!na)
            return -1;
        p->arena = na;
        p->arena_cap = nc;
    }
    if (len)
        memcpy(p->arena + p->arena_len, path, len);
    *sl = (slot){h, p->arena_len, len, (uint32_t)p->count, 1};
    p->arena_len += len;
    *id = (uint32_t)p->count++;
    return 0;
}
