/*
 * bench/families/suite_ops.c — a transformer's own operations timed on the device: GEMMs at
 * the shapes a model runs (the matmul kernel, kcheck.h), decode mat-vecs with weight-only
 * quantised weights, decode and prefill attention, and the memory-bound rest of a layer
 * (backend.h's op kernels, opcheck.h). Every result is verified like matmul: fresh inputs,
 * the output poisoned before every timed run and the last one compared with the CPU
 * reference; a figure above the device's physical limit is failed as implausible.
 *
 * Without --model it runs a generic grid of shapes (ff_suite_ops_grid) that the estimator
 * interpolates between; with it, the model's own list (cfg->ops). Each result is an "op"
 * test: its name the op ("gemv"), its precision the weight, KV or GEMM format, its shape the
 * kernel's m, n, k (and g), its bytes the traffic no kernel can avoid, its value B/s for the
 * memory-bound ops and FLOP/s (OP/s for int8) for GEMMs.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <flopfit/profile_fields.h>

#include "bench.h"
#include "probe_common.h"
#include "check/kcheck.h"
#include "check/opcheck.h"

const char *ff_suite_op_name(enum ff_kernel_id id)
{
    switch (id) {
    case FF_KERNEL_MATMUL: return FF_PF_OP_GEMM;
    case FF_KERNEL_GEMV: return FF_PF_OP_GEMV;
    case FF_KERNEL_ATTN_DECODE: return FF_PF_OP_ATTN_DECODE;
    case FF_KERNEL_ATTN_PREFILL: return FF_PF_OP_ATTN_PREFILL;
    case FF_KERNEL_RMSNORM: return FF_PF_OP_RMSNORM;
    case FF_KERNEL_ROPE: return FF_PF_OP_ROPE;
    case FF_KERNEL_SWIGLU: return FF_PF_OP_SWIGLU;
    case FF_KERNEL_ADD: return FF_PF_OP_ADD;
    case FF_KERNEL_XENT: return FF_PF_OP_XENT;
    default: return "?";
    }
}

/*
 * GEMM work per run is capped (multiply-adds): wider shapes are run with n, then m, halved
 * until under it and recorded at the shape run, the estimator interpolating in FLOPs between
 * them (a GEMM's time grows linearly in n once the shape fills the device). A 128k-vocab head
 * at 512 tokens is 2.7e11 multiply-adds: seconds per run on a CPU device, and its sampled
 * reference 130 rows of 5e8.
 */
#define GEMM_MAX_MACS       (1ull << 34)
#define GEMM_MAX_MACS_QUICK (1ull << 33)

/* Per op: the time budget of its timed runs (the grid has dozens of shapes). */
#define OP_BUDGET_S       0.3
#define OP_BUDGET_S_QUICK 0.1

static void add(struct ff_bench_op *out, size_t max, size_t *n, enum ff_kernel_id id,
                enum ff_precision p, uint32_t m, uint32_t nn, uint32_t k, uint32_t g)
{
    if (*n >= max)
        return;
    out[*n] = (struct ff_bench_op){.desc = {.id = id, .prec = p, .m = m, .n = nn, .k = k, .g = g}};
    snprintf(out[*n].what, sizeof(out[*n].what), "grid");
    (*n)++;
}

