/*
 * tests/estimate/test_rates.c — how a profile and a weight format become rates: a measured
 * matmul is not discounted as a peak, weight-only formats take their kernels' arithmetic,
 * decode reads at the read bandwidth with a per-format streaming fraction, the LM head
 * follows GGUF's layout, and a CPU profile's memory is a lower bound with no GPU overheads.
 * Expected values are computed by hand in the comments (flopfit/estimate.h has the sources).
 */
#include <math.h>
#include <string.h>

#include "../common.h"

static struct ff_spec quick_cpu(void)
{
    struct ff_spec d;
    ff_spec_init(&d);
    char err[512] = "";
    cr_assert_eq(ff_spec_from_profile(FF_TEST_DATA "/profile-cpu-quick.json", &d, err, sizeof(err)),
                 FF_OK, "%s", err);
    return d;
}

/* A plan of `gpus` GPUs (0: the fewest) in precision `prec`, serving when `serve`. */
static struct ff_plan plan_of(bool serve, enum ff_precision prec, int64_t gpus)
{
    struct ff_plan p;
    ff_plan_init(&p);
    p.task = serve ? FF_TASK_SERVE : FF_TASK_TRAIN;
    p.precision = prec;
    p.gpus = gpus;
    return p;
}

Test(rates, profile_names_the_figures_it_takes)
{
    struct ff_spec d = quick_cpu();
    cr_expect(d.host_shared, "type cpu, host_shared_memory");
    cr_expect(d.no_fp16);
    cr_expect(d.mem_lower_bound);
    cr_expect_eq(d.mem_bytes, 4509715660.0, "the capped probe's figure, not the driver's");
    cr_expect_eq(d.mem_driver_bytes, 17179869184.0);
    cr_expect_eq(d.bandwidth_bytes_per_s, 1.6e10, "read, not the copy test's 3.2e10");
    cr_expect_str_eq(d.bandwidth_test, "bandwidth read flopfit");
    cr_expect_str_eq(d.rate_test[FF_PREC_FP32], "matmul fp32 flopfit 2048x2048x2048");
    /* op weight_stream q8_0: 1.2e10 / 1.6e10 read = 0.75. */
    cr_expect_float_eq(d.weight_stream_fraction[FF_PREC_Q8_0], 0.75, 1e-12);
    cr_expect_eq(d.weight_stream_fraction[FF_PREC_Q4_0], 0.0);
}

Test(rates, weight_only_formats_take_their_kernels_arithmetic)
{
    struct ff_spec d = quick_cpu();
    enum ff_precision a;
    /* GGUF: int8 dot products (llama.cpp) where the device has an int8 rate. */
    cr_expect_eq(ff_spec_rate_arith(&d, FF_PREC_Q4_0, &a), 5.0e10);
    cr_expect_eq(a, FF_PREC_INT8);
    cr_expect_eq(ff_spec_rate_arith(&d, FF_PREC_Q8_0, &a), 5.0e10);
    /* GPTQ-style int4 and NF4 without 16-bit arithmetic: fp32, never a refusal. */
    cr_expect_eq(ff_spec_rate_arith(&d, FF_PREC_INT4, &a), 1.0e11);
    cr_expect_eq(a, FF_PREC_FP32);
    cr_expect_eq(ff_spec_rate_arith(&d, FF_PREC_NF4, &a), 1.0e11);
    cr_expect_eq(a, FF_PREC_FP32);
    /* A GPU: int4 on the fp16 tensor cores, q4_0 on int8 (CUDA MMQ). */
    struct ff_spec h = device("h100-sxm");
    cr_expect_eq(ff_spec_rate_arith(&h, FF_PREC_INT4, &a), h.flops_per_s[FF_PREC_FP16]);
    cr_expect_eq(a, FF_PREC_FP16);
    cr_expect_eq(ff_spec_rate_arith(&h, FF_PREC_Q4_0, &a), h.flops_per_s[FF_PREC_INT8]);
    cr_expect_eq(a, FF_PREC_INT8);

    /* The estimate runs and names the arithmetic and the measured test. */
    struct ff_model m = preset("llama-2-7b");
    struct ff_plan p = plan_of(true, FF_PREC_Q4_0, 0);
    struct ff_estimate e = run(&m, &d, &p);
    cr_expect_eq(e.rate_precision, FF_PREC_INT8);
    cr_expect_str_eq(e.rate_test, "matmul int8 flopfit 1024x1024x1024");
    cr_expect_str_eq(e.bandwidth_test, "bandwidth read flopfit");
}

