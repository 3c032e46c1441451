/*
 * tests/estimate/test_ops.c — the op list of a model step (flopfit/ops.h): Llama-2-7B's decode
 * list checked shape by shape against its config, its bytes against the weight bytes, the
 * GEMM FLOPs of a training step against 6·N·tokens, tensor parallelism, and the models the
 * list refuses. Expected values are worked out in the comments.
 */
#include <math.h>
#include <string.h>

#include "../common.h"

static const struct ff_op *find(const struct ff_op_list *l, enum ff_op_kind k, const char *what)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->op[i].kind == k && strstr(l->op[i].what, what))
            return &l->op[i];
    return NULL;
}

static void expect_op(const struct ff_op_list *l, enum ff_op_kind k, const char *what,
                      enum ff_precision prec, uint32_t m, uint32_t n, uint32_t kk, uint32_t g,
                      double count)
{
    const struct ff_op *o = find(l, k, what);
    cr_assert(o, "no %s %s", ff_op_kind_name(k), what);
    cr_expect_eq(o->prec, prec, "%s prec %s", what, ff_precision_name(o->prec));
    cr_expect(o->m == m && o->n == n && o->k == kk && o->g == g,
              "%s: %ux%ux%u g%u, expected %ux%ux%u g%u", what, o->m, o->n, o->k, o->g, m, n, kk, g);
    cr_expect_float_eq(o->count, count, 1e-9, "%s count %g, expected %g", what, o->count, count);
}

Test(ops, kind_names_round_trip)
{
    for (int k = 0; k < FF_OP_KIND_COUNT; k++) {
        enum ff_op_kind back;
        cr_expect_eq(ff_op_kind_parse(ff_op_kind_name((enum ff_op_kind)k), &back), FF_OK);
        cr_expect_eq((int)back, k);
    }
    cr_expect_str_eq(ff_op_kind_name(FF_OP_ATTN_PREFILL), "attn_prefill");
    cr_expect_str_eq(ff_op_kind_name(FF_OP_KIND_COUNT), "?");
    enum ff_op_kind x;
    cr_expect_eq(ff_op_kind_parse("matmul", &x), FF_ERR_INVALID);
    cr_expect_eq(ff_op_kind_parse(NULL, &x), FF_ERR_INVALID);
}

/* Llama-2-7B: 32 layers, hidden 4096, 32 heads (MHA) of 128, FFN 11008, vocab 32000. */
/* The KV format a run gets when none is given: what the runtime of each weight format uses. */
Test(ops, default_kv_follows_the_weights)
{
    cr_expect_eq(ff_precision_default_kv(FF_PREC_FP32), FF_PREC_FP32);
    cr_expect_eq(ff_precision_default_kv(FF_PREC_FP16), FF_PREC_FP16);
    cr_expect_eq(ff_precision_default_kv(FF_PREC_BF16), FF_PREC_BF16);
    cr_expect_eq(ff_precision_default_kv(FF_PREC_Q4_0), FF_PREC_FP16);
    cr_expect_eq(ff_precision_default_kv(FF_PREC_Q4_K_M), FF_PREC_FP16);
    cr_expect_eq(ff_precision_default_kv(FF_PREC_Q8_0), FF_PREC_FP16);
    cr_expect_eq(ff_precision_default_kv(FF_PREC_INT4), FF_PREC_BF16);
    cr_expect_eq(ff_precision_default_kv(FF_PREC_FP8), FF_PREC_BF16);
    cr_expect_eq(ff_precision_default_kv(FF_PREC_COUNT), FF_PREC_BF16);
}

