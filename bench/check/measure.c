/* bench/check/measure.c — warm-up, budgeted repetitions, median and spread. */
#include <stdbool.h>
#include <stdlib.h>

#include "measure.h"

volatile sig_atomic_t ff_interrupted = 0;

void ff_measure_defaults(struct ff_measure_cfg *cfg)
{
    cfg->warmup = 1;
    cfg->min_reps = 3;
    cfg->max_reps = 50;
    cfg->budget_s = 1.0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double ff_median(double *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int ff_measure(const struct ff_measure_cfg *cfg, ff_run_fn fn, void *ctx, struct ff_timing *t,
               char *err, size_t errlen)
{
    return ff_measure_paired(cfg, fn, ctx, NULL, t, err, errlen);
}

static double dev_or_wall(uint64_t dns, uint64_t wns)
{
    return (double)(dns ? dns : wns) * 1e-9;
}

/* One companion run: its time into ptime[np], and it becomes the pair of runs first..n-1. */
static int pair_once(struct ff_pair *pair, double *ptime, uint32_t np, uint32_t *grp,
                     uint32_t first, uint32_t n, char *err, size_t errlen)
{
    uint64_t pd = 0, pw = 0;
    int ret = pair->run(pair->ctx, &pd, &pw, err, errlen);
    if (ret < 0)
        return ret;
    ptime[np] = dev_or_wall(pd, pw);
    for (uint32_t i = first; i < n; i++)
        grp[i] = np;
    return FF_OK;
}

int ff_measure_paired(const struct ff_measure_cfg *cfg, ff_run_fn fn, void *ctx,
                      struct ff_pair *pair, struct ff_timing *t, char *err, size_t errlen)
{
    uint64_t dns, wns;
    int ret;
    for (uint32_t i = 0; i < cfg->warmup; i++) {
        if (ff_interrupted)
            return FF_ERR_INTERRUPTED;
        if ((ret = fn(ctx, &dns, &wns, err, errlen)) < 0)
            return ret;
    }
    uint32_t max = cfg->max_reps < cfg->min_reps ? cfg->min_reps : cfg->max_reps;
    /* dev and wall times of fn; with a companion, its times (at most one per run), and each
     * run's ratio and companion */
    double *v = malloc(sizeof(double) * max * (pair ? 4 : 2));
    uint32_t *grp = pair ? malloc(sizeof(uint32_t) * max) : NULL;
    if (!v || (pair && !grp)) {
        free(v);
        free(grp);
        return FF_ERR_NO_MEMORY;
    }
    double *dev = v, *wall = v + max, *ptime = v + 2 * max, *ratio = v + 3 * max;
    double total = 0, since = 0;
    uint32_t n = 0, np = 0, first = 0;
    bool pairing = pair != NULL; /* a companion that fails ends the pairing, not the runs */
    ret = FF_OK;
    while (n < max && (n < cfg->min_reps || total < cfg->budget_s)) {
        if (ff_interrupted)
            break;
        if ((ret = fn(ctx, &dns, &wns, err, errlen)) < 0)
            break;
        dev[n] = (double)dns * 1e-9;
        wall[n] = (double)wns * 1e-9;
        const double run_s = dev_or_wall(dns, wns);
        total += run_s;
        since += run_s;
        n++;
        if (pairing && (np < pair->min_pairs || since >= pair->every_s)) {
            if (pair_once(pair, ptime, np, grp, first, n, err, errlen) < 0) {
                pairing = false;
                continue;
            }
            total += ptime[np++];
            first = n;
            since = 0;
        }
    }
    /* the last runs get a companion of their own; cut short by Ctrl-C, the one before */
    if (pairing && ret == FF_OK && first < n) {
        if (!ff_interrupted && pair_once(pair, ptime, np, grp, first, n, err, errlen) == FF_OK)
            np++;
        else if (np == 0)
            pairing = false;
        else
            for (uint32_t i = first; i < n; i++)
                grp[i] = np - 1;
    }
    if (!pairing)
        np = 0;
    if (ret == FF_OK && n == 0)
        ret = FF_ERR_INTERRUPTED;
    if (ret == FF_OK) {
        if (pair) {
            for (uint32_t i = 0; np && i < n; i++)
                ratio[i] = ptime[grp[i]] / (dev[i] > 0 ? dev[i] : wall[i]); /* not yet sorted */
            pair->n = np;
            pair->ratio_median = np ? ff_median(ratio, n) : 0;
            pair->median_s = ff_median(ptime, np);
            pair->min_s = np ? ptime[0] : 0;
        }
        t->reps = n;
        t->dev_median_s = ff_median(dev, n);
        t->dev_min_s = dev[0];
        t->dev_max_s = dev[n - 1];
        t->wall_median_s = ff_median(wall, n);
        t->wall_min_s = wall[0];
        t->wall_max_s = wall[n - 1];
    }
    free(v);
    free(grp);
    return ret;
}
