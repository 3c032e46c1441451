/*
 * estimate/src/model_presets.c — built-in models, each with the source of its numbers.
 * Slugs are lower case; lookup is case-insensitive.
 */
#include <string.h>

#include "flopfit/model.h"
#include "flopfit/status.h"
#include "internal.h"

/* GPT-2 family (Radford et al. 2019; HF gpt2 config.json): learned positions, LayerNorm with
 * bias, biases everywhere, GELU FFN 4h, tied head, dropout 0.1. */
#define GPT2(slug_, L, H, A, src)                                                                  \
    {                                                                                              \
        slug_, "", &(const struct ff_model)                                                        \
        {                                                                                          \
            .struct_size = sizeof(struct ff_model), .name = slug_, .source = src, .layers = L,     \
            .hidden = H, .heads = A, .kv_heads = A, .head_dim = (H) / (A), .ffn = 4 * (H),         \
            .vocab = 50257, .max_positions = 1024, .learned_positions = 1024,                      \
            .tied_embeddings = true, .attn_bias = true, .mlp_bias = true,                          \
            .norm = FF_NORM_LAYERNORM, .norms_per_layer = 2, .final_norm = true, .dropout = true   \
        }                                                                                          \
    }

/* Llama-style: RMSNorm, SwiGLU, RoPE, no biases, untied head, no dropout. */
#define LLAMA(slug_, alias, L, H, A, KV, F, V, CTX, src)                                           \
    {                                                                                              \
        slug_, alias, &(const struct ff_model)                                                     \
        {                                                                                          \
            .struct_size = sizeof(struct ff_model), .name = slug_, .source = src, .layers = L,     \
            .hidden = H, .heads = A, .kv_heads = KV, .head_dim = (H) / (A), .ffn = F, .vocab = V,  \
            .max_positions = CTX, .gated_ffn = true, .norm = FF_NORM_RMSNORM,                      \
            .norms_per_layer = 2, .final_norm = true                                               \
        }                                                                                          \
    }