size_t ff_suite_ops_grid(bool quick, struct ff_bench_op *out, size_t max)
{
    size_t n = 0;
    /* The formats a model is estimated in by default come first, so that the quick grid
     * holds them too: bf16 weights with a bf16 KV cache (`flopfit estimate`'s default), GGUF's
     * q4_0 and q8_0 with fp16 KV (llama.cpp's), fp16; the estimator interpolates only within
     * a format. */
    /* decode mat-vecs: a 7B/8B model's projections (4096 wide, FFN 14336) and a small one */
    static const enum ff_precision wfmt[] = {FF_PREC_BF16, FF_PREC_Q4_0, FF_PREC_Q8_0,
                                             FF_PREC_FP16, FF_PREC_INT8, FF_PREC_FP32};
    static const uint32_t wshape[][2] = {{1024, 1024}, {4096, 4096}, {14336, 4096}, {4096, 14336}};
    for (size_t f = 0; f < (quick ? 4 : 6); f++)
        for (size_t s = quick ? 1 : 0; s < (quick ? 3 : 4); s++)
            add(out, max, &n, FF_KERNEL_GEMV, wfmt[f], 1, wshape[s][0], wshape[s][1], 0);
    for (size_t f = 0; f < 4 && !quick; f++)
        for (uint32_t m = 4; m <= 16; m *= 4)
            add(out, max, &n, FF_KERNEL_GEMV, wfmt[f], m, 4096, 4096, 0);
    /* decode attention: 32 query heads of 128 over 8 KV heads (GQA 4), and MHA */
    static const enum ff_precision kv[] = {FF_PREC_BF16, FF_PREC_FP16, FF_PREC_FP32};
    for (size_t f = 0; f < (quick ? 2 : 3); f++)
        for (uint32_t L = quick ? 512 : 128; L <= (quick ? 2048u : 8192u); L *= 4)
            add(out, max, &n, FF_KERNEL_ATTN_DECODE, kv[f], 32, L, 128, 4);
    if (!quick)
        for (uint32_t L = 128; L <= 2048; L *= 4)
            add(out, max, &n, FF_KERNEL_ATTN_DECODE, FF_PREC_FP16, 32, L, 128, 1);
    /* causal prefill attention: 8 heads (its time is linear in the heads); fp32 is an fp32
     * training step's */
    for (size_t f = 0; f < (quick ? 2 : 3); f++)
        for (uint32_t L = quick ? 512 : 128; L <= (quick ? 512u : 2048u); L *= 4)
            add(out, max, &n, FF_KERNEL_ATTN_PREFILL, kv[f], 8, L, 128, 4);
    /* the memory-bound rest of a layer, one token and a 512-token prompt */
    const uint32_t rows[] = {1, 512};
    for (size_t r = 0; r < 2; r++) {
        add(out, max, &n, FF_KERNEL_RMSNORM, FF_PREC_FP32, rows[r], 4096, 0, 0);
        add(out, max, &n, FF_KERNEL_ROPE, FF_PREC_FP32, rows[r] * 32, 128, 0, 32);
        add(out, max, &n, FF_KERNEL_SWIGLU, FF_PREC_FP32, rows[r], 14336, 0, 0);
        add(out, max, &n, FF_KERNEL_ADD, FF_PREC_FP32, rows[r], 4096, 0, 0);
        if (!quick) {
            add(out, max, &n, FF_KERNEL_RMSNORM, FF_PREC_FP32, rows[r], 768, 0, 0);
            add(out, max, &n, FF_KERNEL_SWIGLU, FF_PREC_FP32, rows[r], 2048, 0, 0);
            add(out, max, &n, FF_KERNEL_ADD, FF_PREC_FP32, rows[r], 768, 0, 0);
        }
    }
    add(out, max, &n, FF_KERNEL_XENT, FF_PREC_FP32, 16, 32000, 0, 0);
    if (!quick) {
        add(out, max, &n, FF_KERNEL_XENT, FF_PREC_FP32, 256, 32000, 0, 0);
        add(out, max, &n, FF_KERNEL_XENT, FF_PREC_FP32, 16, 128256, 0, 0);
    }
    /* GEMMs of prefill and training: tokens x out x in, a 7B/8B model's and a small one's
     * (1024 wide, as models under 0.5B); fp16 is the GEMM of a 16-bit model (bf16's too), in
     * fp32 arithmetic where the device has no fp16 (run_gemm), int8 that of int8 and GGUF
     * weights */
    static const enum ff_precision gfmt[] = {FF_PREC_FP16, FF_PREC_FP32, FF_PREC_INT8};
    static const uint32_t gshape[][3] = {{512, 4096, 4096},
                                         {64, 4096, 4096},
                                         {2048, 4096, 4096},
                                         {512, 14336, 4096},
                                         {512, 1024, 1024}};
    for (size_t f = 0; f < 3; f++)
        for (size_t s = 0; s < (quick ? 1 : 5); s++)
            add(out, max, &n, FF_KERNEL_MATMUL, gfmt[f], gshape[s][0], gshape[s][1], gshape[s][2],
                0);
    return n;
}

