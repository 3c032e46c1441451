/*
 * estimate/src/estimate.c — ff_est_run, the top-level estimate: check the plan, take the
 * device's figures, pick the layout (layout.c), then time and cost (training FLOPs, serving
 * in serve.c) and, when it does not fit, what would (suggest.c).
 */
#include <stdio.h>
#include <string.h>

#include "flopfit/estimate.h"
#include "flopfit/status.h"
#include "internal.h"

static int need_figure(const struct ff_spec *d, double v, const char *what, char *err,
                       size_t errlen)
{
    if (v > 0.0)
        return FF_OK;
    /* a profile of the ops family alone (`bench --only ops`) has op tests and none of the
     * rates every estimate also needs */
    if (d->measured)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED, "%s: the profile lacks a %s (%s); %s",
                       d->source, what, d->notes[0] ? d->notes : "not measured",
                       d->n_ops > 0 ? "its op tests need the other families beside them: "
                                      "`flopfit bench --only all,ops` measures both, or use a "
                                      "catalog --device"
                                    : "measure it or use a catalog --device");
    return ff_errf(err, errlen, FF_ERR_UNSUPPORTED, "%s (%s) has no %s", d->slug, d->name, what);
}

struct serve_ctx {
    const struct ff_model *m;
    const struct ff_spec *d;
    const struct ff_param_count *pc;
    double bw_fraction, mfu;
};

/* A serving layout's speed for ff_layout_for_gpus: output tokens/s over its dp replicas.
 * Training layouts come from the plan search (ff_plan_search), ranked by the run's time. */
static double layout_rate(const struct ff_plan *q, int64_t dp, void *ctx)
{
    const struct serve_ctx *c = ctx;
    struct ff_serve_point pt;
    if (ff_serve_at(c->m, c->d, q, c->pc, c->mfu, c->bw_fraction, q->batch, &pt) != FF_OK)
        return 0.0;
    return pt.tokens_per_s * (double)dp;
}

struct searched {
    struct ff_plan_choice ch[1], other;
    size_t n;
    int64_t candidates;
    bool has_other;
};

/* The plan search on exactly `gpus` GPUs; false when nothing fits. */
static bool search_at(const struct ff_model *m, const struct ff_spec *d, const struct ff_plan *p,
                      const struct ff_param_count *pc, int64_t G, double tokens, int64_t gpus,
                      struct searched *r)
{
    struct ff_plan s = *p;
    s.gpus = gpus;
    s.auto_layout = true; /* tp and pp are searched wherever the search runs */
    memset(r, 0, sizeof(*r));
    if (ff_plan_search(m, d, &s, pc, G, tokens, r->ch, 1, &r->n, &r->candidates, &r->other,
                       &r->has_other) != FF_OK)
        return false;
    /* More GPUs than any layout can give a share of the global batch: each replica takes at
     * least one sequence (the global batch grows to the replicas; the report says so). */
    if (r->n == 0 && G > 0 && G < gpus &&
        ff_plan_search(m, d, &s, pc, gpus, tokens, r->ch, 1, &r->n, &r->candidates, &r->other,
                       &r->has_other) != FF_OK)
        return false;
    return r->n > 0;
}

/* Take the search's best plan into *q and its runner-up into *e. */
static void take_search(const struct searched *r, struct ff_plan *q, struct ff_estimate *e)
{
    size_t size = q->struct_size;
    *q = r->ch[0].plan;
    q->struct_size = size;
    q->auto_layout = false;
    q->search = 0;
    e->searched = true;
    e->candidates = r->candidates;
    e->has_runner_up = r->has_other;
    if (r->has_other) {
        const struct ff_plan_choice *b = &r->other;
        e->runner_up_tp = b->plan.tp;
        e->runner_up_cp = b->plan.cp;
        e->runner_up_pp = b->plan.pp;
        e->runner_up_dp = b->dp;
        e->runner_up_ep = b->plan.ep;
        e->runner_up_batch = b->plan.batch;
        e->runner_up_accum = b->plan.accum;
        e->runner_up_zero = b->plan.zero;
        e->runner_up_recompute = b->plan.recompute;
        e->runner_up_seconds = b->seconds;
        ff_plan_runner_up_why(&r->ch[0], b, e->runner_up_why, sizeof(e->runner_up_why));
    }
}

