/*
 * The OpenCL backend on a real device (PoCL on CI): verified matmul, honest
 * unsupported; and lazy kernels (the real one behind a wrapping backend that
 * skips work) run through the matmul suite, each caught.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../common.h"
#include "../peak_pairing.h"
#include "backend_impl.h"
#include "families/bench.h"
#include "check/kcheck.h"

static struct ff_device *dev;

static void setup(void)
{
    dev = ff_test_open("opencl");
}

static void teardown(void)
{
    ff_device_destroy(&dev);
}

TestSuite(opencl, .init = setup, .fini = teardown, .timeout = 300);

/*
 * Runs our kernel on an m x n x k problem through the kernel check (fresh
 * inputs, poisoned C, every element compared), then once more timed.
 */
static int matmul_once(enum ff_kernel_id id, enum ff_precision p, uint32_t m, uint32_t n,
                       uint32_t k, char *err, size_t errlen)
{
    struct ff_kernel *kern = NULL;
    struct ff_kernel_desc d = {.id = id, .prec = p, .m = m, .n = n, .k = k};
    int ret = ff_kernel_create(dev, &d, &kern, err, errlen);
    if (ret == FF_OK) {
        struct ff_kcheck kc;
        cr_assert_eq(ff_kcheck_init(&kc, p, m, n, k, 1234 + m, err, errlen), FF_OK, "%s", err);
        cr_assert(kc.ref->plan.full, "%ux%ux%u: every element is checked", m, n, k);
        cr_assert_eq(ff_kcheck_upload(&kc, dev, err, errlen), FF_OK, "%s", err);
        ret = ff_kcheck_run(&kc, kern, err, errlen);
        if (ret == FF_OK) {
            struct ff_measure_cfg mc = {.warmup = 0, .min_reps = 1, .max_reps = 1};
            struct ff_timing t = {0};
            ret = ff_kcheck_bench(&kc, kern, &mc, &t, err, errlen);
            cr_assert_eq(t.reps, 1);
            cr_assert_gt(t.wall_median_s, 0);
        }
        ff_kcheck_finish(&kc);
    }
    ff_kernel_destroy(&kern);
    return ret;
}

Test(opencl, device_info_is_filled)
{
    const struct ff_device_info *i = ff_device_info(dev);
    cr_assert_str_eq(i->backend, "opencl");
    cr_assert_gt(strlen(i->name), 0);
    cr_assert_gt(i->global_mem_bytes, 0);
    cr_assert_gt(i->max_alloc_bytes, 0);
    cr_assert_gt(i->compute_units, 0);
}

Test(opencl, fp32_matmul_verified_on_odd_and_tile_shapes)
{
    const uint32_t shapes[][3] = {
        {64, 64, 64}, {96, 160, 72}, {1, 1, 1}, {17, 33, 5}, {128, 8, 256}};
    char err[1024] = "";
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
        cr_assert_eq(matmul_once(FF_KERNEL_MATMUL, FF_PREC_FP32, shapes[i][0], shapes[i][1],
                                 shapes[i][2], err, sizeof(err)),
                     FF_OK, "%ux%ux%u: %s", shapes[i][0], shapes[i][1], shapes[i][2], err);
}

Test(opencl, int8_matmul_is_exact)
{
    char err[1024] = "";
    cr_assert_eq(matmul_once(FF_KERNEL_MATMUL, FF_PREC_INT8, 96, 160, 72, err, sizeof(err)), FF_OK,
                 "%s", err);
    cr_assert_eq(matmul_once(FF_KERNEL_MATMUL, FF_PREC_INT8, 37, 11, 300, err, sizeof(err)), FF_OK,
                 "%s", err);
}

Test(opencl, fp16_is_verified_or_unsupported_with_reason)
{
    char err[1024] = "";
    int ret = matmul_once(FF_KERNEL_MATMUL, FF_PREC_FP16, 64, 96, 80, err, sizeof(err));
    if (ff_device_info(dev)->fp16)
        cr_assert_eq(ret, FF_OK, "%s", err);
    else {
        cr_assert_eq(ret, FF_ERR_UNSUPPORTED);
        cr_assert(strstr(err, "cl_khr_fp16"), "%s", err);
    }
}

