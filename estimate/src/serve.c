/*
 * estimate/src/serve.c — prefill and decode time (roofline, kernel by kernel).
 *
 * Prefill ≈ 2·N·tokens / (peak·MFU): compute-bound, the larger of its compute and weight
 * reads. A decode step runs two classes of kernels one after the other, each bound by the
 * larger of its own compute and memory time (per-operator roofline, as in LLM-Viewer, Yuan
 * et al. 2024 "LLM Inference Unveiled"): the GEMMs, which stream the weights, then
 * attention, which streams the KV cache; compute and memory overlap inside a kernel, not
 * across the two. KV reads run at their own bandwidth fraction, decode GEMMs at the serving
 * MFU, FP8 compute at FF_DEFAULT_FP8_SPEEDUP over BF16, and each forward pays
 * FF_DEFAULT_STEP_OVERHEAD_S (the defaults and the published runs behind them: estimate.h
 * and doc/estimator.md "Assumptions"). MoE decode reads only the experts its tokens touch:
 * E·(1 - (1 - k/E)^tokens) per layer. Tensor parallelism divides both and adds two
 * all-reduces per layer (Megatron): latency α plus a ring's 2(t-1)/t of the activations over
 * the GPU link (kipply, "Transformer Inference Arithmetic").
 * Attention is counted without the causal halving, as in the training count.
 */
#include <math.h>
#include <string.h>

#include "flopfit/estimate.h"
#include "flopfit/status.h"
#include "internal.h"

static double block_bytes(const struct ff_plan *p)
{
    return ff_precision_bytes(p->precision);
}

/* Weight bytes read once when `tokens` tokens pass through the model. */
static double weights_read(const struct ff_model *m, const struct ff_param_count *pc,
                           const struct ff_plan *p, double tokens)
{
    /* The LM head in the format's real layout (GGUF: Q6_K or Q8_0; others 16-bit). */
    double wb = block_bytes(p), ob = ff_precision_head_bytes(p->precision);
    double head = (double)m->vocab * (double)(m->embed_proj > 0 ? m->embed_proj : m->hidden);
    double blocks = (double)pc->total - (double)pc->embedding - (double)pc->head;
    if (m->rough) {
        head = (double)pc->embedding;
        blocks = (double)pc->total - head;
    }
    if (m->experts > 0 && pc->expert > 0) {
        double n_moe = (double)(m->layers - m->dense_layers);
        double E = (double)m->experts, k = (double)m->experts_active;
        double all = n_moe * E * (double)pc->expert;
        double touched = E * (1.0 - pow(1.0 - k / E, tokens));
        blocks = blocks - all + n_moe * touched * (double)pc->expert;
    }
    return (blocks * wb + head * ob) * ff_stored_scale(m, pc, p);
}

/* A weight format's decode streaming over the 16-bit one's and its compute over its
 * arithmetic's rate (FF_QUANT_* in flopfit/estimate.h, their sources there). A profile's
 * measured "op weight_stream" figure replaces the streaming share (*measured true). */
void ff_serve_weight_factors(const struct ff_spec *d, enum ff_precision f, double *bw_rel,
                             double *compute_rel, bool *measured)
{
    *bw_rel = 1.0;
    *compute_rel = 1.0;
    *measured = false;
    switch (f) {
    case FF_PREC_Q8_0: *bw_rel = FF_QUANT_GGUF8_BW_REL; break;
    case FF_PREC_Q4_0:
    case FF_PREC_Q4_K_M: *bw_rel = FF_QUANT_GGUF4_BW_REL; break;
    case FF_PREC_INT4:
    case FF_PREC_NF4:
    case FF_PREC_MXFP4:
    case FF_PREC_NVFP4:
        *bw_rel = FF_QUANT_W4_BW_REL;
        *compute_rel = FF_QUANT_W4_COMPUTE_REL;
        break;
    default: break;
    }
    if ((int)f >= 0 && f < FF_PREC_COUNT && d->weight_stream_fraction[f] > 0.0) {
        *bw_rel = d->weight_stream_fraction[f];
        *measured = true;
    }
}

double ff_serve_comm_seconds(const struct ff_model *m, const struct ff_spec *d, double tp,
                             double tokens, double act_bytes)
{
    if (tp <= 1.0)
        return 0.0;
    double bytes = 2.0 * (tp - 1.0) / tp * tokens * (double)m->hidden * act_bytes;
    double link = d->link_bytes_per_s > 0.0 ? bytes / d->link_bytes_per_s : 0.0;
    return 2.0 * (double)m->layers * (FF_DEFAULT_ALLREDUCE_LATENCY_S + link);
}

