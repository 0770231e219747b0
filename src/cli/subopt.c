#include "subopt.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"

int gt_subopt_value(int argc, char **argv, int *i, const char *longname, char shortname,
                    const char **value)
{
    const char *a = argv[*i];
    size_t n = strlen(longname);
    if (strncmp(a, longname, n) == 0 && (a[n] == '=' || a[n] == '\0')) {
        if (a[n] == '=') {
            *value = a + n + 1;
            return 1;
        }
    } else if (shortname && a[0] == '-' && a[1] == shortname) {
        if (a[2]) {
            *value = a + 2;
            return 1;
        }
    } else {
        return 0;
    }
    if (*i + 1 >= argc) {
        fprintf(stderr, "gpu-tracker: option '%s' needs a value\n", a);
        return -1;
    }
    *value = argv[++*i];
    return 1;
}

int gt_subopt_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "gpu-tracker: sub-track %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return GT_EXIT_USAGE;
}
