/*
 * flopfit/ops.h — a model step as the list of device operations it runs.
 *
 * One list for both halves of flopfit: `flopfit bench --model M` times each entry on the device
 * (profile tests of family "op", named by ff_op_kind_name), and the estimator sums count x time
 * over the same list (the bottom-up path, doc/estimator.md). The shapes are exactly those the
 * op kernels take (backends/backend.h, FF_KERNEL_GEMV and after; GEMM is the matmul kernel):
 *
 *   GEMM          C[m][n] = A[m][k] B[k][n]; prec fp32, fp16 or int8 (the matmul kernel's)
 *   GEMV          Y[m][n] = X[m][k] W[n][k]^T, W in the weight format prec; X, Y fp32
 *   ATTN_DECODE   m = batch x query heads rows against n cached positions of head_dim k,
 *                 g query rows per KV head; K, V (m/g) x n x k in the KV format prec
 *   ATTN_PREFILL  the same, causal over n tokens; Q and O m x n x k fp32
 *   RMSNORM       m rows of n; ROPE m = tokens x heads rows of n = head_dim, g heads per
 *                 token; SWIGLU, ADD m x n; XENT m rows of n logits (training only)
 *
 *     struct ff_op_params p = {.phase = FF_OP_PHASE_DECODE, .batch = 1, .seq = 2048,
 *                              .weights = FF_PREC_Q4_0, .kv = FF_PREC_FP16, .tp = 1};
 *     struct ff_op_list list;
 *     if (ff_model_ops(&model, &p, &list, err, sizeof(err)) == 0)
 *         for (size_t i = 0; i < list.n; i++) ... list.op[i] ...
 *
 * Ownership: everything is the caller's; nothing allocates. Thread-safety: pure functions.
 */
#ifndef FLOPFIT_OPS_H
#define FLOPFIT_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "flopfit/export.h"
#include "flopfit/model.h"
#include "flopfit/precision.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The operations. The order is fixed (it indexes tables); new kinds go before the count. */
enum ff_op_kind {
    FF_OP_GEMM = 0,
    FF_OP_GEMV,
    FF_OP_ATTN_DECODE,
    FF_OP_ATTN_PREFILL,
    FF_OP_RMSNORM,
    FF_OP_ROPE,
    FF_OP_SWIGLU,
    FF_OP_ADD,
    FF_OP_XENT,
    FF_OP_KIND_COUNT
};

/* The profile's test name of a kind: "gemm", "gemv", "attn_decode", "attn_prefill", "rmsnorm",
 * "rope", "swiglu", "add", "xent" (the FF_PF_OP_* macros of flopfit/profile_fields.h); "?"
 * out of range. Static strings, never NULL. */
FF_API const char *ff_op_kind_name(enum ff_op_kind k);
/* The reverse, exact and case-sensitive as the profile writes it. 0 and *out, or
 * FF_ERR_INVALID for NULL or an unknown name. */
FF_API int ff_op_kind_parse(const char *name, enum ff_op_kind *out);

/* Which step the list describes. */
enum ff_op_phase {
    FF_OP_PHASE_DECODE = 0, /* one new token per sequence against a cache of `seq` */
    FF_OP_PHASE_PREFILL,    /* `seq` prompt tokens per sequence, causal, through the LM head */
    FF_OP_PHASE_TRAIN       /* forward and backward of `seq` tokens per sequence */
};

#define FF_OP_WHAT_MAX 24
/* One operation of the step. */
struct ff_op {
    enum ff_op_kind kind;
    /* GEMV: the weight format; GEMM: the matmul kernel's (fp32, fp16 for 16-bit models, int8
     * for int8 and GGUF weights); ATTN_*: the KV format; the others fp32. */
    enum ff_precision prec;
    uint32_t m, n, k, g; /* the kernel's shape (above); k and g 0 where the kind has none */
    /* Runs per step (layers x occurrences; fractional where a backward pass is counted in
     * runs of the forward kernel). */
    double count;
    /* The layer part: "qkv", "attn_out", "ffn_gate_up", "ffn_down", "head", "norm", "rope_q",
     * "attn", ... ("+"-joined when identical shapes were merged, while it fits). */
    char what[FF_OP_WHAT_MAX];
};

