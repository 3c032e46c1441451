/*
 * The OpenCL op kernels on a real device (PoCL on CI): every op in every format it takes,
 * built at small and odd shapes (rows that fill no vector, a single row, heads sharing a KV
 * head, a one-position cache) and checked against opcheck's CPU reference; and the declared
 * tuning spaces of gemv and attention, each value of each parameter built and checked once.
 */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../common.h"
#include "backend_impl.h"
#include "check/kcheck.h"
#include "check/opcheck.h"
#include "../op_turns.h"

static struct ff_device *dev;

static void setup(void)
{
    dev = ff_test_open("opencl");
}

static void teardown(void)
{
    ff_device_destroy(&dev);
}

TestSuite(opencl_ops, .init = setup, .fini = teardown, .timeout = 600);

/* Builds desc's kernel, checks one run and one timed run against the reference. */
static void check_op(const struct ff_kernel_desc *d, const char *what)
{
    char err[1024] = "";
    struct ff_kernel *k = NULL;
    struct ff_opcheck oc;
    int ret = ff_kernel_create(dev, d, &k, err, sizeof(err));
    cr_assert_eq(ret, FF_OK, "%s: create: %s", what, err);
    cr_assert_eq(ff_opcheck_init(&oc, d, 77 + d->m + d->n, err, sizeof(err)), FF_OK, "%s: %s", what,
                 err);
    ret = ff_opcheck_upload(&oc, dev, err, sizeof(err));
    if (ret == FF_OK)
        ret = ff_opcheck_run(&oc, k, err, sizeof(err));
    if (ret == FF_OK) {
        struct ff_measure_cfg mc = {.warmup = 0, .min_reps = 1, .max_reps = 1};
        struct ff_timing t = {0};
        ret = ff_opcheck_bench(&oc, k, &mc, &t, err, sizeof(err));
    }
    ff_opcheck_finish(&oc);
    cr_assert_eq(ret, FF_OK, "%s [%s]: %s", what, ff_kernel_variant(k), err);
    ff_kernel_destroy(&k);
}

static void check_desc(struct ff_kernel_desc d)
{
    char what[160];
    snprintf(what, sizeof(what), "op %d %s m=%u n=%u k=%u g=%u", (int)d.id,
             ff_precision_name(d.prec), d.m, d.n, d.k, d.g);
    check_op(&d, what);
}

Test(opencl_ops, gemv_every_format_at_odd_shapes)
{
    static const enum ff_precision fmts[] = {FF_PREC_FP32, FF_PREC_FP16, FF_PREC_BF16,
                                             FF_PREC_INT8, FF_PREC_Q8_0, FF_PREC_Q4_0};
    static const uint32_t shapes[][3] = {
        {1, 17, 32}, {3, 17, 96}, {1, 1, 32}, {5, 33, 64}, {1, 64, 256}};
    for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++)
        for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
            check_desc((struct ff_kernel_desc){.id = FF_KERNEL_GEMV,
                                               .prec = fmts[f],
                                               .m = shapes[s][0],
                                               .n = shapes[s][1],
                                               .k = shapes[s][2]});
    /* k not a multiple of the vector width: the float formats' scalar tail */
    check_desc((struct ff_kernel_desc){.id = FF_KERNEL_GEMV, .prec = FF_PREC_FP16, 3, 17, 38});
    check_desc((struct ff_kernel_desc){.id = FF_KERNEL_GEMV, .prec = FF_PREC_INT8, 1, 9, 2});
}

Test(opencl_ops, attention_every_kv_format)
{
    static const enum ff_precision fmts[] = {FF_PREC_FP32, FF_PREC_FP16, FF_PREC_BF16};
    /* m, n (positions), k (head dim), g */
    static const uint32_t shapes[][4] = {
        {4, 1, 32, 4}, {4, 33, 32, 1}, {8, 33, 96, 4}, {2, 70, 20, 2}, {3, 5, 7, 1}};
    for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++)
        for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
            for (int id = FF_KERNEL_ATTN_DECODE; id <= FF_KERNEL_ATTN_PREFILL; id++)
                check_desc((struct ff_kernel_desc){.id = (enum ff_kernel_id)id,
                                                   .prec = fmts[f],
                                                   .m = shapes[s][0],
                                                   .n = shapes[s][1],
                                                   .k = shapes[s][2],
                                                   .g = shapes[s][3]});
}

/* Decode at every group size up to 16 and one past it (on a 16-lane device the rows are
 * padded to a power of two and 16 / that many positions reduced together, or, past 16, taken
 * one position at a time), at position counts that leave a part group and a part tile. */
