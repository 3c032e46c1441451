/* tests/estimate/test_device.c — the catalog and measured profiles (results/SCHEMA.md). */
#include <glob.h>
#include <string.h>

#include "../common.h"

static int profile(const char *file, struct ff_spec *d, char *err, size_t n)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", FF_TEST_DATA, file);
    return ff_spec_from_profile(path, d, err, n);
}

Test(device, catalog_has_required_entries_with_sources)
{
    const char *need[] = {"h100-sxm", "h200",   "a100-80gb",   "a100-40gb", "l4",
                          "rtx-4090", "mi300x", "rx-7900-xtx", "arc-a770",  "max-1550"};
    for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
        struct ff_spec d = device(need[i]);
        cr_expect_gt(d.mem_bytes, 0.0, "%s memory", need[i]);
        cr_expect_gt(d.bandwidth_bytes_per_s, 0.0, "%s bandwidth", need[i]);
        cr_expect_gt(d.flops_per_s[FF_PREC_FP32], 0.0, "%s fp32", need[i]);
        cr_expect_gt(d.flops_per_s[FF_PREC_BF16], d.flops_per_s[FF_PREC_FP32],
                     "%s: matrix bf16 above fp32", need[i]);
        cr_expect_gt(d.flops_per_s[FF_PREC_INT8], 0.0, "%s int8", need[i]);
        cr_expect_gt(strlen(d.source), 20, "%s has a source", need[i]);
        cr_expect(!d.measured);
    }
}

Test(device, aliases_case_and_suggestions)
{
    struct ff_spec a = device("H100"), b = device("h100-sxm");
    cr_expect_str_eq(a.slug, b.slug);
    struct ff_spec x;
    ff_spec_init(&x);
    cr_expect_eq(ff_spec_find("h10", &x), FF_ERR_NOT_FOUND);
    char near[256];
    cr_expect_gt(ff_spec_suggest("h10", near, sizeof(near), 4), 0);
    cr_expect(strstr(near, "h100") != NULL, "%s", near);
    cr_expect_gt(ff_spec_suggest("a10", near, sizeof(near), 4), 0);
    cr_expect(strstr(near, "a100-80gb") != NULL, "%s", near);
    cr_expect_eq(ff_spec_rate(&b, FF_PREC_INT4), b.flops_per_s[FF_PREC_FP16]);
    struct ff_spec a100 = device("a100-80gb");
    cr_expect_eq(ff_spec_rate(&a100, FF_PREC_FP8), 0.0, "A100 has no fp8");
}

