/*
 * estimate/src/hf/deepseek.c — DeepSeek-V2 and -V3 (model_type "deepseek_v2", "deepseek_v3"):
 * multi-head latent attention and DeepSeekMoE.
 */
#include "reader.h"

int ff_hf_read_deepseek(struct ff_hf_reader *r, struct ff_model *m)
{
    ff_hf_set_norms(m, FF_NORM_RMSNORM, 2);
    m->gated_ffn = true;
    TRY(ff_hf_get_int(r, "hidden_size", true, 0, 1, &m->hidden));
    TRY(ff_hf_get_layers(r, "num_hidden_layers", true, 0, &m->layers));
    TRY(ff_hf_get_int(r, "num_attention_heads", true, 0, 1, &m->heads));
    TRY(ff_hf_get_int(r, "num_key_value_heads", false, m->heads, 1, &m->kv_heads));
    TRY(ff_hf_get_int(r, "q_lora_rank", false, 0, 0, &m->q_lora_rank));
    TRY(ff_hf_get_int(r, "kv_lora_rank", true, 0, 1, &m->kv_lora_rank));
    TRY(ff_hf_get_int(r, "qk_nope_head_dim", true, 0, 1, &m->qk_nope_head_dim));
    TRY(ff_hf_get_int(r, "qk_rope_head_dim", true, 0, 1, &m->qk_rope_head_dim));
    TRY(ff_hf_get_int(r, "v_head_dim", true, 0, 1, &m->v_head_dim));
    m->head_dim = m->qk_nope_head_dim + m->qk_rope_head_dim;
    TRY(ff_hf_get_int(r, "intermediate_size", true, 0, 1, &m->ffn));
    TRY(ff_hf_get_int(r, "vocab_size", true, 0, 1, &m->vocab));
    TRY(ff_hf_get_int(r, "max_position_embeddings", false, 4096, 1, &m->max_positions));
    TRY(ff_hf_get_bool(r, "tie_word_embeddings", false, &m->tied_embeddings));
    TRY(ff_hf_get_int(r, "n_routed_experts", false, 0, 0, &m->experts));
    if (m->experts > 0) {
        TRY(ff_hf_get_int(r, "num_experts_per_tok", true, 0, 1, &m->experts_active));
        TRY(ff_hf_get_int(r, "n_shared_experts", false, 0, 0, &m->shared_experts));
        TRY(ff_hf_get_int(r, "moe_intermediate_size", true, 0, 1, &m->moe_ffn));
        TRY(ff_hf_get_int(r, "first_k_dense_replace", false, 0, 0, &m->dense_layers));
        int64_t freq = 1;
        TRY(ff_hf_get_int(r, "moe_layer_freq", false, 1, 1, &freq));
        if (freq != 1) {
            json_object *v = NULL;
            if (!json_object_object_get_ex(r->root, "moe_layer_freq", &v))
                v = NULL;
            return ff_hf_bad(r, "moe_layer_freq", v, "1 (every layer after the dense ones)");
        }
    }
    return FF_OK;
}