static void set_shape(struct ff_result *r, const struct ff_kernel_desc *d)
{
    ff_result_set(r, "op", ff_suite_op_name(d->id), "flopfit");
    r->prec = (int)d->prec;
    r->m = d->m;
    r->n = d->n;
    r->k = d->k;
    r->g = d->g;
}

/* A GEMM shape under the work cap: n halved, then m, keeping each at least 1. */
static void cap_gemm(struct ff_kernel_desc *d, uint64_t max_macs)
{
    while ((uint64_t)d->m * d->n * d->k > max_macs && d->n > 256)
        d->n = (d->n + 1) / 2;
    while ((uint64_t)d->m * d->n * d->k > max_macs && d->m > 1)
        d->m = (d->m + 1) / 2;
}

/* The first buffer of d larger than max bytes (0: no limit), its size in b[] and its name in
 * names[]; FF_MAX_BUFS when every buffer fits. */
static uint32_t buf_over(const struct ff_kernel_desc *d, uint64_t max, uint64_t b[FF_MAX_BUFS],
                         const char *names[FF_MAX_BUFS])
{
    if (d->id == FF_KERNEL_MATMUL) {
        const uint64_t in = ff_matmul_in_bytes(d->prec), out = ff_matmul_out_bytes(d->prec);
        b[0] = (uint64_t)d->m * d->k * in;
        b[1] = (uint64_t)d->k * d->n * in;
        b[2] = (uint64_t)d->m * d->n * out;
    } else {
        for (uint32_t i = 0; i < FF_MAX_BUFS; i++)
            b[i] = ff_op_buf_bytes(d, i, &names[i]);
    }
    uint32_t i = 0;
    while (max && i < FF_MAX_BUFS && b[i] <= max)
        i++;
    return max ? i : FF_MAX_BUFS;
}

/* Whether a buffer of the op exceeds the device's largest allocation: a limit of the device
 * (lavapipe allows 128 MiB), said as unsupported with the numbers, never a failed test. */
static bool over_max_alloc(struct ff_device *dev, const struct ff_kernel_desc *d,
                           struct ff_result *r)
{
    const uint64_t max = ff_device_info(dev)->max_alloc_bytes;
    uint64_t b[FF_MAX_BUFS] = {0};
    const char *names[FF_MAX_BUFS] = {"A", "B", "C", NULL};
    const uint32_t i = buf_over(d, max, b, names);
    if (i == FF_MAX_BUFS)
        return false;
    ff_result_fail(r, FF_RES_UNSUPPORTED,
                   "buffer %s of %" PRIu64 " bytes exceeds the device's largest "
                   "allocation of %" PRIu64 " bytes",
                   names[i], b[i], max);
    return true;
}

/* Marks r from a failed step: unsupported, interrupted or failed with the status. */
static void fail(struct ff_result *r, int ret, const char *err)
{
    ff_probe_fail(r, ret, "", err);
}

