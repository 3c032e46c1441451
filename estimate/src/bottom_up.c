/*
 * estimate/src/bottom_up.c — the bottom-up estimate (flopfit/estimate.h ff_est_bottom_up):
 * the model's op list (ops.c) timed op by op from the profile's op tests, measured,
 * interpolated in log-log over other shapes of the same kind and format, or the top-down
 * formula for that op as a constant, plus a launch per op and the communication.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "flopfit/estimate.h"
#include "flopfit/ops.h"
#include "flopfit/status.h"
#include "internal.h"

const char *ff_op_source_name(enum ff_op_source s)
{
    switch (s) {
    case FF_OP_SOURCE_MEASURED: return "measured";
    case FF_OP_SOURCE_INTERPOLATED: return "interpolated";
    case FF_OP_SOURCE_CONSTANT: return "constant";
    }
    return "?";
}

/* GEMM and causal prefill attention are timed against their FLOPs, the memory-bound kinds
 * against their bytes: prefill attention's work grows with the square of the positions, its
 * bytes linearly, so in bytes 8 heads of 2048 positions and 64 of 256 look alike and differ
 * 8x in work. */
static double op_x(const struct ff_op *op)
{
    return op->kind == FF_OP_GEMM || op->kind == FF_OP_ATTN_PREFILL ? ff_op_flops(op)
                                                                    : ff_op_bytes(op);
}

/* The figures a constant term takes, as ff_est_run used them. */
struct rates {
    double rate;   /* matrix rate x efficiency, FLOP/s */
    double bw;     /* bandwidth x the plan's fraction, B/s */
    double bw_w;   /* weight streaming in the plan's format, B/s */
    double bw_kv;  /* KV reads, B/s */
    double w_comp; /* the weight format's compute over its arithmetic's */
};

static void rates_of(const struct ff_spec *d, const struct ff_plan *p, const struct ff_estimate *e,
                     struct rates *r)
{
    double eff, bw_fraction;
    if (e) {
        eff = e->compute_efficiency > 0.0 ? e->compute_efficiency : e->mfu;
        bw_fraction = e->bw_fraction;
        r->rate = e->rate_flops_per_s * eff;
    } else {
        eff = p->task == FF_TASK_SERVE ? ff_default_serve_mfu(d) : ff_default_compute_efficiency(d);
        bw_fraction =
            p->bw_fraction > 0.0 ? p->bw_fraction : (d->measured ? 1.0 : FF_DEFAULT_BW_FRACTION);
        r->rate = ff_spec_rate(d, ff_plan_compute_precision(p)) * eff;
    }
    if (!(bw_fraction > 0.0))
        bw_fraction = d->measured ? 1.0 : FF_DEFAULT_BW_FRACTION;
    r->bw = d->bandwidth_bytes_per_s * bw_fraction;
    double bw_rel;
    bool measured;
    ff_serve_weight_factors(d, p->precision, &bw_rel, &r->w_comp, &measured);
    r->bw_w = measured ? d->bandwidth_bytes_per_s * bw_rel : r->bw * bw_rel;
    /* As serve.c: a measured bandwidth or an explicit fraction applies to the KV reads too. */
    r->bw_kv = p->bw_fraction > 0.0 || d->measured
                   ? r->bw
                   : d->bandwidth_bytes_per_s * FF_DEFAULT_KV_BW_FRACTION;
}

