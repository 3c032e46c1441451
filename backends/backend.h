/*
 * backends/backend.h — the one internal interface bench/ drives.
 *
 * bench/ never learns which API is underneath: it enumerates backends, opens
 * devices, creates buffers, asks for a named kernel (matmul in a precision,
 * a bandwidth kernel, an empty kernel) and runs it, getting device time back.
 * Each API lives in backends/<api>/ and fills in struct ff_backend_ops
 * (backend_impl.h). frontend.c validates arguments before calling the backend.
 *
 * Thread-safety: a device and everything created from it belong to one
 * thread at a time.
 */
#ifndef FF_BACKEND_H
#define FF_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <flopfit/precision.h>
#include <flopfit/status.h>

#include "device_options.h"
#include "ff_util.h"

struct ff_backend; /* a compiled-in API (static, never freed) */
struct ff_device;  /* an opened device on one backend */
struct ff_buf;     /* device memory */
struct ff_kernel;  /* a built kernel/pipeline */

/* What a kernel computes. Arguments are listed per id in the comment. */
enum ff_kernel_id {
    /*
     * C[m][n] = A[m][k] * B[k][n], all row-major, densely packed.
     * bufs: A, B, C.  params: m, n, k.
     * Sizes given at create time (desc.m/n/k) are the only sizes run with it.
     */
    FF_KERNEL_MATMUL = 0,
    /* Same maths through the device's matrix engine (cooperative matrix). */
    FF_KERNEL_MATMUL_COOPMAT,
    /* Library reference (CLBlast) for the same maths; (optional) per backend. */
    FF_KERNEL_MATMUL_LIBRARY,
    /*
     * Bandwidth kernels over n 32-bit words (n = desc.n, a multiple of 1024).
     * READ:  bufs: src, out(one uint32 per work-group or per thread, see
     *        ff_kernel_out_words()), reads src, writes an XOR reduction so
     *        reads are not optimised away: the XOR of all out words equals
     *        the XOR of all src words (what bench/ checks).
     * WRITE: bufs: dst; params: value. dst[i] = value ^ i.
     * COPY:  bufs: src, dst. dst[i] = src[i].
     * TRIAD: bufs: a, b, c (float). a[i] = b[i] + 3.0f * c[i].
     */
    FF_KERNEL_MEM_READ,
    FF_KERNEL_MEM_WRITE,
    FF_KERNEL_MEM_COPY,
    FF_KERNEL_MEM_TRIAD,
    /* Does nothing; bufs: none. For launch latency. */
    FF_KERNEL_EMPTY,
    /*
     * Arithmetic peak in desc.prec (fp32, fp16, int8): desc.n work-items (a positive multiple
     * of 64), each running `iters` steps of independent multiply-add chains x = x * a + b on
     * ff_kernel_out_words(k) / desc.n lanes (the backend's choice of chains and vector width).
     * fp chains use fma(); int8 takes a and b as chars widened to int and multiplies and adds in
     * 32-bit unsigned wrap-around. Lane i (over all work-items) starts at (i & 63) (fp) or i
     * (int8) and ends in out[i]: a float for fp32 and fp16 (widened), a uint32 for int8.
     * bufs: out (ff_kernel_out_words() 32-bit words).
     * params: iters, a, b (a and b as the precision's bits: fp32 bits, fp16 bits in the low
     * 16, int8 in the low 8). 2 * iters * out words multiply-add operations per run.
     * An int8 peak may instead run 4-way byte dot products (ff_kernel_peak_op() ==
     * FF_PEAK_DOT4: dp4a, VNNI), x = x + 4 * (uint8)a * (int8)b, 32-bit wrap-around: 8
     * operations per out word and step.
     */
    FF_KERNEL_PEAK,
    /*
     * ---- a transformer's own operations (bench/families/suite_ops.c) ----
     * Row-major and densely packed; activations, outputs and accumulation are fp32. Sizes
     * given at create time are the only sizes run (params equal desc's m, n, k); buffer sizes
     * are ff_op_buf_bytes(). An op that a device cannot build in desc.prec answers
     * FF_ERR_UNSUPPORTED with the reason.
     *
     * GEMV: Y[m][n] = X[m][k] * W[n][k]^T, the decode mat-vec (m = 1) and small-m GEMM of a
     * linear layer whose weights are stored [out][in] as checkpoints keep them, in desc.prec:
     *   fp32, fp16, bf16  n*k elements; S unused (4 bytes);
     *   int8              n*k signed bytes, one fp32 scale per row (output channel) in S;
     *   q8_0, q4_0        GGUF's blocks of 32 weights along k, each with one fp16 scale d:
     *                     the quants of all blocks in W and their scales in S, two arrays
     *                     holding exactly GGUF's bytes. q8_0: 32 int8, w = q * d. q4_0: 16
     *                     bytes, byte j's low nibble element j and high nibble j + 16,
     *                     w = (q - 8) * d. k a multiple of 32 (of 2 for the others).
     * bufs: X, W, S, Y.  params: m, n, k.
     */
    FF_KERNEL_GEMV,
    /*
     * ATTN_DECODE: desc.m query rows (batch x query heads) each against a KV cache of desc.n
     * positions of head_dim desc.k; desc.g consecutive rows share one KV head (GQA; m a
     * multiple of g). O[i] = softmax(Q[i] . K[h]^T / sqrt(k)) V[h], h = i / g. K and V are
     * (m/g) x n x k in desc.prec (fp32, fp16, bf16). bufs: Q, K, V, O.  params: m, n, k.
     */
    FF_KERNEL_ATTN_DECODE,
    /*
     * ATTN_PREFILL: causal self-attention of desc.n tokens: for each of desc.m heads (batch x
     * query heads, g rows per KV head as above) and each query position t,
     * O[i][t] = softmax over s <= t of (Q[i][t] . K[h][s] / sqrt(k)) V[h][s].
     * Q and O are m x n x k fp32, K and V (m/g) x n x k in desc.prec. bufs: Q, K, V, O.
     * params: m, n, k.
     */
    FF_KERNEL_ATTN_PREFILL,
    /* RMSNORM: Y[i][j] = X[i][j] / sqrt(mean_j(X[i][j]^2) + 1e-6) * W[j], m rows of n.
     * bufs: X, W (n floats), Y.  params: m, n. */
    FF_KERNEL_RMSNORM,
    /*
     * ROPE: rotary position embedding, NeoX pairing (element j with j + n/2, n even), base
     * 10000: row i is at position pos0 + i / desc.g (g heads per token); for j < n/2,
     * a = pos * 10000^(-2j/n), Y[j] = X[j] cos a - X[j + n/2] sin a,
     * Y[j + n/2] = X[j] sin a + X[j + n/2] cos a. bufs: X, Y.  params: m, n, pos0.
     */
    FF_KERNEL_ROPE,
    /* SWIGLU: Y = silu(G) * U = G / (1 + exp(-G)) * U, elementwise over m x n.
     * bufs: G, U, Y.  params: m, n. */
    FF_KERNEL_SWIGLU,
    /* ADD: the residual add Y = A + B over m x n. bufs: A, B, Y.  params: m, n. */
    FF_KERNEL_ADD,
    /*
     * XENT: softmax cross-entropy of m rows of n logits: L[i] = log(sum_j exp(X[i][j])) -
     * X[i][T[i]] (T: m uint32 labels, each < n). bufs: X, T, L.  params: m, n.
     */
    FF_KERNEL_XENT,
    FF_KERNEL_COUNT
};

