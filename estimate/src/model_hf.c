/*
 * estimate/src/model_hf.c — a Hugging Face config.json read for real (json-c).
 *
 * Field names and defaults follow each architecture's transformers configuration class
 * (configuration_<type>.py). Errors name the file, the field and what was expected.
 *
 * Hardened for hostile input (fuzzed): the file is read through ff_read_file_capped (regular
 * files only, CONFIG_MAX_BYTES), parsed with a private json_tokener (no json-c global state),
 * every lookup is checked for NULL (json-c's JSON null) and type, integers are bounded to
 * [min, 2^40] and products of them are checked against the same bound before they are formed,
 * numbers must be finite, and hidden / heads must divide exactly where head_dim is derived.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "flopfit/model.h"
#include "flopfit/status.h"
#include "internal.h"

#define CONFIG_MAX_BYTES ((size_t)16 * 1024 * 1024)
#define INT_FIELD_MAX    ((int64_t)1 << 40) /* largest integer field, and product of two */

struct reader {
    const char *label;
    json_object *root;
    char *err;
    size_t errlen;
    const char *prefix; /* "" at top level, "attn_config." inside that object */
};

static int bad(struct reader *r, const char *field, json_object *v, const char *expected)
{
    const char *pre = r->prefix ? r->prefix : "";
    if (!v)
        return ff_errf(r->err, r->errlen, FF_ERR_INVALID,
                       "%s: field \"%s%s\" is missing (expected %s)", r->label, pre, field,
                       expected);
    char text[96];
    if (json_object_is_type(v, json_type_double))
        snprintf(text, sizeof(text), "%g", json_object_get_double(v));
    else
        snprintf(text, sizeof(text), "%s",
                 json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
    return ff_errf(r->err, r->errlen, FF_ERR_INVALID, "%s: field \"%s%s\" is %s (expected %s)",
                   r->label, pre, field, text, expected);
}

/*
 * a × b for two fields already bounded to [1, 2^40] (or derived values under 2^42), checked
 * against INT_FIELD_MAX before multiplying: the product can neither overflow int64_t nor
 * describe an impossible width. `field` is the one named in the message.
 */
static int checked_mul(struct reader *r, int64_t a, int64_t b, const char *field, const char *what,
                       int64_t *out)
{
    if (a <= 0 || b <= 0 || a > INT_FIELD_MAX / b)
        return ff_errf(r->err, r->errlen, FF_ERR_RANGE,
                       "%s: field \"%s%s\": %s = %lld x %lld is out of range (expected at most "
                       "2^40)",
                       r->label, r->prefix ? r->prefix : "", field, what, (long long)a,
                       (long long)b);
    *out = a * b;
    return FF_OK;
}

/* The first present, non-null field of a NULL-terminated list of alternatives. */
static json_object *field(struct reader *r, const char *const *names, const char **used)
{
    for (; *names; names++) {
        json_object *v = NULL;
        if (json_object_object_get_ex(r->root, *names, &v) && v &&
            !json_object_is_type(v, json_type_null)) {
            *used = *names;
            return v;
        }
    }
    return NULL;
}

/*
 * An integer field: a JSON integer (or an integral double) in [min, 2^40]. With
 * required == false a missing/null field leaves *out = def.
 */
static int get_int_alt(struct reader *r, const char *const *names, bool required, int64_t def,
                       int64_t min, int64_t *out, const char **used_out)
{
    const char *used = names[0];
    json_object *v = field(r, names, &used);
    if (used_out)
        *used_out = used;
    char expected[64];
    snprintf(expected, sizeof(expected), "an integer >= %lld", (long long)min);
    if (!v) {
        if (required)
            return bad(r, names[0], NULL, expected);
        *out = def;
        return FF_OK;
    }
    int64_t x;
    if (json_object_is_type(v, json_type_int)) {
        errno = 0;
        x = json_object_get_int64(v);
        if (errno == EINVAL)
            return bad(r, used, v, expected);
    } else if (json_object_is_type(v, json_type_double)) {
        double d = json_object_get_double(v);
        if (!(d >= -1e12 && d <= 1e12) || d != (double)(int64_t)d)
            return bad(r, used, v, expected);
        x = (int64_t)d;
    } else {
        return bad(r, used, v, expected);
    }
    if (x < min || x > INT_FIELD_MAX)
        return bad(r, used, v, expected);
    *out = x;
    return FF_OK;
}

static int get_int(struct reader *r, const char *name, bool required, int64_t def, int64_t min,
                   int64_t *out)
{
    const char *names[] = {name, NULL};
    return get_int_alt(r, names, required, def, min, out, NULL);
}

/*
 * head_dim = hidden / heads where the architecture derives it: heads must divide hidden
 * exactly (a silently truncated head_dim would be a different model). `explicit_ok` says the
 * config could give head_dim itself instead.
 */
static int derive_head_dim(struct reader *r, const char *hidden_field, const char *heads_field,
                           bool explicit_ok, struct ff_model *m)
{
    if (m->heads <= 0 || m->hidden % m->heads != 0)
        return ff_errf(r->err, r->errlen, FF_ERR_INVALID,
                       "%s: field \"%s\" is %lld, which does not divide %s %lld (expected a "
                       "divisor of %s%s)",
                       r->label, heads_field, (long long)m->heads, hidden_field,
                       (long long)m->hidden, hidden_field,
                       explicit_ok ? ", or an explicit head_dim" : "");
    m->head_dim = m->hidden / m->heads;
    return FF_OK;
}

static int get_bool(struct reader *r, const char *name, bool def, bool *out)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(r->root, name, &v) || !v ||
        json_object_is_type(v, json_type_null)) {
        *out = def;
        return FF_OK;
    }
    if (!json_object_is_type(v, json_type_boolean))
        return bad(r, name, v, "true or false");
    *out = json_object_get_boolean(v);
    return FF_OK;
}

