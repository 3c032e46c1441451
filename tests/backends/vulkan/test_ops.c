/*
 * tests/backends/vulkan/test_ops.c — every op kernel (backend.h, FF_KERNEL_GEMV to XENT) in
 * every format on the first Vulkan device (lavapipe on CI), at small and odd shapes, through
 * the op check (bench/check/opcheck.h: random inputs, poisoned output, a double-precision
 * reference with a bound per element), with the Khronos validation layer on and zero
 * validation errors required. Also: a point of each op tuning space builds and checks, and an
 * input beyond the device's limits is refused as unsupported with the numbers, not a crash.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "check/opcheck.h"
#include "../op_turns.h"
#include "vulkan/vk_internal.h"
#include "vk_test_suite.h"

static struct ff_device *dev;
static char err[1024];

static void open_dev(void)
{
    int need = vkt_require_device();
    if (need == VKT_SKIP)
        cr_skip_test("no Vulkan device (set CI=true to make this a failure)");
    cr_assert_eq(need, 0, "CI=true and no Vulkan device");
    vkt_suite_open(&dev);
}

static void close_dev(void)
{
    vkt_suite_close(&dev);
}

TestSuite(vk_ops, .init = open_dev, .fini = close_dev, .timeout = 600);

/* Build desc's kernel, check it against the reference; the name says which case failed. */
static void check(const struct ff_kernel_desc *desc, uint64_t seed)
{
    char what[128];
    snprintf(what, sizeof(what), "op %d %s m=%u n=%u k=%u g=%u", (int)desc->id,
             ff_precision_name(desc->prec), desc->m, desc->n, desc->k, desc->g);
    struct ff_opcheck oc;
    int ret = ff_opcheck_init(&oc, desc, seed, err, sizeof(err));
    cr_assert_eq(ret, FF_OK, "%s: init: %s", what, err);
    struct ff_kernel *k = NULL;
    ret = ff_kernel_create(dev, desc, &k, err, sizeof(err));
    cr_assert_eq(ret, FF_OK, "%s: create: %s", what, err);
    ret = ff_opcheck_upload(&oc, dev, err, sizeof(err));
    cr_assert_eq(ret, FF_OK, "%s: upload: %s", what, err);
    ret = ff_opcheck_run(&oc, k, err, sizeof(err));
    cr_expect_eq(ret, FF_OK, "%s [%s]: %s", what, ff_kernel_variant(k), err);
    ff_kernel_destroy(&k);
    ff_opcheck_finish(&oc);
}

static const enum ff_precision gemv_formats[] = {FF_PREC_FP32, FF_PREC_FP16, FF_PREC_BF16,
                                                 FF_PREC_INT8, FF_PREC_Q8_0, FF_PREC_Q4_0};
static const enum ff_precision kv_formats[] = {FF_PREC_FP32, FF_PREC_FP16, FF_PREC_BF16};

Test(vk_ops, gemv)
{
    /* k = 256: rows of whole 4-block chunks (where the block formats' chunk=4 applies) */
    const uint32_t ms[] = {1, 3, 5}, ks[] = {32, 96, 64, 256}, ns[] = {17, 1, 64, 9};
    for (size_t f = 0; f < sizeof(gemv_formats) / sizeof(gemv_formats[0]); f++)
        for (size_t a = 0; a < 3; a++)
            for (size_t b = 0; b < 4; b++) {
                struct ff_kernel_desc d = {.id = FF_KERNEL_GEMV,
                                           .prec = gemv_formats[f],
                                           .m = ms[a],
                                           .n = ns[b],
                                           .k = ks[b]};
                check(&d, 100 + f * 16 + a * 4 + b);
            }
}

/* Rows of odd byte widths take the narrow texel views (k = 2 and 6 mod 8). */
Test(vk_ops, gemv_narrow_rows)
{
    const uint32_t ks[] = {2, 6, 10, 12};
    for (size_t f = 0; f < 4; f++) /* the formats without 32-weight blocks */
        for (size_t b = 0; b < 4; b++) {
            struct ff_kernel_desc d = {
                .id = FF_KERNEL_GEMV, .prec = gemv_formats[f], .m = 3, .n = 17, .k = ks[b]};
            check(&d, 200 + f * 4 + b);
        }
}

