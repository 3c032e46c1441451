/*
 * bench/check/opcheck.c — inputs, CPU references and error bounds of the op kernels
 * (opcheck.h). Each bound is the error fp32 arithmetic may honestly add, u = 2^-24 per
 * rounding: a sum of k terms in any order within (sqrt(k) + 4) u of the sum of their
 * magnitudes (Higham & Mary 2019's probabilistic bound, as verify.h uses for matmul), exp and
 * rsqrt within a few u, plus u of the result's own rounding. A kernel that skips or repeats a
 * block of work, reads the wrong scale or nibble, or accumulates in 16 bits is off by far more.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "opcheck.h"

#define U 0x1p-24 /* fp32 unit roundoff */

/* Uniform in [-1, 1), never exactly representable trouble: 24 random bits. */
static float uniform(struct ff_rng *r)
{
    return (float)((double)(ff_rng_next(r) >> 40) * 0x1p-23 - 1.0);
}

static uint16_t to_bf16(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    b += 0x7fff + ((b >> 16) & 1); /* round to nearest even */
    return (uint16_t)(b >> 16);
}

static double from_bf16(uint16_t h)
{
    uint32_t b = (uint32_t)h << 16;
    float f;
    memcpy(&f, &b, 4);
    return f;
}

/* n floats of format p (fp32, fp16, bf16) into dst, their exact values into val. */
static void fill_float(enum ff_precision p, void *dst, double *val, uint64_t n, struct ff_rng *r)
{
    for (uint64_t i = 0; i < n; i++) {
        float f = uniform(r);
        if (p == FF_PREC_FP32) {
            ((float *)dst)[i] = f;
            val[i] = f;
        } else if (p == FF_PREC_FP16) {
            uint16_t h = ff_f32_to_f16(f);
            ((uint16_t *)dst)[i] = h;
            val[i] = ff_f16_to_f32(h);
        } else {
            uint16_t h = to_bf16(f);
            ((uint16_t *)dst)[i] = h;
            val[i] = from_bf16(h);
        }
    }
}

/* GEMV weights in format p into w and s (ff_op_buf_bytes' layout). */
static void fill_weights(enum ff_precision p, uint32_t n, uint32_t k, void *w, void *s,
                         struct ff_rng *r)
{
    const uint64_t nk = (uint64_t)n * k;
    switch (p) {
    case FF_PREC_INT8:
        for (uint32_t row = 0; row < n; row++)
            ((float *)s)[row] = (1.0f + 0.5f * uniform(r)) / 127.0f;
        for (uint64_t e = 0; e < nk; e++)
            ((int8_t *)w)[e] = (int8_t)(ff_rng_next(r) >> 56);
        return;
    case FF_PREC_Q8_0:
    case FF_PREC_Q4_0:
        for (uint64_t b = 0; b < nk / 32; b++)
            ((uint16_t *)s)[b] = ff_f32_to_f16((1.0f + 0.5f * uniform(r)) / 64.0f);
        for (uint64_t e = 0; e < (p == FF_PREC_Q8_0 ? nk : nk / 2); e++)
            ((uint8_t *)w)[e] = (uint8_t)(ff_rng_next(r) >> 56);
        return;
    default: {
        /* floats: one row of exact values at a time, never the whole matrix in double */
        double v[64];
        for (uint64_t e = 0; e < nk; e += 64) {
            uint64_t c = nk - e < 64 ? nk - e : 64;
            fill_float(p, (char *)w + e * (p == FF_PREC_FP32 ? 4 : 2), v, c, r);
        }
        return;
    }
    }
}