/* The first of the ops above; ff_kernel_is_op() tells whether an id is one. */
#define FF_KERNEL_FIRST_OP FF_KERNEL_GEMV
static inline bool ff_kernel_is_op(enum ff_kernel_id id)
{
    return id >= FF_KERNEL_FIRST_OP && id < FF_KERNEL_COUNT;
}

/* ---- tuning: each kernel's declared parameter space ------------------------ *
 * A backend may declare, per kernel and device, the parameters it can build the kernel with
 * (tile sizes, vector width, work-group shape, local memory on/off ...) and the values each may
 * take. The tuner (bench/) searches that space; a point of it is passed in ff_kernel_desc.tune.
 */
#define FF_TUNE_MAX_PARAMS 12
#define FF_TUNE_MAX_VALUES 16

/* One tunable parameter: a short name ([a-z0-9_], "tm", "vw", "wg0") and the values the
 * backend can build, ascending. On/off parameters take 0 and 1. */
struct ff_tune_param {
    char name[16];
    uint32_t n_values;
    uint32_t values[FF_TUNE_MAX_VALUES];
};

/* A point of a space: one value per parameter, in the space's order. n == 0 is "no point":
 * the backend's own choice (its table, or a device option such as cl_matmul_tune). */
struct ff_tune_point {
    uint32_t n;
    uint32_t v[FF_TUNE_MAX_PARAMS];
};