/* Does the search on `gpus` GPUs finish within the deadline? */
static bool in_time(const struct ff_model *m, const struct ff_spec *d, const struct ff_plan *p,
                    const struct ff_param_count *pc, int64_t G, double tokens, int64_t gpus,
                    struct searched *r)
{
    return search_at(m, d, p, pc, G, tokens, gpus, r) && r->ch[0].seconds <= p->deadline_seconds;
}

/* The fewest GPUs from n0 up whose best plan finishes within p->deadline_seconds: counts
 * doubled until one does, then bisected; under a node any count, from a node up whole
 * nodes. False when not even FF_PLAN_GPUS_MAX GPUs finish in time (*r then holds the plan
 * on the most GPUs tried that fits, if any). */
static bool deadline_gpus(const struct ff_model *m, const struct ff_spec *d,
                          const struct ff_plan *p, const struct ff_param_count *pc, int64_t G,
                          double tokens, int64_t n0, int64_t node, struct searched *r,
                          int64_t *gpus)
{
    int64_t lo = 0, hi = n0 > 0 ? n0 : 1;
    while (!in_time(m, d, p, pc, G, tokens, hi, r)) {
        if (hi >= FF_PLAN_GPUS_MAX) {
            *gpus = hi;
            return false;
        }
        lo = hi;
        int64_t next = hi * 2;
        if (next > node)
            next = (next + node - 1) / node * node;
        hi = next < FF_PLAN_GPUS_MAX ? next : FF_PLAN_GPUS_MAX;
    }
    for (;;) {
        int64_t unit = hi > node ? node : 1;
        if (hi - lo <= unit)
            break;
        int64_t mid = (lo + (hi - lo) / 2) / unit * unit;
        if (mid <= lo)
            mid = lo + unit;
        if (mid >= hi)
            break;
        struct searched t;
        if (in_time(m, d, p, pc, G, tokens, mid, &t))
            hi = mid;
        else
            lo = mid;
    }
    *gpus = hi;
    return in_time(m, d, p, pc, G, tokens, hi, r);
}

static int run(const struct ff_model *m, const struct ff_spec *d, const struct ff_plan *p_in,
               struct ff_estimate *e, char *err, size_t errlen)
{
    memset(e, 0, sizeof(*e));
    e->struct_size = sizeof(*e);
    int rc = ff_plan_check(m, p_in, err, errlen);
    if (rc != FF_OK)
        return rc;
    /* A host-shared device (CPU, iGPU) has no GPU driver context and no NCCL buffers: the
     * fixed overhead is FF_DEFAULT_HOST_OVERHEAD_BYTES unless --overhead-gib gives one. */
    struct ff_plan pl = *p_in;
    const struct ff_plan *p = &pl;
    e->host_shared = d->host_shared;
    if (d->host_shared && pl.overhead_bytes < 0.0)
        pl.overhead_bytes = FF_DEFAULT_HOST_OVERHEAD_BYTES;
    rc = ff_model_params(m, &e->params);
    if (rc != FF_OK)
        return ff_errf(err, errlen, rc, "%s: parameter count out of range", m->name);
    e->active_non_embedding = e->params.active > e->params.embedding
                                  ? e->params.active - e->params.embedding
                                  : e->params.active;

