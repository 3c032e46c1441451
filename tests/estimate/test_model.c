/*
 * tests/estimate/test_model.c — exact parameter counts (presets and real config.json files)
 * and config.json errors that name the file, the field and what was expected.
 * Reference totals: the models' own published/HF counts (transformers num_parameters()).
 */
#include <string.h>

#include "../common.h"

#ifndef FF_TEST_DATA
#error "FF_TEST_DATA must point at tests/estimate/data"
#endif

static struct ff_model load(const char *file)
{
    char path[512], err[512] = "";
    snprintf(path, sizeof(path), "%s/%s", FF_TEST_DATA, file);
    struct ff_model m;
    ff_model_init(&m);
    int rc = ff_model_from_hf_config(path, &m, err, sizeof(err));
    cr_assert_eq(rc, FF_OK, "%s: %s", file, err);
    return m;
}

static int load_err(const char *file, char *err, size_t n)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", FF_TEST_DATA, file);
    struct ff_model m;
    ff_model_init(&m);
    return ff_model_from_hf_config(path, &m, err, n);
}

Test(model, presets_exact_counts)
{
    static const struct {
        const char *name;
        unsigned long long total, active;
    } want[] = {
        {"gpt2", 124439808ULL, 124439808ULL},
        {"gpt-3-175b", 174604259328ULL, 174604259328ULL},
        {"opt-13b", 12853473280ULL, 12853473280ULL},
        {"llama-2-7b", 6738415616ULL, 6738415616ULL},
        {"llama-2-13b", 13015864320ULL, 13015864320ULL},
        {"llama-2-70b", 68976648192ULL, 68976648192ULL},
        {"llama-3-8b", 8030261248ULL, 8030261248ULL},
        {"llama-3-70b", 70553706496ULL, 70553706496ULL},
        {"llama-3.1-405b", 405853388800ULL, 405853388800ULL},
        {"mistral-7b", 7241732096ULL, 7241732096ULL},
        {"mixtral-8x7b", 46702792704ULL, 12879925248ULL},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        struct ff_model m = preset(want[i].name);
        struct ff_param_count pc = params_of(&m);
        cr_expect_eq(pc.total, want[i].total, "%s total %llu", want[i].name,
                     (unsigned long long)pc.total);
        cr_expect_eq(pc.active, want[i].active, "%s active %llu", want[i].name,
                     (unsigned long long)pc.active);
    }
    /* GPT-2 family sizes as published: 355M, 774M, 1.5B. */
    struct ff_model m = preset("gpt2-medium");
    expect_within(params_of(&m).total, 355e6, 0.005, "gpt2-medium");
    m = preset("gpt2-large");
    expect_within(params_of(&m).total, 774e6, 0.001, "gpt2-large");
    m = preset("gpt2-xl");
    expect_within(params_of(&m).total, 1.558e9, 0.001, "gpt2-xl");
}

Test(model, presets_case_insensitive_and_aliases)
{
    struct ff_model a, b;
    ff_model_init(&a);
    ff_model_init(&b);
    cr_expect_eq(ff_model_preset_find("LLaMA-2-7B", &a), FF_OK);
    cr_expect_eq(ff_model_preset_find("llama2-7b", &b), FF_OK);
    cr_expect_str_eq(a.name, b.name);
    cr_expect_eq(ff_model_preset_find("gpt2-xl", &a), FF_OK);
    cr_expect_eq(ff_model_preset_find("llama-9-7b", &a), FF_ERR_NOT_FOUND);
    char near[256];
    cr_expect_gt(ff_model_suggest("llama-2-7", near, sizeof(near), 4), 0);
    cr_expect(strstr(near, "llama-2-7b") != NULL, "suggestions: %s", near);
    cr_expect_gt(ff_model_suggest("mistral", near, sizeof(near), 4), 0);
    cr_expect(strstr(near, "mistral-7b") != NULL, "suggestions: %s", near);
}

#define HF_SUPPORTED                                                                               \
    "llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, gemma, gemma2, gemma3, "         \
    "gemma3_text, phi3, olmo2, cohere, gpt_oss, smollm3, gpt2, gptj, opt, gpt_neox, falcon (and "  \
    "RefinedWeb, RefinedWebModel), bloom, mpt, starcoder2, deepseek_v2, deepseek_v3, jamba, "      \
    "mamba, falcon_mamba"

