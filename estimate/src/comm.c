/*
 * estimate/src/comm.c — the communication model of multi-GPU training: one optimizer step
 * broken into compute, tensor-parallel all-reduces, the data-parallel gradient sync, ZeRO-3
 * parameter gathers, the pipeline bubble and MoE all-to-all, over a two-tier network.
 *
 * Network. Ranks are placed tp fastest, then dp (the expert-parallel group inside dp), then
 * pp (Megatron-LM's default order). A group of ranks inside one node talks over the node's
 * GPU links (NVLink/NVSwitch, xGMI, Xe Link or PCIe: ff_spec.link_bytes_per_s), a group
 * spanning nodes over each GPU's network port (ff_spec.inter_node_bytes_per_s), the slower
 * tier bounding a ring. Achieved bus bandwidth is FF_COMM_*_FRACTION of the line rate, or
 * the profile's measured busbw.
 *
 * Collectives (nccl-tests doc/PERFORMANCE.md): a ring all-reduce of S bytes over n ranks
 * moves 2(n-1)/n·S per rank, all-gather, reduce-scatter and all-to-all (n-1)/n·S; time =
 * latency·steps + factor·S/busbw.
 *
 * Volumes per micro-batch (b sequences of s tokens, hidden h, activations of a bytes):
 *  - tensor parallel: 2 all-reduces of b·s·h·a per layer forward and 2 backward (Shoeybi et
 *    al. 2019 §3), 2 more in a fully recomputed forward; with sequence parallelism each is an
 *    all-gather + reduce-scatter of the same volume (Korthikanti et al. 2022 §4.2.2). Not
 *    overlapped (Megatron-LM runs them on the critical path).
 *  - data parallel: one all-reduce of the stage's 16-bit gradients, 2Ψ bytes (ZeRO §7: ZeRO-1
 *    and -2 move the same volume as reduce-scatter + all-gather), once per step, overlapping
 *    the last micro-batch's backward but for the last bucket (bucketed DDP). With expert
 *    parallelism e the routed experts' gradients (1/e of them per GPU) are reduced over the
 *    dp/e ranks holding the same experts, the rest over dp.
 *  - ZeRO-3: the parameters are all-gathered in forward and again in backward and the
 *    gradients reduce-scattered, every micro-batch: 1.5x the data-parallel volume (ZeRO §7);
 *    prefetched, each overlapping its pass but for one layer's share.
 *  - pipeline: 1F1B's bubble is (p-1)/m of the pipelined work with m micro-batches, i.e.
 *    (p-1)/(m+p-1) of the step; interleaved with v chunks per stage (p-1)/(v·m) (Narayanan
 *    et al. 2021 §2.2); plus each micro-batch's activation and gradient sends between stages
 *    (v times with interleaving), b·s·h·a/tp bytes each (§4.1), on the critical path.
 *  - MoE with expert parallelism e: 2 all-to-alls of the routed tokens (b·s·k·h·a) per MoE
 *    layer forward and 2 backward (GShard, Lepikhin et al. 2020; DeepSpeed-MoE, Rajbhandari
 *    et al. 2022), scaled by the load imbalance, which also stretches the expert compute of
 *    the most loaded rank. Hidden under the shared experts' compute, and the fraction
 *    moe_a2a_overlap of it under an adjacent micro-batch's (FF_DEFAULT_MOE_A2A_OVERLAP). The
 *    experts' grouped GEMMs run at moe_gemm_efficiency of the dense efficiency (tile padding
 *    and the roofline at their tokens per expert, FF_MOE_GEMM_TILE_ROWS). With parallel
 *    folding (ep_fold) the ep group is the first ep of the tp x cp x dp ranks, experts are
 *    not split over tp and the MoE layers' MLP pair of TP collectives is replaced by the
 *    all-to-all (Megatron-Core MoE Parallel Folding, Liu et al. 2025).
 *  - context parallelism cp (ranks placed after tp): each rank holds s/cp tokens; per
 *    attention layer the K/V chunks travel the ring, cp - 1 steps of b·(s/cp)·(k+v dims)·a/tp
 *    bytes forward and twice that backward (K/V again and their gradients), each step
 *    overlapped with the attention of the chunk at hand: only what exceeds the attention
 *    compute is exposed (Liu et al. 2023, Ring Attention §3; Megatron-Core context_parallel
 *    docs: ring P2P overlapped with attention; Llama 3 §3.3.2 all-gathers K/V instead, the
 *    same volume). Counted in the tp_comm term. The gradients of the weights are reduced over
 *    dp x cp ranks.
 *  - tensor-parallel overlap: tp_overlap of each layer's TP collectives hidden under its
 *    GEMMs, never more than their time (see FF_DEFAULT_* in flopfit/estimate.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "flopfit/estimate.h"
#include "flopfit/status.h"
#include "internal.h"

double ff_coll_bus_factor(enum ff_collective c, double n)
{
    if (!(n > 1.0))
        return 0.0;
    return c == FF_COLL_ALL_REDUCE ? 2.0 * (n - 1.0) / n : (n - 1.0) / n;
}

double ff_coll_seconds(enum ff_collective c, double n, double bytes, double busbw,
                       double step_latency_s)
{
    if (!(n > 1.0) || !(busbw > 0.0))
        return 0.0;
    double depth = ceil(log2(n));
    double steps = c == FF_COLL_ALL_REDUCE ? 2.0 * depth : depth;
    return step_latency_s * steps + ff_coll_bus_factor(c, n) * bytes / busbw;
}

const char *ff_step_term_name(int term)
{
    static const char *const names[FF_STEP_TERMS] = {
        "compute",         "tp_comm",        "dp_comm",      "zero3_gather",
        "pipeline_bubble", "moe_all_to_all", "moe_imbalance"};
    return term >= 0 && term < FF_STEP_TERMS ? names[term] : "?";
}

int64_t ff_comm_node_size(const struct ff_spec *d, const struct ff_plan *p)
{
    if (p->gpus_per_node > 0)
        return p->gpus_per_node;
    return d->gpus_per_node > 0 ? d->gpus_per_node : 8;
}

/* One tier of the network: achieved bus bandwidth and per-step latency; busbw 0 = unknown. */
struct tier {
    double busbw, step_latency;
    bool measured;
};

