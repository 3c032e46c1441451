/*
 * backends/frontend.c — the validating front-end every call from bench/ goes through: opening
 * devices (with the options in effect recorded in their info), buffers, kernels and runs.
 * Arguments are checked here, for every backend, against the device's limits and the kernel's
 * argument table (kernel_args), so ops may assume valid input.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "backend_impl.h"

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

/* Replace the "override.<name>" records of info by the options of o in effect for `backend`. */
static void record_options(struct ff_device_info *info, const struct ff_device_options *o,
                           const char *backend)
{
    static const char prefix[] = "override.";
    size_t kept = 0;
    for (size_t i = 0; i < info->n_extra; i++)
        if (strncmp(info->extra[i].key, prefix, sizeof(prefix) - 1) != 0)
            info->extra[kept++] = info->extra[i];
    info->n_extra = kept;
    for (size_t i = 0; ff_device_option_at(i); i++) {
        const struct ff_device_option_desc *d = ff_device_option_at(i);
        char v[sizeof(info->extra[0].value)];
        if (d->backend && strcmp(d->backend, backend) != 0)
            continue;
        if (!ff_device_options_value(o, i, v, sizeof(v)))
            continue;
        char key[sizeof(info->extra[0].key)];
        snprintf(key, sizeof(key), "%s%s", prefix, d->name);
        ff_info_add(info, key, "%s", v);
    }
}

