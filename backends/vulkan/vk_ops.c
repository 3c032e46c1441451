/*
 * backends/vulkan/vk_ops.c — the transformer's own operations (backend.h, FF_KERNEL_GEMV to
 * FF_KERNEL_XENT) as compute pipelines: which SPIR-V, the texel views every input is read
 * through (format and texel count), the storage range of every output, specialization
 * constants and the dispatch. Tuning spaces and default points: vk_ops_tuning.c.
 *
 * Inputs are uniform texel buffers: on lavapipe a texel fetch gathers all SIMD lanes at once
 * where a storage-buffer load is a per-lane loop, and a texel view is bounded by
 * maxTexelBufferElements, not by the 128 MiB maxStorageBufferRange. An input or output beyond
 * the device's limits is FF_ERR_UNSUPPORTED with the numbers.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"

static const char *fmt_name(VkFormat f)
{
    switch (f) {
    case VK_FORMAT_R16_UINT: return "R16_UINT";
    case VK_FORMAT_R32_UINT: return "R32_UINT";
    case VK_FORMAT_R32G32_UINT: return "R32G32_UINT";
    case VK_FORMAT_R32G32B32A32_UINT: return "R32G32B32A32_UINT";
    case VK_FORMAT_R16G16B16A16_UINT: return "R16G16B16A16_UINT";
    case VK_FORMAT_R32_SFLOAT: return "R32_SFLOAT";
    case VK_FORMAT_R32G32_SFLOAT: return "R32G32_SFLOAT";
    case VK_FORMAT_R32G32B32A32_SFLOAT: return "R32G32B32A32_SFLOAT";
    default: return "?";
    }
}

/* Texels of tw 32-bit words (tw = 0: 16-bit texels). */
static VkFormat word_format(uint32_t tw)
{
    switch (tw) {
    case 0: return VK_FORMAT_R16_UINT;
    case 1: return VK_FORMAT_R32_UINT;
    case 2: return VK_FORMAT_R32G32_UINT;
    default: return VK_FORMAT_R32G32B32A32_UINT;
    }
}

static VkFormat float_format(uint32_t floats)
{
    return floats == 4   ? VK_FORMAT_R32G32B32A32_SFLOAT
           : floats == 2 ? VK_FORMAT_R32G32_SFLOAT
                         : VK_FORMAT_R32_SFLOAT;
}

static uint32_t format_bytes(VkFormat f)
{
    switch (f) {
    case VK_FORMAT_R16_UINT: return 2;
    case VK_FORMAT_R32_UINT:
    case VK_FORMAT_R32_SFLOAT: return 4;
    case VK_FORMAT_R32G32_UINT:
    case VK_FORMAT_R16G16B16A16_UINT:
    case VK_FORMAT_R32G32_SFLOAT: return 8;
    default: return 16;
    }
}

/* Binding i read through a texel view of `texels` texels of fmt. */
static int set_view(struct ffvk_device *d, struct ffvk_kernel *k, uint32_t i, const char *name,
                    VkFormat fmt, uint64_t texels, char *err, size_t errlen)
{
    VkFormatProperties fp;
    d->fn->vkGetPhysicalDeviceFormatProperties(d->phys, fmt, &fp);
    if (!(fp.bufferFeatures & VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT))
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "the device cannot read %s uniform texel buffers (buffer %s)", fmt_name(fmt),
                       name);
    const uint64_t max = d->props.limits.maxTexelBufferElements;
    if (texels > max)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "buffer %s is read as %" PRIu64 " %s texels (%" PRIu64
                       " bytes); the device's maxTexelBufferElements is %" PRIu64,
                       name, texels, fmt_name(fmt), texels * format_bytes(fmt), max);
    k->bind_fmt[i] = fmt;
    k->need_bytes[i] = texels * format_bytes(fmt);
    return FF_OK;
}

/* Binding i written as a storage buffer of `bytes`. */
static int set_storage(struct ffvk_device *d, struct ffvk_kernel *k, uint32_t i, const char *name,
                       uint64_t bytes, char *err, size_t errlen)
{
    if (bytes > d->max_storage_range)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "output %s holds %" PRIu64 " bytes; the device binds at most %" PRIu64
                       " bytes per storage buffer (maxStorageBufferRange)",
                       name, bytes, d->max_storage_range);
    k->bind_fmt[i] = VK_FORMAT_UNDEFINED;
    k->need_bytes[i] = bytes;
    return FF_OK;
}

static int need_subgroups(const struct ffvk_device *d, const char *what, char *err, size_t errlen)
{
    if (!d->subgroup_arith)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "the device offers no subgroup arithmetic in compute shaders, which the "
                       "%s kernel's reductions use",
                       what);
    return FF_OK;
}

