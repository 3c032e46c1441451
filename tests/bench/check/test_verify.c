/*
 * tests/bench/check/test_verify.c — the CPU reference, the check plan and the
 * per-element comparison that guard every figure, and deliberately lazy
 * "kernels" simulated on the host through the kernel check (kcheck.h) at
 * every size the bench runs.
 *
 * A simulated device output is exact where the check reads it: the
 * comparison reads only the elements of its plan (proved by
 * check_reads_only_its_plan), so a lazy kernel's output is modelled on the
 * plan's elements: the correctly rounded value where the kernel would have
 * written, the poison (or a stale value) where it would not.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "families/bench.h"
#include "families/families.h"
#include "check/kcheck.h"
#include "check/verify.h"

Test(verify, f16_round_trip_is_exact_for_halves)
{
    for (uint32_t h = 0; h < 0x10000; h++) {
        if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu))
            continue; /* NaNs: payloads may differ */
        float f = ff_f16_to_f32((uint16_t)h);
        cr_assert_eq(ff_f32_to_f16(f), h, "half 0x%04x -> %g -> 0x%04x", h, f, ff_f32_to_f16(f));
    }
}

Test(verify, f32_to_f16_rounds_to_nearest_even)
{
    cr_assert_eq(ff_f32_to_f16(1.0f), 0x3c00);
    cr_assert_eq(ff_f32_to_f16(-2.0f), 0xc000);
    cr_assert_eq(ff_f32_to_f16(65504.0f), 0x7bff);
    cr_assert_eq(ff_f32_to_f16(1e6f), 0x7c00); /* overflow -> inf */
    /* 1 + 2^-11 is exactly between 1 and 1 + 2^-10: ties to even (1.0) */
    cr_assert_eq(ff_f32_to_f16(1.0f + 0x1p-11f), 0x3c00);
    cr_assert_eq(ff_f32_to_f16(1.0f + 0x1.8p-11f), 0x3c01);
    cr_assert_eq(ff_f32_to_f16(0x1p-24f), 0x0001); /* smallest subnormal */
}

/* The peak kernel's host references (suite_peak.c): the multiply-add chain and the 4-way byte
 * dot chain of FF_PEAK_DOT4, whose every step adds 4 * (uint8)a * (int8)b. */
Test(verify, peak_references_follow_each_chain)
{
    uint32_t x = 5;
    for (int r = 0; r < 3; r++)
        x = x * 3u + (uint32_t)-5;
    cr_expect_eq(ff_peak_ref(FF_PREC_INT8, FF_PEAK_MAD, 5, 3, 3, 0xfb), x);
    cr_expect_eq(ff_peak_ref(FF_PREC_INT8, FF_PEAK_DOT4, 5, 3, 3, 0xfb), (uint32_t)(5 - 3 * 60));
    /* a as unsigned (200, not -56), b as signed (-1), 2^20 steps wrap in 32 bits */
    cr_expect_eq(ff_peak_ref(FF_PREC_INT8, FF_PEAK_DOT4, 0, 1u << 20, 200, 0xff),
                 (uint32_t)(-(int64_t)800 * (1 << 20)));
    cr_expect_eq(ff_peak_op_ops(FF_PEAK_DOT4), 8u);
    cr_expect_eq(ff_peak_op_ops(FF_PEAK_MAD), 2u);
    uint32_t out[128];
    for (uint32_t i = 0; i < 128; i++)
        out[i] = ff_peak_ref(FF_PREC_INT8, FF_PEAK_DOT4, i, 100, 3, 0xfb);
    char err[256] = "";
    cr_expect_eq(
        ff_peak_check(FF_PREC_INT8, FF_PEAK_DOT4, out, 128, 100, 3, 0xfb, err, sizeof(err)), FF_OK,
        "%s", err);
    cr_expect_eq(ff_peak_check(FF_PREC_INT8, FF_PEAK_MAD, out, 128, 100, 3, 0xfb, err, sizeof(err)),
                 FF_ERR_VERIFY, "a dot chain must not pass as a multiply-add chain");
}

