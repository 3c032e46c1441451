/*
 * estimate/src/memory.c — memory per GPU: weights, gradients, optimizer states,
 * activations, KV cache and runtime overhead.
 *
 * Sources: ZeRO (Rajbhandari et al. 2020) §3.1 and Fig. 1 for model states; DeepSpeed's
 * ZeRO defaults (zero/config.py) and its stage_1_and_2.py / stage3.py buffers for the
 * working sets; QLoRA (Dettmers et al. 2023) and its qlora.py for adapters, the
 * dequantisation buffer and paged optimizers; Korthikanti et al. 2022 Table 2 for activations; Megatron-LM theoretical_memory_usage.py
 * for pipeline stages (the first stage holds min(pp, micro-batches) in flight).
 *
 * Expert parallelism (--ep e): the e ranks of an expert-parallel group each hold 1/e of the
 * routed experts (DeepSpeed-MoE, Rajbhandari et al. 2022 §4 / deepspeed/moe/layer.py
 * num_local_experts = num_experts / ep_size; Megatron-core moe/experts.py, local experts =
 * num_moe_experts / expert_model_parallel_size). The groups are carved out of the dp ranks
 * (ep divides dp), so each expert is replicated over dp/e ranks, its expert-data-parallel
 * group, and ZeRO shards the experts' states over those dp/e ranks (DeepSpeed's
 * expert_data_parallel_group, Megatron-core's expert data-parallel distributed optimizer),
 * the rest (attention, router, shared experts, dense layers, embeddings) over all dp.
 */
#include <math.h>
#include <string.h>

#include "flopfit/estimate.h"
#include "flopfit/status.h"
#include "internal.h"

/* Parameters DeepSpeed ZeRO-3 holds gathered at once: the module in use plus what it
 * prefetches, released past stage3_max_live_parameters (config.py; ZeRO paper §5.3: only the
 * parameters of the layer being computed are needed). A module larger than the limit is
 * still gathered whole; never more than the shard itself. */
static double zero3_live(double params, double largest_module)
{
    double live = fmin(largest_module + FF_ZERO3_PREFETCH_BUCKET, FF_ZERO3_MAX_LIVE);
    return fmin(fmax(live, largest_module), params);
}

void ff_est_model_state(double params, double largest_module, int stage, double dp, double w,
                        double g, double k, struct ff_memory *out)
{
    memset(out, 0, sizeof(*out));
    if (dp < 1.0)
        dp = 1.0;
    out->weights = w * params;
    out->gradients = g * params;
    out->optimizer = k * params;
    switch (stage) {
    case 1: /* P_os: 4Ψ + KΨ/N_d with 2-byte weights and grads */ out->optimizer /= dp; break;
    case 2: /* P_os+g: 2Ψ + (2+K)Ψ/N_d. DeepSpeed (stage_1_and_2.py) copies each gradient
             * as backward produces it into one reduce bucket of reduce_bucket_size 16-bit
             * elements and keeps only its own partition, so the whole-model 16-bit gradient
             * copy of DeepSpeed's older estimator (4Ψ + 16Ψ/N_d, docs memory.rst) is never
             * resident: the bucket is. */
        out->gradients = out->gradients / dp + w * FF_ZERO_REDUCE_BUCKET;
        out->optimizer /= dp;
        break;
    case 3: { /* P_os+g+p: (2+2+K)Ψ/N_d, plus the gathered parameters (zero3_live) and in
               * backward the reduce bucket (stage3.py's flat ipg buffer, allocated whole) and
               * the module's freshly computed 16-bit gradient before it is copied there;
               * DeepSpeed's estimator keeps 4 bytes x largest layer for the last two. */
        out->weights = out->weights / dp + w * zero3_live(params, largest_module);
        out->gradients = out->gradients / dp + w * (FF_ZERO_REDUCE_BUCKET + largest_module);
        out->optimizer /= dp;
        break;
    }
    default: break;
    }
}

