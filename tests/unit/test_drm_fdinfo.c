/* SPDX-License-Identifier: MIT */
/* The DRM fdinfo backend (gpu/drm_fdinfo.c): its parser over real drivers'
 * texts (tests/fixtures/drm_fdinfo) and malformed ones, and the backend over
 * a fake /proc and /sys holding them: a client shared by two descriptors and
 * two processes counted once, devices told apart by drm-pdev, utilization
 * from two samples with known engine-time deltas, descriptors known not to
 * be DRM not read again, and the whole through gt_gpu_open and
 * gt_gpu_sample. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu/backend.h"
#include "gpu/drm_fdinfo.h"
#include "gpu/gpu.h"

#define KIB 1024ull
#define MIB (1024ull * 1024)

/* Short enough that every path built from them fits PATH_MAX. */
static char fixtures[1024];
static char root[] = "/tmp/gt-test-drm-XXXXXX";
static char proc[64], sys_dir[64];

/* A fixture's text, NUL-terminated, in a static buffer per call site. */
static char *load(const char *name, char *buf, size_t cap)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", fixtures, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open fixture '%s'", path);
    size_t n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static int parse(const char *text, gt_drm_client_info *c)
{
    return gt_drm_fdinfo_parse(text, strlen(text), c);
}

static const gt_drm_engine *engine(const gt_drm_client_info *c, const char *name)
{
    for (size_t k = 0; k < c->n_eng; k++)
        if (!strcmp(c->eng[k].name, name))
            return &c->eng[k];
    fail_msg("no engine '%s'", name);
    return NULL;
}

/* ---------------------------------------------------------------- parser */

static void parse_i915(void **state)
{
    (void)state;
    char buf[4096];
    gt_drm_client_info c;
    assert_int_equal(parse(load("i915.txt", buf, sizeof buf), &c), 1);
    assert_string_equal(c.driver, "i915");
    assert_string_equal(c.pdev, "0000:00:02.0");
    assert_true(c.has_id);
    assert_int_equal(c.client_id, 39);
    /* Integrated: every region is the host's memory, all counted. */
    assert_true(c.mem_valid);
    assert_int_equal(c.mem_bytes, 6044 * KIB);
    assert_int_equal(engine(&c, "render")->ns, 346249);
    assert_true(engine(&c, "render")->has_ns);
    assert_int_equal(engine(&c, "video")->capacity, 2);
    assert_int_equal(engine(&c, "copy")->capacity, 1);
    assert_int_equal(c.n_eng, 4);
    assert_int_equal(c.bad_lines, 0);
}

static void parse_xe(void **state)
{
    (void)state;
    char buf[4096];
    gt_drm_client_info c;
    assert_int_equal(parse(load("xe.txt", buf, sizeof buf), &c), 1);
    assert_string_equal(c.pdev, "0000:03:00.0");
    assert_int_equal(c.client_id, 3);
    /* Discrete: only vram0 (not gtt, system, stolen); resident, not total
     * or shared (16 MiB). */
    assert_int_equal(c.mem_bytes, 23992 * KIB);
    /* drm-total-cycles- keys are engines' clocks, not memory regions. */
    const gt_drm_engine *rcs = engine(&c, "rcs");
    assert_true(rcs->has_cycles && rcs->has_total && !rcs->has_ns);
    assert_int_equal(rcs->cycles, 28257900);
    assert_int_equal(rcs->total, 7655183225ull);
    assert_int_equal(engine(&c, "ccs")->capacity, 4);
    assert_int_equal(engine(&c, "vecs")->capacity, 2);
    assert_int_equal(c.n_eng, 5);
    assert_int_equal(c.bad_lines, 0);
}

static void parse_amdgpu(void **state)
{
    (void)state;
    char buf[4096];
    gt_drm_client_info c;
    assert_int_equal(parse(load("amdgpu.txt", buf, sizeof buf), &c), 1);
    assert_string_equal(c.pdev, "0000:0b:00.0");
    assert_int_equal(c.client_id, 1187);
    /* drm-resident-vram, not also its alias drm-memory-vram, nor the
     * 1 GiB allocated (drm-total-vram), nor GTT. */
    assert_int_equal(c.mem_bytes, 512 * MIB);
    assert_int_equal(engine(&c, "gfx")->ns, 784986021477ull);
    assert_int_equal(c.bad_lines, 0);

    assert_int_equal(parse(load("amdgpu-6.5.txt", buf, sizeof buf), &c), 1);
    assert_string_equal(c.driver, "amdgpu");
    assert_int_equal(c.client_id, 94);
    /* Only the legacy drm-memory- keys ("drm-memory-gtt: \t" included). */
    assert_int_equal(c.mem_bytes, 256 * MIB);
    assert_int_equal(c.bad_lines, 0);
}

