/* SPDX-License-Identifier: MIT */
/* Old programs keep working: a program built with the version 1 header (its
 * structs copied here, frozen, as that header declared them) runs against
 * this library, gets the figures, and the library reads and writes nothing
 * past its structs.  A program of a later header than the library's is
 * refused with a message, and touches nothing.
 *
 * Do not edit the v1 copies when a field is added: that is the point.  A
 * later version gets copies of its own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_tracker.h"
#include "abi.h"

/* ---- The version 1 structs, as include/gpu_tracker.h declared them. ---- */
typedef struct options_v1 {
    unsigned int version;
    double sleep_time;
    gt_ram_unit ram_unit;
    gt_ram_unit gpu_ram_unit;
    gt_time_unit time_unit;
    int n_expected_cores;
    const char *gpu_uuids;
    int disable_logs;
    gt_gpu_brand gpu_brand;
    const char *tracking_file;
    int overwrite;
    pid_t process_id;
    gt_log_fn log;
    void *log_ctx;
    pid_t tree_root;
    gt_energy_unit energy_unit;
    gt_timepoint_fn on_timepoint;
    void *on_timepoint_ctx;
} options_v1;

typedef struct timepoint_v1 {
    unsigned int version;
    double timestamp, elapsed;
    unsigned long n_samples;
    uint64_t main_ram, descendants_ram, combined_ram, system_ram, system_ram_capacity;
    int gpu_valid;
    uint64_t main_gpu_ram, descendants_gpu_ram, combined_gpu_ram, system_gpu_ram, system_gpu_ram_capacity;
    double gpu_sum_percent;
    int n_expected_gpus;
    int gpu_sm_valid;
    double gpu_sm_main, gpu_sm_descendants, gpu_sm_combined;
    int gpu_power_valid;
    double gpu_power_watts;
    size_t n_gpus;
    gt_timepoint_gpu gpus[16];
    int cpu_valid;
    double cpu_system_sum, cpu_main_sum, cpu_descendants_sum, cpu_combined_sum;
    double cpu_main_seconds, cpu_descendants_seconds, cpu_combined_seconds;
    int system_core_count, n_expected_cores;
    int main_n_threads, descendants_n_threads, combined_n_threads;
} timepoint_v1;

typedef struct usage_v1 {
    unsigned int version;
    struct {
        const char *unit;
        double system_capacity, system;
        gt_rss_values main, descendants, combined;
    } max_ram;
    struct {
        const char *unit;
        double system_capacity, system, main, descendants, combined;
    } max_gpu_ram;
    struct {
        int system_core_count, n_expected_cores;
        gt_percentages system, main, descendants, combined;
        int main_n_threads, descendants_n_threads, combined_n_threads;
    } cpu_utilization;
    struct {
        int system_gpu_count, n_expected_gpus;
        gt_percentages gpu_percentages;
    } gpu_utilization;
    struct {
        const char *unit;
        double time;
    } compute_time;
    struct {
        const char *unit;
        double main, largest_descendant;
    } peak_ram;
    unsigned long n_samples;
    struct {
        int available;
        gt_percentages main, descendants, combined;
    } gpu_process_utilization;
    struct {
        int available;
        const char *unit;
        double max, mean;
    } gpu_power;
    struct {
        const char *unit;
        int n_domains;
        struct gt_energy_domain domains[32];
        char cpu_unavailable[640];
        char gpu_unavailable[256];
        const char *cpu_attribution_method, *gpu_attribution_method;
    } energy;
    struct {
        const char *main, *largest_descendant;
    } peak_ram_method;
    char ram_unavailable[160];
} usage_v1;

/* The header keeps every version 1 field where version 1 had it: fields are
 * only appended. */
