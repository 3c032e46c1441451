/*
 * bench/families/suite_peak.c — the arithmetic peak: FF_KERNEL_PEAK's independent multiply-add chains
 * in fp32, fp16 and int8, the rate the device's arithmetic units reach when memory is out of
 * the way (clpeak's compute tests). The matmul figures are read against it.
 *
 * Every lane's final value is checked against the host repeating the same chain: the fp
 * chains run x = fma(x, 1, 1) from small integers, so every step is exact in any rounding
 * (fused or not) and the device must match bit for bit; int8 wraps in 32-bit unsigned maths,
 * exact by definition; an int8 peak of byte dot products (FF_PEAK_DOT4) adds one constant per
 * step and must end at its closed form. A chain cut short, skipped work-items or a lost write
 * all show. A rate past the device's physical bound (ff_kcheck_rate_limit) is failed as
 * implausible.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <flopfit/profile_fields.h>

#include "bench.h"
#include "families.h"
#include "probe_common.h"
#include "check/kcheck.h"

#define PEAK_ITERS      1024u /* fp16: 63 + 1024 stays below 2048, where integers stay exact */
#define PEAK_POISON     0x7fbadbadu
#define PEAK_MAX_ITEMS  (1u << 20)
#define PEAK_MAX_BYTES  (64ull * FF_MIB)
#define PEAK_FIRST_ITEM 1024u

/* The steps' operands as the kernel takes them (backend.h FF_KERNEL_PEAK). */
static void operands(enum ff_precision p, uint32_t *a, uint32_t *b)
{
    if (p == FF_PREC_INT8) {
        *a = 3;               /* chars: x = 3x - 5, wrapping */
        *b = (uint32_t)0xfbu; /* -5 */
    } else if (p == FF_PREC_FP16) {
        *a = *b = ff_f32_to_f16(1.0f);
    } else {
        float one = 1.0f;
        memcpy(a, &one, 4);
        memcpy(b, &one, 4);
    }
}

uint32_t ff_peak_ref(enum ff_precision p, enum ff_peak_op op, uint64_t lane, uint32_t iters,
                     uint32_t a, uint32_t b)
{
    if (p == FF_PREC_INT8 && op == FF_PEAK_DOT4) {
        /* every step adds the same 4-way dot product: 4 * (unsigned byte a) * (signed byte b) */
        uint32_t d = 4u * (a & 0xffu) * (uint32_t)(int32_t)(int8_t)(b & 0xff);
        return (uint32_t)lane + iters * d;
    }
    if (p == FF_PREC_INT8) {
        uint32_t x = (uint32_t)lane, av = (uint32_t)(int32_t)(int8_t)(a & 0xff),
                 bv = (uint32_t)(int32_t)(int8_t)(b & 0xff);
        for (uint32_t r = 0; r < iters; r++)
            x = x * av + bv;
        return x;
    }
    float x = (float)(lane & 63), out;
    if (p == FF_PREC_FP16) {
        /* fma of halves: the float product is exact, the sum rounds to float, then to half
         * (exact for the operands the suite uses) */
        float av = ff_f16_to_f32((uint16_t)a), bv = ff_f16_to_f32((uint16_t)b);
        x = ff_f16_to_f32(ff_f32_to_f16(x));
        for (uint32_t r = 0; r < iters; r++)
            x = ff_f16_to_f32(ff_f32_to_f16(fmaf(x, av, bv)));
    } else {
        float av, bv;
        memcpy(&av, &a, 4);
        memcpy(&bv, &b, 4);
        for (uint32_t r = 0; r < iters; r++)
            x = fmaf(x, av, bv);
    }
    out = x;
    uint32_t w;
    memcpy(&w, &out, 4);
    return w;
}

int ff_peak_check(enum ff_precision p, enum ff_peak_op op, const uint32_t *out, uint64_t n_words,
                  uint32_t iters, uint32_t a, uint32_t b, char *err, size_t errlen)
{
    if (p != FF_PREC_INT8) {
        /* fp lanes start at (i & 63): 64 chains cover every lane, so check them all */
        uint32_t ref[64];
        for (uint32_t j = 0; j < 64; j++)
            ref[j] = ff_peak_ref(p, op, j, iters, a, b);
        for (uint64_t i = 0; i < n_words; i++)
            if (out[i] != ref[i & 63])
                return ff_errf(err, errlen, FF_ERR_VERIFY,
                               "lane %llu of %llu holds 0x%08x, the host's chain of %u steps "
                               "0x%08x",
                               (unsigned long long)i, (unsigned long long)n_words, out[i], iters,
                               ref[i & 63]);
        return FF_OK;
    }
    /* int8 lanes are all different: the first and last 64 and about 4096 spread between */
    uint64_t step = n_words / 4096 ? n_words / 4096 : 1;
    for (uint64_t i = 0; i < n_words; i = i < 64 || i + 64 >= n_words ? i + 1 : i + step) {
        if (i >= 64 && i + 64 < n_words && i + step >= n_words - 64)
            i = n_words - 64; /* the sampled stretch ends where the last 64 begin */
        uint32_t want = ff_peak_ref(p, op, i, iters, a, b);
        if (out[i] != want)
            return ff_errf(err, errlen, FF_ERR_VERIFY,
                           "lane %llu of %llu holds 0x%08x, the host's chain of %u steps 0x%08x",
                           (unsigned long long)i, (unsigned long long)n_words, out[i], iters, want);
    }
    return FF_OK;
}

