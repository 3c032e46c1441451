/*
 * estimate/src/hf/starcoder2.c — StarCoder2 (model_type "starcoder2").
 */
#include "reader.h"

/* StarCoder2 (Starcoder2Config): GQA, biases everywhere (use_bias), LayerNorm with bias,
 * GELU MLP c_fc/c_proj, sliding window on every layer. */
int ff_hf_read_starcoder2(struct ff_hf_reader *r, struct ff_model *m)
{
    ff_hf_set_norms(m, FF_NORM_LAYERNORM, 2);
    TRY(ff_hf_require_string(r, "norm_type", "layer_norm"));
    TRY(ff_hf_require_string(r, "mlp_type", "default"));
    TRY(ff_hf_read_dims(r, &ff_hf_llama_dims,
                        (struct ff_hf_dim_defaults){.kv_heads = 2, .positions = 4096}, m));
    TRY(ff_hf_get_int(r, "sliding_window", false, 0, 0, &m->sliding_window));
    bool bias = true;
    TRY(ff_hf_get_bool(r, "use_bias", true, &bias));
    m->attn_bias = m->mlp_bias = bias;
    TRY(ff_hf_get_bool(r, "tie_word_embeddings", true, &m->tied_embeddings));
    TRY(ff_hf_get_dropout(r, "attention_dropout", 0.0, "residual_dropout", 0.0, &m->dropout));
    TRY(ff_hf_read_rope(r, m));
    return FF_OK;
}
