/* SPDX-License-Identifier: MIT */
/* The tracked command as gpu-tracker's child: started held at a gate until
 * the tracker is ready, its signals taken through a signalfd and forwarded,
 * waited for while the orphans gpu-tracker adopts are reaped. */
#ifndef GT_CLI_CHILD_H
#define GT_CLI_CHILD_H
#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>

typedef struct gt_cli_child {
    pid_t pid;        /* -1: none, or reaped */
    int gate, exec_r; /* the gate's write end, the exec report's read end; -1: closed */
    int sfd;          /* the signalfd; -1: none (then waits poll) */
    sigset_t oldmask; /* the mask gpu-tracker was started with, the command's */
    struct sigaction xfsz_old;
    struct rlimit nofile; /* the open-files limit gpu-tracker was started with */
    int nofile_raised;
    sigset_t taken;       /* the signals read through sfd */
    /* The witness (see gt_cli_child_spawn): queries to it, its answers;
     * -1: none. */
    int witness_q, witness_a;
    int early_status; /* wait status of a child gone before its release; -1: none */
} gt_cli_child;

/* Sets every handle to none. */
void gt_cli_child_init(gt_cli_child *c);

/* Blocks SIGCHLD and the signals to forward (those not ignored at start)
 * on this thread, for threads created later too, and reads them through
 * c->sfd; ignores SIGXFSZ, so that a full tracking file fails a write
 * instead of killing gpu-tracker. */
void gt_cli_child_take_signals(gt_cli_child *c);

/* Raises the open-files limit to the hard limit (a large tree costs one
 * descriptor per process); the command gets the old limit back. */
void gt_cli_child_raise_nofile(gt_cli_child *c);

/* Starts the witness, makes gpu-tracker a subreaper and forks cmd, held at
 * the gate.  The witness is a process of gpu-tracker's process group (not
 * its child: it is no descendant) that takes the same signals and tells
 * gpu-tracker whether one it received also reached the group: the kernel
 * delivers a signal sent to a process group to its newest members first,
 * so the witness has it before gpu-tracker does.  Without one (fork
 * refused), signals from other processes are forwarded.  Returns 0, or -1
 * with errno set. */
int gt_cli_child_spawn(gt_cli_child *c, char **cmd);

/* Opens the gate.  Returns 0 once the command runs, or the errno of the
 * failed exec (EPIPE if the child is gone: then it is reaped, and
 * early_status says how it ended). */
int gt_cli_child_release(gt_cli_child *c);

/* Waits for the child to exit, forwarding signals sent to gpu-tracker and
 * reaping orphaned descendants; with wait_descendants, then until no
 * descendant is left or a signal says stop.  The child is left a zombie,
 * so that the last sample still sees its final CPU times. */
void gt_cli_child_wait(gt_cli_child *c, int wait_descendants);

/* Reaps the child into *status and *ru.  Returns 0, or -1 if it was not
 * reaped (*status and *ru untouched). */
int gt_cli_child_reap(gt_cli_child *c, int *status, struct rusage *ru);

/* Closes the gate (a child still held exits without running the command),
 * reaps the child if still there, and closes the signalfd. */
void gt_cli_child_close(gt_cli_child *c);

/* Waits until process pid (not our child) exits or a signal arrives on
 * sfd.  Returns 1 if interrupted, 0 if it exited. */
int gt_cli_attached_wait(pid_t pid, int sfd);

/* A wait status as an exit status: the code, or 128+N for signal N. */
int gt_cli_exit_status(int status);

#endif