Test(opencl_ops, attention_decode_every_group_size)
{
    static const uint32_t groups[] = {2, 3, 5, 6, 7, 8, 12, 16, 20};
    static const uint32_t positions[] = {1, 17, 70};
    for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
        for (size_t n = 0; n < sizeof(positions) / sizeof(positions[0]); n++)
            check_desc((struct ff_kernel_desc){.id = FF_KERNEL_ATTN_DECODE,
                                               .prec = FF_PREC_FP16,
                                               .m = 2 * groups[g],
                                               .n = positions[n],
                                               .k = 32,
                                               .g = groups[g]});
}

/* Decode over several work-groups per KV head (parts), merged by the last: parts with no
 * positions (more parts than positions), one and many items a group, chained launches (the
 * counts set back to 0 by each launch's last part), the scores formed either way (qk). */
Test(opencl_ops, attention_decode_parts)
{
    static const uint32_t parts[] = {2, 4, 64}, positions[] = {1, 70, 300}, groups[] = {1, 4, 8};
    static const uint32_t splits[] = {1, 4};
    char err[512] = "";
    for (size_t p = 0; p < 3; p++)
        for (size_t n = 0; n < 3; n++)
            for (size_t g = 0; g < 3; g++)
                for (size_t s = 0; s < 2; s++) {
                    struct ff_kernel_desc d = {.id = FF_KERNEL_ATTN_DECODE,
                                               .prec = g == 1 ? FF_PREC_BF16 : FF_PREC_FP16,
                                               .m = 2 * groups[g],
                                               .n = positions[n],
                                               .k = 64,
                                               .g = groups[g]};
                    struct ff_tune_space sp;
                    cr_assert_eq(ff_kernel_space(dev, &d, &sp, err, sizeof(err)), FF_OK, "%s", err);
                    /* both ways of forming the scores (qk), where the device and rows allow
                     * the second (16-lane vectors) */
                    char pt[64], what[160];
                    for (unsigned qk = s == 0 && groups[g] > 1;; qk = 0) {
                        snprintf(pt, sizeof(pt), "split=%u,tile=16,pf=0,parts=%u,qk=%u", splits[s],
                                 parts[p], qk);
                        cr_assert_eq(ff_tune_point_parse(&sp, pt, &d.tune, err, sizeof(err)), FF_OK,
                                     "%s: %s", pt, err);
                        if (qk == 0 || ff_kernel_point_check(dev, &d, err, sizeof(err)) == FF_OK)
                            break;
                    }
                    snprintf(what, sizeof(what), "%s n=%u g=%u", pt, d.n, d.g);
                    check_op(&d, what);
                    ff_test_op_inputs_in_turn(dev, &d, what);
                }
}

Test(opencl_ops, small_ops)
{
    static const uint32_t shapes[][2] = {{1, 32}, {3, 17}, {2, 96}, {5, 4096}};
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
        const uint32_t m = shapes[s][0], n = shapes[s][1];
        check_desc((struct ff_kernel_desc){.id = FF_KERNEL_RMSNORM, .m = m, .n = n});
        check_desc((struct ff_kernel_desc){.id = FF_KERNEL_SWIGLU, .m = m, .n = n});
        check_desc((struct ff_kernel_desc){.id = FF_KERNEL_ADD, .m = m, .n = n});
        check_desc((struct ff_kernel_desc){.id = FF_KERNEL_XENT, .m = m, .n = n});
        if (n % 2 == 0)
            check_desc((struct ff_kernel_desc){.id = FF_KERNEL_ROPE, .m = m * 4, .n = n, .g = 4});
    }
    check_desc((struct ff_kernel_desc){.id = FF_KERNEL_ROPE, .m = 3, .n = 128, .g = 1});
}

/* Each value of each parameter, the others at the default, built and checked at desc. */
static void sweep_space(struct ff_kernel_desc d)
{
    char err[512] = "";
    struct ff_tune_space s;
    cr_assert_eq(ff_kernel_space(dev, &d, &s, err, sizeof(err)), FF_OK, "%s", err);
    cr_assert_eq(ff_tune_point_in_space(&s, &s.dflt, err, sizeof(err)), FF_OK, "%s", err);
    for (uint32_t p = 0; p < s.n_params; p++) {
        for (uint32_t v = 0; v < s.param[p].n_values; v++) {
            d.tune = s.dflt;
            d.tune.v[p] = s.param[p].values[v];
            char what[160];
            ff_tune_point_format(&s, &d.tune, what, sizeof(what));
            if (ff_kernel_point_check(dev, &d, err, sizeof(err)) != FF_OK)
                continue; /* refused with a reason: not this device's */
            check_op(&d, what);
        }
    }
}

