/* SPDX-License-Identifier: MIT */
/* The metrics endpoint: the exposition text of a known timepoint, address
 * parsing, a port already in use, a scrape over a real socket, and the
 * server under hostile clients: stalled connections, oversized heads, other
 * methods, and no descriptors left to accept with. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "gpu_tracker.h"
#include "metrics/exposition.h"
#include "metrics/metrics.h"

static gt_timepoint sample_tp(void)
{
    gt_timepoint tp = GT_TIMEPOINT_INIT;
    tp.timestamp = 1700000000.25;
    tp.elapsed = 2.5;
    tp.n_samples = 7;
    tp.main_ram = 1048576;
    tp.descendants_ram = 4096;
    tp.combined_ram = 1052672;
    tp.system_ram = 123456789;
    tp.system_ram_capacity = 8000000000;
    tp.cpu_valid = 1;
    tp.cpu_main_sum = 12.5;
    tp.cpu_descendants_sum = 0;
    tp.cpu_combined_sum = 12.5;
    tp.cpu_system_sum = 150;
    tp.cpu_main_seconds = 0.3125;
    tp.cpu_combined_seconds = 0.3125;
    tp.system_core_count = 4;
    tp.n_expected_cores = 2;
    tp.main_n_threads = 3;
    tp.combined_n_threads = 3;
    tp.gpu_sum_percent = NAN;
    return tp;
}

static char *format(const gt_timepoint *tp, int om)
{
    size_t n = gt_exposition_format(tp, NULL, om, NULL, 0);
    char *buf = malloc(n + 1);
    assert_non_null(buf);
    assert_int_equal(gt_exposition_format(tp, NULL, om, buf, n + 1), n);
    assert_int_equal(strlen(buf), n);
    return buf;
}

static void test_prometheus_text(void **state)
{
    (void)state;
    gt_timepoint tp = sample_tp();
    char *t = format(&tp, 0);
    assert_non_null(strstr(t, "# TYPE gpu_tracker_ram_bytes gauge\n"));
    assert_non_null(strstr(t, "\ngpu_tracker_ram_bytes{set=\"main\"} 1048576\n"));
    assert_non_null(strstr(t, "\ngpu_tracker_ram_bytes{set=\"descendants\"} 4096\n"));
    assert_non_null(strstr(t, "\ngpu_tracker_ram_bytes{set=\"combined\"} 1052672\n"));
    assert_non_null(strstr(t, "\ngpu_tracker_ram_bytes{set=\"system\"} 123456789\n"));
    assert_non_null(strstr(t, "\ngpu_tracker_cpu_utilization_percent{set=\"main\"} 12.5\n"));
    assert_non_null(strstr(t, "# TYPE gpu_tracker_cpu_seconds_total counter\n"));
    assert_non_null(strstr(t, "\ngpu_tracker_cpu_seconds_total{set=\"main\"} 0.3125\n"));
    assert_non_null(strstr(t, "\ngpu_tracker_samples_total 7\n"));
    assert_non_null(strstr(t, "\ngpu_tracker_last_sample_timestamp_seconds 1700000000.25\n"));
    assert_null(strstr(t, "# UNIT"));
    assert_null(strstr(t, "# EOF"));
    assert_null(strstr(t, "gpu_tracker_gpu")); /* no GPU: no GPU series, not zeros */
    free(t);

    tp.cpu_valid = 0; /* the first sample: no CPU percent yet */
    t = format(&tp, 0);
    assert_null(strstr(t, "gpu_tracker_cpu_utilization_percent"));
    assert_non_null(strstr(t, "gpu_tracker_cpu_seconds_total"));
    free(t);

    tp.gpu_valid = 1;
    tp.n_expected_gpus = 1;
    tp.gpu_sum_percent = 40;
    tp.main_gpu_ram = 2000000;
    t = format(&tp, 0);
    assert_non_null(strstr(t, "\ngpu_tracker_gpu_ram_bytes{set=\"main\"} 2000000\n"));
    assert_non_null(strstr(t, "\ngpu_tracker_gpu_utilization_percent 40\n"));
    assert_null(strstr(t, "gpu_tracker_gpu_power_watts")); /* no power read */
    assert_null(strstr(t, "gpu_tracker_gpu_process_utilization_percent"));
    free(t);

    /* Per-GPU figures carry the UUID, escaped as a label value. */
    tp.n_gpus = 2;
    snprintf(tp.gpus[0].uuid, sizeof tp.gpus[0].uuid, "GPU-a\"b\\c");
    tp.gpus[0].power_valid = 1;
    tp.gpus[0].power_watts = 75.5;
    tp.gpus[0].energy_valid = 1;
    tp.gpus[0].energy_joules = 1234.5;
    snprintf(tp.gpus[1].uuid, sizeof tp.gpus[1].uuid, "GPU-2");
    tp.gpus[1].power_valid = 0; /* not read this sample: left out */
    tp.gpus[1].energy_valid = 1;
    tp.gpus[1].energy_joules = 10;
    tp.gpu_sm_valid = 1;
    tp.gpu_sm_main = 20;
    tp.gpu_sm_descendants = 5;
    tp.gpu_sm_combined = 25;
    t = format(&tp, 0);
    assert_non_null(strstr(t, "\ngpu_tracker_gpu_power_watts{uuid=\"GPU-a\\\"b\\\\c\"} 75.5\n"));
    assert_null(strstr(t, "gpu_tracker_gpu_power_watts{uuid=\"GPU-2\"}"));
    assert_non_null(strstr(t, "# TYPE gpu_tracker_gpu_energy_joules_total counter\n"));
    assert_non_null(strstr(t, "\ngpu_tracker_gpu_energy_joules_total{uuid=\"GPU-2\"} 10\n"));
    assert_non_null(strstr(t, "\ngpu_tracker_gpu_process_utilization_percent{set=\"combined\"} 25\n"));
    free(t);
}

