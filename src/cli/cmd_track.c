/* SPDX-License-Identifier: MIT */
/* gpu-tracker [options] -e "cmd" | -- cmd args... | --attach=PID
 *
 * Runs the command as a child (no shell), tracks it and every descendant
 * until it exits, prints the report, and exits with the command's status.
 * The options are in track_options.c, the child's handling in child.c. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "argv.h"
#include "cgroup/cgroup.h"
#include "child.h"
#include "commands.h"
#include "efficiency.h"
#include "gpu_tracker.h"
#include "jobname.h"
#include "live.h"
#include "metrics/metrics.h"
#include "options.h"
#include "outfile.h"
#include "report/usage_write.h"
#include "tracker/gpu_tally.h"
#include "track_options.h"
#include "tracker/owner.h"
#include "util/timespec.h"

/* Where each sample goes while the command runs, besides the tracker. */
typedef struct watchers {
    gt_tracker *t; /* set before its first sample */
    gt_cli_live *live;
    gt_metrics *metrics;
    double cpu_seconds; /* the last sample's, for --efficiency on --attach; < 0 before */
} watchers;

static void on_timepoint(void *ctx, const gt_timepoint *tp)
{
    watchers *w = ctx;
    if (tp->cpu_valid)
        w->cpu_seconds = tp->cpu_combined_seconds;
    if (w->live)
        gt_cli_live_update(w->live, tp);
    if (w->metrics) {
        /* The metric table's own rows beside the timepoint, which has none
         * (a new figure needs no struct version): tp's sample is the
         * aggregate's latest, as this runs on the sampling thread. */
        gt_aggregate a;
        double own[GT_METRIC_NOWN_COLUMNS];
        gt_tracker_aggregate(w->t, &a);
        for (int k = 0; k < GT_METRIC_NOWN_COLUMNS; k++)
            own[k] = a.own.col[k].now;
        gt_metrics_update_own(w->metrics, tp, own);
    }
}

/* Writes the report to out.  A reader that closed the pipe it reads our
 * stdout from (`gpu-tracker ... | head -1`) wanted no more: that is not a
 * failure, and the command's own status stands. */
static int write_report(gt_tracker *t, const gt_cli_track_settings *s, const gt_cli_eff_facts *facts, FILE *out)
{
    gt_usage u;
    gt_metric_run own;
    gt_error err;
    if (gt_tracker_results(t, &u, &own, &err) != GT_OK) {
        fprintf(stderr, "gpu-tracker: %s\n", err.msg);
        return GT_EXIT_FAILURE;
    }
    gt_format fmt = s->format && !strcmp(s->format, "json") ? GT_FORMAT_JSON : GT_FORMAT_TEXT;
    gt_efficiency eff;
    if (s->efficiency)
        gt_cli_efficiency(&u, facts, &eff);
    /* The library's report ends where the Python package's str() does; a
     * report on the screen or in a file ends its last line. */
    errno = 0;
    gt_status st = gt_report_write(&u, &own, s->efficiency ? &eff : NULL, fmt, out);
    if (st != GT_OK || fputc('\n', out) == EOF || fflush(out) != 0 || ferror(out)) {
        if (out == stdout && errno == EPIPE)
            return 0;
        fprintf(stderr, "gpu-tracker: cannot write the report to '%s': %s\n", s->output ? s->output : "stdout",
                gt_cli_write_reason(st));
        return GT_EXIT_FAILURE;
    }
    return 0;
}

/* One run of the command: what it holds, each released by run_free. */
typedef struct run {
    gt_cli_track_settings s;
    char **split;        /* -e's words */
    char *job_names[2];  /* output and tracking_file with Slurm patterns expanded */
    gt_cli_outfile out;
    gt_cli_child child;
    gt_cgroup_made cgroup; /* --cgroup's group */
    gt_tracker *t;
    watchers w;
    struct rusage self_ru; /* ours at fork: the child's ru_maxrss starts from it */
    struct timespec released; /* when the command was let run */
} run;

static void run_init(run *r)
{
    memset(r, 0, sizeof *r);
    gt_cli_track_settings_init(&r->s);
    r->s.o.log = gt_cli_log_stderr;
    gt_cli_child_init(&r->child);
    r->w.cpu_seconds = -1;
}

static void run_free(run *r)
{
    gt_cli_child_close(&r->child);
    /* After the reap: an empty group can go.  Processes the command left
     * running keep it, and the user is told (whatever the logging: a group
     * is left on the system). */
    gt_error e;
    if (r->cgroup.n && gt_cgroup_remove(&r->cgroup, &e) != GT_OK)
        fprintf(stderr, "gpu-tracker: warning: %s\n", e.msg);
    gt_tracker_free(&r->t);
    gt_cli_live_stop(&r->w.live);
    gt_metrics_free(&r->w.metrics);
    gt_cli_outfile_discard(&r->out);
    for (int i = 0; i < 2; i++)
        free(r->job_names[i]);
    gt_argv_free(&r->split);
    gt_cli_track_settings_free(&r->s);
}