struct peak_ctx {
    struct ff_kernel *k;
    struct ff_buf *out;
    uint32_t params[3];
};

static int run_peak(void *arg, uint64_t *dns, uint64_t *wns, char *err, size_t errlen)
{
    struct peak_ctx *c = arg;
    return ff_kernel_run(c->k, &c->out, 1, c->params, 3, dns, wns, err, errlen);
}

/* Kernel and buffer for `items` work-items, poisoned. */
static int setup(struct ff_device *dev, enum ff_precision p, uint32_t items, struct peak_ctx *c,
                 uint32_t **host, char *err, size_t errlen)
{
    struct ff_kernel_desc desc = {.id = FF_KERNEL_PEAK, .prec = p, .n = items};
    int ret = ff_kernel_create(dev, &desc, &c->k, err, errlen);
    if (ret < 0)
        return ret;
    uint64_t words = ff_kernel_out_words(c->k);
    *host = malloc(words * 4);
    if (!*host)
        return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "out of host memory");
    for (uint64_t i = 0; i < words; i++)
        (*host)[i] = PEAK_POISON;
    if ((ret = ff_buf_create(dev, words * 4, &c->out, err, errlen)) < 0)
        return ret;
    return ff_buf_write(c->out, 0, *host, words * 4, err, errlen);
}

static void teardown(struct peak_ctx *c, uint32_t **host)
{
    ff_buf_destroy(&c->out);
    ff_kernel_destroy(&c->k);
    free(*host);
    *host = NULL;
}

/* Reads the output back and checks it. */
static int check_out(struct peak_ctx *c, enum ff_precision p, uint32_t *host, char *err,
                     size_t errlen)
{
    uint64_t words = ff_kernel_out_words(c->k);
    int ret = ff_buf_read(c->out, 0, host, words * 4, err, errlen);
    if (ret < 0)
        return ret;
    return ff_peak_check(p, ff_kernel_peak_op(c->k), host, words, c->params[0], c->params[1],
                         c->params[2], err, errlen);
}

/*
 * Kernel and buffer sized to about target_s per launch: a first launch of PEAK_FIRST_ITEM
 * items, run twice (the first launch of a pipeline may carry one-time costs: llvmpipe) and
 * checked, sizes the real one.
 */
static int setup_sized(struct ff_device *dev, enum ff_precision p, double target_s,
                       struct peak_ctx *c, uint32_t **host, char *err, size_t errlen)
{
    c->params[0] = PEAK_ITERS;
    operands(p, &c->params[1], &c->params[2]);
    uint32_t items = PEAK_FIRST_ITEM;
    uint64_t dns = 0, wns = 0;
    int ret = setup(dev, p, items, c, host, err, errlen);
    for (int i = 0; i < 2 && ret == FF_OK; i++)
        ret = run_peak(c, &dns, &wns, err, errlen);
    if (ret == FF_OK)
        ret = check_out(c, p, *host, err, errlen);
    if (ret < 0)
        return ret;
    double t = (dns ? dns : wns) * 1e-9;
    uint64_t lanes = ff_kernel_out_words(c->k) / items;
    double want = t > 0 ? items * target_s / t : PEAK_MAX_ITEMS;
    uint64_t cap = PEAK_MAX_BYTES / (lanes * 4);
    if (want > (double)cap)
        want = (double)cap;
    if (want > PEAK_MAX_ITEMS)
        want = PEAK_MAX_ITEMS;
    uint32_t n = (uint32_t)want / 64 * 64;
    if (n <= items)
        return FF_OK;
    teardown(c, host);
    return setup(dev, p, n, c, host, err, errlen);
}

static void run_prec(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_run *prof,
                     enum ff_precision p)
{
    char err[512] = "";
    struct ff_result *res = ff_run_add(prof);
    if (!res)
        return;
    ff_result_set(res, "peak", "peak", "flopfit");
    res->prec = (int)p;
    snprintf(res->unit, sizeof(res->unit), "%s", p == FF_PREC_INT8 ? "OP/s" : "FLOP/s");
    ff_progress(cfg, "%s %s: arithmetic peak", ff_device_info(dev)->name, ff_precision_name(p));

