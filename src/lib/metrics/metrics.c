/* SPDX-License-Identifier: MIT */
/* The metrics endpoint: a listening socket served by one thread running a
 * poll loop over up to MAX_CLIENTS connections at once.  Every connection is
 * non-blocking and has one deadline for its whole exchange (request head in,
 * response out), so a client that trickles bytes or never reads costs a slot
 * for REQUEST_TIMEOUT_MS at most.  With every slot taken, a new connection
 * evicts the one that has gone furthest without a complete exchange (see
 * evict), so that no number of stalled clients keeps a scrape waiting for
 * their deadlines.  Stopping
 * wakes the loop through an eventfd and drops whatever clients are left:
 * shutdown never waits on a client. */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "gpu_tracker.h"
#include "abi.h"
#include "metrics/exposition.h"
#include "metrics/metrics.h"
#include "util/error.h"
#include "util/grow.h"

/* The largest request head read; a longer one is answered 431. */
#define REQUEST_MAX 8192
/* A whole exchange must finish within this; Prometheus's own default
 * scrape timeout is 10 s, and a scrape on a live link takes milliseconds. */
#define REQUEST_TIMEOUT_MS 2000
/* Connections served at once; a further one evicts a stalled one. */
#define MAX_CLIENTS 64
/* With no descriptor left (EMFILE), accept is retried this often instead of
 * spinning on a listening socket that stays readable. */
#define ACCEPT_BACKOFF_MS 100

enum client_state { C_FREE, C_READING, C_WRITING, C_DRAINING };

typedef struct client {
    int fd;
    enum client_state state;
    long long deadline; /* CLOCK_MONOTONIC milliseconds */
    unsigned long long seq; /* order of acceptance, for eviction */
    size_t in_len;
    char in[REQUEST_MAX];
    char *out; /* response, reused between requests on this slot */
    size_t out_cap, out_len, out_off;
} client;

struct gt_metrics {
    int listen_fd, wake_fd;
    pthread_t thread;
    int thread_started;
    pthread_mutex_t mu;
    gt_timepoint latest;
    int have_latest;
    /* The latest sample's value of each own metric (metric/fold.h), from
     * gt_metrics_update_own; have_own 0: none (gt_metrics_update). */
    double own[GT_METRIC_NOWN_COLUMNS];
    int have_own;
    char address[128];
    int timeout_ms;              /* REQUEST_TIMEOUT_MS; longer in tests */
    unsigned long long accepted; /* connections accepted so far */
    client clients[MAX_CLIENTS];
};

/* Splits "HOST:PORT", ":PORT", "PORT" or "[V6]:PORT" into host (default
 * loopback) and port. */
static gt_status split_address(const char *a, char *host, size_t hcap, char *port, size_t pcap,
                               gt_error *err)
{
    const char *colon = NULL, *h = a;
    size_t hl = 0;
    if (a[0] == '[') {
        const char *close = strchr(a, ']');
        if (!close || close[1] != ':')
            return gt_err(err, GT_ERR_INVALID, "invalid metrics address '%s': expected [IPV6]:PORT", a);
        h = a + 1;
        hl = (size_t)(close - h);
        colon = close + 1;
    } else if ((colon = strrchr(a, ':'))) {
        hl = (size_t)(colon - a);
    }
    const char *p = colon ? colon + 1 : a;
    if (!*p || strspn(p, "0123456789") != strlen(p) || strlen(p) > 5 || atoi(p) > 65535)
        return gt_err(err, GT_ERR_INVALID,
                      "invalid metrics address '%s': expected HOST:PORT, :PORT or PORT with a port from 0 to 65535", a);
    if (hl >= hcap)
        return gt_err(err, GT_ERR_INVALID, "invalid metrics address '%s': host name too long", a);
    if (hl == 0)
        snprintf(host, hcap, "127.0.0.1");
    else
        snprintf(host, hcap, "%.*s", (int)hl, h);
    snprintf(port, pcap, "%s", p);
    return GT_OK;
}

