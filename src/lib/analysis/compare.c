/* SPDX-License-Identifier: MIT */
/* Comparison of tracking sessions from the JSON results files that
 * `sub-track analyze -f json` writes: reads them, matches their code blocks
 * and gathers one statistic of every measurement, overall and per code
 * block, sorted ascending.  Writing is in report/compare_write.c. */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "analysis/compare.h"
#include "util/error.h"
#include "util/infile.h"

static const char *const statistics[] = {"min", "max", "mean", "std"};

/* Whether a number of the results file was written as an integer ("15"
 * rather than "15.0"): the Python package prints such a comparison as
 * integers, so the lexical form has to survive parsing. */
typedef struct numflag {
    const cJSON *item;
    int is_int;
} numflag;

typedef struct session {
    const char *name, *file;
    char *text;
    cJSON *root;
    numflag *flags; /* sorted by item */
    size_t n_flags;
    const cJSON *overall;
    size_t n_blocks;
    const cJSON **blocks; /* sorted as the comparison matches them */
} session;

/* Walks the text as a JSON tokenizer would and records, in document order,
 * whether each number literal is an integer.  flags may be NULL to count. */
static size_t scan_numbers(const char *p, unsigned char *flags)
{
    size_t n = 0;
    while (*p) {
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (*p)
                p++;
        } else if (*p == '-' || isdigit((unsigned char)*p)) {
            int is_int = 1;
            for (; *p && strchr("+-0123456789.eE", *p); p++)
                if (*p == '.' || *p == 'e' || *p == 'E')
                    is_int = 0;
            if (flags)
                flags[n] = (unsigned char)is_int;
            n++;
        } else {
            p++;
        }
    }
    return n;
}

static void collect_numbers(const cJSON *it, numflag *out, size_t *n, size_t cap)
{
    for (; it; it = it->next) {
        if (cJSON_IsNumber(it)) {
            if (*n < cap)
                out[*n].item = it;
            (*n)++;
        }
        collect_numbers(it->child, out, n, cap);
    }
}

static int numflag_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const numflag *)a)->item, y = (uintptr_t)((const numflag *)b)->item;
    return (x > y) - (x < y);
}

/* Pairs the tree's numbers with the lexical flags.  If the two walks ever
 * disagree (they cannot for text cJSON accepted), numbers stay floats. */
static gt_status index_numbers(session *s, gt_error *err)
{
    size_t n = scan_numbers(s->text, NULL);
    if (n == 0)
        return GT_OK;
    unsigned char *lex = malloc(n);
    numflag *flags = calloc(n, sizeof *flags);
    if (!lex || !flags) {
        free(lex);
        free(flags);
        return gt_err(err, GT_ERR_NOMEM, "out of memory reading results file '%s'", s->file);
    }
    scan_numbers(s->text, lex);
    size_t found = 0;
    collect_numbers(s->root, flags, &found, n);
    if (found == n) {
        for (size_t i = 0; i < n; i++)
            flags[i].is_int = lex[i];
        qsort(flags, n, sizeof *flags, numflag_cmp);
        s->flags = flags;
        s->n_flags = n;
    } else {
        free(flags);
    }
    free(lex);
    return GT_OK;
}

static int is_int_item(const session *s, const cJSON *item)
{
    numflag key = {item, 0};
    const numflag *f = s->n_flags ? bsearch(&key, s->flags, s->n_flags, sizeof key, numflag_cmp) : NULL;
    return f && f->is_int;
}

/* The line number of a "file:line" name as the Python package finds it:
 * the text after the last ':' if Python's int() accepts it.  Returns its
 * start (inside name) or NULL. */
static const char *line_number(const char *name)
{
    const char *colon = strrchr(name, ':');
    if (!colon)
        return NULL;
    const char *p = colon + 1;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '+' || *p == '-')
        p++;
    if (!isdigit((unsigned char)*p))
        return NULL;
    for (; isdigit((unsigned char)*p) || (*p == '_' && isdigit((unsigned char)p[1])); p++)
        ;
    while (isspace((unsigned char)*p))
        p++;
    return *p ? NULL : colon + 1;
}

