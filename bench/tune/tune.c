/*
 * bench/tune/tune.c — the tuner's search (successive halving over growing sizes, within a budget)
 * and its evaluators: matmul through the kernel check (kcheck.h), the bandwidth kernels
 * through the bandwidth probe's verified runs (probe_bandwidth.c's tuning hook).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"
#include "check/kcheck.h"
#include "check/measure.h"
#include "families/probe_common.h"

void ff_tune_search_defaults(struct ff_tune_search_cfg *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->work_exponent = 3;
    cfg->keep = 0.25;
    cfg->min_keep = 2;
    cfg->budget_s = 300;
}

static uint64_t real_clock(void *ctx)
{
    (void)ctx;
    return ff_now_ns();
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
logf_(const struct ff_tune_search_cfg *cfg, enum ff_tune_log_level level, const char *fmt, ...)
{
    if (!cfg->log)
        return;
    char line[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    cfg->log(cfg->log_ctx, level, line);
}

static void point_text(const struct ff_tune_search_cfg *cfg, const struct ff_tune_point *p,
                       char *buf, size_t n)
{
    if (cfg->format) {
        cfg->format(cfg->format_ctx, p, buf, n);
        return;
    }
    size_t o = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < p->n && o < n; i++)
        o += (size_t)snprintf(buf + o, n - o, "%s%u", i ? "," : "", p->v[i]);
}

static bool same_point(const struct ff_tune_point *a, const struct ff_tune_point *b)
{
    return a->n == b->n && memcmp(a->v, b->v, a->n * sizeof(a->v[0])) == 0;
}

struct cand {
    struct ff_tune_point p;
    double rate[FF_TUNE_MAX_ROUNDS]; /* 0: not measured (or failed) in that round */
    bool alive;
};

static int by_rate_desc(const void *a, const void *b, int r)
{
    const struct cand *x = *(const struct cand *const *)a, *y = *(const struct cand *const *)b;
    return (x->rate[r] < y->rate[r]) - (x->rate[r] > y->rate[r]);
}

/*
 * Seconds the rounds after r take when m candidates of round r are measured: each keeps its
 * fraction (at least min_keep) plus the default, at fixed + scaled x (size ratio)^exponent.
 */
static double reserve_after(const struct ff_tune_search_cfg *cfg, size_t r, size_t m, double fixed,
                            double scaled)
{
    double total = 0;
    size_t k = m;
    for (size_t q = r + 1; q < cfg->n_sizes; q++) {
        size_t keep = (size_t)ceil((double)k * cfg->keep);
        if (keep < cfg->min_keep)
            keep = cfg->min_keep;
        if (keep > k)
            keep = k;
        k = keep;
        double ratio = (double)cfg->sizes[q] / cfg->sizes[r];
        total += (double)(k + 1) * (fixed + scaled * pow(ratio, cfg->work_exponent));
    }
    return total;
}

/* qsort has no context argument: the round being ranked. */
static _Thread_local int sort_round;
static int cmp_round(const void *a, const void *b)
{
    return by_rate_desc(a, b, sort_round);
}

