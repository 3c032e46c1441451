/*
 * backends/vulkan/vk_tuning.c — which matmul kernel and which tiles on this device: the
 * per-device-kind register tiles, the per-vendor shared-memory tiles and the path choice,
 * each overridable through a device option (struct ff_device_options; the front-end reads the
 * FF_VK_* environment variables, never this file); and the matmul tuning space: its
 * parameters, its default (the tables' choice) and which points the device can build. A point
 * given in ff_kernel_desc.tune wins over the tables and options. Pure choices: nothing here
 * creates a Vulkan object.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "vk_internal.h"

#include "vk_matmul_f16.h"
#include "vk_matmul_f32.h"
#include "vk_matmul_i8.h"
#include "vk_matmul_sg_f16.h"
#include "vk_matmul_sg_f32.h"
#include "vk_matmul_sg_i8.h"
#include "vk_matmul_shared_f16.h"
#include "vk_matmul_shared_f32.h"
#include "vk_matmul_shared_i8.h"
#include "vk_matmul_tex_f16.h"
#include "vk_matmul_tex_f32.h"
#include "vk_matmul_tex_i8.h"
#include "vk_matmul_tex_sg_f16.h"
#include "vk_matmul_tex_sg_f32.h"
#include "vk_matmul_tex_sg_i8.h"

/* The SPIR-V of each register/shared matmul kernel (shaders/vulkan/matmul*.comp): built by
 * vk_pipeline.c, hashed into the space's key here. */