int ff_device_open_opts(const struct ff_backend *b, uint32_t index,
                        const struct ff_device_options *opts, struct ff_device **out, char *err,
                        size_t errlen)
{
    if (!b || !out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no backend or output given");
    *out = NULL;
    struct ff_device_options o;
    if (opts)
        o = *opts;
    else if (ff_device_options_from_env(&o, err, errlen) < 0)
        return FF_ERR_INVALID;
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
    struct ff_device *dev = *out;
    dev->backend = b;
    dev->opts = o;
    dev->opts_from_env = opts == NULL;
    snprintf(dev->info.backend, sizeof(dev->info.backend), "%s", b->ops->name);
    record_options(&dev->info, &dev->opts, b->ops->name);
    return FF_OK;
}

int ff_device_open(const struct ff_backend *b, uint32_t index, struct ff_device **out, char *err,
                   size_t errlen)
{
    return ff_device_open_opts(b, index, NULL, out, err, errlen);
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

/* ---- kernel arguments ------------------------------------------------------ */

/* How a buffer's smallest size follows from the kernel's desc. */
enum buf_size {
    SZ_A,     /* m*k input elements */
    SZ_B,     /* k*n input elements */
    SZ_C,     /* m*n output elements */
    SZ_WORDS, /* desc.n 32-bit words */
    SZ_OUT,   /* ff_kernel_out_words() 32-bit words */
    SZ_OP,    /* an op kernel's buffer: ff_op_buf_bytes() */
};

/* What ff_kernel_run takes per kernel id (the list in backend.h's enum ff_kernel_id). */
static const struct kernel_args {
    const char *name;
    uint32_t n_bufs, n_params;
    const char *buf_names[FF_MAX_BUFS];
    enum buf_size sizes[FF_MAX_BUFS];
    bool params_are_shape; /* params must be desc m, n, k */
} kernel_args[FF_KERNEL_COUNT] = {
    [FF_KERNEL_MATMUL] = {"matmul", 3, 3, {"A", "B", "C"}, {SZ_A, SZ_B, SZ_C}, true},
    [FF_KERNEL_MATMUL_COOPMAT] =
        {"cooperative-matrix matmul", 3, 3, {"A", "B", "C"}, {SZ_A, SZ_B, SZ_C}, true},
    [FF_KERNEL_MATMUL_LIBRARY] =
        {"library matmul", 3, 3, {"A", "B", "C"}, {SZ_A, SZ_B, SZ_C}, true},
    [FF_KERNEL_MEM_READ] = {"mem_read", 2, 0, {"src", "out"}, {SZ_WORDS, SZ_OUT}, false},
    [FF_KERNEL_MEM_WRITE] = {"mem_write", 1, 1, {"dst"}, {SZ_WORDS}, false},
    [FF_KERNEL_MEM_COPY] = {"mem_copy", 2, 0, {"src", "dst"}, {SZ_WORDS, SZ_WORDS}, false},
    [FF_KERNEL_MEM_TRIAD] =
        {"mem_triad", 3, 0, {"a", "b", "c"}, {SZ_WORDS, SZ_WORDS, SZ_WORDS}, false},
    [FF_KERNEL_EMPTY] = {"empty", 0, 0, {NULL}, {SZ_WORDS}, false},
    [FF_KERNEL_PEAK] = {"peak", 1, 3, {"out"}, {SZ_OUT}, false},
    [FF_KERNEL_GEMV] = {"gemv", 4, 3, {"X", "W", "S", "Y"}, {SZ_OP, SZ_OP, SZ_OP, SZ_OP}, true},
    [FF_KERNEL_ATTN_DECODE] =
        {"attn_decode", 4, 3, {"Q", "K", "V", "O"}, {SZ_OP, SZ_OP, SZ_OP, SZ_OP}, true},
    [FF_KERNEL_ATTN_PREFILL] =
        {"attn_prefill", 4, 3, {"Q", "K", "V", "O"}, {SZ_OP, SZ_OP, SZ_OP, SZ_OP}, true},
    [FF_KERNEL_RMSNORM] = {"rmsnorm", 3, 2, {"X", "W", "Y"}, {SZ_OP, SZ_OP, SZ_OP}, true},
    [FF_KERNEL_ROPE] = {"rope", 2, 3, {"X", "Y"}, {SZ_OP, SZ_OP}, true},
    [FF_KERNEL_SWIGLU] = {"swiglu", 3, 2, {"G", "U", "Y"}, {SZ_OP, SZ_OP, SZ_OP}, true},
    [FF_KERNEL_ADD] = {"add", 3, 2, {"A", "B", "Y"}, {SZ_OP, SZ_OP, SZ_OP}, true},
    [FF_KERNEL_XENT] = {"xent", 3, 2, {"X", "T", "L"}, {SZ_OP, SZ_OP, SZ_OP}, true},
};

size_t ff_matmul_in_bytes(enum ff_precision p)
{
    return p == FF_PREC_FP32 ? 4 : p == FF_PREC_FP16 ? 2 : 1;
}

size_t ff_matmul_out_bytes(enum ff_precision p)
{
    return p == FF_PREC_FP16 ? 2 : 4;
}

/* The smallest buffer `i` of kernel `k` may be, and how that is computed (for the message). */
static uint64_t need_bytes(const struct ff_kernel *k, uint32_t i, char *how, size_t n)
{
    const struct ff_kernel_desc *d = &k->desc;
    switch (kernel_args[d->id].sizes[i]) {
    case SZ_A:
        snprintf(how, n, "m*k = %ux%u elements of %" PRIu64 " bytes", d->m, d->k,
                 (uint64_t)ff_matmul_in_bytes(d->prec));
        return (uint64_t)d->m * d->k * (uint64_t)ff_matmul_in_bytes(d->prec);
    case SZ_B:
        snprintf(how, n, "k*n = %ux%u elements of %" PRIu64 " bytes", d->k, d->n,
                 (uint64_t)ff_matmul_in_bytes(d->prec));
        return (uint64_t)d->k * d->n * (uint64_t)ff_matmul_in_bytes(d->prec);
    case SZ_C:
        snprintf(how, n, "m*n = %ux%u elements of %" PRIu64 " bytes", d->m, d->n,
                 (uint64_t)ff_matmul_out_bytes(d->prec));
        return (uint64_t)d->m * d->n * (uint64_t)ff_matmul_out_bytes(d->prec);
    case SZ_WORDS: snprintf(how, n, "n = %u words of 4 bytes", d->n); return (uint64_t)d->n * 4;
    case SZ_OUT:
        snprintf(how, n, "ff_kernel_out_words() = %" PRIu64 " words of 4 bytes", k->out_words);
        return k->out_words * 4;
    case SZ_OP:
        snprintf(how, n, "m x n x k = %ux%ux%u in %s", d->m, d->n, d->k,
                 ff_precision_name(d->prec));
        return ff_op_buf_bytes(d, i, NULL);
    }
    return 0;
}

/* Every argument of a run, against the kernel's entry in kernel_args. */
static int check_run_args(const struct ff_kernel *k, struct ff_buf *const *bufs, size_t n_bufs,
                          const uint32_t *params, size_t n_params, char *err, size_t errlen)
{
    const struct ff_kernel_desc *d = &k->desc;
    const struct kernel_args *a = &kernel_args[d->id];
    if (n_bufs != a->n_bufs || n_params != a->n_params)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "%s takes %u buffer%s and %u parameter%s, got %zu and %zu", a->name,
                       a->n_bufs, a->n_bufs == 1 ? "" : "s", a->n_params,
                       a->n_params == 1 ? "" : "s", n_bufs, n_params);
    if (n_bufs && !bufs)
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: buffers missing", a->name);
    if (n_params && !params)
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: parameters missing", a->name);
    for (uint32_t i = 0; i < a->n_bufs; i++) {
        if (!bufs[i] || bufs[i]->dev != k->dev)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "%s: buffer %u (%s) is missing or belongs to another device", a->name, i,
                           a->buf_names[i]);
        char how[96];
        uint64_t need = need_bytes(k, i, how, sizeof(how));
        if (bufs[i]->bytes < need)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "%s: buffer %u (%s) holds %" PRIu64 " bytes; it needs %" PRIu64 " (%s)",
                           a->name, i, a->buf_names[i], bufs[i]->bytes, need, how);
    }
    /* two shape params (rope's third is its start position, not k) or three */
    const bool mn = a->n_params == 2 || d->id == FF_KERNEL_ROPE;
    if (a->params_are_shape && mn && (params[0] != d->m || params[1] != d->n))
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "%s was built for m x n = %ux%u, run with %ux%u", a->name, d->m, d->n,
                       params[0], params[1]);
    if (a->params_are_shape && !mn && (params[0] != d->m || params[1] != d->n || params[2] != d->k))
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "%s was built for m x n x k = %ux%ux%u, run with %ux%ux%u", a->name, d->m,
                       d->n, d->k, params[0], params[1], params[2]);
    return FF_OK;
}

