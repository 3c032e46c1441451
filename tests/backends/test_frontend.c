/*
 * The validating front-end (backends/frontend.c) on a real device of FF_TEST_BACKEND (PoCL and
 * lavapipe on CI; meson builds this file once per backend): buffer and parameter counts,
 * buffer sizes per kernel, the matmul shape, each refused with the real numbers named, and
 * the same calls accepted when right. Then the registry's name list and the device options
 * (set, environment, recorded as "override.<name>").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../common.h"
#include "backend_impl.h"
#if FF_TEST_VULKAN
#include "vulkan/vk_internal.h"
#endif

static struct ff_device *dev;
static char err[512];

static void setup(void)
{
    dev = ff_test_open(FF_TEST_BACKEND);
#if FF_TEST_VULKAN
    /* the zero-error check below means something only with the layer really on */
    if (getenv("FF_VK_VALIDATION") && ff_test_in_ci())
        cr_assert(ff_vk_validation_active(), "CI=true, FF_VK_VALIDATION set, layer not active");
#endif
}

static void teardown(void)
{
    ff_device_destroy(&dev);
#if FF_TEST_VULKAN
    char last[512];
    ff_vk_validation_last(last, sizeof(last));
    cr_expect_eq(ff_vk_validation_errors(), 0, "validation errors: %llu, last: %s",
                 (unsigned long long)ff_vk_validation_errors(), last);
#endif
}

TestSuite(frontend, .init = setup, .fini = teardown, .timeout = 120);

static struct ff_buf *mkbuf(uint64_t bytes)
{
    struct ff_buf *b = NULL;
    cr_assert_eq(ff_buf_create(dev, bytes, &b, err, sizeof(err)), FF_OK, "%s", err);
    return b;
}

static struct ff_kernel *mkkernel(enum ff_kernel_id id, enum ff_precision p, uint32_t m, uint32_t n,
                                  uint32_t k)
{
    struct ff_kernel_desc d = {.id = id, .prec = p, .m = m, .n = n, .k = k};
    struct ff_kernel *kern = NULL;
    cr_assert_eq(ff_kernel_create(dev, &d, &kern, err, sizeof(err)), FF_OK, "%s", err);
    return kern;
}

static int run(struct ff_kernel *k, struct ff_buf **bufs, size_t nb, const uint32_t *p, size_t np)
{
    err[0] = 0;
    return ff_kernel_run(k, bufs, nb, p, np, NULL, NULL, err, sizeof(err));
}

