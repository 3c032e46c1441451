/*
 * tests/vulkan/bench_matmul.c — GFLOP/s (GOP/s for int8) of the Vulkan
 * matmul kernels at n (default 1024) against the simple 8x8 register-tiled
 * baseline shader, on one device. Every kernel goes through the kernel check
 * (bench/kcheck.h): checked once, then timed with C poisoned before every
 * run and the last run's output checked again, so a fast wrong kernel
 * cannot pass; a rate above the device's physical limit is called out.
 *
 * usage: bench_matmul [n] [reps]     (meson: `meson test --benchmark`)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcheck.h"
#include "vulkan/vk_internal.h"
#include "vk_test_util.h"

static char err[512];

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1024;
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    if (reps < 1 || reps > 32 || n < 16) {
        fprintf(stderr, "usage: bench_matmul [n>=16] [reps 1..32]\n");
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
    double ours_fp32 = 0, base = 0;
    /* rows: ours fp32, fp16, int8, coopmat fp16, int8, baseline fp32 */
    for (int row = 0; row < 6; row++) {
        enum ff_precision prec = row == 0 || row == 5   ? FF_PREC_FP32
                                 : row == 1 || row == 3 ? FF_PREC_FP16
                                                        : FF_PREC_INT8;
        bool coop = row == 3 || row == 4;
        const char *label[] = {"ours fp32",    "ours fp16",    "ours int8",
                               "coopmat fp16", "coopmat int8", "baseline 8x8 fp32"};
        struct ff_kernel *k = NULL;
        struct ff_kernel_desc desc = {.id = coop ? FF_KERNEL_MATMUL_COOPMAT : FF_KERNEL_MATMUL,
                                      .prec = prec,
                                      .m = n,
                                      .n = n,
                                      .k = n};
        int ret = row == 5 ? ff_vk_kernel_create_baseline(dev, n, n, n, &k, err, sizeof(err))
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
            printf("%-18s %8.2f %s  %8.1f ms  %s  [%s]\n", label[row], g * 1e-9,
                   prec == FF_PREC_INT8 ? "GOP/s  " : "GFLOP/s", s * 1e3,
                   g > lim ? "IMPLAUSIBLE" : "verified", ff_kernel_variant(k));
            if (g > lim) {
                printf("%-18s above the limit %.4g (%s)\n", "", lim, why);
                failed++;
            }
        }
        ff_kcheck_finish(&kc);
        ff_kernel_destroy(&k);
    }
    if (base > 0)
        printf("ours/baseline fp32: %.1fx\n", ours_fp32 / base);
    ff_device_destroy(&dev);
    return failed ? 1 : 0;
}