static uint32_t small_wg(const struct ffvk_device *d)
{
    uint32_t wg = 64, m = d->props.limits.maxComputeWorkGroupInvocations;
    if (m > d->props.limits.maxComputeWorkGroupSize[0])
        m = d->props.limits.maxComputeWorkGroupSize[0];
    while (wg > m)
        wg /= 2;
    return wg;
}

/* ---- GEMV ---------------------------------------------------------------------- */

static int create_gemv(struct ffvk_device *d, struct ffvk_kernel *k,
                       const struct ff_kernel_desc *desc, char *err, size_t errlen)
{
    const uint64_t m = desc->m, n = desc->n, kk = desc->k;
    const enum ff_precision p = desc->prec;
    int ret = need_subgroups(d, "gemv", err, errlen);
    if (ret < 0)
        return ret;
    /* W's texels: tw words each (0: 16-bit), e weights per unit of work */
    uint32_t tw, e;
    switch (p) {
    case FF_PREC_Q4_0:
    case FF_PREC_Q8_0:
        tw = 4;
        e = 32;
        break;
    case FF_PREC_INT8:
        tw = kk % 16 == 0 ? 4 : kk % 8 == 0 ? 2 : kk % 4 == 0 ? 1 : 0;
        e = tw ? tw * 4 : 2;
        break;
    case FF_PREC_FP16:
    case FF_PREC_BF16:
        tw = kk % 8 == 0 ? 4 : kk % 4 == 0 ? 2 : 1;
        e = tw * 2;
        break;
    default:
        tw = kk % 4 == 0 ? 4 : 2;
        e = tw;
        break;
    }
    const uint32_t xf = e % 4 == 0 ? 4 : 2;
    const uint64_t w_bytes = ff_op_buf_bytes(desc, 1, NULL);
    if ((ret = set_view(d, k, 0, "X", float_format(xf), m * kk / xf, err, errlen)) < 0 ||
        (ret = set_view(d, k, 1, "W", word_format(tw), w_bytes / format_bytes(word_format(tw)), err,
                        errlen)) < 0)
        return ret;
    if (desc->tune.n)
        k->base.point = desc->tune;
    else
        ffvk_op_default(d, desc, &k->base.point);
    const uint32_t chunk = k->base.point.v[3];
    if ((p == FF_PREC_Q4_0 || p == FF_PREC_Q8_0) && chunk == 4)
        ret = set_view(d, k, 2, "S", VK_FORMAT_R16G16B16A16_UINT, n * (kk / 32) / 4, err, errlen);
    else if (p == FF_PREC_Q4_0 || p == FF_PREC_Q8_0)
        ret = set_view(d, k, 2, "S", VK_FORMAT_R16_UINT, n * (kk / 32), err, errlen);
    else
        ret = set_view(d, k, 2, "S", VK_FORMAT_R32_UINT, p == FF_PREC_INT8 ? n : 1, err, errlen);
    if (ret < 0 || (ret = set_storage(d, k, 3, "Y", m * n * 4, err, errlen)) < 0)
        return ret;

    const uint32_t wg = k->base.point.v[0], rows = k->base.point.v[1], mt = k->base.point.v[2];
    k->groups[0] = ffvk_div_up(n, rows);
    k->groups[1] = ffvk_div_up(m, mt);
    k->groups[2] = 1;
    if ((ret = ffvk_check_groups(d, k, err, errlen)) < 0)
        return ret;
    k->base.n_bufs = 4;
    k->base.n_params = 3;
    snprintf(k->base.variant, sizeof(k->base.variant),
             "%s weights as %s texels, %ux%u-weight units per step; %u rows of W x %u of X per "
             "work-group of %u; fp32 accumulate",
             ff_precision_name(p), fmt_name(word_format(tw)), chunk, e, rows, mt, wg);
    const uint32_t spec[] = {
        wg, desc->m, desc->n, desc->k, rows, mt, tw, xf, ffvk_op_subgroups(d, wg), chunk};
    size_t bytes;
    const uint32_t *code = ffvk_op_code(desc, &bytes);
    return ffvk_build(d, k, code, bytes, 4, 0, spec, sizeof(spec) / sizeof(spec[0]), err, errlen);
}

/* ---- attention ----------------------------------------------------------------- */

