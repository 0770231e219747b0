/* SPDX-License-Identifier: MIT */
/* sigcount OUT: counts the signals it receives (USR1, USR2, ALRM, HUP,
 * VTALRM, PROF, XCPU, PWR, IO, RTMIN, RTMAX) and after each one rewrites OUT as
 * lines "NAME COUNT" (written to OUT.tmp and renamed, so a reader never
 * sees half a file); exits 0 on SIGTERM.  OUT holds "ready" lines once the
 * handlers are in place.  The ground truth for how often a signal sent to
 * a tracker reached the command it runs. */
#include <signal.h>
#include <stdio.h>

#include "wl.h"

#define USAGE "sigcount OUT"

static const struct {
    int sig;
    const char *name;
} counted[] = {{SIGUSR1, "USR1"},     {SIGUSR2, "USR2"}, {SIGALRM, "ALRM"}, {SIGHUP, "HUP"},
               {SIGVTALRM, "VTALRM"}, {SIGPROF, "PROF"}, {SIGXCPU, "XCPU"}, {SIGPWR, "PWR"},
               {SIGIO, "IO"},         {0, "RTMIN"},      {-1, "RTMAX"}};
#define N_COUNTED (sizeof counted / sizeof *counted)

/* SIGRTMIN and SIGRTMAX are not constants. */
static int signo(size_t i)
{
    return counted[i].sig > 0 ? counted[i].sig : counted[i].sig == 0 ? SIGRTMIN : SIGRTMAX;
}

static void write_counts(const char *out, const unsigned *counts)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", out);
    FILE *f = fopen(tmp, "w");
    if (!f)
        wl_die("fopen");
    fprintf(f, "ready\n");
    for (size_t i = 0; i < N_COUNTED; i++)
        fprintf(f, "%s %u\n", counted[i].name, counts[i]);
    if (fclose(f) != 0 || rename(tmp, out) != 0)
        wl_die("write");
}

int main(int argc, char **argv)
{
    if (argc != 2)
        wl_usage(USAGE);
    /* Every counted signal and SIGTERM are taken one at a time with
     * sigwaitinfo, in the order the kernel delivers them. */
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < N_COUNTED; i++)
        sigaddset(&set, signo(i));
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, NULL);
    unsigned counts[N_COUNTED] = {0};
    write_counts(argv[1], counts);
    for (;;) {
        int sig = sigwaitinfo(&set, NULL);
        if (sig < 0) {
            if (errno == EINTR)
                continue;
            wl_die("sigwaitinfo");
        }
        if (sig == SIGTERM)
            return 0;
        for (size_t i = 0; i < N_COUNTED; i++)
            if (sig == signo(i))
                counts[i]++;
        write_counts(argv[1], counts);
    }
}
