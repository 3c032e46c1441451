/*
 * tests/backends/vulkan/test_vulkan.c — the Vulkan backend on a real device
 * (lavapipe on CI), through the same backend.h interface bench/ uses, with
 * the Khronos validation layer on (FF_VK_VALIDATION=1 from meson) and zero
 * validation errors required at the end of every test.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../peak_pairing.h"
#include "check/kcheck.h"
#include "vulkan/vk_internal.h"
#include "vk_test_suite.h"

static struct ff_device *dev;
static char err[512];
static char last_variant[160]; /* of the last kernel check_matmul built */

static void open_dev(void)
{
    vkt_suite_open(&dev);
}

static void close_dev(void)
{
    vkt_suite_close(&dev);
}

TestSuite(vulkan, .init = open_dev, .fini = close_dev, .timeout = 300);

static struct ff_buf *mkbuf(uint64_t bytes)
{
    struct ff_buf *b = NULL;
    cr_assert_eq(ff_buf_create(dev, bytes, &b, err, sizeof(err)), FF_OK, "buf: %s", err);
    return b;
}

static int run(struct ff_kernel *k, struct ff_buf **bufs, size_t nb, const uint32_t *p, size_t np,
               uint64_t *dns)
{
    uint64_t d = 0, w = 0;
    int ret = ff_kernel_run(k, bufs, nb, p, np, &d, &w, err, sizeof(err));
    if (dns)
        *dns = d;
    return ret;
}

/*
 * Build one matmul and run it through the kernel check (fresh inputs, C
 * poisoned, every element compared with the precision's bound), then once
 * timed with C poisoned again; returns the kernel_create status. A wrong
 * result fails the test here, naming the element and the kernel variant.
 */
static int check_matmul(enum ff_kernel_id id, enum ff_precision prec, uint32_t m, uint32_t n,
                        uint32_t k)
{
    struct ff_kernel_desc desc = {.id = id, .prec = prec, .m = m, .n = n, .k = k};
    struct ff_kernel *kern = NULL;
    int ret = ff_kernel_create(dev, &desc, &kern, err, sizeof(err));
    if (ret < 0)
        return ret;
    snprintf(last_variant, sizeof(last_variant), "%s", ff_kernel_variant(kern));
    struct ff_kcheck kc;
    uint64_t seed = 0x9e3779b97f4a7c15ull ^ ((uint64_t)m << 40 | (uint64_t)n << 20 | k);
    cr_assert_eq(ff_kcheck_init(&kc, prec, m, n, k, seed, err, sizeof(err)), FF_OK, "%s", err);
    cr_assert(kc.ref->plan.full, "%ux%ux%u: every element is checked", m, n, k);
    cr_assert_eq(ff_kcheck_upload(&kc, dev, err, sizeof(err)), FF_OK, "%s", err);
    ret = ff_kcheck_run(&kc, kern, err, sizeof(err));
    cr_assert_eq(ret, FF_OK, "%s %ux%ux%u (%s): %s", ff_precision_name(prec), m, n, k,
                 ff_kernel_variant(kern), err);
    struct ff_measure_cfg mc = {.warmup = 0, .min_reps = 1, .max_reps = 1};
    struct ff_timing t = {0};
    ret = ff_kcheck_bench(&kc, kern, &mc, &t, err, sizeof(err));
    cr_assert_eq(ret, FF_OK, "timed %s %ux%ux%u (%s): %s", ff_precision_name(prec), m, n, k,
                 ff_kernel_variant(kern), err);
    cr_assert_gt(t.wall_median_s, 0);
    ff_kcheck_finish(&kc);
    ff_kernel_destroy(&kern);
    return FF_OK;
}

Test(vulkan, device_info)
{
    const struct ff_device_info *info = ff_device_info(dev);
    cr_expect_str_eq(info->backend, "vulkan");
    cr_expect(info->name[0] && info->vendor[0] && info->driver_version[0]);
    cr_expect(strncmp(info->api_version, "Vulkan 1.", 9) == 0, "%s", info->api_version);
    cr_expect(info->global_mem_bytes > 0);
    cr_expect(info->max_alloc_bytes > 0 && info->max_alloc_bytes <= info->global_mem_bytes * 4);
    cr_expect(info->timer_resolution_ns > 0, "timestamps expected on lavapipe");
    bool subgroup = false, features = false, coop = false;
    for (size_t i = 0; i < info->n_extra; i++) {
        subgroup |= strcmp(info->extra[i].key, "subgroup_size") == 0;
        features |= strcmp(info->extra[i].key, "features") == 0;
        coop |= strncmp(info->extra[i].key, "cooperative_matrix", 18) == 0;
    }
    cr_expect(subgroup && features && coop, "extra facts missing");
    if (strcmp(info->type, "cpu") == 0) {
        cr_expect(info->host_shared_memory);
        /* lavapipe: the storage-buffer binding limit caps a buffer */
        cr_expect(info->max_alloc_bytes <= (UINT64_C(1) << 31));
    }
}

