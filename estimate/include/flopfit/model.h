/*
 * flopfit/model.h — transformer architectures and exact parameter counts.
 *
 * A struct ff_model is plain data owned by the caller (no allocation inside). Fill it from a
 * built-in preset, from a Hugging Face config.json, or from a rough parameter count, after
 * ff_model_init: it begins with a struct_size, like flopfit/estimate.h's growing structs
 * (doc/abi.md), so that new architecture fields can be appended. The library reads and writes
 * only struct_size bytes; a model of struct_size 0 is refused (FF_ERR_INVALID; the functions
 * that return a count return 0 for it).
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

/* Norms on the query and key projections (before RoPE). */
enum ff_qk_norm {
    FF_QK_NORM_NONE = 0,
    FF_QK_NORM_HEAD_DIM, /* one RMSNorm of head_dim shared by all heads, for q and for k:
                            2·head_dim weights per layer (Qwen3, Gemma 3) */
    FF_QK_NORM_ALL,      /* weights over every head: (heads + kv_heads)·head_dim per layer
                            (OLMo 2: RMSNorm of the whole projection; Cohere use_qk_norm:
                            a LayerNorm weight per head) */
};

/*
 * A decoder-only transformer. All counts are plain integers (elements, not bytes).
 * Zero means "absent" for the optional groups (MoE, MLA, sliding window).
 */
struct ff_model {
    size_t struct_size;         /* sizeof(struct ff_model), set by ff_model_init */
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

    /* ---- the fields below: all zero = absent, so an initialiser that leaves them out still
     * means the same model ---- */
    enum ff_qk_norm qk_norm; /* QK-norm weights (Qwen3, Gemma 3, OLMo 2, Command R+) */
    bool attn_sinks;         /* one learned sink logit per query head and layer (gpt-oss);
                                 no KV: the sink is a parameter, not a cached token */
    bool lm_head_bias;       /* the LM head has a bias of vocab (GPT-J) */
    int64_t shared_ffn;      /* inner width of each shared expert; 0 = moe_ffn (Qwen2-MoE:
                                 one shared expert of shared_expert_intermediate_size) */
    bool shared_expert_gate; /* a sigmoid gate of hidden weights on the shared expert */
    bool router_bias;        /* the MoE router has a bias of `experts` (gpt-oss) */
    int64_t moe_layers;      /* blocks with an MoE FFN; 0 = layers - dense_layers. With it
                                 set, dense_layers counts the others wherever they sit (Jamba:
                                 every other block) */
    int64_t ssm_layers;      /* blocks whose mixer is a Mamba SSM, not attention (Jamba 28 of
                                 32, Falcon-Mamba all); they carry a fixed state per sequence,
                                 no KV cache. All of them: heads/kv_heads/head_dim may be 0 */
    int64_t ssm_inner;       /* Mamba d_inner (expand · hidden) */
    int64_t ssm_state;       /* d_state, per channel */
    int64_t ssm_conv;        /* causal conv kernel width d_conv */
    int64_t ssm_dt_rank;     /* rank of the dt projection */
    bool ssm_conv_bias;      /* conv1d has a bias */
    bool ssm_proj_bias;      /* in_proj/out_proj have biases */
    bool ssm_inner_norms;    /* RMSNorm weights on dt, B and C (Jamba: dt_rank + 2·d_state) */
    bool ffn_absent;         /* blocks have no FFN (Falcon-Mamba): ffn may be 0 */
    int64_t encoder_params;  /* stored parameters outside the decoder that text tokens do not
                                 use (Gemma 3's SigLIP vision tower and projector): memory, not
                                 FLOPs */
    int64_t context_max;     /* usable context, tokens, when rope scaling extends
                                 max_positions (yarn: factor · original); 0 = max_positions */
    double stored_bytes;     /* checkpoint size on disk as stored (a model folder's
                                 model.safetensors.index.json metadata.total_size); 0 = unknown */
    char stored_format[16];  /* how the checkpoint stores weights: "bf16", "fp8", "mxfp4"...;
                                 "" = unknown */
};

