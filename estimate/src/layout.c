/*
 * estimate/src/layout.c — the layout search: does a (tp, pp, dp, micro-batch) point fit in a
 * GPU's memory, the largest micro-batch that fits, and the fewest GPUs that fit (tp grown in
 * powers of two up to a node, pp up to the layers, dp only where ZeRO shards with it), and
 * the plan search (a table of dimensions: tp, pp, ep, ZeRO, recomputation, micro-batch)
 * ranked by the time to process the run's tokens at a fixed global batch.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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
 * The fastest serving layout of exactly p->gpus GPUs that fits: tp in powers of two up to a
 * node, then pp, each dividing the GPUs; rate() gives a layout's output tokens/s over its dp
 * replicas (no more replicas than sequences). Ties keep the first in that order: the least
 * model parallelism, TP before PP. Returns false when none fits. Training layouts come from
 * the plan search below, which ranks by the run's time.
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

/* ---- the plan search: the fastest plans on exactly p->gpus GPUs ---- */

int64_t ff_default_global_batch(double params, int64_t seq)
{
    if (!(params > 0.0) || seq <= 0)
        return 0;
    /* FF_DEFAULT_GLOBAL_BATCH_* (estimate.h; doc/estimator.md "Default global batch"):
     * 2^21 tokens at 7e9 parameters, growing as the 1/4 power, to the nearest power of two of
     * sequences. */
    double tokens =
        FF_DEFAULT_GLOBAL_BATCH_TOKENS_7B * pow(params / 7e9, FF_DEFAULT_GLOBAL_BATCH_EXPONENT);
    double e = round(log2(tokens / (double)seq));
    if (e <= 0.0)
        return 1;
    if (e > 40.0)
        e = 40.0;
    return (int64_t)1 << (int)e;
}

const char *ff_default_global_batch_sources(void)
{
    return "2^21 tokens x (params/7e9)^(1/4), nearest power of two of sequences: fit to GPT-3 "
           "(Brown et al. 2020, Table 2.1), LLaMA/Llama 2 4M, Llama 3 405B 4M->16M (Dubey et al. "
           "2024), Chinchilla 1.5M->3M (Hoffmann et al. 2022), Pythia 2M, OLMo 4M, BLOOM 2048 x "
           "2048, DeepSeek-V3; critical batch ~ N^0.36 (Kaplan et al. 2020; McCandlish et al. "
           "2018)";
}

int64_t ff_plan_global_batch(const struct ff_model *m, const struct ff_plan *p,
                             const struct ff_param_count *pc, bool *defaulted)
{
    *defaulted = false;
    if (p->task == FF_TASK_SERVE)
        return 0;
    double seq = (double)ff_plan_seq(m, p);
    if (p->global_batch_tokens > 0.0)
        return (int64_t)fmax(1.0, round(p->global_batch_tokens / seq));
    if (p->global_batch > 0)
        return p->global_batch;
    if (!p->global_batch_default)
        return 0;
    *defaulted = true;
    return ff_default_global_batch((double)pc->total, (int64_t)seq);
}

/* A step with a term of unknown time (no link rate) is a lower bound: it ranks after every
 * fully known one. */
static bool all_known(const struct ff_step *st)
{
    for (int i = 0; i < FF_STEP_TERMS; i++)
        if (st->term[i].applies && !st->term[i].known)
            return false;
    return true;
}

/* The objective: the time to process the run's tokens (steps x step time, the steps set by
 * the sequences each step processes), never the step time alone. */
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
            q->pp == c->plan.pp && q->batch == c->plan.batch && q->ep == c->plan.ep &&
            q->cp == c->plan.cp)
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

struct search {
    const struct ff_model *m;
    const struct ff_spec *d;
    const struct ff_param_count *pc;
    struct ff_fit_ctx fit;
    const struct ff_plan *given;
    unsigned free;   /* FF_SEARCH_* bits */
    int64_t G;       /* global batch, sequences; 0: micro-batch x accum x dp as given */
    double tokens;   /* of the run */
    double seq;      /* tokens per sequence */
    int64_t pp_max;  /* pipeline stages at most */
    bool last_unfit; /* the last leaf did not fit in memory */
    struct ff_plan_choice *out;
    size_t max, *n;
    int64_t candidates;
    /* The best plan of each of the two best layouts (tp, pp, ep): the runner-up is the
     * second, a different layout, not the winner with another ZeRO stage. */
    struct ff_plan_choice lay[2];
    size_t n_lay;
};

