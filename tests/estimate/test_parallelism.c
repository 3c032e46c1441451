/*
 * tests/estimate/test_parallelism.c — the cost models of recomputation (memory.c, flops.c),
 * context parallelism, MoE grouped GEMMs, all-to-all overlap, load imbalance, expert-parallel
 * folding and tensor-parallel overlap (comm.c), each against hand-computed figures.
 */
#include <math.h>
#include <string.h>

#include "../common.h"

static struct ff_plan plan_at(int64_t seq)
{
    struct ff_plan p;
    ff_plan_init(&p);
    p.seq = seq;
    p.tokens = 1e9;
    p.dp_overlap = false;
    return p;
}

static struct ff_memory mem_of(const struct ff_model *m, const struct ff_plan *p, int64_t gpus)
{
    struct ff_memory mem;
    cr_assert_eq(ff_est_memory(m, p, gpus, p->batch, &mem), FF_OK);
    return mem;
}

static struct ff_flops flops_of(const struct ff_model *m, const struct ff_plan *p)
{
    struct ff_flops f;
    cr_assert_eq(ff_est_flops(m, p, 1e6, &f), FF_OK);
    return f;
}

/* ---- recomputation ---- */

/* Per token and layer, bytes (bf16, Korthikanti Table 2): none 34h (layer-norm inputs 4h, QKV
 * input 2h, Q K V 6h, attention output 2h, MLP input 2h, fc1 output 8h, GeLU output 8h,
 * dropout masks 2h). Op-level keeps the norm inputs and the matmul/attention outputs: 4h + 6h +
 * 2h + 8h = 20h. The fp32 logits, 4·V per token, are the same for all. */
Test(recompute, ops_keeps_matmul_outputs_only)
{
    struct ff_model m = small_gpt();
    double h = 1024.0, s = 1024.0, logits = 4.0 * 50257.0 * s;
    struct ff_plan p = plan_at(1024);
    struct ff_memory none = mem_of(&m, &p, 1);
    p.recompute = FF_RECOMPUTE_OPS;
    struct ff_memory ops = mem_of(&m, &p, 1);
    double layers = (none.activations - logits) / (34.0 * h * s);
    expect_within(layers, 8.0, 1e-4, "layers (blocks / largest block)");
    expect_within(ops.activations - logits, 20.0 * h * s * layers, 1e-12, "ops: 20sbh per layer");
    /* No matmul is rerun: hardware FLOPs are the model's. */
    struct ff_flops f = flops_of(&m, &p);
    cr_expect_eq(f.hardware, f.model);
}

/* Every K-th layer checkpointed: floor(L/K) layers keep their input 2sbh, the rest 34sbh, and
 * one checkpointed layer is rebuilt at a time; floor(L/K)/L of a full recompute's FLOPs. */
Test(recompute, every_kth_layer)
{
    struct ff_model m = small_gpt();
    double h = 1024.0, s = 1024.0, logits = 4.0 * 50257.0 * s, per = 34.0 * h * s;
    struct ff_plan p = plan_at(1024);
    struct ff_memory none = mem_of(&m, &p, 1);
    double L = (none.activations - logits) / per;
    p.recompute = FF_RECOMPUTE_LAYERS;
    p.recompute_every = 2;
    struct ff_memory k2 = mem_of(&m, &p, 1);
    expect_within(k2.activations - logits, 2.0 * h * s * 4.0 + per * (L - 4.0) + per, 1e-12,
                  "layers:2 memory");
    p.recompute_every = 3; /* floor(8/3) = 2 checkpointed */
    struct ff_memory k3 = mem_of(&m, &p, 1);
    expect_within(k3.activations - logits, 2.0 * h * s * 2.0 + per * (L - 2.0) + per, 1e-12,
                  "layers:3 memory");
    struct ff_plan full = plan_at(1024);
    full.recompute = FF_RECOMPUTE_FULL;
    struct ff_flops ff = flops_of(&m, &full);
    struct ff_flops f3 = flops_of(&m, &p);
    expect_within(f3.hardware - f3.model, (ff.hardware - ff.model) * 2.0 / 8.0, 1e-12,
                  "layers:3 reruns 2 of 8 blocks");
    /* K = 1 is full recomputation, in FLOPs and in memory. */
    p.recompute_every = 1;
    struct ff_flops f1 = flops_of(&m, &p);
    expect_within(f1.hardware, ff.hardware, 1e-12, "layers:1 FLOPs = full");
    struct ff_memory k1 = mem_of(&m, &p, 1), mf = mem_of(&m, &full, 1);
    expect_within(k1.activations, mf.activations, 1e-4, "layers:1 memory = full");
    /* TP: a rerun forward repeats its 2 collectives, for 1/K of the layers (8 layers, 4
     * collectives each, + 2 x 2 rerun for layers:4). */
    struct ff_spec d = device("a100-80gb");
    p.recompute_every = 4;
    p.tp = p.gpus = 4;
    struct ff_step st = step_of(&m, &d, &p);
    cr_expect(strstr(st.term[FF_TERM_TP].note, "36 "), "%s", st.term[FF_TERM_TP].note);
}