const uint32_t *ffvk_mm_code(enum ff_precision prec, enum ffvk_mm_path path, bool sga,
                             size_t *bytes)
{
#define PICK(p)                                                                                    \
    do {                                                                                           \
        if (path == FFVK_MM_SHARED) {                                                              \
            *bytes = sizeof(ff_vk_spv_matmul_shared_##p);                                          \
            return ff_vk_spv_matmul_shared_##p;                                                    \
        }                                                                                          \
        if (path == FFVK_MM_TEXEL) {                                                               \
            *bytes = sga ? sizeof(ff_vk_spv_matmul_tex_sg_##p) : sizeof(ff_vk_spv_matmul_tex_##p); \
            return sga ? ff_vk_spv_matmul_tex_sg_##p : ff_vk_spv_matmul_tex_##p;                   \
        }                                                                                          \
        *bytes = sga ? sizeof(ff_vk_spv_matmul_sg_##p) : sizeof(ff_vk_spv_matmul_##p);             \
        return sga ? ff_vk_spv_matmul_sg_##p : ff_vk_spv_matmul_##p;                               \
    } while (0)
    switch (prec) {
    case FF_PREC_FP16: PICK(f16);
    case FF_PREC_INT8: PICK(i8);
    default: PICK(f32);
    }
#undef PICK
}

/* Register block on CPU devices (lavapipe) without a fixed-size subgroup, see
 * ffvk_pick_tiles(). */
#define FF_VK_CPU_TM  8
#define FF_VK_CPU_TN4 4
#define FF_VK_CPU_WX  8
#define FF_VK_CPU_WY  1

/*
 * Register block on CPU devices with a fixed subgroup size and shuffles (lavapipe: 8 lanes),
 * A shared over the subgroup (sga), work-groups of several subgroup rows. On llvmpipe a texel
 * fetch is a call (every vector register spilled around it) and each 8-lane subgroup runs the
 * whole shader before the next one starts, except at a barrier: with wy > 1 the texel kernel
 * meets a barrier after every block of k, so the wy subgroups that share a column strip take
 * turns on the same rows of B while they are still in L1 (matmul.comp). Chosen by search
 * (tests/vulkan/bench_matmul --point, fp32 n=1024, each as a fraction of the fp32 peak measured
 * in the same round, three rounds; 2026-12-01, 2-core Xeon model 207): 16x8 in 32x4 groups
 * 0.71-0.75, 16x8/16x4 0.71-0.74, 16x8/16x8 0.71-0.73, 12x16/16x4 0.69-0.72, 16x8/8x8
 * 0.69-0.72, 12x16/8x4 0.68-0.69; the former default 12x16 in 16x1 groups 0.51-0.62 and, before
 * the barrier, 16x8/16x1 0.63-0.66. fp16 and int8, same rounds: 56.8-57.9 GFLOP/s and
 * 52.0-55.2 GOP/s against 46.0-47.5 and 51.6-52.1 for 12x16/16x1. A subgroup needs wx a
 * multiple of its size.
 */
#define FF_VK_CPU_SGA_TM  16
#define FF_VK_CPU_SGA_TN4 2
#define FF_VK_CPU_SGA_WX  32
#define FF_VK_CPU_SGA_WY  4

/* ---- register tiles (matmul.comp) --------------------------------------------- */

/*
 * Chosen per device kind; measured on lavapipe (tests/vulkan/bench_matmul),
 * orientation values elsewhere (a 8x8 block per invocation, 16x16
 * invocations = 128x128 C tile per work-group is the classic starting point
 * on NVIDIA/AMD/Intel GPUs without shared memory). GPUs run the
 * shared-memory kernel by default (sh_table below); these GPU rows are
 * reached with vk_matmul_path=storage (FF_VK_MATMUL_PATH).
 */
struct ffvk_mm_tiles ffvk_pick_tiles(const struct ffvk_device *d, enum ff_precision prec)
{
    struct ffvk_mm_tiles t;
    switch (d->props.deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
        /* lavapipe: a buffer load costs many FMAs; the largest block that
         * stays in registers wins. */
        t = (struct ffvk_mm_tiles){FF_VK_CPU_TM, FF_VK_CPU_TN4, FF_VK_CPU_WX, FF_VK_CPU_WY};
        break;
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
        t = (struct ffvk_mm_tiles){8, 2, 16, 16};
        if (d->props.vendorID == 0x1002) /* AMD: wave64 wants 64-wide rows */
            t = (struct ffvk_mm_tiles){8, 2, 32, 8};
        break;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: t = (struct ffvk_mm_tiles){4, 2, 16, 8}; break;
    default: t = (struct ffvk_mm_tiles){4, 1, 8, 8}; break;
    }
    (void)prec;
    /* The vk_tiles option (FF_VK_TILES) "tm,tn4,wx,wy" overrides the table (tuning on a new
     * device) */
    const char *env = d->base.opts.vk_tiles;
    struct ffvk_mm_tiles e;
    if (env[0] && sscanf(env, "%u,%u,%u,%u", &e.tm, &e.tn4, &e.wx, &e.wy) == 4 && e.tm >= 1 &&
        e.tm <= 64 && e.tn4 >= 1 && e.tn4 <= 4 && e.wx >= 1 && e.wy >= 1)
        t = e;
    /* stay inside the device's work-group limits */
    const VkPhysicalDeviceLimits *l = &d->props.limits;
    while (t.wx * t.wy > l->maxComputeWorkGroupInvocations ||
           t.wx > l->maxComputeWorkGroupSize[0] || t.wy > l->maxComputeWorkGroupSize[1]) {
        if (t.wy > 1 && t.wy >= t.wx)
            t.wy /= 2;
        else if (t.wx > 1)
            t.wx /= 2;
        else
            break;
    }
    return t;
}

/* Texel-buffer format holding 4 consecutive elements of A or B. */
VkFormat ffvk_texel_format(enum ff_precision prec)
{
    return prec == FF_PREC_FP16   ? VK_FORMAT_R16G16B16A16_SFLOAT
           : prec == FF_PREC_INT8 ? VK_FORMAT_R8G8B8A8_SINT
                                  : VK_FORMAT_R32G32B32A32_SFLOAT;
}

/* Can A and B be read through texel buffers on this device and shape? */
static bool texel_ok(const struct ffvk_device *d, const struct ff_kernel_desc *desc)
{
    VkFormatProperties fp;
    d->fn->vkGetPhysicalDeviceFormatProperties(d->phys, ffvk_texel_format(desc->prec), &fp);
    if (!(fp.bufferFeatures & VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT))
        return false;
    uint64_t texels_a = (uint64_t)desc->m * desc->k / 4, texels_b = (uint64_t)desc->k * desc->n / 4;
    uint64_t max = d->props.limits.maxTexelBufferElements;
    return texels_a <= max && texels_b <= max;
}

/* ---- shared-memory tiles (matmul_shared.comp) -------------------------------- */

#define SH_MAX_LD 4 /* MAX_LD in matmul_shared.comp: vec4 loads per invocation and slab */

/*
 * Per vendor. Orientation values from the usual SGEMM designs (not measured
 * here: no GPU on the build machine; FF_VK_SHARED_TILES tunes on a device):
 *   nvidia   128x128 tile, 256 invocations of 8x8, BK=16: 64 accumulators
 *            (~128 registers, 2 work-groups/SM), 32.5 KiB double-buffered
 *            shared memory (< the 48 KiB Vulkan exposes), 2+2 vec4 loads per
 *            invocation and slab, 8 FMAs per shared load.
 *   amd      128x128, 256 invocations (4 wave64) of 8x8, BK=8: 16.3 KiB of LDS
 *            so 3 work-groups fit a GCN CU's 64 KiB (1 would at BK=16).
 *   intel    64x64, 128 invocations of 8x4, BK=16: Xe threads have 128 GRF
 *            (64 fp32 per SIMD16 lane); an 8x8 block would spill. 16.5 KiB.
 *   fallback 64x64, 128 invocations of 8x4, BK=8: 8.3 KiB, inside the
 *            Vulkan minimums (16 KiB shared, 128 invocations).
 */
static const struct ffvk_sh_tiles sh_table[] = {
    {128, 128, 16, 8, 8, "nvidia"},
    {128, 128, 8, 8, 8, "amd"},
    {64, 64, 16, 8, 4, "intel"},
    {64, 64, 8, 8, 4, "fallback"},
};
enum { SH_NVIDIA, SH_AMD, SH_INTEL, SH_FALLBACK };

uint32_t ffvk_sh_invocations(const struct ffvk_sh_tiles *t)
{
    return (t->bm / t->tm) * (t->bn / t->tn);
}

uint64_t ffvk_sh_bytes(const struct ffvk_sh_tiles *t)
{
    /* two slabs of As[bk][bm/4 + 1] and Bs[bk][bn/4], 16-byte vec4 each
     * (fp16 and int8 are widened to fp32 / int32 in shared memory) */
    return 2ull * t->bk * (t->bm / 4 + 1 + t->bn / 4) * 16;
}

static bool sh_fits(const struct ffvk_device *d, const struct ffvk_sh_tiles *t)
{
    const VkPhysicalDeviceLimits *l = &d->props.limits;
    if ((t->tm != 4 && t->tm != 8) || (t->tn != 4 && t->tn != 8))
        return false;
    if (t->bk < 4 || t->bk > 64 || t->bk % 4 || t->bm == 0 || t->bn == 0 || t->bm > 512 ||
        t->bn > 512 || t->bm % t->tm || t->bn % t->tn)
        return false;
    uint32_t wg = ffvk_sh_invocations(t);
    if (wg > l->maxComputeWorkGroupInvocations || wg > l->maxComputeWorkGroupSize[0])
        return false;
    if ((uint64_t)t->bm * (t->bk / 4) > (uint64_t)SH_MAX_LD * wg ||
        (uint64_t)t->bk * (t->bn / 4) > (uint64_t)SH_MAX_LD * wg)
        return false;
    return ffvk_sh_bytes(t) <= l->maxComputeSharedMemorySize;
}

/* Shrink the k-slab until the tiles fit the device; false when they never do. */
static bool sh_fit(const struct ffvk_device *d, struct ffvk_sh_tiles *t)
{
    while (!sh_fits(d, t) && t->bk > 4 && t->bk % 8 == 0)
        t->bk /= 2;
    return sh_fits(d, t);
}

/*
 * Tiles for this device: the vendor's entry; the vk_shared_tiles option (FF_VK_SHARED_TILES)
 * overrides it
 * with an entry's name (nvidia, amd, intel, fallback) or bm,bn,bk,tm,tn
 * (tuning on a new device; the tests use it to run every entry on lavapipe).
 * False when not even the fallback fits (then the storage kernel runs).
 */
static bool pick_shared(const struct ffvk_device *d, struct ffvk_sh_tiles *out)
{
    int idx = SH_FALLBACK;
    if (d->props.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU) {
        switch (d->props.vendorID) {
        case 0x10de: idx = SH_NVIDIA; break;
        case 0x1002: idx = SH_AMD; break;
        case 0x8086: idx = SH_INTEL; break;
        default: break;
        }
    }
    struct ffvk_sh_tiles t = sh_table[idx];
    const char *env = d->base.opts.vk_shared_tiles;
    if (env[0]) {
        struct ffvk_sh_tiles e = {0, 0, 0, 0, 0, "env"};
        for (size_t i = 0; i < sizeof(sh_table) / sizeof(sh_table[0]); i++)
            if (strcmp(env, sh_table[i].name) == 0)
                e = sh_table[i];
        if (e.bm || sscanf(env, "%u,%u,%u,%u,%u", &e.bm, &e.bn, &e.bk, &e.tm, &e.tn) == 5)
            t = e;
    }
    if (sh_fit(d, &t)) {
        *out = t;
        return true;
    }
    t = sh_table[SH_FALLBACK];
    if (sh_fit(d, &t)) {
        *out = t;
        return true;
    }
    return false;
}

/*
 * Which matmul kernel:
 *   shared   shared-memory tiling (matmul_shared.comp): GPUs by default.
 *   texel    register blocking, A and B via texel buffers: CPU devices. On
 *            lavapipe a storage-buffer load is a loop over the SIMD lanes
 *            with a bounds check each, while a texel fetch is a vector
 *            gather: measured several times faster there (bench_matmul).
 *   storage  register blocking, storage-buffer loads (the earlier GPU
 *            kernel; also where texel does not apply: K or N not /4).
 * The vk_matmul_path option (FF_VK_MATMUL_PATH) shared|texel|storage overrides the default.
 */
enum ffvk_mm_path ffvk_pick_path(const struct ffvk_device *d, const struct ff_kernel_desc *desc,
                                 bool aligned, struct ffvk_sh_tiles *sh)
{
    const char *env = d->base.opts.vk_matmul_path;
    enum ffvk_mm_path want =
        d->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? FFVK_MM_TEXEL : FFVK_MM_SHARED;
    if (env && strcmp(env, "texel") == 0)
        want = FFVK_MM_TEXEL;
    else if (env && strcmp(env, "storage") == 0)
        want = FFVK_MM_STORAGE;
    else if (env && strcmp(env, "shared") == 0)
        want = FFVK_MM_SHARED;
    if (want == FFVK_MM_SHARED)
        return pick_shared(d, sh) ? FFVK_MM_SHARED : FFVK_MM_STORAGE;
    if (want == FFVK_MM_TEXEL)
        return aligned && texel_ok(d, desc) ? FFVK_MM_TEXEL : FFVK_MM_STORAGE;
    return FFVK_MM_STORAGE;
}

/* ---- the tuning space (ff_kernel_space) ------------------------------------------ */

/*
 * One space for the three kernels and the three precisions. A point names the path and the
 * block each invocation computes (tm x tn), the work-group (wx x wy), the shared-memory k-slab
 * (bk, shared path only, 0 otherwise) and sga (register paths: A shared over the subgroup).
 * The shared path's work-group tile is bm = tm * wy rows by bn = tn * wx columns, so the same
 * names mean the same thing on every path. The values cover real GPUs (work-groups up to 256
 * in one dimension, 64-256 invocations; 128x128 tiles: tm = tn = 8, wx = wy = 16) as well as
 * lavapipe (8-wide SIMD over invocations: a row of 8).
 */
enum { P_PATH, P_TM, P_TN, P_WX, P_WY, P_BK, P_SGA, P_COUNT };
static const struct ff_tune_param mm_params[P_COUNT] = {
    {"path", 3, {FFVK_MM_STORAGE, FFVK_MM_TEXEL, FFVK_MM_SHARED}},
    {"tm", 10, {1, 2, 3, 4, 5, 6, 7, 8, 12, 16}},
    {"tn", 4, {4, 8, 12, 16}},
    {"wx", 9, {1, 2, 4, 8, 16, 32, 64, 128, 256}},
    {"wy", 9, {1, 2, 4, 8, 16, 32, 64, 128, 256}},
    {"bk", 5, {0, 4, 8, 16, 32}},
    {"sga", 2, {0, 1}},
};

static bool in_list(const struct ff_tune_param *p, uint32_t v)
{
    for (uint32_t i = 0; i < p->n_values; i++)
        if (p->values[i] == v)
            return true;
    return false;
}

/*
 * The subgroup size every compute invocation of this device runs in, for sga: 0 (reason in
 * why) when compute shaders lack subgroup shuffles or the size may vary (Intel, AMD: minimum
 * and maximum differ), or the device does not say (before Vulkan 1.3's size control).
 */
static uint32_t fixed_subgroup(const struct ffvk_device *d, char *why, size_t whylen)
{
    VkPhysicalDeviceSubgroupSizeControlProperties ctl = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
    bool v13 = d->props.apiVersion >= VK_API_VERSION_1_3;
    VkPhysicalDeviceSubgroupProperties sub = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES, .pNext = v13 ? &ctl : NULL};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                      .pNext = &sub};
    d->fn->vkGetPhysicalDeviceProperties2(d->phys, &p2);
    if (!(sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) ||
        !(sub.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT)) {
        snprintf(why, whylen, "the device has no subgroup shuffles in compute shaders");
        return 0;
    }
    if (!v13) {
        snprintf(why, whylen,
                 "the device (Vulkan before 1.3) does not say whether its "
                 "subgroup size is fixed");
        return 0;
    }
    if (ctl.minSubgroupSize != ctl.maxSubgroupSize || ctl.minSubgroupSize == 0) {
        snprintf(why, whylen, "the subgroup size may vary (%u to %u)", ctl.minSubgroupSize,
                 ctl.maxSubgroupSize);
        return 0;
    }
    return ctl.minSubgroupSize;
}

/* The configuration a point of the space describes (no checks). */
static void point_config(const struct ff_tune_point *p, bool aligned, uint32_t sg,
                         struct ffvk_mm_config *c)
{
    memset(c, 0, sizeof(*c));
    c->path = (enum ffvk_mm_path)p->v[P_PATH];
    c->aligned = aligned;
    c->from_point = true;
    if (c->path == FFVK_MM_SHARED) {
        c->sh = (struct ffvk_sh_tiles){p->v[P_TM] * p->v[P_WY],
                                       p->v[P_TN] * p->v[P_WX],
                                       p->v[P_BK],
                                       p->v[P_TM],
                                       p->v[P_TN],
                                       "tuned"};
    } else {
        c->t = (struct ffvk_mm_tiles){p->v[P_TM], p->v[P_TN] / 4, p->v[P_WX], p->v[P_WY]};
        c->sg = p->v[P_SGA] ? sg : 0;
    }
}

/* The point of a configuration; n == 0 when a device option chose values outside the space. */
static struct ff_tune_point config_point(const struct ffvk_mm_config *c)
{
    struct ff_tune_point p = {.n = P_COUNT};
    p.v[P_PATH] = (uint32_t)c->path;
    if (c->path == FFVK_MM_SHARED) {
        p.v[P_TM] = c->sh.tm;
        p.v[P_TN] = c->sh.tn;
        p.v[P_WX] = c->sh.bn / c->sh.tn;
        p.v[P_WY] = c->sh.bm / c->sh.tm;
        p.v[P_BK] = c->sh.bk;
    } else {
        p.v[P_TM] = c->t.tm;
        p.v[P_TN] = c->t.tn4 * 4;
        p.v[P_WX] = c->t.wx;
        p.v[P_WY] = c->t.wy;
        p.v[P_SGA] = c->sg != 0;
    }
    for (uint32_t i = 0; i < P_COUNT; i++)
        if (!in_list(&mm_params[i], p.v[i]))
            return (struct ff_tune_point){0};
    return p;
}

/* The bytes a matmul reads from A and B and writes to C. */
static void mm_bytes(const struct ff_kernel_desc *desc, uint64_t b[3])
{
    uint64_t in = ff_matmul_in_bytes(desc->prec), out = ff_matmul_out_bytes(desc->prec);
    b[0] = (uint64_t)desc->m * desc->k * in;
    b[1] = (uint64_t)desc->k * desc->n * in;
    b[2] = (uint64_t)desc->m * desc->n * out;
}

/* Whether configuration c builds and runs desc on d: FF_OK or FF_ERR_UNSUPPORTED, reason in
 * err. The same rules for points of the space and for the tables' choice. */
static int config_check(const struct ffvk_device *d, const struct ff_kernel_desc *desc,
                        const struct ffvk_mm_config *c, char *err, size_t errlen)
{
    const VkPhysicalDeviceLimits *l = &d->props.limits;
    uint64_t bytes[3];
    mm_bytes(desc, bytes);
    /* C is a storage buffer on every path, A and B except on the texel path */
    for (int i = c->path == FFVK_MM_TEXEL ? 2 : 0; i < 3; i++)
        if (bytes[i] > d->max_storage_range)
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "%c (%" PRIu64 " bytes) exceeds the device's storage-buffer binding "
                           "range of %" PRIu64 " bytes",
                           "ABC"[i], bytes[i], d -> max_storage_range);
    uint64_t gx, gy;
    if (c->path == FFVK_MM_SHARED) {
        const struct ffvk_sh_tiles *t = &c->sh;
        if ((t->tm != 4 && t->tm != 8) || (t->tn != 4 && t->tn != 8))
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "the shared-memory kernel takes tm and tn of 4 or 8 (got %ux%u)", t->tm,
                           t->tn);
        if (t->bk < 4 || t->bk % 4)
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "the shared-memory kernel needs a k-slab bk of a multiple of 4 "
                           "(bk=0 is for the register paths)");
        if (c->sg)
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "sga (A shared over the subgroup) is for the register paths");
        uint32_t wg = ffvk_sh_invocations(t);
        if (wg > l->maxComputeWorkGroupInvocations || wg > l->maxComputeWorkGroupSize[0])
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "%u invocations per work-group exceed the device's limit of %u "
                           "(one dimension: %u)",
                           wg, l->maxComputeWorkGroupInvocations, l->maxComputeWorkGroupSize[0]);
        if ((uint64_t)t->bm * (t->bk / 4) > (uint64_t)SH_MAX_LD * wg ||
            (uint64_t)t->bk * (t->bn / 4) > (uint64_t)SH_MAX_LD * wg)
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "a %ux%u slab of A or %ux%u of B needs more than %u vec4 loads per "
                           "invocation (%u invocations)",
                           t->bm, t->bk, t->bk, t->bn, SH_MAX_LD, wg);
        if (ffvk_sh_bytes(t) > l->maxComputeSharedMemorySize)
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "%" PRIu64 " bytes of shared memory exceed the device's %u",
                           ffvk_sh_bytes(t), l->maxComputeSharedMemorySize);
        gx = (desc->n + (uint64_t)t->bn - 1) / t->bn;
        gy = (desc->m + (uint64_t)t->bm - 1) / t->bm;
    } else {
        const struct ffvk_mm_tiles *t = &c->t;
        if (t->tm < 1 || t->tm > 64 || t->tn4 < 1 || t->tn4 > 4 || t->wx < 1 || t->wy < 1)
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "register tiles tm=%u (1..64), tn=%u (4..16), wx=%u, wy=%u (>= 1) "
                           "out of range",
                           t->tm, t->tn4 * 4, t->wx, t->wy);
        if ((uint64_t)t->wx * t->wy > l->maxComputeWorkGroupInvocations ||
            t->wx > l->maxComputeWorkGroupSize[0] || t->wy > l->maxComputeWorkGroupSize[1])
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "work-group %ux%u exceeds the device's limits (%u invocations, "
                           "%ux%u)",
                           t->wx, t->wy, l->maxComputeWorkGroupInvocations,
                           l->maxComputeWorkGroupSize[0], l->maxComputeWorkGroupSize[1]);
        if (c->path == FFVK_MM_TEXEL) {
            if (!c->aligned)
                return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                               "the texel-buffer kernel needs K and N multiples of 4 (got K=%u, "
                               "N=%u)",
                               desc->k, desc->n);
            VkFormatProperties fp;
            d->fn->vkGetPhysicalDeviceFormatProperties(d->phys, ffvk_texel_format(desc->prec), &fp);
            if (!(fp.bufferFeatures & VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT))
                return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                               "the device cannot read %s texel buffers of 4 elements",
                               desc->prec == FF_PREC_FP16   ? "fp16"
                               : desc->prec == FF_PREC_INT8 ? "int8"
                                                            : "fp32");
            uint64_t texels =
                (bytes[0] > bytes[1] ? bytes[0] : bytes[1]) / (4 * ff_matmul_in_bytes(desc->prec));
            if (texels > l->maxTexelBufferElements)
                return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                               "%" PRIu64 " texels exceed the device's texel-buffer limit of %u",
                               texels, l->maxTexelBufferElements);
        }
        if (c->sg) {
            if (!c->aligned)
                return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                               "sga (A shared over the subgroup) needs K and N multiples of 4");
            if (t->wx % c->sg || t->tm > 2 * c->sg)
                return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                               "sga shares A over subgroups of %u, each within one work-group "
                               "row: it needs wx a multiple of %u and tm <= %u (got wx=%u, "
                               "tm=%u)",
                               c->sg, c->sg, 2 * c->sg, t->wx, t->tm);
        }
        gx = ((desc->n + 3ull) / 4 + (uint64_t)t->wx * t->tn4 - 1) / ((uint64_t)t->wx * t->tn4);
        gy = (desc->m + (uint64_t)t->wy * t->tm - 1) / ((uint64_t)t->wy * t->tm);
    }
    if (gx > l->maxComputeWorkGroupCount[0] || gy > l->maxComputeWorkGroupCount[1])
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "%" PRIu64 "x%" PRIu64 " work-groups exceed the device's dispatch limit "
                       "of %ux%u",
                       gx, gy, l->maxComputeWorkGroupCount[0], l->maxComputeWorkGroupCount[1]);
    return FF_OK;
}

