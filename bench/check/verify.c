/* bench/check/verify.c — inputs, check plan, exact CPU reference and per-element comparison for matmul. */
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

/* ---- which elements are checked ------------------------------------------- */

/*
 * Picks `want` distinct indices of 0..count-1 (count > want >= 130) into out,
 * ascending: first, last, one random index of each residue mod 128, the rest
 * uniformly random.
 */
static int pick_indices(uint32_t count, size_t want, struct ff_rng *rng, uint32_t *out)
{
    bool *taken = calloc(count, sizeof(*taken));
    if (!taken)
        return FF_ERR_NO_MEMORY;
    const uint32_t res = 128;
    size_t got = 0;
    taken[0] = taken[count - 1] = true;
    got = count > 1 ? 2 : 1;
    for (uint32_t r = 0; r < res && r < count && got < want; r++) {
        uint32_t slots = (count - 1 - r) / res + 1; /* indices r, r + res, ... below count */
        uint32_t i = r + res * (uint32_t)(ff_rng_next(rng) % slots);
        got += !taken[i];
        taken[i] = true;
    }
    while (got < want) {
        uint32_t i = (uint32_t)(ff_rng_next(rng) % count);
        got += !taken[i];
        taken[i] = true;
    }
    size_t o = 0;
    for (uint32_t i = 0; i < count; i++)
        if (taken[i])
            out[o++] = i;
    free(taken);
    return FF_OK;
}

void ff_verify_plan_finish(struct ff_verify_plan *plan)
{
    free(plan->rows);
    free(plan->cols);
    memset(plan, 0, sizeof(*plan));
}

int ff_verify_plan_init(struct ff_verify_plan *plan, uint32_t m, uint32_t n, uint32_t k,
                        uint64_t seed)
{
    memset(plan, 0, sizeof(*plan));
    plan->m = m;
    plan->n = n;
    plan->k = k;
    uint64_t macs = (uint64_t)m * n * k, elems = (uint64_t)m * n;
    uint64_t s64 = FF_VERIFY_FULL_MACS / (((uint64_t)m + n) * (k ? k : 1));
    size_t s = s64 < FF_VERIFY_SAMPLE_MIN   ? FF_VERIFY_SAMPLE_MIN
               : s64 > FF_VERIFY_SAMPLE_MAX ? FF_VERIFY_SAMPLE_MAX
                                            : (size_t)s64;
    plan->full = (macs <= FF_VERIFY_FULL_MACS && elems <= FF_VERIFY_FULL_ELEMS) || m <= s;
    plan->n_rows = plan->full ? m : s;
    plan->n_cols = plan->full ? 0 : n <= s ? n : s;
    plan->rows = malloc(sizeof(uint32_t) * (plan->n_rows ? plan->n_rows : 1));
    plan->cols = malloc(sizeof(uint32_t) * (plan->n_cols ? plan->n_cols : 1));
    if (!plan->rows || !plan->cols)
        goto error_alloc;
    if (plan->full) {
        for (uint32_t i = 0; i < m; i++)
            plan->rows[i] = i;
        return FF_OK;
    }
    struct ff_rng rng;
    ff_rng_seed(&rng, seed);
    if (pick_indices(m, plan->n_rows, &rng, plan->rows) < 0)
        goto error_alloc;
    if (plan->n_cols == n) {
        for (uint32_t j = 0; j < n; j++)
            plan->cols[j] = j;
    } else if (pick_indices(n, plan->n_cols, &rng, plan->cols) < 0) {
        goto error_alloc;
    }
    return FF_OK;

error_alloc:
    ff_verify_plan_finish(plan);
    return FF_ERR_NO_MEMORY;
}

/* ---- the reference -------------------------------------------------------- */

#define RB 4   /* rows of A per block: each B element loaded serves RB sums */
#define CB 256 /* columns per block: RB x CB double sums stay in L1 */

/* out[r][x] = sum_t A[rows[r]][t] * P[t][x] over a k x w panel P of B. */
struct ref_job {
    enum ff_precision p;
    const void *a;
    uint32_t k, w, wp; /* panel width, and its stride (w rounded up to CB) */
    const float *pf;   /* fp32/fp16: the panel as float */
    const int8_t *pi;  /* int8: the panel */
    const uint32_t *rows;
    size_t n_rows, b0, b1; /* this job's row blocks */
    double *out;
    double *arow; /* RB x k scratch */
};

