/* SPDX-License-Identifier: MIT */
/* Pieces every subcommand's option handling shares: the option table's
 * entry, the scanner over it (--name=value, --name value, -xvalue,
 * -x value), the --help lines it gives, one-line usage errors and warnings
 * on stderr.
 *
 * An option is one gt_cli_opt: its names, its value's name and help for
 * --help, its key in the command's JSON config file, and how its value is
 * stored.  Whatever lists options (the parser, --help, the config keys, the
 * man page through tools/gen_man.c) reads the table, so a new option is one
 * new entry; see track_options.c for the steps. */
#ifndef GT_CLI_OPTIONS_H
#define GT_CLI_OPTIONS_H
#include <stddef.h>
#include <stdio.h>

#include "gpu_tracker.h"

/* How a value reaches the settings. */
typedef enum gt_cli_store {
    GT_CLI_CALL,   /* apply(settings, name, value) checks and stores it */
    GT_CLI_FLAG,   /* the int at field becomes 1 (a config file's false: 0) */
    GT_CLI_STRING, /* the const char * at field points to the value */
} gt_cli_store;

/* The JSON type of an option's key in a config file, and how its value is
 * given to the option as text. */
typedef enum gt_cli_json {
    GT_CLI_JSON_NONE,    /* no key */
    GT_CLI_JSON_NUMBER,  /* printed with "%.17g" */
    GT_CLI_JSON_STRING,  /* as is */
    GT_CLI_JSON_BOOL,    /* "true" or "false" */
    GT_CLI_JSON_STRINGS, /* a string as is, or a list of strings joined with commas */
} gt_cli_json;

typedef struct gt_cli_opt {
    const char *longname; /* canonical, e.g. "--output" (or "-m" for a short-only option) */
    char shortname;       /* 0: none */
    const char *arg;      /* the value's name in --help, e.g. "<output>"; NULL: the option takes no value */
    const char *help;     /* one paragraph for --help, wrapped when printed; "{keys}" stands for the
                           * table's config keys, "{brands}" for the GPU brands ('nvidia' or
                           * 'amd', from the vendor table); NULL: not listed */
    const char *key;      /* its key in the command's config file, or NULL */
    gt_cli_json json;     /* the key's type */
    gt_cli_store store;
    size_t field;         /* offsetof the member of the settings, for GT_CLI_FLAG and GT_CLI_STRING */
    /* For GT_CLI_CALL: name is the option ("--st") or the config key
     * ("sleep_time") as the user wrote it, value NULL for an option without
     * one.  Returns 0, an exit status after a message, or -1: done, exit 0
     * (--help). */
    int (*apply)(void *settings, const char *name, const char *value);
    int early; /* applied in a pass before the others: a config file that the command line overrides */
} gt_cli_opt;

/* The exit status of a command whose library call failed with st, the one
 * rule every command follows (docs/tracking.md, "Exit status"): the system
 * failed (a file could not be read or written, out of memory, a system
 * call) is GT_EXIT_FAILURE; anything the user can mend in the arguments or
 * the input files' content is GT_EXIT_USAGE.  GT_OK is 0. */
int gt_cli_status_exit(gt_status st);

/* Why writing a report failed, for after a colon: the system's reason
 * where errno holds one (set errno to 0 before the write), else st's text
 * (gt_strerror); GT_OK, a stream that failed after the library's write, is
 * a read or write error. */
const char *gt_cli_write_reason(gt_status st);

/* Prints "gpu-tracker: <message>" on one line; returns GT_EXIT_USAGE. */
int gt_cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* An input file (what names it: "config file") opened for reading, a
 * regular file only (util/infile.h: a FIFO cannot block the open).  NULL
 * after a message. */
FILE *gt_cli_open_input(const char *path, const char *what);

/* The largest config file (--tconfig, --cconfig) read, and its size in
 * words for the message that refuses a larger one. */
#define GT_CLI_CONFIG_MAX ((size_t)1 << 20)
#define GT_CLI_CONFIG_MAX_TEXT "1 MiB"

struct cJSON;

/* Reads a command's JSON config file, the one way every command does: a
 * regular file of at most GT_CLI_CONFIG_MAX bytes holding one JSON object.
 * Returns 0 with *root set (cJSON_Delete it), or an exit status after a
 * message naming the file (gt_cli_status_exit's rule: unreadable 1, too
 * large or not an object 2), *root NULL. */
int gt_cli_load_config(const char *path, struct cJSON **root);

/* A gt_log_fn: "gpu-tracker: warning: <message>" on stderr. */
void gt_cli_log_stderr(void *ctx, const char *msg);

/* Reads the option at argv[*i] (advancing *i past a separate value) into
 * *def and *value (NULL for an option without one).  Returns 0, or the
 * usage error's exit status for an unknown option, a missing value or a
 * value given to an option that takes none; help names the command for
 * "see '<help> --help'".  "--" is no option: callers take it first. */
int gt_cli_next_opt(int argc, char **argv, int *i, const gt_cli_opt *defs, size_t n_defs, const char *help,
                    const gt_cli_opt **def, const char **value);

/* Parses a subcommand's argv[1..argc) by its table into settings: each
 * option applied as its entry says (gt_cli_apply; the early ones in a pass
 * before the rest), --help printed by usage.  An argument not starting with
 * '-' is given to operand, or refused as an unknown option where operand is
 * NULL.  help names the command as for gt_cli_next_opt.  Returns 0, an exit
 * status after a message, or -1 after --help. */
int gt_cli_parse(int argc, char **argv, const gt_cli_opt *defs, size_t n_defs, const char *help,
                 int (*usage)(FILE *out), void *settings, int (*operand)(void *settings, const char *arg));

/* Stores value (see gt_cli_opt) in settings; name is how the user wrote the
 * option or key.  Returns what apply returns, 0 for a stored flag or
 * string. */
int gt_cli_apply(const gt_cli_opt *def, void *settings, const char *name, const char *value);

/* The option as --help shows it: "-o --output=<output>", "--quiet",
 * "-m <name>=<file-path>".  Returns buf, cut to size. */
const char *gt_cli_opt_synopsis(const gt_cli_opt *def, char *buf, size_t size);

/* Writes the table's config keys, in its order, as "a, b, c" into buf (cut
 * to size); returns buf. */
const char *gt_cli_config_keys(const gt_cli_opt *defs, size_t n_defs, char *buf, size_t size);

/* The option's help (it has one) into buf with "{keys}" replaced by keys
 * (gt_cli_config_keys() of its table) and "{brands}" by the GPU brands.
 * Returns 0, or -1 when cut to size. */
int gt_cli_opt_help(const gt_cli_opt *def, const char *keys, char *buf, size_t size);

/* Prints the --help lines of the options that have help: the synopsis from
 * column 4, the help from column 28, wrapped before column 113.  Returns 0,
 * or -1 if out could not be written. */
int gt_cli_print_opts(FILE *out, const gt_cli_opt *defs, size_t n_defs);

#endif
