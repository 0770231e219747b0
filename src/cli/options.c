/* SPDX-License-Identifier: MIT */
/* Option scanning, --help lines and messages shared by the subcommands. */
#include "options.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "gpu/brands.h"
#include "util/infile.h"

/* --help's layout: synopsis from column 4, help from column 28, lines
 * broken before this column. */
#define HELP_INDENT 28
#define HELP_WIDTH 112

int gt_cli_status_exit(gt_status st)
{
    switch (st) {
    case GT_OK:
        return 0;
    case GT_ERR_IO:
    case GT_ERR_NOMEM:
    case GT_ERR_SYS:
        return GT_EXIT_FAILURE;
    case GT_ERR_INVALID:
    case GT_ERR_STATE:
    case GT_ERR_EXISTS:
    case GT_ERR_NOPROC:
    case GT_ERR_FORMAT:
    case GT_ERR_GPU:
        break;
    }
    return GT_EXIT_USAGE;
}

const char *gt_cli_write_reason(gt_status st)
{
    if (errno)
        return strerror(errno);
    return gt_strerror(st == GT_OK ? GT_ERR_IO : st);
}

int gt_cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gpu-tracker: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return GT_EXIT_USAGE;
}

FILE *gt_cli_open_input(const char *path, const char *what)
{
    gt_error err;
    int fd;
    if (gt_infile_open(path, what, &fd, &err) != GT_OK) {
        fprintf(stderr, "gpu-tracker: %s\n", err.msg);
        return NULL;
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        fputs("gpu-tracker: out of memory\n", stderr);
    }
    return f;
}

int gt_cli_load_config(const char *path, struct cJSON **root)
{
    *root = NULL;
    FILE *f = gt_cli_open_input(path, "config file");
    if (!f)
        return GT_EXIT_USAGE;
    /* One byte past the limit tells a file at the limit from a larger one,
     * and one more ends the text. */
    char *buf = malloc(GT_CLI_CONFIG_MAX + 2);
    if (!buf) {
        fclose(f);
        fputs("gpu-tracker: out of memory\n", stderr);
        return GT_EXIT_FAILURE;
    }
    size_t len = fread(buf, 1, GT_CLI_CONFIG_MAX + 1, f);
    int failed = ferror(f);
    int e = errno;
    fclose(f);
    buf[len] = '\0';
    int rc = 0;
    if (failed) {
        fprintf(stderr, "gpu-tracker: cannot read config file '%s': %s\n", path, strerror(e));
        rc = GT_EXIT_FAILURE;
    } else if (len > GT_CLI_CONFIG_MAX) {
        rc = gt_cli_usage_error("config file '%s' is larger than %s", path, GT_CLI_CONFIG_MAX_TEXT);
    } else {
        *root = cJSON_Parse(buf);
        if (!*root || !cJSON_IsObject(*root)) {
            cJSON_Delete(*root);
            *root = NULL;
            rc = gt_cli_usage_error("config file '%s' is not a JSON object", path);
        }
    }
    free(buf);
    return rc;
}

void gt_cli_log_stderr(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "gpu-tracker: warning: %s\n", msg);
}

int gt_cli_next_opt(int argc, char **argv, int *i, const gt_cli_opt *defs, size_t n_defs, const char *help,
                    const gt_cli_opt **def, const char **value)
{
    const char *a = argv[*i];
    const gt_cli_opt *d = NULL;
    const char *v = NULL;
    if (a[0] == '-' && a[1] == '-') {
        const char *eq = strchr(a, '=');
        size_t nl = eq ? (size_t)(eq - a) : strlen(a);
        /* "--=x" names no option, not the entry that documents "--". */
        for (size_t k = 0; k < n_defs && nl > 2; k++)
            if (strlen(defs[k].longname) == nl && !strncmp(a, defs[k].longname, nl))
                d = &defs[k];
        if (d && eq) {
            if (!d->arg)
                return gt_cli_usage_error("option '%s' takes no value", d->longname);
            v = eq + 1;
        }
    } else if (a[0] == '-' && a[1]) {
        for (size_t k = 0; k < n_defs; k++)
            if (defs[k].shortname && defs[k].shortname == a[1])
                d = &defs[k];
        if (d && a[2]) {
            if (!d->arg)
                return gt_cli_usage_error("option '%s' takes no value", a);
            v = a + 2;
        }
    }
    if (!d)
        return gt_cli_usage_error("unknown option '%s'; see '%s --help'", a, help);
    if (d->arg && !v) {
        if (*i + 1 >= argc || !strcmp(argv[*i + 1], "--"))
            return gt_cli_usage_error("option '%s' needs a value; see '%s --help'", a, help);
        v = argv[++*i];
    }
    *def = d;
    *value = v;
    return 0;
}

