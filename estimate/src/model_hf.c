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
#include "json_read.h"

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
    return ff_json_bad_field(r->err, r->errlen, r->label, r->prefix, field, v, expected);
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

#define TRY(x) FF_TRY(x)

/*
 * A layer count: an integer from 1 to LAYERS_MAX (2^20). The bound is far above any published
 * model (hundreds of layers) and keeps every per-layer loop of the readers and the estimator short:
 * a config saying 26 billion layers is an error naming the field, not a hang.
 */
#define LAYERS_MAX (1 << 20)

static int get_layers_alt(struct reader *r, const char *const *names, bool required, int64_t def,
                          int64_t *out)
{
    const char *used = names[0];
    TRY(get_int_alt(r, names, required, def, 1, out, &used));
    if (*out > LAYERS_MAX)
        return bad(r, used, field(r, names, &used), "a layer count from 1 to 1048576 (2^20)");
    return FF_OK;
}

static int get_layers(struct reader *r, const char *name, bool required, int64_t def, int64_t *out)
{
    const char *names[] = {name, NULL};
    return get_layers_alt(r, names, required, def, out);
}

/* A JSON field of any kind, or NULL when absent or null. */
static json_object *lookup(struct reader *r, const char *name)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(r->root, name, &v) || !v ||
        json_object_is_type(v, json_type_null))
        return NULL;
    return v;
}

/* A string field; missing/null leaves *out = def. */
static int get_string(struct reader *r, const char *name, const char *def, const char **out)
{
    json_object *v = lookup(r, name);
    if (!v) {
        *out = def;
        return FF_OK;
    }
    if (!json_object_is_type(v, json_type_string) || !json_object_get_string(v))
        return bad(r, name, v, "a string");
    *out = json_object_get_string(v);
    return FF_OK;
}

/* A finite number > 0; missing/null leaves *out = def. */
static int get_positive(struct reader *r, const char *name, double def, double *out)
{
    json_object *v = lookup(r, name);
    if (!v) {
        *out = def;
        return FF_OK;
    }
    if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
        return bad(r, name, v, "a number > 0");
    double x = json_object_get_double(v);
    if (!isfinite(x) || !(x > 0.0) || x > 1e6)
        return bad(r, name, v, "a number > 0");
    *out = x;
    return FF_OK;
}

/* A sub-object of the config; NULL (and FF_OK) when absent or null. */
static int get_object(struct reader *r, const char *name, json_object **out)
{
    json_object *v = lookup(r, name);
    *out = NULL;
    if (!v)
        return FF_OK;
    if (!json_object_is_type(v, json_type_object))
        return bad(r, name, v, "an object");
    *out = v;
    return FF_OK;
}

/* A reader over a nested object, its fields named "<name>.<field>" in messages. */
static struct reader sub_reader(const struct reader *r, json_object *obj, const char *prefix)
{
    struct reader s = *r;
    s.root = obj;
    s.prefix = prefix;
    return s;
}

/* The field `name` must be absent, null or equal to `want` (a string): the reader counts that
 * variant only. */
static int require_string(struct reader *r, const char *name, const char *want)
{
    const char *v = want;
    TRY(get_string(r, name, want, &v));
    if (strcmp(v, want) != 0) {
        char expected[96];
        snprintf(expected, sizeof(expected), "\"%s\" (the only variant counted)", want);
        return bad(r, name, lookup(r, name), expected);
    }
    return FF_OK;
}

/*
 * layer_types (transformers >= 4.53: one "full_attention" / "sliding_attention" per block).
 * Sets m->sliding_layers and *present. Any other entry is an error naming it.
 */
static int read_layer_types(struct reader *r, struct ff_model *m, bool *present)
{
    *present = false;
    json_object *v = lookup(r, "layer_types");
    if (!v)
        return FF_OK;
    char expected[96];
    snprintf(expected, sizeof(expected),
             "an array of %lld \"full_attention\"/\"sliding_attention\"", (long long)m->layers);
    if (!json_object_is_type(v, json_type_array) ||
        (int64_t)json_object_array_length(v) != m->layers)
        return bad(r, "layer_types", v, expected);
    int64_t sliding = 0;
    for (size_t i = 0; i < json_object_array_length(v); i++) {
        json_object *t = json_object_array_get_idx(v, i);
        const char *s =
            t && json_object_is_type(t, json_type_string) ? json_object_get_string(t) : NULL;
        if (s && !strcmp(s, "sliding_attention"))
            sliding++;
        else if (!s || strcmp(s, "full_attention") != 0) {
            char name[48];
            snprintf(name, sizeof(name), "layer_types[%zu]", i);
            return bad(r, name, t, "\"full_attention\" or \"sliding_attention\"");
        }
    }
    m->sliding_layers = sliding;
    *present = true;
    return FF_OK;
}

/*
 * rope_scaling: null or an object whose rope_type (or legacy "type") is one transformers
 * knows. With original_max_position_embeddings the usable context is factor x original
 * (YaRN, dynamic NTK); without it max_position_embeddings already states it (Llama 3.1's
 * "llama3", Gemma 3's "linear", Phi-3's "longrope"/"su").
 */