static gt_status listen_on(gt_metrics *m, const char *address, gt_error *err)
{
    char host[256], port[8];
    gt_status st = split_address(address, host, sizeof host, port, sizeof port, err);
    if (st != GT_OK)
        return st;
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0)
        return gt_err(err, GT_ERR_INVALID, "invalid metrics address '%s': %s", address, gai_strerror(rc));
    int e = 0;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        int one = 1;
        /* SO_REUSEADDR lets a restarted tracker bind while old connections
         * linger in TIME_WAIT; it does not allow two listeners on a port. */
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 128) == 0) {
            m->listen_fd = fd;
            break;
        }
        e = errno;
        close(fd);
    }
    freeaddrinfo(res);
    if (m->listen_fd < 0) {
        if (e == EADDRINUSE)
            return gt_err(err, GT_ERR_SYS, "cannot serve metrics on '%s': port %s is already in use", address, port);
        return gt_err(err, GT_ERR_SYS, "cannot serve metrics on '%s': %s", address, strerror(e));
    }
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char hbuf[NI_MAXHOST], pbuf[NI_MAXSERV];
    if (getsockname(m->listen_fd, (struct sockaddr *)&ss, &sl) == 0 &&
        getnameinfo((struct sockaddr *)&ss, sl, hbuf, sizeof hbuf, pbuf, sizeof pbuf,
                    NI_NUMERICHOST | NI_NUMERICSERV) == 0)
        snprintf(m->address, sizeof m->address, ss.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", hbuf, pbuf);
    else
        snprintf(m->address, sizeof m->address, "%s", address);
    return GT_OK;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Whether the Accept header of the request head asks for OpenMetrics. */
static int wants_openmetrics(const char *req)
{
    for (const char *line = strchr(req, '\n'); line; line = strchr(line, '\n')) {
        line++;
        if (!strncasecmp(line, "Accept:", 7)) {
            const char *end = strchr(line, '\n');
            size_t n = end ? (size_t)(end - line) : strlen(line);
            for (size_t i = 7; i + 28 <= n; i++)
                if (!strncasecmp(line + i, "application/openmetrics-text", 28))
                    return 1;
        }
    }
    return 0;
}

/* Makes room for n more bytes of response; -1 when out of memory. */
static int out_reserve(client *c, size_t n)
{
    if (c->out_len + n <= c->out_cap)
        return 0;
    size_t cap = n <= SIZE_MAX - c->out_len ? gt_grow_cap(c->out_cap, c->out_len + n, 4096, 1) : 0;
    char *p = cap ? realloc(c->out, cap) : NULL;
    if (!p)
        return -1;
    c->out = p;
    c->out_cap = cap;
    return 0;
}

/* Puts a whole response in c->out: the head, then the body made by
 * gt_exposition_format (of tp and own, either NULL) or the text msg. */
static void respond(client *c, const char *status, const char *extra_head, const char *type,
                    const gt_timepoint *tp, const double *own, int om, int head_only, const char *msg)
{
    char head[384];
    size_t n = msg ? strlen(msg) : gt_exposition_format(tp, own, om, NULL, 0);
    int hn = snprintf(head, sizeof head,
                      "HTTP/1.1 %s\r\n%sContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
                      status, extra_head, type, n);
    c->out_len = c->out_off = 0;
    if (out_reserve(c, (size_t)hn + n + 1) != 0) {
        static const char oom[] = "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n"
                                  "Connection: close\r\n\r\n";
        if (out_reserve(c, sizeof oom) != 0)
            return; /* nothing to send: the connection is closed */
        memcpy(c->out, oom, sizeof oom - 1);
        c->out_len = sizeof oom - 1;
        return;
    }
    memcpy(c->out, head, (size_t)hn);
    c->out_len = (size_t)hn;
    if (!head_only) {
        if (msg)
            memcpy(c->out + c->out_len, msg, n);
        else
            gt_exposition_format(tp, own, om, c->out + c->out_len, n + 1);
        c->out_len += n;
    }
}

/* Answers a complete request head held in c->in. */
static void answer(gt_metrics *m, client *c, int too_long)
{
    static const char text[] = "text/plain; charset=utf-8";
    const char *req = c->in;
    if (too_long) {
        respond(c, "431 Request Header Fields Too Large", "", text, NULL, NULL, 0, 0,
                "the request head is longer than 8191 bytes\n");
        return;
    }
    int is_get = !strncmp(req, "GET ", 4), is_head = !strncmp(req, "HEAD ", 5);
    if (!is_get && !is_head) {
        respond(c, "405 Method Not Allowed", "Allow: GET, HEAD\r\n", text, NULL, NULL, 0, 0,
                "only GET and HEAD are served\n");
        return;
    }
    const char *path = strchr(req, ' ') + 1;
    size_t pl = strcspn(path, " ?\r\n");
    if (!((pl == 8 && !strncmp(path, "/metrics", 8)) || (pl == 1 && path[0] == '/'))) {
        respond(c, "404 Not Found", "", text, NULL, NULL, 0, is_head, "not found: the metrics are at /metrics\n");
        return;
    }
    int om = wants_openmetrics(req);
    gt_timepoint tp;
    double own[GT_METRIC_NOWN_COLUMNS];
    pthread_mutex_lock(&m->mu);
    int have = m->have_latest, have_own = m->have_own;
    tp = m->latest;
    memcpy(own, m->own, sizeof own);
    pthread_mutex_unlock(&m->mu);
    respond(c, "200 OK", "", om ? GT_OPENMETRICS_CONTENT_TYPE : GT_PROMETHEUS_CONTENT_TYPE, have ? &tp : NULL,
            have && have_own ? own : NULL, om, is_head, NULL);
}

static void client_close(client *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->state = C_FREE;
}

/* Reads what the client has sent; answers once the head is complete. */
static void client_read(gt_metrics *m, client *c)
{
    for (;;) {
        char sink[4096];
        char *dst = c->state == C_DRAINING ? sink : c->in + c->in_len;
        size_t room = c->state == C_DRAINING ? sizeof sink : REQUEST_MAX - 1 - c->in_len;
        ssize_t r = recv(c->fd, dst, room, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (r <= 0) { /* the client closed (or reset) its side */
            client_close(c);
            return;
        }
        if (c->state == C_DRAINING)
            continue;
        size_t from = c->in_len > 3 ? c->in_len - 3 : 0; /* a blank line split across reads */
        c->in_len += (size_t)r;
        c->in[c->in_len] = '\0';
        int done = memmem(c->in + from, c->in_len - from, "\r\n\r\n", 4) ||
                   memmem(c->in + from, c->in_len - from, "\n\n", 2);
        if (done || c->in_len == REQUEST_MAX - 1) {
            answer(m, c, !done);
            if (c->out_len == 0) {
                client_close(c);
                return;
            }
            c->state = C_WRITING;
            return;
        }
    }
}

/* Sends what it can of the response.  Once all is sent the write side is
 * shut and the rest of the request is read and dropped until the client
 * closes: closing with unread input would reset the connection and could
 * destroy the response before the client reads it (a 431 in particular). */
static void client_write(client *c)
{
    while (c->out_off < c->out_len) {
        ssize_t w = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (w <= 0) {
            client_close(c);
            return;
        }
        c->out_off += (size_t)w;
    }
    shutdown(c->fd, SHUT_WR);
    c->state = C_DRAINING;
}

/* The slot to give a new connection when all are taken, or NULL.  A
 * client draining (its response wholly handed to the kernel) loses nothing;
 * then the oldest still reading its request, then the oldest not reading its
 * response.  Only clients accepted before this round (seq < before) qualify:
 * each had a poll round to send its request, and a burst of connections
 * cannot evict its own members.  A scrape is evicted only when 64 newer
 * connections come before its request, so with stalled clients in every
 * slot a scrape still gets its answer, at worst on its next try. */
static client *evict(gt_metrics *m, unsigned long long before)
{
    static const enum client_state order[] = {C_DRAINING, C_READING, C_WRITING};
    for (size_t k = 0; k < sizeof order / sizeof *order; k++) {
        client *victim = NULL;
        for (int i = 0; i < MAX_CLIENTS; i++) {
            client *c = &m->clients[i];
            if (c->state == order[k] && c->seq < before && (!victim || c->seq < victim->seq))
                victim = c;
        }
        if (victim)
            return victim;
    }
    return NULL;
}

/* Takes every pending connection, into a free slot or an evicted one.
 * Returns the time until which accepting pauses: 0 normally, later when
 * descriptors ran out. */
static long long accept_all(gt_metrics *m, long long now)
{
    unsigned long long before = m->accepted;
    for (;;) {
        client *c = NULL;
        for (int i = 0; i < MAX_CLIENTS && !c; i++)
            if (m->clients[i].state == C_FREE)
                c = &m->clients[i];
        if (!c && !(c = evict(m, before)))
            return 0; /* every slot was filled in this round: the rest wait */
        int fd = accept4(m->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                return now + ACCEPT_BACKOFF_MS;
            return 0; /* EAGAIN (none left), or a client that gave up */
        }
        if (c->state == C_DRAINING)
            client_read(m, c); /* unread input would reset the connection */
        client_close(c);
        c->fd = fd;
        c->state = C_READING;
        c->deadline = now + m->timeout_ms;
        c->seq = m->accepted++;
        c->in_len = 0;
        c->in[0] = '\0';
    }
}

static void *server_thread(void *arg)
{
    gt_metrics *m = arg;
    struct pollfd p[2 + MAX_CLIENTS];
    int slot[2 + MAX_CLIENTS];
    long long accept_paused_until = 0;
    for (;;) {
        long long now = now_ms();
        int n = 0;
        long long next = -1; /* the earliest time the loop must wake up */
        p[n++] = (struct pollfd){m->wake_fd, POLLIN, 0};
        for (int i = 0; i < MAX_CLIENTS; i++) {
            client *c = &m->clients[i];
            if (c->state == C_FREE)
                continue;
            if (now >= c->deadline) {
                client_close(c);
                continue;
            }
            if (next < 0 || c->deadline < next)
                next = c->deadline;
            slot[n] = i;
            p[n++] = (struct pollfd){c->fd, c->state == C_WRITING ? POLLOUT : POLLIN, 0};
        }
        int listen_at = -1;
        /* Listened to with every slot taken too: a new connection evicts. */
        if (now >= accept_paused_until) {
            listen_at = n;
            p[n++] = (struct pollfd){m->listen_fd, POLLIN, 0};
        } else if (next < 0 || accept_paused_until < next) {
            next = accept_paused_until;
        }
        int timeout = next < 0 ? -1 : (int)(next > now ? next - now : 0);
        int r = poll(p, (nfds_t)n, timeout);
        if (r < 0 && errno != EINTR)
            break;
        if (r <= 0)
            continue;
        if (p[0].revents)
            break;
        now = now_ms();
        for (int k = 1; k < n; k++) {
            if (!p[k].revents || k == listen_at)
                continue;
            client *c = &m->clients[slot[k]];
            if (c->state == C_WRITING)
                client_write(c);
            else
                client_read(m, c);
            if (c->state == C_WRITING) /* answered just now: try to send at once */
                client_write(c);
        }
        if (listen_at >= 0 && p[listen_at].revents)
            accept_paused_until = accept_all(m, now);
    }
    for (int i = 0; i < MAX_CLIENTS; i++)
        client_close(&m->clients[i]);
    return NULL;
}

gt_status gt_metrics_open(const char *address, gt_metrics **out, gt_error *err)
{
    return gt_metrics_open_timeout(address, REQUEST_TIMEOUT_MS, out, err);
}

gt_status gt_metrics_open_timeout(const char *address, int timeout_ms, gt_metrics **out, gt_error *err)
{
    gt_error scratch;
    if (!err)
        err = &scratch;
    if (!out)
        return gt_err(err, GT_ERR_INVALID, "metrics: no place for the handle");
    *out = NULL;
    if (!address)
        return gt_err(err, GT_ERR_INVALID, "a metrics address is required");
    if (timeout_ms <= 0)
        return gt_err(err, GT_ERR_INVALID, "metrics: the request timeout must be positive");
    gt_metrics *m = calloc(1, sizeof *m);
    if (!m)
        return gt_err(err, GT_ERR_NOMEM, "out of memory");
    m->timeout_ms = timeout_ms;
    m->listen_fd = m->wake_fd = -1;
    for (int i = 0; i < MAX_CLIENTS; i++)
        m->clients[i].fd = -1;
    pthread_mutex_init(&m->mu, NULL);
    gt_status st = listen_on(m, address, err);
    if (st == GT_OK && (m->wake_fd = eventfd(0, EFD_CLOEXEC)) < 0)
        st = gt_err(err, GT_ERR_SYS, "cannot serve metrics: eventfd: %s", strerror(errno));
    if (st == GT_OK) {
        int rc = pthread_create(&m->thread, NULL, server_thread, m);
        if (rc != 0)
            st = gt_err(err, GT_ERR_SYS, "cannot start the metrics thread: %s", strerror(rc));
        else
            m->thread_started = 1;
    }
    if (st != GT_OK) {
        gt_metrics_free(&m);
        return st;
    }
    *out = m;
    return GT_OK;
}

const char *gt_metrics_address(const gt_metrics *m)
{
    return m ? m->address : "";
}

gt_status gt_metrics_update(gt_metrics *m, const gt_timepoint *tp)
{
    return gt_metrics_update_own(m, tp, NULL);
}

gt_status gt_metrics_update_own(gt_metrics *m, const gt_timepoint *tp, const double *own)
{
    /* The program's timepoint, of its version: fields it lacks are zero,
     * which their valid flags read as "not measured". */
    if (!m || !tp || gt_abi_check(GT_ABI_TIMEPOINT, tp->version, NULL) != GT_OK)
        return GT_ERR_INVALID;
    gt_timepoint full;
    memset(&full, 0, sizeof full);
    gt_abi_read(GT_ABI_TIMEPOINT, tp, &full);
    pthread_mutex_lock(&m->mu);
    m->latest = full;
    m->have_latest = 1;
    m->have_own = own != NULL;
    if (own)
        memcpy(m->own, own, sizeof m->own);
    pthread_mutex_unlock(&m->mu);
    return GT_OK;
}

void gt_metrics_free(gt_metrics **mp)
{
    if (!mp || !*mp)
        return;
    gt_metrics *m = *mp;
    if (m->thread_started) {
        uint64_t one = 1;
        /* Adding 1 to a fresh eventfd cannot block or overflow. */
        while (write(m->wake_fd, &one, sizeof one) < 0 && errno == EINTR)
            ;
        pthread_join(m->thread, NULL);
    }
    if (m->listen_fd >= 0)
        close(m->listen_fd);
    if (m->wake_fd >= 0)
        close(m->wake_fd);
    pthread_mutex_destroy(&m->mu);
    for (int i = 0; i < MAX_CLIENTS; i++)
        free(m->clients[i].out);
    free(m);
    *mp = NULL;
}