static double a_at(enum ff_precision p, const void *a, size_t i)
{
    switch (p) {
    case FF_PREC_FP32: return ((const float *)a)[i];
    case FF_PREC_FP16: return ff_f16_to_f32(((const uint16_t *)a)[i]);
    default: return ((const int8_t *)a)[i];
    }
}

static void block_float(const struct ref_job *j, const double *restrict a0,
                        const double *restrict a1, const double *restrict a2,
                        const double *restrict a3, uint32_t x0, double *restrict s)
{
    double *restrict s0 = s, *restrict s1 = s + CB, *restrict s2 = s + 2 * CB,
                     *restrict s3 = s + 3 * CB;
    memset(s, 0, sizeof(double) * RB * CB);
    for (uint32_t t = 0; t < j->k; t++) {
        const float *restrict br = j->pf + (size_t)t * j->wp + x0;
        const double v0 = a0[t], v1 = a1[t], v2 = a2[t], v3 = a3[t];
        for (uint32_t x = 0; x < CB; x++) { /* a constant trip count vectorizes at -O2 */
            const double b = br[x];
            s0[x] += v0 * b;
            s1[x] += v1 * b;
            s2[x] += v2 * b;
            s3[x] += v3 * b;
        }
    }
}

static void block_int8(const struct ref_job *j, const double *const *a, uint32_t x0, double *s)
{
    int32_t acc[RB][CB];
    memset(acc, 0, sizeof(acc));
    for (uint32_t t = 0; t < j->k; t++) {
        const int8_t *restrict br = j->pi + (size_t)t * j->wp + x0;
        for (int r = 0; r < RB; r++) {
            const int32_t v = (int32_t)a[r][t];
            int32_t *restrict ar = acc[r];
            for (uint32_t x = 0; x < CB; x++)
                ar[x] += v * br[x];
        }
    }
    for (int r = 0; r < RB; r++)
        for (uint32_t x = 0; x < CB; x++)
            s[r * CB + x] = acc[r][x];
}

static void *ref_thread(void *arg)
{
    const struct ref_job *j = arg;
    double sums[RB * CB];
    for (size_t blk = j->b0; blk < j->b1; blk++) {
        const double *ar[RB];
        size_t r0 = blk * RB;
        for (size_t r = 0; r < RB; r++) {
            /* a short last block repeats its last row; only real rows are stored */
            size_t ri = r0 + r < j->n_rows ? r0 + r : j->n_rows - 1;
            size_t row = j->rows ? j->rows[ri] : ri;
            double *dst = j->arow + r * (size_t)j->k;
            for (uint32_t t = 0; t < j->k; t++)
                dst[t] = a_at(j->p, j->a, row * j->k + t);
            ar[r] = dst;
        }
        for (uint32_t x0 = 0; x0 < j->w; x0 += CB) {
            uint32_t cw = j->w - x0 < CB ? j->w - x0 : CB;
            if (j->p == FF_PREC_INT8)
                block_int8(j, ar, x0, sums);
            else
                block_float(j, ar[0], ar[1], ar[2], ar[3], x0, sums);
            for (size_t r = 0; r < RB && r0 + r < j->n_rows; r++)
                memcpy(j->out + (r0 + r) * j->w + x0, sums + r * CB, sizeof(double) * cw);
        }
    }
    return NULL;
}

#define MAX_REF_THREADS 64

static size_t padded(uint32_t w)
{
    return ((size_t)w + CB - 1) / CB * CB;
}

