/*
 * backends/vulkan/vk_mem_tuning.c — the bandwidth kernels' tuning space (mem.comp): bytes per
 * access unit, units per invocation, grid stride or contiguous blocks, work-group size.
 *
 * The ranges cover GPUs and CPUs: 4-, 16-, 32- and 64-byte units (a uvec4 per lane is the
 * widest single load GLSL has; 64 bytes is a CPU cache line; a uint per lane is what a driver
 * that vectorises across invocations, like lavapipe's llvmpipe, turns into one wide load), 1 to 256 units per invocation, and work-groups of 32 to 1024 (NVIDIA warps of
 * 32, AMD wavefronts of 64, Intel subgroups of 8-32; 64-256 the usual GPU range).
 *
 * The read kernel has one more parameter, src: its source as a storage buffer (0) or through a
 * uniform texel buffer view (1), the way the op kernels read every input. A storage-buffer load
 * on lavapipe is a loop over the SIMD lanes, each bounds-checked, where a texel fetch loads all
 * lanes at once, so a CPU device reads through the view by default, in contiguous blocks of
 * 64-byte units: the read bandwidth is the roofline of the op kernels, and a figure from the
 * slower path would understate it. A GPU keeps the storage buffer; the search tries both.
 *
 * The default point is otherwise what flopfit built before this space existed: uvec4 units
 * grid-strided over work-groups of 256 (clamped to the device's limits), the dispatch capped
 * near 4096 work-groups: units per invocation = the smallest power of two that keeps it there.
 */
#include <stdio.h>
#include <string.h>

#include "vk_internal.h"

#include "vk_mem_copy.h"
#include "vk_mem_copy_s.h"
#include "vk_mem_read.h"
#include "vk_mem_read_s.h"
#include "vk_mem_read_t.h"
#include "vk_mem_read_ts.h"
#include "vk_mem_triad.h"
#include "vk_mem_triad_s.h"
#include "vk_mem_write.h"
#include "vk_mem_write_s.h"

/* P_SRC last: the read kernel's space has it, the others end before it */
enum { P_VW, P_EPI, P_LAYOUT, P_WG, P_SRC, N_PARAMS };

static const struct ff_tune_param mem_params[N_PARAMS] = {
    [P_VW] = {"vw", 4, {1, 4, 8, 16}},  [P_EPI] = {"epi", 9, {1, 2, 4, 8, 16, 32, 64, 128, 256}},
    [P_LAYOUT] = {"layout", 2, {0, 1}}, [P_WG] = {"wg", 6, {32, 64, 128, 256, 512, 1024}},
    [P_SRC] = {"src", 2, {0, 1}},
};

#define MEM_WG         256u
#define MEM_MAX_GROUPS 4096u

static uint32_t max_wg(const struct ffvk_device *d)
{
    uint32_t m = d->props.limits.maxComputeWorkGroupInvocations;
    return m < d->props.limits.maxComputeWorkGroupSize[0]
               ? m
               : d->props.limits.maxComputeWorkGroupSize[0];
}

/* The texel format the read kernel's source is viewed as at vw (scalar: one word a texel). */
VkFormat ffvk_mem_texel_format(uint32_t vw)
{
    return vw == 1 ? VK_FORMAT_R32_UINT : VK_FORMAT_R32G32B32A32_UINT;
}

/* Can the read kernel view n words at vw through a uniform texel buffer on this device? Why
 * not into err when it cannot. */
static int texel_read_check(const struct ffvk_device *d, uint32_t n, uint32_t vw, char *err,
                            size_t errlen)
{
    const VkFormat fmt = ffvk_mem_texel_format(vw);
    VkFormatProperties fp;
    d->fn->vkGetPhysicalDeviceFormatProperties(d->phys, fmt, &fp);
    if (!(fp.bufferFeatures & VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT))
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "src=1: the device cannot read %s uniform texel buffers",
                       vw == 1 ? "R32_UINT" : "R32G32B32A32_UINT");
    const uint64_t texels = vw == 1 ? n : n / 4;
    if (texels > d->props.limits.maxTexelBufferElements)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "src=1: %llu texels exceed the device's maxTexelBufferElements of %u",
                       (unsigned long long)texels,
                       (unsigned)d->props.limits.maxTexelBufferElements);
    return FF_OK;
}

/* Work-groups the point dispatches over n words. */
uint64_t ffvk_mem_groups(const struct ff_tune_point *p, uint32_t n)
{
    uint64_t units = (uint64_t)n / p->v[P_VW];
    uint64_t per_group = (uint64_t)p->v[P_WG] * p->v[P_EPI];
    return (units + per_group - 1) / per_group;
}

