/*
 * The OpenCL matmul kernel's declared tuning space (backends/opencl/cl_tuning.c) on the real
 * device (PoCL on CI): the space is well-formed for fp32, fp16 and int8; points that are legal
 * here build and pass the exact kernel check (bench/check/kcheck.h) on a tile shape and an odd shape;
 * illegal points are refused with a reason, by point_check and by ff_kernel_create alike;
 * desc.tune wins over the cl_matmul_tune option; ff_kernel_point is the point built.
 *
 * The full cross product (over a million points, most of them illegal) is too large to build
 * (each point is a kernel compile), so the coverage test runs every value of every parameter
 * at least once, on the first of a few base points that makes it legal (the device's default,
 * the default with the runtime's work-group, the default in place (pack=0), a GPU-style
 * local-memory point), plus a deterministic sample of the cross product (a fixed-seed
 * generator, legal points only). fp32 runs every parameter; fp16 and int8 the parameters
 * that change how their types are loaded and stored (vw, local, pack, f32acc, dot). int8's
 * dot=1 (AVX-512 VNNI byte dot products) is legal only on a PoCL CPU device whose host has the
 * instruction; there it must be the default, elsewhere it must be refused for that reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../common.h"
#include "backend_impl.h"
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

TestSuite(cl_space, .init = setup, .fini = teardown, .timeout = 300);

static struct ff_tune_space space_of(enum ff_precision p)
{
    char err[512] = "";
    struct ff_kernel_desc d = {.id = FF_KERNEL_MATMUL, .prec = p, .m = 64, .n = 64, .k = 64};
    struct ff_tune_space s;
    cr_assert_eq(ff_kernel_space(dev, &d, &s, err, sizeof(err)), FF_OK, "%s", err);
    return s;
}

/* Whether the device is PoCL's CPU device on a host with AVX-512 VNNI (dot=1 legal there). */
static bool host_vnni(void)
{
    bool pocl_cpu = strstr(ff_device_info(dev)->api_version, "PoCL") != NULL &&
                    strcmp(ff_device_info(dev)->type, "cpu") == 0;
#if defined(__x86_64__) && defined(__GNUC__)
    return pocl_cpu && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vnni");
#else
    (void)pocl_cpu;
    return false;
#endif
}

static int param_index(const struct ff_tune_space *s, const char *name)
{
    for (uint32_t i = 0; i < s->n_params; i++)
        if (strcmp(s->param[i].name, name) == 0)
            return (int)i;
    cr_assert_fail("the space has no parameter %s", name);
    return -1;
}

/* Builds point p (n == 0: the backend's choice) for m x n x k, checks every element, and
 * that the kernel reports p as its point. A backend status, FF_ERR_VERIFY or FF_OK. */
static int build_and_verify(enum ff_precision prec, const struct ff_tune_point *p, uint32_t m,
                            uint32_t n, uint32_t k, char *err, size_t errlen)
{
    struct ff_kernel_desc d = {.id = FF_KERNEL_MATMUL, .prec = prec, .m = m, .n = n, .k = k};
    if (p)
        d.tune = *p;
    struct ff_kernel *kern = NULL;
    int ret = ff_kernel_create(dev, &d, &kern, err, errlen);
    if (ret < 0)
        return ret;
    if (p) {
        const struct ff_tune_point *built = ff_kernel_point(kern);
        cr_expect_eq(built->n, p->n);
        cr_expect(memcmp(built->v, p->v, sizeof(p->v[0]) * p->n) == 0, "built another point");
    }
    struct ff_kcheck kc;
    cr_assert_eq(ff_kcheck_init(&kc, prec, m, n, k, 99 + m + n, err, errlen), FF_OK, "%s", err);
    cr_assert(kc.ref->plan.full, "%ux%ux%u: every element is checked", m, n, k);
    ret = ff_kcheck_upload(&kc, dev, err, errlen);
    if (ret == FF_OK)
        ret = ff_kcheck_run(&kc, kern, err, errlen);
    ff_kcheck_finish(&kc);
    ff_kernel_destroy(&kern);
    return ret;
}

