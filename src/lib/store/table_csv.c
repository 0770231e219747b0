/* SPDX-License-Identifier: MIT */
/* CSV tables: read in chunks (never the whole file at once), records split
 * in place in the buffer, so memory is the columns plus one chunk. */
#include "store/table_impl.h"
#include "util/error.h"
#include "util/infile.h"
#include "util/grow.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK (1 << 20)
/* The longest record read.  Tracking and sub-tracking rows are well under
 * a kilobyte; without a bound, a file with no line end (a link to
 * /dev/zero, a corrupt file) would be read into memory whole.  Python's csv
 * module stops at fields of 128 KiB. */
#define MAX_RECORD (8 * CHUNK)

typedef struct reader {
    const char *path;
    int fd;
    char *buf;
    size_t cap, len, pos;  /* buf[pos..len) is unread */
    size_t scan;           /* where the search for the record end resumes */
    int quoted;            /* quote state at scan */
    int eof;
    long line;             /* line number of the next record */
    long rec_line;         /* line number where the last record began */
    char **fields;
    size_t *lens;
    size_t nfields, fcap;
} reader;

static gt_status add_field(reader *r, char *f, size_t len, gt_error *err)
{
    if (r->nfields == r->fcap) {
        /* Both arrays' element sizes together: a capacity that fits their
         * sum fits each. */
        size_t cap = gt_grow_cap(r->fcap, r->nfields + 1, 32, sizeof *r->fields + sizeof *r->lens);
        char **p = cap ? realloc(r->fields, cap * sizeof *p) : NULL;
        if (p)
            r->fields = p;
        size_t *l = p ? realloc(r->lens, cap * sizeof *l) : NULL;
        if (!l)
            return gt_err(err, GT_ERR_NOMEM, "'%s': out of memory", r->path);
        r->lens = l;
        r->fcap = cap;
    }
    r->lens[r->nfields] = len;
    r->fields[r->nfields++] = f;
    return GT_OK;
}

/* Splits the record s[0..n) (s[n] is writable) into NUL-terminated fields,
 * undoing quoting in place: the output never runs ahead of the input. */
