/*
 * estimate/src/flops.c — training FLOPs.
 *
 * six_nd: 6·N·D with N the active parameters (Kaplan et al. 2020, Table 1: forward 2N per
 * token, backward twice the forward).
 * model: per token 6·N_matmul + 6·L·s·a·(d_qk + d_v), i.e. PaLM App. B's 6N + 12·L·H·Q·T
 * with N the parameters that multiply (LM head included, lookups excluded) — Chinchilla
 * App. F counts the same terms. For GPT-3 this equals Narayanan et al. 2021's
 * 72·l·h²(1 + s/(6h) + V/(16lh)) per token.
 * hardware: model + recomputation. Full recompute reruns every block's forward (Narayanan:
 * 96·B·s·l·h²(1 + s/(6h) + V/(16lh)) per iteration); selective recompute without flash
 * attention reruns the attention core (Korthikanti §5); with flash attention it reruns
 * nothing (flash attention never stored the scores). Every-K-th-layer checkpointing
 * (torchtitan's selective layer AC) reruns the forward of floor(L/K) of the L blocks; op-level
 * recomputation (torchtitan's op SAC) reruns only norms and element-wise ops, which are
 * memory-bound and carry no matmul FLOPs: nothing is added. Flash attention's internal
 * recomputation is part of the kernel and not counted (as in PaLM's and Llama's MFU).
 * LoRA/QLoRA: the frozen weights get no weight gradients, so 4·N_matmul per token plus the
 * adapters' 6 FLOPs per parameter (Hu et al. 2021 §4.2).
 */
#include <math.h>

#include "flopfit/estimate.h"
#include "flopfit/status.h"
#include "internal.h"

double ff_attn_flops_per_token_layer(const struct ff_model *m, double s)
{
    double qk, v;
    if (m->kv_lora_rank > 0) {
        qk = (double)(m->qk_nope_head_dim + m->qk_rope_head_dim);
        v = (double)m->v_head_dim;
    } else {
        qk = v = (double)m->head_dim;
    }
    /* QK^T: 2·s·a·d_qk, attention over V: 2·s·a·d_v (forward, per query token). */
    return 2.0 * s * (double)m->heads * (qk + v);
}

/* Attention FLOPs per token over all attention layers at context s, windows honoured. */
double ff_attn_flops_per_token(const struct ff_model *m, double s)
{
    double L = (double)ff_model_attn_layers(m);
    if (L <= 0.0)
        return 0.0;
    if (m->sliding_window <= 0 || (double)m->sliding_window >= s)
        return L * ff_attn_flops_per_token_layer(m, s);
    double windowed = m->sliding_layers > 0 ? (double)m->sliding_layers : L;
    return (L - windowed) * ff_attn_flops_per_token_layer(m, s) +
           windowed * ff_attn_flops_per_token_layer(m, (double)m->sliding_window);
}

double ff_recompute_layer_share(const struct ff_model *m, const struct ff_plan *p)
{
    if (p->recompute == FF_RECOMPUTE_FULL)
        return 1.0;
    if (p->recompute != FF_RECOMPUTE_LAYERS || p->recompute_every < 1 || m->layers < 1)
        return 0.0;
    /* torchtitan checkpoints the blocks whose 1-based index is a multiple of K. */
    return floor((double)m->layers / (double)p->recompute_every) / (double)m->layers;
}

int ff_est_flops(const struct ff_model *m, const struct ff_plan *plan, double tokens,
                 struct ff_flops *out)
{
    if (!m || !plan || !out || !(tokens >= 0.0) || !isfinite(tokens))
        return FF_ERR_INVALID;
    struct ff_plan pv;
    struct ff_model mv;
    int rc = ff_plan_view(&plan, &pv, NULL, 0);
    if (rc != FF_OK || (rc = ff_model_view(&m, &mv, NULL, 0)) != FF_OK)
        return rc;
    struct ff_param_count pc;
    rc = ff_model_params(m, &pc);
    if (rc != FF_OK)
        return rc;
    double s = (double)ff_plan_seq(m, plan);
    double matmul = (double)pc.matmul_active;
    double head = (double)m->vocab * (double)(m->embed_proj > 0 ? m->embed_proj : m->hidden);
    if (m->rough)
        head = 0.0;
    double attn_fwd = m->rough ? 0.0 : ff_attn_flops_per_token(m, s);
    out->six_nd = 6.0 * (double)pc.active * tokens;

    double model;
    if (plan->task == FF_TASK_TRAIN || plan->task == FF_TASK_SERVE) {
        model = 6.0 * matmul + 3.0 * attn_fwd;
    } else {
        model = 4.0 * matmul + 3.0 * attn_fwd;
    }
    double extra = 0.0;
    double block_fwd = 2.0 * (matmul - head) + attn_fwd; /* one forward of every block */
    if (plan->recompute == FF_RECOMPUTE_FULL)
        extra = block_fwd;
    else if (plan->recompute == FF_RECOMPUTE_LAYERS)
        extra = block_fwd * ff_recompute_layer_share(m, plan);
    else if (plan->recompute == FF_RECOMPUTE_SELECTIVE && !plan->flash_attention)
        extra = attn_fwd;
    out->model = model * tokens;
    out->hardware = (model + extra) * tokens;
    return FF_OK;
}