Test(rates, sixteen_bit_formats_take_fp32_where_the_device_has_no_16_bit_arithmetic)
{
    /* PoCL without cl_khr_fp16: bf16 and fp16 are stored in 16 bits and multiply in fp32. */
    struct ff_spec d = quick_cpu();
    enum ff_precision a;
    cr_expect_eq(ff_spec_rate_arith(&d, FF_PREC_BF16, &a), 1.0e11);
    cr_expect_eq(a, FF_PREC_FP32);
    cr_expect_eq(ff_spec_rate_arith(&d, FF_PREC_FP16, &a), 1.0e11);
    cr_expect_eq(a, FF_PREC_FP32);
    cr_expect(strstr(d.notes, "no 16-bit arithmetic on the device"), "%s", d.notes);
    struct ff_model m = preset("gpt2");
    struct ff_plan p = plan_of(true, FF_PREC_BF16, 1);
    struct ff_estimate e = run(&m, &d, &p);
    cr_expect_eq(e.rate_precision, FF_PREC_FP32);
    cr_expect_eq(e.compute_precision, FF_PREC_BF16);
    cr_expect_str_eq(e.rate_test, "matmul fp32 flopfit 2048x2048x2048");
    cr_expect_float_eq(e.mem.weights, 2.0 * (double)e.params.total, 1e-9, "16-bit storage");

    /* A device with fp16 arithmetic but no verified fp16 rate is not given fp32's: it
     * refuses until measured. */
    d.no_fp16 = false;
    cr_expect_eq(ff_spec_rate_arith(&d, FF_PREC_BF16, &a), 0.0);
    cr_expect_eq(ff_spec_rate_arith(&d, FF_PREC_FP16, &a), 0.0);
    /* Nor is a device whose 16-bit rate was measured. */
    struct ff_spec h = device("h100-sxm");
    cr_expect_eq(ff_spec_rate_arith(&h, FF_PREC_BF16, &a), h.flops_per_s[FF_PREC_BF16]);
    cr_expect_eq(a, FF_PREC_BF16);
}

Test(rates, measured_matmul_is_not_discounted_as_a_peak)
{
    struct ff_spec d = quick_cpu();
    struct ff_spec sheet = d; /* the same figures read as a datasheet */
    sheet.measured = false;
    struct ff_model m = preset("gpt2");
    struct ff_plan p;
    ff_plan_init(&p);
    p.precision = FF_PREC_FP32;
    p.seq = 1024;
    p.gpus = 1;
    struct ff_estimate e = run(&m, &d, &p), s = run(&m, &sheet, &p);
    cr_expect_eq(e.step.compute_efficiency, FF_DEFAULT_MEASURED_EFFICIENCY);
    cr_expect_eq(e.compute_efficiency, 1.0);
    cr_expect(e.rate_measured && !s.rate_measured);
    /* compute = hardware FLOPs of a 1024-token micro-batch / (1e11 x 1.0) on the profile,
     * / (1e11 x 0.55) on the datasheet: the datasheet term is 1/0.55 = 1.818x longer. */
    struct ff_flops f;
    cr_assert_eq(ff_est_flops(&m, &p, 1024.0, &f), FF_OK);
    cr_expect_float_eq(e.step.term[FF_TERM_COMPUTE].seconds, f.hardware / 1e11, 1e-9);
    cr_expect_float_eq(s.step.term[FF_TERM_COMPUTE].seconds / e.step.term[FF_TERM_COMPUTE].seconds,
                       1.0 / 0.55, 1e-9);
    /* An explicit --compute-efficiency still wins. */
    p.compute_efficiency = 0.5;
    e = run(&m, &d, &p);
    cr_expect_float_eq(e.step.term[FF_TERM_COMPUTE].seconds, f.hardware / 0.5e11, 1e-9);
    /* Serving: the prefill MFU default is 1.0 of the measured matmul, 0.60 of a datasheet. */
    p.compute_efficiency = 0.0;
    p.task = FF_TASK_SERVE;
    e = run(&m, &d, &p);
    s = run(&m, &sheet, &p);
    cr_expect_eq(e.mfu, 1.0);
    cr_expect_eq(s.mfu, FF_DEFAULT_MFU_SERVE);
}

