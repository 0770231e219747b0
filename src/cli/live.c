/* SPDX-License-Identifier: MIT */
/* Live status line; see live.h.  The terminal is driven the way apt draws
 * its progress bar: a scrolling region that excludes the last row, and each
 * redraw saves the cursor, writes the last row and restores the cursor in a
 * single write(), so it cannot land in the middle of the command's output. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "live.h"

#define REDRAW_SECONDS 1

struct gt_cli_live {
    int fd, rows;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop, started;
    int have;
    gt_timepoint latest;
    uint64_t peak_ram;
    int peak_unseen; /* some sample's memory could not be read */
    struct timespec start;
};

static void write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* a status line is best effort */
        p += w;
        n -= (size_t)w;
    }
}

static int term_size(int fd, int *rows, int *cols)
{
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0 || ws.ws_row < 2 || ws.ws_col < 10)
        return -1;
    *rows = ws.ws_row;
    *cols = ws.ws_col;
    return 0;
}

/* Decimal units, as everywhere else in gpu-tracker. */
static void human_bytes(double b, char *buf, size_t cap)
{
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB"};
    int u = 0;
    while (b >= 1000.0 && u < 4) {
        b /= 1000.0;
        u++;
    }
    snprintf(buf, cap, u ? "%.2f %s" : "%.0f %s", b, units[u]);
}

void gt_cli_live_format(const gt_timepoint *tp, double elapsed, uint64_t peak_ram, int peak_valid, char *buf,
                        size_t cap, int width)
{
    long s = (long)elapsed;
    char ram[32] = "-", peak[32] = "-", gram[32] = "n/a", cpu[32] = "-", gpu[32] = "n/a";
    if (tp) {
        /* Memory that could not be read is unavailable, never 0. */
        if (tp->combined_ram_unavailable)
            snprintf(ram, sizeof ram, "unavailable");
        else
            human_bytes((double)tp->combined_ram, ram, sizeof ram);
        if (peak_valid)
            human_bytes((double)peak_ram, peak, sizeof peak);
        else
            snprintf(peak, sizeof peak, "unavailable");
        if (tp->cpu_valid)
            snprintf(cpu, sizeof cpu, "%.0f%%", tp->cpu_combined_sum);
        if (tp->gpu_valid) {
            human_bytes((double)tp->combined_gpu_ram, gram, sizeof gram);
            if (!isnan(tp->gpu_sum_percent))
                snprintf(gpu, sizeof gpu, "%.0f%%", tp->gpu_sum_percent);
        }
    }
    snprintf(buf, cap, "gpu-tracker %ld:%02ld:%02ld | RAM %s (peak %s) | GPU RAM %s | CPU %s | GPU %s", s / 3600,
             s / 60 % 60, s % 60, ram, peak, gram, cpu, gpu);
    if (width > 0 && (size_t)width < cap)
        buf[width] = '\0';
}

static void draw(gt_cli_live *l)
{
    int rows, cols;
    if (term_size(l->fd, &rows, &cols) != 0)
        return;
    pthread_mutex_lock(&l->mu);
    gt_timepoint tp = l->latest;
    int have = l->have;
    uint64_t peak = l->peak_ram;
    int peak_valid = !l->peak_unseen;
    pthread_mutex_unlock(&l->mu);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double el = (double)(now.tv_sec - l->start.tv_sec) + (double)(now.tv_nsec - l->start.tv_nsec) / 1e9;
    char text[512], out[640];
    /* One column short of the width, so the terminal never wraps the row. */
    gt_cli_live_format(have ? &tp : NULL, el, peak, peak_valid, text, sizeof text, cols - 1);
    int n;
    if (rows != l->rows) /* resized: move the scrolling region's end too */
        n = snprintf(out, sizeof out, "\0337\033[1;%dr\0338\0337\033[%d;1H\033[7m%s\033[0m\033[K\0338", rows - 1,
                     rows, text);
    else
        n = snprintf(out, sizeof out, "\0337\033[%d;1H\033[7m%s\033[0m\033[K\0338", rows, text);
    l->rows = rows;
    if (n > 0)
        write_all(l->fd, out, (size_t)n < sizeof out ? (size_t)n : sizeof out - 1);
}

static void *live_thread(void *arg)
{
    gt_cli_live *l = arg;
    pthread_mutex_lock(&l->mu);
    while (!l->stop) {
        pthread_mutex_unlock(&l->mu);
        draw(l);
        pthread_mutex_lock(&l->mu);
        struct timespec next;
        clock_gettime(CLOCK_MONOTONIC, &next);
        next.tv_sec += REDRAW_SECONDS;
        while (!l->stop && pthread_cond_timedwait(&l->cv, &l->mu, &next) != ETIMEDOUT)
            ;
    }
    pthread_mutex_unlock(&l->mu);
    return NULL;
}

gt_cli_live *gt_cli_live_start(int fd)
{
    int rows, cols;
    if (!isatty(fd) || term_size(fd, &rows, &cols) != 0)
        return NULL;
    gt_cli_live *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->fd = fd;
    l->rows = rows;
    clock_gettime(CLOCK_MONOTONIC, &l->start);
    pthread_mutex_init(&l->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&l->cv, &ca);
    pthread_condattr_destroy(&ca);
    /* A fresh line for the command, then the region that excludes the last
     * row; setting a region homes the cursor, hence save and restore. */
    char setup[64];
    int n = snprintf(setup, sizeof setup, "\n\0337\033[1;%dr\0338\033[1A", rows - 1);
    write_all(fd, setup, (size_t)n);
    if (pthread_create(&l->thread, NULL, live_thread, l) != 0) {
        gt_cli_live_stop(&l);
        return NULL;
    }
    l->started = 1;
    return l;
}

void gt_cli_live_update(gt_cli_live *l, const gt_timepoint *tp)
{
    pthread_mutex_lock(&l->mu);
    l->latest = *tp;
    l->have = 1;
    if (tp->combined_ram_unavailable)
        l->peak_unseen = 1;
    else if (tp->combined_ram > l->peak_ram)
        l->peak_ram = tp->combined_ram;
    pthread_mutex_unlock(&l->mu);
}

void gt_cli_live_stop(gt_cli_live **lp)
{
    if (!lp || !*lp)
        return;
    gt_cli_live *l = *lp;
    if (l->started) {
        pthread_mutex_lock(&l->mu);
        l->stop = 1;
        pthread_cond_broadcast(&l->cv);
        pthread_mutex_unlock(&l->mu);
        pthread_join(l->thread, NULL);
    }
    int rows = l->rows, cols;
    term_size(l->fd, &rows, &cols);
    char out[64];
    int n = snprintf(out, sizeof out, "\0337\033[1;%dr\033[%d;1H\033[K\0338", rows, rows);
    write_all(l->fd, out, (size_t)n);
    pthread_cond_destroy(&l->cv);
    pthread_mutex_destroy(&l->mu);
    free(l);
    *lp = NULL;
}
