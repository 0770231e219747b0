/* SPDX-License-Identifier: MIT */
/* Starting, waiting for and signalling the tracked command. */
#include "child.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"

void gt_cli_child_init(gt_cli_child *c)
{
    memset(c, 0, sizeof *c);
    c->pid = -1;
    c->gate = c->exec_r = c->sfd = -1;
    c->witness_q = c->witness_a = -1;
    c->early_status = -1;
    sigemptyset(&c->oldmask);
    sigemptyset(&c->taken);
}

/* The signals gpu-tracker takes instead of dying of them: every signal
 * whose default action ends a process and that a user or a scheduler sends
 * (SIGINT and SIGTERM, Slurm's --signal and scancel --signal, timers,
 * power and CPU-limit warnings, real-time signals).  Faults (SIGSEGV,
 * SIGABRT, ...) keep their default: they are gpu-tracker's own bugs.
 * SIGPIPE is ignored and SIGXFSZ too (their writes fail instead). */
static const int taken[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT, SIGUSR1,   SIGUSR2,
                            SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGPWR, SIGIO, SIGSTKFLT};

static int taken_signal(int sig)
{
    for (size_t i = 0; i < sizeof taken / sizeof *taken; i++)
        if (taken[i] == sig)
            return 1;
    return sig >= SIGRTMIN && sig <= SIGRTMAX;
}

