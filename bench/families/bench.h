/*
 * bench/families/bench.h — what a `flopfit bench` run was asked to do, and the test
 * families it runs on one device (one file per family: suite_*.c, probe_*.c;
 * the registry of them is families.h).
 *
 * Nothing here prints: a family reports progress through the callback in the
 * configuration and its results through the profile.
 */
#ifndef FF_BENCH_H
#define FF_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "check/measure.h"
#include "check/result.h"

#define FF_MAX_SIZES 16

/*
 * Progress sink: `line` (no newline, at most a terminal line) replaces the
 * previous one; "" clears it. Called from the thread that runs the tests.
 */
typedef void (*ff_progress_fn)(void *ctx, const char *line);

/*
 * The tuning point a kernel is built with in this run and where it came from (cmd_bench.c
 * fills one table per device before the families run; tune.h finds the points).
 */
struct ff_bench_tuned {
    enum ff_kernel_id id;
    enum ff_precision prec;     /* matmul */
    struct ff_tune_point point; /* n == 0: the backend's choice (its defaults or an override) */
    char text[192];             /* the point as text, or the override's value */
    char source[12];            /* "tune", "cache", "default" or "override" */
};
#define FF_BENCH_MAX_TUNED 16
struct ff_bench_tuning {
    size_t n;
    struct ff_bench_tuned k[FF_BENCH_MAX_TUNED];
};

/* One operation of a model step for the ops family: the kernel to run (FF_KERNEL_MATMUL for a
 * GEMM, else an op kernel, backend.h) at its shape, and its role in the model ("ffn_down"). */
struct ff_bench_op {
    struct ff_kernel_desc desc;
    char what[24];
};

struct ff_bench_cfg {
    uint32_t families;            /* bit i: ff_families()[i] runs (ff_family_bit) */
    bool prec[FF_PREC_COUNT];     /* precisions to run */
    uint32_t sizes[FF_MAX_SIZES]; /* square matmul sizes, ascending */
    size_t n_sizes;
    bool sizes_given; /* user chose sizes: run them all */
    bool library;     /* run the library reference (CLBlast) too */
    struct ff_measure_cfg measure;
    double max_run_s;            /* skip larger sizes once one run would exceed this */
    uint64_t memory_limit_bytes; /* usable-memory probe cap; 0 = from the host */
    bool quick;
    ff_progress_fn progress; /* (optional) NULL: no progress lines */
    void *progress_ctx;      /* passed to progress */
    uint64_t seed;           /* input data seed */
    bool no_tune;            /* --no-tune: the built-in defaults, no cache, no tune */
    /* The points this device's kernels use (NULL: none recorded, the backends' choice). */
    const struct ff_bench_tuning *tuning;
    /* The ops family's list (not owned): a model's operations (bench --model); NULL: the
     * generic grid of suite_ops.c. */
    const struct ff_bench_op *ops;
    size_t n_ops;
};

/* Every family, every precision with a kernel, sizes unset, a seed from the clock. */
void ff_bench_cfg_defaults(struct ff_bench_cfg *cfg);

/* Formats one progress line and hands it to cfg->progress (nothing when NULL). progress.c */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void ff_progress(const struct ff_bench_cfg *cfg, const char *fmt, ...);

/*
 * Sets desc->tune from cfg->tuning for desc's kernel and records the point and its source in
 * r (tuning_apply.c). A point that does not build at desc's shape (ff_kernel_point_check) is dropped
 * for the backend's default there, recorded as "default". Nothing when the kernel has no entry.
 */
void ff_bench_apply_tuning(const struct ff_bench_cfg *cfg, struct ff_device *dev,
                           struct ff_kernel_desc *desc, struct ff_result *r);
/* The same for one entry t, whatever its kernel (the ops family's own searches). */
void ff_bench_apply_tuned(const struct ff_bench_tuned *t, struct ff_device *dev,
                          struct ff_kernel_desc *desc, struct ff_result *r);

/* Each adds its results to p; a device fault fails that test, not the run. */
void ff_suite_matmul(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_run *p);
void ff_probe_memory(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_run *p);
void ff_probe_bandwidth(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_run *p);
void ff_probe_transfer(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_run *p);
void ff_probe_latency(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_run *p);
/* The latency family's "dispatch" test (probe_latency.c, run by ff_probe_latency). */
void ff_probe_dispatch(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_run *p);
void ff_suite_peak(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_run *p);
void ff_suite_ops(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_run *p);