Test(ops, llama2_7b_decode_by_hand)
{
    struct ff_model m = preset("llama-2-7b");
    struct ff_op_params p = {FF_OP_PHASE_DECODE, 1, 512, FF_PREC_FP16, FF_PREC_FP16, 1};
    struct ff_op_list l;
    char err[256] = "";
    cr_assert_eq(ff_model_ops(&m, &p, &l, err, sizeof(err)), FF_OK, "%s", err);
    expect_op(&l, FF_OP_GEMV, "qkv", FF_PREC_FP16, 1, 3 * 4096, 4096, 0, 32);
    expect_op(&l, FF_OP_GEMV, "attn_out", FF_PREC_FP16, 1, 4096, 4096, 0, 32);
    expect_op(&l, FF_OP_GEMV, "ffn_gate_up", FF_PREC_FP16, 1, 11008, 4096, 0, 64);
    expect_op(&l, FF_OP_GEMV, "ffn_down", FF_PREC_FP16, 1, 4096, 11008, 0, 32);
    expect_op(&l, FF_OP_GEMV, "head", FF_PREC_FP16, 1, 32000, 4096, 0, 1);
    /* two norms per block and the final one: one shape, 65 runs */
    expect_op(&l, FF_OP_RMSNORM, "norm", FF_PREC_FP32, 1, 4096, 0, 0, 65);
    /* q and k both 32 rows of 128 (MHA): merged, 64 runs */
    expect_op(&l, FF_OP_ROPE, "rope_q", FF_PREC_FP32, 32, 128, 0, 32, 64);
    expect_op(&l, FF_OP_ATTN_DECODE, "attn", FF_PREC_FP16, 32, 512, 128, 1, 32);
    expect_op(&l, FF_OP_SWIGLU, "swiglu", FF_PREC_FP32, 1, 11008, 0, 0, 32);
    expect_op(&l, FF_OP_ADD, "residual", FF_PREC_FP32, 1, 4096, 0, 0, 64);
    cr_expect_eq(l.n, 10, "10 distinct ops, got %zu", l.n);
    cr_expect_null(find(&l, FF_OP_XENT, ""), "no loss in decode");

    /* The GEMVs stream the weights: every parameter but the embedding and the norms, 2 bytes
     * each, plus X and Y in fp32 (a few hundred KB). */
    struct ff_param_count pc;
    cr_assert_eq(ff_model_params(&m, &pc), FF_OK);
    double norms = 65.0 * 4096.0;
    double weights = 2.0 * ((double)pc.total - (double)pc.embedding - norms);
    double gemv = 0.0, all = 0.0;
    for (size_t i = 0; i < l.n; i++) {
        double b = l.op[i].count * ff_op_bytes(&l.op[i]);
        all += b;
        if (l.op[i].kind == FF_OP_GEMV)
            gemv += b;
    }
    cr_expect(fabs(gemv / weights - 1.0) < 1e-3, "gemv bytes %.6g vs weights %.6g", gemv, weights);
    /* Plus the KV cache read: 32 layers x 2 x 32 x 512 x 128 x 2 bytes = 268 MB. */
    double kv = 32.0 * 2.0 * 32.0 * 512.0 * 128.0 * 2.0;
    cr_expect(all > gemv + kv && all < (gemv + kv) * 1.01, "all %.6g", all);
}

Test(ops, bytes_follow_the_kernel_layouts)
{
    /* q4_0: 18 bytes per 32 weights; q8_0 34; int8 n*k + 4n; X and Y fp32. */
    struct ff_op q4 = {FF_OP_GEMV, FF_PREC_Q4_0, 1, 4096, 4096, 0, 1, "x"};
    cr_expect_float_eq(ff_op_bytes(&q4), 4096.0 * 4096.0 / 32.0 * 18.0 + 4096.0 * 8.0, 1e-6);
    struct ff_op q8 = q4;
    q8.prec = FF_PREC_Q8_0;
    cr_expect_float_eq(ff_op_bytes(&q8), 4096.0 * 4096.0 / 32.0 * 34.0 + 4096.0 * 8.0, 1e-6);
    struct ff_op i8 = q4;
    i8.prec = FF_PREC_INT8;
    cr_expect_float_eq(ff_op_bytes(&i8), 4096.0 * 4096.0 + 4.0 * 4096.0 + 4096.0 * 8.0, 1e-6);
    /* int8 GEMM: 1-byte inputs, 4-byte outputs; 2mnk OPs. */
    struct ff_op g = {FF_OP_GEMM, FF_PREC_INT8, 64, 128, 256, 0, 1, "x"};
    cr_expect_float_eq(ff_op_bytes(&g), 64.0 * 256 + 256.0 * 128 + 64.0 * 128 * 4, 1e-6);
    cr_expect_float_eq(ff_op_flops(&g), 2.0 * 64 * 128 * 256, 1e-6);
    /* GQA decode attention: 32 query rows, 4 per KV head: K and V of 8 heads. */
    struct ff_op a = {FF_OP_ATTN_DECODE, FF_PREC_BF16, 32, 1000, 128, 4, 1, "x"};
    cr_expect_float_eq(ff_op_bytes(&a), 2.0 * 32 * 128 * 4 + 2.0 * 8 * 1000 * 128 * 2, 1e-6);
    struct ff_op r = {FF_OP_RMSNORM, FF_PREC_FP32, 10, 4096, 0, 0, 1, "x"};
    cr_expect_float_eq(ff_op_bytes(&r), (2.0 * 10 * 4096 + 4096) * 4.0, 1e-6);
    struct ff_op bad = {FF_OP_KIND_COUNT, FF_PREC_FP32, 1, 1, 1, 0, 1, "x"};
    cr_expect_eq(ff_op_bytes(&bad), 0.0);
    cr_expect_eq(ff_op_bytes(NULL), 0.0);
}