static int read_rope(struct reader *r, struct ff_model *m)
{
    json_object *o = NULL;
    TRY(get_object(r, "rope_scaling", &o));
    if (!o)
        return FF_OK;
    struct reader s = sub_reader(r, o, "rope_scaling.");
    const char *type = NULL;
    TRY(get_string(&s, "rope_type", NULL, &type));
    if (!type)
        TRY(get_string(&s, "type", NULL, &type));
    static const char *const known[] = {"default",  "linear", "dynamic", "yarn", "llama3",
                                        "longrope", "su",     "mrope",   NULL};
    bool ok = false;
    for (size_t i = 0; type && known[i]; i++)
        ok = ok || !strcmp(type, known[i]);
    if (!ok)
        return bad(&s, "rope_type", type ? lookup(&s, "rope_type") : NULL,
                   "one of default, linear, dynamic, yarn, llama3, longrope, su, mrope");
    double factor = 1.0;
    TRY(get_positive(&s, "factor", 1.0, &factor));
    int64_t orig = 0;
    TRY(get_int(&s, "original_max_position_embeddings", false, 0, 1, &orig));
    if (orig > 0 && factor * (double)orig > (double)m->max_positions &&
        factor * (double)orig < (double)INT_FIELD_MAX)
        m->context_max = (int64_t)(factor * (double)orig);
    return FF_OK;
}

static void base(struct ff_model *m)
{
    m->norm = FF_NORM_RMSNORM;
    m->norms_per_layer = 2;
    m->final_norm = true;
}

/* Is `type` one of the space-separated words in `list`? */
static bool type_in(const char *type, const char *list)
{
    size_t n = strlen(type);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ' ');
        size_t k = e ? (size_t)(e - p) : strlen(p);
        if (k == n && !strncmp(p, type, n))
            return true;
        p += k + (e ? 1 : 0);
    }
    return false;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/*
 * Which blocks of a Qwen2-MoE / Qwen3-MoE model carry the sparse MoE block: layer i when i is
 * not in mlp_only_layers and (i + 1) % decoder_sparse_step == 0 (Qwen2MoeDecoderLayer).
 */
static int read_qwen_moe_layers(struct reader *r, struct ff_model *m)
{
    int64_t step = 1;
    TRY(get_int(r, "decoder_sparse_step", false, 1, 1, &step));
    json_object *only = lookup(r, "mlp_only_layers");
    char expected[96];
    snprintf(expected, sizeof(expected), "an array of distinct layer indices 0..%lld",
             (long long)m->layers - 1);
    if (only && !json_object_is_type(only, json_type_array))
        return bad(r, "mlp_only_layers", only, expected);
    /* Layers (i + 1) % step == 0 are sparse: layers / step of them, less each listed index
     * among them (counted once). Sorting the list keeps this O(K log K + 1) for any config. */
    int64_t moe = m->layers / step;
    size_t n_only = only ? json_object_array_length(only) : 0;
    if (n_only) {
        int64_t *idx = malloc(n_only * sizeof(*idx));
        if (!idx)
            return ff_errf(r->err, r->errlen, FF_ERR_NO_MEMORY, "%s: out of memory", r->label);
        for (size_t k = 0; k < n_only; k++) {
            json_object *x = json_object_array_get_idx(only, k);
            if (!x || !json_object_is_type(x, json_type_int) ||
                (idx[k] = json_object_get_int64(x)) < 0 || idx[k] >= m->layers) {
                free(idx);
                return bad(r, "mlp_only_layers", only, expected);
            }
        }
        qsort(idx, n_only, sizeof(*idx), cmp_i64);
        for (size_t k = 0; k < n_only; k++)
            if ((k == 0 || idx[k] != idx[k - 1]) && (idx[k] + 1) % step == 0)
                moe--;
        free(idx);
    }
    if (moe == 0)
        return bad(r, "decoder_sparse_step", lookup(r, "decoder_sparse_step"),
                   "a step that leaves at least one MoE layer");
    m->moe_layers = moe;
    m->dense_layers = m->layers - moe;
    return FF_OK;
}

/*
 * Llama and its relatives: one config class shape (hidden_size, num_hidden_layers,
 * num_attention_heads, num_key_value_heads, head_dim, intermediate_size), with per-family
 * defaults and extras from each configuration_<type>.py / modeling_<type>.py:
 * llama, mistral, mixtral, qwen2, qwen2_moe (qkv bias, shared expert with a gate), qwen3,
 * qwen3_moe (QK-norm), gemma, gemma2, gemma3_text (4 norms, QK-norm, local/global layers),
 * olmo2 (post-norms, QK-norm over the whole projection), phi3 (fused qkv and gate_up: the
 * same counts), cohere (parallel block, one LayerNorm without bias, tied, optional QK-norm),
 * gpt_oss (biases, attention sinks, MoE with biased experts and router, alternating windows).
 */