/* The exact values of row `row` of GEMV weights (k of them) into out. */
static void dequant_row(enum ff_precision p, const void *w, const void *s, uint32_t row, uint32_t k,
                        double *out)
{
    const uint64_t e0 = (uint64_t)row * k;
    for (uint32_t c = 0; c < k; c++) {
        const uint64_t e = e0 + c;
        switch (p) {
        case FF_PREC_FP32: out[c] = ((const float *)w)[e]; break;
        case FF_PREC_FP16: out[c] = ff_f16_to_f32(((const uint16_t *)w)[e]); break;
        case FF_PREC_BF16: out[c] = from_bf16(((const uint16_t *)w)[e]); break;
        case FF_PREC_INT8: out[c] = (double)((const int8_t *)w)[e] * ((const float *)s)[row]; break;
        case FF_PREC_Q8_0:
            out[c] = (double)((const int8_t *)w)[e] * ff_f16_to_f32(((const uint16_t *)s)[e / 32]);
            break;
        case FF_PREC_Q4_0: {
            const uint8_t byte = ((const uint8_t *)w)[e / 32 * 16 + (e % 16)];
            const int q = e % 32 < 16 ? byte & 15 : byte >> 4;
            out[c] = (q - 8) * (double)ff_f16_to_f32(((const uint16_t *)s)[e / 32]);
            break;
        }
        default: out[c] = NAN; break;
        }
    }
}

/* Row `row` of attention over positions 0..len-1 of one KV head (kv, vv: len x k values):
 * the exact output into want[0..k) and each element's bound into bound[0..k). */
static void attn_row(const float *q, const double *kv, const double *vv, uint32_t len, uint32_t k,
                     double *p, double *want, double *bound)
{
    const double scale = 1.0 / sqrt((double)k);
    double smax = -INFINITY, sabs = 0;
    for (uint32_t t = 0; t < len; t++) {
        double s = 0, a = 0;
        for (uint32_t d = 0; d < k; d++) {
            s += q[d] * kv[(uint64_t)t * k + d];
            a += fabs(q[d] * kv[(uint64_t)t * k + d]);
        }
        p[t] = s * scale;
        smax = fmax(smax, p[t]);
        sabs = fmax(sabs, a * scale);
    }
    double sum = 0;
    for (uint32_t t = 0; t < len; t++)
        sum += (p[t] = exp(p[t] - smax));
    for (uint32_t d = 0; d < k; d++)
        want[d] = 0;
    double vmax = 0;
    for (uint32_t t = 0; t < len; t++)
        for (uint32_t d = 0; d < k; d++) {
            want[d] += p[t] / sum * vv[(uint64_t)t * k + d];
            vmax = fmax(vmax, fabs(vv[(uint64_t)t * k + d]));
        }
    /* score error (sqrt(k)+4) u sabs moves each weight by that relatively; exp, the online
     * rescaling and the two sums over len add a few u and (sqrt(len)+4) u each */
    const double b = U * vmax * (16 + 2 * sabs * (sqrt((double)k) + 4) + 4 * sqrt((double)len));
    for (uint32_t d = 0; d < k; d++)
        bound[d] = b;
}

/* Whether gemv's S holds scales in format p (else it is unused). */
static bool has_scales(enum ff_precision p)
{
    return p == FF_PREC_INT8 || p == FF_PREC_Q8_0 || p == FF_PREC_Q4_0;
}

static int no_memory(char *err, size_t errlen)
{
    return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "host memory exhausted for the op check");
}

/* The references of each op kind; vals[i] holds input i's exact values where it needs them. */
static int ref_gemv(struct ff_opcheck *oc)
{
    const struct ff_kernel_desc *d = &oc->desc;
    const float *x = oc->host[0];
    double *w = malloc(sizeof(double) * d->k);
    if (!w)
        return FF_ERR_NO_MEMORY;
    const double g = fmin((double)d->k, sqrt((double)d->k) + 4) + 4;
    for (uint32_t j = 0; j < d->n; j++) {
        dequant_row(d->prec, oc->host[1], oc->host[2], j, d->k, w);
        for (uint32_t i = 0; i < d->m; i++) {
            double s = 0, a = 0;
            for (uint32_t t = 0; t < d->k; t++) {
                double pr = x[(uint64_t)i * d->k + t] * w[t];
                s += pr;
                a += fabs(pr);
            }
            uint64_t e = (uint64_t)i * d->n + j;
            oc->want[e] = s;
            oc->bound[e] = g * U * a + U * fabs(s) + 0x1p-126;
        }
    }
    free(w);
    return FF_OK;
}