/* name with its line number zero-filled to width (Python's str.zfill), so
 * that "f:9" sorts before "f:38".  Returns a malloc'd string or NULL. */
static char *sort_key(const char *name, size_t width)
{
    const char *ln = line_number(name);
    size_t len = strlen(name), ll = ln ? strlen(ln) : 0, pad = ln && ll < width ? width - ll : 0;
    char *k = malloc(len + pad + 1);
    if (!k)
        return NULL;
    if (!pad) {
        memcpy(k, name, len + 1);
        return k;
    }
    size_t head = (size_t)(ln - name) + (*ln == '+' || *ln == '-');
    memcpy(k, name, head);
    memset(k + head, '0', pad);
    memcpy(k + head + pad, name + head, len - head + 1);
    return k;
}

typedef struct keyed {
    char *key;
    size_t index;
} keyed;

static int keyed_cmp(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->index > y->index) - (x->index < y->index); /* stable, like sorted() */
}

static const char *block_name(const cJSON *b)
{
    return cJSON_GetObjectItemCaseSensitive(b, "name")->valuestring;
}

/* Sorts a session's code blocks by name, line numbers compared as numbers
 * (zero-filled to the longest line number of the session). */
static gt_status sort_blocks(session *s, gt_error *err)
{
    size_t n = s->n_blocks, width = 0;
    if (n < 2)
        return GT_OK;
    for (size_t i = 0; i < n; i++) {
        const char *ln = line_number(block_name(s->blocks[i]));
        if (ln && strlen(ln) > width)
            width = strlen(ln);
    }
    keyed *k = calloc(n, sizeof *k);
    const cJSON **sorted = calloc(n, sizeof *sorted);
    gt_status st = GT_OK;
    for (size_t i = 0; k && sorted && i < n; i++) {
        k[i].index = i;
        if (!(k[i].key = sort_key(block_name(s->blocks[i]), width)))
            st = GT_ERR_NOMEM;
    }
    if (!k || !sorted)
        st = GT_ERR_NOMEM;
    if (st == GT_OK) {
        qsort(k, n, sizeof *k, keyed_cmp);
        for (size_t i = 0; i < n; i++)
            sorted[i] = s->blocks[k[i].index];
        free(s->blocks);
        s->blocks = sorted;
        sorted = NULL;
    }
    for (size_t i = 0; k && i < n; i++)
        free(k[i].key);
    free(k);
    free(sorted);
    return st == GT_OK ? GT_OK : gt_err(err, st, "out of memory sorting code blocks");
}

/* Checks the parts of the results layout the comparison reads. */
static gt_status check_layout(session *s, gt_error *err)
{
    const char *f = s->file;
    if (!cJSON_IsObject(s->root))
        return gt_err(err, GT_ERR_FORMAT, "results file '%s' is not a JSON object", f);
    s->overall = cJSON_GetObjectItemCaseSensitive(s->root, "overall");
    if (!cJSON_IsObject(s->overall))
        return gt_err(err, GT_ERR_FORMAT, "results file '%s' has no 'overall' object", f);
    for (const cJSON *m = s->overall->child; m; m = m->next)
        if (!cJSON_IsObject(m))
            return gt_err(err, GT_ERR_FORMAT, "results file '%s': overall '%s' is not an object", f, m->string);
    const cJSON *cbr = cJSON_GetObjectItemCaseSensitive(s->root, "code_block_results");
    if (!cJSON_IsArray(cbr))
        return gt_err(err, GT_ERR_FORMAT, "results file '%s' has no 'code_block_results' list", f);
    s->n_blocks = (size_t)cJSON_GetArraySize(cbr);
    if (s->n_blocks && !(s->blocks = calloc(s->n_blocks, sizeof *s->blocks)))
        return gt_err(err, GT_ERR_NOMEM, "out of memory reading results file '%s'", f);
    size_t i = 0;
    for (const cJSON *b = cbr->child; b; b = b->next, i++) {
        if (!cJSON_IsObject(b) || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(b, "name")))
            return gt_err(err, GT_ERR_FORMAT, "results file '%s': code block %zu has no 'name'", f, i + 1);
        const char *name = block_name(b);
        if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(b, "compute_time")))
            return gt_err(err, GT_ERR_FORMAT, "results file '%s': code block '%s' has no 'compute_time' object",
                          f, name);
        if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(b, "resource_usage")))
            return gt_err(err, GT_ERR_FORMAT,
                          "results file '%s': code block '%s' has no 'resource_usage' object", f, name);
        s->blocks[i] = b;
    }
    return sort_blocks(s, err);
}