/* A probability (dropout): a finite number in [0, 1]; missing/null leaves *out = def. */
static int get_prob(struct reader *r, const char *name, double def, double *out)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(r->root, name, &v) || !v ||
        json_object_is_type(v, json_type_null)) {
        *out = def;
        return FF_OK;
    }
    if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
        return bad(r, name, v, "a number from 0 to 1");
    double x = json_object_get_double(v);
    if (!isfinite(x) || x < 0.0 || x > 1.0)
        return bad(r, name, v, "a number from 0 to 1");
    *out = x;
    return FF_OK;
}

/* Dropout is on when any of the named probabilities (with its default) is above 0. */
static int get_dropout(struct reader *r, const char *a, double def_a, const char *b, double def_b,
                       bool *out)
{
    double pa = 0.0, pb = 0.0;
    int rc = get_prob(r, a, def_a, &pa);
    if (rc == FF_OK && b)
        rc = get_prob(r, b, def_b, &pb);
    if (rc == FF_OK)
        *out = pa > 0.0 || pb > 0.0;
    return rc;
}

#define TRY(x)                                                                                     \
    do {                                                                                           \
        int rc_ = (x);                                                                             \
        if (rc_ != FF_OK)                                                                          \
            return rc_;                                                                            \
    } while (0)

static void base(struct ff_model *m)
{
    m->norm = FF_NORM_RMSNORM;
    m->norms_per_layer = 2;
    m->final_norm = true;
}

