/*
 * estimate/src/hf/llama.c — Llama and the families that share its configuration class shape
 * (llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, gemma, gemma2, gemma3_text,
 * phi3, olmo2, cohere, gpt_oss, smollm3): one reader, with each family's defaults and extras, the
 * sliding-window rules (layer_types or the family's own) and the Qwen MoE layer pattern.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/*
 * Which blocks of a Qwen2-MoE / Qwen3-MoE model carry the sparse MoE block: layer i when i is
 * not in mlp_only_layers and (i + 1) % decoder_sparse_step == 0 (Qwen2MoeDecoderLayer).
 */
static int read_qwen_moe_layers(struct ff_hf_reader *r, struct ff_model *m)
{
    int64_t step = 1;
    TRY(ff_hf_get_int(r, "decoder_sparse_step", false, 1, 1, &step));
    json_object *only = ff_hf_lookup(r, "mlp_only_layers");
    char expected[96];
    snprintf(expected, sizeof(expected), "an array of distinct layer indices 0..%lld",
             (long long)m->layers - 1);
    if (only && !json_object_is_type(only, json_type_array))
        return ff_hf_bad(r, "mlp_only_layers", only, expected);
    /* Layers (i + 1) % step == 0 are sparse: layers / step of them, less each listed index
     * among them (counted once). Sorting the list keeps this O(K log K + 1) for any config. */
    int64_t moe = m->layers / step;
    size_t n_only = only ? json_object_array_length(only) : 0;
    if (n_only) {
        int64_t *idx = malloc(n_only * sizeof(*idx));
        if (!idx)
            return ff_errf(r->c.err, r->c.errlen, FF_ERR_NO_MEMORY, "%s: out of memory",
                           r->c.label);
        for (size_t k = 0; k < n_only; k++) {
            json_object *x = json_object_array_get_idx(only, k);
            if (!x || !json_object_is_type(x, json_type_int) ||
                (idx[k] = json_object_get_int64(x)) < 0 || idx[k] >= m->layers) {
                free(idx);
                return ff_hf_bad(r, "mlp_only_layers", only, expected);
            }
        }
        qsort(idx, n_only, sizeof(*idx), cmp_i64);
        for (size_t k = 0; k < n_only; k++)
            if ((k == 0 || idx[k] != idx[k - 1]) && (idx[k] + 1) % step == 0)
                moe--;
        free(idx);
    }
    if (moe == 0)
        return ff_hf_bad(r, "decoder_sparse_step", ff_hf_lookup(r, "decoder_sparse_step"),
                         "a step that leaves at least one MoE layer");
    m->moe_layers = moe;
    m->dense_layers = m->layers - moe;
    return FF_OK;
}

/*
 * layer_types (transformers >= 4.53: one "full_attention" / "sliding_attention" per block).
 * Sets m->sliding_layers and *present. Any other entry is an error naming it.
 */
static int read_layer_types(struct ff_hf_reader *r, struct ff_model *m, bool *present)
{
    *present = false;
    json_object *v = ff_hf_lookup(r, "layer_types");
    if (!v)
        return FF_OK;
    char expected[96];
    snprintf(expected, sizeof(expected),
             "an array of %lld \"full_attention\"/\"sliding_attention\"", (long long)m->layers);
    if (!json_object_is_type(v, json_type_array) ||
        (int64_t)json_object_array_length(v) != m->layers)
        return ff_hf_bad(r, "layer_types", v, expected);
    int64_t sliding = 0;
    for (size_t i = 0; i < json_object_array_length(v); i++) {
        json_object *t = json_object_array_get_idx(v, i);
        const char *s =
            t && json_object_is_type(t, json_type_string) ? json_object_get_string(t) : NULL;
        if (s && !strcmp(s, "sliding_attention"))
            sliding++;
        else if (!s || strcmp(s, "full_attention") != 0) {
            char name[48];
            snprintf(name, sizeof(name), "layer_types[%zu]", i);
            return ff_hf_bad(r, name, t, "\"full_attention\" or \"sliding_attention\"");
        }
    }
    m->sliding_layers = sliding;
    *present = true;
    return FF_OK;
}

/*
 * SmolLM3's NoPE layers (SmolLM3Config): no_rope_layers holds one 0/1 per block, 1 where the
 * block applies RoPE; absent, every no_rope_layer_interval-th block (i + 1) % interval == 0
 * skips it. NoPE changes no parameter, FLOP or cache figure; it decides which blocks take the
 * sliding window when use_sliding_window is set without layer_types: the NoPE ones
 * (SmolLM3Config.__post_init__). Sets *nope to their count.
 */
