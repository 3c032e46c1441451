/* The OpenCL backend on a real device (PoCL on CI): verified matmul, honest unsupported. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../common.h"
#include "bench.h"
#include "verify.h"

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

/* Runs our kernel on an m x n x k problem and checks it against the reference. */
static int matmul_once(enum ff_kernel_id id, enum ff_precision p, uint32_t m, uint32_t n,
                       uint32_t k, char *err, size_t errlen)
{
    struct ff_rng r;
    ff_rng_seed(&r, 1234 + m);
    size_t in = ff_prec_in_bytes(p), out = ff_prec_out_bytes(p);
    void *a = malloc((size_t)m * k * in), *b = malloc((size_t)k * n * in);
    void *c = malloc((size_t)m * n * out), *ref = malloc((size_t)m * n * 4);
    ff_fill_random(p, a, (size_t)m * k, &r);
    ff_fill_random(p, b, (size_t)k * n, &r);
    ff_poison(p, c, (size_t)m * n);
    uint32_t rows[1024];
    size_t nr = ff_verify_rows(m, n, k, rows, 1024);
    ff_ref_matmul(p, a, b, ref, n, k, rows, nr);

    struct ff_buf *bufs[3] = {NULL};
    struct ff_kernel *kern = NULL;
    struct ff_kernel_desc d = {.id = id, .prec = p, .m = m, .n = n, .k = k};
    uint32_t params[3] = {m, n, k};
    uint64_t dns = 0, wns = 0;
    int ret = ff_kernel_create(dev, &d, &kern, err, errlen);
    if (ret == FF_OK) {
        cr_assert_eq(ff_buf_create(dev, (uint64_t)m * k * in, &bufs[0], err, errlen), FF_OK);
        cr_assert_eq(ff_buf_create(dev, (uint64_t)k * n * in, &bufs[1], err, errlen), FF_OK);
        cr_assert_eq(ff_buf_create(dev, (uint64_t)m * n * out, &bufs[2], err, errlen), FF_OK);
        cr_assert_eq(ff_buf_write(bufs[0], 0, a, (uint64_t)m * k * in, err, errlen), FF_OK);
        cr_assert_eq(ff_buf_write(bufs[1], 0, b, (uint64_t)k * n * in, err, errlen), FF_OK);
        cr_assert_eq(ff_buf_write(bufs[2], 0, c, (uint64_t)m * n * out, err, errlen), FF_OK);
        ret = ff_kernel_run(kern, bufs, 3, params, 3, &dns, &wns, err, errlen);
        cr_assert_eq(ret, FF_OK, "%s", err);
        cr_assert_gt(wns, 0);
        cr_assert_eq(ff_buf_read(bufs[2], 0, c, (uint64_t)m * n * out, err, errlen), FF_OK);
        struct ff_check chk;
        ret = ff_check_matmul(p, c, ref, m, n, rows, nr, &chk);
        if (ret < 0)
            snprintf(err, errlen, "%llu wrong, first [%u][%u] = %g want %g",
                     (unsigned long long)chk.bad, chk.first_row, chk.first_col, chk.got, chk.want);
    }
    ff_kernel_destroy(&kern);
    for (int i = 0; i < 3; i++)
        ff_buf_destroy(&bufs[i]);
    free(a);
    free(b);
    free(c);
    free(ref);
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
    struct ff_profile p = {.info = *ff_device_info(dev)};
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
    ff_profile_finish(&p);
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