static bool same_layout(const struct ff_plan_choice *a, const struct ff_plan_choice *b)
{
    return a->plan.tp == b->plan.tp && a->plan.pp == b->plan.pp && a->plan.ep == b->plan.ep &&
           a->plan.cp == b->plan.cp;
}

/* A layout's entry only improves, and one dropped was worse than both kept: two suffice. */
static void keep_layout(struct search *s, const struct ff_plan_choice *c)
{
    size_t i = 0;
    while (i < s->n_lay && !same_layout(&s->lay[i], c))
        i++;
    if (i < s->n_lay) {
        if (!better(c, &s->lay[i]))
            return;
        s->lay[i] = *c;
    } else if (s->n_lay < 2) {
        s->lay[s->n_lay++] = *c;
        i = s->n_lay - 1;
    } else if (better(c, &s->lay[1])) {
        s->lay[1] = *c;
        i = 1;
    } else {
        return;
    }
    if (i == 1 && better(&s->lay[1], &s->lay[0])) {
        struct ff_plan_choice t = s->lay[0];
        s->lay[0] = s->lay[1];
        s->lay[1] = t;
    }
}

/* Data-parallel ranks: the GPUs over tp x pp x cp (cp is the plan's, never searched). */
static int64_t dp_of(const struct ff_plan *q)
{
    return q->gpus / (q->tp * q->pp * q->cp);
}

/*
 * The dimensions of the search, in the order they nest, each one a function writing its
 * candidate values for the plan built so far (the outer dimensions set) and a setter. A
 * dimension whose FF_SEARCH_* bit is clear offers the given plan's value alone. A new
 * dimension is one entry here; `stop_unfit` marks one along which memory only grows (the
 * rest of its values are skipped at the first that does not fit).
 */
#define VALUES_MAX 64
struct search_dim {
    const char *name;
    unsigned bit;
    size_t (*values)(const struct search *s, const struct ff_plan *q, int64_t *v);
    void (*set)(struct ff_plan *q, int64_t v);
    bool stop_unfit;
};

/* tp: powers of two within a node, dividing the GPUs and splitting the heads. */
static size_t tp_values(const struct search *s, const struct ff_plan *q, int64_t *v)
{
    size_t n = 0;
    if (!(s->free & FF_SEARCH_TP)) {
        if (q->gpus % (s->given->tp * q->cp) == 0)
            v[n++] = s->given->tp;
        return n;
    }
    for (int64_t tp = 1; tp <= s->fit.node && tp <= q->gpus && n < VALUES_MAX; tp *= 2)
        if (q->gpus % (tp * q->cp) == 0 && ff_plan_tp_valid(s->m, tp))
            v[n++] = tp;
    return n;
}
static void set_tp(struct ff_plan *q, int64_t v)
{
    q->tp = v;
}

/*
 * cp (training at long sequences): powers of two from 1 while each rank keeps at least
 * FF_SEARCH_CP_MIN_TOKENS of every sequence, at most FF_SEARCH_CP_MAX, dividing the GPUs left
 * by tp, with the sequence a multiple of 2 x cp (ring attention's load-balanced chunks). Below
 * 16k tokens per sequence only cp 1 is tried: context parallelism is a long-context layout
 * (Megatron-Core's context-parallel guide recommends it past 8k tokens; Llama 3's 8k stage
 * ran without it and its 128k stage with cp 16, 8k tokens a rank: Dubey et al. 2024 Table 4;
 * Ring Attention, Liu et al. 2023).
 */