/* Today's top-down time of one run: the roofline of its bytes and FLOPs. */
static int constant_time(const struct ff_spec *d, const struct rates *r, const struct ff_op *op,
                         double *seconds)
{
    double bytes = ff_op_bytes(op), flops = ff_op_flops(op), bw = r->bw, rate = 0.0;
    switch (op->kind) {
    case FF_OP_GEMM: rate = r->rate; break;
    case FF_OP_GEMV:
        bw = r->bw_w;
        rate = r->rate * r->w_comp;
        break;
    case FF_OP_ATTN_DECODE:
    case FF_OP_ATTN_PREFILL:
        bw = r->bw_kv;
        rate = r->rate;
        break;
    default: break; /* element-wise: memory only */
    }
    if (!(bw > 0.0) || (op->kind == FF_OP_GEMM && !(rate > 0.0)))
        return FF_ERR_UNSUPPORTED;
    (void)d;
    double t = bytes / bw;
    if (rate > 0.0 && flops / rate > t)
        t = flops / rate;
    *seconds = t;
    return FF_OK;
}

/* The line through (x0, y0) with the given slope, at x. */
static double along(double x0, double y0, double slope, double x)
{
    return y0 + slope * (x - x0);
}

/*
 * The dimensions of a shape that set its work per byte rather than its size: a gemv's rows of
 * X (m: a batch reads the same weights for m times the work), a GEMM's smallest dimension (64
 * tokens through a 4096-square layer is a skinny, weight-bound product; 1024 cubed with the
 * same FLOPs is not), attention's query rows per KV head and head dim (g, k), rope's rows per
 * position (g). Shapes of one regime differ only along the axis the interpolation runs
 * (bytes, FLOPs); the rest have one regime. As log2 values in key[0..1] (0 where unused).
 */
static void regime(int kind, uint32_t m, uint32_t n, uint32_t k, uint32_t g, double key[2])
{
    key[0] = key[1] = 0.0;
    switch (kind) {
    case FF_OP_GEMV: key[0] = log2(m > 0 ? m : 1); break;
    case FF_OP_GEMM: {
        uint32_t lo = m < n ? m : n;
        lo = lo < k ? lo : k;
        key[0] = log2(lo > 0 ? lo : 1);
        break;
    }
    case FF_OP_ATTN_DECODE:
    case FF_OP_ATTN_PREFILL:
        key[0] = log2(g > 0 ? g : 1);
        key[1] = log2(k > 0 ? k : 1);
        break;
    case FF_OP_ROPE: key[0] = log2(g > 0 ? g : 1); break;
    default: break;
    }
}

static bool usable(const struct ff_spec_op *s, const struct ff_op *op)
{
    return s->kind == (int)op->kind && s->prec == (int)op->prec && s->seconds > 0.0;
}

/* op's time from the usable points of regime key alone; false when none is within reach. */
static bool interpolate(const struct ff_spec *d, size_t n_ops, const struct ff_op *op,
                        const double key[2], double *seconds)
{
    /* The regime's points, as (log x, log time), sorted by x, equal x averaged. */
    double xs[FF_SPEC_OPS_MAX], ys[FF_SPEC_OPS_MAX];
    int cnt[FF_SPEC_OPS_MAX];
    size_t n = 0;
    for (size_t i = 0; i < n_ops; i++) {
        const struct ff_spec_op *s = &d->ops[i];
        double sk[2];
        regime(s->kind, s->m, s->n, s->k, s->g, sk);
        if (!usable(s, op) || sk[0] != key[0] || sk[1] != key[1])
            continue;
        struct ff_op at = *op;
        at.m = s->m;
        at.n = s->n;
        at.k = s->k;
        at.g = s->g;
        double x = op_x(&at);
        if (!(x > 0.0))
            continue;
        double lx = log(x), ly = log(s->seconds);
        size_t j = 0;
        while (j < n && xs[j] < lx)
            j++;
        if (j < n && xs[j] == lx) {
            ys[j] = (ys[j] * cnt[j] + ly) / (cnt[j] + 1);
            cnt[j]++;
            continue;
        }
        memmove(xs + j + 1, xs + j, (n - j) * sizeof(xs[0]));
        memmove(ys + j + 1, ys + j, (n - j) * sizeof(ys[0]));
        memmove(cnt + j + 1, cnt + j, (n - j) * sizeof(cnt[0]));
        xs[j] = lx;
        ys[j] = ly;
        cnt[j] = 1;
        n++;
    }
    double x = op_x(op);
    if (n == 0 || !(x > 0.0))
        return false;
    /* A GEMM above the range has no limit: the op family caps a GEMM's work and records the
     * shape it ran (a model's 128k-vocabulary head at 1/32 of its width), on the ground that
     * its time grows linearly in n once the shape fills the device. */
    double X = log(x), reach = log(FF_OP_EXTRAPOLATE_MAX), Y;
    if (X < xs[0] - reach || (X > xs[n - 1] + reach && op->kind != FF_OP_GEMM))
        return false;
    if (n == 1) {
        Y = along(xs[0], ys[0], 1.0, X); /* its throughput */
    } else if (X <= xs[0]) {
        double slope = (ys[1] - ys[0]) / (xs[1] - xs[0]);
        Y = along(xs[0], ys[0], fmin(fmax(slope, 0.0), 1.0), X);
    } else if (X >= xs[n - 1]) {
        /* above the range, at the largest shape's throughput: a bigger op moves or computes
         * proportionally more at the rate its largest measured neighbour already reached (the
         * slope of the last two points is no guide: two shapes of nearly equal work, as the
         * capped GEMMs are, give any slope) */
        Y = along(xs[n - 1], ys[n - 1], 1.0, X);
    } else {
        size_t j = 1;
        while (xs[j] < X)
            j++;
        Y = along(xs[j - 1], ys[j - 1], (ys[j] - ys[j - 1]) / (xs[j] - xs[j - 1]), X);
    }
    *seconds = exp(Y);
    return true;
}

