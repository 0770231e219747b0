/* SPDX-License-Identifier: MIT */
/* Number formatting and unit conversion, digit for digit as Python and the
 * Python package produce them (expected strings are Python's own output). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/json_indent.h"
#include "report/json_string.h"
#include "util/text.h"
#include "util/pyfloat.h"
#include "util/units.h"

static void expect_repr(double x, const char *want)
{
    char buf[GT_PYFLOAT_BUFSZ];
    size_t n = gt_pyfloat_repr(x, buf, sizeof buf);
    assert_string_equal(buf, want);
    assert_int_equal(n, strlen(want));
}

/* repr(x) in Python 3 for each value. */
static void test_repr(void **state)
{
    (void)state;
    expect_repr(0.0, "0.0");
    expect_repr(-0.0, "-0.0");
    expect_repr(1.0, "1.0");
    expect_repr(0.1, "0.1");
    expect_repr(1.5, "1.5");
    expect_repr(100.0, "100.0");
    expect_repr(-2.25, "-2.25");
    expect_repr(0.1 + 0.2, "0.30000000000000004");
    expect_repr(64.89999999999999, "64.89999999999999");
    expect_repr(20.133333333333333, "20.133333333333333");
    expect_repr(16754.0 * (1 / 1e3), "16.754");
    expect_repr(6718.0 * (1 / 1e3) + 10036.0 * (1 / 1e3), "16.753999999999998");
    expect_repr(0.0001, "0.0001");
    expect_repr(0.00001, "1e-05");
    expect_repr(0.000015, "1.5e-05");
    expect_repr(1e15, "1000000000000000.0");
    expect_repr(9999999999999998.0, "9999999999999998.0");
    expect_repr(1e16, "1e+16");
    expect_repr(1.2345678901234567e17, "1.2345678901234566e+17");
    expect_repr(30000000000.0, "30000000000.0");
    expect_repr(1763849301.123456, "1763849301.123456");
    /* The exponent's width on both sides of 100. */
    expect_repr(1e99, "1e+99");
    expect_repr(1e100, "1e+100");
    expect_repr(1e-99, "1e-99");
    expect_repr(1e-100, "1e-100");
    expect_repr(1.5e101, "1.5e+101");
    expect_repr(DBL_MAX, "1.7976931348623157e+308");
    expect_repr(DBL_MIN, "2.2250738585072014e-308");
    expect_repr(5e-324, "5e-324");
    expect_repr(1e-310, "1e-310");
    expect_repr(NAN, "nan");
    expect_repr(INFINITY, "inf");
    expect_repr(-INFINITY, "-inf");
}

/* Every double whose shortest form has k digits, k = 1..17: the bisection
 * over precisions must land on exactly k. */
static void test_repr_every_length(void **state)
{
    (void)state;
    const char *const digits[] = {
        "3", "0.12", "4.56", "78.91", "123.45", "0.987654", "1.2345678", "98765.432",
        "1.23456789", "3.141592653", "2.7182818284", "1.41421356237", "1.732050807568",
        "0.6931471805599", "2.30258509299404", "0.3333333333333333", "0.30000000000000004",
    };
    for (size_t i = 0; i < sizeof digits / sizeof *digits; i++) {
        double x = strtod(digits[i], NULL);
        char want[40];
        snprintf(want, sizeof want, "%s%s", digits[i], strchr(digits[i], '.') ? "" : ".0");
        expect_repr(x, want);
    }
}

static void test_round(void **state)
{
    (void)state;
    /* round(x, 3) in Python: the exact binary value decides. */
    assert_true(gt_pyround(2.5132195840000002, 3) == 2.513);
    assert_true(gt_pyround(16.753999999999998, 3) == 16.754);
    assert_true(gt_pyround(0.0010899075534608628, 3) == 0.001);
    assert_true(gt_pyround(2.675, 2) == 2.67);   /* 2.67499999... in binary */
    assert_true(gt_pyround(0.125, 2) == 0.12);   /* exact tie: to even */
    assert_true(gt_pyround(0.375, 2) == 0.38);
    assert_true(gt_pyround(-1.0005, 3) == -1.0);  /* -1.000499999... */
    assert_true(isnan(gt_pyround(NAN, 3)));
    assert_true(gt_pyround(INFINITY, 3) == INFINITY);
}

/* The Python package's coefficients: RAM bytes * (1 / 1e3)..., GPU RAM in
 * megabytes * (1e6, 1e3, 1, 1 / 1e3, 1 / 1e6), time * (1 / 60)... */
static char *indented(const char *json, int width)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(gt_json_indent(json, width, f), 0);
    fclose(f);
    return buf;
}