static int create_attn(struct ffvk_device *d, struct ffvk_kernel *k,
                       const struct ff_kernel_desc *desc, char *err, size_t errlen)
{
    const bool decode = desc->id == FF_KERNEL_ATTN_DECODE;
    const char *what = decode ? "attn_decode" : "attn_prefill";
    int ret;
    if (desc->k > FFVK_ATTN_MAX_D)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "%s is built for head dims up to %u, got %u", what, FFVK_ATTN_MAX_D,
                       desc->k);
    if ((ret = need_subgroups(d, what, err, errlen)) < 0)
        return ret;
    /* uvec4 texels for the wide builds, else one element per texel */
    const VkFormat kvf = ffvk_attn_build(desc) < 2    ? VK_FORMAT_R32G32B32A32_UINT
                         : desc->prec == FF_PREC_FP32 ? VK_FORMAT_R32_UINT
                                                      : VK_FORMAT_R16_UINT;
    const uint64_t q_bytes = ff_op_buf_bytes(desc, 0, NULL);
    const uint64_t kv_bytes = ff_op_buf_bytes(desc, 1, NULL);
    const uint32_t q_floats = ffvk_attn_build(desc) < 2 ? 4 : 1; /* per Q texel */
    if ((ret = set_view(d, k, 0, "Q", float_format(q_floats), q_bytes / 4 / q_floats, err,
                        errlen)) < 0 ||
        (ret = set_view(d, k, 1, "K", kvf, kv_bytes / format_bytes(kvf), err, errlen)) < 0 ||
        (ret = set_view(d, k, 2, "V", kvf, kv_bytes / format_bytes(kvf), err, errlen)) < 0 ||
        (ret = set_storage(d, k, 3, "O", q_bytes, err, errlen)) < 0)
        return ret;
    struct ff_kernel_desc at = *desc; /* desc at the point it builds */
    if (!desc->tune.n)
        ffvk_op_default(d, desc, &at.tune);
    k->base.point = at.tune;
    const uint32_t wg = at.tune.v[0], gb = at.tune.v[1];
    const bool vl = decode && ffvk_attn_vlanes(&at.tune);
    const uint32_t parts = decode ? ffvk_attn_parts(&at.tune) : 1;
    size_t bytes;
    const uint32_t *code = ffvk_op_code(&at, &bytes);
    k->base.n_bufs = 4;
    k->base.n_params = 3;
    /* decode: one work-group per GB query rows; prefill: per GB positions (x) of a head (y) */
    k->groups[0] = decode ? desc->m / gb : ffvk_div_up(desc->n, gb);
    k->groups[1] = decode ? parts : desc->m;
    k->groups[2] = 1;
    if ((ret = ffvk_check_groups(d, k, err, errlen)) < 0)
        return ret;
    if (decode) {
        /* the parts' partials (a query row and part: max, sum, D values) and a count per
         * group of rows, zeroed; bound (a few bytes) with one part too */
        uint64_t own_bytes[2] = {(uint64_t)desc->m * parts * (desc->k + 2) * 4,
                                 (uint64_t)k->groups[0] * 4};
        for (uint32_t i = 0; i < 2; i++) {
            if (parts == 1 || own_bytes[i] < 16)
                own_bytes[i] = 16;
            if ((ret = ff_buf_create(&d->base, own_bytes[i], &k->own[i], err, errlen)) < 0)
                return ret;
            k->n_own = i + 1;
        }
        uint32_t *zero = calloc(1, own_bytes[1]);
        if (!zero)
            return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "no host memory for the parts' counts");
        ret = ff_buf_write(k->own[1], 0, zero, own_bytes[1], err, errlen);
        free(zero);
        if (ret < 0)
            return ret;
    }
    char over[32] = "";
    if (parts > 1)
        snprintf(over, sizeof(over), "; %u parts", parts);
    snprintf(k->base.variant, sizeof(k->base.variant),
             "%s KV as %s texels; %u %s per work-group of %u share each K/V fetch; %s%s",
             ff_precision_name(desc->prec), fmt_name(kvf), gb,
             decode ? "query rows" : "causal query positions", wg,
             vl ? "values across the lanes" : "online softmax per invocation", over);
    const uint32_t spec[9] = {wg,      desc->m, desc->n,          desc->k,
                              desc->g, gb,      d->subgroup_size, ffvk_op_subgroups(d, wg),
                              parts};
    return ffvk_build(d, k, code, bytes, 4 + k->n_own, 0, spec, 9, err, errlen);
}

/* ---- row-wise and elementwise ops ---------------------------------------------- */

