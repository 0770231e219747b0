/* SPDX-License-Identifier: MIT */
/* The SPANK plugin, loaded as slurmstepd loads it: this program stands in
 * for slurmstepd (Slurm's spank_* and slurm_* functions, a task to track)
 * and dlopens the real build/gpu_tracker_spank.so.  It checks plugstack.conf's
 * st= at both ends of its range, and the races of a job's user against the
 * plugin, made deterministic: the program's own mkdir, mkdirat, chown and
 * open (exported, so the plugin's calls reach them before libc's) swap a
 * symbolic link to a root-owned 0600 file into the folder or the tracking
 * file's name right after the plugin makes it, or right before it changes
 * an owner by name.
 *
 * Needs root (the plugin takes the job's user IDs) and a build with the
 * plugin; elsewhere it prints "skipped: ..." and exits 77.  GT_SPANK_PLUGIN
 * names another build of the plugin. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#if __has_include(<slurm/spank.h>)
#include <slurm/slurm.h>
#include <slurm/spank.h>
#define HAVE_SPANK 1
#else
#define HAVE_SPANK 0
#endif

#define USER 65534 /* nobody */
/* What the plugin calls must be seen by it: the build hides symbols. */
#define EXPORT __attribute__((visibility("default")))
#define JOB 7

#if HAVE_SPANK
/* -- slurmstepd's side: what the plugin asks of Slurm -- */
static struct spank_option *option; /* --gpu-tracker, as registered */
static pid_t task_pid;
static const char *node_name = "h1"; /* SLURMD_NODENAME */
static int n_errors;
static char last_error[1024];

EXPORT spank_err_t spank_option_register(spank_t sp, struct spank_option *opt)
{
    (void)sp;
    option = opt;
    return ESPANK_SUCCESS;
}

EXPORT int spank_remote(spank_t sp)
{
    (void)sp;
    return 1;
}

EXPORT spank_err_t spank_getenv(spank_t sp, const char *var, char *buf, int len)
{
    (void)sp;
    if (strcmp(var, "SLURMD_NODENAME"))
        return ESPANK_ENV_NOEXIST;
    snprintf(buf, (size_t)len, "%s", node_name);
    return ESPANK_SUCCESS;
}

EXPORT spank_err_t spank_get_item(spank_t sp, spank_item_t item, ...)
{
    (void)sp;
    va_list ap;
    va_start(ap, item);
    spank_err_t rc = ESPANK_SUCCESS;
    switch (item) {
    case S_TASK_PID: *va_arg(ap, pid_t *) = task_pid; break;
    case S_TASK_GLOBAL_ID: *va_arg(ap, uint32_t *) = 0; break;
    case S_JOB_ID: *va_arg(ap, uint32_t *) = JOB; break;
    case S_JOB_STEPID: *va_arg(ap, uint32_t *) = 0; break;
    case S_JOB_UID: *va_arg(ap, uid_t *) = USER; break;
    case S_JOB_GID: *va_arg(ap, gid_t *) = USER; break;
    default: rc = ESPANK_BAD_ARG; break; /* supplementary groups: none given */
    }
    va_end(ap);
    return rc;
}

EXPORT void slurm_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    n_errors++;
    fprintf(stderr, "slurm_error: %s\n", last_error);
}

EXPORT void slurm_info(const char *fmt, ...)
{
    (void)fmt;
}

/* -- the attacker: swaps base/.swap (a link to the secret) with a name -- */
static char base[256], secret[256];
static const char *attack_suffix; /* the name's end: "/7.0" or "/h1.0.csv"; NULL: no attack */
static int attacks;

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* path names the attacked entry (dirfd-relative names are taken as in
 * base): swap the link in its place. */
static void attack(int dirfd, const char *path)
{
    char full[PATH_MAX], link[PATH_MAX];
    if (!attack_suffix)
        return;
    if (dirfd != AT_FDCWD || path[0] != '/')
        snprintf(full, sizeof full, "/%s", path);
    else
        snprintf(full, sizeof full, "%s", path);
    if (!ends_with(full, attack_suffix))
        return;
    /* The link lives beside the attacked name. */
    char dir[300];
    if (!strcmp(attack_suffix, "/7.0"))
        snprintf(dir, sizeof dir, "%s", base);
    else
        snprintf(dir, sizeof dir, "%s/7.0", base);
    snprintf(full, sizeof full, "%s%s", dir, attack_suffix);
    snprintf(link, sizeof link, "%s/.swap", dir);
    if (symlink(secret, link) == 0 && renameat2(AT_FDCWD, link, AT_FDCWD, full, RENAME_EXCHANGE) == 0)
        attacks++;
    attack_suffix = NULL; /* once: a second swap would put the name back */
}

EXPORT int mkdir(const char *path, mode_t mode)
{
    int rc = (int)syscall(SYS_mkdirat, AT_FDCWD, path, mode);
    if (rc == 0)
        attack(AT_FDCWD, path);
    return rc;
}

EXPORT int mkdirat(int dirfd, const char *path, mode_t mode)
{
    int rc = (int)syscall(SYS_mkdirat, dirfd, path, mode);
    if (rc == 0)
        attack(dirfd, path);
    return rc;
}