/* The length of the non-finite literal at p that Python's json.dumps writes
 * (NaN, Infinity, -Infinity), or 0. */
static size_t non_finite_at(const char *p)
{
    static const char *const words[] = {"NaN", "Infinity", "-Infinity"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (!strncmp(p, words[i], strlen(words[i])))
            return strlen(words[i]);
    return 0;
}

/* Results written by Python (the package's to_json(), `python3 -m
 * gpu_tracker`) hold NaN where a statistic has no value, which is not JSON;
 * it reads as null, the same "not available" as this library writes.  Each
 * literal outside strings is replaced, in a new copy of the text when there
 * is any (NaN is one byte shorter than null: error columns after one on the
 * same line are those of the copy). */
static gt_status null_for_non_finite(char **text, gt_error *err, const char *file)
{
    size_t n = 0, w;
    for (const char *p = *text; *p; p++) {
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (!*p)
                break;
        } else if ((w = non_finite_at(p)) != 0) {
            n++;
            p += w - 1;
        }
    }
    if (n == 0)
        return GT_OK;
    /* Each literal grows by at most one byte (NaN to null). */
    char *out = malloc(strlen(*text) + n + 1), *o = out;
    if (!out)
        return gt_err(err, GT_ERR_NOMEM, "out of memory reading results file '%s'", file);
    for (const char *p = *text; *p;) {
        if (*p == '"') {
            *o++ = *p++;
            while (*p && *p != '"') {
                if (*p == '\\' && p[1])
                    *o++ = *p++;
                *o++ = *p++;
            }
            if (*p)
                *o++ = *p++;
        } else if ((w = non_finite_at(p)) != 0) {
            memcpy(o, "null", 4);
            o += 4;
            p += w;
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    free(*text);
    *text = out;
    return GT_OK;
}

static gt_status load_session(session *s, gt_error *err)
{
    gt_status st = gt_infile_read(s->file, "results file", &s->text, err);
    if (st != GT_OK)
        return st;
    /* Protocol 2 and later pickles start with the PROTO opcode, 0x80: the
     * Python package's results, which a C reader cannot load safely. */
    if ((unsigned char)s->text[0] == 0x80)
        return gt_err(err, GT_ERR_FORMAT,
                      "results file '%s' is a Python pickle: compare pickles with `python3 -m gpu_tracker "
                      "sub-track compare` (loading a pickle runs code from the file: only pickles you trust), or "
                      "write JSON results with `sub-track analyze -f json`",
                      s->file);
    if ((st = null_for_non_finite(&s->text, err, s->file)) != GT_OK)
        return st;
    const char *end = NULL;
    s->root = cJSON_ParseWithOpts(s->text, &end, 1);
    if (!s->root) {
        size_t line = 1, col = 1;
        for (const char *p = s->text; end && p < end && *p; p++, col++)
            if (*p == '\n') {
                line++;
                col = 0;
            }
        return gt_err(err, GT_ERR_FORMAT, "results file '%s' is not valid JSON (line %zu, column %zu)", s->file,
                      line, col);
    }
    st = index_numbers(s, err);
    return st == GT_OK ? check_layout(s, err) : st;
}

static void session_clear(session *s)
{
    cJSON_Delete(s->root);
    free(s->text);
    free(s->flags);
    free(s->blocks);
}

static void emit(gt_log_fn log, void *ctx, const char *msg)
{
    if (log)
        log(ctx, msg);
    else
        fprintf(stderr, "gpu-tracker: warning: %s\n", msg);
}

/* Same name, or the same "file:" with different line numbers (a warning). */
static gt_status match_blocks(const session *ss, size_t n, gt_log_fn log, void *log_ctx, gt_error *err)
{
    const session *a = &ss[0];
    for (size_t j = 1; j < n; j++) {
        const session *b = &ss[j];
        if (b->n_blocks != a->n_blocks)
            return gt_err(err, GT_ERR_INVALID,
                          "sessions have different numbers of code blocks: '%s' ('%s') has %zu, '%s' ('%s') has %zu",
                          a->name, a->file, a->n_blocks, b->name, b->file, b->n_blocks);
        for (size_t i = 0; i < a->n_blocks; i++) {
            const char *x = block_name(a->blocks[i]), *y = block_name(b->blocks[i]);
            if (!strcmp(x, y))
                continue;
            const char *lx = line_number(x), *ly = line_number(y);
            if (!lx || !ly || lx - x != ly - y || strncmp(x, y, (size_t)(lx - x)))
                return gt_err(err, GT_ERR_INVALID,
                              "code block '%s' of session '%s' does not match code block '%s' of session '%s'", x,
                              a->name, y, b->name);
            char msg[1024];
            snprintf(msg, sizeof msg,
                     "Code block name \"%s\" of tracking session \"%s\" matched with code block name \"%s\" of "
                     "tracking session \"%s\" but they differ by line number. If these code blocks were not meant "
                     "to match, their comparison will not be valid and their names must be disambiguated.",
                     x, a->name, y, b->name);
            emit(log, log_ctx, msg);
        }
    }
    return GT_OK;
}

/* The label of the i-th matched code blocks: the distinct names, line
 * numbers in ascending order, joined by " -> ". */
static char *matched_name(const session *ss, size_t n, size_t i)
{
    const char **names = calloc(n, sizeof *names);
    size_t k = 0, len = 1, width = 0;
    if (!names)
        return NULL;
    for (size_t j = 0; j < n; j++) {
        const char *nm = block_name(ss[j].blocks[i]);
        size_t d = 0;
        while (d < k && strcmp(names[d], nm))
            d++;
        if (d < k)
            continue;
        names[k++] = nm;
        len += strlen(nm) + 4;
        const char *ln = line_number(nm);
        if (ln && strlen(ln) > width)
            width = strlen(ln);
    }
    /* Few names (one per session at most): an insertion sort on the keys. */
    char **keys = calloc(k, sizeof *keys);
    char *out = keys ? malloc(len) : NULL;
    for (size_t d = 0; out && d < k; d++)
        if (!(keys[d] = sort_key(names[d], width))) {
            free(out);
            out = NULL;
        }
    if (out) {
        for (size_t d = 1; d < k; d++)
            for (size_t e = d; e > 0 && strcmp(keys[e - 1], keys[e]) > 0; e--) {
                char *tk = keys[e];
                keys[e] = keys[e - 1];
                keys[e - 1] = tk;
                const char *tn = names[e];
                names[e] = names[e - 1];
                names[e - 1] = tn;
            }
        out[0] = '\0';
        for (size_t d = 0; d < k; d++) {
            if (d)
                strcat(out, " -> ");
            strcat(out, names[d]);
        }
    }
    for (size_t d = 0; keys && d < k; d++)
        free(keys[d]);
    free(keys);
    free(names);
    return out;
}

/* Reads statistic stat of a measurement object into *v; where names the
 * object for the error message. */
static gt_status read_stat(const session *s, const cJSON *obj, const char *where, const char *stat,
                           gt_cmp_value *v, gt_error *err)
{
    if (!cJSON_IsObject(obj))
        return gt_err(err, GT_ERR_FORMAT, "results file '%s': %s is missing or not an object", s->file, where);
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(obj, stat);
    if (cJSON_IsNull(x)) {
        v->avail = 0;
        v->v = 0;
        v->is_int = 0;
        return GT_OK;
    }
    if (!cJSON_IsNumber(x))
        return gt_err(err, GT_ERR_FORMAT, "results file '%s': %s has no number '%s'", s->file, where, stat);
    /* A literal beyond the double range (1e999) parses as infinity, which
     * no measurement is and JSON cannot carry back out. */
    if (!isfinite(x->valuedouble))
        return gt_err(err, GT_ERR_FORMAT, "results file '%s': %s '%s' is out of range", s->file, where, stat);
    v->v = x->valuedouble;
    v->avail = 1;
    /* Written back as an integer only where a double holds it exactly; a
     * longer one would come out as other digits. */
    v->is_int = is_int_item(s, x) && fabs(x->valuedouble) < 9007199254740992.0;
    return GT_OK;
}

static int value_before(const gt_cmp_value *a, const gt_cmp_value *b)
{
    return a->avail && (!b->avail || a->v < b->v);
}

/* Ascending, stable, unavailable last (as pandas' sort_values). */
static void finish_series(gt_cmp_series *s, size_t n)
{
    s->all_int = 1;
    for (size_t i = 0; i < n; i++) {
        s->order[i] = i;
        if (!s->vals[i].avail || !s->vals[i].is_int)
            s->all_int = 0;
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && value_before(&s->vals[s->order[j]], &s->vals[s->order[j - 1]]); j--) {
            size_t t = s->order[j];
            s->order[j] = s->order[j - 1];
            s->order[j - 1] = t;
        }
}

static gt_status build(const session *ss, size_t n, const char *stat, gt_comparison *c, gt_error *err)
{
    const session *first = &ss[0];
    c->n_sessions = n;
    c->n_meas = (size_t)cJSON_GetArraySize(first->overall);
    c->n_blocks = first->n_blocks;
    size_t n_series = c->n_meas + c->n_meas * c->n_blocks + c->n_blocks;
    c->sessions = calloc(n, sizeof *c->sessions);
    c->meas = calloc(c->n_meas + 1, sizeof *c->meas);
    c->blocks = calloc(c->n_blocks + 1, sizeof *c->blocks);
    c->series_pool = calloc(n_series + 1, sizeof *c->series_pool);
    c->value_pool = calloc(n_series * n + 1, sizeof *c->value_pool);
    c->order_pool = calloc(n_series * n + 1, sizeof *c->order_pool);
    if (!c->sessions || !c->meas || !c->blocks || !c->series_pool || !c->value_pool || !c->order_pool)
        return gt_err(err, GT_ERR_NOMEM, "out of memory comparing sessions");
    for (size_t k = 0; k < n_series; k++) {
        c->series_pool[k].vals = c->value_pool + k * n;
        c->series_pool[k].order = c->order_pool + k * n;
    }
    c->overall = c->series_pool;
    c->usage = c->overall + c->n_meas;
    c->time = c->usage + c->n_meas * c->n_blocks;
    for (size_t j = 0; j < n; j++)
        if (!(c->sessions[j] = strdup(ss[j].name)))
            return gt_err(err, GT_ERR_NOMEM, "out of memory comparing sessions");
    for (size_t b = 0; b < c->n_blocks; b++)
        if (!(c->blocks[b] = matched_name(ss, n, b)))
            return gt_err(err, GT_ERR_NOMEM, "out of memory comparing sessions");

    char where[768];
    size_t m = 0;
    for (const cJSON *mo = first->overall->child; mo; mo = mo->next, m++) {
        const char *key = mo->string;
        if (!(c->meas[m] = strdup(key)))
            return gt_err(err, GT_ERR_NOMEM, "out of memory comparing sessions");
        snprintf(where, sizeof where, "overall '%s'", key);
        for (size_t j = 0; j < n; j++) {
            gt_status st = read_stat(&ss[j], cJSON_GetObjectItemCaseSensitive(ss[j].overall, key), where, stat,
                                     &c->overall[m].vals[j], err);
            if (st != GT_OK)
                return st;
        }
        finish_series(&c->overall[m], n);
        for (size_t b = 0; b < c->n_blocks; b++) {
            gt_cmp_series *sr = &c->usage[m * c->n_blocks + b];
            for (size_t j = 0; j < n; j++) {
                const cJSON *blk = ss[j].blocks[b];
                snprintf(where, sizeof where, "code block '%s' resource_usage '%s'", block_name(blk), key);
                const cJSON *ru = cJSON_GetObjectItemCaseSensitive(blk, "resource_usage");
                gt_status st = read_stat(&ss[j], cJSON_GetObjectItemCaseSensitive(ru, key), where, stat,
                                         &sr->vals[j], err);
                if (st != GT_OK)
                    return st;
            }
            finish_series(sr, n);
        }
    }
    for (size_t b = 0; b < c->n_blocks; b++) {
        for (size_t j = 0; j < n; j++) {
            const cJSON *blk = ss[j].blocks[b];
            snprintf(where, sizeof where, "code block '%s' compute_time", block_name(blk));
            gt_status st = read_stat(&ss[j], cJSON_GetObjectItemCaseSensitive(blk, "compute_time"), where, stat,
                                     &c->time[b].vals[j], err);
            if (st != GT_OK)
                return st;
        }
        finish_series(&c->time[b], n);
    }
    return GT_OK;
}

static gt_status check_args(const char *const *names, const char *const *files, size_t n, const char *statistic,
                            gt_comparison **out, gt_error *err)
{
    if (!out)
        return gt_err(err, GT_ERR_INVALID, "no place to store the comparison");
    if (n == 0 || !names || !files)
        return gt_err(err, GT_ERR_INVALID, "no sessions to compare: give at least one name and results file");
    size_t k = 0;
    while (k < sizeof statistics / sizeof *statistics && strcmp(statistic, statistics[k]))
        k++;
    if (k == sizeof statistics / sizeof *statistics)
        return gt_err(err, GT_ERR_INVALID, "invalid statistic '%s': valid statistics are 'min', 'max', 'mean', 'std'",
                      statistic);
    for (size_t i = 0; i < n; i++) {
        if (!names[i] || !*names[i] || !files[i] || !*files[i])
            return gt_err(err, GT_ERR_INVALID, "session %zu has an empty name or file", i + 1);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(names[i], names[j]))
                return gt_err(err, GT_ERR_INVALID, "session name '%s' is given twice", names[i]);
    }
    return GT_OK;
}

static const gt_compare_options compare_defaults = GT_COMPARE_OPTIONS_INIT;

gt_status gt_compare_options_init(gt_compare_options *o, unsigned int version)
{
    return gt_abi_init(GT_ABI_COMPARE_OPTIONS, &compare_defaults, o, version);
}

gt_status gt_compare(const char *const *names, const char *const *files, size_t n, const gt_compare_options *opts,
                     gt_comparison **out, gt_error *err)
{
    if (out)
        *out = NULL;
    gt_compare_options o;
    gt_status st = gt_abi_take(GT_ABI_COMPARE_OPTIONS, opts, &compare_defaults, &o, sizeof o, err);
    const char *statistic = o.statistic ? o.statistic : "mean";
    if (st == GT_OK)
        st = check_args(names, files, n, statistic, out, err);
    if (st != GT_OK)
        return st;
    gt_log_fn log = o.log;
    void *log_ctx = o.log_ctx;
    session *ss = calloc(n, sizeof *ss);
    gt_comparison *c = calloc(1, sizeof *c);
    if (!ss || !c) {
        st = gt_err(err, GT_ERR_NOMEM, "out of memory comparing sessions");
        goto done;
    }
    for (size_t i = 0; i < n && st == GT_OK; i++) {
        ss[i].name = names[i];
        ss[i].file = files[i];
        st = load_session(&ss[i], err);
    }
    if (st == GT_OK)
        st = match_blocks(ss, n, log, log_ctx, err);
    if (st == GT_OK)
        st = build(ss, n, statistic, c, err);
    if (st == GT_OK) {
        *out = c;
        c = NULL;
    }
done:
    gt_comparison_free(&c);
    for (size_t i = 0; ss && i < n; i++)
        session_clear(&ss[i]);
    free(ss);
    return st;
}

void gt_comparison_free(gt_comparison **cp)
{
    if (!cp || !*cp)
        return;
    gt_comparison *c = *cp;
    for (size_t i = 0; c->sessions && i < c->n_sessions; i++)
        free(c->sessions[i]);
    for (size_t i = 0; c->meas && i < c->n_meas; i++)
        free(c->meas[i]);
    for (size_t i = 0; c->blocks && i < c->n_blocks; i++)
        free(c->blocks[i]);
    free(c->sessions);
    free(c->meas);
    free(c->blocks);
    free(c->series_pool);
    free(c->value_pool);
    free(c->order_pool);
    free(c);
    *cp = NULL;
}