static int ref_attn(struct ff_opcheck *oc, double *const *vals, struct ff_rng *rng)
{
    const struct ff_kernel_desc *d = &oc->desc;
    const bool prefill = d->id == FF_KERNEL_ATTN_PREFILL;
    const uint32_t k = d->k, n = d->n;
    const uint64_t per_head = (uint64_t)n * k;
    double *p = malloc(sizeof(double) * n);
    if (!p)
        return FF_ERR_NO_MEMORY;
    /* prefill: the first and last query of every head and a draw of the others while the
     * reference stays under 2^28 multiply-adds */
    const uint64_t per_row_budget = (1ull << 28) / d->m;
    uint64_t c = 0;
    for (uint32_t i = 0; i < d->m; i++) {
        const double *kv = vals[1] + (uint64_t)(i / d->g) * per_head;
        const double *vv = vals[2] + (uint64_t)(i / d->g) * per_head;
        const float *q = oc->host[0];
        if (!prefill) {
            attn_row(q + (uint64_t)i * k, kv, vv, n, k, p, oc->want + c, oc->bound + c);
            for (uint32_t e = 0; e < k; e++)
                oc->idx[c + e] = (uint64_t)i * k + e;
            c += k;
            continue;
        }
        uint64_t spent = 0;
        for (uint32_t t = 0; t < n; t++) {
            uint64_t cost = 2ull * (t + 1) * k;
            bool take = t == 0 || t == n - 1 ||
                        (spent + cost <= per_row_budget && ff_rng_next(rng) % 4 == 0);
            if (!take)
                continue;
            spent += cost;
            attn_row(q + ((uint64_t)i * n + t) * k, kv, vv, t + 1, k, p, oc->want + c,
                     oc->bound + c);
            for (uint32_t e = 0; e < k; e++)
                oc->idx[c + e] = ((uint64_t)i * n + t) * k + e;
            c += k;
        }
    }
    oc->n_checked = c;
    free(p);
    return FF_OK;
}

static void ref_small(struct ff_opcheck *oc)
{
    const struct ff_kernel_desc *d = &oc->desc;
    const uint32_t m = d->m, n = d->n;
    const float *a = oc->host[0], *b = oc->n_bufs > 2 ? oc->host[1] : NULL;
    for (uint32_t i = 0; i < m; i++) {
        const float *x = a + (uint64_t)i * n;
        double *want = oc->want + (uint64_t)i * n, *bound = oc->bound + (uint64_t)i * n;
        switch (d->id) {
        case FF_KERNEL_RMSNORM: {
            double ss = 0;
            for (uint32_t j = 0; j < n; j++)
                ss += (double)x[j] * x[j];
            double inv = 1.0 / sqrt(ss / n + 1e-6);
            for (uint32_t j = 0; j < n; j++) {
                want[j] = x[j] * inv * b[j];
                bound[j] = U * (16 + sqrt((double)n)) * fabs(want[j]) + 0x1p-126;
            }
            break;
        }
        case FF_KERNEL_ROPE: {
            const uint32_t h = n / 2;
            const double pos = (double)oc->params[2] + i / d->g;
            for (uint32_t j = 0; j < h; j++) {
                double ang = pos * pow(10000.0, -2.0 * j / n);
                double cs = cos(ang), sn = sin(ang);
                want[j] = x[j] * cs - x[j + h] * sn;
                want[j + h] = x[j] * sn + x[j + h] * cs;
                /* the kernel's fp32 frequency and product move the angle by ~8 u of itself */
                double e = U * (8 + 8 * ang) * (fabs(x[j]) + fabs(x[j + h])) + 0x1p-126;
                bound[j] = bound[j + h] = e;
            }
            break;
        }
        case FF_KERNEL_SWIGLU:
            for (uint32_t j = 0; j < n; j++) {
                want[j] = x[j] / (1 + exp(-(double)x[j])) * b[(uint64_t)i * n + j];
                bound[j] = 16 * U * fabs(want[j]) + 0x1p-126;
            }
            break;
        case FF_KERNEL_ADD:
            for (uint32_t j = 0; j < n; j++) {
                want[j] = (double)x[j] + b[(uint64_t)i * n + j];
                bound[j] = U * fabs(want[j]) + 0x1p-149;
            }
            break;
        default: break;
        }
    }
}