Test(opencl, coopmat_is_unsupported_with_reason)
{
    char err[1024] = "";
    cr_assert_eq(matmul_once(FF_KERNEL_MATMUL_COOPMAT, FF_PREC_FP16, 64, 64, 64, err, sizeof(err)),
                 FF_ERR_UNSUPPORTED);
    cr_assert(strstr(err, "Vulkan"), "%s", err);
}

Test(opencl, clblast_reference_verified_or_unsupported)
{
    char err[1024] = "";
    int ret = matmul_once(FF_KERNEL_MATMUL_LIBRARY, FF_PREC_FP32, 96, 160, 72, err, sizeof(err));
    cr_assert(ret == FF_OK || ret == FF_ERR_UNSUPPORTED, "%s", err);
    cr_assert_eq(matmul_once(FF_KERNEL_MATMUL_LIBRARY, FF_PREC_INT8, 64, 64, 64, err, sizeof(err)),
                 FF_ERR_UNSUPPORTED);
    cr_assert(strstr(err, "int8"), "%s", err);
}

Test(opencl, bad_arguments_are_rejected_by_the_front_end)
{
    char err[512] = "";
    struct ff_buf *b = NULL;
    cr_assert_eq(ff_buf_create(dev, 0, &b, err, sizeof(err)), FF_ERR_INVALID);
    cr_assert_eq(ff_buf_create(dev, ff_device_info(dev)->max_alloc_bytes + 1, &b, err, sizeof(err)),
                 FF_ERR_DEVICE_MEMORY);
    cr_assert(strstr(err, "max allocation"), "%s", err);
    cr_assert_eq(ff_buf_create(dev, 64, &b, err, sizeof(err)), FF_OK);
    char host[128];
    cr_assert_eq(ff_buf_write(b, 32, host, 64, err, sizeof(err)), FF_ERR_INVALID);
    struct ff_kernel *k = NULL;
    struct ff_kernel_desc d = {
        .id = FF_KERNEL_MATMUL, .prec = FF_PREC_FP32, .m = 0, .n = 4, .k = 4};
    cr_assert_eq(ff_kernel_create(dev, &d, &k, err, sizeof(err)), FF_ERR_INVALID);
    d.m = 4;
    cr_assert_eq(ff_kernel_create(dev, &d, &k, err, sizeof(err)), FF_OK, "%s", err);
    struct ff_buf *bufs[3] = {b, b, NULL};
    uint32_t params[3] = {4, 4, 4};
    cr_assert_eq(ff_kernel_run(k, bufs, 2, params, 3, NULL, NULL, err, sizeof(err)),
                 FF_ERR_INVALID); /* wrong buffer count */
    cr_assert_eq(ff_kernel_run(k, bufs, 3, params, 3, NULL, NULL, err, sizeof(err)),
                 FF_ERR_INVALID); /* missing buffer */
    ff_kernel_destroy(&k);
    ff_buf_destroy(&b);
    cr_assert_null(b);
    ff_buf_destroy(&b); /* NULL-safe */
}

Test(opencl, suite_records_ok_unsupported_and_never_a_zero)
{
    struct ff_bench_cfg cfg;
    ff_bench_cfg_defaults(&cfg);
    cfg.sizes[0] = 64;
    cfg.sizes[1] = 96;
    cfg.n_sizes = 2;
    cfg.sizes_given = true;
    cfg.measure.min_reps = 2;
    cfg.measure.budget_s = 0.01;
    struct ff_run p = {.info = *ff_device_info(dev)};
    ff_suite_matmul(dev, &cfg, &p);
    bool fp32_ok = false, int8_ok = false, fp16_seen = false;
    for (size_t i = 0; i < p.n_results; i++) {
        const struct ff_result *r = &p.results[i];
        if (r->status == FF_RES_OK) {
            cr_assert(r->verified, "an ok result must be verified");
            cr_assert_gt(r->value, 0);
            cr_assert(r->has_error);
        } else {
            cr_assert_eq(r->value, 0);
            cr_assert_gt(strlen(r->reason), 0, "%s %s has no reason", r->impl,
                         ff_precision_name(r->prec));
        }
        cr_assert_neq(r->status, FF_RES_FAILED, "%s %s n=%u failed: %s", r->impl,
                      ff_precision_name(r->prec), r->m, r->reason);
        if (strcmp(r->impl, "flopfit") == 0) {
            fp32_ok |= r->prec == FF_PREC_FP32 && r->status == FF_RES_OK;
            int8_ok |= r->prec == FF_PREC_INT8 && r->status == FF_RES_OK;
            fp16_seen |= r->prec == FF_PREC_FP16;
        }
    }
    cr_assert(fp32_ok && int8_ok && fp16_seen);
    ff_run_finish(&p);
}