static void run_gemm(struct ff_device *dev, const struct ff_bench_cfg *cfg,
                     const struct ff_measure_cfg *mc, struct ff_kernel_desc desc,
                     struct ff_result *r)
{
    char err[512] = "";
    struct ff_kcheck kc;
    int ret = ff_kcheck_init(&kc, desc.prec, desc.m, desc.n, desc.k, cfg->seed ^ desc.n, err,
                             sizeof(err));
    if (ret < 0) {
        fail(r, ret, err);
        return;
    }
    struct ff_kernel *kern = NULL;
    ff_bench_apply_tuning(cfg, dev, &desc, r);
    desc.flags |= FF_KDESC_FP16_STORAGE; /* the model's GEMM as the device can run it */
    if ((ret = ff_kcheck_upload(&kc, dev, err, sizeof(err))) == FF_OK &&
        (ret = ff_kernel_create(dev, &desc, &kern, err, sizeof(err))) == FF_OK) {
        snprintf(r->variant, sizeof(r->variant), "%s", ff_kernel_variant(kern));
        if ((ret = ff_kcheck_run(&kc, kern, err, sizeof(err))) == FF_OK)
            ret = ff_kcheck_bench(&kc, kern, mc, &r->t, err, sizeof(err));
        if (ret == FF_OK || ret == FF_ERR_VERIFY) {
            r->has_error = true;
            r->max_abs = kc.check.max_abs;
            r->max_rel = kc.check.max_rel;
            r->tolerance = kc.check.tolerance;
        }
    }
    ff_kernel_destroy(&kern);
    ff_kcheck_finish(&kc);
    if (ret < 0) {
        fail(r, ret, err);
        return;
    }
    const uint64_t in = ff_matmul_in_bytes(desc.prec), out = ff_matmul_out_bytes(desc.prec);
    r->bytes = ((uint64_t)desc.m * desc.k + (uint64_t)desc.k * desc.n) * in +
               (uint64_t)desc.m * desc.n * out;
    r->has_timing = r->verified = true;
    r->status = FF_RES_OK;
    double t = r->t.dev_median_s > 0 ? r->t.dev_median_s : r->t.wall_median_s;
    r->value = 2.0 * desc.m * desc.n * (double)desc.k / t;
    snprintf(r->unit, sizeof(r->unit), "%s", desc.prec == FF_PREC_INT8 ? "OP/s" : "FLOP/s");
    char why[200];
    double limit = ff_kcheck_rate_limit(ff_device_info(dev), desc.prec, why, sizeof(why));
    ff_result_implausible(r, r->value, limit, why);
}

/* What the rotating inputs of a weight- or KV-streaming op add up to: twice the host's
 * last-level cache (a CPU device's, and the most a GPU's own cache holds is about as much:
 * 256 MiB of Infinity Cache), at least 256 MiB. */
uint64_t ff_suite_ops_rotate_bytes(void)
{
    const uint64_t llc = ff_probe_host_llc_bytes();
    return 2 * llc > 256 * FF_MIB ? 2 * llc : 256 * FF_MIB;
}

/*
 * The streaming ops' points found in this run, one per kernel and format: gemv is searched at
 * the first shape of its format that runs (its cold inputs uploaded), decode attention at the
 * longest context of its format in the run (ff_suite_ops_search_at), and the rest of the run
 * builds that point. A coordinate descent from the backend's
 * default: each parameter in turn takes each of its values, the others held, and a value is
 * kept when the op, verified, runs at least SEARCH_GAIN faster than the best so far, and again
 * when both are timed once more back to back. Applied
 * as any tuned point (ff_bench_apply_tuned): one that does not build at a later shape falls
 * back to the default there, recorded as such.
 */
#define SEARCH_GAIN     1.05
#define SEARCH_BUDGET_S 0.03 /* timed runs per candidate */
struct searched {
    size_t n;
    struct ff_bench_tuned k[32];
    const struct ff_bench_op *ops; /* the run's shapes, for ff_suite_ops_search_at */
    size_t n_ops;
};