/* A training step: forward, dX and dW per linear layer, so the GEMM FLOPs are 6 x the matmul
 * parameters x tokens; the matmul parameters are all but the embedding and the norms. */
Test(ops, llama2_7b_training_gemm_flops_are_6n_tokens)
{
    struct ff_model m = preset("llama-2-7b");
    struct ff_op_params p = {FF_OP_PHASE_TRAIN, 2, 4096, FF_PREC_BF16, FF_PREC_BF16, 1};
    struct ff_op_list l;
    char err[256] = "";
    cr_assert_eq(ff_model_ops(&m, &p, &l, err, sizeof(err)), FF_OK, "%s", err);
    struct ff_param_count pc;
    cr_assert_eq(ff_model_params(&m, &pc), FF_OK);
    double tokens = 2.0 * 4096.0;
    double gemm = 0.0;
    for (size_t i = 0; i < l.n; i++)
        if (l.op[i].kind == FF_OP_GEMM) {
            cr_expect_eq(l.op[i].prec, FF_PREC_FP16, "bf16 weights: the 16-bit matmul");
            gemm += l.op[i].count * ff_op_flops(&l.op[i]);
        }
    double n = (double)pc.total - (double)pc.embedding - 65.0 * 4096.0;
    cr_expect(fabs(gemm / (6.0 * n * tokens) - 1.0) < 1e-9, "gemm %.6g vs 6N·D %.6g", gemm,
              6.0 * n * tokens);
    /* dW of the FFN down projection: (n, k, m) = (4096, 11008, tokens) */
    expect_op(&l, FF_OP_GEMM, "ffn_down_dw", FF_PREC_FP16, 4096, 11008, 8192, 0, 32);
    /* the loss over every token, forward and backward */
    expect_op(&l, FF_OP_XENT, "loss", FF_PREC_FP32, 8192, 32000, 0, 0, 3);
    expect_op(&l, FF_OP_ATTN_PREFILL, "attn", FF_PREC_BF16, 2 * 32, 4096, 128, 1, 32 * 3.5);
}

/* fp32 training: fp32 GEMMs; shapes that coincide merge (attn_out's dX is attn_out's own
 * shape, ffn_down's forward is ffn_gate_up's dX). */
Test(ops, llama_fp32_count)
{
    struct ff_model m = preset("llama-2-7b");
    struct ff_op_params p = {FF_OP_PHASE_TRAIN, 1, 1024, FF_PREC_FP32, FF_PREC_FP32, 1};
    struct ff_op_list l;
    char err[256] = "";
    cr_assert_eq(ff_model_ops(&m, &p, &l, err, sizeof(err)), FF_OK, "%s", err);
    size_t gemms = 0;
    for (size_t i = 0; i < l.n; i++)
        if (l.op[i].kind == FF_OP_GEMM) {
            gemms++;
            cr_expect_eq(l.op[i].prec, FF_PREC_FP32);
        }
    /* 4 layers x 3 GEMMs + head x 3 = 15 shapes; attn_out fwd = its dX, ffn_down fwd =
     * ffn_gate_up dX, ffn_gate_up fwd = ffn_down dX: 12 distinct. */
    cr_expect_eq(gemms, 12, "%zu distinct GEMMs", gemms);
    /* 12 GEMMs + norm, rope, attention, swiglu, add, loss = 18 */
    cr_expect_eq(l.n, 18, "%zu ops", l.n);
    expect_op(&l, FF_OP_GEMM, "attn_out", FF_PREC_FP32, 1024, 4096, 4096, 0, 64);
}