static struct tier intra_tier(const struct ff_spec *d)
{
    struct tier t = {d->link_bytes_per_s * FF_COMM_INTRA_FRACTION, FF_COMM_INTRA_STEP_LATENCY_S,
                     false};
    if (d->intra_busbw_bytes_per_s > 0.0) {
        t.busbw = d->intra_busbw_bytes_per_s;
        t.measured = true;
    }
    if (d->intra_latency_s > 0.0) {
        double steps = d->intra_ranks > 1 ? 2.0 * ceil(log2((double)d->intra_ranks)) : 1.0;
        t.step_latency = d->intra_latency_s / steps;
    }
    return t;
}

static struct tier inter_tier(const struct ff_spec *d, const struct ff_plan *p)
{
    double rate =
        p->inter_node_bytes_per_s > 0.0 ? p->inter_node_bytes_per_s : d->inter_node_bytes_per_s;
    struct tier t = {rate * FF_COMM_INTER_FRACTION, FF_COMM_INTER_STEP_LATENCY_S, false};
    if (p->inter_node_bytes_per_s <= 0.0 && d->inter_busbw_bytes_per_s > 0.0) {
        t.busbw = d->inter_busbw_bytes_per_s;
        t.measured = true;
    }
    if (d->inter_latency_s > 0.0) {
        double steps = d->inter_ranks > 1 ? 2.0 * ceil(log2((double)d->inter_ranks)) : 1.0;
        t.step_latency = d->inter_latency_s / steps;
    }
    /* A node's ranks share their links with the ring too: the slower tier bounds it. */
    struct tier in = intra_tier(d);
    if (in.busbw > 0.0 && t.busbw > in.busbw)
        t.busbw = in.busbw;
    return t;
}

static void na(struct ff_step_part *t, const char *why)
{
    t->applies = false;
    t->known = true;
    snprintf(t->note, sizeof(t->note), "%s", why);
}

/* A communication term over a group of n ranks with stride `stride` in the rank order. */
static const struct tier *group_tier(struct ff_step_part *t, double n, double stride, double node,
                                     const struct tier *intra, const struct tier *inter)
{
    t->applies = true;
    t->inter_node = n * stride > node;
    const struct tier *tr = t->inter_node ? inter : intra;
    t->known = tr->busbw > 0.0;
    if (!t->known)
        snprintf(t->note, sizeof(t->note), "%s",
                 t->inter_node ? "unknown: no inter-node rate (pass --inter-node-gbps)"
                               : "unknown: no GPU-to-GPU link rate for this device");
    return tr;
}

/* Expert share of the active matmul parameters (routed experts only). */
static double expert_share(const struct ff_model *m, const struct ff_param_count *pc)
{
    if (m->experts <= 0 || pc->expert == 0 || pc->matmul_active == 0)
        return 0.0;
    double n_moe = ff_model_moe_layers(m);
    double routed = n_moe * (double)m->experts_active * (double)pc->expert;
    double share = routed / (double)pc->matmul_active;
    return share > 1.0 ? 1.0 : share;
}

/* The experts' share of a data-parallel collective over their dp/ep ranks; nothing (not even
 * latency) without experts to reduce. */
static double expert_coll(enum ff_collective c, double n, double bytes, double busbw,
                          double step_latency_s)
{
    return bytes > 0.0 ? ff_coll_seconds(c, n, bytes, busbw, step_latency_s) : 0.0;
}

/* LoRA adapter parameters, r·(d_in + d_out) per adapted matrix (Hu et al. 2021 §4). */
static double lora_params(const struct ff_model *m, const struct ff_plan *p)
{
    double h = (double)m->hidden, r = (double)p->lora_rank, hd = (double)m->head_dim;
    double q = (double)m->heads * hd, kv = (double)m->kv_heads * hd;
    double f = (double)(m->moe_ffn > 0 ? m->moe_ffn : m->ffn);
    double per = r * ((h + q) + (h + kv)); /* Wq, Wv */
    if (p->lora_all_linear)
        per += r * ((h + kv) + (q + h) + 3.0 * (h + f)); /* Wk, Wo, gate, up, down */
    return per * (double)m->layers;
}

