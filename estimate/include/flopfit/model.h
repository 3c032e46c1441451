/*
 * flopfit/model.h — transformer architectures and exact parameter counts.
 *
 * A struct ff_model is plain data owned by the caller (no allocation inside). Fill it from a
 * built-in preset, from a Hugging Face config.json, or from a rough parameter count.
 * Thread-safety: all functions are reentrant; the preset table is immutable.
 */
#ifndef FLOPFIT_MODEL_H
#define FLOPFIT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flopfit/export.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FF_NAME_MAX   64
#define FF_SOURCE_MAX 256

enum ff_norm {
    FF_NORM_LAYERNORM = 0,    /* weight + bias: 2h parameters */
    FF_NORM_RMSNORM,          /* weight only: h */
    FF_NORM_LAYERNORM_NOBIAS, /* weight only: h (MPT) */
};

/*
 * A decoder-only transformer. All counts are plain integers (elements, not bytes).
 * Zero means "absent" for the optional groups (MoE, MLA, sliding window).
 */
struct ff_model {
    char name[FF_NAME_MAX];     /* slug or file name, for reports */
    char source[FF_SOURCE_MAX]; /* where the numbers come from */

    int64_t layers;            /* decoder blocks */
    int64_t hidden;            /* d_model */
    int64_t heads;             /* query heads */
    int64_t kv_heads;          /* K/V heads: heads (MHA), 1 (MQA), e.g. 8 (GQA) */
    int64_t head_dim;          /* per head, from the config: not always hidden/heads */
    int64_t ffn;               /* FFN inner width of a dense block */
    int64_t vocab;             /* embedding rows (as stored, i.e. padded) */
    int64_t max_positions;     /* trained context, tokens */
    int64_t learned_positions; /* rows of a learned position table; 0 for RoPE/ALiBi */
    bool tied_embeddings;      /* LM head shares the input embedding */
    bool gated_ffn;            /* SwiGLU/GeGLU: gate, up and down matrices */
    bool attn_bias;            /* biases on Q, K, V and output projections */
    bool qkv_bias_only;        /* biases on Q, K, V only (Qwen2) */
    bool mlp_bias;             /* biases on FFN matrices */
    enum ff_norm norm;
    int norms_per_layer; /* 2 (pre-LN), 1 (Falcon-7B parallel), 4 (Gemma 2) */
    bool final_norm;     /* a norm after the last block */
    bool embed_norm;     /* a LayerNorm on the embeddings (BLOOM) */
    int64_t embed_proj;  /* OPT-350m word_embed_proj_dim when != hidden; else 0 */
    bool dropout;        /* dropout during training (Korthikanti's masks) */

    /* Mixture of experts (0 = dense). */
    int64_t experts;        /* routed experts per MoE block */
    int64_t experts_active; /* routed experts per token (top-k) */
    int64_t shared_experts; /* always-on experts (DeepSeek) */
    int64_t moe_ffn;        /* inner width of one expert; 0 = ffn */
    int64_t dense_layers;   /* leading dense blocks before the MoE ones (DeepSeek) */

    /* Multi-head latent attention (DeepSeek-V2/V3; 0 = ordinary attention). */
    int64_t q_lora_rank; /* 0: plain query projection */
    int64_t kv_lora_rank;
    int64_t qk_nope_head_dim;
    int64_t qk_rope_head_dim;
    int64_t v_head_dim;

    /* Sliding-window attention. */
    int64_t sliding_window; /* tokens, 0 = none */
    int64_t sliding_layers; /* blocks that use it (Gemma 2: every other); 0 with a window = all */

    /* --params: the total is given, the shape above is a guess used for activations/KV. */
    bool rough;
    int64_t rough_params;
};

