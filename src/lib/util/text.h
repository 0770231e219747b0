/* SPDX-License-Identifier: MIT */
/* Text from outside (process names and command lines from /proc, host
 * names, code-block names, file names) as gpu-tracker writes it for others
 * to read: always valid UTF-8, and on screens and in XML without control
 * characters.  One rule, Python's 'backslashreplace': each byte that starts
 * no valid, shortest-form UTF-8 sequence is written as the four characters
 * \xNN (two lowercase hex digits), so b"\xff\xfebad" is written "\xff\xfebad"
 * and names that differ in their bytes still differ (only a name holding
 * the text \xNN itself reads the same as the byte).  In Python:
 * raw.decode("utf-8", "backslashreplace"). */
#ifndef GT_UTIL_TEXT_H
#define GT_UTIL_TEXT_H
#include <stddef.h>
#include <stdio.h>

/* Also write control characters (U+0000 to U+001F, U+007F, U+0080 to
 * U+009F) as \xNN, and U+FFFE, U+FFFF as \uNNNN: for text reports (a
 * newline would split a table, ESC start a terminal sequence) and XML,
 * which forbids them even as references. */
#define GT_TEXT_CONTROLS 1u

/* Bytes gt_text_escape may write for len bytes of text, NUL included. */
#define GT_TEXT_MAX(len) (4 * (len) + 1)
/* Bytes gt_text_next may write, NUL included. */
#define GT_TEXT_CHAR_MAX 7

/* The rule, one character at a time, for writers that add their own
 * escaping (XML): writes the character at s (*s not NUL) as it is shown
 * into out, NUL-terminated: its UTF-8 bytes, or its escape.  Returns the
 * bytes of s it took. */
size_t gt_text_next(const char *s, unsigned flags, char out[GT_TEXT_CHAR_MAX]);

/* The code point of the UTF-8 sequence at p, its length in *len; 0 in *len
 * when p starts no valid sequence (overlong forms, surrogates and code
 * points above U+10FFFF included, as Python's decoder refuses them). */
unsigned long gt_utf8_decode(const unsigned char *p, int *len);

/* 1 when s needs no escaping under flags (gt_text_escape would copy it). */
int gt_text_clean(const char *s, unsigned flags);

/* Writes s escaped under flags into dst, which needs
 * GT_TEXT_MAX(strlen(s)) bytes; NUL-terminated.  Returns the length. */
size_t gt_text_escape(char *dst, const char *s, unsigned flags);

/* s escaped under flags in memory of its own (caller frees); NULL when out
 * of memory. */
char *gt_text_escape_dup(const char *s, unsigned flags);

/* The characters gt_text_put writes for s (as pandas and Python's len()
 * count them, for columns padded to a width). */
size_t gt_text_width(const char *s, unsigned flags);

/* Writes s escaped under flags to out, then spaces up to width characters
 * (0: none; as printf's "%-*s" does for ASCII).  Errors
 * are left in out's error flag. */
void gt_text_put(FILE *out, const char *s, unsigned flags, int width);

#endif
