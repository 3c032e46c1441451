/*
 * tests/estimate/test_published.c — the published figures P1-P12 of ESTIMATOR.md.
 * Exact arithmetic is checked exactly; published runs within a band stated per test, with
 * the reason for its width.
 */
#include "../common.h"

/* P1: GPT-3 175B, 300B tokens: 3.14e23 FLOPs (Brown et al. 2020, Table D.1). 6ND with the
 * exact parameter count (174.6B) must land within rounding of the three printed digits;
 * the exact count (attention + LM head) is within a few % (Kaplan §2.1). */
Test(published, p1_gpt3_training_flops)
{
    struct ff_model m = preset("gpt-3-175b");
    struct ff_plan p;
    ff_plan_init(&p);
    p.seq = 2048;
    struct ff_flops f;
    cr_assert_eq(ff_est_flops(&m, &p, 300e9, &f), FF_OK);
    expect_within(f.six_nd, 3.14e23, 0.002, "P1 6ND");
    expect_within(f.model, 3.14e23, 0.04, "P1 exact count");
    cr_expect_gt(f.model, f.six_nd, "attention adds FLOPs");

    /* With full recompute, the count is Narayanan et al.'s per-iteration formula
     * 96·B·s·l·h²(1 + s/(6h) + V/(16·l·h)) per B·s tokens (biases/norms aside). */
    p.recompute = FF_RECOMPUTE_FULL;
    cr_assert_eq(ff_est_flops(&m, &p, 1.0, &f), FF_OK);
    double l = 96, h = 12288, s = 2048, V = 50257;
    double narayanan = 96.0 * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h));
    expect_within(f.hardware, narayanan, 0.001, "P1 Narayanan formula per token");
}

/* P2: GPT-3, 300B tokens, 1024 A100 at 140 TFLOP/s each: ≈34 days (Narayanan §5.1, with
 * the 8TP/(nX) approximation). Band 3%: the paper rounds and uses 175e9 for P. */
Test(published, p2_gpt3_days_on_1024_a100)
{
    struct ff_model m = preset("gpt-3-175b");
    struct ff_spec d = device("a100-80gb");
    struct ff_plan p;
    ff_plan_init(&p);
    p.seq = 2048;
    p.tokens = 300e9;
    p.gpus = 1024;
    p.recompute = FF_RECOMPUTE_FULL;
    p.achieved_flops_per_s = 140e12;
    struct ff_estimate e = run(&m, &d, &p);
    expect_within(e.seconds / 86400.0, 34.0, 0.03, "P2 days");
}

/* P3: 384/768/1536 A100 at 153/149/141 TFLOP/s: 84/43/23 days (S). Band 3%: the days are
 * rounded to integers (23 days is ±2%). */
Test(published, p3_gpt3_days_scaling)
{
    struct ff_model m = preset("gpt-3-175b");
    struct ff_spec d = device("a100-80gb");
    const double gpus[] = {384, 768, 1536}, tflops[] = {153, 149, 141}, days[] = {84, 43, 23};
    for (int i = 0; i < 3; i++) {
        struct ff_plan p;
        ff_plan_init(&p);
        p.seq = 2048;
        p.tokens = 300e9;
        p.gpus = (int64_t)gpus[i];
        p.recompute = FF_RECOMPUTE_FULL;
        p.achieved_flops_per_s = tflops[i] * 1e12;
        struct ff_estimate e = run(&m, &d, &p);
        expect_within(e.seconds / 86400.0, days[i], 0.03, "P3 days");
    }
}

/* P4: Llama 2 7B/13B/70B, 2T tokens on A100-80GB: 184,320 / 368,640 / 1,720,320 GPU-hours
 * (model card). The card gives no MFU or layout; with the exact count the hours imply 42-46%.
 * With communication the layout matters, so the plan is the published part: the 4M-token
 * global batch (1024 sequences of 4096, Touvron et al. 2023 §2.2) on 2048 A100 (the paper's
 * "up to 2000 GPUs"), with the layout our --plan best search finds. Its implied MFU is ~50%,
 * so we under-estimate the hours by 10-17% (the compute efficiency 0.55 is set by Megatron's
 * table, tests/estimate/test_comm.c). Band ±20%, as before communication was modelled. */
