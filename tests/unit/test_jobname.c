/* SPDX-License-Identifier: MIT */
/* File-name patterns of Slurm tasks (--tf, -o): the check that the tasks
 * of one step would all write one file, on both sides of its boundaries,
 * and the expansion of the conversions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/jobname.h"

/* A task of a step of `tasks` tasks on `nodes` nodes (0: the variable is
 * not set, as in a batch script), job 77, rank 1 on node n1. */
static void step(int tasks, int nodes)
{
    char v[16];
    setenv("SLURM_JOB_ID", "77", 1);
    setenv("SLURM_STEP_ID", "3", 1);
    setenv("SLURMD_NODENAME", "n1", 1);
    setenv("SLURM_PROCID", "1", 1);
    unsetenv("SLURM_STEP_NUM_TASKS");
    unsetenv("SLURM_STEP_NUM_NODES");
    if (tasks) {
        snprintf(v, sizeof v, "%d", tasks);
        setenv("SLURM_STEP_NUM_TASKS", v, 1);
    }
    if (nodes) {
        snprintf(v, sizeof v, "%d", nodes);
        setenv("SLURM_STEP_NUM_NODES", v, 1);
    }
}

static void expect_name(const char *pattern, const char *want)
{
    char *out = NULL;
    assert_int_equal(gt_cli_job_name(pattern, "--tf", &out), 0);
    assert_non_null(out);
    assert_string_equal(out, want);
    free(out);
}

/* Refused as a usage error, before any file is made. */
static void expect_shared(const char *pattern)
{
    char *out = (char *)1;
    assert_int_equal(gt_cli_job_name(pattern, "--tf", &out), GT_EXIT_USAGE);
    assert_null(out);
}

/* `srun -n1`: one task has the file to itself, with or without %t; two
 * tasks need %t. */
static void test_task_count_boundary(void **state)
{
    (void)state;
    step(1, 1);
    expect_name("t-%j.csv", "t-77.csv");
    step(0, 0);
    expect_name("t-%j.csv", "t-77.csv");
    step(2, 1);
    expect_shared("t-%j.csv");
    expect_name("t-%j-%t.csv", "t-77-1.csv");
}

/* "%%t" is a literal "%t": the name is the same for every task. */
static void test_escaped_percent(void **state)
{
    (void)state;
    step(4, 2);
    expect_shared("t-%j-%%t.csv");
    expect_shared("t-%%N-%%h.csv");
    expect_shared("t-%j-%%%%t.csv");
    /* "%%" then the conversion "%t" */
    expect_name("t-%j-%%%t.csv", "t-77-%1.csv");
    step(1, 1);
    expect_name("t-%j-%%t.csv", "t-77-%t.csv");
}

/* A file per node is enough when every node runs one task, and only then. */
static void test_one_task_per_node(void **state)
{
    (void)state;
    step(2, 2);
    expect_name("t-%N.csv", "t-n1.csv");
    step(3, 2);
    expect_shared("t-%N.csv");
    step(2, 2);
    expect_shared("t-%%N.csv");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_task_count_boundary),
        cmocka_unit_test(test_escaped_percent),
        cmocka_unit_test(test_one_task_per_node),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