static int read_llama_like(struct reader *r, const char *type, struct ff_model *m)
{
    bool gemma = strncmp(type, "gemma", 5) == 0;
    bool gemma3 = !strcmp(type, "gemma3_text");
    bool qwen_moe = !strcmp(type, "qwen2_moe") || !strcmp(type, "qwen3_moe");
    bool cohere = !strcmp(type, "cohere");
    bool gpt_oss = !strcmp(type, "gpt_oss");
    base(m);
    m->gated_ffn = true;
    /* Gemma 3's multimodal text_config lists only what differs from Gemma3TextConfig. */
    TRY(get_int(r, "hidden_size", !gemma3, 2304, 1, &m->hidden));
    TRY(get_layers(r, "num_hidden_layers", !gemma3, 26, &m->layers));
    TRY(get_int(r, "num_attention_heads", !gemma3, 8, 1, &m->heads));
    TRY(get_int(r, "num_key_value_heads", false, gemma3 ? 4 : m->heads, 1, &m->kv_heads));
    static const char *const head_dim[] = {"head_dim", NULL};
    const char *used = NULL;
    if (field(r, head_dim, &used) || gemma3)
        TRY(get_int(r, "head_dim", !gemma3, 256, 1, &m->head_dim));
    else
        TRY(derive_head_dim(r, "hidden_size", "num_attention_heads", true, m));
    TRY(get_int(r, "intermediate_size", !gemma3, 9216, 1, &m->ffn));
    TRY(get_int(r, "vocab_size", !gemma3, 262208, 1, &m->vocab));
    TRY(get_int(r, "max_position_embeddings", false, gemma3 ? 131072 : 4096, 1, &m->max_positions));
    TRY(get_bool(r, "tie_word_embeddings", gemma || cohere, &m->tied_embeddings));
    TRY(get_bool(r, "attention_bias", gpt_oss, &m->attn_bias));
    TRY(get_bool(r, "mlp_bias", false, &m->mlp_bias));
    TRY(get_dropout(r, "attention_dropout", 0.0, NULL, 0.0, &m->dropout));
    TRY(read_rope(r, m));
    if (!strcmp(type, "qwen2") || !strcmp(type, "qwen2_moe"))
        m->qkv_bias_only = true; /* Qwen2Attention: bias on q/k/v projections only */
    if (!strcmp(type, "qwen3") || !strcmp(type, "qwen3_moe") || gemma3)
        m->qk_norm = FF_QK_NORM_HEAD_DIM; /* q_norm, k_norm: RMSNorm(head_dim) */
    if (!strcmp(type, "olmo2"))
        m->qk_norm = FF_QK_NORM_ALL; /* Olmo2Attention: RMSNorm(heads·head_dim), kv likewise */
    if (cohere) {
        bool qk = false;
        TRY(get_bool(r, "use_qk_norm", false, &qk));
        m->qk_norm = qk ? FF_QK_NORM_ALL : FF_QK_NORM_NONE; /* CohereLayerNorm((heads, hd)) */
        m->norm = FF_NORM_LAYERNORM_NOBIAS;                 /* CohereLayerNorm: no bias */
        m->norms_per_layer = 1; /* attention and MLP in parallel off one input_layernorm */
    }
    if (gemma3 || !strcmp(type, "gemma2"))
        m->norms_per_layer = 4; /* pre and post norms around attention and MLP */

    /* Sliding windows: layer_types when given, else each family's rule. */
    bool types = false;
    TRY(read_layer_types(r, m, &types));
    bool use_window = true;
    if (strncmp(type, "qwen", 4) == 0)
        TRY(get_bool(r, "use_sliding_window", false, &use_window));
    if (use_window || types)
        TRY(get_int(r, "sliding_window", false, gemma3 ? 4096 : 0, 0, &m->sliding_window));
    if (types) {
        if (m->sliding_layers > 0 && m->sliding_window == 0)
            return bad(r, "sliding_window", lookup(r, "sliding_window"),
                       "a window for the \"sliding_attention\" layers of layer_types");
        if (m->sliding_layers == 0)
            m->sliding_window = 0;
    } else if (strcmp(type, "gemma2") == 0) {
        m->sliding_layers = (m->layers + 1) / 2; /* even-numbered layers are local */
    } else if (gemma3) {
        /* Gemma3TextConfig: every sliding_window_pattern-th layer is global. */
        int64_t pattern = 6;
        TRY(get_int(r, "sliding_window_pattern", false, 6, 1, &pattern));
        m->sliding_layers = m->layers - m->layers / pattern;
    } else if (strncmp(type, "qwen", 4) == 0 && use_window && m->sliding_window > 0) {
        /* Qwen2Attention: layers from max_window_layers on use the window. */
        int64_t from = 0;
        TRY(get_int(r, "max_window_layers", false, 0, 0, &from));
        if (from >= m->layers)
            m->sliding_window = 0;
        else
            m->sliding_layers = m->layers - from;
    } else if (gpt_oss && m->sliding_window > 0) {
        m->sliding_layers = m->layers / 2; /* GptOssConfig: alternating, sliding first */
    }
    if (gemma && m->sliding_layers == m->layers)
        m->sliding_layers = 0; /* 0 with a window means every layer */

    if (strcmp(type, "mixtral") == 0) {
        TRY(get_int(r, "num_local_experts", true, 0, 1, &m->experts));
        TRY(get_int(r, "num_experts_per_tok", true, 0, 1, &m->experts_active));
    }
    if (qwen_moe) {
        TRY(get_int(r, "num_experts", true, 0, 1, &m->experts));
        TRY(get_int(r, "num_experts_per_tok", true, 0, 1, &m->experts_active));
        TRY(get_int(r, "moe_intermediate_size", true, 0, 1, &m->moe_ffn));
        TRY(read_qwen_moe_layers(r, m));
        if (!strcmp(type, "qwen2_moe")) {
            /* Qwen2MoeSparseMoeBlock: one shared expert of its own width, sigmoid-gated. */
            TRY(get_int(r, "shared_expert_intermediate_size", true, 0, 1, &m->shared_ffn));
            m->shared_experts = 1;
            m->shared_expert_gate = true;
        }
    }
    if (gpt_oss) {
        static const char *const k[] = {"num_experts_per_tok", "experts_per_token", NULL};
        TRY(get_int(r, "num_local_experts", true, 0, 1, &m->experts));
        TRY(get_int_alt(r, k, true, 0, 1, &m->experts_active, NULL));
        m->moe_ffn = m->ffn; /* GptOssExperts: expert_dim = intermediate_size */
        m->mlp_bias = true;  /* gate_up_proj_bias, down_proj_bias */
        m->router_bias = true;
        m->attn_sinks = true;
    }
    return FF_OK;
}