Test(published, p4_llama2_gpu_hours)
{
    const char *names[] = {"llama-2-7b", "llama-2-13b", "llama-2-70b"};
    const double hours[] = {184320, 368640, 1720320};
    struct ff_spec d = device("a100-80gb");
    for (int i = 0; i < 3; i++) {
        struct ff_model m = preset(names[i]);
        struct ff_plan p;
        ff_plan_init(&p);
        p.tokens = 2e12;
        p.gpus = 2048;
        p.global_batch = 1024;
        struct ff_plan_choice best[1];
        ff_plan_choice_init(best, 1);
        size_t n = 0;
        char err[256] = "";
        cr_assert_eq(ff_est_best_plans(&m, &d, &p, best, 1, &n, err, sizeof(err)), FF_OK, "%s",
                     err);
        cr_assert_eq(n, 1, "%s: a plan fits on 2048 A100", names[i]);
        struct ff_estimate e = run(&m, &d, &best[0].plan);
        cr_expect_eq(best[0].plan.seq, 0, "sequence: the model context, 4096");
        expect_within(e.gpu_hours, hours[i], 0.20, names[i]);
        /* The implied MFU with our exact count is plausible (38-50%). */
        double implied = e.flops_model / (hours[i] * 3600.0 * 312e12);
        cr_expect(implied > 0.38 && implied < 0.50, "%s implied MFU %.3f", names[i], implied);
    }
}

/* P5: Llama 3 8B / 70B, 15T tokens on H100-80GB: 1.3M / 6.4M GPU-hours (model card). These
 * imply only ~19% / ~32% MFU with the exact count — the card's hours cover more than one
 * clean run — so our default-MFU figure is a lower bound: between 40% and 100% of it. */
Test(published, p5_llama3_gpu_hours)
{
    const char *names[] = {"llama-3-8b", "llama-3-70b"};
    const double hours[] = {1.3e6, 6.4e6};
    struct ff_spec d = device("h100");
    for (int i = 0; i < 2; i++) {
        struct ff_model m = preset(names[i]);
        struct ff_plan p;
        ff_plan_init(&p);
        p.seq = 8192;
        p.tokens = 15e12;
        p.gpus = 1024;
        p.zero = 3;
        struct ff_estimate e = run(&m, &d, &p);
        double ratio = e.gpu_hours / hours[i];
        cr_expect(ratio >= 0.40 && ratio <= 1.0, "%s: %.4g GPU-hours vs %.4g published", names[i],
                  e.gpu_hours, hours[i]);
        double implied = e.flops_model / (hours[i] * 3600.0 * 989.4e12);
        cr_expect(implied > 0.15 && implied < 0.45, "%s implied MFU %.3f", names[i], implied);
    }
}

/* P6: Llama 3.1 405B, 15.6T tokens: 3.8e25 FLOPs; 380-430 TFLOP/s per H100 = 38-43% MFU
 * (Dubey et al. 2024, Table 4). Two printed digits: band 1%. */
Test(published, p6_llama31_405b)
{
    struct ff_model m = preset("llama-3.1-405b");
    struct ff_param_count pc = params_of(&m);
    cr_expect_eq(pc.total, 405853388800ULL, "405B params: %llu", (unsigned long long)pc.total);
    struct ff_plan p;
    ff_plan_init(&p);
    p.seq = 8192;
    struct ff_flops f;
    cr_assert_eq(ff_est_flops(&m, &p, 15.6e12, &f), FF_OK);
    expect_within(f.six_nd, 3.8e25, 0.01, "P6 FLOPs");
    struct ff_spec d = device("h100-sxm");
    double lo = 380e12 / d.flops_per_s[FF_PREC_BF16], hi = 430e12 / d.flops_per_s[FF_PREC_BF16];
    expect_within(lo, 0.38, 0.02, "P6 380 TFLOP/s as MFU");
    expect_within(hi, 0.43, 0.02, "P6 430 TFLOP/s as MFU");
    cr_expect(FF_DEFAULT_MFU_TRAIN >= lo && FF_DEFAULT_MFU_TRAIN <= hi,
              "the default MFU sits inside Llama 3.1's published band");
}

/* P7: Llama-2-70B fp16 weights 138.0 GB; KV cache for 8 × 4096 tokens 10.0 GiB (GQA, 8 KV
 * heads), 80 GiB if it were MHA. Exact arithmetic: exact. */
