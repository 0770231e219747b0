/* SPDX-License-Identifier: MIT */
/* -e splitting: shell word rules without a shell. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "cli/argv.h"

static void expect_split(const char *line, int n, const char *const *words)
{
    int argc = -1;
    char **argv = NULL;
    gt_error e;
    assert_int_equal(gt_argv_split(line, &argc, &argv, &e), GT_OK);
    assert_int_equal(argc, n);
    for (int i = 0; i < n; i++)
        assert_string_equal(argv[i], words[i]);
    assert_null(argv[n]);
    gt_argv_free(&argv);
    assert_null(argv);
}

static void test_plain_words(void **state)
{
    (void)state;
    const char *w[] = {"ls", "-l", "-a"};
    expect_split("  ls   -l\t-a \n", 3, w);
}

static void test_quotes(void **state)
{
    (void)state;
    const char *w[] = {"cmd", "arg", "quoted arg", "dq \"x\" \\ $HOME", "a'b'c"};
    expect_split("cmd arg 'quoted arg' \"dq \\\"x\\\" \\\\ \\$HOME\" a\\'b\\'c", 5, w);
}

static void test_nothing_expanded(void **state)
{
    (void)state;
    const char *w[] = {"echo", "$(rm", "-rf", "x)", "`id`", "$HOME", ";", "|"};
    expect_split("echo $(rm -rf x) `id` $HOME ; |", 8, w);
}

static void test_adjacent_and_empty(void **state)
{
    (void)state;
    const char *w[] = {"ab cd", "", "x"};
    expect_split("a\"b \"'cd' '' x", 3, w);
    expect_split("   ", 0, w);
}

static void test_errors(void **state)
{
    (void)state;
    const char *bad[] = {"echo 'open", "echo \"open", "echo trailing\\"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int argc;
        char **argv = NULL;
        gt_error e = {{0}};
        assert_int_equal(gt_argv_split(bad[i], &argc, &argv, &e), GT_ERR_INVALID);
        assert_null(argv);
        assert_non_null(strstr(e.msg, bad[i]));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_words),
        cmocka_unit_test(test_quotes),
        cmocka_unit_test(test_nothing_expanded),
        cmocka_unit_test(test_adjacent_and_empty),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
