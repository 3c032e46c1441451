/*
 * tests/vulkan/bench_matmul.c — GFLOP/s (GOP/s for int8) of the Vulkan
 * matmul kernels at n (default 1024) against the simple 8x8 register-tiled
 * baseline shader, on one device. Spot-checks 64 entries of each result
 * against a CPU dot product so a fast wrong kernel cannot pass.
 *
 * usage: bench_matmul [n] [reps]     (meson: `meson test --benchmark`)
 */
#include <stdlib.h>
#include <string.h>

#include "vulkan/vk_internal.h"
#include "vk_test_util.h"

static char err[512];

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Runs k reps times after one warm-up; returns median device ns or 0. */
static uint64_t time_kernel(struct ff_kernel *k, struct ff_buf **bufs, uint32_t n, int reps)
{
    uint32_t p[3] = {n, n, n};
    uint64_t t[32], w;
    if (ff_kernel_run(k, bufs, 3, p, 3, &t[0], &w, err, sizeof(err)) < 0)
        return 0;
    for (int i = 0; i < reps; i++)
        if (ff_kernel_run(k, bufs, 3, p, 3, &t[i], &w, err, sizeof(err)) < 0)
            return 0;
    qsort(t, (size_t)reps, sizeof(t[0]), cmp_u64);
    return t[reps / 2];
}

static int spot_check(struct ff_buf *c, const void *a, const void *b, enum ff_precision prec,
                      uint32_t n)
{
    size_t out = prec == FF_PREC_FP16 ? 2 : 4;
    void *hc = malloc((size_t)n * n * out);
    if (!hc || ff_buf_read(c, 0, hc, (uint64_t)n * n * out, err, sizeof(err)) < 0) {
        free(hc);
        return -1;
    }
    uint64_t s = 7;
    int bad = 0;
    for (int t = 0; t < 64; t++) {
        uint32_t i = vkt_rand(&s) % n, j = vkt_rand(&s) % n;
        double ref = 0, got;
        for (uint32_t l = 0; l < n; l++) {
            size_t ia = (size_t)i * n + l, ib = (size_t)l * n + j;
            if (prec == FF_PREC_FP32)
                ref += (double)((const float *)a)[ia] * ((const float *)b)[ib];
            else if (prec == FF_PREC_FP16)
                ref +=
                    (double)vkt_h2f(((const uint16_t *)a)[ia]) * vkt_h2f(((const uint16_t *)b)[ib]);
            else
                ref += (double)((const int8_t *)a)[ia] * ((const int8_t *)b)[ib];
        }
        size_t ic = (size_t)i * n + j;
        got = prec == FF_PREC_FP32   ? ((float *)hc)[ic]
              : prec == FF_PREC_FP16 ? vkt_h2f(((uint16_t *)hc)[ic])
                                     : ((int32_t *)hc)[ic];
        double tol =
            prec == FF_PREC_INT8 ? 0 : (prec == FF_PREC_FP32 ? 1e-3 : 2e-2) * fmax(1, fabs(ref));
        bad += fabs(got - ref) > tol;
    }
    free(hc);
    return bad;
}

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
    size_t nn = (size_t)n * n;
    float *fa = malloc(nn * 4), *fb = malloc(nn * 4);
    uint64_t seed = 1234;
    for (size_t i = 0; i < nn; i++) {
        fa[i] = vkt_randf(&seed);
        fb[i] = vkt_randf(&seed);
    }
    int failed = 0;
    double ours_fp32 = 0, base = 0;
    /* rows: ours fp32, fp16, int8, coopmat fp16, int8, baseline fp32 */
    for (int row = 0; row < 6; row++) {
        enum ff_precision prec = row == 0 || row == 5   ? FF_PREC_FP32
                                 : row == 1 || row == 3 ? FF_PREC_FP16
                                                        : FF_PREC_INT8;
        bool coop = row == 3 || row == 4;
        size_t in = prec == FF_PREC_FP32 ? 4 : prec == FF_PREC_FP16 ? 2 : 1;
        size_t out = prec == FF_PREC_FP16 ? 2 : 4;
        void *ha = malloc(nn * in), *hb = malloc(nn * in);
        for (size_t i = 0; i < nn; i++) {
            if (prec == FF_PREC_FP32) {
                ((float *)ha)[i] = fa[i];
                ((float *)hb)[i] = fb[i];
            } else if (prec == FF_PREC_FP16) {
                ((uint16_t *)ha)[i] = vkt_f2h(fa[i]);
                ((uint16_t *)hb)[i] = vkt_f2h(fb[i]);
            } else {
                ((int8_t *)ha)[i] = (int8_t)(fa[i] * 127);
                ((int8_t *)hb)[i] = (int8_t)(fb[i] * 127);
            }
        }
        struct ff_kernel *k = NULL;
        struct ff_kernel_desc desc = {.id = coop ? FF_KERNEL_MATMUL_COOPMAT : FF_KERNEL_MATMUL,
                                      .prec = prec,
                                      .m = n,
                                      .n = n,
                                      .k = n};
        int ret = row == 5 ? ff_vk_kernel_create_baseline(dev, n, n, n, &k, err, sizeof(err))
                           : ff_kernel_create(dev, &desc, &k, err, sizeof(err));
        const char *label[] = {"ours fp32",    "ours fp16",    "ours int8",
                               "coopmat fp16", "coopmat int8", "baseline 8x8 fp32"};
        if (ret < 0) {
            printf("%-18s %s: %s\n", label[row],
                   ret == FF_ERR_UNSUPPORTED ? "unsupported" : "error", err);
            failed += ret != FF_ERR_UNSUPPORTED;
            free(ha), free(hb);
            continue;
        }
        struct ff_buf *bufs[3] = {NULL, NULL, NULL};
        if (ff_buf_create(dev, nn * in, &bufs[0], err, sizeof(err)) < 0 ||
            ff_buf_create(dev, nn * in, &bufs[1], err, sizeof(err)) < 0 ||
            ff_buf_create(dev, nn * out, &bufs[2], err, sizeof(err)) < 0 ||
            ff_buf_write(bufs[0], 0, ha, nn * in, err, sizeof(err)) < 0 ||
            ff_buf_write(bufs[1], 0, hb, nn * in, err, sizeof(err)) < 0) {
            printf("%-18s buffers: %s\n", label[row], err);
            failed++;
        } else {
            uint64_t ns = time_kernel(k, bufs, n, reps);
            int bad = ns ? spot_check(bufs[2], ha, hb, prec, n) : -1;
            double g = ns ? 2.0 * n * n * n / (double)ns : 0;
            if (row == 0)
                ours_fp32 = g;
            if (row == 5)
                base = g;
            printf("%-18s %8.2f %s  %8.1f ms  %s  [%s]\n", label[row], g,
                   prec == FF_PREC_INT8 ? "GOP/s  " : "GFLOP/s", ns / 1e6,
                   bad == 0  ? "verified"
                   : bad < 0 ? err
                             : "WRONG",
                   ff_kernel_variant(k));
            failed += bad != 0;
        }
        for (int i = 0; i < 3; i++)
            ff_buf_destroy(&bufs[i]);
        ff_kernel_destroy(&k);
        free(ha), free(hb);
    }
    if (base > 0)
        printf("ours/baseline fp32: %.1fx\n", ours_fp32 / base);
    ff_device_destroy(&dev);
    free(fa), free(fb);
    return failed ? 1 : 0;
}