Test(rates, host_shared_device_has_no_gpu_overheads_and_copies_are_hypothetical)
{
    struct ff_spec d = quick_cpu();
    struct ff_model m = preset("gpt2");
    struct ff_plan p = plan_of(false, FF_PREC_FP32, 2);
    struct ff_estimate e = run(&m, &d, &p);
    cr_expect_eq(e.mem.overhead_runtime, 0.0, "no CUDA context on a CPU");
    cr_expect_eq(e.mem.overhead_nccl, 0.0, "no NCCL buffers on a CPU");
    cr_expect(e.host_shared);
    cr_expect(e.hypothetical, "2 copies of a CPU device cannot be pooled");
    p.gpus = 1;
    e = run(&m, &d, &p);
    cr_expect(!e.hypothetical);
    p.overhead_bytes = 1073741824.0; /* --overhead-gib 1 */
    e = run(&m, &d, &p);
    cr_expect_eq(e.mem.overhead_runtime, 1073741824.0);
    /* A GPU keeps both. */
    struct ff_spec h = device("h100-sxm");
    p = plan_of(false, FF_PREC_BF16, 2);
    e = run(&m, &h, &p);
    cr_expect_eq(e.mem.overhead_runtime, FF_DEFAULT_OVERHEAD_BYTES);
    cr_expect_eq(e.mem.overhead_nccl, FF_DEFAULT_NCCL_BYTES);
    cr_expect(!e.hypothetical && !e.host_shared);
}

Test(rates, capped_probe_stays_a_lower_bound_in_the_verdict)
{
    struct ff_spec d = quick_cpu();
    struct ff_model m = preset("llama-2-7b");
    struct ff_plan p = plan_of(true, FF_PREC_Q4_0, 1); /* ~3.8 GB: fits in at least 4.2 GiB */
    struct ff_estimate e = run(&m, &d, &p);
    cr_expect(e.fits && e.usable_lower_bound && !e.fit_unknown);
    cr_expect_eq(e.usable_bytes, 4509715660.0);
    p.precision = FF_PREC_Q8_0; /* ~7.2 GB: over the probe's 4.2 GiB, under the driver's 16 */
    e = run(&m, &d, &p);
    cr_expect(!e.fits && e.fit_unknown);
    cr_expect_eq(e.usable_driver_bytes, 17179869184.0);
    p.precision = FF_PREC_FP32; /* ~27 GB: over both */
    e = run(&m, &d, &p);
    cr_expect(!e.fits && !e.fit_unknown);
}

Test(rates, gguf_head_bytes_follow_llama_cpp_layout)
{
    cr_expect_eq(ff_precision_head_bytes(FF_PREC_Q4_0), 210.0 / 256.0, "Q6_K output.weight");
    cr_expect_eq(ff_precision_head_bytes(FF_PREC_Q4_K_M), 210.0 / 256.0);
    cr_expect_eq(ff_precision_head_bytes(FF_PREC_Q8_0), 34.0 / 32.0);
    cr_expect_eq(ff_precision_embed_bytes(FF_PREC_Q4_0), 18.0 / 32.0);
    cr_expect_eq(ff_precision_embed_bytes(FF_PREC_Q4_K_M), 144.0 / 256.0);
    cr_expect_eq(ff_precision_head_bytes(FF_PREC_INT4), 2.0, "GPTQ keeps lm_head 16-bit");
    cr_expect_eq(ff_precision_head_bytes(FF_PREC_FP32), 4.0);
}

