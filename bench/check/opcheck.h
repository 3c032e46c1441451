/*
 * bench/check/opcheck.h — the kernel check of the op kernels (backend.h, FF_KERNEL_GEMV and
 * after), checkasm style like kcheck.h is for matmul: every call site (the ops family, the
 * backend tests, the benchmarks) goes through it.
 *
 *   ff_opcheck_init     fresh random inputs from a seed in the kernel's layout (weights
 *                       quantised to the format, KV rounded to it) and the CPU reference of
 *                       the output with a bound per element
 *   ff_opcheck_upload   device buffers, the inputs written
 *   ff_opcheck_run      output poisoned, one run, read back and compared
 *   ff_opcheck_bench    warm-up and timed runs (ff_measure), the output poisoned before every
 *                       one, then the last run's output read back and compared
 *
 * The reference is computed in double from the exact stored inputs (dequantised weights,
 * rounded KV), so the only error allowed is the kernel's fp32 arithmetic: each element gets a
 * bound from the sizes of the terms it sums (see opcheck.c). Prefill attention is checked on
 * sampled query rows (the first and last of each head and a seeded draw), the other ops on
 * every element. Not thread-safe: one check drives one device from one thread.
 */
#ifndef FF_OPCHECK_H
#define FF_OPCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "measure.h"
#include "verify.h"

struct ff_opcheck {
    struct ff_kernel_desc desc;
    uint32_t n_bufs;              /* the kernel's buffers; the last is the output */
    uint32_t params[3], n_params; /* what ff_kernel_run takes */
    uint64_t bytes[FF_MAX_BUFS];  /* each buffer's size (ff_op_buf_bytes) */
    void *host[FF_MAX_BUFS];      /* inputs; host[n_bufs - 1] the output last read back */
    void *poison;                 /* written over the output before every run */
    uint64_t n_out;               /* output elements (fp32) */
    uint64_t n_checked;           /* elements with a reference (all but sampled prefill) */
    uint64_t *idx;                /* the checked elements' indices, ascending */
    double *want, *bound;         /* their exact values and the error each may show */
    struct ff_check check;        /* the last comparison */
    struct ff_device *dev;        /* not owned; set by ff_opcheck_upload */
    struct ff_buf *bufs[FF_MAX_BUFS];
    /* ff_opcheck_rotate: more copies of the inputs, (n_sets - 1) x (n_bufs - 1) buffers, the
     * timed runs taking set after set */
    struct ff_buf **sets;
    uint32_t n_sets, next_set;
    /* the last ff_opcheck_bench: launches per timed chain, 0 when each launch was timed alone */
    uint32_t chain;
};

/* Launches per timed chain (ff_opcheck_bench). */
#define FF_OPCHECK_CHAIN 8

/* The most input sets ff_opcheck_rotate makes. */
#define FF_OPCHECK_MAX_SETS 64

/* Host side of desc's check: inputs drawn from seed, reference computed. FF_OK, what the
 * front-end's ff_op_desc_check says of desc (FF_ERR_INVALID: not an op kernel or a shape it
 * refuses; FF_ERR_UNSUPPORTED: a format the op has no kernel for) or FF_ERR_NO_MEMORY, the
 * reason in err. On error oc needs no finish. */
int ff_opcheck_init(struct ff_opcheck *oc, const struct ff_kernel_desc *desc, uint64_t seed,
                    char *err, size_t errlen);
/* Frees what init and upload made; NULL-safe, may be called twice. */
void ff_opcheck_finish(struct ff_opcheck *oc);
/* Creates the device buffers and writes the inputs. A backend status on error. */
int ff_opcheck_upload(struct ff_opcheck *oc, struct ff_device *dev, char *err, size_t errlen);
/*
 * Copies of the inputs on the device until all sets hold at least min_bytes (at most
 * FF_OPCHECK_MAX_SETS sets), the timed runs then taking one set after another: each run
 * reads its weights or KV cache from memory, not from a cache the previous run warmed, as a
 * model step streams them. A copy that cannot be allocated ends the rotation there (fewer
 * sets, not an error). After ff_opcheck_upload; returns the sets in use.
 */
uint32_t ff_opcheck_rotate(struct ff_opcheck *oc, uint64_t min_bytes);

/* Compares out (the output buffer's contents) with the reference into oc->check. FF_OK, or
 * FF_ERR_VERIFY naming the first bad element, the counts and the errors. */
int ff_opcheck_compare(struct ff_opcheck *oc, const float *out, char *err, size_t errlen);
/* Poison the output, run kern once, read it back, compare. */
int ff_opcheck_run(struct ff_opcheck *oc, struct ff_kernel *kern, char *err, size_t errlen);
/*
 * Times kern with ff_measure into t, then reads back and compares the last run's output. Where
 * the backend times the launches of a chain one by one (ff_kernel_run_sets), each timed run is
 * a chain of FF_OPCHECK_CHAIN launches back to back, each on the next set of inputs, as a step
 * runs its ops: t holds the time per launch (the sum of the launches' own times over their
 * count), t->reps the launches timed, oc->chain the chain's length, and the output is
 * poisoned before every chain. Elsewhere each launch is timed alone, the output poisoned
 * before each (oc->chain 0). The poisoning is outside the time.
 */
int ff_opcheck_bench(struct ff_opcheck *oc, struct ff_kernel *kern,
                     const struct ff_measure_cfg *cfg, struct ff_timing *t, char *err,
                     size_t errlen);

/* Bytes one run must read and write, every buffer once (gemv's S only where the format has
 * scales): the numerator of its B/s figure, the traffic no kernel can avoid. */
uint64_t ff_opcheck_bytes(const struct ff_kernel_desc *desc);
/* Arithmetic of one run (2 per multiply-add), for the op kinds whose time it bounds: gemv and
 * attention; 0 for the others. */
double ff_opcheck_flops(const struct ff_kernel_desc *desc);

#endif