/* The tables' and device options' choice (what matmul built before the space existed). */
static void table_config(const struct ffvk_device *d, const struct ff_kernel_desc *desc,
                         struct ffvk_mm_config *c)
{
    memset(c, 0, sizeof(*c));
    c->aligned = desc->k % 4 == 0 && desc->n % 4 == 0;
    c->path = ffvk_pick_path(d, desc, c->aligned, &c->sh);
    if (c->path != FFVK_MM_SHARED) {
        c->t = ffvk_pick_tiles(d, desc->prec);
        c->sg = 0;
        /* CPU devices share A over the subgroup where they can; a vk_tiles option keeps the
         * kernel it always built (no sga) */
        char why[160];
        uint32_t sg;
        if (d->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU && !d->base.opts.vk_tiles[0] &&
            c->aligned && (sg = fixed_subgroup(d, why, sizeof(why))) != 0) {
            struct ffvk_mm_config s = *c;
            s.t = (struct ffvk_mm_tiles){FF_VK_CPU_SGA_TM, FF_VK_CPU_SGA_TN4,
                                         FF_VK_CPU_SGA_WX % sg ? sg : FF_VK_CPU_SGA_WX,
                                         FF_VK_CPU_SGA_WY};
            if (s.t.tm > 2 * sg)
                s.t.tm = 2 * sg;
            s.sg = sg;
            if (config_check(d, desc, &s, why, sizeof(why)) == FF_OK)
                *c = s;
        }
    }
}