/* The unpaired fraction (bench/families/suite_peak.c ff_peak_fraction_unpaired): against the
 * peak family's figure, never above FF_PEAK_FRACTION_MAX, nothing without a verified peak. */
static struct ff_result *add_result(struct ff_run *p, const char *family, enum ff_precision prec,
                                    double value)
{
    struct ff_result *r = ff_run_add(p);
    cr_assert(r);
    ff_result_set(r, family, family, "flopfit");
    r->prec = (int)prec;
    r->status = FF_RES_OK;
    r->verified = true;
    r->value = value;
    return r;
}

static double fraction_of(const struct ff_run *p, enum ff_precision prec, double rate)
{
    double frac;
    return ff_peak_fraction_unpaired(p, prec, rate, &frac) >= 0 ? frac : -1;
}

Test(verify, a_matmul_is_never_read_above_its_peak)
{
    struct ff_run p = {0};
    add_result(&p, "peak", FF_PREC_FP32, 100);
    cr_expect_float_eq(fraction_of(&p, FF_PREC_FP32, 50), 0.5, 1e-12);
    cr_expect_float_eq(fraction_of(&p, FF_PREC_FP32, 150), FF_PEAK_FRACTION_MAX, 1e-12,
                       "a matmul faster than its peak shows the peak read low");
    /* no int8 peak: read against fp32's */
    double frac;
    cr_expect_eq(ff_peak_fraction_unpaired(&p, FF_PREC_INT8, 120, &frac), FF_PREC_FP32);
    cr_expect_float_eq(frac, FF_PEAK_FRACTION_MAX, 1e-12);
    ff_run_finish(&p);

    struct ff_run q = {0};
    add_result(&q, "peak", FF_PREC_FP32, 100)->verified = false;
    cr_expect_eq(fraction_of(&q, FF_PREC_FP32, 50), -1, "an unverified peak is no reference");
    ff_run_finish(&q);
}

Test(verify, random_inputs_are_never_all_zero)
{
    struct ff_rng r;
    ff_rng_seed(&r, 42);
    float f[256];
    int8_t c[256];
    ff_fill_random(FF_PREC_FP32, f, 256, &r);
    ff_fill_random(FF_PREC_INT8, c, 256, &r);
    int nz = 0;
    for (int i = 0; i < 256; i++) {
        nz += f[i] != 0 && c[i] != 0;
        cr_assert(f[i] >= -1.0f && f[i] < 1.0f);
    }
    cr_assert_gt(nz, 240);
}

/* ---- helpers: a device output written on the host ------------------------ */

static void put(enum ff_precision p, void *c, size_t idx, double v)
{
    switch (p) {
    case FF_PREC_FP32: ((float *)c)[idx] = (float)v; break;
    case FF_PREC_FP16: ((uint16_t *)c)[idx] = ff_f32_to_f16((float)v); break;
    default: ((int32_t *)c)[idx] = (int32_t)v; break;
    }
}

static double in_at(enum ff_precision p, const void *x, size_t i)
{
    switch (p) {
    case FF_PREC_FP32: return ((const float *)x)[i];
    case FF_PREC_FP16: return ff_f16_to_f32(((const uint16_t *)x)[i]);
    default: return ((const int8_t *)x)[i];
    }
}

/* Where a lazy kernel writes C[i][j]. */
enum lazy {
    HONEST,
    UNWRITTEN,       /* nothing written: a skipped launch */
    FIRST_256_ROWS,  /* cheat 2 of the reproducer: only the rows a 256-row check read */
    FIRST_HALF_ROWS, /* half the work groups */
    FIRST_256_COLS,
    FIRST_HALF_COLS,
    ODD_ROW_TILES, /* every other 64-row tile skipped */
    ODD_COL_TILES, /* every other 64-column tile skipped */
    NO_LAST_ROW,   /* the edge tile's last row */
    NO_LAST_COL,   /* the edge tile's last column */
    TILE_ROW_127,  /* row 127 of every 128-row tile */
    TILE_COL_127,  /* column 127 of every 128-column tile */
    LAZY_COUNT,
};

