/* SPDX-License-Identifier: MIT */
/* The taskstats netlink parser on crafted messages: the fields of an exit
 * record (the parent is ac_ppid, not the thread's own ac_pid), messages of
 * other families and malformed ones skipped, and a drain that met ENOBUFS
 * (the kernel dropped records) reported as incomplete, records around it
 * still delivered. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <string.h>

#include "proc/taskstats.h"

#define FAMILY 27

/* A datagram being built, aligned as the kernel's. */
typedef struct datagram {
    _Alignas(8) char buf[4096];
    size_t len;
} datagram;

static void *put(datagram *d, const void *src, size_t n)
{
    assert_true(d->len + NLA_ALIGN(n) <= sizeof d->buf);
    void *at = d->buf + d->len;
    memcpy(at, src, n);
    d->len += NLA_ALIGN(n);
    return at;
}

/* Appends one TASKSTATS_CMD_NEW message of family with one exit record:
 * the thread pid of process tgid, whose parent is ppid. */
static void put_exit(datagram *d, uint16_t family, uint32_t pid, uint32_t tgid, uint32_t ppid,
                     uint64_t hiwater_kb, uint16_t version)
{
    size_t start = d->len;
    struct nlmsghdr nh = {.nlmsg_type = family};
    struct nlmsghdr *h = put(d, &nh, sizeof nh);
    struct genlmsghdr gh = {.cmd = TASKSTATS_CMD_NEW, .version = 1};
    put(d, &gh, sizeof gh);
    struct taskstats ts;
    memset(&ts, 0, sizeof ts);
    ts.version = version;
    ts.ac_pid = pid;
    ts.ac_tgid = tgid;
    ts.ac_ppid = ppid;
    ts.hiwater_rss = hiwater_kb;
    struct nlattr aggr = {.nla_type = TASKSTATS_TYPE_AGGR_PID,
                          .nla_len = (uint16_t)(NLA_HDRLEN + NLA_HDRLEN + NLA_ALIGN(sizeof pid) + NLA_HDRLEN +
                                                sizeof ts)};
    put(d, &aggr, sizeof aggr);
    struct nlattr a_pid = {.nla_type = TASKSTATS_TYPE_PID, .nla_len = NLA_HDRLEN + sizeof pid};
    put(d, &a_pid, sizeof a_pid);
    put(d, &pid, sizeof pid);
    struct nlattr a_stats = {.nla_type = TASKSTATS_TYPE_STATS, .nla_len = (uint16_t)(NLA_HDRLEN + sizeof ts)};
    put(d, &a_stats, sizeof a_stats);
    put(d, &ts, sizeof ts);
    h->nlmsg_len = (uint32_t)(d->len - start);
}

typedef struct seen {
    gt_exit_record r[8];
    int n;
} seen;

static void collect(void *ctx, const gt_exit_record *r)
{
    seen *s = ctx;
    assert_true(s->n < 8);
    s->r[s->n++] = *r;
}

static void test_record_fields(void **state)
{
    (void)state;
    datagram d = {.len = 0};
    /* A thread (pid 1234) of process 1200, whose parent is 77. */
    put_exit(&d, FAMILY, 1234, 1200, 77, 5000, TASKSTATS_VERSION);
    put_exit(&d, FAMILY + 1, 9, 9, 1, 1, TASKSTATS_VERSION); /* another family */
    put_exit(&d, FAMILY, 8, 8, 1, 1, 11);                    /* before ac_tgid existed */
    put_exit(&d, FAMILY, 555, 555, 1200, 64, TASKSTATS_VERSION);
    seen s = {.n = 0};
    assert_int_equal(gt_taskstats_parse(d.buf, d.len, FAMILY, collect, &s), 2);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.r[0].pid, 1234);
    assert_int_equal(s.r[0].tgid, 1200);
    assert_int_equal(s.r[0].ppid, 77);
    assert_true(s.r[0].hiwater_rss == 5000 * 1024ULL);
    assert_int_equal(s.r[1].pid, 555);
    assert_int_equal(s.r[1].ppid, 1200);
    assert_true(s.r[1].hiwater_rss == 64 * 1024ULL);
}

/* Cut anywhere, a datagram yields only the whole records before the cut. */
static void test_truncated(void **state)
{
    (void)state;
    datagram d = {.len = 0};
    put_exit(&d, FAMILY, 10, 10, 1, 1, TASKSTATS_VERSION);
    size_t first = d.len;
    put_exit(&d, FAMILY, 11, 11, 1, 1, TASKSTATS_VERSION);
    for (size_t n = 0; n < d.len; n++) {
        seen s = {.n = 0};
        int got = gt_taskstats_parse(d.buf, n, FAMILY, collect, &s);
        assert_int_equal(got, n >= first ? 1 : 0);
    }
}

/* A scripted socket: datagrams and errors, in order, then EAGAIN. */
typedef struct script {
    const datagram *steps[4];
    int errors[4]; /* errno of a step without a datagram */
    int n, at;
} script;

static ssize_t scripted_recv(void *ctx, void *buf, size_t cap)
{
    script *sc = ctx;
    if (sc->at == sc->n) {
        errno = EAGAIN;
        return -1;
    }
    int i = sc->at++;
    if (!sc->steps[i]) {
        errno = sc->errors[i];
        return -1;
    }
    assert_true(sc->steps[i]->len <= cap);
    memcpy(buf, sc->steps[i]->buf, sc->steps[i]->len);
    return (ssize_t)sc->steps[i]->len;
}

static void test_drain_reports_loss(void **state)
{
    (void)state;
    datagram a = {.len = 0}, b = {.len = 0};
    put_exit(&a, FAMILY, 20, 20, 1, 1, TASKSTATS_VERSION);
    put_exit(&b, FAMILY, 21, 21, 1, 1, TASKSTATS_VERSION);
    _Alignas(8) char buf[4096];
    seen s = {.n = 0};
    script ok = {{&a, NULL, &b}, {0, EINTR, 0}, 3, 0};
    assert_int_equal(gt_taskstats_drain_from(scripted_recv, &ok, FAMILY, buf, sizeof buf, collect, &s), 2);
    /* The kernel dropped records between a and b: incomplete, both kept. */
    s.n = 0;
    script lost = {{&a, NULL, &b}, {0, ENOBUFS, 0}, 3, 0};
    assert_int_equal(gt_taskstats_drain_from(scripted_recv, &lost, FAMILY, buf, sizeof buf, collect, &s), -1);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.r[1].pid, 21);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_fields),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_drain_reports_loss),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