size_t ff_suite_ops_search_at(const struct ff_bench_op *ops, size_t n_ops,
                              const struct ff_kernel_desc *d, uint64_t max_alloc)
{
    size_t best = n_ops;
    if (d->id != FF_KERNEL_ATTN_DECODE)
        return best;
    for (size_t i = 0; i < n_ops; i++) {
        const struct ff_kernel_desc *o = &ops[i].desc;
        uint64_t b[FF_MAX_BUFS] = {0};
        const char *names[FF_MAX_BUFS] = {NULL};
        if (o->id == d->id && o->prec == d->prec &&
            buf_over(o, max_alloc, b, names) == FF_MAX_BUFS &&
            (best == n_ops || ff_opcheck_bytes(o) > ff_opcheck_bytes(&ops[best].desc)))
            best = i;
    }
    return best;
}

static const struct ff_bench_tuned *searched_find(const struct searched *sr,
                                                  const struct ff_kernel_desc *d)
{
    for (size_t i = 0; i < sr->n; i++)
        if (sr->k[i].id == d->id && sr->k[i].prec == d->prec)
            return &sr->k[i];
    return NULL;
}

/* Median device time of kern at point p, verified; 0 when it fails to build, run or verify. */
static double time_point(struct ff_device *dev, struct ff_opcheck *oc, struct ff_kernel_desc d,
                         const struct ff_tune_point *p, const struct ff_measure_cfg *mc)
{
    char err[512];
    struct ff_kernel *k = NULL;
    struct ff_timing t;
    memset(&t, 0, sizeof(t));
    d.tune = *p;
    double s = 0.0;
    if (ff_kernel_point_check(dev, &d, err, sizeof(err)) == FF_OK &&
        ff_kernel_create(dev, &d, &k, err, sizeof(err)) == FF_OK &&
        ff_opcheck_run(oc, k, err, sizeof(err)) == FF_OK &&
        ff_opcheck_bench(oc, k, mc, &t, err, sizeof(err)) == FF_OK)
        s = t.dev_median_s > 0 ? t.dev_median_s : t.wall_median_s;
    ff_kernel_destroy(&k);
    return s;
}

static void search_point(struct ff_device *dev, struct ff_opcheck *oc,
                         const struct ff_kernel_desc *desc, const struct ff_measure_cfg *mc,
                         struct searched *sr)
{
    char err[256];
    struct ff_tune_space sp;
    if (sr->n >= sizeof(sr->k) / sizeof(sr->k[0]) ||
        ff_kernel_space(dev, desc, &sp, err, sizeof(err)) != FF_OK)
        return;
    struct ff_measure_cfg quick = *mc;
    quick.budget_s = SEARCH_BUDGET_S;
    struct ff_tune_point best = sp.dflt;
    double best_s = time_point(dev, oc, *desc, &best, &quick);
    if (!(best_s > 0.0))
        return; /* the default itself fails: the op's own run says why */
    for (uint32_t i = 0; i < sp.n_params && !ff_interrupted; i++)
        for (uint32_t j = 0; j < sp.param[i].n_values && !ff_interrupted; j++) {
            struct ff_tune_point c = best;
            if (sp.param[i].values[j] == best.v[i])
                continue;
            c.v[i] = sp.param[i].values[j];
            double s = time_point(dev, oc, *desc, &c, &quick);
            if (!(s > 0.0 && s * SEARCH_GAIN < best_s))
                continue;
            /* a win is timed again beside the best, back to back: on a shared machine one
             * lucky set of runs is not a gain */
            const double again = time_point(dev, oc, *desc, &c, &quick);
            const double best_again = time_point(dev, oc, *desc, &best, &quick);
            if (again > 0.0 && best_again > 0.0 && again * SEARCH_GAIN < best_again) {
                best = c;
                best_s = again;
            }
        }
    struct ff_bench_tuned *t = &sr->k[sr->n++];
    memset(t, 0, sizeof(*t));
    t->id = desc->id;
    t->prec = desc->prec;
    t->point = best;
    ff_tune_point_format(&sp, &best, t->text, sizeof(t->text));
    snprintf(t->source, sizeof(t->source), "tune");
}

