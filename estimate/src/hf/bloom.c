/*
 * estimate/src/hf/bloom.c — BLOOM (model_type "bloom", BloomConfig).
 */
#include "reader.h"

int ff_hf_read_bloom(struct ff_hf_reader *r, struct ff_model *m)
{
    static const char *const hidden[] = {"hidden_size", "n_embed", NULL};
    static const char *const heads[] = {"n_head", "num_attention_heads", NULL};
    ff_hf_set_norms(m, FF_NORM_LAYERNORM, 2);
    m->embed_norm = true; /* word_embeddings_layernorm */
    m->attn_bias = m->mlp_bias = true;
    const char *hidden_used = hidden[0], *heads_used = heads[0];
    TRY(ff_hf_get_int_alt(r, hidden, true, 0, 1, &m->hidden, &hidden_used));
    TRY(ff_hf_get_layers(r, "n_layer", true, 0, &m->layers));
    TRY(ff_hf_get_int_alt(r, heads, true, 0, 1, &m->heads, &heads_used));
    m->kv_heads = m->heads;
    TRY(ff_hf_derive_head_dim(r, hidden_used, heads_used, false, m));
    m->ffn = 4 * m->hidden;
    TRY(ff_hf_get_int(r, "vocab_size", true, 0, 1, &m->vocab));
    TRY(ff_hf_get_int(r, "seq_length", false, 2048, 1, &m->max_positions));
    TRY(ff_hf_get_bool(r, "tie_word_embeddings", true, &m->tied_embeddings));
    TRY(ff_hf_get_dropout(r, "attention_dropout", 0.0, "hidden_dropout", 0.0, &m->dropout));
    return FF_OK;
}