/* Selective means Megatron's: the attention scores. Flash attention never stores them, so with
 * flash attention on it changes neither memory nor FLOPs (no double counting); without flash
 * attention it drops the 5as/h term and reruns the attention core. */
Test(recompute, selective_saves_nothing_beyond_flash)
{
    struct ff_model m = small_gpt();
    struct ff_plan p = plan_at(1024);
    struct ff_memory none = mem_of(&m, &p, 1);
    struct ff_flops fn = flops_of(&m, &p);
    p.recompute = FF_RECOMPUTE_SELECTIVE;
    struct ff_memory sel = mem_of(&m, &p, 1);
    struct ff_flops fs = flops_of(&m, &p);
    cr_expect_eq(sel.activations, none.activations);
    cr_expect_eq(fs.hardware, fn.hardware);
    /* Without flash attention: scores 2as + mask as + dropout output 2as = 5·a·s bytes per
     * token per layer, 5 x 16 x 1024 x 1024 tokens x 8 layers. */
    p.flash_attention = false;
    sel = mem_of(&m, &p, 1);
    p.recompute = FF_RECOMPUTE_NONE;
    struct ff_memory nf = mem_of(&m, &p, 1);
    double L = 8.0;
    expect_within(nf.activations - sel.activations, 5.0 * 16.0 * 1024.0 * 1024.0 * L, 1e-4,
                  "selective drops the scores");
}

/* ---- context parallelism ---- */

/* cp 2: each rank holds half of every sequence, so the activations (and logits) halve; the
 * weights stay, and ZeRO shards over dp x cp. */
Test(cp, memory_splits_the_sequence)
{
    struct ff_model m = small_gpt();
    struct ff_plan p = plan_at(1024);
    struct ff_memory one = mem_of(&m, &p, 1);
    p.cp = 2;
    struct ff_memory two = mem_of(&m, &p, 2);
    expect_within(two.activations, one.activations / 2.0, 1e-12, "activations / cp");
    cr_expect_eq(two.weights, one.weights);
    cr_expect_eq(two.overhead_nccl, FF_DEFAULT_NCCL_BYTES, "2 GPUs: NCCL buffers");
    p.zero = 1;
    struct ff_memory z = mem_of(&m, &p, 4); /* dp 2 x cp 2 */
    p.cp = 1;
    struct ff_memory z4 = mem_of(&m, &p, 4); /* dp 4 */
    expect_within(z.optimizer, z4.optimizer, 1e-12, "ZeRO-1 over dp x cp = 4");
}

/* FLOPs are the same in total; the ring passes one rank's K and V (b·s/cp·2·kv·head_dim·2
 * bytes) cp - 1 times per attention layer forward and twice that backward, each step hidden
 * under the attention of the chunk at hand. L8, s 256, cp 2 on an A100 node: each step is
 * 1.7 us + 524,288 B / 225 GB/s = 4.03 us against 128 x 2·256·16·128 FLOPs / (312 T x 0.55)
 * = 0.78 us of attention forward (1.56 backward). */