/* The expected texts are Python's json.dumps(json.loads(input), indent=n). */
static void test_json_indent(void **state)
{
    (void)state;
    char *got = indented("{\"a\": {\"b\": [1, 2.5, null], \"c\": {}, \"d\": []}, \"e\": \"x\"}", 1);
    assert_string_equal(got, "{\n \"a\": {\n  \"b\": [\n   1,\n   2.5,\n   null\n  ],\n  \"c\": {},\n"
                             "  \"d\": []\n },\n \"e\": \"x\"\n}");
    free(got);
    /* Structure characters inside strings, and escaped quotes, are text. */
    got = indented("{\"k: {[,]}\\\"\": \"v, \\\\\"}", 2);
    assert_string_equal(got, "{\n  \"k: {[,]}\\\"\": \"v, \\\\\"\n}");
    free(got);
    got = indented("[]", 1);
    assert_string_equal(got, "[]");
    free(got);
}

static void expect_json_string(const char *s, const char *want)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    gt_json_put_string(f, s);
    assert_int_equal(fclose(f), 0);
    assert_string_equal(buf, want);
    free(buf);
}

/* Expected texts are Python's json.dumps(s) for valid UTF-8; bytes that are
 * not are the text \xNN (json.dumps(b.decode("utf-8", "backslashreplace"))). */
static void test_json_string(void **state)
{
    (void)state;
    expect_json_string("", "\"\"");
    expect_json_string("a \"b\" \\ c", "\"a \\\"b\\\" \\\\ c\"");
    expect_json_string("\n\r\t\b\f\x01\x1f\x7f", "\"\\n\\r\\t\\b\\f\\u0001\\u001f\\u007f\"");
    expect_json_string("caf\xc3\xa9 \xe2\x82\xac", "\"caf\\u00e9 \\u20ac\"");
    expect_json_string("\xf0\x9f\x98\x80", "\"\\ud83d\\ude00\"");
    /* Overlong forms, an encoded surrogate, a byte past U+10FFFF's lead, a
     * cut sequence: each byte on its own; U+00FF itself stays apart. */
    expect_json_string("\xc0\xaf", "\"\\\\xc0\\\\xaf\"");
    expect_json_string("\xe0\x80\xaf", "\"\\\\xe0\\\\x80\\\\xaf\"");
    expect_json_string("\xf0\x80\x80\xaf", "\"\\\\xf0\\\\x80\\\\x80\\\\xaf\"");
    expect_json_string("\xed\xa0\x80", "\"\\\\xed\\\\xa0\\\\x80\"");
    expect_json_string("\xf5\x80\x80", "\"\\\\xf5\\\\x80\\\\x80\"");
    expect_json_string("a\xe2\x82", "\"a\\\\xe2\\\\x82\"");
    expect_json_string("\xff\xfe" "bad \xc3\xbf", "\"\\\\xff\\\\xfebad \\u00ff\"");
}

static void expect_text(const char *s, unsigned flags, const char *want)
{
    char buf[256];
    assert_int_equal(gt_text_clean(s, flags), strcmp(s, want) == 0);
    assert_int_equal(gt_text_escape(buf, s, flags), strlen(want));
    assert_string_equal(buf, want);
    char *d = gt_text_escape_dup(s, flags);
    assert_non_null(d);
    assert_string_equal(d, want);
    free(d);
    char *put = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&put, &len);
    assert_non_null(f);
    gt_text_put(f, s, flags, 0);
    assert_int_equal(fclose(f), 0);
    assert_string_equal(put, want);
    free(put);
}

/* Python's b.decode("utf-8", "backslashreplace"), and with the controls
 * flag control characters as \xNN too. */
static void test_text(void **state)
{
    (void)state;
    expect_text("", 0, "");
    expect_text("python3 train.py", 0, "python3 train.py");
    expect_text("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 0, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    expect_text("\xff\xfe" "bad", 0, "\\xff\\xfebad");
    expect_text("\xfe\xff" "bad", 0, "\\xfe\\xffbad"); /* still told apart */
    expect_text("\xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80 a\xe2\x82", 0,
                "\\xc0\\xaf \\xed\\xa0\\x80 \\xf4\\x90\\x80\\x80 a\\xe2\\x82");
    /* Control characters stay in files (CSV quotes them), not on screens. */
    expect_text("a\nb\x1b[31m\x7f\xc2\x85\t", 0, "a\nb\x1b[31m\x7f\xc2\x85\t");
    expect_text("a\nb\x1b[31m\x7f\xc2\x85\t", GT_TEXT_CONTROLS, "a\\x0ab\\x1b[31m\\x7f\\x85\\x09");
    expect_text("\xc2\xa0\xe2\x82\xac", GT_TEXT_CONTROLS, "\xc2\xa0\xe2\x82\xac");
    expect_text("\xef\xbf\xbd\xef\xbf\xbe\xef\xbf\xbf", GT_TEXT_CONTROLS, "\xef\xbf\xbd\\ufffe\\uffff");
    expect_text("a\\x41\\", GT_TEXT_CONTROLS, "a\\x41\\"); /* a backslash stays one */
    /* Padding counts characters. */
    char *put = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&put, &len);
    assert_non_null(f);
    gt_text_put(f, "\xc3\xa9\xff", GT_TEXT_CONTROLS, 8);
    assert_int_equal(fclose(f), 0);
    assert_string_equal(put, "\xc3\xa9\\xff   ");
    free(put);
}

