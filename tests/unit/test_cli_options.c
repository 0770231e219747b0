/* SPDX-License-Identifier: MIT */
/* The track command's option table and what follows from it: every entry
 * is in --help, every --tconfig key is accepted with the option's meaning,
 * and unknown keys and options are refused.  The subcommands' --help lists
 * their tables' options, and only those. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/compare.h"
#include "cli/option_tables.h"
#include "cli/options.h"
#include "cli/track_options.h"
#include "tmpdir.h"

#define N gt_cli_track_n_opts
#define OPTS gt_cli_track_opts

/* stderr goes to err.txt between capture_start and capture_end, which
 * returns what was written (static, cut to 4 KiB). */
static int saved_stderr = -1;

static void capture_start(void)
{
    fflush(stderr);
    saved_stderr = dup(2);
    int fd = open("err.txt", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved_stderr >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
}

static const char *capture_end(void)
{
    static char buf[4096];
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    FILE *f = fopen("err.txt", "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* What usage prints (malloc'd). */
static char *printed_by(int (*usage)(FILE *))
{
    static char *text; /* static: the stream writes through its address after we return from open_memstream */
    static size_t size;
    text = NULL;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    assert_int_equal(usage(f), 0);
    fclose(f);
    return text;
}

/* Loads {"key": json} as --tconfig into s; returns the exit status. */
static int from_config(const char *key, const char *json, gt_cli_track_settings *s, const char **err)
{
    FILE *f = fopen("cfg.json", "w");
    assert_non_null(f);
    fprintf(f, "{\"%s\": %s}", key, json);
    fclose(f);
    gt_cli_track_settings_init(s);
    capture_start();
    int rc = gt_cli_track_load_tconfig(s, "cfg.json");
    *err = capture_end();
    return rc;
}

/* Parses "gpu-tracker OPTION[=value] -- true" into s. */
static int from_command_line(const char *longname, const char *value, gt_cli_track_settings *s)
{
    static char arg[256]; /* the settings point into it */
    snprintf(arg, sizeof arg, "%s%s%s", longname, value ? "=" : "", value ? value : "");
    char *argv[] = {(char *)"gpu-tracker", arg, (char *)"--", (char *)"true", NULL};
    gt_cli_track_settings_init(s);
    capture_start();
    int rc = gt_cli_track_parse(4, argv, s);
    capture_end();
    return rc;
}

static void test_table_is_well_formed(void **state)
{
    (void)state;
    for (size_t i = 0; i < N; i++) {
        const gt_cli_opt *d = &OPTS[i];
        assert_true(d->longname[0] == '-');
        assert_non_null(d->help); /* an option --help does not list is hidden */
        if (d->store != GT_CLI_CALL)
            assert_null(d->apply);
        if (d->store == GT_CLI_FLAG)
            assert_null(d->arg);
        if (d->store == GT_CLI_CALL && strcmp(d->longname, "--"))
            assert_non_null(d->apply);
        assert_int_equal(!!d->key, d->json != GT_CLI_JSON_NONE);
        if (d->key && d->store == GT_CLI_FLAG)
            assert_int_equal(d->json, GT_CLI_JSON_BOOL);
        for (size_t k = 0; k < i; k++) {
            assert_string_not_equal(d->longname, OPTS[k].longname);
            assert_true(!d->shortname || d->shortname != OPTS[k].shortname);
            assert_true(!d->key || !OPTS[k].key || strcmp(d->key, OPTS[k].key));
        }
    }
}

/* Each entry has its own line: the synopsis from column 4, then the help's
 * first words. */
static void test_every_option_is_in_help(void **state)
{
    (void)state;
    char *text = printed_by(gt_cli_track_usage);
    for (size_t i = 0; i < N; i++) {
        char syn[128], line[256];
        gt_cli_opt_synopsis(&OPTS[i], syn, sizeof syn);
        snprintf(line, sizeof line, "\n    %s ", syn);
        const char *at = strstr(text, line);
        if (!at)
            fail_msg("'%s' is not in --help", syn);
        at += strlen(line);
        at += strspn(at, " ");
        size_t first = strcspn(OPTS[i].help, " {");
        if (strncmp(at, OPTS[i].help, first))
            fail_msg("the help of '%s' is not on its line", syn);
        if (OPTS[i].shortname && OPTS[i].longname[1] == '-')
            assert_int_equal(syn[1], OPTS[i].shortname);
    }
    /* --tconfig's help names every key. */
    const char *tconfig = strstr(text, "--tconfig=<config-file>");
    assert_non_null(tconfig);
    const char *end = strstr(tconfig, "\n    -");
    assert_non_null(end);
    for (size_t i = 0; i < N; i++) {
        if (!OPTS[i].key)
            continue;
        const char *k = strstr(tconfig, OPTS[i].key);
        if (!k || k > end)
            fail_msg("key '%s' is not in the help of --tconfig", OPTS[i].key);
    }
    free(text);
}

/* Every command's --help: each entry with help on its own line, the
 * synopsis from column 4 and the help's first words after it; and every
 * option line is an entry's, so that no option is written out by hand. */
static void test_every_command_lists_its_table(void **state)
{
    (void)state;
    assert_true(gt_cli_n_commands >= 6);
    assert_ptr_equal(gt_cli_commands[0].opts, gt_cli_track_opts);
    for (size_t c = 0; c < gt_cli_n_commands; c++) {
        const gt_cli_command_opts *cmd = &gt_cli_commands[c];
        const gt_cli_opt *opts = cmd->opts;
        size_t n = *cmd->n_opts, listed = 0;
        for (size_t k = 0; k < c; k++)
            assert_string_not_equal(cmd->name, gt_cli_commands[k].name);
        char *text = printed_by(cmd->usage);
        for (size_t i = 0; i < n; i++) {
            for (size_t k = 0; k < i; k++) {
                assert_string_not_equal(opts[i].longname, opts[k].longname);
                assert_true(!opts[i].shortname || opts[i].shortname != opts[k].shortname);
            }
            if (!opts[i].help) {
                /* Only --help goes unlisted: the man page says every subcommand takes it. */
                assert_string_equal(opts[i].longname, "--help");
                continue;
            }
            char syn[128], line[256];
            gt_cli_opt_synopsis(&opts[i], syn, sizeof syn);
            snprintf(line, sizeof line, "\n    %s ", syn);
            const char *at = strstr(text, line);
            if (!at)
                fail_msg("'%s' is not in '%s --help'", syn, cmd->name);
            at += strlen(line);
            at += strspn(at, " ");
            if (strncmp(at, opts[i].help, strcspn(opts[i].help, " {")))
                fail_msg("the help of '%s' is not on its line in '%s --help'", syn, cmd->name);
            listed++;
        }
        assert_true(listed > 0);
        /* Lines "    -..." that name no entry were written by hand. */
        for (const char *l = strstr(text, "\n    -"); l; l = strstr(l + 1, "\n    -")) {
            int known = 0;
            for (size_t i = 0; i < n && !known; i++) {
                char syn[128];
                gt_cli_opt_synopsis(&opts[i], syn, sizeof syn);
                known = opts[i].help && !strncmp(l + 5, syn, strlen(syn)) && l[5 + strlen(syn)] == ' ';
            }
            if (!known)
                fail_msg("'%s --help' lists an option not in its table: %.40s", cmd->name, l + 5);
        }
        free(text);
    }
}

/* A value of the key's JSON type, and the same as the option's text. */
typedef struct sample {
    gt_cli_json json;
    const char *json_text, *option_text;
} sample;

static const sample samples[] = {
    {GT_CLI_JSON_NUMBER, "1", "1"},
    {GT_CLI_JSON_NUMBER, "0.5", "0.5"},
    {GT_CLI_JSON_NUMBER, "0", "0"},
    {GT_CLI_JSON_NUMBER, "1e300", "1.0000000000000001e+300"},
    {GT_CLI_JSON_STRING, "\"megabytes\"", "megabytes"},
    {GT_CLI_JSON_STRING, "\"minutes\"", "minutes"},
    {GT_CLI_JSON_STRING, "\"amd\"", "amd"},
    {GT_CLI_JSON_STRING, "\"kilojoules\"", "kilojoules"},
    {GT_CLI_JSON_STRING, "\"t.csv\"", "t.csv"},
    {GT_CLI_JSON_STRING, "\"bogus\"", "bogus"},
    {GT_CLI_JSON_STRINGS, "\"GPU-a,GPU-b\"", "GPU-a,GPU-b"},
    {GT_CLI_JSON_STRINGS, "[\"GPU-a\", \"GPU-b\"]", "GPU-a,GPU-b"},
    {GT_CLI_JSON_STRINGS, "\"\"", ""},
    {GT_CLI_JSON_BOOL, "true", NULL},
};

static int same_string(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* The tracker's options as both give them, strings compared by text. */
static int same_options(gt_options a, gt_options b)
{
    if (!same_string(a.tracking_file, b.tracking_file) || !same_string(a.gpu_uuids, b.gpu_uuids))
        return 0;
    a.tracking_file = b.tracking_file = NULL;
    a.gpu_uuids = b.gpu_uuids = NULL;
    return !memcmp(&a, &b, sizeof a);
}

/* A key means what its option means: the same value is accepted or
 * refused alike, and sets the same. */
static void test_every_key_is_its_option(void **state)
{
    (void)state;
    for (size_t i = 0; i < N; i++) {
        if (!OPTS[i].key)
            continue;
        int tried = 0;
        for (size_t k = 0; k < sizeof samples / sizeof *samples; k++) {
            if (samples[k].json != OPTS[i].json)
                continue;
            gt_cli_track_settings c, l;
            const char *err;
            int rc_c = from_config(OPTS[i].key, samples[k].json_text, &c, &err);
            if (strstr(err, "invalid key"))
                fail_msg("--tconfig refuses key '%s': %s", OPTS[i].key, err);
            int rc_l = from_command_line(OPTS[i].longname, samples[k].option_text, &l);
            if (rc_c != rc_l || (rc_c == 0 && !same_options(c.o, l.o)))
                fail_msg("'%s': %s and %s%s%s differ", OPTS[i].key, samples[k].json_text, OPTS[i].longname,
                         samples[k].option_text ? "=" : "", samples[k].option_text ? samples[k].option_text : "");
            gt_cli_track_settings_free(&c);
            gt_cli_track_settings_free(&l);
            tried++;
        }
        if (!tried)
            fail_msg("no sample value for key '%s'", OPTS[i].key);
    }
}

/* Every command applies its table: each entry but --help stores its value
 * in a field or has an apply, so no command matches option names by hand. */
static void test_every_entry_is_applied_by_its_table(void **state)
{
    (void)state;
    for (size_t c = 0; c < gt_cli_n_commands; c++) {
        const gt_cli_command_opts *cmd = &gt_cli_commands[c];
        for (size_t i = 0; i < *cmd->n_opts; i++) {
            const gt_cli_opt *d = &cmd->opts[i];
            if (!strcmp(d->longname, "--help") || !strcmp(d->longname, "--"))
                continue;
            if (d->store == GT_CLI_CALL && !d->apply)
                fail_msg("%s: %s is neither stored nor applied", cmd->name, d->longname);
        }
    }
}

/* --help is shown by every subcommand, whatever follows it; an early
 * option's config is read before the options that override it. */
static void test_subcommand_help_and_order(void **state)
{
    (void)state;
    char *argv[] = {(char *)"analyze", (char *)"--help", (char *)"--bogus", NULL};
    FILE *saved = stdout;
    stdout = fopen("/dev/null", "w");
    assert_non_null(stdout);
    int rc = gt_cli_subtrack_analyze(3, argv);
    fclose(stdout);
    stdout = saved;
    assert_int_equal(rc, 0);

    FILE *f = fopen("cc.json", "w");
    assert_non_null(f);
    fputs("{\"statistic\": \"min\"}", f);
    fclose(f);
    char *cargv[] = {(char *)"compare", (char *)"--stat=max", (char *)"--cconfig=cc.json", NULL};
    gt_cli_compare_settings s = {0};
    capture_start();
    rc = gt_cli_parse(3, cargv, gt_cli_compare_opts, gt_cli_compare_n_opts, "compare", gt_cli_compare_usage, &s, NULL);
    capture_end();
    assert_int_equal(rc, 0);
    assert_string_equal(s.stat, "max");
    gt_cli_compare_settings_free(&s);
}

/* Writes cfg.json: a JSON object of one key padded with spaces to size
 * bytes. */
static void write_padded_config(const char *key, const char *json, size_t size)
{
    FILE *f = fopen("cfg.json", "w");
    assert_non_null(f);
    int head = fprintf(f, "{\"%s\": %s}", key, json);
    assert_true(head > 0 && (size_t)head <= size);
    for (size_t i = (size_t)head; i < size; i++)
        fputc(' ', f);
    assert_int_equal(fclose(f), 0);
}

/* --tconfig and --cconfig are read by one loader: the same size limit,
 * with a file at the limit read and one byte more refused, and the same
 * message. */
static void test_config_files_share_one_limit(void **state)
{
    (void)state;
    const char *err;
    for (size_t extra = 0; extra < 2; extra++) {
        size_t size = GT_CLI_CONFIG_MAX + extra;
        gt_cli_track_settings t;
        write_padded_config("sleep_time", "1.5", size);
        gt_cli_track_settings_init(&t);
        capture_start();
        int rc = gt_cli_track_load_tconfig(&t, "cfg.json");
        err = capture_end();
        gt_cli_track_settings_free(&t);
        assert_int_equal(rc, extra ? GT_EXIT_USAGE : 0);
        if (extra)
            assert_string_equal(err, "gpu-tracker: config file 'cfg.json' is larger than 1 MiB\n");

        gt_cli_compare_settings c = {0};
        write_padded_config("statistic", "\"max\"", size);
        capture_start();
        rc = gt_cli_compare_load_config(&c, "cfg.json");
        err = capture_end();
        gt_cli_compare_settings_free(&c);
        assert_int_equal(rc, extra ? GT_EXIT_USAGE : 0);
        if (extra)
            assert_string_equal(err, "gpu-tracker: config file 'cfg.json' is larger than 1 MiB\n");
    }
}

/* One rule maps a library status to every command's exit status: the
 * system failing is 1, what the user can mend is 2 (docs/tracking.md, "Exit
 * status"). */
static void test_status_exit_rule(void **state)
{
    (void)state;
    assert_int_equal(gt_cli_status_exit(GT_OK), 0);
    assert_int_equal(gt_cli_status_exit(GT_ERR_IO), GT_EXIT_FAILURE);
    assert_int_equal(gt_cli_status_exit(GT_ERR_NOMEM), GT_EXIT_FAILURE);
    assert_int_equal(gt_cli_status_exit(GT_ERR_SYS), GT_EXIT_FAILURE);
    const gt_status usage[] = {GT_ERR_INVALID, GT_ERR_STATE,  GT_ERR_EXISTS,
                               GT_ERR_NOPROC,  GT_ERR_FORMAT, GT_ERR_GPU};
    for (size_t i = 0; i < sizeof usage / sizeof usage[0]; i++)
        assert_int_equal(gt_cli_status_exit(usage[i]), GT_EXIT_USAGE);
}

static void test_unknown_key_and_option_are_refused(void **state)
{
    (void)state;
    gt_cli_track_settings s;
    const char *err;
    char keys[1024], want[1200];
    gt_cli_config_keys(OPTS, N, keys, sizeof keys);
    snprintf(want, sizeof want, "gpu-tracker: config file 'cfg.json': invalid key or value type for 'sleep_tme'; "
             "valid keys: %s\n", keys);
    assert_int_equal(from_config("sleep_tme", "0.5", &s, &err), GT_EXIT_USAGE);
    assert_string_equal(err, want);
    gt_cli_track_settings_free(&s);
    /* A known key with a value of another type. */
    assert_int_equal(from_config("time_unit", "5", &s, &err), GT_EXIT_USAGE);
    assert_non_null(strstr(err, "invalid key or value type for 'time_unit'"));
    gt_cli_track_settings_free(&s);
    /* The options that have no key are no keys. */
    assert_int_equal(from_config("quiet", "true", &s, &err), GT_EXIT_USAGE);
    gt_cli_track_settings_free(&s);

    char *argv[] = {(char *)"gpu-tracker", (char *)"--bogus", (char *)"--", (char *)"true", NULL};
    gt_cli_track_settings_init(&s);
    capture_start();
    assert_int_equal(gt_cli_track_parse(4, argv, &s), GT_EXIT_USAGE);
    assert_string_equal(capture_end(), "gpu-tracker: unknown option '--bogus'; see 'gpu-tracker --help'\n");
    gt_cli_track_settings_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_is_well_formed),
        cmocka_unit_test(test_every_option_is_in_help),
        cmocka_unit_test(test_every_command_lists_its_table),
        cmocka_unit_test(test_every_key_is_its_option),
        cmocka_unit_test(test_unknown_key_and_option_are_refused),
        cmocka_unit_test(test_status_exit_rule),
        cmocka_unit_test(test_every_entry_is_applied_by_its_table),
        cmocka_unit_test(test_subcommand_help_and_order),
        cmocka_unit_test(test_config_files_share_one_limit),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
