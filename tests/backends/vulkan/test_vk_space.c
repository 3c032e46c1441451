/*
 * tests/backends/vulkan/test_vk_space.c — the Vulkan matmul kernels' tuning space (ff_kernel_space,
 * vk_tuning.c) on a real device (lavapipe on CI), with the Khronos validation layer on and zero
 * validation errors required at the end of every test:
 *   - the space is well formed, its default is a point of it and what a build without a point
 *     makes, and its source hash differs per precision;
 *   - points legal here build and verify at a small size (bench/check/kcheck.h: every element against
 *     the exact CPU reference) and the kernel reports the point it was given. The cross product
 *     (3 x 10 x 4 x 9 x 9 x 5 x 2 = 97200 points per precision) is far too large for 60 s on
 *     two cores, so: every value of every parameter at least once (on the first of a few base
 *     points, one per path, where it is legal), plus a deterministic sample (a fixed LCG) of the
 *     legal points;
 *   - illegal points are refused, by ff_kernel_point_check and ff_kernel_create alike, with a
 *     reason naming what is wrong;
 *   - a point given in desc.tune wins over the device options (vk_matmul_path, vk_tiles).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "check/kcheck.h"
#include "vulkan/vk_internal.h"
#include "vk_test_util.h"

static struct ff_device *dev;
static char err[512];

static void open_with(const struct ff_device_options *o)
{
    const struct ff_backend *b = ff_backend_find("vulkan");
    cr_assert_not_null(b, "vulkan backend not compiled in");
    int ret = ff_device_open_opts(b, vkt_device_index(), o, &dev, err, sizeof(err));
    cr_assert_eq(ret, FF_OK, "open: %s", err);
    if (getenv("FF_VK_VALIDATION") && vkt_ci())
        cr_assert(ff_vk_validation_active(), "CI=true and FF_VK_VALIDATION set, but the "
                                             "Khronos validation layer is not active");
}

static void open_dev(void)
{
    struct ff_device_options o;
    ff_device_options_init(&o); /* no options: the environment must not steer these tests */
    open_with(&o);
}

static void close_dev(void)
{
    ff_device_destroy(&dev);
    char last[512];
    ff_vk_validation_last(last, sizeof(last));
    cr_expect_eq(ff_vk_validation_errors(), 0, "validation errors: %llu, last: %s",
                 (unsigned long long)ff_vk_validation_errors(), last);
}

TestSuite(vk_space, .init = open_dev, .fini = close_dev, .timeout = 600);

/* Parameter indices, in the space's order (checked by name in well_formed). */
enum { PATH, TM, TN, WX, WY, BK, SGA, NPARAM };
static const char *const names[NPARAM] = {"path", "tm", "tn", "wx", "wy", "bk", "sga"};

/* The shape the sweeps build: M odd (edge rows), K and N multiples of 4 (every path). */
#define SM 37
#define SN 36
#define SK 28

static struct ff_kernel_desc mm_desc(enum ff_precision p, uint32_t m, uint32_t n, uint32_t k)
{
    return (struct ff_kernel_desc){.id = FF_KERNEL_MATMUL, .prec = p, .m = m, .n = n, .k = k};
}

static void space_of(const struct ff_kernel_desc *d, struct ff_tune_space *s)
{
    cr_assert_eq(ff_kernel_space(dev, d, s, err, sizeof(err)), FF_OK, "space: %s", err);
}

static bool same_point(const struct ff_tune_point *a, const struct ff_tune_point *b)
{
    if (a->n != b->n)
        return false;
    for (uint32_t i = 0; i < a->n; i++)
        if (a->v[i] != b->v[i])
            return false;
    return true;
}

/* Builds desc (with its point) and runs it through the kernel check; the kernel's point must
 * be desc's. Returns the create status (a failed check fails the test here). */