/* Shared experts' share of the active matmul parameters: their compute runs beside the
 * all-to-all. */
static double shared_share(const struct ff_model *m, const struct ff_param_count *pc)
{
    if (m->experts <= 0 || m->shared_experts <= 0 || pc->matmul_active == 0)
        return 0.0;
    double n_moe = ff_model_moe_layers(m);
    double w = (double)(m->shared_ffn > 0 ? m->shared_ffn : (m->moe_ffn > 0 ? m->moe_ffn : m->ffn));
    double mats = m->gated_ffn ? 3.0 : 2.0;
    double shared = n_moe * (double)m->shared_experts * mats * (double)m->hidden * w;
    return fmin(1.0, shared / (double)pc->matmul_active);
}

double ff_moe_gemm_efficiency(double tokens_per_expert, double hidden, double width,
                              double elem_bytes, double flops_per_s, double bytes_per_s)
{
    double M = tokens_per_expert;
    if (!(M > 0.0) || !(hidden > 0.0) || !(width > 0.0))
        return 1.0;
    /* A measured grouped-GEMM curve from a profile would replace this; none carries one yet. */
    double tile = (double)FF_MOE_GEMM_TILE_ROWS;
    double pad = M / (ceil(M / tile) * tile);
    double roof = 1.0;
    if (bytes_per_s > 0.0 && flops_per_s > 0.0) {
        double intensity =
            2.0 * M * hidden * width / (elem_bytes * (M * hidden + hidden * width + M * width));
        double ridge = flops_per_s / (bytes_per_s * FF_DEFAULT_BW_FRACTION);
        roof = fmin(1.0, intensity / ridge);
    }
    return pad * roof;
}

/* The TP fraction hidden under the GEMMs: the plan's, else for FP8 plans with sequence
 * parallelism (tp - 1)/tp and none otherwise (the comment on tensor-parallel overlap after FF_DEFAULT_MOE_A2A_OVERLAP
 * in flopfit/estimate.h). */
static double tp_overlap_fraction(const struct ff_plan *p)
{
    if (p->tp_overlap >= 0.0)
        return p->tp_overlap;
    if (p->tp <= 1 || !p->sequence_parallel || ff_plan_compute_precision(p) != FF_PREC_FP8)
        return 0.0;
    return ((double)p->tp - 1.0) / (double)p->tp;
}

int ff_comm_step(const struct ff_model *m, const struct ff_spec *d, const struct ff_plan *p,
                 const struct ff_param_count *pc, int64_t dp_i, struct ff_step *out)
{
    return ff_comm_step_x(m, d, p, pc, dp_i, out, NULL);
}

int ff_comm_step_x(const struct ff_model *m, const struct ff_spec *d, const struct ff_plan *p,
                   const struct ff_param_count *pc, int64_t dp_i, struct ff_step *out,
                   struct ff_step_extra *x)
{
    memset(out, 0, sizeof(*out));
    struct ff_step_extra xs;
    if (!x)
        x = &xs;
    memset(x, 0, sizeof(*x));
    x->moe_gemm_efficiency = 1.0;
    double tp = (double)p->tp, pp = (double)p->pp, dp = (double)dp_i;
    double cp = p->cp > 1 ? (double)p->cp : 1.0;
    double gpus = tp * pp * cp * dp;
    double node = (double)ff_comm_node_size(d, p);
    double rate = ff_spec_rate(d, ff_plan_compute_precision(p));
    if (!(rate > 0.0))
        return FF_ERR_UNSUPPORTED;
    double eff =
        p->compute_efficiency > 0.0 ? p->compute_efficiency : ff_default_compute_efficiency(d);
    if (ff_plan_compute_precision(p) == FF_PREC_FP8 && p->compute_efficiency <= 0.0) {
        /* FP8 runs nowhere near twice BF16 (FF_DEFAULT_FP8_TRAIN_SPEEDUP over the BF16 rate). */
        double bf16 = d->flops_per_s[FF_PREC_BF16] > 0 ? d->flops_per_s[FF_PREC_BF16] : rate / 2.0;
        eff = eff * FF_DEFAULT_FP8_TRAIN_SPEEDUP * bf16 / rate;
    }
    struct tier intra = intra_tier(d), inter = inter_tier(d, p);
    double s = (double)ff_plan_seq(m, p), b = (double)p->batch, mb = (double)p->accum;
    double act = p->precision == FF_PREC_FP32 ? 4.0 : 2.0;
    double h = (double)m->hidden;
    double L = (double)m->layers, Lst = ceil(L / pp);

    out->valid = true;
    out->micro_batches = p->accum;
    out->sequences = b * mb * dp;
    out->gpus_per_node = (int64_t)node;
    out->nodes = (int64_t)ceil(gpus / node);
    out->intra_busbw_bytes_per_s = intra.busbw;
    out->inter_busbw_bytes_per_s = inter.busbw;
    out->intra_measured = intra.measured;
    out->inter_measured = inter.measured;
    out->compute_efficiency = eff;

