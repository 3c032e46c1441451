/* bench/verify.c — inputs, CPU reference and comparison for matmul. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verify.h"

void ff_rng_seed(struct ff_rng *r, uint64_t seed)
{
    r->s = seed ? seed : 0x9e3779b97f4a7c15ull;
}

/* splitmix64: fast, well mixed, reproducible from a seed. */
uint64_t ff_rng_next(struct ff_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint16_t ff_f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof(x));
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t exp = (x >> 23) & 0xffu;
    uint32_t man = x & 0x7fffffu;
    if (exp == 0xff) /* inf / nan */
        return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) { /* subnormal or zero, round to nearest even */
        if (e < -10)
            return (uint16_t)sign;
        man |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - e);
        uint32_t h = man >> shift;
        uint32_t rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1)))
            h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)e << 10) | (man >> 13);
    uint32_t rem = man & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
        h++; /* may carry into the exponent, which is still correct */
    return (uint16_t)(sign | h);
}

float ff_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, x;
    if (exp == 0) {
        if (man == 0) {
            x = sign;
        } else { /* subnormal: normalise */
            int e = -1;
            do {
                man <<= 1;
                e++;
            } while (!(man & 0x400u));
            x = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
        }
    } else if (exp == 31) {
        x = sign | 0x7f800000u | (man << 13);
    } else {
        x = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &x, sizeof(f));
    return f;
}

size_t ff_prec_in_bytes(enum ff_precision p)
{
    return p == FF_PREC_FP32 ? 4 : p == FF_PREC_FP16 ? 2 : 1;
}

size_t ff_prec_out_bytes(enum ff_precision p)
{
    return p == FF_PREC_FP16 ? 2 : 4;
}

void ff_fill_random(enum ff_precision p, void *dst, size_t count, struct ff_rng *rng)
{
    for (size_t i = 0; i < count; i++) {
        uint64_t r = ff_rng_next(rng);
        /* 24 random bits -> [-1, 1) exactly representable in fp32 */
        float f = (float)((int32_t)(r >> 40) - (1 << 23)) / (float)(1 << 23);
        switch (p) {
        case FF_PREC_FP32: ((float *)dst)[i] = f; break;
        case FF_PREC_FP16: ((uint16_t *)dst)[i] = ff_f32_to_f16(f); break;
        default: ((int8_t *)dst)[i] = (int8_t)(r >> 56); break;
        }
    }
}

void ff_poison(enum ff_precision p, void *dst, size_t count)
{
    switch (p) {
    case FF_PREC_FP32:
        for (size_t i = 0; i < count; i++)
            ((float *)dst)[i] = NAN;
        break;
    case FF_PREC_FP16:
        for (size_t i = 0; i < count; i++)
            ((uint16_t *)dst)[i] = 0x7e00u;
        break;
    default:
        for (size_t i = 0; i < count; i++)
            ((int32_t *)dst)[i] = 0x7f7f7f7f;
        break;
    }
}

/* Full check up to 2^31 multiply-adds (about 1290^3); beyond, 256 rows. */
#define FULL_CHECK_MACS (1ull << 31)
#define SAMPLE_ROWS     256

size_t ff_verify_rows(uint32_t m, uint32_t n, uint32_t k, uint32_t *rows, size_t max_rows)
{
    if ((uint64_t)m * n * k <= FULL_CHECK_MACS || m <= SAMPLE_ROWS) {
        size_t c = m < max_rows ? m : max_rows;
        for (size_t i = 0; i < c; i++)
            rows[i] = (uint32_t)i;
        return c;
    }
    size_t c = SAMPLE_ROWS < max_rows ? SAMPLE_ROWS : max_rows;
    /* A stride coprime with every power of two (odd) touches all residues
     * mod 2^j for j <= 7 among the first 128 picks; the last row is kept so
     * edge tiles are checked too. */
    uint32_t stride = (m / (uint32_t)c) | 1u;
    for (size_t i = 0; i + 1 < c; i++)
        rows[i] = (uint32_t)(((uint64_t)i * stride) % m);
    rows[c - 1] = m - 1;
    return c;
}

struct ref_job {
    enum ff_precision p;
    const void *a, *b;
    void *ref;
    uint32_t n, k;
    const uint32_t *rows;
    size_t r0, r1;
    float *brow; /* one converted row of B (fp16) */
};

