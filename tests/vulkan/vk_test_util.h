/*
 * tests/vulkan/vk_test_util.h — shared by the Vulkan tests and benchmark:
 * device selection (with the CI rule), random inputs, fp16 conversion and
 * the plain-C matmul reference.
 */
#ifndef FF_VK_TEST_UTIL_H
#define FF_VK_TEST_UTIL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

#define VKT_SKIP 77

static inline bool vkt_ci(void)
{
    const char *ci = getenv("CI");
    return ci && (strcmp(ci, "true") == 0 || strcmp(ci, "1") == 0);
}

/*
 * Is there a Vulkan device to test on? Returns 0 when yes; otherwise prints
 * why and returns the exit code: 77 (skip) on a user's machine, 1 with
 * CI=true where lavapipe must exist.
 */
static inline int vkt_require_device(void)
{
    const struct ff_backend *b = ff_backend_find("vulkan");
    char err[256] = "";
    uint32_t n = 0;
    int ret = b ? ff_backend_device_count(b, &n, err, sizeof(err)) : FF_ERR_NO_DEVICE;
    if (ret == 0 && n > 0)
        return 0;
    fprintf(stderr, "no Vulkan device: %s (%s)\n", err[0] ? err : "none found",
            b ? ff_backend_hint(b) : "backend not built");
    if (vkt_ci()) {
        fprintf(stderr, "CI=true: a missing Vulkan device is a failure\n");
        return 1;
    }
    return VKT_SKIP;
}

static inline uint32_t vkt_device_index(void)
{
    const char *s = getenv("FF_VK_DEVICE");
    return s ? (uint32_t)strtoul(s, NULL, 10) : 0;
}

/* xorshift: deterministic, fresh per seed */
static inline uint32_t vkt_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)(*s >> 11);
}

static inline float vkt_randf(uint64_t *s)
{
    return (float)((double)(vkt_rand(s) & 0xffffff) / 8388608.0 - 1.0); /* [-1, 1) */
}

static inline uint16_t vkt_f2h(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000;
    int32_t exp = (int32_t)((x >> 23) & 0xff) - 127 + 15;
    uint32_t mant = x & 0x7fffff;
    if (exp <= 0) { /* subnormal or zero */
        if (exp < -10)
            return (uint16_t)sign;
        mant |= 0x800000;
        uint32_t shift = (uint32_t)(14 - exp);
        uint32_t h = mant >> shift;
        uint32_t rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1)))
            h++;
        return (uint16_t)(sign | h);
    }
    if (exp >= 31)
        return (uint16_t)(sign | 0x7c00);
    uint32_t h = ((uint32_t)exp << 10) | (mant >> 13);
    uint32_t rem = mant & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
        h++;
    return (uint16_t)(sign | h);
}

static inline float vkt_h2f(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    float f;
    if (exp == 0)
        f = ldexpf((float)mant, -24);
    else if (exp == 31)
        f = mant ? NAN : INFINITY;
    else
        f = ldexpf((float)(mant | 0x400), (int)exp - 25);
    uint32_t x;
    memcpy(&x, &f, 4);
    x |= sign;
    memcpy(&f, &x, 4);
    return f;
}

/* C = A * B in double (fp32/fp16 inputs given as float). */
static inline void vkt_ref_f(const float *a, const float *b, double *c, uint32_t m, uint32_t n,
                             uint32_t k)
{
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t j = 0; j < n; j++) {
            double s = 0;
            for (uint32_t l = 0; l < k; l++)
                s += (double)a[(size_t)i * k + l] * b[(size_t)l * n + j];
            c[(size_t)i * n + j] = s;
        }
}

static inline void vkt_ref_i8(const int8_t *a, const int8_t *b, int32_t *c, uint32_t m, uint32_t n,
                              uint32_t k)
{
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t j = 0; j < n; j++) {
            int32_t s = 0;
            for (uint32_t l = 0; l < k; l++)
                s += (int32_t)a[(size_t)i * k + l] * b[(size_t)l * n + j];
            c[(size_t)i * n + j] = s;
        }
}

#endif
