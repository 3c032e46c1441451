/*
 * estimate/src/estimate.c — plan defaults and checks, the verdict (fits, largest batch,
 * fewest GPUs, what would make it fit), time and cost.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "flopfit/estimate.h"
#include "flopfit/status.h"
#include "internal.h"

#define DP_MAX    ((int64_t)1 << 20)
#define BATCH_MAX ((int64_t)1 << 30)
#define TP_MAX    8 /* tensor parallelism stays inside one 8-GPU node */
#define PP_MAX    256

void ff_plan_init(struct ff_plan *p)
{
    memset(p, 0, sizeof(*p));
    p->task = FF_TASK_TRAIN;
    p->precision = FF_PREC_BF16;
    p->kv_precision = FF_PREC_BF16;
    p->grad_precision = FF_PREC_FP32;
    p->optimizer = FF_OPT_ADAMW;
    p->batch = 1;
    p->accum = 1;
    p->recompute = FF_RECOMPUTE_NONE;
    p->flash_attention = true;
    p->sequence_parallel = true;
    p->tp = p->pp = 1;
    p->lora_rank = 16;
    p->lora_all_linear = true;
    p->prompt = 512;
    p->generate = 256;
    p->overhead_bytes = -1.0;
    p->overhead_fraction = -1.0;
}

const char *ff_task_name(enum ff_task t)
{
    switch (t) {
    case FF_TASK_TRAIN: return "train";
    case FF_TASK_LORA: return "lora";
    case FF_TASK_QLORA: return "qlora";
    case FF_TASK_SERVE: return "serve";
    }
    return "?";
}

const char *ff_optimizer_name(enum ff_optimizer o)
{
    switch (o) {
    case FF_OPT_ADAMW: return "adamw";
    case FF_OPT_ADAMW8BIT: return "adamw8bit";
    case FF_OPT_SGD: return "sgd";
    }
    return "?";
}

const char *ff_recompute_name(enum ff_recompute r)
{
    switch (r) {
    case FF_RECOMPUTE_NONE: return "none";
    case FF_RECOMPUTE_SELECTIVE: return "selective";
    case FF_RECOMPUTE_FULL: return "full";
    }
    return "?";
}

enum ff_precision ff_plan_compute_precision(const struct ff_plan *p)
{
    if (p->task == FF_TASK_QLORA)
        return p->precision == FF_PREC_FP16 ? FF_PREC_FP16 : FF_PREC_BF16;
    if (p->task == FF_TASK_LORA && (p->precision == FF_PREC_INT8 || p->precision == FF_PREC_INT4 ||
                                    p->precision == FF_PREC_NF4))
        return FF_PREC_BF16; /* frozen quantised base is dequantised for the matmuls */
    return p->precision;
}

static bool tp_valid(const struct ff_model *m, int64_t tp)
{
    if (m->rough)
        return m->heads % tp == 0;
    if (m->heads % tp != 0)
        return false;
    if (m->kv_lora_rank > 0)
        return true;
    return m->kv_heads % tp == 0 || tp % m->kv_heads == 0;
}

