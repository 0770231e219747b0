/* SPDX-License-Identifier: MIT */
/* Fuzz target: what reaches the metrics endpoint from outside.  First byte
 * even: the rest is an HTTP request sent to a connection of the server's
 * poll loop over a socket pair, which must answer with an HTTP status line
 * (or close, for an incomplete head); odd: the rest is a --metrics address value,
 * which must split into a host and a numeric port or be refused with a
 * message. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The handler is static to its file; the target builds it in. */
#include "../../src/lib/metrics/metrics.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static void request(const uint8_t *data, size_t size)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return;
    /* What fits in the socket buffer, then end of request. */
    fcntl(sv[0], F_SETFL, O_NONBLOCK);
    size_t off = 0;
    while (off < size) {
        ssize_t w = send(sv[0], data + off, size - off, MSG_NOSIGNAL);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    shutdown(sv[0], SHUT_WR);
    gt_metrics *m = calloc(1, sizeof *m);
    if (!m) {
        close(sv[0]);
        close(sv[1]);
        return;
    }
    pthread_mutex_init(&m->mu, NULL);
    client *c = &m->clients[0];
    fcntl(sv[1], F_SETFL, O_NONBLOCK);
    c->fd = sv[1];
    c->state = C_READING;
    /* The whole input is in the socket already: one read pass answers or
     * closes, as the poll loop would. */
    while (c->state == C_READING)
        client_read(m, c);
    if (c->state == C_WRITING)
        client_write(c);
    CHECK(c->state == C_FREE || c->state == C_DRAINING);
    client_close(c);
    fcntl(sv[0], F_SETFL, 0);
    char head[16] = {0};
    ssize_t n = recv(sv[0], head, sizeof head - 1, MSG_WAITALL);
    CHECK(n <= 0 || (n >= 9 && !memcmp(head, "HTTP/1.1 ", 9)));
    char sink[4096];
    while (recv(sv[0], sink, sizeof sink, 0) > 0)
        ;
    close(sv[0]);
    free(c->out);
    pthread_mutex_destroy(&m->mu);
    free(m);
}

static void address(const uint8_t *data, size_t size)
{
    char *a = malloc(size + 1);
    if (!a)
        return;
    memcpy(a, data, size);
    a[size] = '\0';
    char host[128], port[16];
    gt_error err = {{0}};
    if (split_address(a, host, sizeof host, port, sizeof port, &err) == GT_OK) {
        CHECK(host[0] && port[0] && strspn(port, "0123456789") == strlen(port) && atoi(port) <= 65535);
    } else {
        CHECK(err.msg[0]);
    }
    free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (data[0] % 2 == 0)
        request(data + 1, size - 1);
    else
        address(data + 1, size - 1);
    return 0;
}
