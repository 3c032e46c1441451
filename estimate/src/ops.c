/*
 * estimate/src/ops.c — a model step as its device operations (flopfit/ops.h): the list the
 * bench times and the bottom-up estimate sums, with the bytes and FLOPs of one run of each.
 *
 * A decoder block of a dense Llama-style model (RMSNorm, RoPE, gated MLP) is, per token:
 * norm, fused qkv projection, rope on q and k, attention, output projection, residual add,
 * norm, fused gate+up projection, SwiGLU, down projection, residual add. The list is built
 * op by op into a table and identical (kind, format, shape) entries are merged.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "flopfit/ops.h"
#include "flopfit/profile_fields.h"
#include "flopfit/status.h"
#include "internal.h"

static const char *const kind_names[FF_OP_KIND_COUNT] = {
    [FF_OP_GEMM] = FF_PF_OP_GEMM,
    [FF_OP_GEMV] = FF_PF_OP_GEMV,
    [FF_OP_ATTN_DECODE] = FF_PF_OP_ATTN_DECODE,
    [FF_OP_ATTN_PREFILL] = FF_PF_OP_ATTN_PREFILL,
    [FF_OP_RMSNORM] = FF_PF_OP_RMSNORM,
    [FF_OP_ROPE] = FF_PF_OP_ROPE,
    [FF_OP_SWIGLU] = FF_PF_OP_SWIGLU,
    [FF_OP_ADD] = FF_PF_OP_ADD,
    [FF_OP_XENT] = FF_PF_OP_XENT,
};

const char *ff_op_kind_name(enum ff_op_kind k)
{
    return (int)k >= 0 && k < FF_OP_KIND_COUNT ? kind_names[k] : "?";
}

int ff_op_kind_parse(const char *name, enum ff_op_kind *out)
{
    if (!name)
        return FF_ERR_INVALID;
    for (int k = 0; k < FF_OP_KIND_COUNT; k++)
        if (!strcmp(name, kind_names[k])) {
            if (out)
                *out = (enum ff_op_kind)k;
            return FF_OK;
        }
    return FF_ERR_INVALID;
}

/* Element bytes of a KV format as the attention kernels store it: fp32 4, fp16/bf16 2 (the
 * kernels' formats); another format at its own size (no kernel: a constant term). */
static double kv_elem_bytes(enum ff_precision p)
{
    if (p == FF_PREC_FP32)
        return 4.0;
    if (p == FF_PREC_FP16 || p == FF_PREC_BF16)
        return 2.0;
    return ff_precision_bytes(p);
}

/* GEMV's W plus its scales for n rows of k weights (backends/ops_layout.c; the float formats'
 * unused 4-byte S is not read). */
static double gemv_weight_bytes(enum ff_precision p, double n, double k)
{
    switch (p) {
    case FF_PREC_FP32: return n * k * 4.0;
    case FF_PREC_FP16:
    case FF_PREC_BF16: return n * k * 2.0;
    case FF_PREC_INT8: return n * k + 4.0 * n;
    case FF_PREC_Q8_0: return n * k + n * (k / 32.0) * 2.0;       /* 34 bytes per 32 */
    case FF_PREC_Q4_0: return n * k / 2.0 + n * (k / 32.0) * 2.0; /* 18 bytes per 32 */
    default: return n * k * ff_precision_bytes(p);
    }
}

/* The matmul kernel's element sizes (backends/frontend.c ff_matmul_in_bytes/out_bytes). */
static double gemm_in_bytes(enum ff_precision p)
{
    return p == FF_PREC_FP32 ? 4.0 : p == FF_PREC_FP16 ? 2.0 : 1.0;
}

static double gemm_out_bytes(enum ff_precision p)
{
    return p == FF_PREC_FP16 ? 2.0 : 4.0;
}