Test(opencl_ops, tuning_spaces_build_and_verify)
{
    sweep_space((struct ff_kernel_desc){.id = FF_KERNEL_GEMV, .prec = FF_PREC_Q4_0, 3, 37, 64});
    sweep_space((struct ff_kernel_desc){.id = FF_KERNEL_GEMV, .prec = FF_PREC_FP16, 2, 19, 70});
    /* 37 blocks a row: two groups of 16 scales and a part group, an odd block at the end;
     * 40 rows: the next item's rows exist for the first items and not for the last */
    sweep_space((struct ff_kernel_desc){.id = FF_KERNEL_GEMV, .prec = FF_PREC_Q4_0, 1, 40, 1184});
    sweep_space((struct ff_kernel_desc){.id = FF_KERNEL_GEMV, .prec = FF_PREC_Q8_0, 2, 40, 1184});
    sweep_space(
        (struct ff_kernel_desc){.id = FF_KERNEL_ATTN_DECODE, .prec = FF_PREC_FP16, 8, 45, 64, 4});
    sweep_space(
        (struct ff_kernel_desc){.id = FF_KERNEL_ATTN_PREFILL, .prec = FF_PREC_BF16, 2, 45, 32, 1});
}

/* The op family's fp16 GEMM (FF_KDESC_FP16_STORAGE): where the device has no fp16 arithmetic, fp16
 * operands multiplied in fp32, said so in the variant, and exact against the fp16 check at tile
 * and odd shapes; without the flag such a device still reports fp16 unsupported. */
Test(opencl_ops, gemm_fp16_storage_where_no_fp16_arithmetic)
{
    static const uint32_t shapes[][3] = {{64, 96, 128}, {3, 17, 5}, {33, 50, 70}, {1, 130, 64}};
    const bool fp16 = ff_device_info(dev)->fp16;
    char err[512] = "";
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
        struct ff_kernel_desc d = {.id = FF_KERNEL_MATMUL,
                                   .prec = FF_PREC_FP16,
                                   .m = shapes[s][0],
                                   .n = shapes[s][1],
                                   .k = shapes[s][2],
                                   .flags = FF_KDESC_FP16_STORAGE};
        struct ff_kernel *k = NULL;
        cr_assert_eq(ff_kernel_create(dev, &d, &k, err, sizeof(err)), FF_OK, "%s", err);
        if (!fp16)
            cr_assert(strstr(ff_kernel_variant(k), "fp16 in fp32") != NULL, "%s",
                      ff_kernel_variant(k));
        struct ff_kcheck kc;
        cr_assert_eq(ff_kcheck_init(&kc, d.prec, d.m, d.n, d.k, 5 + d.m, err, sizeof(err)), FF_OK,
                     "%s", err);
        int ret = ff_kcheck_upload(&kc, dev, err, sizeof(err));
        if (ret == FF_OK)
            ret = ff_kcheck_run(&kc, k, err, sizeof(err));
        ff_kcheck_finish(&kc);
        cr_assert_eq(ret, FF_OK, "%ux%ux%u [%s]: %s", d.m, d.n, d.k, ff_kernel_variant(k), err);
        ff_kernel_destroy(&k);
        if (!fp16) {
            d.flags = 0;
            cr_assert_eq(ff_kernel_create(dev, &d, &k, err, sizeof(err)), FF_ERR_UNSUPPORTED);
            cr_assert(strstr(err, "cl_khr_fp16") != NULL, "%s", err);
        }
    }
}

/* Row blocks per work-item (rb, matmul.cl RB) on a CPU device's register tile: at a K whose
 * B panel passes 1 MiB, with whole groups of row blocks, a group cut short by M and an edge
 * column past N, every rb of the space against the CPU reference, fp32 and fp16 storage
 * (K = 5600: not a whole number of 1024-deep slices). */