static void ref_rows(struct ref_job *j)
{
    const uint32_t n = j->n, k = j->k;
    for (size_t ri = j->r0; ri < j->r1; ri++) {
        const size_t row = j->rows[ri];
        if (j->p == FF_PREC_INT8) {
            int32_t *c = (int32_t *)j->ref + ri * n;
            const int8_t *a = (const int8_t *)j->a + row * k, *b = j->b;
            memset(c, 0, sizeof(*c) * n);
            for (uint32_t kk = 0; kk < k; kk++) {
                const int32_t av = a[kk];
                const int8_t *br = b + (size_t)kk * n;
                for (uint32_t x = 0; x < n; x++)
                    c[x] += av * br[x];
            }
        } else {
            float *c = (float *)j->ref + ri * n;
            memset(c, 0, sizeof(*c) * n);
            for (uint32_t kk = 0; kk < k; kk++) {
                float av;
                const float *br;
                if (j->p == FF_PREC_FP32) {
                    av = ((const float *)j->a)[row * k + kk];
                    br = (const float *)j->b + (size_t)kk * n;
                } else {
                    av = ff_f16_to_f32(((const uint16_t *)j->a)[row * k + kk]);
                    const uint16_t *bh = (const uint16_t *)j->b + (size_t)kk * n;
                    for (uint32_t x = 0; x < n; x++)
                        j->brow[x] = ff_f16_to_f32(bh[x]);
                    br = j->brow;
                }
                for (uint32_t x = 0; x < n; x++)
                    c[x] += av * br[x];
            }
        }
    }
}

static void *ref_thread(void *arg)
{
    ref_rows(arg);
    return NULL;
}

#define MAX_REF_THREADS 64

int ff_ref_matmul(enum ff_precision p, const void *a, const void *b, void *ref, uint32_t n,
                  uint32_t k, const uint32_t *rows, size_t n_rows)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t nt = cpus > 0 ? (size_t)cpus : 1;
    if (nt > MAX_REF_THREADS)
        nt = MAX_REF_THREADS;
    if (nt > n_rows)
        nt = n_rows ? n_rows : 1;
    float *scratch = NULL;
    if (p == FF_PREC_FP16 && !(scratch = malloc(sizeof(float) * n * nt)))
        return FF_ERR_NO_MEMORY;
    struct ref_job jobs[MAX_REF_THREADS];
    pthread_t th[MAX_REF_THREADS];
    bool started[MAX_REF_THREADS] = {0};
    for (size_t t = 0; t < nt; t++)
        jobs[t] = (struct ref_job){p,
                                   a,
                                   b,
                                   ref,
                                   n,
                                   k,
                                   rows,
                                   n_rows * t / nt,
                                   n_rows * (t + 1) / nt,
                                   scratch ? scratch + n * t : NULL};
    for (size_t t = 1; t < nt; t++)
        started[t] = pthread_create(&th[t], NULL, ref_thread, &jobs[t]) == 0;
    ref_rows(&jobs[0]);
    for (size_t t = 1; t < nt; t++) {
        if (started[t])
            pthread_join(th[t], NULL);
        else
            ref_rows(&jobs[t]); /* no thread: do its share here */
    }
    free(scratch);
    return FF_OK;
}

double ff_tolerance(enum ff_precision p)
{
    /* fp32: products and sums in fp32 land near 1e-6 for k <= 8192; 1e-4
     * also rejects a silent TF32 or fp16 path (about 1e-3). fp16: output
     * rounding alone is 2^-11 of the value. int8: exact. */
    return p == FF_PREC_FP32 ? 1e-4 : p == FF_PREC_FP16 ? 1e-2 : 0.0;
}

int ff_check_matmul(enum ff_precision p, const void *c, const void *ref, uint32_t m, uint32_t n,
                    const uint32_t *rows, size_t n_rows, struct ff_check *out)
{
    (void)m;
    memset(out, 0, sizeof(*out));
    out->tolerance = ff_tolerance(p);
    double max_ref = 0;
    for (size_t i = 0; i < n_rows * n; i++) {
        double r = p == FF_PREC_INT8 ? ((const int32_t *)ref)[i] : ((const float *)ref)[i];
        if (fabs(r) > max_ref)
            max_ref = fabs(r);
    }
    if (max_ref == 0)
        max_ref = 1;
    for (size_t ri = 0; ri < n_rows; ri++) {
        const size_t row = rows[ri];
        for (uint32_t x = 0; x < n; x++) {
            double got, want;
            size_t ci = row * n + x, rf = ri * n + x;
            switch (p) {
            case FF_PREC_FP32:
                got = ((const float *)c)[ci];
                want = ((const float *)ref)[rf];
                break;
            case FF_PREC_FP16:
                got = ff_f16_to_f32(((const uint16_t *)c)[ci]);
                want = ((const float *)ref)[rf];
                break;
            default:
                got = ((const int32_t *)c)[ci];
                want = ((const int32_t *)ref)[rf];
                break;
            }
            double d = fabs(got - want);
            bool bad = isnan(got) || isinf(got) ||
                       (p == FF_PREC_INT8 ? d != 0 : d / max_ref > out->tolerance);
            if (isnan(d) || d > out->max_abs)
                out->max_abs = isnan(d) ? INFINITY : d;
            if (bad) {
                if (out->bad == 0) {
                    out->first_row = (uint32_t)row;
                    out->first_col = x;
                    out->got = got;
                    out->want = want;
                }
                out->bad++;
            }
        }
    }
    out->max_rel = out->max_abs / max_ref;
    return out->bad ? FF_ERR_VERIFY : FF_OK;
}