Test(ops, tensor_parallel_and_gqa_shapes)
{
    /* Llama-2-70B: 80 layers, 64 heads, 8 KV heads, ffn 28672; tp 8: 8 heads, 1 KV head. */
    struct ff_model m = preset("llama-2-70b");
    struct ff_op_params p = {FF_OP_PHASE_DECODE, 4, 1000, FF_PREC_Q4_0, FF_PREC_FP16, 8};
    struct ff_op_list l;
    char err[256] = "";
    cr_assert_eq(ff_model_ops(&m, &p, &l, err, sizeof(err)), FF_OK, "%s", err);
    expect_op(&l, FF_OP_GEMV, "qkv", FF_PREC_Q4_0, 4, (8 + 2) * 128, 8192, 0, 80);
    expect_op(&l, FF_OP_GEMV, "ffn_down", FF_PREC_Q4_0, 4, 8192, 28672 / 8, 0, 80);
    expect_op(&l, FF_OP_ATTN_DECODE, "attn", FF_PREC_FP16, 4 * 8, 1000, 128, 8, 80);
    expect_op(&l, FF_OP_ROPE, "rope_k", FF_PREC_FP32, 4, 128, 0, 1, 80);
    /* prefill: GGUF weights run int8 GEMMs */
    p.phase = FF_OP_PHASE_PREFILL;
    p.seq = 512;
    cr_assert_eq(ff_model_ops(&m, &p, &l, err, sizeof(err)), FF_OK, "%s", err);
    expect_op(&l, FF_OP_GEMM, "qkv", FF_PREC_INT8, 4 * 512, (8 + 2) * 128, 8192, 0, 80);
    expect_op(&l, FF_OP_GEMV, "head", FF_PREC_Q4_0, 4, 32000 / 8, 8192, 0, 1);
    p.tp = 3;
    cr_expect_eq(ff_model_ops(&m, &p, &l, err, sizeof(err)), FF_ERR_INVALID);
}

/* Mixtral 8x7B: 8 experts of width 14336, 2 per token, in all 32 blocks. One token touches
 * its 2 experts (GEMVs of one row); 8 sequences touch 8 (1 - (3/4)^8) = 7.2 of them, 16
 * assignments over 7.2 experts: 3 rows each; a 512-token prefill every expert, 128 rows. */
