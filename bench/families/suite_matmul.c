/*
 * bench/families/suite_matmul.c — C = A*B in fp32, fp16 and int8 through our kernel,
 * the matrix engine (cooperative matrix) and the library reference, on one
 * device over a size sweep, each through the kernel check (kcheck.h): fresh
 * random inputs, C poisoned and checked after one run, then poisoned before
 * every timed run and the last run's output checked again; a rate above the
 * device's physical limit is failed as implausible, never published.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <flopfit/profile_fields.h>

#include "bench.h"
#include "probe_common.h"
#include "check/kcheck.h"

static const struct {
    enum ff_kernel_id id;
    const char *impl;
} impls[] = {
    {FF_KERNEL_MATMUL, "flopfit"},
    {FF_KERNEL_MATMUL_COOPMAT, "coopmat"},
    {FF_KERNEL_MATMUL_LIBRARY, "clblast"},
};
#define N_IMPLS (sizeof(impls) / sizeof(impls[0]))

static enum ff_res_status status_of(int ret)
{
    return ret == FF_ERR_UNSUPPORTED ? FF_RES_UNSUPPORTED : FF_RES_FAILED;
}

/*
 * The fraction of the arithmetic peak, measured in the same window: the peak kernel
 * (ff_peak_reference's precision, when this device's peak family measured one) runs
 * interleaved with the timed matmul runs (after each of the first PAIR_MIN runs, then after
 * every PAIR_EVERY_S of matmul time, and after the last), and each matmul run is read against
 * the peak launch that followed it: the fraction is the median over the runs of (the run's
 * rate / that peak's rate). A neighbour's load on a shared machine that lasts longer than a
 * pair then falls on both sides of the ratio. One peak launch takes about PAIR_S: on lavapipe
 * a 5 ms launch read ~10 % below the 100 ms one (dispatch costs inside the timestamps), at
 * 20 ms within the run-to-run spread. The companion adds at most PAIR_S / PAIR_EVERY_S to the
 * measurement, plus PAIR_MIN + 1 launches. What pairing cannot cancel is a neighbour that
 * slows one kernel more than the other: one on the same core's FMA ports slows the peak kernel
 * (nothing but multiply-adds) more than the matmul, and a pair can then read above 1.
 */
#define PAIR_S       0.02
#define PAIR_EVERY_S 0.08
#define PAIR_MIN     3u

struct paired {
    struct ff_peak_probe *probe;
    struct ff_pair pair;
    int ref_prec;
};

static void pair_open(struct ff_device *dev, struct ff_run *prof, enum ff_precision p,
                      struct paired *pr)
{
    char err[512];
    pr->ref_prec = ff_peak_reference(prof, p, NULL);
    if (pr->ref_prec < 0)
        return; /* no peak measured here: no fraction */
    if (ff_peak_probe_open(dev, (enum ff_precision)pr->ref_prec, PAIR_S, &pr->probe, err,
                           sizeof(err)) < 0)
        return; /* run_impl then reads the figure against the peak family's */
    pr->pair = (struct ff_pair){
        .run = ff_peak_probe_run, .ctx = pr->probe, .every_s = PAIR_EVERY_S, .min_pairs = PAIR_MIN};
}

/* Once the companion's last output verifies: the paired fraction (the matmul's work per run
 * in `work`) and the companion's median rate; 0 when there is none. Closes the companion. */
static double pair_finish(struct paired *pr, double work, double *peak)
{
    char err[512];
    double frac = 0;
    *peak = 0;
    if (pr->probe && pr->pair.n > 0 && pr->pair.median_s > 0 &&
        ff_peak_probe_check(pr->probe, err, sizeof(err)) == FF_OK) {
        double ops = ff_peak_probe_ops(pr->probe);
        /* at most 1: see FF_PEAK_FRACTION_MAX (bench.h) */
        frac = fmin(work / ops * pr->pair.ratio_median, FF_PEAK_FRACTION_MAX);
        *peak = ops / pr->pair.median_s;
    }
    ff_peak_probe_close(&pr->probe);
    return frac;
}

