/* bench/check/kcheck.c — fill, poison, run reference and device, compare, time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ff_util.h"
#include "kcheck.h"

void ff_kcheck_finish(struct ff_kcheck *kc)
{
    for (int i = 2; i >= 0; i--)
        ff_buf_destroy(&kc->bufs[i]);
    ff_ref_destroy(&kc->ref);
    free(kc->poison);
    free(kc->c);
    free(kc->b);
    free(kc->a);
    kc->a = kc->b = kc->c = kc->poison = NULL;
    kc->dev = NULL;
}

int ff_kcheck_init(struct ff_kcheck *kc, enum ff_precision p, uint32_t m, uint32_t n, uint32_t k,
                   uint64_t seed, char *err, size_t errlen)
{
    memset(kc, 0, sizeof(*kc));
    if (!ff_matmul_has_kernel(p))
        return ff_errf(err, errlen, FF_ERR_INVALID, "no matmul kernel for %s",
                       ff_precision_name(p));
    if (!m || !n || !k)
        return ff_errf(err, errlen, FF_ERR_INVALID, "empty matmul %ux%ux%u", m, n, k);
    kc->prec = p;
    kc->m = m;
    kc->n = n;
    kc->k = k;
    size_t in = ff_matmul_in_bytes(p), out = ff_matmul_out_bytes(p), mn = (size_t)m * n;
    kc->a = malloc((size_t)m * k * in);
    kc->b = malloc((size_t)k * n * in);
    kc->c = malloc(mn * out);
    kc->poison = malloc(mn * out);
    if (!kc->a || !kc->b || !kc->c || !kc->poison)
        goto error_alloc;
    struct ff_rng rng;
    ff_rng_seed(&rng, seed);
    ff_fill_random(p, kc->a, (size_t)m * k, &rng);
    ff_fill_random(p, kc->b, (size_t)k * n, &rng);
    ff_poison(p, kc->poison, mn);
    memcpy(kc->c, kc->poison, mn * out);
    if (ff_ref_create(p, kc->a, kc->b, m, n, k, ff_rng_next(&rng), &kc->ref) < 0)
        goto error_alloc;
    return FF_OK;

error_alloc:
    ff_kcheck_finish(kc);
    return ff_errf(err, errlen, FF_ERR_NO_MEMORY,
                   "host memory exhausted for the inputs and reference of %ux%ux%u", m, n, k);
}

int ff_kcheck_upload(struct ff_kcheck *kc, struct ff_device *dev, char *err, size_t errlen)
{
    uint64_t in = ff_matmul_in_bytes(kc->prec), out = ff_matmul_out_bytes(kc->prec);
    uint64_t bytes[3] = {(uint64_t)kc->m * kc->k * in, (uint64_t)kc->k * kc->n * in,
                         (uint64_t)kc->m * kc->n * out};
    int ret;
    kc->dev = dev;
    for (int i = 0; i < 3; i++)
        if ((ret = ff_buf_create(dev, bytes[i], &kc->bufs[i], err, errlen)) < 0)
            goto error_bufs;
    if ((ret = ff_buf_write(kc->bufs[0], 0, kc->a, bytes[0], err, errlen)) < 0 ||
        (ret = ff_buf_write(kc->bufs[1], 0, kc->b, bytes[1], err, errlen)) < 0)
        goto error_bufs;
    return FF_OK;

error_bufs:
    for (int i = 2; i >= 0; i--)
        ff_buf_destroy(&kc->bufs[i]);
    return ret;
}

int ff_kcheck_compare(struct ff_kcheck *kc, const void *c, char *err, size_t errlen)
{
    const struct ff_check *chk = &kc->check;
    if (ff_ref_check(kc->ref, c, &kc->check) == FF_OK)
        return FF_OK;
    return ff_errf(err, errlen, FF_ERR_VERIFY,
                   "result does not match the CPU reference: %llu of %llu checked elements "
                   "wrong, first at [%u][%u] = %.6g (expected %.6g, bound %.3g); max abs error "
                   "%.3g, max rel error %.3g (tolerance %.3g)",
                   (unsigned long long)chk->bad, (unsigned long long)chk->checked, chk->first_row,
                   chk->first_col, chk->got, chk->want, chk->bound, chk->max_abs, chk->max_rel,
                   chk->tolerance);
}

static uint64_t out_bytes(const struct ff_kcheck *kc)
{
    return (uint64_t)kc->m * kc->n * ff_matmul_out_bytes(kc->prec);
}

struct timed {
    struct ff_kcheck *kc;
    struct ff_kernel *kern;
};

/* One run into a freshly poisoned C; the times are the kernel's alone. */
static int poisoned_run(void *arg, uint64_t *dns, uint64_t *wns, char *err, size_t errlen)
{
    struct timed *t = arg;
    struct ff_kcheck *kc = t->kc;
    uint32_t params[3] = {kc->m, kc->n, kc->k};
    int ret = ff_buf_write(kc->bufs[2], 0, kc->poison, out_bytes(kc), err, errlen);
    if (ret < 0)
        return ret;
    return ff_kernel_run(t->kern, kc->bufs, 3, params, 3, dns, wns, err, errlen);
}

static int read_and_compare(struct ff_kcheck *kc, char *err, size_t errlen)
{
    int ret = ff_buf_read(kc->bufs[2], 0, kc->c, out_bytes(kc), err, errlen);
    return ret < 0 ? ret : ff_kcheck_compare(kc, kc->c, err, errlen);
}

int ff_kcheck_run(struct ff_kcheck *kc, struct ff_kernel *kern, char *err, size_t errlen)
{
    struct timed t = {kc, kern};
    uint64_t dns = 0, wns = 0;
    int ret = poisoned_run(&t, &dns, &wns, err, errlen);
    return ret < 0 ? ret : read_and_compare(kc, err, errlen);
}

int ff_kcheck_bench(struct ff_kcheck *kc, struct ff_kernel *kern, const struct ff_measure_cfg *cfg,
                    struct ff_timing *t, char *err, size_t errlen)
{
    return ff_kcheck_bench_paired(kc, kern, cfg, NULL, t, err, errlen);
}

int ff_kcheck_bench_paired(struct ff_kcheck *kc, struct ff_kernel *kern,
                           const struct ff_measure_cfg *cfg, struct ff_pair *pair,
                           struct ff_timing *t, char *err, size_t errlen)
{
    struct timed ctx = {kc, kern};
    int ret = ff_measure_paired(cfg, poisoned_run, &ctx, pair, t, err, errlen);
    return ret < 0 ? ret : read_and_compare(kc, err, errlen);
}

/* ---- physical plausibility ------------------------------------------------ */

double ff_kcheck_rate_limit(const struct ff_device_info *info, enum ff_precision p, char *why,
                            size_t whylen)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return ff_bound_matmul_rate(info->type, info->compute_units, info->clock_mhz,
                                cpus > 0 ? (uint64_t)cpus : 1, p, why, whylen);
}