    /* Compute: hardware FLOPs of one micro-batch on one GPU. */
    struct ff_flops f;
    int rc = ff_est_flops(m, p, b * s, &f);
    if (rc != FF_OK)
        return rc;
    double t_mb = f.hardware / (tp * pp * cp) / (rate * eff);
    /* MoE: the routed experts' grouped GEMMs at their own efficiency. Tokens per local
     * expert per micro-batch: each of the ep ranks sends its tokens' k copies over the E
     * experts; a rank sees b·s/cp tokens (b·s/(tp·cp) with folding, where experts are whole). */
    bool fold = p->ep_fold && m->experts > 0;
    double share = expert_share(m, pc);
    double ep_g = 1.0; /* expert-parallel ranks in effect */
    if (m->experts > 0 && p->ep > 1)
        ep_g = fmin((double)p->ep, fold ? tp * cp * dp : dp);
    if (share > 0.0) {
        double w = (double)(m->moe_ffn > 0 ? m->moe_ffn : m->ffn);
        double local = fold ? b * s / (tp * cp) : b * s / cp;
        x->moe_tokens_per_expert = local * (double)m->experts_active * ep_g / (double)m->experts;
        x->moe_gemm_efficiency =
            ff_moe_gemm_efficiency(x->moe_tokens_per_expert, h, fold ? w : w / tp, act, rate * eff,
                                   d->bandwidth_bytes_per_s);
    }
    double t_expert = share * t_mb; /* at the dense efficiency */
    t_mb += t_expert * (1.0 / x->moe_gemm_efficiency - 1.0);
    t_expert /= x->moe_gemm_efficiency;
    double fwd_share = f.hardware > 0.0 ? (f.model / 3.0) / f.hardware : 1.0 / 3.0;
    if (p->task != FF_TASK_TRAIN)
        fwd_share = f.hardware > 0.0 ? (f.model / 2.0) / f.hardware : 0.5; /* frozen: 4N = 2+2 */
    double t_fwd = t_mb * fwd_share, t_bwd = t_mb - t_fwd;
    struct ff_step_part *T = out->term;
    T[FF_TERM_COMPUTE].applies = T[FF_TERM_COMPUTE].known = true;
    T[FF_TERM_COMPUTE].seconds = T[FF_TERM_COMPUTE].total_seconds = mb * t_mb;
    const char *of = d->measured ? "the measured matmul" : "peak";
    if (share > 0.0 && x->moe_gemm_efficiency < 0.995)
        snprintf(T[FF_TERM_COMPUTE].note, sizeof(T[0].note),
                 "%.0f%% of %s, experts x%.2f (%.0f tokens/expert), %lld micro-batch(es)",
                 eff * 100.0, of, x->moe_gemm_efficiency, x->moe_tokens_per_expert,
                 (long long)p->accum);
    else
        snprintf(T[FF_TERM_COMPUTE].note, sizeof(T[0].note), "%.0f%% of %s, %lld micro-batch(es)",
                 eff * 100.0, of, (long long)p->accum);

