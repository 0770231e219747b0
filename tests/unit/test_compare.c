/* SPDX-License-Identifier: MIT */
/* Comparison of sessions: the Python package's outputs for the reference
 * results, code-block matching, ordering, formatting and every error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "gpu_tracker.h"

static const char *ref_dir(void)
{
    const char *d = getenv("GT_REF");
    return d ? d : "tests/fixtures/reference";
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *b = malloc(1 << 16);
    size_t len = fread(b, 1, (1 << 16) - 1, f);
    b[len] = '\0';
    fclose(f);
    return b;
}

static char *ref_path(const char *name)
{
    static char path[4][512];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/comparison/%s", ref_dir(), name);
    return p;
}

static char *render(const gt_comparison *c, gt_format fmt)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(gt_comparison_write(c, fmt, f), GT_OK);
    fclose(f);
    return buf;
}

/* Warnings collected from the log callback. */
typedef struct logbook {
    int n;
    char msg[4][1024];
} logbook;

static void collect(void *ctx, const char *msg)
{
    logbook *lb = ctx;
    if (lb->n < 4)
        snprintf(lb->msg[lb->n], sizeof lb->msg[0], "%s", msg);
    lb->n++;
}

static gt_comparison *compare_ok(const char *const *names, const char *const *files, size_t n, const char *stat,
                                 logbook *lb)
{
    gt_comparison *c = NULL;
    gt_error e = {{0}};
    gt_compare_options o = {.version = GT_STRUCT_VERSION, .statistic = stat, .log = collect, .log_ctx = lb};
    gt_status st = gt_compare(names, files, n, &o, &c, &e);
    if (st != GT_OK)
        fail_msg("gt_compare: %s", e.msg);
    assert_non_null(c);
    return c;
}

static gt_comparison *compare_ab(const char *stat, logbook *lb)
{
    const char *names[] = {"A", "B"};
    const char *files[] = {ref_path("results-A.json"), ref_path("results-B.json")};
    return compare_ok(names, files, 2, stat, lb);
}

static void test_reference_text(void **state)
{
    (void)state;
    const char *stats[] = {"mean", "max"};
    for (int i = 0; i < 2; i++) {
        logbook lb = {0};
        gt_comparison *c = compare_ab(stats[i], &lb);
        char *got = render(c, GT_FORMAT_TEXT), name[64];
        snprintf(name, sizeof name, "comparison_%s.txt", stats[i]);
        char *want = slurp(ref_path(name));
        assert_string_equal(got, want);
        free(got);
        free(want);
        gt_comparison_free(&c);
        assert_null(c);
    }
}

/* Same keys in the same order, same value types, numbers to 1e-9. */
static void same_json(const cJSON *a, const cJSON *b, const char *path)
{
    if (cJSON_IsNumber(b)) {
        if (!cJSON_IsNumber(a))
            fail_msg("%s: not a number", path);
        double x = a->valuedouble, y = b->valuedouble;
        if (fabs(x - y) > 1e-9 * fmax(fabs(x), fabs(y)))
            fail_msg("%s: %.17g != %.17g", path, x, y);
        return;
    }
    if (!cJSON_IsObject(b) || !cJSON_IsObject(a))
        fail_msg("%s: not an object", path);
    const cJSON *x = a->child, *y = b->child;
    for (; x && y; x = x->next, y = y->next) {
        if (strcmp(x->string, y->string))
            fail_msg("%s: key '%s' where '%s' was expected", path, x->string, y->string);
        char sub[512];
        snprintf(sub, sizeof sub, "%s.%s", path, y->string);
        same_json(x, y, sub);
    }
    if (x || y)
        fail_msg("%s: different number of keys", path);
}

static void test_reference_json(void **state)
{
    (void)state;
    const char *stats[] = {"mean", "max"};
    for (int i = 0; i < 2; i++) {
        logbook lb = {0};
        gt_comparison *c = compare_ab(stats[i], &lb);
        char *got = render(c, GT_FORMAT_JSON), name[64];
        snprintf(name, sizeof name, "comparison_%s.json", stats[i]);
        char *want = slurp(ref_path(name));
        cJSON *g = cJSON_Parse(got), *w = cJSON_Parse(want);
        assert_non_null(g);
        assert_non_null(w);
        same_json(g, w, "$");
        /* json.dumps(indent=1), as the Python package's command line prints it. */
        assert_non_null(strstr(got, "{\n \"overall_resource_usage\": {\n  \"main_ram\": {\n   \"A\": "));
        assert_int_equal(got[strlen(got) - 1], '}');
        cJSON_Delete(g);
        cJSON_Delete(w);
        free(got);
        free(want);
        gt_comparison_free(&c);
    }
}