/* Llama, Mistral, Mixtral, Qwen2/3, Gemma, Gemma 2: HF LlamaConfig and relatives. */
static int read_llama_like(struct reader *r, const char *type, struct ff_model *m)
{
    bool gemma = strncmp(type, "gemma", 5) == 0;
    base(m);
    m->gated_ffn = true;
    TRY(get_int(r, "hidden_size", true, 0, 1, &m->hidden));
    TRY(get_int(r, "num_hidden_layers", true, 0, 1, &m->layers));
    TRY(get_int(r, "num_attention_heads", true, 0, 1, &m->heads));
    TRY(get_int(r, "num_key_value_heads", false, m->heads, 1, &m->kv_heads));
    static const char *const head_dim[] = {"head_dim", NULL};
    const char *used = NULL;
    if (field(r, head_dim, &used))
        TRY(get_int(r, "head_dim", true, 0, 1, &m->head_dim));
    else
        TRY(derive_head_dim(r, "hidden_size", "num_attention_heads", true, m));
    TRY(get_int(r, "intermediate_size", true, 0, 1, &m->ffn));
    TRY(get_int(r, "vocab_size", true, 0, 1, &m->vocab));
    TRY(get_int(r, "max_position_embeddings", false, 4096, 1, &m->max_positions));
    TRY(get_bool(r, "tie_word_embeddings", gemma, &m->tied_embeddings));
    TRY(get_bool(r, "attention_bias", false, &m->attn_bias));
    TRY(get_bool(r, "mlp_bias", false, &m->mlp_bias));
    TRY(get_dropout(r, "attention_dropout", 0.0, NULL, 0.0, &m->dropout));
    if (strcmp(type, "qwen2") == 0 || strcmp(type, "qwen2_moe") == 0)
        m->qkv_bias_only = true; /* Qwen2Attention: bias on q/k/v projections only */
    bool use_window = true;
    if (strncmp(type, "qwen", 4) == 0)
        TRY(get_bool(r, "use_sliding_window", false, &use_window));
    if (use_window)
        TRY(get_int(r, "sliding_window", false, 0, 0, &m->sliding_window));
    if (strcmp(type, "gemma2") == 0) {
        m->norms_per_layer = 4;            /* pre and post norms around attention and MLP */
        m->sliding_layers = m->layers / 2; /* local and global layers alternate */
    }
    if (strcmp(type, "mixtral") == 0) {
        TRY(get_int(r, "num_local_experts", true, 0, 1, &m->experts));
        TRY(get_int(r, "num_experts_per_tok", true, 0, 1, &m->experts_active));
    }
    return FF_OK;
}

static int read_gpt2(struct reader *r, struct ff_model *m)
{
    m->norm = FF_NORM_LAYERNORM;
    m->norms_per_layer = 2;
    m->final_norm = true;
    m->attn_bias = m->mlp_bias = true;
    TRY(get_int(r, "n_embd", true, 0, 1, &m->hidden));
    TRY(get_int(r, "n_layer", true, 0, 1, &m->layers));
    TRY(get_int(r, "n_head", true, 0, 1, &m->heads));
    m->kv_heads = m->heads;
    TRY(derive_head_dim(r, "n_embd", "n_head", false, m));
    /* hidden <= 2^40, so the default 4h cannot overflow (as for Falcon and BLOOM). */
    TRY(get_int(r, "n_inner", false, 4 * m->hidden, 1, &m->ffn));
    TRY(get_int(r, "vocab_size", true, 0, 1, &m->vocab));
    TRY(get_int(r, "n_positions", false, 1024, 1, &m->max_positions));
    m->learned_positions = m->max_positions;
    TRY(get_bool(r, "tie_word_embeddings", true, &m->tied_embeddings));
    TRY(get_dropout(r, "attn_pdrop", 0.1, "resid_pdrop", 0.1, &m->dropout));
    return FF_OK;
}

static int read_opt(struct reader *r, struct ff_model *m)
{
    m->norm = FF_NORM_LAYERNORM;
    m->norms_per_layer = 2;
    bool pre_ln = true, bias = true;
    TRY(get_int(r, "hidden_size", true, 0, 1, &m->hidden));
    TRY(get_int(r, "num_hidden_layers", true, 0, 1, &m->layers));
    TRY(get_int(r, "num_attention_heads", true, 0, 1, &m->heads));
    m->kv_heads = m->heads;
    TRY(derive_head_dim(r, "hidden_size", "num_attention_heads", false, m));
    TRY(get_int(r, "ffn_dim", true, 0, 1, &m->ffn));
    TRY(get_int(r, "vocab_size", true, 0, 1, &m->vocab));
    TRY(get_int(r, "max_position_embeddings", false, 2048, 1, &m->max_positions));
    m->learned_positions = m->max_positions + 2; /* OPTLearnedPositionalEmbedding offset 2 */
    int64_t proj = m->hidden;
    TRY(get_int(r, "word_embed_proj_dim", false, m->hidden, 1, &proj));
    m->embed_proj = proj != m->hidden ? proj : 0;
    TRY(get_bool(r, "do_layer_norm_before", true, &pre_ln));
    m->final_norm = pre_ln; /* OPT-350m (post-LN) has no final_layer_norm */
    TRY(get_bool(r, "enable_bias", true, &bias));
    m->attn_bias = m->mlp_bias = bias;
    TRY(get_bool(r, "tie_word_embeddings", true, &m->tied_embeddings));
    TRY(get_dropout(r, "dropout", 0.1, NULL, 0.0, &m->dropout));
    return FF_OK;
}

