/* SPDX-License-Identifier: MIT */
/* Pairing of sub-tracking marks into calls (see calls.h). */
#include "analysis/calls.h"
#include "util/error.h"
#include "util/pyfloat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_mark(const void *a, const void *b)
{
    const gt_mark *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (!c)
        c = strcmp(x->host, y->host);
    if (c)
        return c;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->position - y->position;
}

gt_status gt_marks_load(const gt_table *t, gt_mark **out, size_t *nout, gt_error *err)
{
    size_t n = gt_table_nrows(t);
    int cname = gt_table_find(t, "code_block_name");
    int cpid = gt_table_find(t, "process_id"), cpos = gt_table_find(t, "position");
    int cts = gt_table_find(t, "timestamp"), chost = gt_table_find(t, "host");
    if (cname < 0 || cpid < 0 || cpos < 0 || cts < 0)
        return gt_err(err, GT_ERR_FORMAT,
                      "sub-tracking file '%s' is invalid: it needs the columns process_id, "
                      "code_block_name, position and timestamp",
                      gt_table_path(t));
    gt_mark *m = malloc((n ? n : 1) * sizeof *m);
    if (!m)
        return gt_err(err, GT_ERR_NOMEM, "sub-tracking file '%s': out of memory", gt_table_path(t));
    for (size_t i = 0; i < n; i++) {
        const char *problem = NULL;
        double pid = gt_table_number(t, cpid, i), pos = gt_table_number(t, cpos, i);
        double ts = gt_table_number(t, cts, i);
        if (!(pid >= 0 && pid <= 9007199254740992.0 && pid == floor(pid)))
            problem = "process_id is not a process ID";
        else if (pos != 0 && pos != 1)
            problem = "position is neither 0 (start) nor 1 (stop)";
        else if (!isfinite(ts))
            problem = "timestamp is missing";
        if (problem) {
            free(m);
            return gt_err(err, GT_ERR_FORMAT, "sub-tracking file '%s' is invalid: row %zu: %s",
                          gt_table_path(t), i + 1, problem);
        }
        const char *host = chost >= 0 ? gt_table_text(t, chost, i) : NULL;
        m[i] = (gt_mark){gt_table_text(t, cname, i), host ? host : "", (long long)pid, (int)pos, ts};
    }
    qsort(m, n, sizeof *m, cmp_mark);
    *out = m;
    *nout = n;
    return GT_OK;
}

gt_status gt_marks_select_host(const char *path, gt_mark *m, size_t *n, const char *host, gt_error *err)
{
    size_t k = 0;
    if (!host) {
        for (size_t i = 1; i < *n; i++)
            if (strcmp(m[i].host, m[0].host) != 0)
                return gt_err(err, GT_ERR_INVALID,
                              "sub-tracking file '%s' holds marks of several hosts ('%s', '%s'): "
                              "analyze one host's marks with that host's tracking file "
                              "(--host=NAME)",
                              path, m[0].host, m[i].host);
        return GT_OK;
    }
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(m[i].host, host))
            m[k++] = m[i];
    if (k == 0) {
        /* The hosts it has, each once, so the user can pick one. */
        char list[768];
        size_t len = 0, shown = 0, more = 0;
        list[0] = '\0';
        for (size_t i = 0; i < *n; i++) {
            size_t j = 0;
            while (j < i && strcmp(m[j].host, m[i].host) != 0)
                j++;
            if (j < i)
                continue;
            int w = snprintf(list + len, sizeof list - len, "%s'%s'", shown ? ", " : "", m[i].host);
            if (w < 0 || (size_t)w >= sizeof list - len - 32) {
                list[len] = '\0';
                more++;
                continue;
            }
            len += (size_t)w;
            shown++;
        }
        if (more)
            snprintf(list + len, sizeof list - len, " and %zu more", more);
        return gt_err(err, GT_ERR_INVALID, "sub-tracking file '%s' has no marks of host '%s'%s%s%s", path, host,
                      *n ? " (its hosts: " : "", list, *n ? ")" : "");
    }
    *n = k;
    return GT_OK;
}

/* "process ID 12" or, for a file with hosts, "process ID 12 on host 'n1'". */
static const char *who(const gt_mark *m, char *buf, size_t size)
{
    if (m->host[0])
        snprintf(buf, size, "process ID %lld on host '%.200s'", m->pid, m->host);
    else
        snprintf(buf, size, "process ID %lld", m->pid);
    return buf;
}

static int same_process(const gt_mark *x, const gt_mark *y)
{
    return x->pid == y->pid && !strcmp(x->host, y->host);
}