int ff_tune_search(const struct ff_tune_search_cfg *cfg, const struct ff_tune_point *cands,
                   size_t n, const struct ff_tune_point *dflt, ff_tune_eval_fn eval, void *ctx,
                   struct ff_tune_outcome *out, char *err, size_t errlen)
{
    if (!cfg || !dflt || !eval || !out || (n && !cands))
        return ff_errf(err, errlen, FF_ERR_INVALID, "tune search: no config, default or eval");
    if (cfg->n_sizes == 0 || cfg->n_sizes > FF_TUNE_MAX_ROUNDS)
        return ff_errf(err, errlen, FF_ERR_INVALID, "tune search: %zu sizes (1..%d)", cfg->n_sizes,
                       FF_TUNE_MAX_ROUNDS);
    for (size_t r = 0; r < cfg->n_sizes; r++)
        if (cfg->sizes[r] == 0 || (r && cfg->sizes[r] < cfg->sizes[r - 1]))
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "tune search: sizes must be positive and ascending");
    if (!(cfg->keep > 0 && cfg->keep <= 1) || !(cfg->budget_s > 0))
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "tune search: keep %g (expected 0 < keep <= 1), budget %g s (> 0)",
                       cfg->keep, cfg->budget_s);
    memset(out, 0, sizeof(*out));
    ff_tune_clock_fn clock = cfg->clock ? cfg->clock : real_clock;
    void *cctx = cfg->clock ? cfg->clock_ctx : NULL;

    /* The default first, then every other candidate once. */
    struct cand *c = calloc(n + 1, sizeof(*c));
    struct cand **order = calloc(n + 1, sizeof(*order));
    if (!c || !order) {
        free(c);
        free(order);
        return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "tune search: out of memory");
    }
    size_t nc = 0;
    c[nc++] = (struct cand){.p = *dflt, .alive = true};
    for (size_t i = 0; i < n; i++) {
        bool dup = false;
        for (size_t j = 0; j < nc && !dup; j++)
            dup = same_point(&c[j].p, &cands[i]);
        if (!dup)
            c[nc++] = (struct cand){.p = cands[i], .alive = true};
    }

    const uint64_t t0 = clock(cctx);
    const double budget = cfg->budget_s;
    /* the previous round's candidates on average: fixed and size-dependent seconds */
    double prev_fixed = 0, prev_scaled = 0;
    uint32_t prev_size = 0;
    int cmp_round_ok = -1, any_round = -1; /* rounds with the default / anything measured */
    char last_err[512] = "no candidate was measured";
    bool stop = false;
    int ret = FF_OK;

    for (size_t r = 0; r < cfg->n_sizes && !stop; r++) {
        const uint32_t size = cfg->sizes[r];
        size_t na = 0;
        for (size_t i = 0; i < nc; i++)
            if (c[i].alive)
                order[na++] = &c[i];
        if (na == 0)
            break;
        if (r > 0) { /* the default stays first; the rest by the last round's rank */
            sort_round = (int)r - 1;
            qsort(order + (order[0] == &c[0]), na - (order[0] == &c[0]), sizeof(*order), cmp_round);
        }
        if (cfg->prepare) {
            char perr[512] = "";
            int pr = cfg->prepare(ctx, size, perr, sizeof(perr));
            if (pr < 0) {
                ff_msgf(last_err, sizeof(last_err), "size %u: %s", size, perr);
                logf_(cfg, FF_TUNE_LOG_INFO, "%s: size %u: cannot prepare: %s",
                      cfg->label ? cfg->label : "", size, perr);
                ret = pr;
                break;
            }
        }
        logf_(cfg, FF_TUNE_LOG_INFO, "%s: round %zu of %zu, size %u, %zu candidate%s",
              cfg->label ? cfg->label : "", r + 1, cfg->n_sizes, size, na, na == 1 ? "" : "s");
        double sum_dt = 0, sum_fixed = 0;
        /* size-dependent seconds of the fastest candidate so far: the survivors are the fast
         * ones, so the larger rounds are estimated from it, not from the slow ones */
        double best_rate = 0, best_scaled = 0;
        size_t n_dt = 0;
        size_t measured_ok = 0;
        bool default_ok = false;
        for (size_t i = 0; i < na; i++) {
            struct cand *k = order[i];
            const bool is_default = k == &c[0];
            if (ff_interrupted) {
                stop = true;
                break;
            }
            double elapsed = (double)(clock(cctx) - t0) * 1e-9;
            /* A reasonable estimate: this round's mean so far, else the last round's scaled. */
            double est = n_dt        ? sum_dt / (double)n_dt
                         : prev_size ? prev_fixed + prev_scaled * pow((double)size / prev_size,
                                                                      cfg->work_exponent)
                                     : 0;
            /* A candidate starts only when it and the larger rounds it would join still fit;
             * the default may take the whole budget: it is what the rest is compared with. */
            double fx = n_dt ? sum_fixed / (double)n_dt : prev_fixed;
            double sc = best_rate > 0 ? best_scaled
                        : prev_size
                            ? prev_scaled * pow((double)size / prev_size, cfg->work_exponent)
                            : 0;
            double later = is_default ? 0 : reserve_after(cfg, r, measured_ok + 1, fx, sc);
            /* In the first round the default always runs: it is the baseline, and before it
             * nothing is known to estimate from. */
            if (!(is_default && r == 0) && elapsed + est + later > budget) {
                out->budget_hit = true;
                if (is_default)
                    stop = true;
                logf_(cfg, FF_TUNE_LOG_VERBOSE,
                      "%s: size %u: %zu candidate%s not started (%.1f s of %.1f s used, "
                      "~%.2f s each)",
                      cfg->label ? cfg->label : "", size, na - i, na - i == 1 ? "" : "s", elapsed,
                      budget, est);
                break;
            }
            char text[192], e[512] = "";
            point_text(cfg, &k->p, text, sizeof(text));
            if (cfg->trying)
                cfg->trying(cfg->trying_ctx, &k->p);
            logf_(cfg, FF_TUNE_LOG_PROGRESS, "%s: size %u: %zu/%zu %s",
                  cfg->label ? cfg->label : "", size, i + 1, na, text);
            double rate = 0, fixed = 0;
            uint64_t s0 = clock(cctx);
            int er = eval(ctx, &k->p, size, &rate, &fixed, e, sizeof(e));
            double dt = (double)(clock(cctx) - s0) * 1e-9;
            const double fixed_part = fixed < dt ? (fixed > 0 ? fixed : 0) : dt;
            sum_dt += dt;
            sum_fixed += fixed_part;
            n_dt++;
            out->evaluated++;
            if (er == FF_ERR_INTERRUPTED || ff_interrupted) {
                stop = true;
                break;
            }
            if (er == FF_ERR_UNSUPPORTED && is_default && r == 0) {
                /* the kernel itself cannot run here (no fp16 ...): nothing to search */
                free(c);
                free(order);
                return ff_errf(err, errlen, FF_ERR_UNSUPPORTED, "%s", e);
            }
            const bool ok = er >= 0 && rate > 0 && isfinite(rate);
            if (cfg->measured)
                cfg->measured(cfg->trying_ctx, &k->p, size, ok ? rate : 0);
            if (!ok) {
                out->failed++;
                k->alive = false;
                if (er >= 0)
                    snprintf(e, sizeof(e), "no rate (%g)", rate);
                ff_msgf(last_err, sizeof(last_err), "%s: %s", text, e);
                logf_(cfg, FF_TUNE_LOG_VERBOSE, "%s: size %u: skip %s%s: %s",
                      cfg->label ? cfg->label : "", size, text, is_default ? " (the default)" : "",
                      e);
                continue;
            }
            k->rate[r] = rate;
            if (rate > best_rate || (is_default && best_rate == 0)) {
                best_rate = rate;
                best_scaled = dt - fixed_part;
            }
            measured_ok++;
            default_ok |= is_default;
            logf_(cfg, FF_TUNE_LOG_VERBOSE, "%s: size %u: %s%s: %.4g/s (%.2f s)",
                  cfg->label ? cfg->label : "", size, text, is_default ? " (the default)" : "",
                  rate, dt);
        }
        /* Those not measured in this round (cut by the deadline) go no further. */
        for (size_t i = 0; i < na; i++)
            if (order[i]->rate[r] == 0)
                order[i]->alive = false;
        if (measured_ok == 0)
            break;
        any_round = (int)r;
        if (default_ok)
            cmp_round_ok = (int)r;
        out->rounds = (uint32_t)r + 1;
        prev_fixed = sum_fixed / (double)n_dt;
        prev_scaled = best_scaled;
        prev_size = size;
        /* Keep the best fraction (and the default, while it builds) for the next size. */
        size_t nk = 0;
        for (size_t i = 0; i < na; i++)
            if (order[i]->alive)
                order[nk++] = order[i];
        sort_round = (int)r;
        qsort(order, nk, sizeof(*order), cmp_round);
        size_t keep = (size_t)ceil((double)nk * cfg->keep);
        if (keep < cfg->min_keep)
            keep = cfg->min_keep;
        for (size_t i = keep; i < nk; i++)
            if (order[i] != &c[0])
                order[i]->alive = false;
    }

    int rr = cmp_round_ok >= 0 ? cmp_round_ok : any_round;
    if (rr < 0) {
        free(c);
        free(order);
        if (ret < 0)
            return ff_errf(err, errlen, ret, "%s", last_err);
        if (ff_interrupted)
            return ff_errf(err, errlen, FF_ERR_INTERRUPTED, "interrupted");
        return ff_errf(err, errlen, FF_ERR_VERIFY, "no candidate gave a verified rate (last: %s)",
                       last_err);
    }
    const struct cand *best = NULL;
    for (size_t i = 0; i < nc; i++)
        if (c[i].rate[rr] > 0 && (!best || c[i].rate[rr] > best->rate[rr]))
            best = &c[i];
    out->best = best->p;
    out->best_rate = best->rate[rr];
    out->default_rate = c[0].rate[rr];
    out->size = cfg->sizes[rr];
    out->elapsed_s = (double)(clock(cctx) - t0) * 1e-9;
    free(c);
    free(order);
    return FF_OK;
}