/* A kernel's parameter space on one device. */
struct ff_tune_space {
    uint32_t n_params;
    struct ff_tune_param param[FF_TUNE_MAX_PARAMS];
    struct ff_tune_point dflt; /* the point the backend builds when given none */
    /* 16 hex digits over the kernel's source text and this space (names and values): part of
     * a tuning-cache key, so a changed kernel or space never reuses an old entry. */
    char source_hash[17];
};

struct ff_kernel_desc {
    enum ff_kernel_id id;
    enum ff_precision prec; /* matmul and peak */
    uint32_t m, n, k;       /* matmul shape; n = word count for MEM_*, work-items for PEAK */
    uint32_t g;             /* ATTN_*: query rows per KV head; ROPE: rows per position */
    /* A point of ff_kernel_space() (tune.n == 0: the backend's choice). Given, it wins over
     * the device options and tables; the front-end checks it is in the space. */
    struct ff_tune_point tune;
    uint32_t flags; /* FF_KDESC_* */
};

/* MATMUL fp16 on a device without fp16 arithmetic: fp16 operands and result in memory, the
 * products and sums in fp32 (as a framework runs a 16-bit model's GEMM there), said so in the
 * variant; without the flag such a device reports fp16 unsupported. The op family's GEMMs set
 * it; the matmul family, which measures the arithmetic, does not. */
#define FF_KDESC_FP16_STORAGE 1u

/* Free-form extra facts for `flopfit devices` (heaps, cooperative matrix shapes ...). */
struct ff_kv {
    char key[48];
    char value[208];
};

#define FF_DEVICE_MAX_EXTRA 24

struct ff_device_info {
    char backend[16];   /* "opencl", "vulkan" */
    char platform[128]; /* OpenCL platform name / Vulkan driver name */
    char name[256];
    char vendor[128];
    char driver_version[128];
    char api_version[64];
    char type[16]; /* "gpu", "cpu", "integrated-gpu", "accelerator", "other" */
    uint32_t compute_units;
    uint32_t clock_mhz;        /* 0 = not reported */
    uint64_t global_mem_bytes; /* what the driver reports */
    uint64_t max_alloc_bytes;  /* largest single buffer */
    uint64_t budget_bytes;     /* VK_EXT_memory_budget etc.; 0 = unknown */
    uint64_t local_mem_bytes;
    bool host_shared_memory; /* device memory is host RAM (CPU devices, iGPUs) */
    bool fp16;               /* fp16 arithmetic in kernels */
    bool int8;               /* int8 arithmetic / storage in kernels */
    bool int8_dot;           /* packed int8 dot product instructions */
    bool coopmat;            /* a matrix engine reachable (cooperative matrix) */
    double timer_resolution_ns;
    size_t n_extra;
    struct ff_kv extra[FF_DEVICE_MAX_EXTRA];
    /* The API's PCI vendor and device id, "0x10de:0x2335" (Vulkan vendorID:deviceID; OpenCL
     * where cl_amd_device_attribute_query gives the device id); "" when the API has none. */
    char device_id[32];
};

/* ---- registry ---------------------------------------------------------- *
 * Generated by backends/meson.build from the backends this build found: adding a backend is
 * its folder plus one subdir() line there.
 */