/* Parameter counts (elements). */
struct ff_param_count {
    uint64_t total;         /* everything stored (MoE: all experts) — drives memory */
    uint64_t active;        /* used per token (MoE: top-k + shared) — drives FLOPs */
    uint64_t embedding;     /* input embedding table + learned positions */
    uint64_t head;          /* untied LM head (0 when tied) */
    uint64_t per_layer_max; /* largest block (for ZeRO-3 residency, pipeline stages) */
    uint64_t matmul_active; /* active params used in matrix multiplies per token, including
                                the LM head once even when tied; excludes lookups */
    uint64_t expert;        /* one routed expert (0 dense) */
};

/*
 * Count parameters exactly from the architecture (rough models: the given total).
 * Returns 0, FF_ERR_INVALID (an inconsistent model) or FF_ERR_RANGE (beyond 2^53).
 */
FF_API int ff_model_params(const struct ff_model *m, struct ff_param_count *out);

/* Check that a model is usable (positive sizes, heads divisible...). err may be NULL. */
FF_API int ff_model_check(const struct ff_model *m, char *err, size_t errlen);

/* Bytes of K+V cache per token for all layers, in elements (multiply by bytes/element).
 * 2·L·kv_heads·head_dim, MLA: L·(kv_lora_rank + qk_rope_head_dim). Ignores windows. */
FF_API double ff_model_kv_elems_per_token(const struct ff_model *m);

/*
 * KV-cache bytes for batch sequences of `tokens` tokens each at bytes_per_elem, honouring
 * sliding windows (a windowed layer keeps at most `window` tokens).
 */
FF_API double ff_model_kv_bytes(const struct ff_model *m, double tokens, double batch,
                                double bytes_per_elem);

/* Built-in presets. */
struct ff_model_preset {
    const char *slug;    /* lower-case, e.g. "llama-2-7b" */
    const char *aliases; /* space-separated, may be "" */
    struct ff_model model;
};

/* The preset table; *count receives its length. Never NULL. */
FF_API const struct ff_model_preset *ff_model_presets(size_t *count);

/* Find a preset by slug or alias, case-insensitively. Returns 0 or FF_ERR_NOT_FOUND. */
FF_API int ff_model_preset_find(const char *name, struct ff_model *out);

/*
 * Close matches for an unknown name: writes up to `max` slugs separated by ", " into buf
 * (empty when none). Returns the number written.
 */
FF_API int ff_model_suggest(const char *name, char *buf, size_t buflen, int max);

/*
 * Read a Hugging Face config.json. Only a regular file of at most 16 MiB is read (a FIFO,
 * device or directory is refused without blocking). Every field read is checked for type and
 * range (integers 1..2^40, products of them too, finite numbers); where head_dim is derived
 * as hidden / heads, heads must divide hidden. *out is written only on success.
 * Returns 0, FF_ERR_IO (cannot read; not a regular file), FF_ERR_INVALID (too large;
 * malformed: err names the file, the field and what was expected), FF_ERR_RANGE (a size or
 * the parameter count out of range) or FF_ERR_UNSUPPORTED (model_type not known). err
 * receives a one-line message; it may be NULL.
 */
FF_API int ff_model_from_hf_config(const char *path, struct ff_model *out, char *err,
                                   size_t errlen);

/*
 * Same, from `len` bytes of JSON text in memory (need not be NUL-terminated; a NUL byte
 * inside, or more than 16 MiB, is refused). `label` names it in messages (NULL:
 * "config.json"); the text is not kept. The entry point for fuzzing the config reader.
 */
FF_API int ff_model_from_hf_text(const char *text, size_t len, const char *label,
                                 struct ff_model *out, char *err, size_t errlen);

/* Same, from NUL-terminated JSON text; `label` names it in messages. */
FF_API int ff_model_from_hf_json(const char *json, const char *label, struct ff_model *out,
                                 char *err, size_t errlen);

/*
 * A rough dense model with `params` parameters (> 0): the shape is guessed (head_dim 128,
 * hidden ≈ (128·N/12)^(1/3) rounded to 128, layers ≈ N/(12h²), SwiGLU-free, vocab 32000,
 * MHA) only for activations and KV; counts report `params` itself.
 */
FF_API int ff_model_rough(double params, struct ff_model *out, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