static void test_line_number_warning(void **state)
{
    (void)state;
    logbook lb = {0};
    gt_comparison *c = compare_ab("mean", &lb);
    assert_int_equal(lb.n, 2);
    assert_string_equal(lb.msg[0],
                        "Code block name \"tmp.py:9\" of tracking session \"A\" matched with code block name "
                        "\"tmp.py:7\" of tracking session \"B\" but they differ by line number. If these code "
                        "blocks were not meant to match, their comparison will not be valid and their names must "
                        "be disambiguated.");
    assert_non_null(strstr(lb.msg[1], "\"tmp.py:38\" of tracking session \"A\" matched with code block name "
                                      "\"tmp.py:37\" of tracking session \"B\""));
    gt_comparison_free(&c);
}

static void test_no_code_blocks(void **state)
{
    (void)state;
    const char *names[] = {"F", "G"};
    const char *files[] = {ref_path("results-F.json"), ref_path("results-G.json")};
    logbook lb = {0};
    gt_comparison *c = compare_ok(names, files, 2, "mean", &lb);
    assert_int_equal(lb.n, 0);
    char *text = render(c, GT_FORMAT_TEXT), *json = render(c, GT_FORMAT_JSON);
    assert_non_null(strstr(text, "Overall Resource Usage:\n\tMain Ram:\n\t\t          F          G\n"
                                 "\t\t 0.60060156 0.61011198\n"));
    const char *tail = "Code Block Resource Usage:\nCode Block Compute Time:\n";
    assert_string_equal(text + strlen(text) - strlen(tail), tail);
    const char *jtail = "\n  }\n },\n \"code_block_resource_usage\": {},\n \"code_block_compute_time\": {}\n}";
    assert_string_equal(json + strlen(json) - strlen(jtail), jtail);
    free(text);
    free(json);
    gt_comparison_free(&c);
}

/* A scratch directory for generated results files. */
static char tmpdir[64];

static int make_tmpdir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/gt-compare-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *write_tmp(const char *name, const char *text)
{
    static char paths[8][128];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, sizeof paths[0], "%s/%s", tmpdir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return p;
}

/* Results with one measurement ("main_ram", every statistic = ram) and
 * code blocks "name=value;..." (every statistic of a block = value). */
static const char *results(const char *file, const char *ram, const char *blocks)
{
    char text[4096], list[3072] = "";
    char spec[512];
    snprintf(spec, sizeof spec, "%s", blocks);
    for (char *save = NULL, *b = strtok_r(spec, ";", &save); b; b = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(b, '=');
        *eq = '\0';
        char one[512];
        snprintf(one, sizeof one,
                 "%s{\"name\": \"%s\", \"num_timepoints\": 1, \"num_calls\": 1, \"num_non_empty_calls\": 1, "
                 "\"compute_time\": {\"min\": %s, \"max\": %s, \"mean\": %s, \"std\": %s, \"total\": %s}, "
                 "\"resource_usage\": {\"main_ram\": {\"min\": %s, \"max\": %s, \"mean\": %s, \"std\": %s}}}",
                 *list ? ", " : "", b, eq + 1, eq + 1, eq + 1, eq + 1, eq + 1, eq + 1, eq + 1, eq + 1, eq + 1);
        strcat(list, one);
    }
    snprintf(text, sizeof text,
             "{\"overall\": {\"main_ram\": {\"min\": %s, \"max\": %s, \"mean\": %s, \"std\": %s}}, "
             "\"static_data\": {}, \"code_block_results\": [%s]}",
             ram, ram, ram, ram, list);
    return write_tmp(file, text);
}

/* Line numbers sort as numbers: f.c:5 < f.c:20 and f.c:30 < f.c:40, so 5
 * pairs with 30 and 20 with 40 (a plain string sort would pair 20 with 30). */