/* ---- kernels ---------------------------------------------------------------------------- */

struct ff_kernel_desc ff_tune_space_desc(const struct ff_tune_target *t)
{
    struct ff_kernel_desc d = {.id = t->id, .prec = t->prec, .m = 1024, .n = 1024, .k = 1024};
    if (d.id != FF_KERNEL_MATMUL)
        d.n = 1u << 20;
    return d;
}

const char *ff_tune_kernel_name(enum ff_kernel_id id)
{
    switch (id) {
    case FF_KERNEL_MATMUL: return "matmul";
    case FF_KERNEL_MEM_READ: return "read";
    case FF_KERNEL_MEM_WRITE: return "write";
    case FF_KERNEL_MEM_COPY: return "copy";
    case FF_KERNEL_MEM_TRIAD: return "triad";
    default: return "?";
    }
}

/* The points tried when a space is too large to walk whole. */
#define ENUM_MAX_VISIT 20000u

int ff_tune_enumerate(struct ff_device *dev, const struct ff_kernel_desc *desc,
                      const struct ff_tune_space *space, size_t max, struct ff_tune_point **out,
                      size_t *n, size_t *skipped, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    *skipped = 0;
    double total = 1;
    for (uint32_t i = 0; i < space->n_params; i++)
        total *= space->param[i].n_values;
    const bool walk = total <= ENUM_MAX_VISIT;
    const size_t visits = walk ? (size_t)total : ENUM_MAX_VISIT;
    struct ff_tune_point *pts = malloc((visits + 1) * sizeof(*pts));
    if (!pts)
        return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "out of memory for %zu points", visits);
    size_t np = 0;
    pts[np++] = space->dflt;
    struct ff_rng rng;
    ff_rng_seed(&rng, 0x74756e65ull);
    struct ff_kernel_desc d = *desc;
    for (size_t v = 0; v < visits; v++) {
        struct ff_tune_point p = {.n = space->n_params};
        size_t idx = v;
        for (uint32_t i = 0; i < space->n_params; i++) {
            uint32_t nv = space->param[i].n_values;
            uint32_t j = walk ? (uint32_t)(idx % nv) : (uint32_t)(ff_rng_next(&rng) % nv);
            idx /= nv;
            p.v[i] = space->param[i].values[j];
        }
        if (same_point(&p, &space->dflt))
            continue;
        if (!walk) { /* sampled: a repeat is dropped */
            bool dup = false;
            for (size_t j = 0; j < np && !dup; j++)
                dup = same_point(&pts[j], &p);
            if (dup)
                continue;
        }
        d.tune = p;
        char e[256];
        if (ff_kernel_point_check(dev, &d, e, sizeof(e)) < 0) {
            (*skipped)++;
            continue;
        }
        pts[np++] = p;
    }
    /* A fixed shuffle of all but the default, so a round the budget cuts short still samples
     * the whole space; then at most max, the default first. */
    for (size_t i = np - 1; i > 1; i--) {
        size_t j = 1 + (size_t)(ff_rng_next(&rng) % i);
        struct ff_tune_point t = pts[i];
        pts[i] = pts[j];
        pts[j] = t;
    }
    if (max && np > max)
        np = max;
    *out = pts;
    *n = np;
    return FF_OK;
}