/* NULL-terminated list of compiled-in backends (static, never freed), in build order. */
const struct ff_backend *const *ff_backends(void);
const char *ff_backend_name(const struct ff_backend *b);
/* The compiled-in backend named `name` (case-insensitive), or NULL. */
const struct ff_backend *ff_backend_find(const char *name);
/* Which Debian packages provide a driver for this backend, for error messages. */
const char *ff_backend_hint(const struct ff_backend *b);
/*
 * The compiled-in backend names as one list, "opencl, vulkan" ("" when none), for usage texts
 * and errors ("expected opencl, vulkan"). Writes a terminated string into buf (truncated to
 * n - 1 bytes; buf may be NULL when n is 0) and returns the length of the whole list, like
 * snprintf.
 */
size_t ff_backend_names(char *buf, size_t n);

/*
 * Number of devices the backend sees. 0 devices is FF_OK with *count = 0.
 * A missing loader/driver is FF_ERR_NO_DEVICE with the reason in err.
 */
int ff_backend_device_count(const struct ff_backend *b, uint32_t *count, char *err, size_t errlen);

/* ---- device options: backends/device_options.h (struct ff_device_options) ---- */

/* ---- devices ------------------------------------------------------------- */

/*
 * Open device `index` of `b` with tuning overrides `opts` (copied; may be NULL). NULL means
 * "from the environment": the device then follows ff_device_options_from_env(), re-read each
 * time a kernel is built (so a variable changed between kernels takes effect, as it always
 * did). A malformed variable fails the open (or the kernel build) with FF_ERR_INVALID.
 */
int ff_device_open_opts(const struct ff_backend *b, uint32_t index,
                        const struct ff_device_options *opts, struct ff_device **out, char *err,
                        size_t errlen);
/* ff_device_open_opts(b, index, NULL, out, err, errlen). */
int ff_device_open(const struct ff_backend *b, uint32_t index, struct ff_device **out, char *err,
                   size_t errlen);
void ff_device_destroy(struct ff_device **dev);
const struct ff_device_info *ff_device_info(const struct ff_device *dev);
const struct ff_backend *ff_device_backend(const struct ff_device *dev);

/* ---- buffers ------------------------------------------------------------- */

/* Device-local buffer of `bytes` bytes (contents undefined). */
int ff_buf_create(struct ff_device *dev, uint64_t bytes, struct ff_buf **out, char *err,
                  size_t errlen);
void ff_buf_destroy(struct ff_buf **buf);
uint64_t ff_buf_size(const struct ff_buf *buf);

/* Blocking copies between host memory and a buffer range. */
int ff_buf_write(struct ff_buf *buf, uint64_t offset, const void *src, uint64_t bytes, char *err,
                 size_t errlen);
int ff_buf_read(struct ff_buf *buf, uint64_t offset, void *dst, uint64_t bytes, char *err,
                size_t errlen);

/* Host<->device transfer kinds for the transfer probe. */
enum ff_xfer {
    FF_XFER_UPLOAD_PAGEABLE = 0, /* from ordinary malloc'd memory */
    FF_XFER_DOWNLOAD_PAGEABLE,
    FF_XFER_UPLOAD_PINNED, /* from pinned / host-visible staging memory */
    FF_XFER_DOWNLOAD_PINNED,
    FF_XFER_COUNT
};

/*
 * (optional per backend) Time one transfer of `bytes` between the host and
 * `buf`, in nanoseconds of wall time (the copy is complete when it returns).
 * `host` is pageable host memory of at least `bytes` bytes; for the PINNED
 * kinds the backend moves it through its own pinned/mapped staging memory
 * and times only the device transfer. FF_ERR_UNSUPPORTED with a reason when
 * the API has no such path.
 */
int ff_buf_transfer_timed(struct ff_buf *buf, enum ff_xfer kind, void *host, uint64_t bytes,
                          uint64_t *ns, char *err, size_t errlen);

/* ---- kernels ------------------------------------------------------------- */

/*
 * Build the kernel. FF_ERR_UNSUPPORTED (with the reason in err) when the
 * device lacks what it needs (no cl_khr_fp16, no cooperative matrix ...).
 */
int ff_kernel_create(struct ff_device *dev, const struct ff_kernel_desc *desc,
                     struct ff_kernel **out, char *err, size_t errlen);
