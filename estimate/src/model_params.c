/*
 * estimate/src/model_params.c — exact parameter counts from the architecture.
 *
 * Counts every stored tensor of a decoder-only transformer: token (and learned position)
 * embeddings, per block Q/K/V/O projections (GQA: K and V have kv_heads·head_dim outputs;
 * head_dim from the config), FFN (gated: 3 matrices, else 2), biases, norms, MoE experts and
 * router, MLA low-rank projections (DeepSeek-V2 §2.1.2), final norm and an untied LM head.
 * Checked against published totals in tests/estimate/test_model.c (Llama-2-7B 6,738,415,616;
 * Llama-2-70B 68,976,648,192; Mixtral 46,702,792,704 / 12,879,925,248 active; ...).
 * Arithmetic is in double, exact below 2^53 (9e15 parameters); larger is FF_ERR_RANGE.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "flopfit/model.h"
#include "flopfit/status.h"
#include "internal.h"

#define EXACT_LIMIT 9007199254740992.0 /* 2^53 */

static double norm_params(const struct ff_model *m)
{
    return m->norm == FF_NORM_LAYERNORM ? 2.0 * (double)m->hidden : (double)m->hidden;
}

static double attention_params(const struct ff_model *m)
{
    double h = (double)m->hidden, a = (double)m->heads;
    if (m->kv_lora_rank > 0) {
        /* MLA (DeepSeek-V2 eq. 9-14): low-rank query and joint KV compression. */
        double qk = (double)(m->qk_nope_head_dim + m->qk_rope_head_dim);
        double q;
        if (m->q_lora_rank > 0)
            q = h * (double)m->q_lora_rank + (double)m->q_lora_rank /* q norm */
                + (double)m->q_lora_rank * a * qk;
        else
            q = h * a * qk;
        double kv_a = h * (double)(m->kv_lora_rank + m->qk_rope_head_dim);
        double kv_norm = (double)m->kv_lora_rank;
        double kv_b = (double)m->kv_lora_rank * a * (double)(m->qk_nope_head_dim + m->v_head_dim);
        double o = a * (double)m->v_head_dim * h;
        return q + kv_a + kv_norm + kv_b + o;
    }
    double qd = a * (double)m->head_dim;
    double kvd = (double)m->kv_heads * (double)m->head_dim;
    double w = h * qd + 2.0 * h * kvd + qd * h;
    if (m->attn_bias)
        w += qd + 2.0 * kvd + h;
    else if (m->qkv_bias_only)
        w += qd + 2.0 * kvd;
    return w;
}

static double ffn_params(const struct ff_model *m, double width)
{
    double h = (double)m->hidden;
    double mats = m->gated_ffn ? 3.0 : 2.0;
    double w = mats * h * width;
    if (m->mlp_bias)
        w += (m->gated_ffn ? 2.0 : 1.0) * width + h;
    return w;
}

static bool is_moe(const struct ff_model *m)
{
    return m->experts > 0;
}

static double expert_width(const struct ff_model *m)
{
    return (double)(m->moe_ffn > 0 ? m->moe_ffn : m->ffn);
}

int ff_model_check(const struct ff_model *m, char *err, size_t errlen)
{
    if (!m)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no model");
    if (m->rough)
        return m->rough_params > 0 ? FF_OK
                                   : ff_errf(err, errlen, FF_ERR_INVALID, "params must be > 0");
    struct {
        const char *name;
        int64_t v;
    } need[] = {
        {"layers", m->layers},         {"hidden size", m->hidden},
        {"attention heads", m->heads}, {"key/value heads", m->kv_heads},
        {"head_dim", m->head_dim},     {"vocabulary size", m->vocab},
    };
    for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
        if (need[i].v <= 0)
            return ff_errf(err, errlen, FF_ERR_INVALID, "%s: %s must be > 0 (got %lld)", m->name,
                           need[i].name, (long long)need[i].v);
    if (m->ffn <= 0 && !(is_moe(m) && m->moe_ffn > 0))
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: FFN width must be > 0", m->name);
    if (m->heads % m->kv_heads != 0)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "%s: %lld attention heads are not a multiple of %lld key/value heads",
                       m->name, (long long)m->heads, (long long)m->kv_heads);
    if (is_moe(m) && (m->experts_active <= 0 || m->experts_active > m->experts))
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "%s: experts per token must be in 1..%lld (got %lld)", m->name,
                       (long long)m->experts, (long long)m->experts_active);
    if (m->dense_layers < 0 || m->dense_layers > m->layers)
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: dense layers out of range", m->name);
    if (m->kv_lora_rank > 0 && (m->qk_rope_head_dim <= 0 || m->v_head_dim <= 0))
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "%s: MLA needs qk_rope_head_dim and v_head_dim > 0", m->name);
    return FF_OK;
}

static int finish(double v, uint64_t *out)
{
    if (!(v >= 0.0) || v > EXACT_LIMIT)
        return FF_ERR_RANGE;
    *out = (uint64_t)v;
    return FF_OK;
}

static int rough_params(const struct ff_model *m, struct ff_param_count *out)
{
    double n = (double)m->rough_params;
    double emb = (double)m->vocab * (double)m->hidden;
    if (emb > n / 2.0)
        emb = 0.0;
    memset(out, 0, sizeof(*out));
    int rc = finish(n, &out->total);
    if (rc == FF_OK)
        rc = finish(n, &out->active);
    if (rc == FF_OK)
        rc = finish(emb, &out->embedding);
    if (rc == FF_OK)
        rc = finish(n - emb, &out->matmul_active);
    if (rc == FF_OK)
        rc = finish((n - 2.0 * emb) / (double)m->layers, &out->per_layer_max);
    return rc;
}