/* An op kernel's format and shape against backend.h's definitions. */
int ff_op_desc_check(const struct ff_kernel_desc *d, char *err, size_t errlen)
{
    if (!d || !ff_kernel_is_op(d->id))
        return ff_errf(err, errlen, FF_ERR_INVALID, "not an op kernel");
    const char *kname = kernel_args[d->id].name;
    if ((int)d->prec < 0 || d->prec >= FF_PREC_COUNT)
        return ff_errf(err, errlen, FF_ERR_INVALID, "unknown precision %d", (int)d->prec);
    bool attn = d->id == FF_KERNEL_ATTN_DECODE || d->id == FF_KERNEL_ATTN_PREFILL;
    if (d->id == FF_KERNEL_GEMV && !ff_op_gemv_format(d->prec))
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "flopfit has no gemv kernel with %s weights (it has fp32, fp16, bf16, "
                       "int8, q8_0 and q4_0)",
                       ff_precision_name(d->prec));
    if (attn && !ff_op_kv_format(d->prec))
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "flopfit has no %s kernel with a %s KV cache (it has fp32, fp16 and bf16)",
                       kname, ff_precision_name(d->prec));
    if (!attn && d->id != FF_KERNEL_GEMV && d->prec != FF_PREC_FP32)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "flopfit's %s kernel works in fp32 only, not %s", kname,
                       ff_precision_name(d->prec));
    bool uses_k = d->id == FF_KERNEL_GEMV || attn;
    if (d->m == 0 || d->n == 0 || (uses_k && d->k == 0))
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s shape %ux%ux%u has a zero", kname, d->m,
                       d->n, d->k);
    if (d->id == FF_KERNEL_GEMV) {
        bool blocks = d->prec == FF_PREC_Q8_0 || d->prec == FF_PREC_Q4_0;
        if (d->k % (blocks ? 32 : 2))
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "gemv with %s weights needs k a multiple of %d, got %u",
                           ff_precision_name(d->prec), blocks ? 32 : 2, d->k);
    }
    if ((attn || d->id == FF_KERNEL_ROPE) && (d->g == 0 || d->m % d->g))
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "%s needs g (%s) dividing m, got m = %u, g = %u", kname,
                       attn ? "query rows per KV head" : "rows per position", d->m, d->g);
    if (d->id == FF_KERNEL_ROPE && d->n % 2)
        return ff_errf(err, errlen, FF_ERR_INVALID, "rope needs an even row width, got %u", d->n);
    /* Every buffer must be addressable by 32-bit element indices in the kernels. */
    for (uint32_t i = 0; i < kernel_args[d->id].n_bufs; i++) {
        const char *bn;
        uint64_t b = ff_op_buf_bytes(d, i, &bn);
        if (b > (uint64_t)UINT32_MAX)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "%s buffer %s would hold %" PRIu64 " bytes; the op kernels take at "
                           "most 4 GiB - 1 per buffer",
                           kname, bn, b);
    }
    return FF_OK;
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
    if ((matmul || desc->id == FF_KERNEL_PEAK) &&
        ((int)desc->prec < 0 || desc->prec >= FF_PREC_COUNT))
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
    if (desc->id == FF_KERNEL_PEAK && !ff_matmul_has_kernel(desc->prec))
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "flopfit has no %s arithmetic-peak kernel (it measures fp32, fp16 and int8)",
                       ff_precision_name(desc->prec));
    if (desc->id == FF_KERNEL_PEAK && (desc->n == 0 || desc->n % 64))
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "the peak kernel needs a work-item count that is a positive multiple of "
                       "64, got %u",
                       desc->n);
    if (ff_kernel_is_op(desc->id)) {
        int ret = ff_op_desc_check(desc, err, errlen);
        if (ret < 0)
            return ret;
    }
    if (dev->opts_from_env) {
        /* Opened without options: follow the environment, as the backends did when they read
         * it themselves at this point. */
        struct ff_device_options o;
        if (ff_device_options_from_env(&o, err, errlen) < 0)
            return FF_ERR_INVALID;
        if (memcmp(&o, &dev->opts, sizeof(o)) != 0) {
            dev->opts = o;
            record_options(&dev->info, &dev->opts, dev->backend->ops->name);
        }
    }
    if (desc->tune.n) {
        int pr = ff_kernel_point_check(dev, desc, err, errlen);
        if (pr < 0)
            return pr;
    }
    int ret = dev->backend->ops->kernel_create(dev, desc, out, err, errlen);
    if (ret < 0)
        return ret;
    struct ff_kernel *k = *out;
    k->dev = dev;
    k->desc = *desc;
    /* The table above is the contract: a backend that disagrees is a bug, caught here. */
    const struct kernel_args *a = &kernel_args[desc->id];
    if (k->n_bufs != a->n_bufs || k->n_params != a->n_params) {
        ff_errf(err, errlen, FF_ERR_DEVICE,
                "%s backend built %s with %u buffers and %u parameters; the interface has %u "
                "and %u",
                dev->backend->ops->name, a->name, k->n_bufs, k->n_params, a->n_bufs, a->n_params);
        ff_kernel_destroy(out);
        return FF_ERR_DEVICE;
    }
    return FF_OK;
}

