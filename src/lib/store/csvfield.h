/* SPDX-License-Identifier: MIT */
/* CSV fields written as Python's csv module writes them (QUOTE_MINIMAL), so
 * the Python package and pandas read back exactly what was written. */
#ifndef GT_STORE_CSVFIELD_H
#define GT_STORE_CSVFIELD_H
#include <stddef.h>

/* Bytes gt_csv_field may need for a field of len bytes (a byte that is not
 * UTF-8 takes 4, a quote 2). */
#define GT_CSV_FIELD_MAX(len) (4 * (len) + 3)

/* Writes the field a, followed by ':' and b when b is not NULL, into dst:
 * quoted, with quotes doubled, only when it holds a comma, a quote, CR or
 * LF; bytes that are not UTF-8 as \xNN (util/text.h), so that every reader
 * decodes the file.  dst needs GT_CSV_FIELD_MAX(strlen(a) + 1 + strlen(b)) bytes; it is
 * NUL-terminated.  Returns the length. */
size_t gt_csv_field(char *dst, const char *a, const char *b);

#endif
