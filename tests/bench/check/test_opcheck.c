/*
 * tests/bench/check/test_opcheck.c — the op kernels' check (bench/check/opcheck.h) against
 * host "kernels": a plain fp32 implementation of each op, as an honest device computes it,
 * passes at every format and at odd shapes; lazy or wrong ones (a skipped row, the nibbles of
 * a q4_0 block swapped, the scales ignored, fp16 accumulation, the causal mask dropped, a
 * poisoned element left) fail.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "check/opcheck.h"
#include "check/verify.h"

/* Dequantised weight (row r, column c) as a kernel reads it. */
static float weight(const struct ff_opcheck *oc, uint32_t r, uint32_t c, bool swap_nibbles,
                    bool no_scale)
{
    const struct ff_kernel_desc *d = &oc->desc;
    uint64_t e = (uint64_t)r * d->k + c;
    switch (d->prec) {
    case FF_PREC_FP32: return ((const float *)oc->host[1])[e];
    case FF_PREC_FP16: return ff_f16_to_f32(((const uint16_t *)oc->host[1])[e]);
    case FF_PREC_BF16: {
        uint32_t b = (uint32_t)((const uint16_t *)oc->host[1])[e] << 16;
        float f;
        memcpy(&f, &b, 4);
        return f;
    }
    case FF_PREC_INT8:
        return ((const int8_t *)oc->host[1])[e] *
               (no_scale ? 1.0f : ((const float *)oc->host[2])[r]);
    case FF_PREC_Q8_0:
        return ((const int8_t *)oc->host[1])[e] *
               (no_scale ? 1.0f : ff_f16_to_f32(((const uint16_t *)oc->host[2])[e / 32]));
    case FF_PREC_Q4_0: {
        uint64_t b = e / 32;
        uint32_t j = (uint32_t)(e % 32);
        uint8_t byte = ((const uint8_t *)oc->host[1])[b * 16 + (j & 15)];
        bool high = (j >= 16) != swap_nibbles;
        int q = high ? byte >> 4 : byte & 15;
        return (float)(q - 8) *
               (no_scale ? 1.0f : ff_f16_to_f32(((const uint16_t *)oc->host[2])[b]));
    }
    default: return NAN;
    }
}

static float kv(const struct ff_opcheck *oc, int buf, uint64_t e)
{
    if (oc->desc.prec == FF_PREC_FP32)
        return ((const float *)oc->host[buf])[e];
    uint16_t h = ((const uint16_t *)oc->host[buf])[e];
    if (oc->desc.prec == FF_PREC_FP16)
        return ff_f16_to_f32(h);
    uint32_t b = (uint32_t)h << 16;
    float f;
    memcpy(&f, &b, 4);
    return f;
}

enum flaw { HONEST, SKIP_ROW, SWAP_NIBBLES, NO_SCALE, HALF_ACC, NO_MASK, LEAVE_POISON };

static float to_half(float f)
{
    return ff_f16_to_f32(ff_f32_to_f16(f));
}

/* One attention row in fp32 with an online softmax, over positions 0..len-1. */
static void attn_host(const struct ff_opcheck *oc, const float *q, uint64_t kv0, uint32_t len,
                      float *o)
{
    const uint32_t k = oc->desc.k;
    float mx = -INFINITY, sum = 0;
    for (uint32_t d = 0; d < k; d++)
        o[d] = 0;
    for (uint32_t t = 0; t < len; t++) {
        float s = 0;
        for (uint32_t d = 0; d < k; d++)
            s += q[d] * kv(oc, 1, kv0 + (uint64_t)t * k + d);
        s /= sqrtf((float)k);
        float nm = fmaxf(mx, s), corr = expf(mx - nm), p = expf(s - nm);
        sum = sum * corr + p;
        for (uint32_t d = 0; d < k; d++)
            o[d] = o[d] * corr + p * kv(oc, 2, kv0 + (uint64_t)t * k + d);
        mx = nm;
    }
    for (uint32_t d = 0; d < k; d++)
        o[d] /= sum;
}

