/*
 * A Vulkan submission that outlives its timeout (timeout_s = 1 and an
 * fp32 matmul sized to take about 4 s on this device, measured first) is reported as
 * FF_ERR_TIMEOUT, and freeing its buffers and pipeline right away (what bench does next) must
 * not pull memory from under the running shader: the run returns only once the device is done
 * with them. The device stays usable for the next test, the validation layer reports nothing,
 * and ASan/LSan see no use-after-free or leak.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../common.h"
#include "vulkan/vk_internal.h"

static char err[512];

/* Seconds one n^3 fp32 matmul takes on dev (the second of two runs). */
static double matmul_seconds(struct ff_device *dev, uint32_t n)
{
    struct ff_kernel_desc desc = {
        .id = FF_KERNEL_MATMUL, .prec = FF_PREC_FP32, .m = n, .n = n, .k = n};
    struct ff_kernel *k = NULL;
    cr_assert_eq(ff_kernel_create(dev, &desc, &k, err, sizeof(err)), FF_OK, "%s", err);
    struct ff_buf *bufs[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++)
        cr_assert_eq(ff_buf_create(dev, (uint64_t)n * n * 4, &bufs[i], err, sizeof(err)), FF_OK,
                     "%s", err);
    uint32_t p[3] = {n, n, n};
    uint64_t wall = 0;
    for (int rep = 0; rep < 2; rep++)
        cr_assert_eq(ff_kernel_run(k, bufs, 3, p, 3, NULL, &wall, err, sizeof(err)), FF_OK, "%s",
                     err);
    ff_kernel_destroy(&k);
    for (int i = 0; i < 3; i++)
        ff_buf_destroy(&bufs[i]);
    return (double)wall / 1e9;
}

Test(vk_timeout, timed_out_run_is_reported_and_its_objects_freed_safely, .timeout = 120)
{
    const struct ff_backend *b = ff_test_require_backend("vulkan");
    /* About 4 s of work at the rate measured here and now (the machine may be shared), so
     * the 1 s timeout passes with margin and the test stays short; at most 4096 (64 MiB per
     * buffer, inside lavapipe's 128 MiB binding limit). The rate is measured on the device
     * opened without the 1 s timeout: on a loaded host the 512^3 run itself can take longer. */
    struct ff_device *cal = NULL;
    cr_assert_eq(ff_device_open(b, 0, &cal, err, sizeof(err)), FF_OK, "%s", err);
    double t512 = matmul_seconds(cal, 512);
    ff_device_destroy(&cal);
    double want_flop = 4.0 * (2.0 * 512 * 512 * 512) / (t512 > 1e-6 ? t512 : 1e-6);
    double side = cbrt(want_flop / 2.0);
    uint32_t n = side > 4096 ? 4096 : side < 1024 ? 1024 : (uint32_t)side / 256 * 256;

    struct ff_device_options o;
    ff_device_options_init(&o);
    cr_assert_eq(ff_device_options_set(&o, "timeout_s", "1", err, sizeof(err)), FF_OK, "%s", err);
    struct ff_device *dev = NULL;
    cr_assert_eq(ff_device_open_opts(b, 0, &o, &dev, err, sizeof(err)), FF_OK, "%s", err);
    if (getenv("FF_VK_VALIDATION") && ff_test_in_ci())
        cr_assert(ff_vk_validation_active(), "CI=true, FF_VK_VALIDATION set, layer not active");
    const struct ff_device_info *info = ff_device_info(dev);
    bool cpu = strcmp(info->type, "cpu") == 0;
    struct ff_kernel_desc desc = {
        .id = FF_KERNEL_MATMUL, .prec = FF_PREC_FP32, .m = n, .n = n, .k = n};
    struct ff_kernel *k = NULL;
    cr_assert_eq(ff_kernel_create(dev, &desc, &k, err, sizeof(err)), FF_OK, "%s", err);
    struct ff_buf *bufs[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++)
        cr_assert_eq(ff_buf_create(dev, (uint64_t)n * n * 4, &bufs[i], err, sizeof(err)), FF_OK,
                     "%s", err);
    /* The contents do not matter: only the time does. */
    uint32_t p[3] = {n, n, n};
    uint64_t t0 = ff_now_ns();
    int ret = ff_kernel_run(k, bufs, 3, p, 3, NULL, NULL, err, sizeof(err));
    double secs = (double)(ff_now_ns() - t0) / 1e9;
    if (ret == FF_OK && !cpu) {
        ff_kernel_destroy(&k);
        for (int i = 0; i < 3; i++)
            ff_buf_destroy(&bufs[i]);
        ff_device_destroy(&dev);
        cr_skip_test("a %ux%ux%u matmul finished within 1 s on %s: nothing times out here", n, n, n,
                     info->name);
    }
    cr_assert_eq(ret, FF_ERR_TIMEOUT,
                 "n = %u (512: %.3f s): expected a timeout after 1 s, got %d after %.1f s: %s", n,
                 t512, ret, secs, err);
    cr_log_info("n = %u (512^3: %.3f s): %s", n, t512, err);
    cr_expect(strstr(err, "did not finish within 1 s") && strstr(err, "it finished after"), "%s",
              err);
    /* What bench does next: free everything the run used, at once. */
    ff_kernel_destroy(&k);
    for (int i = 0; i < 3; i++)
        ff_buf_destroy(&bufs[i]);

    /* The device is still good: a small write and read back. */
    struct ff_kernel_desc wd = {.id = FF_KERNEL_MEM_WRITE, .n = 1024};
    struct ff_kernel *w = NULL;
    struct ff_buf *buf = NULL;
    cr_assert_eq(ff_kernel_create(dev, &wd, &w, err, sizeof(err)), FF_OK, "%s", err);
    cr_assert_eq(ff_buf_create(dev, 4096, &buf, err, sizeof(err)), FF_OK, "%s", err);
    uint32_t value = 0x5a5a0000u;
    cr_assert_eq(ff_kernel_run(w, &buf, 1, &value, 1, NULL, NULL, err, sizeof(err)), FF_OK, "%s",
                 err);
    uint32_t back[1024];
    cr_assert_eq(ff_buf_read(buf, 0, back, sizeof(back), err, sizeof(err)), FF_OK, "%s", err);
    for (uint32_t i = 0; i < 1024; i++)
        cr_assert_eq(back[i], value ^ i, "word %u: 0x%08x", i, back[i]);
    ff_kernel_destroy(&w);
    ff_buf_destroy(&buf);
    ff_device_destroy(&dev);

    char last[512];
    ff_vk_validation_last(last, sizeof(last));
    cr_expect_eq(ff_vk_validation_errors(), 0, "validation errors: %llu, last: %s",
                 (unsigned long long)ff_vk_validation_errors(), last);
}
