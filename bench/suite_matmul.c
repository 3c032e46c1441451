/*
 * bench/suite_matmul.c — C = A*B in fp32, fp16 and int8 through our kernel,
 * the matrix engine (cooperative matrix) and the library reference, on one
 * device over a size sweep. Every timed result is verified: inputs are fresh
 * random data, C is poisoned before the checked run, and C is read back and
 * checked again after the timed runs.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "verify.h"

static const struct {
    enum ff_kernel_id id;
    const char *impl;
} impls[] = {
    {FF_KERNEL_MATMUL, "flopfit"},
    {FF_KERNEL_MATMUL_COOPMAT, "coopmat"},
    {FF_KERNEL_MATMUL_LIBRARY, "clblast"},
};
#define N_IMPLS (sizeof(impls) / sizeof(impls[0]))

struct host_data {
    void *a, *b, *c, *ref;
    uint32_t rows[256];
    size_t n_rows;
};

struct run_ctx {
    struct ff_kernel *k;
    struct ff_buf *bufs[3];
    uint32_t params[3];
};

static int run_once(void *arg, uint64_t *dns, uint64_t *wns, char *err, size_t errlen)
{
    struct run_ctx *r = arg;
    return ff_kernel_run(r->k, r->bufs, 3, r->params, 3, dns, wns, err, errlen);
}

static void free_host(struct host_data *h)
{
    free(h->a);
    free(h->b);
    free(h->c);
    free(h->ref);
    memset(h, 0, sizeof(*h));
}

static int make_host(enum ff_precision p, uint32_t n, struct ff_rng *rng, struct host_data *h)
{
    size_t el = (size_t)n * n;
    memset(h, 0, sizeof(*h));
    h->a = malloc(el * ff_prec_in_bytes(p));
    h->b = malloc(el * ff_prec_in_bytes(p));
    h->c = malloc(el * ff_prec_out_bytes(p));
    h->n_rows = ff_verify_rows(n, n, n, h->rows, 256);
    h->ref = malloc(h->n_rows * n * 4);
    if (!h->a || !h->b || !h->c || !h->ref) {
        free_host(h);
        return FF_ERR_NO_MEMORY;
    }
    ff_fill_random(p, h->a, el, rng);
    ff_fill_random(p, h->b, el, rng);
    int ret = ff_ref_matmul(p, h->a, h->b, h->ref, n, n, h->rows, h->n_rows);
    if (ret < 0)
        free_host(h);
    return ret;
}

/* Poison C on the device, run, read back and compare. */
static int checked_run(enum ff_precision p, uint32_t n, struct run_ctx *r, struct host_data *h,
                       bool poison, struct ff_check *chk, char *err, size_t errlen)
{
    size_t out_bytes = (size_t)n * n * ff_prec_out_bytes(p);
    int ret;
    if (poison) {
        ff_poison(p, h->c, (size_t)n * n);
        if ((ret = ff_buf_write(r->bufs[2], 0, h->c, out_bytes, err, errlen)) < 0)
            return ret;
        if ((ret = run_once(r, &(uint64_t){0}, &(uint64_t){0}, err, errlen)) < 0)
            return ret;
    }
    if ((ret = ff_buf_read(r->bufs[2], 0, h->c, out_bytes, err, errlen)) < 0)
        return ret;
    ret = ff_check_matmul(p, h->c, h->ref, n, n, h->rows, h->n_rows, chk);
    if (ret < 0)
        snprintf(err, errlen,
                 "result does not match the CPU reference: %llu element%s wrong, first at "
                 "[%u][%u] = %.6g (expected %.6g); max abs error %.3g, max rel error %.3g "
                 "(tolerance %.3g)",
                 (unsigned long long)chk->bad, chk->bad == 1 ? "" : "s", chk->first_row,
                 chk->first_col, chk->got, chk->want, chk->max_abs, chk->max_rel, chk->tolerance);
    return ret;
}

static void record_error(struct ff_result *res, const struct ff_check *chk)
{
    res->has_error = true;
    res->max_abs = chk->max_abs;
    res->max_rel = chk->max_rel;
    res->tolerance = chk->tolerance;
}

static enum ff_res_status status_of(int ret)
{
    return ret == FF_ERR_UNSUPPORTED ? FF_RES_UNSUPPORTED : FF_RES_FAILED;
}

/* One implementation at one size. Returns the median device time or 0. */
static double run_impl(struct ff_device *dev, const struct ff_bench_cfg *cfg,
                       struct ff_profile *prof, enum ff_precision p, size_t ii, uint32_t n,
                       struct ff_buf *const *bufs, struct host_data *h, bool *unsupported)
{
    char err[512] = "";
    struct ff_result *res = ff_profile_add(prof);
    if (!res)
        return 0;
    ff_result_set(res, "matmul", "matmul", impls[ii].impl);
    res->prec = (int)p;
    res->m = res->n = res->k = n;

    struct ff_kernel_desc desc = {.id = impls[ii].id, .prec = p, .m = n, .n = n, .k = n};
    struct run_ctx r = {.params = {n, n, n}};
    memcpy(r.bufs, bufs, sizeof(r.bufs));
    int ret = ff_kernel_create(dev, &desc, &r.k, err, sizeof(err));
    if (ret == FF_ERR_UNSUPPORTED) {
        /* Say it once per implementation and precision, not per size. */
        ff_result_fail(res, FF_RES_UNSUPPORTED, "%s", err);
        res->m = res->n = res->k = 0;
        *unsupported = true;
        return 0;
    }
    if (ret < 0) {
        ff_result_fail(res, FF_RES_FAILED, "%s: %s", ff_status_str(ret), err);
        return 0;
    }
    snprintf(res->variant, sizeof(res->variant), "%s", ff_kernel_variant(r.k));

