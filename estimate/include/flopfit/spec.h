/*
 * flopfit/spec.h — what a device offers: a datasheet catalog or a measured profile.
 *
 * A struct ff_spec begins with a struct_size (doc/abi.md): ff_spec_init it before filling it
 * by hand or through ff_spec_find / ff_spec_from_profile; the library reads and writes only
 * struct_size bytes, so new figures can be appended. Catalog entries carry this library's.
 *
 * Thread-safety: the catalog is immutable; ff_spec_from_profile is reentrant (no global
 * state, json-c's included; tests/estimate/test_threads.c runs it under ThreadSanitizer).
 */
#ifndef FLOPFIT_SPEC_H
#define FLOPFIT_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flopfit/export.h"
#include "flopfit/model.h"
#include "flopfit/precision.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FF_DEVICE_NOTE_MAX 512
#define FF_SPEC_TEST_MAX   64
#define FF_SPEC_OPS_MAX    128

/* One measured op (flopfit/ops.h): kind is an enum ff_op_kind, prec an enum ff_precision. */
struct ff_spec_op {
    int kind, prec;
    uint32_t m, n, k, g; /* the shape as in struct ff_op */
    double seconds;      /* median device time of one run, s (> 0) */
    double bytes;        /* bytes one run moves (ff_op_bytes of the shape), B */
};

struct ff_spec {
    size_t struct_size;           /* sizeof(struct ff_spec), set by ff_spec_init */
    char slug[FF_NAME_MAX];       /* "h100-sxm", or the profile's file name */
    char name[FF_SOURCE_MAX];     /* marketing name or the profile's device.name */
    char source[FF_SOURCE_MAX];   /* datasheet reference or profile path */
    double mem_bytes;             /* memory the estimate may plan with, bytes */
    double bandwidth_bytes_per_s; /* memory bandwidth, bytes/s (datasheet peak or measured) */
    /* Dense matrix-multiply rate per precision, FLOP/s (OP/s for int8); 0 = not available.
     * fp32 is the non-tensor rate (PyTorch leaves TF32 matmul off by default). int4, nf4,
     * mxfp4, nvfp4 and the GGUF formats are weight-only: they compute in the arithmetic
     * their kernels run (see ff_spec_rate_arith); fp4 holds a device's own FP4 rate. */
    double flops_per_s[FF_PREC_COUNT];
    double link_bytes_per_s;        /* GPU-to-GPU, per direction, bytes/s; 0 = unknown */
    double price_per_hour;          /* USD per GPU-hour, typical cloud rate; 0 = unknown */
    const char *price_source;       /* where the price comes from, with its date. price_source
                                       is a static string owned by the library (catalog
                                       entries point at string literals), or NULL; never
                                       free it. */
    bool measured;                  /* figures come from a flopfit profile */
    char notes[FF_DEVICE_NOTE_MAX]; /* substitutions and missing figures, "" when none */
    /* The network of multi-GPU plans (estimate/src/comm.c): a two-tier model, GPU-to-GPU
     * inside a node over link_bytes_per_s (link_name), node to node over the per-GPU
     * network. Catalog figures are line rates; achieved bus bandwidth is a fraction of them
     * (FF_COMM_*_FRACTION in flopfit/estimate.h) unless a profile measured it. */
    const char *link_name;         /* "NVLink 4 (NVSwitch)", "PCIe Gen4 x16", ...: a static
                                      string owned by the library, or NULL (unknown) */
    int gpus_per_node;             /* GPUs of the usual platform's node; 0 = unknown (8) */
    double inter_node_bytes_per_s; /* InfiniBand/RoCE per GPU, per direction, bytes/s;
                                      0 = unknown */
    /* Measured by `flopfit bench --mpi` (a profile's interconnect tests): nccl-tests bus
     * bandwidth at the largest message, B/s, and the smallest message's time, s, per scope;
     * 0 = not measured. */
    double intra_busbw_bytes_per_s, inter_busbw_bytes_per_s;
    double intra_latency_s, inter_latency_s;
    int intra_ranks, inter_ranks; /* ranks those figures were measured with; 0 = unknown */
    /* How a profile's figures were taken (spec_profile.c); zero/false in the catalog. */
    bool host_shared;        /* device memory is host RAM (a CPU device, an iGPU): no GPU driver
                             context and no NCCL buffers are charged, and copies of it cannot
                             be pooled into one plan */
    bool mem_lower_bound;    /* mem_bytes is a lower bound: the usable-memory probe was stopped by
                             its cap or time limit before the device ran out */
    double mem_driver_bytes; /* the driver's global_mem_bytes when above a lower bound, else 0 */
    bool no_fp16;            /* the profile says the device lacks fp16 arithmetic */
    bool int8_dot;           /* the device has byte dot products (VNNI, dp4a) */
    /* The measured test each figure came from ("matmul fp32 flopfit 2048x2048x2048", "bandwidth
     * read flopfit"), "" for a datasheet figure or none. */
    char rate_test[FF_PREC_COUNT][FF_SPEC_TEST_MAX];
    char bandwidth_test[FF_SPEC_TEST_MAX];
    /* Measured weight-streaming fraction of a decode step per weight format (a profile's
     * "op" test weight_stream, over the read bandwidth); 0 = not measured: the format's
     * sourced default applies (FF_QUANT_* in flopfit/estimate.h). */
    double weight_stream_fraction[FF_PREC_COUNT];
    /* ---- appended: the op timings of `flopfit bench --model M` (flopfit/ops.h) ---- */
    /* What one dispatched op costs beyond its own device time, s: the latency family's
     * "dispatch" test (the slope of chains of dependent empty launches in one submission),
     * else its "launch" test (one empty kernel's device time); 0 = not measured. The bottom-up
     * estimate charges it once per dispatched op. */
    double launch_s;
    /* The verified op tests, one row per (kind, format, shape): the median device time of one
     * run and the bytes it moves (ff_op_bytes). Several tests of one shape keep the fastest
     * median. At most FF_SPEC_OPS_MAX; more are counted in ops_ignored and noted. */
    size_t n_ops;
    struct ff_spec_op ops[FF_SPEC_OPS_MAX];
    int ops_ignored; /* op tests left out: unknown name or format, a zero shape or time, bytes
                        that disagree with the shape, failed or unverified, or over the table
                        (notes says how many of each) */
};

