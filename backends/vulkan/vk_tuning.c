/*
 * backends/vulkan/vk_tuning.c — which matmul kernel and which tiles on this device: the
 * per-device-kind register tiles, the per-vendor shared-memory tiles and the path choice,
 * each overridable through a device option (struct ff_device_options; the front-end reads the
 * FF_VK_* environment variables, never this file). Pure choices: nothing here creates a
 * Vulkan object.
 */
#include <stdio.h>
#include <string.h>

#include "vk_internal.h"

/* Register block on CPU devices (lavapipe), see ffvk_pick_tiles(). */
#define FF_VK_CPU_TM  8
#define FF_VK_CPU_TN4 4
#define FF_VK_CPU_WX  8
#define FF_VK_CPU_WY  1

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

/* The matmul kernels' tuning space. Not declared yet: matmul builds the tables' choice. */
int ffvk_matmul_space(const struct ffvk_device *d, const struct ff_kernel_desc *desc,
                      struct ff_tune_space *out, uint64_t *source_hash, char *err, size_t errlen)
{
    (void)d, (void)desc, (void)out, (void)source_hash;
    return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                   "the Vulkan matmul kernels declare no tuning space yet");
}

int ffvk_matmul_point_check(const struct ffvk_device *d, const struct ff_kernel_desc *desc,
                            char *err, size_t errlen)
{
    (void)d, (void)desc, (void)err, (void)errlen;
    return FF_OK;
}