static void test_openmetrics_text(void **state)
{
    (void)state;
    gt_timepoint tp = sample_tp();
    char *t = format(&tp, 1);
    assert_non_null(strstr(t, "# TYPE gpu_tracker_cpu_seconds counter\n# UNIT gpu_tracker_cpu_seconds seconds\n"));
    assert_non_null(strstr(t, "\ngpu_tracker_cpu_seconds_total{set=\"combined\"} 0.3125\n"));
    assert_non_null(strstr(t, "# TYPE gpu_tracker_samples counter\n"));
    assert_non_null(strstr(t, "# UNIT gpu_tracker_ram_bytes bytes\n"));
    size_t n = strlen(t);
    assert_true(n > 6 && !strcmp(t + n - 6, "# EOF\n"));
    free(t);
}

static void test_before_first_sample_and_short_buffer(void **state)
{
    (void)state;
    char *t = format(NULL, 0);
    assert_string_equal(t, "# HELP gpu_tracker_samples_total Samples taken since tracking started.\n"
                           "# TYPE gpu_tracker_samples_total counter\ngpu_tracker_samples_total 0\n");
    free(t);
    gt_timepoint tp = sample_tp();
    char small[16];
    size_t need = gt_exposition_format(&tp, NULL, 0, small, sizeof small);
    assert_true(need > sizeof small);
    assert_int_equal(strlen(small), sizeof small - 1);
}

static void expect_open(const char *addr, gt_status want, const char *needle)
{
    gt_metrics *m = (gt_metrics *)&m;
    gt_error e = {{0}};
    assert_int_equal(gt_metrics_open(addr, &m, &e), want);
    assert_null(m);
    assert_non_null(strstr(e.msg, needle));
}

static void test_addresses(void **state)
{
    (void)state;
    expect_open("abc", GT_ERR_INVALID, "HOST:PORT");
    expect_open("127.0.0.1:99999", GT_ERR_INVALID, "0 to 65535");
    expect_open("127.0.0.1:", GT_ERR_INVALID, "HOST:PORT");
    expect_open("[::1", GT_ERR_INVALID, "[IPV6]:PORT");
    expect_open(NULL, GT_ERR_INVALID, "required");

    gt_metrics *m = NULL;
    assert_int_equal(gt_metrics_open(":0", &m, NULL), GT_OK);
    /* Loopback unless told otherwise. */
    assert_memory_equal(gt_metrics_address(m), "127.0.0.1:", 10);
    char again[64];
    snprintf(again, sizeof again, "%s", gt_metrics_address(m));
    expect_open(again, GT_ERR_SYS, "already in use");
    gt_metrics_free(&m);
    assert_null(m);
    gt_metrics_free(&m);
}