/* Everything that can be refused before anything starts: -e's words, the
 * file names, the report file (nothing is written under its name before
 * the report is complete, so a run refused later leaves an existing file
 * as it was). */
static int prepare(run *r)
{
    gt_cli_track_settings *s = &r->s;
    int rc;
    if (s->execute) {
        int split_argc = 0;
        gt_error e;
        if (gt_argv_split(s->execute, &split_argc, &r->split, &e) != GT_OK)
            return gt_cli_usage_error("%s", e.msg);
        if (split_argc == 0)
            return gt_cli_usage_error("the command given to --execute is empty");
        s->cmd = r->split;
    }
    if (s->o.per_gpu && !s->o.tracking_file)
        return gt_cli_usage_error("--per-gpu needs a tracking file (--tf) to write its rows to");
    if ((rc = gt_cli_job_names(&s->output, &s->o.tracking_file, r->job_names)))
        return rc;
    /* The report would go into the tracking file or a file beside it, or
     * (with --overwrite) to the old file's inode, unlinked when the
     * tracking file replaces it. */
    if (s->output && s->o.tracking_file &&
        (rc = gt_cli_outfile_check(s->output, "--output", &s->o.tracking_file, 1, "the tracking file (--tf)")))
        return rc;
    if (s->output && (rc = gt_cli_outfile_open(s->output, &r->out)) != 0)
        return rc;
    return 0;
}

/* Opened after the signal mask is set: its thread must not take our
 * signals. */
static int open_metrics(run *r)
{
    if (!r->s.metrics)
        return 0;
    gt_error e;
    if (gt_metrics_open(r->s.metrics, &r->w.metrics, &e) != GT_OK)
        return gt_cli_usage_error("%s", e.msg);
    if (!r->s.quiet)
        fprintf(stderr, "gpu-tracker: metrics at http://%s/metrics\n", gt_metrics_address(r->w.metrics));
    return 0;
}

/* Forks the command, held at its gate, or finds the process to attach to. */
static int start_target(run *r)
{
    gt_cli_track_settings *s = &r->s;
    gt_cli_child_raise_nofile(&r->child);
    if (s->attach) {
        s->o.process_id = s->attach;
        if (kill(s->attach, 0) != 0 && errno == ESRCH) {
            fprintf(stderr, "gpu-tracker: no process with PID %d\n", (int)s->attach);
            return GT_EXIT_USAGE;
        }
        return 0;
    }
    getrusage(RUSAGE_SELF, &r->self_ru);
    if (gt_cli_child_spawn(&r->child, s->cmd) != 0) {
        fprintf(stderr, "gpu-tracker: cannot start '%s': %s\n", s->cmd[0], strerror(errno));
        return GT_EXIT_FAILURE;
    }
    s->o.process_id = r->child.pid;
    s->o.tree_root = getpid();
    /* Moved while held: nothing of the command runs outside the group. */
    gt_error e;
    if (s->cgroup && gt_cgroup_create(NULL, NULL, r->child.pid, &r->cgroup, &e) != GT_OK) {
        fprintf(stderr, "gpu-tracker: --cgroup: %s\n", e.msg);
        return GT_EXIT_USAGE;
    }
    return 0;
}

/* Creates the tracker, lets the command run, and starts sampling. */
static int start_tracking(run *r)
{
    gt_cli_track_settings *s = &r->s;
    gt_error err;
    s->o.on_timepoint = on_timepoint;
    s->o.on_timepoint_ctx = &r->w;
    if (gt_tracker_new(&s->o, &r->t, &err) != GT_OK) {
        fprintf(stderr, "gpu-tracker: %s\n", err.msg);
        return GT_EXIT_USAGE;
    }
    r->w.t = r->t;
    if (!s->attach) {
        int e = gt_cli_child_release(&r->child);
        int st = r->child.early_status;
        if (e && st != -1 && WIFSIGNALED(st)) {
            fprintf(stderr, "gpu-tracker: cannot run '%s': its process was killed by signal %d (%s) before it started\n",
                    s->cmd[0], WTERMSIG(st), strsignal(WTERMSIG(st)));
            return GT_EXIT_NOEXEC;
        }
        if (e && st != -1) {
            fprintf(stderr, "gpu-tracker: cannot run '%s': its process exited with status %d before it started\n",
                    s->cmd[0], WEXITSTATUS(st));
            return GT_EXIT_NOEXEC;
        }
        if (e) {
            fprintf(stderr, "gpu-tracker: cannot run '%s': %s\n", s->cmd[0], strerror(e));
            return GT_EXIT_NOEXEC;
        }
        clock_gettime(CLOCK_MONOTONIC, &r->released);
    }
    if (!s->quiet)
        r->w.live = gt_cli_live_start(STDERR_FILENO);
    if (gt_tracker_start(r->t, &err) != GT_OK) {
        fprintf(stderr, "gpu-tracker: %s\n", err.msg);
        return GT_EXIT_FAILURE;
    }
    return 0;
}