static void ref_xent(struct ff_opcheck *oc)
{
    const struct ff_kernel_desc *d = &oc->desc;
    const float *x = oc->host[0];
    const uint32_t *t = oc->host[1];
    for (uint32_t i = 0; i < d->m; i++) {
        const float *row = x + (uint64_t)i * d->n;
        double mx = -INFINITY, s = 0;
        for (uint32_t j = 0; j < d->n; j++)
            mx = fmax(mx, row[j]);
        for (uint32_t j = 0; j < d->n; j++)
            s += exp(row[j] - mx);
        double lse = mx + log(s);
        oc->want[i] = lse - row[t[i]];
        oc->bound[i] = U * (16 + 2 * sqrt((double)d->n) + 4 * (fabs(lse) + fabs(row[t[i]])));
    }
}

int ff_opcheck_init(struct ff_opcheck *oc, const struct ff_kernel_desc *desc, uint64_t seed,
                    char *err, size_t errlen)
{
    memset(oc, 0, sizeof(*oc));
    int ret = ff_op_desc_check(desc, err, errlen); /* what the kernel would refuse */
    if (ret < 0)
        return ret;
    const struct ff_kernel_desc *d = desc;
    bool attn = d->id == FF_KERNEL_ATTN_DECODE || d->id == FF_KERNEL_ATTN_PREFILL;
    oc->desc = *d;
    switch (d->id) {
    case FF_KERNEL_GEMV:
    case FF_KERNEL_ATTN_DECODE:
    case FF_KERNEL_ATTN_PREFILL: oc->n_bufs = 4; break;
    case FF_KERNEL_ROPE: oc->n_bufs = 2; break;
    default: oc->n_bufs = 3; break;
    }
    oc->n_params = d->id == FF_KERNEL_GEMV || attn || d->id == FF_KERNEL_ROPE ? 3 : 2;
    oc->params[0] = d->m;
    oc->params[1] = d->n;
    oc->params[2] = d->id == FF_KERNEL_ROPE ? 7 + d->m / d->g : d->k; /* pos0: past a prompt */

    struct ff_rng rng;
    ff_rng_seed(&rng, seed);
    double *vals[FF_MAX_BUFS] = {NULL};
    ret = FF_ERR_NO_MEMORY;
    for (uint32_t i = 0; i < oc->n_bufs; i++) {
        oc->bytes[i] = ff_op_buf_bytes(d, i, NULL);
        if (!(oc->host[i] = malloc(oc->bytes[i] ? oc->bytes[i] : 1)))
            goto error;
    }
    const uint32_t o = oc->n_bufs - 1;
    oc->n_out = oc->bytes[o] / 4;
    oc->n_checked = oc->n_out;
    oc->poison = malloc(oc->bytes[o]);
    oc->want = malloc(sizeof(double) * oc->n_out);
    oc->bound = malloc(sizeof(double) * oc->n_out);
    oc->idx = malloc(sizeof(uint64_t) * oc->n_out);
    if (!oc->poison || !oc->want || !oc->bound || !oc->idx)
        goto error;
    ff_poison(FF_PREC_FP32, oc->poison, oc->n_out);
    for (uint64_t e = 0; e < oc->n_out; e++)
        oc->idx[e] = e;

    /* inputs: activations fp32 in [-1, 1), weights and KV in their format */
    if (d->id == FF_KERNEL_GEMV) {
        double *scratch = malloc(sizeof(double) * d->m * (uint64_t)d->k);
        if (!scratch)
            goto error;
        fill_float(FF_PREC_FP32, oc->host[0], scratch, (uint64_t)d->m * d->k, &rng);
        free(scratch);
        fill_weights(d->prec, d->n, d->k, oc->host[1], oc->host[2], &rng);
        if (!has_scales(d->prec))
            memset(oc->host[2], 0, oc->bytes[2]); /* S unused: written, never read */
        if ((ret = ref_gemv(oc)) < 0)
            goto error;
    } else if (attn) {
        uint64_t q_n = oc->bytes[0] / 4, kv_n = oc->bytes[1] / (d->prec == FF_PREC_FP32 ? 4 : 2);
        double *scratch = malloc(sizeof(double) * q_n);
        vals[1] = malloc(sizeof(double) * kv_n);
        vals[2] = malloc(sizeof(double) * kv_n);
        if (!scratch || !vals[1] || !vals[2]) {
            free(scratch);
            goto error;
        }
        fill_float(FF_PREC_FP32, oc->host[0], scratch, q_n, &rng);
        free(scratch);
        fill_float(d->prec, oc->host[1], vals[1], kv_n, &rng);
        fill_float(d->prec, oc->host[2], vals[2], kv_n, &rng);
        if ((ret = ref_attn(oc, vals, &rng)) < 0)
            goto error;
    } else {
        for (uint32_t i = 0; i < o; i++) {
            if (d->id == FF_KERNEL_XENT && i == 1) {
                for (uint32_t r = 0; r < d->m; r++)
                    ((uint32_t *)oc->host[1])[r] = (uint32_t)(ff_rng_next(&rng) % d->n);
                continue;
            }
            float *f = oc->host[i];
            for (uint64_t e = 0; e < oc->bytes[i] / 4; e++)
                f[e] = uniform(&rng) * (d->id == FF_KERNEL_XENT ? 8.0f : 1.0f);
        }
        if (d->id == FF_KERNEL_XENT)
            ref_xent(oc);
        else
            ref_small(oc);
    }
    for (uint32_t i = 0; i < FF_MAX_BUFS; i++)
        free(vals[i]);
    return FF_OK;

error:
    for (uint32_t i = 0; i < FF_MAX_BUFS; i++)
        free(vals[i]);
    ff_opcheck_finish(oc);
    return ret == FF_ERR_NO_MEMORY ? no_memory(err, errlen) : ret;
}