/* A socket connected to the endpoint at address. */
static int dial(const char *address)
{
    const char *colon = strrchr(address, ':');
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)atoi(colon + 1));
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    return fd;
}

/* Sends req on fd and returns the whole response (caller frees).  A
 * response that takes 20 s means the server is held up by someone else: the
 * read gives up and the response is empty. */
static char *exchange(int fd, const char *req, size_t n)
{
    struct timeval tv = {20, 0};
    assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv), 0);
    assert_int_equal(write(fd, req, n), (ssize_t)n);
    size_t cap = 1 << 16, len = 0;
    char *buf = calloc(1, cap);
    assert_non_null(buf);
    ssize_t r;
    while ((r = read(fd, buf + len, cap - 1 - len)) > 0)
        len += (size_t)r;
    close(fd);
    return buf;
}

/* GET over a real socket; returns the whole response (caller frees). */
static char *http_get(const char *address, const char *extra_header)
{
    char req[256];
    int n = snprintf(req, sizeof req, "GET /metrics HTTP/1.1\r\nHost: x\r\n%s\r\n", extra_header);
    return exchange(dial(address), req, (size_t)n);
}

static void test_scrape(void **state)
{
    (void)state;
    gt_metrics *m = NULL;
    assert_int_equal(gt_metrics_open("127.0.0.1:0", &m, NULL), GT_OK);
    char *r = http_get(gt_metrics_address(m), "");
    assert_non_null(strstr(r, "HTTP/1.1 200 OK\r\n"));
    assert_non_null(strstr(r, "gpu_tracker_samples_total 0\n"));
    free(r);
    gt_timepoint tp = sample_tp();
    gt_metrics_update(m, &tp);
    r = http_get(gt_metrics_address(m), "Accept: application/openmetrics-text; version=1.0.0\r\n");
    assert_non_null(strstr(r, "Content-Type: application/openmetrics-text; version=1.0.0"));
    assert_non_null(strstr(r, "\r\n\r\n# HELP gpu_tracker_ram_bytes "));
    assert_non_null(strstr(r, "gpu_tracker_ram_bytes{set=\"main\"} 1048576\n"));
    assert_non_null(strstr(r, "# EOF\n"));
    free(r);
    gt_metrics_free(&m);
}

/* Clients that connect and then send one byte, or nothing, must not delay
 * anyone else's scrape, nor the server's shutdown.  Served one at a time,
 * 32 such clients held each scrape for a timeout each. */
static void test_stalled_clients(void **state)
{
    (void)state;
    gt_metrics *m = NULL;
    assert_int_equal(gt_metrics_open("127.0.0.1:0", &m, NULL), GT_OK);
    int stalled[32];
    for (int i = 0; i < 32; i++) {
        stalled[i] = dial(gt_metrics_address(m));
        if (i % 2)
            assert_int_equal(write(stalled[i], "G", 1), 1);
    }
    char *r = http_get(gt_metrics_address(m), "");
    assert_non_null(strstr(r, "HTTP/1.1 200 OK\r\n"));
    free(r);
    gt_metrics_free(&m); /* returns although 32 requests are unfinished */
    for (int i = 0; i < 32; i++)
        close(stalled[i]);
}

static double monotonic(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Whether fd has its peer's end of stream (or a reset) within ms. */
static int closed_within(int fd, int ms)
{
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, ms) <= 0)
        return 0;
    char c;
    ssize_t r = recv(fd, &c, 1, MSG_DONTWAIT);
    return r == 0 || (r < 0 && errno == ECONNRESET);
}

/* A client that never completes its request is dropped at the deadline of
 * its exchange (2 s), not before and not much after: the wait ends on the
 * server's close, and 60 s only bounds a server that never closes. */