/* Searches d's kernel and format at the shape ff_suite_ops_search_at names when that is
 * another shape than d's, with inputs of its own; nothing when it is d's or cannot be set up
 * (the caller then searches at d). */
static void search_elsewhere(struct ff_device *dev, const struct ff_bench_cfg *cfg,
                             const struct ff_kernel_desc *d, const struct ff_measure_cfg *mc,
                             struct searched *sr)
{
    const size_t i =
        ff_suite_ops_search_at(sr->ops, sr->n_ops, d, ff_device_info(dev)->max_alloc_bytes);
    if (i >= sr->n_ops)
        return;
    struct ff_kernel_desc at = sr->ops[i].desc;
    at.tune = d->tune;
    if (at.m == d->m && at.n == d->n && at.k == d->k && at.g == d->g)
        return;
    char err[256];
    struct ff_opcheck big;
    if (ff_opcheck_init(&big, &at, cfg->seed ^ 0x5eac4ull, err, sizeof(err)) < 0)
        return;
    if (ff_opcheck_upload(&big, dev, err, sizeof(err)) == FF_OK) {
        ff_opcheck_rotate(&big, ff_suite_ops_rotate_bytes());
        search_point(dev, &big, &at, mc, sr);
    }
    ff_opcheck_finish(&big);
}

static void run_op(struct ff_device *dev, const struct ff_bench_cfg *cfg,
                   const struct ff_measure_cfg *mc, const struct ff_kernel_desc *desc,
                   struct searched *sr, struct ff_result *r)
{
    char err[512] = "";
    struct ff_opcheck oc;
    int ret = ff_opcheck_init(&oc, desc, cfg->seed ^ ((uint64_t)desc->id << 32 | desc->n), err,
                              sizeof(err));
    if (ret < 0) {
        fail(r, ret, err);
        return;
    }
    struct ff_kernel *kern = NULL;
    struct ff_kernel_desc d = *desc;
    ff_bench_apply_tuning(cfg, dev, &d, r);
    const bool streams = d.id == FF_KERNEL_GEMV || d.id == FF_KERNEL_ATTN_DECODE;
    /* no override or cached point: this run's search (above), at another shape before this
     * one's inputs are on the device, else at this one */
    const bool search = streams && !cfg->no_tune && d.tune.n == 0;
    if (search && !searched_find(sr, &d))
        search_elsewhere(dev, cfg, &d, mc, sr);
    if ((ret = ff_opcheck_upload(&oc, dev, err, sizeof(err))) == FF_OK) {
        /* a step streams its weights and KV cache from memory: the timed runs rotate over
         * copies of the inputs larger than the host's last-level cache (the activations of
         * the small ops stay hot, as the previous op of a step leaves them) */
        if (streams)
            ff_opcheck_rotate(&oc, ff_suite_ops_rotate_bytes());
        if (search) {
            if (!searched_find(sr, &d))
                search_point(dev, &oc, &d, mc, sr);
            const struct ff_bench_tuned *t = searched_find(sr, &d);
            if (t)
                ff_bench_apply_tuned(t, dev, &d, r);
        }
        ret = ff_kernel_create(dev, &d, &kern, err, sizeof(err));
    }
    if (ret == FF_OK) {
        const uint32_t sets = oc.n_sets;
        snprintf(r->variant, sizeof(r->variant), "%s", ff_kernel_variant(kern));
        if (sets > 1) {
            size_t len = strlen(r->variant);
            snprintf(r->variant + len, sizeof(r->variant) - len, "; inputs from %u copies", sets);
        }
        if ((ret = ff_opcheck_run(&oc, kern, err, sizeof(err))) == FF_OK)
            ret = ff_opcheck_bench(&oc, kern, mc, &r->t, err, sizeof(err));
        if (ret == FF_OK && oc.chain) {
            size_t len = strlen(r->variant);
            snprintf(r->variant + len, sizeof(r->variant) - len, "; timed in chains of %u launches",
                     oc.chain);
        }
        if (ret == FF_OK || ret == FF_ERR_VERIFY) {
            r->has_error = true;
            r->max_abs = oc.check.max_abs;
            r->max_rel = oc.check.max_rel;
            r->tolerance = oc.check.tolerance;
        }
    }
    ff_kernel_destroy(&kern);
    ff_opcheck_finish(&oc);
    if (ret < 0) {
        fail(r, ret, err);
        return;
    }
    r->bytes = ff_opcheck_bytes(desc);
    r->has_timing = r->verified = true;
    r->status = FF_RES_OK;
    double t = r->t.dev_median_s > 0 ? r->t.dev_median_s : r->t.wall_median_s;
    r->value = (double)r->bytes / t;
    snprintf(r->unit, sizeof(r->unit), "B/s");
    char why[200];
    double limit = ff_probe_bandwidth_limit(ff_device_info(dev), why, sizeof(why));
    if (ff_result_implausible(r, r->value, limit, why))
        return;
    double flops = ff_opcheck_flops(desc);
    if (flops > 0) {
        limit = ff_kcheck_rate_limit(ff_device_info(dev), FF_PREC_FP32, why, sizeof(why));
        ff_result_implausible(r, flops / t, limit, why);
    }
}