/* out = A[rows] x panel, threaded over row blocks. */
static int ref_panel(enum ff_precision p, const void *a, uint32_t k, const void *panel, uint32_t w,
                     const uint32_t *rows, size_t n_rows, double *out)
{
    if (n_rows == 0 || w == 0)
        return FF_OK;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t blocks = (n_rows + RB - 1) / RB;
    size_t nt = cpus > 0 ? (size_t)cpus : 1;
    if (nt > MAX_REF_THREADS)
        nt = MAX_REF_THREADS;
    if (nt > blocks)
        nt = blocks;
    double *scratch = malloc(sizeof(double) * RB * (k ? k : 1) * nt);
    if (!scratch)
        return FF_ERR_NO_MEMORY;
    struct ref_job jobs[MAX_REF_THREADS];
    pthread_t th[MAX_REF_THREADS];
    bool started[MAX_REF_THREADS] = {false};
    for (size_t t = 0; t < nt; t++)
        jobs[t] = (struct ref_job){
            .p = p,
            .a = a,
            .k = k,
            .w = w,
            .wp = padded(w),
            .pf = p == FF_PREC_INT8 ? NULL : panel,
            .pi = p == FF_PREC_INT8 ? panel : NULL,
            .rows = rows,
            .n_rows = n_rows,
            .b0 = blocks * t / nt,
            .b1 = blocks * (t + 1) / nt,
            .out = out,
            .arow = scratch + (size_t)RB * k * t,
        };
    for (size_t t = 1; t < nt; t++)
        started[t] = pthread_create(&th[t], NULL, ref_thread, &jobs[t]) == 0;
    ref_thread(&jobs[0]);
    for (size_t t = 1; t < nt; t++) {
        if (started[t])
            pthread_join(th[t], NULL);
        else
            ref_thread(&jobs[t]); /* no thread: do its share here */
    }
    free(scratch);
    return FF_OK;
}

/* Columns cols[0..w) of B (k x n) as a k x padded(w) panel, zeros past w;
 * cols NULL = all. */
static void *make_panel(enum ff_precision p, const void *b, uint32_t k, uint32_t n,
                        const uint32_t *cols, uint32_t w)
{
    size_t el = p == FF_PREC_INT8 ? 1 : sizeof(float), wp = padded(w);
    void *panel = calloc((size_t)k * wp, el);
    if (!panel)
        return NULL;
    for (uint32_t t = 0; t < k; t++)
        for (uint32_t x = 0; x < w; x++) {
            size_t src = (size_t)t * n + (cols ? cols[x] : x), dst = (size_t)t * wp + x;
            if (p == FF_PREC_INT8)
                ((int8_t *)panel)[dst] = ((const int8_t *)b)[src];
            else
                ((float *)panel)[dst] = (float)a_at(p, b, src);
        }
    return panel;
}

void ff_ref_destroy(struct ff_ref **ref)
{
    if (!ref || !*ref)
        return;
    struct ff_ref *r = *ref;
    ff_verify_plan_finish(&r->plan);
    free(r->row_ref);
    free(r->col_ref);
    free(r->a_norm);
    free(r->b_norm);
    free(r);
    *ref = NULL;
}

int ff_ref_create(enum ff_precision p, const void *a, const void *b, uint32_t m, uint32_t n,
                  uint32_t k, uint64_t seed, struct ff_ref **out)
{
    *out = NULL;
    if (!ff_matmul_has_kernel(p))
        return FF_ERR_INVALID;
    struct ff_ref *r = calloc(1, sizeof(*r));
    if (!r)
        return FF_ERR_NO_MEMORY;
    r->prec = p;
    int ret = ff_verify_plan_init(&r->plan, m, n, k, seed);
    if (ret < 0)
        goto error_plan;
    const struct ff_verify_plan *pl = &r->plan;
    ret = FF_ERR_NO_MEMORY;
    r->row_ref = malloc(sizeof(double) * (pl->n_rows * n + 1));
    r->col_ref = malloc(sizeof(double) * ((size_t)m * pl->n_cols + 1));
    r->a_norm = calloc((size_t)m + 1, sizeof(double));
    r->b_norm = calloc((size_t)n + 1, sizeof(double));
    if (!r->row_ref || !r->col_ref || !r->a_norm || !r->b_norm)
        goto error_plan;
    for (uint32_t i = 0; i < m; i++) {
        double s = 0;
        for (uint32_t t = 0; t < k; t++) {
            double v = a_at(p, a, (size_t)i * k + t);
            s += v * v;
        }
        r->a_norm[i] = sqrt(s);
    }
    for (uint32_t t = 0; t < k; t++)
        for (uint32_t j = 0; j < n; j++) {
            double v = a_at(p, b, (size_t)t * n + j);
            r->b_norm[j] += v * v;
        }
    for (uint32_t j = 0; j < n; j++)
        r->b_norm[j] = sqrt(r->b_norm[j]);

    /* B once as a padded panel (fp16 converted to float) */
    void *panel = make_panel(p, b, k, n, NULL, n);
    if (!panel)
        goto error_plan;
    ret = ref_panel(p, a, k, panel, n, pl->rows, pl->n_rows, r->row_ref);
    free(panel);
    if (ret < 0)
        goto error_plan;
    if (pl->n_cols) {
        void *cp = make_panel(p, b, k, n, pl->cols, (uint32_t)pl->n_cols);
        ret = cp ? ref_panel(p, a, k, cp, (uint32_t)pl->n_cols, NULL, m, r->col_ref)
                 : FF_ERR_NO_MEMORY;
        free(cp);
        if (ret < 0)
            goto error_plan;
    }
    *out = r;
    return FF_OK;

error_plan:
    ff_ref_destroy(&r);
    return ret;
}