static void free_sets(struct ff_opcheck *oc)
{
    const uint32_t per = oc->n_bufs ? oc->n_bufs - 1 : 0;
    for (uint32_t i = 0; oc->sets && i + 1 < oc->n_sets; i++)
        for (uint32_t b = 0; b < per; b++)
            ff_buf_destroy(&oc->sets[i * per + b]);
    free(oc->sets);
    oc->sets = NULL;
    oc->n_sets = oc->next_set = 0;
}

uint32_t ff_opcheck_rotate(struct ff_opcheck *oc, uint64_t min_bytes)
{
    char err[256];
    const uint32_t per = oc->n_bufs - 1;
    uint64_t in = 0;
    for (uint32_t b = 0; b < per; b++)
        in += oc->bytes[b];
    free_sets(oc);
    uint64_t want = in ? (min_bytes + in - 1) / in : 1;
    if (want > FF_OPCHECK_MAX_SETS)
        want = FF_OPCHECK_MAX_SETS;
    oc->n_sets = 1;
    if (want < 2 || !oc->dev || !(oc->sets = calloc((size_t)(want - 1) * per, sizeof(*oc->sets))))
        return oc->n_sets;
    for (uint32_t i = 0; i + 1 < want; i++) {
        bool ok = true;
        for (uint32_t b = 0; b < per && ok; b++) {
            struct ff_buf **dst = &oc->sets[i * per + b];
            ok = ff_buf_create(oc->dev, oc->bytes[b], dst, err, sizeof(err)) == FF_OK &&
                 ff_buf_write(*dst, 0, oc->host[b], oc->bytes[b], err, sizeof(err)) == FF_OK;
        }
        if (!ok) {
            for (uint32_t b = 0; b < per; b++)
                ff_buf_destroy(&oc->sets[i * per + b]);
            break;
        }
        oc->n_sets++;
    }
    return oc->n_sets;
}

void ff_opcheck_finish(struct ff_opcheck *oc)
{
    if (!oc)
        return;
    free_sets(oc);
    for (int i = FF_MAX_BUFS - 1; i >= 0; i--) {
        ff_buf_destroy(&oc->bufs[i]);
        free(oc->host[i]);
        oc->host[i] = NULL;
    }
    free(oc->poison);
    free(oc->want);
    free(oc->bound);
    free(oc->idx);
    oc->poison = NULL;
    oc->want = oc->bound = NULL;
    oc->idx = NULL;
}

