/*
 * estimate/src/hf/reader.h — what the Hugging Face config.json readers share. Internal.
 *
 * hf.c reads config.json, looks its model_type up in ff_hf_families[] and calls that row's
 * reader; quant.c reads how the weights are stored, safetensors.c how many bytes they take.
 * Each family reader (one file per family or close group) fills a zeroed struct ff_model from
 * the fields its transformers configuration class (configuration_<type>.py) defines, with the
 * same defaults. The field getters (fields.c) bound every value and name the file, the field
 * and what was expected in each message.
 */
#ifndef FF_HF_READER_H
#define FF_HF_READER_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "ff_abi.h"
#include "ff_json.h"
#include "ff_util.h"
#include "flopfit/model.h"
#include "flopfit/status.h"

#define FF_HF_INT_MAX ((int64_t)1 << 40) /* largest integer field, and product of two */

/*
 * A layer count: an integer from 1 to FF_HF_LAYERS_MAX (2^20). The bound is far above any published
 * model (hundreds of layers) and keeps every per-layer loop of the readers and the estimator
 * short: a config saying 26 billion layers is an error naming the field, not a hang.
 */
#define FF_HF_LAYERS_MAX (1 << 20)

#define TRY(x) FF_TRY(x)

/* One object of the config being read: c.label names the file, c.prefix the object
 * ("" at top level, "attn_config." inside that object). */
struct ff_hf_reader {
    struct ff_json_ctx c;
    json_object *root;
    const char *model_type; /* the family row's: "llama"; Gemma 3's text_config: "gemma3_text" */
};

/* ---- fields (fields.c) ---- */

/* '<label>: field "<prefix><field>" is <v> (expected <expected>)'; FF_ERR_INVALID. */
int ff_hf_bad(struct ff_hf_reader *r, const char *field, json_object *v, const char *expected);

/*
 * a × b for two fields already bounded to [1, 2^40] (or derived values under 2^42), checked
 * against FF_HF_INT_MAX before multiplying: the product can neither overflow int64_t nor
 * describe an impossible width. `field` is the one named in the message.
 */
int ff_hf_checked_mul(struct ff_hf_reader *r, int64_t a, int64_t b, const char *field,
                      const char *what, int64_t *out);

/* The first present, non-null field of a NULL-terminated list of alternatives. */
json_object *ff_hf_field(struct ff_hf_reader *r, const char *const *names, const char **used);

/* A JSON field of any kind, or NULL when absent or null. */
json_object *ff_hf_lookup(struct ff_hf_reader *r, const char *name);

/*
 * An integer field: a JSON integer (or an integral double) in [min, 2^40]. With
 * required == false a missing/null field leaves *out = def. The _alt form takes the first
 * present name of a NULL-terminated list and says which in *used_out (may be NULL).
 */
int ff_hf_get_int_alt(struct ff_hf_reader *r, const char *const *names, bool required, int64_t def,
                      int64_t min, int64_t *out, const char **used_out);
int ff_hf_get_int(struct ff_hf_reader *r, const char *name, bool required, int64_t def, int64_t min,
                  int64_t *out);

/* A layer count from 1 to FF_HF_LAYERS_MAX, otherwise as ff_hf_get_int(_alt) with min 1. */
int ff_hf_get_layers_alt(struct ff_hf_reader *r, const char *const *names, bool required,
                         int64_t def, int64_t *out);
int ff_hf_get_layers(struct ff_hf_reader *r, const char *name, bool required, int64_t def,
                     int64_t *out);

/* true or false; missing/null leaves *out = def. */
int ff_hf_get_bool(struct ff_hf_reader *r, const char *name, bool def, bool *out);

/* A string field; missing/null leaves *out = def. */
int ff_hf_get_string(struct ff_hf_reader *r, const char *name, const char *def, const char **out);

/* A sub-object of the config; NULL (and FF_OK) when absent or null. */
int ff_hf_get_object(struct ff_hf_reader *r, const char *name, json_object **out);

/* A reader over a nested object, its fields named "<name>.<field>" in messages. */
struct ff_hf_reader ff_hf_sub_reader(const struct ff_hf_reader *r, json_object *obj,
                                     const char *prefix);

/* The field `name` must be absent, null or equal to `want` (a string): the reader counts that
 * variant only. */
int ff_hf_require_string(struct ff_hf_reader *r, const char *name, const char *want);

/* Dropout is on when any of the named probabilities (each a number from 0 to 1, with its
 * default) is above 0. b may be NULL. */
int ff_hf_get_dropout(struct ff_hf_reader *r, const char *a, double def_a, const char *b,
                      double def_b, bool *out);

/*
 * head_dim = hidden / heads where the architecture derives it: heads must divide hidden
 * exactly (a silently truncated head_dim would be a different model). `explicit_ok` says the
 * config could give head_dim itself instead.
 */