/* (kernel, format) pairs found unsupported: said once, their other shapes skipped. */
struct refused {
    size_t n;
    struct {
        enum ff_kernel_id id;
        enum ff_precision prec;
    } k[64];
};

static bool was_refused(const struct refused *rf, const struct ff_kernel_desc *d)
{
    for (size_t i = 0; i < rf->n; i++)
        if (rf->k[i].id == d->id && rf->k[i].prec == d->prec)
            return true;
    return false;
}

void ff_suite_ops(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_run *prof)
{
    static struct ff_bench_op grid[128];
    const struct ff_bench_op *ops = cfg->ops;
    size_t n_ops = cfg->n_ops;
    if (!ops) {
        n_ops = ff_suite_ops_grid(cfg->quick, grid, sizeof(grid) / sizeof(grid[0]));
        ops = grid;
    }
    struct ff_measure_cfg mc = cfg->measure;
    mc.budget_s = fmin(mc.budget_s, cfg->quick ? OP_BUDGET_S_QUICK : OP_BUDGET_S);
    struct refused rf = {0};
    struct searched sr = {.ops = ops, .n_ops = n_ops};
    for (size_t i = 0; i < n_ops && !ff_interrupted; i++) {
        struct ff_kernel_desc d = ops[i].desc;
        if (was_refused(&rf, &d))
            continue;
        if (d.id == FF_KERNEL_MATMUL)
            cap_gemm(&d, cfg->quick ? GEMM_MAX_MACS_QUICK : GEMM_MAX_MACS);
        struct ff_result *r = ff_run_add(prof);
        if (!r)
            return;
        set_shape(r, &d);
        ff_progress(cfg, "%s op %s %s %ux%ux%u (%s)", ff_device_info(dev)->name,
                    ff_suite_op_name(d.id), ff_precision_name(d.prec), d.m, d.n, d.k, ops[i].what);
        if (over_max_alloc(dev, &d, r))
            continue; /* this shape only: a smaller one of the same kind may fit */
        if (d.id == FF_KERNEL_MATMUL)
            run_gemm(dev, cfg, &mc, d, r);
        else
            run_op(dev, cfg, &mc, &d, &sr, r);
        if (r->status == FF_RES_UNSUPPORTED && rf.n < sizeof(rf.k) / sizeof(rf.k[0])) {
            rf.k[rf.n].id = d.id;
            rf.k[rf.n++].prec = d.prec;
        }
    }
}