/* ---- matmul evaluator -------------------------------------------------------------------- */

struct mm_eval {
    struct ff_device *dev;
    enum ff_precision prec;
    uint64_t seed;
    uint32_t size; /* kc holds this size (0: none) */
    struct ff_kcheck kc;
    double limit;
    char why[200];
    struct ff_measure_cfg m;
};

static int mm_prepare(void *arg, uint32_t size, char *err, size_t errlen)
{
    struct mm_eval *e = arg;
    if (e->size)
        ff_kcheck_finish(&e->kc);
    e->size = 0;
    int ret = ff_kcheck_init(&e->kc, e->prec, size, size, size, e->seed ^ size, err, errlen);
    if (ret < 0)
        return ret;
    if ((ret = ff_kcheck_upload(&e->kc, e->dev, err, errlen)) < 0) {
        ff_kcheck_finish(&e->kc);
        return ret;
    }
    e->size = size;
    return FF_OK;
}

static int mm_eval(void *arg, const struct ff_tune_point *p, uint32_t size, double *rate,
                   double *fixed_s, char *err, size_t errlen)
{
    struct mm_eval *e = arg;
    if (e->size != size) {
        int ret = mm_prepare(arg, size, err, errlen);
        if (ret < 0)
            return ret;
    }
    struct ff_kernel_desc desc = {
        .id = FF_KERNEL_MATMUL, .prec = e->prec, .m = size, .n = size, .k = size, .tune = *p};
    struct ff_kernel *k = NULL;
    uint64_t b0 = ff_now_ns();
    int ret = ff_kernel_create(e->dev, &desc, &k, err, errlen);
    *fixed_s = (double)(ff_now_ns() - b0) * 1e-9;
    if (ret < 0)
        return ret;
    struct ff_timing t = {0};
    ret = ff_kcheck_run(&e->kc, k, err, errlen);
    if (ret == FF_OK) {
        /* Building and the first checked run (where a CPU driver still compiles) do not grow
         * with the size the way the timed runs do. */
        uint64_t m0 = ff_now_ns();
        *fixed_s = (double)(m0 - b0) * 1e-9;
        ret = ff_kcheck_bench(&e->kc, k, &e->m, &t, err, errlen);
    }
    ff_kernel_destroy(&k);
    if (ret < 0)
        return ret;
    double s = t.dev_median_s > 0 ? t.dev_median_s : t.wall_median_s;
    if (!(s > 0))
        return ff_errf(err, errlen, FF_ERR_DEVICE, "no time measured");
    double r = 2.0 * size * (double)size * size / s;
    struct ff_result res = {0};
    snprintf(res.unit, sizeof(res.unit), "%s", e->prec == FF_PREC_INT8 ? "OP/s" : "FLOP/s");
    if (ff_result_implausible(&res, r, e->limit, e->why))
        return ff_errf(err, errlen, FF_ERR_VERIFY, "%s", res.reason);
    *rate = r;
    return FF_OK;
}