static const char *const lazy_names[LAZY_COUNT] = {
    "honest",
    "unwritten",
    "first 256 rows",
    "first half of the rows",
    "first 256 cols",
    "first half of the cols",
    "odd 64-row tiles",
    "odd 64-col tiles",
    "no last row",
    "no last col",
    "row 127 of 128-tiles",
    "col 127 of 128-tiles",
};

static bool writes(enum lazy l, uint32_t m, uint32_t n, uint32_t i, uint32_t j)
{
    switch (l) {
    case HONEST: return true;
    case UNWRITTEN: return false;
    case FIRST_256_ROWS: return i < 256;
    case FIRST_HALF_ROWS: return i < m / 2;
    case FIRST_256_COLS: return j < 256;
    case FIRST_HALF_COLS: return j < n / 2;
    case ODD_ROW_TILES: return (i / 64) % 2 == 0;
    case ODD_COL_TILES: return (j / 64) % 2 == 0;
    case NO_LAST_ROW: return i != m - 1;
    case NO_LAST_COL: return j != n - 1;
    case TILE_ROW_127: return i % 128 != 127;
    case TILE_COL_127: return j % 128 != 127;
    default: return true;
    }
}

/* Does the lazy kernel leave anything unwritten at this size? (Each pattern
 * depends on the row or on the column alone.) */
static bool lazy_at(enum lazy l, uint32_t m, uint32_t n)
{
    for (uint32_t i = 0; i < m; i++)
        if (!writes(l, m, n, i, 0))
            return true;
    for (uint32_t j = 0; j < n; j++)
        if (!writes(l, m, n, 0, j))
            return true;
    return false;
}

/* c = poison, then the exact rounded result on every planned element the kernel writes. */
static void simulate(const struct ff_kcheck *kc, enum lazy l, void *c)
{
    const struct ff_ref *r = kc->ref;
    const struct ff_verify_plan *pl = &r->plan;
    memcpy(c, kc->poison, (size_t)kc->m * kc->n * ff_matmul_out_bytes(kc->prec));
    for (size_t q = 0; q < pl->n_rows; q++)
        for (uint32_t j = 0; j < kc->n; j++)
            if (writes(l, kc->m, kc->n, pl->rows[q], j))
                put(kc->prec, c, (size_t)pl->rows[q] * kc->n + j, r->row_ref[q * kc->n + j]);
    for (uint32_t i = 0; i < kc->m; i++)
        for (size_t q = 0; q < pl->n_cols; q++)
            if (writes(l, kc->m, kc->n, i, pl->cols[q]))
                put(kc->prec, c, (size_t)i * kc->n + pl->cols[q],
                    r->col_ref[(size_t)i * pl->n_cols + q]);
}

/* Every size the bench runs (--quick: 256, 1024; default 256..8192 up to
 * 4096 on a CPU) and odd ones on both sides of the full-check budget. */
static const uint32_t sizes[] = {256, 257, 512, 1024, 1290, 1291, 2048, 4096, 4097};
#define N_SIZES (sizeof(sizes) / sizeof(sizes[0]))

static void make(struct ff_kcheck *kc, enum ff_precision p, uint32_t n, uint64_t seed)
{
    char err[256] = "";
    cr_assert_eq(ff_kcheck_init(kc, p, n, n, n, seed, err, sizeof(err)), FF_OK, "%s", err);
}

/* ---- the reference -------------------------------------------------------- */

