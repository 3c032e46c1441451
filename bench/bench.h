/*
 * bench/bench.h — what a `flopfit bench` run was asked to do, and the test
 * families it runs on one device (one file per family: suite_*.c, probe_*.c).
 */
#ifndef FF_BENCH_H
#define FF_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "measure.h"
#include "result.h"

enum ff_family {
    FF_FAM_MATMUL = 1u << 0,
    FF_FAM_MEMORY = 1u << 1,    /* usable memory */
    FF_FAM_BANDWIDTH = 1u << 2, /* device memory bandwidth */
    FF_FAM_TRANSFER = 1u << 3,  /* host <-> device */
    FF_FAM_LATENCY = 1u << 4,   /* launch latency */
    FF_FAM_ALL = 0x1f,
};

#define FF_MAX_SIZES 16

struct ff_bench_cfg {
    unsigned families;            /* enum ff_family bits */
    bool prec[FF_PREC_COUNT];     /* precisions to run */
    uint32_t sizes[FF_MAX_SIZES]; /* square matmul sizes, ascending */
    size_t n_sizes;
    bool sizes_given; /* user chose sizes: run them all */
    bool library;     /* run the library reference (CLBlast) too */
    struct ff_measure_cfg measure;
    double max_run_s;            /* skip larger sizes once one run would exceed this */
    uint64_t memory_limit_bytes; /* usable-memory probe cap; 0 = from the host */
    bool quick;
    bool progress; /* progress lines on stderr (a terminal) */
    uint64_t seed; /* input data seed */
};

void ff_bench_cfg_defaults(struct ff_bench_cfg *cfg);

/* Progress line on stderr when cfg->progress; overwritten by the next one. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void ff_progress(const struct ff_bench_cfg *cfg, const char *fmt, ...);

/* Each adds its results to p; a device fault fails that test, not the run. */
void ff_suite_matmul(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_profile *p);
void ff_probe_memory(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_profile *p);
void ff_probe_bandwidth(struct ff_device *dev, const struct ff_bench_cfg *cfg,
                        struct ff_profile *p);
void ff_probe_transfer(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_profile *p);
void ff_probe_latency(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_profile *p);

#endif