/* Zero *m and set its struct_size: before filling it by hand or through the functions below.
 * Returns 0, or FF_ERR_UNSUPPORTED for a size this library does not know (see ff_plan_init).
 * Programs call ff_model_init. */
FF_API int ff_model_init_sized(struct ff_model *m, size_t struct_size);
static inline int ff_model_init(struct ff_model *m)
{
    return ff_model_init_sized(m, sizeof(*m));
}

/* Parameter counts (elements). Frozen (embedded in struct ff_estimate; doc/abi.md). */
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
 * 2·L_attn·kv_heads·head_dim, MLA: L_attn·(kv_lora_rank + qk_rope_head_dim), where L_attn
 * is the attention blocks (layers - ssm_layers). Ignores windows. */
FF_API double ff_model_kv_elems_per_token(const struct ff_model *m);

/* Attention blocks: layers - ssm_layers. */
FF_API int64_t ff_model_attn_layers(const struct ff_model *m);

/* The recurrent state one sequence keeps in the SSM blocks, elements, whatever its length:
 * ssm_layers · d_inner · (d_state + d_conv) (transformers' MambaCache ssm_states and
 * conv_states). */
FF_API double ff_model_ssm_state_elems(const struct ff_model *m);

/* The longest context the model was trained or scaled for: context_max, else max_positions
 * (0 when unknown). */
FF_API int64_t ff_model_context(const struct ff_model *m);

/*
 * KV-cache bytes for batch sequences of `tokens` tokens each at bytes_per_elem, honouring
 * sliding windows (a windowed layer keeps at most `window` tokens).
 */
FF_API double ff_model_kv_bytes(const struct ff_model *m, double tokens, double batch,
                                double bytes_per_elem);

/* Built-in presets. Frozen: the model is reached through a pointer, so the table's stride does
 * not change when struct ff_model grows; *model has this library's struct_size. */
struct ff_model_preset {
    const char *slug;             /* lower-case, e.g. "llama-2-7b" */
    const char *aliases;          /* space-separated, may be "" */
    const struct ff_model *model; /* never NULL */
};

/* The preset table; *count receives its length. Never NULL. */
FF_API const struct ff_model_preset *ff_model_presets(size_t *count);

/* Find a preset by slug or alias, case-insensitively, into *out (its struct_size set).
 * Returns 0, FF_ERR_NOT_FOUND, or as ff_model_init for an *out without a known struct_size. */
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

/*
 * A Hugging Face model folder: `dir`/config.json read as ff_model_from_hf_config, and the
 * stored size from `dir`/model.safetensors.index.json (metadata.total_size, bytes, an integer
 * up to 2^50) or, without an index, the tensor bytes of a single `dir`/model.safetensors
 * (file size less its header) into out->stored_bytes; an index without total_size is summed
 * from the shards its weight_map names when all are in the folder. A folder with neither is
 * accepted with stored_bytes 0. Same returns as ff_model_from_hf_config; a malformed index is
 * FF_ERR_INVALID naming the file and field; a stored size under 1 or over 64 bits per counted
 * parameter is FF_ERR_INVALID naming the file and both numbers; any of these files (or a shard
 * present in the folder) that is not a regular file is FF_ERR_IO naming it, without blocking.
 */
FF_API int ff_model_from_hf_dir(const char *dir, struct ff_model *out, char *err, size_t errlen);

/* Same, from NUL-terminated JSON text; `label` names it in messages. */
FF_API int ff_model_from_hf_json(const char *json, const char *label, struct ff_model *out,
                                 char *err, size_t errlen);

/*
 * What a --model argument names, as every flopfit command reads it: a name with a '/' or
 * ending in ".json" is a path (a folder: ff_model_from_hf_dir, a file: ff_model_from_hf_config);
 * a bare name that is a preset is the preset, even when a file of that name is in the working
 * directory (./NAME for that one), so a command means the same wherever it runs; any other
 * bare name that exists on disk is a path. Returns 0 and *out; FF_ERR_NOT_FOUND for a bare
 * name that is neither (err says so; ff_model_suggest gives close matches); else as the
 * readers.
 */
FF_API int ff_model_resolve(const char *arg, struct ff_model *out, char *err, size_t errlen);

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
