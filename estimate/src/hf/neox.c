/*
 * estimate/src/hf/neox.c — GPT-NeoX (model_type "gpt_neox", GPTNeoXConfig).
 */
#include "hf_internal.h"

int ff_hf_read_neox(struct ff_hf_reader *r, const char *type, struct ff_model *m)
{
    (void)type;
    m->norm = FF_NORM_LAYERNORM;
    m->norms_per_layer = 2;
    m->final_norm = true;
    TRY(ff_hf_get_int(r, "hidden_size", true, 0, 1, &m->hidden));
    TRY(ff_hf_get_layers(r, "num_hidden_layers", true, 0, &m->layers));
    TRY(ff_hf_get_int(r, "num_attention_heads", true, 0, 1, &m->heads));
    m->kv_heads = m->heads;
    TRY(ff_hf_derive_head_dim(r, "hidden_size", "num_attention_heads", false, m));
    TRY(ff_hf_get_int(r, "intermediate_size", true, 0, 1, &m->ffn));
    TRY(ff_hf_get_int(r, "vocab_size", true, 0, 1, &m->vocab));
    TRY(ff_hf_get_int(r, "max_position_embeddings", false, 2048, 1, &m->max_positions));
    TRY(ff_hf_get_bool(r, "tie_word_embeddings", false, &m->tied_embeddings));
    TRY(ff_hf_get_bool(r, "attention_bias", true, &m->attn_bias));
    m->mlp_bias = true;
    TRY(ff_hf_get_dropout(r, "attention_dropout", 0.0, "hidden_dropout", 0.0, &m->dropout));
    return FF_OK;
}
