/*
 * tests/backends/peak_pairing.h — shared by the OpenCL and Vulkan device tests: the matmul suite reads
 * each verified figure against the peak kernel measured beside it (bench/families/suite_matmul.c), and
 * without a peak family result it gives no fraction at all.
 */
#ifndef FF_TESTS_PEAK_PAIRING_H
#define FF_TESTS_PEAK_PAIRING_H

#include <math.h>
#include <string.h>

#include <criterion/criterion.h>
#include <flopfit/profile_fields.h>

#include "families/bench.h"
#include "families/families.h"
#include "check/kcheck.h"

static inline void ff_test_peak_pairing(struct ff_device *dev)
{
    struct ff_bench_cfg cfg;
    ff_bench_cfg_defaults(&cfg);
    cfg.quick = true;
    cfg.sizes[0] = 128;
    cfg.n_sizes = 1;
    cfg.sizes_given = true;
    cfg.library = false;
    cfg.measure.min_reps = 3;
    cfg.measure.budget_s = 0.05;
    /* without the peak family: no fraction, paired or not */
    struct ff_run bare = {.info = *ff_device_info(dev)};
    ff_suite_matmul(dev, &cfg, &bare);
    for (size_t i = 0; i < bare.n_results; i++) {
        bool found;
        ff_result_extra_get(&bare.results[i], FF_PF_TEST_PEAK_FRACTION, &found);
        cr_expect(!found, "%s %s: a fraction with no peak measured", bare.results[i].impl,
                  ff_precision_name(bare.results[i].prec));
    }
    ff_run_finish(&bare);

    struct ff_run p = {.info = *ff_device_info(dev)};
    ff_suite_peak(dev, &cfg, &p);
    ff_suite_matmul(dev, &cfg, &p);
    unsigned paired = 0;
    for (size_t i = 0; i < p.n_results; i++) {
        const struct ff_result *r = &p.results[i];
        if (strcmp(r->family, "matmul") != 0 || r->status != FF_RES_OK)
            continue;
        bool has_frac, has_peak, has_fp32;
        double frac = ff_result_extra_get(r, FF_PF_TEST_PEAK_FRACTION, &has_frac);
        double peak = ff_result_extra_get(r, FF_PF_TEST_PEAK_PAIRED, &has_peak);
        double of_fp32 = ff_result_extra_get(r, FF_PF_TEST_PEAK_OF_FP32, &has_fp32);
        cr_assert(has_frac && has_peak && has_fp32, "%s %s: fraction %d, paired peak %d", r->impl,
                  ff_precision_name(r->prec), has_frac, has_peak);
        cr_expect_gt(peak, 0);
        /* the median of the paired ratios, beside the ratio of the medians, capped as it is */
        double med = fmin(r->value / peak, FF_PEAK_FRACTION_MAX);
        cr_expect(frac > med / 3 && frac < med * 3, "fraction %.3f, value / paired peak %.3f", frac,
                  r->value / peak);
        cr_expect_gt(frac, 0);
        cr_expect_leq(frac, FF_PEAK_FRACTION_MAX);
        /* (the paired peak is not compared with the family's: the two are measured at different
         * moments, and meson runs the device tests side by side on a 2-core machine) */
        int ref = ff_peak_reference(&p, (enum ff_precision)r->prec, NULL);
        cr_expect_eq(of_fp32 != 0, ref == FF_PREC_FP32 && r->prec != FF_PREC_FP32);
        /* the companion's operations counted right: its rate within the device's physical bound */
        char why[200];
        double limit =
            ff_kcheck_rate_limit(ff_device_info(dev), (enum ff_precision)ref, why, sizeof(why));
        cr_expect_leq(peak, limit, "paired peak %.3g above %s", peak, why);
        paired++;
    }
    cr_expect_geq(paired, 2, "fp32 and int8 at least");
    ff_run_finish(&p);
}

#endif