static const struct ff_model_preset presets[] = {
    GPT2("gpt2", 12, 768, 12, "HF openai-community/gpt2 config.json (124M)"),
    GPT2("gpt2-medium", 24, 1024, 16, "HF openai-community/gpt2-medium config.json (355M)"),
    GPT2("gpt2-large", 36, 1280, 20, "HF openai-community/gpt2-large config.json (774M)"),
    GPT2("gpt2-xl", 48, 1600, 25, "HF openai-community/gpt2-xl config.json (1.5B)"),
    {"gpt-3-175b", "gpt3 gpt-3 gpt3-175b davinci",
     &(const struct ff_model){
         .struct_size = sizeof(struct ff_model),
         .name = "gpt-3-175b",
         .source = "Brown et al. 2020, Table 2.1 (L96, d_model 12288, 96 heads, n_ctx 2048); "
                   "GPT-2 tokenizer V50257",
         .layers = 96,
         .hidden = 12288,
         .heads = 96,
         .kv_heads = 96,
         .head_dim = 128,
         .ffn = 4 * 12288,
         .vocab = 50257,
         .max_positions = 2048,
         .learned_positions = 2048,
         .tied_embeddings = true,
         .attn_bias = true,
         .mlp_bias = true,
         .norm = FF_NORM_LAYERNORM,
         .norms_per_layer = 2,
         .final_norm = true,
         .dropout = true}},
    {"opt-13b", "",
     &(const struct ff_model){.struct_size = sizeof(struct ff_model),
                              .name = "opt-13b",
                              .source = "HF facebook/opt-13b config.json (Zhang et al. 2022)",
                              .layers = 40,
                              .hidden = 5120,
                              .heads = 40,
                              .kv_heads = 40,
                              .head_dim = 128,
                              .ffn = 20480,
                              .vocab = 50272,
                              .max_positions = 2048,
                              .learned_positions = 2050,
                              .tied_embeddings = true,
                              .attn_bias = true,
                              .mlp_bias = true,
                              .norm = FF_NORM_LAYERNORM,
                              .norms_per_layer = 2,
                              .final_norm = true,
                              .dropout = true}},
    {"opt-175b", "",
     &(const struct ff_model){.struct_size = sizeof(struct ff_model),
                              .name = "opt-175b",
                              .source = "Zhang et al. 2022, Table 1 (L96, d 12288, 96 heads); "
                                        "OPT tokenizer V50272",
                              .layers = 96,
                              .hidden = 12288,
                              .heads = 96,
                              .kv_heads = 96,
                              .head_dim = 128,
                              .ffn = 49152,
                              .vocab = 50272,
                              .max_positions = 2048,
                              .learned_positions = 2050,
                              .tied_embeddings = true,
                              .attn_bias = true,
                              .mlp_bias = true,
                              .norm = FF_NORM_LAYERNORM,
                              .norms_per_layer = 2,
                              .final_norm = true,
                              .dropout = true}},
    LLAMA("llama-2-7b", "llama2-7b", 32, 4096, 32, 32, 11008, 32000, 4096,
          "HF meta-llama/Llama-2-7b-hf config.json (Touvron et al. 2023)"),
    LLAMA("llama-2-13b", "llama2-13b", 40, 5120, 40, 40, 13824, 32000, 4096,
          "HF meta-llama/Llama-2-13b-hf config.json"),
    LLAMA("llama-2-70b", "llama2-70b", 80, 8192, 64, 8, 28672, 32000, 4096,
          "HF meta-llama/Llama-2-70b-hf config.json (GQA, 8 KV heads)"),
    LLAMA("llama-3-8b", "llama3-8b meta-llama-3-8b", 32, 4096, 32, 8, 14336, 128256, 8192,
          "HF meta-llama/Meta-Llama-3-8B config.json"),
    LLAMA("llama-3-70b", "llama3-70b meta-llama-3-70b", 80, 8192, 64, 8, 28672, 128256, 8192,
          "HF meta-llama/Meta-Llama-3-70B config.json"),
    LLAMA("llama-3.1-405b", "llama3.1-405b llama-3-405b", 126, 16384, 128, 8, 53248, 128256, 131072,
          "Dubey et al. 2024, Table 3; HF meta-llama/Llama-3.1-405B config.json"),
    {"mistral-7b", "mistral-7b-v0.1",
     &(const struct ff_model){.struct_size = sizeof(struct ff_model),
                              .name = "mistral-7b",
                              .source =
                                  "HF mistralai/Mistral-7B-v0.1 config.json (sliding window 4096)",
                              .layers = 32,
                              .hidden = 4096,
                              .heads = 32,
                              .kv_heads = 8,
                              .head_dim = 128,
                              .ffn = 14336,
                              .vocab = 32000,
                              .max_positions = 32768,
                              .gated_ffn = true,
                              .norm = FF_NORM_RMSNORM,
                              .norms_per_layer = 2,
                              .final_norm = true,
                              .sliding_window = 4096}},
    {"mixtral-8x7b", "mixtral mixtral-8x7b-v0.1",
     &(const struct ff_model){.struct_size = sizeof(struct ff_model),
                              .name = "mixtral-8x7b",
                              .source =
                                  "HF mistralai/Mixtral-8x7B-v0.1 config.json (8 experts, top-2)",
                              .layers = 32,
                              .hidden = 4096,
                              .heads = 32,
                              .kv_heads = 8,
                              .head_dim = 128,
                              .ffn = 14336,
                              .vocab = 32000,
                              .max_positions = 32768,
                              .gated_ffn = true,
                              .norm = FF_NORM_RMSNORM,
                              .norms_per_layer = 2,
                              .final_norm = true,
                              .experts = 8,
                              .experts_active = 2}},
    {"deepseek-v3", "deepseek-v3-671b",
     &(const struct ff_model){
         .struct_size = sizeof(struct ff_model),
         .name = "deepseek-v3",
         .source = "HF deepseek-ai/DeepSeek-V3 config.json (MLA, 256+1 experts, top-8; "
                   "main model without the MTP module)",
         .layers = 61,
         .hidden = 7168,
         .heads = 128,
         .kv_heads = 128,
         .head_dim = 192,
         .ffn = 18432,
         .vocab = 129280,
         .max_positions = 163840,
         .gated_ffn = true,
         .norm = FF_NORM_RMSNORM,
         .norms_per_layer = 2,
         .final_norm = true,
         .experts = 256,
         .experts_active = 8,
         .shared_experts = 1,
         .moe_ffn = 2048,
         .dense_layers = 3,
         .q_lora_rank = 1536,
         .kv_lora_rank = 512,
         .qk_nope_head_dim = 128,
         .qk_rope_head_dim = 64,
         .v_head_dim = 128}},
};

const struct ff_model_preset *ff_model_presets(size_t *count)
{
    if (count)
        *count = sizeof(presets) / sizeof(presets[0]);
    return presets;
}

int ff_model_preset_find(const char *name, struct ff_model *out)
{
    if (!name || !out)
        return FF_ERR_INVALID;
    int rc = ff_model_out_check(out, NULL, 0);
    if (rc != FF_OK)
        return rc;
    for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++) {
        if (ff_streq_ci(name, presets[i].slug) || ff_word_in(name, presets[i].aliases)) {
            ff_abi_copy_out(out, presets[i].model, sizeof(*presets[i].model));
            return FF_OK;
        }
    }
    return FF_ERR_NOT_FOUND;
}

int ff_model_suggest(const char *name, char *buf, size_t buflen, int max)
{
    enum { N = sizeof(presets) / sizeof(presets[0]) };
    const char *slugs[N];
    for (size_t i = 0; i < N; i++)
        slugs[i] = presets[i].slug;
    return ff_suggest_from(name, slugs, NULL, N, buf, buflen, max);
}