Test(vulkan, matmul_fp32)
{
    cr_assert_eq(check_matmul(FF_KERNEL_MATMUL, FF_PREC_FP32, 64, 64, 64), FF_OK, "%s", err);
    cr_assert_eq(check_matmul(FF_KERNEL_MATMUL, FF_PREC_FP32, 96, 160, 72), FF_OK, "%s", err);
    cr_assert_eq(check_matmul(FF_KERNEL_MATMUL, FF_PREC_FP32, 33, 17, 29), FF_OK, "%s", err);
    cr_assert_eq(check_matmul(FF_KERNEL_MATMUL, FF_PREC_FP32, 1, 1, 1), FF_OK, "%s", err);
    cr_assert_eq(check_matmul(FF_KERNEL_MATMUL, FF_PREC_FP32, 130, 260, 12), FF_OK, "%s", err);
}

Test(vulkan, matmul_fp16)
{
    if (!ff_device_info(dev)->fp16)
        cr_log_warn("no shaderFloat16; fp16 storage path still tested");
    int ret = check_matmul(FF_KERNEL_MATMUL, FF_PREC_FP16, 64, 64, 64);
    if (ret == FF_ERR_UNSUPPORTED && !vkt_ci())
        cr_skip_test("fp16 unsupported: %s", err);
    cr_assert_eq(ret, FF_OK, "%s", err);
    cr_assert_eq(check_matmul(FF_KERNEL_MATMUL, FF_PREC_FP16, 96, 160, 72), FF_OK, "%s", err);
    cr_assert_eq(check_matmul(FF_KERNEL_MATMUL, FF_PREC_FP16, 33, 17, 29), FF_OK, "%s", err);
}

Test(vulkan, matmul_int8)
{
    int ret = check_matmul(FF_KERNEL_MATMUL, FF_PREC_INT8, 64, 64, 64);
    if (ret == FF_ERR_UNSUPPORTED && !vkt_ci())
        cr_skip_test("int8 unsupported: %s", err);
    cr_assert_eq(ret, FF_OK, "%s", err);
    cr_assert_eq(check_matmul(FF_KERNEL_MATMUL, FF_PREC_INT8, 96, 160, 72), FF_OK, "%s", err);
    cr_assert_eq(check_matmul(FF_KERNEL_MATMUL, FF_PREC_INT8, 33, 17, 29), FF_OK, "%s", err);
}

/*
 * The shared-memory kernel (the default on GPUs) forced onto this device
 * (FF_VK_MATMUL_PATH=shared), with each vendor's tiles of the table
 * (FF_VK_SHARED_TILES): tile multiples, odd shapes (zero-filled edge loads,
 * guarded stores, scalar path when K or N is not /4), K below, at and across
 * several k-slabs. Criterion forks per test, so setenv stays in the test.
 */
static const uint32_t shared_shapes[][3] = {
    {128, 128, 128}, {96, 160, 72}, {33, 17, 29}, {1, 1, 1}, {130, 260, 12},
};

static void check_shared(enum ff_precision prec, const char *tiles, const char *want_tile)
{
    setenv("FF_VK_MATMUL_PATH", "shared", 1);
    setenv("FF_VK_SHARED_TILES", tiles, 1);
    for (size_t i = 0; i < sizeof(shared_shapes) / sizeof(shared_shapes[0]); i++) {
        const uint32_t *s = shared_shapes[i];
        int ret = check_matmul(FF_KERNEL_MATMUL, prec, s[0], s[1], s[2]);
        if (ret == FF_ERR_UNSUPPORTED && !vkt_ci())
            cr_skip_test("unsupported: %s", err);
        cr_assert_eq(ret, FF_OK, "%s %ux%ux%u: %s", tiles, s[0], s[1], s[2], err);
        cr_assert(strstr(last_variant, "shared memory (") && strstr(last_variant, want_tile),
                  "%s: expected the shared kernel with %s, got: %s", tiles, want_tile,
                  last_variant);
    }
    unsetenv("FF_VK_MATMUL_PATH");
    unsetenv("FF_VK_SHARED_TILES");
}