static int build_check(const struct ff_kernel_desc *desc, const struct ff_tune_space *s)
{
    char pt[160];
    ff_tune_point_format(s, &desc->tune, pt, sizeof(pt));
    struct ff_kernel *k = NULL;
    int ret = ff_kernel_create(dev, desc, &k, err, sizeof(err));
    if (ret < 0)
        return ret;
    if (desc->tune.n)
        cr_expect(same_point(ff_kernel_point(k), &desc->tune), "%s: the kernel's point differs",
                  pt);
    struct ff_kcheck kc;
    cr_assert_eq(ff_kcheck_init(&kc, desc->prec, desc->m, desc->n, desc->k, 77, err, sizeof(err)),
                 FF_OK, "%s", err);
    cr_assert_eq(ff_kcheck_upload(&kc, dev, err, sizeof(err)), FF_OK, "%s", err);
    ret = ff_kcheck_run(&kc, k, err, sizeof(err));
    cr_expect_eq(ret, FF_OK, "%s %s (%s): %s", ff_precision_name(desc->prec), pt,
                 ff_kernel_variant(k), err);
    ff_kcheck_finish(&kc);
    ff_kernel_destroy(&k);
    return FF_OK;
}

Test(vk_space, well_formed)
{
    char hashes[3][17];
    const enum ff_precision precs[3] = {FF_PREC_FP32, FF_PREC_FP16, FF_PREC_INT8};
    for (int pi = 0; pi < 3; pi++) {
        struct ff_kernel_desc d = mm_desc(precs[pi], 256, 256, 256);
        struct ff_tune_space s, s2;
        space_of(&d, &s);
        cr_assert_eq(s.n_params, NPARAM);
        for (int i = 0; i < NPARAM; i++)
            cr_expect_str_eq(s.param[i].name, names[i]);
        /* the ranges cover GPUs: work-groups of 64-256, 128x128 tiles, 8x8 blocks */
        cr_expect_eq(s.param[WX].values[s.param[WX].n_values - 1], 256);
        cr_expect_eq(s.param[WY].values[s.param[WY].n_values - 1], 256);
        cr_expect_eq(s.param[PATH].n_values, 3);
        cr_expect_eq(s.param[SGA].n_values, 2);
        /* the default is a point of the space (parse checks every value) and legal here */
        char text[160];
        ff_tune_point_format(&s, &s.dflt, text, sizeof(text));
        struct ff_tune_point back;
        cr_assert_eq(ff_tune_point_parse(&s, text, &back, err, sizeof(err)), FF_OK, "%s: %s", text,
                     err);
        cr_expect(same_point(&back, &s.dflt));
        d.tune = s.dflt;
        cr_expect_eq(ff_kernel_point_check(dev, &d, err, sizeof(err)), FF_OK, "%s: %s", text, err);
        cr_expect_eq(strlen(s.source_hash), 16);
        memcpy(hashes[pi], s.source_hash, 17);
        space_of(&d, &s2);
        cr_expect_str_eq(s2.source_hash, s.source_hash, "the hash is stable");
    }
    cr_expect_str_neq(hashes[0], hashes[1]);
    cr_expect_str_neq(hashes[0], hashes[2]);
    cr_expect_str_neq(hashes[1], hashes[2]);
}

Test(vk_space, default_is_what_builds)
{
    const enum ff_precision precs[3] = {FF_PREC_FP32, FF_PREC_FP16, FF_PREC_INT8};
    for (int pi = 0; pi < 3; pi++) {
        struct ff_kernel_desc d = mm_desc(precs[pi], SM, SN, SK);
        struct ff_tune_space s;
        space_of(&d, &s);
        struct ff_kernel *k = NULL;
        cr_assert_eq(ff_kernel_create(dev, &d, &k, err, sizeof(err)), FF_OK, "%s", err);
        cr_expect(same_point(ff_kernel_point(k), &s.dflt), "%s: built %s",
                  ff_precision_name(precs[pi]), ff_kernel_variant(k));
        ff_kernel_destroy(&k);
        /* ... and given explicitly, it builds the same kernel and verifies */
        d.tune = s.dflt;
        cr_expect_eq(build_check(&d, &s), FF_OK, "%s", err);
    }
}

/*
 * Every value of every parameter, each on the first base point where it is legal (one base per
 * path, plus a small shared tile where large k-slabs fit); every value must be built somewhere.
 */
