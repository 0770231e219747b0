/* SPDX-License-Identifier: MIT */
/* Option scanning and messages shared by the subcommands. */
#include "options.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"

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
        for (size_t k = 0; k < n_defs; k++)
            if (strlen(defs[k].longname) == nl && !strncmp(a, defs[k].longname, nl))
                d = &defs[k];
        if (d && eq)
            v = eq + 1;
    } else if (a[0] == '-' && a[1]) {
        for (size_t k = 0; k < n_defs; k++)
            if (defs[k].shortname && defs[k].shortname == a[1])
                d = &defs[k];
        if (d && a[2])
            v = a + 2;
    }
    if (!d)
        return gt_cli_usage_error("unknown option '%s'; see '%s --help'", a, help);
    if (v && !d->has_arg)
        return gt_cli_usage_error("option '%s' takes no value", d->longname);
    if (d->has_arg && !v) {
        if (*i + 1 >= argc || !strcmp(argv[*i + 1], "--"))
            return gt_cli_usage_error("option '%s' needs a value; see '%s --help'", a, help);
        v = argv[++*i];
    }
    *def = d;
    *value = v;
    return 0;
}