/* ---- bandwidth evaluator ----------------------------------------------------------------- */

struct bw_eval {
    struct ff_device *dev;
    enum ff_kernel_id id;
    uint64_t seed;
    uint32_t size;
    struct ff_bw_bench *b;
    struct ff_measure_cfg m;
};

static int bw_prepare(void *arg, uint32_t size, char *err, size_t errlen)
{
    struct bw_eval *e = arg;
    ff_bw_bench_destroy(&e->b);
    e->size = 0;
    int ret = ff_bw_bench_create(e->dev, size, e->seed ^ size, &e->b, err, errlen);
    if (ret == FF_OK)
        e->size = size;
    return ret;
}

static int bw_eval(void *arg, const struct ff_tune_point *p, uint32_t size, double *rate,
                   double *fixed_s, char *err, size_t errlen)
{
    struct bw_eval *e = arg;
    (void)fixed_s; /* the runs dominate: all of it grows with the size */
    if (e->size != size) {
        int ret = bw_prepare(arg, size, err, errlen);
        if (ret < 0)
            return ret;
    }
    return ff_bw_bench_run(e->b, e->id, p, &e->m, rate, err, errlen);
}

/* ---- one kernel -------------------------------------------------------------------------- */

struct fmt_ctx {
    const struct ff_tune_space *s;
};