static int check_point(enum ff_precision prec, const struct ff_tune_point *p, char *err,
                       size_t errlen)
{
    struct ff_kernel_desc d = {
        .id = FF_KERNEL_MATMUL, .prec = prec, .m = 64, .n = 64, .k = 64, .tune = *p};
    err[0] = 0;
    return ff_kernel_point_check(dev, &d, err, errlen);
}

Test(cl_space, is_well_formed_with_a_legal_default)
{
    const enum ff_precision precs[] = {FF_PREC_FP32, FF_PREC_FP16, FF_PREC_INT8};
    const char *names[] = {"tm", "tn", "vw", "local", "wg0", "wg1", "tk", "ku", "pack", "rb"};
    for (size_t pi = 0; pi < 3; pi++) {
        struct ff_tune_space s = space_of(precs[pi]);
        uint32_t want = precs[pi] == FF_PREC_INT8 ? 12 : 10;
        cr_assert_eq(s.n_params, want);
        for (size_t i = 0; i < 10; i++)
            cr_expect_str_eq(s.param[i].name, names[i]);
        if (precs[pi] == FF_PREC_INT8) {
            cr_expect_str_eq(s.param[10].name, "f32acc");
            cr_expect_str_eq(s.param[11].name, "dot");
        }
        /* covers GPUs: work-groups of 256, 128x128 tiles per work-group, 16-wide vectors */
        int wg0 = param_index(&s, "wg0"), tm = param_index(&s, "tm"), vw = param_index(&s, "vw");
        cr_expect_eq(s.param[wg0].values[s.param[wg0].n_values - 1], 256);
        cr_expect_geq(s.param[tm].values[s.param[tm].n_values - 1], 8);
        cr_expect_eq(s.param[vw].values[s.param[vw].n_values - 1], 16);
        cr_assert_eq(strlen(s.source_hash), 16);
        /* the default is a point of the space, legal here, and its text round-trips */
        char err[512] = "", text[256];
        cr_assert_eq(check_point(precs[pi], &s.dflt, err, sizeof(err)),
                     precs[pi] == FF_PREC_FP16 && !ff_device_info(dev)->fp16 ? FF_ERR_UNSUPPORTED
                                                                             : FF_OK,
                     "%s", err);
        ff_tune_point_format(&s, &s.dflt, text, sizeof(text));
        struct ff_tune_point back;
        cr_assert_eq(ff_tune_point_parse(&s, text, &back, err, sizeof(err)), FF_OK, "%s", err);
        cr_expect(memcmp(&back, &s.dflt, sizeof(back)) == 0, "%s", text);
    }
    /* the hash follows the precision's space and is stable */
    struct ff_tune_space a = space_of(FF_PREC_FP32), b = space_of(FF_PREC_FP32),
                         c = space_of(FF_PREC_INT8);
    cr_expect_str_eq(a.source_hash, b.source_hash);
    cr_expect_str_neq(a.source_hash, c.source_hash);
}

/* base with value v for parameter i; a vector width wider than the base's tn gets tn = v, so
 * the width is tried at all. */
static struct ff_tune_point with_value(const struct ff_tune_space *s,
                                       const struct ff_tune_point *base, uint32_t i, uint32_t v)
{
    struct ff_tune_point p = *base;
    p.v[i] = v;
    int tn = param_index(s, "tn");
    if (strcmp(s->param[i].name, "vw") == 0 && p.v[tn] % v)
        p.v[tn] = v;
    return p;
}

