/* SPDX-License-Identifier: MIT */
/* gpu-tracker's SPANK plugin: `srun --gpu-tracker[=DIR]` tracks each task of
 * the step from slurmstepd, on every node, with libgputracker, and writes
 * DIR/<job>.<step>/<node>.<task>.csv (the tracking file) and .json (the
 * report); DIR defaults to the job's working directory.
 *
 * Enabled by one line in plugstack.conf:
 *     optional /usr/local/lib/gpu_tracker_spank.so [st=SECONDS] [events=auto|on|off]
 *
 * The trackers run as threads of slurmstepd and track the task's process
 * tree, never slurmstepd itself, so the figures are the tasks'.  A job must
 * never fail or wait because of tracking: every callback returns success,
 * and a problem is one error line in Slurm's log of the step.
 *
 * SPANK gives callbacks no context pointer, so the state of the step lives
 * in this file's statics; slurmstepd runs one step per process. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "gpu_tracker.h"
#include "report/usage_write.h"
#include "tracker/owner.h"
#include "util/grow.h"

SPANK_PLUGIN(gpu-tracker, 1)

/* One tracked task. */
typedef struct task {
    pid_t pid;
    uint32_t rank;
    gt_tracker *tracker;
    char name[300]; /* <node>.<task>, of its files in the folder */
} task;

static struct {
    int on;                /* --gpu-tracker was given */
    char dir[PATH_MAX];    /* its value, or "" for the job's working directory */
    char cwd[PATH_MAX];    /* the job's working directory, seen in user_init */
    int dirfd;             /* DIR/<job>.<step>, opened as the job's user; -1: not yet */
    char dirname[PATH_MAX + 40]; /* its name, for messages */
    double sleep_time;     /* plugstack.conf's st=, default 1 s */
    int events;            /* plugstack.conf's events=, gt_options.events */
    task *tasks;
    size_t ntasks, cap;
} step = {.sleep_time = 1.0, .dirfd = -1};

static int option_cb(int val, const char *arg, int remote)
{
    (void)val;
    (void)remote;
    step.on = 1;
    if (arg && *arg && strlen(arg) < sizeof step.dir)
        strcpy(step.dir, arg);
    else if (arg && *arg) {
        slurm_error("gpu-tracker: --gpu-tracker directory is longer than %d bytes", PATH_MAX - 1);
        step.on = 0;
    }
    return 0;
}

static struct spank_option option = {
    "gpu-tracker", "[dir]",
    "Track each task's RAM, GPU RAM, CPU, GPU and energy with gpu-tracker; files in "
    "DIR/<job>.<step>/ (default: the working directory)",
    2, 0, option_cb};

static void log_warning(void *ctx, const char *msg)
{
    (void)ctx;
    slurm_info("gpu-tracker: warning: %s", msg);
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
    for (int i = 0; i < ac; i++) {
        char *end;
        if (!strncmp(av[i], "st=", 3)) {
            double st = strtod(av[i] + 3, &end);
            if (end == av[i] + 3 || *end || !(st >= GT_SLEEP_TIME_MIN && st <= GT_SLEEP_TIME_MAX))
                slurm_error("gpu-tracker: invalid plugstack.conf argument '%s': st= needs seconds, at least %g and "
                            "at most %g", av[i], GT_SLEEP_TIME_MIN, GT_SLEEP_TIME_MAX);
            else
                step.sleep_time = st;
        } else if (!strcmp(av[i], "events=auto")) {
            step.events = GT_EVENTS_AUTO;
        } else if (!strcmp(av[i], "events=on")) {
            step.events = GT_EVENTS_ON;
        } else if (!strcmp(av[i], "events=off")) {
            step.events = GT_EVENTS_OFF;
        } else
            slurm_error("gpu-tracker: unknown plugstack.conf argument '%s': valid are st=<seconds>, "
                        "events=auto|on|off", av[i]);
    }
    if (spank_option_register(sp, &option) != ESPANK_SUCCESS)
        slurm_error("gpu-tracker: cannot register --gpu-tracker");
    return 0;
}

/* Runs after slurmstepd has changed to the job's working directory. */
int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
    (void)sp;
    (void)ac;
    (void)av;
    if (step.on && !getcwd(step.cwd, sizeof step.cwd))
        step.cwd[0] = '\0';
    return 0;
}