static void test_units(void **state)
{
    (void)state;
    char buf[GT_PYFLOAT_BUFSZ];
    assert_true(gt_ram_in_unit(12345678.0, GT_RAM_UNIT_BYTES) == 12345678.0);
    assert_true(gt_ram_in_unit(12345678.0, GT_RAM_UNIT_KILOBYTES) == 12345678.0 * (1 / 1e3));
    assert_true(gt_ram_in_unit(12345678.0, GT_RAM_UNIT_MEGABYTES) == 12345678.0 * (1 / 1e6));
    assert_true(gt_ram_in_unit(12345678.0, GT_RAM_UNIT_GIGABYTES) == 12345678.0 * (1 / 1e9));
    assert_true(gt_ram_in_unit(12345678.0, GT_RAM_UNIT_TERABYTES) == 12345678.0 * (1 / 1e12));
    gt_pyfloat_repr(gt_ram_in_unit(12276.0, GT_RAM_UNIT_MEGABYTES), buf, sizeof buf);
    assert_string_equal(buf, "0.012275999999999999"); /* as in the reference CSV */

    gt_pyfloat_repr(gt_gpu_ram_in_unit(4.3e9, GT_RAM_UNIT_GIGABYTES), buf, sizeof buf);
    assert_string_equal(buf, "4.3");
    gt_pyfloat_repr(gt_gpu_ram_in_unit(36594e6, GT_RAM_UNIT_GIGABYTES), buf, sizeof buf);
    assert_string_equal(buf, "36.594");
    assert_true(gt_gpu_ram_in_unit(1.6e9, GT_RAM_UNIT_BYTES) == 1.6e9);
    assert_true(gt_gpu_ram_in_unit(1.6e9, GT_RAM_UNIT_KILOBYTES) == 1.6e6);
    assert_true(gt_gpu_ram_in_unit(1.6e9, GT_RAM_UNIT_MEGABYTES) == 1600.0);
    assert_true(gt_gpu_ram_in_unit(1.5e9, GT_RAM_UNIT_TERABYTES) == 1500.0 * (1 / 1e6));

    assert_true(gt_time_in_unit(300.0, GT_TIME_UNIT_SECONDS) == 300.0);
    assert_true(gt_time_in_unit(300.0, GT_TIME_UNIT_MINUTES) == 300.0 * (1.0 / 60));
    assert_true(gt_time_in_unit(300.0, GT_TIME_UNIT_HOURS) == 300.0 * (1.0 / 3600));
    assert_true(gt_time_in_unit(300.0, GT_TIME_UNIT_DAYS) == 300.0 * (1.0 / 86400));
    gt_pyfloat_repr(gt_time_in_unit(300.0, GT_TIME_UNIT_HOURS), buf, sizeof buf);
    assert_string_equal(buf, "0.08333333333333333");

    const char *ram[] = {"bytes", "kilobytes", "megabytes", "gigabytes", "terabytes"};
    for (int i = 0; i < 5; i++) {
        gt_ram_unit u;
        assert_int_equal(gt_ram_unit_parse(ram[i], &u), GT_OK);
        assert_int_equal(u, i);
        assert_string_equal(gt_ram_unit_name(u), ram[i]);
    }
    const char *tu[] = {"seconds", "minutes", "hours", "days"};
    for (int i = 0; i < 4; i++) {
        gt_time_unit u;
        assert_int_equal(gt_time_unit_parse(tu[i], &u), GT_OK);
        assert_int_equal(u, i);
        assert_string_equal(gt_time_unit_name(u), tu[i]);
    }
    gt_ram_unit r;
    gt_time_unit t;
    assert_int_equal(gt_ram_unit_parse("kb", &r), GT_ERR_INVALID);
    assert_int_equal(gt_ram_unit_parse("Bytes", &r), GT_ERR_INVALID);
    assert_int_equal(gt_ram_unit_parse(NULL, &r), GT_ERR_INVALID);
    assert_int_equal(gt_time_unit_parse("weeks", &t), GT_ERR_INVALID);
    assert_int_equal(gt_time_unit_parse("", &t), GT_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_repr),
        cmocka_unit_test(test_repr_every_length),
        cmocka_unit_test(test_round),
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_json_indent),
        cmocka_unit_test(test_json_string),
        cmocka_unit_test(test_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