/* A device with compute so fast that a decode step is its memory time alone. */
static struct ff_spec bandwidth_only(void)
{
    struct ff_spec d;
    ff_spec_init(&d);
    snprintf(d.slug, sizeof(d.slug), "bw-only");
    d.mem_bytes = 1e12;
    d.bandwidth_bytes_per_s = 1e12;
    d.flops_per_s[FF_PREC_FP32] = d.flops_per_s[FF_PREC_FP16] = d.flops_per_s[FF_PREC_BF16] = 1e18;
    d.flops_per_s[FF_PREC_INT8] = 1e18;
    return d;
}

Test(rates, quantized_decode_streams_at_its_format_fraction)
{
    struct ff_spec d = bandwidth_only();
    struct ff_model m = preset("llama-2-7b");
    struct ff_plan p = plan_of(true, FF_PREC_Q4_0, 1); /* prompt 512, generate 256 */
    struct ff_estimate e = run(&m, &d, &p);
    /* Llama-2-7B: 6,738,415,616 parameters, embedding and head 32000 x 4096 = 131,072,000
     * each. Decode reads the blocks (6,476,271,616 at 18/32 B) and the head (at Q6_K's
     * 210/256 B): 3,642,902,784 + 107,520,000 = 3,750,422,784 B, at 1e12 x 0.70 (datasheet
     * fraction) x 0.70 (Q4_0 over 16-bit) = 4.9e11 B/s: 7.65392 ms. The KV cache at the mean
     * context 512 + 128 = 640: 2 x 32 layers x 32 heads x 128 x 640 x 2 B = 335,544,320 B at
     * 0.8e12: 0.41943 ms. Plus 0.3 ms per step: 8.37335 ms. */
    cr_expect_float_eq(e.weight_bw_fraction, FF_QUANT_GGUF4_BW_REL, 1e-12);
    cr_expect_float_eq(e.decode_seconds_per_token,
                       3750422784.0 / 4.9e11 + 335544320.0 / 0.8e12 + 3e-4, 1e-6);
    /* int4 (GPTQ): 4.156-bit blocks, 16-bit head, at 0.70 x 0.80: compute at 0.80. */
    p.precision = FF_PREC_INT4;
    e = run(&m, &d, &p);
    double w = 6476271616.0 * (0.5 + 20.0 / 8.0 / 128.0) + 131072000.0 * 2.0;
    cr_expect_float_eq(e.decode_seconds_per_token, w / 5.6e11 + 335544320.0 / 0.8e12 + 3e-4, 1e-6);
    cr_expect_float_eq(e.weight_compute_fraction, FF_QUANT_W4_COMPUTE_REL, 1e-12);
    /* bf16: no format factor. */
    p.precision = FF_PREC_BF16;
    e = run(&m, &d, &p);
    cr_expect_eq(e.weight_bw_fraction, 1.0);
    cr_expect_float_eq(
        e.decode_seconds_per_token,
        6738415616.0 * 2.0 / 7e11 - 131072000.0 * 2.0 / 7e11 + 335544320.0 / 0.8e12 + 3e-4, 1e-6);
}

Test(rates, measured_weight_stream_replaces_the_default)
{
    struct ff_spec d = quick_cpu();
    struct ff_model m = preset("gpt2");
    struct ff_plan p = plan_of(true, FF_PREC_Q8_0, 1);
    struct ff_estimate e = run(&m, &d, &p);
    cr_expect(e.weight_stream_measured);
    cr_expect_float_eq(e.weight_bw_fraction, 0.75, 1e-12);
    p.precision = FF_PREC_Q4_0;
    e = run(&m, &d, &p);
    cr_expect(!e.weight_stream_measured);
    cr_expect_float_eq(e.weight_bw_fraction, FF_QUANT_GGUF4_BW_REL, 1e-12);
}