/* The list an unknown model_type is answered with is the family table, word for word, and
 * every model_type it names has a reader (a bare config fails on a field, or reads with
 * gemma3_text's defaults, but is never unsupported). */
Test(model, hf_unsupported_type_lists_every_family)
{
    char err[1024];
    struct ff_model m;
    ff_model_init(&m);
    cr_expect_eq(ff_model_from_hf_json("{\"model_type\": \"t5\"}", "t5.json", &m, err, sizeof(err)),
                 FF_ERR_UNSUPPORTED);
    cr_expect_str_eq(err,
                     "t5.json: model_type \"t5\" is not supported (supported: " HF_SUPPORTED ")");
    /* The names of the list: its words less "(and", commas and parentheses. */
    char names[] = HF_SUPPORTED;
    for (char *t = strtok(names, " ,()"); t; t = strtok(NULL, " ,()")) {
        if (!strcmp(t, "and"))
            continue;
        char json[128];
        snprintf(json, sizeof(json), "{\"model_type\": \"%s\"}", t);
        int rc = ff_model_from_hf_json(json, "bare.json", &m, err, sizeof(err));
        cr_expect(rc != FF_ERR_UNSUPPORTED, "%s: %s", t, err);
    }
}

Test(model, hf_configs_exact_counts)
{
    static const struct {
        const char *file;
        unsigned long long total, active;
    } want[] = {
        {"llama-2-7b.json", 6738415616ULL, 6738415616ULL},
        {"mixtral-8x7b.json", 46702792704ULL, 12879925248ULL},
        {"mistral-7b.json", 7241732096ULL, 7241732096ULL},
        {"gpt2.json", 124439808ULL, 124439808ULL},
        {"opt-13b.json", 12853473280ULL, 12853473280ULL},
        {"gpt-neox-20b.json", 20554567680ULL, 20554567680ULL},
        {"falcon-7b.json", 6921720704ULL, 6921720704ULL},
        {"bloom-560m.json", 559214592ULL, 559214592ULL},
        {"mpt-7b.json", 6649286656ULL, 6649286656ULL},
        {"qwen2-7b.json", 7615616512ULL, 7615616512ULL},
        {"gemma-2b.json", 2506172416ULL, 2506172416ULL},
        {"deepseek-v2-lite.json", 15706484224ULL, 0},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        struct ff_model m = load(want[i].file);
        struct ff_param_count pc = params_of(&m);
        cr_expect_eq(pc.total, want[i].total, "%s: total %llu", want[i].file,
                     (unsigned long long)pc.total);
        if (want[i].active)
            cr_expect_eq(pc.active, want[i].active, "%s: active %llu", want[i].file,
                         (unsigned long long)pc.active);
    }
    /* DeepSeek-V2-Lite: 15.7B total, 2.4B activated (model card), which DeepSeek counts
     * without the input embedding table (a lookup); ours includes it. Printed to 2 digits. */
    struct ff_model ds = load("deepseek-v2-lite.json");
    struct ff_param_count dpc = params_of(&ds);
    expect_within(dpc.active - dpc.embedding, 2.4e9, 0.03, "DeepSeek-V2-Lite active");
    cr_expect_eq(ff_model_kv_elems_per_token(&ds), 27.0 * (512 + 64), "MLA latent cache");
}

Test(model, hf_config_details)
{
    struct ff_model m = load("mistral-7b.json");
    cr_expect_eq(m.sliding_window, 4096);
    /* A 32k context on a 4096 window keeps 4096 tokens of KV per layer. */
    cr_expect_eq(ff_model_kv_bytes(&m, 32768, 1, 2.0), ff_model_kv_bytes(&m, 4096, 1, 2.0));
    struct ff_model q = load("qwen2-7b.json");
    cr_expect_eq(q.sliding_window, 0, "use_sliding_window false disables the window");
    cr_expect_eq(q.kv_heads, 4);
    struct ff_model g = load("gemma-2b.json");
    cr_expect(g.tied_embeddings, "Gemma ties by default");
    cr_expect_eq(g.head_dim, 256, "head_dim from the config, not hidden/heads");
    struct ff_model f = load("falcon-7b.json");
    cr_expect_eq(f.kv_heads, 1, "multi_query");
    struct ff_model x = load("mixtral-8x7b.json");
    cr_expect_eq(x.experts, 8);
    cr_expect_eq(x.experts_active, 2);
    struct ff_model l = load("llama-2-7b.json");
    cr_expect(!l.tied_embeddings);
}