/* The output a host "device" with that flaw writes. */
static float *compute(const struct ff_opcheck *oc, enum flaw f)
{
    const struct ff_kernel_desc *d = &oc->desc;
    float *y = malloc(oc->bytes[oc->n_bufs - 1]);
    memcpy(y, oc->poison, oc->bytes[oc->n_bufs - 1]);
    const float *x = oc->host[0];
    const float *b = oc->n_bufs > 2 ? oc->host[1] : NULL;
    switch (d->id) {
    case FF_KERNEL_GEMV:
        for (uint32_t i = 0; i < d->m; i++)
            for (uint32_t j = 0; j < d->n; j++) {
                if (f == SKIP_ROW && j == d->n / 2)
                    continue;
                float s = 0;
                for (uint32_t t = 0; t < d->k; t++) {
                    s += x[(uint64_t)i * d->k + t] *
                         weight(oc, j, t, f == SWAP_NIBBLES, f == NO_SCALE);
                    if (f == HALF_ACC)
                        s = to_half(s);
                }
                y[(uint64_t)i * d->n + j] = s;
            }
        break;
    case FF_KERNEL_ATTN_DECODE:
        for (uint32_t i = 0; i < d->m; i++)
            attn_host(oc, x + (uint64_t)i * d->k, (uint64_t)(i / d->g) * d->n * d->k,
                      f == SKIP_ROW ? d->n - 1 : d->n, y + (uint64_t)i * d->k);
        break;
    case FF_KERNEL_ATTN_PREFILL:
        for (uint32_t i = 0; i < d->m; i++)
            for (uint32_t t = 0; t < d->n; t++)
                attn_host(oc, x + ((uint64_t)i * d->n + t) * d->k,
                          (uint64_t)(i / d->g) * d->n * d->k, f == NO_MASK ? d->n : t + 1,
                          y + ((uint64_t)i * d->n + t) * d->k);
        break;
    case FF_KERNEL_RMSNORM:
        for (uint32_t i = 0; i < d->m; i++) {
            float ss = 0;
            for (uint32_t j = 0; j < d->n; j++)
                ss += x[(uint64_t)i * d->n + j] * x[(uint64_t)i * d->n + j];
            float inv = 1.0f / sqrtf(ss / (float)d->n + 1e-6f);
            for (uint32_t j = 0; j < d->n; j++)
                y[(uint64_t)i * d->n + j] = x[(uint64_t)i * d->n + j] * inv * b[j];
        }
        break;
    case FF_KERNEL_ROPE:
        for (uint32_t i = 0; i < d->m; i++) {
            float pos = (float)(oc->params[2] + i / d->g);
            uint32_t h = d->n / 2;
            for (uint32_t j = 0; j < h; j++) {
                float a = pos * powf(10000.0f, -2.0f * (float)j / (float)d->n);
                float x0 = x[(uint64_t)i * d->n + j], x1 = x[(uint64_t)i * d->n + j + h];
                y[(uint64_t)i * d->n + j] = x0 * cosf(a) - x1 * sinf(a);
                y[(uint64_t)i * d->n + j + h] = x0 * sinf(a) + x1 * cosf(a);
            }
        }
        break;
    case FF_KERNEL_SWIGLU:
    case FF_KERNEL_ADD:
        for (uint64_t e = 0; e < (uint64_t)d->m * d->n; e++)
            y[e] = d->id == FF_KERNEL_ADD ? x[e] + b[e] : x[e] / (1.0f + expf(-x[e])) * b[e];
        break;
    case FF_KERNEL_XENT:
        for (uint32_t i = 0; i < d->m; i++) {
            const float *r = x + (uint64_t)i * d->n;
            float mx = -INFINITY, s = 0;
            for (uint32_t j = 0; j < d->n; j++)
                mx = fmaxf(mx, r[j]);
            for (uint32_t j = 0; j < d->n; j++)
                s += expf(r[j] - mx);
            y[i] = mx + logf(s) - r[((const uint32_t *)oc->host[1])[i]];
        }
        break;
    default: break;
    }
    if (f == LEAVE_POISON)
        memcpy(&y[oc->n_out - 1], oc->poison, 4);
    return y;
}

static void expect(const struct ff_kernel_desc *d, enum flaw f, bool pass)
{
    char err[512] = "";
    struct ff_opcheck oc;
    cr_assert_eq(ff_opcheck_init(&oc, d, 42 + d->id, err, sizeof(err)), FF_OK, "%s", err);
    float *y = compute(&oc, f);
    int ret = ff_opcheck_compare(&oc, y, err, sizeof(err));
    cr_expect_eq(ret == FF_OK, pass, "op %d %s %ux%ux%u g%u flaw %d: %s (worst %.3g)", d->id,
                 ff_precision_name(d->prec), d->m, d->n, d->k, d->g, f, err, oc.check.worst);
    free(y);
    ff_opcheck_finish(&oc);
}

