/*
 * tests/estimate/test_model.c — exact parameter counts (presets and real config.json files)
 * and config.json errors that name the file, the field and what was expected.
 * Reference totals: the models' own published/HF counts (transformers num_parameters()).
 */
#include <string.h>

#include "common.h"

#ifndef FF_TEST_DATA
#error "FF_TEST_DATA must point at tests/estimate/data"
#endif

static struct ff_model load(const char *file)
{
    char path[512], err[512] = "";
    snprintf(path, sizeof(path), "%s/%s", FF_TEST_DATA, file);
    struct ff_model m;
    int rc = ff_model_from_hf_config(path, &m, err, sizeof(err));
    cr_assert_eq(rc, FF_OK, "%s: %s", file, err);
    return m;
}

static int load_err(const char *file, char *err, size_t n)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", FF_TEST_DATA, file);
    struct ff_model m;
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
    char err[256];
    cr_expect_eq(ff_model_rough(1e12, &r, err, sizeof(err)), FF_OK);
    cr_expect_eq(params_of(&r).total, 1000000000000ULL);
    cr_expect_eq(ff_model_rough(-5, &r, err, sizeof(err)), FF_ERR_RANGE);
    cr_expect_eq(ff_model_rough(1e30, &r, err, sizeof(err)), FF_ERR_RANGE);
}