Test(verify, reference_is_exact_on_odd_shape_in_every_precision)
{
    enum { M = 37, N = 53, K = 71 };
    const enum ff_precision precs[] = {FF_PREC_FP32, FF_PREC_FP16, FF_PREC_INT8};
    for (size_t pi = 0; pi < 3; pi++) {
        enum ff_precision p = precs[pi];
        struct ff_kcheck kc;
        char err[256] = "";
        cr_assert_eq(ff_kcheck_init(&kc, p, M, N, K, 7, err, sizeof(err)), FF_OK, "%s", err);
        cr_assert(kc.ref->plan.full);
        cr_assert_eq(kc.ref->plan.n_rows, M);
        /* naive double dot products: fp32/fp16 products are exact in double */
        for (uint32_t i = 0; i < M; i++)
            for (uint32_t j = 0; j < N; j++) {
                double s = 0;
                for (uint32_t t = 0; t < K; t++)
                    s += in_at(p, kc.a, (size_t)i * K + t) * in_at(p, kc.b, (size_t)t * N + j);
                double got = kc.ref->row_ref[i * N + j];
                cr_assert(fabs(got - s) <= 1e-12 * (1 + fabs(s)), "%s [%u][%u] %.17g != %.17g",
                          ff_precision_name(p), i, j, got, s);
                put(p, kc.c, (size_t)i * N + j, s);
            }
        cr_assert_eq(ff_kcheck_compare(&kc, kc.c, err, sizeof(err)), FF_OK, "%s", err);
        cr_assert_eq(kc.check.checked, (uint64_t)M * N);
        if (p == FF_PREC_FP32)
            cr_assert_lt(kc.check.max_rel, 1e-6);
        cr_assert_leq(kc.check.max_rel, kc.check.tolerance);
        ff_kcheck_finish(&kc);
    }
}

Test(verify, sampled_reference_matches_naive_rows_and_columns)
{
    struct ff_kcheck kc;
    make(&kc, FF_PREC_FP32, 1291, 5);
    const struct ff_verify_plan *pl = &kc.ref->plan;
    cr_assert_not(pl->full);
    const uint32_t n = 1291;
    for (size_t q = 0; q < pl->n_rows; q += 37)
        for (uint32_t j = 0; j < n; j += 101) {
            double s = 0;
            for (uint32_t t = 0; t < n; t++)
                s += (double)((float *)kc.a)[(size_t)pl->rows[q] * n + t] *
                     ((float *)kc.b)[(size_t)t * n + j];
            cr_assert(fabs(kc.ref->row_ref[q * n + j] - s) <= 1e-12 * (1 + fabs(s)));
        }
    for (uint32_t i = 0; i < n; i += 97)
        for (size_t q = 0; q < pl->n_cols; q += 31) {
            double s = 0;
            for (uint32_t t = 0; t < n; t++)
                s += (double)((float *)kc.a)[(size_t)i * n + t] *
                     ((float *)kc.b)[(size_t)t * n + pl->cols[q]];
            cr_assert(fabs(kc.ref->col_ref[i * pl->n_cols + q] - s) <= 1e-12 * (1 + fabs(s)));
        }
    ff_kcheck_finish(&kc);
}

/* ---- the plan ------------------------------------------------------------- */

static void assert_spread(const uint32_t *idx, size_t count, uint32_t limit, const char *what)
{
    bool residue[128] = {false};
    for (size_t i = 0; i < count; i++) {
        cr_assert_lt(idx[i], limit);
        if (i)
            cr_assert_gt(idx[i], idx[i - 1], "%s not ascending and distinct", what);
        residue[idx[i] % 128] = true;
    }
    cr_assert_eq(idx[0], 0, "%s: first missing", what);
    cr_assert_eq(idx[count - 1], limit - 1, "%s: last missing", what);
    for (int r = 0; r < 128; r++)
        cr_assert(residue[r], "%s: no checked index is %d mod 128 (n=%u)", what, r, limit);
}

Test(verify, every_element_is_checked_up_to_the_budget)
{
    /* 1290^3 < 2^31 <= 1291^3: the old check read only rows 0-255 of these */
    const uint32_t full[] = {1, 17, 256, 257, 300, 1000, 1024, 1290};
    for (size_t i = 0; i < sizeof(full) / sizeof(full[0]); i++) {
        struct ff_verify_plan pl;
        cr_assert_eq(ff_verify_plan_init(&pl, full[i], full[i], full[i], 1), FF_OK);
        cr_assert(pl.full, "n=%u", full[i]);
        cr_assert_eq(pl.n_rows, full[i]);
        cr_assert_eq(pl.n_cols, 0);
        for (uint32_t r = 0; r < full[i]; r++)
            cr_assert_eq(pl.rows[r], r);
        ff_verify_plan_finish(&pl);
    }
}