Test(opcheck, gemv_every_format_honest_passes_flaws_fail)
{
    const enum ff_precision fmts[] = {FF_PREC_FP32, FF_PREC_FP16, FF_PREC_BF16,
                                      FF_PREC_INT8, FF_PREC_Q8_0, FF_PREC_Q4_0};
    const uint32_t shapes[][3] = {{1, 17, 32}, {3, 40, 96}, {1, 64, 4096}};
    for (size_t fi = 0; fi < sizeof(fmts) / sizeof(fmts[0]); fi++)
        for (size_t s = 0; s < 3; s++) {
            struct ff_kernel_desc d = {.id = FF_KERNEL_GEMV,
                                       .prec = fmts[fi],
                                       .m = shapes[s][0],
                                       .n = shapes[s][1],
                                       .k = shapes[s][2]};
            expect(&d, HONEST, true);
            expect(&d, SKIP_ROW, false);
            expect(&d, LEAVE_POISON, false);
            if (fmts[fi] == FF_PREC_Q4_0)
                expect(&d, SWAP_NIBBLES, false);
            if (fmts[fi] >= FF_PREC_INT8 && fmts[fi] != FF_PREC_Q4_0 && s == 2)
                expect(&d, HALF_ACC, false);
            if (fmts[fi] == FF_PREC_INT8 || fmts[fi] == FF_PREC_Q8_0 || fmts[fi] == FF_PREC_Q4_0)
                expect(&d, NO_SCALE, false);
        }
}

Test(opcheck, attention_decode_and_prefill)
{
    const enum ff_precision fmts[] = {FF_PREC_FP32, FF_PREC_FP16, FF_PREC_BF16};
    for (size_t fi = 0; fi < 3; fi++) {
        struct ff_kernel_desc d = {
            .id = FF_KERNEL_ATTN_DECODE, .prec = fmts[fi], .m = 8, .n = 33, .k = 64, .g = 4};
        expect(&d, HONEST, true);
        expect(&d, SKIP_ROW, false);
        d.n = 1;
        expect(&d, HONEST, true);
        d = (struct ff_kernel_desc){
            .id = FF_KERNEL_ATTN_PREFILL, .prec = fmts[fi], .m = 4, .n = 40, .k = 32, .g = 2};
        expect(&d, HONEST, true);
        expect(&d, NO_MASK, false);
    }
    struct ff_kernel_desc big = {
        .id = FF_KERNEL_ATTN_DECODE, .prec = FF_PREC_FP16, .m = 4, .n = 2048, .k = 128, .g = 4};
    expect(&big, HONEST, true);
    expect(&big, LEAVE_POISON, false);
}

Test(opcheck, small_ops)
{
    const enum ff_kernel_id ids[] = {FF_KERNEL_RMSNORM, FF_KERNEL_ROPE, FF_KERNEL_SWIGLU,
                                     FF_KERNEL_ADD, FF_KERNEL_XENT};
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        struct ff_kernel_desc d = {.id = ids[i], .prec = FF_PREC_FP32, .m = 6, .n = 4096, .g = 3};
        expect(&d, HONEST, true);
        expect(&d, LEAVE_POISON, false);
        d.m = 1;
        d.n = 18;
        d.g = 1;
        expect(&d, HONEST, true);
    }
}

Test(opcheck, refuses_what_the_front_end_refuses)
{
    char err[256];
    struct ff_opcheck oc;
    struct ff_kernel_desc d = {.id = FF_KERNEL_GEMV, .prec = FF_PREC_Q4_0, .m = 1, .n = 8, .k = 48};
    cr_expect_eq(ff_opcheck_init(&oc, &d, 1, err, sizeof(err)), FF_ERR_INVALID);
    d = (struct ff_kernel_desc){
        .id = FF_KERNEL_ATTN_DECODE, .prec = FF_PREC_INT8, .m = 4, .n = 8, .k = 8, .g = 1};
    cr_expect_eq(ff_opcheck_init(&oc, &d, 1, err, sizeof(err)), FF_ERR_UNSUPPORTED);
    cr_expect(strstr(err, "KV cache"), "%s", err);
    d = (struct ff_kernel_desc){
        .id = FF_KERNEL_ATTN_DECODE, .prec = FF_PREC_FP16, .m = 6, .n = 8, .k = 8, .g = 4};
    cr_expect_eq(ff_opcheck_init(&oc, &d, 1, err, sizeof(err)), FF_ERR_INVALID);
    d = (struct ff_kernel_desc){
        .id = FF_KERNEL_MATMUL, .prec = FF_PREC_FP32, .m = 4, .n = 4, .k = 4};
    cr_expect_eq(ff_opcheck_init(&oc, &d, 1, err, sizeof(err)), FF_ERR_INVALID);
}

Test(opcheck, bytes_and_flops)
{
    struct ff_kernel_desc d = {
        .id = FF_KERNEL_GEMV, .prec = FF_PREC_Q4_0, .m = 1, .n = 4096, .k = 4096};
    /* GGUF Q4_0: 18 bytes per 32 weights, plus x and y */
    cr_expect_eq(ff_opcheck_bytes(&d), 4096ull * 4096 / 32 * 18 + 4096 * 4 * 2);
    d.prec = FF_PREC_FP16;
    cr_expect_eq(ff_opcheck_bytes(&d), 4096ull * 4096 * 2 + 4096 * 4 * 2);
    cr_expect_float_eq(ff_opcheck_flops(&d), 2.0 * 4096 * 4096, 1);
}
