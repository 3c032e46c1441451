/*
 * backends/backend.c — registry of compiled-in backends and the validating
 * front-end every call from bench/ goes through.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "config.h"
#include "backend_impl.h"

static const struct ff_backend *const registry[] = {
#if FF_HAVE_OPENCL
    &ff_backend_opencl,
#endif
#if FF_HAVE_VULKAN
    &ff_backend_vulkan,
#endif
    NULL,
};

uint64_t ff_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void ff_info_add(struct ff_device_info *info, const char *key, const char *fmt, ...)
{
    if (info->n_extra >= FF_DEVICE_MAX_EXTRA)
        return;
    struct ff_kv *kv = &info->extra[info->n_extra++];
    snprintf(kv->key, sizeof(kv->key), "%s", key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(kv->value, sizeof(kv->value), fmt, ap);
    va_end(ap);
}

const struct ff_backend *const *ff_backends(void)
{
    return registry;
}

const char *ff_backend_name(const struct ff_backend *b)
{
    return b ? b->ops->name : "(none)";
}

const char *ff_backend_hint(const struct ff_backend *b)
{
    return b ? b->ops->hint : "";
}

const struct ff_backend *ff_backend_find(const char *name)
{
    if (!name)
        return NULL;
    for (const struct ff_backend *const *b = registry; *b; b++)
        if (strcasecmp((*b)->ops->name, name) == 0)
            return *b;
    return NULL;
}

int ff_backend_device_count(const struct ff_backend *b, uint32_t *count, char *err, size_t errlen)
{
    if (!b || !count)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no backend or count given");
    *count = 0;
    return b->ops->device_count(count, err, errlen);
}

int ff_device_open(const struct ff_backend *b, uint32_t index, struct ff_device **out, char *err,
                   size_t errlen)
{
    if (!b || !out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no backend or output given");
    *out = NULL;
    uint32_t n = 0;
    int ret = b->ops->device_count(&n, err, errlen);
    if (ret < 0)
        return ret;
    if (index >= n)
        return ff_errf(err, errlen, FF_ERR_NOT_FOUND, "%s has no device %u (%u device%s found)",
                       b->ops->name, index, n, n == 1 ? "" : "s");
    ret = b->ops->device_open(index, out, err, errlen);
    if (ret < 0)
        return ret;
    (*out)->backend = b;
    snprintf((*out)->info.backend, sizeof((*out)->info.backend), "%s", b->ops->name);
    return FF_OK;
}

void ff_device_destroy(struct ff_device **dev)
{
    if (!dev || !*dev)
        return;
    (*dev)->backend->ops->device_destroy(*dev);
    *dev = NULL;
}

const struct ff_device_info *ff_device_info(const struct ff_device *dev)
{
    return &dev->info;
}

const struct ff_backend *ff_device_backend(const struct ff_device *dev)
{
    return dev->backend;
}

int ff_buf_create(struct ff_device *dev, uint64_t bytes, struct ff_buf **out, char *err,
                  size_t errlen)
{
    if (!dev || !out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no device or output given");
    *out = NULL;
    if (bytes == 0)
        return ff_errf(err, errlen, FF_ERR_INVALID, "buffer size is 0 bytes");
    if (dev->info.max_alloc_bytes && bytes > dev->info.max_alloc_bytes)
        return ff_errf(err, errlen, FF_ERR_DEVICE_MEMORY,
                       "buffer of %llu bytes exceeds the device's max allocation of %llu bytes",
                       (unsigned long long)bytes, (unsigned long long)dev->info.max_alloc_bytes);
    int ret = dev->backend->ops->buf_create(dev, bytes, out, err, errlen);
    if (ret < 0)
        return ret;
    (*out)->dev = dev;
    (*out)->bytes = bytes;
    return FF_OK;
}

void ff_buf_destroy(struct ff_buf **buf)
{
    if (!buf || !*buf)
        return;
    (*buf)->dev->backend->ops->buf_destroy(*buf);
    *buf = NULL;
}

uint64_t ff_buf_size(const struct ff_buf *buf)
{
    return buf ? buf->bytes : 0;
}

static int check_range(const struct ff_buf *buf, uint64_t offset, const void *host, uint64_t bytes,
                       char *err, size_t errlen)
{
    if (!buf || !host)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no buffer or host pointer given");
    if (bytes == 0 || offset > buf->bytes || bytes > buf->bytes - offset)
        return ff_errf(
            err, errlen, FF_ERR_INVALID, "range %llu+%llu is outside the %llu-byte buffer",
            (unsigned long long)offset, (unsigned long long)bytes, (unsigned long long)buf->bytes);
    return FF_OK;
}

int ff_buf_write(struct ff_buf *buf, uint64_t offset, const void *src, uint64_t bytes, char *err,
                 size_t errlen)
{
    int ret = check_range(buf, offset, src, bytes, err, errlen);
    if (ret < 0)
        return ret;
    return buf->dev->backend->ops->buf_write(buf, offset, src, bytes, err, errlen);
}

int ff_buf_read(struct ff_buf *buf, uint64_t offset, void *dst, uint64_t bytes, char *err,
                size_t errlen)
{
    int ret = check_range(buf, offset, dst, bytes, err, errlen);
    if (ret < 0)
        return ret;
    return buf->dev->backend->ops->buf_read(buf, offset, dst, bytes, err, errlen);
}

int ff_buf_transfer_timed(struct ff_buf *buf, enum ff_xfer kind, void *host, uint64_t bytes,
                          uint64_t *ns, char *err, size_t errlen)
{
    int ret = check_range(buf, 0, host, bytes, err, errlen);
    if (ret < 0)
        return ret;
    if (!ns || (int)kind < 0 || kind >= FF_XFER_COUNT)
        return ff_errf(err, errlen, FF_ERR_INVALID, "bad transfer kind or output");
    const struct ff_backend_ops *ops = buf->dev->backend->ops;
    if (!ops->buf_transfer_timed)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED, "%s backend has no timed transfers",
                       ops->name);
    return ops->buf_transfer_timed(buf, kind, host, bytes, ns, err, errlen);
}

bool ff_matmul_has_kernel(enum ff_precision p)
{
    return p == FF_PREC_FP32 || p == FF_PREC_FP16 || p == FF_PREC_INT8;
}

int ff_kernel_create(struct ff_device *dev, const struct ff_kernel_desc *desc,
                     struct ff_kernel **out, char *err, size_t errlen)
{
    if (!dev || !desc || !out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no device, description or output");
    *out = NULL;
    if ((int)desc->id < 0 || desc->id >= FF_KERNEL_COUNT)
        return ff_errf(err, errlen, FF_ERR_INVALID, "unknown kernel id %d", (int)desc->id);
    bool matmul = desc->id <= FF_KERNEL_MATMUL_LIBRARY;
    if (matmul && ((int)desc->prec < 0 || desc->prec >= FF_PREC_COUNT))
        return ff_errf(err, errlen, FF_ERR_INVALID, "unknown precision %d", (int)desc->prec);
    if (matmul && !ff_matmul_has_kernel(desc->prec))
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "flopfit has no %s matrix-multiply kernel (it measures fp32, fp16 and int8)",
                       ff_precision_name(desc->prec));
    if (matmul && (desc->m == 0 || desc->n == 0 || desc->k == 0))
        return ff_errf(err, errlen, FF_ERR_INVALID, "matmul shape %ux%ux%u has a zero", desc->m,
                       desc->n, desc->k);
    if (desc->id >= FF_KERNEL_MEM_READ && desc->id <= FF_KERNEL_MEM_TRIAD &&
        (desc->n == 0 || desc->n % 1024))
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "bandwidth kernels need a word count that is a positive multiple of "
                       "1024, got %u",
                       desc->n);
    int ret = dev->backend->ops->kernel_create(dev, desc, out, err, errlen);
    if (ret < 0)
        return ret;
    (*out)->dev = dev;
    (*out)->desc = *desc;
    return FF_OK;
}

void ff_kernel_destroy(struct ff_kernel **k)
{
    if (!k || !*k)
        return;
    (*k)->dev->backend->ops->kernel_destroy(*k);
    *k = NULL;
}

const char *ff_kernel_variant(const struct ff_kernel *k)
{
    return k ? k->variant : "";
}

uint64_t ff_kernel_out_words(const struct ff_kernel *k)
{
    return k ? k->out_words : 0;
}

int ff_kernel_run(struct ff_kernel *k, struct ff_buf *const *bufs, size_t n_bufs,
                  const uint32_t *params, size_t n_params, uint64_t *device_ns, uint64_t *wall_ns,
                  char *err, size_t errlen)
{
    if (!k)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no kernel given");
    if (n_bufs != k->n_bufs || n_params != k->n_params || n_bufs > FF_MAX_BUFS)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "kernel takes %u buffers and %u parameters, got %zu and %zu", k->n_bufs,
                       k->n_params, n_bufs, n_params);
    for (size_t i = 0; i < n_bufs; i++) {
        if (!bufs[i] || bufs[i]->dev != k->dev)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "buffer %zu is missing or belongs to another device", i);
    }
    if (n_params && !params)
        return ff_errf(err, errlen, FF_ERR_INVALID, "parameters missing");
    uint64_t dns = 0, wns = 0;
    int ret = k->dev->backend->ops->kernel_run(k, bufs, n_bufs, params, n_params, &dns, &wns, err,
                                               errlen);
    if (device_ns)
        *device_ns = dns;
    if (wall_ns)
        *wall_ns = wns;
    return ret;
}