Test(cp, ring_exchange_hand_computed)
{
    struct ff_model m = small_gpt();
    struct ff_spec d = device("a100-80gb");
    struct ff_plan p = plan_at(256);
    p.cp = 2;
    p.gpus = 2;
    struct ff_step st = step_of(&m, &d, &p);
    double bw = 300e9 * FF_COMM_INTRA_FRACTION;
    double chunk = 128.0 * 2.0 * 16.0 * 64.0 * 2.0;
    double one = FF_COMM_INTRA_STEP_LATENCY_S + chunk / bw;
    double attn = 128.0 * 2.0 * 256.0 * 16.0 * 128.0 / (312e12 * FF_DEFAULT_COMPUTE_EFFICIENCY);
    double exposed = 8.0 * ((one - attn) + (2.0 * one - 2.0 * attn));
    cr_assert(st.term[FF_TERM_TP].applies && st.term[FF_TERM_TP].known);
    expect_within(st.term[FF_TERM_TP].seconds, exposed, 1e-9, "cp ring exposed");
    expect_within(st.term[FF_TERM_TP].total_seconds, 8.0 * 3.0 * one, 1e-9, "cp ring total");
    expect_within(st.term[FF_TERM_TP].bytes, 8.0 * 3.0 * chunk, 1e-12, "cp ring bytes");
    cr_expect(strstr(st.term[FF_TERM_TP].note, "cp 2"), "%s", st.term[FF_TERM_TP].note);
    /* The compute is split over the cp ranks: half of one GPU's micro-batch. */
    struct ff_plan q = plan_at(256);
    struct ff_step s1 = step_of(&m, &d, &q);
    expect_within(st.term[FF_TERM_COMPUTE].seconds, s1.term[FF_TERM_COMPUTE].seconds / 2.0, 1e-12,
                  "compute / cp");
    /* At 1024 tokens the attention (s^2) outgrows the ring (s): all hidden. */
    p.seq = 1024;
    st = step_of(&m, &d, &p);
    cr_expect_eq(st.term[FF_TERM_TP].seconds, 0.0);
    cr_expect_gt(st.term[FF_TERM_TP].total_seconds, 0.0);
    /* The gradients are reduced over dp x cp: with dp 2 x cp 2 the group is 4 GPUs. */
    p.gpus = 4;
    st = step_of(&m, &d, &p);
    cr_expect(strstr(st.term[FF_TERM_DP].note, "over 4"), "%s", st.term[FF_TERM_DP].note);
}

Test(cp, plan_checks)
{
    struct ff_model m = small_gpt();
    struct ff_plan p = plan_at(1004);
    p.cp = 4;
    char err[256] = "";
    cr_expect_eq(ff_plan_check(&m, &p, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "multiple of 2 x cp = 8"), "%s", err);
    p.seq = 1024;
    p.gpus = 6;
    cr_expect_eq(ff_plan_check(&m, &p, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "tp x pp x cp = 4"), "%s", err);
    p.gpus = 8;
    cr_expect_eq(ff_plan_check(&m, &p, err, sizeof(err)), FF_OK, "%s", err);
    p.task = FF_TASK_SERVE;
    cr_expect_eq(ff_plan_check(&m, &p, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "--cp applies to training"), "%s", err);
    /* ff_est_run: gpus = tp x pp x cp x dp. */
    struct ff_spec d = device("a100-80gb");
    p = plan_at(1024);
    p.cp = 2;
    p.tp = 2;
    p.gpus = 8;
    struct ff_estimate e = run(&m, &d, &p);
    cr_expect_eq(e.dp, 2);
    cr_expect_eq(e.cp, 2);
    cr_expect_eq(e.gpus, 8);
}

/* ---- MoE ---- */

/* Mixtral 8x7B at 4096 tokens on one H100 node, ep 8. */
static struct ff_plan mixtral_ep8(void)
{
    struct ff_plan p = plan_at(4096);
    p.ep = 8;
    p.gpus = 8;
    return p;
}

/* Grouped GEMMs at their tokens per expert: rows padded to 128, and the roofline
 * min(1, intensity / ridge). Mixtral at 4096 tokens (1024 per expert, width 14336) runs at the
 * dense efficiency; at 96 tokens (24 per expert) it is padded 24/128 and memory-bound. */
Test(moe, grouped_gemm_efficiency)
{
    struct ff_model m = preset("mixtral-8x7b");
    struct ff_spec d = device("h100");
    struct ff_plan p = plan_at(4096);
    p.gpus = 1;
    struct ff_estimate e = run(&m, &d, &p);
    expect_within(e.moe_tokens_per_expert, 1024.0, 1e-12, "tokens per expert");
    expect_within(e.moe_gemm_efficiency, 1.0, 1e-12, "dense efficiency at 1024 rows");
    p.seq = 96;
    e = run(&m, &d, &p);
    double M = 24.0, h = 4096.0, w = 14336.0;
    double intensity = 2.0 * M * h * w / (2.0 * (M * h + h * w + M * w));
    double ridge = d.flops_per_s[FF_PREC_BF16] * FF_DEFAULT_COMPUTE_EFFICIENCY /
                   (d.bandwidth_bytes_per_s * FF_DEFAULT_BW_FRACTION);
    double want = M / 128.0 * fmin(1.0, intensity / ridge);
    expect_within(e.moe_gemm_efficiency, want, 1e-9, "24 rows: padded and memory-bound");
    /* The compute term grows by the experts' share x (1/eff - 1). */
    struct ff_param_count pc = params_of(&m);
    double share = 32.0 * 2.0 * (double)pc.expert / (double)pc.matmul_active;
    struct ff_flops f;
    cr_assert_eq(ff_est_flops(&m, &p, 96.0, &f), FF_OK);
    double base = f.hardware / (d.flops_per_s[FF_PREC_BF16] * FF_DEFAULT_COMPUTE_EFFICIENCY);
    expect_within(e.step.term[FF_TERM_COMPUTE].seconds, base * (1.0 + share * (1.0 / want - 1.0)),
                  1e-9, "compute with grouped GEMMs");
    /* Expert parallelism gathers more tokens per expert: ep 8 at 96 tokens, 192 per expert. */
    p.ep = 8;
    p.gpus = 8;
    e = run(&m, &d, &p);
    expect_within(e.moe_tokens_per_expert, 192.0, 1e-12, "ep 8 tokens per expert");
}

