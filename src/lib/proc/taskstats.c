/* SPDX-License-Identifier: MIT */
#include "proc/taskstats.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/error.h"

/* ac_tgid, which tells a thread's exit from its process's, came in v12. */
#define MIN_VERSION 12
/* Exits arrive between samples; a large buffer rides out a burst of them
 * (a build, a pool shutting down) at a long sampling interval. */
#define RCVBUF (8 << 20)

struct gt_taskstats {
    int fd;
    uint16_t family;
    char cpumask[32];
    /* One datagram at a time, kept here: no allocation while draining. */
    _Alignas(8) char buf[64 * 1024]; /* netlink headers are read in place */
};

/* Attribute walking (the kernel's uapi has no helpers for it). */
static int nla_ok(const struct nlattr *a, int rem)
{
    return rem >= (int)sizeof *a && a->nla_len >= sizeof *a && (int)a->nla_len <= rem;
}

static const struct nlattr *nla_next(const struct nlattr *a, int *rem)
{
    *rem -= NLA_ALIGN(a->nla_len);
    return (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len));
}

/* NLMSG_OK and NLMSG_NEXT compare signed with unsigned; these do not. */
static int msg_ok(const struct nlmsghdr *nh, size_t rem)
{
    return rem >= sizeof *nh && nh->nlmsg_len >= sizeof *nh && nh->nlmsg_len <= rem;
}

static const struct nlmsghdr *msg_next(const struct nlmsghdr *nh, size_t *rem)
{
    size_t step = NLMSG_ALIGN(nh->nlmsg_len);
    *rem = step < *rem ? *rem - step : 0;
    return (const struct nlmsghdr *)((const char *)nh + step);
}

static const void *msg_data(const struct nlmsghdr *nh) { return (const char *)nh + NLMSG_HDRLEN; }

static const void *nla_data(const struct nlattr *a) { return (const char *)a + NLA_HDRLEN; }
static int nla_len(const struct nlattr *a) { return (int)a->nla_len - NLA_HDRLEN; }

/* Sends one generic-netlink request with a single attribute. */
static int send_cmd(int fd, uint16_t family, uint8_t cmd, uint16_t attr, const void *data,
                    size_t len)
{
    char msg[256];
    if (NLMSG_LENGTH(GENL_HDRLEN) + NLA_HDRLEN + NLA_ALIGN(len) > sizeof msg)
        return -1;
    memset(msg, 0, sizeof msg);
    struct nlmsghdr *nh = (struct nlmsghdr *)msg;
    nh->nlmsg_type = family;
    nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
    nh->nlmsg_seq = 1;
    struct genlmsghdr *gh = NLMSG_DATA(nh);
    gh->cmd = cmd;
    gh->version = 1;
    struct nlattr *na = (struct nlattr *)((char *)gh + GENL_HDRLEN);
    na->nla_type = attr;
    na->nla_len = (uint16_t)(NLA_HDRLEN + len);
    memcpy((char *)na + NLA_HDRLEN, data, len);
    nh->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(na->nla_len);
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    ssize_t n;
    do
        n = sendto(fd, msg, nh->nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof kernel);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)nh->nlmsg_len ? 0 : -1;
}

/* Reads the answer to a request: the family ID when want_family, then the
 * ACK.  Returns 0, or -1 with errno set from the kernel's error code. */