#define SAME(cur, old, field) _Static_assert(offsetof(cur, field) == offsetof(old, field), #cur "." #field " moved")
SAME(gt_options, options_v1, sleep_time);
SAME(gt_options, options_v1, gpu_uuids);
SAME(gt_options, options_v1, process_id);
SAME(gt_options, options_v1, energy_unit);
SAME(gt_options, options_v1, on_timepoint_ctx);
SAME(gt_timepoint, timepoint_v1, n_gpus);
SAME(gt_timepoint, timepoint_v1, cpu_valid);
SAME(gt_timepoint, timepoint_v1, combined_n_threads);
SAME(gt_usage, usage_v1, max_ram);
SAME(gt_usage, usage_v1, compute_time);
SAME(gt_usage, usage_v1, n_samples);
SAME(gt_usage, usage_v1, energy);
SAME(gt_usage, usage_v1, energy.gpu_attribution_method);
SAME(gt_usage, usage_v1, ram_unavailable);

/* A program's struct with bytes after it that must stay as they are. */
#define CANARY 0xA5
#define CANARY_BYTES 256
#define WITH_CANARY(type) struct { type s; unsigned char canary[CANARY_BYTES]; }

static int canary_intact(const unsigned char *c)
{
    for (size_t i = 0; i < CANARY_BYTES; i++)
        if (c[i] != CANARY)
            return 0;
    return 1;
}

/* The size the library takes for version 1 is exactly the v1 struct's. */
static void test_sizes(void **state)
{
    (void)state;
    assert_int_equal(gt_abi_size(GT_ABI_OPTIONS, 1), GT_END_OF(options_v1, on_timepoint_ctx));
    assert_int_equal(gt_abi_size(GT_ABI_TIMEPOINT, 1), GT_END_OF(timepoint_v1, combined_n_threads));
    assert_int_equal(gt_abi_size(GT_ABI_USAGE, 1), GT_END_OF(usage_v1, ram_unavailable));
    /* The current version covers the whole struct: an appended field
     * without its entry in abi.c's tables would be left out. */
    assert_true(sizeof(gt_options) - gt_abi_size(GT_ABI_OPTIONS, GT_STRUCT_VERSION) < _Alignof(gt_options));
    assert_true(sizeof(gt_timepoint) - gt_abi_size(GT_ABI_TIMEPOINT, GT_STRUCT_VERSION) < _Alignof(gt_timepoint));
    assert_true(sizeof(gt_usage) - gt_abi_size(GT_ABI_USAGE, GT_STRUCT_VERSION) < _Alignof(gt_usage));
    assert_int_equal(gt_abi_size(GT_ABI_OPTIONS, 0), 0);
    assert_int_equal(gt_abi_size(GT_ABI_USAGE, GT_STRUCT_VERSION + 1), 0);
}

static unsigned int seen_version;
static unsigned long seen_samples;

/* A version 1 program's callback: it copies the timepoint into its own
 * struct, as the CLI's live line does, and forwards the copy. */
static void on_tp_v1(void *ctx, const gt_timepoint *tp)
{
    timepoint_v1 copy;
    memcpy(&copy, tp, sizeof copy);
    seen_version = copy.version;
    seen_samples = copy.n_samples;
    assert_int_equal(gt_metrics_update(ctx, (const gt_timepoint *)&copy), GT_OK);
}