/* --moe-imbalance replaces 1.25 on the all-to-all and on the most loaded rank's experts. */
Test(moe, imbalance_option)
{
    struct ff_model m = preset("mixtral-8x7b");
    struct ff_spec d = device("h100");
    struct ff_plan p = mixtral_ep8();
    struct ff_step a = step_of(&m, &d, &p);
    p.moe_imbalance = 1.1;
    struct ff_step b = step_of(&m, &d, &p);
    expect_within(b.term[FF_TERM_MOE_IMBALANCE].seconds,
                  a.term[FF_TERM_MOE_IMBALANCE].seconds * 0.1 / 0.25, 1e-9, "imbalance 1.1");
    /* The all-to-all's bandwidth part scales with it (latency does not). */
    double lat = 4.0 * 32.0 * FF_COMM_INTRA_STEP_LATENCY_S * 3.0;
    expect_within(b.term[FF_TERM_MOE_A2A].seconds - lat,
                  (a.term[FF_TERM_MOE_A2A].seconds - lat) * 1.1 / 1.25, 1e-9, "a2a x 1.1");
    char err[256] = "";
    p.moe_imbalance = 0.9;
    cr_expect_eq(ff_plan_check(&m, &p, err, sizeof(err)), FF_ERR_RANGE);
    cr_expect(strstr(err, "--moe-imbalance"), "%s", err);
}

/* The all-to-all hidden: F of it under an adjacent micro-batch's compute (never more than one
 * micro-batch's compute), only with two micro-batches in flight; a model with shared experts
 * hides it under theirs by default. */
Test(moe, all_to_all_overlap)
{
    struct ff_model m = preset("mixtral-8x7b");
    struct ff_spec d = device("h100");
    struct ff_plan p = mixtral_ep8();
    p.accum = 4;
    struct ff_step a = step_of(&m, &d, &p);
    double all = a.term[FF_TERM_MOE_A2A].total_seconds;
    cr_expect_eq(a.term[FF_TERM_MOE_A2A].seconds, all, "no shared experts: nothing hidden");
    p.moe_a2a_overlap = 0.5;
    struct ff_step b = step_of(&m, &d, &p);
    double t_mb = b.term[FF_TERM_COMPUTE].seconds / 4.0;
    expect_within(b.term[FF_TERM_MOE_A2A].seconds, all - 4.0 * fmin(0.5 * all / 4.0, t_mb), 1e-9,
                  "half hidden");
    /* One micro-batch, no pipeline: nothing to overlap with. */
    p.accum = 1;
    struct ff_step c = step_of(&m, &d, &p);
    cr_expect_eq(c.term[FF_TERM_MOE_A2A].seconds, c.term[FF_TERM_MOE_A2A].total_seconds);
    /* DeepSeek-V3's shared expert hides part of it by default. */
    struct ff_model q = preset("deepseek-v3");
    struct ff_plan r = plan_at(4096);
    r.ep = 8;
    r.gpus = 8;
    struct ff_estimate e = run(&q, &d, &r);
    cr_expect_gt(e.moe_a2a_hidden_fraction, 0.0, "shared experts hide some");
    cr_expect_lt(e.step.term[FF_TERM_MOE_A2A].seconds, e.step.term[FF_TERM_MOE_A2A].total_seconds);
}

/* Parallel folding: ep 8 over tp 2 x dp 4 (ep does not divide dp 4). Each GPU keeps 1/8 of the
 * routed experts whole, the rest split over tp 2; the MoE layers' TP pair is replaced by the
 * all-to-all, which runs over 8 consecutive ranks (one node). */