Test(vulkan, matmul_shared_fp32)
{
    check_shared(FF_PREC_FP32, "nvidia", "(nvidia): 128x128 tile, 256 invocations of 8x8");
    check_shared(FF_PREC_FP32, "amd", "(amd): 128x128 tile, 256 invocations of 8x8, BK 8");
    check_shared(FF_PREC_FP32, "intel", "(intel): 64x64 tile, 128 invocations of 8x4, BK 16");
    check_shared(FF_PREC_FP32, "fallback", "(fallback): 64x64 tile, 128 invocations of 8x4");
    /* 4-row blocks and a non-square tile through the numeric override */
    check_shared(FF_PREC_FP32, "32,64,8,4,8", "(env): 32x64 tile, 64 invocations of 4x8");
}

Test(vulkan, matmul_shared_fp16)
{
    check_shared(FF_PREC_FP16, "nvidia", "(nvidia): 128x128 tile");
    check_shared(FF_PREC_FP16, "intel", "(intel): 64x64 tile");
}

Test(vulkan, matmul_shared_int8)
{
    check_shared(FF_PREC_INT8, "nvidia", "(nvidia): 128x128 tile");
    check_shared(FF_PREC_INT8, "intel", "(intel): 64x64 tile");
}

/* Path choice: a CPU device keeps the register kernels by default; tiles
 * that can never fit fall back to the vendor-neutral entry. */
Test(vulkan, matmul_shared_choice)
{
    const struct ff_device_info *info = ff_device_info(dev);
    cr_assert_eq(check_matmul(FF_KERNEL_MATMUL, FF_PREC_FP32, 64, 64, 64), FF_OK, "%s", err);
    if (strcmp(info->type, "cpu") == 0)
        cr_expect(strstr(last_variant, "shared memory (") == NULL, "%s", last_variant);
    else
        cr_expect(strstr(last_variant, "shared memory (") != NULL, "%s", last_variant);
    setenv("FF_VK_MATMUL_PATH", "shared", 1);
    setenv("FF_VK_SHARED_TILES", "512,512,64,8,8", 1); /* 4096 invocations: never fits */
    cr_assert_eq(check_matmul(FF_KERNEL_MATMUL, FF_PREC_FP32, 64, 64, 64), FF_OK, "%s", err);
    cr_expect(strstr(last_variant, "shared memory (fallback)") != NULL, "%s", last_variant);
    setenv("FF_VK_MATMUL_PATH", "storage", 1);
    cr_assert_eq(check_matmul(FF_KERNEL_MATMUL, FF_PREC_FP32, 64, 64, 64), FF_OK, "%s", err);
    cr_expect(strstr(last_variant, "no shared memory") != NULL, "%s", last_variant);
    unsetenv("FF_VK_MATMUL_PATH");
    unsetenv("FF_VK_SHARED_TILES");
}

Test(vulkan, coopmat)
{
    const struct ff_device_info *info = ff_device_info(dev);
    const enum ff_precision precs[] = {FF_PREC_FP16, FF_PREC_INT8};
    for (size_t pi = 0; pi < 2; pi++) {
        enum ff_precision p = precs[pi];
        err[0] = 0;
        int ret = check_matmul(FF_KERNEL_MATMUL_COOPMAT, (enum ff_precision)p, 128, 128, 128);
        if (!info->coopmat) {
            cr_expect_eq(ret, FF_ERR_UNSUPPORTED);
            cr_expect(strstr(err, "cooperative_matrix") != NULL, "reason: %s", err);
        } else {
            /* a device that lists a shape must compute it right (or say why not) */
            cr_expect(ret == FF_OK || ret == FF_ERR_UNSUPPORTED, "%d: %s", ret, err);
        }
    }
    cr_expect_eq(check_matmul(FF_KERNEL_MATMUL_COOPMAT, FF_PREC_FP32, 64, 64, 64),
                 FF_ERR_UNSUPPORTED);
}