Test(verify, large_problems_sample_rows_and_columns_over_every_residue)
{
    const uint32_t big[] = {1291, 2048, 3001, 4096, 4097, 8192, 16384};
    for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
        uint32_t n = big[i];
        struct ff_verify_plan pl, again, other;
        cr_assert_eq(ff_verify_plan_init(&pl, n, n, n, 11), FF_OK);
        cr_assert_not(pl.full);
        cr_assert_geq(pl.n_rows, FF_VERIFY_SAMPLE_MIN);
        cr_assert_leq(pl.n_rows, FF_VERIFY_SAMPLE_MAX);
        cr_assert_eq(pl.n_cols, pl.n_rows);
        /* the budget: 2^31 multiply-adds, or the 130-row floor above it */
        double macs = (double)(pl.n_rows + pl.n_cols) * n * n;
        cr_assert(macs <= (double)FF_VERIFY_FULL_MACS || pl.n_rows == FF_VERIFY_SAMPLE_MIN,
                  "n=%u: %g multiply-adds", n, macs);
        assert_spread(pl.rows, pl.n_rows, n, "rows");
        assert_spread(pl.cols, pl.n_cols, n, "cols");
        /* reproducible from the seed, different with another seed */
        cr_assert_eq(ff_verify_plan_init(&again, n, n, n, 11), FF_OK);
        cr_assert_eq(ff_verify_plan_init(&other, n, n, n, 12), FF_OK);
        cr_assert(memcmp(pl.rows, again.rows, pl.n_rows * 4) == 0);
        cr_assert(memcmp(pl.rows, other.rows, pl.n_rows * 4) != 0, "n=%u: seed ignored", n);
        cr_assert(memcmp(pl.cols, other.cols, pl.n_cols * 4) != 0, "n=%u: seed ignored", n);
        ff_verify_plan_finish(&pl);
        ff_verify_plan_finish(&again);
        ff_verify_plan_finish(&other);
    }
    /* an 8192 row vector: every column is cheap, so all of them */
    struct ff_verify_plan pl;
    cr_assert_eq(ff_verify_plan_init(&pl, 8192, 100, 8192, 3), FF_OK);
    cr_assert_not(pl.full);
    cr_assert_eq(pl.n_cols, 100);
    ff_verify_plan_finish(&pl);
}

Test(verify, check_reads_only_its_plan)
{
    /* Poison every element outside the plan of an honest output: still ok.
     * So a simulated output needs to be exact only where the plan reads. */
    struct ff_kcheck kc;
    make(&kc, FF_PREC_FP32, 2048, 9);
    simulate(&kc, HONEST, kc.c);
    char err[512] = "";
    cr_assert_eq(ff_kcheck_compare(&kc, kc.c, err, sizeof(err)), FF_OK, "%s", err);
    const struct ff_verify_plan *pl = &kc.ref->plan;
    cr_assert_eq(kc.check.checked, (uint64_t)(pl->n_rows + pl->n_cols) * 2048);
    ff_kcheck_finish(&kc);
}

/* ---- the comparison ------------------------------------------------------- */

Test(verify, a_wrong_element_is_caught_in_every_precision)
{
    enum { N = 24 };
    const enum ff_precision precs[] = {FF_PREC_FP32, FF_PREC_FP16, FF_PREC_INT8};
    for (size_t pi = 0; pi < 3; pi++) {
        enum ff_precision p = precs[pi];
        struct ff_kcheck kc;
        make(&kc, p, N, 3 + pi);
        /* a "device" result equal to the reference passes ... */
        simulate(&kc, HONEST, kc.c);
        char err[512] = "";
        cr_assert_eq(ff_kcheck_compare(&kc, kc.c, err, sizeof(err)), FF_OK, "%s: %s",
                     ff_precision_name(p), err);
        /* ... one element off fails, with its position */
        if (p == FF_PREC_FP32)
            ((float *)kc.c)[5 * N + 7] += 0.5f;
        else if (p == FF_PREC_FP16)
            ((uint16_t *)kc.c)[5 * N + 7] ^= 0x0400; /* flip an exponent bit */
        else
            ((int32_t *)kc.c)[5 * N + 7] += 1; /* int8 must be exact */
        cr_assert_eq(ff_kcheck_compare(&kc, kc.c, err, sizeof(err)), FF_ERR_VERIFY, "%s",
                     ff_precision_name(p));
        cr_assert_eq(kc.check.bad, 1);
        cr_assert_eq(kc.check.first_row, 5);
        cr_assert_eq(kc.check.first_col, 7);
        cr_assert(strstr(err, "[5][7]"), "%s", err);
        ff_kcheck_finish(&kc);
    }
}