Test(vk_ops, attn_decode)
{
    const uint32_t ls[] = {1, 33, 70}, gs[] = {1, 4}, ds[] = {32, 64, 6, 5};
    for (size_t f = 0; f < 3; f++)
        for (size_t l = 0; l < 3; l++)
            for (size_t g = 0; g < 2; g++)
                for (size_t h = 0; h < 4; h++) {
                    struct ff_kernel_desc d = {.id = FF_KERNEL_ATTN_DECODE,
                                               .prec = kv_formats[f],
                                               .m = 8,
                                               .n = ls[l],
                                               .k = ds[h],
                                               .g = gs[g]};
                    check(&d, 300 + f * 100 + l * 10 + g * 4 + h);
                }
}

/* Decode with the values across the lanes (vl=1): every format, query rows per work-group 1 to
 * 8, positions short of and past a tile, one subgroup a work-group and (fp16) several, their
 * states merged in shared memory. */
Test(vk_ops, attn_decode_values_across_lanes)
{
    const uint32_t ls[] = {1, 70};
    const uint32_t cases[][4] = {/* g, gb, k, subgroups a work-group */
                                 {8, 8, 64, 1},  {8, 4, 64, 1}, {4, 2, 64, 1}, {1, 1, 64, 1},
                                 {8, 8, 128, 1}, {8, 8, 64, 4}, {4, 2, 64, 4}};
    const uint32_t sg = ffvk_dev(dev)->subgroup_size;
    size_t built = 0;
    for (size_t f = 0; f < 3; f++)
        for (size_t l = 0; l < 2; l++)
            for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
                if (cases[c][2] != 64 || cases[c][3] != 1) {
                    if (kv_formats[f] != FF_PREC_FP16)
                        continue; /* a wider row, several subgroups: fp16 covers them */
                }
                struct ff_kernel_desc d = {.id = FF_KERNEL_ATTN_DECODE,
                                           .prec = kv_formats[f],
                                           .m = 16,
                                           .n = ls[l],
                                           .k = cases[c][2],
                                           .g = cases[c][0]};
                struct ff_tune_space s;
                cr_assert_eq(ff_kernel_space(dev, &d, &s, err, sizeof(err)), FF_OK, "space: %s",
                             err);
                char pt[64];
                snprintf(pt, sizeof(pt), "wg=%u,gb=%u,vl=1,parts=1", cases[c][3] * sg, cases[c][1]);
                cr_assert_eq(ff_tune_point_parse(&s, pt, &d.tune, err, sizeof(err)), FF_OK,
                             "%s: %s", pt, err);
                if (ff_kernel_point_check(dev, &d, err, sizeof(err)) != FF_OK) {
                    cr_log_info("%s %s k=%u: %s", pt, ff_precision_name(d.prec), d.k, err);
                    continue;
                }
                check(&d, 2000 + f * 100 + l * 20 + c);
                built++;
            }
    /* a work-group of part of a subgroup: refused, the layout shuffles across whole ones */
    struct ff_kernel_desc half = {
        .id = FF_KERNEL_ATTN_DECODE, .prec = FF_PREC_FP16, .m = 8, .n = 40, .k = 64, .g = 8};
    struct ff_tune_space hs;
    cr_assert_eq(ff_kernel_space(dev, &half, &hs, err, sizeof(err)), FF_OK, "space: %s", err);
    char hp[64];
    snprintf(hp, sizeof(hp), "wg=%u,gb=8,vl=1,parts=1", sg / 2);
    if (sg >= 8 && ff_tune_point_parse(&hs, hp, &half.tune, err, sizeof(err)) == FF_OK)
        cr_expect_eq(ff_kernel_point_check(dev, &half, err, sizeof(err)), FF_ERR_UNSUPPORTED,
                     "%s should be refused", hp);
    /* lavapipe (CI): a fixed subgroup of 8, so every case above fits */
    if (strstr(ffvk_dev(dev)->props.deviceName, "llvmpipe"))
        cr_expect_eq(built, 30, "%zu of 30 cases of vl=1 built on lavapipe", built);
}

/* Decode over several work-groups per group of query rows (parts), merged by the last to
 * finish: parts with no positions, both layouts, one subgroup a work-group and several, and
 * inputs in turn (the counts set back to 0 by each dispatch's last part). */
