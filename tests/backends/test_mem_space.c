/*
 * The bandwidth kernels' tuning spaces (cl_mem_tuning.c, vk_mem_tuning.c) on a real device of
 * FF_TEST_BACKEND (PoCL and lavapipe on CI; meson builds this file once per backend): each
 * space is well-formed, every point legal at a small n builds and meets its kernel's contract
 * (backend.h: READ's XOR reduction, WRITE's value ^ i, COPY, TRIAD), the point a kernel
 * reports is the one asked for (or the default), and illegal points are refused with a
 * reason. Non-temporal stores (OpenCL's nt=1) change only the store instruction, so they are
 * built at the runtime's work-group (wg=0) for every other value, which keeps the count of
 * kernel builds (a second or so each on PoCL) near what it was without them. Vulkan runs under
 * the validation layer with zero errors required.
 */
#include <ctype.h>
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

TestSuite(mem_space, .init = setup, .fini = teardown, .timeout = 900);

static const enum ff_kernel_id kernels[] = {FF_KERNEL_MEM_READ, FF_KERNEL_MEM_WRITE,
                                            FF_KERNEL_MEM_COPY, FF_KERNEL_MEM_TRIAD};
static const char *const kname[] = {"read", "write", "copy", "triad"};
#define N_KERNELS 4

static void get_space(enum ff_kernel_id id, uint32_t n, struct ff_tune_space *s)
{
    struct ff_kernel_desc d = {.id = id, .n = n};
    cr_assert_eq(ff_kernel_space(dev, &d, s, err, sizeof(err)), FF_OK, "%s", err);
}