Test(vulkan, library_unsupported)
{
    struct ff_kernel_desc desc = {.id = FF_KERNEL_MATMUL_LIBRARY, .m = 64, .n = 64, .k = 64};
    struct ff_kernel *k = NULL;
    cr_expect_eq(ff_kernel_create(dev, &desc, &k, err, sizeof(err)), FF_ERR_UNSUPPORTED);
    cr_expect(strstr(err, "no library reference on Vulkan"), "%s", err);
    cr_expect_null(k);
}

static struct ff_kernel *mem_kernel(enum ff_kernel_id id, uint32_t n)
{
    struct ff_kernel_desc desc = {.id = id, .n = n};
    struct ff_kernel *k = NULL;
    cr_assert_eq(ff_kernel_create(dev, &desc, &k, err, sizeof(err)), FF_OK, "%s", err);
    return k;
}

Test(vulkan, mem_kernels)
{
    const uint32_t n = 1024 * 300;
    size_t bytes = (size_t)n * 4;
    uint32_t *h0 = malloc(bytes), *h1 = malloc(bytes), *h2 = malloc(bytes);
    cr_assert(h0 && h1 && h2);
    struct ff_rng rng;
    ff_rng_seed(&rng, 42);
    for (uint32_t i = 0; i < n; i++)
        h0[i] = (uint32_t)ff_rng_next(&rng);
    struct ff_buf *a = mkbuf(bytes), *b = mkbuf(bytes), *c = mkbuf(bytes);

    /* read: the xor of all out words equals the xor of all input words */
    struct ff_kernel *k = mem_kernel(FF_KERNEL_MEM_READ, n);
    uint64_t ow = ff_kernel_out_words(k);
    cr_assert(ow > 0 && ow * 4 <= bytes);
    cr_assert_eq(ff_buf_write(a, 0, h0, bytes, err, sizeof(err)), FF_OK, "%s", err);
    struct ff_buf *rb[2] = {a, b};
    cr_assert_eq(run(k, rb, 2, NULL, 0, NULL), FF_OK, "%s", err);
    cr_assert_eq(ff_buf_read(b, 0, h1, ow * 4, err, sizeof(err)), FF_OK, "%s", err);
    uint32_t want = 0, got = 0;
    for (uint32_t i = 0; i < n; i++)
        want ^= h0[i];
    for (uint64_t i = 0; i < ow; i++)
        got ^= h1[i];
    cr_expect_eq(got, want, "read xor %08x != %08x", got, want);
    ff_kernel_destroy(&k);

    /* write */
    k = mem_kernel(FF_KERNEL_MEM_WRITE, n);
    uint32_t value = 0xa5a5f00d;
    struct ff_buf *wb[1] = {c};
    cr_assert_eq(run(k, wb, 1, &value, 1, NULL), FF_OK, "%s", err);
    cr_assert_eq(ff_buf_read(c, 0, h1, bytes, err, sizeof(err)), FF_OK, "%s", err);
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(h1[i], value ^ i, "write [%u]", i);
    ff_kernel_destroy(&k);

    /* copy a -> c */
    k = mem_kernel(FF_KERNEL_MEM_COPY, n);
    struct ff_buf *cb[2] = {a, c};
    cr_assert_eq(run(k, cb, 2, NULL, 0, NULL), FF_OK, "%s", err);
    cr_assert_eq(ff_buf_read(c, 0, h1, bytes, err, sizeof(err)), FF_OK, "%s", err);
    cr_assert(memcmp(h0, h1, bytes) == 0, "copy differs");
    ff_kernel_destroy(&k);

    /* triad a = b + 3c on floats */
    float *fb = (float *)h1, *fc = (float *)h2;
    ff_fill_random(FF_PREC_FP32, fb, n, &rng);
    ff_fill_random(FF_PREC_FP32, fc, n, &rng);
    cr_assert_eq(ff_buf_write(b, 0, fb, bytes, err, sizeof(err)), FF_OK, "%s", err);
    cr_assert_eq(ff_buf_write(c, 0, fc, bytes, err, sizeof(err)), FF_OK, "%s", err);
    k = mem_kernel(FF_KERNEL_MEM_TRIAD, n);
    struct ff_buf *tb[3] = {a, b, c};
    cr_assert_eq(run(k, tb, 3, NULL, 0, NULL), FF_OK, "%s", err);
    float *fa = (float *)h0;
    cr_assert_eq(ff_buf_read(a, 0, fa, bytes, err, sizeof(err)), FF_OK, "%s", err);
    for (uint32_t i = 0; i < n; i++)
        cr_assert(fabsf(fa[i] - (fb[i] + 3.0f * fc[i])) <= 1e-6f, "triad [%u]", i);
    ff_kernel_destroy(&k);

    ff_buf_destroy(&a), ff_buf_destroy(&b), ff_buf_destroy(&c);
    free(h0), free(h1), free(h2);
}

