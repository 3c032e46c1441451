/*
 * backends/vulkan/vk_ops_tuning.c — the tuning spaces of the op kernels that have a choice
 * worth searching (ff_kernel_space): GEMV (work-group size, rows of W and rows of X per
 * work-group, blocks per step) and attention, decode and prefill (work-group size, queries sharing one pass
 * over K and V), their legality checks and default points.
 *
 * Defaults follow device properties, not a table: on a CPU device (lavapipe runs one
 * work-group per thread, its invocations as the lanes of one SIMD batch of the subgroup
 * size) a work-group is one subgroup and owns 16 rows of W, so each unit of X is fetched once
 * for 16 rows; on a GPU a work-group is 64 invocations or one subgroup, whichever is larger,
 * with 2 rows; one block per step (chunk=4, four blocks and one fetch for their scales, is
 * in the space for devices where it pays). Rows per work-group shrink until the dispatch has at least 64 work-groups.
 * Attention: one subgroup per work-group (its merge then needs no shared memory) and up to 4
 * queries per work-group, as many as keep their query and output rows within 512 floats.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vk_internal.h"

enum { G_WG, G_ROWS, G_MT, G_CHUNK, G_N };
enum { D_WG, D_GB, D_VL = FFVK_DECODE_VL, D_PARTS, D_N };

static const struct ff_tune_param gemv_params[G_N] = {
    [G_WG] = {"wg", 7, {4, 8, 16, 32, 64, 128, 256}},
    [G_ROWS] = {"rows", 5, {1, 2, 4, 8, 16}},
    [G_MT] = {"mt", 3, {1, 2, 4}},
    [G_CHUNK] = {"chunk", 2, {1, 4}},
};
static const struct ff_tune_param decode_params[D_N] = {
    [D_WG] = {"wg", 7, {4, 8, 16, 32, 64, 128, 256}},
    [D_GB] = {"gb", 4, {1, 2, 4, 8}},
    [D_VL] = {"vl", 2, {0, 1}},
    /* work-groups per query-row group, each a slice of the positions, merged by the last */
    [D_PARTS] = {"parts", 7, {1, 2, 4, 8, 16, 32, 64}},
};
/* prefill: a work-group's consecutive query positions, up to the build's MAX_GB */
static const struct ff_tune_param prefill_params[D_VL] = {
    [D_WG] = {"wg", 7, {4, 8, 16, 32, 64, 128, 256}},
    [D_GB] = {"gb", 3, {1, 2, 4}},
};

/* Shader arrays the builds are compiled with (ops_gemv.comp, ops_attn_*.comp). */
#define GEMV_MAX_R     16
#define GEMV_MAX_MT    4
#define ATTN_MAX_D     256
#define ATTN_MAX_GB    4
#define ATTN_VL_MAX_GB 8 /* FF_VLANES */
#define ATTN_VL_MIN_LS 8 /* its MIN_LS */

static uint32_t max_wg(const struct ffvk_device *d)
{
    uint32_t m = d->props.limits.maxComputeWorkGroupInvocations;
    return m < d->props.limits.maxComputeWorkGroupSize[0]
               ? m
               : d->props.limits.maxComputeWorkGroupSize[0];
}

static bool is_cpu(const struct ffvk_device *d)
{
    return d->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
}

/* The smallest power of two of the wg list >= v, capped by the device. */
static uint32_t pick_wg(const struct ffvk_device *d, uint32_t v)
{
    uint32_t wg = 4;
    while (wg < v && wg < 256)
        wg *= 2;
    while (wg > max_wg(d) && wg > 4)
        wg /= 2;
    return wg;
}

/* Four consecutive blocks per invocation and step (their scales in one texel): the block
 * formats, with rows of a multiple of four blocks. */
static bool chunk_ok(const struct ff_kernel_desc *desc)
{
    return (desc->prec == FF_PREC_Q4_0 || desc->prec == FF_PREC_Q8_0) && desc->k % 128 == 0;
}

uint32_t ffvk_attn_parts(const struct ff_tune_point *p)
{
    return p->n > D_PARTS && p->v[D_PARTS] > 1 ? p->v[D_PARTS] : 1;
}

/* The host's online CPUs (lavapipe runs a work-group per core). */
static uint64_t host_cpus(void)
{
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (uint64_t)n : 1;
}

/* Why desc's decode cannot take the values across the lanes (NULL: it can): a wide build, and
 * one subgroup size every pipeline gets (the shader's LS). Only decode's space has vl. */