double ff_est_optimizer_bytes(enum ff_optimizer opt, double weight_bytes)
{
    /* Mixed precision keeps an fp32 master copy of 16-bit (or narrower) weights. */
    double master = weight_bytes < 4.0 ? 4.0 : 0.0;
    switch (opt) {
    case FF_OPT_ADAMW: return master + 8.0;     /* fp32 momentum + variance */
    case FF_OPT_ADAMW8BIT: return master + 2.0; /* 8-bit states (Dettmers et al. 2022) */
    case FF_OPT_SGD: return master + 4.0;       /* fp32 momentum */
    }
    return master + 8.0;
}

enum ff_precision ff_plan_kv_precision(const struct ff_plan *p)
{
    if (p->kv_precision_set)
        return p->kv_precision;
    return ff_precision_default_kv(p->precision);
}

int64_t ff_plan_seq(const struct ff_model *m, const struct ff_plan *p)
{
    if (p->task == FF_TASK_SERVE)
        return p->prompt + p->generate;
    if (p->seq > 0)
        return p->seq;
    return m->max_positions > 0 && m->max_positions < 4096 ? m->max_positions : 4096;
}

/* Bytes per stored weight of the transformer blocks and of embeddings/head. */
static void weight_bytes(const struct ff_plan *p, double *block, double *other)
{
    double wide = p->precision == FF_PREC_FP32 ? 4.0 : 2.0;
    switch (p->task) {
    case FF_TASK_TRAIN:
        *block = *other = wide; /* fp8 training keeps 16-bit weights (Transformer Engine) */
        return;
    case FF_TASK_QLORA:
        *block = ff_precision_bytes(FF_PREC_NF4);
        *other = wide; /* QLoRA leaves embeddings and the LM head in 16 bits */
        return;
    default:
        *block = ff_precision_bytes(p->precision);
        /* Quantised checkpoints keep embeddings and the LM head in 16 bits (GPTQ/AWQ,
         * bitsandbytes, MX/NVFP4 modules_to_not_convert); GGUF quantises them too
         * (token_embd and output are Q4_K/Q6_K or Q8_0 tensors in the file). */
        if (p->precision == FF_PREC_Q4_0 || p->precision == FF_PREC_Q4_K_M ||
            p->precision == FF_PREC_Q8_0) /* an untied pair: half embedding, half head */
            *other = 0.5 * (ff_precision_embed_bytes(p->precision) +
                            ff_precision_head_bytes(p->precision));
        else
            *other = *block < 2.0 ? 2.0 : *block;
        return;
    }
}

double ff_stored_scale(const struct ff_model *m, const struct ff_param_count *pc,
                       const struct ff_plan *p)
{
    if (!p->weights_as_stored || !(m->stored_bytes > 0.0) || p->task != FF_TASK_SERVE)
        return 1.0;
    double wb, ob;
    weight_bytes(p, &wb, &ob);
    double other = (double)pc->embedding + (double)pc->head;
    double computed = ((double)pc->total - other) * wb + other * ob;
    return computed > 0.0 ? m->stored_bytes / computed : 1.0;
}