    struct peak_ctx c = {NULL, NULL, {0, 0, 0}};
    uint32_t *host = NULL;
    /* about 20 ms (--quick) or 100 ms of device time per launch */
    int ret = setup_sized(dev, p, cfg->quick ? 0.02 : 0.1, &c, &host, err, sizeof(err));
    if (ret == FF_OK) {
        struct ff_measure_cfg m = cfg->measure;
        if (cfg->quick) {
            m.budget_s = 0.1;
            m.max_reps = m.min_reps > 5 ? m.min_reps : 5;
        }
        ret = ff_measure(&m, run_peak, &c, &res->t, err, sizeof(err));
    }
    if (ret == FF_OK)
        ret = check_out(&c, p, host, err, sizeof(err));
    uint64_t words = c.k ? ff_kernel_out_words(c.k) : 0;
    unsigned ops = ff_peak_op_ops(c.k ? ff_kernel_peak_op(c.k) : FF_PEAK_MAD);
    if (c.k)
        snprintf(res->variant, sizeof(res->variant), "%s, %u steps", ff_kernel_variant(c.k),
                 PEAK_ITERS);
    teardown(&c, &host);

    if (ret == FF_ERR_INTERRUPTED) {
        ff_result_interrupted(res);
        return;
    }
    if (ret < 0) {
        if (ret == FF_ERR_VERIFY)
            ff_result_fail(res, FF_RES_FAILED, "%s", err);
        else
            ff_probe_fail(res, ret, "peak kernel", err);
        return;
    }
    res->has_timing = true;
    res->verified = true;
    res->status = FF_RES_OK;
    double t = res->t.dev_median_s > 0 ? res->t.dev_median_s : res->t.wall_median_s;
    res->value = (double)ops * (double)words * PEAK_ITERS / t;
    char why[200];
    double limit = ff_kcheck_rate_limit(ff_device_info(dev), p, why, sizeof(why));
    ff_result_implausible(res, res->value, limit, why);
}

void ff_suite_peak(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_run *prof)
{
    for (int pi = 0; pi < FF_PREC_COUNT && !ff_interrupted; pi++)
        if (cfg->prec[pi] && ff_matmul_has_kernel((enum ff_precision)pi))
            run_prec(dev, cfg, prof, (enum ff_precision)pi);
}

/* ---- the peak as a companion of other measurements ---- */

struct ff_peak_probe {
    struct peak_ctx c;
    enum ff_precision prec;
    uint32_t *host;
};

int ff_peak_probe_open(struct ff_device *dev, enum ff_precision p, double target_s,
                       struct ff_peak_probe **out, char *err, size_t errlen)
{
    struct ff_peak_probe *pp = calloc(1, sizeof(*pp));
    *out = NULL;
    if (!pp)
        return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "out of host memory");
    pp->prec = p;
    int ret = setup_sized(dev, p, target_s, &pp->c, &pp->host, err, errlen);
    if (ret < 0) {
        teardown(&pp->c, &pp->host);
        free(pp);
        return ret;
    }
    *out = pp;
    return FF_OK;
}

int ff_peak_probe_run(void *probe, uint64_t *dns, uint64_t *wns, char *err, size_t errlen)
{
    struct ff_peak_probe *pp = probe;
    return run_peak(&pp->c, dns, wns, err, errlen);
}

double ff_peak_probe_ops(const struct ff_peak_probe *pp)
{
    return (double)ff_peak_op_ops(ff_kernel_peak_op(pp->c.k)) *
           (double)ff_kernel_out_words(pp->c.k) * PEAK_ITERS;
}

int ff_peak_probe_check(struct ff_peak_probe *pp, char *err, size_t errlen)
{
    return check_out(&pp->c, pp->prec, pp->host, err, errlen);
}

void ff_peak_probe_close(struct ff_peak_probe **pp)
{
    if (!*pp)
        return;
    teardown(&(*pp)->c, &(*pp)->host);
    free(*pp);
    *pp = NULL;
}

int ff_peak_reference(const struct ff_run *p, enum ff_precision prec, double *rate)
{
    double peak[FF_PREC_COUNT] = {0};
    for (size_t i = 0; i < p->n_results; i++) {
        const struct ff_result *r = &p->results[i];
        if (r->status == FF_RES_OK && r->verified && strcmp(r->family, "peak") == 0 &&
            r->prec >= 0 && r->prec < FF_PREC_COUNT && r->value > peak[r->prec])
            peak[r->prec] = r->value;
    }
    if (prec < 0 || prec >= FF_PREC_COUNT)
        return -1;
    enum ff_precision ref = peak[FF_PREC_FP32] > peak[prec] ? FF_PREC_FP32 : prec;
    if (!(peak[ref] > 0))
        return -1;
    if (rate)
        *rate = peak[ref];
    return (int)ref;
}

int ff_peak_fraction_unpaired(const struct ff_run *p, enum ff_precision prec, double rate,
                              double *frac)
{
    double ref;
    int rp = ff_peak_reference(p, prec, &ref);
    if (rp >= 0)
        *frac = fmin(rate / ref, FF_PEAK_FRACTION_MAX);
    return rp;
}
