/* SPDX-License-Identifier: MIT */
/* sigself SIGNAL: dies of signal number SIGNAL (9: a tracker must report
 * status 137), with its default action restored and no core file.  A
 * signal whose default action is to ignore or stop is refused. */
#include <signal.h>
#include <sys/resource.h>

#include "wl.h"

#define USAGE "sigself SIGNAL"

int main(int argc, char **argv)
{
    if (argc != 2)
        wl_usage(USAGE);
    int sig = (int)wl_long(argv[1], 1, SIGRTMAX, USAGE);
    if (sig == SIGCHLD || sig == SIGCONT || sig == SIGURG || sig == SIGWINCH ||
        sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
        fprintf(stderr, "signal %d does not end a process by default\n", sig);
        wl_usage(USAGE);
    }
    /* A core file from SIGSEGV or SIGABRT would only litter the test. */
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    /* The tracker may have passed an ignored or blocked signal down. */
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    kill(getpid(), sig);
    fprintf(stderr, "sigself: still alive after signal %d\n", sig);
    return 1;
}