/* The job's user: the owner of everything the plugin makes. */
typedef struct job_user {
    uid_t uid;
    gid_t gid;
    gid_t *gids; /* supplementary groups, Slurm's array */
    int ngids;
} job_user;

static int get_job_user(spank_t sp, job_user *u)
{
    memset(u, 0, sizeof *u);
    if (spank_get_item(sp, S_JOB_UID, &u->uid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_GID, &u->gid) != ESPANK_SUCCESS) {
        slurm_error("gpu-tracker: cannot read the job's user from Slurm");
        return -1;
    }
    /* Without its list, the user's primary group alone. */
    if (spank_get_item(sp, S_JOB_SUPPLEMENTARY_GIDS, &u->gids, &u->ngids) != ESPANK_SUCCESS || u->ngids < 0) {
        u->gids = &u->gid;
        u->ngids = 1;
    }
    return 0;
}

/* The filesystem IDs and groups this thread had (slurmstepd's: root's). */
typedef struct saved_ids {
    uid_t fsuid;
    gid_t fsgid;
    gid_t *groups;
    int ngroups;
} saved_ids;

/* Back to slurmstepd's IDs; 0, or -1 with the error logged.  setfsuid
 * reports no error: a second call with an invalid ID reads the value back. */
static int become_root(saved_ids *s)
{
    int rc = 0;
    setfsuid(s->fsuid);
    setfsgid(s->fsgid);
    if ((uid_t)setfsuid((uid_t)-1) != s->fsuid || (gid_t)setfsgid((gid_t)-1) != s->fsgid ||
        syscall(SYS_setgroups, (size_t)s->ngroups, s->groups) != 0) {
        slurm_error("gpu-tracker: cannot return to slurmstepd's own IDs: %s", strerror(errno));
        rc = -1;
    }
    free(s->groups);
    s->groups = NULL;
    return rc;
}

/* Makes this thread act on files as the job's user: every check of a path
 * (search, create, follow a link) is then the user's own, as if the user
 * did it, and what is created is the user's.  Filesystem IDs and the raw
 * setgroups system call change the calling thread only (glibc's setgroups
 * would change every thread of slurmstepd), and with a filesystem user ID
 * other than 0 the kernel drops the capabilities that bypass permissions.
 * 0, or -1 with the error logged and root's IDs kept. */
static int become_user(const job_user *u, saved_ids *s)
{
    s->fsuid = (uid_t)setfsuid((uid_t)-1);
    s->fsgid = (gid_t)setfsgid((gid_t)-1);
    s->ngroups = getgroups(0, NULL);
    s->groups = s->ngroups >= 0 ? malloc(((size_t)s->ngroups + 1) * sizeof *s->groups) : NULL;
    if (!s->groups || getgroups(s->ngroups, s->groups) != s->ngroups) {
        slurm_error("gpu-tracker: cannot read slurmstepd's groups: %s", strerror(errno));
        free(s->groups);
        s->groups = NULL;
        return -1;
    }
    if (syscall(SYS_setgroups, (size_t)u->ngids, u->gids) != 0) {
        slurm_error("gpu-tracker: cannot take the job's groups: %s", strerror(errno));
        become_root(s);
        return -1;
    }
    setfsgid(u->gid);
    setfsuid(u->uid);
    if ((gid_t)setfsgid((gid_t)-1) != u->gid || (uid_t)setfsuid((uid_t)-1) != u->uid) {
        slurm_error("gpu-tracker: cannot take the job's user ID %lu for its files", (unsigned long)u->uid);
        become_root(s);
        return -1;
    }
    return 0;
}

/* Opens DIR/<job>.<step> into step.dirfd, made as the job's user when it
 * does not exist (slurmstepd is root here, and DIR is the user's to
 * choose).  A link in its place is never followed, and a folder of another
 * owner is refused: root writes the tracking files into it through the
 * held descriptor.  jobname and stepname (16 bytes each) get the job's ID
 * and the step's name. */
