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
    uint64_t dns, wns;
    int ret;
    for (uint32_t i = 0; i < cfg->warmup; i++) {
        if (ff_interrupted)
            return FF_ERR_INTERRUPTED;
        if ((ret = fn(ctx, &dns, &wns, err, errlen)) < 0)
            return ret;
    }
    uint32_t max = cfg->max_reps < cfg->min_reps ? cfg->min_reps : cfg->max_reps;
    double *dev = malloc(sizeof(double) * max), *wall = malloc(sizeof(double) * max);
    if (!dev || !wall) {
        free(dev);
        free(wall);
        return FF_ERR_NO_MEMORY;
    }
    double total = 0;
    uint32_t n = 0;
    ret = FF_OK;
    while (n < max && (n < cfg->min_reps || total < cfg->budget_s)) {
        if (ff_interrupted)
            break;
        if ((ret = fn(ctx, &dns, &wns, err, errlen)) < 0)
            break;
        dev[n] = (double)dns * 1e-9;
        wall[n] = (double)wns * 1e-9;
        total += dev[n] > 0 ? dev[n] : wall[n];
        n++;
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
    }
    free(dev);
    free(wall);
    return ret;
}
