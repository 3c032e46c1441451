/*
 * tests/backends/vulkan/bench_ops.c — the Vulkan op kernels timed per op and shape: device
 * time (median of ff_measure's runs), the bytes a run must move (ff_opcheck_bytes), GB/s, and
 * that rate as a fraction of the read bandwidth FF_KERNEL_MEM_READ measures in the same run
 * (before the ops and again after them: a busy machine drifts, both are printed and the
 * fraction uses their mean). Every op goes through the op check (bench/check/opcheck.h):
 * checked once, timed with the output poisoned before every run, the last run checked again.
 * Then a chain of dependent small dispatches in one submission (rmsnorm of one row of 768)
 * for the per-dispatch cost.
 *
 * usage: bench_ops [--only gemv|gemvq|decode|prefill|small|chain] [--budget SEC] [--point P]
 *                  [--read-point P] [--unpaired]
 *   --only gemvq  the q4_0 and q8_0 mat-vecs only
 *   --point       a point of the ops' tuning space ("wg=8,rows=16,mt=1") for those it fits;
 *                 in part ("parts=4"), the parameters it does not name from each op's default
 *   --read-point  a point of the read kernel's tuning space ("vw=8,epi=64,layout=0,wg=32")
 *                 for the bandwidth reference; default: its built-in point
 *   --unpaired    the read bandwidth only at the start and the end, not around every op
 * On a shared machine timings drift by 2x within a minute: each op's fraction is taken against
 * the best read bandwidth measured right before and right after it, and printed for the
 * median run and for the best (min) run against that best read.
 * (meson: `meson test -C build --benchmark --suite vulkan -v`)
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/opcheck.h"
#include "families/bench.h"
#include "vulkan/vk_internal.h"
#include "vk_test_util.h"

static char err[1024];

/* Read bandwidth in B/s: FF_KERNEL_MEM_READ over 2^25 words (128 MiB), XOR checked. */
static double read_bw(struct ff_device *dev, const char *point, double budget_s)
{
    const uint32_t n = 1u << 25;
    struct ff_kernel_desc desc = {.id = FF_KERNEL_MEM_READ, .n = n};
    if (point) {
        struct ff_tune_space s;
        if (ff_kernel_space(dev, &desc, &s, err, sizeof(err)) < 0 ||
            ff_tune_point_parse(&s, point, &desc.tune, err, sizeof(err)) < 0) {
            printf("read point: %s\n", err);
            return 0;
        }
    }
    struct ff_kernel *k = NULL;
    struct ff_buf *b[2] = {NULL, NULL};
    uint32_t *host = malloc((size_t)n * 4), *out = NULL;
    double bw = 0;
    int ret = host ? ff_kernel_create(dev, &desc, &k, err, sizeof(err)) : FF_ERR_NO_MEMORY;
    uint64_t words = ret == FF_OK ? ff_kernel_out_words(k) : 0;
    if (ret == FF_OK && !(out = malloc(words * 4)))
        ret = FF_ERR_NO_MEMORY;
    uint32_t want = 0;
    for (uint32_t i = 0; host && i < n; i++)
        want ^= host[i] = i * 2654435761u + 12345u;
    if (ret == FF_OK)
        ret = ff_buf_create(dev, (uint64_t)n * 4, &b[0], err, sizeof(err));
    if (ret == FF_OK)
        ret = ff_buf_create(dev, words * 4, &b[1], err, sizeof(err));
    if (ret == FF_OK)
        ret = ff_buf_write(b[0], 0, host, (uint64_t)n * 4, err, sizeof(err));
    double best_s = 0, spent = 0;
    for (int r = 0; ret == FF_OK && (r < 4 || (spent < budget_s && r < 50)); r++) {
        uint64_t dns = 0, wns = 0;
        ret = ff_kernel_run(k, b, 2, NULL, 0, &dns, &wns, err, sizeof(err));
        double s = dns * 1e-9;
        spent += s;
        if (r > 0 && (best_s == 0 || s < best_s))
            best_s = s;
    }
    if (ret == FF_OK)
        ret = ff_buf_read(b[1], 0, out, words * 4, err, sizeof(err));
    if (ret == FF_OK) {
        uint32_t got = 0;
        for (uint64_t i = 0; i < words; i++)
            got ^= out[i];
        if (got != want)
            ret = ff_errf(err, sizeof(err), FF_ERR_VERIFY, "read kernel XOR %08x, want %08x", got,
                          want);
    }
    if (ret == FF_OK && best_s > 0)
        bw = (double)n * 4 / best_s;
    else
        printf("read bandwidth: %s\n", err);
    ff_buf_destroy(&b[1]);
    ff_buf_destroy(&b[0]);
    ff_kernel_destroy(&k);
    free(out);
    free(host);
    return bw;
}

