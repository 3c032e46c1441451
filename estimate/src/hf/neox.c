/*
 * estimate/src/hf/neox.c — GPT-NeoX (model_type "gpt_neox", GPTNeoXConfig).
 */
#include "reader.h"

int ff_hf_read_neox(struct ff_hf_reader *r, struct ff_model *m)
{
    ff_hf_set_norms(m, FF_NORM_LAYERNORM, 2);
    TRY(ff_hf_read_dims(r, &ff_hf_llama_mha_dims, (struct ff_hf_dim_defaults){.positions = 2048},
                        m));
    TRY(ff_hf_get_bool(r, "tie_word_embeddings", false, &m->tied_embeddings));
    TRY(ff_hf_get_bool(r, "attention_bias", true, &m->attn_bias));
    m->mlp_bias = true;
    TRY(ff_hf_get_dropout(r, "attention_dropout", 0.0, "hidden_dropout", 0.0, &m->dropout));
    return FF_OK;
}