Test(published, p7_llama2_70b_weights_and_kv)
{
    struct ff_model m = preset("llama-2-70b");
    struct ff_param_count pc = params_of(&m);
    cr_expect_eq(pc.total, 68976648192ULL);
    struct ff_plan p;
    ff_plan_init(&p);
    p.task = FF_TASK_SERVE;
    p.precision = FF_PREC_FP16;
    p.batch = 8;
    p.prompt = 4000;
    p.generate = 96;
    p.tp = 8;
    struct ff_memory mem;
    cr_assert_eq(ff_est_memory(&m, &p, 8, 8, &mem), FF_OK);
    cr_expect_eq(mem.weights * 8.0, 137953296384.0, "weights %.0f", mem.weights * 8.0);
    cr_expect_eq(mem.kv_cache * 8.0, 10.0 * GIB, "KV %.6g GiB", mem.kv_cache * 8.0 / GIB);
    cr_expect_eq(ff_model_kv_bytes(&m, 4096, 8, 2.0), 10.0 * GIB);
    struct ff_model mha = m;
    mha.kv_heads = mha.heads;
    cr_expect_eq(ff_model_kv_bytes(&mha, 4096, 8, 2.0), 80.0 * GIB);
}

/* P8: Llama-2-7B bf16, micro-batch 2, DP8 PP2 TP1: measured peak 69.1 GB (Megatron-LM PR
 * #482, secondary). Unstated there, assumed here: sequence 4096, flash attention, Megatron's
 * distributed optimizer (= ZeRO-1, fp32 gradients), global batch 2048 (accum 128).
 * Band ±15%: allocator behaviour and the unstated settings. */
Test(published, p8_llama2_7b_megatron_peak)
{
    struct ff_model m = preset("llama-2-7b");
    struct ff_plan p;
    ff_plan_init(&p);
    p.batch = 2;
    p.seq = 4096;
    p.pp = 2;
    p.gpus = 16;
    p.zero = 1;
    p.accum = 128;
    struct ff_memory mem;
    cr_assert_eq(ff_est_memory(&m, &p, 16, 2, &mem), FF_OK);
    expect_within(mem.total, 69.1e9, 0.15, "P8 peak memory");
}

/* P9: t5-3b (2851M params, largest layer 32.9M = its 32128×1024 embedding), 8 GPUs:
 * DeepSpeed's estimator prints ZeRO-2 15.93 GB (4N + 16N/G) and ZeRO-3 6.10 GB
 * (18N/G + 4·largest), both in GiB. The formulas reproduce the printed digits. Our figure
 * departs from that estimator where DeepSpeed's own code does: ZeRO-2 reduces
 * gradients through one 16-bit bucket of reduce_bucket_size = 5e8 elements instead of
 * holding a whole 16-bit gradient copy (-2N + 2·5e8 bytes), and ZeRO-3 adds to the
 * estimator's 4·largest the prefetch bucket (2·5e7) and the flat reduce bucket (2·5e8),
 * all at DeepSpeed's defaults (zero/config.py). Hand-computed: 11.552 and 7.121 GiB. */
Test(published, p9_deepspeed_zero_estimates)
{
    struct ff_memory z2, z3;
    double N = 2851e6, largest = 32128.0 * 1024.0;
    double ds2 = (4.0 * N + 16.0 * N / 8.0) / GIB, ds3 = (18.0 * N / 8.0 + 4.0 * largest) / GIB;
    cr_expect(fabs(ds2 - 15.93) < 0.005, "DeepSpeed ZeRO-2 estimator %.4f GiB", ds2);
    cr_expect(fabs(ds3 - 6.10) < 0.005, "DeepSpeed ZeRO-3 estimator %.4f GiB", ds3);
    ff_est_model_state(N, largest, 2, 8, 2.0, 4.0, 12.0, &z2);
    ff_est_model_state(N, largest, 3, 8, 2.0, 4.0, 12.0, &z3);
    double t2 = (z2.weights + z2.gradients + z2.optimizer) / GIB;
    double t3 = (z3.weights + z3.gradients + z3.optimizer) / GIB;
    expect_within(t2, ds2 - (2.0 * N - 2.0 * 5e8) / GIB, 1e-12, "ZeRO-2 bucketed");
    expect_within(t3, ds3 + (2.0 * 5e7 + 2.0 * 5e8) / GIB, 1e-12, "ZeRO-3 with buffers");
    cr_expect(fabs(t2 - 11.552) < 0.001, "ZeRO-2 %.4f GiB", t2);
    cr_expect(fabs(t3 - 7.121) < 0.001, "ZeRO-3 %.4f GiB", t3);
    /* With 16-bit gradients the ZeRO paper's 2Ψ + (2+K)Ψ/N_d holds, plus the bucket. */
    ff_est_model_state(N, largest, 2, 8, 2.0, 2.0, 12.0, &z2);
    cr_expect_eq(z2.weights + z2.gradients + z2.optimizer, 2.0 * N + 14.0 * N / 8.0 + 2.0 * 5e8);
}

