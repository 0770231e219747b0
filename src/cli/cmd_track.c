/* SPDX-License-Identifier: MIT */
/* gpu-tracker [options] -e "cmd" | -- cmd args... | --attach=PID
 *
 * Runs the command as a child (no shell), tracks it and every descendant
 * until it exits, prints the report, and exits with the command's status.
 * The options are in track_options.c. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>

#include "commands.h"
#include "jobname.h"
#include "options.h"
#include "gpu_tracker.h"
#include "live.h"
#include "outfile.h"
#include "track_options.h"
#include "argv.h"

/* Forks the command, held at a gate until the tracker is ready.  exec_fd is
 * a close-on-exec pipe: EOF means exec succeeded, an int means errno. */
static pid_t spawn_gated(char **cmd, const sigset_t *oldmask, const struct sigaction *xfsz,
                         const struct rlimit *nofile, int *gate_w, int *exec_r)
{
    int gate[2], ex[2];
    if (pipe2(gate, O_CLOEXEC) != 0)
        return -1;
    if (pipe2(ex, O_CLOEXEC) != 0) {
        close(gate[0]);
        close(gate[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(gate[1]);
        close(ex[0]);
        char c;
        /* EOF without a byte: the tracker gave up; do not run the command. */
        if (read(gate[0], &c, 1) != 1)
            _exit(GT_EXIT_FAILURE);
        signal(SIGPIPE, SIG_DFL);
        sigaction(SIGXFSZ, xfsz, NULL);
        if (nofile)
            setrlimit(RLIMIT_NOFILE, nofile); /* the limit the command was given */
        sigprocmask(SIG_SETMASK, oldmask, NULL);
        execvp(cmd[0], cmd);
        int e = errno;
        if (write(ex[1], &e, sizeof e) < 0)
            _exit(GT_EXIT_NOEXEC);
        _exit(GT_EXIT_NOEXEC);
    }
    close(gate[0]);
    close(ex[1]);
    if (pid < 0) {
        close(gate[1]);
        close(ex[0]);
        return -1;
    }
    *gate_w = gate[1];
    *exec_r = ex[0];
    return pid;
}

static int exit_status_of(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return GT_EXIT_FAILURE;
}

/* Reaps this process's exited children other than keep, and returns how
 * many are still running.  Orphans re-parented to a subreaper become
 * children of any of its threads, so every thread's list is read. */
static int reap_others(pid_t keep)
{
    int alive = 0;
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        char path[64], buf[4096];
        snprintf(path, sizeof path, "/proc/self/task/%.20s/children", de->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
        if (fd >= 0)
            close(fd);
        if (n <= 0)
            continue;
        buf[n] = '\0';
        for (char *p = buf, *end; *p; p = end) {
            long pid = strtol(p, &end, 10);
            if (end == p)
                break;
            if (pid > 0 && pid != keep && waitpid((pid_t)pid, NULL, WNOHANG) == 0)
                alive++;
        }
    }
    closedir(d);
    return alive;
}

/* Waits for the child to exit, forwarding signals sent to the tracker and
 * reaping orphaned descendants that the subreaper inherits; with
 * wait_descendants, then until no descendant is left (every one is then
 * our child: the subreaper inherits the orphans), or a signal to stop.
 * Returns once the child is a zombie (not yet reaped, so the last sample
 * still sees its final CPU times). */
static void wait_child(pid_t child, int sfd, int wait_descendants)
{
    int child_done = 0;
    for (;;) {
        siginfo_t si = {0};
        if (!child_done && waitid(P_PID, (id_t)child, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
            si.si_pid == child) {
            if (!wait_descendants)
                return;
            child_done = 1;
        }
        /* With the child a zombie, waitid(P_ALL) would keep finding it. */
        if (child_done && reap_others(child) == 0)
            return;
        /* Reap other exited children (orphans we adopted). */
        for (;;) {
            memset(&si, 0, sizeof si);
            if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0 ||
                si.si_pid == child)
                break;
            waitpid(si.si_pid, NULL, 0);
        }
        struct signalfd_siginfo ssi;
        ssize_t n = sfd >= 0 ? read(sfd, &ssi, sizeof ssi) : -1;
        if (n != (ssize_t)sizeof ssi) {
            if (sfd < 0)
                usleep(10000); /* no signalfd: poll for the child's exit */
            continue;
        }
        if (ssi.ssi_signo == SIGCHLD)
            continue;
        if (child_done)
            return; /* stop waiting for descendants; they run on */
        /* A terminal's Ctrl-C already reached the child's process group;
         * forward only signals sent to the tracker itself (kill, timeout). */
        if (ssi.ssi_code == SI_USER || ssi.ssi_code == SI_QUEUE || ssi.ssi_code == SI_TKILL)
            kill(child, (int)ssi.ssi_signo);
    }
}

/* Waits until the attached process exits or the user interrupts. */
static int wait_attached(pid_t pid, int sfd)
{
    int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
    for (;;) {
        struct pollfd fds[2] = {{sfd, POLLIN, 0}, {pfd, POLLIN, 0}};
        int r = poll(fds, pfd >= 0 ? 2 : 1, pfd >= 0 ? -1 : 50);
        if (r > 0 && (fds[0].revents & POLLIN)) {
            struct signalfd_siginfo ssi;
            if (read(sfd, &ssi, sizeof ssi) == (ssize_t)sizeof ssi && ssi.ssi_signo != SIGCHLD) {
                if (pfd >= 0)
                    close(pfd);
                return 1; /* interrupted */
            }
        }
        if ((pfd >= 0 && r > 0 && (fds[1].revents & POLLIN)) || (pfd < 0 && kill(pid, 0) != 0 && errno == ESRCH))
            break;
    }
    if (pfd >= 0)
        close(pfd);
    return 0;
}

/* Where each sample goes while the command runs, besides the tracker. */
typedef struct watchers {
    gt_cli_live *live;
    gt_metrics *metrics;
} watchers;

static void on_timepoint(void *ctx, const gt_timepoint *tp)
{
    watchers *w = ctx;
    if (w->live)
        gt_cli_live_update(w->live, tp);
    if (w->metrics)
        gt_metrics_update(w->metrics, tp);
}

/* Writes the report to out.  A reader that closed the pipe it reads our
 * stdout from (`gpu-tracker ... | head -1`) wanted no more: that is not a
 * failure, and the command's own status stands. */
static int write_report(gt_tracker *t, const gt_cli_track_settings *s, FILE *out)
{
    gt_usage u;
    if (gt_tracker_usage(t, &u) != GT_OK) {
        fprintf(stderr, "gpu-tracker: %s\n", gt_tracker_error(t));
        return GT_EXIT_FAILURE;
    }
    gt_format fmt = s->format && !strcmp(s->format, "json") ? GT_FORMAT_JSON : GT_FORMAT_TEXT;
    /* The library's report ends where the Python package's str() does; a
     * report on the screen or in a file ends its last line. */
    if (gt_usage_write(&u, fmt, out) != GT_OK || fputc('\n', out) == EOF || fflush(out) != 0 || ferror(out)) {
        if (out == stdout && errno == EPIPE)
            return 0;
        fprintf(stderr, "gpu-tracker: cannot write the report to '%s': %s\n", s->output ? s->output : "stdout",
                strerror(errno));
        return GT_EXIT_FAILURE;
    }
    return 0;
}

int gt_cli_track(int argc, char **argv)
{
    gt_cli_track_settings s;
    gt_cli_track_settings_init(&s);
    s.o.log = gt_cli_log_stderr;
    int rc = gt_cli_track_parse(argc, argv, &s);
    int split_argc = 0;
    char **split = NULL;
    char *job_names[2] = {NULL, NULL}; /* output and tracking_file with Slurm patterns expanded */
    gt_cli_outfile out = {0};
    gt_tracker *t = NULL;
    int sfd = -1, gate = -1, exec_r = -1;
    pid_t child = -1;
    sigset_t mask, oldmask;
    watchers w = {NULL, NULL};
    if (rc) {
        rc = rc < 0 ? 0 : rc;
        goto done;
    }
    if (s.execute) {
        gt_error e;
        if (gt_argv_split(s.execute, &split_argc, &split, &e) != GT_OK) {
            rc = gt_cli_usage_error("%s", e.msg);
            goto done;
        }
        if (split_argc == 0) {
            rc = gt_cli_usage_error("the command given to --execute is empty");
            goto done;
        }
        s.cmd = split;
    }
    if ((rc = gt_cli_job_names(&s.output, &s.o.tracking_file, job_names)))
        goto done;
    /* The report would go into the tracking file, or (with --overwrite) to
     * the old file's inode, unlinked when the tracking file replaces it. */
    if (s.output && s.o.tracking_file && gt_cli_same_file(s.output, s.o.tracking_file)) {
        rc = gt_cli_usage_error("the report (--output '%s') and the tracking file (--tf '%s') must be different "
                                "files", s.output, s.o.tracking_file);
        goto done;
    }
    /* Nothing is written under the report's name before the report is
     * complete: a run refused below leaves an existing file as it was. */
    if (s.output && (rc = gt_cli_outfile_open(s.output, &out)) != 0)
        goto done;
    /* A reader that goes away must not kill us before the command's status
     * is known; our writes see EPIPE instead. */
    signal(SIGPIPE, SIG_IGN);

    /* Signals are taken through a signalfd on this thread only; the
     * sampling thread created later inherits the blocked mask. */
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    /* A signal that was ignored when we started (nohup's SIGHUP, SIGINT in
     * a background job) stays ignored, for us and for the command. */
    const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof forwarded / sizeof *forwarded; i++) {
        struct sigaction sa;
        if (sigaction(forwarded[i], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
            sigaddset(&mask, forwarded[i]);
    }
    sigprocmask(SIG_BLOCK, &mask, &oldmask);
    sfd = signalfd(-1, &mask, SFD_CLOEXEC);
    /* A tracking file that reaches the file-size limit (ulimit -f) must fail
     * its write with EFBIG, not kill the tracker; the command gets the
     * disposition we were started with. */
    struct sigaction xfsz_ign = {.sa_handler = SIG_IGN}, xfsz_old;
    sigaction(SIGXFSZ, &xfsz_ign, &xfsz_old);
    /* Opened after the mask is set: its thread must not take our signals. */
    if (s.metrics) {
        gt_error e;
        if (gt_metrics_open(s.metrics, &w.metrics, &e) != GT_OK) {
            rc = gt_cli_usage_error("%s", e.msg);
            goto done;
        }
        if (!s.quiet)
            fprintf(stderr, "gpu-tracker: metrics at http://%s/metrics\n", gt_metrics_address(w.metrics));
    }

    /* Every process of a large tree costs descriptors: take what the hard
     * limit allows (the command gets its own limit back before exec). */
    struct rlimit nofile;
    const struct rlimit *restore = NULL;
    if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
        struct rlimit raised = {nofile.rlim_max, nofile.rlim_max};
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
            restore = &nofile;
    }
    gt_error err;
    struct rusage self_ru;
    if (!s.attach) {
        /* Orphaned grandchildren are re-parented to us, not to init, so they
         * stay in the tracked tree. */
        prctl(PR_SET_CHILD_SUBREAPER, 1);
        getrusage(RUSAGE_SELF, &self_ru);
        child = spawn_gated(s.cmd, &oldmask, &xfsz_old, restore, &gate, &exec_r);
        if (child < 0) {
            fprintf(stderr, "gpu-tracker: cannot start '%s': %s\n", s.cmd[0], strerror(errno));
            rc = GT_EXIT_FAILURE;
            goto done;
        }
        s.o.process_id = child;
        s.o.tree_root = getpid();
    } else {
        s.o.process_id = s.attach;
        if (kill(s.attach, 0) != 0 && errno == ESRCH) {
            fprintf(stderr, "gpu-tracker: no process with PID %d\n", (int)s.attach);
            rc = GT_EXIT_USAGE;
            goto done;
        }
    }
    s.o.on_timepoint = on_timepoint;
    s.o.on_timepoint_ctx = &w;
    if (gt_tracker_new(&s.o, &t, &err) != GT_OK) {
        fprintf(stderr, "gpu-tracker: %s\n", err.msg);
        rc = GT_EXIT_USAGE;
        goto done;
    }
    if (!s.attach) {
        int e = 0;
        if (write(gate, "g", 1) != 1 || read(exec_r, &e, sizeof e) > 0) {
            fprintf(stderr, "gpu-tracker: cannot run '%s': %s\n", s.cmd[0], strerror(e ? e : errno));
            rc = GT_EXIT_NOEXEC;
            goto done;
        }
    }
    if (!s.quiet)
        w.live = gt_cli_live_start(STDERR_FILENO);
    if (gt_tracker_start(t) != GT_OK) {
        fprintf(stderr, "gpu-tracker: %s\n", gt_tracker_error(t));
        rc = GT_EXIT_FAILURE;
        goto done;
    }
    int status = 0, interrupted = 0;
    if (!s.attach) {
        wait_child(child, sfd, s.wait_descendants);
    } else {
        interrupted = wait_attached(s.attach, sfd);
    }
    gt_status st = gt_tracker_stop(t);
    gt_cli_live_stop(&w.live); /* after the last sample, before the report */
    if (!s.attach) {
        struct rusage ru;
        if (wait4(child, &status, 0, &ru) == child)
            gt_tracker_set_main_maxrss(t, (uint64_t)ru.ru_maxrss * 1024, (uint64_t)self_ru.ru_maxrss * 1024);
        child = -1;
        rc = exit_status_of(status);
        int code = WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
        size_t left = gt_tracker_descendants_alive(t);
        if (left > 0 && !s.o.disable_logs)
            fprintf(stderr,
                    "gpu-tracker: warning: the command exited leaving %zu descendant process%s running, "
                    "not tracked after that (--wait-descendants tracks until they exit)\n",
                    left, left == 1 ? "" : "es");
        printf("Resource tracking complete. Process completed with status code: %d\n", code);
    } else {
        rc = 0;
        if (interrupted)
            printf("Resource tracking stopped. Process %d is still running.\n", (int)s.attach);
        else
            printf("Resource tracking complete. Process %d has exited.\n", (int)s.attach);
    }
    if (fflush(stdout) != 0 && errno == EPIPE)
        clearerr(stdout);
    /* Samples were lost (tracking file unwritable, /proc unreadable): the
     * message says which, and a command that succeeded exits with 1, as for
     * a report that cannot be written. */
    if (st != GT_OK) {
        fprintf(stderr, "gpu-tracker: %s\n", gt_tracker_error(t));
        if (rc == 0)
            rc = GT_EXIT_FAILURE;
    }
    if (write_report(t, &s, out.f ? out.f : stdout) != 0) {
        if (rc == 0)
            rc = GT_EXIT_FAILURE;
        gt_cli_outfile_discard(&out); /* an older report stays whole */
    } else if (gt_cli_outfile_commit(&out) != 0 && rc == 0) {
        rc = GT_EXIT_FAILURE;
    }

done:
    if (gate >= 0)
        close(gate); /* an unopened gate makes the held child exit */
    if (exec_r >= 0)
        close(exec_r);
    if (child > 0)
        waitpid(child, NULL, 0);
    gt_tracker_free(&t);
    gt_cli_live_stop(&w.live);
    gt_metrics_free(&w.metrics);
    if (sfd >= 0)
        close(sfd);
    gt_cli_outfile_discard(&out);
    for (int i = 0; i < 2; i++)
        free(job_names[i]);
    gt_cli_track_settings_free(&s);
    gt_argv_free(&split);
    return rc;
}