/* Bytes the rotating inputs of gemv and decode attention add up to (suite_ops.c): twice the
 * host's last-level cache, at least 256 MiB, so no timed run finds them in a cache. */
uint64_t ff_suite_ops_rotate_bytes(void);

/* The ops family's generic grid (suite_ops.c): the shapes it runs without --model, at most
 * max entries into out; returns how many. quick: the short grid of --quick. */
size_t ff_suite_ops_grid(bool quick, struct ff_bench_op *out, size_t max);
/* Which of the run's ops the ops family searches d's kernel and format at: for decode
 * attention the one of that format that moves the most bytes (the longest context) among those
 * whose buffers fit an allocation of max_alloc bytes (0: no limit), as a step's time goes
 * there and at a short context fixed costs decide the point; n_ops otherwise (gemv: the shape
 * being run) and when none fits. */
size_t ff_suite_ops_search_at(const struct ff_bench_op *ops, size_t n_ops,
                              const struct ff_kernel_desc *d, uint64_t max_alloc);
/* The profile name of op kernel id ("gemv", "attn_decode", ...; "gemm" for FF_KERNEL_MATMUL). */
const char *ff_suite_op_name(enum ff_kernel_id id);

/*
 * The peak kernel as the companion of another measurement (suite_matmul.c runs it after every
 * timed matmul run, ff_measure_paired): built and sized to about target_s per launch, checked
 * once on open; ff_peak_probe_check verifies the last launch's output. ops: operations per
 * launch, in the unit of its precision's peak (FLOP or OP).
 */
struct ff_peak_probe;
int ff_peak_probe_open(struct ff_device *dev, enum ff_precision p, double target_s,
                       struct ff_peak_probe **out, char *err, size_t errlen);
int ff_peak_probe_run(void *probe, uint64_t *dns, uint64_t *wns, char *err, size_t errlen);
double ff_peak_probe_ops(const struct ff_peak_probe *probe);
int ff_peak_probe_check(struct ff_peak_probe *probe, char *err, size_t errlen);
void ff_peak_probe_close(struct ff_peak_probe **probe); /* NULL-safe */

/*
 * A matmul is never read above its peak: a matmul run faster than the peak measured beside it
 * (or, unpaired, than the peak family's figure) shows that the device did that much arithmetic
 * at that moment, so the peak launch read below the ceiling, which is then the matmul's own
 * rate. On the shared CI host a neighbour on the same core's FMA ports slowed the peak kernel
 * below a PoCL matmul run beside it (1.015), and an unpaired lavapipe peak measured in a busy
 * moment put a matmul at 1.15.
 */
#define FF_PEAK_FRACTION_MAX 1.0

/*
 * The peak a matmul in precision prec is read against, from p's verified peak results: the
 * higher of prec's own and the fp32 peak, since a kernel may compute in fp32 exactly (int8
 * products and sums below 2^24, fp16 inputs): where an int8 or fp16 matmul runs on fp32
 * arithmetic, its own precision's chain peak would read above 100 %. Returns that peak's
 * precision and its rate in *rate, or -1 when p has no verified peak for either.
 */
int ff_peak_reference(const struct ff_run *p, enum ff_precision prec, double *rate);

/*
 * The fraction of its peak a matmul at `rate` in prec reads where no peak was measured beside
 * it: over p's verified peak family figure (ff_peak_reference), at most FF_PEAK_FRACTION_MAX,
 * into *frac. Returns the reference's precision, or -1 (no fraction) when p has none.
 */
int ff_peak_fraction_unpaired(const struct ff_run *p, enum ff_precision prec, double rate,
                              double *frac);

/*
 * The peak kernel's reference (suite_peak.c): lane `lane`'s final 32-bit word after `iters`
 * steps of x = x * a + b, computed on the host as FF_KERNEL_PEAK defines it (a and b in the
 * kernel's bit layout; fp32 with fmaf, fp16 rounded to half each step, int8 widened, wrapping).
 */
uint32_t ff_peak_ref(enum ff_precision p, enum ff_peak_op op, uint64_t lane, uint32_t iters,
                     uint32_t a, uint32_t b);
/*
 * Compares a peak kernel's output (n_words words) with ff_peak_ref: every lane for fp32 and
 * fp16, a spread sample for int8. FF_OK, or FF_ERR_VERIFY naming the first bad lane in err.
 */
int ff_peak_check(enum ff_precision p, enum ff_peak_op op, const uint32_t *out, uint64_t n_words,
                  uint32_t iters, uint32_t a, uint32_t b, char *err, size_t errlen);

#endif