int ffvk_matmul_space(const struct ffvk_device *d, const struct ff_kernel_desc *desc,
                      struct ff_tune_space *out, uint64_t *source_hash, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    out->n_params = P_COUNT;
    memcpy(out->param, mm_params, sizeof(mm_params));
    /* dflt: what a build without a point makes (tables and device options); the tables
     * alone when an option chose tiles outside the space */
    struct ffvk_mm_config c;
    table_config(d, desc, &c);
    out->dflt = config_point(&c);
    if (out->dflt.n == 0) {
        struct ffvk_device plain = *d;
        memset(&plain.base.opts, 0, sizeof(plain.base.opts));
        table_config(&plain, desc, &c);
        out->dflt = config_point(&c);
    }
    if (out->dflt.n == 0) /* the tables always fit the space; this is the last resort */
        out->dflt = (struct ff_tune_point){.n = P_COUNT, .v = {FFVK_MM_STORAGE, 4, 4, 8, 8}};
    /* the SPIR-V of every kernel the space reaches for this precision */
    for (int path = FFVK_MM_STORAGE; path <= FFVK_MM_SHARED; path++)
        for (int sga = 0; sga < (path == FFVK_MM_SHARED ? 1 : 2); sga++) {
            size_t bytes;
            const uint32_t *code = ffvk_mm_code(desc->prec, (enum ffvk_mm_path)path, sga, &bytes);
            *source_hash = ff_tune_hash(*source_hash, code, bytes);
        }
    return FF_OK;
}