/* The one-line form of the indented JSON (json.dumps without indent), in
 * place, for tests that read it as a line: the layout has its own test. */
static char *one_line(char *json)
{
    char *w = json;
    int in_string = 0;
    for (const char *r = json; *r; r++) {
        if (in_string) {
            if (*r == '\\' && r[1])
                *w++ = *r++;
            else if (*r == '"')
                in_string = 0;
        } else if (*r == '"') {
            in_string = 1;
        } else if (*r == '\n') {
            while (r[1] == ' ')
                r++;
            if (w > json && w[-1] == ',')
                *w++ = ' ';
            continue;
        }
        *w++ = *r;
    }
    *w = '\0';
    return json;
}

static void test_line_numbers_sorted_as_numbers(void **state)
{
    (void)state;
    const char *names[] = {"S1", "S2"};
    const char *files[] = {results("s1.json", "1.0", "f.c:20=2.0;f.c:5=1.0;z=9.0"),
                           results("s2.json", "1.0", "f.c:40=20.0;z=9.0;f.c:30=10.0")};
    logbook lb = {0};
    gt_comparison *c = compare_ok(names, files, 2, "max", &lb);
    assert_int_equal(lb.n, 2);
    char *json = one_line(render(c, GT_FORMAT_JSON));
    assert_non_null(strstr(json, "\"code_block_compute_time\": {\"f.c:5 -> f.c:30\": {\"S1\": 1.0, \"S2\": 10.0}, "
                                 "\"f.c:20 -> f.c:40\": {\"S1\": 2.0, \"S2\": 20.0}, "
                                 "\"z\": {\"S1\": 9.0, \"S2\": 9.0}}}"));
    free(json);
    gt_comparison_free(&c);
}

/* Ascending, ties in session order, unavailable (null) last; integers stay
 * integers only when every session's value is one. */
static void test_order_and_formatting(void **state)
{
    (void)state;
    const char *names[] = {"one", "two", "three", "a-long-session-name"};
    const char *files[] = {results("o1.json", "2.5", "b=15"), results("o2.json", "null", "b=15"),
                           results("o3.json", "-1.123456789", "b=15"), results("o4.json", "2.5", "b=15")};
    logbook lb = {0};
    gt_comparison *c = compare_ok(names, files, 4, "mean", &lb);
    char *text = render(c, GT_FORMAT_TEXT), *json = one_line(render(c, GT_FORMAT_JSON));
    assert_non_null(strstr(text, "\tMain Ram:\n"
                                 "\t\t       three one a-long-session-name two\n"
                                 "\t\t -1.12345679 2.5                 2.5 nan\n"));
    assert_non_null(strstr(json, "{\"main_ram\": {\"three\": -1.123456789, \"one\": 2.5, "
                                 "\"a-long-session-name\": 2.5, \"two\": null}}"));
    /* Every b is the integer 15: printed as pandas prints an int column. */
    assert_non_null(strstr(text, "Code Block Compute Time:\n\tb:\n"
                                 "\t\t one two three a-long-session-name\n"
                                 "\t\t  15  15    15                  15\n"));
    assert_non_null(strstr(json, "\"code_block_compute_time\": {\"b\": {\"one\": 15, \"two\": 15, \"three\": 15, "
                                 "\"a-long-session-name\": 15}}"));
    free(text);
    free(json);
    gt_comparison_free(&c);

    const char *mixed[] = {results("m1.json", "1", "b=15"), results("m2.json", "1.5", "b=15.0")};
    c = compare_ok(names, mixed, 2, "min", &lb);
    text = render(c, GT_FORMAT_TEXT);
    json = one_line(render(c, GT_FORMAT_JSON));
    assert_non_null(strstr(text, "\t\t one two\n\t\t 1.0 1.5\n"));
    assert_non_null(strstr(json, "{\"one\": 15.0, \"two\": 15.0}"));
    free(text);
    free(json);
    gt_comparison_free(&c);
}

/* Results written by Python hold NaN (json.dumps of to_json()), and could
 * hold Infinity: each reads as null does, not available, wherever it is;
 * the words inside a string stay as they are. */