Test(verify, poisoned_output_left_unwritten_is_caught)
{
    const enum ff_precision precs[] = {FF_PREC_FP32, FF_PREC_FP16, FF_PREC_INT8};
    for (size_t pi = 0; pi < 3; pi++) {
        struct ff_kcheck kc;
        make(&kc, precs[pi], 16, 1);
        simulate(&kc, HONEST, kc.c);
        size_t ob = ff_matmul_out_bytes(precs[pi]);
        memcpy((char *)kc.c + 255 * ob, kc.poison, ob); /* last element never written */
        char err[512] = "";
        cr_assert_eq(ff_kcheck_compare(&kc, kc.c, err, sizeof(err)), FF_ERR_VERIFY);
        cr_assert_eq(kc.check.bad, 1);
        cr_assert(kc.check.first_row == 15 && kc.check.first_col == 15);
        ff_kcheck_finish(&kc);
    }
}

Test(verify, tf32_like_error_fails_fp32_tolerance)
{
    /* A kernel that silently used TF32 (10-bit mantissa) would be ~1e-3 off. */
    struct ff_kcheck kc;
    make(&kc, FF_PREC_FP32, 4, 1);
    simulate(&kc, HONEST, kc.c);
    for (int i = 0; i < 16; i++)
        ((float *)kc.c)[i] *= 1.0f + 1e-3f;
    char err[512] = "";
    cr_assert_eq(ff_kcheck_compare(&kc, kc.c, err, sizeof(err)), FF_ERR_VERIFY);
    ff_kcheck_finish(&kc);
}

Test(verify, bounds_follow_the_accumulation_type)
{
    /* k = 4: the worst-case bound k u; k = 4096: (sqrt(k) + 4) u = 68 u */
    cr_assert_float_eq(ff_verify_bound(FF_PREC_FP32, 4, 1.0, 0.0), 4 * 0x1p-24 + 0x1p-126, 1e-20);
    cr_assert_float_eq(ff_verify_bound(FF_PREC_FP32, 4096, 1.0, 0.0), 68 * 0x1p-24 + 0x1p-126,
                       1e-20);
    /* fp16 out: one fp16 ulp of the value on top of the fp32 accumulation */
    double b16 = ff_verify_bound(FF_PREC_FP16, 256, 1.0, 8.0);
    cr_assert(b16 > 8 * 0x1p-10 && b16 < 8 * 0x1p-10 + 1e-4, "%g", b16);
    cr_assert_eq(ff_verify_bound(FF_PREC_INT8, 4096, 1e6, 1e3), 0);
}

/* ---- lazy kernels, simulated on the host, at every size --------------------- */

/* How a simulated kernel computes one element. */
enum arith {
    SEQ_FP32,      /* honest: fp32 products and sums, sequential (the worst order);
                    * int8: the exact sum */
    SEQ_FP32_RTZ,  /* honest fp16 out: fp32 accumulation, output truncated */
    FP16_ACC,      /* fp16 accumulation where fp32 is promised */
    FP16_PRODUCTS, /* fp32 accumulation of products rounded to fp16 */
    TF32_INPUTS,   /* fp32: inputs silently rounded to 10 mantissa bits */
    BF16_INPUTS,   /* fp32: inputs silently rounded to 7 mantissa bits */
};

static float round_mant(float f, int bits)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t drop = 23 - (uint32_t)bits, half = 1u << (drop - 1), mask = (1u << drop) - 1;
    uint32_t rem = u & mask;
    u &= ~mask;
    if (rem > half || (rem == half && ((u >> drop) & 1)))
        u += 1u << drop;
    memcpy(&f, &u, 4);
    return f;
}

