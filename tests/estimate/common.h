/* tests/estimate/common.h — helpers shared by the estimator tests. */
#ifndef FF_TEST_ESTIMATE_COMMON_H
#define FF_TEST_ESTIMATE_COMMON_H

#include <math.h>
#include <stdio.h>

#include <criterion/criterion.h>

#include "flopfit/flopfit.h"

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
    cr_assert_eq(ff_model_preset_find(name, &m), FF_OK, "preset %s", name);
    return m;
}

static inline struct ff_spec device(const char *name)
{
    struct ff_spec d;
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
    char err[512] = "";
    int rc = ff_est_run(m, d, p, &e, err, sizeof(err));
    cr_assert_eq(rc, FF_OK, "ff_est_run: %s", err);
    return e;
}

#endif