Test(opencl, gpu_local_memory_layout_verified_on_this_device)
{
    /* The GPU layout (local-memory tiles) cannot meet a GPU on CI; run it on
     * whatever device is here through the tuning override so it is checked. */
    const char *tunes[] = {"4,4,1,1,16,16,16", "8,4,1,1,16,16,16", "4,4,1,1,8,8,16"};
    const uint32_t shapes[][3] = {{96, 160, 72}, {17, 33, 5}, {130, 64, 40}};
    char err[1024] = "";
    for (size_t t = 0; t < sizeof(tunes) / sizeof(tunes[0]); t++) {
        setenv("FF_CL_MATMUL_TUNE", tunes[t], 1);
        for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
            for (size_t pi = 0; pi < 2; pi++) {
                enum ff_precision p = pi == 0 ? FF_PREC_FP32 : FF_PREC_INT8;
                cr_assert_eq(matmul_once(FF_KERNEL_MATMUL, p, shapes[i][0], shapes[i][1],
                                         shapes[i][2], err, sizeof(err)),
                             FF_OK, "tune %s %s %ux%ux%u: %s", tunes[t], ff_precision_name(p),
                             shapes[i][0], shapes[i][1], shapes[i][2], err);
            }
    }
    unsetenv("FF_CL_MATMUL_TUNE");
}

Test(opencl, an_override_the_kernel_cannot_take_is_a_failed_build_not_unsupported)
{
    /* Well formed, but a 16x64 tile needs more registers than any device's budget here. */
    setenv("FF_CL_MATMUL_TUNE", "16,64,1,0,0,0,0", 1);
    char err[1024] = "";
    struct ff_kernel *kern = NULL;
    struct ff_kernel_desc d = {
        .id = FF_KERNEL_MATMUL, .prec = FF_PREC_FP32, .m = 64, .n = 64, .k = 64};
    cr_expect_eq(ff_kernel_create(dev, &d, &kern, err, sizeof(err)), FF_ERR_BUILD, "%s", err);
    cr_expect(strstr(err, "cl_matmul_tune=16,64,1,0,0,0,0 cannot be built here"), "%s", err);
    ff_kernel_destroy(&kern);
    /* the bench records it as failed, with the reason */
    struct ff_bench_cfg cfg;
    ff_bench_cfg_defaults(&cfg);
    cfg.sizes[0] = 64;
    cfg.n_sizes = 1;
    cfg.sizes_given = true;
    for (int i = 0; i < FF_PREC_COUNT; i++)
        cfg.prec[i] = i == FF_PREC_FP32;
    cfg.measure.min_reps = 2;
    cfg.measure.budget_s = 0.01;
    struct ff_run p = {.info = *ff_device_info(dev)};
    ff_suite_matmul(dev, &cfg, &p);
    unsetenv("FF_CL_MATMUL_TUNE");
    bool seen = false;
    for (size_t i = 0; i < p.n_results; i++) {
        const struct ff_result *r = &p.results[i];
        if (strcmp(r->impl, "flopfit") != 0 || r->prec != FF_PREC_FP32)
            continue;
        seen = true;
        cr_expect_eq(r->status, FF_RES_FAILED, "status %d: %s", (int)r->status, r->reason);
        cr_expect(strstr(r->reason, "cannot be built here"), "%s", r->reason);
    }
    cr_expect(seen, "no fp32 result of our kernel");
    ff_run_finish(&p);
}

/* ---- lazy kernels on the real device ------------------------------------- */

/* How the wrapped matmul cheats. */
enum cheat {
    CHEAT_NONE,
    CHEAT_SKIP_WHEN_WRITTEN, /* works only while C[0] is still the poison */
    CHEAT_FIRST_RUN_ONLY,    /* later runs return at once: stale output */
    CHEAT_MEMO,              /* later runs copy the first result: right values, no work */
    CHEAT_ROWS_256,          /* leaves rows >= 256 as they were */
    CHEAT_COLS_256,          /* leaves columns >= 256 as they were */
};

static struct {
    const struct ff_backend *real;
    enum cheat cheat;
    uint32_t runs, skipped;
    void *saved; /* CHEAT_MEMO: the first output */
    uint64_t saved_bytes;
} lazy;

