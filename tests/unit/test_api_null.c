/* SPDX-License-Identifier: MIT */
/* The public API's rule for NULL (include/gpu_tracker.h, "Conventions"):
 * every function is called with NULL for each pointer argument in turn, the
 * others valid, and must return GT_ERR_INVALID (a message in the gt_error or
 * handle where there is one) or, without a status, do nothing.  The list of
 * functions is read from the header, so a function added without a case
 * here fails the test.  Runs in a fresh directory (the default sub-tracking
 * file is created in the current one). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_tracker.h"
#include "tmpdir.h"

static char root[PATH_MAX]; /* the checkout: the header and fixtures */

static const char *fixture(const char *rel)
{
    static char paths[4][PATH_MAX + 128];
    static int next;
    char *p = paths[next++ % 4];
    snprintf(p, sizeof paths[0], "%s/tests/fixtures/reference/%s", root, rel);
    return p;
}

#define INVALID(call) assert_int_equal((call), GT_ERR_INVALID)

/* An error with a message, and a fresh one for the next call. */
#define MESSAGE(e)                                                                                  \
    do {                                                                                            \
        assert_true((e).msg[0] != '\0');                                                            \
        (e).msg[0] = '\0';                                                                          \
    } while (0)

static const gt_format bad_format = (gt_format)7;

static void units(void)
{
    gt_ram_unit ru;
    gt_time_unit tu;
    gt_energy_unit eu;
    gt_gpu_brand gb;
    INVALID(gt_ram_unit_parse(NULL, &ru));
    INVALID(gt_ram_unit_parse("bytes", NULL));
    INVALID(gt_time_unit_parse(NULL, &tu));
    INVALID(gt_time_unit_parse("hours", NULL));
    INVALID(gt_energy_unit_parse(NULL, &eu));
    INVALID(gt_energy_unit_parse("joules", NULL));
    INVALID(gt_gpu_brand_parse(NULL, &gb));
    INVALID(gt_gpu_brand_parse("amd", NULL));
    /* No pointer arguments; an unknown value has a name that says so. */
    assert_string_equal(gt_ram_unit_name((gt_ram_unit)99), "?");
    assert_string_equal(gt_time_unit_name((gt_time_unit)99), "?");
    assert_string_equal(gt_energy_unit_name((gt_energy_unit)99), "?");
    /* NULL, not "?": a program lists the brands by asking until NULL. */
    assert_null(gt_gpu_brand_name((gt_gpu_brand)99));
    assert_non_null(gt_version());
    assert_string_equal(gt_strerror((gt_status)99), "unknown status");
}

static gt_tracker *new_tracker(void)
{
    gt_options o = GT_OPTIONS_INIT;
    o.disable_logs = 1;
    gt_tracker *t = NULL;
    assert_int_equal(gt_tracker_new(&o, &t, NULL), GT_OK); /* err may be NULL */
    return t;
}