#define FF_SEARCH_CP_MIN_TOKENS 8192
#define FF_SEARCH_CP_MAX        16
static size_t cp_values(const struct search *s, const struct ff_plan *q, int64_t *v)
{
    size_t n = 0;
    if (!(s->free & FF_SEARCH_CP)) {
        v[n++] = s->given->cp;
        return n;
    }
    int64_t seq = (int64_t)s->seq;
    for (int64_t cp = 1; cp <= FF_SEARCH_CP_MAX && n < VALUES_MAX; cp *= 2) {
        if (cp > 1 && (seq / cp < FF_SEARCH_CP_MIN_TOKENS || seq % (2 * cp) != 0))
            break;
        if (q->gpus % (q->tp * cp) == 0)
            v[n++] = cp;
    }
    return n;
}
static void set_cp(struct ff_plan *q, int64_t v)
{
    q->cp = v;
}

/* pp: every count dividing the GPUs left by tp, at most the layers; no more data-parallel
 * replicas than sequences per step. */
static size_t pp_values(const struct search *s, const struct ff_plan *q, int64_t *v)
{
    size_t n = 0;
    int64_t lo = 1, hi = s->pp_max;
    if (!(s->free & FF_SEARCH_PP))
        lo = hi = s->given->pp;
    for (int64_t pp = lo; pp <= hi && q->tp * pp * q->cp <= q->gpus && n < 256; pp++) {
        if (q->gpus % (q->tp * pp * q->cp) != 0)
            continue;
        int64_t dp = q->gpus / (q->tp * pp * q->cp);
        if (s->G > 0 && dp > s->G)
            continue; /* more replicas than sequences per step */
        v[n++] = pp;
    }
    return n;
}
static void set_pp(struct ff_plan *q, int64_t v)
{
    q->pp = v;
}

/* ep (MoE): powers of two dividing both the ranks experts are spread over and the expert
 * count: the dp ranks, or with --ep-fold tp x cp x dp together (parallel folding). */
static size_t ep_values(const struct search *s, const struct ff_plan *q, int64_t *v)
{
    size_t n = 0;
    int64_t dp = q->ep_fold ? q->tp * q->cp * dp_of(q) : dp_of(q);
    if (!(s->free & FF_SEARCH_EP) || s->m->experts <= 1) {
        int64_t ep = s->given->ep > 0 ? s->given->ep : 1;
        if (dp % ep == 0)
            v[n++] = ep;
        return n;
    }
    for (int64_t ep = 1; ep <= dp && n < VALUES_MAX; ep *= 2) {
        if (dp % ep != 0 || s->m->experts % ep != 0)
            break;
        v[n++] = ep;
    }
    return n;
}
static void set_ep(struct ff_plan *q, int64_t v)
{
    q->ep = v;
}

/* ZeRO 0-3 (only 0 with one data-parallel rank: nothing to shard over). */
static size_t zero_values(const struct search *s, const struct ff_plan *q, int64_t *v)
{
    if (!(s->free & FF_SEARCH_ZERO)) {
        v[0] = s->given->zero;
        return 1;
    }
    size_t n = 0;
    for (int64_t z = 0; z <= (dp_of(q) > 1 ? 3 : 0); z++)
        v[n++] = z;
    return n;
}
static void set_zero(struct ff_plan *q, int64_t v)
{
    q->zero = (int)v;
}

/* Recompute policies, each value the policy with its K (layers:K) above 8 bits: none,
 * selective, op-level (keep the matmul outputs), every second layer, full. */
#define RECOMPUTE_VALUE(r, k) ((int64_t)(r) | ((int64_t)(k) << 8))
static size_t recompute_values(const struct search *s, const struct ff_plan *q, int64_t *v)
{
    (void)q;
    if (!(s->free & FF_SEARCH_RECOMPUTE)) {
        v[0] = RECOMPUTE_VALUE(s->given->recompute, s->given->recompute_every);
        return 1;
    }
    size_t n = 0;
    v[n++] = RECOMPUTE_VALUE(FF_RECOMPUTE_NONE, 0);
    v[n++] = RECOMPUTE_VALUE(FF_RECOMPUTE_SELECTIVE, 0);
    v[n++] = RECOMPUTE_VALUE(FF_RECOMPUTE_OPS, 0);
    if (s->m->layers >= 4)
        v[n++] = RECOMPUTE_VALUE(FF_RECOMPUTE_LAYERS, 2);
    v[n++] = RECOMPUTE_VALUE(FF_RECOMPUTE_FULL, 0);
    return n;
}
static void set_recompute(struct ff_plan *q, int64_t v)
{
    q->recompute = (enum ff_recompute)(v & 0xff);
    q->recompute_every = v >> 8;
}

