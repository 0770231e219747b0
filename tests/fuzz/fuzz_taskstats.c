/* SPDX-License-Identifier: MIT */
/* Fuzz target: the taskstats netlink parser on a datagram of any bytes, as
 * a compromised or buggy sender could put on the socket.  Beyond "no crash,
 * no overread" (ASan/UBSan, on a copy of exactly the input's size), every
 * record it hands on is counted and holds a high-water mark in whole KiB. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proc/taskstats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) abort(); } while (0)

/* The family the seeds' messages carry. */
#define FAMILY 27

static void on_record(void *ctx, const gt_exit_record *r)
{
    CHECK(r->hiwater_rss % 1024 == 0);
    (*(int *)ctx)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Netlink headers are read in place: the copy is aligned as the
     * socket's buffer is (malloc), and no larger than the input. */
    void *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    int seen = 0;
    int n = gt_taskstats_parse(buf, size, FAMILY, on_record, &seen);
    CHECK(n == seen && n >= 0);
    free(buf);
    return 0;
}