/* One op: checked, timed; prints a row. Returns 0 or the status. */
static const char *point_text; /* --point: a point of the op's tuning space */
static const char *read_point; /* --read-point */
static bool paired = true;     /* measure the read bandwidth around every op */

static int bench_one(struct ff_device *dev, const struct ff_kernel_desc *desc_in, double bw,
                     double budget_s)
{
    struct ff_kernel_desc dd = *desc_in;
    const struct ff_kernel_desc *desc = &dd;
    if (paired) /* the best of the read bandwidth just before and just after the op */
        bw = read_bw(dev, read_point, 0.2);
    if (point_text) {
        struct ff_tune_space s;
        if (ff_kernel_space(dev, &dd, &s, err, sizeof(err)) == FF_OK &&
            ff_tune_point_parse_over(&s, point_text, &s.dflt, &dd.tune, err, sizeof(err)) < 0) {
            printf("--point: %s\n", err);
            return FF_ERR_INVALID;
        }
    }
    struct ff_opcheck oc;
    struct ff_kernel *k = NULL;
    struct ff_timing t = {0};
    int ret = ff_opcheck_init(&oc, desc, 42 + desc->m + desc->n + desc->k, err, sizeof(err));
    if (ret < 0) {
        printf("%-12s init: %s\n", ff_suite_op_name(desc->id), err);
        return ret;
    }
    ret = ff_kernel_create(dev, desc, &k, err, sizeof(err));
    if (ret == FF_OK && ff_opcheck_upload(&oc, dev, err, sizeof(err)) < 0) {
        /* the device cannot hold the buffers (lavapipe: 128 MiB per allocation) */
        printf("%-12s %-5s m=%u n=%u k=%u: no buffers: %s\n", ff_suite_op_name(desc->id),
               ff_precision_name(desc->prec), desc->m, desc->n, desc->k, err);
        ff_kernel_destroy(&k);
        ff_opcheck_finish(&oc);
        return 0;
    }
    if (ret == FF_OK)
        ret = ff_opcheck_run(&oc, k, err, sizeof(err));
    struct ff_measure_cfg cfg;
    ff_measure_defaults(&cfg);
    cfg.budget_s = budget_s;
    cfg.min_reps = 5;
    if (ret == FF_OK)
        ret = ff_opcheck_bench(&oc, k, &cfg, &t, err, sizeof(err));
    char shape[64];
    snprintf(shape, sizeof(shape), "m=%u n=%u k=%u g=%u", desc->m, desc->n, desc->k, desc->g);
    /* the read bandwidth right after the op: the pair shares the machine's state */
    double bw_after = ret == FF_OK && paired ? read_bw(dev, read_point, 0.2) : 0;
    if (bw_after > bw)
        bw = bw_after;
    if (ret == FF_OK) {
        double bytes = (double)ff_opcheck_bytes(desc), s = t.dev_median_s, best = t.dev_min_s;
        printf("%-12s %-5s %-24s %9.3f ms (min %9.3f) %8.2f MB %6.2f GB/s (best %6.2f) "
               "read %5.2f GB/s: %5.2fx (best %5.2fx)  %s\n",
               ff_suite_op_name(desc->id), ff_precision_name(desc->prec), shape, s * 1e3,
               best * 1e3, bytes / 1e6, bytes / s / 1e9, bytes / best / 1e9, bw / 1e9,
               bw > 0 ? bytes / s / bw : 0.0, bw > 0 ? bytes / best / bw : 0.0,
               ff_kernel_variant(k));
        double flops = ff_opcheck_flops(desc);
        if (flops > 0)
            printf("%-12s %-5s %-24s %.2f GFLOP/s (best %.2f)\n", "", "", "", flops / s / 1e9,
                   flops / best / 1e9);
    } else {
        printf("%-12s %-5s %-26s %s: %s\n", ff_suite_op_name(desc->id),
               ff_precision_name(desc->prec), shape,
               ret == FF_ERR_UNSUPPORTED ? "unsupported" : "FAILED", err);
    }
    fflush(stdout);
    ff_kernel_destroy(&k);
    ff_opcheck_finish(&oc);
    return ret == FF_ERR_UNSUPPORTED ? 0 : ret;
}