double ff_op_bytes(const struct ff_op *op)
{
    if (!op)
        return 0.0;
    double m = op->m, n = op->n, k = op->k, g = op->g ? op->g : 1;
    switch (op->kind) {
    case FF_OP_GEMM:
        return (m * k + k * n) * gemm_in_bytes(op->prec) + m * n * gemm_out_bytes(op->prec);
    case FF_OP_GEMV: return m * k * 4.0 + gemv_weight_bytes(op->prec, n, k) + m * n * 4.0;
    case FF_OP_ATTN_DECODE:
        return 2.0 * m * k * 4.0 + 2.0 * floor(m / g) * n * k * kv_elem_bytes(op->prec);
    case FF_OP_ATTN_PREFILL:
        return 2.0 * m * n * k * 4.0 + 2.0 * floor(m / g) * n * k * kv_elem_bytes(op->prec);
    case FF_OP_RMSNORM: return (2.0 * m * n + n) * 4.0;
    case FF_OP_ROPE: return 2.0 * m * n * 4.0;
    case FF_OP_SWIGLU:
    case FF_OP_ADD: return 3.0 * m * n * 4.0;
    case FF_OP_XENT: return (m * n + 2.0 * m) * 4.0;
    default: return 0.0;
    }
}

double ff_op_flops(const struct ff_op *op)
{
    if (!op)
        return 0.0;
    double m = op->m, n = op->n, k = op->k;
    switch (op->kind) {
    case FF_OP_GEMM:
    case FF_OP_GEMV: return 2.0 * m * n * k;
    case FF_OP_ATTN_DECODE: return 4.0 * m * n * k;              /* QK^T and PV, 2nk each per row */
    case FF_OP_ATTN_PREFILL: return 2.0 * m * k * n * (n + 1.0); /* causal: half of 4mn^2k */
    case FF_OP_RMSNORM:
    case FF_OP_SWIGLU:
    case FF_OP_XENT: return 4.0 * m * n;
    case FF_OP_ROPE: return 3.0 * m * n;
    case FF_OP_ADD: return m * n;
    default: return 0.0;
    }
}

/* ---- building the list ---- */

struct builder {
    struct ff_op_list *list;
    int rc;
    char *err;
    size_t errlen;
};

/* Append (or merge into an identical entry) one op; shapes are checked to fit 32 bits. */
static void add(struct builder *b, enum ff_op_kind kind, enum ff_precision prec, int64_t m,
                int64_t n, int64_t k, int64_t g, double count, const char *what)
{
    if (b->rc != FF_OK || count <= 0.0)
        return;
    const int64_t lim = UINT32_MAX;
    if (m < 1 || n < 1 || k < 0 || g < 0 || m > lim || n > lim || k > lim || g > lim) {
        b->rc = ff_errf(b->err, b->errlen, FF_ERR_RANGE,
                        "%s %s: shape %lldx%lldx%lld is outside 1..2^32-1", ff_op_kind_name(kind),
                        what, (long long)m, (long long)n, (long long)k);
        return;
    }
    struct ff_op_list *l = b->list;
    for (size_t i = 0; i < l->n; i++) {
        struct ff_op *o = &l->op[i];
        if (o->kind == kind && o->prec == prec && o->m == (uint32_t)m && o->n == (uint32_t)n &&
            o->k == (uint32_t)k && o->g == (uint32_t)g) {
            o->count += count;
            /* "norm+norm_bwd": both parts named while they fit, else the first. */
            if (strcmp(o->what, what) && !strstr(o->what, what) &&
                strlen(o->what) + 1 + strlen(what) < sizeof(o->what)) {
                size_t used = strlen(o->what);
                snprintf(o->what + used, sizeof(o->what) - used, "+%s", what);
            }
            return;
        }
    }
    if (l->n >= FF_OP_LIST_MAX) {
        b->rc =
            ff_errf(b->err, b->errlen, FF_ERR_RANGE, "more than %d distinct ops", FF_OP_LIST_MAX);
        return;
    }
    struct ff_op *o = &l->op[l->n++];
    memset(o, 0, sizeof(*o));
    o->kind = kind;
    o->prec = prec;
    o->m = (uint32_t)m;
    o->n = (uint32_t)n;
    o->k = (uint32_t)k;
    o->g = (uint32_t)g;
    o->count = count;
    ff_strlcpy(o->what, what, sizeof(o->what));
}

