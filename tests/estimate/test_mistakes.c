/*
 * tests/estimate/test_mistakes.c — one test per mistake the well-known calculators make
 * (ESTIMATOR.md, "Known mistakes in the peers"), so that we do not repeat them.
 */
#include <string.h>

#include "../common.h"

/* EleutherAI's cookbook prints 40 GiB for P7: it drops K/V's factor 2 or ignores GQA. */
Test(mistakes, kv_cache_keeps_factor_two_and_gqa)
{
    struct ff_model m = preset("llama-2-70b");
    double kv = ff_model_kv_bytes(&m, 4096, 8, 2.0);
    cr_expect_eq(kv, 10.0 * GIB);
    cr_expect_neq(kv, 40.0 * GIB);
    cr_expect_eq(ff_model_kv_elems_per_token(&m), 2.0 * 80 * 8 * 128);
    /* MQA: one KV head. */
    struct ff_model mqa = m;
    mqa.kv_heads = 1;
    cr_expect_eq(ff_model_kv_bytes(&mqa, 4096, 8, 2.0), 10.0 * GIB / 8.0);
}

/* Tying the LM head where the model does not: Llama-2-7B is 6.74B, not 6.61B. */
Test(mistakes, untied_head_counted)
{
    struct ff_model m = preset("llama-2-7b");
    struct ff_param_count pc = params_of(&m);
    cr_expect_eq(pc.total, 6738415616ULL);
    cr_expect_eq(pc.head, 32000ULL * 4096ULL);
    struct ff_model tied = m;
    tied.tied_embeddings = true;
    cr_expect_eq(params_of(&tied).total, 6738415616ULL - 32000ULL * 4096ULL);
    /* GPT-2 does tie: 124,439,808. */
    struct ff_model g = preset("gpt2");
    cr_expect_eq(params_of(&g).total, 124439808ULL);
}

/* Adding a ZeRO-3 all-gather time to every data-parallel run doubles GPT-3's 34 days to 74:
 * the time must not depend on the ZeRO stage (communication overlaps; MFU covers it). */
Test(mistakes, no_zero3_allgather_time_for_other_stages)
{
    struct ff_model m = preset("gpt-3-175b");
    struct ff_spec d = device("a100-80gb");
    double days[4];
    for (int z = 0; z <= 3; z++) {
        struct ff_plan p;
        ff_plan_init(&p);
        p.seq = 2048;
        p.tokens = 300e9;
        p.gpus = 1024;
        p.zero = z;
        p.recompute = FF_RECOMPUTE_FULL;
        p.achieved_flops_per_s = 140e12;
        struct ff_estimate e = run(&m, &d, &p);
        days[z] = e.seconds / 86400.0;
    }
    for (int z = 0; z <= 3; z++) {
        cr_expect_eq(days[z], days[0], "ZeRO-%d %.2f days", z, days[z]);
        cr_expect_lt(days[z], 40.0, "not 74 days");
    }
}

/* MLA caches a latent of kv_lora_rank + rope dims per layer, not 2·heads·head_dim
 * (treating it like MHA overestimates DeepSeek's KV ~57×). */
Test(mistakes, mla_is_not_mha)
{
    struct ff_model m = preset("deepseek-v3");
    cr_expect_eq(ff_model_kv_elems_per_token(&m), 61.0 * (512 + 64));
    double mha_like = 2.0 * 61 * 128 * 128; /* the peers' count with v_head_dim */
    cr_expect_gt(mha_like / ff_model_kv_elems_per_token(&m), 50.0);
    cr_expect_lt(mha_like / ff_model_kv_elems_per_token(&m), 60.0);
    struct ff_param_count pc = params_of(&m);
    expect_within(pc.total, 671e9, 0.005, "DeepSeek-V3 total");
    expect_within(pc.active, 37e9, 0.03, "DeepSeek-V3 active");
}