/* The base points each value is tried on, in order (see the file comment). */
static size_t base_points(const struct ff_tune_space *s, struct ff_tune_point out[4])
{
    int wg0 = param_index(s, "wg0"), wg1 = param_index(s, "wg1"), pack = param_index(s, "pack");
    out[0] = s->dflt;
    out[1] = s->dflt;
    out[1].v[wg0] = 0;
    out[1].v[wg1] = 0;
    out[1].v[param_index(s, "rb")] = 1; /* row blocks need a bounded work-group */
    out[2] = s->dflt;
    out[2].v[pack] = 0;
    out[2].v[param_index(s, "rb")] = 1; /* row blocks need B packed */
    if (s->n_params > 11)
        out[2].v[param_index(s, "dot")] = 0; /* the portable int8 paths */
    struct ff_tune_point g = s->dflt;
    const struct {
        const char *name;
        uint32_t v;
    } gpu[] = {{"tm", 4},  {"tn", 4}, {"vw", 1}, {"local", 1}, {"wg0", 8},
               {"wg1", 8}, {"tk", 8}, {"ku", 1}, {"pack", 0},  {"rb", 1}};
    for (size_t i = 0; i < sizeof(gpu) / sizeof(gpu[0]); i++)
        g.v[param_index(s, gpu[i].name)] = gpu[i].v;
    if (s->n_params > 10)
        g.v[param_index(s, "f32acc")] = 0;
    if (s->n_params > 11)
        g.v[param_index(s, "dot")] = 0;
    out[3] = g;
    return 4;
}

#define MAX_BUILT 256

static bool seen(const struct ff_tune_point *list, unsigned n, const struct ff_tune_point *p)
{
    for (unsigned i = 0; i < n; i++)
        if (memcmp(&list[i], p, sizeof(*p)) == 0)
            return true;
    return false;
}

/*
 * Values of the parameters named in `only` (NULL: every parameter), each on the first base
 * point that makes it legal, then `sample` legal points of the cross product; each point
 * built once and verified on a tile shape and an odd one. Returns how many were built.
 */
static unsigned cover(enum ff_precision prec, const char *const *only, unsigned sample)
{
    struct ff_tune_space s = space_of(prec);
    struct ff_tune_point bases[4];
    size_t nb = base_points(&s, bases);
    static const uint32_t shapes[2][3] = {{64, 64, 64}, {37, 70, 35}};
    char err[1024] = "", text[256];
    static struct ff_tune_point built[MAX_BUILT];
    unsigned n_built = 0;
    for (uint32_t i = 0; i < s.n_params; i++) {
        bool wanted = !only;
        for (size_t o = 0; only && only[o]; o++)
            wanted |= strcmp(only[o], s.param[i].name) == 0;
        if (!wanted)
            continue;
        for (uint32_t j = 0; j < s.param[i].n_values; j++) {
            bool legal_somewhere = false;
            for (size_t b = 0; b < nb && !legal_somewhere; b++) {
                struct ff_tune_point p = with_value(&s, &bases[b], i, s.param[i].values[j]);
                int ret = check_point(prec, &p, err, sizeof(err));
                ff_tune_point_format(&s, &p, text, sizeof(text));
                if (ret < 0) {
                    cr_assert_eq(ret, FF_ERR_UNSUPPORTED, "%s: %d %s", text, ret, err);
                    cr_assert_gt(strlen(err), 0, "%s refused without a reason", text);
                    continue;
                }
                legal_somewhere = true;
                if (getenv("FF_TEST_TRACE"))
                    fprintf(stderr, "point %s\n", text);
                if (seen(built, n_built, &p))
                    continue;
                for (size_t sh = 0; sh < 2; sh++)
                    cr_assert_eq(build_and_verify(prec, &p, shapes[sh][0], shapes[sh][1],
                                                  shapes[sh][2], err, sizeof(err)),
                                 FF_OK, "%s %s %ux%ux%u: %s", ff_precision_name(prec), text,
                                 shapes[sh][0], shapes[sh][1], shapes[sh][2], err);
                cr_assert_lt(n_built, MAX_BUILT);
                built[n_built++] = p;
            }
            /* dot=1 on a device without VNNI: refused for that reason (checked above) */
            bool no_vnni = strcmp(s.param[i].name, "dot") == 0 && s.param[i].values[j] == 1 &&
                           strstr(err, "AVX-512 VNNI") != NULL;
            cr_expect(legal_somewhere || no_vnni, "%s %s=%u is legal with no base point",
                      ff_precision_name(prec), s.param[i].name, s.param[i].values[j]);
        }
    }
    /* A deterministic sample of the cross product (xorshift, fixed seed): legal points only,
     * a bounded number of draws. */
    uint64_t x = 0x9e3779b97f4a7c15ull;
    unsigned got = 0;
    for (unsigned draw = 0; draw < 100000 && got < sample; draw++) {
        struct ff_tune_point p = {.n = s.n_params};
        for (uint32_t i = 0; i < s.n_params; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            p.v[i] = s.param[i].values[x % s.param[i].n_values];
        }
        if (check_point(prec, &p, err, sizeof(err)) < 0 || seen(built, n_built, &p))
            continue;
        ff_tune_point_format(&s, &p, text, sizeof(text));
        if (getenv("FF_TEST_TRACE"))
            fprintf(stderr, "sampled %s\n", text);
        cr_assert_eq(
            build_and_verify(prec, &p, shapes[1][0], shapes[1][1], shapes[1][2], err, sizeof(err)),
            FF_OK, "sampled %s %s: %s", ff_precision_name(prec), text, err);
        cr_assert_lt(n_built, MAX_BUILT);
        built[n_built++] = p;
        got++;
    }
    cr_expect_eq(got, sample, "only %u legal points in the sample", got);
    return n_built;
}