static int read_reply(gt_taskstats *t, uint16_t *family)
{
    for (;;) {
        ssize_t n = recv(t->fd, t->buf, sizeof t->buf, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        size_t rem = (size_t)n;
        for (const struct nlmsghdr *nh = (const struct nlmsghdr *)t->buf; msg_ok(nh, rem);
             nh = msg_next(nh, &rem)) {
            if (nh->nlmsg_type == NLMSG_ERROR) {
                const struct nlmsgerr *e = (const struct nlmsgerr *)msg_data(nh);
                if (e->error == 0)
                    return family && !*family ? (errno = ENOENT, -1) : 0;
                errno = -e->error;
                return -1;
            }
            if (!family || nh->nlmsg_type != GENL_ID_CTRL)
                continue;
            int alen = (int)nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
            const struct nlattr *a = (const struct nlattr *)((const char *)msg_data(nh) + GENL_HDRLEN);
            for (; nla_ok(a, alen); a = nla_next(a, &alen))
                if (a->nla_type == CTRL_ATTR_FAMILY_ID && nla_len(a) >= 2)
                    memcpy(family, nla_data(a), sizeof *family);
        }
    }
}

gt_status gt_taskstats_open(gt_taskstats **out, gt_error *err)
{
    *out = NULL;
    gt_taskstats *t = calloc(1, sizeof *t);
    if (!t)
        return gt_err(err, GT_ERR_NOMEM, "out of memory");
    t->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
    const char *step = "open a generic netlink socket";
    struct sockaddr_nl self = {.nl_family = AF_NETLINK};
    if (t->fd < 0 || bind(t->fd, (struct sockaddr *)&self, sizeof self) != 0)
        goto fail;
    int size = RCVBUF;
    /* FORCE passes the system's cap with CAP_NET_ADMIN, which listening
     * needs anyway; the plain option is the fallback. */
    if (setsockopt(t->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) != 0)
        setsockopt(t->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    step = "find the TASKSTATS netlink family";
    if (send_cmd(t->fd, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
                 TASKSTATS_GENL_NAME, sizeof TASKSTATS_GENL_NAME) != 0 ||
        read_reply(t, &t->family) != 0)
        goto fail;
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    snprintf(t->cpumask, sizeof t->cpumask, "0-%ld", ncpu > 0 ? ncpu - 1 : 0);
    step = "register for exit records (needs CAP_NET_ADMIN)";
    if (send_cmd(t->fd, t->family, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK,
                 t->cpumask, strlen(t->cpumask) + 1) != 0 ||
        read_reply(t, NULL) != 0)
        goto fail;
    *out = t;
    return GT_OK;
fail:;
    int e = errno;
    gt_taskstats_close(&t);
    return gt_err(err, GT_ERR_SYS, "taskstats: cannot %s: %s", step, strerror(e));
}

/* One TASKSTATS_TYPE_AGGR_PID attribute: the exiting thread's record.  The
 * kernel's struct may be longer (newer) than ours; its prefix is ours. */
static int parse_aggr(const struct nlattr *aggr, gt_exit_record *r)
{
    int rem = nla_len(aggr);
    const struct nlattr *a = nla_data(aggr);
    for (; nla_ok(a, rem); a = nla_next(a, &rem)) {
        if (a->nla_type != TASKSTATS_TYPE_STATS)
            continue;
        struct taskstats ts;
        size_t len = (size_t)nla_len(a);
        memset(&ts, 0, sizeof ts);
        memcpy(&ts, nla_data(a), len < sizeof ts ? len : sizeof ts);
        if (ts.version < MIN_VERSION || len < offsetof(struct taskstats, ac_tgid) + sizeof ts.ac_tgid)
            return -1;
        r->pid = (pid_t)ts.ac_pid;
        r->tgid = (pid_t)ts.ac_tgid;
        r->ppid = (pid_t)ts.ac_ppid;
        r->hiwater_rss = (uint64_t)ts.hiwater_rss * 1024;
        size_t n = strnlen(ts.ac_comm, sizeof r->comm - 1);
        memcpy(r->comm, ts.ac_comm, n);
        r->comm[n] = '\0';
        r->cpu_seconds = (double)(ts.ac_utime + ts.ac_stime) / 1e6; /* microseconds */
        return 0;
    }
    return -1;
}

int gt_taskstats_parse(const void *buf, size_t n, uint16_t family, gt_exit_fn fn, void *ctx)
{
    int count = 0;
    size_t rem = n;
    for (const struct nlmsghdr *nh = buf; msg_ok(nh, rem); nh = msg_next(nh, &rem)) {
        if (nh->nlmsg_type != family || nh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
            continue;
        const struct genlmsghdr *gh = (const struct genlmsghdr *)msg_data(nh);
        if (gh->cmd != TASKSTATS_CMD_NEW)
            continue;
        int alen = (int)nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
        const struct nlattr *a = (const struct nlattr *)((const char *)gh + GENL_HDRLEN);
        for (; nla_ok(a, alen); a = nla_next(a, &alen)) {
            gt_exit_record r;
            if (a->nla_type == TASKSTATS_TYPE_AGGR_PID && parse_aggr(a, &r) == 0) {
                fn(ctx, &r);
                count++;
            }
        }
    }
    return count;
}

int gt_taskstats_drain_from(gt_recv_fn recv_fn, void *recv_ctx, uint16_t family, void *buf, size_t cap,
                            gt_exit_fn fn, void *ctx)
{
    int count = 0, lost = 0;
    for (;;) {
        ssize_t n = recv_fn(recv_ctx, buf, cap);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == ENOBUFS) { /* records were dropped; later ones still come */
                lost = 1;
                continue;
            }
            break; /* EAGAIN: all read */
        }
        count += gt_taskstats_parse(buf, (size_t)n, family, fn, ctx);
    }
    return lost ? -1 : count;
}

static ssize_t socket_recv(void *ctx, void *buf, size_t cap)
{
    return recv(*(const int *)ctx, buf, cap, MSG_DONTWAIT);
}

int gt_taskstats_drain(gt_taskstats *t, gt_exit_fn fn, void *ctx)
{
    return gt_taskstats_drain_from(socket_recv, &t->fd, t->family, t->buf, sizeof t->buf, fn, ctx);
}

void gt_taskstats_close(gt_taskstats **tp)
{
    if (!tp || !*tp)
        return;
    gt_taskstats *t = *tp;
    if (t->fd >= 0) {
        /* The kernel drops a listener only when a send to it fails. */
        if (t->family && t->cpumask[0])
            send_cmd(t->fd, t->family, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK,
                     t->cpumask, strlen(t->cpumask) + 1);
        close(t->fd);
    }
    free(t);
    *tp = NULL;
}
