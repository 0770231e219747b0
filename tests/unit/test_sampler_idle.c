/* SPDX-License-Identifier: MIT */
/* Idle processes on the live /proc: the sampler takes the stat and children
 * of a process whose CPU clock has not moved from the last sample, and must
 * still see what others change meanwhile.  Each test parks its processes in
 * a blocking read and waits until the kernel shows them asleep, so which
 * samples find them idle follows from the steps, not from timing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sampler/sampler.h"

#define MIB (1024ULL * 1024)

/* The state letter of pid ('S', 'Z', ...), or 0 when it cannot be read. */
static char state_of(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    return p && p[1] == ' ' ? p[2] : 0;
}

/* Waits until pid shows state (a process blocked in read shows 'S'). */
static void wait_state(pid_t pid, char state)
{
    struct timespec ms = {0, 1000000L};
    for (int i = 0; i < 600000 && state_of(pid) != state; i++)
        nanosleep(&ms, NULL);
    assert_int_equal(state_of(pid), state);
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* Blocks until a byte arrives on fd (or its writer closes it). */
static void park(int fd)
{
    char c;
    while (read(fd, &c, 1) < 0)
        ;
}

static gt_sampler *live_sampler(pid_t main_pid)
{
    gt_sampler_config cfg = {.main_pid = main_pid};
    gt_sampler *s;
    gt_error err;
    assert_int_equal(gt_sampler_new(&cfg, &s, &err), GT_OK);
    return s;
}

static uint64_t main_rss(const gt_sample *a)
{
    return a->main.private_rss + a->main.shared_rss;
}

/* A child maps a 32 MiB file and reads every page, then sleeps; the test
 * truncates the file, which unmaps those pages from the child without it
 * running: its RSS falls while its clock stands still. */
static void test_idle_rss_drop(void **state)
{
    (void)state;
    char path[] = "/tmp/gt-test-idle-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    unlink(path);
    const size_t size = 32 * MIB;
    static char block[1 << 20];
    memset(block, 1, sizeof block); /* data, not a hole: a hole may map no page */
    for (size_t off = 0; off < size; off += sizeof block)
        assert_int_equal(write(fd, block, sizeof block), (ssize_t)sizeof block);
    int go[2];
    assert_int_equal(pipe(go), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        close(go[1]); /* so that the test's close ends park() */
        volatile const char *m = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED)
            _exit(1);
        unsigned sum = 0;
        for (size_t i = 0; i < size; i += 4096)
            sum += (unsigned)m[i];
        park(go[0]);
        _exit((int)(sum & 1));
    }
    close(go[0]);
    wait_state(child, 'S');

    gt_sampler *s = live_sampler(child);
    gt_sampler_set_idle_refresh(s, 1e9); /* never, until set below */
    gt_sample a;
    gt_error err;
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    /* Relative to the first figure: its own RSS (sanitizers' shadow
     * memory included) comes on top of the file's pages. */
    const uint64_t full = main_rss(&a);
    assert_true(full >= size);
    assert_int_equal(ftruncate(fd, (off_t)size / 2), 0);
    assert_true(state_of(child) == 'S');
    /* Idle and no refresh due: the figures are the last sample's, the
     * saving this is about (stat was not read). */
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_int_equal(main_rss(&a), full);
    assert_int_equal(a.main_n_threads, 1); /* its thread too, not 0 while it sleeps */
    /* Once the refresh is due, the fall is seen. */
    gt_sampler_set_idle_refresh(s, 0.05);
    sleep_ms(100);
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_true(main_rss(&a) <= full - size / 4 && main_rss(&a) >= full - size * 3 / 4);
    const uint64_t half = main_rss(&a);
    /* The run's last sample reads every process, refresh due or not. */
    gt_sampler_set_idle_refresh(s, 1e9);
    assert_int_equal(ftruncate(fd, 0), 0);
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_int_equal(main_rss(&a), half);
    assert_int_equal(gt_sampler_take_last(s, &a, &err), GT_OK);
    assert_true(main_rss(&a) <= half - size / 4);
    assert_true(state_of(child) == 'S');
    gt_sampler_free(&s);

    close(go[1]);
    int st;
    assert_int_equal(waitpid(child, &st, 0), child);
    close(fd);
}