Test(opencl_ops, gemm_row_blocks_over_deep_k)
{
    char err[512] = "";
    struct ff_tune_space s;
    struct ff_kernel_desc d = {.id = FF_KERNEL_MATMUL, .prec = FF_PREC_FP32, 88, 116, 5600};
    cr_assert_eq(ff_kernel_space(dev, &d, &s, err, sizeof(err)), FF_OK, "%s", err);
    uint32_t p = 0;
    while (p < s.n_params && strcmp(s.param[p].name, "rb") != 0)
        p++;
    cr_assert_lt(p, s.n_params, "matmul's space has no \"rb\"");
    unsigned built = 0;
    for (uint32_t v = 0; v < s.param[p].n_values; v++) {
        for (int storage16 = 0; storage16 < 2; storage16++) {
            d.prec = storage16 ? FF_PREC_FP16 : FF_PREC_FP32;
            d.flags = storage16 ? FF_KDESC_FP16_STORAGE : 0;
            d.tune = s.dflt;
            d.tune.v[p] = s.param[p].values[v];
            if (storage16 && ff_device_info(dev)->fp16)
                continue; /* fp16 arithmetic: not the register tile's storage path */
            if (!storage16 && ff_kernel_point_check(dev, &d, err, sizeof(err)) != FF_OK)
                continue; /* rb > 1 needs the packed-B register layout */
            struct ff_kernel *k = NULL;
            if (ff_kernel_create(dev, &d, &k, err, sizeof(err)) != FF_OK)
                continue;
            struct ff_kcheck kc;
            cr_assert_eq(ff_kcheck_init(&kc, d.prec, d.m, d.n, d.k, 7 + v, err, sizeof(err)), FF_OK,
                         "%s", err);
            int ret = ff_kcheck_upload(&kc, dev, err, sizeof(err));
            if (ret == FF_OK)
                ret = ff_kcheck_run(&kc, k, err, sizeof(err));
            ff_kcheck_finish(&kc);
            cr_expect_eq(ret, FF_OK, "rb=%u %s: %s [%s]", s.param[p].values[v],
                         storage16 ? "fp16 storage" : "fp32", err, ff_kernel_variant(k));
            ff_kernel_destroy(&k);
            built++;
        }
    }
    if (strcmp(ff_device_info(dev)->type, "cpu") == 0)
        cr_expect_geq(built, 2, "a CPU device built only %u of the row-block points", built);
}

/* "next" (prefetch the next item's rows) applies to the block formats on a CPU device; any
 * other gemv is refused with the reason, so a search never times a point that changes nothing */
Test(opencl_ops, gemv_next_is_for_block_formats_on_cpu_devices)
{
    char err[512] = "";
    struct ff_tune_space s;
    struct ff_kernel_desc d = {.id = FF_KERNEL_GEMV, .prec = FF_PREC_FP16, 1, 64, 256};
    cr_assert_eq(ff_kernel_space(dev, &d, &s, err, sizeof(err)), FF_OK, "%s", err);
    d.tune = s.dflt;
    uint32_t p = 0;
    while (p < s.n_params && strcmp(s.param[p].name, "next") != 0)
        p++;
    cr_assert_lt(p, s.n_params, "gemv's space has no \"next\"");
    d.tune.v[p] = 1;
    cr_assert_eq(ff_kernel_point_check(dev, &d, err, sizeof(err)), FF_ERR_UNSUPPORTED);
    cr_assert(strstr(err, "next") != NULL, "%s", err);
    d.prec = FF_PREC_Q4_0;
    const int ret = ff_kernel_point_check(dev, &d, err, sizeof(err));
    if (strcmp(ff_device_info(dev)->type, "cpu") == 0)
        cr_assert_eq(ret, FF_OK, "%s", err);
    else
        cr_assert_eq(ret, FF_ERR_UNSUPPORTED);
}

Test(opencl_ops, small_ops_declare_no_space)
{
    char err[256] = "";
    struct ff_tune_space s;
    struct ff_kernel_desc d = {.id = FF_KERNEL_ADD, .m = 1, .n = 8};
    cr_assert_eq(ff_kernel_space(dev, &d, &s, err, sizeof(err)), FF_ERR_UNSUPPORTED);
    cr_assert_gt(strlen(err), 0);
}

/* The ops are timed as a step runs them: chains of launches back to back over the rotating
 * inputs, each launch's own device time summed (ff_kernel_run_sets); the output, poisoned
 * before each chain, is checked after the last. */