static void tracker(void)
{
    gt_error e = {{0}};
    gt_options o = GT_OPTIONS_INIT;
    o.disable_logs = 1;
    INVALID(gt_options_init(NULL, GT_STRUCT_VERSION));
    gt_tracker *t = (gt_tracker *)&e; /* set to NULL on failure */
    INVALID(gt_tracker_new(NULL, &t, &e));
    assert_null(t);
    MESSAGE(e);
    INVALID(gt_tracker_new(&o, NULL, &e));
    MESSAGE(e);

    INVALID(gt_tracker_start(NULL, &e));
    MESSAGE(e);
    INVALID(gt_tracker_stop(NULL, &e));
    MESSAGE(e);
    gt_usage u = GT_USAGE_INIT;
    INVALID(gt_tracker_usage(NULL, &u, &e));
    MESSAGE(e);
    gt_usage *up = &u;
    INVALID(gt_tracker_usage_new(NULL, &up, &e));
    assert_null(up);
    MESSAGE(e);
    gt_tracker_set_main_maxrss(NULL, 1, 0);
    assert_int_equal(gt_tracker_descendants_alive(NULL), 0);
    INVALID(gt_tracker_add_static(NULL, "k", "v", &e));
    MESSAGE(e);

    t = new_tracker();
    INVALID(gt_tracker_add_static(t, NULL, "v", &e));
    MESSAGE(e);
    assert_int_equal(gt_tracker_add_static(t, "k", NULL, NULL), GT_OK); /* value NULL: unavailable */
    assert_int_equal(gt_tracker_start(t, NULL), GT_OK);
    INVALID(gt_tracker_usage(t, NULL, &e));
    MESSAGE(e);
    INVALID(gt_tracker_usage_new(t, NULL, &e));
    MESSAGE(e);
    char *report = (char *)&e;
    INVALID(gt_tracker_report(NULL, GT_FORMAT_JSON, &report, &e));
    assert_null(report);
    MESSAGE(e);
    INVALID(gt_tracker_report(t, GT_FORMAT_JSON, NULL, &e));
    MESSAGE(e);
    INVALID(gt_tracker_report(t, bad_format, &report, &e));
    MESSAGE(e);
    double figure = 0;
    INVALID(gt_tracker_figure(NULL, "compute_time.time", &figure, &e));
    assert_true(figure != figure); /* NaN */
    MESSAGE(e);
    INVALID(gt_tracker_figure(t, NULL, &figure, &e));
    MESSAGE(e);
    INVALID(gt_tracker_figure(t, "compute_time.time", NULL, &e));
    MESSAGE(e);
    assert_int_equal(gt_tracker_stop(t, NULL), GT_OK);
    assert_int_equal(gt_tracker_usage(t, &u, NULL), GT_OK);

    /* Writers: NULL usage or stream, and a format that is not one. */
    FILE *f = tmpfile();
    assert_non_null(f);
    INVALID(gt_usage_write(NULL, GT_FORMAT_TEXT, f));
    INVALID(gt_usage_write(&u, GT_FORMAT_TEXT, NULL));
    INVALID(gt_usage_write(&u, bad_format, f));
    assert_int_equal(ftell(f), 0); /* nothing written */
    fclose(f);
    char *s = (char *)&e;
    INVALID(gt_usage_string(NULL, GT_FORMAT_TEXT, &s));
    assert_null(s);
    INVALID(gt_usage_string(&u, GT_FORMAT_TEXT, NULL));
    s = (char *)&e;
    INVALID(gt_usage_string(&u, bad_format, &s));
    assert_null(s);

    gt_usage_free(NULL);
    gt_usage *none = NULL;
    gt_usage_free(&none);
    gt_string_free(NULL);
    gt_string_free(&s);
    gt_tracker_free(&t);
    assert_null(t);
    gt_tracker_free(&t);
    gt_tracker_free(NULL);
}

static void subtracker(void)
{
    gt_error e = {{0}};
    char buf[300];
    INVALID(gt_subtracker_default_path(NULL, sizeof buf, &e));
    MESSAGE(e);
    INVALID(gt_subtracker_default_path_of(1, NULL, sizeof buf, &e));
    MESSAGE(e);
    INVALID(gt_subtracker_open("marks.csv", 0, NULL, &e));
    MESSAGE(e);
    gt_subtracker *s = NULL;
    /* path NULL: the default name in the current directory. */
    assert_int_equal(gt_subtracker_open(NULL, 0, &s, NULL), GT_OK);
    assert_int_equal(gt_subtracker_default_path(buf, sizeof buf, NULL), GT_OK);
    assert_int_equal(access(buf, F_OK), 0);
    INVALID(gt_subtracker_mark(NULL, "block", 0, &e));
    MESSAGE(e);
    INVALID(gt_subtracker_mark(s, NULL, 0, &e));
    MESSAGE(e);
    INVALID(gt_subtracker_mark_at(NULL, "block", 0, 1, 1.0, &e));
    MESSAGE(e);
    INVALID(gt_subtracker_mark_at(s, NULL, 0, 1, 1.0, &e));
    MESSAGE(e);
    INVALID(gt_subtracker_status(NULL, &e));
    MESSAGE(e);
    gt_subtrack_scope sc = gt_subtrack_scope_begin(NULL, "block", "file.c", "1");
    gt_subtrack_scope_end(&sc);
    gt_subtrack_scope_end(NULL);
    /* name NULL: "file:attr"; all three NULL: a caller's mistake, kept. */
    sc = gt_subtrack_scope_begin(s, NULL, NULL, NULL);
    gt_subtrack_scope_end(&sc);
    assert_int_equal(gt_subtracker_status(s, NULL), GT_OK); /* not kept: later marks still work */
    gt_subtracker_free(&s);
    assert_null(s);
    gt_subtracker_free(&s);
    gt_subtracker_free(NULL);
}

