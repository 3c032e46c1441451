/*
 * estimate/src/hf/falcon.c — Falcon (model_type "falcon", FalconConfig) and its legacy
 * remote-code names "RefinedWeb" and "RefinedWebModel".
 */
#include <string.h>

#include "reader.h"

int ff_hf_read_falcon(struct ff_hf_reader *r, struct ff_model *m)
{
    const char *type = r->model_type;
    static const char *const hidden[] = {"hidden_size", "n_embed", NULL};
    static const char *const layers[] = {"num_hidden_layers", "n_layer", NULL};
    static const char *const heads[] = {"num_attention_heads", "n_head", NULL};
    static const char *const kv[] = {"num_kv_heads", "n_head_kv", NULL};
    bool new_arch = false, mq = true, parallel = true, bias = false;
    m->norm = FF_NORM_LAYERNORM;
    m->final_norm = true;
    const char *hidden_used = hidden[0], *heads_used = heads[0];
    TRY(ff_hf_get_int_alt(r, hidden, true, 0, 1, &m->hidden, &hidden_used));
    TRY(ff_hf_get_layers_alt(r, layers, true, 0, &m->layers));
    TRY(ff_hf_get_int_alt(r, heads, true, 0, 1, &m->heads, &heads_used));
    TRY(ff_hf_derive_head_dim(r, hidden_used, heads_used, false, m));
    /* The legacy remote-code configs: "RefinedWeb" is Falcon-40B's (modelling_RW.py:
     * grouped KV heads n_head_kv, ln_attn + ln_mlp: the new decoder architecture) and
     * "RefinedWebModel" Falcon-7B's (multi-query, one input_layernorm). */
    TRY(ff_hf_get_bool(r, "new_decoder_architecture", !strcmp(type, "RefinedWeb"), &new_arch));
    TRY(ff_hf_get_bool(r, "multi_query", true, &mq));
    TRY(ff_hf_get_bool(r, "parallel_attn", true, &parallel));
    TRY(ff_hf_get_bool(r, "bias", false, &bias));
    bool alibi = false;
    TRY(ff_hf_get_bool(r, "alibi", false, &alibi));
    /* FalconAttention: num_kv_heads (default: heads) with the new architecture or without
     * multi_query; else one shared K/V head. */
    int64_t kvh = 1;
    if (new_arch || !mq)
        TRY(ff_hf_get_int_alt(r, kv, false, m->heads, 1, &kvh, NULL));
    m->kv_heads = kvh;
    TRY(ff_hf_get_int(r, "ffn_hidden_size", false, 4 * m->hidden, 1, &m->ffn));
    TRY(ff_hf_get_int(r, "vocab_size", true, 0, 1, &m->vocab));
    TRY(ff_hf_get_int(r, "max_position_embeddings", false, 2048, 1, &m->max_positions));
    TRY(ff_hf_get_bool(r, "tie_word_embeddings", true, &m->tied_embeddings));
    m->attn_bias = m->mlp_bias = bias;
    /* FalconDecoderLayer: ln_attn + ln_mlp (new arch; num_ln_in_parallel_attn, Falcon2-11B:
     * 1), one input_layernorm when parallel. */
    int64_t lns = 2;
    if (new_arch)
        TRY(ff_hf_get_int(r, "num_ln_in_parallel_attn", false, 2, 1, &lns));
    if (lns > 2)
        return ff_hf_bad(r, "num_ln_in_parallel_attn", ff_hf_lookup(r, "num_ln_in_parallel_attn"),
                         "1 or 2");
    m->norms_per_layer = new_arch ? (int)lns : (parallel ? 1 : 2);
    return FF_OK;
}
