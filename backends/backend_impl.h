/*
 * backends/backend_impl.h — for implementers of a backend only.
 *
 * A backend is a const struct ff_backend_ops. The front-end (backend.c)
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
    int (*kernel_run)(struct ff_kernel *k, struct ff_buf *const *bufs, size_t n_bufs,
                      const uint32_t *params, size_t n_params, uint64_t *device_ns,
                      uint64_t *wall_ns, char *err, size_t errlen);
};

struct ff_backend {
    const struct ff_backend_ops *ops;
};

struct ff_device {
    const struct ff_backend *backend;
    struct ff_device_info info;
};

struct ff_buf {
    struct ff_device *dev;
    uint64_t bytes;
};

struct ff_kernel {
    struct ff_device *dev;
    struct ff_kernel_desc desc;
    char variant[160];  /* filled by the backend */
    uint64_t out_words; /* MEM_READ: words written to the out buffer */
    uint32_t n_bufs;    /* buffers ff_kernel_run expects */
    uint32_t n_params;  /* params ff_kernel_run expects */
};

/* Compiled-in backends (defined in backends/<api>/). */
extern const struct ff_backend ff_backend_opencl;
extern const struct ff_backend ff_backend_vulkan;

/* Append a key/value fact to info->extra (dropped silently when full). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void ff_info_add(struct ff_device_info *info, const char *key, const char *fmt, ...);

#endif
