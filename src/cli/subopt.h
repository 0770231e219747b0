/* Option parsing shared by the sub-track commands: long options as
 * "--name=value" or "--name value", short ones as "-xvalue" or "-x value". */
#ifndef GT_CLI_SUBOPT_H
#define GT_CLI_SUBOPT_H

/* If argv[*i] is the option longname ("--tf") or -shortname (0: none),
 * stores its value in *value, advances *i past a separate value, and
 * returns 1; returns 0 when argv[*i] is another argument, and -1 (after
 * printing why) when the value is missing. */
int gt_subopt_value(int argc, char **argv, int *i, const char *longname, char shortname,
                    const char **value);

/* Prints "gpu-tracker: sub-track <cmd>: <message>" to stderr; returns the
 * usage exit status. */
int gt_subopt_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