static int read_neox(struct reader *r, struct ff_model *m)
{
    m->norm = FF_NORM_LAYERNORM;
    m->norms_per_layer = 2;
    m->final_norm = true;
    TRY(get_int(r, "hidden_size", true, 0, 1, &m->hidden));
    TRY(get_int(r, "num_hidden_layers", true, 0, 1, &m->layers));
    TRY(get_int(r, "num_attention_heads", true, 0, 1, &m->heads));
    m->kv_heads = m->heads;
    TRY(derive_head_dim(r, "hidden_size", "num_attention_heads", false, m));
    TRY(get_int(r, "intermediate_size", true, 0, 1, &m->ffn));
    TRY(get_int(r, "vocab_size", true, 0, 1, &m->vocab));
    TRY(get_int(r, "max_position_embeddings", false, 2048, 1, &m->max_positions));
    TRY(get_bool(r, "tie_word_embeddings", false, &m->tied_embeddings));
    TRY(get_bool(r, "attention_bias", true, &m->attn_bias));
    m->mlp_bias = true;
    TRY(get_dropout(r, "attention_dropout", 0.0, "hidden_dropout", 0.0, &m->dropout));
    return FF_OK;
}

static int read_falcon(struct reader *r, struct ff_model *m)
{
    static const char *const hidden[] = {"hidden_size", "n_embed", NULL};
    static const char *const layers[] = {"num_hidden_layers", "n_layer", NULL};
    static const char *const heads[] = {"num_attention_heads", "n_head", NULL};
    static const char *const kv[] = {"num_kv_heads", "n_head_kv", NULL};
    bool new_arch = false, mq = true, parallel = true, bias = false;
    m->norm = FF_NORM_LAYERNORM;
    m->final_norm = true;
    const char *hidden_used = hidden[0], *heads_used = heads[0];
    TRY(get_int_alt(r, hidden, true, 0, 1, &m->hidden, &hidden_used));
    TRY(get_int_alt(r, layers, true, 0, 1, &m->layers, NULL));
    TRY(get_int_alt(r, heads, true, 0, 1, &m->heads, &heads_used));
    TRY(derive_head_dim(r, hidden_used, heads_used, false, m));
    TRY(get_bool(r, "new_decoder_architecture", false, &new_arch));
    TRY(get_bool(r, "multi_query", true, &mq));
    TRY(get_bool(r, "parallel_attn", true, &parallel));
    TRY(get_bool(r, "bias", false, &bias));
    /* FalconAttention: new architecture -> num_kv_heads; multi_query -> 1; else MHA. */
    int64_t kvh = new_arch ? 0 : (mq ? 1 : m->heads);
    if (new_arch)
        TRY(get_int_alt(r, kv, true, 0, 1, &kvh, NULL));
    m->kv_heads = kvh;
    TRY(get_int(r, "ffn_hidden_size", false, 4 * m->hidden, 1, &m->ffn));
    TRY(get_int(r, "vocab_size", true, 0, 1, &m->vocab));
    TRY(get_int(r, "max_position_embeddings", false, 2048, 1, &m->max_positions));
    TRY(get_bool(r, "tie_word_embeddings", true, &m->tied_embeddings));
    m->attn_bias = m->mlp_bias = bias;
    /* FalconDecoderLayer: ln_attn + ln_mlp (new arch), one input_layernorm when parallel. */
    m->norms_per_layer = new_arch ? 2 : (parallel ? 1 : 2);
    return FF_OK;
}