EXPORT int chown(const char *path, uid_t uid, gid_t gid)
{
    attack(AT_FDCWD, path);
    return (int)syscall(SYS_fchownat, AT_FDCWD, path, uid, gid, 0);
}

EXPORT int open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
    if (fd >= 0 && (flags & O_CREAT))
        attack(AT_FDCWD, path);
    return fd;
}

/* -- the plugin -- */
static int (*p_init)(spank_t, int, char **);
static int (*p_user_init)(spank_t, int, char **);
static int (*p_post_fork)(spank_t, int, char **);
static int (*p_task_exit)(spank_t, int, char **);
static int (*p_exit)(spank_t, int, char **);

static void *load_plugin(void)
{
    char path[PATH_MAX];
    const char *env = getenv("GT_SPANK_PLUGIN");
    if (env) {
        snprintf(path, sizeof path, "%s", env);
    } else {
        /* build/tests/test_spank -> build/gpu_tracker_spank.so */
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
        if (n < 0)
            return NULL;
        path[n] = '\0';
        for (int i = 0; i < 2; i++)
            *strrchr(path, '/') = '\0';
        strcat(path, "/gpu_tracker_spank.so");
    }
    if (access(path, R_OK) != 0)
        return NULL;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        exit(1);
    }
    *(void **)&p_init = dlsym(h, "slurm_spank_init");
    *(void **)&p_user_init = dlsym(h, "slurm_spank_user_init");
    *(void **)&p_post_fork = dlsym(h, "slurm_spank_task_post_fork");
    *(void **)&p_task_exit = dlsym(h, "slurm_spank_task_exit");
    *(void **)&p_exit = dlsym(h, "slurm_spank_exit");
    if (!p_init || !p_user_init || !p_post_fork || !p_task_exit || !p_exit) {
        fprintf(stderr, "the plugin lacks a slurm_spank_* callback\n");
        exit(1);
    }
    return h;
}

/* plugstack.conf's arguments: the number of errors the plugin logs. */
static int init_errors(const char *arg)
{
    char copy[64];
    snprintf(copy, sizeof copy, "%s", arg);
    char *av[] = {copy};
    n_errors = 0;
    p_init(NULL, 1, av);
    return n_errors;
}

static void test_sleep_time_bounds(void **state)
{
    (void)state;
    /* The documented range, 0.001 to 86400, at both ends and just past. */
    assert_int_equal(init_errors("st=0.001"), 0);
    assert_int_equal(init_errors("st=86400"), 0);
    assert_int_equal(init_errors("st=1"), 0);
    assert_int_equal(init_errors("st=0.000999"), 1);
    assert_non_null(strstr(last_error, "at least 0.001 and at most 86400"));
    assert_int_equal(init_errors("st=86400.001"), 1);
    assert_int_equal(init_errors("st=1e6"), 1);
    assert_int_equal(init_errors("st=0"), 1);
    assert_int_equal(init_errors("st=nan"), 1);
    assert_int_equal(init_errors("st=inf"), 1);
    assert_int_equal(init_errors("st="), 1);
    assert_int_equal(init_errors("st=1s"), 1);
    assert_int_equal(init_errors("sleep=1"), 1);
    /* The event backend's modes, and only those. */
    assert_int_equal(init_errors("events=on"), 0);
    assert_int_equal(init_errors("events=off"), 0);
    assert_int_equal(init_errors("events=auto"), 0);
    assert_int_equal(init_errors("events=yes"), 1);
    assert_non_null(strstr(last_error, "events=auto|on|off"));
    assert_non_null(option);
    /* Back to a short interval for the steps below. */
    assert_int_equal(init_errors("st=0.01"), 0);
}

static void owner_of(const char *path, char *out, size_t size)
{
    struct stat sb;
    if (lstat(path, &sb) != 0)
        snprintf(out, size, "missing");
    else
        snprintf(out, size, "%u:%u %o", (unsigned)sb.st_uid, (unsigned)sb.st_gid, (unsigned)(sb.st_mode & 07777));
}