/* ---- tuning spaces ---- */

int ff_kernel_space(struct ff_device *dev, const struct ff_kernel_desc *desc,
                    struct ff_tune_space *out, char *err, size_t errlen)
{
    if (!dev || !desc || !out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no device, description or output");
    if ((int)desc->id < 0 || desc->id >= FF_KERNEL_COUNT)
        return ff_errf(err, errlen, FF_ERR_INVALID, "unknown kernel id %d", (int)desc->id);
    memset(out, 0, sizeof(*out));
    const struct ff_backend_ops *ops = dev->backend->ops;
    const char *kname = kernel_args[desc->id].name;
    if (!ops->kernel_space)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "the %s backend declares no tuning space for %s", ops->name, kname);
    uint64_t h = FF_TUNE_HASH_INIT;
    int ret = ops->kernel_space(dev, desc, out, &h, err, errlen);
    if (ret < 0)
        return ret;
    /* The contract, checked here once for every backend: a bug is reported, not searched. */
    bool bad =
        out->n_params == 0 || out->n_params > FF_TUNE_MAX_PARAMS || out->dflt.n != out->n_params;
    for (uint32_t i = 0; !bad && i < out->n_params; i++) {
        const struct ff_tune_param *p = &out->param[i];
        bad = !p->name[0] || p->n_values == 0 || p->n_values > FF_TUNE_MAX_VALUES;
        for (uint32_t j = 1; !bad && j < p->n_values; j++)
            bad = p->values[j] <= p->values[j - 1];
        h = ff_tune_hash(h, p->name, strlen(p->name) + 1);
        h = ff_tune_hash(h, p->values, p->n_values * sizeof(p->values[0]));
    }
    if (bad) {
        memset(out, 0, sizeof(*out));
        return ff_errf(err, errlen, FF_ERR_DEVICE,
                       "%s backend declared a malformed tuning space for %s (a bug)", ops->name,
                       kname);
    }
    snprintf(out->source_hash, sizeof(out->source_hash), "%016" PRIx64, h);
    return FF_OK;
}