/*
 * Measured or interpolated time of op from d->ops; false when neither applies. Interpolated
 * within one regime: the measured regime nearest op's (the sum of the keys' log2 distances;
 * of two as near, the one with the larger values) that reaches op's size, so that a batch's
 * gemv or a skinny GEMM never sits between two points of op's own regime: at nearly equal
 * bytes or FLOPs the two lie on different curves.
 */
static bool from_profile(const struct ff_spec *d, const struct ff_op *op, double *seconds,
                         enum ff_op_source *source)
{
    const size_t n_ops = d->n_ops < FF_SPEC_OPS_MAX ? d->n_ops : FF_SPEC_OPS_MAX;
    double want[2], keys[FF_SPEC_OPS_MAX][2];
    size_t n_keys = 0;
    regime((int)op->kind, op->m, op->n, op->k, op->g, want);
    for (size_t i = 0; i < n_ops; i++) {
        const struct ff_spec_op *s = &d->ops[i];
        if (!usable(s, op))
            continue;
        if (s->m == op->m && s->n == op->n && s->k == op->k && s->g == op->g) {
            *seconds = s->seconds;
            *source = FF_OP_SOURCE_MEASURED;
            return true;
        }
        double key[2];
        regime(s->kind, s->m, s->n, s->k, s->g, key);
        size_t j = 0;
        while (j < n_keys && (keys[j][0] != key[0] || keys[j][1] != key[1]))
            j++;
        if (j == n_keys) {
            keys[n_keys][0] = key[0];
            keys[n_keys][1] = key[1];
            n_keys++;
        }
    }
    /* the regimes in order of preference, each tried until one reaches op */
    bool tried[FF_SPEC_OPS_MAX] = {false};
    for (size_t t = 0; t < n_keys; t++) {
        size_t b = n_keys;
        double best = INFINITY;
        for (size_t j = 0; j < n_keys; j++) {
            if (tried[j])
                continue;
            double dist = fabs(keys[j][0] - want[0]) + fabs(keys[j][1] - want[1]);
            if (b == n_keys || dist < best ||
                (dist == best && keys[j][0] + keys[j][1] > keys[b][0] + keys[b][1])) {
                b = j;
                best = dist;
            }
        }
        tried[b] = true;
        if (interpolate(d, n_ops, op, keys[b], seconds)) {
            *source = FF_OP_SOURCE_INTERPOLATED;
            return true;
        }
    }
    return false;
}

