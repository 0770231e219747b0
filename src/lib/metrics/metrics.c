/* The metrics endpoint: a listening socket served by one thread, which
 * answers each scrape with the latest published timepoint.  Scrapes are
 * answered one at a time with "Connection: close"; a client that stalls is
 * dropped after a short timeout so it cannot hold up the next scrape. */
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
#include <unistd.h>

#include "gpu_tracker.h"
#include "metrics/exposition.h"
#include "util/error.h"

#define REQUEST_MAX 8192
#define CLIENT_TIMEOUT_MS 2000

struct gt_metrics {
    int listen_fd, wake_fd;
    pthread_t thread;
    int thread_started;
    pthread_mutex_t mu;
    gt_timepoint latest;
    int have_latest;
    char address[128];
    char *body; /* reused between scrapes: no allocation per scrape once grown */
    size_t body_cap;
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
        int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        int one = 1;
        /* SO_REUSEADDR lets a restarted tracker bind while old connections
         * linger in TIME_WAIT; it does not allow two listeners on a port. */
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 16) == 0) {
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

static int send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Reads the request head (up to the blank line) into req; 0 on success. */
static int read_head(int fd, char *req, size_t cap)
{
    size_t len = 0;
    while (len + 1 < cap) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, CLIENT_TIMEOUT_MS) <= 0)
            return -1;
        ssize_t r = recv(fd, req + len, cap - 1 - len, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        len += (size_t)r;
        req[len] = '\0';
        if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
            return 0;
    }
    return -1;
}

static void respond(int fd, const char *status, const char *type, const char *body, size_t n)
{
    char head[256];
    int hn = snprintf(head, sizeof head,
                      "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
                      status, type, n);
    if (send_all(fd, head, (size_t)hn) == 0)
        send_all(fd, body, n);
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

static void serve(gt_metrics *m, int fd)
{
    char req[REQUEST_MAX];
    if (read_head(fd, req, sizeof req) != 0)
        return;
    const char *path = strchr(req, ' ');
    int is_get = !strncmp(req, "GET ", 4), is_head = !strncmp(req, "HEAD ", 5);
    if (!is_get && !is_head) {
        static const char msg[] = "only GET is served\n";
        respond(fd, "405 Method Not Allowed", "text/plain; charset=utf-8", msg, sizeof msg - 1);
        return;
    }
    path = path ? path + 1 : "";
    size_t pl = strcspn(path, " ?");
    if (!((pl == 8 && !strncmp(path, "/metrics", 8)) || (pl == 1 && path[0] == '/'))) {
        static const char msg[] = "not found: the metrics are at /metrics\n";
        respond(fd, "404 Not Found", "text/plain; charset=utf-8", msg, sizeof msg - 1);
        return;
    }
    int om = wants_openmetrics(req);
    gt_timepoint tp;
    pthread_mutex_lock(&m->mu);
    int have = m->have_latest;
    tp = m->latest;
    pthread_mutex_unlock(&m->mu);
    size_t need = gt_exposition_format(have ? &tp : NULL, om, m->body, m->body_cap);
    if (need >= m->body_cap) {
        char *nb = realloc(m->body, need + 1);
        if (!nb) {
            static const char msg[] = "out of memory\n";
            respond(fd, "500 Internal Server Error", "text/plain; charset=utf-8", msg, sizeof msg - 1);
            return;
        }
        m->body = nb;
        m->body_cap = need + 1;
        gt_exposition_format(have ? &tp : NULL, om, m->body, m->body_cap);
    }
    respond(fd, "200 OK", om ? GT_OPENMETRICS_CONTENT_TYPE : GT_PROMETHEUS_CONTENT_TYPE, m->body,
            is_head ? 0 : need);
}

static void *server_thread(void *arg)
{
    gt_metrics *m = arg;
    for (;;) {
        struct pollfd p[2] = {{m->listen_fd, POLLIN, 0}, {m->wake_fd, POLLIN, 0}};
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (p[1].revents)
            break;
        if (!(p[0].revents & POLLIN))
            continue;
        int fd = accept4(m->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            continue; /* a client that gave up, or fds exhausted: keep serving */
        serve(m, fd);
        shutdown(fd, SHUT_WR);
        close(fd);
    }
    return NULL;
}

gt_status gt_metrics_open(const char *address, gt_metrics **out, gt_error *err)
{
    *out = NULL;
    gt_error scratch;
    if (!err)
        err = &scratch;
    if (!address)
        return gt_err(err, GT_ERR_INVALID, "a metrics address is required");
    gt_metrics *m = calloc(1, sizeof *m);
    if (!m)
        return gt_err(err, GT_ERR_NOMEM, "out of memory");
    m->listen_fd = m->wake_fd = -1;
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
    return m->address;
}

void gt_metrics_update(gt_metrics *m, const gt_timepoint *tp)
{
    pthread_mutex_lock(&m->mu);
    m->latest = *tp;
    m->have_latest = 1;
    pthread_mutex_unlock(&m->mu);
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
    free(m->body);
    free(m);
    *mp = NULL;
}
