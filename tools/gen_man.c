/* SPDX-License-Identifier: MIT */
/* gen_man PAGE: writes the man page PAGE to stdout with its option lists
 * made anew from the commands' option tables (src/cli/option_tables.h), so
 * that an option is written once, in its table, for --help and the page.
 *
 * Each list stands between two comment lines of the page,
 *     .\" BEGIN GENERATED OPTIONS <command as typed, e.g. gpu-tracker plot>
 *     .\" END GENERATED OPTIONS
 * and everything outside them is copied as it is.  `make man` rewrites
 * docs/gpu-tracker.1 with it; tests/e2e/cli_options.sh fails when the page
 * in git is not what it writes.  Exit status 1, with a message, for a page
 * whose markers do not match the commands one to one. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/option_tables.h"
#include "cli/options.h"

#define BEGIN_MARK ".\\\" BEGIN GENERATED OPTIONS "
#define END_MARK ".\\\" END GENERATED OPTIONS"

/* Text as roff prints it literally: '\' is an escape and '-' unescaped is a
 * hyphen that man(1) may render as a dash. */
static void put_escaped(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        if (s[i] == '\\')
            fputs("\\e", out);
        else if (s[i] == '-')
            fputs("\\-", out);
        else
            fputc(s[i], out);
    }
}

/* A value's name, where the page's hyphens are hyphens ("sleep-time"). */
static void put_value_name(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        if (s[i] == '\\')
            fputs("\\e", out);
        else
            fputc(s[i], out);
    }
}

/* A value's name such as "<name>=<file-path>" inside bold text: the parts
 * in angle brackets in italics, the rest bold, roman after it. */
static void put_arg_inline(FILE *out, const char *arg)
{
    for (const char *p = arg; *p; p++) {
        if (*p == '<')
            fputs("\\fI", out);
        else if (*p == '>')
            fputs(p[1] ? "\\fB" : "\\fR", out);
        else
            put_value_name(out, p, 1);
    }
}

/* One argument of a roff macro, quoted when it holds a space; an option's
 * name (bold) with '-' escaped, a value's name (italic) as it is. */
static void put_macro_arg(FILE *out, const char *s, size_t n, int is_value)
{
    int quote = memchr(s, ' ', n) != NULL || n == 0;
    fputc(' ', out);
    if (quote)
        fputc('"', out);
    if (is_value)
        put_value_name(out, s, n);
    else
        put_escaped(out, s, n);
    if (quote)
        fputc('"', out);
}

/* The paragraph's tag, as the page has always written options:
 *     .BR \-o ", " \-\-output=\fIoutput\fR
 *     .BI \-\-st= sleep-time
 *     .BI "\-m " name = file-path
 *     .B \-\-quiet */
static void put_synopsis(FILE *out, const gt_cli_opt *d)
{
    int is_long = d->longname[1] == '-';
    if (is_long && d->shortname) {
        fprintf(out, ".BR \\-%c \", \" ", d->shortname);
        put_escaped(out, d->longname, strlen(d->longname));
        if (d->arg) {
            fputc('=', out);
            put_arg_inline(out, d->arg);
        }
    } else if (d->arg) {
        /* .BI alternates bold and italic arguments: the name and the text
         * between the value's <parts> bold, the parts italic. */
        char bold[256];
        const char *p = d->arg, *lt = strchr(p, '<');
        size_t n = lt ? (size_t)(lt - p) : strlen(p);
        snprintf(bold, sizeof bold, "%s%s%.*s", d->longname, is_long ? "=" : " ", (int)n, p);
        fputs(".BI", out);
        put_macro_arg(out, bold, strlen(bold), 0);
        p += n;
        while (*p == '<') {
            const char *gt = strchr(p, '>');
            if (!gt)
                break;
            put_macro_arg(out, p + 1, (size_t)(gt - p - 1), 1);
            p = gt + 1;
            n = strcspn(p, "<");
            if (n || *p)
                put_macro_arg(out, p, n, 0);
            p += n;
        }
    } else {
        fputs(".B", out);
        put_macro_arg(out, d->longname, strlen(d->longname), 0);
    }
    fputc('\n', out);
}

static int starts_token(const char *text, const char *p)
{
    return p == text || p[-1] == ' ' || p[-1] == '(';
}

/* Help as roff text: options (--tf, -m) bold, 'quoted' values bold without
 * their quotes, <names> italic, and a new line after each sentence, where
 * roff knows a sentence ends. */