static int read_bloom(struct reader *r, struct ff_model *m)
{
    static const char *const hidden[] = {"hidden_size", "n_embed", NULL};
    static const char *const heads[] = {"n_head", "num_attention_heads", NULL};
    m->norm = FF_NORM_LAYERNORM;
    m->norms_per_layer = 2;
    m->final_norm = true;
    m->embed_norm = true; /* word_embeddings_layernorm */
    m->attn_bias = m->mlp_bias = true;
    const char *hidden_used = hidden[0], *heads_used = heads[0];
    TRY(get_int_alt(r, hidden, true, 0, 1, &m->hidden, &hidden_used));
    TRY(get_int(r, "n_layer", true, 0, 1, &m->layers));
    TRY(get_int_alt(r, heads, true, 0, 1, &m->heads, &heads_used));
    m->kv_heads = m->heads;
    TRY(derive_head_dim(r, hidden_used, heads_used, false, m));
    m->ffn = 4 * m->hidden;
    TRY(get_int(r, "vocab_size", true, 0, 1, &m->vocab));
    TRY(get_int(r, "seq_length", false, 2048, 1, &m->max_positions));
    TRY(get_bool(r, "tie_word_embeddings", true, &m->tied_embeddings));
    TRY(get_dropout(r, "attention_dropout", 0.0, "hidden_dropout", 0.0, &m->dropout));
    return FF_OK;
}

static int read_mpt(struct reader *r, struct ff_model *m)
{
    bool no_bias = true;
    m->norms_per_layer = 2;
    m->final_norm = true;
    TRY(get_int(r, "d_model", true, 0, 1, &m->hidden));
    TRY(get_int(r, "n_layers", true, 0, 1, &m->layers));
    TRY(get_int(r, "n_heads", true, 0, 1, &m->heads));
    TRY(derive_head_dim(r, "d_model", "n_heads", false, m));
    int64_t ratio = 4;
    TRY(get_int(r, "expansion_ratio", false, 4, 1, &ratio));
    TRY(checked_mul(r, m->hidden, ratio, "expansion_ratio", "d_model x expansion_ratio", &m->ffn));
    TRY(get_int(r, "vocab_size", true, 0, 1, &m->vocab));
    TRY(get_int(r, "max_seq_len", false, 2048, 1, &m->max_positions));
    TRY(get_bool(r, "no_bias", true, &no_bias));
    m->attn_bias = m->mlp_bias = !no_bias;
    m->norm = no_bias ? FF_NORM_LAYERNORM_NOBIAS : FF_NORM_LAYERNORM;
    TRY(get_bool(r, "tie_word_embeddings", true, &m->tied_embeddings));
    m->kv_heads = m->heads;
    json_object *attn = NULL;
    if (!json_object_object_get_ex(r->root, "attn_config", &attn) || !attn ||
        json_object_is_type(attn, json_type_null))
        return FF_OK; /* MPTConfig's default: multi-head attention */
    if (!json_object_is_type(attn, json_type_object))
        return bad(r, "attn_config", attn, "an object");
    struct reader sub = *r;
    sub.root = attn;
    sub.prefix = "attn_config.";
    int64_t kv_n_heads = m->heads;
    TRY(get_int(&sub, "kv_n_heads", false, m->heads, 1, &kv_n_heads));
    static const char *const types =
        "\"multihead_attention\", \"multiquery_attention\" or \"grouped_query_attention\"";
    /* json-c represents a JSON null as a NULL object: null and absent mean the default. */
    json_object *t = NULL;
    const char *type = "multihead_attention";
    if (json_object_object_get_ex(attn, "attn_type", &t) && t &&
        !json_object_is_type(t, json_type_null)) {
        if (!json_object_is_type(t, json_type_string) || !json_object_get_string(t))
            return bad(&sub, "attn_type", t, types);
        type = json_object_get_string(t);
    }
    if (strcmp(type, "multihead_attention") == 0)
        m->kv_heads = m->heads;
    else if (strcmp(type, "multiquery_attention") == 0)
        m->kv_heads = 1;
    else if (strcmp(type, "grouped_query_attention") == 0)
        m->kv_heads = kv_n_heads;
    else
        return bad(&sub, "attn_type", t, types);
    return FF_OK;
}