/* Per token per layer activation bytes (Korthikanti Table 2, generalised; see header). */
static double act_per_token(const struct ff_model *m, const struct ff_plan *p, double s, double tp,
                            bool *scores_out)
{
    double h = (double)m->hidden, a = (double)m->heads;
    double e = p->precision == FF_PREC_FP32 ? 2.0 : 1.0; /* element size / 2 bytes */
    double d = m->dropout ? 1.0 : 0.0;
    double qk, v_dim, k_dim;
    if (m->kv_lora_rank > 0) {
        qk = (double)(m->qk_nope_head_dim + m->qk_rope_head_dim);
        k_dim = a * qk;
        v_dim = a * (double)m->v_head_dim;
    } else {
        qk = (double)m->head_dim;
        k_dim = v_dim = (double)m->kv_heads * (double)m->head_dim;
    }
    double q_dim = a * qk, o_dim = m->kv_lora_rank > 0 ? v_dim : a * (double)m->head_dim;
    double f;
    double moe_copies = 0.0;
    if (m->experts > 0) {
        double w = (double)(m->moe_ffn > 0 ? m->moe_ffn : m->ffn);
        f = (double)(m->experts_active + m->shared_experts) * w;
        if (m->dense_layers > 0 && (double)m->ffn > f)
            f = (double)m->ffn;
        moe_copies = 2.0 * h * (double)m->experts_active; /* dispatched token copies */
    } else {
        f = (double)m->ffn;
    }
    /* Replicated under TP without sequence parallelism: norm inputs, QKV and MLP inputs,
     * dropout masks (1 byte each). Korthikanti: 10sbh for two norms and dropout. */
    double rep = e * (2.0 * (double)m->norms_per_layer * h + 2.0 * h + 2.0 * h) + 2.0 * d * h;
    /* Op-level recomputation keeps the norm inputs (the residual stream) and every matmul and
     * attention output; the norm outputs (QKV and MLP inputs) and dropout masks are rebuilt. */
    bool ops = p->recompute == FF_RECOMPUTE_OPS;
    if (ops)
        rep = e * 2.0 * (double)m->norms_per_layer * h;
    /* Sharded: Q, K, V, attention output (projection input), FFN intermediates:
     * 4f (GeLU: fc1 output + activation output) or 6f (gated: gate, up, product); op-level
     * recomputation drops the activation output (GeLU) or the gated product: 2f less. */
    double mixer = 2.0 * q_dim + 2.0 * k_dim + 2.0 * v_dim + 2.0 * o_dim;
    double attn_share = 1.0;
    if (m->ssm_layers > 0 && m->layers > 0) {
        /* Mamba blocks save the in_proj output (2·d_inner), the conv output, dt, the scan
         * output and the gated product (d_inner each) for backward: 6·d_inner 16-bit
         * elements (MambaMixer.slow_forward); averaged with the attention blocks. */
        attn_share = (double)ff_model_attn_layers(m) / (double)m->layers;
        mixer = attn_share * mixer + (1.0 - attn_share) * 2.0 * 6.0 * (double)m->ssm_inner;
    }
    double shard = e * (mixer + ((m->gated_ffn ? 6.0 : 4.0) - (ops ? 2.0 : 0.0)) * f + moe_copies);
    /* Attention scores: softmax output 2as (+ dropout mask as and output 2as), unless
     * flash attention or selective recomputation removes them (flash attention never stores
     * them: selective then saves nothing more). Every-K-th-layer and op-level policies keep
     * them in the layers they keep. */
    double scores = 0.0;
    bool keep_scores = !p->flash_attention &&
                       (p->recompute == FF_RECOMPUTE_NONE || p->recompute == FF_RECOMPUTE_OPS ||
                        p->recompute == FF_RECOMPUTE_LAYERS);
    if (keep_scores) {
        double s_eff = s;
        if (m->sliding_window > 0 && (double)m->sliding_window < s && m->sliding_layers == 0)
            s_eff = (double)m->sliding_window;
        scores = (e * 2.0 + 3.0 * d) * a * s_eff * attn_share;
    }
    if (scores_out)
        *scores_out = keep_scores;
    if (tp > 1.0 && p->sequence_parallel)
        return (rep + shard + scores) / tp;
    return rep + (shard + scores) / tp;
}

struct stage_sizes {
    double blocks_first, blocks_last; /* block parameters per stage */
    double other_first, other_last;   /* embedding / head parameters per stage */
    double layers_per_stage;
};

static void stages(const struct ff_model *m, const struct ff_param_count *pc, double pp,
                   struct stage_sizes *st)
{
    double L = (double)m->layers;
    double lps = ceil(L / pp);
    double blocks = (double)pc->total - (double)pc->embedding - (double)pc->head;
    double stage_blocks = pp <= 1.0 ? blocks : fmin(blocks, lps * (double)pc->per_layer_max);
    double head = m->tied_embeddings
                      ? (double)m->vocab * (double)(m->embed_proj ? m->embed_proj : m->hidden)
                      : (double)pc->head;
    st->layers_per_stage = lps;
    st->blocks_first = st->blocks_last = stage_blocks;
    if (pp <= 1.0) {
        st->other_first = st->other_last = (double)pc->embedding + (double)pc->head;
    } else {
        st->other_first = (double)pc->embedding;
        st->other_last = head; /* a tied head keeps its own copy on the last stage */
    }
}