    /* Tensor parallel: 4 collectives per layer (2 more in each recomputed forward), the part
     * not hidden under the GEMMs on the critical path; with cp > 1 the ring attention's
     * exposed K/V exchange joins it. */
    double rerun = ff_recompute_layer_share(m, p); /* blocks whose forward runs twice */
    double n_moe_all = ff_model_moe_layers(m);
    double moe_st = m->experts > 0 ? ceil(n_moe_all / pp) : 0.0;
    double t_tp_mb = 0.0, t_tp_all = 0.0;
    double tp_bytes = 0.0;
    double F_tp = tp_overlap_fraction(p);
    bool tp_known = true;
    const char *tp_inter_note = NULL;
    if (p->tp > 1) {
        const struct tier *tr = group_tier(&T[FF_TERM_TP], tp, 1.0, node, &intra, &inter);
        double S = b * s / cp * h * act;
        double count = (4.0 + 2.0 * rerun) * Lst;
        if (fold) /* experts whole on their ranks: the MoE layers' MLP pair goes */
            count -= (2.0 + (rerun > 0.0 ? rerun : 0.0)) * fmin(moe_st, Lst);
        double one;
        if (p->sequence_parallel)
            one = ff_coll_seconds(FF_COLL_ALL_GATHER, tp, S, tr->busbw, tr->step_latency) +
                  ff_coll_seconds(FF_COLL_REDUCE_SCATTER, tp, S, tr->busbw, tr->step_latency);
        else
            one = ff_coll_seconds(FF_COLL_ALL_REDUCE, tp, S, tr->busbw, tr->step_latency);
        tp_known = T[FF_TERM_TP].known;
        if (!tp_known)
            tp_inter_note = T[FF_TERM_TP].inter_node ? "inter" : "intra";
        t_tp_all = tp_known ? count * one : 0.0;
        /* Hidden under the GEMMs of the same micro-batch, never more than they take (dense
         * compute share: the attention core is not a GEMM the collectives sit beside). */
        double gemm = t_mb * (1.0 - fmin(1.0, 3.0 * ff_attn_flops_per_token(m, s) /
                                                  fmax(1.0, f.hardware / (b * s))));
        double hidden = fmin(F_tp * t_tp_all, gemm);
        x->tp_hidden_fraction = t_tp_all > 0.0 ? hidden / t_tp_all : 0.0;
        t_tp_mb = t_tp_all - hidden;
        tp_bytes = mb * count * ff_coll_bus_factor(FF_COLL_ALL_REDUCE, tp) * S;
        if (tp_known) {
            if (x->tp_hidden_fraction > 0.0)
                snprintf(T[FF_TERM_TP].note, sizeof(T[0].note),
                         "%.0f %s per micro-batch over %lld, %.0f%% hidden", count,
                         p->sequence_parallel ? "all-gather+reduce-scatter" : "all-reduces",
                         (long long)p->tp, 100.0 * x->tp_hidden_fraction);
            else
                snprintf(T[FF_TERM_TP].note, sizeof(T[0].note), "%.0f %s per micro-batch over %lld",
                         count, p->sequence_parallel ? "all-gather+reduce-scatter" : "all-reduces",
                         (long long)p->tp);
        }
    }
    /* Context parallel: the K/V ring per attention layer of the stage, overlapped with the
     * attention compute of the chunk at hand (forward 1x, backward 2x the volume). */
    double t_cp_mb = 0.0, t_cp_all = 0.0, cp_bytes = 0.0;
    bool cp_known = true, cp_inter = false;
    if (cp > 1.0) {
        struct ff_step_part tmp;
        memset(&tmp, 0, sizeof(tmp));
        const struct tier *tr = group_tier(&tmp, cp, tp, node, &intra, &inter);
        cp_known = tmp.known;
        cp_inter = tmp.inter_node;
        double kv_dim;
        if (m->kv_lora_rank > 0)
            kv_dim = (double)m->heads *
                     ((double)(m->qk_nope_head_dim + m->qk_rope_head_dim) + (double)m->v_head_dim);
        else
            kv_dim = 2.0 * (double)m->kv_heads * (double)m->head_dim;
        double kv_tp = m->kv_lora_rank > 0 ? tp : fmin(tp, fmax(1.0, (double)m->kv_heads));
        double chunk = b * (s / cp) * kv_dim * act / kv_tp; /* one rank's K and V */
        double attn_l = Lst * (double)ff_model_attn_layers(m) / fmax(1.0, L);
        double steps = cp - 1.0;
        double one_step = cp_known ? tr->step_latency + chunk / tr->busbw : 0.0;
        /* forward: steps sends of K/V; backward: K/V and dK/dV, twice the bytes */
        double comm_f = steps * one_step, comm_b = 2.0 * steps * one_step;
        double attn_fwd = ff_attn_flops_per_token(m, s) / fmax(1.0, L) * b * s / (tp * cp) /
                          (rate * eff); /* per layer, this rank */
        double rer = 1.0 + rerun;       /* a recomputed forward passes the ring again */
        t_cp_all = attn_l * (rer * comm_f + comm_b);
        t_cp_mb =
            attn_l * (rer * fmax(0.0, comm_f - attn_fwd) + fmax(0.0, comm_b - 2.0 * attn_fwd));
        cp_bytes = mb * attn_l * (rer + 2.0) * steps * chunk;
    }
    x->cp_comm_seconds = mb * t_cp_mb;
    x->cp_comm_total_seconds = mb * t_cp_all;
    x->cp_comm_bytes = cp_bytes;
    if (p->tp <= 1 && cp <= 1.0) {
        na(&T[FF_TERM_TP], "tp 1: no tensor-parallel all-reduce");
    } else {
        struct ff_step_part *P = &T[FF_TERM_TP];
        P->applies = true;
        P->known = tp_known && cp_known;
        P->inter_node = P->inter_node || cp_inter;
        P->bytes = tp_bytes + cp_bytes;
        P->seconds = P->known ? mb * (t_tp_mb + t_cp_mb) : 0.0;
        P->total_seconds = P->known ? mb * (t_tp_all + t_cp_all) : 0.0;
        if (!P->known)
            snprintf(P->note, sizeof(P->note), "%s",
                     (tp_inter_note ? !strcmp(tp_inter_note, "inter") : cp_inter)
                         ? "unknown: no inter-node rate (pass --inter-node-gbps)"
                         : "unknown: no GPU-to-GPU link rate for this device");
        else if (p->tp <= 1)
            snprintf(P->note, sizeof(P->note), "cp %lld ring K/V exchange, %.0f%% hidden",
                     (long long)p->cp, t_cp_all > 0 ? 100.0 * (1.0 - t_cp_mb / t_cp_all) : 100.0);
        else if (cp > 1.0) {
            size_t k = strlen(P->note);
            snprintf(P->note + k, sizeof(P->note) - k, "; cp %lld ring %.0f%% hidden",
                     (long long)p->cp, t_cp_all > 0 ? 100.0 * (1.0 - t_cp_mb / t_cp_all) : 100.0);
        }
        t_tp_mb = P->known ? t_tp_mb + t_cp_mb : 0.0;
    }