static struct ff_model kipply_13b(void)
{
    /* "13B GPT" of kipply's post: L40 h5120 a40, GPT-style (FFN 4h, GPT-2 vocabulary). */
    struct ff_model m = preset("gpt-3-175b");
    m.layers = 40;
    m.hidden = 5120;
    m.heads = m.kv_heads = 40;
    m.head_dim = 128;
    m.ffn = 4 * 5120;
    return m;
}

/* P10: 13B on A100-40GB fp16, batch 1, 512-token context: prefill 63.17 ms, decode
 * 22.0 ms/token; TP2 45.45 / 13.5 ms (kipply, measured, secondary). Band ±15% on one GPU
 * (the defaults, MFU 60% and 70% bandwidth, sit near what these imply); ±30% for the TP2
 * prefill, which loses matmul efficiency we do not model. */
Test(published, p10_kipply_13b_latency)
{
    struct ff_model m = kipply_13b();
    struct ff_spec d = device("a100-40gb");
    struct ff_plan p;
    ff_plan_init(&p);
    p.task = FF_TASK_SERVE;
    p.precision = FF_PREC_FP16;
    p.prompt = 512;
    p.generate = 1;
    struct ff_estimate e = run(&m, &d, &p);
    expect_within(e.prefill_seconds, 63.17e-3, 0.15, "P10 prefill");
    expect_within(e.decode_seconds_per_token, 22.0e-3, 0.15, "P10 decode");
    p.tp = 2;
    p.gpus = 2;
    p.batch = 2; /* two replicas would be "more GPUs than needed" at batch 1 */
    p.gpus = 2;
    p.batch = 1;
    e = run(&m, &d, &p);
    expect_within(e.prefill_seconds, 45.45e-3, 0.30, "P10 TP2 prefill");
    expect_within(e.decode_seconds_per_token, 13.5e-3, 0.15, "P10 TP2 decode");
}

/* P11: Llama-2-7B fp16 on A100, batch 384, 128 in / 128 out: 5,586 output tokens/s
 * (TensorRT-LLM performance.md v0.6.1). Band ±15%. */
Test(published, p11_trtllm_throughput)
{
    struct ff_model m = preset("llama-2-7b");
    struct ff_spec d = device("a100-80gb");
    struct ff_plan p;
    ff_plan_init(&p);
    p.task = FF_TASK_SERVE;
    p.precision = FF_PREC_FP16;
    p.batch = 384;
    p.prompt = 128;
    p.generate = 128;
    struct ff_estimate e = run(&m, &d, &p);
    cr_expect(e.fits, "batch 384 fits on 80 GB");
    expect_within(e.batch_tokens_per_second, 5586.0, 0.15, "P11 tokens/s");
}

/* P12: 530B on 2240 A100: MFU 54.2% with SP + selective recompute vs 42.1% with full
 * recompute (Korthikanti et al. 2022). Same hardware utilisation, so our default MFU for
 * full recompute scales by model/hardware FLOPs: ratio 0.777 published; band 5%. */
Test(published, p12_recompute_costs_mfu)
{
    struct ff_model m = preset("gpt-3-175b"); /* MT-NLG 530B: L105 h20480 a128 */
    m.layers = 105;
    m.hidden = 20480;
    m.heads = m.kv_heads = 128;
    m.head_dim = 160;
    m.ffn = 4 * 20480;
    struct ff_spec d = device("a100-80gb");
    struct ff_plan p;
    ff_plan_init(&p);
    p.seq = 2048;
    p.tokens = 1e9;
    p.gpus = 2240;
    p.tp = 8;
    p.pp = 35;
    p.recompute = FF_RECOMPUTE_SELECTIVE;
    struct ff_estimate sel = run(&m, &d, &p);
    p.recompute = FF_RECOMPUTE_FULL;
    struct ff_estimate full = run(&m, &d, &p);
    expect_within(full.mfu / sel.mfu, 42.1 / 54.2, 0.05, "P12 MFU ratio");
    cr_expect(full.hfu / full.mfu > 1.30 && full.hfu / full.mfu < 1.36,
              "full recompute: HFU/MFU %.3f ≈ 8/6", full.hfu / full.mfu);
    cr_expect_gt(full.seconds, sel.seconds * 1.25, "full recompute is slower");
}
