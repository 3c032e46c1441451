/*
 * estimate/src/hf/opt.c — OPT (model_type "opt", OPTConfig).
 */
#include "reader.h"

int ff_hf_read_opt(struct ff_hf_reader *r, struct ff_model *m)
{
    m->norm = FF_NORM_LAYERNORM;
    m->norms_per_layer = 2;
    bool pre_ln = true, bias = true;
    static const struct ff_hf_dim_names names = {
        "hidden_size", "num_hidden_layers", "num_attention_heads",
        NULL,          "ffn_dim",           "max_position_embeddings"};
    TRY(ff_hf_read_dims(r, &names, (struct ff_hf_dim_defaults){.positions = 2048}, m));
    m->learned_positions = m->max_positions + 2; /* OPTLearnedPositionalEmbedding offset 2 */
    int64_t proj = m->hidden;
    TRY(ff_hf_get_int(r, "word_embed_proj_dim", false, m->hidden, 1, &proj));
    m->embed_proj = proj != m->hidden ? proj : 0;
    TRY(ff_hf_get_bool(r, "do_layer_norm_before", true, &pre_ln));
    m->final_norm = pre_ln; /* OPT-350m (post-LN) has no final_layer_norm */
    TRY(ff_hf_get_bool(r, "enable_bias", true, &bias));
    m->attn_bias = m->mlp_bias = bias;
    TRY(ff_hf_get_bool(r, "tie_word_embeddings", true, &m->tied_embeddings));
    TRY(ff_hf_get_dropout(r, "dropout", 0.1, NULL, 0.0, &m->dropout));
    return FF_OK;
}
