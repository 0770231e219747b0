/* SPDX-License-Identifier: MIT */
/* Errors as values with a message.  gt_strerror: each status of the
 * header's gt_status (counted from the header, so a status added without a
 * text fails here as it fails -Wswitch in the library) has a text of its
 * own, and any other value the generic one.  The CLI's reason for a failed
 * write: the system's where errno has one, else the status's text.  A
 * message cut to fit a gt_error says so ("..."), never in the middle of a
 * UTF-8 character. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli/options.h"
#include "gpu_tracker.h"
#include "util/error.h"

/* The number of enumerators of gt_status in include/gpu_tracker.h (run from
 * the checkout's root, as the suite runs it). */
static int header_statuses(void)
{
    FILE *f = fopen("include/gpu_tracker.h", "r");
    assert_non_null(f);
    char line[512];
    int in_enum = 0, n = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "typedef enum gt_status {", 24)) {
            in_enum = 1;
            continue;
        }
        if (!in_enum)
            continue;
        if (line[0] == '}')
            break;
        const char *p = line + strspn(line, " ");
        if (!strncmp(p, "GT_", 3))
            n++;
    }
    fclose(f);
    assert_true(in_enum);
    return n;
}

static void test_every_status_has_its_own_text(void **state)
{
    (void)state;
    int n = header_statuses();
    assert_true(n > GT_ERR_INVALID);
    const char *generic = gt_strerror((gt_status)-1);
    assert_string_equal(generic, "unknown status");
    for (int i = 0; i < n; i++) {
        const char *t = gt_strerror((gt_status)i);
        assert_non_null(t);
        assert_true(t[0] != '\0');
        assert_string_not_equal(t, generic);
        /* Text that follows a colon: no final period, no capital. */
        assert_true(t[strlen(t) - 1] != '.' && !(t[0] >= 'A' && t[0] <= 'Z'));
        for (int j = 0; j < i; j++)
            assert_string_not_equal(t, gt_strerror((gt_status)j));
    }
    assert_string_equal(gt_strerror((gt_status)n), generic);
    assert_string_equal(gt_strerror((gt_status)INT_MAX), generic);
    /* Stable: these texts are the API's, and a binding may show them. */
    assert_string_equal(gt_strerror(GT_OK), "success");
    assert_string_equal(gt_strerror(GT_ERR_NOMEM), "out of memory");
}

static void test_write_reason(void **state)
{
    (void)state;
    errno = ENOSPC;
    assert_string_equal(gt_cli_write_reason(GT_ERR_IO), strerror(ENOSPC));
    errno = 0;
    assert_string_equal(gt_cli_write_reason(GT_ERR_NOMEM), "out of memory");
    /* A stream that failed after the library's write returned GT_OK. */
    assert_string_equal(gt_cli_write_reason(GT_OK), gt_strerror(GT_ERR_IO));
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !memcmp(s + n - m, tail, m);
}

static void test_cut_messages_say_so(void **state)
{
    (void)state;
    gt_error e;
    char text[600];
    memset(text, 'a', sizeof text - 1);
    text[sizeof text - 1] = '\0';
    assert_int_equal(gt_err(&e, GT_ERR_IO, "%s", text), GT_ERR_IO);
    assert_int_equal(strlen(e.msg), sizeof e.msg - 1);
    assert_true(ends_with(e.msg, "aaa..."));

    /* One that fits exactly is whole. */
    text[sizeof e.msg - 1] = '\0';
    gt_err(&e, GT_ERR_IO, "%s", text);
    assert_string_equal(e.msg, text);

    /* The cut falls inside a 3-byte character: the character goes whole. */
    memset(text, 'a', sizeof text - 1);
    memcpy(text + sizeof e.msg - 5, "\xe2\x82\xac", 3); /* U+20AC over the place of the mark */
    gt_err(&e, GT_ERR_IO, "%s", text);
    assert_int_equal(strlen(e.msg), sizeof e.msg - 2);
    assert_true(ends_with(e.msg, "aaa..."));

    /* Joined: both named while they fit, else the second cut and marked. */
    gt_err(&e, GT_ERR_IO, "first");
    gt_error more;
    gt_err(&more, GT_ERR_IO, "second");
    gt_err_join(&e, &more);
    assert_string_equal(e.msg, "first; second");
    memset(text, 'b', 300);
    text[300] = '\0';
    gt_err(&e, GT_ERR_IO, "%s", text);
    gt_err(&more, GT_ERR_IO, "%s", text);
    gt_err_join(&e, &more);
    assert_int_equal(strlen(e.msg), sizeof e.msg - 1);
    assert_memory_equal(e.msg, text, 300);
    assert_memory_equal(e.msg + 300, "; bbb", 5);
    assert_true(ends_with(e.msg, "bbb..."));
    /* A first message that leaves no room for "; ": the mark alone. */
    memset(text, 'c', sizeof e.msg - 4);
    text[sizeof e.msg - 4] = '\0';
    gt_err(&e, GT_ERR_IO, "%s", text);
    gt_err_join(&e, &more);
    assert_int_equal(strlen(e.msg), sizeof e.msg - 1);
    assert_true(ends_with(e.msg, "ccc..."));
}

/* A text field of gt_usage (a reason, a cgroup path): whole where it fits,
 * else cut and marked, never silently. */
static void test_text_fit(void **state)
{
    (void)state;
    char field[16];
    gt_text_fit(field, sizeof field, "%s", "fits");
    assert_string_equal(field, "fits");
    gt_text_fit(field, sizeof field, "/%s/%s", "kubepods", "burstable-pod");
    assert_string_equal(field, "/kubepods/bu...");
    gt_text_fit(field, sizeof field, "%s", "abcdefghijk\xe2\x82\xacxy"); /* U+20AC across the mark's place */
    assert_string_equal(field, "abcdefghijk...");
    /* Appended: whole while it fits, then cut and marked; a full field
     * that was to get more says so too. */
    gt_text_fit(field, sizeof field, "a");
    gt_text_append(field, sizeof field, "%s", "bc");
    assert_string_equal(field, "abc");
    gt_text_append(field, sizeof field, "%s", "defghijklmnopq");
    assert_string_equal(field, "abcdefghijkl...");
    gt_text_fit(field, sizeof field, "%s", "123456789012345");
    gt_text_append(field, sizeof field, "x");
    assert_string_equal(field, "123456789012...");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_fit),
        cmocka_unit_test(test_every_status_has_its_own_text),
        cmocka_unit_test(test_write_reason),
        cmocka_unit_test(test_cut_messages_say_so),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