static double lora_params_per_layer(const struct ff_model *m, const struct ff_plan *p)
{
    double r = (double)p->lora_rank, h = (double)m->hidden;
    double qd = (double)m->heads * (double)m->head_dim;
    double kvd = (double)m->kv_heads * (double)m->head_dim;
    /* LoRA §4: r·(d_in + d_out) per adapted matrix. */
    double w = r * (h + qd) + r * (h + kvd); /* Wq, Wv */
    if (p->lora_all_linear) {
        w += r * (h + kvd) + r * (qd + h); /* Wk, Wo */
        double f = (double)(m->moe_ffn > 0 ? m->moe_ffn : m->ffn);
        double per = (m->gated_ffn ? 3.0 : 2.0) * r * (h + f);
        double n = m->experts > 0 ? (double)(m->experts + m->shared_experts) : 1.0;
        w += n * per;
    }
    return w;
}

/* `gpus` > 1 adds NCCL's buffers. An explicit --overhead-gib replaces the fixed terms
 * (context, kernels, workspaces, NCCL); the fragmentation reserve stays. */
static void add_overhead(const struct ff_plan *p, double gpus, struct ff_memory *mem)
{
    double sum = mem->weights + mem->gradients + mem->optimizer + mem->activations + mem->kv_cache;
    double frac = p->overhead_fraction >= 0.0 ? p->overhead_fraction : FF_DEFAULT_OVERHEAD_FRACTION;
    if (p->overhead_bytes >= 0.0) {
        mem->overhead_runtime = p->overhead_bytes;
        mem->overhead_nccl = 0.0;
    } else {
        mem->overhead_runtime = FF_DEFAULT_OVERHEAD_BYTES;
        mem->overhead_nccl = gpus > 1.0 ? FF_DEFAULT_NCCL_BYTES : 0.0;
    }
    /* Model states and a paged KV cache are allocated once; the caching allocator's
     * fragmentation comes from the churn of transient activations. */
    mem->overhead_fragmentation = frac * mem->activations;
    mem->overhead = mem->overhead_runtime + mem->overhead_nccl + mem->overhead_fragmentation;
    mem->total = sum + mem->overhead;
}

double ff_routed_expert_params(const struct ff_model *m, const struct ff_param_count *pc)
{
    if (m->experts <= 0 || pc->expert == 0)
        return 0.0;
    double n_moe = ff_model_moe_layers(m);
    return n_moe * (double)m->experts * (double)pc->expert;
}

double ff_routed_expert_params_stage(const struct ff_model *m, const struct ff_param_count *pc,
                                     double pp)
{
    double all = ff_routed_expert_params(m, pc);
    if (pp <= 1.0 || all <= 0.0)
        return all;
    return fmin(all, ceil((double)m->layers / pp) * (double)m->experts * (double)pc->expert);
}

double ff_usable_bytes(const struct ff_spec *d)
{
    return d->measured ? d->mem_bytes : d->mem_bytes * (1.0 - FF_DEFAULT_DRIVER_RESERVE);
}

/* The largest single module DeepSpeed ZeRO-3 gathers at once (its hooks fetch each
 * submodule's own parameters): one weight matrix of a block, or the embedding / LM head
 * when this stage holds them (`embed`). Projections and FFN matrices separate, as in the
 * Hugging Face implementations (q/k/v/o, gate/up/down, one module per expert). */
static double largest_matrix(const struct ff_model *m, bool embed)
{
    double h = (double)m->hidden;
    double f = (double)m->ffn;
    if (m->experts > 0) {
        double w = (double)(m->moe_ffn > 0 ? m->moe_ffn : m->ffn);
        double shared = (double)(m->shared_ffn > 0 ? m->shared_ffn : 0);
        f = fmax(m->dense_layers > 0 || m->moe_layers > 0 ? f : 0.0, fmax(w, shared));
    }
    double big = m->ffn_absent ? 0.0 : h * f;
    big = fmax(big, h * (double)m->heads * (double)m->head_dim);
    if (m->ssm_layers > 0)
        big = fmax(big, h * 2.0 * (double)m->ssm_inner); /* Mamba in_proj */
    if (embed)
        big = fmax(big, (double)m->vocab * (double)(m->embed_proj ? m->embed_proj : m->hidden));
    return big;
}