int ff_plan_check(const struct ff_model *m, const struct ff_plan *p, char *err, size_t errlen)
{
    int rc = ff_model_check(m, err, errlen);
    if (rc != FF_OK)
        return rc;
    struct {
        const char *opt;
        int64_t v, min, max;
    } ranges[] = {
        {"--batch", p->batch, 1, BATCH_MAX},
        {"--seq", p->seq, 0, (int64_t)1 << 34},
        {"--accum", p->accum, 1, (int64_t)1 << 30},
        {"--tp", p->tp, 1, 1 << 16},
        {"--pp", p->pp, 1, 1 << 16},
        {"--gpus", p->gpus, 0, (int64_t)1 << 30},
        {"--zero", p->zero, 0, 3},
        {"--lora-rank", p->lora_rank, 1, 1 << 20},
        {"--prompt", p->prompt, 1, (int64_t)1 << 34},
        {"--generate", p->generate, 1, (int64_t)1 << 34},
    };
    for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
        if (ranges[i].v < ranges[i].min || ranges[i].v > ranges[i].max)
            return ff_errf(err, errlen, FF_ERR_RANGE, "%s %lld is out of range (%lld..%lld)",
                           ranges[i].opt, (long long)ranges[i].v, (long long)ranges[i].min,
                           (long long)ranges[i].max);
    if (!(p->tokens >= 0.0 && p->tokens <= 1e18))
        return ff_errf(err, errlen, FF_ERR_RANGE, "--tokens %g is out of range (0..1e18)",
                       p->tokens);
    if (!(p->mfu >= 0.0 && p->mfu <= 1.0))
        return ff_errf(err, errlen, FF_ERR_RANGE, "--mfu %g is out of range (0..1]", p->mfu);
    if (!(p->bw_fraction >= 0.0 && p->bw_fraction <= 1.0))
        return ff_errf(err, errlen, FF_ERR_RANGE, "--bw-fraction %g is out of range (0..1]",
                       p->bw_fraction);
    if (!(p->price_per_hour >= 0.0 && p->price_per_hour < 1e6))
        return ff_errf(err, errlen, FF_ERR_RANGE, "--price %g is out of range", p->price_per_hour);
    if (!(p->achieved_flops_per_s >= 0.0 && p->achieved_flops_per_s < 1e18))
        return ff_errf(err, errlen, FF_ERR_RANGE, "achieved FLOP/s %g is out of range",
                       p->achieved_flops_per_s);
    if ((int)p->precision < 0 || p->precision >= FF_PREC_COUNT)
        return ff_errf(err, errlen, FF_ERR_INVALID, "unknown precision");
    if (p->task == FF_TASK_TRAIN && p->precision != FF_PREC_FP32 && p->precision != FF_PREC_BF16 &&
        p->precision != FF_PREC_FP16 && p->precision != FF_PREC_FP8)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--train needs --precision fp32, bf16, fp16 or fp8 (got %s); for 4-bit "
                       "weights use --finetune qlora",
                       ff_precision_name(p->precision));
    if (p->task == FF_TASK_QLORA && p->precision != FF_PREC_BF16 && p->precision != FF_PREC_FP16 &&
        p->precision != FF_PREC_FP32)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--finetune qlora stores the base in NF4 and computes in bf16/fp16; "
                       "--precision %s does not apply",
                       ff_precision_name(p->precision));
    if (p->task == FF_TASK_SERVE && p->zero != 0)
        return ff_errf(err, errlen, FF_ERR_INVALID, "--zero applies to training, not --serve");
    if (p->grad_precision != FF_PREC_FP32 && p->grad_precision != FF_PREC_BF16 &&
        p->grad_precision != FF_PREC_FP16)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--grad-precision must be fp32, bf16 or fp16 (got %s)",
                       ff_precision_name(p->grad_precision));
    if (!tp_valid(m, p->tp)) {
        if (m->heads % p->tp != 0)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "--tp %lld does not divide the %lld attention heads of %s",
                           (long long)p->tp, (long long)m->heads, m->name);
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--tp %lld neither divides nor is a multiple of the %lld key/value "
                       "heads of %s",
                       (long long)p->tp, (long long)m->kv_heads, m->name);
    }
    if (p->pp > m->layers)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--pp %lld is more pipeline stages than the %lld layers of %s",
                       (long long)p->pp, (long long)m->layers, m->name);
    int64_t mp = p->tp * p->pp;
    if (p->gpus > 0) {
        if (p->gpus < mp)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "the plan needs tp x pp = %lld GPUs but --gpus is %lld", (long long)mp,
                           (long long)p->gpus);
        if (p->gpus % mp != 0)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "--gpus %lld is not a multiple of tp x pp = %lld", (long long)p->gpus,
                           (long long)mp);
        if (p->task == FF_TASK_SERVE && p->gpus / mp > p->batch)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "more GPUs than needed: %lld model replicas for %lld sequences "
                           "(raise --batch or lower --gpus)",
                           (long long)(p->gpus / mp), (long long)p->batch);
    }
    return FF_OK;
}

struct ctx {
    const struct ff_model *m;
    const struct ff_param_count *pc;
    double usable;
};

static bool fits_at(const struct ctx *c, const struct ff_plan *p, int64_t tp, int64_t pp,
                    int64_t dp, int64_t b, struct ff_memory *mem)
{
    struct ff_memory tmp;
    if (!mem)
        mem = &tmp;
    struct ff_plan q = *p;
    q.tp = tp;
    q.pp = pp;
    ff_memory_at(c->m, &q, c->pc, (double)tp, (double)pp, (double)dp, (double)b, mem);
    return mem->total <= c->usable;
}

