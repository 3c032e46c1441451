/*
 * bench/families/tuning_apply.c — a family builds its kernel with the point this run chose for it
 * (cfg->tuning, filled by bench_run.c from an override, the cache or a first tune). A leaf: the
 * families and the tuner both use it, and it uses neither.
 */
#include <stdio.h>

#include "bench.h"

void ff_bench_apply_tuning(const struct ff_bench_cfg *cfg, struct ff_device *dev,
                           struct ff_kernel_desc *desc, struct ff_result *r)
{
    if (!cfg->tuning)
        return;
    const struct ff_bench_tuned *t = NULL;
    for (size_t i = 0; i < cfg->tuning->n && !t; i++) {
        const struct ff_bench_tuned *k = &cfg->tuning->k[i];
        if (k->id == desc->id && (desc->id != FF_KERNEL_MATMUL || k->prec == desc->prec))
            t = k;
    }
    if (t)
        ff_bench_apply_tuned(t, dev, desc, r);
}

void ff_bench_apply_tuned(const struct ff_bench_tuned *t, struct ff_device *dev,
                          struct ff_kernel_desc *desc, struct ff_result *r)
{
    desc->tune = t->point;
    snprintf(r->tune_point, sizeof(r->tune_point), "%s", t->text);
    snprintf(r->tune_source, sizeof(r->tune_source), "%s", t->source);
    if (t->point.n == 0)
        return;
    char e[256];
    if (ff_kernel_point_check(dev, desc, e, sizeof(e)) < 0) {
        /* Tuned at another shape and not legal at this one: the backend's default here. */
        desc->tune.n = 0;
        snprintf(r->tune_point, sizeof(r->tune_point), "default");
        snprintf(r->tune_source, sizeof(r->tune_source), "default");
    }
}