    struct ff_check chk;
    ret = checked_run(p, n, &r, h, true, &chk, err, sizeof(err));
    if (ret == FF_OK) {
        ret = ff_measure(&cfg->measure, run_once, &r, &res->t, err, sizeof(err));
        if (ret == FF_OK) /* the timed runs must still produce the right answer */
            ret = checked_run(p, n, &r, h, false, &chk, err, sizeof(err));
    }
    if (ret == FF_ERR_VERIFY || ret == FF_OK)
        record_error(res, &chk);
    ff_kernel_destroy(&r.k);

    if (ret == FF_ERR_INTERRUPTED) {
        ff_result_interrupted(res);
        return 0;
    }
    if (ret < 0) {
        ff_result_fail(res, status_of(ret), "%s%s%s",
                       ret == FF_ERR_VERIFY ? "" : ff_status_str(ret),
                       ret == FF_ERR_VERIFY ? "" : ": ", err);
        return 0;
    }
    res->has_timing = true;
    res->verified = true;
    res->status = FF_RES_OK;
    double t = res->t.dev_median_s > 0 ? res->t.dev_median_s : res->t.wall_median_s;
    res->value = 2.0 * n * (double)n * n / t;
    snprintf(res->unit, sizeof(res->unit), "%s", p == FF_PREC_INT8 ? "OP/s" : "FLOP/s");
    return t;
}

static void fail_all(struct ff_profile *prof, enum ff_precision p, uint32_t n, const bool *skip,
                     const char *why)
{
    for (size_t ii = 0; ii < N_IMPLS; ii++) {
        if (skip[ii])
            continue;
        struct ff_result *res = ff_profile_add(prof);
        if (!res)
            return;
        ff_result_set(res, "matmul", "matmul", impls[ii].impl);
        res->prec = (int)p;
        res->m = res->n = res->k = n;
        ff_result_fail(res, FF_RES_FAILED, "%s", why);
    }
}

void ff_suite_matmul(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_profile *prof)
{
    struct ff_rng rng;
    ff_rng_seed(&rng, cfg->seed);
    for (int pi = 0; pi < FF_PREC_COUNT && !ff_interrupted; pi++) {
        enum ff_precision p = (enum ff_precision)pi;
        if (!cfg->prec[p])
            continue;
        bool skip[N_IMPLS] = {false};
        skip[2] = !cfg->library;
        /* Each implementation climbs the sizes until one run would pass
         * max_run_s: a slow library reference must not stop our kernel. */
        double last_t[N_IMPLS] = {0};
        uint32_t last_n = 0;
        for (size_t si = 0; si < cfg->n_sizes && !ff_interrupted; si++) {
            uint32_t n = cfg->sizes[si];
            bool any = false;
            for (size_t ii = 0; ii < N_IMPLS; ii++) {
                double ratio = last_n ? (double)n / last_n : 1;
                if (!cfg->sizes_given && last_t[ii] > 0 &&
                    last_t[ii] * ratio * ratio * ratio > cfg->max_run_s)
                    skip[ii] = true;
                any |= !skip[ii];
            }
            if (!any)
                break; /* larger sizes would take too long on this device */
            char err[512] = "";
            ff_progress(cfg, "%s %s n=%u: CPU reference", ff_device_info(dev)->name,
                        ff_precision_name(p), n);
            struct host_data h;
            int ret = make_host(p, n, &rng, &h);
            if (ret < 0) {
                fail_all(prof, p, n, skip, "host memory exhausted for the inputs");
                continue;
            }
            uint64_t in_bytes = (uint64_t)n * n * ff_prec_in_bytes(p);
            uint64_t out_bytes = (uint64_t)n * n * ff_prec_out_bytes(p);
            struct ff_buf *bufs[3] = {NULL};
            if ((ret = ff_buf_create(dev, in_bytes, &bufs[0], err, sizeof(err))) < 0 ||
                (ret = ff_buf_create(dev, in_bytes, &bufs[1], err, sizeof(err))) < 0 ||
                (ret = ff_buf_create(dev, out_bytes, &bufs[2], err, sizeof(err))) < 0 ||
                (ret = ff_buf_write(bufs[0], 0, h.a, in_bytes, err, sizeof(err))) < 0 ||
                (ret = ff_buf_write(bufs[1], 0, h.b, in_bytes, err, sizeof(err))) < 0) {
                char why[600];
                snprintf(why, sizeof(why), "%s: %s", ff_status_str(ret), err);
                fail_all(prof, p, n, skip, why);
            } else {
                for (size_t ii = 0; ii < N_IMPLS && !ff_interrupted; ii++) {
                    if (skip[ii])
                        continue;
                    ff_progress(cfg, "%s %s n=%u: %s", ff_device_info(dev)->name,
                                ff_precision_name(p), n, impls[ii].impl);
                    last_t[ii] = run_impl(dev, cfg, prof, p, ii, n, bufs, &h, &skip[ii]);
                    if (last_t[ii] == 0)
                        skip[ii] = true; /* failed here: larger sizes will not do better */
                }
                last_n = n;
            }
            for (int b = 2; b >= 0; b--)
                ff_buf_destroy(&bufs[b]);
            free_host(&h);
        }
    }
}