static int read_deepseek(struct reader *r, struct ff_model *m)
{
    base(m);
    m->gated_ffn = true;
    TRY(get_int(r, "hidden_size", true, 0, 1, &m->hidden));
    TRY(get_int(r, "num_hidden_layers", true, 0, 1, &m->layers));
    TRY(get_int(r, "num_attention_heads", true, 0, 1, &m->heads));
    TRY(get_int(r, "num_key_value_heads", false, m->heads, 1, &m->kv_heads));
    TRY(get_int(r, "q_lora_rank", false, 0, 0, &m->q_lora_rank));
    TRY(get_int(r, "kv_lora_rank", true, 0, 1, &m->kv_lora_rank));
    TRY(get_int(r, "qk_nope_head_dim", true, 0, 1, &m->qk_nope_head_dim));
    TRY(get_int(r, "qk_rope_head_dim", true, 0, 1, &m->qk_rope_head_dim));
    TRY(get_int(r, "v_head_dim", true, 0, 1, &m->v_head_dim));
    m->head_dim = m->qk_nope_head_dim + m->qk_rope_head_dim;
    TRY(get_int(r, "intermediate_size", true, 0, 1, &m->ffn));
    TRY(get_int(r, "vocab_size", true, 0, 1, &m->vocab));
    TRY(get_int(r, "max_position_embeddings", false, 4096, 1, &m->max_positions));
    TRY(get_bool(r, "tie_word_embeddings", false, &m->tied_embeddings));
    TRY(get_int(r, "n_routed_experts", false, 0, 0, &m->experts));
    if (m->experts > 0) {
        TRY(get_int(r, "num_experts_per_tok", true, 0, 1, &m->experts_active));
        TRY(get_int(r, "n_shared_experts", false, 0, 0, &m->shared_experts));
        TRY(get_int(r, "moe_intermediate_size", true, 0, 1, &m->moe_ffn));
        TRY(get_int(r, "first_k_dense_replace", false, 0, 0, &m->dense_layers));
        int64_t freq = 1;
        TRY(get_int(r, "moe_layer_freq", false, 1, 1, &freq));
        if (freq != 1) {
            json_object *v = NULL;
            if (!json_object_object_get_ex(r->root, "moe_layer_freq", &v))
                v = NULL;
            return bad(r, "moe_layer_freq", v, "1 (every layer after the dense ones)");
        }
    }
    return FF_OK;
}

static const char *const supported =
    "llama, mistral, mixtral, qwen2, qwen3, gemma, gemma2, gpt2, opt, gpt_neox, falcon, "
    "bloom, mpt, deepseek_v2, deepseek_v3";

static int dispatch(struct reader *r, const char *type, struct ff_model *m)
{
    if (!strcmp(type, "llama") || !strcmp(type, "mistral") || !strcmp(type, "mixtral") ||
        !strcmp(type, "qwen2") || !strcmp(type, "qwen3") || !strcmp(type, "gemma") ||
        !strcmp(type, "gemma2"))
        return read_llama_like(r, type, m);
    if (!strcmp(type, "gpt2"))
        return read_gpt2(r, m);
    if (!strcmp(type, "opt"))
        return read_opt(r, m);
    if (!strcmp(type, "gpt_neox"))
        return read_neox(r, m);
    if (!strcmp(type, "falcon") || !strcmp(type, "RefinedWeb") || !strcmp(type, "RefinedWebModel"))
        return read_falcon(r, m);
    if (!strcmp(type, "bloom"))
        return read_bloom(r, m);
    if (!strcmp(type, "mpt"))
        return read_mpt(r, m);
    if (!strcmp(type, "deepseek_v2") || !strcmp(type, "deepseek_v3"))
        return read_deepseek(r, m);
    return ff_errf(r->err, r->errlen, FF_ERR_UNSUPPORTED,
                   "%s: model_type \"%s\" is not supported (supported: %s)", r->label, type,
                   supported);
}