static int time_op(const struct ff_spec *d, const struct rates *r, const struct ff_op *op,
                   double *seconds, enum ff_op_source *source)
{
    if (from_profile(d, op, seconds, source))
        return FF_OK;
    *source = FF_OP_SOURCE_CONSTANT;
    return constant_time(d, r, op, seconds);
}

int ff_op_time(const struct ff_spec *d, const struct ff_plan *plan, const struct ff_estimate *e,
               const struct ff_op *op, double *seconds, enum ff_op_source *source)
{
    if (!d || !op || !seconds || !source || (int)op->kind < 0 || op->kind >= FF_OP_KIND_COUNT)
        return FF_ERR_INVALID;
    struct ff_spec dv;
    struct ff_plan pv;
    int rc = ff_spec_view(&d, &dv, NULL, 0);
    if (rc != FF_OK)
        return rc;
    if (plan) {
        if ((rc = ff_plan_view(&plan, &pv, NULL, 0)) != FF_OK)
            return rc;
    } else {
        ff_plan_init(&pv);
        plan = &pv;
    }
    if (e && e->struct_size < sizeof(*e))
        e = NULL;
    struct rates r;
    rates_of(d, plan, e, &r);
    return time_op(d, &r, op, seconds, source);
}

/* ---- the sum ---- */

struct sum {
    struct ff_bottom_up *out;
    const struct ff_spec *d;
    const struct ff_model *m;
    struct rates r;
    double measured_s; /* measured terms' seconds, weighted as they enter `seconds` */
};

/* Kernel launches of an op's runs: one each, but the routed experts of a block run as one
 * grouped launch (llama.cpp's mul_mat_id, vLLM's fused MoE), whatever the experts it touches:
 * one per MoE block for the down projection, two for gate and up. */
static double launches(const struct ff_model *m, const struct ff_op *op)
{
    if (m && strncmp(op->what, "expert_", 7) == 0 && m->experts > 0) {
        double moe = ff_model_moe_layers(m);
        double per = strncmp(op->what, "expert_gate_up", 14) == 0 ? 2.0 : 1.0;
        if (moe > 0.0 && moe * per < op->count)
            return moe * per;
    }
    return ceil(op->count);
}

/* Time the list of one phase into out->terms; *ops_s the op seconds per step, *dispatches the
 * kernel launches. weight: how often the step recurs in the whole (generate for decode), for
 * the measured share. scale: the share of the list one GPU runs per step (accum/pp). */
static int sum_list(struct sum *s, const struct ff_op_list *l, enum ff_op_phase phase, double scale,
                    double weight, double *ops_s, double *dispatches, char *err, size_t errlen)
{
    struct ff_bottom_up *out = s->out;
    *ops_s = 0.0;
    *dispatches = 0.0;
    for (size_t i = 0; i < l->n; i++) {
        const struct ff_op *op = &l->op[i];
        double t;
        enum ff_op_source src;
        int rc = time_op(s->d, &s->r, op, &t, &src);
        if (rc != FF_OK)
            return ff_errf(err, errlen, rc,
                           "%s: no time for %s %s %ux%ux%u: no op test near it and no %s to "
                           "compute it from",
                           s->d->slug, ff_op_kind_name(op->kind), op->what, op->m, op->n, op->k,
                           op->kind == FF_OP_GEMM ? "matrix rate" : "bandwidth");
        double per_step = op->count * t * scale;
        *ops_s += per_step;
        *dispatches += launches(s->m, op) * scale;
        if (src == FF_OP_SOURCE_MEASURED)
            s->measured_s += per_step * weight;
        out->n_measured += src == FF_OP_SOURCE_MEASURED;
        out->n_interpolated += src == FF_OP_SOURCE_INTERPOLATED;
        out->n_constant += src == FF_OP_SOURCE_CONSTANT;
        if (out->n_terms < FF_BU_TERMS_MAX) {
            struct ff_bu_term *b = &out->terms[out->n_terms++];
            b->op = *op;
            b->op.count = op->count * scale;
            b->phase = phase;
            b->op_seconds = t;
            b->seconds = per_step;
            b->source = src;
        }
    }
    return FF_OK;
}