/* rmsnorm of one row of n in place-free ping-pong: `count` dependent dispatches in one
 * submission against one dispatch per submission. */
static int bench_chain(struct ff_device *dev, uint32_t n)
{
    struct ff_kernel_desc desc = {.id = FF_KERNEL_RMSNORM, .prec = FF_PREC_FP32, .m = 1, .n = n};
    struct ff_opcheck oc;
    struct ff_kernel *k = NULL;
    int ret = ff_opcheck_init(&oc, &desc, 7, err, sizeof(err));
    if (ret < 0)
        return ret;
    ret = ff_kernel_create(dev, &desc, &k, err, sizeof(err));
    if (ret == FF_OK)
        ret = ff_opcheck_upload(&oc, dev, err, sizeof(err));
    if (ret == FF_OK)
        ret = ff_opcheck_run(&oc, k, err, sizeof(err));
    const uint32_t counts[] = {1, 16, 64, 256};
    double per[4] = {0};
    for (int c = 0; ret == FF_OK && c < 4; c++) {
        double best = 0;
        for (int r = 0; ret == FF_OK && r < 6; r++) {
            uint64_t dns = 0, wns = 0;
            ret = ff_kernel_run_chain(k, oc.bufs, oc.n_bufs, oc.params, oc.n_params, counts[c],
                                      &dns, &wns, err, sizeof(err));
            if (r > 0 && (best == 0 || dns * 1e-9 < best))
                best = dns * 1e-9;
        }
        per[c] = best / counts[c];
        printf("chain        rmsnorm 1x%-5u %4u dependent dispatches: %8.3f ms, %7.2f us each\n", n,
               counts[c], best * 1e3, per[c] * 1e6);
    }
    if (ret == FF_OK)
        printf("chain        per-dispatch cost (slope 16 -> 256): %.2f us\n",
               (per[3] * 256 - per[1] * 16) / 240 * 1e6);
    else
        printf("chain: %s\n", err);
    ff_kernel_destroy(&k);
    ff_opcheck_finish(&oc);
    return ret;
}

int main(int argc, char **argv)
{
    const char *only = NULL, *point = NULL;
    double budget = 0.5;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc)
            budget = atof(argv[++i]);
        else if (strcmp(argv[i], "--point") == 0 && i + 1 < argc)
            point_text = argv[++i];
        else if (strcmp(argv[i], "--read-point") == 0 && i + 1 < argc)
            point = read_point = argv[++i];
        else if (strcmp(argv[i], "--unpaired") == 0)
            paired = false;
        else {
            fprintf(stderr, "usage: bench_ops [--only gemv|gemvq|decode|prefill|small|chain] "
                            "[--budget SEC] [--point P] [--read-point P] [--unpaired]\n");
            return 2;
        }
    }
    int need = vkt_require_device();
    if (need)
        return need;
    struct ff_device *dev = NULL;
    if (ff_device_open(ff_backend_find("vulkan"), vkt_device_index(), &dev, err, sizeof(err)) < 0) {
        fprintf(stderr, "open: %s\n", err);
        return 1;
    }
    printf("device: %s (%s)\n", ff_device_info(dev)->name, ff_device_info(dev)->driver_version);
    double bw0 = read_bw(dev, point, 1.0);
    printf("read bandwidth (FF_KERNEL_MEM_READ, 128 MiB, %s point): %.2f GB/s\n",
           point ? point : "built-in", bw0 / 1e9);
    int fails = 0;