static void test_stalled_client_expires(void **state)
{
    (void)state;
    gt_metrics *m = NULL;
    assert_int_equal(gt_metrics_open("127.0.0.1:0", &m, NULL), GT_OK);
    double t0 = monotonic();
    int fd = dial(gt_metrics_address(m));
    assert_int_equal(write(fd, "GET /metr", 9), 9);
    int closed = closed_within(fd, 60000);
    double waited = monotonic() - t0;
    printf("stalled client closed after %.3f s\n", waited);
    assert_true(closed);
    assert_true(waited >= 1.99);
    close(fd);
    gt_metrics_free(&m);
}

/* The path "/" serves the metrics as "/metrics" does. */
static void test_root_path(void **state)
{
    (void)state;
    gt_metrics *m = NULL;
    assert_int_equal(gt_metrics_open("127.0.0.1:0", &m, NULL), GT_OK);
    gt_timepoint tp = sample_tp();
    assert_int_equal(gt_metrics_update(m, &tp), GT_OK);
    static const char get[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    char *r = exchange(dial(gt_metrics_address(m)), get, sizeof get - 1);
    assert_non_null(strstr(r, "HTTP/1.1 200 OK\r\n"));
    assert_non_null(strstr(r, "gpu_tracker_ram_bytes{set=\"main\"} 1048576\n"));
    free(r);
    static const char other[] = "GET /other HTTP/1.1\r\n\r\n";
    r = exchange(dial(gt_metrics_address(m)), other, sizeof other - 1);
    assert_non_null(strstr(r, "HTTP/1.1 404 Not Found\r\n"));
    free(r);
    gt_metrics_free(&m);
}

#define N_STALLED 200

/* One scrape on a fresh connection: 1 when answered 200, 0 when the server
 * closed the connection first (evicted for a newer one).  An exchange that
 * is neither within 20 s is a server held up: the test fails. */
static int scrape_once(const struct sockaddr_in *sa)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    assert_true(fd >= 0);
    int rc = connect(fd, (const struct sockaddr *)sa, sizeof *sa);
    assert_true(rc == 0 || errno == EINPROGRESS);
    struct pollfd p = {fd, POLLOUT, 0};
    assert_int_equal(poll(&p, 1, 60000), 1); /* connected (a SYN resent after 1 s at worst) */
    int soerr = 0;
    socklen_t sl = sizeof soerr;
    assert_int_equal(getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl), 0);
    assert_int_equal(soerr, 0);
    assert_int_equal(fcntl(fd, F_SETFL, 0), 0);
    struct timeval tv = {20, 0};
    assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv), 0);
    static const char get[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
    assert_int_equal(write(fd, get, sizeof get - 1), (ssize_t)(sizeof get - 1));
    char head[32] = "";
    size_t len = 0;
    ssize_t r;
    while (len < sizeof head - 1 && (r = read(fd, head + len, sizeof head - 1 - len)) > 0)
        len += (size_t)r;
    if (len < sizeof head - 1 && r < 0 && errno != ECONNRESET)
        fail_msg("a scrape was neither answered nor closed in 20 s: %s", strerror(errno));
    close(fd);
    return strstr(head, "HTTP/1.1 200 OK\r\n") != NULL;
}

/* More stalled clients than slots (200 for 64), on a server whose exchanges
 * never expire during the test: a scrape is answered only if stalled
 * clients are evicted for it, never by their deadlines.  Before eviction it
 * waited for a deadline per 64 stalled clients (here: ten minutes).  A
 * scrape may itself be evicted while stalled clients still arrive (their
 * connections retried by the kernel on a loaded machine): then, as a
 * scraper does, the next one is sent. */
static void test_stalled_clients_beyond_slots(void **state)
{
    (void)state;
    gt_metrics *m = NULL;
    assert_int_equal(gt_metrics_open_timeout("127.0.0.1:0", 600000, &m, NULL), GT_OK);
    const char *colon = strrchr(gt_metrics_address(m), ':');
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)atoi(colon + 1));
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int stalled[N_STALLED];
    for (int i = 0; i < N_STALLED; i++) {
        /* Non-blocking: a full listen queue must not hold the test up. */
        stalled[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        assert_true(stalled[i] >= 0);
        int rc = connect(stalled[i], (struct sockaddr *)&sa, sizeof sa);
        assert_true(rc == 0 || errno == EINPROGRESS);
        if (rc == 0 && i % 2)
            assert_int_equal(write(stalled[i], "G", 1), 1);
    }
    int attempts = 1;
    while (!scrape_once(&sa)) {
        attempts++;
        assert_true(attempts <= N_STALLED); /* each eviction took a newer connection */
    }
    printf("answered at scrape %d\n", attempts);
    /* The stalled clients accepted first were the ones evicted. */
    assert_true(closed_within(stalled[0], 0));
    gt_metrics_free(&m);
    for (int i = 0; i < N_STALLED; i++)
        close(stalled[i]);
}