void ff_kernel_destroy(struct ff_kernel **k);
/* Human description of the variant chosen: tile sizes, vector width, ... */
const char *ff_kernel_variant(const struct ff_kernel *k);
/* Words (uint32) the MEM_READ and PEAK kernels write to their out buffer. */
uint64_t ff_kernel_out_words(const struct ff_kernel *k);
/* The step a PEAK kernel's chains take (FF_KERNEL_PEAK). */
enum ff_peak_op {
    FF_PEAK_MAD,  /* x = x * a + b: 2 operations per word and step */
    FF_PEAK_DOT4, /* int8: x = x + 4 * (uint8)a * (int8)b, a 4-way byte dot: 8 */
};
enum ff_peak_op ff_kernel_peak_op(const struct ff_kernel *k);
/* Operations per out word and step of op. */
unsigned ff_peak_op_ops(enum ff_peak_op op);

/*
 * Whether flopfit has matmul kernels for `p` (fp32, fp16, int8). The precision vocabulary is
 * libflopfit's (bf16, fp8, int4, ...); ff_kernel_create answers FF_ERR_UNSUPPORTED with the
 * reason for the formats without a kernel.
 */
bool ff_matmul_has_kernel(enum ff_precision p);
/* Bytes per matmul element of A and B, and of C (int8 accumulates into int32 outputs), for the
 * formats with a kernel. */
size_t ff_matmul_in_bytes(enum ff_precision p);
size_t ff_matmul_out_bytes(enum ff_precision p);

/*
 * The parameter space of desc's kernel (desc.tune ignored) on dev, with the backend's default
 * point. FF_ERR_UNSUPPORTED (with the reason) when the backend declares none for that kernel.
 */
int ff_kernel_space(struct ff_device *dev, const struct ff_kernel_desc *desc,
                    struct ff_tune_space *out, char *err, size_t errlen);
/*
 * Whether desc.tune (a point of the space) can be built on dev: device limits (work-group
 * size, local memory), divisibility against the shape, register budgets. Builds nothing, so a
 * search can skip illegal points cheaply. FF_OK, FF_ERR_INVALID (not a point of the space:
 * wrong count or a value not listed) or FF_ERR_UNSUPPORTED (legal in general, not here), with
 * the reason. ff_kernel_create runs the same check.
 */
int ff_kernel_point_check(struct ff_device *dev, const struct ff_kernel_desc *desc, char *err,
                          size_t errlen);
/* Is p a point of s: one value per parameter, each from its list? FF_OK, or FF_ERR_INVALID
 * naming the first that is not. */
int ff_tune_point_in_space(const struct ff_tune_space *s, const struct ff_tune_point *p, char *err,
                           size_t errlen);
/* The point a built kernel used: desc.tune, or the backend's choice filled in; n == 0 when the
 * kernel has no space. Never NULL for a kernel. */
const struct ff_tune_point *ff_kernel_point(const struct ff_kernel *k);
/* "tm=6,tn=16,vw=8" (names from the space) into buf, like snprintf; "default" for n == 0. */
size_t ff_tune_point_format(const struct ff_tune_space *s, const struct ff_tune_point *p, char *buf,
                            size_t n);
/* The inverse of ff_tune_point_format: every parameter named once, values from its list.
 * FF_ERR_INVALID naming the bad part and what is accepted. */
int ff_tune_point_parse(const struct ff_tune_space *s, const char *text, struct ff_tune_point *out,
                        char *err, size_t errlen);
/* ff_tune_point_parse with the parameters text does not name taken from base (a point of s,
 * e.g. s->dflt): "parts=4" is then a whole point. base NULL or of another length: every
 * parameter must be named. */
int ff_tune_point_parse_over(const struct ff_tune_space *s, const char *text,
                             const struct ff_tune_point *base, struct ff_tune_point *out, char *err,
                             size_t errlen);
/* FNV-1a, 64 bits, continuing from h (start with FF_TUNE_HASH_INIT): for source hashes. */
#define FF_TUNE_HASH_INIT 0xcbf29ce484222325ull
uint64_t ff_tune_hash(uint64_t h, const void *data, size_t n);

#define FF_MAX_BUFS 4