    /* MoE expert parallel: 4 all-to-alls per MoE layer (2 more in each recomputed forward). */
    double t_ep_mb = 0.0, t_imb_mb = 0.0;
    double imb = p->moe_imbalance >= 1.0 ? p->moe_imbalance : FF_DEFAULT_MOE_IMBALANCE;
    x->moe_imbalance = m->experts > 0 ? imb : 0.0;
    if (m->experts <= 0) {
        na(&T[FF_TERM_MOE_A2A], "dense model");
        na(&T[FF_TERM_MOE_IMBALANCE], "dense model");
    } else if (p->ep <= 1) {
        na(&T[FF_TERM_MOE_A2A], "ep 1: experts replicated over data-parallel ranks (--ep N)");
        na(&T[FF_TERM_MOE_IMBALANCE], "ep 1: each rank computes its own tokens' experts");
    } else if (ep_g < 2.0) {
        na(&T[FF_TERM_MOE_A2A], fold ? "tp x cp x dp 1: no expert-parallel group"
                                     : "dp 1: no expert-parallel group (carved out of dp)");
        na(&T[FF_TERM_MOE_IMBALANCE], "dp 1: each rank computes its own tokens' experts");
    } else {
        double ep = ep_g; /* carved out of the dp ranks, or folded over tp x cp x dp */
        const struct tier *tr =
            group_tier(&T[FF_TERM_MOE_A2A], ep, fold ? 1.0 : tp * cp, node, &intra, &inter);
        double S = b * s / cp * (double)m->experts_active * h * act / tp * imb;
        double count = (4.0 + 2.0 * rerun) * moe_st;
        double one = ff_coll_seconds(FF_COLL_ALL_TO_ALL, ep, S, tr->busbw, tr->step_latency);
        double all = T[FF_TERM_MOE_A2A].known ? count * one : 0.0;
        /* Hidden: under the shared experts' compute of the same layers, and the fraction F
         * under an adjacent micro-batch's compute, which needs two micro-batches in flight
         * and no full recompute (Megatron-Core combined 1F1B; DualPipe). */
        double F = p->moe_a2a_overlap >= 0.0 ? p->moe_a2a_overlap : FF_DEFAULT_MOE_A2A_OVERLAP;
        if (mb < 2.0 && pp < 2.0)
            F = 0.0;
        double shared_w = shared_share(m, pc) * t_mb;
        double hidden = fmin(all, fmin(F * all, t_mb) + shared_w);
        t_ep_mb = all - hidden;
        x->moe_a2a_hidden_fraction = all > 0.0 ? hidden / all : 0.0;
        T[FF_TERM_MOE_A2A].bytes = mb * count * ff_coll_bus_factor(FF_COLL_ALL_TO_ALL, ep) * S;
        T[FF_TERM_MOE_A2A].seconds = mb * t_ep_mb;
        T[FF_TERM_MOE_A2A].total_seconds = mb * all;
        if (T[FF_TERM_MOE_A2A].known)
            snprintf(T[FF_TERM_MOE_A2A].note, sizeof(T[0].note),
                     "%.0f all-to-alls per micro-batch over %lld%s, x%.2f imbalance, %.0f%% "
                     "hidden",
                     count, (long long)ep, fold ? " (folded)" : "", imb,
                     100.0 * x->moe_a2a_hidden_fraction);
        T[FF_TERM_MOE_IMBALANCE].applies = T[FF_TERM_MOE_IMBALANCE].known = true;
        t_imb_mb = (imb - 1.0) * t_expert;
        T[FF_TERM_MOE_IMBALANCE].seconds = T[FF_TERM_MOE_IMBALANCE].total_seconds = mb * t_imb_mb;
        snprintf(T[FF_TERM_MOE_IMBALANCE].note, sizeof(T[0].note),
                 "most loaded rank %.2fx the mean on %.0f%% expert compute", imb, share * 100.0);
    }

    /* Pipeline: the bubble over the pipelined work (compute + TP + EP), plus the stage-to-
     * stage sends: per micro-batch the activations forward and their gradients backward,
     * b·s·h·a/tp bytes each (Megatron's scatter/gather over the tp ranks, Narayanan §4.1),
     * over the network when a stage boundary crosses nodes (tp·dp ranks per stage). */
    if (p->pp <= 1) {
        na(&T[FF_TERM_BUBBLE], "pp 1: no pipeline");
    } else {
        double v = p->pp_chunks > 1 ? (double)p->pp_chunks : 1.0;
        double work = mb * (t_mb + t_tp_mb + t_ep_mb + t_imb_mb);
        double bubble = (pp - 1.0) / (v * mb) * work;
        struct ff_step_part *B = &T[FF_TERM_BUBBLE];
        B->applies = true;
        B->inter_node = tp * cp * dp * pp > node; /* some boundary crosses: it bounds the rest */
        const struct tier *tr = B->inter_node ? &inter : &intra;
        B->known = tr->busbw > 0.0;
        double S = b * s / cp * h * act / tp;
        double send = B->known ? tr->step_latency + S / tr->busbw : 0.0;
        double p2p = 2.0 * mb * v * send;
        B->bytes = 2.0 * mb * v * S;
        B->seconds = B->total_seconds = bubble + p2p;
        if (B->known)
            snprintf(B->note, sizeof(B->note), "(p-1)/(v*m) = %lld/(%lld*%lld)%s + stage sends",
                     (long long)(p->pp - 1), (long long)v, (long long)p->accum,
                     v > 1 ? ", interleaved" : ", 1F1B");
        else
            snprintf(B->note, sizeof(B->note), "%s",
                     "unknown: stage sends cross nodes with no inter-node rate "
                     "(--inter-node-gbps)");
    }