    e->compute_precision = ff_plan_compute_precision(p);
    e->kv_precision = ff_plan_kv_precision(p);
    e->rate_flops_per_s = ff_spec_rate_arith(d, e->compute_precision, &e->rate_precision);
    e->rate_measured = d->measured;
    ff_strlcpy(e->rate_test, d->rate_test[e->rate_precision], sizeof(e->rate_test));
    ff_strlcpy(e->bandwidth_test, d->bandwidth_test, sizeof(e->bandwidth_test));
    e->usable_lower_bound = d->mem_lower_bound;
    e->usable_driver_bytes = d->mem_driver_bytes;
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

    int64_t node = ff_comm_node_size(d, p);
    if (p->tp > node)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--tp %lld is more than the %lld GPUs of a %s node: tensor parallelism "
                       "stays within a node (--gpus-per-node sets the node size)",
                       (long long)p->tp, (long long)node, d->slug);
    struct ff_fit_ctx c = {m, &e->params, ff_usable_bytes(d), node};
    e->usable_bytes = c.usable;
    e->bandwidth_bytes_per_s = d->bandwidth_bytes_per_s;
    e->bw_fraction =
        p->bw_fraction > 0.0 ? p->bw_fraction : (d->measured ? 1.0 : FF_DEFAULT_BW_FRACTION);

    /* The global batch (training): given, the default rule, or micro-batch x accum x dp. */
    bool defaulted = false;
    int64_t G = ff_plan_global_batch(m, p, &e->params, &defaulted);
    /* Defaults: Chinchilla-optimal 20 tokens per parameter (Hoffmann et al. 2022) for
     * pre-training; 1e8 tokens (e.g. 50k samples of 2k tokens) for fine-tuning. */
    e->tokens = p->task == FF_TASK_SERVE   ? 0.0
                : p->tokens > 0.0          ? p->tokens
                : p->task == FF_TASK_TRAIN ? 20.0 * (double)e->params.total
                                           : 1e8;
    bool search = p->task != FF_TASK_SERVE && (p->auto_layout || p->search != 0);

    /* Layout: as given, the plan search on the given GPUs, or the fewest GPUs that fit (tp,
     * pp grown from the plan's; in-flight micro-batches as the global batch will have them),
     * searched at that count; with a deadline the fewest that finish in time. */
    struct ff_plan pm = *p;
    if (G > 0)
        pm.accum = G;
    e->min_gpus = ff_layout_min_gpus(&c, &pm, &e->min_tp, &e->min_pp, &e->min_dp);
    struct ff_plan q = *p;
    struct searched sr;
    e->deadline_seconds = p->task == FF_TASK_SERVE ? 0.0 : p->deadline_seconds;
    if (p->gpus > 0 && search) {
        if (search_at(m, d, p, &e->params, G, e->tokens, p->gpus, &sr)) {
            take_search(&sr, &q, e);
            e->layout_chosen = true;
        } else {
            q.tp = q.pp = 1;
        }
        e->dp = p->gpus / (q.tp * q.pp * q.cp);
    } else if (p->gpus > 0 && p->auto_layout) {
        struct serve_ctx sc = {m, d, &e->params, e->bw_fraction,
                               p->mfu > 0.0 ? p->mfu : ff_default_serve_mfu(d)};
        int64_t tp = 1, pp = 1;
        if (ff_layout_for_gpus(&c, p, layout_rate, &sc, &tp, &pp)) {
            q.tp = tp;
            q.pp = pp;
            e->layout_chosen = true;
        }
        e->dp = p->gpus / (q.tp * q.pp * q.cp);
    } else if (p->gpus > 0) {
        e->dp = p->gpus / (p->tp * p->pp * p->cp);
    } else {
        e->gpus_chosen = true;
        e->dp = 1;
        int64_t at = 0;
        if (e->deadline_seconds > 0.0) {
            e->deadline_met =
                deadline_gpus(m, d, p, &e->params, G, e->tokens, e->min_gpus, node, &sr, &at);
            if (sr.n > 0) {
                take_search(&sr, &q, e);
                e->dp = at / (q.tp * q.pp * q.cp);
            }
        } else if (search && e->min_gpus > 0 &&
                   search_at(m, d, p, &e->params, G, e->tokens, e->min_gpus, &sr)) {
            take_search(&sr, &q, e);
            e->dp = e->min_gpus / (q.tp * q.pp * q.cp);
        }
        if (!e->searched && e->min_gpus > 0) {
            q.tp = e->min_tp;
            q.pp = e->min_pp;
            e->dp = e->min_dp;
        }
    }
    /* A layout not searched takes the accumulation reaching the global batch. */
    if (!e->searched && G > 0) {
        int64_t per_rank = (G + e->dp - 1) / e->dp;
        q.accum = (per_rank + q.batch - 1) / q.batch;
    }
    e->global_batch_defaulted = defaulted && G > 0;
    e->zero = q.zero;
    e->recompute = q.recompute;
    e->recompute_every = q.recompute_every;
    e->batch = q.batch;
    e->accum = q.accum;
    e->ep = q.ep;
    e->tp = q.tp;
    e->pp = q.pp;
    e->cp = q.cp;
    e->gpus = q.tp * q.pp * q.cp * e->dp;
    q.gpus = e->gpus;
    int64_t mp = q.tp * q.pp;
    e->fits = ff_layout_fits(&c, &q, q.tp, q.pp, e->dp, q.batch, &e->mem);
    e->margin_bytes = e->usable_bytes - e->mem.total;
    e->margin_fraction = e->usable_bytes > 0.0 ? e->margin_bytes / e->usable_bytes : 0.0;
    e->tight = e->fits && e->margin_fraction < FF_TIGHT_FRACTION;
    e->fit_unknown = !e->fits && d->mem_lower_bound && d->mem_driver_bytes >= e->mem.total;
    /* Copies of a host-shared device are not a cluster one plan can pool (no GPU links, one
     * host's RAM): such a plan is hypothetical. */
    e->hypothetical = d->host_shared && (e->gpus > 1 || (e->gpus_chosen && e->min_gpus > 1));
    e->context_tokens = m->rough ? 0 : ff_model_context(m);
    int64_t want_ctx = p->task == FF_TASK_SERVE ? p->prompt + p->generate : ff_plan_seq(m, p);
    e->context_exceeded = e->context_tokens > 0 && want_ctx > e->context_tokens;
    e->max_batch = ff_layout_max_batch(&c, &q, q.tp, q.pp, e->dp);
    e->price_per_hour = p->price_per_hour > 0.0 ? p->price_per_hour : d->price_per_hour;

    if (p->task != FF_TASK_SERVE) {
        struct ff_flops f;
        if ((rc = ff_est_flops(m, &q, e->tokens, &f)) != FF_OK)
            return ff_errf(err, errlen, rc, "FLOP count failed");
        e->flops_6nd = f.six_nd;
        e->flops_model = f.model;
        e->flops_hardware = f.hardware;
        double n = (double)e->gpus;
        /* The step, communication included (comm.c); the run is steps x step time unless a
         * rate is given (--achieved-tflops, --mfu: end-to-end figures that already hold the
         * communication; the breakdown is then shown as modelled). */
        struct ff_step_extra x;
        rc = ff_comm_step_x(m, d, &q, &e->params, e->dp, &e->step, &x);
        if (rc != FF_OK)
            return ff_errf(err, errlen, rc, "step model failed");
        e->compute_efficiency = e->step.compute_efficiency;
        e->moe_gemm_efficiency = x.moe_gemm_efficiency;
        e->moe_tokens_per_expert = x.moe_tokens_per_expert;
        e->moe_imbalance = x.moe_imbalance;
        e->moe_a2a_hidden_fraction = x.moe_a2a_hidden_fraction;
        e->tp_hidden_fraction = x.tp_hidden_fraction;
        e->cp_comm_seconds = x.cp_comm_seconds;
        e->cp_comm_total_seconds = x.cp_comm_total_seconds;
        e->cp_comm_bytes = x.cp_comm_bytes;
        double seq = (double)ff_plan_seq(m, &q);
        e->step.steps = e->step.sequences > 0.0 ? e->tokens / (e->step.sequences * seq) : 0.0;
        e->global_batch = (int64_t)e->step.sequences;
        e->global_batch_tokens = e->step.sequences * seq;
        if (p->achieved_flops_per_s > 0.0) {
            e->seconds = f.hardware / (n * p->achieved_flops_per_s);
            e->mfu = f.model / (e->seconds * n * e->rate_flops_per_s);
        } else if (p->mfu > 0.0) {
            e->mfu = p->mfu;
            e->seconds = f.model / (n * e->rate_flops_per_s * e->mfu);
        } else {
            e->mfu_default = p->compute_efficiency <= 0.0;
            e->step.modelled = true;
            e->seconds = e->step.steps * e->step.seconds;
            e->mfu = e->seconds > 0.0 ? f.model / (e->seconds * n * e->rate_flops_per_s) : 0.0;
        }
        e->hfu = e->mfu * f.hardware / f.model;
        e->gpu_hours = e->seconds * n / 3600.0;
        e->cost_usd = e->price_per_hour > 0.0 ? e->gpu_hours * e->price_per_hour : -1.0;
    } else {
        e->mfu_default = p->mfu <= 0.0;
        e->mfu = p->mfu > 0.0 ? p->mfu : ff_default_serve_mfu(d);
        e->compute_efficiency = e->mfu;
        ff_serve_weight_factors(d, q.precision, &e->weight_bw_fraction, &e->weight_compute_fraction,
                                &e->weight_stream_measured);
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
        /* At the asked concurrency (serve_batch users): one user's decode rate, and the
         * price of a million output tokens on one replica's GPUs at that throughput; the
         * memory-limited maximum is its own line. */
        e->user_tokens_per_second = at.step_s > 0.0 ? 1.0 / at.step_s : 0.0;
        e->cost_per_million_tokens = -1.0;
        e->max_cost_per_million_tokens = -1.0;
        if (e->price_per_hour > 0.0 && at.tokens_per_s > 0.0)
            e->cost_per_million_tokens =
                e->price_per_hour * (double)mp / 3600.0 / at.tokens_per_s * 1e6;
        if (e->max_sequences > 0) {
            struct ff_serve_point best;
            ff_serve_at(m, d, &q, &e->params, e->mfu, e->bw_fraction, e->max_sequences, &best);
            e->max_tokens_per_second = best.tokens_per_s;
            if (e->price_per_hour > 0.0)
                e->max_cost_per_million_tokens =
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
        ff_est_suggestions(e, &c, &q);
    return FF_OK;
}

int ff_est_run(const struct ff_model *m, const struct ff_spec *d, const struct ff_plan *p,
               struct ff_estimate *e, char *err, size_t errlen)
{
    if (!m || !d || !p || !e)
        return ff_errf(err, errlen, FF_ERR_INVALID, "missing argument");
    int rc = ff_abi_size("ff_estimate", "ff_estimate_init", e->struct_size, FF_ESTIMATE_SIZE_MIN,
                         sizeof(*e), err, errlen);
    if (rc != FF_OK)
        return rc;
    struct ff_plan pv;
    struct ff_model mv;
    struct ff_spec dv;
    if ((rc = ff_plan_view(&p, &pv, err, errlen)) != FF_OK ||
        (rc = ff_model_view(&m, &mv, err, errlen)) != FF_OK ||
        (rc = ff_spec_view(&d, &dv, err, errlen)) != FF_OK)
        return rc;
    if (e->struct_size == sizeof(*e))
        return run(m, d, p, e, err, errlen);
    struct ff_estimate full;
    rc = run(m, d, p, &full, err, errlen);
    ff_abi_copy_out(e, &full, sizeof(full));
    return rc;
}