/*
 * Gemma 3 with its vision tower (model_type "gemma3"): the language model from text_config,
 * plus SigLIP (vision_config) and the multimodal projector, stored with it and counted in
 * memory but not in the FLOPs of a text token.
 */
static int read_gemma3(struct reader *r, struct ff_model *m)
{
    json_object *text = NULL, *vision = NULL;
    TRY(get_object(r, "text_config", &text));
    if (!text)
        return bad(r, "text_config", NULL, "an object (Gemma3TextConfig)");
    struct reader t = sub_reader(r, text, "text_config.");
    TRY(read_llama_like(&t, "gemma3_text", m));
    TRY(get_object(r, "vision_config", &vision));
    if (!vision)
        return bad(r, "vision_config", NULL, "an object (SiglipVisionConfig)");
    struct reader v = sub_reader(r, vision, "vision_config.");
    TRY(require_string(&v, "model_type", "siglip_vision_model"));
    bool head = false;
    TRY(get_bool(&v, "vision_use_head", false, &head));
    if (head)
        return bad(&v, "vision_use_head", lookup(&v, "vision_use_head"), "false");
    int64_t hv, iv, lv, patch, image, ch;
    TRY(get_int(&v, "hidden_size", false, 768, 1, &hv));
    TRY(get_int(&v, "intermediate_size", false, 3072, 1, &iv));
    TRY(get_layers(&v, "num_hidden_layers", false, 12, &lv));
    TRY(get_int(&v, "patch_size", false, 16, 1, &patch));
    TRY(get_int(&v, "image_size", false, 224, 1, &image));
    TRY(get_int(&v, "num_channels", false, 3, 1, &ch));
    if (image % patch != 0 || hv > ((int64_t)1 << 20) || iv > ((int64_t)1 << 20) || lv > 4096 ||
        image > ((int64_t)1 << 16) || ch > 64)
        return bad(&v, "image_size", lookup(&v, "image_size"),
                   "a multiple of patch_size, and sizes a vision tower can have");
    double H = (double)hv, I = (double)iv, grid = (double)(image / patch);
    /* SiglipVisionEmbeddings: patch conv (with bias) and learned positions; per layer
     * q/k/v/o with biases, fc1/fc2 with biases, two LayerNorms; post_layernorm. */
    double siglip = (double)ch * (double)patch * (double)patch * H + H + grid * grid * H +
                    (double)lv * (4.0 * (H * H + H) + 2.0 * H * I + I + H + 4.0 * H) + 2.0 * H;
    /* Gemma3MultiModalProjector: mm_input_projection_weight (vision x text) and an RMSNorm. */
    double proj = H * (double)m->hidden + H;
    m->encoder_params = (int64_t)(siglip + proj);
    return FF_OK;
}

/* GPT-J (GPTJConfig): parallel attention and MLP off one LayerNorm, no attention biases,
 * biased MLP, untied LM head with a bias, rotary positions. */
static int read_gptj(struct reader *r, struct ff_model *m)
{
    m->norm = FF_NORM_LAYERNORM;
    m->norms_per_layer = 1;
    m->final_norm = true;
    m->mlp_bias = true;
    m->lm_head_bias = true;
    TRY(get_int(r, "n_embd", true, 0, 1, &m->hidden));
    TRY(get_layers(r, "n_layer", true, 0, &m->layers));
    TRY(get_int(r, "n_head", true, 0, 1, &m->heads));
    m->kv_heads = m->heads;
    TRY(derive_head_dim(r, "n_embd", "n_head", false, m));
    TRY(get_int(r, "n_inner", false, 4 * m->hidden, 1, &m->ffn));
    TRY(get_int(r, "vocab_size", true, 0, 1, &m->vocab));
    TRY(get_int(r, "n_positions", false, 2048, 1, &m->max_positions));
    TRY(get_bool(r, "tie_word_embeddings", false, &m->tied_embeddings));
    TRY(get_dropout(r, "attn_pdrop", 0.0, "resid_pdrop", 0.0, &m->dropout));
    return FF_OK;
}

/* StarCoder2 (Starcoder2Config): GQA, biases everywhere (use_bias), LayerNorm with bias,
 * GELU MLP c_fc/c_proj, sliding window on every layer. */