int ff_hf_derive_head_dim(struct ff_hf_reader *r, const char *hidden_field, const char *heads_field,
                          bool explicit_ok, struct ff_model *m);

/* The names a configuration class gives its dimensions. kv_heads NULL: as many as heads. */
struct ff_hf_dim_names {
    const char *hidden, *layers, *heads, *kv_heads, *ffn, *positions;
};

/* GPT2Config and GPTJConfig: n_embd, n_layer, n_head, n_inner, n_positions. */
extern const struct ff_hf_dim_names ff_hf_gpt2_dims;

/* LlamaConfig's (hidden_size, num_hidden_layers, num_attention_heads, num_key_value_heads,
 * intermediate_size, max_position_embeddings); the _mha set without key/value heads. */
extern const struct ff_hf_dim_names ff_hf_llama_dims, ff_hf_llama_mha_dims;

/* The defaults a configuration class gives its dimensions. */
struct ff_hf_dim_defaults {
    int64_t kv_heads;       /* when the kv_heads field is absent */
    int64_t ffn_per_hidden; /* absent ffn: this multiple of hidden; 0: ffn is required */
    int64_t vocab;          /* absent vocab_size: this; 0: vocab_size is required */
    int64_t positions;      /* when the positions field is absent */
};

/*
 * The dimensions most families read in this order: hidden, layers and heads (required),
 * key/value heads, head_dim = hidden / heads (heads must divide hidden), the FFN width,
 * vocab_size and the context length.
 */
int ff_hf_read_dims(struct ff_hf_reader *r, const struct ff_hf_dim_names *n,
                    struct ff_hf_dim_defaults d, struct ff_model *m);

/* rope_scaling: the usable context (m->context_max) where the scaling extends it. */
int ff_hf_read_rope(struct ff_hf_reader *r, struct ff_model *m);

/* The norm layout: `per_layer` norms of kind `norm` in each block, and a final norm. */
void ff_hf_set_norms(struct ff_model *m, enum ff_norm norm, int per_layer);

/* ---- the families (one reader per row of ff_hf_families) ---- */

/* Fill m (zeroed) from the config; r->model_type is the model_type the row matched. */
typedef int (*ff_hf_read_fn)(struct ff_hf_reader *r, struct ff_model *m);

struct ff_hf_family {
    const char *model_type;
    ff_hf_read_fn read;
    /* (optional) the model_type this one is a legacy name of: listed after it in messages,
     * "falcon (and RefinedWeb, RefinedWebModel)" */
    const char *legacy_of;
};

/* The table, in the order the "supported" message lists it; ends with a NULL model_type. */
extern const struct ff_hf_family ff_hf_families[];

int ff_hf_read_llama_like(struct ff_hf_reader *r, struct ff_model *m); /* llama.c */
int ff_hf_read_gemma3(struct ff_hf_reader *r, struct ff_model *m);     /* gemma3.c */
int ff_hf_read_gpt2(struct ff_hf_reader *r, struct ff_model *m);
int ff_hf_read_gptj(struct ff_hf_reader *r, struct ff_model *m);
int ff_hf_read_opt(struct ff_hf_reader *r, struct ff_model *m);
int ff_hf_read_neox(struct ff_hf_reader *r, struct ff_model *m);
int ff_hf_read_falcon(struct ff_hf_reader *r, struct ff_model *m);
int ff_hf_read_bloom(struct ff_hf_reader *r, struct ff_model *m);
int ff_hf_read_mpt(struct ff_hf_reader *r, struct ff_model *m);
int ff_hf_read_starcoder2(struct ff_hf_reader *r, struct ff_model *m);
int ff_hf_read_deepseek(struct ff_hf_reader *r, struct ff_model *m);
int ff_hf_read_jamba(struct ff_hf_reader *r, struct ff_model *m); /* mamba.c */
int ff_hf_read_mamba(struct ff_hf_reader *r, struct ff_model *m); /* mamba.c */

/* ---- storage (quant.c, safetensors.c) ---- */

/*
 * How the checkpoint stores its weights (m->stored_format): quantization_config.quant_method
 * when present (every method named here is understood; another is an error naming it), else
 * torch_dtype.
 */
int ff_hf_read_storage(struct ff_hf_reader *r, struct ff_model *m);

/*
 * The bytes of the checkpoint in folder dir: model.safetensors.index.json's
 * metadata.total_size (without it, the summed tensor bytes of the shards its weight_map names,
 * when all are there), else the tensor bytes of model.safetensors, else 0 (neither file).
 * `source` gets the file and what was read ("<path>: metadata.total_size"; "" for 0). Each
 * file named must be a regular file: anything else is FF_ERR_IO naming it, without blocking.
 */
int ff_hf_stored_bytes(const char *dir, double *out, char *source, size_t srclen, char *err,
                       size_t errlen);

#endif