/* Parameters per block in tensors under stage3_param_persistence_threshold elements, which
 * ZeRO-3 keeps whole on every GPU: the norms' weights (and LayerNorm biases). */
static double persistent_per_layer(const struct ff_model *m)
{
    double h = (double)m->hidden;
    if (h >= FF_ZERO3_PERSISTENCE_THRESHOLD)
        return 0.0;
    return (double)m->norms_per_layer * h * (m->norm == FF_NORM_LAYERNORM ? 2.0 : 1.0);
}

/* Optimizer state bytes per trainable parameter without a master copy: AdamW's fp32
 * momentum and variance, 8-bit Adam's two 8-bit states (Dettmers et al. 2022), SGD's fp32
 * momentum. */
static double optimizer_states_bytes(enum ff_optimizer opt)
{
    return ff_est_optimizer_bytes(opt, 4.0);
}

/* bitsandbytes' paged optimizers keep their states in CUDA unified memory, which the driver
 * evicts to host memory under pressure and pages back on access (QLoRA §3 "Paged
 * Optimizers"); the step updates one parameter at a time (prefetching its states), so the
 * states never need to be resident together and are off the device at the
 * forward/backward peak. A fp32 master copy is an ordinary tensor and stays. */
static void page_optimizer(struct ff_memory *mem, double states)
{
    mem->paged = states;
    mem->total -= states;
}