void gt_cli_child_take_signals(gt_cli_child *c)
{
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    /* A signal that was ignored when we started (nohup's SIGHUP, SIGINT in
     * a background job) stays ignored, for us and for the command. */
    for (int sig = 1; sig <= SIGRTMAX; sig++) {
        struct sigaction sa;
        if (taken_signal(sig) && sigaction(sig, NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
            sigaddset(&mask, sig);
    }
    sigprocmask(SIG_BLOCK, &mask, &c->oldmask);
    c->sfd = signalfd(-1, &mask, SFD_CLOEXEC);
    c->taken = mask;
    /* The command gets the disposition we were started with. */
    struct sigaction xfsz_ign = {.sa_handler = SIG_IGN};
    sigaction(SIGXFSZ, &xfsz_ign, &c->xfsz_old);
}

void gt_cli_child_raise_nofile(gt_cli_child *c)
{
    if (getrlimit(RLIMIT_NOFILE, &c->nofile) == 0 && c->nofile.rlim_cur < c->nofile.rlim_max) {
        struct rlimit raised = {c->nofile.rlim_max, c->nofile.rlim_max};
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
            c->nofile_raised = 1;
    }
}

/* A query to the witness: a signal and its sender. */
typedef struct witness_query {
    int signo, pid;
} witness_query;

/* The witness's life: it answers each query (1 byte: whether it received
 * that signal from that sender and had not yet been asked about it) until
 * gpu-tracker closes the queries' pipe or exits. */
static void witness_main(int q, int a, const sigset_t *mask)
{
    /* Only its pipes stay open: it must keep no pipe of gpu-tracker's
     * output or file of its from closing. */
    int lo = q < a ? q : a, hi = q < a ? a : q;
    unsigned ranges[3][2] = {{0, (unsigned)lo - 1}, {(unsigned)lo + 1, (unsigned)hi - 1}, {(unsigned)hi + 1, ~0u}};
    for (int i = 0; i < 3; i++) {
        if (ranges[i][0] > ranges[i][1] || (lo == 0 && i == 0))
            continue;
#ifdef SYS_close_range
        if (syscall(SYS_close_range, ranges[i][0], ranges[i][1], 0) == 0)
            continue;
#endif
        for (unsigned fd = ranges[i][0]; fd <= ranges[i][1] && fd < 65536; fd++)
            close((int)fd);
    }
    prctl(PR_SET_NAME, "gpu-tracker-wit", 0, 0, 0);
    int sfd = signalfd(-1, mask, SFD_NONBLOCK | SFD_CLOEXEC);
    enum { KEPT = 64 };
    witness_query seen[KEPT];
    size_t n = 0;
    for (;;) {
        witness_query want;
        ssize_t r = read(q, &want, sizeof want);
        if (r < 0 && errno == EINTR)
            continue;
        if (r != (ssize_t)sizeof want)
            _exit(0);
        struct signalfd_siginfo ssi;
        while (sfd >= 0 && read(sfd, &ssi, sizeof ssi) == (ssize_t)sizeof ssi) {
            if (n == KEPT) { /* the oldest are answers no one asked for */
                memmove(seen, seen + 1, (KEPT - 1) * sizeof *seen);
                n--;
            }
            seen[n++] = (witness_query){(int)ssi.ssi_signo, (int)ssi.ssi_pid};
        }
        char yes = 0;
        for (size_t i = 0; i < n && !yes; i++)
            if (seen[i].signo == want.signo && seen[i].pid == want.pid) {
                memmove(seen + i, seen + i + 1, (n - i - 1) * sizeof *seen);
                n--;
                yes = 1;
            }
        if (write(a, &yes, 1) != 1)
            _exit(0);
    }
}

/* Starts the witness (see child.h): forked twice, so that it is not our
 * child.  Called before we become a subreaper, so it is not adopted back.
 * Without it, c->witness_q stays -1. */
static void start_witness(gt_cli_child *c)
{
    int q[2], a[2];
    if (pipe2(q, O_CLOEXEC) != 0)
        return;
    if (pipe2(a, O_CLOEXEC) != 0) {
        close(q[0]);
        close(q[1]);
        return;
    }
    pid_t mid = fork();
    if (mid == 0) {
        if (fork() == 0)
            witness_main(q[0], a[1], &c->taken);
        _exit(0);
    }
    close(q[0]);
    close(a[1]);
    if (mid < 0 || waitpid(mid, NULL, 0) != mid) {
        close(q[1]);
        close(a[0]);
        return;
    }
    c->witness_q = q[1];
    c->witness_a = a[0];
}

/* Whether the witness received signal signo from pid.  No witness, one
 * gone (killed on its own) or one that does not answer within a second
 * (stopped on its own): no, and it is not asked again. */
static int witness_saw(gt_cli_child *c, int signo, pid_t pid)
{
    witness_query want = {signo, (int)pid};
    char yes = 0;
    if (c->witness_q < 0 || write(c->witness_q, &want, sizeof want) != (ssize_t)sizeof want)
        return 0;
    struct pollfd p = {c->witness_a, POLLIN, 0};
    int r;
    do
        r = poll(&p, 1, 1000);
    while (r < 0 && errno == EINTR);
    if (r == 1 && read(c->witness_a, &yes, 1) == 1)
        return yes;
    close(c->witness_q);
    close(c->witness_a);
    c->witness_q = c->witness_a = -1;
    return 0;
}

/* exec_r is a close-on-exec pipe: EOF means exec succeeded, an int means
 * errno. */
int gt_cli_child_spawn(gt_cli_child *c, char **cmd)
{
    start_witness(c);
    /* Orphaned grandchildren are re-parented to us, not to init, so they
     * stay in the tracked tree. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
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
        char ch;
        ssize_t got;
        while ((got = read(gate[0], &ch, 1)) < 0 && errno == EINTR)
            ;
        /* EOF without a byte: the tracker gave up; do not run the command. */
        if (got != 1)
            _exit(GT_EXIT_FAILURE);
        signal(SIGPIPE, SIG_DFL);
        sigaction(SIGXFSZ, &c->xfsz_old, NULL);
        if (c->nofile_raised)
            setrlimit(RLIMIT_NOFILE, &c->nofile); /* the limit the command was given */
        sigprocmask(SIG_SETMASK, &c->oldmask, NULL);
        execvp(cmd[0], cmd);
        int e = errno;
        if (write(ex[1], &e, sizeof e) < 0)
            _exit(GT_EXIT_NOEXEC);
        _exit(GT_EXIT_NOEXEC);
    }
    int fork_errno = errno;
    close(gate[0]);
    close(ex[1]);
    if (pid < 0) {
        close(gate[1]);
        close(ex[0]);
        errno = fork_errno;
        return -1;
    }
    c->pid = pid;
    c->gate = gate[1];
    c->exec_r = ex[0];
    return 0;
}

int gt_cli_child_release(gt_cli_child *c)
{
    int e = 0;
    if (write(c->gate, "g", 1) != 1) {
        e = errno;
        /* Gone before it was let run: how it ended is the reason to give. */
        if (e == EPIPE && waitpid(c->pid, &c->early_status, 0) == c->pid)
            c->pid = -1;
        return e;
    }
    if (read(c->exec_r, &e, sizeof e) > 0)
        return e ? e : errno;
    /* Both pipes have done their work: under a low open-files limit every
     * descriptor is one more /proc file the sampler can read. */
    close(c->gate);
    close(c->exec_r);
    c->gate = c->exec_r = -1;
    return 0;
}

int gt_cli_exit_status(int status)
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

/* Reads /proc/PID/NAME (its start: size - 1 bytes at most) into buf as a
 * string; 0 if the process is gone or the file cannot be read. */
static int read_proc(pid_t pid, const char *name, char *buf, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, size - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return 1;
}

/* Whether pid is the command or one of its descendants (by its parents
 * now: an orphan adopted by us no longer is). */
static int in_command_tree(pid_t pid, pid_t command)
{
    for (int depth = 0; pid > 1 && depth < 4096; depth++) {
        if (pid == command)
            return 1;
        char buf[512];
        if (!read_proc(pid, "stat", buf, sizeof buf))
            return 0;
        const char *paren = strrchr(buf, ')');
        int ppid;
        if (!paren || sscanf(paren, ") %*c %d", &ppid) != 1)
            return 0;
        pid = ppid;
    }
    return 0;
}

/* Whether a process named comm sent the signal: Slurm's step daemon sends
 * --signal and scancel --signal to every process of the step. */
static int sender_is(pid_t pid, const char *comm)
{
    char buf[32];
    if (!read_proc(pid, "comm", buf, sizeof buf))
        return 0;
    buf[strcspn(buf, "\n")] = '\0';
    return strcmp(buf, comm) == 0;
}

/* Whether a signal gpu-tracker received reached the command by the same
 * delivery, so that forwarding it would deliver it twice: one from the
 * kernel (a terminal's Ctrl-C reaches the whole foreground process group;
 * gpu-tracker's own broken pipe or CPU limit are not the command's), one
 * the command or a descendant sent (they signal the group, or us on
 * purpose), one from Slurm's step daemon (it signals every process of the
 * step), one sent to our process group while the command is still in it
 * (the witness received it too).  Any other sender signalled gpu-tracker
 * alone (kill PID, a supervisor that knows one PID). */
static int reached_command(gt_cli_child *c, const struct signalfd_siginfo *ssi)
{
    pid_t from = (pid_t)ssi->ssi_pid;
    int user = ssi->ssi_code == SI_USER || ssi->ssi_code == SI_QUEUE;
    /* Asked first, whoever sent it: an answer left unasked would make a
     * later signal from the same sender look sent to the group. */
    int group = user && witness_saw(c, (int)ssi->ssi_signo, from);
    if (!user && ssi->ssi_code != SI_TKILL)
        return 1;
    if (from == getpid() || in_command_tree(from, c->pid) || sender_is(from, "slurmstepd"))
        return 1;
    return group && getpgid(c->pid) == getpgrp();
}

/* With wait_descendants, every descendant left is our child once the
 * command has exited: the subreaper inherits the orphans. */
void gt_cli_child_wait(gt_cli_child *c, int wait_descendants)
{
    pid_t child = c->pid;
    int sfd = c->sfd;
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
        if (!reached_command(c, &ssi))
            kill(child, (int)ssi.ssi_signo);
    }
}

int gt_cli_child_reap(gt_cli_child *c, int *status, struct rusage *ru)
{
    pid_t pid = c->pid;
    c->pid = -1;
    return pid > 0 && wait4(pid, status, 0, ru) == pid ? 0 : -1;
}

void gt_cli_child_close(gt_cli_child *c)
{
    if (c->gate >= 0)
        close(c->gate); /* an unopened gate makes the held child exit */
    if (c->exec_r >= 0)
        close(c->exec_r);
    if (c->pid > 0)
        waitpid(c->pid, NULL, 0);
    if (c->sfd >= 0)
        close(c->sfd);
    if (c->witness_q >= 0)
        close(c->witness_q); /* the witness exits */
    if (c->witness_a >= 0)
        close(c->witness_a);
    c->gate = c->exec_r = c->sfd = c->witness_q = c->witness_a = -1;
    c->pid = -1;
}

int gt_cli_attached_wait(pid_t pid, int sfd)
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