/* The matrix rate serving computes at: FP8 compute reaches FF_DEFAULT_FP8_SPEEDUP times the
 * BF16 rate at the default MFU, not the datasheet's 2x (the training default; in serving,
 * TensorRT-LLM's H100 FP8 prefills of 2048 tokens, 36 ms on Llama-2-7B and 109 ms on
 * Llama-2-70B TP4, imply 1.25-1.3x). An explicit --mfu takes the FP8 peak as given. */
static double serve_rate(const struct ff_spec *d, const struct ff_plan *p)
{
    double rate = ff_spec_rate(d, p->precision);
    if (p->precision == FF_PREC_FP8 && p->mfu <= 0.0 && d->flops_per_s[FF_PREC_BF16] > 0.0)
        rate = fmin(rate, d->flops_per_s[FF_PREC_BF16] * FF_DEFAULT_FP8_SPEEDUP);
    return rate;
}

int ff_serve_at(const struct ff_model *m, const struct ff_spec *d, const struct ff_plan *p,
                const struct ff_param_count *pc, double mfu, double bw_fraction, int64_t batch,
                struct ff_serve_point *out)
{
    double rate = serve_rate(d, p);
    double bw = d->bandwidth_bytes_per_s * bw_fraction;
    if (rate <= 0.0 || bw <= 0.0)
        return FF_ERR_UNSUPPORTED;
    double w_bw_rel, w_compute_rel;
    bool w_measured;
    ff_serve_weight_factors(d, p->precision, &w_bw_rel, &w_compute_rel, &w_measured);
    /* Weight streaming in this format; a measured fraction is of the read bandwidth itself. */
    double bw_w = w_measured ? d->bandwidth_bytes_per_s * w_bw_rel : bw * w_bw_rel;
    /* KV reads: their own fraction of a datasheet bandwidth; a measured bandwidth or an
     * explicit --bw-fraction applies to them as to the weights. */
    double bw_kv = p->bw_fraction > 0.0 || d->measured
                       ? bw
                       : d->bandwidth_bytes_per_s * FF_DEFAULT_KV_BW_FRACTION;
    double tp = (double)p->tp, B = (double)batch;
    double P = (double)p->prompt, G = (double)p->generate;
    double head = (double)m->vocab * (double)(m->embed_proj > 0 ? m->embed_proj : m->hidden);
    double matmul = (double)pc->matmul_active;
    double act_bytes = p->precision == FF_PREC_FP32 ? 4.0 : 2.0;
    double compute = tp * rate * mfu;
    double compute_w = compute * w_compute_rel; /* the GEMMs over dequantised weights */

    /* Prefill: every prompt token through the blocks, the LM head for the last one only. */
    double attn_p = m->rough ? 0.0 : ff_attn_flops_per_token(m, P);
    double flops_p = B * (P * (2.0 * (matmul - head) + attn_p) + 2.0 * head);
    double bytes_p = weights_read(m, pc, p, B * P);
    double t_p = fmax(flops_p / compute_w, bytes_p / (tp * bw_w)) + FF_DEFAULT_STEP_OVERHEAD_S +
                 ff_serve_comm_seconds(m, d, tp, B * P, act_bytes);

    /* Decode: one token per sequence at the mean context of the generation. GEMMs (weights
     * read once for the batch), then attention over the KV cache. */
    double ctx = P + G / 2.0;
    double attn_d = m->rough ? 0.0 : ff_attn_flops_per_token(m, ctx);
    double kv_b = ff_precision_bytes(ff_plan_kv_precision(p));
    double kv = ff_model_kv_bytes(m, ctx, B, kv_b);
    /* SSM blocks read their state once per step, whatever the context. */
    kv += ff_model_ssm_state_elems(m) * B * kv_b;
    double t_gemm = fmax(B * 2.0 * matmul / compute_w, weights_read(m, pc, p, B) / (tp * bw_w));
    double t_attn = fmax(B * attn_d / compute, kv / (tp * bw_kv));
    double t_d = t_gemm + t_attn + FF_DEFAULT_STEP_OVERHEAD_S +
                 ff_serve_comm_seconds(m, d, tp, B, act_bytes);

    out->prefill_s = t_p;
    out->step_s = t_d;
    out->total_s = t_p + G * t_d;
    out->tokens_per_s = B * G / out->total_s;
    return FF_OK;
}