/* The call is refused with FF_ERR_INVALID and the message says `want`. */
#define expect_refused(call, want)                                                                 \
    do {                                                                                           \
        int r_ = (call);                                                                           \
        cr_expect_eq(r_, FF_ERR_INVALID, "%s: got %d (%s)", #call, r_, err);                       \
        cr_expect(strstr(err, want) != NULL, "%s: message '%s' lacks '%s'", #call, err, want);     \
    } while (0)

Test(frontend, matmul_buffer_and_parameter_counts)
{
    struct ff_kernel *k = mkkernel(FF_KERNEL_MATMUL, FF_PREC_FP32, 64, 48, 32);
    struct ff_buf *a = mkbuf(64 * 32 * 4), *b = mkbuf(32 * 48 * 4), *c = mkbuf(64 * 48 * 4);
    struct ff_buf *bufs[4] = {a, b, c, c};
    uint32_t p[4] = {64, 48, 32, 0};
    expect_refused(run(k, bufs, 2, p, 3), "matmul takes 3 buffers and 3 parameters, got 2 and 3");
    expect_refused(run(k, bufs, 4, p, 3), "matmul takes 3 buffers and 3 parameters, got 4 and 3");
    expect_refused(run(k, bufs, 3, p, 2), "matmul takes 3 buffers and 3 parameters, got 3 and 2");
    expect_refused(run(k, bufs, 3, p, 4), "got 3 and 4");
    expect_refused(run(k, bufs, 3, NULL, 3), "parameters missing");
    struct ff_buf *holes[3] = {a, NULL, c};
    expect_refused(run(k, holes, 3, p, 3), "buffer 1 (B) is missing");
    /* the same kernel with its real arguments runs */
    cr_expect_eq(run(k, bufs, 3, p, 3), FF_OK, "%s", err);
    ff_kernel_destroy(&k);
    ff_buf_destroy(&a), ff_buf_destroy(&b), ff_buf_destroy(&c);
}

Test(frontend, matmul_buffer_sizes_and_shape)
{
    /* int8: 1-byte inputs, 4-byte (int32) output */
    struct ff_kernel *k = mkkernel(FF_KERNEL_MATMUL, FF_PREC_INT8, 40, 24, 16);
    struct ff_buf *a = mkbuf(40 * 16), *b = mkbuf(16 * 24), *c = mkbuf(40 * 24 * 4);
    struct ff_buf *small_a = mkbuf(40 * 16 - 1), *small_b = mkbuf(16 * 24 - 1);
    struct ff_buf *small_c = mkbuf(40 * 24 * 2); /* as if the output were 2 bytes */
    uint32_t p[3] = {40, 24, 16};
    struct ff_buf *bufs[3] = {small_a, b, c};
    expect_refused(run(k, bufs, 3, p, 3),
                   "buffer 0 (A) holds 639 bytes; it needs 640 (m*k = 40x16 elements of 1 bytes)");
    bufs[0] = a, bufs[1] = small_b;
    expect_refused(run(k, bufs, 3, p, 3),
                   "buffer 1 (B) holds 383 bytes; it needs 384 (k*n = 16x24 elements of 1 bytes)");
    bufs[1] = b, bufs[2] = small_c;
    expect_refused(run(k, bufs, 3, p, 3),
                   "buffer 2 (C) holds 1920 bytes; it needs 3840 (m*n = 40x24 elements of 4 "
                   "bytes)");
    bufs[2] = c;
    uint32_t other[3] = {40, 24, 8};
    expect_refused(run(k, bufs, 3, other, 3),
                   "matmul was built for m x n x k = 40x24x16, run with 40x24x8");
    cr_expect_eq(run(k, bufs, 3, p, 3), FF_OK, "%s", err);
    ff_kernel_destroy(&k);
    ff_buf_destroy(&a), ff_buf_destroy(&b), ff_buf_destroy(&c);
    ff_buf_destroy(&small_a), ff_buf_destroy(&small_b), ff_buf_destroy(&small_c);
}

Test(frontend, bandwidth_kernels)
{
    const uint32_t n = 4096; /* words */
    struct ff_buf *full = mkbuf(n * 4), *full2 = mkbuf(n * 4), *full3 = mkbuf(n * 4);
    struct ff_buf *short_ = mkbuf(n * 4 - 4);

    struct ff_kernel *rd = mkkernel(FF_KERNEL_MEM_READ, FF_PREC_FP32, 0, n, 0);
    uint64_t out_words = ff_kernel_out_words(rd);
    cr_assert_gt(out_words, 0);
    struct ff_buf *out = mkbuf(out_words * 4);
    struct ff_buf *out_short = out_words > 1 ? mkbuf((out_words - 1) * 4) : NULL;
    struct ff_buf *bufs[3] = {short_, out, NULL};
    char want[160];
    snprintf(want, sizeof(want), "buffer 0 (src) holds %u bytes; it needs %u (n = %u words",
             n * 4 - 4, n * 4, n);
    expect_refused(run(rd, bufs, 2, NULL, 0), want);
    if (out_short) {
        bufs[0] = full, bufs[1] = out_short;
        snprintf(want, sizeof(want),
                 "buffer 1 (out) holds %llu bytes; it needs %llu (ff_kernel_out_words() = %llu",
                 (unsigned long long)(out_words - 1) * 4, (unsigned long long)out_words * 4,
                 (unsigned long long)out_words);
        expect_refused(run(rd, bufs, 2, NULL, 0), want);
    }
    bufs[0] = full, bufs[1] = out;
    expect_refused(run(rd, bufs, 1, NULL, 0), "mem_read takes 2 buffers and 0 parameters");
    cr_expect_eq(run(rd, bufs, 2, NULL, 0), FF_OK, "%s", err);

    struct ff_kernel *wr = mkkernel(FF_KERNEL_MEM_WRITE, FF_PREC_FP32, 0, n, 0);
    uint32_t value = 7;
    bufs[0] = full;
    expect_refused(run(wr, bufs, 1, NULL, 0),
                   "mem_write takes 1 buffer and 1 parameter, got 1 and 0");
    bufs[0] = short_;
    expect_refused(run(wr, bufs, 1, &value, 1), "buffer 0 (dst) holds");
    bufs[0] = full;
    cr_expect_eq(run(wr, bufs, 1, &value, 1), FF_OK, "%s", err);

    struct ff_kernel *cp = mkkernel(FF_KERNEL_MEM_COPY, FF_PREC_FP32, 0, n, 0);
    bufs[0] = full, bufs[1] = short_;
    expect_refused(run(cp, bufs, 2, NULL, 0), "buffer 1 (dst) holds");
    bufs[1] = full2;
    cr_expect_eq(run(cp, bufs, 2, NULL, 0), FF_OK, "%s", err);

    struct ff_kernel *tr = mkkernel(FF_KERNEL_MEM_TRIAD, FF_PREC_FP32, 0, n, 0);
    bufs[0] = full, bufs[1] = full2, bufs[2] = short_;
    expect_refused(run(tr, bufs, 3, NULL, 0), "buffer 2 (c) holds");
    bufs[2] = full3;
    cr_expect_eq(run(tr, bufs, 3, NULL, 0), FF_OK, "%s", err);

    struct ff_kernel *em = mkkernel(FF_KERNEL_EMPTY, FF_PREC_FP32, 0, 0, 0);
    expect_refused(run(em, bufs, 1, NULL, 0), "empty takes 0 buffers and 0 parameters, got 1");
    cr_expect_eq(run(em, NULL, 0, NULL, 0), FF_OK, "%s", err);

    ff_kernel_destroy(&rd), ff_kernel_destroy(&wr), ff_kernel_destroy(&cp);
    ff_kernel_destroy(&tr), ff_kernel_destroy(&em);
    ff_buf_destroy(&full), ff_buf_destroy(&full2), ff_buf_destroy(&full3);
    ff_buf_destroy(&short_), ff_buf_destroy(&out), ff_buf_destroy(&out_short);
}

/* The peak kernel: a work-item count that is a positive multiple of 64, one out buffer of
 * ff_kernel_out_words() words, three parameters (iters, a, b). */
Test(frontend, peak_kernel)
{
    struct ff_kernel_desc d = {.id = FF_KERNEL_PEAK, .prec = FF_PREC_FP32, .n = 100};
    struct ff_kernel *k = NULL;
    cr_expect_eq(ff_kernel_create(dev, &d, &k, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "multiple of 64") != NULL, "%s", err);
    d = (struct ff_kernel_desc){.id = FF_KERNEL_PEAK, .prec = FF_PREC_BF16, .n = 64};
    cr_expect_eq(ff_kernel_create(dev, &d, &k, err, sizeof(err)), FF_ERR_UNSUPPORTED);
    cr_expect_null(k);

    k = mkkernel(FF_KERNEL_PEAK, FF_PREC_FP32, 0, 64, 0);
    uint64_t words = ff_kernel_out_words(k);
    cr_assert(words >= 64 && words % 64 == 0, "%llu out words", (unsigned long long)words);
    struct ff_buf *out = mkbuf(words * 4), *short_ = mkbuf(words * 4 - 4);
    float one = 1.0f;
    uint32_t p[3] = {8, 0, 0};
    memcpy(&p[1], &one, 4);
    memcpy(&p[2], &one, 4);
    expect_refused(run(k, &out, 1, p, 2), "peak takes 1 buffer and 3 parameters, got 1 and 2");
    expect_refused(run(k, &short_, 1, p, 3), "buffer 0 (out) holds");
    cr_expect_eq(run(k, &out, 1, p, 3), FF_OK, "%s", err);
    float first = 0;
    cr_assert_eq(ff_buf_read(out, 0, &first, 4, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect_eq(first, 8.0f, "lane 0 starts at 0 and adds 1 eight times: %g", first);
    ff_kernel_destroy(&k);
    ff_buf_destroy(&out), ff_buf_destroy(&short_);
}

/* Every backend in the registry is in the name list, in order, and the list truncates like
 * snprintf. */
Test(frontend, backend_names)
{
    char names[128];
    size_t len = ff_backend_names(names, sizeof(names));
    cr_assert_eq(len, strlen(names));
    cr_expect(strstr(names, FF_TEST_BACKEND) != NULL, "%s", names);
    char want[128] = "";
    for (const struct ff_backend *const *b = ff_backends(); *b; b++) {
        size_t used = strlen(want);
        snprintf(want + used, sizeof(want) - used, "%s%s", used ? ", " : "", ff_backend_name(*b));
        cr_expect_eq(ff_backend_find(ff_backend_name(*b)), *b);
    }
    cr_expect_str_eq(names, want);
    char tiny[4];
    cr_expect_eq(ff_backend_names(tiny, sizeof(tiny)), len);
    cr_expect_eq(strlen(tiny), len < 3 ? len : 3);
    cr_expect_eq(ff_backend_names(NULL, 0), len);
}

static const char *extra(const struct ff_device *d, const char *key)
{
    const struct ff_device_info *i = ff_device_info(d);
    for (size_t k = 0; k < i->n_extra; k++)
        if (strcmp(i->extra[k].key, key) == 0)
            return i->extra[k].value;
    return NULL;
}

Test(frontend, device_options_parse)
{
    struct ff_device_options o;
    ff_device_options_init(&o);
    expect_refused(ff_device_options_set(&o, "vk_tiles", "8,4,8", err, sizeof(err)),
                   "invalid value '8,4,8' for vk_tiles: expected tm,tn4,wx,wy");
    expect_refused(ff_device_options_set(&o, "vk_tiles", "8,5,8,1", err, sizeof(err)), "tn4 1..4");
    expect_refused(ff_device_options_set(&o, "cl_matmul_tune", "6,16,3,0,2,32,0", err, sizeof(err)),
                   "cl_matmul_tune");
    expect_refused(ff_device_options_set(&o, "vk_matmul_path", "fast", err, sizeof(err)),
                   "shared, texel or storage");
    expect_refused(ff_device_options_set(&o, "timeout_s", "0", err, sizeof(err)), "timeout_s");
    cr_expect_eq(ff_device_options_set(&o, "tiles", "1", err, sizeof(err)), FF_ERR_NOT_FOUND);
    cr_expect(strstr(err, "unknown device option 'tiles' (expected cl_matmul_tune, vk_tiles"), "%s",
              err);
    cr_expect_eq(ff_device_options_set(&o, "vk_shared_tiles", "intel", err, sizeof(err)), FF_OK);
    cr_expect_eq(ff_device_options_set(&o, "vk_shared_tiles", "32,64,8,4,8", err, sizeof(err)),
                 FF_OK);
    cr_expect_eq(ff_device_options_set(&o, "timeout_s", "30", err, sizeof(err)), FF_OK);
    cr_expect_eq(o.timeout_s, 30);
    cr_expect_str_eq(o.vk_shared_tiles, "32,64,8,4,8");
    /* every option of the table is settable by its name and has an environment variable */
    size_t n = 0;
    for (const struct ff_device_option_desc *d; (d = ff_device_option_at(n)); n++) {
        cr_expect(strncmp(d->env, "FF_", 3) == 0, "%s", d->env);
        cr_expect_eq(ff_device_options_set(&o, d->name, "", err, sizeof(err)), FF_OK, "%s", err);
    }
    cr_expect_eq(n, 5);
    cr_expect_eq(o.timeout_s, 0);
}

/* A malformed variable is named instead of silently ignored; a good one is recorded. */
Test(frontend, device_options_from_env)
{
    setenv("FF_VK_TILES", "nonsense", 1);
    struct ff_device_options o;
    expect_refused(ff_device_options_from_env(&o, err, sizeof(err)),
                   "invalid value 'nonsense' for FF_VK_TILES");
    struct ff_device *d2 = NULL;
    expect_refused(ff_device_open(ff_device_backend(dev), 0, &d2, err, sizeof(err)), "FF_VK_TILES");
    cr_expect_null(d2);
    setenv("FF_VK_TILES", "4,2,8,1", 1);
    setenv("FF_CL_MATMUL_TUNE", "4,4,1,1,16,16,16", 1);
    setenv("FF_VK_TIMEOUT_S", "77", 1);
    cr_assert_eq(ff_device_options_from_env(&o, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect_str_eq(o.vk_tiles, "4,2,8,1");
    cr_expect_eq(o.timeout_s, 77);
    cr_assert_eq(ff_device_open(ff_device_backend(dev), 0, &d2, err, sizeof(err)), FF_OK, "%s",
                 err);
    bool vk = strcmp(FF_TEST_BACKEND, "vulkan") == 0;
    /* only the options that tune this backend are in effect, so only those are recorded */
    const char *tiles = extra(d2, "override.vk_tiles");
    const char *tune = extra(d2, "override.cl_matmul_tune");
    const char *timeout = extra(d2, "override.timeout_s");
    cr_expect(vk ? tiles && strcmp(tiles, "4,2,8,1") == 0 : tiles == NULL, "%s",
              tiles ? tiles : "(none)");
    cr_expect(vk ? tune == NULL : tune && strcmp(tune, "4,4,1,1,16,16,16") == 0, "%s",
              tune ? tune : "(none)");
    cr_expect(vk ? timeout && strcmp(timeout, "77") == 0 : timeout == NULL, "%s",
              timeout ? timeout : "(none)");
    /* opened without options, the device follows the environment kernel by kernel */
    unsetenv("FF_VK_TILES");
    unsetenv("FF_CL_MATMUL_TUNE");
    struct ff_device *keep = dev;
    dev = d2;
    struct ff_kernel *k = mkkernel(FF_KERNEL_EMPTY, FF_PREC_FP32, 0, 0, 0);
    dev = keep;
    cr_expect_null(extra(d2, "override.vk_tiles"));
    cr_expect_null(extra(d2, "override.cl_matmul_tune"));
    ff_kernel_destroy(&k);
    ff_device_destroy(&d2);
    unsetenv("FF_VK_TIMEOUT_S");
}

/* Options given to ff_device_open_opts reach the kernel choice and the record; the environment
 * is not consulted then. */
Test(frontend, device_options_reach_the_kernel)
{
    bool vk = strcmp(FF_TEST_BACKEND, "vulkan") == 0;
    setenv("FF_VK_MATMUL_PATH", "nonsense", 1); /* ignored: options are given */
    struct ff_device_options o;
    ff_device_options_init(&o);
    const char *name = vk ? "vk_matmul_path" : "cl_matmul_tune";
    const char *value = vk ? "storage" : "4,4,1,1,8,8,16";
    cr_assert_eq(ff_device_options_set(&o, name, value, err, sizeof(err)), FF_OK, "%s", err);
    struct ff_device *d2 = NULL;
    cr_assert_eq(ff_device_open_opts(ff_device_backend(dev), 0, &o, &d2, err, sizeof(err)), FF_OK,
                 "%s", err);
    char key[64];
    snprintf(key, sizeof(key), "override.%s", name);
    const char *rec = extra(d2, key);
    cr_expect(rec && strcmp(rec, value) == 0, "%s: %s", key, rec ? rec : "(none)");
    struct ff_kernel_desc desc = {
        .id = FF_KERNEL_MATMUL, .prec = FF_PREC_FP32, .m = 64, .n = 64, .k = 64};
    struct ff_kernel *k = NULL;
    cr_assert_eq(ff_kernel_create(d2, &desc, &k, err, sizeof(err)), FF_OK, "%s", err);
    const char *variant = ff_kernel_variant(k);
    cr_expect(strstr(variant, vk ? "vec4 storage loads" : "FF_CL_MATMUL_TUNE override") != NULL,
              "%s", variant);
    ff_kernel_destroy(&k);
    ff_device_destroy(&d2);
    unsetenv("FF_VK_MATMUL_PATH");
}