static int read_starcoder2(struct reader *r, struct ff_model *m)
{
    m->norm = FF_NORM_LAYERNORM;
    m->norms_per_layer = 2;
    m->final_norm = true;
    TRY(require_string(r, "norm_type", "layer_norm"));
    TRY(require_string(r, "mlp_type", "default"));
    TRY(get_int(r, "hidden_size", true, 0, 1, &m->hidden));
    TRY(get_layers(r, "num_hidden_layers", true, 0, &m->layers));
    TRY(get_int(r, "num_attention_heads", true, 0, 1, &m->heads));
    TRY(get_int(r, "num_key_value_heads", false, 2, 1, &m->kv_heads));
    TRY(derive_head_dim(r, "hidden_size", "num_attention_heads", false, m));
    TRY(get_int(r, "intermediate_size", true, 0, 1, &m->ffn));
    TRY(get_int(r, "vocab_size", true, 0, 1, &m->vocab));
    TRY(get_int(r, "max_position_embeddings", false, 4096, 1, &m->max_positions));
    TRY(get_int(r, "sliding_window", false, 0, 0, &m->sliding_window));
    bool bias = true;
    TRY(get_bool(r, "use_bias", true, &bias));
    m->attn_bias = m->mlp_bias = bias;
    TRY(get_bool(r, "tie_word_embeddings", true, &m->tied_embeddings));
    TRY(get_dropout(r, "attention_dropout", 0.0, "residual_dropout", 0.0, &m->dropout));
    TRY(read_rope(r, m));
    return FF_OK;
}

/* Mamba's dt rank: an integer or "auto" = ceil(hidden / 16) (MambaConfig, JambaConfig). */
static int get_dt_rank(struct reader *r, const char *name, struct ff_model *m)
{
    json_object *v = lookup(r, name);
    if (!v ||
        (json_object_is_type(v, json_type_string) && !strcmp(json_object_get_string(v), "auto"))) {
        m->ssm_dt_rank = (m->hidden + 15) / 16;
        return FF_OK;
    }
    return get_int(r, name, true, 0, 1, &m->ssm_dt_rank);
}

/* Mamba and Falcon-Mamba (MambaConfig / FalconMambaConfig): every block one RMSNorm and a
 * Mamba mixer, no attention, no FFN. Falcon-Mamba's B/C/dt RMS norms carry no weights. */
static int read_mamba(struct reader *r, struct ff_model *m)
{
    m->norm = FF_NORM_RMSNORM;
    m->norms_per_layer = 1;
    m->final_norm = true;
    m->ffn_absent = true;
    TRY(get_int(r, "hidden_size", true, 0, 1, &m->hidden));
    TRY(get_layers(r, "num_hidden_layers", true, 0, &m->layers));
    TRY(get_int(r, "vocab_size", true, 0, 1, &m->vocab));
    m->ssm_layers = m->layers;
    TRY(get_int(r, "state_size", false, 16, 1, &m->ssm_state));
    TRY(get_int(r, "conv_kernel", false, 4, 1, &m->ssm_conv));
    int64_t expand = 2;
    TRY(get_int(r, "expand", false, 2, 1, &expand));
    int64_t inner = 0;
    TRY(checked_mul(r, expand, m->hidden, "expand", "expand x hidden_size", &inner));
    TRY(get_int(r, "intermediate_size", false, inner, 1, &m->ssm_inner));
    TRY(get_dt_rank(r, "time_step_rank", m));
    TRY(get_bool(r, "use_conv_bias", true, &m->ssm_conv_bias));
    TRY(get_bool(r, "use_bias", false, &m->ssm_proj_bias));
    TRY(get_bool(r, "tie_word_embeddings", true, &m->tied_embeddings));
    return FF_OK;
}

/*
 * Jamba (JambaConfig): blocks alternate Mamba and attention mixers (attention where
 * i % attn_layer_period == attn_layer_offset) and dense and MoE FFNs (MoE where
 * i % expert_layer_period == expert_layer_offset); Mamba mixers carry dt/B/C RMSNorms.
 */