static void test_python_non_finite_literals_read_as_null(void **state)
{
    (void)state;
    const char *names[] = {"py", "c", "inf"};
    const char *files[] = {results("n1.json", "NaN", "NaN-block=NaN"), results("n2.json", "null", "NaN-block=null"),
                           results("n3.json", "-Infinity", "NaN-block=Infinity")};
    logbook lb = {0};
    gt_comparison *c = compare_ok(names, files, 3, "mean", &lb);
    char *json = one_line(render(c, GT_FORMAT_JSON)), *text = render(c, GT_FORMAT_TEXT);
    assert_non_null(strstr(json, "{\"main_ram\": {\"py\": null, \"c\": null, \"inf\": null}}"));
    assert_non_null(strstr(json, "\"code_block_compute_time\": {\"NaN-block\": {\"py\": null, \"c\": null, "
                                 "\"inf\": null}}"));
    assert_non_null(strstr(text, "\t\t  py   c inf\n\t\t nan nan nan\n"));
    free(json);
    free(text);
    gt_comparison_free(&c);
}

static void test_json_strings_escaped(void **state)
{
    (void)state;
    const char *names[] = {"caf\xc3\xa9 \"1\"", "\xf0\x9f\x98\x80"};
    const char *files[] = {results("e1.json", "1.0", "a\\\\b=1.0"), results("e2.json", "2.0", "a\\\\b=1.0")};
    logbook lb = {0};
    gt_comparison *c = compare_ok(names, files, 2, "std", &lb);
    char *json = one_line(render(c, GT_FORMAT_JSON)), *text = render(c, GT_FORMAT_TEXT);
    assert_non_null(strstr(json, "{\"caf\\u00e9 \\\"1\\\"\": 1.0, \"\\ud83d\\ude00\": 2.0}"));
    assert_non_null(strstr(json, "\"code_block_compute_time\": {\"a\\\\b\": {"));
    /* Columns are as wide as their characters, not their bytes. */
    assert_non_null(strstr(text, "\t\t caf\xc3\xa9 \"1\"   \xf0\x9f\x98\x80\n\t\t      1.0 2.0\n"));
    free(json);
    free(text);
    gt_comparison_free(&c);
}

/* Each failure: a status, a message naming what is wrong, no comparison. */
static void expect_error(const char *const *names, const char *const *files, size_t n, const char *stat,
                         gt_status want, const char *part)
{
    gt_comparison *c = (gt_comparison *)(uintptr_t)1;
    gt_error e = {{0}};
    logbook lb = {0};
    gt_compare_options o = {.version = GT_STRUCT_VERSION, .statistic = stat, .log = collect, .log_ctx = &lb};
    gt_status st = gt_compare(names, files, n, &o, &c, &e);
    if (st != want || !strstr(e.msg, part))
        fail_msg("status %d, message '%s'; expected %d with '%s'", st, e.msg, want, part);
    assert_null(c);
}

