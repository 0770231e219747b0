#include "energy/energy.h"
#include "energy/rapl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/error.h"
#include "util/units.h"

#define MAX_DOMAINS GT_ENERGY_MAX_DOMAINS

const char gt_energy_cpu_method[] =
    "cpu_time_share: each sample interval's energy times the tracked processes' share of the "
    "machine's busy CPU time in that interval (their utime+stime over /proc/stat's busy time)";

typedef struct total {
    int started;           /* prev and t_first are set */
    uint64_t prev;
    double t_first, t_last;
    double joules, attributed, max_watts;
} total;

struct gt_energy {
    gt_rapl *rapl;
    total tot[MAX_DOMAINS];
};

gt_status gt_energy_open(const char *sysfs_root, gt_energy **out, gt_error *err)
{
    *out = NULL;
    gt_energy *e = calloc(1, sizeof *e);
    if (!e)
        return gt_err(err, GT_ERR_NOMEM, "out of memory");
    gt_status st = gt_rapl_open(sysfs_root, &e->rapl, err);
    if (st != GT_OK) {
        free(e);
        return st;
    }
    *out = e;
    return GT_OK;
}

void gt_energy_close(gt_energy **ep)
{
    if (!ep || !*ep)
        return;
    gt_rapl_close(&(*ep)->rapl);
    free(*ep);
    *ep = NULL;
}

void gt_energy_read(gt_energy *e, gt_energy_reading *r)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    r->t = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
    int n = gt_rapl_count(e->rapl);
    for (int i = 0; i < n; i++)
        r->ok[i] = gt_rapl_readable(e->rapl, i) && gt_rapl_read(e->rapl, i, &r->uj[i]) == 0;
}

double gt_energy_cpu_share(const gt_sample *s)
{
    if (!s->cpu_valid || !(s->cpu_combined_sum > 0))
        return 0.0;
    /* Tick-granular CPU times can put the tracked processes a little above
     * the machine's total over a short interval. */
    if (!(s->cpu_system_sum > s->cpu_combined_sum))
        return 1.0;
    return s->cpu_combined_sum / s->cpu_system_sum;
}

void gt_energy_fold(gt_energy *e, const gt_energy_reading *r, gt_sample *s)
{
    double share = gt_energy_cpu_share(s);
    double cpu = 0, dram = 0;
    int have_cpu = 0, have_dram = 0;
    for (int i = 0; i < gt_rapl_count(e->rapl); i++) {
        total *t = &e->tot[i];
        if (r->ok[i]) {
            if (!t->started) {
                t->started = 1;
                t->t_first = r->t;
            } else {
                /* A failed read in between only widens this interval. */
                double j = (double)gt_rapl_delta(t->prev, r->uj[i],
                                                 gt_rapl_max_range(e->rapl, i)) / 1e6;
                t->joules += j;
                t->attributed += j * share;
                if (r->t > t->t_last && j / (r->t - t->t_last) > t->max_watts)
                    t->max_watts = j / (r->t - t->t_last);
            }
            t->prev = r->uj[i];
            t->t_last = r->t;
        }
        if (!t->started)
            continue;
        switch (gt_rapl_kind_of(e->rapl, i)) {
        case GT_RAPL_PACKAGE: cpu += t->joules; have_cpu = 1; break;
        case GT_RAPL_DRAM: dram += t->joules; have_dram = 1; break;
        default: break;
        }
    }
    s->cpu_energy = have_cpu ? cpu : NAN;
    s->dram_energy = have_dram ? dram : NAN;
    s->gpu_energy = NAN;
}

void gt_energy_usage(const gt_energy *e, gt_energy_unit u, gt_usage *out)
{
    memset(&out->energy, 0, sizeof out->energy);
    out->energy.unit = gt_energy_unit_name(u);
    out->energy.cpu_attribution_method = gt_energy_cpu_method;
    snprintf(out->energy.cpu_unavailable, sizeof out->energy.cpu_unavailable, "%s",
             gt_rapl_unavailable(e->rapl));
    int n = gt_rapl_count(e->rapl);
    for (int i = 0; i < n; i++) {
        const total *t = &e->tot[i];
        struct gt_energy_domain *d = &out->energy.domains[i];
        snprintf(d->name, sizeof d->name, "%s", gt_rapl_name(e->rapl, i));
        d->source = "rapl";
        d->available = t->started;
        double span = t->t_last - t->t_first;
        d->energy = t->started ? gt_energy_in_unit(t->joules, u) : -1.0;
        d->attributed_energy = t->started ? gt_energy_in_unit(t->attributed, u) : -1.0;
        d->mean_power_watts = t->started && span > 0 ? t->joules / span : -1.0;
        d->max_power_watts = t->started && span > 0 ? t->max_watts : -1.0;
    }
    out->energy.n_domains = n;
}