static int read_nope_layers(struct ff_hf_reader *r, const struct ff_model *m, int64_t *nope)
{
    json_object *v = ff_hf_lookup(r, "no_rope_layers");
    *nope = 0;
    if (!v) {
        int64_t interval = 4;
        TRY(ff_hf_get_int(r, "no_rope_layer_interval", false, 4, 1, &interval));
        *nope = m->layers / interval;
        return FF_OK;
    }
    char expected[96];
    snprintf(expected, sizeof(expected), "an array of %lld 0/1 entries (1: the layer uses RoPE)",
             (long long)m->layers);
    if (!json_object_is_type(v, json_type_array) ||
        (int64_t)json_object_array_length(v) != m->layers)
        return ff_hf_bad(r, "no_rope_layers", v, expected);
    for (size_t i = 0; i < json_object_array_length(v); i++) {
        json_object *x = json_object_array_get_idx(v, i);
        int64_t b = x && json_object_is_type(x, json_type_int) ? json_object_get_int64(x) : -1;
        if (b != 0 && b != 1) {
            char name[48];
            snprintf(name, sizeof(name), "no_rope_layers[%zu]", i);
            return ff_hf_bad(r, name, x, "0 or 1");
        }
        *nope += b == 0;
    }
    return FF_OK;
}

/*
 * Llama and its relatives: one config class shape (hidden_size, num_hidden_layers,
 * num_attention_heads, num_key_value_heads, head_dim, intermediate_size), with per-family
 * defaults and extras from each configuration_<type>.py / modeling_<type>.py:
 * llama, mistral, mixtral, qwen2, qwen2_moe (qkv bias, shared expert with a gate), qwen3,
 * qwen3_moe (QK-norm), gemma, gemma2, gemma3_text (4 norms, QK-norm, local/global layers),
 * olmo2 (post-norms, QK-norm over the whole projection), phi3 (fused qkv and gate_up: the
 * same counts), cohere (parallel block, one LayerNorm without bias, tied, optional QK-norm),
 * gpt_oss (biases, attention sinks, MoE with biased experts and router, alternating windows),
 * smollm3 (llama with NoPE layers; tied; a window only on the NoPE layers).
 */