static const char *vlanes_unfit(const struct ffvk_device *d, const struct ff_kernel_desc *desc)
{
    if (ffvk_attn_build(desc) == 2)
        return "the values across the lanes need whole uvec4 texels a row (head dim a multiple "
               "of 4 fp32 or 8 fp16/bf16)";
    if (!d->subgroup_shuffle)
        return "the device offers no subgroup shuffles and votes, which spread the values";
    if (ffvk_op_min_subgroup(d) != d->subgroup_size || d->subgroup_size % ATTN_VL_MIN_LS)
        return "the values across the lanes need a fixed subgroup size, a multiple of 8";
    const uint32_t texels = desc->k / (desc->prec == FF_PREC_FP32 ? 4 : 8);
    if (texels % d->subgroup_size)
        return "the values across the lanes need a row's uvec4 texels a multiple of the "
               "subgroup size";
    return NULL;
}

uint32_t ffvk_op_min_subgroup(const struct ffvk_device *d)
{
    /* Vulkan 1.3 tells the smallest subgroup a pipeline may get; before it, drivers use the
     * reported size. */
    if (d->props.apiVersion >= VK_API_VERSION_1_3) {
        VkPhysicalDeviceSubgroupSizeControlProperties sc = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
        VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                          .pNext = &sc};
        d->fn->vkGetPhysicalDeviceProperties2(d->phys, &p2);
        if (sc.minSubgroupSize)
            return sc.minSubgroupSize;
    }
    return d->subgroup_size ? d->subgroup_size : 1;
}

uint32_t ffvk_op_subgroups(const struct ffvk_device *d, uint32_t wg)
{
    uint32_t s = ffvk_op_min_subgroup(d);
    return (wg + s - 1) / s;
}

void ffvk_op_default(const struct ffvk_device *d, const struct ff_kernel_desc *desc,
                     struct ff_tune_point *p)
{
    memset(p, 0, sizeof(*p));
    const uint32_t wg =
        pick_wg(d, is_cpu(d) ? d->subgroup_size : (d->subgroup_size > 64 ? d->subgroup_size : 64));
    switch (desc->id) {
    case FF_KERNEL_GEMV: {
        uint32_t rows = is_cpu(d) ? 16 : 2;
        while (rows > 1 && (desc->n + rows - 1) / rows < 64)
            rows /= 2;
        p->n = G_N;
        p->v[G_WG] = wg;
        p->v[G_ROWS] = rows;
        p->v[G_MT] = desc->m >= 3 ? 4 : desc->m;
        p->v[G_CHUNK] = 1; /* 4 measured 15-30% slower on lavapipe (a 4x unrolled body) */
        break;
    }
    case FF_KERNEL_ATTN_DECODE:
    case FF_KERNEL_ATTN_PREFILL: {
        /* decode: query rows of one KV head (gb divides g); prefill: consecutive positions */
        const bool decode = desc->id == FF_KERNEL_ATTN_DECODE;
        uint32_t gb = 4;
        while (gb > 1 && ((decode && desc->g % gb) || (uint64_t)gb * desc->k > 512))
            gb /= 2;
        p->n = decode ? D_N : D_VL;
        p->v[D_WG] = pick_wg(d, d->subgroup_size); /* one subgroup: no shared-memory merge */
        p->v[D_GB] = gb;
        if (decode) {
            /* vl=0: vl=1 ran faster or slower by shape and Mesa version (lavapipe, Mesa 22.3:
             * g8 and g1 1.3-1.6x faster, g4 d128 L4096 1.25-1.5x slower; Mesa 25.0: 1.4x
             * faster at g4 and g8, doc/measurements/2026-12-06-measure-the-job-8.md): left
             * to the search */
            p->v[D_VL] = 0;
            /* Several work-groups per group of query rows while there are fewer groups than
             * the device runs at once, each part at least 512 positions. Vulkan reports no
             * compute-unit count: a CPU device runs one group per core; on a GPU, 256 groups
             * give two per unit to the largest of 2024 (132 SMs, 104-128 CUs). */
            const uint64_t want = is_cpu(d) ? host_cpus() : 256;
            const uint32_t groups = desc->m / gb;
            uint32_t parts = 1;
            while (parts < 64 && (uint64_t)groups * parts < want && desc->n / (parts * 2) >= 512)
                parts *= 2;
            p->v[D_PARTS] = parts;
        }
        break;
    }
    default: break;
    }
}