void ffvk_mem_default(const struct ffvk_device *d, enum ff_kernel_id id, uint32_t n,
                      struct ff_tune_point *p)
{
    memset(p, 0, sizeof(*p));
    p->n = id == FF_KERNEL_MEM_READ ? N_PARAMS : P_SRC;
    uint32_t wg = MEM_WG;
    while (wg > max_wg(d) && wg > 32)
        wg /= 2;
    uint64_t n4 = n / 4;
    uint32_t epi = 1;
    while (epi < 256 && (n4 + (uint64_t)wg * epi - 1) / ((uint64_t)wg * epi) > MEM_MAX_GROUPS)
        epi *= 2;
    p->v[P_VW] = 4;
    p->v[P_EPI] = epi;
    p->v[P_LAYOUT] = 0;
    p->v[P_WG] = wg;
    if (id != FF_KERNEL_MEM_READ || d->props.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU)
        return;
    /* A CPU device reads through the texel view, each invocation a contiguous block of 64-byte
     * units (one stream a thread, as a CPU's prefetchers follow; lavapipe runs a work-group's
     * invocations on one thread), small work-groups so there are at least 64 of them. */
    if (n % 16 == 0 && texel_read_check(d, n, 16, NULL, 0) == FF_OK) {
        p->v[P_VW] = 16;
        p->v[P_LAYOUT] = 1;
        p->v[P_WG] = 32;
        p->v[P_EPI] = 256;
        while (p->v[P_EPI] > 1 && ffvk_mem_groups(p, n) < 64)
            p->v[P_EPI] /= 2;
        p->v[P_SRC] = 1;
    } else if (texel_read_check(d, n, p->v[P_VW], NULL, 0) == FF_OK) {
        p->v[P_SRC] = 1;
    }
}

int ffvk_mem_space(const struct ffvk_device *d, const struct ff_kernel_desc *desc,
                   struct ff_tune_space *out, uint64_t *source_hash, char *err, size_t errlen)
{
    static const struct {
        const uint32_t *code, *scalar;
        size_t bytes, scalar_bytes;
    } spv[] = {
        {ff_vk_spv_mem_read, ff_vk_spv_mem_read_s, sizeof(ff_vk_spv_mem_read),
         sizeof(ff_vk_spv_mem_read_s)},
        {ff_vk_spv_mem_write, ff_vk_spv_mem_write_s, sizeof(ff_vk_spv_mem_write),
         sizeof(ff_vk_spv_mem_write_s)},
        {ff_vk_spv_mem_copy, ff_vk_spv_mem_copy_s, sizeof(ff_vk_spv_mem_copy),
         sizeof(ff_vk_spv_mem_copy_s)},
        {ff_vk_spv_mem_triad, ff_vk_spv_mem_triad_s, sizeof(ff_vk_spv_mem_triad),
         sizeof(ff_vk_spv_mem_triad_s)},
    };
    if (desc->id < FF_KERNEL_MEM_READ || desc->id > FF_KERNEL_MEM_TRIAD)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED, "not a bandwidth kernel");
    memset(out, 0, sizeof(*out));
    ffvk_mem_default(d, desc->id, desc->n, &out->dflt);
    out->n_params = out->dflt.n;
    memcpy(out->param, mem_params, sizeof(mem_params[0]) * out->n_params);
    /* mem.comp's source is compiled at build time: its SPIR-V (both element types, and the
     * read kernel's texel builds) stands for it. */
    const int i = desc->id - FF_KERNEL_MEM_READ;
    uint64_t h = ff_tune_hash(ff_tune_hash(FF_TUNE_HASH_INIT, spv[i].code, spv[i].bytes),
                              spv[i].scalar, spv[i].scalar_bytes);
    if (desc->id == FF_KERNEL_MEM_READ)
        h = ff_tune_hash(ff_tune_hash(h, ff_vk_spv_mem_read_t, sizeof(ff_vk_spv_mem_read_t)),
                         ff_vk_spv_mem_read_ts, sizeof(ff_vk_spv_mem_read_ts));
    *source_hash = h;
    return FF_OK;
}

int ffvk_mem_point_check(const struct ffvk_device *d, const struct ff_kernel_desc *desc, char *err,
                         size_t errlen)
{
    /* The front-end has checked that desc->tune is a point of the space (ff_kernel_point_check). */
    const struct ff_tune_point *p = &desc->tune;
    if (desc->n == 0 || desc->n % p->v[P_VW])
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED, "n=%u words is not a multiple of vw=%u",
                       (unsigned)desc->n, (unsigned)p->v[P_VW]);
    if (p->v[P_WG] > max_wg(d))
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "work-group of %u exceeds the device's maximum of %u", (unsigned)p->v[P_WG],
                       (unsigned)max_wg(d));
    uint64_t groups = ffvk_mem_groups(p, desc->n);
    if (groups > d->props.limits.maxComputeWorkGroupCount[0])
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "%llu work-groups (n=%u words / vw*epi*wg=%llu) exceed the device's "
                       "maximum of %u",
                       (unsigned long long)groups, (unsigned)desc->n,
                       (unsigned long long)p->v[P_VW] * p->v[P_EPI] * p->v[P_WG],
                       (unsigned)d->props.limits.maxComputeWorkGroupCount[0]);
    if (groups * p->v[P_WG] > desc->n)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "work-group of %u exceeds the n=%u words the kernel moves",
                       (unsigned)p->v[P_WG], (unsigned)desc->n);
    if (p->n > P_SRC && p->v[P_SRC])
        return texel_read_check(d, desc->n, p->v[P_VW], err, errlen);
    return FF_OK;
}