int ff_opcheck_upload(struct ff_opcheck *oc, struct ff_device *dev, char *err, size_t errlen)
{
    int ret = FF_OK;
    oc->dev = dev;
    for (uint32_t i = 0; i < oc->n_bufs; i++)
        if ((ret = ff_buf_create(dev, oc->bytes[i], &oc->bufs[i], err, errlen)) < 0)
            goto error_bufs;
    for (uint32_t i = 0; i + 1 < oc->n_bufs; i++)
        if ((ret = ff_buf_write(oc->bufs[i], 0, oc->host[i], oc->bytes[i], err, errlen)) < 0)
            goto error_bufs;
    return FF_OK;

error_bufs:
    for (int i = FF_MAX_BUFS - 1; i >= 0; i--)
        ff_buf_destroy(&oc->bufs[i]);
    return ret;
}

/* The width of an output row, for naming the first bad element [row][col]. */
static uint32_t out_width(const struct ff_kernel_desc *d)
{
    switch (d->id) {
    case FF_KERNEL_ATTN_DECODE:
    case FF_KERNEL_ATTN_PREFILL: return d->k;
    case FF_KERNEL_XENT: return 1;
    default: return d->n;
    }
}

int ff_opcheck_compare(struct ff_opcheck *oc, const float *out, char *err, size_t errlen)
{
    struct ff_check *c = &oc->check;
    memset(c, 0, sizeof(*c));
    double max_want = 0, max_bound = 0;
    const uint32_t w = out_width(&oc->desc);
    for (uint64_t e = 0; e < oc->n_checked; e++) {
        double got = out[oc->idx[e]], want = oc->want[e], bound = oc->bound[e];
        double diff = fabs(got - want);
        if (isnan(diff))
            diff = INFINITY;
        c->checked++;
        max_want = fmax(max_want, fabs(want));
        max_bound = fmax(max_bound, bound);
        c->max_abs = fmax(c->max_abs, diff);
        c->worst = fmax(c->worst, diff / bound);
        if (!(diff <= bound)) {
            if (c->bad++ == 0) {
                c->first_row = (uint32_t)(oc->idx[e] / w);
                c->first_col = (uint32_t)(oc->idx[e] % w);
                c->got = got;
                c->want = want;
                c->bound = bound;
            }
        }
    }
    c->max_rel = max_want > 0 ? c->max_abs / max_want : c->max_abs;
    c->tolerance = max_want > 0 ? max_bound / max_want : max_bound;
    if (!c->bad)
        return FF_OK;
    return ff_errf(err, errlen, FF_ERR_VERIFY,
                   "result does not match the CPU reference: %llu of %llu checked elements "
                   "wrong, first at [%u][%u] = %.6g (expected %.6g, bound %.3g); max abs error "
                   "%.3g",
                   (unsigned long long)c->bad, (unsigned long long)c->checked, c->first_row,
                   c->first_col, c->got, c->want, c->bound, c->max_abs);
}

struct timed {
    struct ff_opcheck *oc;
    struct ff_kernel *kern;
};

/* The poison written over the output (outside any timed run). */
static int poison_output(struct ff_opcheck *oc, char *err, size_t errlen)
{
    const uint32_t o = oc->n_bufs - 1;
    return ff_buf_write(oc->bufs[o], 0, oc->poison, oc->bytes[o], err, errlen);
}

/* The next run's buffers into bufs: the next set of inputs in the rotation, the one output. */
static void next_set(struct ff_opcheck *oc, struct ff_buf **bufs)
{
    const uint32_t o = oc->n_bufs - 1;
    const uint32_t set = oc->n_sets > 1 ? oc->next_set++ % oc->n_sets : 0;
    for (uint32_t b = 0; b < oc->n_bufs; b++)
        bufs[b] = set == 0 || b == o ? oc->bufs[b] : oc->sets[(set - 1) * o + b];
}

/* One run into a freshly poisoned output; the times are the kernel's alone. */
static int poisoned_run(void *arg, uint64_t *dns, uint64_t *wns, char *err, size_t errlen)
{
    struct timed *t = arg;
    struct ff_opcheck *oc = t->oc;
    int ret = poison_output(oc, err, errlen);
    if (ret < 0)
        return ret;
    struct ff_buf *bufs[FF_MAX_BUFS];
    next_set(oc, bufs);
    return ff_kernel_run(t->kern, bufs, oc->n_bufs, oc->params, oc->n_params, dns, wns, err,
                         errlen);
}