Test(vk_ops, attn_decode_parts)
{
    const uint32_t sg = ffvk_dev(dev)->subgroup_size;
    const uint32_t parts[] = {2, 64}, ls[] = {1, 300};
    const uint32_t pts[][3] = {{1, 0, 4}, {1, 1, 4}, {4, 0, 2}, {4, 1, 8}}; /* subgroups, vl, gb */
    for (size_t p = 0; p < 2; p++)
        for (size_t l = 0; l < 2; l++)
            for (size_t c = 0; c < 4; c++) {
                struct ff_kernel_desc d = {.id = FF_KERNEL_ATTN_DECODE,
                                           .prec = c == 2 ? FF_PREC_BF16 : FF_PREC_FP16,
                                           .m = 16,
                                           .n = ls[l],
                                           .k = 64,
                                           .g = 8};
                struct ff_tune_space s;
                cr_assert_eq(ff_kernel_space(dev, &d, &s, err, sizeof(err)), FF_OK, "space: %s",
                             err);
                char pt[64], what[128];
                snprintf(pt, sizeof(pt), "wg=%u,gb=%u,vl=%u,parts=%u", pts[c][0] * sg, pts[c][2],
                         pts[c][1], parts[p]);
                cr_assert_eq(ff_tune_point_parse(&s, pt, &d.tune, err, sizeof(err)), FF_OK,
                             "%s: %s", pt, err);
                snprintf(what, sizeof(what), "%s n=%u", pt, d.n);
                if (ff_kernel_point_check(dev, &d, err, sizeof(err)) != FF_OK) {
                    cr_log_info("%s: %s", what, err);
                    continue;
                }
                ff_test_op_inputs_in_turn(dev, &d, what);
            }
}

Test(vk_ops, attn_prefill)
{
    const uint32_t ls[] = {1, 33}, gs[] = {1, 4}, ds[] = {32, 6};
    for (size_t f = 0; f < 3; f++)
        for (size_t l = 0; l < 2; l++)
            for (size_t g = 0; g < 2; g++)
                for (size_t h = 0; h < 2; h++) {
                    struct ff_kernel_desc d = {.id = FF_KERNEL_ATTN_PREFILL,
                                               .prec = kv_formats[f],
                                               .m = 4,
                                               .n = ls[l],
                                               .k = ds[h],
                                               .g = gs[g]};
                    check(&d, 700 + f * 100 + l * 10 + g * 4 + h);
                }
}

/* The generic build (a head dim not a multiple of a texel's elements) over thousands of
 * positions and a 256-token prefill: shapes of a real cache, where the short cases above
 * cannot tell the head dim's loops from unrolled ones. */
Test(vk_ops, attn_narrow_head_dims_at_length)
{
    const uint32_t ks[] = {6, 126};
    for (size_t h = 0; h < 2; h++) {
        struct ff_kernel_desc d = {.id = FF_KERNEL_ATTN_DECODE,
                                   .prec = FF_PREC_FP16,
                                   .m = 8,
                                   .n = 4096,
                                   .k = ks[h],
                                   .g = 4};
        check(&d, 1100 + h);
        d.id = FF_KERNEL_ATTN_PREFILL;
        d.m = 4;
        d.n = 256;
        check(&d, 1110 + h);
    }
}

Test(vk_ops, small_ops)
{
    const enum ff_kernel_id ids[] = {FF_KERNEL_RMSNORM, FF_KERNEL_ROPE, FF_KERNEL_SWIGLU,
                                     FF_KERNEL_ADD, FF_KERNEL_XENT};
    const uint32_t ms[] = {1, 3, 8}, ns[] = {18, 96, 130};
    for (size_t i = 0; i < 5; i++)
        for (size_t a = 0; a < 3; a++)
            for (size_t b = 0; b < 3; b++) {
                struct ff_kernel_desc d = {
                    .id = ids[i], .prec = FF_PREC_FP32, .m = ms[a], .n = ns[b], .g = 1};
                if (ids[i] == FF_KERNEL_ROPE && ms[a] % 2 == 0)
                    d.g = 2;
                check(&d, 1100 + i * 10 + a * 3 + b);
            }
}