/* An idle parent that forks moves its own clock, so the next sample reads
 * its children and finds the new one, however soon. */
static void test_idle_parent_forks(void **state)
{
    (void)state;
    int cmd[2], done[2], hold[2];
    assert_int_equal(pipe(cmd), 0);
    assert_int_equal(pipe(done), 0);
    assert_int_equal(pipe(hold), 0);
    pid_t parent = fork();
    assert_true(parent >= 0);
    if (parent == 0) {
        close(cmd[1]);
        close(hold[1]);
        park(cmd[0]);
        pid_t g = fork();
        if (g == 0) {
            park(hold[0]);
            _exit(0);
        }
        if (write(done[1], &g, sizeof g) != (ssize_t)sizeof g)
            _exit(1);
        park(hold[0]);
        waitpid(g, NULL, 0);
        _exit(0);
    }
    wait_state(parent, 'S');
    gt_sampler *s = live_sampler(parent);
    gt_sampler_set_idle_refresh(s, 1e9);
    gt_sample a;
    gt_error err;
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK); /* parent idle */
    assert_int_equal(gt_sampler_descendants_alive(s), 0);
    assert_int_equal(a.main_n_threads, 1);

    assert_int_equal(write(cmd[1], "f", 1), 1);
    pid_t g;
    assert_int_equal(read(done[0], &g, sizeof g), (ssize_t)sizeof g);
    wait_state(parent, 'S');
    wait_state(g, 'S');
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_int_equal(gt_sampler_descendants_alive(s), 1);
    assert_int_equal(a.descendants_n_threads, 1);
    gt_sampler_free(&s);

    close(hold[1]);
    int st;
    assert_int_equal(waitpid(parent, &st, 0), parent);
}

/* A member exits and its child is adopted by an idle subreaper member,
 * whose clock does not move: the exit makes the sampler read the children
 * of every idle member again. */
static void test_adopted_by_idle_subreaper(void **state)
{
    (void)state;
    int cmd[2], done[2], hold[2];
    assert_int_equal(pipe(cmd), 0);
    assert_int_equal(pipe(done), 0);
    assert_int_equal(pipe(hold), 0);
    pid_t reaper = fork();
    assert_true(reaper >= 0);
    if (reaper == 0) {
        close(cmd[1]);
        close(hold[1]);
        prctl(PR_SET_CHILD_SUBREAPER, 1);
        pid_t m = fork();
        if (m == 0) {
            pid_t k = fork();
            if (k == 0) {
                park(hold[0]);
                _exit(0);
            }
            pid_t ids[2] = {getpid(), k};
            if (write(done[1], ids, sizeof ids) != (ssize_t)sizeof ids)
                _exit(1);
            park(cmd[0]); /* then exits: k is adopted by the reaper */
            _exit(0);
        }
        park(hold[0]); /* never reaps m meanwhile: m stays a zombie */
        while (wait(NULL) > 0)
            ;
        _exit(0);
    }
    pid_t ids[2];
    assert_int_equal(read(done[0], ids, sizeof ids), (ssize_t)sizeof ids);
    wait_state(reaper, 'S');
    wait_state(ids[0], 'S');
    wait_state(ids[1], 'S');
    gt_sampler *s = live_sampler(reaper);
    gt_sampler_set_idle_refresh(s, 1e9);
    gt_sample a;
    gt_error err;
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_int_equal(gt_sampler_descendants_alive(s), 2);

    assert_int_equal(write(cmd[1], "x", 1), 1);
    wait_state(ids[0], 'Z');
    assert_true(state_of(reaper) == 'S');
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_int_equal(gt_sampler_descendants_alive(s), 1); /* k, under the reaper */
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_int_equal(gt_sampler_descendants_alive(s), 1);
    gt_sampler_free(&s);

    close(hold[1]);
    int st;
    assert_int_equal(waitpid(reaper, &st, 0), reaper);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idle_rss_drop),
        cmocka_unit_test(test_idle_parent_forks),
        cmocka_unit_test(test_adopted_by_idle_subreaper),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