int ffvk_matmul_point_check(const struct ffvk_device *d, const struct ff_kernel_desc *desc,
                            char *err, size_t errlen)
{
    const struct ff_tune_point *p = &desc->tune;
    bool aligned = desc->k % 4 == 0 && desc->n % 4 == 0;
    if (p->v[P_PATH] == FFVK_MM_SHARED ? p->v[P_SGA] != 0 : p->v[P_BK] != 0)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       p->v[P_PATH] == FFVK_MM_SHARED
                           ? "sga (A shared over the subgroup) is for the register paths; the "
                             "shared path takes sga=0"
                           : "bk (the shared-memory k-slab) is for the shared path; the "
                             "register paths take bk=0");
    uint32_t sg = 0;
    if (p->v[P_SGA]) {
        char why[160];
        if (!(sg = fixed_subgroup(d, why, sizeof(why))))
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "sga (A shared over the subgroup) needs a fixed subgroup size with "
                           "shuffles: %s",
                           why);
    }
    struct ffvk_mm_config c;
    point_config(p, aligned, sg, &c);
    return config_check(d, desc, &c, err, errlen);
}

int ffvk_mm_resolve(const struct ffvk_device *d, const struct ff_kernel_desc *desc,
                    struct ffvk_mm_config *cfg, struct ff_tune_point *point, char *err,
                    size_t errlen)
{
    bool aligned = desc->k % 4 == 0 && desc->n % 4 == 0;
    if (desc->tune.n) { /* the front-end checked it is a point of the space and legal here */
        uint32_t sg = 0;
        char why[160];
        if (desc->tune.v[P_SGA] && !(sg = fixed_subgroup(d, why, sizeof(why))))
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED, "sga: %s", why);
        point_config(&desc->tune, aligned, sg, cfg);
        *point = desc->tune;
    } else {
        table_config(d, desc, cfg);
        *point = config_point(cfg);
    }
    return config_check(d, desc, cfg, err, errlen);
}