static void test_v1_program(void **state)
{
    (void)state;
    WITH_CANARY(options_v1) o;
    memset(&o, CANARY, sizeof o);
    assert_int_equal(gt_options_init((gt_options *)&o.s, 1), GT_OK);
    assert_true(canary_intact(o.canary));
    assert_int_equal(o.s.version, 1);
    assert_true(o.s.sleep_time == 1.0);
    assert_int_equal(o.s.ram_unit, GT_RAM_UNIT_GIGABYTES);
    assert_int_equal(o.s.time_unit, GT_TIME_UNIT_HOURS);
    assert_null(o.s.tracking_file);
    assert_null(o.s.on_timepoint);

    gt_metrics *m = NULL;
    gt_error err;
    assert_int_equal(gt_metrics_open("127.0.0.1:0", &m, &err), GT_OK);
    o.s.sleep_time = 0.01;
    o.s.ram_unit = GT_RAM_UNIT_MEGABYTES;
    o.s.time_unit = GT_TIME_UNIT_SECONDS;
    o.s.disable_logs = 1;
    o.s.on_timepoint = on_tp_v1;
    o.s.on_timepoint_ctx = m;
    /* Read from memory of exactly the v1 size: ASan sees any read past it. */
    options_v1 *exact = malloc(sizeof *exact);
    assert_non_null(exact);
    memcpy(exact, &o.s, sizeof *exact);
    gt_tracker *t = NULL;
    assert_int_equal(gt_tracker_new((const gt_options *)exact, &t, &err), GT_OK);
    free(exact);
    assert_int_equal(gt_tracker_start(t, NULL), GT_OK);
    size_t n = 64u << 20;
    char *buf = malloc(n);
    assert_non_null(buf);
    memset(buf, 1, n);
    usleep(50000);
    assert_int_equal(gt_tracker_stop(t, NULL), GT_OK);
    free(buf);
    assert_int_equal(seen_version, 1);
    assert_true(seen_samples >= 2);

    WITH_CANARY(usage_v1) u;
    memset(&u, CANARY, sizeof u);
    u.s.version = 1;
    assert_int_equal(gt_tracker_usage(t, (gt_usage *)&u.s, NULL), GT_OK);
    assert_true(canary_intact(u.canary));
    assert_int_equal(u.s.version, 1);
    assert_string_equal(u.s.max_ram.unit, "megabytes");
    assert_true(u.s.max_ram.main.total_rss >= 64.0);
    assert_string_equal(u.s.compute_time.unit, "seconds");
    assert_true(u.s.n_samples >= 2);
    /* The same figures as a program of this version gets. */
    gt_usage cur = GT_USAGE_INIT;
    assert_int_equal(gt_tracker_usage(t, &cur, NULL), GT_OK);
    size_t from = offsetof(usage_v1, max_ram), to = GT_END_OF(usage_v1, ram_unavailable);
    assert_memory_equal((char *)&u.s + from, (char *)&cur + from, to - from);
    /* A binding's usage, allocated by the library: of the tracker's version. */
    gt_usage *copy = NULL;
    assert_int_equal(gt_tracker_usage_new(t, &copy, NULL), GT_OK);
    assert_int_equal(copy->version, 1);
    assert_memory_equal((char *)copy + from, (char *)&cur + from, to - from);
    gt_usage_free(&copy);
    assert_null(copy);

    /* The report of the v1 usage, read from exactly its size. */
    usage_v1 *exact_u = malloc(sizeof *exact_u);
    assert_non_null(exact_u);
    memcpy(exact_u, &u.s, sizeof *exact_u);
    char *json = NULL;
    assert_int_equal(gt_usage_string((const gt_usage *)exact_u, GT_FORMAT_JSON, &json), GT_OK);
    assert_non_null(strstr(json, "\"unit\": \"megabytes\""));
    gt_string_free(&json);
    free(exact_u);
    gt_tracker_free(&t);
    gt_metrics_free(&m);
}

/* A version 1 struct followed by other bytes of the program (here 0xA5,
 * which read as a double is negative): the library reads the v1 fields and
 * none of the neighbours into the fields of later versions, which keep
 * their defaults.  A tracker made from such options is valid (walk_budget
 * read from 0xA5 bytes would be refused). */