/* The matmul kernel's format for a weight format: int8 dot products for int8 and the GGUF
 * formats (llama.cpp's MMQ kernels), fp32 for fp32, 16-bit for the rest (the weight-only
 * formats dequantise into fp16 GEMMs; flopfit/spec.h ff_spec_rate). */
static enum ff_precision gemm_prec(enum ff_precision w)
{
    switch (w) {
    case FF_PREC_FP32: return FF_PREC_FP32;
    case FF_PREC_INT8:
    case FF_PREC_Q8_0:
    case FF_PREC_Q4_0:
    case FF_PREC_Q4_K_M: return FF_PREC_INT8;
    default: return FF_PREC_FP16;
    }
}

/* Why the op list cannot describe m; NULL when it can. */
static const char *unsupported(const struct ff_model *m)
{
    if (m->rough)
        return "a rough model (--params) has no exact shape";
    if (m->kv_lora_rank > 0 || m->q_lora_rank > 0)
        return "multi-head latent attention (MLA)";
    if (m->ssm_layers > 0)
        return "Mamba SSM blocks";
    if (m->ffn_absent || m->ffn <= 0)
        return "blocks without an FFN";
    if (!m->gated_ffn)
        return "a non-gated MLP (the op list has SwiGLU only)";
    if (m->norm != FF_NORM_RMSNORM)
        return "LayerNorm (the op list has RMSNorm only)";
    if (m->learned_positions > 0)
        return "learned position embeddings (the op list has RoPE only)";
    if (m->embed_proj > 0 || m->embed_norm)
        return "an embedding projection or norm";
    return NULL;
}

