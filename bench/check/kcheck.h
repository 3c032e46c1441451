/*
 * bench/check/kcheck.h — the one kernel check, checkasm style, that every matmul
 * call site uses: the suite (suite_matmul.c), the backend tests
 * (tests/bench/test_opencl.c, tests/vulkan/test_vulkan.c) and the benchmarks
 * (tests/bench/bench_matmul.c, tests/vulkan/bench_matmul.c).
 *
 *   ff_kcheck_init     fresh random A and B from a seed, the check plan and
 *                      the exact CPU reference (bench/check/verify.h)
 *   ff_kcheck_upload   device buffers A, B and C; A and B written
 *   ff_kcheck_run      C poisoned, one run, C read back and compared
 *   ff_kcheck_bench    warm-up and timed runs (ff_measure) with C poisoned
 *                      before every one, then the last run's C read back and
 *                      compared: timed runs that skip work leave poison
 *   ff_kcheck_compare  an output made elsewhere (a host library, a
 *                      simulation) compared the same way
 *
 * The kernel takes buffers {A, B, C} and params {m, n, k}. Not thread-safe:
 * one check drives one device from one thread (backend.h).
 */
#ifndef FF_KCHECK_H
#define FF_KCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "measure.h"
#include "verify.h"

struct ff_kcheck {
    enum ff_precision prec;
    uint32_t m, n, k;
    void *a, *b;            /* host inputs, m x k and k x n: fresh random data */
    void *c;                /* m x n: the output last read back or compared */
    void *poison;           /* m x n poison, written over C before every run */
    struct ff_ref *ref;     /* exact values of the checked elements */
    struct ff_check check;  /* the last comparison */
    struct ff_device *dev;  /* not owned; set by ff_kcheck_upload */
    struct ff_buf *bufs[3]; /* A, B, C on the device */
};

/*
 * Host side of an m x n x k check in precision p: inputs drawn from seed
 * (which also draws the sampled rows and columns), reference computed.
 * FF_OK, FF_ERR_INVALID (no matmul kernel for p, a zero dimension) or
 * FF_ERR_NO_MEMORY, with the reason in err. On error kc needs no finish.
 */
int ff_kcheck_init(struct ff_kcheck *kc, enum ff_precision p, uint32_t m, uint32_t n, uint32_t k,
                   uint64_t seed, char *err, size_t errlen);
/* Frees what init and upload made; NULL-safe, may be called twice. */
void ff_kcheck_finish(struct ff_kcheck *kc);

/* Creates the device buffers and writes A and B. A backend status on error. */
int ff_kcheck_upload(struct ff_kcheck *kc, struct ff_device *dev, char *err, size_t errlen);

/*
 * Compares c (m x n, output storage of the precision) with the reference
 * into kc->check. FF_OK, or FF_ERR_VERIFY with the first bad element, the
 * counts and the errors in err.
 */
int ff_kcheck_compare(struct ff_kcheck *kc, const void *c, char *err, size_t errlen);

/* Poison C, run kern once, read C back, compare. FF_ERR_VERIFY or a backend status. */
int ff_kcheck_run(struct ff_kcheck *kc, struct ff_kernel *kern, char *err, size_t errlen);

/*
 * Times kern with ff_measure (cfg: warm-up, repetitions, budget) into t,
 * writing the poison over C before each run (outside the run's device and
 * wall time), then reads C back and compares the last run's output.
 * FF_ERR_VERIFY, FF_ERR_INTERRUPTED or a backend status on failure.
 */
int ff_kcheck_bench(struct ff_kcheck *kc, struct ff_kernel *kern, const struct ff_measure_cfg *cfg,
                    struct ff_timing *t, char *err, size_t errlen);
/* ff_kcheck_bench with a companion run after every timed run (ff_measure_paired). */
int ff_kcheck_bench_paired(struct ff_kcheck *kc, struct ff_kernel *kern,
                           const struct ff_measure_cfg *cfg, struct ff_pair *pair,
                           struct ff_timing *t, char *err, size_t errlen);

/*
 * The highest matmul rate (FLOP/s; OP/s for int8) the device can physically reach in
 * precision p: ff_bound_matmul_rate (ff_util.h, shared with `results submit`) on the device's
 * type, compute units and clock, a CPU device without a unit count taking this host's CPUs.
 * `why` says how it was derived. flopfit measures no arithmetic peak of its own yet; none is
 * used.
 */
double ff_kcheck_rate_limit(const struct ff_device_info *info, enum ff_precision p, char *why,
                            size_t whylen);

#endif