/* Reaps the command and prints its status line; returns the command's
 * exit status as ours. */
static int end_child(run *r)
{
    int status = 0;
    struct rusage ru;
    if (gt_cli_child_reap(&r->child, &status, &ru) == 0)
        gt_tracker_set_main_maxrss(r->t, (uint64_t)ru.ru_maxrss * 1024, (uint64_t)r->self_ru.ru_maxrss * 1024);
    int code = WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
    size_t left = gt_tracker_descendants_alive(r->t);
    if (left > 0 && !r->s.o.disable_logs)
        fprintf(stderr,
                "gpu-tracker: warning: the command exited leaving %zu descendant process%s running, "
                "not tracked after that (--wait-descendants tracks until they exit)\n",
                left, left == 1 ? "" : "es");
    printf("Resource tracking complete. Process completed with status code: %d\n", code);
    return gt_cli_exit_status(status);
}

/* Waits for the end of the command (or of the attached process, or the
 * user's interrupt), stops tracking and writes the report. */
static int finish(run *r)
{
    gt_cli_track_settings *s = &r->s;
    int rc, interrupted = 0;
    if (!s->attach)
        gt_cli_child_wait(&r->child, s->wait_descendants);
    else
        interrupted = gt_cli_attached_wait(s->attach, r->child.sfd);
    gt_error stop_err;
    gt_status st = gt_tracker_stop(r->t, &stop_err);
    struct timespec ended;
    clock_gettime(CLOCK_MONOTONIC, &ended);
    gt_cli_live_stop(&r->w.live); /* after the last sample, before the report */
    if (!s->attach) {
        rc = end_child(r);
    } else {
        rc = 0;
        if (interrupted)
            printf("Resource tracking stopped. Process %d is still running.\n", (int)s->attach);
        else
            printf("Resource tracking complete. Process %d has exited.\n", (int)s->attach);
    }
    if (fflush(stdout) != 0 && errno == EPIPE)
        clearerr(stdout);
    /* Samples were lost (tracking file unwritable, /proc unreadable): the
     * message says which, and a command that succeeded exits with 1, as for
     * a report that cannot be written. */
    if (st != GT_OK) {
        fprintf(stderr, "gpu-tracker: %s\n", stop_err.msg);
        if (rc == 0)
            rc = GT_EXIT_FAILURE;
    }
    gt_aggregate agg;
    gt_tracker_aggregate(r->t, &agg);
    gt_cli_eff_facts facts = {.attached = s->attach != 0, .descendants_left = gt_tracker_descendants_alive(r->t),
                              .sampled_cpu_s = r->w.cpu_seconds, .gpus = &agg.gpus,
                              .wall_s = s->attach ? -1 : gt_ts_elapsed(&r->released, &ended)};
    if (write_report(r->t, s, &facts, r->out.f ? r->out.f : stdout) != 0) {
        if (rc == 0)
            rc = GT_EXIT_FAILURE;
        gt_cli_outfile_discard(&r->out); /* an older report stays whole */
    } else if (gt_cli_outfile_commit(&r->out) != 0 && rc == 0) {
        rc = GT_EXIT_FAILURE;
    }
    return rc;
}

int gt_cli_track(int argc, char **argv)
{
    run r;
    run_init(&r);
    int rc = gt_cli_track_parse(argc, argv, &r.s);
    if (rc == 0) {
        /* A reader that goes away must not kill us before the command's
         * status is known; our writes see EPIPE instead.  The signals are
         * taken before any file is created: from here on none ends us
         * with a temporary file left behind. */
        signal(SIGPIPE, SIG_IGN);
        gt_cli_child_take_signals(&r.child);
    }
    if (rc == 0 && (rc = prepare(&r)) == 0) {
        if ((rc = open_metrics(&r)) == 0 && (rc = start_target(&r)) == 0 && (rc = start_tracking(&r)) == 0)
            rc = finish(&r);
    }
    run_free(&r);
    return rc < 0 ? 0 : rc;
}