Test(device, profile_best_verified_figures)
{
    struct ff_spec d;
    ff_spec_init(&d);
    char err[512] = "";
    cr_assert_eq(profile("profile-full.json", &d, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect(d.measured);
    cr_expect_str_eq(d.slug, "profile-full");
    cr_expect_eq(d.flops_per_s[FF_PREC_FP32], 2.5e13, "best over impls");
    cr_expect_eq(d.flops_per_s[FF_PREC_FP16], 1.5e14, "unverified 9.9e15 ignored");
    cr_expect_eq(d.flops_per_s[FF_PREC_BF16], 1.5e14, "bf16 from fp16");
    cr_expect(strstr(d.notes, "bf16 rate taken from the measured fp16") != NULL, "%s", d.notes);
    cr_expect_eq(d.flops_per_s[FF_PREC_INT8], 0.0, "unsupported is not 0-as-a-figure");
    cr_expect(strstr(d.notes, "missing: int8") != NULL, "%s", d.notes);
    cr_expect_eq(d.mem_bytes, 23622320128.0, "usable memory test");
    cr_expect_eq(d.bandwidth_bytes_per_s, 8.0e11, "the read test, not copy or triad");

    /* The measured figures drive the estimate; measured bandwidth is used at 100%. */
    struct ff_model m = preset("llama-2-7b");
    struct ff_plan p;
    ff_plan_init(&p);
    p.task = FF_TASK_SERVE;
    p.precision = FF_PREC_FP16;
    struct ff_estimate e = run(&m, &d, &p);
    cr_expect_eq(e.rate_flops_per_s, 1.5e14);
    cr_expect_eq(e.bw_fraction, 1.0);
    cr_expect_eq(e.usable_bytes, 23622320128.0);
}

Test(device, profile_missing_figures_are_named)
{
    struct ff_spec d;
    ff_spec_init(&d);
    char err[512] = "";
    cr_assert_eq(profile("profile-cpu.json", &d, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect_eq(d.mem_bytes, 4294967296.0, "falls back to global_mem_bytes");
    cr_expect(strstr(d.notes, "global_mem_bytes") != NULL, "%s", d.notes);
    cr_expect(strstr(d.notes, "missing: bandwidth") != NULL, "%s", d.notes);
    /* fp16 unsupported for want of cl_khr_fp16: bf16 (the default) runs at the fp32 rate. */
    cr_expect(strstr(d.notes, "no 16-bit arithmetic on the device") != NULL, "%s", d.notes);
    struct ff_model m = preset("gpt2");
    struct ff_plan p;
    ff_plan_init(&p);
    struct ff_estimate e;
    ff_estimate_init(&e);
    cr_expect_eq(ff_est_run(&m, &d, &p, &e, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect_eq(e.rate_precision, FF_PREC_FP32);
    /* A device with fp16 arithmetic whose fp16 rate is not in the profile refuses, named. */
    d.no_fp16 = false;
    cr_expect_eq(ff_est_run(&m, &d, &p, &e, err, sizeof(err)), FF_ERR_UNSUPPORTED);
    cr_expect(strstr(err, "lacks a bf16 matrix rate") && strstr(err, "profile-cpu.json"), "%s",
              err);
    p.precision = FF_PREC_FP32;
    cr_expect_eq(ff_est_run(&m, &d, &p, &e, err, sizeof(err)), FF_OK, "%s", err);
    p.task = FF_TASK_SERVE;
    cr_expect_eq(ff_est_run(&m, &d, &p, &e, err, sizeof(err)), FF_ERR_UNSUPPORTED);
    cr_expect(strstr(err, "bandwidth"), "%s", err);
    cr_expect(!strstr(err, "--only all,ops"), "%s", err);
    /* A profile with op tests but without the rates (`flopfit bench --only ops` alone) says
     * how to measure both. */
    const struct ff_op gemv = {FF_OP_GEMV, FF_PREC_BF16, 1, 4096, 4096, 0, 1, "gemv"};
    d.ops[0] = (struct ff_spec_op){.kind = gemv.kind,
                                   .prec = gemv.prec,
                                   .m = gemv.m,
                                   .n = gemv.n,
                                   .k = gemv.k,
                                   .seconds = 1e-3,
                                   .bytes = ff_op_bytes(&gemv)};
    d.n_ops = 1;
    cr_expect_eq(ff_est_run(&m, &d, &p, &e, err, sizeof(err)), FF_ERR_UNSUPPORTED);
    cr_expect(strstr(err, "bandwidth") && strstr(err, "flopfit bench --only all,ops"), "%s", err);
}

Test(device, profile_version_and_schema_checked)
{
    struct ff_spec d;
    ff_spec_init(&d);
    char err[512] = "";
    cr_expect_eq(profile("profile-v2.json", &d, err, sizeof(err)), FF_ERR_UNSUPPORTED);
    cr_expect(strstr(err, "2.0") && strstr(err, "profile-v2.json"), "%s", err);
    cr_expect_eq(profile("profile-wrong-schema.json", &d, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "schema"), "%s", err);
    cr_expect_eq(profile("bad-truncated.json", &d, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect_eq(profile("nope.json", &d, err, sizeof(err)), FF_ERR_IO);
}

Test(device, profile_memory_probe_stopped_by_a_limit_is_a_lower_bound)
{
    /* bench --quick caps the usable-memory probe (512 MiB here): that much is proven, the
     * rest not. The plan uses the proven figure and keeps the driver's beside it. */
    struct ff_spec d;
    ff_spec_init(&d);
    char err[512] = "";
    cr_assert_eq(profile("profile-capped.json", &d, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect_float_eq(d.mem_bytes, 536870912.0, 1.0);
    cr_expect(d.mem_lower_bound);
    cr_expect_float_eq(d.mem_driver_bytes, 4294967296.0, 1.0);
    cr_expect(strstr(d.notes, "lower bound"), "%s", d.notes);
}

Test(device, profile_figures_must_be_finite_and_plausible)
{
    /* json-c reads Infinity: planning with it said "usable inf GiB, FITS, 0 ms". */
    struct ff_spec d;
    ff_spec_init(&d);
    char err[512] = "";
    cr_expect_eq(profile("profile-infinity.json", &d, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "profile-infinity.json") && strstr(err, "tests[0].value") &&
                  strstr(err, "finite"),
              "%s", err);
    cr_expect_eq(d.mem_bytes, 0.0, "*out untouched on failure");
    cr_expect_eq(profile("profile-absurd-bytes.json", &d, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "tests[0].value") && strstr(err, "2^60"), "%s", err);
}

Test(device, profile_memory_and_bandwidth_need_verified_ok)
{
    /* Unverified (or unmarked) memory and bandwidth figures are not measurements. */
    struct ff_spec d;
    ff_spec_init(&d);
    char err[512] = "";
    cr_assert_eq(profile("profile-unverified.json", &d, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect_eq(d.mem_bytes, 8589934592.0, "unverified usable ignored: driver figure");
    cr_expect(strstr(d.notes, "usable memory not measured"), "%s", d.notes);
    cr_expect_eq(d.bandwidth_bytes_per_s, 0.0, "unverified and failed bandwidth ignored");
    cr_expect(strstr(d.notes, "missing: bandwidth"), "%s", d.notes);
    cr_expect_eq(d.flops_per_s[FF_PREC_FP32], 1.0e13);
    cr_expect_str_eq(d.name, "Unverified GPU (vulkan)");
}

Test(device, profile_reader_refuses_non_regular_files_at_once, .timeout = 20)
{
    struct ff_spec d;
    ff_spec_init(&d);
    char err[512] = "";
    cr_expect_eq(ff_spec_from_profile("/dev/zero", &d, err, sizeof(err)), FF_ERR_IO);
    cr_expect(strstr(err, "/dev/zero") && strstr(err, "not a regular file"), "%s", err);
    cr_expect_eq(ff_spec_from_profile(FF_TEST_DATA, &d, err, sizeof(err)), FF_ERR_IO);
    cr_expect(strstr(err, "directory"), "%s", err);
    cr_expect_eq(ff_spec_from_profile(NULL, &d, err, sizeof(err)), FF_ERR_INVALID);
}

Test(device, published_profiles_still_read)
{
    /* the curated profiles, in results/<vendor>/<device>/ */
    glob_t g;
    cr_assert_eq(glob(FF_RESULTS_DIR "/*/*/*.json", 0, NULL, &g), 0, "no published profiles");
    cr_assert_geq(g.gl_pathc, 2);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *path = g.gl_pathv[i];
        char err[512] = "";
        struct ff_spec d;
        ff_spec_init(&d);
        cr_assert_eq(ff_spec_from_profile(path, &d, err, sizeof(err)), FF_OK, "%s", err);
        cr_expect_gt(d.mem_bytes, 1e9, "%s", path);
        cr_expect_gt(d.bandwidth_bytes_per_s, 1e8, "%s", path);
        cr_expect_gt(d.flops_per_s[FF_PREC_FP32], 1e9, "%s", path);
    }
    globfree(&g);
}

/* The later catalog devices: datasheet figures as stated in their source strings, a
 * dated price source where a price is given, and FP8 training planned at 1.3x BF16 (not 2x). */
Test(device, second_pass_catalog)
{
    static const struct {
        const char *slug;
        double mem_gib, bw, bf16_tf;
    } want[] = {
        {"h100-pcie", 80, 2.0e12, 756},
        {"h100-nvl", 94, 3.9e12, 835},
        {"b200", 180, 8.0e12, 2250},
        {"l40s", 48, 864e9, 362.05},
        {"a10g", 24, 600e9, 70},
        {"t4", 16, 320e9, 0},
        {"v100", 16, 900e9, 0},
        {"rtx-a6000", 48, 768e9, 154.8},
        {"rtx-6000-ada", 48, 960e9, 364.2},
        {"rtx-5090", 32, 1792e9, 209.5},
        {"rtx-3090", 24, 936e9, 35.6},
        {"mi250x", 128, 3.2768e12, 383},
        {"mi325x", 256, 6.0e12, 1307.4},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        struct ff_spec d = device(want[i].slug);
        cr_expect_eq(d.mem_bytes, want[i].mem_gib * GIB, "%s", want[i].slug);
        cr_expect_eq(d.bandwidth_bytes_per_s, want[i].bw, "%s", want[i].slug);
        cr_expect(fabs(d.flops_per_s[FF_PREC_BF16] - want[i].bf16_tf * 1e12) < 1e6, "%s",
                  want[i].slug);
        cr_expect(d.price_per_hour == 0 || (d.price_source && strstr(d.price_source, "20")),
                  "%s: a price names its source and year", want[i].slug);
        cr_expect(d.source[0], "%s", want[i].slug);
    }
    /* QLoRA on a device without bf16 computes in fp16. */
    struct ff_spec t4 = device("t4");
    cr_expect_eq(ff_spec_rate(&t4, FF_PREC_NF4), 65e12);
    /* FP8 training: 1.3x the BF16 default, not the 2x of the FP8 peak — on the compute; the
     * communication of the plan (tensor-parallel all-reduces of 16-bit activations) does not
     * get faster, so the whole run gains at most 1.3x (with the TP overlap FP8 plans get by
     * default left out: --tp-overlap 0). */
    struct ff_model m = preset("llama-2-7b");
    struct ff_spec h = device("h100");
    struct ff_plan p;
    ff_plan_init(&p);
    p.tokens = 1e11;
    p.tp_overlap = 0.0;
    struct ff_estimate bf = run(&m, &h, &p);
    p.precision = FF_PREC_FP8;
    struct ff_estimate f8 = run(&m, &h, &p);
    expect_within(bf.step.term[FF_TERM_COMPUTE].seconds / f8.step.term[FF_TERM_COMPUTE].seconds,
                  FF_DEFAULT_FP8_TRAIN_SPEEDUP, 1e-9, "FP8 speed-up of the compute");
    cr_expect(bf.seconds / f8.seconds > 1.0 &&
                  bf.seconds / f8.seconds <= FF_DEFAULT_FP8_TRAIN_SPEEDUP + 1e-12,
              "FP8 run speed-up %.3f", bf.seconds / f8.seconds);
}
