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
    if (m->qk_norm == FF_QK_NORM_HEAD_DIM)
        w += 2.0 * (double)m->head_dim; /* Qwen3Attention q_norm, k_norm: RMSNorm(head_dim) */
    else if (m->qk_norm == FF_QK_NORM_ALL)
        w += qd + kvd; /* OLMo 2: RMSNorm(heads·head_dim), RMSNorm(kv_heads·head_dim) */
    if (m->attn_sinks)
        w += a; /* gpt-oss: one sink logit per head */
    return w;
}

/* One Mamba mixer (MambaMixer / JambaMambaMixer / FalconMambaMixer in transformers):
 * in_proj h -> 2·d_inner, depthwise conv1d, x_proj d_inner -> dt_rank + 2·d_state, dt_proj
 * dt_rank -> d_inner with bias, A_log d_inner·d_state, D d_inner, out_proj d_inner -> h. */
static double ssm_params(const struct ff_model *m)
{
    double h = (double)m->hidden, di = (double)m->ssm_inner, ds = (double)m->ssm_state;
    double r = (double)m->ssm_dt_rank;
    double w = h * 2.0 * di + di * (double)m->ssm_conv + di * (r + 2.0 * ds) + r * di + di +
               di * ds + di + di * h;
    if (m->ssm_conv_bias)
        w += di;
    if (m->ssm_proj_bias)
        w += 2.0 * di + h;
    if (m->ssm_inner_norms)
        w += r + 2.0 * ds; /* Jamba dt_layernorm, b_layernorm, c_layernorm */
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

double ff_model_moe_layers(const struct ff_model *m)
{
    if (!is_moe(m))
        return 0.0;
    return m->moe_layers > 0 ? (double)m->moe_layers : (double)(m->layers - m->dense_layers);
}

static double expert_width(const struct ff_model *m)
{
    return (double)(m->moe_ffn > 0 ? m->moe_ffn : m->ffn);
}

int ff_model_check(const struct ff_model *m, char *err, size_t errlen)
{
    if (!m)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no model");
    struct ff_model mv;
    int rc = ff_model_view(&m, &mv, err, errlen);
    if (rc != FF_OK)
        return rc;
    if (m->rough)
        return m->rough_params > 0 ? FF_OK
                                   : ff_errf(err, errlen, FF_ERR_INVALID, "params must be > 0");
    if (m->ssm_layers < 0 || m->ssm_layers > m->layers)
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: SSM layers out of range", m->name);
    bool attention = m->layers > 0 && m->ssm_layers < m->layers;
    struct {
        const char *name;
        int64_t v;
        bool needed;
    } need[] = {
        {"layers", m->layers, true},
        {"hidden size", m->hidden, true},
        {"attention heads", m->heads, attention},
        {"key/value heads", m->kv_heads, attention},
        {"head_dim", m->head_dim, attention},
        {"vocabulary size", m->vocab, true},
        {"SSM d_inner", m->ssm_inner, m->ssm_layers > 0},
        {"SSM d_state", m->ssm_state, m->ssm_layers > 0},
        {"SSM d_conv", m->ssm_conv, m->ssm_layers > 0},
        {"SSM dt_rank", m->ssm_dt_rank, m->ssm_layers > 0},
    };
    for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
        if (need[i].v < 0 || (need[i].needed && need[i].v == 0))
            return ff_errf(err, errlen, FF_ERR_INVALID, "%s: %s must be > 0 (got %lld)", m->name,
                           need[i].name, (long long)need[i].v);
    if (m->ffn < 0 || (m->ffn == 0 && !m->ffn_absent && !(is_moe(m) && m->moe_ffn > 0)))
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: FFN width must be > 0", m->name);
    if (m->moe_layers < 0 || m->moe_layers > m->layers || (m->moe_layers > 0 && !is_moe(m)))
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: MoE layers out of range", m->name);
    if (m->encoder_params < 0 || m->shared_ffn < 0 || m->context_max < 0 ||
        !(m->stored_bytes >= 0.0))
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: negative size", m->name);
    if (m->sliding_layers < 0 || m->sliding_layers > m->layers - m->ssm_layers)
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: sliding-window layers out of range",
                       m->name);
    if (attention && m->heads % m->kv_heads != 0)
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
    struct ff_model mv;
    ff_model_view(&m, &mv, NULL, 0);
    if (m->rough)
        return rough_params(m, out);

    double h = (double)m->hidden, V = (double)m->vocab;
    double e = m->embed_proj > 0 ? (double)m->embed_proj : h;
    double norms = (double)m->norms_per_layer * norm_params(m);
    /* A block = a mixer (attention or SSM) + an FFN (dense, MoE or none) + its norms; the
     * kinds are counted separately because hybrids mix them independently (Jamba: attention
     * in 4 of 32 blocks, MoE in 16). */
    double n_ssm = (double)m->ssm_layers, n_attn = (double)m->layers - n_ssm;
    double attn = n_attn > 0 ? attention_params(m) : 0.0;
    double ssm = n_ssm > 0 ? ssm_params(m) : 0.0;

    double dense_ffn = m->ffn > 0 ? ffn_params(m, (double)m->ffn) : 0.0;
    double moe_ffn = 0.0, moe_active = 0.0, expert = 0.0;
    if (is_moe(m)) {
        expert = ffn_params(m, expert_width(m));
        double router = h * (double)m->experts + (m->router_bias ? (double)m->experts : 0.0);
        double one_shared = m->shared_ffn > 0 ? ffn_params(m, (double)m->shared_ffn) : expert;
        double shared = (double)m->shared_experts * one_shared;
        if (m->shared_expert_gate)
            shared += h; /* Qwen2MoeSparseMoeBlock.shared_expert_gate: Linear(h, 1) */
        moe_ffn = (double)m->experts * expert + shared + router;
        moe_active = (double)m->experts_active * expert + shared + router;
    }
    double n_moe = ff_model_moe_layers(m);
    double n_dense = (double)m->layers - n_moe;

    double embedding = V * e + (double)m->learned_positions * h;
    if (m->embed_norm)
        embedding += norm_params(m);
    double proj = m->embed_proj > 0 ? 2.0 * e * h : 0.0; /* OPT-350m project_in/out */
    double head = m->tied_embeddings ? 0.0 : V * e + (m->lm_head_bias ? V : 0.0);
    double final_norm = m->final_norm ? norm_params(m) : 0.0;

    double mixers = n_attn * attn + n_ssm * ssm + (double)m->layers * norms;
    double blocks = mixers + n_dense * dense_ffn + n_moe * moe_ffn;
    double blocks_active = mixers + n_dense * dense_ffn + n_moe * moe_active;
    double encoder = (double)m->encoder_params;
    double total = embedding + proj + blocks + final_norm + head + encoder;
    double active = embedding + proj + blocks_active + final_norm + head;
    /* FLOPs: every block weight touched per token plus the LM head projection (V·e), once,
     * whether tied or not; embedding lookups cost no multiply (Kaplan et al. §2.1). */
    double matmul = blocks_active + proj + V * e;
    /* The largest block: the larger mixer with the larger FFN. */
    double largest = fmax(n_attn > 0 ? attn : 0.0, n_ssm > 0 ? ssm : 0.0) + norms +
                     fmax(n_dense > 0 ? dense_ffn : 0.0, n_moe > 0 ? moe_ffn : 0.0);

    memset(out, 0, sizeof(*out));
    if ((rc = finish(total, &out->total)) || (rc = finish(active, &out->active)) ||
        (rc = finish(embedding, &out->embedding)) || (rc = finish(head, &out->head)) ||
        (rc = finish(largest, &out->per_layer_max)) || (rc = finish(matmul, &out->matmul_active)) ||
        (rc = finish(expert, &out->expert)))
        return rc;
    return FF_OK;
}