/* Micro-batch: powers of two up to a data-parallel rank's share of the global batch. */
static size_t batch_values(const struct search *s, const struct ff_plan *q, int64_t *v)
{
    if (!(s->free & FF_SEARCH_BATCH)) {
        v[0] = s->given->batch;
        return 1;
    }
    int64_t hi = s->G > 0 ? (s->G + dp_of(q) - 1) / dp_of(q) : FF_PLAN_BATCH_MAX;
    size_t n = 0;
    for (int64_t b = 1; b <= hi && n < VALUES_MAX; b *= 2)
        v[n++] = b;
    return n;
}
static void set_batch(struct ff_plan *q, int64_t v)
{
    q->batch = v;
}

static const struct search_dim dims[] = {
    {"tp", FF_SEARCH_TP, tp_values, set_tp, false},
    {"cp", FF_SEARCH_CP, cp_values, set_cp, false},
    {"pp", FF_SEARCH_PP, pp_values, set_pp, false},
    {"ep", FF_SEARCH_EP, ep_values, set_ep, false},
    {"zero", FF_SEARCH_ZERO, zero_values, set_zero, false},
    {"recompute", FF_SEARCH_RECOMPUTE, recompute_values, set_recompute, false},
    {"micro-batch", FF_SEARCH_BATCH, batch_values, set_batch, true},
};
#define N_DIMS (sizeof(dims) / sizeof(dims[0]))

/* Accumulation reaching the global batch (before the fit: pipeline stages hold in-flight
 * micro-batches), then the fit, the step and the run. */
static void leaf(struct search *s, struct ff_plan *q)
{
    int64_t dp = dp_of(q);
    if (s->G > 0) {
        int64_t per_rank = (s->G + dp - 1) / dp;
        q->accum = (per_rank + q->batch - 1) / q->batch;
    }
    struct ff_plan_choice ch;
    memset(&ch, 0, sizeof(ch));
    s->last_unfit = !ff_layout_fits(&s->fit, q, q->tp, q->pp, dp, q->batch, &ch.mem);
    if (s->last_unfit)
        return;
    if (ff_comm_step(s->m, s->d, q, s->pc, dp, &ch.step) != FF_OK || !(ch.step.sequences > 0.0))
        return;
    ch.plan = *q;
    ch.dp = dp;
    ch.step.steps = s->tokens / (ch.step.sequences * s->seq);
    ch.seconds = ch.step.steps * ch.step.seconds;
    s->candidates++;
    keep_best(s->out, s->max, s->n, &ch);
    keep_layout(s, &ch);
}

static void walk(struct search *s, size_t level, struct ff_plan *q)
{
    if (level == N_DIMS) {
        leaf(s, q);
        return;
    }
    int64_t v[256];
    size_t n = dims[level].values(s, q, v);
    for (size_t i = 0; i < n; i++) {
        dims[level].set(q, v[i]);
        walk(s, level + 1, q);
        if (dims[level].stop_unfit && s->last_unfit)
            break;
    }
}