/* Enough for a training step of any model the list describes (about 25 distinct shapes). */
#define FF_OP_LIST_MAX 64
struct ff_op_list {
    size_t n;
    struct ff_op op[FF_OP_LIST_MAX];
};

struct ff_op_params {
    enum ff_op_phase phase;
    uint32_t batch;            /* sequences, >= 1 */
    uint32_t seq;              /* tokens, >= 1: the prompt (prefill), the context the new token
                                  attends to (decode), the sequence (training) */
    enum ff_precision weights; /* the weights' format (GEMV's prec; GEMM's, see struct ff_op) */
    enum ff_precision kv;      /* the KV cache's format */
    uint32_t tp;               /* tensor-parallel ranks (Megatron split: heads, FFN and the
                                  vocabulary divided; 0 counts as 1); the list is one rank's */
};

/*
 * The operations one step of model m runs on one tensor-parallel rank, identical shapes
 * merged (their counts summed). Decode linear layers and the LM head are GEMVs (m = batch),
 * prefill and training ones GEMMs (m = batch x seq); q, k, v are one fused projection
 * ("qkv"), gate and up one GEMM/GEMV of width ffn counted twice ("ffn_gate_up"). Training
 * adds per linear layer the two backward GEMMs dX (m, k, n) and dW (n, k, m), the LM head
 * and cross-entropy, and counts the backward of each other kernel as runs of its forward
 * kernel at the ratio of bytes its backward moves (attention 2.5, as FlashAttention-2's five
 * matmuls against two; rmsnorm, xent 2; swiglu 5/3; rope 1; the residual adds 1).
 * Left out: the embedding lookup, biases (fused into the GEMMs' epilogue), the optimizer step
 * (it depends on the plan: ff_est_bottom_up adds it).
 * MoE blocks add a router GEMM/GEMV (n = experts), the routed experts' gate+up and down at
 * the tokens per expert ("expert_*": balanced routing over the experts a step touches,
 * E (1 - (1 - topk/E)^tokens) of them, each taking an equal share of tokens x topk rows,
 * rounded up; runs = blocks x experts touched, one GEMM each: a grouped kernel runs them in
 * one launch, which ff_est_bottom_up charges), the shared experts as a dense FFN, SwiGLU over
 * tokens x topk rows and the token permutation out and back ("moe_permute", ADD runs).
 * Refused with FF_ERR_UNSUPPORTED and the reason in err, so the estimate stays top-down:
 * a rough (--params) model, MLA, SSM blocks, a non-gated MLP or a model without FFN,
 * LayerNorm, learned positions or an embedding projection/norm, a sliding window shorter than
 * a prefill or training sequence. FF_ERR_INVALID for a bad model or params (batch or seq 0,
 * tp not dividing the heads), FF_ERR_RANGE for a shape beyond 2^32 - 1. *out is written only
 * on success.
 */
FF_API int ff_model_ops(const struct ff_model *m, const struct ff_op_params *p,
                        struct ff_op_list *out, char *err, size_t errlen);

/* Bytes one run reads and writes, as the kernel's buffers lay them out (backends/
 * ops_layout.c): GEMV X m*k*4 + W + its scales (int8 n*k + 4n; q8_0 34 and q4_0 18 bytes per
 * 32 weights; fp32/fp16/bf16 n*k elements) + Y m*n*4; GEMM m*k + k*n inputs and m*n outputs
 * in the matmul kernel's element sizes (int8: 1 in, 4 out); attention Q and O fp32 plus 2 x
 * (m/g) x n x k of the KV format; RMSNORM 2mn + n, ROPE 2mn, SWIGLU and ADD 3mn floats; XENT
 * mn + 2m words. 0 for NULL or an unknown kind. */
FF_API double ff_op_bytes(const struct ff_op *op);
/* FLOPs (OPs for int8 GEMM) of one run: GEMM, GEMV 2mnk; ATTN_DECODE 4mnk; ATTN_PREFILL
 * 2mk n(n+1) (causal); RMSNORM 4mn, ROPE 3mn, SWIGLU 4mn, ADD mn, XENT 4mn. */
FF_API double ff_op_flops(const struct ff_op *op);

#ifdef __cplusplus
}
#endif

#endif