    /* Data parallel: 16-bit gradients of this GPU's shard (ZeRO §7: 2Ψ bytes); LoRA/QLoRA
     * reduce only the adapters' gradients but ZeRO-3 still gathers the frozen base. With
     * expert parallelism e the routed experts are 1/e per GPU and replicated over only the
     * dp/e ranks of their expert-data-parallel group (DeepSpeed-MoE's
     * expert_data_parallel_group, Megatron-core's expert data-parallel group): their
     * gradients are reduced there, the rest over all dp. The two groups span the same ranks'
     * nodes (stride tp·e x dp/e = tp x dp), so one tier serves both. */
    /* Context parallelism: the cp ranks hold the same weights, so gradients are reduced over
     * dp x cp (Megatron-Core's data-parallel group with context parallel). Folded experts: 1/ep
     * per GPU, whole, reduced over tp x cp x dp / ep ranks. */
    double dpc = dp * cp;
    double ep_n = ep_g;
    double dp_e = ep_n > 1.0 ? fmax(1.0, floor((fold ? tp * dpc : dpc) / ep_n)) : dpc;
    double routed = ep_n > 1.0 ? ff_routed_expert_params(m, pc) : 0.0;
    double psi = ((double)pc->total - routed) / (tp * pp);
    double psi_e = routed / (pp * ep_n * (fold ? 1.0 : tp));
    double gbytes = 2.0 * psi * (act / 2.0), wbytes = gbytes;
    double gbytes_e = 2.0 * psi_e * (act / 2.0), wbytes_e = gbytes_e;
    if (p->task != FF_TASK_TRAIN) {
        gbytes = 2.0 * (act / 2.0) * lora_params(m, p) / (tp * pp);
        gbytes_e = 0.0; /* adapters counted once per layer in lora_params, not per expert */
    }
    if (dpc <= 1.0) {
        na(&T[FF_TERM_DP], "dp 1: no gradient all-reduce");
        na(&T[FF_TERM_ZERO3], "dp 1: nothing sharded");
    } else {
        dp = dpc; /* the gradient group: dp x cp ranks, stride tp */
        const struct tier *tr = group_tier(&T[FF_TERM_DP], dp, tp, node, &intra, &inter);
        if (p->zero < 3) {
            na(&T[FF_TERM_ZERO3],
               p->zero == 0 ? "ZeRO-0: parameters replicated" : "ZeRO-1/2: parameters replicated");
            double c =
                ff_coll_seconds(FF_COLL_ALL_REDUCE, dp, gbytes, tr->busbw, tr->step_latency) +
                expert_coll(FF_COLL_ALL_REDUCE, dp_e, gbytes_e, tr->busbw, tr->step_latency);
            double window = p->dp_overlap ? t_bwd : 0.0;
            double all = gbytes + gbytes_e;
            double tail = all > 0.0 ? c * fmin(1.0, FF_COMM_DDP_BUCKET_BYTES / all) : 0.0;
            double exposed = p->dp_overlap ? fmax(tail, c - window) : c;
            T[FF_TERM_DP].bytes = ff_coll_bus_factor(FF_COLL_ALL_REDUCE, dp) * gbytes +
                                  ff_coll_bus_factor(FF_COLL_ALL_REDUCE, dp_e) * gbytes_e;
            T[FF_TERM_DP].total_seconds = T[FF_TERM_DP].known ? c : 0.0;
            T[FF_TERM_DP].seconds = T[FF_TERM_DP].known ? exposed : 0.0;
            if (T[FF_TERM_DP].known && gbytes_e > 0.0 && dp_e > 1.0)
                snprintf(T[FF_TERM_DP].note, sizeof(T[0].note),
                         "all-reduce %.3g GB over %lld + experts %.3g GB over %.0f, %.0f%% hidden",
                         gbytes / 1e9, (long long)dp, gbytes_e / 1e9, dp_e,
                         c > 0 ? 100.0 * (1.0 - exposed / c) : 0.0);
            else if (T[FF_TERM_DP].known)
                snprintf(T[FF_TERM_DP].note, sizeof(T[0].note),
                         "all-reduce of %.3g GB over %lld, %.0f%% hidden under backward",
                         gbytes / 1e9, (long long)dp, c > 0 ? 100.0 * (1.0 - exposed / c) : 0.0);
        } else {
            /* Per micro-batch: gather forward (hidden under forward but one layer's share),
             * gather + reduce-scatter backward (hidden under backward likewise). */
            group_tier(&T[FF_TERM_ZERO3], dp, tp, node, &intra, &inter);
            double ag =
                ff_coll_seconds(FF_COLL_ALL_GATHER, dp, wbytes, tr->busbw, tr->step_latency) +
                expert_coll(FF_COLL_ALL_GATHER, dp_e, wbytes_e, tr->busbw, tr->step_latency);
            double rs =
                ff_coll_seconds(FF_COLL_REDUCE_SCATTER, dp, gbytes, tr->busbw, tr->step_latency) +
                expert_coll(FF_COLL_REDUCE_SCATTER, dp_e, gbytes_e, tr->busbw, tr->step_latency);
            double lay = Lst > 0 ? 1.0 / Lst : 1.0;
            double ex_f = p->dp_overlap ? fmax(ag * lay, ag - t_fwd) : ag;
            double ex_b = p->dp_overlap ? fmax((ag + rs) * lay, ag + rs - t_bwd) : ag + rs;
            double tot = 2.0 * ag + rs;
            double ex = ex_f + ex_b;
            bool known = T[FF_TERM_DP].known;
            T[FF_TERM_DP].bytes =
                mb * (ff_coll_bus_factor(FF_COLL_REDUCE_SCATTER, dp) * gbytes +
                      ff_coll_bus_factor(FF_COLL_REDUCE_SCATTER, dp_e) * gbytes_e);
            T[FF_TERM_ZERO3].bytes = mb * 2.0 *
                                     (ff_coll_bus_factor(FF_COLL_ALL_GATHER, dp) * wbytes +
                                      ff_coll_bus_factor(FF_COLL_ALL_GATHER, dp_e) * wbytes_e);
            T[FF_TERM_DP].total_seconds = known ? mb * rs : 0.0;
            T[FF_TERM_ZERO3].total_seconds = known ? mb * 2.0 * ag : 0.0;
            T[FF_TERM_DP].seconds = known && tot > 0 ? mb * ex * rs / tot : 0.0;
            T[FF_TERM_ZERO3].seconds = known && tot > 0 ? mb * ex * 2.0 * ag / tot : 0.0;
            if (known) {
                snprintf(T[FF_TERM_DP].note, sizeof(T[0].note),
                         "reduce-scatter of %.3g GB over %lld per micro-batch", gbytes / 1e9,
                         (long long)dp);
                snprintf(T[FF_TERM_ZERO3].note, sizeof(T[0].note),
                         "2 all-gathers per micro-batch (1.5x DP volume), %.0f%% hidden",
                         tot > 0 ? 100.0 * (1.0 - ex / tot) : 0.0);
            }
        }
    }

