/*
 * estimate/src/hf/mamba.c — the state-space families: Mamba and Falcon-Mamba (model_type "mamba",
 * "falcon_mamba"), and Jamba ("jamba"), whose blocks mix Mamba and attention.
 */
#include <string.h>

#include "reader.h"

/* Mamba's dt rank: an integer or "auto" = ceil(hidden / 16) (MambaConfig, JambaConfig). */
static int get_dt_rank(struct ff_hf_reader *r, const char *name, struct ff_model *m)
{
    json_object *v = ff_hf_lookup(r, name);
    if (!v ||
        (json_object_is_type(v, json_type_string) && !strcmp(json_object_get_string(v), "auto"))) {
        m->ssm_dt_rank = (m->hidden + 15) / 16;
        return FF_OK;
    }
    return ff_hf_get_int(r, name, true, 0, 1, &m->ssm_dt_rank);
}

/* Mamba and Falcon-Mamba (MambaConfig / FalconMambaConfig): every block one RMSNorm and a
 * Mamba mixer, no attention, no FFN. Falcon-Mamba's B/C/dt RMS norms carry no weights. */
int ff_hf_read_mamba(struct ff_hf_reader *r, struct ff_model *m)
{
    ff_hf_set_norms(m, FF_NORM_RMSNORM, 1);
    m->ffn_absent = true;
    TRY(ff_hf_get_int(r, "hidden_size", true, 0, 1, &m->hidden));
    TRY(ff_hf_get_layers(r, "num_hidden_layers", true, 0, &m->layers));
    TRY(ff_hf_get_int(r, "vocab_size", true, 0, 1, &m->vocab));
    m->ssm_layers = m->layers;
    TRY(ff_hf_get_int(r, "state_size", false, 16, 1, &m->ssm_state));
    TRY(ff_hf_get_int(r, "conv_kernel", false, 4, 1, &m->ssm_conv));
    int64_t expand = 2;
    TRY(ff_hf_get_int(r, "expand", false, 2, 1, &expand));
    int64_t inner = 0;
    TRY(ff_hf_checked_mul(r, expand, m->hidden, "expand", "expand x hidden_size", &inner));
    TRY(ff_hf_get_int(r, "intermediate_size", false, inner, 1, &m->ssm_inner));
    TRY(get_dt_rank(r, "time_step_rank", m));
    TRY(ff_hf_get_bool(r, "use_conv_bias", true, &m->ssm_conv_bias));
    TRY(ff_hf_get_bool(r, "use_bias", false, &m->ssm_proj_bias));
    TRY(ff_hf_get_bool(r, "tie_word_embeddings", true, &m->tied_embeddings));
    return FF_OK;
}

/*
 * Jamba (JambaConfig): blocks alternate Mamba and attention mixers (attention where
 * i % attn_layer_period == attn_layer_offset) and dense and MoE FFNs (MoE where
 * i % expert_layer_period == expert_layer_offset); Mamba mixers carry dt/B/C RMSNorms.
 */
int ff_hf_read_jamba(struct ff_hf_reader *r, struct ff_model *m)
{
    ff_hf_set_norms(m, FF_NORM_RMSNORM, 2);
    m->gated_ffn = true;
    TRY(ff_hf_read_dims(
        r, &ff_hf_llama_dims,
        (struct ff_hf_dim_defaults){.kv_heads = 8, .vocab = 65536, .positions = 262144}, m));
    TRY(ff_hf_get_bool(r, "tie_word_embeddings", false, &m->tied_embeddings));
    int64_t ap, ao, ep, eo, experts;
    TRY(ff_hf_get_int(r, "attn_layer_period", false, 8, 1, &ap));
    TRY(ff_hf_get_int(r, "attn_layer_offset", false, 4, 0, &ao));
    TRY(ff_hf_get_int(r, "expert_layer_period", false, 2, 1, &ep));
    TRY(ff_hf_get_int(r, "expert_layer_offset", false, 1, 0, &eo));
    TRY(ff_hf_get_int(r, "num_experts", false, 16, 1, &experts));
    if (ao >= ap)
        return ff_hf_bad(r, "attn_layer_offset", ff_hf_lookup(r, "attn_layer_offset"),
                         "less than attn_layer_period");
    if (eo >= ep)
        return ff_hf_bad(r, "expert_layer_offset", ff_hf_lookup(r, "expert_layer_offset"),
                         "less than expert_layer_period");
    int64_t attn = 0, moe = 0;
    for (int64_t i = 0; i < m->layers; i++) {
        attn += i % ap == ao;
        moe += experts > 1 && i % ep == eo;
    }
    m->ssm_layers = m->layers - attn;
    if (moe > 0) {
        m->experts = experts;
        TRY(ff_hf_get_int(r, "num_experts_per_tok", false, 2, 1, &m->experts_active));
        m->moe_layers = moe;
        m->dense_layers = m->layers - moe;
    }
    TRY(ff_hf_get_int(r, "mamba_d_state", false, 16, 1, &m->ssm_state));
    TRY(ff_hf_get_int(r, "mamba_d_conv", false, 4, 1, &m->ssm_conv));
    int64_t expand = 2;
    TRY(ff_hf_get_int(r, "mamba_expand", false, 2, 1, &expand));
    TRY(ff_hf_checked_mul(r, expand, m->hidden, "mamba_expand", "mamba_expand x hidden_size",
                          &m->ssm_inner));
    TRY(get_dt_rank(r, "mamba_dt_rank", m));
    TRY(ff_hf_get_bool(r, "mamba_conv_bias", true, &m->ssm_conv_bias));
    TRY(ff_hf_get_bool(r, "mamba_proj_bias", false, &m->ssm_proj_bias));
    m->ssm_inner_norms = true;
    return FF_OK;
}
