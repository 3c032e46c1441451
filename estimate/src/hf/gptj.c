/*
 * estimate/src/hf/gptj.c — GPT-J (model_type "gptj").
 */
#include "hf_internal.h"

/* GPT-J (GPTJConfig): parallel attention and MLP off one LayerNorm, no attention biases,
 * biased MLP, untied LM head with a bias, rotary positions. */
int ff_hf_read_gptj(struct ff_hf_reader *r, const char *type, struct ff_model *m)
{
    (void)type;
    m->norm = FF_NORM_LAYERNORM;
    m->norms_per_layer = 1;
    m->final_norm = true;
    m->mlp_bias = true;
    m->lm_head_bias = true;
    TRY(ff_hf_get_int(r, "n_embd", true, 0, 1, &m->hidden));
    TRY(ff_hf_get_layers(r, "n_layer", true, 0, &m->layers));
    TRY(ff_hf_get_int(r, "n_head", true, 0, 1, &m->heads));
    m->kv_heads = m->heads;
    TRY(ff_hf_derive_head_dim(r, "n_embd", "n_head", false, m));
    TRY(ff_hf_get_int(r, "n_inner", false, 4 * m->hidden, 1, &m->ffn));
    TRY(ff_hf_get_int(r, "vocab_size", true, 0, 1, &m->vocab));
    TRY(ff_hf_get_int(r, "n_positions", false, 2048, 1, &m->max_positions));
    TRY(ff_hf_get_bool(r, "tie_word_embeddings", false, &m->tied_embeddings));
    TRY(ff_hf_get_dropout(r, "attn_pdrop", 0.0, "resid_pdrop", 0.0, &m->dropout));
    return FF_OK;
}