static struct ff_backend_ops lazy_ops;
static const struct ff_backend lazy_backend = {&lazy_ops};

static int l_kernel_run(struct ff_kernel *k, struct ff_buf *const *bufs, size_t n_bufs,
                        const uint32_t *params, size_t n_params, uint64_t *device_ns,
                        uint64_t *wall_ns, char *err, size_t errlen)
{
    const struct ff_backend_ops *real = lazy.real->ops;
    if (k->desc.id != FF_KERNEL_MATMUL || lazy.cheat == CHEAT_NONE)
        return real->kernel_run(k, bufs, n_bufs, params, n_params, device_ns, wall_ns, err, errlen);
    const uint32_t m = params[0], n = params[1];
    const uint64_t bytes = bufs[2]->bytes;
    bool first = lazy.runs++ == 0, skip = false;
    int ret;
    if (lazy.cheat == CHEAT_SKIP_WHEN_WRITTEN) {
        float c0 = 0;
        if ((ret = real->buf_read(bufs[2], 0, &c0, sizeof(c0), err, errlen)) < 0)
            return ret;
        skip = !isnan(c0);
    } else if (lazy.cheat == CHEAT_FIRST_RUN_ONLY) {
        skip = !first;
    } else if (lazy.cheat == CHEAT_MEMO && !first) {
        skip = true;
        if ((ret = real->buf_write(bufs[2], 0, lazy.saved, bytes, err, errlen)) < 0)
            return ret;
    }
    if (skip) {
        lazy.skipped++;
        *device_ns = *wall_ns = 1000; /* what a launch that does nothing costs */
        return FF_OK;
    }
    float *before = NULL;
    if (lazy.cheat == CHEAT_ROWS_256 || lazy.cheat == CHEAT_COLS_256) {
        before = malloc(bytes);
        cr_assert_not_null(before);
        if ((ret = real->buf_read(bufs[2], 0, before, bytes, err, errlen)) < 0)
            goto done;
    }
    ret = real->kernel_run(k, bufs, n_bufs, params, n_params, device_ns, wall_ns, err, errlen);
    if (ret == FF_OK && before) {
        /* put back what the lazy kernel would not have written */
        float *after = malloc(bytes);
        cr_assert_not_null(after);
        ret = real->buf_read(bufs[2], 0, after, bytes, err, errlen);
        for (uint32_t i = 0; ret == FF_OK && i < m; i++)
            for (uint32_t j = 0; j < n; j++)
                if (lazy.cheat == CHEAT_ROWS_256 ? i >= 256 : j >= 256)
                    after[(size_t)i * n + j] = before[(size_t)i * n + j];
        if (ret == FF_OK)
            ret = real->buf_write(bufs[2], 0, after, bytes, err, errlen);
        free(after);
    }
    if (ret == FF_OK && lazy.cheat == CHEAT_MEMO) {
        free(lazy.saved);
        lazy.saved = malloc(bytes);
        cr_assert_not_null(lazy.saved);
        ret = real->buf_read(bufs[2], 0, lazy.saved, bytes, err, errlen);
    }
done:
    free(before);
    return ret;
}

static void lazy_setup(void)
{
    lazy.real = ff_test_require_backend("opencl");
    lazy_ops = *lazy.real->ops;
    lazy_ops.kernel_run = l_kernel_run;
    char err[512] = "";
    cr_assert_eq(ff_device_open(&lazy_backend, 0, &dev, err, sizeof(err)), FF_OK, "%s", err);
}

static void lazy_teardown(void)
{
    ff_device_destroy(&dev);
    free(lazy.saved);
    lazy.saved = NULL;
}

TestSuite(opencl_lazy, .init = lazy_setup, .fini = lazy_teardown, .timeout = 300);

/* Our fp32 kernel through the suite at one size with `cheat`; its result. */
static struct ff_result run_cheat(enum cheat cheat, uint32_t n)
{
    lazy.cheat = cheat;
    lazy.runs = lazy.skipped = 0;
    struct ff_bench_cfg cfg;
    ff_bench_cfg_defaults(&cfg);
    memset(cfg.prec, 0, sizeof(cfg.prec));
    cfg.prec[FF_PREC_FP32] = true;
    cfg.library = false;
    cfg.sizes[0] = n;
    cfg.n_sizes = 1;
    cfg.sizes_given = true;
    cfg.measure.min_reps = 3;
    cfg.measure.budget_s = 0.01;
    struct ff_run p = {.info = *ff_device_info(dev)};
    ff_suite_matmul(dev, &cfg, &p);
    struct ff_result out = {0};
    for (size_t i = 0; i < p.n_results; i++)
        if (strcmp(p.results[i].impl, "flopfit") == 0)
            out = p.results[i];
    ff_run_finish(&p);
    cr_assert_str_eq(out.impl, "flopfit");
    return out;
}