static void test_hostile_requests(void **state)
{
    (void)state;
    gt_metrics *m = NULL;
    assert_int_equal(gt_metrics_open("127.0.0.1:0", &m, NULL), GT_OK);
    static const char post[] = "POST /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
    char *r = exchange(dial(gt_metrics_address(m)), post, sizeof post - 1);
    assert_non_null(strstr(r, "HTTP/1.1 405 Method Not Allowed\r\n"));
    assert_non_null(strstr(r, "\r\nAllow: GET, HEAD\r\n"));
    free(r);
    /* A 9 KB header: answered 431, not dropped. */
    size_t n = 9 * 1024;
    char *big = malloc(n + 1);
    assert_non_null(big);
    int h = snprintf(big, n, "GET /metrics HTTP/1.1\r\nX-Big: ");
    memset(big + h, 'a', n - (size_t)h - 4);
    memcpy(big + n - 4, "\r\n\r\n", 4);
    r = exchange(dial(gt_metrics_address(m)), big, n);
    assert_non_null(strstr(r, "HTTP/1.1 431 "));
    free(r);
    free(big);
    static const char head[] = "HEAD /metrics HTTP/1.1\r\n\r\n";
    r = exchange(dial(gt_metrics_address(m)), head, sizeof head - 1);
    assert_non_null(strstr(r, "HTTP/1.1 200 OK\r\n"));
    assert_null(strstr(r, "# TYPE"));
    free(r);
    gt_metrics_free(&m);
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
           ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
}

/* With every descriptor taken, a pending connection cannot be accepted: the
 * server must wait for descriptors, not spin on a listening socket that
 * stays readable, and must serve the connection once one is free.  The
 * bound is on CPU time used while idle, which load can only lower. */
static void test_out_of_descriptors(void **state)
{
    (void)state;
    struct rlimit old, low;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
    gt_metrics *m = NULL;
    assert_int_equal(gt_metrics_open("127.0.0.1:0", &m, NULL), GT_OK);
    const char *colon = strrchr(gt_metrics_address(m), ':');
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)atoi(colon + 1));
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    low = old;
    low.rlim_cur = 64;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    int fill[64], nfill = 0;
    while (nfill < 64 && (fill[nfill] = dup(0)) >= 0)
        nfill++;
    assert_true(nfill < 64); /* the limit was reached */
    assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    double before = cpu_seconds();
    struct timespec second = {1, 0};
    nanosleep(&second, NULL);
    double used = cpu_seconds() - before;
    for (int i = 0; i < nfill; i++)
        close(fill[i]);
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
    printf("CPU while out of descriptors: %.3f s in 1 s\n", used);
    assert_true(used < 0.2);
    static const char get[] = "GET /metrics HTTP/1.1\r\n\r\n";
    char *r = exchange(fd, get, sizeof get - 1);
    assert_non_null(strstr(r, "HTTP/1.1 200 OK\r\n"));
    free(r);
    gt_metrics_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prometheus_text),
        cmocka_unit_test(test_openmetrics_text),
        cmocka_unit_test(test_before_first_sample_and_short_buffer),
        cmocka_unit_test(test_addresses),
        cmocka_unit_test(test_scrape),
        cmocka_unit_test(test_stalled_clients),
        cmocka_unit_test(test_stalled_client_expires),
        cmocka_unit_test(test_root_path),
        cmocka_unit_test(test_stalled_clients_beyond_slots),
        cmocka_unit_test(test_hostile_requests),
        cmocka_unit_test(test_out_of_descriptors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