gt_status gt_marks_pair(const char *path, const gt_mark *m, size_t n, gt_call *calls, size_t *ncalls,
                        double *open, size_t *nopen, gt_error *err)
{
    char a[GT_PYFLOAT_BUFSZ], b[GT_PYFLOAT_BUFSZ], p[256], q[256];
    size_t nc = 0, no = 0;
    const gt_mark *held = NULL; /* the first mark of the pair being formed */
    for (size_t i = 0; i < n; i++) {
        int last_of_process = i + 1 == n || !same_process(&m[i + 1], &m[i]);
        if (last_of_process && m[i].position == 0) {
            if (open)
                open[no++] = m[i].ts;
            continue;
        }
        if (!held) {
            held = &m[i];
            continue;
        }
        if (!same_process(held, &m[i])) {
            gt_pyfloat_repr(held->ts, a, sizeof a);
            gt_pyfloat_repr(m[i].ts, b, sizeof b);
            if (!held->host[0] && !m[i].host[0])
                return gt_err(err, GT_ERR_FORMAT,
                              "sub-tracking file '%s' is invalid: code block '%s': timestamp pair "
                              "(%s, %s) with differing process IDs: %lld and %lld",
                              path, m[i].name, a, b, held->pid, m[i].pid);
            return gt_err(err, GT_ERR_FORMAT,
                          "sub-tracking file '%s' is invalid: code block '%s': timestamp pair "
                          "(%s, %s) of two processes: %s and %s",
                          path, m[i].name, a, b, who(held, p, sizeof p), who(&m[i], q, sizeof q));
        }
        /* Sorted by time, a stop then a start is a call whose start is
         * after its stop.  Two starts or two stops (a recursive block's
         * nested calls) pair by time, as the package pairs them. */
        if (held->position == 1 && m[i].position == 0) {
            gt_pyfloat_repr(held->ts, a, sizeof a);
            gt_pyfloat_repr(m[i].ts, b, sizeof b);
            return gt_err(err, GT_ERR_FORMAT,
                          "sub-tracking file '%s' is invalid: code block '%s': timestamp pair "
                          "(%s, %s) of %s with a start time greater than the stop time",
                          path, m[i].name, a, b, who(&m[i], p, sizeof p));
        }
        calls[nc++] = (gt_call){held->ts, m[i].ts};
        held = NULL;
    }
    if (held) {
        gt_pyfloat_repr(held->ts, a, sizeof a);
        return gt_err(err, GT_ERR_FORMAT,
                      "sub-tracking file '%s' is invalid: code block '%s': the %s at %s of "
                      "%s has no partner",
                      path, held->name, held->position ? "stop" : "start", a, who(held, p, sizeof p));
    }
    *ncalls = nc;
    if (nopen)
        *nopen = no;
    return GT_OK;
}

gt_status gt_blocks_pair(const gt_table *t, const gt_blocks_want *want, gt_block_set *out, gt_error *err)
{
    *out = (gt_block_set){0};
    const char *path = gt_table_path(t);
    gt_mark *m = NULL;
    size_t n = 0;
    gt_status st = gt_marks_load(t, &m, &n, err);
    if (st == GT_OK && !want->every_host)
        st = gt_marks_select_host(path, m, &n, want->host, err);
    if (st != GT_OK)
        goto done;
    size_t nblocks = 0;
    for (size_t i = 0; i < n; i++)
        nblocks += (i == 0 || strcmp(m[i].name, m[i - 1].name) != 0) && (!want->only || !strcmp(m[i].name, want->only));
    /* A block pairs at most half its marks and leaves at most all of them
     * open; never a zero-size malloc. */
    out->blocks = malloc((nblocks ? nblocks : 1) * sizeof *out->blocks);
    out->calls = malloc((n ? n : 1) * sizeof *out->calls);
    out->open = malloc((n ? n : 1) * sizeof *out->open);
    if (!out->blocks || !out->calls || !out->open) {
        st = gt_err(err, GT_ERR_NOMEM, "sub-tracking file '%s': out of memory", path);
        goto done;
    }
    size_t nc = 0, no = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && !strcmp(m[j].name, m[i].name); j++)
            ;
        if (want->only && strcmp(m[i].name, want->only) != 0)
            continue;
        size_t bc = 0, bo = 0;
        if ((st = gt_marks_pair(path, m + i, j - i, out->calls + nc, &bc, out->open + no, &bo, err)) != GT_OK)
            goto done;
        out->blocks[out->nblocks++] = (gt_block_calls){m[i].name, out->calls + nc, bc, out->open + no, bo};
        nc += bc;
        no += bo;
    }
done:
    free(m);
    if (st != GT_OK)
        gt_block_set_free(out);
    return st;
}

void gt_block_set_free(gt_block_set *s)
{
    free(s->blocks);
    free(s->calls);
    free(s->open);
    *s = (gt_block_set){0};
}

gt_status gt_subtrack_calls(const char *path, const char *name, double **out, size_t *nout, gt_error *err)
{
    if (!path || !name || !out || !nout)
        return gt_err(err, GT_ERR_INVALID,
                      "sub-tracking calls: a file, a code block name and room for the calls are needed");
    *out = NULL;
    *nout = 0;
    gt_table *t = NULL;
    gt_block_set set = {0};
    gt_status st = gt_table_read_columns(path, GT_TABLE_MARKS, gt_mark_columns, gt_mark_text_columns, &t, err);
    if (st == GT_OK)
        st = gt_blocks_pair(t, &(gt_blocks_want){.every_host = 1, .only = name}, &set, err);
    if (st == GT_OK) {
        /* The one block's calls are the first of the set's. */
        _Static_assert(sizeof(gt_call) == 2 * sizeof(double), "a call is a start and a stop, unpadded");
        *nout = set.nblocks ? set.blocks[0].ncalls : 0;
        *out = (double *)set.calls;
        set.calls = NULL;
    }
    gt_block_set_free(&set);
    gt_table_free(&t);
    return st;
}

void gt_calls_free(double **calls)
{
    if (!calls)
        return;
    free(*calls);
    *calls = NULL;
}