/* The sizes of --quick, and an odd one */
static const uint32_t quick_sizes[] = {256, 257, 1024};

Test(opencl_lazy, honest_kernel_is_published)
{
    struct ff_result r = run_cheat(CHEAT_NONE, 256);
    cr_assert_eq(r.status, FF_RES_OK, "%s", r.reason);
    cr_assert(r.verified && r.value > 0);
}

Test(opencl_lazy, skip_when_written_is_made_to_work_every_run)
{
    /* C is poisoned before every timed run, so the cheat never gets to skip:
     * the figure published is the honest one. */
    for (size_t i = 0; i < sizeof(quick_sizes) / sizeof(quick_sizes[0]); i++) {
        struct ff_result r = run_cheat(CHEAT_SKIP_WHEN_WRITTEN, quick_sizes[i]);
        cr_assert_eq(r.status, FF_RES_OK, "n=%u: %s", quick_sizes[i], r.reason);
        cr_assert_eq(lazy.skipped, 0, "n=%u: %u of %u runs skipped", quick_sizes[i], lazy.skipped,
                     lazy.runs);
        cr_assert_geq(lazy.runs, 5); /* checked, warm-up, 3 timed */
    }
}

Test(opencl_lazy, stale_output_after_the_first_run_fails)
{
    for (size_t i = 0; i < sizeof(quick_sizes) / sizeof(quick_sizes[0]); i++) {
        struct ff_result r = run_cheat(CHEAT_FIRST_RUN_ONLY, quick_sizes[i]);
        cr_assert_eq(r.status, FF_RES_FAILED, "n=%u published %g", quick_sizes[i], r.value);
        cr_assert(strstr(r.reason, "does not match the CPU reference"), "%s", r.reason);
        cr_assert_not(r.verified);
        cr_assert_eq(r.value, 0);
    }
}

Test(opencl_lazy, memoized_output_is_implausible)
{
    /* right values, no work: only the rate gives it away */
    for (size_t i = 0; i < sizeof(quick_sizes) / sizeof(quick_sizes[0]); i++) {
        struct ff_result r = run_cheat(CHEAT_MEMO, quick_sizes[i]);
        cr_assert_eq(r.status, FF_RES_FAILED, "n=%u published %g", quick_sizes[i], r.value);
        cr_assert(strncmp(r.reason, "implausible: ", 13) == 0, "%s", r.reason);
        cr_assert(strstr(r.reason, "above limit"), "%s", r.reason);
        cr_assert_eq(r.value, 0);
    }
}

Test(opencl_lazy, partial_rows_and_columns_fail)
{
    const uint32_t sizes[] = {257, 1024};
    for (size_t i = 0; i < 2; i++)
        for (int c = 0; c < 2; c++) {
            struct ff_result r = run_cheat(c ? CHEAT_COLS_256 : CHEAT_ROWS_256, sizes[i]);
            cr_assert_eq(r.status, FF_RES_FAILED, "n=%u %s published %g", sizes[i],
                         c ? "cols" : "rows", r.value);
            cr_assert(strstr(r.reason, "does not match the CPU reference"), "%s", r.reason);
        }
}

Test(opencl_lazy, honest_rates_stay_below_the_physical_limit)
{
    char why[200];
    const struct ff_device_info *info = ff_device_info(dev);
    double lim = ff_kcheck_rate_limit(info, FF_PREC_FP32, why, sizeof(why));
    struct ff_result r = run_cheat(CHEAT_NONE, 1024);
    cr_assert_eq(r.status, FF_RES_OK, "%s", r.reason);
    cr_assert_lt(r.value * 2, lim, "honest %g FLOP/s within 2x of the limit %g (%s)", r.value, lim,
                 why);
}

Test(opencl, matmul_is_read_against_the_peak_measured_beside_it)
{
    ff_test_peak_pairing(dev);
}
