/* SPDX-License-Identifier: MIT */
/* gpu-tracker's SPANK plugin: `srun --gpu-tracker[=DIR]` tracks each task of
 * the step from slurmstepd, on every node, with libgputracker, and writes
 * DIR/<job>.<step>/<node>.<task>.csv (the tracking file) and .json (the
 * report); DIR defaults to the job's working directory.
 *
 * Enabled by one line in plugstack.conf:
 *     optional /usr/local/lib/gpu_tracker_spank.so [st=SECONDS]
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
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "gpu_tracker.h"
#include "util/grow.h"

SPANK_PLUGIN(gpu-tracker, 1)

/* One tracked task. */
typedef struct task {
    pid_t pid;
    uint32_t rank;
    gt_tracker *tracker;
    char report[PATH_MAX];
} task;

static struct {
    int on;                /* --gpu-tracker was given */
    char dir[PATH_MAX];    /* its value, or "" for the job's working directory */
    char cwd[PATH_MAX];    /* the job's working directory, seen in user_init */
    double sleep_time;     /* plugstack.conf's st=, default 1 s */
    task *tasks;
    size_t ntasks, cap;
} step = {.sleep_time = 1.0};

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
            if (*end || !(st >= 0.001) || !isfinite(st))
                slurm_error("gpu-tracker: invalid plugstack.conf argument '%s': st= needs seconds, at least 0.001",
                            av[i]);
            else
                step.sleep_time = st;
        } else
            slurm_error("gpu-tracker: unknown plugstack.conf argument '%s': valid is st=<seconds>", av[i]);
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

/* DIR/<job>.<step>, created for the job's user (slurmstepd is root here);
 * jobname and stepname (16 bytes each) get the job's ID and the step's name. */
static int make_dir(spank_t sp, char *out, size_t size, char *jobname, char *stepname)
{
    uint32_t job = 0, stepid = 0;
    uid_t uid = 0;
    gid_t gid = 0;
    const char *base = step.dir[0] ? step.dir : step.cwd;
    struct stat sb;
    if (!base[0]) {
        slurm_error("gpu-tracker: the job's working directory is unknown; give --gpu-tracker=DIR");
        return -1;
    }
    if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_STEPID, &stepid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS || spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS) {
        slurm_error("gpu-tracker: cannot read the job's ID, step or user from Slurm");
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
    if (snprintf(out, size, "%s/%u.%s", base, job, stepname) >= (int)size) {
        slurm_error("gpu-tracker: directory name '%s/%u.%s' is too long", base, job, stepname);
        return -1;
    }
    if (mkdir(out, 0755) == 0) {
        if (chown(out, uid, gid) != 0)
            slurm_error("gpu-tracker: cannot give '%s' to the job's user: %s", out, strerror(errno));
    } else if (errno != EEXIST) {
        slurm_error("gpu-tracker: cannot create '%s': %s", out, strerror(errno));
        return -1;
    }
    /* Another task of this node may have made it; anything else (a link
     * planted by someone) is refused, since files are written as root. */
    if (lstat(out, &sb) != 0 || !S_ISDIR(sb.st_mode) || (sb.st_uid != uid && sb.st_uid != 0)) {
        slurm_error("gpu-tracker: '%s' is not a directory of the job's user", out);
        return -1;
    }
    return 0;
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
    char dir[PATH_MAX], node[256], tf[PATH_MAX];
    pid_t pid;
    uint32_t rank;
    uid_t uid = 0;
    gid_t gid = 0;
    if (!step.on || !spank_remote(sp))
        return 0;
    if (spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_TASK_GLOBAL_ID, &rank) != ESPANK_SUCCESS) {
        slurm_error("gpu-tracker: cannot read the task's PID or rank from Slurm");
        return 0;
    }
    char jobname[16], stepname[16];
    if (make_dir(sp, dir, sizeof dir, jobname, stepname) != 0)
        return 0;
    if (spank_getenv(sp, "SLURMD_NODENAME", node, sizeof node) != ESPANK_SUCCESS &&
        gethostname(node, sizeof node) != 0)
        strcpy(node, "node");
    node[sizeof node - 1] = '\0';
    task *t = add_task();
    if (!t) {
        slurm_error("gpu-tracker: out of memory");
        return 0;
    }
    t->pid = pid;
    t->rank = rank;
    if (snprintf(tf, sizeof tf, "%s/%s.%u.csv", dir, node, rank) >= (int)sizeof tf ||
        snprintf(t->report, sizeof t->report, "%s/%s.%u.json", dir, node, rank) >= (int)sizeof t->report) {
        slurm_error("gpu-tracker: file names in '%s' are too long", dir);
        step.ntasks--;
        return 0;
    }
    gt_options o = GT_OPTIONS_INIT;
    o.process_id = pid;
    o.tracking_file = tf;
    o.sleep_time = step.sleep_time;
    o.log = log_warning;
    gt_error err;
    if (gt_tracker_new(&o, &t->tracker, &err) != GT_OK) {
        slurm_error("gpu-tracker: task %u: %s", rank, err.msg);
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
    if (gt_tracker_start(t->tracker) != GT_OK) {
        slurm_error("gpu-tracker: task %u: %s", rank, gt_tracker_error(t->tracker));
        gt_tracker_free(&t->tracker);
        step.ntasks--;
        return 0;
    }
    if (spank_get_item(sp, S_JOB_UID, &uid) == ESPANK_SUCCESS && spank_get_item(sp, S_JOB_GID, &gid) == ESPANK_SUCCESS &&
        chown(tf, uid, gid) != 0)
        slurm_error("gpu-tracker: cannot give '%s' to the job's user: %s", tf, strerror(errno));
    return 0;
}

