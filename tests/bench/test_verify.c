/* CPU reference, fp16 conversion and the comparison that guards every figure. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "verify.h"

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

static void naive(const float *a, const float *b, float *c, int m, int n, int k)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int x = 0; x < k; x++)
                s += (double)a[i * k + x] * b[x * n + j];
            c[i * n + j] = (float)s;
        }
}

Test(verify, reference_matches_naive_on_odd_shape)
{
    enum { M = 37, N = 53, K = 71 };
    float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * K * N);
    float *want = malloc(sizeof(float) * M * N), *ref = malloc(sizeof(float) * M * N);
    struct ff_rng r;
    ff_rng_seed(&r, 7);
    ff_fill_random(FF_PREC_FP32, a, M * K, &r);
    ff_fill_random(FF_PREC_FP32, b, K * N, &r);
    naive(a, b, want, M, N, K);
    uint32_t rows[256];
    size_t nr = ff_verify_rows(M, N, K, rows, 256);
    cr_assert_eq(nr, M);
    cr_assert_eq(ff_ref_matmul(FF_PREC_FP32, a, b, ref, N, K, rows, nr), FF_OK);
    struct ff_check chk;
    cr_assert_eq(ff_check_matmul(FF_PREC_FP32, want, ref, M, N, rows, nr, &chk), FF_OK);
    cr_assert_lt(chk.max_rel, 1e-6);
    free(a);
    free(b);
    free(want);
    free(ref);
}

Test(verify, a_wrong_element_is_caught_in_every_precision)
{
    enum { N = 24 };
    struct ff_rng r;
    ff_rng_seed(&r, 3);
    for (int p = 0; p < FF_PREC_COUNT; p++) {
        if (!ff_matmul_has_kernel((enum ff_precision)p))
            continue;
        uint8_t a[N * N * 4], b[N * N * 4], c[N * N * 4], ref[N * N * 4];
        ff_fill_random(p, a, N * N, &r);
        ff_fill_random(p, b, N * N, &r);
        uint32_t rows[N];
        size_t nr = ff_verify_rows(N, N, N, rows, N);
        ff_ref_matmul(p, a, b, ref, N, N, rows, nr);
        /* a "device" result equal to the reference passes ... */
        for (int i = 0; i < N * N; i++) {
            if (p == FF_PREC_FP16)
                ((uint16_t *)c)[i] = ff_f32_to_f16(((float *)ref)[i]);
            else
                memcpy(c + 4 * i, ref + 4 * i, 4);
        }
        struct ff_check chk;
        cr_assert_eq(ff_check_matmul(p, c, ref, N, N, rows, nr, &chk), FF_OK, "prec %d", p);
        /* ... one element off fails, with its position */
        if (p == FF_PREC_FP32)
            ((float *)c)[5 * N + 7] += 0.5f;
        else if (p == FF_PREC_FP16)
            ((uint16_t *)c)[5 * N + 7] ^= 0x0400; /* flip an exponent bit */
        else
            ((int32_t *)c)[5 * N + 7] += 1; /* int8 must be exact */
        cr_assert_eq(ff_check_matmul(p, c, ref, N, N, rows, nr, &chk), FF_ERR_VERIFY, "prec %d", p);
        cr_assert_eq(chk.bad, 1);
        cr_assert_eq(chk.first_row, 5);
        cr_assert_eq(chk.first_col, 7);
    }
}

Test(verify, poisoned_output_left_unwritten_is_caught)
{
    enum { N = 16 };
    float c[N * N], ref[N * N];
    for (int i = 0; i < N * N; i++)
        ref[i] = c[i] = 1.0f;
    ff_poison(FF_PREC_FP32, c + N * N - 1, 1); /* last element never written */
    uint32_t rows[N];
    size_t nr = ff_verify_rows(N, N, N, rows, N);
    struct ff_check chk;
    cr_assert_eq(ff_check_matmul(FF_PREC_FP32, c, ref, N, N, rows, nr, &chk), FF_ERR_VERIFY);
    int32_t ci[4], ri[4] = {1, 2, 3, 4};
    memcpy(ci, ri, sizeof(ci));
    ff_poison(FF_PREC_INT8, ci + 2, 1);
    uint32_t r2[1] = {0};
    cr_assert_eq(ff_check_matmul(FF_PREC_INT8, ci, ri, 1, 4, r2, 1, &chk), FF_ERR_VERIFY);
}

Test(verify, tf32_like_error_fails_fp32_tolerance)
{
    /* A kernel that silently used TF32 (10-bit mantissa) would be ~1e-3 off. */
    float ref[4] = {1.0f, -0.5f, 0.25f, 2.0f}, c[4];
    for (int i = 0; i < 4; i++)
        c[i] = ref[i] * (1.0f + 1e-3f);
    uint32_t rows[1] = {0};
    struct ff_check chk;
    cr_assert_eq(ff_check_matmul(FF_PREC_FP32, c, ref, 1, 4, rows, 1, &chk), FF_ERR_VERIFY);
}

Test(verify, large_problems_sample_rows_including_the_last)
{
    uint32_t rows[256];
    size_t n = ff_verify_rows(8192, 8192, 8192, rows, 256);
    cr_assert_eq(n, 256);
    cr_assert_eq(rows[0], 0);
    cr_assert_eq(rows[n - 1], 8191);
    bool residue[128] = {false};
    for (size_t i = 0; i < n; i++) {
        cr_assert_lt(rows[i], 8192);
        residue[rows[i] % 128] = true;
    }
    for (int i = 0; i < 128; i++)
        cr_assert(residue[i], "no checked row is %d mod 128", i);
}
