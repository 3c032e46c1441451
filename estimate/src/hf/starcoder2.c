/*
 * estimate/src/hf/starcoder2.c — StarCoder2 (model_type "starcoder2").
 */
#include "hf_internal.h"

/* StarCoder2 (Starcoder2Config): GQA, biases everywhere (use_bias), LayerNorm with bias,
 * GELU MLP c_fc/c_proj, sliding window on every layer. */
int ff_hf_read_starcoder2(struct ff_hf_reader *r, const char *type, struct ff_model *m)
{
    (void)type;
    m->norm = FF_NORM_LAYERNORM;
    m->norms_per_layer = 2;
    m->final_norm = true;
    TRY(ff_hf_require_string(r, "norm_type", "layer_norm"));
    TRY(ff_hf_require_string(r, "mlp_type", "default"));
    TRY(ff_hf_get_int(r, "hidden_size", true, 0, 1, &m->hidden));
    TRY(ff_hf_get_layers(r, "num_hidden_layers", true, 0, &m->layers));
    TRY(ff_hf_get_int(r, "num_attention_heads", true, 0, 1, &m->heads));
    TRY(ff_hf_get_int(r, "num_key_value_heads", false, 2, 1, &m->kv_heads));
    TRY(ff_hf_derive_head_dim(r, "hidden_size", "num_attention_heads", false, m));
    TRY(ff_hf_get_int(r, "intermediate_size", true, 0, 1, &m->ffn));
    TRY(ff_hf_get_int(r, "vocab_size", true, 0, 1, &m->vocab));
    TRY(ff_hf_get_int(r, "max_position_embeddings", false, 4096, 1, &m->max_positions));
    TRY(ff_hf_get_int(r, "sliding_window", false, 0, 0, &m->sliding_window));
    bool bias = true;
    TRY(ff_hf_get_bool(r, "use_bias", true, &bias));
    m->attn_bias = m->mlp_bias = bias;
    TRY(ff_hf_get_bool(r, "tie_word_embeddings", true, &m->tied_embeddings));
    TRY(ff_hf_get_dropout(r, "attention_dropout", 0.0, "residual_dropout", 0.0, &m->dropout));
    TRY(ff_hf_read_rope(r, m));
    return FF_OK;
}