static void parse_panfrost(void **state)
{
    (void)state;
    char buf[4096];
    gt_drm_client_info c;
    assert_int_equal(parse(load("panfrost.txt", buf, sizeof buf), &c), 1);
    assert_string_equal(c.pdev, "");
    /* Region "memory" is the host's: resident, not the 290 MiB total. */
    assert_int_equal(c.mem_bytes, 36496 * KIB);
    assert_int_equal(engine(&c, "fragment")->ns, 1846584880ull);
    /* drm-maxfreq-/drm-curfreq- in Hz are not read. */
    assert_int_equal(c.bad_lines, 0);
}

static void parse_malformed(void **state)
{
    (void)state;
    gt_drm_client_info c;
    /* Not a DRM file: no drm-driver line. */
    assert_int_equal(parse("pos:\t0\nflags:\t02\nmnt_id:\t3\nino:\t9\n", &c), 0);
    assert_int_equal(parse("", &c), 0);
    assert_int_equal(parse("drm-client-id:\t5\ndrm-engine-gfx:\t5 ns\n", &c), 0);
    assert_int_equal(parse("drm-driver:\t\n", &c), 0);
    /* Control bytes: in a value, the line is bad; in a key, no key. */
    const char nul[] = "drm-driver:\t\0i915\ndrm-pdev:\t0000\x01:00:02.0\n";
    assert_int_equal(gt_drm_fdinfo_parse(nul, sizeof nul - 1, &c), 0);
    assert_int_equal(c.bad_lines, 2);
    assert_string_equal(c.pdev, "");
    const char nul_key[] = "drm-driver:\ti915\ndrm-engine-\0render:\t5 ns\ndrm-resident-\x01a:\t5\n";
    assert_int_equal(gt_drm_fdinfo_parse(nul_key, sizeof nul_key - 1, &c), 1);
    assert_int_equal(c.n_eng, 0);
    assert_false(c.mem_valid);

    /* Missing keys: no id, no pdev, no memory. */
    assert_int_equal(parse("drm-driver:\ti915\ndrm-engine-render:\t10 ns", &c), 1);
    assert_false(c.has_id);
    assert_string_equal(c.pdev, "");
    assert_false(c.mem_valid);
    assert_int_equal(engine(&c, "render")->ns, 10);

    /* Each bad value is left out and counted, never read as 0. */
    assert_int_equal(parse("drm-driver:\txe\n"
                           "drm-client-id:\t18446744073709551616\n"  /* 2^64 */
                           "drm-engine-render:\tabc ns\n"
                           "drm-engine-copy:\t12 ms\n"              /* not ns */
                           "drm-engine-capacity-video:\t0\n"        /* zero not allowed */
                           "drm-resident-vram0:\t12 TiB\n"          /* unknown unit */
                           "drm-resident-vram1:\t17179869184 GiB\n" /* 2^64 bytes */
                           "drm-resident-vram2:\t-5\n"
                           "drm-resident-vram3:\t5 KiB trailing\n"
                           "drm-resident-vram4:\n"
                           "drm-resident-local0:\t3 MiB\n"
                           "drm-resident-gtt:\t7\n"
                           "drm-total-vram5:\t17179869183 GiB\n", &c), 1);
    assert_int_equal(c.bad_lines, 9);
    assert_false(c.has_id);
    /* What remains readable: local0 3 MiB and vram5's total, the largest
     * value below 2^64 bytes that a GiB count gives; gtt is host memory. */
    assert_true(c.mem_valid);
    assert_int_equal(c.mem_bytes, 3 * MIB + 17179869183ull * 1024 * MIB);
    assert_false(engine(&c, "render")->has_ns);

    /* Units: none and B are bytes; KiB, MiB, GiB; a space or tab between. */
    assert_int_equal(parse("drm-driver:\tmsm\ndrm-resident-memory:\t100\n", &c), 1);
    assert_int_equal(c.mem_bytes, 100);
    assert_int_equal(parse("drm-driver:\tmsm\ndrm-resident-memory: 2 GiB\r\n", &c), 1);
    assert_int_equal(c.mem_bytes, 2048 * MIB);
    assert_int_equal(parse("drm-driver:\tmsm\ndrm-resident-a:\t1 KiB\ndrm-resident-b:\t1 MiB\n"
                           "drm-resident-c:\t1 B\n", &c), 1);
    assert_int_equal(c.mem_bytes, KIB + MIB + 1);
    /* Sums that would pass 2^64 stop there. */
    assert_int_equal(parse("drm-driver:\tmsm\ndrm-resident-a:\t17179869183 GiB\n"
                           "drm-resident-b:\t17179869183 GiB\n", &c), 1);
    assert_int_equal(c.mem_bytes, UINT64_MAX);

    /* A key holding whitespace is not a key; a line without a colon is
     * skipped; a name longer than the table's is left out. */
    assert_int_equal(parse("drm-driver:\ti915\ndrm engine-x:\t5 ns\ngarbage\n"
                           "drm-engine-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:\t5 ns\n", &c), 1);
    assert_int_equal(c.n_eng, 0);
    /* More engines than the table holds: the first ones are kept. */
    char many[4096] = "drm-driver:\ti915\n";
    for (int k = 0; k < 40; k++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "drm-engine-e%d:\t%d ns\n", k, k);
    assert_int_equal(parse(many, &c), 1);
    assert_int_equal(c.n_eng, GT_DRM_MAX_ENGINES);
    assert_int_equal(engine(&c, "e15")->ns, 15);
}