static int read_jamba(struct reader *r, struct ff_model *m)
{
    base(m);
    m->gated_ffn = true;
    TRY(get_int(r, "hidden_size", true, 0, 1, &m->hidden));
    TRY(get_layers(r, "num_hidden_layers", true, 0, &m->layers));
    TRY(get_int(r, "num_attention_heads", true, 0, 1, &m->heads));
    TRY(get_int(r, "num_key_value_heads", false, 8, 1, &m->kv_heads));
    TRY(derive_head_dim(r, "hidden_size", "num_attention_heads", false, m));
    TRY(get_int(r, "intermediate_size", true, 0, 1, &m->ffn));
    TRY(get_int(r, "vocab_size", false, 65536, 1, &m->vocab));
    TRY(get_int(r, "max_position_embeddings", false, 262144, 1, &m->max_positions));
    TRY(get_bool(r, "tie_word_embeddings", false, &m->tied_embeddings));
    int64_t ap, ao, ep, eo, experts;
    TRY(get_int(r, "attn_layer_period", false, 8, 1, &ap));
    TRY(get_int(r, "attn_layer_offset", false, 4, 0, &ao));
    TRY(get_int(r, "expert_layer_period", false, 2, 1, &ep));
    TRY(get_int(r, "expert_layer_offset", false, 1, 0, &eo));
    TRY(get_int(r, "num_experts", false, 16, 1, &experts));
    if (ao >= ap)
        return bad(r, "attn_layer_offset", lookup(r, "attn_layer_offset"),
                   "less than attn_layer_period");
    if (eo >= ep)
        return bad(r, "expert_layer_offset", lookup(r, "expert_layer_offset"),
                   "less than expert_layer_period");
    int64_t attn = 0, moe = 0;
    for (int64_t i = 0; i < m->layers; i++) {
        attn += i % ap == ao;
        moe += experts > 1 && i % ep == eo;
    }
    m->ssm_layers = m->layers - attn;
    if (moe > 0) {
        m->experts = experts;
        TRY(get_int(r, "num_experts_per_tok", false, 2, 1, &m->experts_active));
        m->moe_layers = moe;
        m->dense_layers = m->layers - moe;
    }
    TRY(get_int(r, "mamba_d_state", false, 16, 1, &m->ssm_state));
    TRY(get_int(r, "mamba_d_conv", false, 4, 1, &m->ssm_conv));
    int64_t expand = 2;
    TRY(get_int(r, "mamba_expand", false, 2, 1, &expand));
    TRY(checked_mul(r, expand, m->hidden, "mamba_expand", "mamba_expand x hidden_size",
                    &m->ssm_inner));
    TRY(get_dt_rank(r, "mamba_dt_rank", m));
    TRY(get_bool(r, "mamba_conv_bias", true, &m->ssm_conv_bias));
    TRY(get_bool(r, "mamba_proj_bias", false, &m->ssm_proj_bias));
    m->ssm_inner_norms = true;
    return FF_OK;
}