static float f16r(float f)
{
    return ff_f16_to_f32(ff_f32_to_f16(f));
}

/* C[i][j] of A*B (k x n B) as `ar` computes it. */
static double element(enum ff_precision p, const void *pa, const void *pb, uint32_t k, uint32_t n,
                      enum arith ar, uint32_t i, uint32_t j)
{
    float s = 0;
    for (uint32_t t = 0; t < k; t++) {
        float a = (float)in_at(p, pa, (size_t)i * k + t);
        float b = (float)in_at(p, pb, (size_t)t * n + j);
        switch (ar) {
        case FP16_ACC: s = f16r(s + f16r(a * b)); break;
        case FP16_PRODUCTS: s += f16r(a * b); break;
        case TF32_INPUTS: s += round_mant(a, 10) * round_mant(b, 10); break;
        case BF16_INPUTS: s += round_mant(a, 7) * round_mant(b, 7); break;
        default: {
            volatile float prod = a * b; /* no fused multiply-add: the larger error */
            s += prod;
            break;
        }
        }
    }
    if (ar == SEQ_FP32_RTZ) {
        uint16_t h = ff_f32_to_f16(s);
        if (fabsf(ff_f16_to_f32(h)) > fabsf(s))
            h--; /* toward zero */
        return ff_f16_to_f32(h);
    }
    return s;
}

/*
 * Replaces `count` planned elements (spread over a checked row and a checked
 * column) of an honest output by what `ar` computes there. Returns how many
 * of them the check flags.
 */
static uint64_t arith_bad(struct ff_kcheck *kc, enum arith ar, size_t count)
{
    const struct ff_verify_plan *pl = &kc->ref->plan;
    simulate(kc, HONEST, kc->c);
    uint32_t row = pl->rows[pl->n_rows / 2];
    uint32_t col = pl->n_cols ? pl->cols[pl->n_cols / 2] : pl->rows[pl->n_rows / 3] % kc->n;
    for (size_t e = 0; e < count; e++) {
        uint32_t i = e % 2 ? row : (uint32_t)((e * 7919) % kc->m);
        uint32_t j = e % 2 ? (uint32_t)((e * 104729) % kc->n) : col;
        put(kc->prec, kc->c, (size_t)i * kc->n + j,
            element(kc->prec, kc->a, kc->b, kc->k, kc->n, ar, i, j));
    }
    char err[512] = "";
    ff_kcheck_compare(kc, kc->c, err, sizeof(err));
    return kc->check.bad;
}

/* Every lazy pattern that leaves something unwritten at this size is caught. */
static void lazy_patterns(struct ff_kcheck *kc, void *c)
{
    const enum ff_precision p = kc->prec;
    const uint32_t n = kc->n;
    for (int l = 0; l < LAZY_COUNT; l++) {
        if (!lazy_at((enum lazy)l, n, n))
            continue; /* e.g. "first 256 rows" at n = 256 is the whole matrix */
        simulate(kc, (enum lazy)l, c);
        char err[512] = "";
        int ret = ff_kcheck_compare(kc, c, err, sizeof(err));
        if (l == HONEST) {
            cr_assert_eq(ret, FF_OK, "%s n=%u honest: %s", ff_precision_name(p), n, err);
        } else {
            cr_assert_eq(ret, FF_ERR_VERIFY, "%s n=%u: lazy kernel '%s' passed",
                         ff_precision_name(p), n, lazy_names[l]);
            cr_assert(strstr(err, "does not match"), "%s", err);
        }
    }
}

/*
 * C holds a previous run's result (same size, other inputs): computed on
 * part of one checked row, the rest honest; nearly all of it is flagged.
 */