/*
 * The bytes buffer i of desc's op kernel (ff_kernel_is_op) must hold, and its name ("W") in
 * *name when name is not NULL; 0 for a buffer the kernel does not take. One definition for the
 * front-end's checks, the backends and the callers that allocate.
 */
uint64_t ff_op_buf_bytes(const struct ff_kernel_desc *desc, uint32_t i, const char **name);
/*
 * The front-end's check of an op's description (ff_kernel_create runs it): FF_ERR_UNSUPPORTED
 * for a format the op has no kernel for, FF_ERR_INVALID for a shape it cannot take (a zero, k
 * not a multiple of the weight blocks, g not dividing m, an odd rope width, a buffer of 4 GiB
 * or more) or an id that is not an op; the reason in err. One check for the backends and
 * whoever prepares an op's inputs (bench/check/opcheck.c).
 */
int ff_op_desc_check(const struct ff_kernel_desc *desc, char *err, size_t errlen);
/* Whether desc.prec is a weight format of FF_KERNEL_GEMV / a KV format of ATTN_*. */
bool ff_op_gemv_format(enum ff_precision p);
bool ff_op_kv_format(enum ff_precision p);

/*
 * Run the kernel once and wait for it. *device_ns gets the time the device
 * spent (profiling events / timestamp queries), *wall_ns the host wall time
 * from submit to completion. Either pointer may be NULL.
 *
 * The front-end checks the arguments for every backend against the kernel's id and desc
 * (FF_ERR_INVALID naming the real numbers): the buffer and parameter counts listed in enum
 * ff_kernel_id, each buffer on this device and at least as large as the kernel reads or writes
 * (matmul A m*k, B k*n, C m*n elements of the precision's input/output size; MEM_* n words;
 * the READ out buffer ff_kernel_out_words() words), and matmul params equal to desc m, n, k.
 *
 * FF_ERR_TIMEOUT: the device did not finish within the timeout (Vulkan: timeout_s). The call
 * still returns only once the device is done with the buffers (or the device is lost or, never
 * finishing, abandoned: then its objects are leaked, not freed), so the caller may destroy the
 * kernel and buffers at once; the device stays usable when it did finish.
 */
int ff_kernel_run(struct ff_kernel *k, struct ff_buf *const *bufs, size_t n_bufs,
                  const uint32_t *params, size_t n_params, uint64_t *device_ns, uint64_t *wall_ns,
                  char *err, size_t errlen);

/*
 * Runs k `count` times (1..65536) back to back in one submission, each run starting after the
 * previous one finished, as a step of a model runs its dependent operations: *device_ns from
 * the first run's start to the last one's end, *wall_ns from submit to completion. Arguments
 * as ff_kernel_run. FF_ERR_UNSUPPORTED where the backend cannot chain.
 */
int ff_kernel_run_chain(struct ff_kernel *k, struct ff_buf *const *bufs, size_t n_bufs,
                        const uint32_t *params, size_t n_params, uint32_t count,
                        uint64_t *device_ns, uint64_t *wall_ns, char *err, size_t errlen);

/*
 * Runs k `count` times (1..FF_RUN_SETS_MAX) back to back in one submission, run i on buffer
 * set i % n_sets (`sets`: n_sets groups of n_bufs buffers, one group after another), each
 * run starting after the previous one ended, as a step runs its operations. *device_ns is
 * the sum of the runs' own device times, each from its start to its end: the gaps between
 * runs (the launch cost a step pays, measured apart by the latency probe) are not in it.
 * *wall_ns from submit to completion. Every set is checked as ff_kernel_run checks its
 * buffers. FF_ERR_UNSUPPORTED where the backend does not time the runs of a chain one by one.
 */
#define FF_RUN_SETS_MAX 256
int ff_kernel_run_sets(struct ff_kernel *k, struct ff_buf *const *sets, size_t n_bufs,
                       size_t n_sets, const uint32_t *params, size_t n_params, uint32_t count,
                       uint64_t *device_ns, uint64_t *wall_ns, char *err, size_t errlen);

/* ---- clock ---------------------------------------------------------------- */

/* Monotonic clock in nanoseconds. */
uint64_t ff_now_ns(void);

#endif