static int read_gpt2(struct reader *r, struct ff_model *m)
{
    m->norm = FF_NORM_LAYERNORM;
    m->norms_per_layer = 2;
    m->final_norm = true;
    m->attn_bias = m->mlp_bias = true;
    TRY(get_int(r, "n_embd", true, 0, 1, &m->hidden));
    TRY(get_layers(r, "n_layer", true, 0, &m->layers));
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
    TRY(get_layers(r, "num_hidden_layers", true, 0, &m->layers));
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
    TRY(get_layers(r, "num_hidden_layers", true, 0, &m->layers));
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

static int read_falcon(struct reader *r, const char *type, struct ff_model *m)
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
    TRY(get_layers_alt(r, layers, true, 0, &m->layers));
    TRY(get_int_alt(r, heads, true, 0, 1, &m->heads, &heads_used));
    TRY(derive_head_dim(r, hidden_used, heads_used, false, m));
    /* The legacy remote-code configs: "RefinedWeb" is Falcon-40B's (modelling_RW.py:
     * grouped KV heads n_head_kv, ln_attn + ln_mlp: the new decoder architecture) and
     * "RefinedWebModel" Falcon-7B's (multi-query, one input_layernorm). */
    TRY(get_bool(r, "new_decoder_architecture", !strcmp(type, "RefinedWeb"), &new_arch));
    TRY(get_bool(r, "multi_query", true, &mq));
    TRY(get_bool(r, "parallel_attn", true, &parallel));
    TRY(get_bool(r, "bias", false, &bias));
    bool alibi = false;
    TRY(get_bool(r, "alibi", false, &alibi));
    /* FalconAttention: num_kv_heads (default: heads) with the new architecture or without
     * multi_query; else one shared K/V head. */
    int64_t kvh = 1;
    if (new_arch || !mq)
        TRY(get_int_alt(r, kv, false, m->heads, 1, &kvh, NULL));
    m->kv_heads = kvh;
    TRY(get_int(r, "ffn_hidden_size", false, 4 * m->hidden, 1, &m->ffn));
    TRY(get_int(r, "vocab_size", true, 0, 1, &m->vocab));
    TRY(get_int(r, "max_position_embeddings", false, 2048, 1, &m->max_positions));
    TRY(get_bool(r, "tie_word_embeddings", true, &m->tied_embeddings));
    m->attn_bias = m->mlp_bias = bias;
    /* FalconDecoderLayer: ln_attn + ln_mlp (new arch; num_ln_in_parallel_attn, Falcon2-11B:
     * 1), one input_layernorm when parallel. */
    int64_t lns = 2;
    if (new_arch)
        TRY(get_int(r, "num_ln_in_parallel_attn", false, 2, 1, &lns));
    if (lns > 2)
        return bad(r, "num_ln_in_parallel_attn", lookup(r, "num_ln_in_parallel_attn"), "1 or 2");
    m->norms_per_layer = new_arch ? (int)lns : (parallel ? 1 : 2);
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
    TRY(get_layers(r, "n_layer", true, 0, &m->layers));
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
    TRY(get_layers(r, "n_layers", true, 0, &m->layers));
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
    TRY(get_layers(r, "num_hidden_layers", true, 0, &m->layers));
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
    "llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, gemma, gemma2, gemma3, "
    "gemma3_text, phi3, olmo2, cohere, gpt_oss, gpt2, gptj, opt, gpt_neox, falcon (and "
    "RefinedWeb, RefinedWebModel), bloom, mpt, starcoder2, deepseek_v2, deepseek_v3, jamba, "
    "mamba, falcon_mamba";

static int dispatch(struct reader *r, const char *type, struct ff_model *m)
{
    if (type_in(type, "llama mistral mixtral qwen2 qwen2_moe qwen3 qwen3_moe gemma gemma2 "
                      "gemma3_text phi3 olmo2 cohere gpt_oss"))
        return read_llama_like(r, type, m);
    if (!strcmp(type, "gemma3"))
        return read_gemma3(r, m);
    if (!strcmp(type, "gpt2"))
        return read_gpt2(r, m);
    if (!strcmp(type, "gptj"))
        return read_gptj(r, m);
    if (!strcmp(type, "opt"))
        return read_opt(r, m);
    if (!strcmp(type, "gpt_neox"))
        return read_neox(r, m);
    if (!strcmp(type, "falcon") || !strcmp(type, "RefinedWeb") || !strcmp(type, "RefinedWebModel"))
        return read_falcon(r, type, m);
    if (!strcmp(type, "bloom"))
        return read_bloom(r, m);
    if (!strcmp(type, "mpt"))
        return read_mpt(r, m);
    if (!strcmp(type, "starcoder2"))
        return read_starcoder2(r, m);
    if (!strcmp(type, "deepseek_v2") || !strcmp(type, "deepseek_v3"))
        return read_deepseek(r, m);
    if (!strcmp(type, "jamba"))
        return read_jamba(r, m);
    if (!strcmp(type, "mamba") || !strcmp(type, "falcon_mamba"))
        return read_mamba(r, m);
    return ff_errf(r->err, r->errlen, FF_ERR_UNSUPPORTED,
                   "%s: model_type \"%s\" is not supported (supported: %s)", r->label, type,
                   supported);
}

/*
 * How the checkpoint stores its weights: quantization_config.quant_method when present
 * (every method named here is understood; another is an error naming it), else torch_dtype.
 */
static int read_storage(struct reader *r, struct ff_model *m)
{
    json_object *q = NULL;
    TRY(get_object(r, "quantization_config", &q));
    const char *fmt = "";
    if (q) {
        struct reader s = sub_reader(r, q, "quantization_config.");
        const char *method = NULL;
        TRY(get_string(&s, "quant_method", NULL, &method));
        if (!method)
            return bad(&s, "quant_method", NULL, "a string");
        if (!strcmp(method, "mxfp4"))
            fmt = "mxfp4";
        else if (!strcmp(method, "fp8") || !strcmp(method, "fbgemm_fp8"))
            fmt = "fp8";
        else if (!strcmp(method, "bitsandbytes")) {
            bool four = false, eight = false;
            TRY(get_bool(&s, "load_in_4bit", false, &four));
            TRY(get_bool(&s, "load_in_8bit", false, &eight));
            if (four == eight)
                return bad(&s, "load_in_4bit", lookup(&s, "load_in_4bit"),
                           "true or false, the opposite of load_in_8bit");
            fmt = four ? "nf4" : "int8";
        } else if (!strcmp(method, "gptq") || !strcmp(method, "awq")) {
            int64_t bits = 4;
            TRY(get_int(&s, "bits", false, 4, 1, &bits));
            if (bits != 4 && bits != 8)
                return bad(&s, "bits", lookup(&s, "bits"), "4 or 8");
            fmt = bits == 4 ? "int4" : "int8";
        } else {
            return bad(&s, "quant_method", lookup(&s, "quant_method"),
                       "mxfp4, fp8, fbgemm_fp8, bitsandbytes, gptq or awq");
        }
    } else {
        const char *dt = NULL;
        TRY(get_string(r, "torch_dtype", NULL, &dt));
        if (!dt)
            TRY(get_string(r, "dtype", NULL, &dt));
        if (dt && !strcmp(dt, "bfloat16"))
            fmt = "bf16";
        else if (dt && !strcmp(dt, "float16"))
            fmt = "fp16";
        else if (dt && !strcmp(dt, "float32"))
            fmt = "fp32";
    }
    ff_strlcpy(m->stored_format, fmt, sizeof(m->stored_format));
    return FF_OK;
}

int ff_model_from_hf_text(const char *text, size_t len, const char *label, struct ff_model *out,
                          char *err, size_t errlen)
{
    if (!label)
        label = "config.json";
    if (!text || !out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: no input", label);
    int rc = ff_model_out_check(out, err, errlen);
    if (rc != FF_OK)
        return rc;
    if (len > CONFIG_MAX_BYTES)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "%s: %zu bytes, larger than the %zu-byte limit; not a config.json", label,
                       len, CONFIG_MAX_BYTES);
    /* A tokener of our own and an explicit length: no json-c global state, no strlen. */
    json_object *root = NULL;
    rc = ff_json_parse_object(text, len, label, "a config.json", false, &root, err, errlen);
    if (rc != FF_OK)
        return rc;
    struct reader r = {label, root, err, errlen, ""};
    json_object *type = NULL;
    if (!json_object_object_get_ex(root, "model_type", &type) || !type ||
        !json_object_is_type(type, json_type_string) || !json_object_get_string(type)) {
        rc = bad(&r, "model_type", type, "a string such as \"llama\"");
        goto error_root;
    }
    const char *type_name = json_object_get_string(type);
    struct ff_model m;
    ff_model_init(&m);
    rc = dispatch(&r, type_name, &m);
    if (rc == FF_OK)
        rc = read_storage(&r, &m);
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
    ff_abi_copy_out(out, &m, sizeof(m));
error_root:
    json_object_put(root);
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

#define INDEX_MAX_BYTES ((size_t)64 * 1024 * 1024)
#define STORED_MAX      ((int64_t)1 << 50) /* 1 PiB: larger is not a checkpoint */

/* metadata.total_size of a model.safetensors.index.json. */
static int index_total_size(const char *path, double *out, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    int rc = ff_read_file_capped(path, INDEX_MAX_BYTES, "model.safetensors.index.json", &text, &len,
                                 err, errlen);
    if (rc != FF_OK)
        return rc;
    json_object *root = NULL;
    rc = ff_json_parse_object(text, len, path, "a model.safetensors.index.json", false, &root, err,
                              errlen);
    free(text);
    if (rc != FF_OK)
        return rc;
    struct reader r = {path, root, err, errlen, ""};
    json_object *meta = NULL;
    rc = get_object(&r, "metadata", &meta);
    if (rc == FF_OK && !meta)
        rc = bad(&r, "metadata", NULL, "an object with total_size");
    if (rc == FF_OK) {
        struct reader s = sub_reader(&r, meta, "metadata.");
        int64_t total = 0;
        /* get_int bounds to 2^40; a checkpoint can be larger, so read it here. */
        json_object *v = lookup(&s, "total_size");
        if (!v)
            rc = bad(&s, "total_size", NULL, "a byte count");
        else if (json_object_is_type(v, json_type_int)) {
            errno = 0;
            total = json_object_get_int64(v);
            if (errno || total < 1 || total > STORED_MAX)
                rc = bad(&s, "total_size", v, "a byte count from 1 to 2^50");
        } else if (json_object_is_type(v, json_type_double)) {
            double d = json_object_get_double(v);
            if (!(d >= 1.0 && d <= (double)STORED_MAX) || d != floor(d))
                rc = bad(&s, "total_size", v, "a byte count from 1 to 2^50");
            total = (int64_t)d;
        } else {
            rc = bad(&s, "total_size", v, "a byte count from 1 to 2^50");
        }
        if (rc == FF_OK)
            *out = (double)total;
    }
    json_object_put(root);
    return rc;
}

/* Tensor bytes of one safetensors file: its size less the 8-byte length and the header. */
static int safetensors_bytes(const char *path, double *out, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return ff_errf(err, errlen, FF_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    unsigned char b[8];
    int rc = FF_OK;
    long long size = -1;
    if (fread(b, 1, 8, f) != 8 || fseeko(f, 0, SEEK_END) != 0 || (size = ftello(f)) < 8) {
        rc = ff_errf(err, errlen, FF_ERR_INVALID, "%s: not a safetensors file (too short)", path);
    } else {
        uint64_t hlen = 0;
        for (int i = 7; i >= 0; i--)
            hlen = hlen << 8 | b[i];
        if (hlen > (uint64_t)size - 8)
            rc = ff_errf(err, errlen, FF_ERR_INVALID,
                         "%s: header length %llu is larger than the file; not a safetensors "
                         "file",
                         path, (unsigned long long)hlen);
        else
            *out = (double)((uint64_t)size - 8 - hlen);
    }
    fclose(f);
    return rc;
}

int ff_model_from_hf_dir(const char *dir, struct ff_model *out, char *err, size_t errlen)
{
    if (!dir || !out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no path");
    char path[4096];
    int n = snprintf(path, sizeof(path), "%s/config.json", dir);
    if (n < 0 || (size_t)n >= sizeof(path))
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: path too long", dir);
    int rc = ff_model_out_check(out, err, errlen);
    if (rc != FF_OK)
        return rc;
    struct ff_model m;
    ff_model_init(&m);
    rc = ff_model_from_hf_config(path, &m, err, errlen);
    if (rc != FF_OK)
        return rc;
    /* The folder's name, not "config.json", names the model in reports. */
    const char *end = dir + strlen(dir);
    while (end > dir && end[-1] == '/')
        end--;
    const char *start = end;
    while (start > dir && start[-1] != '/')
        start--;
    if (end > start) {
        size_t k =
            (size_t)(end - start) < sizeof(m.name) - 1 ? (size_t)(end - start) : sizeof(m.name) - 1;
        memcpy(m.name, start, k);
        m.name[k] = '\0';
    }
    double stored = 0.0;
    snprintf(path, sizeof(path), "%s/model.safetensors.index.json", dir);
    FILE *probe = fopen(path, "rb");
    if (probe) {
        fclose(probe);
        rc = index_total_size(path, &stored, err, errlen);
    } else {
        snprintf(path, sizeof(path), "%s/model.safetensors", dir);
        if ((probe = fopen(path, "rb")) != NULL) {
            fclose(probe);
            rc = safetensors_bytes(path, &stored, err, errlen);
        }
    }
    if (rc != FF_OK)
        return rc;
    m.stored_bytes = stored;
    ff_abi_copy_out(out, &m, sizeof(m));
    return FF_OK;
}