static void test_v1_neighbours_not_read(void **state)
{
    (void)state;
    WITH_CANARY(options_v1) o;
    memset(&o, CANARY, sizeof o);
    assert_int_equal(gt_options_init((gt_options *)&o.s, 1), GT_OK);
    o.s.disable_logs = 1;
    gt_options full = GT_OPTIONS_INIT;
    gt_abi_read(GT_ABI_OPTIONS, &o.s, &full);
    assert_int_equal(full.version, GT_STRUCT_VERSION);
    assert_int_equal(full.disable_logs, 1);
    assert_int_equal(full.per_process, 0);
    assert_int_equal(full.per_gpu, 0);
    assert_true(full.walk_budget == 0.0);
    gt_tracker *t = NULL;
    gt_error err;
    assert_int_equal(gt_tracker_new((const gt_options *)&o.s, &t, &err), GT_OK);
    gt_tracker_free(&t);

    WITH_CANARY(timepoint_v1) tp;
    memset(&tp, CANARY, sizeof tp);
    tp.s.version = 1;
    gt_timepoint tfull;
    memset(&tfull, 0, sizeof tfull);
    gt_abi_read(GT_ABI_TIMEPOINT, &tp.s, &tfull);
    assert_int_equal(tfull.main_ram_unavailable, 0);
    assert_int_equal(tfull.descendants_ram_unavailable, 0);
    assert_int_equal(tfull.combined_ram_unavailable, 0);

    WITH_CANARY(usage_v1) u;
    memset(&u, CANARY, sizeof u);
    u.s.version = 1;
    gt_usage ufull;
    memset(&ufull, 0, sizeof ufull);
    gt_abi_read(GT_ABI_USAGE, &u.s, &ufull);
    assert_int_equal(ufull.top_processes.available, 0);
    assert_null(ufull.dram_memory_share.method);
}

/* A program of a later header: refused with a message, its memory untouched. */
static void test_newer_program_refused(void **state)
{
    (void)state;
    const unsigned int future = GT_STRUCT_VERSION + 1;
    WITH_CANARY(gt_options) o;
    memset(&o, CANARY, sizeof o);
    assert_int_equal(gt_options_init(&o.s, future), GT_ERR_INVALID);
    assert_int_equal(o.s.version, future);
    const unsigned char *after = (const unsigned char *)&o + sizeof o.s.version;
    for (size_t i = 0; i < sizeof o - sizeof o.s.version; i++)
        assert_int_equal(after[i], CANARY);

    gt_tracker *t = NULL;
    gt_error err;
    assert_int_equal(gt_tracker_new(&o.s, &t, &err), GT_ERR_INVALID);
    assert_null(t);
    char want[160];
    snprintf(want, sizeof want, "gt_options has version %u, newer than this library's %u", future,
             (unsigned)GT_STRUCT_VERSION);
    assert_non_null(strstr(err.msg, want));

    gt_options zero;
    memset(&zero, 0, sizeof zero);
    assert_int_equal(gt_tracker_new(&zero, &t, &err), GT_ERR_INVALID);
    assert_non_null(strstr(err.msg, "gt_options has version 0: it was not initialised"));

    gt_options ok = GT_OPTIONS_INIT;
    ok.disable_logs = 1;
    ok.sleep_time = 0.01;
    assert_int_equal(gt_tracker_new(&ok, &t, &err), GT_OK);
    assert_int_equal(gt_tracker_start(t, NULL), GT_OK);
    assert_int_equal(gt_tracker_stop(t, NULL), GT_OK);
    WITH_CANARY(gt_usage) u;
    memset(&u, CANARY, sizeof u);
    u.s.version = future;
    gt_error e;
    assert_int_equal(gt_tracker_usage(t, &u.s, &e), GT_ERR_INVALID);
    assert_non_null(strstr(e.msg, "gt_usage has version"));
    after = (const unsigned char *)&u + sizeof u.s.version;
    for (size_t i = 0; i < sizeof u - sizeof u.s.version; i++)
        assert_int_equal(after[i], CANARY);
    char *text = NULL;
    assert_int_equal(gt_usage_string(&u.s, GT_FORMAT_TEXT, &text), GT_ERR_INVALID);
    assert_null(text);
    gt_tracker_free(&t);

    gt_metrics *m = NULL;
    assert_int_equal(gt_metrics_open("127.0.0.1:0", &m, &err), GT_OK);
    gt_timepoint tp = GT_TIMEPOINT_INIT;
    assert_int_equal(gt_metrics_update(m, &tp), GT_OK);
    tp.version = future;
    assert_int_equal(gt_metrics_update(m, &tp), GT_ERR_INVALID);
    tp.version = 0;
    assert_int_equal(gt_metrics_update(m, &tp), GT_ERR_INVALID);
    gt_metrics_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_v1_program),
        cmocka_unit_test(test_v1_neighbours_not_read),
        cmocka_unit_test(test_newer_program_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
