/*
 * bench/verify.h — random inputs, poisoned outputs, the CPU reference and
 * the comparison every timed matmul result must pass.
 *
 * Storage: fp32 float, fp16 IEEE binary16 in uint16_t, int8 int8_t inputs;
 * outputs fp32 float, fp16 uint16_t, int8 int32_t. The reference is float
 * (fp32/fp16) or int32 (int8).
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

size_t ff_prec_in_bytes(enum ff_precision p);  /* bytes per input element */
size_t ff_prec_out_bytes(enum ff_precision p); /* bytes per output element */

/* Fresh random values, never all zero: floats in [-1, 1), int8 in [-128, 127]. */
void ff_fill_random(enum ff_precision p, void *dst, size_t count, struct ff_rng *rng);
/* Values a correct kernel never writes: NaN for floats, 0x7f7f7f7f for int32. */
void ff_poison(enum ff_precision p, void *dst, size_t count);

/*
 * Rows of C checked: all of them for small problems, else a spread sample
 * (first, last, and rows covering every residue of common tile sizes) so the
 * CPU reference stays affordable for n = 8192. Returns the number of rows
 * written to rows (at most max_rows).
 */
size_t ff_verify_rows(uint32_t m, uint32_t n, uint32_t k, uint32_t *rows, size_t max_rows);

/*
 * ref[i][*] = row rows[i] of A*B, A k columns wide, B n columns wide; ref
 * holds n_rows*n floats or int32s. Threaded over the host's CPUs.
 * Returns FF_OK or FF_ERR_NO_MEMORY.
 */
int ff_ref_matmul(enum ff_precision p, const void *a, const void *b, void *ref, uint32_t n,
                  uint32_t k, const uint32_t *rows, size_t n_rows);

struct ff_check {
    double max_abs;   /* max |c - ref| over checked elements */
    double max_rel;   /* max_abs / max |ref| (norm-wise relative error) */
    double tolerance; /* what max_rel must stay under (0 for int8: exact) */
    uint64_t bad;     /* elements out of tolerance (or NaN) */
    uint32_t first_row, first_col;
    double got, want; /* at the first bad element */
};

double ff_tolerance(enum ff_precision p);

/* c is the full m*n device output. Returns FF_OK or FF_ERR_VERIFY. */
int ff_check_matmul(enum ff_precision p, const void *c, const void *ref, uint32_t m, uint32_t n,
                    const uint32_t *rows, size_t n_rows, struct ff_check *out);

#endif
