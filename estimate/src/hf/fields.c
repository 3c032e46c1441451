/*
 * estimate/src/hf/fields.c — the field getters of the config.json readers (reader.h): each
 * on top of the shared typed getters (ff_json.h), with config.json's bounds (integers to 2^40,
 * layer counts to 2^20) and its messages.
 *
 * Hardened for hostile input (fuzzed): every lookup is checked for NULL (json-c's JSON null)
 * and type, integers are bounded to [min, 2^40] and products of them are checked against the
 * same bound before they are formed, numbers must be finite, and hidden / heads must divide
 * exactly where head_dim is derived.
 */
#include <stdio.h>
#include <string.h>

#include "reader.h"

int ff_hf_bad(struct ff_hf_reader *r, const char *field, json_object *v, const char *expected)
{
    return ff_json_bad_field(r->c.err, r->c.errlen, r->c.label, r->c.prefix, field, v, expected);
}

int ff_hf_checked_mul(struct ff_hf_reader *r, int64_t a, int64_t b, const char *field,
                      const char *what, int64_t *out)
{
    if (a <= 0 || b <= 0 || a > FF_HF_INT_MAX / b)
        return ff_errf(r->c.err, r->c.errlen, FF_ERR_RANGE,
                       "%s: field \"%s%s\": %s = %lld x %lld is out of range (expected at most "
                       "2^40)",
                       r->c.label, r->c.prefix ? r->c.prefix : "", field, what, (long long)a,
                       (long long)b);
    *out = a * b;
    return FF_OK;
}

json_object *ff_hf_field(struct ff_hf_reader *r, const char *const *names, const char **used)
{
    for (; *names; names++) {
        json_object *v = ff_json_member(r->root, *names);
        if (v) {
            *used = *names;
            return v;
        }
    }
    return NULL;
}

json_object *ff_hf_lookup(struct ff_hf_reader *r, const char *name)
{
    return ff_json_member(r->root, name);
}

int ff_hf_get_int_alt(struct ff_hf_reader *r, const char *const *names, bool required, int64_t def,
                      int64_t min, int64_t *out, const char **used_out)
{
    const char *used = names[0];
    ff_hf_field(r, names, &used);
    if (used_out)
        *used_out = used;
    char expected[64];
    snprintf(expected, sizeof(expected), "an integer >= %lld", (long long)min);
    return ff_json_get_int(&r->c, r->root, used, required, def, (double)min, (double)FF_HF_INT_MAX,
                           expected, out);
}

int ff_hf_get_int(struct ff_hf_reader *r, const char *name, bool required, int64_t def, int64_t min,
                  int64_t *out)
{
    const char *names[] = {name, NULL};
    return ff_hf_get_int_alt(r, names, required, def, min, out, NULL);
}

int ff_hf_derive_head_dim(struct ff_hf_reader *r, const char *hidden_field, const char *heads_field,
                          bool explicit_ok, struct ff_model *m)
{
    if (m->heads <= 0 || m->hidden % m->heads != 0)
        return ff_errf(r->c.err, r->c.errlen, FF_ERR_INVALID,
                       "%s: field \"%s\" is %lld, which does not divide %s %lld (expected a "
                       "divisor of %s%s)",
                       r->c.label, heads_field, (long long)m->heads, hidden_field,
                       (long long)m->hidden, hidden_field,
                       explicit_ok ? ", or an explicit head_dim" : "");
    m->head_dim = m->hidden / m->heads;
    return FF_OK;
}

int ff_hf_get_bool(struct ff_hf_reader *r, const char *name, bool def, bool *out)
{
    return ff_json_get_bool(&r->c, r->root, name, def, out);
}

/* A probability (dropout): a finite number in [0, 1]; missing/null leaves *out = def. */
static int get_prob(struct ff_hf_reader *r, const char *name, double def, double *out)
{
    return ff_json_get_double(&r->c, r->root, name, false, def, 0.0, 1.0, "a number from 0 to 1",
                              out);
}

int ff_hf_get_dropout(struct ff_hf_reader *r, const char *a, double def_a, const char *b,
                      double def_b, bool *out)
{
    double pa = 0.0, pb = 0.0;
    int rc = get_prob(r, a, def_a, &pa);
    if (rc == FF_OK && b)
        rc = get_prob(r, b, def_b, &pb);
    if (rc == FF_OK)
        *out = pa > 0.0 || pb > 0.0;
    return rc;
}

int ff_hf_get_layers_alt(struct ff_hf_reader *r, const char *const *names, bool required,
                         int64_t def, int64_t *out)
{
    const char *used = names[0];
    TRY(ff_hf_get_int_alt(r, names, required, def, 1, out, &used));
    if (*out > FF_HF_LAYERS_MAX)
        return ff_hf_bad(r, used, ff_hf_field(r, names, &used),
                         "a layer count from 1 to 1048576 (2^20)");
    return FF_OK;
}

int ff_hf_get_layers(struct ff_hf_reader *r, const char *name, bool required, int64_t def,
                     int64_t *out)
{
    const char *names[] = {name, NULL};
    return ff_hf_get_layers_alt(r, names, required, def, out);
}

int ff_hf_get_string(struct ff_hf_reader *r, const char *name, const char *def, const char **out)
{
    return ff_json_get_string(&r->c, r->root, name, false, def, out);
}