Test(moe, ep_folding)
{
    struct ff_model m = preset("mixtral-8x7b");
    struct ff_spec d = device("h100");
    struct ff_param_count pc = params_of(&m);
    double N = (double)pc.total, R = 32.0 * 8.0 * (double)pc.expert;
    struct ff_plan p = plan_at(4096);
    p.tp = 2;
    p.ep = 8;
    p.gpus = 8;
    char err[256] = "";
    cr_expect_eq(ff_plan_check(&m, &p, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "--ep-fold"), "%s", err);
    p.ep_fold = true;
    cr_assert_eq(ff_plan_check(&m, &p, err, sizeof(err)), FF_OK, "%s", err);
    struct ff_memory mem = mem_of(&m, &p, 8);
    expect_within(mem.weights, 2.0 * ((N - R) / 2.0 + R / 8.0), 1e-12, "folded weights");
    struct ff_step st = step_of(&m, &d, &p);
    cr_expect(!st.term[FF_TERM_MOE_A2A].inter_node);
    double S = 4096.0 * 2.0 * 4096.0 * 2.0 / 2.0 * FF_DEFAULT_MOE_IMBALANCE;
    double bw = 450e9 * FF_COMM_INTRA_FRACTION;
    double one = FF_COMM_INTRA_STEP_LATENCY_S * 3.0 + 7.0 / 8.0 * S / bw;
    expect_within(st.term[FF_TERM_MOE_A2A].total_seconds, 4.0 * 32.0 * one, 1e-9,
                  "folded all-to-all");
    cr_expect(strstr(st.term[FF_TERM_TP].note, "64 "), "2 per layer left: %s",
              st.term[FF_TERM_TP].note);
    /* The experts' gradients: R/8 per GPU reduced over tp x dp / ep = 1 rank: nothing. */
    cr_expect(!strstr(st.term[FF_TERM_DP].note, "experts"), "%s", st.term[FF_TERM_DP].note);
}

/* ---- tensor-parallel overlap ---- */

Test(tp_overlap, default_per_plan_kind_and_option)
{
    struct ff_model m = small_gpt(); /* widened to h 8192: GEMMs (h^2) outlast the TP traffic (h) */
    m.hidden = 8192;
    m.heads = m.kv_heads = 64;
    m.head_dim = 128;
    m.ffn = 4 * 8192;
    struct ff_spec d = device("h100");
    struct ff_plan p = plan_at(1024);
    p.tp = p.gpus = 4;
    struct ff_step a = step_of(&m, &d, &p);
    cr_expect_eq(a.term[FF_TERM_TP].seconds, a.term[FF_TERM_TP].total_seconds, "bf16: exposed");
    p.tp_overlap = 0.5;
    struct ff_step b = step_of(&m, &d, &p);
    expect_within(b.term[FF_TERM_TP].seconds, 0.5 * a.term[FF_TERM_TP].total_seconds, 1e-9,
                  "--tp-overlap 0.5");
    /* FP8 with sequence parallelism: (tp - 1)/tp hidden by default (GEMMs long enough here). */
    p.tp_overlap = -1.0;
    p.precision = FF_PREC_FP8;
    struct ff_step c = step_of(&m, &d, &p);
    expect_within(c.term[FF_TERM_TP].seconds, 0.25 * c.term[FF_TERM_TP].total_seconds, 1e-9,
                  "fp8: 3/4 hidden");
    p.sequence_parallel = false;
    c = step_of(&m, &d, &p);
    cr_expect_eq(c.term[FF_TERM_TP].seconds, c.term[FF_TERM_TP].total_seconds, "no SP: exposed");
    /* Never more than the GEMMs: all of a huge TP volume cannot hide. */
    p.tp_overlap = 1.0;
    p.inter_node_bytes_per_s = 0.0;
    d.link_bytes_per_s = 1e9;
    c = step_of(&m, &d, &p);
    cr_expect_gt(c.term[FF_TERM_TP].seconds, 0.0, "bounded by the GEMM time");
}

/* FP8 training at FF_DEFAULT_FP8_TRAIN_SPEEDUP x the BF16 rate's compute efficiency. */
Test(tp_overlap, fp8_training_speedup)
{
    struct ff_model m = small_gpt();
    struct ff_spec d = device("h100");
    struct ff_plan p = plan_at(1024);
    struct ff_step bf = step_of(&m, &d, &p);
    p.precision = FF_PREC_FP8;
    struct ff_step f8 = step_of(&m, &d, &p);
    expect_within(bf.term[FF_TERM_COMPUTE].seconds / f8.term[FF_TERM_COMPUTE].seconds,
                  FF_DEFAULT_FP8_TRAIN_SPEEDUP, 1e-9, "fp8 / bf16 compute");
    cr_expect_eq(FF_DEFAULT_FP8_TRAIN_SPEEDUP, 1.3);
}