static void analysis(void)
{
    gt_error e = {{0}};
    const char *tf = fixture("sub-tracking/tracking.csv"), *stf = fixture("sub-tracking/sub-tracking.csv");
    gt_results *r = (gt_results *)&e;
    gt_analyze_options ao = GT_ANALYZE_OPTIONS_INIT;
    ao.sub_tracking_file = stf;
    INVALID(gt_analyze(NULL, &ao, &r, &e));
    assert_null(r);
    MESSAGE(e);
    INVALID(gt_analyze(tf, &ao, NULL, &e));
    MESSAGE(e);
    INVALID(gt_analyze_options_init(NULL, GT_STRUCT_VERSION));
    /* NULL options are the defaults: no sub-tracking file. */
    assert_int_equal(gt_analyze(tf, NULL, &r, NULL), GT_OK);
    gt_results_free(&r);
    assert_int_equal(gt_analyze(tf, &ao, &r, NULL), GT_OK);

    FILE *f = tmpfile();
    assert_non_null(f);
    INVALID(gt_results_write(NULL, GT_FORMAT_TEXT, f));
    INVALID(gt_results_write(r, GT_FORMAT_TEXT, NULL));
    INVALID(gt_results_write(r, bad_format, f));
    assert_int_equal(ftell(f), 0);
    char *s = (char *)&e;
    INVALID(gt_results_string(NULL, GT_FORMAT_JSON, &s));
    assert_null(s);
    INVALID(gt_results_string(r, GT_FORMAT_JSON, NULL));
    gt_results_free(&r);
    assert_null(r);
    gt_results_free(&r);
    gt_results_free(NULL);

    double *calls = NULL;
    size_t n = 0;
    INVALID(gt_subtrack_calls(NULL, "x", &calls, &n, &e));
    MESSAGE(e);
    INVALID(gt_subtrack_calls(stf, NULL, &calls, &n, &e));
    MESSAGE(e);
    INVALID(gt_subtrack_calls(stf, "x", NULL, &n, &e));
    MESSAGE(e);
    INVALID(gt_subtrack_calls(stf, "x", &calls, NULL, &e));
    MESSAGE(e);
    gt_calls_free(NULL);
    gt_calls_free(&calls);

    const char *inputs[] = {stf};
    const char *null_input[] = {NULL};
    INVALID(gt_subtrack_combine(NULL, inputs, 1, &e));
    MESSAGE(e);
    INVALID(gt_subtrack_combine("combined.csv", NULL, 1, &e));
    MESSAGE(e);
    INVALID(gt_subtrack_combine("combined.csv", null_input, 1, &e));
    MESSAGE(e);
    assert_int_equal(access("combined.csv", F_OK), -1);

    gt_plot_options po = GT_PLOT_OPTIONS_INIT;
    po.sub_tracking_file = stf;
    INVALID(gt_plot_write(NULL, "p.svg", &po, &e));
    MESSAGE(e);
    INVALID(gt_plot_write(tf, NULL, &po, &e));
    MESSAGE(e);
    INVALID(gt_plot_write(tf, NULL, NULL, NULL));
    INVALID(gt_plot_options_init(NULL, GT_STRUCT_VERSION));
    assert_int_equal(access("p.svg", F_OK), -1);
}