int ff_model_params(const struct ff_model *m, struct ff_param_count *out)
{
    int rc = ff_model_check(m, NULL, 0);
    if (rc != FF_OK)
        return rc;
    if (m->rough)
        return rough_params(m, out);

    double h = (double)m->hidden, V = (double)m->vocab;
    double e = m->embed_proj > 0 ? (double)m->embed_proj : h;
    double norms = (double)m->norms_per_layer * norm_params(m);
    double attn = attention_params(m);

    double dense_layer = attn + ffn_params(m, (double)m->ffn) + norms;
    double moe_layer = 0.0, moe_active = 0.0, expert = 0.0;
    if (is_moe(m)) {
        expert = ffn_params(m, expert_width(m));
        double router = h * (double)m->experts;
        double shared = (double)m->shared_experts * expert;
        moe_layer = attn + (double)m->experts * expert + shared + router + norms;
        moe_active = attn + (double)m->experts_active * expert + shared + router + norms;
    }
    double n_dense = is_moe(m) ? (double)m->dense_layers : (double)m->layers;
    double n_moe = (double)m->layers - n_dense;

    double embedding = V * e + (double)m->learned_positions * h;
    if (m->embed_norm)
        embedding += norm_params(m);
    double proj = m->embed_proj > 0 ? 2.0 * e * h : 0.0; /* OPT-350m project_in/out */
    double head = m->tied_embeddings ? 0.0 : V * e;
    double final_norm = m->final_norm ? norm_params(m) : 0.0;

    double blocks = n_dense * dense_layer + n_moe * moe_layer;
    double blocks_active = n_dense * dense_layer + n_moe * moe_active;
    double total = embedding + proj + blocks + final_norm + head;
    double active = embedding + proj + blocks_active + final_norm + head;
    /* FLOPs: every block weight touched per token plus the LM head projection (V·e), once,
     * whether tied or not; embedding lookups cost no multiply (Kaplan et al. §2.1). */
    double matmul = blocks_active + proj + V * e;

    memset(out, 0, sizeof(*out));
    if ((rc = finish(total, &out->total)) || (rc = finish(active, &out->active)) ||
        (rc = finish(embedding, &out->embedding)) || (rc = finish(head, &out->head)) ||
        (rc = finish(fmax(dense_layer * (n_dense > 0), moe_layer), &out->per_layer_max)) ||
        (rc = finish(matmul, &out->matmul_active)) || (rc = finish(expert, &out->expert)))
        return rc;
    return FF_OK;
}

double ff_model_kv_elems_per_token(const struct ff_model *m)
{
    if (m->kv_lora_rank > 0)
        /* MLA caches the compressed latent and the shared RoPE key (DeepSeek-V2 §2.1.2). */
        return (double)m->layers * (double)(m->kv_lora_rank + m->qk_rope_head_dim);
    /* K and V: the factor 2. GQA/MQA: kv_heads, not heads. */
    return 2.0 * (double)m->layers * (double)m->kv_heads * (double)m->head_dim;
}

double ff_model_kv_bytes(const struct ff_model *m, double tokens, double batch,
                         double bytes_per_elem)
{
    double per_layer = ff_model_kv_elems_per_token(m) / (double)m->layers;
    double windowed = 0.0;
    if (m->sliding_window > 0)
        windowed = m->sliding_layers > 0 ? (double)m->sliding_layers : (double)m->layers;
    double full = (double)m->layers - windowed;
    double win_tokens = tokens;
    if (m->sliding_window > 0 && (double)m->sliding_window < tokens)
        win_tokens = (double)m->sliding_window;
    return per_layer * (full * tokens + windowed * win_tokens) * batch * bytes_per_elem;
}

int ff_model_rough(double params, struct ff_model *out, char *err, size_t errlen)
{
    if (!(params >= 1e3) || !(params <= 1e15))
        return ff_errf(err, errlen, FF_ERR_RANGE,
                       "--params %g is out of range (expected 1e3 to 1e15 parameters)", params);
    memset(out, 0, sizeof(*out));
    /* Shape guess: hidden/layers ≈ 128 (a common aspect ratio), head_dim 128, N ≈ 12·L·h². */
    double h = cbrt(128.0 * params / 12.0);
    int64_t hidden = (int64_t)llround(h / 128.0) * 128;
    if (hidden < 128)
        hidden = 128;
    int64_t layers = (int64_t)llround(params / (12.0 * (double)hidden * (double)hidden));
    if (layers < 1)
        layers = 1;
    snprintf(out->name, sizeof(out->name), "%.3g-params", params);
    ff_strlcpy(out->source,
               "rough: --params, shape guessed (dense, MHA, head_dim 128, "
               "FFN 4h, vocab 32000)",
               sizeof(out->source));
    out->layers = layers;
    out->hidden = hidden;
    out->heads = hidden / 128;
    out->kv_heads = out->heads;
    out->head_dim = 128;
    out->ffn = 4 * hidden;
    out->vocab = 32000;
    out->max_positions = 4096;
    out->norm = FF_NORM_RMSNORM;
    out->norms_per_layer = 2;
    out->final_norm = true;
    out->rough = true;
    out->rough_params = (int64_t)llround(params);
    return FF_OK;
}