int ff_kernel_point_check(struct ff_device *dev, const struct ff_kernel_desc *desc, char *err,
                          size_t errlen)
{
    struct ff_tune_space s;
    int ret = ff_kernel_space(dev, desc, &s, err, errlen);
    if (ret < 0)
        return ret;
    ret = ff_tune_point_in_space(&s, &desc->tune, err, errlen);
    if (ret < 0)
        return ret;
    const struct ff_backend_ops *ops = dev->backend->ops;
    return ops->point_check ? ops->point_check(dev, desc, err, errlen) : FF_OK;
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

enum ff_peak_op ff_kernel_peak_op(const struct ff_kernel *k)
{
    return k ? k->peak_op : FF_PEAK_MAD;
}

unsigned ff_peak_op_ops(enum ff_peak_op op)
{
    return op == FF_PEAK_DOT4 ? 8 : 2;
}

int ff_kernel_run_chain(struct ff_kernel *k, struct ff_buf *const *bufs, size_t n_bufs,
                        const uint32_t *params, size_t n_params, uint32_t count,
                        uint64_t *device_ns, uint64_t *wall_ns, char *err, size_t errlen)
{
    if (!k)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no kernel given");
    if (count == 0 || count > 65536)
        return ff_errf(err, errlen, FF_ERR_INVALID, "a chain of %u runs (1..65536)", count);
    const struct ff_backend_ops *ops = k->dev->backend->ops;
    if (!ops->kernel_run_chain)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED, "the %s backend runs no chains", ops->name);
    int ret = check_run_args(k, bufs, n_bufs, params, n_params, err, errlen);
    if (ret < 0)
        return ret;
    uint64_t dns = 0, wns = 0;
    ret = ops->kernel_run_chain(k, bufs, n_bufs, params, n_params, count, &dns, &wns, err, errlen);
    if (device_ns)
        *device_ns = dns;
    if (wall_ns)
        *wall_ns = wns;
    return ret;
}

int ff_kernel_run_sets(struct ff_kernel *k, struct ff_buf *const *sets, size_t n_bufs,
                       size_t n_sets, const uint32_t *params, size_t n_params, uint32_t count,
                       uint64_t *device_ns, uint64_t *wall_ns, char *err, size_t errlen)
{
    if (!k)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no kernel given");
    if (count == 0 || count > FF_RUN_SETS_MAX)
        return ff_errf(err, errlen, FF_ERR_INVALID, "a chain of %u runs (1..%d)", count,
                       FF_RUN_SETS_MAX);
    if (n_sets == 0 || n_sets > FF_RUN_SETS_MAX)
        return ff_errf(err, errlen, FF_ERR_INVALID, "%zu buffer sets (1..%d)", n_sets,
                       FF_RUN_SETS_MAX);
    const struct ff_backend_ops *ops = k->dev->backend->ops;
    if (!ops->kernel_run_sets)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "the %s backend does not time the runs of a chain one by one", ops->name);
    for (size_t s = 0; s < n_sets; s++) {
        int ret = check_run_args(k, sets ? sets + s * n_bufs : NULL, n_bufs, params, n_params, err,
                                 errlen);
        if (ret < 0)
            return ret;
    }
    uint64_t dns = 0, wns = 0;
    int ret = ops->kernel_run_sets(k, sets, n_bufs, n_sets, params, n_params, count, &dns, &wns,
                                   err, errlen);
    if (device_ns)
        *device_ns = dns;
    if (wall_ns)
        *wall_ns = wns;
    return ret;
}

int ff_kernel_run(struct ff_kernel *k, struct ff_buf *const *bufs, size_t n_bufs,
                  const uint32_t *params, size_t n_params, uint64_t *device_ns, uint64_t *wall_ns,
                  char *err, size_t errlen)
{
    if (!k)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no kernel given");
    int ret = check_run_args(k, bufs, n_bufs, params, n_params, err, errlen);
    if (ret < 0)
        return ret;
    uint64_t dns = 0, wns = 0;
    ret = k->dev->backend->ops->kernel_run(k, bufs, n_bufs, params, n_params, &dns, &wns, err,
                                           errlen);
    if (device_ns)
        *device_ns = dns;
    if (wall_ns)
        *wall_ns = wns;
    return ret;
}