Test(ops, mixtral_routes_tokens_to_experts)
{
    struct ff_model m = preset("mixtral-8x7b");
    struct ff_op_params p = {FF_OP_PHASE_DECODE, 1, 1024, FF_PREC_Q4_0, FF_PREC_FP16, 1};
    struct ff_op_list l;
    char err[256] = "";
    cr_assert_eq(ff_model_ops(&m, &p, &l, err, sizeof(err)), FF_OK, "%s", err);
    expect_op(&l, FF_OP_GEMV, "router", FF_PREC_Q4_0, 1, 8, 4096, 0, 32);
    expect_op(&l, FF_OP_GEMV, "expert_gate_up", FF_PREC_Q4_0, 1, 14336, 4096, 0, 2 * 2 * 32);
    expect_op(&l, FF_OP_GEMV, "expert_down", FF_PREC_Q4_0, 1, 4096, 14336, 0, 2 * 32);
    expect_op(&l, FF_OP_SWIGLU, "expert_swiglu", FF_PREC_FP32, 2, 14336, 0, 0, 32);
    cr_expect_null(find(&l, FF_OP_GEMV, "ffn_gate_up"), "no dense FFN in Mixtral");
    cr_expect_null(find(&l, FF_OP_GEMV, "shared_gate_up"), "no shared expert in Mixtral");

    p.batch = 8;
    cr_assert_eq(ff_model_ops(&m, &p, &l, err, sizeof(err)), FF_OK, "%s", err);
    double used = 8.0 * (1.0 - pow(0.75, 8.0));
    expect_op(&l, FF_OP_GEMV, "expert_down", FF_PREC_Q4_0, 3, 4096, 14336, 0, 32 * used);

    /* prefill: every expert, 512 x 2 / 8 rows; the token permutation both ways */
    p.phase = FF_OP_PHASE_PREFILL;
    p.batch = 1;
    p.seq = 512;
    cr_assert_eq(ff_model_ops(&m, &p, &l, err, sizeof(err)), FF_OK, "%s", err);
    const struct ff_op *o = find(&l, FF_OP_GEMM, "expert_gate_up");
    cr_assert(o);
    cr_expect(o->m == 128 && o->n == 14336 && o->k == 4096, "%ux%ux%u", o->m, o->n, o->k);
    cr_expect(fabs(o->count - 2.0 * 32 * 8) < 1e-6 * o->count, "%g", o->count);
    expect_op(&l, FF_OP_ADD, "moe_permute", FF_PREC_FP32, 1024, 4096, 0, 0, 32 * 4.0 / 3.0);

    /* training: the expert GEMMs' FLOPs are 6 x the active expert parameters x tokens */
    p.phase = FF_OP_PHASE_TRAIN;
    p.weights = FF_PREC_BF16;
    p.seq = 4096;
    cr_assert_eq(ff_model_ops(&m, &p, &l, err, sizeof(err)), FF_OK, "%s", err);
    double expert = 0.0;
    for (size_t i = 0; i < l.n; i++)
        if (l.op[i].kind == FF_OP_GEMM && strncmp(l.op[i].what, "expert_", 7) == 0)
            expert += l.op[i].count * ff_op_flops(&l.op[i]);
    double want = 6.0 * 32 * 2 * (3.0 * 4096 * 14336) * 4096;
    cr_expect(fabs(expert / want - 1.0) < 1e-9, "expert GEMMs %.6g vs %.6g", expert, want);
}

Test(ops, refuses_what_it_cannot_describe)
{
    const char *refused[] = {"gpt2", "deepseek-v3", "opt-13b"};
    struct ff_op_params p = {FF_OP_PHASE_DECODE, 1, 128, FF_PREC_BF16, FF_PREC_BF16, 1};
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        struct ff_model m = preset(refused[i]);
        struct ff_op_list l;
        char err[256] = "";
        cr_expect_eq(ff_model_ops(&m, &p, &l, err, sizeof(err)), FF_ERR_UNSUPPORTED, "%s",
                     refused[i]);
        cr_expect(strstr(err, "cannot describe"), "%s: %s", refused[i], err);
    }
    struct ff_model r;
    ff_model_init(&r);
    char err[256] = "";
    cr_assert_eq(ff_model_rough(7e9, &r, err, sizeof(err)), FF_OK);
    struct ff_op_list l;
    cr_expect_eq(ff_model_ops(&r, &p, &l, err, sizeof(err)), FF_ERR_UNSUPPORTED);
    struct ff_model m = preset("llama-2-7b");
    p.batch = 0;
    cr_expect_eq(ff_model_ops(&m, &p, &l, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect_eq(ff_model_ops(&m, NULL, &l, err, sizeof(err)), FF_ERR_INVALID);
}

Test(ops, mistral_window_in_decode_and_prefill)
{
    /* Mistral-7B v0.1: a 4096-token window on every layer. */
    struct ff_model m = preset("mistral-7b");
    if (m.sliding_window <= 0)
        return; /* the preset carries none: nothing to check */
    struct ff_op_params p = {FF_OP_PHASE_DECODE, 1, 8000, FF_PREC_BF16, FF_PREC_BF16, 1};
    struct ff_op_list l;
    char err[256] = "";
    cr_assert_eq(ff_model_ops(&m, &p, &l, err, sizeof(err)), FF_OK, "%s", err);
    const struct ff_op *a = find(&l, FF_OP_ATTN_DECODE, "attn");
    cr_assert(a);
    cr_expect_eq(a->n, (uint32_t)m.sliding_window);
    p.phase = FF_OP_PHASE_PREFILL;
    cr_expect_eq(ff_model_ops(&m, &p, &l, err, sizeof(err)), FF_ERR_UNSUPPORTED);
}
