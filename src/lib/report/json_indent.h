/* SPDX-License-Identifier: MIT */
/* JSON laid out as Python's json.dumps(obj, indent=n) lays it out, from the
 * compact text the writers produce: what the Python package's command line
 * prints, and what users diff. */
#ifndef GT_REPORT_JSON_INDENT_H
#define GT_REPORT_JSON_INDENT_H

#include <stdio.h>

/* Writes the JSON text json (valid JSON, as the library's writers make it)
 * to out with each member and element on its own line, indented by width
 * spaces a level, "{}" and "[]" kept empty, ": " after keys.  Returns 0, or
 * -1 when out reports an error. */
int gt_json_indent(const char *json, int width, FILE *out);

/* Runs write(ctx, tmp) into a memory stream, then gt_json_indent()s what it
 * wrote to out.  -1 when memory runs out or out fails. */
int gt_json_indented(void (*write)(FILE *tmp, const void *ctx), const void *ctx, int width, FILE *out);

#endif