int ffvk_op_space(const struct ffvk_device *d, const struct ff_kernel_desc *desc,
                  struct ff_tune_space *out, uint64_t *source_hash, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    switch (desc->id) {
    case FF_KERNEL_GEMV:
        out->n_params = G_N;
        memcpy(out->param, gemv_params, sizeof(gemv_params));
        break;
    case FF_KERNEL_ATTN_DECODE:
        out->n_params = D_N;
        memcpy(out->param, decode_params, sizeof(decode_params));
        break;
    case FF_KERNEL_ATTN_PREFILL:
        out->n_params = D_VL;
        memcpy(out->param, prefill_params, sizeof(prefill_params));
        break;
    default:
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "the Vulkan backend declares no tuning space for this op");
    }
    ffvk_op_default(d, desc, &out->dflt);
    /* the builds the space's points run: decode's of vl=0 and of vl=1 */
    struct ff_kernel_desc at = *desc;
    at.tune = out->dflt;
    size_t bytes = 0;
    if (desc->id == FF_KERNEL_ATTN_DECODE)
        at.tune.v[D_VL] = 0;
    const uint32_t *code = ffvk_op_code(&at, &bytes);
    *source_hash = ff_tune_hash(FF_TUNE_HASH_INIT, code, code ? bytes : 0);
    if (desc->id == FF_KERNEL_ATTN_DECODE) {
        at.tune.v[D_VL] = 1;
        const uint32_t *vcode = ffvk_op_code(&at, &bytes);
        if (vcode != code)
            *source_hash = ff_tune_hash(*source_hash, vcode, bytes);
    }
    return FF_OK;
}

int ffvk_op_point_check(const struct ffvk_device *d, const struct ff_kernel_desc *desc, char *err,
                        size_t errlen)
{
    const struct ff_tune_point *p = &desc->tune;
    const uint32_t wg = p->v[0];
    if (wg > max_wg(d))
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "work-group of %u exceeds the device's maximum of %u", wg, max_wg(d));
    const uint64_t shared_max = d->props.limits.maxComputeSharedMemorySize;
    const uint32_t sgs = ffvk_op_subgroups(d, wg);
    uint64_t shared = 0;
    switch (desc->id) {
    case FF_KERNEL_GEMV:
        shared = (uint64_t)GEMV_MAX_R * GEMV_MAX_MT * sgs * 4;
        if (p->v[G_MT] > desc->m && p->v[G_MT] > 1 && desc->m < 3)
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "mt=%u rows of X per work-group, but m is %u", p->v[G_MT], desc->m);
        if (p->v[G_CHUNK] > 1 && !chunk_ok(desc))
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "chunk=%u blocks per step needs q8_0 or q4_0 weights and k a multiple "
                           "of %u, got %s and k=%u",
                           p->v[G_CHUNK], 32 * p->v[G_CHUNK], ff_precision_name(desc->prec),
                           desc->k);
        break;
    case FF_KERNEL_ATTN_DECODE:
    case FF_KERNEL_ATTN_PREFILL:
        if (desc->id == FF_KERNEL_ATTN_DECODE && desc->g % p->v[D_GB])
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "gb=%u query rows per work-group must divide g=%u", p->v[D_GB], desc->g);
        if (ffvk_attn_vlanes(p)) {
            const char *why = vlanes_unfit(d, desc);
            if (why)
                return ff_errf(err, errlen, FF_ERR_UNSUPPORTED, "vl=1: %s", why);
            if (wg % d->subgroup_size)
                return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                               "vl=1 takes whole subgroups: a work-group of %u is not a multiple "
                               "of the subgroup size %u",
                               wg, d->subgroup_size);
        } else if (p->v[D_GB] > ATTN_MAX_GB)
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "gb=%u query rows per work-group: up to %u but in decode's vl=1",
                           p->v[D_GB], ATTN_MAX_GB);
        /* sh_o, sh_m and sh_l at the build's MAX_D (128 or 256) */
        shared = (uint64_t)(ffvk_attn_vlanes(p) ? ATTN_VL_MAX_GB : ATTN_MAX_GB) * sgs *
                 ((ffvk_attn_build(desc) == 0 ? 128 : ATTN_MAX_D) + 2) * 4;
        break;
    default: break;
    }
    if (shared > shared_max)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "a work-group of %u (up to %u subgroups) needs %llu bytes of shared "
                       "memory; the device has %llu",
                       wg, sgs, (unsigned long long)shared, (unsigned long long)shared_max);
    return FF_OK;
}
