/*
 * estimate/src/hf/mpt.c — MPT (model_type "mpt", MptConfig) and its attn_config.
 */
#include <string.h>

#include "reader.h"

int ff_hf_read_mpt(struct ff_hf_reader *r, struct ff_model *m)
{
    bool no_bias = true;
    m->norms_per_layer = 2;
    m->final_norm = true;
    TRY(ff_hf_get_int(r, "d_model", true, 0, 1, &m->hidden));
    TRY(ff_hf_get_layers(r, "n_layers", true, 0, &m->layers));
    TRY(ff_hf_get_int(r, "n_heads", true, 0, 1, &m->heads));
    TRY(ff_hf_derive_head_dim(r, "d_model", "n_heads", false, m));
    int64_t ratio = 4;
    TRY(ff_hf_get_int(r, "expansion_ratio", false, 4, 1, &ratio));
    TRY(ff_hf_checked_mul(r, m->hidden, ratio, "expansion_ratio", "d_model x expansion_ratio",
                          &m->ffn));
    TRY(ff_hf_get_int(r, "vocab_size", true, 0, 1, &m->vocab));
    TRY(ff_hf_get_int(r, "max_seq_len", false, 2048, 1, &m->max_positions));
    TRY(ff_hf_get_bool(r, "no_bias", true, &no_bias));
    m->attn_bias = m->mlp_bias = !no_bias;
    m->norm = no_bias ? FF_NORM_LAYERNORM_NOBIAS : FF_NORM_LAYERNORM;
    TRY(ff_hf_get_bool(r, "tie_word_embeddings", true, &m->tied_embeddings));
    m->kv_heads = m->heads;
    json_object *attn = NULL;
    if (!json_object_object_get_ex(r->root, "attn_config", &attn) || !attn ||
        json_object_is_type(attn, json_type_null))
        return FF_OK; /* MPTConfig's default: multi-head attention */
    if (!json_object_is_type(attn, json_type_object))
        return ff_hf_bad(r, "attn_config", attn, "an object");
    struct ff_hf_reader sub = *r;
    sub.root = attn;
    sub.c.prefix = "attn_config.";
    int64_t kv_n_heads = m->heads;
    TRY(ff_hf_get_int(&sub, "kv_n_heads", false, m->heads, 1, &kv_n_heads));
    static const char *const types =
        "\"multihead_attention\", \"multiquery_attention\" or \"grouped_query_attention\"";
    /* json-c represents a JSON null as a NULL object: null and absent mean the default. */
    json_object *t = NULL;
    const char *type = "multihead_attention";
    if (json_object_object_get_ex(attn, "attn_type", &t) && t &&
        !json_object_is_type(t, json_type_null)) {
        if (!json_object_is_type(t, json_type_string) || !json_object_get_string(t))
            return ff_hf_bad(&sub, "attn_type", t, types);
        type = json_object_get_string(t);
    }
    if (strcmp(type, "multihead_attention") == 0)
        m->kv_heads = m->heads;
    else if (strcmp(type, "multiquery_attention") == 0)
        m->kv_heads = 1;
    else if (strcmp(type, "grouped_query_attention") == 0)
        m->kv_heads = kv_n_heads;
    else
        return ff_hf_bad(&sub, "attn_type", t, types);
    return FF_OK;
}
