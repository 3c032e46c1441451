/*
 * tests/backends/vulkan/bench_matmul.c — GFLOP/s (GOP/s for int8) of the Vulkan
 * matmul kernels at n (default 1024) against the simple 8x8 register-tiled
 * baseline shader, on one device. Every kernel goes through the kernel check
 * (bench/check/kcheck.h): checked once, then timed with C poisoned before every
 * run and the last run's output checked again, so a fast wrong kernel
 * cannot pass; a rate above the device's physical limit is called out.
 *
 * usage: bench_matmul [n] [reps] [--only fp32|fp16|int8] [--point TEXT] [--rounds R]
 *   --only     one precision of our kernel (no coopmat, no baseline rows)
 *   --point    build that point of the matmul tuning space ("path=1,tm=8,...")
 *   --rounds   R rounds, each the fp32 arithmetic peak (FF_KERNEL_PEAK, checked) and then the
 *              matmul rows: every matmul figure also as a fraction of the peak measured just
 *              before it, and min-max over the rounds at the end (a busy machine drifts: the
 *              ratio within one round is the figure to compare)
 * (meson: `meson test --benchmark`)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "families/bench.h"
#include "check/kcheck.h"
#include "vulkan/vk_internal.h"
#include "vk_test_util.h"

static char err[512];

/* The fp32 arithmetic peak as the peak suite measures it (2 * iters * lanes / device time),
 * checked against the host reference; 0 with the reason printed on failure. */
static double peak_fp32(struct ff_device *dev, int reps)
{
    const uint32_t items = 1u << 16, iters = 1024;
    float one = 1.0f;
    uint32_t params[3] = {iters, 0, 0};
    memcpy(&params[1], &one, 4);
    memcpy(&params[2], &one, 4);
    struct ff_kernel_desc desc = {.id = FF_KERNEL_PEAK, .prec = FF_PREC_FP32, .n = items};
    struct ff_kernel *k = NULL;
    struct ff_buf *out = NULL;
    uint32_t *host = NULL;
    double best = 0;
    int ret = ff_kernel_create(dev, &desc, &k, err, sizeof(err));
    uint64_t words = ret == FF_OK ? ff_kernel_out_words(k) : 0;
    if (ret == FF_OK && !(host = malloc(words * 4)))
        ret = FF_ERR_NO_MEMORY;
    if (ret == FF_OK)
        ret = ff_buf_create(dev, words * 4, &out, err, sizeof(err));
    for (int r = 0; r <= reps && ret == FF_OK; r++) { /* the first run warms up */
        uint64_t dns = 0, wns = 0;
        ret = ff_kernel_run(k, &out, 1, params, 3, &dns, &wns, err, sizeof(err));
        double s = (dns ? dns : wns) * 1e-9;
        if (ret == FF_OK && r > 0 && s > 0 && 2.0 * words * iters / s > best)
            best = 2.0 * words * iters / s;
    }
    if (ret == FF_OK)
        ret = ff_buf_read(out, 0, host, words * 4, err, sizeof(err));
    if (ret == FF_OK)
        ret = ff_peak_check(FF_PREC_FP32, FF_PEAK_MAD, host, words, iters, params[1], params[2],
                            err, sizeof(err));
    if (ret < 0) {
        printf("peak fp32: %s\n", err);
        best = 0;
    }
    ff_buf_destroy(&out);
    ff_kernel_destroy(&k);
    free(host);
    return best;
}

