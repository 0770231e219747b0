/* SPDX-License-Identifier: MIT */
/* Series of the metrics endpoint carry the Slurm job, step and node they
 * come from when the tracker runs as a Slurm task, and nothing extra
 * otherwise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "metrics/exposition.h"

static char buf[1 << 16];

static void format(void)
{
    gt_timepoint tp;
    memset(&tp, 0, sizeof tp);
    tp.n_samples = 3;
    tp.system_ram_capacity = 1000;
    size_t n = gt_exposition_format(&tp, NULL, 0, buf, sizeof buf);
    assert_true(n < sizeof buf);
}

static void test_outside_slurm(void **state)
{
    (void)state;
    unsetenv("SLURM_JOB_ID");
    unsetenv("SLURM_STEP_ID");
    unsetenv("SLURMD_NODENAME");
    format();
    assert_non_null(strstr(buf, "\ngpu_tracker_samples_total 3\n"));
    assert_null(strstr(buf, "job=\""));
}

static void test_in_slurm(void **state)
{
    (void)state;
    setenv("SLURM_JOB_ID", "4242", 1);
    setenv("SLURM_STEP_ID", "0", 1);
    setenv("SLURMD_NODENAME", "gpu\"7", 1);
    format();
    assert_non_null(strstr(buf, "\ngpu_tracker_samples_total{job=\"4242\",step=\"0\",node=\"gpu\\\"7\"} 3\n"));
    /* with the series' own label after the job's */
    assert_non_null(strstr(buf, "{job=\"4242\",step=\"0\",node=\"gpu\\\"7\",set=\"combined\"}"));
    /* every sample line has them */
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
        if (line[0] != '#' && !strstr(line, "job=\"4242\""))
            fail_msg("no job label: %s", line);
}

/* A node name that is not UTF-8 (both formats must be): each bad byte as
 * the text \xNN (util/text.h), its backslash escaped as a label's is. */
static void test_node_not_utf8(void **state)
{
    (void)state;
    setenv("SLURM_JOB_ID", "4242", 1);
    setenv("SLURM_STEP_ID", "0", 1);
    setenv("SLURMD_NODENAME", "n\xff\xfe\\1\n", 1);
    format();
    assert_non_null(strstr(buf, "node=\"n\\\\xff\\\\xfe\\\\1\\n\""));
    unsetenv("SLURMD_NODENAME");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_outside_slurm), cmocka_unit_test(test_in_slurm),
                                       cmocka_unit_test(test_node_not_utf8)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