Test(cl_space, every_value_of_every_parameter_builds_and_verifies_fp32)
{
    cr_expect_gt(cover(FF_PREC_FP32, NULL, 4), 30);
}

/* fp16 and int8 share the layouts with fp32 and differ in the element and accumulator types:
 * every value of the parameters that change how those are loaded, widened and stored. */
static const char *const typed_params[] = {"vw", "local", "pack", "f32acc", "dot", NULL};

Test(cl_space, type_dependent_values_build_and_verify_int8)
{
    cover(FF_PREC_INT8, typed_params, 2);
}

Test(cl_space, type_dependent_values_build_and_verify_fp16)
{
    if (!ff_device_info(dev)->fp16)
        cr_skip_test("device lacks cl_khr_fp16");
    cover(FF_PREC_FP16, typed_params, 2);
}

/* The refusal of p names `want`; ff_kernel_create refuses it the same way. */
static void expect_refused(enum ff_precision prec, const char *text, int status, const char *want)
{
    struct ff_tune_space s = space_of(prec);
    char err[512] = "";
    struct ff_kernel_desc d = {.id = FF_KERNEL_MATMUL, .prec = prec, .m = 64, .n = 64, .k = 64};
    cr_assert_eq(ff_tune_point_parse(&s, text, &d.tune, err, sizeof(err)), FF_OK, "%s: %s", text,
                 err);
    cr_expect_eq(ff_kernel_point_check(dev, &d, err, sizeof(err)), status, "%s: %s", text, err);
    cr_expect(strstr(err, want) != NULL, "%s: '%s' lacks '%s'", text, err, want);
    struct ff_kernel *k = NULL;
    err[0] = 0;
    cr_expect_eq(ff_kernel_create(dev, &d, &k, err, sizeof(err)), status, "%s: %s", text, err);
    cr_expect(strstr(err, want) != NULL, "create %s: '%s' lacks '%s'", text, err, want);
    cr_expect_null(k);
}