/* Stops t's tracker and writes its report, created anew, never through a
 * link (slurmstepd writes as root into a directory the user owns). */
static void finish(task *t, uid_t uid, gid_t gid)
{
    gt_usage u = GT_USAGE_INIT;
    if (gt_tracker_stop(t->tracker) != GT_OK)
        slurm_error("gpu-tracker: task %u: %s", t->rank, gt_tracker_error(t->tracker));
    if (gt_tracker_usage(t->tracker, &u) != GT_OK) {
        slurm_error("gpu-tracker: task %u: %s", t->rank, gt_tracker_error(t->tracker));
    } else {
        int fd = open(t->report, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!f) {
            slurm_error("gpu-tracker: cannot create '%s': %s", t->report, strerror(errno));
            if (fd >= 0)
                close(fd);
        } else {
            if (fchown(fd, uid, gid) != 0)
                slurm_error("gpu-tracker: cannot give '%s' to the job's user: %s", t->report, strerror(errno));
            gt_status ws = gt_usage_write(&u, GT_FORMAT_JSON, f);
            if (fclose(f) != 0 || ws != GT_OK)
                slurm_error("gpu-tracker: cannot write '%s'", t->report);
        }
    }
    gt_tracker_free(&t->tracker);
}

static void job_user(spank_t sp, uid_t *uid, gid_t *gid)
{
    if (spank_get_item(sp, S_JOB_UID, uid) != ESPANK_SUCCESS || spank_get_item(sp, S_JOB_GID, gid) != ESPANK_SUCCESS)
        *uid = 0, *gid = 0;
}

/* In slurmstepd, once per task, after the task has exited. */
int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    pid_t pid;
    uid_t uid;
    gid_t gid;
    if (!step.on || !spank_remote(sp) || spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS)
        return 0;
    job_user(sp, &uid, &gid);
    for (size_t i = 0; i < step.ntasks; i++)
        if (step.tasks[i].pid == pid && step.tasks[i].tracker)
            finish(&step.tasks[i], uid, gid);
    return 0;
}

/* Trackers whose task_exit never came (the step was torn down) finish
 * here, so their files are complete anyway. */
int slurm_spank_exit(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    uid_t uid;
    gid_t gid;
    if (!step.on || !spank_remote(sp))
        return 0;
    job_user(sp, &uid, &gid);
    for (size_t i = 0; i < step.ntasks; i++)
        if (step.tasks[i].tracker)
            finish(&step.tasks[i], uid, gid);
    free(step.tasks);
    step.tasks = NULL;
    step.ntasks = step.cap = 0;
    return 0;
}
