/*
 * bench/check/verify.h — random inputs, poisoned outputs, the CPU reference of a
 * matmul and the element-by-element comparison every result must pass.
 * bench/check/kcheck.h runs a device kernel through all of it.
 *
 * Storage: fp32 float, fp16 IEEE binary16 in uint16_t, int8 int8_t inputs;
 * outputs fp32 float, fp16 uint16_t, int8 int32_t. A is m x k, B k x n and
 * C m x n, all row-major and packed.
 *
 * What is checked (struct ff_verify_plan):
 * - every element while m*n*k <= FF_VERIFY_FULL_MACS (2^31 multiply-adds,
 *   about 1290^3) and m*n <= FF_VERIFY_FULL_ELEMS;
 * - above that, whole rows and whole columns: s of each, with
 *   s = FF_VERIFY_FULL_MACS / ((m + n) * k) clamped to [FF_VERIFY_SAMPLE_MIN,
 *   FF_VERIFY_SAMPLE_MAX] = [130, 256], drawn from a seed: the first and
 *   last index, one random index of every residue mod 128, the rest
 *   uniformly random. Every power-of-two tile size up to 128 therefore has
 *   each of its positions checked in some row and some column, at tiles that
 *   change from run to run. The reference then costs at most
 *   max(2^31, 2 * 130 * n * k) multiply-adds for a square problem (n = 4096:
 *   4.4e9, n = 8192: 1.7e10, as the 256 rows checked before columns were).
 *
 * The reference is exact: products of fp32 (or fp16) values are exact in
 * double and the sums are carried in double; int8 sums are exact integers.
 */
#ifndef FF_VERIFY_H
#define FF_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"

struct ff_rng {
    uint64_t s;
};

void ff_rng_seed(struct ff_rng *r, uint64_t seed);
uint64_t ff_rng_next(struct ff_rng *r);

uint16_t ff_f32_to_f16(float f);
float ff_f16_to_f32(uint16_t h);

/* Fresh random values, never all zero: floats in [-1, 1), int8 in [-128, 127]. */
void ff_fill_random(enum ff_precision p, void *dst, size_t count, struct ff_rng *rng);
/* Values a correct kernel never writes: NaN for floats, 0x7f7f7f7f for int32. */
void ff_poison(enum ff_precision p, void *dst, size_t count);

#define FF_VERIFY_FULL_MACS  (1ull << 31) /* every element up to this many multiply-adds */
#define FF_VERIFY_FULL_ELEMS (1ull << 24) /* ... and this many elements */
#define FF_VERIFY_SAMPLE_MIN 130          /* 128 residues + first + last */
#define FF_VERIFY_SAMPLE_MAX 256

/* The elements of C a check reads: whole rows and whole columns. */
struct ff_verify_plan {
    uint32_t m, n, k;
    bool full;      /* every element (rows = 0..m-1, no columns) */
    uint32_t *rows; /* ascending, each checked over all n columns */
    size_t n_rows;
    uint32_t *cols; /* ascending, each checked over all m rows */
    size_t n_cols;
};

/* Fills plan for an m x n x k product from seed. FF_OK or FF_ERR_NO_MEMORY. */
int ff_verify_plan_init(struct ff_verify_plan *plan, uint32_t m, uint32_t n, uint32_t k,
                        uint64_t seed);
void ff_verify_plan_finish(struct ff_verify_plan *plan);

/*
 * Largest |c - exact| an honest kernel of precision p may show at one element
 * whose exact value is `want`, summing k products, where norm = ||a_i||_2 *
 * ||b_j||_2 bounds sum |a_it * b_tj| (Cauchy-Schwarz). With u = 2^-24 and
 * g(k) = min(k, sqrt(k) + 4):
 *   fp32: g(k) u norm + u |want| + 2^-126
 *         (fp32 accumulation: the worst-case bound k u for k <= 6, beyond it
 *         the probabilistic sqrt(k) u bound (Higham & Mary 2019, lambda = 1)
 *         with 4 u of slack; an honest sequential fp32 sum of the zero-mean
 *         inputs ff_fill_random makes uses under a quarter of it (tested);
 *         plus the output rounding)
 *   fp16: acc + 2^-10 (|want| + acc) + 2^-14, acc = the fp32 term
 *         (fp32 accumulation, then one fp16 rounding in any rounding mode,
 *         fp16 subnormals possibly flushed)
 *   int8: 0 (exact)
 * fp16 accumulation, or fp32 products of TF32/bf16/fp16-rounded inputs, are
 * some 2^13 / sqrt(k) times further off and fail.
 */
double ff_verify_bound(enum ff_precision p, uint32_t k, double norm, double want);

/* The exact values of the checked elements and what bounds them. */
struct ff_ref {
    enum ff_precision prec;
    struct ff_verify_plan plan;
    double *row_ref; /* n_rows x n: row plan.rows[r] of A*B */
    double *col_ref; /* m x n_cols: column plan.cols[c] of A*B */
    double *a_norm;  /* m: ||row i of A||_2 */
    double *b_norm;  /* n: ||column j of B||_2 */
};

/*
 * The reference of C = A*B at the elements of ff_verify_plan_init(m, n, k,
 * seed). Threaded over the host's CPUs. FF_OK, FF_ERR_INVALID (no kernel for
 * p) or FF_ERR_NO_MEMORY. a and b are read only during the call.
 */
int ff_ref_create(enum ff_precision p, const void *a, const void *b, uint32_t m, uint32_t n,
                  uint32_t k, uint64_t seed, struct ff_ref **out);
void ff_ref_destroy(struct ff_ref **ref);

struct ff_check {
    uint64_t checked; /* comparisons (an element in a checked row and column counts twice) */
    double max_abs;   /* max |c - ref| over them (inf for NaN/inf) */
    double max_rel;   /* max_abs / max |ref| (norm-wise relative error) */
    double tolerance; /* max bound / max |ref|: a passing check has max_rel <= tolerance */
    double worst;     /* max |c - ref| / bound: <= 1 passes */
    uint64_t bad;     /* elements out of their bound (or NaN/inf) */
    uint32_t first_row, first_col;
    double got, want, bound; /* at the first bad element */
};

/* c is the full m*n output. FF_OK or FF_ERR_VERIFY. */
int ff_ref_check(const struct ff_ref *ref, const void *c, struct ff_check *out);

#endif