/* One step of one task, tracked into base with attack_suffix attacked. */
static char top[] = "/tmp/gt-spank-XXXXXX";
static int nsteps;
static int delete_tracking_file; /* before the task exits, as a user may */

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void run_step(void)
{
    char tmpl[64];
    snprintf(tmpl, sizeof tmpl, "%s/%d", top, nsteps++);
    assert_int_equal(syscall(SYS_mkdirat, AT_FDCWD, tmpl, 0755), 0);
    snprintf(base, sizeof base, "%s/dir", tmpl);
    snprintf(secret, sizeof secret, "%s/secret", tmpl);
    assert_int_equal(syscall(SYS_mkdirat, AT_FDCWD, base, 0755), 0);
    assert_int_equal(syscall(SYS_fchownat, AT_FDCWD, base, USER, USER, 0), 0);
    int fd = (int)syscall(SYS_openat, AT_FDCWD, secret, O_WRONLY | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    close(fd);
    attacks = 0;

    task_pid = fork();
    assert_true(task_pid >= 0);
    if (task_pid == 0) {
        pause();
        _exit(0);
    }
    option->cb(option->val, base, 1);
    p_user_init(NULL, 0, NULL);
    n_errors = 0;
    p_post_fork(NULL, 0, NULL);
    if (delete_tracking_file) {
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/7.0/h1.0.csv", base);
        assert_int_equal(unlink(p), 0);
    }
    kill(task_pid, SIGKILL);
    waitpid(task_pid, NULL, 0);
    p_task_exit(NULL, 0, NULL);
    p_exit(NULL, 0, NULL);
}

static void check_secret(void)
{
    char o[64];
    owner_of(secret, o, sizeof o);
    assert_string_equal(o, "0:0 600");
}

static void test_untouched_step(void **state)
{
    (void)state;
    char p[PATH_MAX], o[64];
    attack_suffix = NULL;
    run_step();
    assert_int_equal(n_errors, 0);
    /* Folder, tracking file and report: the job's user's. */
    const char *names[] = {"7.0", "7.0/h1.0.csv", "7.0/h1.0.json"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", base, names[i]);
        owner_of(p, o, sizeof o);
        assert_non_null(strstr(o, "65534:65534 "));
    }
}

static void test_deleted_tracking_file(void **state)
{
    (void)state;
    char p[PATH_MAX], o[64];
    /* Re-created at the end, in the held folder, and given by descriptor. */
    attack_suffix = NULL;
    delete_tracking_file = 1;
    run_step();
    delete_tracking_file = 0;
    snprintf(p, sizeof p, "%s/7.0/h1.0.csv", base);
    owner_of(p, o, sizeof o);
    assert_non_null(strstr(o, "65534:65534 "));
}

static void test_node_name_leaving_folder(void **state)
{
    (void)state;
    char p[PATH_MAX];
    /* A node name that would put the files elsewhere: refused. */
    attack_suffix = NULL;
    node_name = "../h1";
    run_step();
    node_name = "h1";
    assert_int_equal(n_errors, 1);
    assert_non_null(strstr(last_error, "cannot name a file"));
    snprintf(p, sizeof p, "%s/h1.0.csv", base);
    assert_int_equal(access(p, F_OK), -1);
}

static void test_folder_swapped(void **state)
{
    (void)state;
    attack_suffix = "/7.0";
    run_step();
    attack_suffix = NULL;
    assert_int_equal(attacks, 1);
    check_secret();
    assert_true(n_errors >= 1); /* a link where the folder was: refused, and said */
}

static void test_tracking_file_swapped(void **state)
{
    (void)state;
    char p[PATH_MAX], o[64];
    attack_suffix = "/h1.0.csv";
    run_step();
    attack_suffix = NULL;
    assert_int_equal(attacks, 1);
    check_secret();
    /* The file the plugin made, under the name it was swapped to, is the
     * user's all the same: given by descriptor. */
    snprintf(p, sizeof p, "%s/7.0/.swap", base);
    owner_of(p, o, sizeof o);
    assert_non_null(strstr(o, "65534:65534 "));
}

static void test_foreign_folder(void **state)
{
    (void)state;
    char p[PATH_MAX], q[PATH_MAX];
    attack_suffix = NULL;
    run_step();
    /* <job>.<step> there already, root's: refused, nothing written in it. */
    snprintf(p, sizeof p, "%s/7.0", base);
    snprintf(q, sizeof q, "%s/old", base);
    assert_int_equal(rename(p, q), 0);
    assert_int_equal(syscall(SYS_mkdirat, AT_FDCWD, p, 0755), 0);
    task_pid = fork();
    assert_true(task_pid >= 0);
    if (task_pid == 0) {
        pause();
        _exit(0);
    }
    n_errors = 0;
    p_post_fork(NULL, 0, NULL);
    kill(task_pid, SIGKILL);
    waitpid(task_pid, NULL, 0);
    p_exit(NULL, 0, NULL);
    assert_int_equal(n_errors, 1);
    assert_non_null(strstr(last_error, "not to the job's user"));
    snprintf(q, sizeof q, "%s/7.0/h1.0.csv", base);
    assert_int_equal(access(q, F_OK), -1);
}
#endif

int main(void)
{
#if HAVE_SPANK
    if (geteuid() != 0) {
        printf("skipped: the plugin takes the job's user IDs, which needs root\n");
        return 77;
    }
    if (!load_plugin()) {
        printf("skipped: no SPANK plugin in this build (built where libslurm-dev is installed, not by sanitizer "
               "builds)\n");
        return 77;
    }
    if (!mkdtemp(top) || chmod(top, 0755) != 0) {
        perror("mkdtemp");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sleep_time_bounds),
        cmocka_unit_test(test_untouched_step),
        cmocka_unit_test(test_deleted_tracking_file),
        cmocka_unit_test(test_node_name_leaving_folder),
        cmocka_unit_test(test_folder_swapped),
        cmocka_unit_test(test_tracking_file_swapped),
        cmocka_unit_test(test_foreign_folder),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    nftw(top, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return rc;
#else
    printf("skipped: no <slurm/spank.h> (Debian: libslurm-dev)\n");
    return 77;
#endif
}