int main(int argc, char **argv)
{
    uint32_t n = 1024;
    int reps = 3, rounds = 0, npos = 0;
    const char *only = NULL, *point = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--point") == 0 && i + 1 < argc)
            point = argv[++i];
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (npos == 0 && argv[i][0] != '-' && ++npos)
            n = (uint32_t)strtoul(argv[i], NULL, 10);
        else if (npos == 1 && argv[i][0] != '-' && ++npos)
            reps = atoi(argv[i]);
        else
            n = 0; /* usage */
    }
    enum ff_precision only_p = FF_PREC_FP32;
    bool only_ok =
        !only || (ff_precision_parse(only, &only_p) == FF_OK && ff_matmul_has_kernel(only_p));
    if (reps < 1 || reps > 32 || n < 16 || rounds < 0 || rounds > 100 || !only_ok) {
        fprintf(stderr, "usage: bench_matmul [n>=16] [reps 1..32] [--only fp32|fp16|int8] "
                        "[--point TEXT] [--rounds 0..100]\n");
        return 2;
    }
    int status = vkt_require_device();
    if (status)
        return status;
    struct ff_device *dev = NULL;
    if (ff_device_open(ff_backend_find("vulkan"), vkt_device_index(), &dev, err, sizeof(err)) < 0) {
        fprintf(stderr, "open: %s\n", err);
        return 1;
    }
    printf("device: %s (%s), n=%u, median of %d\n", ff_device_info(dev)->name,
           ff_device_info(dev)->driver_version, n, reps);
    struct ff_measure_cfg mc = {
        .warmup = 1, .min_reps = (uint32_t)reps, .max_reps = (uint32_t)reps};
    int failed = 0;
    double ours_fp32 = 0, base = 0, ratio_lo = 1e30, ratio_hi = 0;
    for (int round = 0; round < (rounds ? rounds : 1); round++) {
        double peak = rounds ? peak_fp32(dev, reps) : 0;
        if (rounds)
            printf("round %d: peak fp32 %.2f GFLOP/s\n", round + 1, peak * 1e-9);
        /* rows: ours fp32, fp16, int8, coopmat fp16, int8, baseline fp32 */
        for (int row = 0; row < 6; row++) {
            enum ff_precision prec = row == 0 || row == 5   ? FF_PREC_FP32
                                     : row == 1 || row == 3 ? FF_PREC_FP16
                                                            : FF_PREC_INT8;
            if (only && (row > 2 || prec != only_p))
                continue;
            bool coop = row == 3 || row == 4;
            const char *label[] = {"ours fp32",    "ours fp16",    "ours int8",
                                   "coopmat fp16", "coopmat int8", "baseline 8x8 fp32"};
            struct ff_kernel *k = NULL;
            struct ff_kernel_desc desc = {.id = coop ? FF_KERNEL_MATMUL_COOPMAT : FF_KERNEL_MATMUL,
                                          .prec = prec,
                                          .m = n,
                                          .n = n,
                                          .k = n};
            int ret = FF_OK;
            if (point && row <= 2) {
                struct ff_tune_space s;
                ret = ff_kernel_space(dev, &desc, &s, err, sizeof(err));
                if (ret == FF_OK)
                    ret = ff_tune_point_parse(&s, point, &desc.tune, err, sizeof(err));
            }
            if (ret == FF_OK)
                ret = row == 5 ? ff_vk_kernel_create_baseline(dev, n, n, n, &k, err, sizeof(err))
                               : ff_kernel_create(dev, &desc, &k, err, sizeof(err));
            if (ret < 0) {
                printf("%-18s %s: %s\n", label[row],
                       ret == FF_ERR_UNSUPPORTED ? "unsupported" : "error", err);
                failed += ret != FF_ERR_UNSUPPORTED;
                continue;
            }
            struct ff_kcheck kc;
            struct ff_timing t = {0};
            if ((ret = ff_kcheck_init(&kc, prec, n, n, n, 1234 + (uint64_t)row, err, sizeof(err))) <
                    0 ||
                (ret = ff_kcheck_upload(&kc, dev, err, sizeof(err))) < 0 ||
                (ret = ff_kcheck_run(&kc, k, err, sizeof(err))) < 0 ||
                (ret = ff_kcheck_bench(&kc, k, &mc, &t, err, sizeof(err))) < 0) {
                printf("%-18s %s: %s  [%s]\n", label[row], ret == FF_ERR_VERIFY ? "WRONG" : "error",
                       err, ff_kernel_variant(k));
                failed++;
            } else {
                double s = t.dev_median_s > 0 ? t.dev_median_s : t.wall_median_s;
                double g = 2.0 * n * n * (double)n / s;
                char why[200];
                double lim = ff_kcheck_rate_limit(ff_device_info(dev), prec, why, sizeof(why));
                if (row == 0)
                    ours_fp32 = g;
                if (row == 5)
                    base = g;
                char frac[32] = "";
                if (peak > 0 && prec == FF_PREC_FP32) {
                    snprintf(frac, sizeof(frac), " %.2fx peak", g / peak);
                    if (row == 0) {
                        ratio_lo = g / peak < ratio_lo ? g / peak : ratio_lo;
                        ratio_hi = g / peak > ratio_hi ? g / peak : ratio_hi;
                    }
                }
                printf("%-18s %8.2f %s%s  %8.1f ms  %s  [%s]\n", label[row], g * 1e-9,
                       prec == FF_PREC_INT8 ? "GOP/s  " : "GFLOP/s", frac, s * 1e3,
                       g > lim ? "IMPLAUSIBLE" : "verified", ff_kernel_variant(k));
                if (g > lim) {
                    printf("%-18s above the limit %.4g (%s)\n", "", lim, why);
                    failed++;
                }
            }
            ff_kcheck_finish(&kc);
            ff_kernel_destroy(&k);
        }
    }
    if (base > 0)
        printf("ours/baseline fp32: %.1fx\n", ours_fp32 / base);
    if (ratio_hi > 0)
        printf("ours fp32 / peak fp32 over %d rounds: %.2f-%.2f\n", rounds, ratio_lo, ratio_hi);
    ff_device_destroy(&dev);
    return failed ? 1 : 0;
}
