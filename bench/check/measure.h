/*
 * bench/check/measure.h — the one timing loop: warm-up, then repetitions scaled to
 * a time budget, raw samples kept, median and spread reported.
 */
#ifndef FF_MEASURE_H
#define FF_MEASURE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "result.h"

struct ff_measure_cfg {
    uint32_t warmup;   /* untimed runs first (default 1) */
    uint32_t min_reps; /* timed runs at least (default 3) */
    uint32_t max_reps; /* timed runs at most (default 50) */
    double budget_s;   /* stop adding runs past this much device time (default 1.0) */
};

/* One run: returns 0 or a negative ff_status, device and wall time in ns. */
typedef int (*ff_run_fn)(void *ctx, uint64_t *device_ns, uint64_t *wall_ns, char *err,
                         size_t errlen);

/* 0, or the first SIGINT/SIGTERM the command caught (cmd_bench.c); loops stop at the next run. */
extern volatile sig_atomic_t ff_interrupted;

void ff_measure_defaults(struct ff_measure_cfg *cfg);
int ff_measure(const struct ff_measure_cfg *cfg, ff_run_fn fn, void *ctx, struct ff_timing *t,
               char *err, size_t errlen);

/*
 * A companion for ff_measure_paired: run goes right after each of the measured function's first
 * min_pairs timed runs, then again whenever every_s of its time has passed since the last (and
 * once more after the last runs), so it is sampled across the same window of a shared machine
 * as the measured runs. Each timed run is paired with the companion run that followed it.
 * Filled in on success: how many companion runs, their median and shortest times, and the
 * median over the timed runs of (its companion's time / its own time). A companion run that
 * fails ends the pairing, not the measurement: n is then 0.
 */
struct ff_pair {
    ff_run_fn run;
    void *ctx;
    double every_s;
    uint32_t min_pairs;
    uint32_t n;
    double median_s, min_s;
    double ratio_median;
};

/* ff_measure with a companion interleaved (not in the warm-up); the companion's time counts
 * against the budget too. */
int ff_measure_paired(const struct ff_measure_cfg *cfg, ff_run_fn fn, void *ctx,
                      struct ff_pair *pair, struct ff_timing *t, char *err, size_t errlen);

/* Median of n doubles (sorts v in place). */
double ff_median(double *v, size_t n);

#endif
