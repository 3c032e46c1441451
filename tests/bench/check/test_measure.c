/*
 * The timing loop (bench/check/measure.c): budgeted repetitions, and a companion interleaved with
 * them (ff_measure_paired, how suite_matmul.c reads a matmul against the peak measured in the
 * same window). Fake runs report fixed times, so every count is exact.
 */
#include <criterion/criterion.h>

#include "check/measure.h"

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

static int failing_run(void *arg, uint64_t *dns, uint64_t *wns, char *err, size_t errlen)
{
    (void)arg, (void)dns, (void)wns, (void)err, (void)errlen;
    return FF_ERR_DEVICE_LOST;
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
    cr_expect_float_eq(pair.ratio_median, 0.2, 1e-6, "2 ms companions over 10 ms runs");
    /* never during the warm-up; after timed runs 1, 2 and 3, then after every 4 (40 ms) */
    cr_expect_eq(c.after[0], 3);
    cr_expect_eq(c.after[1], 4);
    cr_expect_eq(c.after[2], 5);
    for (unsigned i = 3; i + 1 < pair.n; i++)
        cr_expect_eq(c.after[i] - c.after[i - 1], 4, "companion %u", i);
    cr_expect_eq(c.after[pair.n - 1], 2 + t.reps, "and one after the last run");
    /* the companion's time counts against the budget: 0.5 s in all, not 0.5 s of matmul */
    double total = t.reps * 0.01 + pair.n * 0.002;
    cr_expect_geq(total, 0.5);
    cr_expect_lt(total, 0.5 + 0.014);
    cr_expect_lt(t.reps, 50);
}

/* Each run is read against the companion that followed it: a slow stretch that slows both
 * leaves the ratio alone. */
static int slow_middle(void *arg, uint64_t *dns, uint64_t *wns, char *err, size_t errlen)
{
    struct fake *f = arg;
    int ret = fake_run(f, dns, wns, err, errlen);
    unsigned i = f->calls - 1;
    if (f->step == 0 && i >= 4 && i < 12) /* main: calls 4..11 three times as slow */
        *dns *= 3;
    return ret;
}

static unsigned *main_calls;
static int slow_companion(void *arg, uint64_t *dns, uint64_t *wns, char *err, size_t errlen)
{
    int ret = fake_run(arg, dns, wns, err, errlen);
    if (*main_calls > 4 && *main_calls <= 12) /* after a slow main run: slow too */
        *dns *= 3;
    return ret;
}

Test(measure, each_run_is_paired_with_the_companion_after_it)
{
    struct ff_measure_cfg cfg = {.warmup = 0, .min_reps = 16, .max_reps = 16, .budget_s = 0};
    struct fake m = {.ns = 10000000}, c = {.ns = 5000000, .step = 0, .other = &m.calls};
    main_calls = &m.calls;
    c.step = 0;
    struct ff_pair pair = {.run = slow_companion, .ctx = &c, .every_s = 0, .min_pairs = 0};
    struct ff_timing t = {0};
    char err[64];
    cr_assert_eq(ff_measure_paired(&cfg, slow_middle, &m, &pair, &t, err, sizeof(err)), FF_OK);
    cr_expect_eq(pair.n, 16, "every_s = 0: a companion after every run");
    cr_expect_float_eq(pair.ratio_median, 0.5, 1e-9, "the slow stretch cancels in each pair");
}

Test(measure, a_failing_companion_ends_the_pairing_not_the_runs)
{
    struct ff_measure_cfg cfg = {.warmup = 0, .min_reps = 5, .max_reps = 5, .budget_s = 0};
    struct fake m = {.ns = 1000};
    struct ff_pair pair = {.run = failing_run, .ctx = NULL, .every_s = 0, .min_pairs = 3};
    struct ff_timing t = {0};
    char err[64];
    cr_assert_eq(ff_measure_paired(&cfg, fake_run, &m, &pair, &t, err, sizeof(err)), FF_OK);
    cr_expect_eq(t.reps, 5);
    cr_expect_eq(pair.n, 0);
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
