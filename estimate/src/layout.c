/*
 * estimate/src/layout.c — the layout search: does a (tp, pp, dp, micro-batch) point fit in a
 * GPU's memory, the largest micro-batch that fits, and the fewest GPUs that fit (tp grown in
 * powers of two up to a node, pp up to the layers, dp only where ZeRO shards with it).
 */
#include "flopfit/estimate.h"
#include "internal.h"

#define DP_MAX ((int64_t)1 << 20)
#define TP_MAX 8 /* tensor parallelism stays inside one 8-GPU node */
#define PP_MAX 256

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
        for (int64_t tp = p->tp; tp <= (p->tp > TP_MAX ? p->tp : TP_MAX); tp *= 2) {
            if (best && tp * pp >= best)
                break;
            if (!ff_plan_tp_valid(c->m, tp))
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

/*
 * The fastest layout of exactly p->gpus GPUs that fits: tp in powers of two up to a node
 * (TP_MAX), then pp, each dividing the GPUs; training runs at the same rate on every layout
 * that fits (no layout term in the training time), so the first in that order wins: the
 * least model parallelism, TP before PP. Serving keeps the layout with the largest
 * throughput over all replicas (serve_rate), with no more replicas than sequences.
 * Returns false when none fits.
 */
bool ff_layout_for_gpus(const struct ff_fit_ctx *c, const struct ff_plan *p,
                        double (*serve_rate)(const struct ff_plan *q, int64_t dp, void *ctx),
                        void *ctx, int64_t *btp, int64_t *bpp)
{
    bool found = false;
    double best = 0.0;
    int64_t n = p->gpus;
    int64_t pp_max = c->m->layers < PP_MAX ? c->m->layers : PP_MAX;
    for (int64_t pp = 1; pp <= pp_max && pp <= n; pp++) {
        for (int64_t tp = 1; tp <= TP_MAX && tp * pp <= n; tp *= 2) {
            if (n % (tp * pp) != 0 || !ff_plan_tp_valid(c->m, tp))
                continue;
            int64_t dp = n / (tp * pp);
            if (p->task == FF_TASK_SERVE && dp > p->batch)
                continue; /* a replica with no sequence to serve */
            if (!ff_layout_fits(c, p, tp, pp, dp, p->batch, NULL))
                continue;
            if (p->task != FF_TASK_SERVE) {
                *btp = tp;
                *bpp = pp;
                return true;
            }
            struct ff_plan q = *p;
            q.tp = tp;
            q.pp = pp;
            double r = serve_rate(&q, dp, ctx);
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