static void sweep_values(enum ff_precision p)
{
    struct ff_kernel_desc d = mm_desc(p, SM, SN, SK);
    struct ff_tune_space s;
    space_of(&d, &s);
    struct ff_tune_point base[5] = {
        s.dflt,
        {NPARAM, {FFVK_MM_STORAGE, 4, 8, 8, 8, 0, 0}},
        {NPARAM, {FFVK_MM_TEXEL, 4, 4, 8, 1, 0, 1}},
        {NPARAM, {FFVK_MM_SHARED, 4, 4, 8, 8, 8, 0}},
        {NPARAM, {FFVK_MM_STORAGE, 1, 4, 1, 1, 0, 0}}, /* room for wx, wy = 256 */
    };
    for (int i = 0; i < NPARAM; i++)
        for (uint32_t j = 0; j < s.param[i].n_values; j++) {
            bool built = false;
            char reasons[5][200] = {{0}};
            for (int b = 0; b < 5 && !built; b++) {
                d.tune = base[b];
                d.tune.v[i] = s.param[i].values[j];
                int ret = ff_kernel_point_check(dev, &d, err, sizeof(err));
                if (ret == FF_ERR_UNSUPPORTED) {
                    cr_expect(strlen(err) > 10, "a refusal names its reason");
                    ff_strlcpy(reasons[b], err, sizeof(reasons[b]));
                    continue;
                }
                cr_assert_eq(ret, FF_OK, "%s", err);
                cr_assert_eq(build_check(&d, &s), FF_OK, "%s", err);
                built = true;
            }
            cr_expect(built, "%s %s=%u is built nowhere: %s | %s | %s | %s | %s",
                      ff_precision_name(p), names[i], s.param[i].values[j], reasons[0], reasons[1],
                      reasons[2], reasons[3], reasons[4]);
        }
}

Test(vk_space, every_value_fp32)
{
    sweep_values(FF_PREC_FP32);
}

Test(vk_space, every_value_fp16)
{
    sweep_values(FF_PREC_FP16);
}

Test(vk_space, every_value_int8)
{
    sweep_values(FF_PREC_INT8);
}

/* The texel kernel with A shared over the subgroup: blocks of two (or more) k4 steps where K
 * allows, one step otherwise, and work-groups of several subgroup rows that take turns at a
 * barrier after each block. Both block sizes, on every precision, with edge rows (M = 37). */
Test(vk_space, sga_blocks)
{
    static const struct {
        const char *point;
        uint32_t k;
    } cases[] = {
        {"path=1,tm=16,tn=8,wx=8,wy=4,bk=0,sga=1", 64},   /* K4 = 16: blocks of 2 */
        {"path=1,tm=16,tn=8,wx=8,wy=4,bk=0,sga=1", 28},   /* K4 = 7: blocks of 1 */
        {"path=1,tm=12,tn=16,wx=16,wy=1,bk=0,sga=1", 40}, /* K4 = 10, no barrier */
        {"path=1,tm=3,tn=16,wx=16,wy=2,bk=0,sga=1", 32},  /* 2 k4 per block, doubled to 4 */
        {"path=1,tm=1,tn=4,wx=8,wy=2,bk=0,sga=1", 64},    /* 8, doubled to 16 */
    };
    const enum ff_precision precs[3] = {FF_PREC_FP32, FF_PREC_FP16, FF_PREC_INT8};
    for (int pi = 0; pi < 3; pi++)
        for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
            if (pi > 0 && c > 1)
                continue; /* fp16 and int8: the two block sizes of the default shape */
            struct ff_kernel_desc d = mm_desc(precs[pi], SM, SN, cases[c].k);
            struct ff_tune_space s;
            space_of(&d, &s);
            cr_assert_eq(ff_tune_point_parse(&s, cases[c].point, &d.tune, err, sizeof(err)), FF_OK,
                         "%s: %s", cases[c].point, err);
            cr_assert_eq(ff_kernel_point_check(dev, &d, err, sizeof(err)), FF_OK, "%s: %s",
                         cases[c].point, err);
            cr_expect_eq(build_check(&d, &s), FF_OK, "%s K=%u: %s", cases[c].point, cases[c].k,
                         err);
        }
}

/* A deterministic sample of the cross product: the legal points build and verify, the others
 * are refused with a reason. */