/* Largest b in [1, BATCH_MAX] that fits (memory grows with b); 0 when none. */
static int64_t max_batch(const struct ctx *c, const struct ff_plan *p, int64_t tp, int64_t pp,
                         int64_t dp)
{
    if (!fits_at(c, p, tp, pp, dp, 1, NULL))
        return 0;
    int64_t lo = 1, hi = 2;
    while (hi < BATCH_MAX && fits_at(c, p, tp, pp, dp, hi, NULL)) {
        lo = hi;
        hi *= 2;
    }
    if (hi >= BATCH_MAX && fits_at(c, p, tp, pp, dp, BATCH_MAX, NULL))
        return BATCH_MAX;
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (fits_at(c, p, tp, pp, dp, mid, NULL))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Fewest data-parallel ranks that fit for a layout (ZeRO shards with dp); 0 when none. */
static int64_t min_dp(const struct ctx *c, const struct ff_plan *p, int64_t tp, int64_t pp)
{
    if (fits_at(c, p, tp, pp, 1, p->batch, NULL))
        return 1;
    if (p->task == FF_TASK_SERVE || p->zero == 0 || !fits_at(c, p, tp, pp, DP_MAX, p->batch, NULL))
        return 0;
    int64_t lo = 1, hi = DP_MAX; /* lo does not fit, hi fits */
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (fits_at(c, p, tp, pp, mid, p->batch, NULL))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* The fewest GPUs keeping the plan's options; tp grows in powers of two up to a node. */
static int64_t min_gpus(const struct ctx *c, const struct ff_plan *p, int64_t *btp, int64_t *bpp,
                        int64_t *bdp)
{
    int64_t best = 0;
    int64_t pp_max = c->m->layers < PP_MAX ? c->m->layers : PP_MAX;
    for (int64_t pp = p->pp; pp <= pp_max; pp++) {
        if (best && p->tp * pp >= best)
            break;
        for (int64_t tp = p->tp; tp <= (p->tp > TP_MAX ? p->tp : TP_MAX); tp *= 2) {
            if (best && tp * pp >= best)
                break;
            if (!tp_valid(c->m, tp))
                continue;
            int64_t dp = min_dp(c, p, tp, pp);
            if (dp == 0)
                continue;
            int64_t n = tp * pp * dp;
            if (!best || n < best) {
                best = n;
                *btp = tp;
                *bpp = pp;
                *bdp = dp;
            }
        }
    }
    return best;
}

static void suggest(struct ff_estimate *e, const char *change, double total, double usable)
{
    if (e->n_suggestions >= FF_MAX_SUGGESTIONS)
        return;
    struct ff_suggestion *s = &e->suggestions[e->n_suggestions++];
    ff_strlcpy(s->change, change, sizeof(s->change));
    s->total_bytes = total;
    s->fits = total <= usable;
}

static void try_plan(struct ff_estimate *e, const struct ctx *c, const struct ff_plan *q,
                     int64_t dp, const char *change)
{
    struct ff_memory mem;
    fits_at(c, q, q->tp, q->pp, dp, q->batch, &mem);
    suggest(e, change, mem.total, c->usable);
}

static void suggestions(struct ff_estimate *e, const struct ctx *c, const struct ff_plan *p)
{
    char buf[FF_SUGGESTION_MAX];
    int64_t dp = e->dp;
    struct ff_plan q;
    if (e->max_batch >= 1 && e->max_batch < p->batch) {
        q = *p;
        q.batch = e->max_batch;
        snprintf(buf, sizeof(buf), "--batch %lld", (long long)e->max_batch);
        try_plan(e, c, &q, dp, buf);
    }
    if (p->task != FF_TASK_SERVE) {
        if (p->recompute == FF_RECOMPUTE_NONE && !p->flash_attention) {
            q = *p;
            q.recompute = FF_RECOMPUTE_SELECTIVE;
            try_plan(e, c, &q, dp, "--recompute selective");
        }
        if (p->recompute != FF_RECOMPUTE_FULL) {
            q = *p;
            q.recompute = FF_RECOMPUTE_FULL;
            try_plan(e, c, &q, dp, "--recompute full");
        }
    }
    if (!p->flash_attention) {
        q = *p;
        q.flash_attention = true;
        try_plan(e, c, &q, dp, "--flash-attention on");
    }
    if (p->task != FF_TASK_SERVE && dp > 1) {
        for (int z = p->zero + 1; z <= 3; z++) {
            q = *p;
            q.zero = z;
            snprintf(buf, sizeof(buf), "--zero %d", z);
            try_plan(e, c, &q, dp, buf);
        }
    }
    if (p->task == FF_TASK_TRAIN && p->optimizer == FF_OPT_ADAMW) {
        q = *p;
        q.optimizer = FF_OPT_ADAMW8BIT;
        try_plan(e, c, &q, dp, "--optimizer adamw8bit");
    }
    if (p->task == FF_TASK_TRAIN || p->task == FF_TASK_LORA) {
        q = *p;
        q.task = FF_TASK_QLORA;
        if (q.precision != FF_PREC_FP16 && q.precision != FF_PREC_FP32)
            q.precision = FF_PREC_BF16;
        try_plan(e, c, &q, dp, "--finetune qlora (4-bit base, adapters only)");
    }
    if (p->task == FF_TASK_SERVE) {
        static const enum ff_precision narrower[] = {FF_PREC_INT8, FF_PREC_INT4};
        for (size_t i = 0; i < 2; i++) {
            if (ff_precision_bytes(narrower[i]) >= ff_precision_bytes(p->precision))
                continue;
            q = *p;
            q.precision = narrower[i];
            snprintf(buf, sizeof(buf), "--precision %s", ff_precision_name(narrower[i]));
            try_plan(e, c, &q, dp, buf);
        }
        if (ff_precision_bytes(ff_plan_kv_precision(p)) > 1.0) {
            q = *p;
            q.kv_precision = FF_PREC_FP8;
            q.kv_precision_set = true;
            try_plan(e, c, &q, dp, "--kv-precision fp8");
        }
    }
    if (e->min_gpus > 0) {
        q = *p;
        q.tp = e->min_tp;
        q.pp = e->min_pp;
        snprintf(buf, sizeof(buf), "--gpus %lld --tp %lld --pp %lld", (long long)e->min_gpus,
                 (long long)e->min_tp, (long long)e->min_pp);
        try_plan(e, c, &q, e->min_dp, buf);
    }
    if (p->task != FF_TASK_SERVE && p->zero < 3) {
        q = *p;
        q.zero = 3;
        int64_t t = 1, pp = 1, d = 1;
        int64_t n = min_gpus(c, &q, &t, &pp, &d);
        if (n > 0 && (e->min_gpus == 0 || n < e->min_gpus)) {
            snprintf(buf, sizeof(buf), "--zero 3 --gpus %lld --tp %lld --pp %lld", (long long)n,
                     (long long)t, (long long)pp);
            q.tp = t;
            q.pp = pp;
            try_plan(e, c, &q, d, buf);
        }
    }
}

static int need_figure(const struct ff_spec *d, double v, const char *what, char *err,
                       size_t errlen)
{
    if (v > 0.0)
        return FF_OK;
    if (d->measured)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "%s: the profile lacks a %s (%s); measure it or use a catalog --device",
                       d->source, what, d->notes[0] ? d->notes : "not measured");
    return ff_errf(err, errlen, FF_ERR_UNSUPPORTED, "%s (%s) has no %s", d->slug, d->name, what);
}

int ff_est_run(const struct ff_model *m, const struct ff_spec *d, const struct ff_plan *p,
               struct ff_estimate *e, char *err, size_t errlen)
{
    if (!m || !d || !p || !e)
        return ff_errf(err, errlen, FF_ERR_INVALID, "missing argument");
    memset(e, 0, sizeof(*e));
    int rc = ff_plan_check(m, p, err, errlen);
    if (rc != FF_OK)
        return rc;
    rc = ff_model_params(m, &e->params);
    if (rc != FF_OK)
        return ff_errf(err, errlen, rc, "%s: parameter count out of range", m->name);

    e->compute_precision = ff_plan_compute_precision(p);
    e->kv_precision = ff_plan_kv_precision(p);
    e->rate_flops_per_s = ff_spec_rate(d, e->compute_precision);
    char what[96];
    snprintf(what, sizeof(what), "%s matrix rate", ff_precision_name(e->compute_precision));
    if ((rc = need_figure(d, e->rate_flops_per_s, what, err, errlen)) != FF_OK)
        return rc;
    if ((rc = need_figure(d, d->mem_bytes, "usable memory figure", err, errlen)) != FF_OK)
        return rc;
    if (p->task == FF_TASK_SERVE &&
        (rc = need_figure(d, d->bandwidth_bytes_per_s, "memory bandwidth figure", err, errlen)) !=
            FF_OK)
        return rc;

    struct ctx c = {m, &e->params, d->mem_bytes};
    e->usable_bytes = d->mem_bytes;
    e->bandwidth_bytes_per_s = d->bandwidth_bytes_per_s;
    e->bw_fraction =
        p->bw_fraction > 0.0 ? p->bw_fraction : (d->measured ? 1.0 : FF_DEFAULT_BW_FRACTION);

    /* Layout: as given, or the fewest GPUs that fit (tp, pp grown from the plan's). */
    e->min_gpus = min_gpus(&c, p, &e->min_tp, &e->min_pp, &e->min_dp);
    struct ff_plan q = *p;
    if (p->gpus > 0) {
        e->dp = p->gpus / (p->tp * p->pp);
    } else {
        e->gpus_chosen = true;
        e->dp = 1;
        if (e->min_gpus > 0) {
            q.tp = e->min_tp;
            q.pp = e->min_pp;
            e->dp = e->min_dp;
        }
    }
    e->tp = q.tp;
    e->pp = q.pp;
    e->gpus = q.tp * q.pp * e->dp;
    q.gpus = e->gpus;
    int64_t mp = q.tp * q.pp;
    e->fits = fits_at(&c, &q, q.tp, q.pp, e->dp, q.batch, &e->mem);
    e->margin_bytes = e->usable_bytes - e->mem.total;
    e->max_batch = max_batch(&c, &q, q.tp, q.pp, e->dp);
    e->price_per_hour = p->price_per_hour > 0.0 ? p->price_per_hour : d->price_per_hour;

    if (p->task != FF_TASK_SERVE) {
        /* Defaults: Chinchilla-optimal 20 tokens per parameter (Hoffmann et al. 2022) for
         * pre-training; 1e8 tokens (e.g. 50k samples of 2k tokens) for fine-tuning. */
        e->tokens = p->tokens > 0.0            ? p->tokens
                    : p->task == FF_TASK_TRAIN ? 20.0 * (double)e->params.total
                                               : 1e8;
        struct ff_flops f;
        if ((rc = ff_est_flops(m, &q, e->tokens, &f)) != FF_OK)
            return ff_errf(err, errlen, rc, "FLOP count failed");
        e->flops_6nd = f.six_nd;
        e->flops_model = f.model;
        e->flops_hardware = f.hardware;
        double n = (double)e->gpus;
        if (p->achieved_flops_per_s > 0.0) {
            e->seconds = f.hardware / (n * p->achieved_flops_per_s);
            e->mfu = f.model / (e->seconds * n * e->rate_flops_per_s);
        } else {
            e->mfu_default = p->mfu <= 0.0;
            /* Recomputation costs time: the default keeps the hardware utilisation
             * (P12: 54.2% MFU selective vs 42.1% full recompute, both ~56% HFU). */
            e->mfu = p->mfu > 0.0 ? p->mfu : FF_DEFAULT_MFU_TRAIN * f.model / f.hardware;
            e->seconds = f.model / (n * e->rate_flops_per_s * e->mfu);
        }
        e->hfu = e->mfu * f.hardware / f.model;
        e->gpu_hours = e->seconds * n / 3600.0;
        e->cost_usd = e->price_per_hour > 0.0 ? e->gpu_hours * e->price_per_hour : -1.0;
    } else {
        e->mfu_default = p->mfu <= 0.0;
        e->mfu = p->mfu > 0.0 ? p->mfu : FF_DEFAULT_MFU_SERVE;
        e->hfu = e->mfu;
        struct ff_serve_point one, at;
        rc = ff_serve_at(m, d, &q, &e->params, e->mfu, e->bw_fraction, 1, &one);
        if (rc == FF_OK)
            rc = ff_serve_at(m, d, &q, &e->params, e->mfu, e->bw_fraction, q.batch, &at);
        if (rc != FF_OK)
            return ff_errf(err, errlen, rc, "%s lacks a rate or bandwidth for serving", d->slug);
        e->serve_batch = q.batch;
        e->prefill_seconds = at.prefill_s;
        e->decode_seconds_per_token = at.step_s;
        e->tokens_per_second = 1.0 / one.step_s;
        e->batch_tokens_per_second = at.tokens_per_s;
        e->max_sequences = e->max_batch;
        e->cost_per_million_tokens = -1.0;
        if (e->max_sequences > 0) {
            struct ff_serve_point best;
            ff_serve_at(m, d, &q, &e->params, e->mfu, e->bw_fraction, e->max_sequences, &best);
            e->max_tokens_per_second = best.tokens_per_s;
            if (e->price_per_hour > 0.0)
                e->cost_per_million_tokens =
                    e->price_per_hour * (double)mp / 3600.0 / best.tokens_per_s * 1e6;
        }
        /* Work of this request: 2 FLOPs per active weight per token (Kaplan). */
        e->flops_model = e->flops_hardware = (double)q.batch * (double)(q.prompt + q.generate) *
                                             2.0 * (double)e->params.matmul_active;
        e->seconds = at.total_s;
        e->gpu_hours = at.total_s * (double)e->gpus / 3600.0;
        e->cost_usd = e->price_per_hour > 0.0 ? e->gpu_hours * e->price_per_hour : -1.0;
    }
    if (!e->fits)
        suggestions(e, &c, &q);
    return FF_OK;
}