static int open_dir(spank_t sp, const job_user *u, char *jobname, char *stepname)
{
    uint32_t job = 0, stepid = 0;
    const char *base = step.dir[0] ? step.dir : step.cwd;
    struct stat sb;
    saved_ids ids;
    if (!base[0]) {
        slurm_error("gpu-tracker: the job's working directory is unknown; give --gpu-tracker=DIR");
        return -1;
    }
    if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_STEPID, &stepid) != ESPANK_SUCCESS) {
        slurm_error("gpu-tracker: cannot read the job's ID or step from Slurm");
        return -1;
    }
    snprintf(jobname, 16, "%u", job);
    /* Slurm's special steps by the names sacct gives them. */
    if (stepid == SLURM_BATCH_SCRIPT)
        strcpy(stepname, "batch");
    else if (stepid == SLURM_EXTERN_CONT)
        strcpy(stepname, "extern");
    else if (stepid == SLURM_INTERACTIVE_STEP)
        strcpy(stepname, "interactive");
    else
        snprintf(stepname, 16, "%u", stepid);
    if (step.dirfd >= 0)
        return 0;
    char name[40];
    snprintf(name, sizeof name, "%u.%s", job, stepname);
    if (snprintf(step.dirname, sizeof step.dirname, "%s/%s", base, name) >= (int)sizeof step.dirname) {
        slurm_error("gpu-tracker: directory name '%s/%s' is too long", base, name);
        return -1;
    }
    if (become_user(u, &ids) != 0)
        return -1;
    int fd = -1, basefd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (basefd < 0 || (mkdirat(basefd, name, 0755) != 0 && errno != EEXIST))
        slurm_error("gpu-tracker: cannot create '%s': %s", step.dirname, strerror(errno));
    else if ((fd = openat(basefd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        slurm_error("gpu-tracker: cannot open '%s'%s: %s", step.dirname,
                    errno == ELOOP || errno == ENOTDIR ? " (not a directory; a link is not followed)" : "",
                    strerror(errno));
    if (basefd >= 0)
        close(basefd);
    if (become_root(&ids) != 0 && fd >= 0) {
        close(fd);
        fd = -1;
    }
    if (fd < 0)
        return -1;
    /* Made by the user now, or by another task of this node before. */
    if (fstat(fd, &sb) != 0) {
        slurm_error("gpu-tracker: cannot read '%s': %s", step.dirname, strerror(errno));
        close(fd);
        return -1;
    }
    if (sb.st_uid != u->uid) {
        slurm_error("gpu-tracker: '%s' belongs to user %lu, not to the job's user %lu: refused", step.dirname,
                    (unsigned long)sb.st_uid, (unsigned long)u->uid);
        close(fd);
        return -1;
    }
    step.dirfd = fd;
    return 0;
}

/* A file name of the node's that stays in the folder: no '/', not "." or "..". */
static int plain_name(const char *s)
{
    return s[0] && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

static task *add_task(void)
{
    if (step.ntasks == step.cap) {
        size_t cap = gt_grow_cap(step.cap, step.ntasks + 1, 8, sizeof *step.tasks);
        task *t = cap ? realloc(step.tasks, cap * sizeof *t) : NULL;
        if (!t)
            return NULL;
        step.tasks = t;
        step.cap = cap;
    }
    task *t = &step.tasks[step.ntasks++];
    memset(t, 0, sizeof *t);
    return t;
}

/* In slurmstepd, once per task, after all tasks are forked. */
int slurm_spank_task_post_fork(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    char node[256], tf[64 + sizeof node];
    pid_t pid;
    uint32_t rank;
    job_user u;
    if (!step.on || !spank_remote(sp))
        return 0;
    if (spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_TASK_GLOBAL_ID, &rank) != ESPANK_SUCCESS) {
        slurm_error("gpu-tracker: cannot read the task's PID or rank from Slurm");
        return 0;
    }
    char jobname[16], stepname[16];
    if (get_job_user(sp, &u) != 0 || open_dir(sp, &u, jobname, stepname) != 0)
        return 0;
    if (spank_getenv(sp, "SLURMD_NODENAME", node, sizeof node) != ESPANK_SUCCESS &&
        gethostname(node, sizeof node) != 0)
        strcpy(node, "node");
    node[sizeof node - 1] = '\0';
    if (!plain_name(node)) {
        slurm_error("gpu-tracker: node name '%s' cannot name a file", node);
        return 0;
    }
    task *t = add_task();
    if (!t) {
        slurm_error("gpu-tracker: out of memory");
        return 0;
    }
    t->pid = pid;
    t->rank = rank;
    snprintf(t->name, sizeof t->name, "%s.%u", node, rank);
    /* The library creates, re-creates and on failure removes the file by
     * name, as root: through /proc/self/fd, the name resolves in the held
     * folder whatever the user renames meanwhile, and its last component is
     * created O_EXCL|O_NOFOLLOW, never followed. */
    snprintf(tf, sizeof tf, "/proc/self/fd/%d/%s.csv", step.dirfd, t->name);
    gt_options o = GT_OPTIONS_INIT;
    o.process_id = pid;
    o.tracking_file = tf;
    o.sleep_time = step.sleep_time;
    o.events = step.events;
    o.log = log_warning;
    gt_error err;
    if (gt_tracker_new(&o, &t->tracker, &err) != GT_OK) {
        slurm_error("gpu-tracker: task %u: %s", rank, err.msg);
        step.ntasks--;
        return 0;
    }
    if (gt_tracker_chown_files(t->tracker, u.uid, u.gid, &err) != GT_OK) {
        slurm_error("gpu-tracker: task %u: %s", rank, err.msg);
        gt_tracker_free(&t->tracker);
        step.ntasks--;
        return 0;
    }
    /* merge groups a job's files by the node their static data names; the
     * library takes it from its own environment, and slurmstepd's is not the
     * job's: say it here.  A column the library wrote already stays. */
    char r[16];
    snprintf(r, sizeof r, "%u", rank);
    (void)gt_tracker_add_static(t->tracker, "host", node, NULL);
    (void)gt_tracker_add_static(t->tracker, "slurm_job_id", jobname, NULL);
    (void)gt_tracker_add_static(t->tracker, "slurm_step_id", stepname, NULL);
    (void)gt_tracker_add_static(t->tracker, "slurm_task_id", r, NULL);
    if (gt_tracker_start(t->tracker, &err) != GT_OK) {
        slurm_error("gpu-tracker: task %u: %s", rank, err.msg);
        gt_tracker_free(&t->tracker);
        step.ntasks--;
    }
    return 0;
}

/* Stops t's tracker and writes its report, created anew by the job's user
 * in the held folder, never through a link. */
static void finish(task *t, const job_user *u)
{
    gt_usage u_;
    gt_metric_run own;
    char name[sizeof t->name + 8];
    saved_ids ids;
    gt_error err;
    if (gt_tracker_stop(t->tracker, &err) != GT_OK)
        slurm_error("gpu-tracker: task %u: %s", t->rank, err.msg);
    snprintf(name, sizeof name, "%s.json", t->name);
    if (gt_tracker_results(t->tracker, &u_, &own, &err) != GT_OK) {
        slurm_error("gpu-tracker: task %u: %s", t->rank, err.msg);
    } else if (u && become_user(u, &ids) == 0) {
        int fd = openat(step.dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        int e = errno;
        if (become_root(&ids) != 0 && fd >= 0) {
            close(fd);
            fd = -1;
        }
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!f) {
            slurm_error("gpu-tracker: cannot create '%s/%s': %s", step.dirname, name, strerror(fd < 0 ? e : errno));
            if (fd >= 0)
                close(fd);
        } else {
            gt_status ws = gt_report_write(&u_, &own, NULL, GT_FORMAT_JSON, f);
            if (fclose(f) != 0 || ws != GT_OK)
                slurm_error("gpu-tracker: cannot write '%s/%s'", step.dirname, name);
        }
    }
    gt_tracker_free(&t->tracker);
}

/* In slurmstepd, once per task, after the task has exited. */
int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    pid_t pid;
    job_user u;
    if (!step.on || !spank_remote(sp) || spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS)
        return 0;
    int known = get_job_user(sp, &u) == 0;
    for (size_t i = 0; i < step.ntasks; i++)
        if (step.tasks[i].pid == pid && step.tasks[i].tracker)
            finish(&step.tasks[i], known ? &u : NULL);
    return 0;
}

/* Trackers whose task_exit never came (the step was torn down) finish
 * here, so their files are complete anyway. */
int slurm_spank_exit(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    job_user u;
    if (!step.on || !spank_remote(sp))
        return 0;
    int known = get_job_user(sp, &u) == 0;
    for (size_t i = 0; i < step.ntasks; i++)
        if (step.tasks[i].tracker)
            finish(&step.tasks[i], known ? &u : NULL);
    free(step.tasks);
    step.tasks = NULL;
    step.ntasks = step.cap = 0;
    /* Last: the trackers named their files through it until freed. */
    if (step.dirfd >= 0)
        close(step.dirfd);
    step.dirfd = -1;
    return 0;
}