int ff_model_ops(const struct ff_model *m, const struct ff_op_params *p, struct ff_op_list *out,
                 char *err, size_t errlen)
{
    if (!m || !p || !out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "missing argument");
    struct ff_model mv;
    int rc = ff_model_view(&m, &mv, err, errlen);
    if (rc != FF_OK)
        return rc;
    const char *why = unsupported(m);
    if (why)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED, "%s: the op list cannot describe %s",
                       m->name, why);
    if ((rc = ff_model_check(m, err, errlen)) != FF_OK)
        return rc;
    if (p->batch < 1 || p->seq < 1)
        return ff_errf(err, errlen, FF_ERR_INVALID, "op list: batch %u and seq %u must be >= 1",
                       p->batch, p->seq);
    if ((int)p->phase < FF_OP_PHASE_DECODE || p->phase > FF_OP_PHASE_TRAIN || (int)p->weights < 0 ||
        p->weights >= FF_PREC_COUNT || (int)p->kv < 0 || p->kv >= FF_PREC_COUNT)
        return ff_errf(err, errlen, FF_ERR_INVALID, "op list: unknown phase or format");
    int64_t tp = p->tp ? p->tp : 1;
    int64_t heads = m->heads, kvh = m->kv_heads > 0 ? m->kv_heads : m->heads, hd = m->head_dim;
    if (heads < 1 || hd < 1 || heads % tp)
        return ff_errf(err, errlen, FF_ERR_INVALID, "op list: tp %lld does not divide %lld heads",
                       (long long)tp, (long long)heads);
    if (kvh % tp && tp % kvh)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "op list: tp %lld neither divides nor is a multiple of %lld KV heads",
                       (long long)tp, (long long)kvh);
    int64_t seq = p->seq, B = p->batch;
    bool decode = p->phase == FF_OP_PHASE_DECODE, train = p->phase == FF_OP_PHASE_TRAIN;
    if (!decode && m->sliding_window > 0 && m->sliding_window < seq)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "%s: the op list cannot describe a sliding window (%lld) shorter than the "
                       "sequence (%lld): the prefill kernel is causal over the whole sequence",
                       m->name, (long long)m->sliding_window, (long long)seq);

    /* One rank's share (Megatron): heads, KV heads (replicated when fewer than tp), FFN and
     * vocabulary columns divided. */
    int64_t hr = heads / tp, kvr = kvh % tp ? 1 : kvh / tp, g = hr / kvr;
    int64_t h = m->hidden, f = (m->ffn + tp - 1) / tp, V = (m->vocab + tp - 1) / tp;
    int64_t L = m->layers;
    int64_t T = decode ? B : B * seq; /* token rows of the step */
    double Ld = (double)L;

    struct ff_op_list l;
    l.n = 0;
    struct builder b = {&l, FF_OK, err, errlen};
    enum ff_precision w = p->weights, kv = p->kv, fp = FF_PREC_FP32;

    /* Mixture of experts: Lm of the L blocks route each token to topk of E experts of width
     * fe (and through the shared experts, width fs); the others are dense. */
    bool moe = m->experts > 0;
    double Lm = ff_model_moe_layers(m);
    double Lf = Ld - Lm; /* dense FFN blocks */
    int64_t E = m->experts, topk = m->experts_active > 0 ? m->experts_active : 1;
    int64_t fe = ((m->moe_ffn > 0 ? m->moe_ffn : m->ffn) + tp - 1) / tp;
    int64_t fs = ((m->shared_ffn > 0 ? m->shared_ffn
                   : m->moe_ffn > 0  ? m->moe_ffn
                                     : m->ffn) *
                      m->shared_experts +
                  tp - 1) /
                 tp;
    /* Balanced routing: of T x topk assignments, the experts that get any (uniform draws:
     * E (1 - (1 - topk/E)^T), all of them once T x topk >> E) take an equal share, rounded
     * up. Decode with few sequences streams only the experts it touches. */
    double used = 0.0;
    int64_t tpe = 0;
    if (moe) {
        used = (double)E * (1.0 - pow(1.0 - (double)topk / (double)E, (double)T));
        if (used < (double)topk)
            used = (double)topk;
        tpe = (int64_t)ceil((double)T * (double)topk / used);
    }

    /* The linear layers: (name, rows of X, out features on this rank, in features on this
     * rank, runs per step). */
    const struct {
        const char *what;
        int64_t m, n, k;
        double runs;
    } lin[] = {
        {"qkv", T, (hr + 2 * kvr) * hd, h, Ld},
        {"attn_out", T, h, hr * hd, Ld},
        {"ffn_gate_up", T, f, h, 2.0 * Lf},
        {"ffn_down", T, h, f, Lf},
        {"router", T, E, h, Lm},
        {"expert_gate_up", tpe, fe, h, 2.0 * Lm * used},
        {"expert_down", tpe, h, fe, Lm * used},
        {"shared_gate_up", T, fs, h, 2.0 * Lm},
        {"shared_down", T, h, fs, Lm},
    };
    enum ff_op_kind lk = decode ? FF_OP_GEMV : FF_OP_GEMM;
    enum ff_precision lp = decode ? w : gemm_prec(w);
    for (size_t i = 0; i < sizeof(lin) / sizeof(lin[0]); i++) {
        if (!(lin[i].runs > 0.0) || lin[i].m < 1 || lin[i].n < 1 || lin[i].k < 1)
            continue;
        add(&b, lk, lp, lin[i].m, lin[i].n, lin[i].k, 0, lin[i].runs, lin[i].what);
        if (train) {
            char what[FF_OP_WHAT_MAX];
            snprintf(what, sizeof(what), "%s_dx", lin[i].what);
            add(&b, FF_OP_GEMM, lp, lin[i].m, lin[i].k, lin[i].n, 0, lin[i].runs, what);
            snprintf(what, sizeof(what), "%s_dw", lin[i].what);
            add(&b, FF_OP_GEMM, lp, lin[i].n, lin[i].k, lin[i].m, 0, lin[i].runs, what);
        }
    }
    if (moe) {
        /* Dispatching tokens to their experts and combining the results: each of the
         * T x topk assignments copies a hidden row out and back (read + write, 2 words an
         * element each way), in runs of the element-wise ADD (3 words an element). */
        double bw_perm = train ? 2.0 : 1.0; /* backward moves the gradients the same way */
        add(&b, FF_OP_ADD, fp, T * topk, h, 0, 0, Lm * 4.0 / 3.0 * bw_perm, "moe_permute");
    }
    /* The backward of the other kernels, in runs of the forward kernel (flopfit/ops.h). */
    double bw_norm = train ? 2.0 : 0.0, bw_attn = train ? 2.5 : 0.0, bw_rope = train ? 1.0 : 0.0;
    double bw_swiglu = train ? 5.0 / 3.0 : 0.0, bw_add = train ? 1.0 : 0.0;
    double norms = (double)(m->norms_per_layer > 0 ? m->norms_per_layer : 2);
    add(&b, FF_OP_RMSNORM, fp, T, h, 0, 0, Ld * norms * (1.0 + bw_norm), "norm");
    if (m->final_norm)
        add(&b, FF_OP_RMSNORM, fp, T, h, 0, 0, 1.0 + bw_norm, "final_norm");
    if (m->qk_norm == FF_QK_NORM_HEAD_DIM) {
        add(&b, FF_OP_RMSNORM, fp, T * hr, hd, 0, 0, Ld * (1.0 + bw_norm), "q_norm");
        add(&b, FF_OP_RMSNORM, fp, T * kvr, hd, 0, 0, Ld * (1.0 + bw_norm), "k_norm");
    } else if (m->qk_norm == FF_QK_NORM_ALL) {
        add(&b, FF_OP_RMSNORM, fp, T, hr * hd, 0, 0, Ld * (1.0 + bw_norm), "q_norm");
        add(&b, FF_OP_RMSNORM, fp, T, kvr * hd, 0, 0, Ld * (1.0 + bw_norm), "k_norm");
    }
    add(&b, FF_OP_ROPE, fp, T * hr, hd, 0, hr, Ld * (1.0 + bw_rope), "rope_q");
    add(&b, FF_OP_ROPE, fp, T * kvr, hd, 0, kvr, Ld * (1.0 + bw_rope), "rope_k");
    if (decode) {
        /* Windowed layers attend to at most the window. */
        int64_t win = m->sliding_window;
        double windowed = 0.0;
        if (win > 0 && win < seq)
            windowed = m->sliding_layers > 0 ? (double)m->sliding_layers : Ld;
        add(&b, FF_OP_ATTN_DECODE, kv, B * hr, seq, hd, g, Ld - windowed, "attn");
        if (windowed > 0.0)
            add(&b, FF_OP_ATTN_DECODE, kv, B * hr, win, hd, g, windowed, "attn_window");
    } else {
        add(&b, FF_OP_ATTN_PREFILL, kv, B * hr, seq, hd, g, Ld * (1.0 + bw_attn), "attn");
    }
    if (Lf > 0.0)
        add(&b, FF_OP_SWIGLU, fp, T, f, 0, 0, Lf * (1.0 + bw_swiglu), "swiglu");
    if (moe) {
        add(&b, FF_OP_SWIGLU, fp, T * topk, fe, 0, 0, Lm * (1.0 + bw_swiglu), "expert_swiglu");
        if (fs > 0)
            add(&b, FF_OP_SWIGLU, fp, T, fs, 0, 0, Lm * (1.0 + bw_swiglu), "shared_swiglu");
    }
    add(&b, FF_OP_ADD, fp, T, h, 0, 0, Ld * 2.0 * (1.0 + bw_add), "residual");
    /* The LM head: every token in training, the last prompt token of each sequence in prefill
     * (a GEMV of batch rows, as serving runs it), one per sequence in decode. */
    if (train) {
        add(&b, FF_OP_GEMM, lp, T, V, h, 0, 1.0, "head");
        add(&b, FF_OP_GEMM, lp, T, h, V, 0, 1.0, "head_dx");
        add(&b, FF_OP_GEMM, lp, V, h, T, 0, 1.0, "head_dw");
        add(&b, FF_OP_XENT, fp, T, V, 0, 0, 3.0, "loss"); /* forward 1 + backward 2 */
    } else {
        add(&b, FF_OP_GEMV, w, B, V, h, 0, 1.0, "head");
    }
    if (b.rc != FF_OK)
        return b.rc;
    *out = l;
    return FF_OK;
}