int ff_hf_read_llama_like(struct ff_hf_reader *r, struct ff_model *m)
{
    const char *type = r->model_type;
    bool gemma = strncmp(type, "gemma", 5) == 0;
    bool gemma3 = !strcmp(type, "gemma3_text");
    bool qwen_moe = !strcmp(type, "qwen2_moe") || !strcmp(type, "qwen3_moe");
    bool cohere = !strcmp(type, "cohere");
    bool gpt_oss = !strcmp(type, "gpt_oss");
    bool smollm3 = !strcmp(type, "smollm3");
    ff_hf_set_norms(m, FF_NORM_RMSNORM, 2);
    m->gated_ffn = true;
    /* Gemma 3's multimodal text_config lists only what differs from Gemma3TextConfig. */
    TRY(ff_hf_get_int(r, "hidden_size", !gemma3, 2304, 1, &m->hidden));
    TRY(ff_hf_get_layers(r, "num_hidden_layers", !gemma3, 26, &m->layers));
    TRY(ff_hf_get_int(r, "num_attention_heads", !gemma3, 8, 1, &m->heads));
    TRY(ff_hf_get_int(r, "num_key_value_heads", false, gemma3 ? 4 : m->heads, 1, &m->kv_heads));
    static const char *const head_dim[] = {"head_dim", NULL};
    const char *used = NULL;
    if (ff_hf_field(r, head_dim, &used) || gemma3)
        TRY(ff_hf_get_int(r, "head_dim", !gemma3, 256, 1, &m->head_dim));
    else
        TRY(ff_hf_derive_head_dim(r, "hidden_size", "num_attention_heads", true, m));
    TRY(ff_hf_get_int(r, "intermediate_size", !gemma3, 9216, 1, &m->ffn));
    TRY(ff_hf_get_int(r, "vocab_size", !gemma3, 262208, 1, &m->vocab));
    TRY(ff_hf_get_int(r, "max_position_embeddings", false, gemma3 ? 131072 : 4096, 1,
                      &m->max_positions));
    TRY(ff_hf_get_bool(r, "tie_word_embeddings", gemma || cohere || smollm3, &m->tied_embeddings));
    TRY(ff_hf_get_bool(r, "attention_bias", gpt_oss, &m->attn_bias));
    TRY(ff_hf_get_bool(r, "mlp_bias", false, &m->mlp_bias));
    TRY(ff_hf_get_dropout(r, "attention_dropout", 0.0, NULL, 0.0, &m->dropout));
    TRY(ff_hf_read_rope(r, m));
    if (!strcmp(type, "qwen2") || !strcmp(type, "qwen2_moe"))
        m->qkv_bias_only = true; /* Qwen2Attention: bias on q/k/v projections only */
    if (!strcmp(type, "qwen3") || !strcmp(type, "qwen3_moe") || gemma3)
        m->qk_norm = FF_QK_NORM_HEAD_DIM; /* q_norm, k_norm: RMSNorm(head_dim) */
    if (!strcmp(type, "olmo2"))
        m->qk_norm = FF_QK_NORM_ALL; /* Olmo2Attention: RMSNorm(heads·head_dim), kv likewise */
    if (cohere) {
        bool qk = false;
        TRY(ff_hf_get_bool(r, "use_qk_norm", false, &qk));
        m->qk_norm = qk ? FF_QK_NORM_ALL : FF_QK_NORM_NONE; /* CohereLayerNorm((heads, hd)) */
        m->norm = FF_NORM_LAYERNORM_NOBIAS;                 /* CohereLayerNorm: no bias */
        m->norms_per_layer = 1; /* attention and MLP in parallel off one input_layernorm */
    }
    if (gemma3 || !strcmp(type, "gemma2"))
        m->norms_per_layer = 4; /* pre and post norms around attention and MLP */

    /* Sliding windows: layer_types when given, else each family's rule. */
    bool types = false;
    TRY(read_layer_types(r, m, &types));
    bool use_window = true;
    int64_t nope = 0;
    if (strncmp(type, "qwen", 4) == 0 || smollm3)
        TRY(ff_hf_get_bool(r, "use_sliding_window", false, &use_window));
    if (smollm3)
        TRY(read_nope_layers(r, m, &nope));
    if (use_window || types)
        TRY(ff_hf_get_int(r, "sliding_window", false, gemma3 ? 4096 : 0, 0, &m->sliding_window));
    if (types) {
        if (m->sliding_layers > 0 && m->sliding_window == 0)
            return ff_hf_bad(r, "sliding_window", ff_hf_lookup(r, "sliding_window"),
                             "a window for the \"sliding_attention\" layers of layer_types");
        if (m->sliding_layers == 0)
            m->sliding_window = 0;
    } else if (strcmp(type, "gemma2") == 0) {
        m->sliding_layers = (m->layers + 1) / 2; /* even-numbered layers are local */
    } else if (gemma3) {
        /* Gemma3TextConfig: every sliding_window_pattern-th layer is global. */
        int64_t pattern = 6;
        TRY(ff_hf_get_int(r, "sliding_window_pattern", false, 6, 1, &pattern));
        m->sliding_layers = m->layers - m->layers / pattern;
    } else if (strncmp(type, "qwen", 4) == 0 && use_window && m->sliding_window > 0) {
        /* Qwen2Attention: layers from max_window_layers on use the window. */
        int64_t from = 0;
        TRY(ff_hf_get_int(r, "max_window_layers", false, 0, 0, &from));
        if (from >= m->layers)
            m->sliding_window = 0;
        else
            m->sliding_layers = m->layers - from;
    } else if (smollm3 && use_window && m->sliding_window > 0) {
        m->sliding_layers = nope; /* SmolLM3Config: the NoPE layers slide */
        if (nope == 0)
            m->sliding_window = 0;
    } else if (gpt_oss && m->sliding_window > 0) {
        m->sliding_layers = m->layers / 2; /* GptOssConfig: alternating, sliding first */
    }
    if (gemma && m->sliding_layers == m->layers)
        m->sliding_layers = 0; /* 0 with a window means every layer */

    if (strcmp(type, "mixtral") == 0) {
        TRY(ff_hf_get_int(r, "num_local_experts", true, 0, 1, &m->experts));
        TRY(ff_hf_get_int(r, "num_experts_per_tok", true, 0, 1, &m->experts_active));
    }
    if (qwen_moe) {
        TRY(ff_hf_get_int(r, "num_experts", true, 0, 1, &m->experts));
        TRY(ff_hf_get_int(r, "num_experts_per_tok", true, 0, 1, &m->experts_active));
        TRY(ff_hf_get_int(r, "moe_intermediate_size", true, 0, 1, &m->moe_ffn));
        TRY(read_qwen_moe_layers(r, m));
        if (!strcmp(type, "qwen2_moe")) {
            /* Qwen2MoeSparseMoeBlock: one shared expert of its own width, sigmoid-gated. */
            TRY(ff_hf_get_int(r, "shared_expert_intermediate_size", true, 0, 1, &m->shared_ffn));
            m->shared_experts = 1;
            m->shared_expert_gate = true;
        }
    }
    if (gpt_oss) {
        static const char *const k[] = {"num_experts_per_tok", "experts_per_token", NULL};
        TRY(ff_hf_get_int(r, "num_local_experts", true, 0, 1, &m->experts));
        TRY(ff_hf_get_int_alt(r, k, true, 0, 1, &m->experts_active, NULL));
        m->moe_ffn = m->ffn; /* GptOssExperts: expert_dim = intermediate_size */
        m->mlp_bias = true;  /* gate_up_proj_bias, down_proj_bias */
        m->router_bias = true;
        m->attn_sinks = true;
    }
    return FF_OK;
}
