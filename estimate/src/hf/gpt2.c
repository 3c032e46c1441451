/*
 * estimate/src/hf/gpt2.c — GPT-2 (model_type "gpt2", GPT2Config).
 */
#include "hf_internal.h"

int ff_hf_read_gpt2(struct ff_hf_reader *r, const char *type, struct ff_model *m)
{
    (void)type;
    m->norm = FF_NORM_LAYERNORM;
    m->norms_per_layer = 2;
    m->final_norm = true;
    m->attn_bias = m->mlp_bias = true;
    TRY(ff_hf_get_int(r, "n_embd", true, 0, 1, &m->hidden));
    TRY(ff_hf_get_layers(r, "n_layer", true, 0, &m->layers));
    TRY(ff_hf_get_int(r, "n_head", true, 0, 1, &m->heads));
    m->kv_heads = m->heads;
    TRY(ff_hf_derive_head_dim(r, "n_embd", "n_head", false, m));
    /* hidden <= 2^40, so the default 4h cannot overflow (as for Falcon and BLOOM). */
    TRY(ff_hf_get_int(r, "n_inner", false, 4 * m->hidden, 1, &m->ffn));
    TRY(ff_hf_get_int(r, "vocab_size", true, 0, 1, &m->vocab));
    TRY(ff_hf_get_int(r, "n_positions", false, 1024, 1, &m->max_positions));
    m->learned_positions = m->max_positions;
    TRY(ff_hf_get_bool(r, "tie_word_embeddings", true, &m->tied_embeddings));
    TRY(ff_hf_get_dropout(r, "attn_pdrop", 0.1, "resid_pdrop", 0.1, &m->dropout));
    return FF_OK;
}