/* Every value of every parameter of the gemv and attention spaces builds and checks. */
Test(vk_ops, tuning_points)
{
    const struct ff_kernel_desc descs[] = {
        {.id = FF_KERNEL_GEMV, .prec = FF_PREC_Q4_0, .m = 3, .n = 33, .k = 96},
        {.id = FF_KERNEL_GEMV, .prec = FF_PREC_FP16, .m = 1, .n = 33, .k = 96},
        {.id = FF_KERNEL_GEMV, .prec = FF_PREC_Q8_0, .m = 2, .n = 40, .k = 256},
        {.id = FF_KERNEL_ATTN_DECODE, .prec = FF_PREC_FP16, .m = 8, .n = 40, .k = 64, .g = 4},
        {.id = FF_KERNEL_ATTN_PREFILL, .prec = FF_PREC_BF16, .m = 2, .n = 20, .k = 16, .g = 1},
    };
    for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++) {
        struct ff_tune_space s;
        int ret = ff_kernel_space(dev, &descs[i], &s, err, sizeof(err));
        cr_assert_eq(ret, FF_OK, "space: %s", err);
        cr_assert_eq(ff_tune_point_in_space(&s, &s.dflt, err, sizeof(err)), FF_OK, "%s", err);
        for (uint32_t p = 0; p < s.n_params; p++)
            for (uint32_t v = 0; v < s.param[p].n_values; v++) {
                struct ff_kernel_desc d = descs[i];
                d.tune = s.dflt;
                d.tune.v[p] = s.param[p].values[v];
                if (ff_kernel_point_check(dev, &d, err, sizeof(err)) != FF_OK)
                    continue; /* illegal here: refused with a reason, never built */
                check(&d, 1500 + i * 100 + p * 16 + v);
            }
    }
}

/* An input or output past the device's limits is unsupported, with the numbers. */
Test(vk_ops, beyond_limits)
{
    const struct ffvk_device *vd = (const struct ffvk_device *)dev;
    /* Y = m*n floats just over maxStorageBufferRange */
    uint64_t floats = vd->max_storage_range / 4 + 1024;
    struct ff_kernel_desc d = {.id = FF_KERNEL_ADD,
                               .prec = FF_PREC_FP32,
                               .m = 1024,
                               .n = (uint32_t)((floats + 1023) / 1024)};
    struct ff_kernel *k = NULL;
    int ret = ff_kernel_create(dev, &d, &k, err, sizeof(err));
    if (ret == FF_OK) { /* a device whose storage range covers it: nothing to refuse */
        ff_kernel_destroy(&k);
        return;
    }
    cr_expect_eq(ret, FF_ERR_UNSUPPORTED, "%s", err);
    cr_expect(strstr(err, "maxStorageBufferRange") || strstr(err, "maxTexelBufferElements"),
              "the reason names the limit: %s", err);
}

/* One dispatch per submission: the Vulkan backend does not time a chain's dispatches one by
 * one (on lavapipe chains changed nothing, doc/methodology.md), so the op check times each
 * launch alone and says so (oc.chain 0), checked as ever. */
Test(vk_ops, ops_are_timed_one_dispatch_at_a_time)
{
    struct ff_kernel_desc d = {
        .id = FF_KERNEL_GEMV, .prec = FF_PREC_Q8_0, .m = 1, .n = 64, .k = 256};
    struct ff_opcheck oc;
    struct ff_kernel *k = NULL;
    cr_assert_eq(ff_opcheck_init(&oc, &d, 5, err, sizeof(err)), FF_OK, "%s", err);
    cr_assert_eq(ff_kernel_create(dev, &d, &k, err, sizeof(err)), FF_OK, "%s", err);
    cr_assert_eq(ff_opcheck_upload(&oc, dev, err, sizeof(err)), FF_OK, "%s", err);
    uint64_t dns = 0, wns = 0;
    cr_expect_eq(ff_kernel_run_sets(k, oc.bufs, oc.n_bufs, 1, oc.params, oc.n_params, 2, &dns, &wns,
                                    err, sizeof(err)),
                 FF_ERR_UNSUPPORTED);
    cr_expect(strstr(err, "vulkan"), "%s", err);
    struct ff_measure_cfg mc = {.warmup = 0, .min_reps = 2, .max_reps = 2};
    struct ff_timing t = {0};
    cr_expect_eq(ff_opcheck_bench(&oc, k, &mc, &t, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect_eq(oc.chain, 0);
    cr_expect_eq(t.reps, 2);
    ff_kernel_destroy(&k);
    ff_opcheck_finish(&oc);
}