static void add_note(struct ff_bottom_up *b, const char *text)
{
    size_t used = strlen(b->notes);
    snprintf(b->notes + used, sizeof(b->notes) - used, "%s%s", used ? "; " : "", text);
}

static uint32_t clamp_u32(double x)
{
    return x < 1.0 ? 1u : x > 4294967295.0 ? UINT32_MAX : (uint32_t)x;
}

/*
 * The optimizer step, once per step whatever the accumulation: memory-bound, so it enters as
 * runs of the element-wise ADD kernel (12 bytes an element) moving the update's bytes. The
 * parameters this GPU updates are its optimizer memory over the bytes per parameter (its
 * shard under ZeRO, of its tp x pp share); each is read as weight or master copy, gradient and
 * states and written back as weight or master copy and states, plus the 16-bit weight a
 * mixed-precision step writes from its master: 2k + g + w bytes (k the optimizer's bytes per
 * parameter, master included), 2k + g + 2w without a master (fp32 AdamW: 28 bytes, the
 * minimum a fused AdamW moves). The shape is the update as hidden-wide rows, usually beyond
 * every measured ADD: the measured bandwidth then times it (source constant).
 */
static int optimizer_term(struct sum *s, const struct ff_model *m, const struct ff_plan *p,
                          const struct ff_estimate *e, double *ops_s, double *dispatches, char *err,
                          size_t errlen)
{
    *ops_s = *dispatches = 0.0;
    double w = ff_precision_bytes(p->precision);
    double g = p->precision == FF_PREC_FP32 ? 4.0 : ff_precision_bytes(p->grad_precision);
    double k = ff_est_optimizer_bytes(p->optimizer, w);
    double n_h = (double)(m->hidden > 0 ? m->hidden : 1);
    if (!(w > 0.0) || !(k > 0.0) || !(e->mem.optimizer > 0.0))
        return FF_OK;
    double params = e->mem.optimizer / k;
    double bytes = params * (2.0 * k + g + (w < 4.0 ? w : 2.0 * w));
    struct ff_op_list l = {.n = 1};
    struct ff_op *op = &l.op[0];
    op->kind = FF_OP_ADD;
    op->prec = FF_PREC_FP32;
    op->n = clamp_u32(n_h);
    op->m = clamp_u32(ceil(params / n_h));
    op->count = bytes / ff_op_bytes(op);
    snprintf(op->what, sizeof(op->what), "optimizer");
    return sum_list(s, &l, FF_OP_PHASE_TRAIN, 1.0, 1.0, ops_s, dispatches, err, errlen);
}