static void train_stage(const struct ff_model *m, const struct ff_plan *p,
                        const struct ff_param_count *pc, double blocks, double other,
                        double in_flight, bool last, double tp, double pp, double dp, double b,
                        struct ff_memory *mem)
{
    double wb, ob;
    weight_bytes(p, &wb, &ob);
    double module = largest_matrix(m, other > 0.0) / tp;
    double w16 = p->precision == FF_PREC_FP32 ? 4.0 : 2.0;
    double g = p->precision == FF_PREC_FP32 ? 4.0 : ff_precision_bytes(p->grad_precision);
    double layers = blocks / (double)pc->per_layer_max;
    double states; /* optimizer state bytes on this GPU, the part a paged optimizer pages */
    /* Expert parallelism: this stage's routed experts, 1/ep of them per GPU, replicated (and
     * ZeRO-sharded) over dp/ep ranks (see the header). */
    /* Never more expert-parallel ranks than data-parallel ones (a search point with dp < ep,
     * or no --gpus): the group is carved out of dp. With parallel folding (Megatron-Core MoE
     * Parallel Folding, Liu et al. 2025) it is drawn from the tp x cp x dp ranks of the stage
     * and each expert is whole on its rank (expert tensor parallel 1): 1/ep of the routed
     * experts per GPU, replicated over tp x cp x dp / ep ranks.
     * Context parallelism: the cp ranks hold the same weights, and the distributed optimizer
     * shards over dp x cp (Megatron-Core's data-parallel group with context parallel). */
    double cp = p->cp > 1 ? (double)p->cp : 1.0;
    double dpz = fmax(1.0, dp) * cp;
    double fold_ranks = p->ep_fold ? tp * dpz : dpz / cp;
    double ep = p->ep > 1 ? fmin((double)p->ep, fmax(1.0, fold_ranks)) : 1.0;
    double routed = ep > 1.0 ? fmin(blocks, ff_routed_expert_params_stage(m, pc, pp)) : 0.0;
    double ep_split = p->ep_fold ? ep : tp * ep; /* the routed experts' divisor per GPU */
    double dp_e = fmax(1.0, (p->ep_fold ? tp * dpz : dpz) / ep);
    dp = dpz;
    if (p->task == FF_TASK_TRAIN) {
        double k = ff_est_optimizer_bytes(p->optimizer, w16);
        double n = (blocks - routed + other) / tp, n_e = routed / ep_split;
        ff_est_model_state(n, module, p->zero, dp, w16, g, k, mem);
        /* The experts' states by the same ZeRO rules over dp/ep; the working buffers (bucket,
         * gathered module) are the dense call's, one set per GPU. */
        mem->weights += w16 * n_e / (p->zero >= 3 ? dp_e : 1.0);
        mem->gradients += g * n_e / (p->zero >= 2 ? dp_e : 1.0);
        mem->optimizer += k * n_e / (p->zero >= 1 ? dp_e : 1.0);
        states = optimizer_states_bytes(p->optimizer) *
                 (n / (p->zero >= 1 ? dp : 1.0) + n_e / (p->zero >= 1 ? dp_e : 1.0));
    } else {
        /* Frozen base (sharded only by ZeRO-3, then gathered module by module like the
         * trainable weights; routed experts 1/ep per GPU) + trainable adapters. */
        double frozen = ((blocks - routed) * wb + other * ob) / tp;
        double frozen_e = routed * wb / ep_split;
        if (p->zero == 3)
            frozen = frozen / dp + frozen_e / dp_e +
                     w16 * zero3_live((blocks - routed + other) / tp + routed / ep_split, module);
        else
            frozen += frozen_e;
        double adapters = lora_params_per_layer(m, p) * layers / tp;
        double aw = w16, ag = g, k = ff_est_optimizer_bytes(p->optimizer, w16);
        if (p->task == FF_TASK_QLORA) {
            /* QLoRA's reference code (artidoro/qlora, qlora.py) casts the LoRA layers to
             * the 16-bit compute dtype, so their gradients are 16-bit too, and its paged
             * 32-bit AdamW (bitsandbytes) updates them in place: no fp32 master copy. The
             * paper counts them so: 0.2% of LLaMA-7B's weights "take up only 26 MB"
             * (QLoRA §3), i.e. 2 bytes each. */
            ag = aw;
            k = optimizer_states_bytes(p->optimizer);
        }
        ff_est_model_state(adapters, 0.0, p->zero, dp, aw, ag, k, mem);
        mem->weights += frozen;
        states = optimizer_states_bytes(p->optimizer) * adapters / (p->zero >= 1 ? dp : 1.0);
    }
    if (p->zero == 3 && p->task == FF_TASK_TRAIN)
        mem->weights += w16 * persistent_per_layer(m) * layers / tp;
    double s = (double)ff_plan_seq(m, p);
    /* Context parallelism: each rank holds s/cp tokens of each sequence (the attention scores
     * of its queries against all s keys stay a·s per token). */
    double tokens = s * b / cp;
    double per_layer = act_per_token(m, p, s, tp, NULL) * tokens;
    double e = p->precision == FF_PREC_FP32 ? 4.0 : 2.0;
    double sp = (tp > 1.0 && p->sequence_parallel) ? tp : 1.0;
    if (layers < 1.0)
        layers = 1.0;
    double act;
    double input = e * (double)m->hidden * tokens / sp; /* one layer's input, 2sbh */
    if (p->recompute == FF_RECOMPUTE_FULL) {
        /* Keep each layer's input (2sbh) and rebuild one layer at a time in backward. */
        act = input * layers + per_layer;
    } else if (p->recompute == FF_RECOMPUTE_LAYERS) {
        /* Every K-th layer keeps only its input, the others everything; in backward one
         * checkpointed layer at a time is rebuilt. */
        double k_every = p->recompute_every > 1 ? (double)p->recompute_every : 1.0;
        double ck = floor(layers / k_every + 1e-9);
        act = input * ck + per_layer * (layers - ck) + (ck > 0.0 ? per_layer : 0.0);
    } else {
        act = per_layer * layers;
    }
    act *= in_flight;
    if (!last)
        act += e * (double)m->hidden * tokens / sp * in_flight; /* embedding output */
    else
        act += 4.0 * (double)m->vocab * tokens / tp; /* fp32 logits for the loss */
    if (p->task == FF_TASK_QLORA)
        /* bitsandbytes dequantises one NF4 weight matrix at a time into the 16-bit compute
         * dtype for its matmul (forward and backward) and frees it after. */
        act += 2.0 * largest_matrix(m, false) / tp;
    mem->activations = act;
    add_overhead(p, tp * pp * dp, mem); /* dp here is dp x cp */
    if (p->paged_optimizer)
        page_optimizer(mem, states);
}