static void test_errors(void **state)
{
    (void)state;
    const char *ab[] = {"A", "B"}, *aa[] = {"A", "A"};
    const char *ref_a = ref_path("results-A.json");
    const char *af[] = {ref_a, ref_path("results-F.json")};
    expect_error(ab, af, 2, "mean", GT_ERR_INVALID,
                 "different numbers of code blocks: 'A' ('");
    expect_error(ab, af, 2, "mean", GT_ERR_INVALID, "has 4, 'B' ('");
    const char *other[] = {results("x1.json", "1.0", "a=1;b=2"), results("x2.json", "1.0", "a=1;c=2")};
    expect_error(ab, other, 2, "mean", GT_ERR_INVALID,
                 "code block 'b' of session 'A' does not match code block 'c' of session 'B'");
    const char *files_differ[] = {results("y1.json", "1.0", "f.c:3=1"), results("y2.json", "1.0", "g.c:3=1")};
    expect_error(ab, files_differ, 2, "mean", GT_ERR_INVALID, "code block 'f.c:3' of session 'A' does not match");
    const char *one_line[] = {results("z1.json", "1.0", "f.c:3=1"), results("z2.json", "1.0", "f.c=1")};
    expect_error(ab, one_line, 2, "mean", GT_ERR_INVALID, "'f.c:3' of session 'A' does not match code block 'f.c'");
    const char *fine[] = {ref_a, ref_a};
    expect_error(ab, fine, 2, "median", GT_ERR_INVALID,
                 "invalid statistic 'median': valid statistics are 'min', 'max', 'mean', 'std'");
    expect_error(ab, fine, 2, "", GT_ERR_INVALID, "valid statistics are 'min', 'max', 'mean', 'std'");
    expect_error(aa, fine, 2, "mean", GT_ERR_INVALID, "session name 'A' is given twice");
    expect_error(ab, fine, 0, "mean", GT_ERR_INVALID, "no sessions to compare");

    const char *missing[] = {ref_a, "/nonexistent/results.json"};
    expect_error(ab, missing, 2, "mean", GT_ERR_IO,
                 "cannot read results file '/nonexistent/results.json': No such file or directory");
    const char *dir[] = {ref_a, tmpdir};
    expect_error(ab, dir, 2, "mean", GT_ERR_IO, "cannot read results file '/tmp/gt-compare-");
    const char *broken[] = {ref_a, write_tmp("broken.json", "{\"overall\": {\n  \"main_ram\": {]\n")};
    expect_error(ab, broken, 2, "mean", GT_ERR_FORMAT, "broken.json' is not valid JSON (line 2, column ");
    const char *empty[] = {ref_a, write_tmp("empty.json", "")};
    expect_error(ab, empty, 2, "mean", GT_ERR_FORMAT, "empty.json' is not valid JSON (line 1, column 1)");
    const char *list[] = {write_tmp("list.json", "[1, 2]"), ref_a};
    expect_error(ab, list, 2, "mean", GT_ERR_FORMAT, "list.json' is not a JSON object");
    const char *no_overall[] = {write_tmp("no-overall.json", "{\"code_block_results\": []}"), ref_a};
    expect_error(ab, no_overall, 2, "mean", GT_ERR_FORMAT, "no-overall.json' has no 'overall' object");
    const char *no_blocks[] = {write_tmp("no-blocks.json", "{\"overall\": {}}"), ref_a};
    expect_error(ab, no_blocks, 2, "mean", GT_ERR_FORMAT, "no-blocks.json' has no 'code_block_results' list");
    const char *bad_block[] = {write_tmp("bad-block.json", "{\"overall\": {}, \"code_block_results\": [{}]}")};
    expect_error(ab, bad_block, 1, "mean", GT_ERR_FORMAT, "bad-block.json': code block 1 has no 'name'");
    const char *no_time[] = {
        write_tmp("no-time.json", "{\"overall\": {}, \"code_block_results\": [{\"name\": \"x\", "
                                  "\"resource_usage\": {}}]}")};
    expect_error(ab, no_time, 1, "mean", GT_ERR_FORMAT, "no-time.json': code block 'x' has no 'compute_time' object");
    const char *short_overall[] = {ref_a, write_tmp("short.json", "{\"overall\": {\"main_ram\": {\"mean\": 1}}, "
                                                                  "\"code_block_results\": []}")};
    const char *f_first[] = {ref_path("results-F.json"), short_overall[1]};
    expect_error(ab, f_first, 2, "mean", GT_ERR_FORMAT, "short.json': overall 'descendants_ram' is missing");
    expect_error(ab, f_first, 2, "max", GT_ERR_FORMAT, "short.json': overall 'main_ram' has no number 'max'");
}

static void test_single_session_and_free_null(void **state)
{
    (void)state;
    const char *names[] = {"only"};
    const char *files[] = {ref_path("results-A.json")};
    logbook lb = {0};
    gt_comparison *c = compare_ok(names, files, 1, "std", &lb);
    char *text = render(c, GT_FORMAT_TEXT);
    assert_non_null(strstr(text, "\tMain Ram:\n\t\t       only\n\t\t 0.52698528\n"));
    free(text);
    assert_int_equal(gt_comparison_write(c, (gt_format)7, stdout), GT_ERR_INVALID);
    gt_comparison_free(&c);
    gt_comparison_free(&c);
    gt_comparison_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_text),
        cmocka_unit_test(test_reference_json),
        cmocka_unit_test(test_line_number_warning),
        cmocka_unit_test(test_no_code_blocks),
        cmocka_unit_test(test_line_numbers_sorted_as_numbers),
        cmocka_unit_test(test_order_and_formatting),
        cmocka_unit_test(test_python_non_finite_literals_read_as_null),
        cmocka_unit_test(test_json_strings_escaped),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_single_session_and_free_null),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