int ff_plan_search(const struct ff_model *m, const struct ff_spec *d, const struct ff_plan *p,
                   const struct ff_param_count *pc, int64_t G, double tokens,
                   struct ff_plan_choice *out, size_t max, size_t *n, int64_t *candidates,
                   struct ff_plan_choice *runner_up, bool *has_runner_up)
{
    *n = 0;
    /* On the heap: it holds two whole plan choices. */
    struct search *sp = malloc(sizeof(*sp));
    if (!sp)
        return FF_ERR_NO_MEMORY;
    *sp = (struct search){
        .m = m,
        .d = d,
        .pc = pc,
        .fit = {m, pc, ff_usable_bytes(d), ff_comm_node_size(d, p)},
        .given = p,
        .free = p->search | (p->auto_layout ? FF_SEARCH_TP | FF_SEARCH_PP : 0u),
        .G = G,
        .tokens = tokens,
        .seq = (double)ff_plan_seq(m, p),
        .pp_max = m->layers < PP_MAX ? m->layers : PP_MAX,
        .out = out,
        .max = max,
        .n = n,
    };
    struct ff_plan q = *p;
    q.auto_layout = false;
    q.search = 0;
    walk(sp, 0, &q);
    if (candidates)
        *candidates = sp->candidates;
    if (has_runner_up) {
        *has_runner_up = sp->n_lay > 1;
        if (sp->n_lay > 1)
            *runner_up = sp->lay[1];
    }
    free(sp);
    return FF_OK;
}

void ff_plan_runner_up_why(const struct ff_plan_choice *a, const struct ff_plan_choice *b,
                           char *buf, size_t len)
{
    static const char *const labels[FF_STEP_TERMS] = {
        "compute",         "tensor-parallel comm", "data-parallel grads", "ZeRO-3 gathers",
        "pipeline bubble", "MoE all-to-all",       "MoE imbalance"};
    double ratio = a->seconds > 0.0 ? b->seconds / a->seconds : 0.0;
    int k = ratio >= 1.1          ? snprintf(buf, len, "%.3gx slower", ratio)
            : ratio >= 1.0 + 1e-6 ? snprintf(buf, len, "%.2g%% slower", 100.0 * (ratio - 1.0))
                                  : snprintf(buf, len,
                                             "as fast (kept the first found: less "
                                             "model parallelism)");
    if (k < 0 || (size_t)k >= len || !(ratio >= 1.0 + 1e-6))
        return;
    /* The term that costs it most per sequence, scaled to its step. */
    double sa = a->step.sequences, sb = b->step.sequences;
    int worst = -1;
    double dmax = 0.0;
    for (int i = 0; i < FF_STEP_TERMS && sa > 0.0 && sb > 0.0; i++) {
        double ta =
            a->step.term[i].applies && a->step.term[i].known ? a->step.term[i].seconds : 0.0;
        double tb =
            b->step.term[i].applies && b->step.term[i].known ? b->step.term[i].seconds : 0.0;
        double dd = tb - ta * sb / sa;
        if (dd > dmax) {
            dmax = dd;
            worst = i;
        }
    }
    if (sa > 0.0 && fabs(sb / sa - 1.0) > 0.01)
        k += snprintf(buf + k, len - (size_t)k, ": %.3gx %s sequences per step",
                      sb > sa ? sb / sa : sa / sb, sb > sa ? "more" : "fewer");
    if (worst >= 0 && (size_t)k < len)
        snprintf(buf + k, len - (size_t)k, "%s %s %+.3g s per step (%.0f%% of its step)",
                 sa > 0.0 && fabs(sb / sa - 1.0) > 0.01 ? ";" : ":", labels[worst], dmax,
                 b->step.seconds > 0.0 ? 100.0 * dmax / b->step.seconds : 0.0);
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
    /* --plan best chooses the dimensions p->search frees, every one but an --ep given when
     * it frees none; with no global batch, the default rule. */
    base.search = p->search ? p->search : FF_SEARCH_ALL & ~(p->ep > 1 ? FF_SEARCH_EP : 0u);
    base.search |= FF_SEARCH_TP | FF_SEARCH_PP;
    bool defaulted;
    int64_t G = ff_plan_global_batch(m, p, &pc, &defaulted);
    if (G <= 0)
        G = ff_default_global_batch((double)pc.total, ff_plan_seq(m, p));
    double tokens = p->tokens > 0.0            ? p->tokens
                    : p->task == FF_TASK_TRAIN ? 20.0 * (double)pc.total
                                               : 1e8;
    return ff_plan_search(m, d, &base, &pc, G, tokens, out, max, n, NULL, NULL, NULL);
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
