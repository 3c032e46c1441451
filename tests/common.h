/*
 * tests/common.h — shared by every test: open the first device of a backend, or skip (on a
 * user's machine without that API) or fail (CI=true: PoCL and lavapipe are real devices on
 * every CI machine); and the estimator tests' presets, devices and published-figure checks.
 */
#ifndef FF_TESTS_COMMON_H
#define FF_TESTS_COMMON_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "backend.h"
#include "flopfit/flopfit.h"

static inline int ff_test_in_ci(void)
{
    const char *ci = getenv("CI");
    return ci && (strcmp(ci, "true") == 0 || strcmp(ci, "1") == 0);
}

/* The backend, or the end of the test (skip; a failure under CI) when it has no device. */
static inline const struct ff_backend *ff_test_require_backend(const char *backend)
{
    char err[512] = "";
    const struct ff_backend *b = ff_backend_find(backend);
    uint32_t n = 0;
    int ret = b ? ff_backend_device_count(b, &n, err, sizeof(err)) : FF_ERR_NOT_FOUND;
    if (!b || ret < 0 || n == 0) {
        if (ff_test_in_ci())
            cr_assert_fail("CI=true but no %s device: %s", backend, b ? err : "backend not built");
        cr_skip_test("no %s device here (%s)", backend, b ? err : "backend not built");
    }
    return b;
}

/* Opens device 0 of `backend` or ends the test as above. */
static inline struct ff_device *ff_test_open(const char *backend)
{
    char err[512] = "";
    const struct ff_backend *b = ff_test_require_backend(backend);
    struct ff_device *dev = NULL;
    int ret = ff_device_open(b, 0, &dev, err, sizeof(err));
    cr_assert_eq(ret, FF_OK, "opening %s:0 failed: %s", backend, err);
    return dev;
}

/* ---- the estimator tests (tests/estimate/meson.build defines FF_TEST_ESTIMATE) ---- */
#ifdef FF_TEST_ESTIMATE

#define GIB 1073741824.0

/* got/want - 1 */
static inline double rel_off(double got, double want)
{
    return got / want - 1.0;
}

/* |got/want - 1| <= rel, with a message naming the published figure. */
#define expect_within(got, want, rel, what)                                                        \
    cr_expect(fabs(rel_off((double)(got), (double)(want))) <= (rel),                               \
              "%s: got %.6g, published %.6g (%.1f%% off, band ±%.1f%%)", (what), (double)(got),    \
              (double)(want), 100.0 * rel_off((double)(got), (double)(want)), 100.0 * (rel))

static inline struct ff_model preset(const char *name)
{
    struct ff_model m;
    ff_model_init(&m);
    cr_assert_eq(ff_model_preset_find(name, &m), FF_OK, "preset %s", name);
    return m;
}

static inline struct ff_spec device(const char *name)
{
    struct ff_spec d;
    ff_spec_init(&d);
    cr_assert_eq(ff_spec_find(name, &d), FF_OK, "device %s", name);
    return d;
}

static inline struct ff_param_count params_of(const struct ff_model *m)
{
    struct ff_param_count pc;
    cr_assert_eq(ff_model_params(m, &pc), FF_OK);
    return pc;
}

static inline struct ff_estimate run(const struct ff_model *m, const struct ff_spec *d,
                                     const struct ff_plan *p)
{
    struct ff_estimate e;
    ff_estimate_init(&e);
    char err[512] = "";
    int rc = ff_est_run(m, d, p, &e, err, sizeof(err));
    cr_assert_eq(rc, FF_OK, "ff_est_run: %s", err);
    return e;
}

/* One training step broken down (ff_est_step), asserting it succeeds. */
static inline struct ff_step step_of(const struct ff_model *m, const struct ff_spec *d,
                                     const struct ff_plan *p)
{
    struct ff_step st;
    char err[256] = "";
    cr_assert_eq(ff_est_step(m, d, p, &st, err, sizeof(err)), FF_OK, "%s", err);
    return st;
}

/* A small dense GPT (L8 h1024 a16 d64, GeLU 4h, dropout, V 50257): hand arithmetic. */
static inline struct ff_model small_gpt(void)
{
    struct ff_model m = preset("gpt-3-175b");
    m.layers = 8;
    m.hidden = 1024;
    m.heads = m.kv_heads = 16;
    m.head_dim = 64;
    m.ffn = 4096;
    return m;
}

#endif /* FF_TEST_ESTIMATE */

#endif
