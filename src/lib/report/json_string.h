/* SPDX-License-Identifier: MIT */
/* JSON string literals as Python's json.dumps writes them (ensure_ascii),
 * for every writer whose output users compare with the Python package's. */
#ifndef GT_REPORT_JSON_STRING_H
#define GT_REPORT_JSON_STRING_H

#include <stdio.h>

/* Writes s to out as a quoted JSON string: '"' and '\\' escaped, \n \r \t
 * \b \f as such, other control characters and everything outside printable
 * ASCII as \uXXXX (a surrogate pair above U+FFFF).  s is read as UTF-8;
 * a byte that starts no valid, shortest-form sequence is the text \xNN
 * (util/text.h, in JSON "\\xNN"), so any bytes make valid JSON.  Errors are left in out's error flag. */
void gt_json_put_string(FILE *out, const char *s);

#endif
