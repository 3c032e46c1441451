/*
 * estimate/src/hf/gpt2.c — GPT-2 (model_type "gpt2", GPT2Config).
 */
#include "reader.h"

int ff_hf_read_gpt2(struct ff_hf_reader *r, struct ff_model *m)
{
    ff_hf_set_norms(m, FF_NORM_LAYERNORM, 2);
    m->attn_bias = m->mlp_bias = true;
    TRY(ff_hf_read_dims(r, &ff_hf_gpt2_dims,
                        (struct ff_hf_dim_defaults){.ffn_per_hidden = 4, .positions = 1024}, m));
    m->learned_positions = m->max_positions;
    TRY(ff_hf_get_bool(r, "tie_word_embeddings", true, &m->tied_embeddings));
    TRY(ff_hf_get_dropout(r, "attn_pdrop", 0.1, "resid_pdrop", 0.1, &m->dropout));
    return FF_OK;
}