Test(opencl_ops, ops_are_timed_in_chains_over_the_rotating_inputs)
{
    char err[1024] = "";
    struct ff_kernel_desc d = {
        .id = FF_KERNEL_GEMV, .prec = FF_PREC_Q4_0, .m = 1, .n = 96, .k = 256};
    struct ff_kernel *k = NULL;
    struct ff_opcheck oc;
    cr_assert_eq(ff_kernel_create(dev, &d, &k, err, sizeof(err)), FF_OK, "%s", err);
    cr_assert_eq(ff_opcheck_init(&oc, &d, 31, err, sizeof(err)), FF_OK, "%s", err);
    cr_assert_eq(ff_opcheck_upload(&oc, dev, err, sizeof(err)), FF_OK, "%s", err);
    uint64_t in = 0;
    for (uint32_t b = 0; b + 1 < oc.n_bufs; b++)
        in += oc.bytes[b];
    cr_assert_eq(ff_opcheck_rotate(&oc, 3 * in), 3);
    struct ff_measure_cfg mc = {.warmup = 1, .min_reps = 2, .max_reps = 2};
    struct ff_timing t = {0};
    cr_assert_eq(ff_opcheck_bench(&oc, k, &mc, &t, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect_eq(oc.chain, FF_OPCHECK_CHAIN);
    cr_expect_eq(t.reps, 2 * FF_OPCHECK_CHAIN, "launches timed");
    cr_expect_gt(t.dev_median_s, 0.0);
    cr_expect_leq(t.dev_median_s, t.wall_median_s, "a launch's own time within the chain's");
    cr_expect_eq(oc.next_set, 3 * FF_OPCHECK_CHAIN, "each launch takes the next set");

    /* three sets, five launches: the sum of five launches, within the wall time */
    struct ff_buf *sets[3 * FF_MAX_BUFS];
    for (uint32_t s = 0; s < 3; s++)
        for (uint32_t b = 0; b < oc.n_bufs; b++)
            sets[s * oc.n_bufs + b] =
                s == 0 || b + 1 == oc.n_bufs ? oc.bufs[b] : oc.sets[(s - 1) * (oc.n_bufs - 1) + b];
    uint64_t dns = 0, wns = 0;
    cr_assert_eq(ff_kernel_run_sets(k, sets, oc.n_bufs, 3, oc.params, oc.n_params, 5, &dns, &wns,
                                    err, sizeof(err)),
                 FF_OK, "%s", err);
    cr_expect(dns > 0 && dns <= wns, "%llu ns of %llu", (unsigned long long)dns,
              (unsigned long long)wns);
    /* bad arguments are refused before anything runs, and name what is wrong */
    cr_expect_eq(ff_kernel_run_sets(k, sets, oc.n_bufs, 3, oc.params, oc.n_params, 0, &dns, &wns,
                                    err, sizeof(err)),
                 FF_ERR_INVALID);
    cr_expect(strstr(err, "chain of 0 runs"), "%s", err);
    cr_expect_eq(ff_kernel_run_sets(k, sets, oc.n_bufs, 0, oc.params, oc.n_params, 2, &dns, &wns,
                                    err, sizeof(err)),
                 FF_ERR_INVALID);
    sets[2 * oc.n_bufs] = NULL;
    cr_expect_eq(ff_kernel_run_sets(k, sets, oc.n_bufs, 3, oc.params, oc.n_params, 2, &dns, &wns,
                                    err, sizeof(err)),
                 FF_ERR_INVALID);
    cr_expect(strstr(err, "missing"), "%s", err);
    ff_opcheck_finish(&oc);
    ff_kernel_destroy(&k);

    /* a packed matmul is not chained: said, and ff_opcheck-style callers time it alone */
    struct ff_kernel_desc m = {.id = FF_KERNEL_MATMUL,
                               .prec = FF_PREC_FP16,
                               .m = 64,
                               .n = 96,
                               .k = 128,
                               .flags = FF_KDESC_FP16_STORAGE};
    if (!ff_device_info(dev)->fp16 && strcmp(ff_device_info(dev)->type, "cpu") == 0) {
        cr_assert_eq(ff_kernel_create(dev, &m, &k, err, sizeof(err)), FF_OK, "%s", err);
        struct ff_kcheck kc;
        cr_assert_eq(ff_kcheck_init(&kc, m.prec, m.m, m.n, m.k, 5, err, sizeof(err)), FF_OK, "%s",
                     err);
        cr_assert_eq(ff_kcheck_upload(&kc, dev, err, sizeof(err)), FF_OK, "%s", err);
        const uint32_t p[3] = {m.m, m.n, m.k};
        cr_expect_eq(ff_kernel_run_sets(k, kc.bufs, 3, 1, p, 3, 2, &dns, &wns, err, sizeof(err)),
                     FF_ERR_UNSUPPORTED);
        cr_expect(strstr(err, "packed"), "%s", err);
        ff_kcheck_finish(&kc);
        ff_kernel_destroy(&k);
    }
}