/* ---- the comparison ------------------------------------------------------- */

#define U32 0x1p-24 /* unit roundoff of fp32 */

/* min(k, sqrt(k) + 4): the worst case k u for short sums, sqrt(k) u beyond */
static double growth(uint32_t k)
{
    double p = sqrt((double)k) + 4.0;
    return (double)k < p ? (double)k : p;
}

static double bound_with(enum ff_precision p, double g, double norm, double want)
{
    switch (p) {
    case FF_PREC_FP32: return g * U32 * norm + U32 * fabs(want) + 0x1p-126;
    case FF_PREC_FP16: {
        double acc = g * U32 * norm;
        return acc + 0x1p-10 * (fabs(want) + acc) + 0x1p-14;
    }
    default: return 0;
    }
}

double ff_verify_bound(enum ff_precision p, uint32_t k, double norm, double want)
{
    return bound_with(p, growth(k), norm, want);
}

static double out_at(enum ff_precision p, const void *c, size_t i)
{
    switch (p) {
    case FF_PREC_FP32: return ((const float *)c)[i];
    case FF_PREC_FP16: return ff_f16_to_f32(((const uint16_t *)c)[i]);
    default: return ((const int32_t *)c)[i];
    }
}

struct cmp {
    const struct ff_ref *ref;
    double g, max_ref, max_bound;
    struct ff_check *out;
};

static void compare_one(struct cmp *cm, const void *c, uint32_t i, uint32_t j, double want)
{
    const struct ff_ref *r = cm->ref;
    struct ff_check *o = cm->out;
    double got = out_at(r->prec, c, (size_t)i * r->plan.n + j);
    double bound = bound_with(r->prec, cm->g, r->a_norm[i] * r->b_norm[j], want);
    double d = fabs(got - want);
    if (!isfinite(d))
        d = INFINITY;
    bool bad = !(d <= bound); /* NaN and inf are bad */
    o->checked++;
    if (d > o->max_abs)
        o->max_abs = d;
    if (fabs(want) > cm->max_ref)
        cm->max_ref = fabs(want);
    if (bound > cm->max_bound)
        cm->max_bound = bound;
    double ratio = bound > 0 ? d / bound : d > 0 ? INFINITY : 0;
    if (ratio > o->worst)
        o->worst = ratio;
    if (bad) {
        if (o->bad == 0) {
            o->first_row = i;
            o->first_col = j;
            o->got = got;
            o->want = want;
            o->bound = bound;
        }
        o->bad++;
    }
}

int ff_ref_check(const struct ff_ref *ref, const void *c, struct ff_check *out)
{
    memset(out, 0, sizeof(*out));
    const struct ff_verify_plan *pl = &ref->plan;
    struct cmp cm = {.ref = ref, .g = growth(pl->k), .out = out};
    for (size_t r = 0; r < pl->n_rows; r++)
        for (uint32_t j = 0; j < pl->n; j++)
            compare_one(&cm, c, pl->rows[r], j, ref->row_ref[r * pl->n + j]);
    for (uint32_t i = 0; i < pl->m; i++)
        for (size_t q = 0; q < pl->n_cols; q++)
            compare_one(&cm, c, i, pl->cols[q], ref->col_ref[(size_t)i * pl->n_cols + q]);
    double scale = cm.max_ref > 0 ? cm.max_ref : 1;
    out->max_rel = out->max_abs / scale;
    out->tolerance = cm.max_bound / scale;
    return out->bad ? FF_ERR_VERIFY : FF_OK;
}