static void stale_output(struct ff_kcheck *kc, uint64_t seed)
{
    const enum ff_precision p = kc->prec;
    const uint32_t n = kc->n;
    size_t bytes = (size_t)n * n * ff_matmul_in_bytes(p);
    void *pa = malloc(bytes), *pb = malloc(bytes);
    cr_assert(pa && pb);
    struct ff_rng rng;
    ff_rng_seed(&rng, seed);
    ff_fill_random(p, pa, (size_t)n * n, &rng);
    ff_fill_random(p, pb, (size_t)n * n, &rng);
    simulate(kc, HONEST, kc->c);
    uint32_t row = kc->ref->plan.rows[kc->ref->plan.n_rows - 2];
    uint64_t stale = 0;
    for (uint32_t j = 0; j < n; j += 1 + n / 128, stale++)
        put(p, kc->c, (size_t)row * n + j, element(p, pa, pb, n, n, SEQ_FP32, row, j));
    char err[512] = "";
    cr_assert_eq(ff_kcheck_compare(kc, kc->c, err, sizeof(err)), FF_ERR_VERIFY, "n=%u", n);
    cr_assert_geq(kc->check.bad * 10, stale * 9, "%s n=%u: %llu of %llu stale elements flagged",
                  ff_precision_name(p), n, (unsigned long long)kc->check.bad,
                  (unsigned long long)stale);
    free(pa);
    free(pb);
}

/* Every size the bench runs and the odd ones, one reference per size. */
static void lazy_suite(enum ff_precision p, const uint32_t *ns, size_t count)
{
    for (size_t si = 0; si < count; si++) {
        uint32_t n = ns[si];
        struct ff_kcheck kc;
        make(&kc, p, n, 1000 + n);
        void *c = malloc((size_t)n * n * ff_matmul_out_bytes(p));
        cr_assert_not_null(c);
        lazy_patterns(&kc, c);
        stale_output(&kc, 2000 + n);
        if (p == FF_PREC_FP32) {
            /* honest worst order passes with room; rounded inputs and fp16 arithmetic fail */
            cr_assert_eq(arith_bad(&kc, SEQ_FP32, 64), 0, "n=%u honest fp32 flagged", n);
            cr_assert_lt(kc.check.worst, 0.25, "n=%u: sequential fp32 used %.2f of its bound", n,
                         kc.check.worst);
            const enum arith cheats[] = {TF32_INPUTS, BF16_INPUTS, FP16_PRODUCTS, FP16_ACC};
            for (size_t ci = 0; ci < 4; ci++) {
                uint64_t bad = arith_bad(&kc, cheats[ci], 64);
                cr_assert_geq(bad, 8, "n=%u: arithmetic %zu flagged only %llu of 64", n, ci,
                              (unsigned long long)bad);
            }
        } else if (p == FF_PREC_FP16) {
            /* fp32 accumulation, rounded to nearest or toward zero: passes */
            cr_assert_eq(arith_bad(&kc, SEQ_FP32, 64), 0, "n=%u honest fp16 flagged: worst %.3g", n,
                         kc.check.worst);
            cr_assert_lt(kc.check.worst, 0.6, "n=%u: honest fp16 used %.2f of its bound", n,
                         kc.check.worst);
            cr_assert_eq(arith_bad(&kc, SEQ_FP32_RTZ, 64), 0, "n=%u", n);
            /* fp16 accumulation where fp32 is promised: most of the 64 flagged */
            uint64_t bad = arith_bad(&kc, FP16_ACC, 64);
            cr_assert_geq(bad, 32, "n=%u: only %llu of 64 fp16-accumulated elements flagged", n,
                          (unsigned long long)bad);
        }
        free(c);
        ff_kcheck_finish(&kc);
    }
}

/* fp32 at every size; fp16 and int8 (whose poison differs) at the bench's sizes. */
static const uint32_t sizes_short[] = {256, 257, 1024, 1291, 2048, 4096};

Test(lazy, fp32_at_every_size, .timeout = 600)
{
    lazy_suite(FF_PREC_FP32, sizes, N_SIZES);
}

Test(lazy, fp16_at_every_bench_size, .timeout = 600)
{
    lazy_suite(FF_PREC_FP16, sizes_short, sizeof(sizes_short) / sizeof(sizes_short[0]));
}

Test(lazy, int8_at_every_bench_size, .timeout = 600)
{
    lazy_suite(FF_PREC_INT8, sizes_short, sizeof(sizes_short) / sizeof(sizes_short[0]));
}