/* Text is a prefix of a real fdinfo: nothing is read past len. */
static void parse_bounded(void **state)
{
    (void)state;
    const char text[] = "drm-driver:\ti915\ndrm-engine-render:\t123456 ns\n";
    gt_drm_client_info c;
    size_t cut = strlen("drm-driver:\ti915\ndrm-engine-render:\t123");
    assert_int_equal(gt_drm_fdinfo_parse(text, cut, &c), 1);
    assert_int_equal(engine(&c, "render")->ns, 123);
}

/* ------------------------------------------------------------ fake trees */

static uint64_t fake_now;
static uint64_t fake_clock(void) { return fake_now; }

__attribute__((format(printf, 1, 2)))
static void mkdirs(const char *fmt, ...)
{
    char path[PATH_MAX], cmd[PATH_MAX + 16];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(path, sizeof path, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
    assert_int_equal(system(cmd), 0);
}

__attribute__((format(printf, 2, 3)))
static void write_file(const char *text, const char *fmt, ...)
{
    char path[PATH_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(path, sizeof path, fmt, ap);
    va_end(ap);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* A card of driver at pci (NULL: a platform device). */
static void card(int n, const char *driver, const char *pci)
{
    mkdirs("%s/class/drm/card%d/device", sys_dir, n);
    char uevent[256];
    snprintf(uevent, sizeof uevent, "DRIVER=%s\n%s%s%sMODALIAS=x\n", driver, pci ? "PCI_SLOT_NAME=" : "",
             pci ? pci : "", pci ? "\n" : "");
    write_file(uevent, "%s/class/drm/card%d/device/uevent", sys_dir, n);
}

/* Descriptor fd of pid: a link to target, and its fdinfo text. */
static void fd_of(int pid, int fd, const char *target, const char *text)
{
    mkdirs("%s/%d/fd", proc, pid);
    mkdirs("%s/%d/fdinfo", proc, pid);
    char link[PATH_MAX];
    snprintf(link, sizeof link, "%s/%d/fd/%d", proc, pid, fd);
    unlink(link);
    assert_int_equal(symlink(target, link), 0);
    write_file(text, "%s/%d/fdinfo/%d", proc, pid, fd);
}

/* text with the value of key's line replaced (the key must be there). */
static char *with(const char *text, const char *key, const char *value)
{
    static char out[32][4096];
    static int slot;
    char *o = out[slot++ % 32];
    char k[128];
    snprintf(k, sizeof k, "\n%s:", key);
    const char *at = strstr(text, k);
    assert_non_null(at);
    at += strlen(k);
    const char *eol = strchr(at, '\n');
    snprintf(o, 4096, "%.*s\t%s%s", (int)(at - text), text, value, eol ? eol : "");
    return o;
}

static int tree_setup(void **state)
{
    (void)state;
    char cwd[900];
    if (!getcwd(cwd, sizeof cwd) || !mkdtemp(root))
        return -1;
    snprintf(fixtures, sizeof fixtures, "%s/tests/fixtures/drm_fdinfo", cwd);
    snprintf(proc, sizeof proc, "%s/proc", root);
    snprintf(sys_dir, sizeof sys_dir, "%s/sys", root);
    return 0;
}

static int tree_teardown(void **state)
{
    (void)state;
    char cmd[PATH_MAX];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd);
}

/* Resets the fake tree: i915 at 0000:00:02.0 (card0), amdgpu at
 * 0000:0b:00.0 (card1, with its sysfs figures), xe at 0000:03:00.0 (card3);
 * a display-only ast card, a connector and a render node, all ignored. */
static void base_tree(void)
{
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", proc, sys_dir);
    assert_int_equal(system(cmd), 0);
    mkdirs("%s", proc);
    card(0, "i915", "0000:00:02.0");
    card(1, "amdgpu", "0000:0b:00.0");
    write_file("17163091968\n", "%s/class/drm/card1/device/mem_info_vram_total", sys_dir);
    write_file("1073741824\n", "%s/class/drm/card1/device/mem_info_vram_used", sys_dir);
    write_file("42\n", "%s/class/drm/card1/device/gpu_busy_percent", sys_dir);
    card(2, "ast", "0000:05:00.0");
    card(3, "xe", "0000:03:00.0");
    mkdirs("%s/class/drm/card0-DP-1", sys_dir);
    mkdirs("%s/class/drm/renderD128/device", sys_dir);
    write_file("not a device\n", "%s/regular", root);
}

static const pid_t main_pids[] = {100};
static const pid_t desc_pids[] = {200, 300};
static const gt_pidset pids = {main_pids, 1, desc_pids, 2};

static const gt_gpu_proc *proc_of(const gt_gpu_procs *p, size_t first, pid_t pid)
{
    for (size_t k = first; k < p->n; k++)
        if (p->v[k].pid == pid)
            return &p->v[k];
    return NULL;
}

/* One sample of device i, as gpu.c calls it; the entries from *first. */
static void sample(void *st, gt_gpu_procs *p, int i, int new_sample, size_t *first)
{
    if (new_sample) {
        p->seq++;
        p->n = 0;
    }
    p->pids = &pids;
    p->want_sm = 1;
    p->sm_rc = GT_GPU_MISSING;
    *first = p->n;
    gt_gpu_why why = {0};
    assert_int_equal(gt_gpu_drm_fdinfo.processes(st, i, p, &why), GT_GPU_OK);
}

static void backend_over_fake_tree(void **state)
{
    (void)state;
    base_tree();
    char i915[4096], amd[4096], xe[4096];
    load("i915.txt", i915, sizeof i915);
    load("amdgpu.txt", amd, sizeof amd);
    load("xe.txt", xe, sizeof xe);
    /* Client 39 of the i915: fds 3 and 4 of the main process (dup) and
     * fd 7 of a child (fork); the child's own client 40 on fd 8. */
    fd_of(100, 3, "/dev/null", i915);
    fd_of(100, 4, "/dev/null", i915);
    fd_of(200, 7, "/dev/null", i915);
    char *i915_40 = with(i915, "drm-client-id", "40");
    fd_of(200, 8, "/dev/null", i915_40);
    fd_of(100, 5, "/dev/null", amd);
    fd_of(300, 3, "/dev/null", xe);
    /* Not DRM files: a regular file whose fdinfo would say otherwise is not
     * read (not a character device), and a character device without a
     * drm-driver line. */
    char regular[PATH_MAX + 16];
    snprintf(regular, sizeof regular, "%s/regular", root);
    fd_of(100, 0, regular, i915_40);
    fd_of(100, 1, "/dev/null", "pos:\t0\nflags:\t02\nmnt_id:\t1\nino:\t5\n");
    /* A process not tracked holds client 41. */
    fd_of(999, 3, "/dev/null", with(i915, "drm-client-id", "41"));

    void *st = NULL;
    int count = 0;
    gt_gpu_why why = {0};
    fake_now = 1000000000;
    assert_int_equal(gt_drm_fdinfo_open(proc, sys_dir, fake_clock, &st, &count, &why), GT_GPU_FOUND);
    /* i915, amdgpu and xe; not ast. Ordered by PCI address. */
    assert_int_equal(count, 3);
    char uuid[GT_GPU_UUID_MAX];
    const char *want[] = {"0000:00:02.0", "0000:03:00.0", "0000:0b:00.0"};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(gt_gpu_drm_fdinfo.uuid(st, i, uuid, sizeof uuid, &why), GT_GPU_OK);
        assert_string_equal(uuid, want[i]);
    }
    uint64_t bytes;
    double pct;
    assert_int_equal(gt_gpu_drm_fdinfo.memory_total(st, 0, &bytes, &why), GT_GPU_UNSUPPORTED);
    assert_non_null(why.func);
    assert_int_equal(gt_gpu_drm_fdinfo.memory_total(st, 2, &bytes, &why), GT_GPU_OK);
    assert_int_equal(bytes, 17163091968ull);
    assert_int_equal(gt_gpu_drm_fdinfo.memory_used(st, 2, &bytes, &why), GT_GPU_OK);
    assert_int_equal(bytes, 1073741824ull);
    assert_int_equal(gt_gpu_drm_fdinfo.utilization(st, 2, &pct, &why), GT_GPU_OK);
    assert_true(pct == 42.0);
    assert_int_equal(gt_gpu_drm_fdinfo.utilization(st, 1, &pct, &why), GT_GPU_UNSUPPORTED);

    gt_gpu_procs p = {0};
    size_t first;
    /* Sample 1: memory; no utilization yet (one reading of each client). */
    sample(st, &p, 0, 1, &first);
    assert_int_equal(p.n - first, 2);
    const gt_gpu_proc *m = proc_of(&p, first, 100), *c = proc_of(&p, first, 200);
    assert_non_null(m);
    assert_non_null(c);
    assert_true(m->mem_valid && c->mem_valid);
    assert_int_equal(m->mem_bytes, 6044 * KIB);   /* client 39 once, to the main process */
    assert_int_equal(c->mem_bytes, 6044 * KIB);   /* client 40 only */
    assert_false(m->sm_valid);
    assert_int_equal(p.sm_rc, GT_GPU_OK);
    sample(st, &p, 1, 0, &first);
    assert_int_equal(p.n - first, 1);
    assert_int_equal(p.v[first].pid, 300);
    assert_int_equal(p.v[first].mem_bytes, 23992 * KIB);
    sample(st, &p, 2, 0, &first);
    assert_int_equal(p.n - first, 1);
    assert_int_equal(p.v[first].pid, 100);
    assert_int_equal(p.v[first].mem_bytes, 512 * MIB);

    /* Sample 2, 2 s later: client 39 rendered 1 s (50 %) and decoded
     * 3.2 s on its two video engines (80 %); client 40 rendered 0.5 s
     * (25 %); the amdgpu client 1.5 s of gfx (75 %); the xe client 300 of
     * 1000 rcs cycles (30 %) and 2000 of 4 x 1000 ccs cycles (50 %). */
    fake_now += 2000000000;
    char *i915_b = with(with(i915, "drm-engine-render", "1000346249 ns"), "drm-engine-video", "3200000000 ns");
    fd_of(100, 3, "/dev/null", i915_b);
    fd_of(100, 4, "/dev/null", i915_b);
    fd_of(200, 7, "/dev/null", i915_b);
    fd_of(200, 8, "/dev/null", with(i915_40, "drm-engine-render", "500346249 ns"));
    fd_of(100, 5, "/dev/null", with(amd, "drm-engine-gfx", "786486021477 ns"));
    fd_of(300, 3, "/dev/null",
          with(with(with(with(xe, "drm-cycles-rcs", "28258200"), "drm-total-cycles-rcs", "7655184225"),
                    "drm-cycles-ccs", "2000"), "drm-total-cycles-ccs", "7655184225"));
    sample(st, &p, 0, 1, &first);
    m = proc_of(&p, first, 100);
    c = proc_of(&p, first, 200);
    assert_true(m->sm_valid && c->sm_valid);
    assert_float_equal(m->sm_percent, 80.0, 1e-9);
    assert_float_equal(c->sm_percent, 25.0, 1e-9);
    assert_int_equal(m->mem_bytes, 6044 * KIB);
    sample(st, &p, 1, 0, &first);
    assert_float_equal(p.v[first].sm_percent, 50.0, 1e-9);
    sample(st, &p, 2, 0, &first);
    assert_float_equal(p.v[first].sm_percent, 75.0, 1e-9);

    /* Sample 3, 1 s later: a counter below its last value (the kernel
     * lets them lag) is held at the last, not read as a huge delta. */
    fake_now += 1000000000;
    fd_of(100, 3, "/dev/null", with(i915_b, "drm-engine-render", "900000000 ns"));
    fd_of(100, 4, "/dev/null", with(i915_b, "drm-engine-render", "900000000 ns"));
    fd_of(200, 7, "/dev/null", with(i915_b, "drm-engine-render", "900000000 ns"));
    sample(st, &p, 0, 1, &first);
    m = proc_of(&p, first, 100);
    assert_true(m->sm_valid);
    assert_float_equal(m->sm_percent, 0.0, 1e-9);

    /* The main process closes its descriptors of client 39: the child,
     * still holding it, now counts it. */
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/100/fd/3", proc);
    unlink(path);
    snprintf(path, sizeof path, "%s/100/fd/4", proc);
    unlink(path);
    fake_now += 1000000000;
    sample(st, &p, 0, 1, &first);
    assert_null(proc_of(&p, first, 100));
    c = proc_of(&p, first, 200);
    assert_int_equal(c->mem_bytes, 2 * 6044 * KIB);

    free(p.v);
    gt_gpu_drm_fdinfo.shutdown(st);
}

/* A descriptor known not to be a DRM file is not read again while it names
 * the same file; one that now names another file is. */
static void descriptor_cache(void **state)
{
    (void)state;
    base_tree();
    char i915[4096];
    load("i915.txt", i915, sizeof i915);
    fd_of(100, 1, "/dev/null", "pos:\t0\nflags:\t02\n");
    void *st = NULL;
    int count = 0;
    gt_gpu_why why = {0};
    assert_int_equal(gt_drm_fdinfo_open(proc, sys_dir, fake_clock, &st, &count, &why), GT_GPU_FOUND);
    gt_gpu_procs p = {0};
    size_t first;
    sample(st, &p, 0, 1, &first);
    assert_int_equal(p.n, 0);
    /* Same file (the same /dev/null): its fdinfo is not read again, so a
     * changed text is not seen. */
    fd_of(100, 1, "/dev/null", i915);
    sample(st, &p, 0, 1, &first);
    assert_int_equal(p.n, 0);
    /* Another file on the same descriptor number: read. */
    fd_of(100, 1, "/dev/zero", i915);
    sample(st, &p, 0, 1, &first);
    assert_int_equal(p.n, 1);
    assert_int_equal(p.v[0].mem_bytes, 6044 * KIB);
    /* A descriptor whose fdinfo cannot be read (gone between the listing
     * and the read) is not taken as known: read when it can be. */
    char link[PATH_MAX];
    snprintf(link, sizeof link, "%s/100/fd/6", proc);
    assert_int_equal(symlink("/dev/null", link), 0);
    sample(st, &p, 0, 1, &first);
    assert_int_equal(p.n, 1);
    write_file(with(i915, "drm-client-id", "66"), "%s/100/fdinfo/6", proc);
    sample(st, &p, 0, 1, &first);
    assert_int_equal(p.n, 1);
    assert_int_equal(p.v[0].mem_bytes, 2 * 6044 * KIB);
    unlink(link);
    /* A client of a card not served here (ast, 0000:05:00.0) is not read
     * again either. */
    fd_of(100, 2, "/dev/full", with(i915, "drm-pdev", "0000:05:00.0"));
    sample(st, &p, 0, 1, &first);
    assert_int_equal(p.n, 1);
    fd_of(100, 2, "/dev/full", with(i915, "drm-client-id", "77"));
    sample(st, &p, 0, 1, &first);
    assert_int_equal(p.n, 1);
    assert_int_equal(p.v[0].mem_bytes, 6044 * KIB);
    free(p.v);
    gt_gpu_drm_fdinfo.shutdown(st);
}

/* A sample that does not publish shares (gpu.c's budget for slow readings:
 * want_sm 0) loses nothing: the next share covers its interval too. */
static void share_over_skipped_sample(void **state)
{
    (void)state;
    base_tree();
    char i915[4096];
    load("i915.txt", i915, sizeof i915);
    fd_of(100, 3, "/dev/null", i915);
    void *st = NULL;
    int count = 0;
    gt_gpu_why why = {0};
    fake_now = 5000000000;
    assert_int_equal(gt_drm_fdinfo_open(proc, sys_dir, fake_clock, &st, &count, &why), GT_GPU_FOUND);
    gt_gpu_procs p = {0};
    size_t first;
    sample(st, &p, 0, 1, &first);
    assert_false(p.v[0].sm_valid);
    /* 1 s later, 1 s of render, not published. */
    fake_now += 1000000000;
    fd_of(100, 3, "/dev/null", with(i915, "drm-engine-render", "1000346249 ns"));
    p.seq++;
    p.n = 0;
    p.want_sm = 0;
    p.sm_rc = GT_GPU_MISSING;
    assert_int_equal(gt_gpu_drm_fdinfo.processes(st, 0, &p, &why), GT_GPU_OK);
    assert_int_equal(p.n, 1);
    assert_int_equal(p.sm_rc, GT_GPU_MISSING);   /* left alone */
    assert_int_equal(p.v[0].mem_bytes, 6044 * KIB);
    /* 1 s later again, idle: 1 s of render over 2 s. */
    fake_now += 1000000000;
    sample(st, &p, 0, 1, &first);
    assert_true(p.v[0].sm_valid);
    assert_float_equal(p.v[0].sm_percent, 50.0, 1e-9);
    free(p.v);
    gt_gpu_drm_fdinfo.shutdown(st);
}

/* Two cards of one driver (a machine with two AMD GPUs): each client goes
 * to the device its drm-pdev names, not to the first card of its driver,
 * and the same client id on both devices is two clients (drm-usage-stats.rst
 * lets a client id be unique only within its device, drm-pdev then naming
 * the device). */
static void devices_of_one_driver(void **state)
{
    (void)state;
    base_tree();
    card(4, "amdgpu", "0000:0c:00.0");
    char amd[4096];
    load("amdgpu.txt", amd, sizeof amd);
    /* Client 1187 on each card: 512 MiB of VRAM on 0000:0b:00.0, 1 MiB on
     * 0000:0c:00.0; the child holds the second by a descriptor of its own. */
    fd_of(100, 3, "/dev/null", amd);
    char *other = with(with(with(amd, "drm-pdev", "0000:0c:00.0"), "drm-resident-vram", "1024 KiB"),
                       "drm-memory-vram", "1024 KiB");
    fd_of(100, 4, "/dev/null", other);
    fd_of(200, 3, "/dev/null", other);
    void *st = NULL;
    int count = 0;
    gt_gpu_why why = {0};
    assert_int_equal(gt_drm_fdinfo_open(proc, sys_dir, fake_clock, &st, &count, &why), GT_GPU_FOUND);
    /* i915, xe, then the two amdgpu cards in order of their PCI address. */
    assert_int_equal(count, 4);
    char uuid[GT_GPU_UUID_MAX];
    assert_int_equal(gt_gpu_drm_fdinfo.uuid(st, 2, uuid, sizeof uuid, &why), GT_GPU_OK);
    assert_string_equal(uuid, "0000:0b:00.0");
    assert_int_equal(gt_gpu_drm_fdinfo.uuid(st, 3, uuid, sizeof uuid, &why), GT_GPU_OK);
    assert_string_equal(uuid, "0000:0c:00.0");
    gt_gpu_procs p = {0};
    size_t first;
    sample(st, &p, 2, 1, &first);
    assert_int_equal(p.n - first, 1);
    assert_int_equal(p.v[first].pid, 100);
    assert_int_equal(p.v[first].mem_bytes, 512 * MIB);
    sample(st, &p, 3, 0, &first);
    assert_int_equal(p.n - first, 1);
    assert_int_equal(p.v[first].pid, 100);
    assert_int_equal(p.v[first].mem_bytes, 1 * MIB);
    free(p.v);
    gt_gpu_drm_fdinfo.shutdown(st);
}

/* No card of a driver that prints usage counters: not installed. */
static void no_device(void **state)
{
    (void)state;
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", sys_dir);
    assert_int_equal(system(cmd), 0);
    card(0, "ast", "0000:05:00.0");
    card(1, "nvidia", "0000:17:00.0");
    void *st = NULL;
    int count = 0;
    gt_gpu_why why = {0};
    assert_int_equal(gt_drm_fdinfo_open(proc, sys_dir, fake_clock, &st, &count, &why), GT_GPU_NOT_INSTALLED);
    assert_null(st);
    snprintf(cmd, sizeof cmd, "%s/none", root);
    assert_int_equal(gt_drm_fdinfo_open(proc, cmd, fake_clock, &st, &count, &why), GT_GPU_NOT_INSTALLED);
}

/* A platform device (no drm-pdev): clients go to the one device of their
 * driver. */
static void platform_device(void **state)
{
    (void)state;
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", sys_dir, proc);
    assert_int_equal(system(cmd), 0);
    card(0, "panfrost", NULL);
    char pan[4096];
    fd_of(100, 9, "/dev/null", load("panfrost.txt", pan, sizeof pan));
    void *st = NULL;
    int count = 0;
    gt_gpu_why why = {0};
    assert_int_equal(gt_drm_fdinfo_open(proc, sys_dir, fake_clock, &st, &count, &why), GT_GPU_FOUND);
    assert_int_equal(count, 1);
    char uuid[GT_GPU_UUID_MAX];
    assert_int_equal(gt_gpu_drm_fdinfo.uuid(st, 0, uuid, sizeof uuid, &why), GT_GPU_OK);
    assert_string_equal(uuid, "card0");   /* a folder, not a link, in the fake tree */
    gt_gpu_procs p = {0};
    size_t first;
    sample(st, &p, 0, 1, &first);
    assert_int_equal(p.n, 1);
    assert_int_equal(p.v[0].mem_bytes, 36496 * KIB);
    free(p.v);
    gt_gpu_drm_fdinfo.shutdown(st);
}

/* ---------------------------------------------------- through gt_gpu_* */

static int n_warnings;
static char warnings[4096];

static void log_fn(void *ctx, const char *msg)
{
    (void)ctx;
    n_warnings++;
    snprintf(warnings + strlen(warnings), sizeof warnings - strlen(warnings), "%s\n", msg);
}

/* Detection falls to fdinfo where neither vendor library loads; the
 * attribution by PID sets, the capacity of the devices that give one, and
 * a warning once for each figure a driver lacks. */
static void through_gpu_layer(void **state)
{
    (void)state;
    base_tree();
    /* The xe moved to the lowest PCI address: the device listed first. */
    card(3, "xe", "0000:00:01.0");
    char i915[4096], xe_text[4096], xe[4096];
    load("i915.txt", i915, sizeof i915);
    load("xe.txt", xe_text, sizeof xe_text);
    snprintf(xe, sizeof xe, "%s", with(xe_text, "drm-pdev", "0000:00:01.0"));
    fd_of(100, 3, "/dev/null", i915);
    fd_of(200, 7, "/dev/null", i915);
    fd_of(300, 3, "/dev/null", xe);
    setenv("GT_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    setenv("GT_ROCM_SMI_LIBRARY", "/nonexistent/librocm_smi64.so.1", 1);
    setenv("GT_FDINFO_PROC_ROOT", proc, 1);
    gt_gpu *g = NULL;
    gt_error err = {0};
    n_warnings = 0;
    warnings[0] = '\0';
    assert_int_equal(gt_gpu_open(GT_GPU_AUTO, NULL, sys_dir, log_fn, NULL, 0, &g, &err), GT_OK);
    assert_int_equal(gt_gpu_count(g), 3);
    assert_int_equal(gt_gpu_capacity(g), 17163091968ull);   /* amdgpu's only */
    assert_int_equal(n_warnings, 2);                         /* i915's and xe's capacity */
    gt_gpu_reading r;
    gt_gpu_sample(g, &pids, &r);
    assert_int_equal(r.main_bytes, 6044 * KIB);
    assert_int_equal(r.descendants_bytes, 23992 * KIB);
    assert_int_equal(r.system_bytes, 1073741824ull);         /* amdgpu's sysfs */
    /* xe's share is in GPU cycles, not wall time: exact whatever the
     * machine's load between the samples. */
    /* Every sample, back to back: these shares cost nothing beyond the
     * listing, so the budget of slow readings (which would skip the samples
     * within 100 times a reading's CPU time: the device listed first bears
     * the whole scan's) does not hold them back. */
    const char *rcs[] = {"28258100", "28258500", "28258600"};
    const char *total[] = {"7655184225", "7655185225", "7655186225"};
    const double want[] = {20, 40, 10};
    for (int k = 0; k < 3; k++) {
        write_file(with(with(xe, "drm-cycles-rcs", rcs[k]), "drm-total-cycles-rcs", total[k]),
                   "%s/300/fdinfo/3", proc);
        gt_gpu_sample(g, &pids, &r);
        assert_true(r.sm_valid);
        assert_float_equal(r.descendants_sm_percent, want[k], 1e-9);
    }
    int before = n_warnings;
    gt_gpu_sample(g, &pids, &r);
    assert_int_equal(n_warnings, before);                    /* warned once */
    gt_gpu_close(&g);

    /* --gb=amd names ROCm SMI: fdinfo is not used. */
    assert_int_equal(gt_gpu_open(GT_GPU_AMD, NULL, sys_dir, log_fn, NULL, 1, &g, &err), GT_OK);
    assert_int_equal(gt_gpu_count(g), 0);
    gt_gpu_close(&g);
    unsetenv("GT_FDINFO_PROC_ROOT");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_i915),
        cmocka_unit_test(parse_xe),
        cmocka_unit_test(parse_amdgpu),
        cmocka_unit_test(parse_panfrost),
        cmocka_unit_test(parse_malformed),
        cmocka_unit_test(parse_bounded),
        cmocka_unit_test(backend_over_fake_tree),
        cmocka_unit_test(descriptor_cache),
        cmocka_unit_test(share_over_skipped_sample),
        cmocka_unit_test(devices_of_one_driver),
        cmocka_unit_test(no_device),
        cmocka_unit_test(platform_device),
        cmocka_unit_test(through_gpu_layer),
    };
    return cmocka_run_group_tests(tests, tree_setup, tree_teardown);
}