static gt_status split(reader *r, char *s, size_t n, gt_error *err)
{
    gt_status st;
    char *end = s + n, *p = s;
    if (n && end[-1] == '\r')
        end--;
    r->nfields = 0;
    for (;;) {
        char *w = p, *f = p;
        if (p < end && *p == '"') {
            p++;
            while (p < end) {
                if (*p == '"') {
                    if (p + 1 < end && p[1] == '"') {
                        *w++ = '"';
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                *w++ = *p++;
            }
            /* Text after the closing quote belongs to the field, as in
             * Python's csv module. */
            while (p < end && *p != ',')
                *w++ = *p++;
        } else {
            while (p < end && *p != ',')
                p++;
            w = p;
        }
        int more = p < end; /* *p == ',' */
        *w = '\0';
        if ((st = add_field(r, f, (size_t)(w - f), err)) != GT_OK)
            return st;
        if (!more)
            return GT_OK;
        p++;
    }
}

/* Next non-blank record: 1 with r->fields set, 0 at the end, -1 on error. */
static int next_record(reader *r, gt_status *st, gt_error *err)
{
    for (;;) {
        size_t i = r->scan;
        int q = r->quoted;
        /* Most records hold no quote: find the line end with memchr and
         * walk byte by byte only through quoted text. */
        const char *nl = q ? NULL : memchr(r->buf + i, '\n', r->len - i);
        int plain = nl && !memchr(r->buf + i, '"', (size_t)(nl - (r->buf + i)));
        if (plain) {
            i = (size_t)(nl - r->buf);
        } else {
            for (; i < r->len; i++) {
                char c = r->buf[i];
                if (c == '"')
                    q = !q;
                else if (c == '\n' && !q)
                    break;
            }
        }
        if (i < r->len || (r->eof && r->pos < r->len)) {
            if (i >= r->len && q) {
                *st = gt_err(err, GT_ERR_FORMAT, "'%s', line %ld: a quoted field never ends",
                             r->path, r->line);
                return -1;
            }
            char *s = r->buf + r->pos;
            size_t n = i - r->pos;
            long lines = 1;
            if (memchr(s, '"', n)) /* only quoted fields hold line ends */
                for (size_t k = 0; k < n; k++)
                    lines += s[k] == '\n';
            r->pos = r->scan = i < r->len ? i + 1 : r->len;
            r->quoted = 0;
            r->rec_line = r->line;
            r->line += lines;
            if (n == 0 || (n == 1 && s[0] == '\r'))
                continue; /* blank line */
            s[n] = '\0';
            if ((*st = split(r, s, n, err)) != GT_OK)
                return -1;
            return 1;
        }
        if (r->eof)
            return 0;
        /* Need more bytes: move the partial record to the front, grow the
         * buffer if one record is longer than it, then read. */
        r->scan = i - r->pos;
        r->quoted = q;
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->len -= r->pos;
        r->pos = 0;
        if (r->cap - r->len < CHUNK / 2) {
            if (r->cap >= MAX_RECORD) {
                *st = gt_err(err, GT_ERR_FORMAT, "'%s', line %ld: a record longer than %d MiB (not a tracking "
                             "or sub-tracking file?)", r->path, r->line, (MAX_RECORD - CHUNK) >> 20);
                return -1;
            }
            size_t cap = gt_grow_cap(r->cap, r->cap + 1, CHUNK, 1);
            char *p = cap ? realloc(r->buf, cap) : NULL;
            if (!p) {
                *st = gt_err(err, GT_ERR_NOMEM, "'%s': out of memory", r->path);
                return -1;
            }
            r->buf = p;
            r->cap = cap;
        }
        ssize_t got;
        do
            got = read(r->fd, r->buf + r->len, r->cap - r->len - 1); /* room for a NUL */
        while (got < 0 && errno == EINTR);
        if (got < 0) {
            *st = gt_err(err, GT_ERR_IO, "cannot read '%s': %s", r->path, strerror(errno));
            return -1;
        }
        if (got == 0)
            r->eof = 1;
        r->len += (size_t)got;
    }
}

gt_status gt_table_read_csv(gt_table *t, gt_table_part part, const char *const *columns,
                            const char *const *text_columns, gt_error *err)
{
    gt_status st = GT_OK;
    reader r = {.path = t->path, .fd = -1, .line = 1};
    int got;

    t->where = "line";
    /* A device or a pipe may never end, a FIFO would block the open: only
     * a file is read. */
    if ((st = gt_infile_open(t->path, NULL, &r.fd, err)) != GT_OK)
        return st;
    if (!(r.buf = malloc(CHUNK))) {
        st = gt_err(err, GT_ERR_NOMEM, "'%s': out of memory", t->path);
        goto done;
    }
    r.cap = CHUNK;

    /* The timepoints of a tracking file follow its static header and row. */
    for (int skip = part == GT_TABLE_TIMEPOINTS ? 2 : 0; skip > 0; skip--) {
        if ((got = next_record(&r, &st, err)) < 0)
            goto done;
        if (got == 0) {
            st = gt_err(err, GT_ERR_FORMAT, "'%s' ends before its timepoint header", t->path);
            goto done;
        }
    }
    if ((got = next_record(&r, &st, err)) < 0)
        goto done;
    if (got == 0) {
        st = gt_err(err, GT_ERR_FORMAT, "'%s' is empty: it has no header line", t->path);
        goto done;
    }
    if ((st = gt_table_init(t, (const char *const *)r.fields, (int)r.nfields, columns,
                            text_columns, err)) != GT_OK)
        goto done;
    if (part == GT_TABLE_HEADER)
        goto done;

    while ((got = next_record(&r, &st, err)) > 0) {
        long line = r.rec_line;
        if ((int)r.nfields != t->nfile) {
            st = gt_err(err, GT_ERR_FORMAT, "'%s', line %ld: %zu fields, but the header has %d",
                        t->path, line, r.nfields, t->nfile);
            goto done;
        }
        if ((st = gt_table_grow(t, err)) != GT_OK)
            goto done;
        for (int f = 0; f < t->nfile; f++)
            if (t->map[f] >= 0 &&
                (st = gt_table_set(t, t->map[f], r.fields[f], r.lens[f], line, err)) != GT_OK)
                goto done;
        t->nrows++;
        if (part == GT_TABLE_STATIC)
            break; /* one row; the timepoint header follows */
    }
    if (got < 0)
        goto done;
    if (part == GT_TABLE_STATIC && t->nrows == 0)
        st = gt_err(err, GT_ERR_FORMAT, "'%s' has no static data row", t->path);
done:
    free(r.fields);
    free(r.lens);
    free(r.buf);
    close(r.fd);
    return st;
}