static size_t fmt_point(void *ctx, const struct ff_tune_point *p, char *buf, size_t n)
{
    const struct fmt_ctx *f = ctx;
    return ff_tune_point_format(f->s, p, buf, n);
}

/*
 * Sizes: matmul from where the tile shape starts to matter to the size the bench's quick
 * run ends at (1024; 2048 on GPUs, where 1024 still leaves launch overhead visible);
 * bandwidth in one round at the bandwidth probe's --quick buffer size (2x the last-level
 * cache on CPU devices, 256 MiB on GPUs: a smaller buffer measures the cache, and fails as
 * implausible against the memory's limit; filling larger ones costs the budget seconds).
 */
static size_t tune_sizes(const struct ff_device_info *info, enum ff_kernel_id id, bool quick,
                         uint32_t *out)
{
    static const uint32_t mm_cpu[] = {128, 256, 512, 1024}, mm_gpu[] = {256, 512, 1024, 2048};
    static const uint32_t mm_quick[] = {128, 256, 512};
    if (id == FF_KERNEL_MATMUL) {
        const uint32_t *m = quick ? mm_quick : strcmp(info->type, "cpu") == 0 ? mm_cpu : mm_gpu;
        size_t n = quick ? 3 : 4;
        memcpy(out, m, n * sizeof(*m));
        return n;
    }
    (void)quick;
    out[0] = ff_bw_bench_words(info, true);
    return 1;
}

uint32_t ff_tune_final_size(const struct ff_device_info *info, enum ff_kernel_id id, bool quick)
{
    uint32_t sz[FF_TUNE_MAX_ROUNDS];
    size_t n = tune_sizes(info, id, quick, sz);
    return sz[n - 1];
}

struct try_ctx {
    const struct ff_tune_run_cfg *cfg;
    const struct ff_tune_space *s;
};

static void try_point(void *ctx, const struct ff_tune_point *p)
{
    const struct try_ctx *t = ctx;
    char text[192];
    ff_tune_point_format(t->s, p, text, sizeof(text));
    t->cfg->trying(t->cfg->trying_ctx, text);
}

static void measured_point(void *ctx, const struct ff_tune_point *p, uint32_t size, double rate)
{
    const struct try_ctx *t = ctx;
    char text[192];
    ff_tune_point_format(t->s, p, text, sizeof(text));
    t->cfg->measured(t->cfg->trying_ctx, text, size, rate);
}

