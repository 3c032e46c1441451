/*
 * estimate/src/layout.c — the layout search: does a (tp, pp, dp, micro-batch) point fit in a
 * GPU's memory, the largest micro-batch that fits, and the fewest GPUs that fit (tp grown in
 * powers of two up to a node, pp up to the layers, dp only where ZeRO shards with it);
 * --plan best also searches ZeRO, recomputation, micro-batch and, for MoE, expert
 * parallelism.
 */
#include <math.h>
#include <string.h>

#include "flopfit/estimate.h"
#include "flopfit/status.h"
#include "internal.h"

#define DP_MAX ((int64_t)1 << 20)
#define PP_MAX 256

/* Tensor parallelism stays inside one node (8 GPUs unless the plan or device says). */
static int64_t tp_max(const struct ff_fit_ctx *c)
{
    return c->node > 0 ? c->node : 8;
}

bool ff_layout_fits(const struct ff_fit_ctx *c, const struct ff_plan *p, int64_t tp, int64_t pp,
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

/* Largest b in [1, FF_PLAN_BATCH_MAX] that fits (memory grows with b); 0 when none. */
int64_t ff_layout_max_batch(const struct ff_fit_ctx *c, const struct ff_plan *p, int64_t tp,
                            int64_t pp, int64_t dp)
{
    if (!ff_layout_fits(c, p, tp, pp, dp, 1, NULL))
        return 0;
    int64_t lo = 1, hi = 2;
    while (hi < FF_PLAN_BATCH_MAX && ff_layout_fits(c, p, tp, pp, dp, hi, NULL)) {
        lo = hi;
        hi *= 2;
    }
    if (hi >= FF_PLAN_BATCH_MAX && ff_layout_fits(c, p, tp, pp, dp, FF_PLAN_BATCH_MAX, NULL))
        return FF_PLAN_BATCH_MAX;
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (ff_layout_fits(c, p, tp, pp, dp, mid, NULL))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Fewest data-parallel ranks that fit for a layout (ZeRO shards with dp); 0 when none. */
static int64_t min_dp(const struct ff_fit_ctx *c, const struct ff_plan *p, int64_t tp, int64_t pp)
{
    if (ff_layout_fits(c, p, tp, pp, 1, p->batch, NULL))
        return 1;
    if (p->task == FF_TASK_SERVE || p->zero == 0 ||
        !ff_layout_fits(c, p, tp, pp, DP_MAX, p->batch, NULL))
        return 0;
    int64_t lo = 1, hi = DP_MAX; /* lo does not fit, hi fits */
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (ff_layout_fits(c, p, tp, pp, mid, p->batch, NULL))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* The fewest GPUs keeping the plan's options; tp grows in powers of two up to a node. */
int64_t ff_layout_min_gpus(const struct ff_fit_ctx *c, const struct ff_plan *p, int64_t *btp,
                           int64_t *bpp, int64_t *bdp)
{
    int64_t best = 0;
    int64_t pp_max = c->m->layers < PP_MAX ? c->m->layers : PP_MAX;
    for (int64_t pp = p->pp; pp <= pp_max; pp++) {
        if (best && p->tp * pp >= best)
            break;
        for (int64_t tp = p->tp; tp <= (p->tp > tp_max(c) ? p->tp : tp_max(c)); tp *= 2) {
            if (best && tp * pp >= best)
                break;
            if (!ff_plan_tp_valid(c->m, tp))
                continue;
            int64_t dp = min_dp(c, p, tp, pp);
            if (dp == 0)
                continue;
            int64_t n = tp * pp * dp * p->cp; /* cp: the plan's context-parallel ranks */
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

/*
 * The fastest layout of exactly p->gpus GPUs that fits: tp in powers of two up to a node,
 * then pp, each dividing the GPUs; rate() gives a layout's speed (training: 1 / step time
 * with communication, serving: output tokens/s over its dp replicas, with no more replicas
 * than sequences). Ties keep the first in that order: the least model parallelism, TP
 * before PP. Returns false when none fits.
 */
bool ff_layout_for_gpus(const struct ff_fit_ctx *c, const struct ff_plan *p,
                        double (*rate)(const struct ff_plan *q, int64_t dp, void *ctx), void *ctx,
                        int64_t *btp, int64_t *bpp)
{
    bool found = false;
    double best = 0.0;
    int64_t n = p->gpus;
    int64_t pp_max = c->m->layers < PP_MAX ? c->m->layers : PP_MAX;
    for (int64_t pp = 1; pp <= pp_max && pp <= n; pp++) {
        for (int64_t tp = 1; tp <= tp_max(c) && tp * pp <= n; tp *= 2) {
            /* cp: the plan's context-parallel ranks, fixed (not searched here) */
            if (n % (tp * pp * p->cp) != 0 || !ff_plan_tp_valid(c->m, tp))
                continue;
            int64_t dp = n / (tp * pp * p->cp);
            if (p->task == FF_TASK_SERVE && dp > p->batch)
                continue; /* a replica with no sequence to serve */
            if (p->ep > 1 && (p->ep_fold ? tp * p->cp * dp : dp) % p->ep != 0)
                continue;
            if (!ff_layout_fits(c, p, tp, pp, dp, p->batch, NULL))
                continue;
            struct ff_plan q = *p;
            q.tp = tp;
            q.pp = pp;
            double r = rate(&q, dp, ctx);
            if (!found || r > best * (1.0 + 1e-9)) {
                found = true;
                best = r;
                *btp = tp;
                *bpp = pp;
            }
        }
    }
    return found;
}

/* ---- --plan best: the fastest plans on exactly p->gpus GPUs ---- */

/* A step with a term of unknown time (no link rate) is a lower bound: it ranks after every
 * fully known one. */
static bool all_known(const struct ff_step *st)
{
    for (int i = 0; i < FF_STEP_TERMS; i++)
        if (st->term[i].applies && !st->term[i].known)
            return false;
    return true;
}

static bool better(const struct ff_plan_choice *a, const struct ff_plan_choice *b)
{
    bool ka = all_known(&a->step), kb = all_known(&b->step);
    if (ka != kb)
        return ka;
    return a->seconds < b->seconds * (1.0 - 1e-12);
}

/* Keep the `max` fastest candidates in out[0..*n), best first. A candidate that ties an
 * earlier one of the same layout and micro-batch differs only by more sharding or more
 * recomputation that costs nothing here (selective with flash attention): skip it. */
static void keep_best(struct ff_plan_choice *out, size_t max, size_t *n,
                      const struct ff_plan_choice *c)
{
    for (size_t i = 0; i < *n; i++) {
        const struct ff_plan *q = &out[i].plan;
        if (fabs(out[i].seconds - c->seconds) <= 1e-9 * c->seconds && q->tp == c->plan.tp &&
            q->pp == c->plan.pp && q->batch == c->plan.batch && q->ep == c->plan.ep)
            return;
    }
    size_t at = *n;
    while (at > 0 && better(c, &out[at - 1]))
        at--;
    if (at >= max)
        return;
    size_t last = *n < max ? *n : max - 1;
    for (size_t i = last; i > at; i--)
        out[i] = out[i - 1];
    out[at] = *c;
    if (*n < max)
        (*n)++;
}

static int best_plans(const struct ff_model *m, const struct ff_spec *d, const struct ff_plan *p,
                      struct ff_plan_choice *out, size_t max, size_t *n, char *err, size_t errlen)
{
    if (p->task == FF_TASK_SERVE)
        return ff_errf(err, errlen, FF_ERR_INVALID, "--plan best plans training, not --serve");
    if (p->gpus <= 0)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--plan best needs the GPUs to plan on: --gpus N or --nodes N");
    struct ff_plan base = *p;
    base.tp = base.pp = 1;
    base.auto_layout = false;
    int rc = ff_plan_check(m, &base, err, errlen);
    if (rc != FF_OK)
        return rc;
    struct ff_param_count pc;
    if ((rc = ff_model_params(m, &pc)) != FF_OK)
        return ff_errf(err, errlen, rc, "%s: parameter count out of range", m->name);
    if (!(ff_spec_rate(d, ff_plan_compute_precision(p)) > 0.0) || !(d->mem_bytes > 0.0))
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "%s (%s) has no %s matrix rate or no memory "
                       "figure",
                       d->slug, d->name, ff_precision_name(ff_plan_compute_precision(p)));
    int64_t node = ff_comm_node_size(d, p);
    struct ff_fit_ctx c = {m, &pc, ff_usable_bytes(d), node};
    double seq = (double)ff_plan_seq(m, p);
    int64_t G = p->global_batch > 0
                    ? p->global_batch
                    : (int64_t)fmax(1.0, floor(FF_DEFAULT_GLOBAL_BATCH_TOKENS / seq));
    double tokens = p->tokens > 0.0            ? p->tokens
                    : p->task == FF_TASK_TRAIN ? 20.0 * (double)pc.total
                                               : 1e8;
    int64_t gpus = p->gpus;
    int64_t pp_max = m->layers < PP_MAX ? m->layers : PP_MAX;
    static const enum ff_recompute rcs[] = {FF_RECOMPUTE_NONE, FF_RECOMPUTE_SELECTIVE,
                                            FF_RECOMPUTE_FULL};
    for (int64_t tp = 1; tp <= node && tp <= gpus; tp *= 2) {
        if (gpus % tp != 0 || !ff_plan_tp_valid(m, tp))
            continue;
        for (int64_t pp = 1; pp <= pp_max && tp * pp <= gpus; pp++) {
            /* cp: the plan's context-parallel ranks, fixed (not searched here) */
            if (gpus % (tp * pp * p->cp) != 0)
                continue;
            int64_t dp = gpus / (tp * pp * p->cp);
            if (dp > G || (p->ep > 1 && (p->ep_fold ? tp * p->cp * dp : dp) % p->ep != 0))
                continue; /* more replicas than sequences per step */
            /* Expert parallelism: --ep N fixes it; otherwise an MoE model tries every power
             * of two dividing both dp and the expert count (the groups are carved out of
             * the dp ranks, each holding experts / ep of every MoE layer). */
            int64_t ep_lo = p->ep > 1 ? p->ep : 1, ep_hi = ep_lo;
            if (p->ep <= 1 && m->experts > 1)
                while (ep_hi * 2 <= dp && dp % (ep_hi * 2) == 0 && m->experts % (ep_hi * 2) == 0)
                    ep_hi *= 2;
            for (int64_t ep = ep_lo; ep <= ep_hi; ep *= 2)
                for (int zero = 0; zero <= 3; zero++) {
                    if (dp == 1 && zero > 0)
                        break;
                    for (size_t r = 0; r < sizeof(rcs) / sizeof(rcs[0]); r++) {
                        struct ff_plan q = *p;
                        q.tp = tp;
                        q.pp = pp;
                        q.ep = ep;
                        q.zero = zero;
                        q.recompute = rcs[r];
                        q.auto_layout = false;
                        int64_t per_rank = (G + dp - 1) / dp;
                        for (int64_t b = 1; b <= per_rank; b *= 2) {
                            q.batch = b;
                            q.accum = (per_rank + b - 1) / b; /* pipeline stages hold in-flight
                                                             micro-batches: before the fit */
                            q.gpus = gpus;
                            struct ff_plan_choice ch;
                            memset(&ch, 0, sizeof(ch));
                            if (!ff_layout_fits(&c, &q, tp, pp, dp, b, &ch.mem))
                                break; /* memory grows with b */
                            if (ff_comm_step(m, d, &q, &pc, dp, &ch.step) != FF_OK)
                                continue;
                            ch.plan = q;
                            ch.dp = dp;
                            ch.step.steps = tokens / (ch.step.sequences * seq);
                            ch.seconds = ch.step.steps * ch.step.seconds;
                            keep_best(out, max, n, &ch);
                        }
                    }
                }
        }
    }
    return FF_OK;
}

int ff_est_best_plans(const struct ff_model *m, const struct ff_spec *d, const struct ff_plan *p,
                      struct ff_plan_choice *out, size_t max, size_t *n, char *err, size_t errlen)
{
    if (!m || !d || !p || !out || !n)
        return ff_errf(err, errlen, FF_ERR_INVALID, "missing argument");
    *n = 0;
    if (max > FF_MAX_PLAN_CHOICES)
        max = FF_MAX_PLAN_CHOICES;
    if (max == 0)
        return FF_OK;
    size_t size = out[0].struct_size;
    int rc = ff_abi_size("ff_plan_choice", "ff_plan_choice_init", size, FF_PLAN_CHOICE_SIZE_MIN,
                         sizeof(*out), err, errlen);
    struct ff_plan pv;
    struct ff_model mv;
    struct ff_spec dv;
    if (rc != FF_OK || (rc = ff_plan_view(&p, &pv, err, errlen)) != FF_OK ||
        (rc = ff_model_view(&m, &mv, err, errlen)) != FF_OK ||
        (rc = ff_spec_view(&d, &dv, err, errlen)) != FF_OK)
        return rc;
    struct ff_plan_choice best[FF_MAX_PLAN_CHOICES];
    rc = best_plans(m, d, p, best, max, n, err, errlen);
    /* The caller's elements are its own struct_size apart; each keeps that size, and its
     * plan the size of the caller's ff_plan. */
    unsigned char *at = (unsigned char *)out;
    const size_t plan_at = offsetof(struct ff_plan_choice, plan);
    for (size_t i = 0; i < *n; i++, at += size) {
        struct ff_plan_choice *dst = (struct ff_plan_choice *)(void *)at;
        dst->struct_size = size;
        best[i].plan.struct_size = size - plan_at;
        ff_abi_copy_out(dst, &best[i], sizeof(best[i]));
    }
    return rc;
}