Test(mem_space, well_formed)
{
    for (int k = 0; k < N_KERNELS; k++) {
        struct ff_tune_space s, s2;
        get_space(kernels[k], 1u << 20, &s);
        cr_assert(s.n_params >= 3 && s.n_params <= FF_TUNE_MAX_PARAMS, "%s: %u params", kname[k],
                  s.n_params);
        for (uint32_t i = 0; i < s.n_params; i++) {
            const struct ff_tune_param *p = &s.param[i];
            cr_expect(p->name[0], "%s: param %u unnamed", kname[k], i);
            for (const char *c = p->name; *c; c++)
                cr_expect(islower((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_',
                          "%s: bad name %s", kname[k], p->name);
            for (uint32_t j = 0; j < i; j++)
                cr_expect(strcmp(p->name, s.param[j].name) != 0, "%s: %s twice", kname[k], p->name);
            cr_expect(p->n_values >= 1 && p->n_values <= FF_TUNE_MAX_VALUES, "%s: %s: %u values",
                      kname[k], p->name, p->n_values);
            for (uint32_t j = 1; j < p->n_values; j++)
                cr_expect(p->values[j] > p->values[j - 1], "%s: %s not ascending", kname[k],
                          p->name);
        }
        /* the default is a point of the space, and legal */
        cr_assert_eq(s.dflt.n, s.n_params, "%s", kname[k]);
        for (uint32_t i = 0; i < s.n_params; i++) {
            bool found = false;
            for (uint32_t j = 0; j < s.param[i].n_values; j++)
                found |= s.param[i].values[j] == s.dflt.v[i];
            cr_expect(found, "%s: default %s=%u not in the list", kname[k], s.param[i].name,
                      s.dflt.v[i]);
        }
        struct ff_kernel_desc d = {.id = kernels[k], .n = 1u << 20, .tune = s.dflt};
        cr_expect_eq(ff_kernel_point_check(dev, &d, err, sizeof(err)), FF_OK, "%s: %s", kname[k],
                     err);
        cr_expect_eq(strlen(s.source_hash), 16, "%s: hash '%s'", kname[k], s.source_hash);
        for (const char *c = s.source_hash; *c; c++)
            cr_expect(isxdigit((unsigned char)*c), "%s: hash '%s'", kname[k], s.source_hash);
        /* stable, and the point text round-trips */
        get_space(kernels[k], 1u << 20, &s2);
        cr_expect_str_eq(s.source_hash, s2.source_hash);
        char text[256];
        ff_tune_point_format(&s, &s.dflt, text, sizeof(text));
        struct ff_tune_point back;
        cr_expect_eq(ff_tune_point_parse(&s, text, &back, err, sizeof(err)), FF_OK, "%s", err);
        cr_expect_eq(memcmp(back.v, s.dflt.v, sizeof(back.v[0]) * s.n_params), 0, "%s", text);
    }
}

/* Host-side buffers of one contract check. */
struct bufs {
    uint32_t n;
    uint32_t *src, *host;
    float *b, *c;
    struct ff_buf *d_src, *d_dst, *d_b, *d_c;
    uint32_t src_xor;
};

static struct ff_buf *mkbuf(uint64_t bytes)
{
    struct ff_buf *b = NULL;
    cr_assert_eq(ff_buf_create(dev, bytes, &b, err, sizeof(err)), FF_OK, "%s", err);
    return b;
}

static void bufs_init(struct bufs *x, uint32_t n)
{
    memset(x, 0, sizeof(*x));
    x->n = n;
    x->src = malloc(n * 4u);
    x->host = malloc(n * 4u);
    x->b = malloc(n * 4u);
    x->c = malloc(n * 4u);
    cr_assert(x->src && x->host && x->b && x->c);
    for (uint32_t i = 0; i < n; i++) {
        x->src[i] = i * 2654435761u ^ 0x5bd1e995u;
        x->src_xor ^= x->src[i];
        /* small integers: b + 3c is exact with or without a fused multiply-add */
        x->b[i] = (float)(i % 1000);
        x->c[i] = (float)((i * 7u) % 501u);
    }
    x->d_src = mkbuf(n * 4u);
    x->d_dst = mkbuf(n * 4u);
    x->d_b = mkbuf(n * 4u);
    x->d_c = mkbuf(n * 4u);
    cr_assert_eq(ff_buf_write(x->d_src, 0, x->src, n * 4u, err, sizeof(err)), FF_OK, "%s", err);
    cr_assert_eq(ff_buf_write(x->d_b, 0, x->b, n * 4u, err, sizeof(err)), FF_OK, "%s", err);
    cr_assert_eq(ff_buf_write(x->d_c, 0, x->c, n * 4u, err, sizeof(err)), FF_OK, "%s", err);
}

static void bufs_finish(struct bufs *x)
{
    ff_buf_destroy(&x->d_src);
    ff_buf_destroy(&x->d_dst);
    ff_buf_destroy(&x->d_b);
    ff_buf_destroy(&x->d_c);
    free(x->src);
    free(x->host);
    free(x->b);
    free(x->c);
}

/* Build kernel k at point p (NULL: the default), run it once, check its contract. */
static void check_point(struct bufs *x, int k, const struct ff_tune_space *s,
                        const struct ff_tune_point *p)
{
    char text[256];
    ff_tune_point_format(s, p ? p : &s->dflt, text, sizeof(text));
    struct ff_kernel_desc d = {.id = kernels[k], .n = x->n};
    if (p)
        d.tune = *p;
    struct ff_kernel *kern = NULL;
    int r = ff_kernel_create(dev, &d, &kern, err, sizeof(err));
    cr_assert_eq(r, FF_OK, "%s %s does not build: %s", kname[k], text, err);
    const struct ff_tune_point *got = ff_kernel_point(kern);
    const struct ff_tune_point *want = p ? p : &s->dflt;
    cr_expect(got->n == want->n && memcmp(got->v, want->v, sizeof(got->v[0]) * got->n) == 0,
              "%s %s: the kernel reports a different point", kname[k], text);
    uint64_t out_words = kernels[k] == FF_KERNEL_MEM_READ ? ff_kernel_out_words(kern) : x->n;
    cr_assert(out_words >= 1 && out_words <= x->n, "%s %s: %llu out words for n=%u", kname[k], text,
              (unsigned long long)out_words, x->n);
    memset(x->host, 0xa5, x->n * 4u); /* poison: a lazy point cannot pass on old data */
    cr_assert_eq(ff_buf_write(x->d_dst, 0, x->host, out_words * 4, err, sizeof(err)), FF_OK, "%s",
                 err);
    struct ff_buf *bufs[3];
    size_t nb = 0;
    uint32_t value = 0x13572468u;
    size_t np = 0;
    switch (kernels[k]) {
    case FF_KERNEL_MEM_READ: bufs[0] = x->d_src, bufs[1] = x->d_dst, nb = 2; break;
    case FF_KERNEL_MEM_WRITE: bufs[0] = x->d_dst, nb = 1, np = 1; break;
    case FF_KERNEL_MEM_COPY: bufs[0] = x->d_src, bufs[1] = x->d_dst, nb = 2; break;
    default: bufs[0] = x->d_dst, bufs[1] = x->d_b, bufs[2] = x->d_c, nb = 3; break;
    }
    r = ff_kernel_run(kern, bufs, nb, &value, np, NULL, NULL, err, sizeof(err));
    cr_assert_eq(r, FF_OK, "%s %s does not run: %s", kname[k], text, err);
    cr_assert_eq(ff_buf_read(x->d_dst, 0, x->host, out_words * 4, err, sizeof(err)), FF_OK, "%s",
                 err);
    if (kernels[k] == FF_KERNEL_MEM_READ) {
        uint32_t v = 0;
        for (uint64_t i = 0; i < out_words; i++)
            v ^= x->host[i];
        cr_expect_eq(v, x->src_xor, "read %s: XOR of %llu out words 0x%08x, expected 0x%08x", text,
                     (unsigned long long)out_words, v, x->src_xor);
    } else {
        uint32_t bad = 0, first = 0;
        for (uint32_t i = 0; i < x->n; i++) {
            uint32_t want_w;
            if (kernels[k] == FF_KERNEL_MEM_WRITE)
                want_w = value ^ i;
            else if (kernels[k] == FF_KERNEL_MEM_COPY)
                want_w = x->src[i];
            else {
                float f = x->b[i] + 3.0f * x->c[i];
                memcpy(&want_w, &f, 4);
            }
            if (x->host[i] != want_w && bad++ == 0)
                first = i;
        }
        cr_expect_eq(bad, 0, "%s %s: %u of %u words wrong, first at %u", kname[k], text, bad, x->n,
                     first);
    }
    ff_kernel_destroy(&kern);
}

/* Every point of the space in order (odometer over the value lists); false after the last. */
static bool next_point(const struct ff_tune_space *s, uint32_t *idx, struct ff_tune_point *p)
{
    p->n = s->n_params;
    for (uint32_t i = 0; i < s->n_params; i++)
        p->v[i] = s->param[i].values[idx[i]];
    for (uint32_t i = s->n_params; i-- > 0;) {
        if (++idx[i] < s->param[i].n_values)
            return true;
        idx[i] = 0;
    }
    return false;
}

/* The index of parameter `name` in s, or -1 when s has none. */
static int param_index(const struct ff_tune_space *s, const char *name)
{
    for (uint32_t i = 0; i < s->n_params; i++)
        if (strcmp(s->param[i].name, name) == 0)
            return (int)i;
    return -1;
}

#if FF_TEST_VULKAN
/* The read bandwidth is the op kernels' roofline, and they read every input through texel
 * views: on a CPU device (lavapipe) the read kernel does too by default, and a point that
 * names src=1 reports that path in its variant. */
Test(mem_space, read_through_texel_view)
{
    struct ff_tune_space s;
    get_space(FF_KERNEL_MEM_READ, 1u << 20, &s);
    const int src = param_index(&s, "src");
    cr_assert_geq(src, 0, "the read kernel has no src parameter");
    const bool cpu = strcmp(ff_device_info(dev)->type, "cpu") == 0;
    if (cpu)
        cr_expect_eq(s.dflt.v[src], 1, "a CPU device reads through the texel view by default");
    struct ff_kernel_desc d = {.id = FF_KERNEL_MEM_READ, .n = 1u << 20, .tune = s.dflt};
    d.tune.v[src] = 1;
    if (ff_kernel_point_check(dev, &d, err, sizeof(err)) != FF_OK) {
        cr_expect(!cpu, "src=1 refused on a CPU device: %s", err);
        return;
    }
    struct ff_kernel *k = NULL;
    cr_assert_eq(ff_kernel_create(dev, &d, &k, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect(strstr(ff_kernel_variant(k), "texel buffer view"), "variant: %s",
              ff_kernel_variant(k));
    ff_kernel_destroy(&k);
}
#endif

Test(mem_space, every_legal_point_meets_its_contract)
{
    /* small: 16 KiB per buffer, every vector width x work per item fits */
    const uint32_t n = 4096;
    struct bufs x;
    bufs_init(&x, n);
    unsigned legal = 0, illegal = 0;
    for (int k = 0; k < N_KERNELS; k++) {
        struct ff_tune_space s;
        get_space(kernels[k], n, &s);
        check_point(&x, k, &s, NULL);
        uint32_t idx[FF_TUNE_MAX_PARAMS] = {0};
        struct ff_tune_point p;
        bool more = true;
        const int nt = param_index(&s, "nt"), wg = param_index(&s, "wg");
        while (more) {
            more = next_point(&s, idx, &p);
            if (nt >= 0 && wg >= 0 && p.v[nt] == 1 && p.v[wg] != 0)
                continue;
            struct ff_kernel_desc d = {.id = kernels[k], .n = n, .tune = p};
            int r = ff_kernel_point_check(dev, &d, err, sizeof(err));
            if (r == FF_ERR_UNSUPPORTED) {
                cr_expect(err[0], "%s: a refused point without a reason", kname[k]);
                illegal++;
                continue;
            }
            cr_assert_eq(r, FF_OK, "%s: point_check %d: %s", kname[k], r, err);
            check_point(&x, k, &s, &p);
            legal++;
        }
    }
    cr_log_info("%s: %u legal points checked, %u refused at n=%u", FF_TEST_BACKEND, legal, illegal,
                n);
    cr_expect(legal > 100, "only %u legal points", legal);
    bufs_finish(&x);
}

/* Set parameter `name` of p to `value`. */
static void set(const struct ff_tune_space *s, struct ff_tune_point *p, const char *name,
                uint32_t value)
{
    int i = param_index(s, name);
    cr_assert(i >= 0, "no parameter %s", name);
    p->v[i] = value;
}

static int check(enum ff_kernel_id id, uint32_t n, const struct ff_tune_point *p)
{
    struct ff_kernel_desc d = {.id = id, .n = n, .tune = *p};
    err[0] = 0;
    return ff_kernel_point_check(dev, &d, err, sizeof(err));
}

Test(mem_space, illegal_points_refused)
{
    for (int k = 0; k < N_KERNELS; k++) {
        struct ff_tune_space s;
        get_space(kernels[k], 1024, &s);
        /* not points of the space: a value not listed, a wrong count */
        struct ff_tune_point p = s.dflt;
        set(&s, &p, "vw", 3);
        cr_expect_eq(check(kernels[k], 1024, &p), FF_ERR_INVALID, "%s vw=3: %s", kname[k], err);
        p = s.dflt;
        p.n = s.n_params - 1;
        cr_expect_eq(check(kernels[k], 1024, &p), FF_ERR_INVALID, "%s short point: %s", kname[k],
                     err);
#if !FF_TEST_VULKAN
        /* more words per work-item than n */
        p = s.dflt;
        set(&s, &p, "vw", 16);
        set(&s, &p, "epi", 256);
        cr_expect_eq(check(kernels[k], 1024, &p), FF_ERR_UNSUPPORTED, "%s: %s", kname[k], err);
        cr_expect(strstr(err, "not a multiple of vw*epi"), "%s: %s", kname[k], err);
        /* a work-group that does not divide the work-items: 1024 / (16*64) = 1 item */
        p = s.dflt;
        set(&s, &p, "vw", 16);
        set(&s, &p, "epi", 64);
        set(&s, &p, "wg", 64);
        cr_expect_eq(check(kernels[k], 1024, &p), FF_ERR_UNSUPPORTED, "%s: %s", kname[k], err);
        cr_expect(strstr(err, "does not divide"), "%s: %s", kname[k], err);
#else
        /* the read kernel through a texel view longer than maxTexelBufferElements (lavapipe:
         * 2^27 texels; 2^32 - 1024 words are 2^30 - 256 uvec4 texels) */
        if (kernels[k] == FF_KERNEL_MEM_READ) {
            p = s.dflt;
            set(&s, &p, "vw", 4);
            set(&s, &p, "epi", 256);
            set(&s, &p, "layout", 1);
            set(&s, &p, "wg", 1024);
            set(&s, &p, "src", 1);
            cr_expect_eq(check(kernels[k], 4294966272u, &p), FF_ERR_UNSUPPORTED, "%s: %s", kname[k],
                         err);
            cr_expect(strstr(err, "maxTexelBufferElements"), "%s: %s", kname[k], err);
        } else {
            cr_expect_eq(param_index(&s, "src"), -1, "%s: only the read kernel has src", kname[k]);
        }
        /* a dispatch beyond maxComputeWorkGroupCount: 2^32 - 1024 words in 16-byte units,
         * 32 per work-group */
        p = s.dflt;
        set(&s, &p, "vw", 4);
        set(&s, &p, "epi", 1);
        set(&s, &p, "wg", 32);
        cr_expect_eq(check(kernels[k], 4294966272u, &p), FF_ERR_UNSUPPORTED, "%s: %s", kname[k],
                     err);
        cr_expect(strstr(err, "work-groups"), "%s: %s", kname[k], err);
#endif
        /* ff_kernel_create refuses the same point */
        struct ff_kernel_desc d = {.id = kernels[k], .n = 1024, .tune = s.dflt};
        set(&s, &d.tune, "vw", 3);
        struct ff_kernel *kern = NULL;
        cr_expect_eq(ff_kernel_create(dev, &d, &kern, err, sizeof(err)), FF_ERR_INVALID, "%s", err);
        cr_expect_null(kern);
    }
}