static int read_and_compare(struct ff_opcheck *oc, char *err, size_t errlen)
{
    const uint32_t o = oc->n_bufs - 1;
    int ret = ff_buf_read(oc->bufs[o], 0, oc->host[o], oc->bytes[o], err, errlen);
    return ret < 0 ? ret : ff_opcheck_compare(oc, oc->host[o], err, errlen);
}

int ff_opcheck_run(struct ff_opcheck *oc, struct ff_kernel *kern, char *err, size_t errlen)
{
    struct timed t = {oc, kern};
    uint64_t dns = 0, wns = 0;
    int ret = poisoned_run(&t, &dns, &wns, err, errlen);
    return ret < 0 ? ret : read_and_compare(oc, err, errlen);
}

/* A chain of FF_OPCHECK_CHAIN launches into a freshly poisoned output, launch i on the next
 * set of inputs; the times are per launch. */
static int poisoned_chain(void *arg, uint64_t *dns, uint64_t *wns, char *err, size_t errlen)
{
    struct timed *t = arg;
    struct ff_opcheck *oc = t->oc;
    int ret = poison_output(oc, err, errlen);
    if (ret < 0)
        return ret;
    struct ff_buf *sets[FF_OPCHECK_CHAIN * FF_MAX_BUFS];
    for (uint32_t i = 0; i < FF_OPCHECK_CHAIN; i++)
        next_set(oc, sets + i * oc->n_bufs);
    uint64_t d = 0, w = 0;
    ret = ff_kernel_run_sets(t->kern, sets, oc->n_bufs, FF_OPCHECK_CHAIN, oc->params, oc->n_params,
                             FF_OPCHECK_CHAIN, &d, &w, err, errlen);
    *dns = d / FF_OPCHECK_CHAIN;
    *wns = w / FF_OPCHECK_CHAIN;
    return ret;
}

int ff_opcheck_bench(struct ff_opcheck *oc, struct ff_kernel *kern,
                     const struct ff_measure_cfg *cfg, struct ff_timing *t, char *err,
                     size_t errlen)
{
    /* ff_measure adds a chain's time per launch to its budget, and a chain takes
     * FF_OPCHECK_CHAIN of those: the budget, divided, holds the chains' real time */
    struct ff_measure_cfg c = *cfg;
    c.budget_s = cfg->budget_s / FF_OPCHECK_CHAIN;
    struct timed ctx = {oc, kern};
    oc->chain = FF_OPCHECK_CHAIN;
    int ret = ff_measure(&c, poisoned_chain, &ctx, t, err, errlen);
    if (ret == FF_OK) {
        t->reps *= FF_OPCHECK_CHAIN;
    } else if (ret == FF_ERR_UNSUPPORTED) {
        /* the backend runs no chain of this kernel (checked before any launch): alone */
        oc->chain = 0;
        ret = ff_measure(cfg, poisoned_run, &ctx, t, err, errlen);
    }
    return ret < 0 ? ret : read_and_compare(oc, err, errlen);
}

uint64_t ff_opcheck_bytes(const struct ff_kernel_desc *d)
{
    if (!d || !ff_kernel_is_op(d->id))
        return 0;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < FF_MAX_BUFS; i++) {
        if (!(d->id == FF_KERNEL_GEMV && i == 2 && !has_scales(d->prec)))
            sum += ff_op_buf_bytes(d, i, NULL);
    }
    return sum;
}

double ff_opcheck_flops(const struct ff_kernel_desc *d)
{
    if (!d)
        return 0;
    switch (d->id) {
    case FF_KERNEL_GEMV: return 2.0 * d->m * d->n * (double)d->k;
    case FF_KERNEL_ATTN_DECODE: return 4.0 * d->m * d->n * (double)d->k;
    case FF_KERNEL_ATTN_PREFILL: return 2.0 * d->m * d->n * (d->n + 1.0) * d->k;
    default: return 0;
    }
}