Test(vk_space, sample)
{
    const enum ff_precision precs[3] = {FF_PREC_FP32, FF_PREC_FP16, FF_PREC_INT8};
    uint64_t x = 0x2545f4914f6cdd1dull;
    for (int pi = 0; pi < 3; pi++) {
        struct ff_kernel_desc d = mm_desc(precs[pi], SM, SN, SK);
        struct ff_tune_space s;
        space_of(&d, &s);
        int legal = 0, tries = 0;
        while (legal < (pi == 0 ? 8 : 3) && tries < 5000) {
            tries++;
            d.tune.n = NPARAM;
            for (int i = 0; i < NPARAM; i++) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                d.tune.v[i] = s.param[i].values[(x >> 33) % s.param[i].n_values];
            }
            int ret = ff_kernel_point_check(dev, &d, err, sizeof(err));
            if (ret == FF_ERR_UNSUPPORTED) {
                cr_expect(strlen(err) > 10);
                struct ff_kernel *k = NULL;
                cr_expect_eq(ff_kernel_create(dev, &d, &k, err, sizeof(err)), FF_ERR_UNSUPPORTED,
                             "create refuses what the check refuses");
                continue;
            }
            cr_assert_eq(ret, FF_OK, "%s", err);
            cr_assert_eq(build_check(&d, &s), FF_OK, "%s", err);
            legal++;
        }
        cr_expect_gt(legal, 0, "%s: no legal point in %d draws", ff_precision_name(precs[pi]),
                     tries);
    }
}

/* Refused with FF_ERR_UNSUPPORTED and a reason containing `why`, by the check and by create. */
static void expect_refused(struct ff_kernel_desc d, const char *text, const char *why)
{
    struct ff_tune_space s;
    space_of(&d, &s);
    cr_assert_eq(ff_tune_point_parse(&s, text, &d.tune, err, sizeof(err)), FF_OK, "%s: %s", text,
                 err);
    cr_expect_eq(ff_kernel_point_check(dev, &d, err, sizeof(err)), FF_ERR_UNSUPPORTED, "%s", text);
    cr_expect(strstr(err, why), "%s: reason \"%s\" lacks \"%s\"", text, err, why);
    struct ff_kernel *k = NULL;
    err[0] = 0;
    cr_expect_eq(ff_kernel_create(dev, &d, &k, err, sizeof(err)), FF_ERR_UNSUPPORTED, "%s", text);
    cr_expect(strstr(err, why), "create %s: reason \"%s\" lacks \"%s\"", text, err, why);
    cr_expect_null(k);
}

Test(vk_space, illegal_points_refused)
{
    struct ff_kernel_desc d = mm_desc(FF_PREC_FP32, 64, 64, 64);
    expect_refused(d, "path=1,tm=8,tn=16,wx=8,wy=1,bk=8,sga=0", "bk");
    expect_refused(d, "path=2,tm=8,tn=8,wx=16,wy=16,bk=0,sga=0", "k-slab");
    expect_refused(d, "path=2,tm=8,tn=8,wx=16,wy=16,bk=16,sga=1", "sga");
    expect_refused(d, "path=2,tm=2,tn=4,wx=16,wy=16,bk=16,sga=0", "tm and tn of 4 or 8");
    expect_refused(d, "path=0,tm=4,tn=4,wx=256,wy=256,bk=0,sga=0", "work-group 256x256");
    expect_refused(d, "path=2,tm=8,tn=8,wx=64,wy=32,bk=16,sga=0", "invocations");
    /* 128x128 tile, k-slab 32: 2 x 32 x 65 vec4 = 66560 bytes */
    expect_refused(d, "path=2,tm=8,tn=8,wx=16,wy=16,bk=32,sga=0", "shared memory");
    expect_refused(d, "path=1,tm=8,tn=16,wx=4,wy=1,bk=0,sga=1", "wx a multiple");
    /* the texel kernel and sga need K and N multiples of 4 */
    expect_refused(mm_desc(FF_PREC_FP32, 64, 64, 30), "path=1,tm=8,tn=16,wx=8,wy=1,bk=0,sga=0",
                   "multiples of 4");
    expect_refused(mm_desc(FF_PREC_FP32, 64, 62, 64), "path=0,tm=8,tn=16,wx=8,wy=1,bk=0,sga=1",
                   "multiples of 4");
    /* lavapipe binds at most 128 MiB per storage buffer: 8192 x 8192 fp32 is 256 MiB */
    if (ff_device_info(dev)->max_alloc_bytes <= (UINT64_C(1) << 31))
        expect_refused(mm_desc(FF_PREC_FP32, 8192, 8192, 8192),
                       "path=0,tm=8,tn=16,wx=8,wy=1,bk=0,sga=0", "binding range");

    /* not a point of the space at all: FF_ERR_INVALID naming the accepted values */
    struct ff_tune_space s;
    space_of(&d, &s);
    d.tune = s.dflt;
    d.tune.v[TM] = 9;
    cr_expect_eq(ff_kernel_point_check(dev, &d, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "tm") && strstr(err, "accepted"), "%s", err);
    d.tune.n = 3;
    cr_expect_eq(ff_kernel_point_check(dev, &d, err, sizeof(err)), FF_ERR_INVALID);
}