#define WANT(s) (!only || strcmp(only, s) == 0)
    if (WANT("gemv") || WANT("gemvq")) {
        const size_t n_fmts = only && strcmp(only, "gemvq") == 0 ? 2 : 6;
        const uint32_t shapes[][2] = {{4096, 4096}, {11008, 4096}, {4096, 11008}};
        const enum ff_precision fmts[] = {FF_PREC_Q4_0, FF_PREC_Q8_0, FF_PREC_FP16,
                                          FF_PREC_INT8, FF_PREC_BF16, FF_PREC_FP32};
        for (size_t f = 0; f < n_fmts; f++)
            for (size_t s = 0; s < 3; s++) {
                struct ff_kernel_desc d = {.id = FF_KERNEL_GEMV,
                                           .prec = fmts[f],
                                           .m = 1,
                                           .n = shapes[s][0],
                                           .k = shapes[s][1]};
                fails += bench_one(dev, &d, bw0, budget) != 0;
            }
        struct ff_kernel_desc d = {
            .id = FF_KERNEL_GEMV, .prec = FF_PREC_Q4_0, .m = 4, .n = 4096, .k = 4096};
        fails += bench_one(dev, &d, bw0, budget) != 0;
    }
    if (WANT("decode")) {
        const uint32_t ls[] = {512, 1024, 2048, 4096}, gs[] = {4, 1};
        for (size_t g = 0; g < 2; g++)
            for (size_t l = 0; l < 4; l++) {
                struct ff_kernel_desc d = {.id = FF_KERNEL_ATTN_DECODE,
                                           .prec = FF_PREC_FP16,
                                           .m = 32,
                                           .n = ls[l],
                                           .k = 128,
                                           .g = gs[g]};
                fails += bench_one(dev, &d, bw0, budget) != 0;
            }
        /* TinyLlama's: eight query rows a KV head of head dim 64 */
        struct ff_kernel_desc d = {
            .id = FF_KERNEL_ATTN_DECODE, .prec = FF_PREC_FP16, .m = 32, .n = 4096, .k = 64, .g = 8};
        fails += bench_one(dev, &d, bw0, budget) != 0;
        /* one KV head (multi-query attention, a tensor-parallel shard): fewer groups of rows
         * than the device runs at once, where the positions' parts spread it */
        d = (struct ff_kernel_desc){
            .id = FF_KERNEL_ATTN_DECODE, .prec = FF_PREC_FP16, .m = 8, .n = 8192, .k = 128, .g = 8};
        fails += bench_one(dev, &d, bw0, budget) != 0;
    }
    if (WANT("prefill")) {
        struct ff_kernel_desc d = {.id = FF_KERNEL_ATTN_PREFILL,
                                   .prec = FF_PREC_FP16,
                                   .m = 32,
                                   .n = 256,
                                   .k = 128,
                                   .g = 4};
        fails += bench_one(dev, &d, bw0, budget) != 0;
    }
    if (WANT("small")) {
        const struct ff_kernel_desc ds[] = {
            {.id = FF_KERNEL_RMSNORM, .prec = FF_PREC_FP32, .m = 1, .n = 4096},
            {.id = FF_KERNEL_RMSNORM, .prec = FF_PREC_FP32, .m = 512, .n = 4096},
            {.id = FF_KERNEL_ROPE, .prec = FF_PREC_FP32, .m = 32, .n = 128, .g = 32},
            {.id = FF_KERNEL_ROPE, .prec = FF_PREC_FP32, .m = 16384, .n = 128, .g = 32},
            {.id = FF_KERNEL_SWIGLU, .prec = FF_PREC_FP32, .m = 1, .n = 11008},
            {.id = FF_KERNEL_SWIGLU, .prec = FF_PREC_FP32, .m = 512, .n = 11008},
            {.id = FF_KERNEL_ADD, .prec = FF_PREC_FP32, .m = 1, .n = 4096},
            {.id = FF_KERNEL_ADD, .prec = FF_PREC_FP32, .m = 512, .n = 4096},
            {.id = FF_KERNEL_XENT, .prec = FF_PREC_FP32, .m = 1, .n = 32000},
            {.id = FF_KERNEL_XENT, .prec = FF_PREC_FP32, .m = 64, .n = 32000},
        };
        for (size_t i = 0; i < sizeof(ds) / sizeof(ds[0]); i++)
            fails += bench_one(dev, &ds[i], bw0, budget) != 0;
    }
    if (WANT("chain"))
        fails += bench_chain(dev, 768) != 0;
    double bw1 = read_bw(dev, point, 1.0);
    printf("read bandwidth again: %.2f GB/s (before: %.2f)\n", bw1 / 1e9, bw0 / 1e9);
    ff_device_destroy(&dev);
    return fails ? 1 : 0;
}