static int create_rows(struct ffvk_device *d, struct ffvk_kernel *k,
                       const struct ff_kernel_desc *desc, char *err, size_t errlen)
{
    const bool rms = desc->id == FF_KERNEL_RMSNORM;
    int ret = need_subgroups(d, rms ? "rmsnorm" : "xent", err, errlen);
    if (ret < 0)
        return ret;
    const uint64_t m = desc->m, n = desc->n;
    if ((ret = set_view(d, k, 0, "X", VK_FORMAT_R32_SFLOAT, m * n, err, errlen)) < 0)
        return ret;
    if (rms)
        ret = set_view(d, k, 1, "W", VK_FORMAT_R32_SFLOAT, n, err, errlen);
    else
        ret = set_view(d, k, 1, "T", VK_FORMAT_R32_UINT, m, err, errlen);
    if (ret < 0 ||
        (ret = set_storage(d, k, 2, rms ? "Y" : "L", (rms ? m * n : m) * 4, err, errlen)) < 0)
        return ret;
    const uint32_t wg = small_wg(d);
    if (ffvk_op_subgroups(d, wg) > 64)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "work-groups of %u would hold more than 64 subgroups", wg);
    k->groups[0] = desc->m;
    k->groups[1] = k->groups[2] = 1;
    if ((ret = ffvk_check_groups(d, k, err, errlen)) < 0)
        return ret;
    k->base.n_bufs = 3;
    k->base.n_params = 2;
    snprintf(k->base.variant, sizeof(k->base.variant),
             "one work-group of %u per row, R32F texel reads, subgroup reductions", wg);
    const uint32_t spec[3] = {wg, desc->m, desc->n};
    size_t bytes;
    const uint32_t *code = ffvk_op_code(desc, &bytes);
    return ffvk_build(d, k, code, bytes, 3, 0, spec, 3, err, errlen);
}

static int create_eltwise(struct ffvk_device *d, struct ffvk_kernel *k,
                          const struct ff_kernel_desc *desc, char *err, size_t errlen)
{
    const bool rope = desc->id == FF_KERNEL_ROPE;
    const uint64_t elems = (uint64_t)desc->m * desc->n;
    /* ADD, SWIGLU: four elements per invocation (one RGBA32F texel) where rows allow */
    const uint32_t v = !rope && desc->n % 4 == 0 ? 4 : 1;
    const char *in0 = rope ? "X" : desc->id == FF_KERNEL_ADD ? "A" : "G";
    int ret;
    if ((ret = set_view(d, k, 0, in0, float_format(v), elems / v, err, errlen)) < 0)
        return ret;
    if (!rope && (ret = set_view(d, k, 1, desc->id == FF_KERNEL_ADD ? "B" : "U", float_format(v),
                                 elems / v, err, errlen)) < 0)
        return ret;
    const uint32_t out = rope ? 1 : 2;
    if ((ret = set_storage(d, k, out, "Y", elems * 4, err, errlen)) < 0)
        return ret;
    const uint32_t wg = small_wg(d);
    k->groups[0] = ffvk_div_up(rope ? desc->n / 2 : desc->n / v, wg);
    k->groups[1] = desc->m;
    k->groups[2] = 1;
    if ((ret = ffvk_check_groups(d, k, err, errlen)) < 0)
        return ret;
    k->base.n_bufs = out + 1;
    k->base.n_params = rope ? 3 : 2;
    snprintf(k->base.variant, sizeof(k->base.variant),
             "%s per invocation, work-groups of %u along a row, %s texel reads",
             rope     ? "one pair"
             : v == 4 ? "four elements"
                      : "one element",
             wg, fmt_name(float_format(v)));
    const uint32_t spec[] = {wg, desc->m, desc->n, desc->g ? desc->g : 1, v};
    size_t bytes;
    const uint32_t *code = ffvk_op_code(desc, &bytes);
    /* push block {m, n, pos0}: the run's params */
    return ffvk_build(d, k, code, bytes, k->base.n_bufs, 3, spec, sizeof(spec) / sizeof(spec[0]),
                      err, errlen);
}

int ffvk_op_create(struct ffvk_device *d, struct ffvk_kernel *k, const struct ff_kernel_desc *desc,
                   char *err, size_t errlen)
{
    k->exact_ranges = true;
    switch (desc->id) {
    case FF_KERNEL_GEMV: return create_gemv(d, k, desc, err, errlen);
    case FF_KERNEL_ATTN_DECODE:
    case FF_KERNEL_ATTN_PREFILL: return create_attn(d, k, desc, err, errlen);
    case FF_KERNEL_RMSNORM:
    case FF_KERNEL_XENT: return create_rows(d, k, desc, err, errlen);
    case FF_KERNEL_ROPE:
    case FF_KERNEL_SWIGLU:
    case FF_KERNEL_ADD: return create_eltwise(d, k, desc, err, errlen);
    default: return ff_errf(err, errlen, FF_ERR_INVALID, "not an op kernel: %d", (int)desc->id);
    }
}