Test(cl_space, illegal_points_are_refused_with_a_reason)
{
    const int U = FF_ERR_UNSUPPORTED;
    expect_refused(FF_PREC_FP32, "tm=4,tn=4,vw=8,local=0,wg0=0,wg1=0,tk=0,ku=1,pack=1,rb=1", U,
                   "tn=4 is not a multiple of vw=8");
    expect_refused(FF_PREC_FP32, "tm=4,tn=4,vw=1,local=1,wg0=256,wg1=256,tk=8,ku=1,pack=0,rb=1", U,
                   "work-group 256x256");
    expect_refused(FF_PREC_FP32, "tm=4,tn=4,vw=1,local=1,wg0=8,wg1=8,tk=0,ku=1,pack=0,rb=1", U,
                   "needs a k tile");
    expect_refused(FF_PREC_FP32, "tm=4,tn=4,vw=1,local=0,wg0=8,wg1=8,tk=8,ku=1,pack=1,rb=1", U,
                   "no effect without local memory");
    expect_refused(FF_PREC_FP32, "tm=4,tn=4,vw=1,local=1,wg0=8,wg1=8,tk=8,ku=1,pack=1,rb=1", U,
                   "pack=1 applies to the register layout");
    expect_refused(FF_PREC_FP32, "tm=4,tn=4,vw=1,local=0,wg0=8,wg1=0,tk=0,ku=1,pack=1,rb=1", U,
                   "give both");
    expect_refused(FF_PREC_FP32, "tm=16,tn=64,vw=16,local=0,wg0=1,wg1=32,tk=0,ku=1,pack=1,rb=1", U,
                   "registers' worth");
    expect_refused(FF_PREC_INT8,
                   "tm=4,tn=4,vw=1,local=1,wg0=8,wg1=8,tk=8,ku=1,pack=0,rb=1,f32acc=1,dot=0", U,
                   "f32acc=1 needs the register layout");
    expect_refused(FF_PREC_FP32, "tm=4,tn=16,vw=16,local=0,wg0=1,wg1=32,tk=0,ku=1,pack=3,rb=2", U,
                   "needs the register layout with B packed and A in place");
    if (host_vnni()) {
        expect_refused(FF_PREC_INT8,
                       "tm=8,tn=48,vw=8,local=0,wg0=1,wg1=32,tk=0,ku=1,pack=3,rb=1,f32acc=0,dot=1",
                       U, "dot=1 works on 16-lane vectors");
        expect_refused(FF_PREC_INT8,
                       "tm=8,tn=48,vw=16,local=0,wg0=1,wg1=32,tk=0,ku=1,pack=1,rb=1,f32acc=0,dot=1",
                       U, "pack=3");
        expect_refused(FF_PREC_INT8,
                       "tm=8,tn=48,vw=16,local=0,wg0=1,wg1=32,tk=0,ku=1,pack=3,rb=1,f32acc=1,dot=1",
                       U, "f32acc=0");
    } else {
        expect_refused(FF_PREC_INT8,
                       "tm=8,tn=48,vw=16,local=0,wg0=1,wg1=32,tk=0,ku=1,pack=3,rb=1,f32acc=0,dot=1",
                       U, "AVX-512 VNNI");
    }
    /* local tiles larger than the device's local memory */
    uint64_t lm = ff_device_info(dev)->local_mem_bytes;
    if (lm && lm < (uint64_t)32 * (256 * 16 + 1 + 16 * 64) * 4) {
        expect_refused(FF_PREC_FP32,
                       "tm=16,tn=1,vw=1,local=1,wg0=16,wg1=256,tk=32,ku=1,pack=0,rb=1", U,
                       "local memory");
    }
    /* not a point of the space at all: refused by the front-end, never built */
    char err[512] = "";
    struct ff_kernel_desc d = {
        .id = FF_KERNEL_MATMUL, .prec = FF_PREC_FP32, .m = 8, .n = 8, .k = 8};
    d.tune = space_of(FF_PREC_FP32).dflt;
    d.tune.v[0] = 3;
    cr_expect_eq(ff_kernel_point_check(dev, &d, err, sizeof(err)), FF_ERR_INVALID, "%s", err);
    cr_expect(strstr(err, "tm = 3 is not in its space") != NULL, "%s", err);
    d.tune.n = 4;
    cr_expect_eq(ff_kernel_point_check(dev, &d, err, sizeof(err)), FF_ERR_INVALID, "%s", err);
}