int ff_model_from_hf_text(const char *text, size_t len, const char *label, struct ff_model *out,
                          char *err, size_t errlen)
{
    if (!label)
        label = "config.json";
    if (!text || !out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: no input", label);
    if (len > CONFIG_MAX_BYTES)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "%s: %zu bytes, larger than the %zu-byte limit; not a config.json", label,
                       len, CONFIG_MAX_BYTES);
    if (memchr(text, '\0', len))
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: contains NUL bytes; not a config.json",
                       label);
    int rc = FF_OK;
    /* A tokener of our own and an explicit length: no json-c global state, no strlen. */
    json_tokener *tok = json_tokener_new();
    if (!tok)
        return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "%s: out of memory", label);
    json_object *root = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    if (jerr == json_tokener_success && !root) {
        /* json-c returns NULL for a top-level JSON null: well-formed, but not an object. */
        rc =
            ff_errf(err, errlen, FF_ERR_INVALID, "%s: top level is null, not a JSON object", label);
        goto error_parse;
    }
    if (!root || jerr != json_tokener_success) {
        rc = ff_errf(err, errlen, FF_ERR_INVALID, "%s: not valid JSON: %s (near byte %zu)", label,
                     jerr == json_tokener_continue || jerr == json_tokener_success
                         ? "unexpected end of input"
                         : json_tokener_error_desc(jerr),
                     end);
        goto error_parse;
    }
    for (size_t i = end; i < len; i++) {
        if (!strchr(" \t\r\n", text[i])) {
            rc = ff_errf(err, errlen, FF_ERR_INVALID,
                         "%s: not valid JSON: unexpected data after the top-level object "
                         "(byte %zu)",
                         label, i);
            goto error_root;
        }
    }
    if (!json_object_is_type(root, json_type_object)) {
        rc = ff_errf(err, errlen, FF_ERR_INVALID, "%s: top level is not a JSON object", label);
        goto error_root;
    }
    struct reader r = {label, root, err, errlen, ""};
    json_object *type = NULL;
    if (!json_object_object_get_ex(root, "model_type", &type) || !type ||
        !json_object_is_type(type, json_type_string) || !json_object_get_string(type)) {
        rc = bad(&r, "model_type", type, "a string such as \"llama\"");
        goto error_root;
    }
    const char *type_name = json_object_get_string(type);
    struct ff_model m;
    memset(&m, 0, sizeof(m));
    rc = dispatch(&r, type_name, &m);
    if (rc != FF_OK)
        goto error_root;
    const char *base = strrchr(label, '/');
    ff_strlcpy(m.name, base ? base + 1 : label, sizeof(m.name));
    snprintf(m.source, sizeof(m.source), "%s (model_type %s)", label, type_name);
    char why[200];
    if (ff_model_check(&m, why, sizeof(why)) != FF_OK) {
        rc = ff_errf(err, errlen, FF_ERR_INVALID, "%s: inconsistent config: %s", label, why);
        goto error_root;
    }
    struct ff_param_count pc;
    if (ff_model_params(&m, &pc) != FF_OK) {
        rc = ff_errf(err, errlen, FF_ERR_RANGE,
                     "%s: parameter count overflows (more than 2^53 parameters)", label);
        goto error_root;
    }
    *out = m;
error_root:
    json_object_put(root);
error_parse:
    json_tokener_free(tok);
    return rc;
}

int ff_model_from_hf_json(const char *json, const char *label, struct ff_model *out, char *err,
                          size_t errlen)
{
    if (!json || !out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no input");
    /* At most one byte past the cap is measured: a huge string is refused, not scanned. */
    size_t len = strnlen(json, CONFIG_MAX_BYTES + 1);
    return ff_model_from_hf_text(json, len, label, out, err, errlen);
}

int ff_model_from_hf_config(const char *path, struct ff_model *out, char *err, size_t errlen)
{
    if (!path || !out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no path");
    char *text = NULL;
    size_t len = 0;
    int rc = ff_read_file_capped(path, CONFIG_MAX_BYTES, "config.json", &text, &len, err, errlen);
    if (rc != FF_OK)
        return rc;
    rc = ff_model_from_hf_text(text, len, path, out, err, errlen);
    free(text);
    return rc;
}