/* A finite number > 0 (and at most 1e6); missing/null leaves *out = def. */
static int get_positive(struct ff_hf_reader *r, const char *name, double def, double *out)
{
    TRY(ff_json_get_double(&r->c, r->root, name, false, def, 0.0, 1e6, "a number > 0", out));
    json_object *v = ff_hf_lookup(r, name);
    if (v && !(*out > 0.0))
        return ff_hf_bad(r, name, v, "a number > 0");
    return FF_OK;
}

int ff_hf_get_object(struct ff_hf_reader *r, const char *name, json_object **out)
{
    return ff_json_get_object(&r->c, r->root, name, false, out);
}

struct ff_hf_reader ff_hf_sub_reader(const struct ff_hf_reader *r, json_object *obj,
                                     const char *prefix)
{
    struct ff_hf_reader s = *r;
    s.root = obj;
    s.c.prefix = prefix;
    return s;
}

int ff_hf_require_string(struct ff_hf_reader *r, const char *name, const char *want)
{
    const char *v = want;
    TRY(ff_hf_get_string(r, name, want, &v));
    if (strcmp(v, want) != 0) {
        char expected[96];
        snprintf(expected, sizeof(expected), "\"%s\" (the only variant counted)", want);
        return ff_hf_bad(r, name, ff_hf_lookup(r, name), expected);
    }
    return FF_OK;
}

/*
 * rope_scaling: null or an object whose rope_type (or legacy "type") is one transformers
 * knows. With original_max_position_embeddings the usable context is factor x original
 * (YaRN, dynamic NTK); without it max_position_embeddings already states it (Llama 3.1's
 * "llama3", Gemma 3's "linear", Phi-3's "longrope"/"su").
 */
int ff_hf_read_rope(struct ff_hf_reader *r, struct ff_model *m)
{
    json_object *o = NULL;
    TRY(ff_hf_get_object(r, "rope_scaling", &o));
    if (!o)
        return FF_OK;
    struct ff_hf_reader s = ff_hf_sub_reader(r, o, "rope_scaling.");
    const char *type = NULL;
    TRY(ff_hf_get_string(&s, "rope_type", NULL, &type));
    if (!type)
        TRY(ff_hf_get_string(&s, "type", NULL, &type));
    static const char *const known[] = {"default",  "linear", "dynamic", "yarn", "llama3",
                                        "longrope", "su",     "mrope",   NULL};
    bool ok = false;
    for (size_t i = 0; type && known[i]; i++)
        ok = ok || !strcmp(type, known[i]);
    if (!ok)
        return ff_hf_bad(&s, "rope_type", type ? ff_hf_lookup(&s, "rope_type") : NULL,
                         "one of default, linear, dynamic, yarn, llama3, longrope, su, mrope");
    double factor = 1.0;
    TRY(get_positive(&s, "factor", 1.0, &factor));
    int64_t orig = 0;
    TRY(ff_hf_get_int(&s, "original_max_position_embeddings", false, 0, 1, &orig));
    if (orig > 0 && factor * (double)orig > (double)m->max_positions &&
        factor * (double)orig < (double)FF_HF_INT_MAX)
        m->context_max = (int64_t)(factor * (double)orig);
    return FF_OK;
}

/* In struct ff_hf_dim_names' order: hidden, layers, heads, kv_heads, ffn, positions. */
const struct ff_hf_dim_names ff_hf_gpt2_dims = {"n_embd", "n_layer", "n_head",
                                                NULL,     "n_inner", "n_positions"};
const struct ff_hf_dim_names ff_hf_llama_dims = {"hidden_size",         "num_hidden_layers",
                                                 "num_attention_heads", "num_key_value_heads",
                                                 "intermediate_size",   "max_position_embeddings"};
const struct ff_hf_dim_names ff_hf_llama_mha_dims = {
    "hidden_size", "num_hidden_layers", "num_attention_heads",
    NULL,          "intermediate_size", "max_position_embeddings"};

int ff_hf_read_dims(struct ff_hf_reader *r, const struct ff_hf_dim_names *n,
                    struct ff_hf_dim_defaults d, struct ff_model *m)
{
    TRY(ff_hf_get_int(r, n->hidden, true, 0, 1, &m->hidden));
    TRY(ff_hf_get_layers(r, n->layers, true, 0, &m->layers));
    TRY(ff_hf_get_int(r, n->heads, true, 0, 1, &m->heads));
    m->kv_heads = m->heads;
    if (n->kv_heads)
        TRY(ff_hf_get_int(r, n->kv_heads, false, d.kv_heads, 1, &m->kv_heads));
    TRY(ff_hf_derive_head_dim(r, n->hidden, n->heads, false, m));
    /* hidden <= 2^40, so a default of a few times hidden cannot overflow. */
    TRY(ff_hf_get_int(r, n->ffn, d.ffn_per_hidden == 0, d.ffn_per_hidden * m->hidden, 1, &m->ffn));
    TRY(ff_hf_get_int(r, "vocab_size", d.vocab == 0, d.vocab, 1, &m->vocab));
    TRY(ff_hf_get_int(r, n->positions, false, d.positions, 1, &m->max_positions));
    return FF_OK;
}

void ff_hf_set_norms(struct ff_model *m, enum ff_norm norm, int per_layer)
{
    m->norm = norm;
    m->norms_per_layer = per_layer;
    m->final_norm = true;
}