/* The device options steer the build without a point; a point wins over them. */
Test(vk_space, point_wins_over_options)
{
    ff_device_destroy(&dev); /* reopened with options */
    struct ff_device_options o;
    ff_device_options_init(&o);
    cr_assert_eq(ff_device_options_set(&o, "vk_matmul_path", "storage", err, sizeof(err)), FF_OK,
                 "%s", err);
    cr_assert_eq(ff_device_options_set(&o, "vk_tiles", "4,1,8,8", err, sizeof(err)), FF_OK, "%s",
                 err);
    open_with(&o);
    struct ff_kernel_desc d = mm_desc(FF_PREC_FP32, SM, SN, SK);
    struct ff_tune_space s;
    space_of(&d, &s);
    /* without a point: the options' choice, which is also the space's default */
    const struct ff_tune_point want = {NPARAM, {FFVK_MM_STORAGE, 4, 4, 8, 8, 0, 0}};
    cr_expect(same_point(&s.dflt, &want), "the default follows the options");
    struct ff_kernel *k = NULL;
    cr_assert_eq(ff_kernel_create(dev, &d, &k, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect(same_point(ff_kernel_point(k), &want), "%s", ff_kernel_variant(k));
    cr_expect(strstr(ff_kernel_variant(k), "4x4 block") && strstr(ff_kernel_variant(k), "8x8"),
              "%s", ff_kernel_variant(k));
    ff_kernel_destroy(&k);
    /* with a point: the point */
    cr_assert_eq(ff_tune_point_parse(&s, "path=1,tm=2,tn=8,wx=16,wy=2,bk=0,sga=0", &d.tune, err,
                                     sizeof(err)),
                 FF_OK, "%s", err);
    cr_assert_eq(ff_kernel_create(dev, &d, &k, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect(same_point(ff_kernel_point(k), &d.tune));
    cr_expect(strstr(ff_kernel_variant(k), "2x8 block") && strstr(ff_kernel_variant(k), "texel") &&
                  strstr(ff_kernel_variant(k), "16x2") && strstr(ff_kernel_variant(k), "tuning"),
              "%s", ff_kernel_variant(k));
    ff_kernel_destroy(&k);
    cr_expect_eq(build_check(&d, &s), FF_OK, "%s", err);
    /* an option outside the space builds, with no point to report */
    ff_device_destroy(&dev);
    cr_assert_eq(ff_device_options_set(&o, "vk_tiles", "9,1,8,8", err, sizeof(err)), FF_OK, "%s",
                 err);
    open_with(&o);
    d.tune.n = 0;
    cr_assert_eq(ff_kernel_create(dev, &d, &k, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect_eq(ff_kernel_point(k)->n, 0, "tm=9 is not a point of the space");
    ff_kernel_destroy(&k);
    space_of(&d, &s);
    d.tune = s.dflt; /* the tables' choice then */
    cr_expect_eq(ff_kernel_point_check(dev, &d, err, sizeof(err)), FF_OK, "%s", err);
}