static void merge(void)
{
    gt_error e = {{0}};
    const char *paths[] = {fixture("sub-tracking/tracking.csv")};
    const char *null_path[] = {NULL};
    gt_merge *m = (gt_merge *)&e;
    gt_merge_options mo = GT_MERGE_OPTIONS_INIT;
    INVALID(gt_merge_files(NULL, 1, &mo, &m, &e));
    assert_null(m);
    MESSAGE(e);
    INVALID(gt_merge_files(paths, 1, &mo, NULL, &e));
    MESSAGE(e);
    INVALID(gt_merge_files(null_path, 1, &mo, &m, &e));
    MESSAGE(e);
    INVALID(gt_merge_options_init(NULL, GT_STRUCT_VERSION));
    /* NULL options are the defaults. */
    assert_int_equal(gt_merge_files(paths, 1, NULL, &m, NULL), GT_OK);
    FILE *f = tmpfile();
    assert_non_null(f);
    INVALID(gt_merge_write(NULL, GT_FORMAT_TEXT, f));
    INVALID(gt_merge_write(m, GT_FORMAT_TEXT, NULL));
    INVALID(gt_merge_write(m, bad_format, f));
    assert_int_equal(ftell(f), 0);
    fclose(f);
    gt_merge_free(&m);
    assert_null(m);
    gt_merge_free(&m);
    gt_merge_free(NULL);
}

static void quiet(void *ctx, const char *msg)
{
    (void)ctx;
    (void)msg;
}

static void compare(void)
{
    gt_error e = {{0}};
    const char *names[] = {"A", "B"};
    const char *files[] = {fixture("comparison/results-A.json"), fixture("comparison/results-B.json")};
    gt_comparison *c = (gt_comparison *)&e;
    gt_compare_options co = GT_COMPARE_OPTIONS_INIT;
    co.log = quiet;
    INVALID(gt_compare(NULL, files, 2, &co, &c, &e));
    assert_null(c);
    MESSAGE(e);
    INVALID(gt_compare(names, NULL, 2, &co, &c, &e));
    MESSAGE(e);
    INVALID(gt_compare(names, files, 2, &co, NULL, &e));
    MESSAGE(e);
    INVALID(gt_compare_options_init(NULL, GT_STRUCT_VERSION));
    /* NULL options are the defaults: the mean, warnings to stderr. */
    assert_int_equal(gt_compare(names, files, 2, NULL, &c, NULL), GT_OK);
    gt_comparison_free(&c);
    assert_int_equal(gt_compare(names, files, 2, &co, &c, NULL), GT_OK);
    FILE *f = tmpfile();
    assert_non_null(f);
    INVALID(gt_comparison_write(NULL, GT_FORMAT_TEXT, f));
    INVALID(gt_comparison_write(c, GT_FORMAT_TEXT, NULL));
    INVALID(gt_comparison_write(c, bad_format, f));
    assert_int_equal(ftell(f), 0);
    fclose(f);
    char *s = (char *)&e;
    INVALID(gt_comparison_string(NULL, GT_FORMAT_TEXT, &s));
    assert_null(s);
    INVALID(gt_comparison_string(c, GT_FORMAT_TEXT, NULL));
    gt_comparison_free(&c);
    assert_null(c);
    gt_comparison_free(&c);
    gt_comparison_free(NULL);
}

static void metrics(void)
{
    gt_error e = {{0}};
    gt_metrics *m = (gt_metrics *)&e;
    INVALID(gt_metrics_open(NULL, &m, &e));
    assert_null(m);
    MESSAGE(e);
    INVALID(gt_metrics_open("127.0.0.1:0", NULL, &e));
    MESSAGE(e);
    assert_string_equal(gt_metrics_address(NULL), "");
    gt_timepoint tp = GT_TIMEPOINT_INIT;
    INVALID(gt_metrics_update(NULL, &tp));
    assert_int_equal(gt_metrics_open("127.0.0.1:0", &m, NULL), GT_OK);
    INVALID(gt_metrics_update(m, NULL));
    gt_metrics_free(&m);
    assert_null(m);
    gt_metrics_free(&m);
    gt_metrics_free(NULL);
}

