/*
 * backends/backend.h — the one internal interface bench/ drives.
 *
 * bench/ never learns which API is underneath: it enumerates backends, opens
 * devices, creates buffers, asks for a named kernel (matmul in a precision,
 * a bandwidth kernel, an empty kernel) and runs it, getting device time back.
 * Each API lives in backends/<api>/ and fills in struct ff_backend_ops
 * (backend_impl.h). backend.c validates arguments before calling the backend.
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
    FF_KERNEL_COUNT
};

struct ff_kernel_desc {
    enum ff_kernel_id id;
    enum ff_precision prec; /* matmul only */
    uint32_t m, n, k;       /* matmul shape; n = word count for MEM_* */
};

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
};

/* ---- registry ---------------------------------------------------------- */

/* NULL-terminated list of compiled-in backends. */
const struct ff_backend *const *ff_backends(void);
const char *ff_backend_name(const struct ff_backend *b);
const struct ff_backend *ff_backend_find(const char *name);
/* Which Debian packages provide a driver for this backend, for error messages. */
const char *ff_backend_hint(const struct ff_backend *b);

/*
 * Number of devices the backend sees. 0 devices is FF_OK with *count = 0.
 * A missing loader/driver is FF_ERR_NO_DEVICE with the reason in err.
 */
int ff_backend_device_count(const struct ff_backend *b, uint32_t *count, char *err, size_t errlen);

/* ---- devices ------------------------------------------------------------- */

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
/* Words (uint32) the MEM_READ kernel writes to its out buffer. */
uint64_t ff_kernel_out_words(const struct ff_kernel *k);

/*
 * Whether flopfit has matmul kernels for `p` (fp32, fp16, int8). The precision vocabulary is
 * libflopfit's (bf16, fp8, int4, ...); ff_kernel_create answers FF_ERR_UNSUPPORTED with the
 * reason for the formats without a kernel.
 */
bool ff_matmul_has_kernel(enum ff_precision p);

#define FF_MAX_BUFS 4

/*
 * Run the kernel once and wait for it. *device_ns gets the time the device
 * spent (profiling events / timestamp queries), *wall_ns the host wall time
 * from submit to completion. Either pointer may be NULL.
 */
int ff_kernel_run(struct ff_kernel *k, struct ff_buf *const *bufs, size_t n_bufs,
                  const uint32_t *params, size_t n_params, uint64_t *device_ns, uint64_t *wall_ns,
                  char *err, size_t errlen);

/* ---- clock ---------------------------------------------------------------- */

/* Monotonic clock in nanoseconds. */
uint64_t ff_now_ns(void);

#endif