Test(model, hf_config_errors_name_file_field_expected)
{
    char err[512];
    cr_expect_eq(load_err("bad-heads-string.json", err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "bad-heads-string.json") && strstr(err, "num_attention_heads") &&
                  strstr(err, "expected an integer"),
              "%s", err);
    cr_expect_eq(load_err("bad-missing-ffn.json", err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "intermediate_size") && strstr(err, "missing"), "%s", err);
    cr_expect_eq(load_err("bad-truncated.json", err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "bad-truncated.json") && strstr(err, "not valid JSON"), "%s", err);
    cr_expect_eq(load_err("bad-unsupported.json", err, sizeof(err)), FF_ERR_UNSUPPORTED);
    cr_expect(strstr(err, "\"t5\"") && strstr(err, "supported:"), "%s", err);
    cr_expect_eq(load_err("bad-negative.json", err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "hidden_size") && strstr(err, "-4096"), "%s", err);
    cr_expect_eq(load_err("bad-kv-heads.json", err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "key/value heads"), "%s", err);
    cr_expect_eq(load_err("huge-overflow.json", err, sizeof(err)), FF_ERR_RANGE);
    cr_expect(strstr(err, "overflow"), "%s", err);
    cr_expect_eq(load_err("no-such-file.json", err, sizeof(err)), FF_ERR_IO);
    cr_expect(strstr(err, "no-such-file.json"), "%s", err);
    struct ff_model m;
    ff_model_init(&m);
    cr_expect_eq(ff_model_from_hf_json("[1, 2]", "inline", &m, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect_eq(ff_model_from_hf_json("{\"hidden_size\": 1}", "inline", &m, err, sizeof(err)),
                 FF_ERR_INVALID);
    cr_expect(strstr(err, "model_type"), "%s", err);
}

/* 1T parameters and a 1M-token context stay finite and exact where they should. */
Test(model, trillion_params_and_million_tokens)
{
    struct ff_model m = load("dense-1t.json");
    struct ff_param_count pc = params_of(&m);
    cr_expect_gt(pc.total, 1000000000000ULL);
    struct ff_spec d = device("h200");
    struct ff_plan p;
    ff_plan_init(&p);
    p.seq = 1048576;
    p.tokens = 1e15;
    p.zero = 3;
    p.recompute = FF_RECOMPUTE_FULL;
    struct ff_estimate e = run(&m, &d, &p);
    cr_expect(isfinite(e.mem.total) && e.mem.total > 0);
    cr_expect(isfinite(e.flops_model) && e.flops_model > 6.0 * 1e12 * 1e15);
    cr_expect(isfinite(e.seconds) && e.seconds > 0);
    cr_expect_eq(e.flops_6nd, 6.0 * (double)pc.total * 1e15);
    /* Serving a 1M-token context. */
    ff_plan_init(&p);
    p.task = FF_TASK_SERVE;
    p.prompt = 1048576 - 1024;
    p.generate = 1024;
    e = run(&m, &d, &p);
    cr_expect(isfinite(e.mem.kv_cache));
    double tp_share = (double)(e.tp < m.kv_heads ? e.tp : m.kv_heads);
    cr_expect_eq(e.mem.kv_cache, ff_model_kv_bytes(&m, 1048576, 1, 2.0) / tp_share / (double)e.pp,
                 "KV sharded over tp and pp");
    struct ff_model r;
    ff_model_init(&r);
    char err[256];
    cr_expect_eq(ff_model_rough(1e12, &r, err, sizeof(err)), FF_OK);
    cr_expect_eq(params_of(&r).total, 1000000000000ULL);
    cr_expect_eq(ff_model_rough(-5, &r, err, sizeof(err)), FF_ERR_RANGE);
    cr_expect_eq(ff_model_rough(1e30, &r, err, sizeof(err)), FF_ERR_RANGE);
}

/*
 * The newer families, each from its published config.json on the Hugging Face
 * hub (tests/estimate/data/<file>, copied from the repository named below). Totals are the
 * tensors transformers builds for that config (num_parameters(), which is what the
 * checkpoint stores), cross-checked against the figure the model card publishes.
 */
Test(model, second_pass_families_exact_counts)
{
    static const struct {
        const char *file, *repo;
        unsigned long long total;
        double card, band; /* the model card's figure and its rounding */
    } want[] = {
        {"falcon-40b-refinedweb.json", "tiiuae/falcon-40b (legacy RefinedWeb config)",
         41303293952ULL, 40e9, 0.04},
        {"qwen3-8b.json", "Qwen/Qwen3-8B", 8190735360ULL, 8.2e9, 0.01},
        {"qwen1.5-moe-a2.7b.json", "Qwen/Qwen1.5-MoE-A2.7B", 14315784192ULL, 14.3e9, 0.004},
        {"qwen3-30b-a3b.json", "Qwen/Qwen3-30B-A3B", 30532122624ULL, 30.5e9, 0.002},
        {"gemma-3-1b.json", "google/gemma-3-1b-pt", 999885952ULL, 1e9, 0.001},
        {"gemma-3-4b-it.json", "google/gemma-3-4b-it (text + SigLIP vision tower)", 4300079472ULL,
         4.3e9, 0.001},
        {"phi-3-mini-4k.json", "microsoft/Phi-3-mini-4k-instruct", 3821079552ULL, 3.8e9, 0.006},
        /* The card's 6,053,381,344 is Mesh-Transformer-JAX's count; the HF tensors are
         * 6,050,882,784 (0.04% fewer). */
        {"gpt-j-6b.json", "EleutherAI/gpt-j-6b", 6050882784ULL, 6053381344.0, 0.0005},
        {"starcoder2-7b.json", "bigcode/starcoder2-7b", 7173923840ULL, 7.17e9, 0.001},
        {"command-r-v01.json", "CohereForAI/c4ai-command-r-v01", 34980831232ULL, 35e9, 0.001},
        {"olmo-2-1124-7b.json", "allenai/OLMo-2-1124-7B", 7298617344ULL, 7.3e9, 0.001},
        {"gpt-oss-20b.json", "openai/gpt-oss-20b", 20914757184ULL, 20.91e9, 0.001},
        {"jamba-v0.1.json", "ai21labs/Jamba-v0.1", 51570323328ULL, 51.6e9, 0.001},
        {"falcon-mamba-7b.json", "tiiuae/falcon-mamba-7b", 7272665088ULL, 7.27e9, 0.001},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        struct ff_model m = load(want[i].file);
        struct ff_param_count pc = params_of(&m);
        cr_expect_eq(pc.total, want[i].total, "%s (%s): total %llu", want[i].file, want[i].repo,
                     (unsigned long long)pc.total);
        expect_within(pc.total, want[i].card, want[i].band, want[i].repo);
    }
    /* Active parameters as the cards state them: Qwen1.5-MoE 2.7B, Qwen3-30B-A3B 3.3B, Jamba
     * 12B, gpt-oss-20b 3.61B (OpenAI counts the unembedding, not the embedding lookup). */
    struct ff_model m = load("qwen1.5-moe-a2.7b.json");
    expect_within(params_of(&m).active, 2.7e9, 0.01, "Qwen1.5-MoE-A2.7B active");
    m = load("qwen3-30b-a3b.json");
    expect_within(params_of(&m).active, 3.3e9, 0.02, "Qwen3-30B-A3B active");
    m = load("jamba-v0.1.json");
    expect_within(params_of(&m).active, 12e9, 0.01, "Jamba active");
    m = load("gpt-oss-20b.json");
    struct ff_param_count pc = params_of(&m);
    expect_within(pc.active - pc.embedding, 3.61e9, 0.001, "gpt-oss-20b active");
}

/* KV per token follows the attention of each family. */
Test(model, second_pass_kv_per_token)
{
    /* Falcon-40B's legacy config: 8 KV heads (n_head_kv), not multi-query's 1. */
    struct ff_model f = load("falcon-40b-refinedweb.json");
    cr_expect_eq(f.kv_heads, 8, "RefinedWeb: n_head_kv");
    cr_expect_eq(f.norms_per_layer, 2, "ln_attn + ln_mlp");
    cr_expect_eq(ff_model_kv_elems_per_token(&f), 2.0 * 60 * 8 * 64);
    /* Qwen3: QK-norm weights, 2 x head_dim per layer; no effect on the cache. */
    struct ff_model q = load("qwen3-8b.json");
    cr_expect_eq(q.qk_norm, FF_QK_NORM_HEAD_DIM);
    struct ff_model q0 = q;
    q0.qk_norm = FF_QK_NORM_NONE;
    cr_expect_eq(params_of(&q).total - params_of(&q0).total, 36ULL * 2 * 128);
    cr_expect_eq(ff_model_kv_elems_per_token(&q), 2.0 * 36 * 8 * 128);
    /* Gemma 3 1B: 5 local layers (window 512) to 1 global; 26 layers -> 22 local, 4 global. */
    struct ff_model g = load("gemma-3-1b.json");
    cr_expect_eq(g.sliding_window, 512);
    cr_expect_eq(g.sliding_layers, 22);
    cr_expect_eq(ff_model_kv_bytes(&g, 32768, 1, 2.0), 2.0 * 256 * 2.0 * (4 * 32768.0 + 22 * 512));
    /* Gemma 3 4B: the vision tower is stored (memory) but not active for text. */
    struct ff_model g4 = load("gemma-3-4b-it.json");
    struct ff_param_count pc = params_of(&g4);
    cr_expect_eq(pc.total - pc.active, 419816304ULL, "SigLIP 416,866,032 + projector 2,950,272");
    cr_expect_eq(g4.head_dim, 256, "Gemma3TextConfig default");
    cr_expect_eq(g4.sliding_layers, 34 - 5);
    /* gpt-oss: alternating 128-token windows, attention sinks (parameters, no KV). */
    struct ff_model o = load("gpt-oss-20b.json");
    cr_expect(o.attn_sinks);
    cr_expect_eq(o.sliding_layers, 12);
    cr_expect_eq(o.sliding_window, 128);
    cr_expect_eq(ff_model_kv_bytes(&o, 8192, 1, 1.0), 2.0 * 8 * 64 * (12 * 8192.0 + 12 * 128));
    cr_expect_eq(ff_model_context(&o), 131072, "yarn: 32 x 4096");
    cr_expect_str_eq(o.stored_format, "mxfp4");
    /* Jamba: 4 attention layers carry KV; 28 Mamba layers carry a fixed state. */
    struct ff_model j = load("jamba-v0.1.json");
    cr_expect_eq(ff_model_attn_layers(&j), 4);
    cr_expect_eq(ff_model_kv_elems_per_token(&j), 2.0 * 4 * 8 * 128);
    cr_expect_eq(ff_model_ssm_state_elems(&j), 28.0 * 8192 * (16 + 4));
    cr_expect_eq(ff_model_kv_bytes(&j, 1e6, 1, 2.0), 1e6 * 2.0 * 4 * 8 * 128 * 2.0);
    /* Falcon-Mamba: no attention at all. */
    struct ff_model fm = load("falcon-mamba-7b.json");
    cr_expect_eq(ff_model_kv_elems_per_token(&fm), 0.0);
    cr_expect_eq(ff_model_kv_bytes(&fm, 1e6, 4, 2.0), 0.0);
    cr_expect_eq(ff_model_ssm_state_elems(&fm), 64.0 * 8192 * (16 + 4));
    /* Phi-3-mini and StarCoder2: one window on every layer. */
    struct ff_model p = load("phi-3-mini-4k.json");
    cr_expect_eq(p.sliding_window, 2047);
    cr_expect_eq(p.sliding_layers, 0);
    struct ff_model s = load("starcoder2-7b.json");
    cr_expect_eq(s.sliding_window, 4096);
    cr_expect_eq(s.kv_heads, 4);
    /* OLMo 2: QK-norm over the whole projections. */
    struct ff_model ol = load("olmo-2-1124-7b.json");
    cr_expect_eq(ol.qk_norm, FF_QK_NORM_ALL);
}

/* What the reader cannot count exactly is an error naming the field. */
Test(model, second_pass_fields_not_understood_are_errors)
{
    static const struct {
        const char *json, *field;
    } bad[] = {
        {"{\"model_type\": \"starcoder2\", \"norm_type\": \"rms_norm\", \"hidden_size\": 64, "
         "\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"intermediate_size\": 128, "
         "\"vocab_size\": 10}",
         "norm_type"},
        {"{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": 2, "
         "\"num_attention_heads\": 4, \"intermediate_size\": 128, \"vocab_size\": 10, "
         "\"quantization_config\": {\"quant_method\": \"hqq\"}}",
         "quantization_config.quant_method"},
        {"{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": 2, "
         "\"num_attention_heads\": 4, \"intermediate_size\": 128, \"vocab_size\": 10, "
         "\"rope_scaling\": {\"rope_type\": \"warp\", \"factor\": 2}}",
         "rope_scaling.rope_type"},
        {"{\"model_type\": \"gpt_oss\", \"hidden_size\": 64, \"num_hidden_layers\": 2, "
         "\"num_attention_heads\": 4, \"intermediate_size\": 128, \"vocab_size\": 10, "
         "\"num_local_experts\": 4, \"num_experts_per_tok\": 2, \"sliding_window\": 8, "
         "\"layer_types\": [\"sliding_attention\", \"linear_attention\"]}",
         "layer_types[1]"},
        {"{\"model_type\": \"qwen3_moe\", \"hidden_size\": 64, \"num_hidden_layers\": 2, "
         "\"num_attention_heads\": 4, \"intermediate_size\": 128, \"vocab_size\": 10, "
         "\"num_experts\": 4, \"num_experts_per_tok\": 2, \"moe_intermediate_size\": 32, "
         "\"mlp_only_layers\": [7]}",
         "mlp_only_layers"},
        {"{\"model_type\": \"gemma3\", \"text_config\": {}, \"vision_config\": "
         "{\"model_type\": \"clip_vision_model\"}}",
         "vision_config.model_type"},
        {"{\"model_type\": \"jamba\", \"hidden_size\": 64, \"num_hidden_layers\": 2, "
         "\"num_attention_heads\": 4, \"intermediate_size\": 128, \"attn_layer_offset\": 9}",
         "attn_layer_offset"},
    };
    char err[512];
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        struct ff_model m;
        ff_model_init(&m);
        int rc = ff_model_from_hf_json(bad[k].json, "inline.json", &m, err, sizeof(err));
        cr_expect_eq(rc, FF_ERR_INVALID, "%s: rc %d (%s)", bad[k].field, rc, err);
        cr_expect(strstr(err, "inline.json") && strstr(err, bad[k].field), "%s: %s", bad[k].field,
                  err);
    }
    /* A dense layer listed in mlp_only_layers is counted as dense. */
    struct ff_model m;
    ff_model_init(&m);
    cr_assert_eq(
        ff_model_from_hf_json("{\"model_type\": \"qwen3_moe\", \"hidden_size\": 64, "
                              "\"num_hidden_layers\": 4, \"num_attention_heads\": 4, "
                              "\"intermediate_size\": 128, \"vocab_size\": 10, \"num_experts\": 4, "
                              "\"num_experts_per_tok\": 2, \"moe_intermediate_size\": 32, "
                              "\"mlp_only_layers\": [0], \"decoder_sparse_step\": 1}",
                              "inline.json", &m, err, sizeof(err)),
        FF_OK, "%s", err);
    cr_expect_eq(m.moe_layers, 3);
    cr_expect_eq(m.dense_layers, 1);
}

/* A Hugging Face model folder: config.json plus the stored size from the safetensors index
 * (metadata.total_size). Qwen3-8B is all bf16, so its index states exactly 2 bytes per
 * counted parameter; gpt-oss-20b's (openai/gpt-oss-20b) is its MXFP4 experts (4.25 bits)
 * with everything else in bf16: 13,761,264,768 bytes. */
Test(model, hf_folder_reads_the_stored_size)
{
    char err[512] = "";
    struct ff_model m;
    ff_model_init(&m);
    cr_assert_eq(ff_model_from_hf_dir(FF_TEST_DATA "/qwen3-8b-folder", &m, err, sizeof(err)), FF_OK,
                 "%s", err);
    cr_expect_str_eq(m.name, "qwen3-8b-folder");
    cr_expect_eq(m.stored_bytes, 2.0 * (double)params_of(&m).total);
    cr_expect_str_eq(m.stored_format, "bf16");
    cr_assert_eq(ff_model_from_hf_dir(FF_TEST_DATA "/gpt-oss-20b-folder/", &m, err, sizeof(err)),
                 FF_OK, "%s", err);
    cr_expect_eq(m.stored_bytes, 13761264768.0);
    /* Served as stored: the weights are the checkpoint's bytes. */
    struct ff_plan p;
    ff_plan_init(&p);
    p.task = FF_TASK_SERVE;
    p.precision = FF_PREC_MXFP4;
    p.weights_as_stored = true;
    struct ff_spec d = device("h100");
    struct ff_estimate e = run(&m, &d, &p);
    cr_expect_eq(e.mem.weights, 13761264768.0);
    /* A folder without config.json names the path. */
    cr_expect_eq(ff_model_from_hf_dir(FF_TEST_DATA "/no-such-folder", &m, err, sizeof(err)),
                 FF_ERR_IO);
    cr_expect(strstr(err, "no-such-folder/config.json"), "%s", err);
}

/* SmolLM3: llama with NoPE layers (no_rope_layers, 1 = RoPE) and a tied head. HF
 * HuggingFaceTB/SmolLM3-3B: 3.08B parameters. By hand: embedding 128256 x 2048 = 262,668,288;
 * per block q,o 2048^2 each + k,v 2048 x 512 each = 10,485,760, SwiGLU 3 x 2048 x 11008 =
 * 67,633,152, two norms 4,096: 78,123,008 x 36 = 2,812,428,288; final norm 2,048: total
 * 3,075,098,624. */
Test(model, smollm3_nope_layers_read)
{
    struct ff_model m = load("smollm3-3b.json");
    cr_expect(m.tied_embeddings);
    cr_expect_eq(m.sliding_layers, 0, "use_sliding_window false: no window");
    struct ff_param_count pc = params_of(&m);
    cr_expect_eq(pc.total, 3075098624ULL, "total %llu", (unsigned long long)pc.total);
    expect_within(pc.total, 3.08e9, 0.005, "HuggingFaceTB/SmolLM3-3B");
    cr_expect_eq(ff_model_kv_elems_per_token(&m), 2.0 * 36 * 4 * 128, "NoPE changes no cache");
}

/* Active parameters with and without the input embedding, against the cards of both
 * conventions: Mistral (Mixtral 8x7B: 12.9B active of 46.7B) and Qwen (Qwen3-30B-A3B: 3.3B)
 * count it; DeepSeek (V2-Lite: 2.4B; V3: 37B of 671B) and OpenAI (gpt-oss-20b: 3.61B) do not. */
Test(model, moe_active_with_and_without_the_embedding)
{
    struct ff_model m = load("mixtral-8x7b.json");
    struct ff_param_count pc = params_of(&m);
    expect_within(pc.active, 12.9e9, 0.005, "Mixtral active (embedding counted)");
    m = load("qwen3-30b-a3b.json");
    pc = params_of(&m);
    expect_within(pc.active, 3.3e9, 0.02, "Qwen3-30B-A3B active (embedding counted)");
    m = load("deepseek-v2-lite.json");
    pc = params_of(&m);
    expect_within(pc.active - pc.embedding, 2.4e9, 0.025, "DeepSeek-V2-Lite active");
    m = preset("deepseek-v3");
    pc = params_of(&m);
    expect_within(pc.active - pc.embedding, 37e9, 0.015, "DeepSeek-V3 active");
    /* The estimate reports it. */
    struct ff_spec d = device("h100-sxm");
    struct ff_plan p;
    ff_plan_init(&p);
    p.task = FF_TASK_SERVE;
    p.gpus = 8;
    p.tp = 8;
    struct ff_estimate e = run(&m, &d, &p);
    cr_expect_eq(e.active_non_embedding, pc.active - pc.embedding);
}
