/*
 * backends/backend_impl.h — for implementers of a backend only.
 *
 * A backend is a const struct ff_backend_ops. The front-end (frontend.c)
 * validates every argument (NULLs, sizes against the device's limits, buffer
 * counts) before calling an op, so ops may assume valid input. Each backend's
 * objects embed the front-end header as their first member so the front-end
 * can find the ops: struct ff_device, ff_buf and ff_kernel below are the
 * common parts; a backend allocates its own larger struct starting with one.
 *
 * Errors: every op returns 0 or a negative enum ff_status and writes a one-
 * line reason into err (ff_errf). Device faults are reported, never fatal.
 */
#ifndef FF_BACKEND_IMPL_H
#define FF_BACKEND_IMPL_H

#include <stdarg.h>

#include "backend.h"

struct ff_backend_ops {
    const char *name; /* "opencl" */
    const char *hint; /* packages that provide a driver on Debian */

    int (*device_count)(uint32_t *count, char *err, size_t errlen);
    /* Allocates *out (a backend struct beginning with struct ff_device) and
     * fills out->info. */
    int (*device_open)(uint32_t index, struct ff_device **out, char *err, size_t errlen);
    void (*device_destroy)(struct ff_device *dev);

    int (*buf_create)(struct ff_device *dev, uint64_t bytes, struct ff_buf **out, char *err,
                      size_t errlen);
    void (*buf_destroy)(struct ff_buf *buf);
    int (*buf_write)(struct ff_buf *buf, uint64_t offset, const void *src, uint64_t bytes,
                     char *err, size_t errlen);
    int (*buf_read)(struct ff_buf *buf, uint64_t offset, void *dst, uint64_t bytes, char *err,
                    size_t errlen);
    /* (optional) NULL means every kind is unsupported. */
    int (*buf_transfer_timed)(struct ff_buf *buf, enum ff_xfer kind, void *host, uint64_t bytes,
                              uint64_t *ns, char *err, size_t errlen);

    int (*kernel_create)(struct ff_device *dev, const struct ff_kernel_desc *desc,
                         struct ff_kernel **out, char *err, size_t errlen);
    void (*kernel_destroy)(struct ff_kernel *k);
    /*
     * (optional) The kernel's space on dev: fill out->n_params, out->param, out->dflt and
     * *source_hash (ff_tune_hash over the kernel's source text; the front-end folds the space
     * in and formats out->source_hash). FF_ERR_UNSUPPORTED when this kernel has none. NULL:
     * no kernel of this backend has one.
     */
    int (*kernel_space)(struct ff_device *dev, const struct ff_kernel_desc *desc,
                        struct ff_tune_space *out, uint64_t *source_hash, char *err, size_t errlen);
    /* (optional) Whether desc->tune (already checked to be a point of the space) builds on
     * dev; FF_ERR_UNSUPPORTED with the reason. NULL: every point of the space does. */
    int (*point_check)(struct ff_device *dev, const struct ff_kernel_desc *desc, char *err,
                       size_t errlen);
    int (*kernel_run)(struct ff_kernel *k, struct ff_buf *const *bufs, size_t n_bufs,
                      const uint32_t *params, size_t n_params, uint64_t *device_ns,
                      uint64_t *wall_ns, char *err, size_t errlen);
    /* (optional) kernel_run `count` times back to back in one submission, each run after the
     * previous one finished (an in-order queue, a barrier between dispatches): *device_ns from
     * the first run's start to the last one's end. NULL: FF_ERR_UNSUPPORTED. */
    int (*kernel_run_chain)(struct ff_kernel *k, struct ff_buf *const *bufs, size_t n_bufs,
                            const uint32_t *params, size_t n_params, uint32_t count,
                            uint64_t *device_ns, uint64_t *wall_ns, char *err, size_t errlen);
    /* (optional) ff_kernel_run_sets (backend.h), its arguments checked. NULL:
     * FF_ERR_UNSUPPORTED. */
    int (*kernel_run_sets)(struct ff_kernel *k, struct ff_buf *const *sets, size_t n_bufs,
                           size_t n_sets, const uint32_t *params, size_t n_params, uint32_t count,
                           uint64_t *device_ns, uint64_t *wall_ns, char *err, size_t errlen);
};

struct ff_backend {
    const struct ff_backend_ops *ops;
};

struct ff_device {
    const struct ff_backend *backend;
    struct ff_device_info info;
    /* Tuning overrides (set by the front-end after device_open returns; backends read them
     * where they choose tiles, paths and timeouts, never the environment). */
    struct ff_device_options opts;
    bool opts_from_env; /* opened without options: re-read before each kernel_create */
};

struct ff_buf {
    struct ff_device *dev;
    uint64_t bytes;
};

struct ff_kernel {
    struct ff_device *dev;
    struct ff_kernel_desc desc;
    char variant[192];       /* filled by the backend */
    uint64_t out_words;      /* MEM_READ: words written to the out buffer */
    enum ff_peak_op peak_op; /* PEAK: the chains' step (FF_PEAK_MAD unless set) */
    uint32_t n_bufs;         /* buffers ff_kernel_run expects */
    uint32_t n_params;       /* params ff_kernel_run expects */
    /* The point built: desc.tune when given, else the backend's choice (n == 0 when the
     * kernel has no space). Filled by the backend. */
    struct ff_tune_point point;
};

/*
 * The compiled-in backends, NULL-terminated: generated by backends/meson.build
 * (registry.c.in) from the ff_backend_<api> symbols each backends/<api>/meson.build adds
 * to ff_backend_symbols when it finds its dependency.
 */
extern const struct ff_backend *const ff_backend_registry[];

/* Append a key/value fact to info->extra (dropped silently when full). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void ff_info_add(struct ff_device_info *info, const char *key, const char *fmt, ...);

#endif
