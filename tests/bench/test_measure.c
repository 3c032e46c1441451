/*
 * The timing loop (bench/measure.c): budgeted repetitions, and a companion interleaved with
 * them (ff_measure_paired, how suite_matmul.c reads a matmul against the peak measured in the
 * same window). Fake runs report fixed times, so every count is exact.
 */
#include <criterion/criterion.h>

#include "measure.h"

struct fake {
    uint64_t ns;        /* the time the first run reports */
    uint64_t step;      /* and each later one this much more */
    unsigned calls;     /* runs so far */
    unsigned *other;    /* the other side's call count, to record the interleaving */
    unsigned after[64]; /* companion: the measured runs done before each of its runs */
};

static int fake_run(void *arg, uint64_t *dns, uint64_t *wns, char *err, size_t errlen)
{
    struct fake *f = arg;
    (void)err;
    (void)errlen;
    if (f->other && f->calls < 64)
        f->after[f->calls] = *f->other;
    *dns = f->ns + f->step * f->calls;
    *wns = *dns + 1000;
    f->calls++;
    return FF_OK;
}

Test(measure, median_and_budget_without_a_companion)
{
    struct ff_measure_cfg cfg = {.warmup = 1, .min_reps = 3, .max_reps = 50, .budget_s = 0.095};
    struct fake m = {.ns = 10000000}; /* 10 ms */
    struct ff_timing t = {0};
    char err[64];
    cr_assert_eq(ff_measure(&cfg, fake_run, &m, &t, err, sizeof(err)), FF_OK);
    cr_expect_eq(t.reps, 10, "95 ms of budget in 10 ms runs");
    cr_expect_eq(m.calls, 11, "plus one warm-up");
    cr_expect_float_eq(t.dev_median_s, 0.01, 1e-12);
}

Test(measure, companion_after_the_first_runs_then_every_interval)
{
    struct ff_measure_cfg cfg = {.warmup = 2, .min_reps = 3, .max_reps = 50, .budget_s = 0.5};
    struct fake m = {.ns = 10000000}, c = {.ns = 2000000, .step = 1, .other = &m.calls};
    struct ff_pair pair = {.run = fake_run, .ctx = &c, .every_s = 0.04, .min_pairs = 3};
    struct ff_timing t = {0};
    char err[64];
    cr_assert_eq(ff_measure_paired(&cfg, fake_run, &m, &pair, &t, err, sizeof(err)), FF_OK);
    cr_expect_eq(pair.n, c.calls, "every companion run is counted");
    cr_expect_float_eq(pair.min_s, 0.002, 1e-12, "the shortest companion run");
    cr_expect_gt(pair.median_s, pair.min_s);
    /* never during the warm-up; after timed runs 1, 2 and 3, then after every 4 (40 ms) */
    cr_expect_eq(c.after[0], 3);
    cr_expect_eq(c.after[1], 4);
    cr_expect_eq(c.after[2], 5);
    for (unsigned i = 3; i < pair.n; i++)
        cr_expect_eq(c.after[i] - c.after[i - 1], 4, "companion %u", i);
    /* the companion's time counts against the budget: 0.5 s in all, not 0.5 s of matmul */
    double total = t.reps * 0.01 + pair.n * 0.002;
    cr_expect_geq(total, 0.5);
    cr_expect_lt(total, 0.5 + 0.012);
    cr_expect_lt(t.reps, 50);
}

Test(measure, companion_at_least_min_pairs_times)
{
    struct ff_measure_cfg cfg = {.warmup = 0, .min_reps = 3, .max_reps = 3, .budget_s = 0};
    struct fake m = {.ns = 1000}, c = {.ns = 1000, .other = &m.calls};
    struct ff_pair pair = {.run = fake_run, .ctx = &c, .every_s = 10, .min_pairs = 3};
    struct ff_timing t = {0};
    char err[64];
    cr_assert_eq(ff_measure_paired(&cfg, fake_run, &m, &pair, &t, err, sizeof(err)), FF_OK);
    cr_expect_eq(t.reps, 3);
    cr_expect_eq(pair.n, 3);
}
