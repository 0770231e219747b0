/* SPDX-License-Identifier: MIT */
/* Fuzz target: every /proc parser, and the sysfs number parser of the RAPL
 * energy counters.  The first byte picks the parser, the rest is the file's
 * text.  Beyond "no crash, no overread" (ASan/UBSan), a
 * successful parse must describe the text: a cut-short file (last byte not
 * '\n') is never accepted, and the values satisfy the parsers' contracts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "energy/rapl.h"
#include "proc/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static void count_mapping(void *ctx, const char *path, size_t path_len,
                          uint64_t private_bytes, uint64_t shared_bytes)
{
    /* The path lies inside the parsed buffer's line; touch every byte so
     * ASan sees an out-of-bounds slice. */
    volatile char sink = 0;
    for (size_t i = 0; i < path_len; i++)
        sink ^= path[i];
    (void)sink;
    CHECK(private_bytes % 1024 == 0 && shared_bytes % 1024 == 0);
    (*(size_t *)ctx)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *buf = (const char *)data + 1;
    size_t len = size - 1;
    int cut = len == 0 || buf[len - 1] != '\n';
    switch (data[0] % 8) {
    case 0: {
        gt_proc_stat st;
        if (gt_parse_stat(buf, len, &st) == 0) {
            CHECK(!cut);
            CHECK(st.pid > 0 && st.ppid >= 0 && st.num_threads >= 0);
        }
        break;
    }
    case 1: {
        gt_mem_rollup r;
        if (gt_parse_smaps_rollup(buf, len, &r) == 0) {
            CHECK(!cut);
            CHECK(r.private_clean % 1024 == 0 && r.shared_dirty % 1024 == 0);
        }
        break;
    }
    case 2: {
        size_t n = 0;
        if (gt_parse_smaps(buf, len, count_mapping, &n) == 0)
            CHECK(!cut || len == 0);
        break;
    }
    case 3: {
        uint64_t hwm = 1;
        if (gt_parse_status_hwm(buf, len, &hwm) == 0)
            CHECK((!cut || len == 0) && hwm % 1024 == 0);
        /* Files of "key: number" lines (io): every key found once. */
        static const char *const keys[] = {"read_bytes:", "write_bytes:"};
        uint64_t v[2];
        if (gt_parse_keyed(buf, len, keys, 2, v) == 0)
            CHECK(!cut && memmem(buf, len, "read_bytes:", 11) && memmem(buf, len, "write_bytes:", 12));
        break;
    }
    case 4: {
        gt_meminfo m;
        if (gt_parse_meminfo(buf, len, &m) == 0) {
            CHECK(!cut);
            CHECK(gt_meminfo_used(&m) <= m.total);
        }
        break;
    }
    case 5: {
        gt_cpu_times cpus[4];
        int n = -1;
        if (gt_parse_proc_stat(buf, len, cpus, 4, &n) == 0) {
            CHECK(!cut && n > 0);
            for (int i = 0; i < n && i < 4; i++)
                CHECK(cpus[i].busy <= cpus[i].total);
        }
        break;
    }
    case 6: {
        pid_t pids[8];
        int n = gt_parse_pid_list(buf, len, pids, 8);
        for (int i = 0; i < n && i < 8; i++)
            CHECK(pids[i] > 0);
        pid_t last;
        if (gt_parse_loadavg_last_pid(buf, len, &last) == 0)
            CHECK(last >= 0 && len > 0);
        break;
    }
    case 7: {
        /* energy_uj / max_energy_range_uj: digits, then '\n' or the end. */
        uint64_t v = 0, check = 0;
        if (gt_rapl_parse_u64(buf, len, &v) == 0) {
            size_t i = 0;
            for (; i < len && buf[i] >= '0' && buf[i] <= '9'; i++)
                check = check * 10 + (uint64_t)(buf[i] - '0');
            CHECK(i > 0 && (i == len || buf[i] == '\n') && check == v);
            /* a delta never exceeds the counter's range */
            uint64_t max = v | 1;
            CHECK(gt_rapl_delta(max / 2, v % max, max) <= max);
        }
        break;
    }
    }
    return 0;
}