int ff_est_bottom_up(const struct ff_model *m, const struct ff_spec *d, const struct ff_plan *p,
                     const struct ff_estimate *e, struct ff_bottom_up *out, char *err,
                     size_t errlen)
{
    if (!m || !d || !p || !e || !out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "missing argument");
    if (out->struct_size != sizeof(*out))
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "struct ff_bottom_up of %zu bytes (this library's is %zu): "
                       "ff_bottom_up_init it",
                       out->struct_size, sizeof(*out));
    if (e->struct_size < sizeof(*e))
        return ff_errf(err, errlen, FF_ERR_INVALID, "struct ff_estimate from an older release");
    struct ff_model mv;
    struct ff_spec dv;
    struct ff_plan pv;
    int rc;
    if ((rc = ff_model_view(&m, &mv, err, errlen)) != FF_OK ||
        (rc = ff_spec_view(&d, &dv, err, errlen)) != FF_OK ||
        (rc = ff_plan_view(&p, &pv, err, errlen)) != FF_OK)
        return rc;
    ff_bottom_up_init(out);
    bool serve = p->task == FF_TASK_SERVE;
    double B = (double)(serve ? e->serve_batch : e->batch), P = (double)p->prompt,
           G = (double)p->generate;
    if (B < 1.0)
        B = 1.0;
    /* ff_est_run's figures, beside which the bottom-up ones are shown. */
    if (serve) {
        out->top_prefill_tokens_per_s = e->prefill_seconds > 0.0 ? B * P / e->prefill_seconds : 0;
        out->top_decode_tokens_per_s =
            e->decode_seconds_per_token > 0.0 ? B / e->decode_seconds_per_token : 0.0;
    } else {
        out->top_train_step_s = e->step.seconds;
    }
    out->top_seconds = e->seconds;

    if (d->n_ops == 0) {
        snprintf(out->why, sizeof(out->why), "%s",
                 d->measured ? "the profile has no op tests"
                             : "a datasheet device has no op tests (measure it with flopfit "
                               "bench --model)");
        return FF_OK;
    }
    if (e->cp > 1) {
        snprintf(out->why, sizeof(out->why),
                 "context parallelism: the op list has no ring attention");
        return FF_OK;
    }
    struct ff_op_params op = {
        .phase = FF_OP_PHASE_TRAIN,
        .batch = clamp_u32(B),
        .seq = clamp_u32((double)ff_plan_seq(m, p)),
        .weights = p->precision,
        .kv = ff_plan_kv_precision(p),
        .tp = clamp_u32((double)(e->tp > 0 ? e->tp : 1)),
    };
    /* fp32 training keeps fp32 throughout; mixed precision runs 16-bit GEMMs whatever the
     * stored weights (ops.c maps the format). */
    struct sum s = {.out = out, .d = d, .m = m};
    rates_of(d, p, e, &s.r);
    out->launch_s = d->launch_s;
    if (d->launch_s <= 0.0)
        add_note(out, "launch latency not measured: no charge per dispatch");
    struct ff_op_list l1, l2;
    char why[256] = "";
    if (serve) {
        op.phase = FF_OP_PHASE_PREFILL;
        op.seq = clamp_u32(P);
        rc = ff_model_ops(m, &op, &l1, why, sizeof(why));
        if (rc == FF_OK) {
            op.phase = FF_OP_PHASE_DECODE;
            op.seq = clamp_u32(P + G / 2.0);
            rc = ff_model_ops(m, &op, &l2, why, sizeof(why));
        }
    } else {
        if (p->task != FF_TASK_TRAIN)
            add_note(out, "LoRA: counted as full training (the op list has no frozen weights)");
        rc = ff_model_ops(m, &op, &l1, why, sizeof(why));
        double r = ff_recompute_layer_share(m, p);
        if (rc == FF_OK && r > 0.0) {
            op.phase = FF_OP_PHASE_PREFILL;
            rc = ff_model_ops(m, &op, &l2, why, sizeof(why));
        }
    }
    if (rc == FF_ERR_UNSUPPORTED || rc == FF_ERR_INVALID || rc == FF_ERR_RANGE) {
        out->n_measured = out->n_interpolated = out->n_constant = 0;
        out->n_terms = 0;
        snprintf(out->why, sizeof(out->why), "%s", why);
        return FF_OK;
    }
    if (rc != FF_OK)
        return ff_errf(err, errlen, rc, "%s", why);

    double tp = (double)op.tp, act_bytes = p->precision == FF_PREC_FP32 ? 4.0 : 2.0;
    if (serve) {
        double ops_p, disp_p, ops_d, disp_d;
        if ((rc = sum_list(&s, &l1, FF_OP_PHASE_PREFILL, 1.0, 1.0, &ops_p, &disp_p, err, errlen)) !=
                FF_OK ||
            (rc = sum_list(&s, &l2, FF_OP_PHASE_DECODE, 1.0, G, &ops_d, &disp_d, err, errlen)) !=
                FF_OK)
            return rc;
        out->prefill_dispatches = disp_p;
        out->decode_dispatches = disp_d;
        out->prefill_comm_s = ff_serve_comm_seconds(m, d, tp, B * P, act_bytes);
        out->decode_comm_s = ff_serve_comm_seconds(m, d, tp, B, act_bytes);
        out->prefill_s = ops_p + disp_p * d->launch_s + out->prefill_comm_s;
        out->decode_step_s = ops_d + disp_d * d->launch_s + out->decode_comm_s;
        out->prefill_tokens_per_s = B * P / out->prefill_s;
        out->decode_tokens_per_s = B / out->decode_step_s;
        out->seconds = out->prefill_s + G * out->decode_step_s;
    } else {
        /* One GPU's share per optimizer step: accum micro-batches, 1/pp of the layers. */
        double accum = (double)(e->step.micro_batches > 0 ? e->step.micro_batches : e->accum);
        double pp = (double)(e->pp > 0 ? e->pp : 1);
        if (pp > 1.0)
            add_note(out, "pipeline stages: each runs 1/pp of the ops");
        double scale = accum / pp, ops_t, disp_t;
        if ((rc = sum_list(&s, &l1, FF_OP_PHASE_TRAIN, scale, 1.0, &ops_t, &disp_t, err, errlen)) !=
            FF_OK)
            return rc;
        double r = ff_recompute_layer_share(m, p);
        if (r > 0.0) {
            double ops_r, disp_r;
            add_note(out, "recomputation: the forward's ops rerun in train terms marked prefill");
            if ((rc = sum_list(&s, &l2, FF_OP_PHASE_PREFILL, scale * r, 1.0, &ops_r, &disp_r, err,
                               errlen)) != FF_OK)
                return rc;
            ops_t += ops_r;
            disp_t += disp_r;
        }
        double ops_o, disp_o;
        if ((rc = optimizer_term(&s, m, p, e, &ops_o, &disp_o, err, errlen)) != FF_OK)
            return rc;
        ops_t += ops_o;
        disp_t += disp_o;
        out->train_ops_s = ops_t;
        out->train_dispatches = disp_t;
        /* The step model's communication as ff_est_step has it; the pipeline bubble is a
         * share of the compute, so it follows the bottom-up compute. */
        const struct ff_step *st = &e->step;
        double comm = 0.0, compute_td = st->term[FF_TERM_COMPUTE].seconds;
        for (int t = FF_TERM_TP; t < FF_STEP_TERMS; t++) {
            const struct ff_step_part *pt = &st->term[t];
            if (!pt->applies || !pt->known)
                continue;
            if (t == FF_TERM_BUBBLE && compute_td > 0.0)
                comm += pt->seconds * ops_t / compute_td;
            else
                comm += pt->seconds;
        }
        out->train_comm_s = comm;
        out->train_step_s = ops_t + disp_t * d->launch_s + comm;
        double seq = (double)ff_plan_seq(m, p);
        out->train_tokens_per_s =
            st->sequences > 0.0 ? st->sequences * seq / out->train_step_s : 0.0;
        out->seconds = st->steps > 0.0 ? st->steps * out->train_step_s : out->train_step_s;
        if (out->top_seconds <= 0.0 || st->steps <= 0.0)
            out->top_seconds = st->steps > 0.0 ? e->seconds : out->top_train_step_s;
    }
    double whole = serve ? out->seconds : out->train_step_s;
    out->measured_share = whole > 0.0 ? s.measured_s / whole : 0.0;
    out->ratio = out->top_seconds > 0.0 ? out->seconds / out->top_seconds : 0.0;
    out->bottom_up = true;
    return FF_OK;
}