static int memory_at(const struct ff_model *m, const struct ff_plan *p,
                     const struct ff_param_count *pc, double tp, double pp, double dp, double b,
                     struct ff_memory *out)
{
    struct stage_sizes st;
    stages(m, pc, pp, &st);
    if (p->task != FF_TASK_SERVE) {
        double in_flight = pp > 1.0 ? fmin(pp, (double)p->accum) : 1.0;
        struct ff_memory first, last;
        train_stage(m, p, pc, st.blocks_first, st.other_first, in_flight, pp <= 1.0, tp, pp, dp, b,
                    &first);
        if (pp <= 1.0) {
            *out = first;
            return FF_OK;
        }
        train_stage(m, p, pc, st.blocks_last, st.other_last, 1.0, true, tp, pp, dp, b, &last);
        *out = first.total >= last.total ? first : last;
        return FF_OK;
    }
    /* Serving: weights + KV cache + transient activations of one prefill + overhead. */
    double wb, ob;
    weight_bytes(p, &wb, &ob);
    struct ff_memory mem;
    memset(&mem, 0, sizeof(mem));
    double other = fmax(st.other_first, st.other_last);
    mem.weights = (st.blocks_first * wb + other * ob) / tp * ff_stored_scale(m, pc, p);
    double kv_share = 1.0; /* MLA's latent is replicated across TP ranks */
    if (m->kv_lora_rank == 0 && m->kv_heads > 0)
        kv_share = 1.0 / fmin(tp, (double)m->kv_heads);
    double ctx = (double)(p->prompt + p->generate);
    double kv_b = ff_precision_bytes(ff_plan_kv_precision(p));
    mem.kv_cache = ff_model_kv_bytes(m, ctx, b, kv_b) * kv_share / pp;
    /* SSM blocks: a fixed state per sequence, split over TP by d_inner. */
    mem.kv_cache += ff_model_ssm_state_elems(m) * b * kv_b / tp / pp;
    double h = (double)m->hidden;
    double qkv = (double)(m->heads + 2 * m->kv_heads) * (double)m->head_dim;
    double f = m->experts > 0 ? (double)(m->experts_active + m->shared_experts) *
                                    (double)(m->moe_ffn > 0 ? m->moe_ffn : m->ffn)
                              : (double)m->ffn;
    double wide = (m->gated_ffn ? 2.0 : 1.0) * f;
    double act_elem = p->precision == FF_PREC_FP32 ? 4.0 : 2.0;
    mem.activations = b * (double)p->prompt * act_elem * (2.0 * h + fmax(qkv, wide)) / tp +
                      b * (double)m->vocab * 4.0 / tp;
    add_overhead(p, tp * pp * dp, &mem);
    *out = mem;
    return FF_OK;
}

int ff_memory_at(const struct ff_model *m, const struct ff_plan *p, const struct ff_param_count *pc,
                 double tp, double pp, double dp, double b, struct ff_memory *out)
{
    return memory_at(m, p, pc, tp, pp, dp, b, out);
}

int ff_est_memory(const struct ff_model *m, const struct ff_plan *plan, int64_t gpus, int64_t batch,
                  struct ff_memory *out)
{
    if (!m || !plan || !out || batch < 0)
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
    double cp = plan->cp > 1 ? (double)plan->cp : 1.0;
    double mp = (double)(plan->tp * plan->pp) * cp;
    double dp = gpus > 0 ? (double)gpus / mp : 1.0;
    if (dp < 1.0)
        dp = 1.0;
    return memory_at(m, plan, &pc, (double)plan->tp, (double)plan->pp, dp, (double)batch, out);
}