/* One implementation at one size. Returns the median device time or 0. */
static double run_impl(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_run *prof,
                       size_t ii, struct ff_kcheck *kc, bool *unsupported)
{
    char err[512] = "";
    const enum ff_precision p = kc->prec;
    const uint32_t n = kc->n;
    struct ff_result *res = ff_run_add(prof);
    if (!res)
        return 0;
    ff_result_set(res, "matmul", "matmul", impls[ii].impl);
    res->prec = (int)p;
    res->m = res->n = res->k = n;

    struct ff_kernel_desc desc = {.id = impls[ii].id, .prec = p, .m = n, .n = n, .k = n};
    ff_bench_apply_tuning(cfg, dev, &desc, res);
    struct ff_kernel *kern = NULL;
    int ret = ff_kernel_create(dev, &desc, &kern, err, sizeof(err));
    if (ret == FF_ERR_UNSUPPORTED) {
        /* Say it once per implementation and precision, not per size. */
        ff_result_fail(res, FF_RES_UNSUPPORTED, "%s", err);
        res->m = res->n = res->k = 0;
        res->tune_point[0] = res->tune_source[0] = 0; /* nothing was built */
        *unsupported = true;
        return 0;
    }
    if (ret < 0) {
        ff_result_fail(res, FF_RES_FAILED, "%s: %s", ff_status_str(ret), err);
        return 0;
    }
    snprintf(res->variant, sizeof(res->variant), "%s", ff_kernel_variant(kern));

    /* Checked once before timing, then every timed run writes a poisoned C
     * and the last one is checked again. */
    ret = ff_kcheck_run(kc, kern, err, sizeof(err));
    struct paired pr = {0};
    if (ret == FF_OK)
        pair_open(dev, prof, p, &pr);
    if (ret == FF_OK)
        ret = ff_kcheck_bench_paired(kc, kern, &cfg->measure, pr.probe ? &pr.pair : NULL, &res->t,
                                     err, sizeof(err));
    double peak;
    const double frac = pair_finish(&pr, 2.0 * n * (double)n * n, &peak);
    if (ret == FF_ERR_VERIFY || ret == FF_OK) {
        res->has_error = true;
        res->max_abs = kc->check.max_abs;
        res->max_rel = kc->check.max_rel;
        res->tolerance = kc->check.tolerance;
    }
    ff_kernel_destroy(&kern);

    if (ret == FF_ERR_INTERRUPTED) {
        ff_result_interrupted(res);
        return 0;
    }
    if (ret < 0) {
        ff_result_fail(res, status_of(ret), "%s%s%s",
                       ret == FF_ERR_VERIFY ? "" : ff_status_str(ret),
                       ret == FF_ERR_VERIFY ? "" : ": ", err);
        return 0;
    }
    res->has_timing = true;
    res->verified = true;
    res->status = FF_RES_OK;
    double t = res->t.dev_median_s > 0 ? res->t.dev_median_s : res->t.wall_median_s;
    res->value = 2.0 * n * (double)n * n / t;
    snprintf(res->unit, sizeof(res->unit), "%s", p == FF_PREC_INT8 ? "OP/s" : "FLOP/s");
    char why[200];
    double limit = ff_kcheck_rate_limit(ff_device_info(dev), p, why, sizeof(why));
    if (ff_result_implausible(res, res->value, limit, why))
        return 0; /* a figure past physics: no larger size either */
    if (frac > 0) {
        ff_result_extra(res, FF_PF_TEST_PEAK_FRACTION, frac, false);
        ff_result_extra(res, FF_PF_TEST_PEAK_OF_FP32,
                        pr.ref_prec == FF_PREC_FP32 && p != FF_PREC_FP32, true);
        ff_result_extra(res, FF_PF_TEST_PEAK_PAIRED, peak, false);
    } else {
        /* no companion measured beside it: the peak family's figure, run before this one */
        double unpaired;
        int ref = ff_peak_fraction_unpaired(prof, p, res->value, &unpaired);
        if (ref >= 0) {
            ff_result_extra(res, FF_PF_TEST_PEAK_FRACTION, unpaired, false);
            ff_result_extra(res, FF_PF_TEST_PEAK_OF_FP32, ref == FF_PREC_FP32 && p != FF_PREC_FP32,
                            true);
        }
    }
    return t;
}

static void fail_all(struct ff_run *prof, enum ff_precision p, uint32_t n, const bool *skip,
                     const char *why)
{
    for (size_t ii = 0; ii < N_IMPLS; ii++) {
        if (skip[ii])
            continue;
        struct ff_result *res = ff_run_add(prof);
        if (!res)
            return;
        ff_result_set(res, "matmul", "matmul", impls[ii].impl);
        res->prec = (int)p;
        res->m = res->n = res->k = n;
        ff_result_fail(res, FF_RES_FAILED, "%s", why);
    }
}

void ff_suite_matmul(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_run *prof)
{
    struct ff_rng rng;
    ff_rng_seed(&rng, cfg->seed);
    for (int pi = 0; pi < FF_PREC_COUNT && !ff_interrupted; pi++) {
        enum ff_precision p = (enum ff_precision)pi;
        if (!cfg->prec[p])
            continue;
        bool skip[N_IMPLS] = {false};
        skip[2] = !cfg->library;
        /* Each implementation climbs the sizes until one run would pass
         * max_run_s: a slow library reference must not stop our kernel. */
        double last_t[N_IMPLS] = {0};
        uint32_t last_n = 0;
        for (size_t si = 0; si < cfg->n_sizes && !ff_interrupted; si++) {
            uint32_t n = cfg->sizes[si];
            bool any = false;
            for (size_t ii = 0; ii < N_IMPLS; ii++) {
                double ratio = last_n ? (double)n / last_n : 1;
                if (!cfg->sizes_given && last_t[ii] > 0 &&
                    last_t[ii] * ratio * ratio * ratio > cfg->max_run_s)
                    skip[ii] = true;
                any |= !skip[ii];
            }
            if (!any)
                break; /* larger sizes would take too long on this device */
            char err[512] = "";
            ff_progress(cfg, "%s %s n=%u: CPU reference", ff_device_info(dev)->name,
                        ff_precision_name(p), n);
            struct ff_kcheck kc;
            int ret = ff_kcheck_init(&kc, p, n, n, n, ff_rng_next(&rng), err, sizeof(err));
            if (ret < 0) {
                fail_all(prof, p, n, skip, "host memory exhausted for the inputs");
                continue;
            }
            if ((ret = ff_kcheck_upload(&kc, dev, err, sizeof(err))) < 0) {
                char why[600];
                snprintf(why, sizeof(why), "%s: %s", ff_status_str(ret), err);
                fail_all(prof, p, n, skip, why);
            } else {
                for (size_t ii = 0; ii < N_IMPLS && !ff_interrupted; ii++) {
                    if (skip[ii])
                        continue;
                    ff_progress(cfg, "%s %s n=%u: %s", ff_device_info(dev)->name,
                                ff_precision_name(p), n, impls[ii].impl);
                    last_t[ii] = run_impl(dev, cfg, prof, ii, &kc, &skip[ii]);
                    if (last_t[ii] == 0)
                        skip[ii] = true; /* failed here: larger sizes will not do better */
                }
                last_n = n;
            }
            ff_kcheck_finish(&kc);
        }
    }
}
