/* bench/measure.c — warm-up, budgeted repetitions, median and spread. */
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
    /* dev and wall times of fn, then the companion's times (at most one per run) */
    double *v = malloc(sizeof(double) * max * (pair ? 3 : 2));
    if (!v)
        return FF_ERR_NO_MEMORY;
    double *dev = v, *wall = v + max, *ptime = pair ? v + 2 * max : NULL;
    double total = 0, since = 0;
    uint32_t n = 0, np = 0;
    ret = FF_OK;
    while (n < max && (n < cfg->min_reps || total < cfg->budget_s)) {
        if (ff_interrupted)
            break;
        if ((ret = fn(ctx, &dns, &wns, err, errlen)) < 0)
            break;
        dev[n] = (double)dns * 1e-9;
        wall[n] = (double)wns * 1e-9;
        total += dev[n] > 0 ? dev[n] : wall[n];
        since += dev[n] > 0 ? dev[n] : wall[n];
        n++;
        if (pair && (np < pair->min_pairs || since >= pair->every_s)) {
            uint64_t pd = 0, pw = 0;
            if ((ret = pair->run(pair->ctx, &pd, &pw, err, errlen)) < 0)
                break;
            ptime[np] = dev_or_wall(pd, pw);
            total += ptime[np++];
            since = 0;
        }
    }
    if (ret == FF_OK && n == 0)
        ret = FF_ERR_INTERRUPTED;
    if (ret == FF_OK) {
        t->reps = n;
        t->dev_median_s = ff_median(dev, n);
        t->dev_min_s = dev[0];
        t->dev_max_s = dev[n - 1];
        t->wall_median_s = ff_median(wall, n);
        t->wall_min_s = wall[0];
        t->wall_max_s = wall[n - 1];
        if (pair) {
            pair->n = np;
            pair->median_s = ff_median(ptime, np);
            pair->min_s = ptime[0];
        }
    }
    free(v);
    return ret;
}