Test(cl_space, the_point_built_is_reported_and_tune_wins_over_the_option)
{
    char err[1024] = "";
    struct ff_tune_space s = space_of(FF_PREC_FP32);
    /* no point: the table's choice, reported as the space's default */
    struct ff_kernel_desc d = {
        .id = FF_KERNEL_MATMUL, .prec = FF_PREC_FP32, .m = 64, .n = 64, .k = 64};
    struct ff_kernel *k = NULL;
    cr_assert_eq(ff_kernel_create(dev, &d, &k, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect(memcmp(ff_kernel_point(k), &s.dflt, sizeof(s.dflt)) == 0);
    ff_kernel_destroy(&k);

    /* a device opened with the option builds the option's point ... */
    struct ff_device_options o;
    ff_device_options_init(&o);
    cr_assert_eq(ff_device_options_set(&o, "cl_matmul_tune", "4,8,2,1,8,4,16", err, sizeof(err)),
                 FF_OK, "%s", err);
    struct ff_device *d2 = NULL;
    cr_assert_eq(ff_device_open_opts(ff_device_backend(dev), 0, &o, &d2, err, sizeof(err)), FF_OK,
                 "%s", err);
    cr_assert_eq(ff_kernel_create(d2, &d, &k, err, sizeof(err)), FF_OK, "%s", err);
    struct ff_tune_point want;
    cr_assert_eq(ff_tune_point_parse(&s,
                                     "tm=4,tn=8,vw=2,local=1,wg0=8,wg1=4,tk=16,ku=1,pack=0,rb=1",
                                     &want, err, sizeof(err)),
                 FF_OK, "%s", err);
    want.v[param_index(&s, "ku")] = s.dflt.v[param_index(&s, "ku")];
    char text[256];
    ff_tune_point_format(&s, ff_kernel_point(k), text, sizeof(text));
    cr_expect(memcmp(ff_kernel_point(k), &want, sizeof(want)) == 0, "%s", text);
    cr_expect(strstr(ff_kernel_variant(k), "FF_CL_MATMUL_TUNE override") != NULL, "%s",
              ff_kernel_variant(k));
    ff_kernel_destroy(&k);

    /* ... unless desc.tune names one: it wins, and is what the kernel reports */
    cr_assert_eq(ff_tune_point_parse(&s, "tm=2,tn=8,vw=4,local=0,wg0=0,wg1=0,tk=0,ku=2,pack=1,rb=1",
                                     &d.tune, err, sizeof(err)),
                 FF_OK, "%s", err);
    cr_assert_eq(ff_kernel_create(d2, &d, &k, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect(memcmp(ff_kernel_point(k), &d.tune, sizeof(d.tune)) == 0);
    cr_expect(strstr(ff_kernel_variant(k), "FF_CL_MATMUL_TUNE") == NULL, "%s",
              ff_kernel_variant(k));
    ff_kernel_destroy(&k);
    ff_device_destroy(&d2);
    /* and the point passes the check on that device too */
    cr_assert_eq(build_and_verify(FF_PREC_FP32, &d.tune, 33, 17, 9, err, sizeof(err)), FF_OK, "%s",
                 err);
}

Test(cl_space, an_option_outside_the_space_still_builds_without_a_point)
{
    char err[1024] = "";
    struct ff_device_options o;
    ff_device_options_init(&o);
    /* tm=5 and tn=10 are not listed values: built as before, reported as no point */
    cr_assert_eq(ff_device_options_set(&o, "cl_matmul_tune", "5,10,2,0,0,0,0", err, sizeof(err)),
                 FF_OK, "%s", err);
    struct ff_device *d2 = NULL;
    cr_assert_eq(ff_device_open_opts(ff_device_backend(dev), 0, &o, &d2, err, sizeof(err)), FF_OK,
                 "%s", err);
    struct ff_kernel_desc d = {
        .id = FF_KERNEL_MATMUL, .prec = FF_PREC_FP32, .m = 64, .n = 64, .k = 64};
    struct ff_kernel *k = NULL;
    cr_assert_eq(ff_kernel_create(d2, &d, &k, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect_eq(ff_kernel_point(k)->n, 0);
    ff_kernel_destroy(&k);
    ff_device_destroy(&d2);
}

Test(cl_space, int8_dot_products_are_the_default_exactly_where_the_cpu_has_them)
{
    struct ff_tune_space s = space_of(FF_PREC_INT8);
    cr_expect_eq(s.dflt.v[param_index(&s, "dot")], host_vnni() ? 1u : 0u);
    if (host_vnni()) {
        /* and it is exact at the tile shape, an odd shape, and k not a multiple of 4 */
        char err[1024] = "";
        static const uint32_t shapes[3][3] = {{256, 192, 256}, {37, 70, 35}, {9, 100, 1}};
        for (int i = 0; i < 3; i++)
            cr_expect_eq(build_and_verify(FF_PREC_INT8, &s.dflt, shapes[i][0], shapes[i][1],
                                          shapes[i][2], err, sizeof(err)),
                         FF_OK, "%ux%ux%u: %s", shapes[i][0], shapes[i][1], shapes[i][2], err);
    }
}