    out->seconds = 0.0;
    out->dominant = FF_TERM_COMPUTE;
    for (int i = 0; i < FF_STEP_TERMS; i++) {
        if (!T[i].applies || !T[i].known)
            continue;
        out->seconds += T[i].seconds;
        if (T[i].seconds > T[out->dominant].seconds)
            out->dominant = i;
    }
    struct ff_flops step_f;
    if ((rc = ff_est_flops(m, p, out->sequences * s, &step_f)) != FF_OK)
        return rc;
    out->mfu = out->seconds > 0.0 ? step_f.model / (out->seconds * gpus * rate) : 0.0;
    return FF_OK;
}

int ff_est_step(const struct ff_model *m, const struct ff_spec *d, const struct ff_plan *p,
                struct ff_step *out, char *err, size_t errlen)
{
    if (!m || !d || !p || !out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "missing argument");
    struct ff_plan pv;
    struct ff_model mv;
    struct ff_spec dv;
    int rc = ff_plan_view(&p, &pv, err, errlen);
    if (rc != FF_OK || (rc = ff_model_view(&m, &mv, err, errlen)) != FF_OK ||
        (rc = ff_spec_view(&d, &dv, err, errlen)) != FF_OK)
        return rc;
    if (p->task == FF_TASK_SERVE)
        return ff_errf(err, errlen, FF_ERR_INVALID, "the step breakdown is for training tasks");
    rc = ff_plan_check(m, p, err, errlen);
    if (rc != FF_OK)
        return rc;
    if (p->tp > ff_comm_node_size(d, p))
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--tp %lld is more than the %lld GPUs of a node", (long long)p->tp,
                       (long long)ff_comm_node_size(d, p));
    struct ff_param_count pc;
    if ((rc = ff_model_params(m, &pc)) != FF_OK)
        return ff_errf(err, errlen, rc, "%s: parameter count out of range", m->name);
    int64_t dp = p->gpus > 0 ? p->gpus / (p->tp * p->pp * p->cp) : 1;
    rc = ff_comm_step(m, d, p, &pc, dp, out);
    if (rc != FF_OK)
        return ff_errf(err, errlen, rc, "%s lacks a %s matrix rate", d->slug,
                       ff_precision_name(ff_plan_compute_precision(p)));
    return FF_OK;
}