/* MoE: memory from total parameters, FLOPs from active ones. */
Test(mistakes, moe_memory_uses_total_params)
{
    struct ff_model m = preset("mixtral-8x7b");
    struct ff_param_count pc = params_of(&m);
    cr_expect_eq(pc.total, 46702792704ULL);
    cr_expect_eq(pc.active, 12879925248ULL);
    struct ff_plan p;
    ff_plan_init(&p);
    p.task = FF_TASK_SERVE;
    struct ff_memory mem;
    cr_assert_eq(ff_est_memory(&m, &p, 1, 1, &mem), FF_OK);
    cr_expect_eq(mem.weights, 2.0 * (double)pc.total);
    struct ff_flops f;
    ff_plan_init(&p);
    cr_assert_eq(ff_est_flops(&m, &p, 1e9, &f), FF_OK);
    cr_expect_eq(f.six_nd, 6.0 * (double)pc.active * 1e9);
}

/* Quantised KV caches are not ignored: fp8 halves, int4 quarters (plus constants). */
Test(mistakes, quantised_kv_cache)
{
    struct ff_model m = preset("llama-3-8b");
    struct ff_plan p;
    ff_plan_init(&p);
    p.task = FF_TASK_SERVE;
    p.batch = 16;
    p.prompt = 8000;
    p.generate = 192;
    struct ff_memory bf16, fp8;
    cr_assert_eq(ff_est_memory(&m, &p, 1, 16, &bf16), FF_OK);
    p.kv_precision = FF_PREC_FP8;
    p.kv_precision_set = true;
    cr_assert_eq(ff_est_memory(&m, &p, 1, 16, &fp8), FF_OK);
    cr_expect_eq(fp8.kv_cache * 2.0, bf16.kv_cache);
    cr_expect_eq(bf16.kv_cache, ff_model_kv_bytes(&m, 8192, 16, 2.0));
}

/* Not fitting is a verdict, not a warning: fits == false, the shortfall, what would make it
 * fit with the resulting totals, and (CLI) exit status 1 — see test_cli.c. */
Test(mistakes, not_fitting_is_a_verdict)
{
    struct ff_model m = preset("llama-2-70b");
    struct ff_spec d = device("h100");
    struct ff_plan p;
    ff_plan_init(&p);
    p.gpus = 1;
    struct ff_estimate e = run(&m, &d, &p);
    cr_expect(!e.fits);
    cr_expect_lt(e.margin_bytes, 0.0);
    cr_expect_eq(e.max_batch, 0);
    cr_expect_gt(e.n_suggestions, 0);
    bool some_fit = false;
    for (size_t i = 0; i < e.n_suggestions; i++) {
        cr_expect_gt(e.suggestions[i].total_bytes, 0.0);
        some_fit |= e.suggestions[i].fits;
    }
    cr_expect(some_fit, "at least one change makes it fit (more GPUs, QLoRA)");
    cr_expect_gt(e.min_gpus, 1);
}

/* bf16 training runs on the matrix engines: the rate is the dense bf16 tensor figure,
 * never the non-tensor fp32 one (67 vs 989 TFLOP/s on H100). */
Test(mistakes, bf16_training_uses_tensor_rate)
{
    struct ff_model m = preset("llama-2-7b");
    struct ff_spec d = device("h100-sxm");
    struct ff_plan p;
    ff_plan_init(&p);
    p.tokens = 1e12;
    p.gpus = 8;
    p.zero = 1;
    struct ff_estimate e = run(&m, &d, &p);
    cr_expect_eq(e.rate_flops_per_s, 989.4e12);
    cr_expect_eq(e.compute_precision, FF_PREC_BF16);
    p.precision = FF_PREC_FP32;
    struct ff_estimate f = run(&m, &d, &p);
    cr_expect_eq(f.rate_flops_per_s, 67e12);
    cr_expect_gt(f.seconds, 10.0 * e.seconds);
}
