/*
 * bench/families/probe_latency.c — launch latency: the device time of an empty kernel
 * ("launch"), the host's wall time from submit to completion ("roundtrip"), medians over many
 * launches after a warm-up, and what each of a chain of dependent launches in one submission
 * adds ("dispatch"), as a model step runs its operations one after the other.
 */
#include <stdio.h>

#include "check/measure.h"

#include "probe_common.h"

struct lat_ctx {
    struct ff_kernel *k;
};

static int run_empty(void *arg, uint64_t *dns, uint64_t *wns, char *err, size_t errlen)
{
    struct lat_ctx *c = arg;
    return ff_kernel_run(c->k, NULL, 0, NULL, 0, dns, wns, err, errlen);
}

void ff_probe_latency(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_run *p)
{
    char err[512] = "";
    struct ff_kernel_desc desc = {.id = FF_KERNEL_EMPTY};
    struct lat_ctx c = {NULL};
    struct ff_timing t = {0};
    ff_progress(cfg, "%s: launch latency", ff_device_info(dev)->name);
    int ret = ff_kernel_create(dev, &desc, &c.k, err, sizeof(err));
    if (ret == FF_OK) {
        /* Launches are short: many of them, bounded by count rather than time. */
        struct ff_measure_cfg m = {
            .warmup = 5,
            .min_reps = cfg->quick ? 50 : 200,
            .max_reps = cfg->quick ? 50 : 200,
            .budget_s = 1.0,
        };
        ret = ff_measure(&m, run_empty, &c, &t, err, sizeof(err));
    }
    char variant[160] = "";
    if (c.k)
        snprintf(variant, sizeof(variant), "%s", ff_kernel_variant(c.k));
    size_t base = p->n_results;
    if (!ff_run_add(p) || !ff_run_add(p)) {
        p->n_results = base; /* out of host memory: no half-made records */
        ff_kernel_destroy(&c.k);
        return;
    }
    /* Pointers only once the list stops growing: adding may move it. */
    struct ff_result *launch = &p->results[base], *round = &p->results[base + 1];
    ff_result_set(launch, "latency", "launch", "flopfit");
    ff_result_set(round, "latency", "roundtrip", "flopfit");
    snprintf(launch->unit, sizeof(launch->unit), "s");
    snprintf(round->unit, sizeof(round->unit), "s");
    if (ret < 0) {
        ff_probe_fail(launch, ret, "empty kernel", err);
        ff_probe_fail(round, ret, "empty kernel", err);
        ff_kernel_destroy(&c.k);
        return;
    }
    ff_kernel_destroy(&c.k);
    struct ff_result *rs[2] = {launch, round};
    for (int i = 0; i < 2; i++) {
        struct ff_result *r = rs[i];
        ff_msgf(r->variant, sizeof(r->variant), "empty kernel (%s), %u launches, %s", variant,
                t.reps, i == 0 ? "device time" : "wall time submit to completion");
        r->t = t;
        r->has_timing = true;
        r->status = FF_RES_OK;
    }
    launch->value = t.dev_median_s;
    round->value = t.wall_median_s;
    /* Physical sense: a launch takes some time, and no launch takes a second. */
    if (!(t.dev_median_s > 0))
        ff_result_fail(launch, FF_RES_FAILED,
                       "the device timer reported 0 for an empty kernel (resolution %.3g ns)",
                       ff_device_info(dev)->timer_resolution_ns);
    else
        ff_result_implausible(launch, t.dev_median_s, 1.0, "an empty kernel taking a second");
    if (!(t.wall_median_s > 0))
        ff_result_fail(round, FF_RES_FAILED, "the host clock measured 0 for a launch");
    else
        ff_result_implausible(round, t.wall_median_s, 1.0, "an empty kernel taking a second");
    ff_probe_dispatch(dev, cfg, p);
}

/*
 * "dispatch": chains of CHAIN_SHORT and CHAIN_LONG empty launches, each after the previous
 * ended, timed on the device from the first start to the last end; the cost per launch is the
 * slope between them (what a launch adds in a chain, whatever the submission costs once),
 * the median over CHAIN_ROUNDS rounds. On lavapipe the gap between dependent dispatches is
 * what a chain of small kernels pays: the bottom-up estimate charges it per op.
 */
#define CHAIN_SHORT  16u
#define CHAIN_LONG   256u
#define CHAIN_ROUNDS 7

void ff_probe_dispatch(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_run *p)
{
    char err[512] = "";
    struct ff_kernel_desc desc = {.id = FF_KERNEL_EMPTY};
    struct ff_kernel *k = NULL;
    struct ff_result *r = ff_run_add(p);
    if (!r)
        return;
    ff_result_set(r, "latency", "dispatch", "flopfit");
    snprintf(r->unit, sizeof(r->unit), "s");
    ff_progress(cfg, "%s: dependent dispatches", ff_device_info(dev)->name);
    int ret = ff_kernel_create(dev, &desc, &k, err, sizeof(err));
    double per[CHAIN_ROUNDS];
    uint32_t rounds = 0;
    for (int warm = 1; ret == FF_OK && rounds < CHAIN_ROUNDS && !ff_interrupted; warm = 0) {
        uint64_t ns_short = 0, ns_long = 0, wall = 0;
        ret = ff_kernel_run_chain(k, NULL, 0, NULL, 0, CHAIN_SHORT, &ns_short, &wall, err,
                                  sizeof(err));
        if (ret == FF_OK)
            ret = ff_kernel_run_chain(k, NULL, 0, NULL, 0, CHAIN_LONG, &ns_long, &wall, err,
                                      sizeof(err));
        if (ret == FF_OK && !warm)
            per[rounds++] =
                ((double)ns_long - (double)ns_short) * 1e-9 / (CHAIN_LONG - CHAIN_SHORT);
    }
    if (ret == FF_OK && ff_interrupted)
        ret = FF_ERR_INTERRUPTED;
    ff_kernel_destroy(&k);
    if (ret < 0) {
        ff_probe_fail(r, ret, "a chain of empty kernels", err);
        return;
    }
    double v = ff_median(per, rounds);
    ff_msgf(r->variant, sizeof(r->variant),
            "empty kernels, chains of %u and %u dependent launches in one submission, the "
            "slope between them, median of %u rounds",
            CHAIN_SHORT, CHAIN_LONG, rounds);
    if (!(v > 0)) {
        ff_result_fail(r, FF_RES_FAILED,
                       "a longer chain took no longer (%.3g s per launch): no cost measurable", v);
        return;
    }
    r->status = FF_RES_OK;
    r->value = v;
    ff_result_implausible(r, v, 1.0, "a dispatch taking a second");
}