int ff_tune_kernel(struct ff_device *dev, const struct ff_tune_target *t,
                   const struct ff_tune_run_cfg *cfg, struct ff_tune_result *res, char *err,
                   size_t errlen)
{
    memset(res, 0, sizeof(*res));
    const struct ff_device_info *info = ff_device_info(dev);
    const bool matmul = t->id == FF_KERNEL_MATMUL;
    if (!matmul && !(t->id >= FF_KERNEL_MEM_READ && t->id <= FF_KERNEL_MEM_TRIAD))
        return ff_errf(err, errlen, FF_ERR_INVALID, "the tuner tunes matmul and bandwidth kernels");
    struct ff_tune_search_cfg sc;
    ff_tune_search_defaults(&sc);
    uint32_t sz[FF_TUNE_MAX_ROUNDS];
    size_t nsz = tune_sizes(info, t->id, cfg->quick, sz);
    if (!matmul)
        sc.work_exponent = 1;
    memcpy(sc.sizes, sz, nsz * sizeof(*sz));
    sc.n_sizes = nsz;
    sc.budget_s = cfg->budget_s;
    sc.log = cfg->log;
    sc.log_ctx = cfg->log_ctx;
    char label[48];
    snprintf(label, sizeof(label), "%s%s%s", ff_tune_kernel_name(t->id), matmul ? " " : "",
             matmul ? ff_precision_name(t->prec) : "");
    sc.label = label;
    struct fmt_ctx fc = {&res->space};
    sc.format = fmt_point;
    sc.format_ctx = &fc;
    struct try_ctx tc = {cfg, &res->space};
    if (cfg->trying)
        sc.trying = try_point;
    if (cfg->measured)
        sc.measured = measured_point;
    sc.trying_ctx = &tc;

    struct ff_kernel_desc desc = {.id = t->id, .prec = t->prec};
    const uint32_t final = sz[nsz - 1];
    if (matmul)
        desc.m = desc.n = desc.k = final;
    else
        desc.n = final;
    int ret = ff_kernel_space(dev, &desc, &res->space, err, errlen);
    if (ret < 0)
        return ret;
    struct ff_tune_point *pts = NULL;
    size_t np = 0, skipped = 0;
    ret = ff_tune_enumerate(dev, &desc, &res->space, 512, &pts, &np, &skipped, err, errlen);
    if (ret < 0)
        return ret;
    for (size_t i = 0; i < cfg->n_skip; i++) {
        struct ff_tune_point sp;
        char e[256];
        if (ff_tune_point_parse(&res->space, cfg->skip[i], &sp, e, sizeof(e)) < 0)
            continue;
        for (size_t j = 1; j < np; j++) /* never the default, pts[0] */
            if (same_point(&pts[j], &sp)) {
                pts[j] = pts[--np];
                break;
            }
    }
    if (cfg->log) {
        char line[160];
        snprintf(line, sizeof(line), "%s: %zu legal point%s, %zu illegal here skipped", label, np,
                 np == 1 ? "" : "s", skipped);
        cfg->log(cfg->log_ctx, FF_TUNE_LOG_INFO, line);
    }
    /* Short timings: the ranking needs a few runs, not the bench's second per test. */
    struct ff_measure_cfg m = {.warmup = 1, .min_reps = 3, .max_reps = 10, .budget_s = 0.05};
    if (matmul) {
        struct mm_eval e = {.dev = dev, .prec = t->prec, .seed = cfg->seed, .m = m};
        e.limit = ff_kcheck_rate_limit(info, t->prec, e.why, sizeof(e.why));
        sc.prepare = mm_prepare;
        ret =
            ff_tune_search(&sc, pts, np, &res->space.dflt, mm_eval, &e, &res->outcome, err, errlen);
        if (e.size)
            ff_kcheck_finish(&e.kc);
        snprintf(res->unit, sizeof(res->unit), "%s", t->prec == FF_PREC_INT8 ? "OP/s" : "FLOP/s");
    } else {
        m.min_reps = 2;
        struct bw_eval e = {.dev = dev, .id = t->id, .seed = cfg->seed, .m = m};
        sc.prepare = bw_prepare;
        ret =
            ff_tune_search(&sc, pts, np, &res->space.dflt, bw_eval, &e, &res->outcome, err, errlen);
        ff_bw_bench_destroy(&e.b);
        snprintf(res->unit, sizeof(res->unit), "B/s");
    }
    free(pts);
    if (ret < 0)
        return ret;
    ff_tune_point_format(&res->space, &res->outcome.best, res->point, sizeof(res->point));
    return FF_OK;
}

/* ---- the bench's use of the points ------------------------------------------------------- */
