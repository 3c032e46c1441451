/*
 * backends/vulkan/vk_mem_tuning.c — the bandwidth kernels' tuning space (mem.comp): bytes per
 * access unit, units per invocation, grid stride or contiguous blocks, work-group size.
 *
 * The ranges cover GPUs and CPUs: 4-, 16-, 32- and 64-byte units (a uvec4 per lane is the
 * widest single load GLSL has; 64 bytes is a CPU cache line; a uint per lane is what a driver
 * that vectorises across invocations, like lavapipe's llvmpipe, turns into one wide load), 1 to 256 units per invocation, and work-groups of 32 to 1024 (NVIDIA warps of
 * 32, AMD wavefronts of 64, Intel subgroups of 8-32; 64-256 the usual GPU range).
 *
 * The default point is what flopfit built before this space existed: uvec4 units grid-strided
 * over work-groups of 256 (clamped to the device's limits), the dispatch capped near 4096
 * work-groups: units per invocation = the smallest power of two that keeps it there.
 */
#include <stdio.h>
#include <string.h>

#include "vk_internal.h"

#include "vk_mem_copy.h"
#include "vk_mem_copy_s.h"
#include "vk_mem_read.h"
#include "vk_mem_read_s.h"
#include "vk_mem_triad.h"
#include "vk_mem_triad_s.h"
#include "vk_mem_write.h"
#include "vk_mem_write_s.h"

enum { P_VW, P_EPI, P_LAYOUT, P_WG, N_PARAMS };

static const struct ff_tune_param mem_params[N_PARAMS] = {
    [P_VW] = {"vw", 4, {1, 4, 8, 16}},
    [P_EPI] = {"epi", 9, {1, 2, 4, 8, 16, 32, 64, 128, 256}},
    [P_LAYOUT] = {"layout", 2, {0, 1}},
    [P_WG] = {"wg", 6, {32, 64, 128, 256, 512, 1024}},
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

void ffvk_mem_default(const struct ffvk_device *d, uint32_t n, struct ff_tune_point *p)
{
    memset(p, 0, sizeof(*p));
    p->n = N_PARAMS;
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
}

/* Work-groups the point dispatches over n words. */
uint64_t ffvk_mem_groups(const struct ff_tune_point *p, uint32_t n)
{
    uint64_t units = (uint64_t)n / p->v[P_VW];
    uint64_t per_group = (uint64_t)p->v[P_WG] * p->v[P_EPI];
    return (units + per_group - 1) / per_group;
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
    out->n_params = N_PARAMS;
    memcpy(out->param, mem_params, sizeof(mem_params));
    ffvk_mem_default(d, desc->n, &out->dflt);
    /* mem.comp's source is compiled at build time: its SPIR-V (both element types) stands for
     * it. */
    const int i = desc->id - FF_KERNEL_MEM_READ;
    *source_hash = ff_tune_hash(ff_tune_hash(FF_TUNE_HASH_INIT, spv[i].code, spv[i].bytes),
                                spv[i].scalar, spv[i].scalar_bytes);
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
    return FF_OK;
}