/* Zero *d and set its struct_size. Returns 0, or FF_ERR_UNSUPPORTED for a size this library
 * does not know (see ff_plan_init). Programs call ff_spec_init. */
FF_API int ff_spec_init_sized(struct ff_spec *d, size_t struct_size);
static inline int ff_spec_init(struct ff_spec *d)
{
    return ff_spec_init_sized(d, sizeof(*d));
}

/* The built-in catalog: its length, and entry i (NULL when i >= the length). An index, not an
 * array, so that the entries' stride is the library's own. */
FF_API size_t ff_spec_catalog_count(void);
FF_API const struct ff_spec *ff_spec_catalog_at(size_t i);

/* Find by slug or alias ("h100" = "h100-sxm"), case-insensitively, into *out (its struct_size
 * set). 0, FF_ERR_NOT_FOUND, or as ff_spec_init for an *out without a known struct_size. */
FF_API int ff_spec_find(const char *name, struct ff_spec *out);

/* Close matches for an unknown device name (see ff_model_suggest). */
FF_API int ff_spec_suggest(const char *name, char *buf, size_t buflen, int max);

/*
 * Read a profile written by `flopfit bench` (results/SCHEMA.md) through the profile reader
 * (flopfit/profile.h: regular files of at most 16 MiB, strict JSON, finite and physically
 * plausible figures only). Only tests with status "ok", verified true and the family's unit
 * count: per precision the best matmul value (FLOP/s, int8 OP/s) over all impls, its test
 * named in rate_test; usable memory from the memory/usable test (B; a probe stopped by its
 * cap or time limit is a lower bound: mem_lower_bound, the driver's larger figure in
 * mem_driver_bytes), else device.global_mem_bytes; bandwidth from the best bandwidth read
 * test (B/s; the copy test only without one), named in bandwidth_test; host_shared from the
 * device's type "cpu" or host_shared_memory; op/weight_stream tests into
 * weight_stream_fraction; the latency/dispatch test (else latency/launch) into launch_s; the other op tests (name an
 * ff_op_kind_name, a shape with m and n, a positive median device time, bytes within 1% of
 * ff_op_bytes of the shape when given) into ops[], the rest counted in ops_ignored and noted. bf16 falls back to the fp16 figure, noted in out->notes. Missing figures stay 0 and
 * are listed in out->notes; they are never invented. *out (struct_size set by ff_spec_init)
 * is written only on success.
 * Returns 0, FF_ERR_IO (cannot read; not a regular file), FF_ERR_INVALID (too large,
 * malformed, non-finite or implausible: err names the file and field), FF_ERR_UNSUPPORTED
 * (unknown schema major version) or FF_ERR_NO_MEMORY.
 */
FF_API int ff_spec_from_profile(const char *path, struct ff_spec *out, char *err, size_t errlen);

/*
 * The matrix rate (FLOP/s) used for compute in `p`; ff_spec_rate_arith also says whose rate
 * it is (*arith, may be NULL). Weight-only formats take the arithmetic their kernels run:
 * int4, mxfp4 and nvfp4 dequantise into fp16 matmuls (GPTQ/AWQ/Marlin kernels), nf4 into
 * bf16 (bitsandbytes), each falling back to fp32 on a device without 16-bit arithmetic (CPU
 * runtimes dequantise to fp32); the GGUF formats q4_0, q4_k_m and q8_0 run int8 dot products
 * against activations quantised to 8 bits (llama.cpp's CPU vec_dot_q*_q8 and CUDA MMQ
 * kernels) where the device has an int8 rate, else fp16, else fp32. int8 -> the int8 rate,
 * fp4 -> the fp4 rate. 0 when the device has none of them (or d has no struct_size).
 */
FF_API double ff_spec_rate(const struct ff_spec *d, enum ff_precision p);
FF_API double ff_spec_rate_arith(const struct ff_spec *d, enum ff_precision p,
                                 enum ff_precision *arith);

#ifdef __cplusplus
}
#endif

#endif
