/*
 * estimate/src/hf/gptj.c — GPT-J (model_type "gptj").
 */
#include "reader.h"

/* GPT-J (GPTJConfig): parallel attention and MLP off one LayerNorm, no attention biases,
 * biased MLP, untied LM head with a bias, rotary positions. */
int ff_hf_read_gptj(struct ff_hf_reader *r, struct ff_model *m)
{
    ff_hf_set_norms(m, FF_NORM_LAYERNORM, 1);
    m->mlp_bias = true;
    m->lm_head_bias = true;
    TRY(ff_hf_read_dims(r, &ff_hf_gpt2_dims,
                        (struct ff_hf_dim_defaults){.ffn_per_hidden = 4, .positions = 2048}, m));
    TRY(ff_hf_get_bool(r, "tie_word_embeddings", false, &m->tied_embeddings));
    TRY(ff_hf_get_dropout(r, "attn_pdrop", 0.0, "resid_pdrop", 0.0, &m->dropout));
    return FF_OK;
}