Test(vulkan, empty_kernel)
{
    struct ff_kernel_desc desc = {.id = FF_KERNEL_EMPTY};
    struct ff_kernel *k = NULL;
    cr_assert_eq(ff_kernel_create(dev, &desc, &k, err, sizeof(err)), FF_OK, "%s", err);
    uint64_t dns = 0, wns = 0;
    for (int i = 0; i < 5; i++)
        cr_assert_eq(ff_kernel_run(k, NULL, 0, NULL, 0, &dns, &wns, err, sizeof(err)), FF_OK, "%s",
                     err);
    cr_expect(wns > 0);
    cr_expect(dns <= wns + 1000000, "device %llu ns > wall %llu ns", (unsigned long long)dns,
              (unsigned long long)wns);
    ff_kernel_destroy(&k);
}

Test(vulkan, transfer)
{
    /* more than the staging chunk would be slow under ASan; 3 MiB + odd tail */
    const uint64_t bytes = (3u << 20) + 12;
    uint8_t *h = malloc(bytes), *back = malloc(bytes);
    cr_assert(h && back);
    for (uint64_t i = 0; i < bytes; i++)
        h[i] = (uint8_t)(i * 7 + 3);
    struct ff_buf *b = mkbuf(bytes);
    for (int kind = 0; kind < FF_XFER_COUNT; kind++) {
        uint64_t ns = 0;
        if (kind == FF_XFER_DOWNLOAD_PAGEABLE || kind == FF_XFER_DOWNLOAD_PINNED)
            memset(back, 0, bytes);
        void *host = (kind == FF_XFER_UPLOAD_PAGEABLE || kind == FF_XFER_UPLOAD_PINNED) ? h : back;
        cr_assert_eq(
            ff_buf_transfer_timed(b, (enum ff_xfer)kind, host, bytes, &ns, err, sizeof(err)), FF_OK,
            "kind %d: %s", kind, err);
        cr_expect(ns > 0, "kind %d took 0 ns", kind);
        if (host == back)
            cr_assert(memcmp(h, back, bytes) == 0, "kind %d: data differs", kind);
    }
    /* partial writes/reads at an offset */
    uint8_t mid[100];
    memset(mid, 0xee, sizeof(mid));
    cr_assert_eq(ff_buf_write(b, 1001, mid, sizeof(mid), err, sizeof(err)), FF_OK, "%s", err);
    cr_assert_eq(ff_buf_read(b, 1000, back, 102, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect(back[0] == h[1000] && back[1] == 0xee && back[100] == 0xee && back[101] == h[1101]);
    ff_buf_destroy(&b);
    free(h), free(back);
}

Test(vulkan, bad_args)
{
    struct ff_kernel_desc desc = {
        .id = FF_KERNEL_MATMUL, .prec = FF_PREC_FP32, .m = 64, .n = 64, .k = 64};
    struct ff_kernel *k = NULL;
    cr_assert_eq(ff_kernel_create(dev, &desc, &k, err, sizeof(err)), FF_OK, "%s", err);
    struct ff_buf *small = mkbuf(64), *big = mkbuf(64 * 64 * 4);
    struct ff_buf *bufs[3] = {big, big, small};
    uint32_t p[3] = {64, 64, 64};
    cr_expect_eq(run(k, bufs, 3, p, 3, NULL), FF_ERR_INVALID, "small C accepted");
    bufs[2] = big;
    uint32_t q[3] = {64, 64, 32};
    cr_expect_eq(run(k, bufs, 3, q, 3, NULL), FF_ERR_INVALID, "other shape accepted");
    cr_expect_eq(run(k, bufs, 2, p, 3, NULL), FF_ERR_INVALID, "2 buffers accepted");
    cr_expect_eq(run(k, bufs, 3, p, 3, NULL), FF_OK, "%s", err);
    struct ff_buf *none = NULL;
    cr_expect_eq(ff_buf_create(dev, 0, &none, err, sizeof(err)), FF_ERR_INVALID);
    uint64_t too_big = ff_device_info(dev)->max_alloc_bytes + 1;
    cr_expect_eq(ff_buf_create(dev, too_big, &none, err, sizeof(err)), FF_ERR_DEVICE_MEMORY);
    struct ff_kernel_desc bad = {.id = FF_KERNEL_MEM_READ, .n = 1000};
    struct ff_kernel *k2 = NULL;
    cr_expect_eq(ff_kernel_create(dev, &bad, &k2, err, sizeof(err)), FF_ERR_INVALID);
    ff_kernel_destroy(&k);
    ff_buf_destroy(&small), ff_buf_destroy(&big);
}

/* Faults, injected where a driver would report them. Each test runs in its
 * own process (Criterion forks), so setenv does not leak. */
Test(vulkan, fault_out_of_memory)
{
    setenv("FF_VK_FAULT", "oom", 1);
    struct ff_buf *b = NULL;
    cr_expect_eq(ff_buf_create(dev, 4096, &b, err, sizeof(err)), FF_ERR_DEVICE_MEMORY);
    cr_expect(strstr(err, "VK_ERROR_OUT_OF_DEVICE_MEMORY"), "%s", err);
    cr_expect_null(b);
    unsetenv("FF_VK_FAULT");
}

Test(vulkan, fault_pipeline)
{
    setenv("FF_VK_FAULT", "pipeline", 1);
    struct ff_kernel_desc desc = {.id = FF_KERNEL_EMPTY};
    struct ff_kernel *k = NULL;
    cr_expect_eq(ff_kernel_create(dev, &desc, &k, err, sizeof(err)), FF_ERR_BUILD);
    cr_expect(err[0], "no reason given");
    cr_expect_null(k);
    unsetenv("FF_VK_FAULT");
}

Test(vulkan, fault_device_lost)
{
    struct ff_kernel_desc desc = {.id = FF_KERNEL_EMPTY};
    struct ff_kernel *k = NULL;
    cr_assert_eq(ff_kernel_create(dev, &desc, &k, err, sizeof(err)), FF_OK, "%s", err);
    setenv("FF_VK_FAULT", "lost", 1);
    cr_expect_eq(ff_kernel_run(k, NULL, 0, NULL, 0, NULL, NULL, err, sizeof(err)),
                 FF_ERR_DEVICE_LOST);
    unsetenv("FF_VK_FAULT");
    /* once lost, every later call says so instead of touching the device */
    cr_expect_eq(ff_kernel_run(k, NULL, 0, NULL, 0, NULL, NULL, err, sizeof(err)),
                 FF_ERR_DEVICE_LOST);
    struct ff_buf *b = NULL;
    cr_expect_eq(ff_buf_create(dev, 4096, &b, err, sizeof(err)), FF_ERR_DEVICE_LOST);
    ff_kernel_destroy(&k);
}

/* The zero-error checks mean something only if an error would be counted:
 * provoke one (a zero-sized VkBuffer) and see the messenger catch it. */
Test(vulkan, validation_counts_errors)
{
    if (!ff_vk_validation_active())
        cr_skip_test("validation layer not active (FF_VK_VALIDATION unset or layer missing)");
    struct ffvk_device *d = ffvk_dev(dev);
    VkBufferCreateInfo bci = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = 0, /* invalid: VUID-VkBufferCreateInfo-size-00912 */
        .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
    };
    VkBuffer b = VK_NULL_HANDLE;
    uint64_t before = ff_vk_validation_errors();
    VkResult r = d->fn->vkCreateBuffer(d->dev, &bci, NULL, &b);
    cr_expect_gt(ff_vk_validation_errors(), before, "the layer did not report a size-0 buffer");
    if (r == VK_SUCCESS && b)
        d->fn->vkDestroyBuffer(d->dev, b, NULL);
    ff_vk_validation_reset();
}

/* Skip (77) without a Vulkan device, fail under CI=true; then Criterion. */
int main(int argc, char *argv[])
{
    int status = vkt_require_device();
    if (status)
        return status;
    struct criterion_test_set *tests = criterion_initialize();
    int result = 0;
    if (criterion_handle_args(argc, argv, true))
        result = !criterion_run_all_tests(tests);
    criterion_finalize(tests);
    return result;
}

Test(vulkan, matmul_is_read_against_the_peak_measured_beside_it)
{
    ff_test_peak_pairing(dev);
}