/* Each public function, with the case that calls it with NULLs. */
static const struct {
    const char *name;
    void (*check)(void);
} cases[] = {
    {"gt_version", units}, {"gt_strerror", units}, {"gt_energy_unit_name", units}, {"gt_energy_unit_parse", units},
    {"gt_ram_unit_name", units}, {"gt_time_unit_name", units}, {"gt_ram_unit_parse", units},
    {"gt_time_unit_parse", units}, {"gt_gpu_brand_parse", units}, {"gt_gpu_brand_name", units},
    {"gt_options_init", tracker}, {"gt_tracker_add_static", tracker}, {"gt_tracker_new", tracker},
    {"gt_tracker_start", tracker}, {"gt_tracker_stop", tracker}, {"gt_tracker_usage", tracker},
    {"gt_tracker_usage_new", tracker}, {"gt_tracker_report", tracker}, {"gt_tracker_figure", tracker},
    {"gt_usage_free", tracker}, {"gt_tracker_set_main_maxrss", tracker},
    {"gt_tracker_descendants_alive", tracker}, {"gt_tracker_free", tracker},
    {"gt_usage_write", tracker}, {"gt_usage_string", tracker}, {"gt_string_free", tracker},
    {"gt_subtracker_open", subtracker}, {"gt_subtracker_default_path", subtracker},
    {"gt_subtracker_default_path_of", subtracker},
    {"gt_subtracker_mark", subtracker}, {"gt_subtracker_mark_at", subtracker}, {"gt_subtracker_status", subtracker},
    {"gt_subtracker_free", subtracker},
    {"gt_subtrack_scope_begin", subtracker}, {"gt_subtrack_scope_end", subtracker},
    {"gt_analyze", analysis}, {"gt_analyze_options_init", analysis}, {"gt_results_write", analysis},
    {"gt_results_string", analysis}, {"gt_results_free", analysis}, {"gt_subtrack_calls", analysis},
    {"gt_calls_free", analysis}, {"gt_subtrack_combine", analysis}, {"gt_plot_write", analysis},
    {"gt_plot_options_init", analysis},
    {"gt_merge_files", merge}, {"gt_merge_options_init", merge}, {"gt_merge_write", merge}, {"gt_merge_free", merge},
    {"gt_compare", compare}, {"gt_compare_options_init", compare}, {"gt_comparison_write", compare},
    {"gt_comparison_string", compare}, {"gt_comparison_free", compare},
    {"gt_metrics_open", metrics}, {"gt_metrics_address", metrics}, {"gt_metrics_update", metrics},
    {"gt_metrics_free", metrics},
};
#define N_CASES (sizeof cases / sizeof *cases)

static int has_case(const char *name)
{
    for (size_t i = 0; i < N_CASES; i++)
        if (!strcmp(cases[i].name, name))
            return 1;
    return 0;
}

/* Every function the header declares with GT_API has a case, and every
 * case names a declared function. */
static void test_every_function_has_a_case(void **state)
{
    (void)state;
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/include/gpu_tracker.h", root);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512], decl[2048] = "";
    size_t declared = 0, missing = 0;
    int in_decl = 0;
    while (fgets(line, sizeof line, f)) {
        /* A declaration starts with GT_API and may wrap; its name is the
         * identifier before the first '('. */
        if (!strncmp(line, "GT_API ", 7)) {
            in_decl = 1;
            decl[0] = '\0';
        }
        if (!in_decl)
            continue;
        strncat(decl, line, sizeof decl - strlen(decl) - 1);
        char *paren = strchr(decl, '(');
        if (!paren)
            continue;
        in_decl = 0;
        char *end = paren;
        while (end > decl && (end[-1] == ' ' || end[-1] == '\t'))
            end--;
        char *start = end;
        while (start > decl && (start[-1] == '_' || (start[-1] >= 'a' && start[-1] <= 'z') ||
                                (start[-1] >= '0' && start[-1] <= '9')))
            start--;
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(end - start), start);
        declared++;
        if (!has_case(name)) {
            printf("no NULL-argument case for %s\n", name);
            missing++;
        }
    }
    fclose(f);
    assert_int_equal(missing, 0);
    assert_int_equal(declared, N_CASES);
}

static void test_null_arguments(void **state)
{
    (void)state;
    void (*done[N_CASES])(void);
    size_t ndone = 0;
    for (size_t i = 0; i < N_CASES; i++) {
        size_t k = 0;
        while (k < ndone && done[k] != cases[i].check)
            k++;
        if (k < ndone)
            continue;
        done[ndone++] = cases[i].check;
        cases[i].check();
    }
}

int main(void)
{
    if (!getcwd(root, sizeof root))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_function_has_a_case),
        cmocka_unit_test(test_null_arguments),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