int64_t ff_model_attn_layers(const struct ff_model *m)
{
    struct ff_model mv;
    if (!m || ff_model_view(&m, &mv, NULL, 0) != FF_OK)
        return 0;
    return m->layers - m->ssm_layers;
}

int64_t ff_model_context(const struct ff_model *m)
{
    struct ff_model mv;
    if (!m || ff_model_view(&m, &mv, NULL, 0) != FF_OK)
        return 0;
    return m->context_max > m->max_positions ? m->context_max : m->max_positions;
}

double ff_model_ssm_state_elems(const struct ff_model *m)
{
    struct ff_model mv;
    if (!m || ff_model_view(&m, &mv, NULL, 0) != FF_OK || m->ssm_layers <= 0)
        return 0.0;
    /* MambaCache: ssm_states (d_inner x d_state) and conv_states (d_inner x d_conv; the
     * implementations keep the whole kernel width, so d_conv, not d_conv - 1). */
    return (double)m->ssm_layers * (double)m->ssm_inner * (double)(m->ssm_state + m->ssm_conv);
}

/* KV elements per token of one attention block. */
static double kv_per_attn_layer(const struct ff_model *m)
{
    if (m->kv_lora_rank > 0)
        /* MLA caches the compressed latent and the shared RoPE key (DeepSeek-V2 §2.1.2). */
        return (double)(m->kv_lora_rank + m->qk_rope_head_dim);
    /* K and V: the factor 2. GQA/MQA: kv_heads, not heads. */
    return 2.0 * (double)m->kv_heads * (double)m->head_dim;
}

double ff_model_kv_elems_per_token(const struct ff_model *m)
{
    struct ff_model mv;
    if (!m || ff_model_view(&m, &mv, NULL, 0) != FF_OK)
        return 0.0;
    return (double)ff_model_attn_layers(m) * kv_per_attn_layer(m);
}

double ff_model_kv_bytes(const struct ff_model *m, double tokens, double batch,
                         double bytes_per_elem)
{
    struct ff_model mv;
    if (!m || ff_model_view(&m, &mv, NULL, 0) != FF_OK)
        return 0.0;
    double n_attn = (double)ff_model_attn_layers(m);
    if (n_attn <= 0.0)
        return 0.0;
    double per_layer = kv_per_attn_layer(m);
    double windowed = 0.0;
    if (m->sliding_window > 0)
        windowed = m->sliding_layers > 0 ? (double)m->sliding_layers : n_attn;
    double full = n_attn - windowed;
    double win_tokens = tokens;
    if (m->sliding_window > 0 && (double)m->sliding_window < tokens)
        win_tokens = (double)m->sliding_window;
    return per_layer * (full * tokens + windowed * win_tokens) * batch * bytes_per_elem;
}

int ff_model_rough(double params, struct ff_model *dst, char *err, size_t errlen)
{
    if (!dst)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no model");
    int rc = ff_model_out_check(dst, err, errlen);
    if (rc != FF_OK)
        return rc;
    if (!(params >= 1e3) || !(params <= 1e15))
        return ff_errf(err, errlen, FF_ERR_RANGE,
                       "--params %g is out of range (expected 1e3 to 1e15 parameters)", params);
    struct ff_model m, *out = &m;
    ff_model_init(out);
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
    ff_abi_copy_out(dst, out, sizeof(*out));
    return FF_OK;
}