int gt_cli_parse(int argc, char **argv, const gt_cli_opt *defs, size_t n_defs, const char *help,
                 int (*usage)(FILE *out), void *settings, int (*operand)(void *settings, const char *arg))
{
    int early = 0;
    for (size_t k = 0; k < n_defs; k++)
        early |= defs[k].early;
    /* Without early options one pass, so that --help is shown whatever
     * follows it. */
    for (int pass = !early; pass < 2; pass++) {
        for (int i = 1; i < argc; i++) {
            int rc;
            if (operand && argv[i][0] != '-') {
                if (pass == 1 && (rc = operand(settings, argv[i])))
                    return rc;
                continue;
            }
            const gt_cli_opt *d;
            const char *v;
            if ((rc = gt_cli_next_opt(argc, argv, &i, defs, n_defs, help, &d, &v)))
                return rc;
            if (d->early != (pass == 0))
                continue;
            if (!strcmp(d->longname, "--help")) {
                usage(stdout);
                return -1;
            }
            if ((rc = gt_cli_apply(d, settings, d->longname, v)))
                return rc;
        }
    }
    return 0;
}

int gt_cli_apply(const gt_cli_opt *def, void *settings, const char *name, const char *value)
{
    char *member = (char *)settings + def->field;
    switch (def->store) {
    case GT_CLI_FLAG:
        *(int *)(void *)member = !value || strcmp(value, "false") != 0;
        return 0;
    case GT_CLI_STRING:
        *(const char **)(void *)member = value;
        return 0;
    case GT_CLI_CALL:
        break;
    }
    return def->apply ? def->apply(settings, name, value) : 0;
}

const char *gt_cli_opt_synopsis(const gt_cli_opt *def, char *buf, size_t size)
{
    int is_long = def->longname[1] == '-';
    char shortname[4] = {0};
    if (is_long && def->shortname)
        snprintf(shortname, sizeof shortname, "-%c ", def->shortname);
    snprintf(buf, size, "%s%s%s%s", shortname, def->longname, def->arg ? (is_long ? "=" : " ") : "",
             def->arg ? def->arg : "");
    return buf;
}

const char *gt_cli_config_keys(const gt_cli_opt *defs, size_t n_defs, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < n_defs; k++)
        if (defs[k].key && len < size) {
            int n = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", defs[k].key);
            len += n > 0 ? (size_t)n : 0;
        }
    return buf;
}

/* Prints text from column col on, breaking lines between words before
 * HELP_WIDTH and starting each new line at HELP_INDENT. */
static void print_wrapped(FILE *out, const char *text, size_t col)
{
    const char *p = text;
    int first = 1;
    while (*p) {
        size_t word = strcspn(p, " ");
        if (!first && col + 1 + word > HELP_WIDTH) {
            fprintf(out, "\n%*s", HELP_INDENT, "");
            col = HELP_INDENT;
        } else if (!first) {
            fputc(' ', out);
            col++;
        }
        fwrite(p, 1, word, out);
        col += word;
        first = 0;
        p += word;
        p += strspn(p, " ");
    }
    fputc('\n', out);
}

int gt_cli_opt_help(const gt_cli_opt *def, const char *keys, char *buf, size_t size)
{
    char brands[256];
    if (gt_gpu_brand_list(brands, sizeof brands, " or ") >= (int)sizeof brands)
        return -1;
    const struct {
        const char *name, *value;
    } subst[] = {{"{keys}", keys}, {"{brands}", brands}};
    const char *h = def->help;
    size_t at = 0;
    if (size)
        buf[0] = '\0';
    while (*h) {
        /* The text up to the next placeholder, then its value. */
        const char *next = h + strlen(h), *value = "";
        size_t skip = 0;
        for (size_t k = 0; k < sizeof subst / sizeof *subst; k++) {
            const char *p = strstr(h, subst[k].name);
            if (p && p < next) {
                next = p;
                value = subst[k].value;
                skip = strlen(subst[k].name);
            }
        }
        int n = snprintf(at < size ? buf + at : NULL, at < size ? size - at : 0, "%.*s%s", (int)(next - h), h,
                         value);
        if (n < 0)
            return -1;
        at += (size_t)n;
        h = next + skip;
    }
    return at < size ? 0 : -1;
}

int gt_cli_print_opts(FILE *out, const gt_cli_opt *defs, size_t n_defs)
{
    char keys[1024], syn[128], help[4096];
    gt_cli_config_keys(defs, n_defs, keys, sizeof keys);
    for (size_t k = 0; k < n_defs; k++) {
        if (!defs[k].help)
            continue;
        gt_cli_opt_help(&defs[k], keys, help, sizeof help);
        int n = fprintf(out, "    %-*s ", HELP_INDENT - 5, gt_cli_opt_synopsis(&defs[k], syn, sizeof syn));
        print_wrapped(out, help, n > 0 ? (size_t)n : 0);
    }
    return ferror(out) ? -1 : 0;
}