static void put_help(FILE *out, const char *text)
{
    int line_start = 1;
    for (const char *p = text; *p;) {
        size_t n;
        if (*p == '-' && starts_token(text, p) && (p[1] == '-' || isalpha((unsigned char)p[1]))) {
            n = 1 + strspn(p + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-=");
            fputs("\\fB", out);
            put_escaped(out, p, n);
            fputs("\\fR", out);
            p += n;
        } else if (*p == '\'' && starts_token(text, p) && (n = strcspn(p + 1, "' ")) > 0 && p[1 + n] == '\'' &&
                   !isalnum((unsigned char)p[2 + n])) {
            fputs("\\fB", out);
            put_escaped(out, p + 1, n);
            fputs("\\fR", out);
            p += n + 2;
        } else if (*p == '<' && (n = strcspn(p + 1, "> ")) > 0 && p[1 + n] == '>') {
            fputs("\\fI", out);
            put_escaped(out, p + 1, n);
            fputs("\\fR", out);
            p += n + 2;
        } else if (*p == '.' && p[1] == ' ' && (isupper((unsigned char)p[2]) || p[2] == '-')) {
            fputs(".\n", out);
            line_start = 1;
            p += 2;
            continue;
        } else {
            if (line_start && (*p == '.' || *p == '\''))
                fputs("\\&", out); /* a control line otherwise */
            put_escaped(out, p, 1);
            p++;
        }
        line_start = 0;
    }
    fputc('\n', out);
}

/* The paragraphs (.TP) of the command's options that --help lists. */
static int put_options(FILE *out, const gt_cli_command_opts *c)
{
    char keys[1024], help[4096];
    gt_cli_config_keys(c->opts, *c->n_opts, keys, sizeof keys);
    for (size_t k = 0; k < *c->n_opts; k++) {
        const gt_cli_opt *d = &c->opts[k];
        if (!d->help)
            continue;
        if (gt_cli_opt_help(d, keys, help, sizeof help) != 0) {
            fprintf(stderr, "gen_man: the help of %s of '%s' is longer than %zu bytes\n", d->longname, c->name,
                    sizeof help - 1);
            return -1;
        }
        fputs(".TP\n", out);
        put_synopsis(out, d);
        put_help(out, help);
    }
    return 0;
}

/* Copies the page at path to out with every generated list rewritten.
 * Returns 0, or -1 after a message naming the page's line. */
static int rewrite(const char *path, FILE *out)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        fprintf(stderr, "gen_man: cannot read '%s': %s\n", path, strerror(errno));
        return -1;
    }
    int *seen = calloc(gt_cli_n_commands, sizeof *seen);
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0, begun = 0;
    int rc = seen ? 0 : -1;
    if (!seen)
        fputs("gen_man: out of memory\n", stderr);
    while (!rc && getline(&line, &cap, in) >= 0) {
        lineno++;
        line[strcspn(line, "\n")] = '\0';
        if (begun) {
            if (!strcmp(line, END_MARK)) {
                fprintf(out, "%s\n", line);
                begun = 0;
            }
            continue;
        }
        fprintf(out, "%s\n", line);
        if (!strcmp(line, END_MARK)) {
            fprintf(stderr, "gen_man: %s:%ld: an end with no beginning\n", path, lineno);
            rc = -1;
        }
        if (strncmp(line, BEGIN_MARK, strlen(BEGIN_MARK)))
            continue;
        const char *name = line + strlen(BEGIN_MARK);
        size_t k = 0;
        while (k < gt_cli_n_commands && strcmp(gt_cli_commands[k].name, name))
            k++;
        if (k == gt_cli_n_commands) {
            fprintf(stderr, "gen_man: %s:%ld: no command '%s'\n", path, lineno, name);
            rc = -1;
        } else if (seen[k]++) {
            fprintf(stderr, "gen_man: %s:%ld: the options of '%s' a second time\n", path, lineno, name);
            rc = -1;
        } else {
            rc = put_options(out, &gt_cli_commands[k]);
            begun = lineno;
        }
    }
    if (!rc && begun) {
        fprintf(stderr, "gen_man: %s:%ld: no '%s' after this line\n", path, begun, END_MARK);
        rc = -1;
    }
    for (size_t k = 0; !rc && k < gt_cli_n_commands; k++)
        if (!seen[k]) {
            fprintf(stderr, "gen_man: %s: no line '%s%s' for its options\n", path, BEGIN_MARK,
                    gt_cli_commands[k].name);
            rc = -1;
        }
    if (!rc && ferror(in)) {
        fprintf(stderr, "gen_man: cannot read '%s'\n", path);
        rc = -1;
    }
    free(line);
    free(seen);
    fclose(in);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: gen_man <man-page>  (writes the page with its option lists from the tables to stdout)\n",
              stderr);
        return 2;
    }
    if (rewrite(argv[1], stdout))
        return 1;
    if (fflush(stdout) || ferror(stdout)) {
        fputs("gen_man: cannot write the page\n", stderr);
        return 1;
    }
    return 0;
}
