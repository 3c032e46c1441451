/*
 * backends/vulkan/vk_pipeline.c — turn a kernel description into a compute
 * pipeline: pick the embedded SPIR-V, the tiles for this device
 * (specialization constants), the dispatch size and the buffer sizes a run
 * must bring.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"

#include "vk_coopmat_khr_f16.h"
#include "vk_coopmat_khr_i8.h"
#include "vk_coopmat_nv_f16.h"
#include "vk_coopmat_nv_i8.h"
#include "vk_empty.h"
#include "vk_matmul_baseline.h"
#include "vk_matmul_f16.h"
#include "vk_matmul_f32.h"
#include "vk_matmul_i8.h"
#include "vk_matmul_shared_f16.h"
#include "vk_matmul_shared_f32.h"
#include "vk_matmul_shared_i8.h"
#include "vk_matmul_tex_f16.h"
#include "vk_matmul_tex_f32.h"
#include "vk_matmul_tex_i8.h"
#include "vk_mem_copy.h"
#include "vk_mem_read.h"
#include "vk_mem_triad.h"
#include "vk_mem_write.h"

#define SPV(name) name, sizeof(name)

/* Register block on CPU devices (lavapipe), see pick_tiles(). */
#define FF_VK_CPU_TM  8
#define FF_VK_CPU_TN4 4
#define FF_VK_CPU_WX  8
#define FF_VK_CPU_WY  1

/* ---- tile tables ------------------------------------------------------------ */

/* Register-blocked matmul (matmul.comp): rows x vec4-columns per invocation
 * and the work-group shape. */
struct mm_tiles {
    uint32_t tm, tn4, wx, wy;
};

/*
 * Chosen per device kind; measured on lavapipe (tests/vulkan/bench_matmul),
 * orientation values elsewhere (a 8x8 block per invocation, 16x16
 * invocations = 128x128 C tile per work-group is the classic starting point
 * on NVIDIA/AMD/Intel GPUs without shared memory). GPUs run the
 * shared-memory kernel by default (sh_table below); these GPU rows are
 * reached with FF_VK_MATMUL_PATH=storage.
 */
static struct mm_tiles pick_tiles(const struct ffvk_device *d, enum ff_precision prec)
{
    struct mm_tiles t;
    switch (d->props.deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
        /* lavapipe: a buffer load costs many FMAs; the largest block that
         * stays in registers wins. */
        t = (struct mm_tiles){FF_VK_CPU_TM, FF_VK_CPU_TN4, FF_VK_CPU_WX, FF_VK_CPU_WY};
        break;
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
        t = (struct mm_tiles){8, 2, 16, 16};
        if (d->props.vendorID == 0x1002) /* AMD: wave64 wants 64-wide rows */
            t = (struct mm_tiles){8, 2, 32, 8};
        break;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: t = (struct mm_tiles){4, 2, 16, 8}; break;
    default: t = (struct mm_tiles){4, 1, 8, 8}; break;
    }
    (void)prec;
    /* FF_VK_TILES=tm,tn4,wx,wy overrides the table (tuning on a new device) */
    const char *env = getenv("FF_VK_TILES");
    struct mm_tiles e;
    if (env && sscanf(env, "%u,%u,%u,%u", &e.tm, &e.tn4, &e.wx, &e.wy) == 4 && e.tm >= 1 &&
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
static VkFormat texel_format(enum ff_precision prec)
{
    return prec == FF_PREC_FP16   ? VK_FORMAT_R16G16B16A16_SFLOAT
           : prec == FF_PREC_INT8 ? VK_FORMAT_R8G8B8A8_SINT
                                  : VK_FORMAT_R32G32B32A32_SFLOAT;
}

/* Can A and B be read through texel buffers on this device and shape? */
static bool texel_ok(const struct ffvk_device *d, const struct ff_kernel_desc *desc)
{
    VkFormatProperties fp;
    d->fn->vkGetPhysicalDeviceFormatProperties(d->phys, texel_format(desc->prec), &fp);
    if (!(fp.bufferFeatures & VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT))
        return false;
    uint64_t texels_a = (uint64_t)desc->m * desc->k / 4, texels_b = (uint64_t)desc->k * desc->n / 4;
    uint64_t max = d->props.limits.maxTexelBufferElements;
    return texels_a <= max && texels_b <= max;
}

/* ---- shared-memory tiles (matmul_shared.comp) -------------------------------- */

/* C tile per work-group (bm x bn), k-slab bk, register block per invocation
 * (tm x tn); the work-group has (bm/tm)*(bn/tn) invocations. */
struct sh_tiles {
    uint32_t bm, bn, bk, tm, tn;
    const char *name;
};

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
static const struct sh_tiles sh_table[] = {
    {128, 128, 16, 8, 8, "nvidia"},
    {128, 128, 8, 8, 8, "amd"},
    {64, 64, 16, 8, 4, "intel"},
    {64, 64, 8, 8, 4, "fallback"},
};
enum { SH_NVIDIA, SH_AMD, SH_INTEL, SH_FALLBACK };

static uint32_t sh_wg(const struct sh_tiles *t)
{
    return (t->bm / t->tm) * (t->bn / t->tn);
}

static uint64_t sh_bytes(const struct sh_tiles *t)
{
    /* two slabs of As[bk][bm/4 + 1] and Bs[bk][bn/4], 16-byte vec4 each
     * (fp16 and int8 are widened to fp32 / int32 in shared memory) */
    return 2ull * t->bk * (t->bm / 4 + 1 + t->bn / 4) * 16;
}

static bool sh_fits(const struct ffvk_device *d, const struct sh_tiles *t)
{
    const VkPhysicalDeviceLimits *l = &d->props.limits;
    if ((t->tm != 4 && t->tm != 8) || (t->tn != 4 && t->tn != 8))
        return false;
    if (t->bk < 4 || t->bk > 64 || t->bk % 4 || t->bm == 0 || t->bn == 0 || t->bm > 512 ||
        t->bn > 512 || t->bm % t->tm || t->bn % t->tn)
        return false;
    uint32_t wg = sh_wg(t);
    if (wg > l->maxComputeWorkGroupInvocations || wg > l->maxComputeWorkGroupSize[0])
        return false;
    if ((uint64_t)t->bm * (t->bk / 4) > (uint64_t)SH_MAX_LD * wg ||
        (uint64_t)t->bk * (t->bn / 4) > (uint64_t)SH_MAX_LD * wg)
        return false;
    return sh_bytes(t) <= l->maxComputeSharedMemorySize;
}

/* Shrink the k-slab until the tiles fit the device; false when they never do. */
static bool sh_fit(const struct ffvk_device *d, struct sh_tiles *t)
{
    while (!sh_fits(d, t) && t->bk > 4 && t->bk % 8 == 0)
        t->bk /= 2;
    return sh_fits(d, t);
}

/*
 * Tiles for this device: the vendor's entry; FF_VK_SHARED_TILES overrides it
 * with an entry's name (nvidia, amd, intel, fallback) or bm,bn,bk,tm,tn
 * (tuning on a new device; the tests use it to run every entry on lavapipe).
 * False when not even the fallback fits (then the storage kernel runs).
 */
static bool pick_shared(const struct ffvk_device *d, struct sh_tiles *out)
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
    struct sh_tiles t = sh_table[idx];
    const char *env = getenv("FF_VK_SHARED_TILES");
    if (env) {
        struct sh_tiles e = {0, 0, 0, 0, 0, "env"};
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
 * FF_VK_MATMUL_PATH=shared|texel|storage overrides the default.
 */
enum mm_path { MM_STORAGE, MM_TEXEL, MM_SHARED };

static enum mm_path pick_path(const struct ffvk_device *d, const struct ff_kernel_desc *desc,
                              bool aligned, struct sh_tiles *sh)
{
    const char *env = getenv("FF_VK_MATMUL_PATH");
    enum mm_path want = d->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? MM_TEXEL : MM_SHARED;
    if (env && strcmp(env, "texel") == 0)
        want = MM_TEXEL;
    else if (env && strcmp(env, "storage") == 0)
        want = MM_STORAGE;
    else if (env && strcmp(env, "shared") == 0)
        want = MM_SHARED;
    if (want == MM_SHARED)
        return pick_shared(d, sh) ? MM_SHARED : MM_STORAGE;
    if (want == MM_TEXEL)
        return aligned && texel_ok(d, desc) ? MM_TEXEL : MM_STORAGE;
    return MM_STORAGE;
}

/* ---- generic pipeline ------------------------------------------------------ */

static int build(struct ffvk_device *d, struct ffvk_kernel *k, const uint32_t *code, size_t bytes,
                 uint32_t n_bufs, uint32_t push_words, const uint32_t *spec, uint32_t n_spec,
                 char *err, size_t errlen)
{
    const struct ffvk_fns *fn = d->fn;
    VkResult r;
    VkShaderModuleCreateInfo smi = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = bytes,
        .pCode = code,
    };
    r = fn->vkCreateShaderModule(d->dev, &smi, NULL, &k->module);
    if (r != VK_SUCCESS) {
        int ret = ffvk_check(d, r, "vkCreateShaderModule", err, errlen);
        return ret == FF_ERR_DEVICE ? FF_ERR_BUILD : ret;
    }
    VkDescriptorSetLayoutBinding bind[FF_MAX_BUFS];
    uint32_t n_texel = k->texel_format != VK_FORMAT_UNDEFINED ? 2 : 0;
    for (uint32_t i = 0; i < n_bufs; i++)
        bind[i] = (VkDescriptorSetLayoutBinding){
            .binding = i,
            .descriptorType = i < n_texel ? VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER
                                          : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .descriptorCount = 1,
            .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        };
    VkDescriptorSetLayoutCreateInfo dli = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = n_bufs,
        .pBindings = bind,
    };
    r = fn->vkCreateDescriptorSetLayout(d->dev, &dli, NULL, &k->set_layout);
    if (r != VK_SUCCESS)
        return ffvk_check(d, r, "vkCreateDescriptorSetLayout", err, errlen);
    VkPushConstantRange pcr = {
        .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .offset = 0, .size = push_words * 4};
    VkPipelineLayoutCreateInfo pli = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = &k->set_layout,
        .pushConstantRangeCount = push_words ? 1 : 0,
        .pPushConstantRanges = &pcr,
    };
    r = fn->vkCreatePipelineLayout(d->dev, &pli, NULL, &k->layout);
    if (r != VK_SUCCESS)
        return ffvk_check(d, r, "vkCreatePipelineLayout", err, errlen);
    k->push_words = push_words;

    VkSpecializationMapEntry map[16];
    for (uint32_t i = 0; i < n_spec; i++)
        map[i] = (VkSpecializationMapEntry){.constantID = i, .offset = i * 4, .size = 4};
    VkSpecializationInfo si = {
        .mapEntryCount = n_spec,
        .pMapEntries = map,
        .dataSize = n_spec * 4,
        .pData = spec,
    };
    VkComputePipelineCreateInfo cpi = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage =
            {
                .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = k->module,
                .pName = "main",
                .pSpecializationInfo = n_spec ? &si : NULL,
            },
        .layout = k->layout,
    };
    r = ffvk_fault("pipeline")
            ? VK_ERROR_UNKNOWN
            : fn->vkCreateComputePipelines(d->dev, VK_NULL_HANDLE, 1, &cpi, NULL, &k->pipeline);
    if (r != VK_SUCCESS) {
        k->pipeline = VK_NULL_HANDLE;
        int ret = ffvk_check(d, r, "vkCreateComputePipelines", err, errlen);
        /* out of memory stays a memory error; anything else is a build failure */
        if (ret != FF_ERR_DEVICE_MEMORY && ret != FF_ERR_NO_MEMORY && ret != FF_ERR_DEVICE_LOST)
            ret =
                ff_errf(err, errlen, FF_ERR_BUILD,
                        "the driver could not build the compute pipeline: %s", ffvk_result_str(r));
        return ret;
    }
    if (n_bufs) {
        VkDescriptorPoolSize ps[2] = {
            {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = n_bufs - n_texel},
            {.type = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, .descriptorCount = n_texel},
        };
        VkDescriptorPoolCreateInfo dpi = {
            .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
            .maxSets = 1,
            .poolSizeCount = n_texel ? 2 : 1,
            .pPoolSizes = ps,
        };
        r = fn->vkCreateDescriptorPool(d->dev, &dpi, NULL, &k->desc_pool);
        if (r != VK_SUCCESS)
            return ffvk_check(d, r, "vkCreateDescriptorPool", err, errlen);
        VkDescriptorSetAllocateInfo dsa = {
            .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
            .descriptorPool = k->desc_pool,
            .descriptorSetCount = 1,
            .pSetLayouts = &k->set_layout,
        };
        r = fn->vkAllocateDescriptorSets(d->dev, &dsa, &k->set);
        if (r != VK_SUCCESS)
            return ffvk_check(d, r, "vkAllocateDescriptorSets", err, errlen);
    }
    return FF_OK;
}

void ffvk_kernel_destroy(struct ff_kernel *kernel)
{
    struct ffvk_kernel *k = (struct ffvk_kernel *)kernel;
    struct ffvk_device *d = ffvk_dev(kernel->dev);
    const struct ffvk_fns *fn = d->fn;
    if (k->desc_pool)
        fn->vkDestroyDescriptorPool(d->dev, k->desc_pool, NULL);
    if (k->pipeline)
        fn->vkDestroyPipeline(d->dev, k->pipeline, NULL);
    if (k->layout)
        fn->vkDestroyPipelineLayout(d->dev, k->layout, NULL);
    if (k->set_layout)
        fn->vkDestroyDescriptorSetLayout(d->dev, k->set_layout, NULL);
    if (k->module)
        fn->vkDestroyShaderModule(d->dev, k->module, NULL);
    free(k);
}

static uint32_t div_up(uint64_t a, uint64_t b)
{
    uint64_t q = (a + b - 1) / b;
    return q > UINT32_MAX ? UINT32_MAX : (uint32_t)q;
}

static int check_groups(const struct ffvk_device *d, const struct ffvk_kernel *k, char *err,
                        size_t errlen)
{
    for (int i = 0; i < 3; i++)
        if (k->groups[i] == 0 || k->groups[i] > d->props.limits.maxComputeWorkGroupCount[i])
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "dispatch of %u work-groups in dimension %d exceeds the device "
                           "limit of %u",
                           k->groups[i], i, d->props.limits.maxComputeWorkGroupCount[i]);
    return FF_OK;
}

/* ---- matmul (register-blocked) ------------------------------------------------ */

static const char *prec_name(enum ff_precision p)
{
    return p == FF_PREC_FP16 ? "fp16" : p == FF_PREC_INT8 ? "int8" : "fp32";
}

static int create_matmul(struct ffvk_device *d, struct ffvk_kernel *k,
                         const struct ff_kernel_desc *desc, char *err, size_t errlen)
{
    const uint32_t *code;
    size_t bytes;
    uint32_t in_size, out_size;
    const char *maths;
    bool aligned = desc->k % 4 == 0 && desc->n % 4 == 0;
    struct sh_tiles sh;
    enum mm_path path = pick_path(d, desc, aligned, &sh);
    bool texel = path == MM_TEXEL, shared = path == MM_SHARED;
#define PICK(f32, tex, shd)                                                                        \
    do {                                                                                           \
        code = shared ? shd : texel ? tex : f32;                                                   \
        bytes = shared ? sizeof(shd) : texel ? sizeof(tex) : sizeof(f32);                          \
    } while (0)
    switch (desc->prec) {
    case FF_PREC_FP16:
        if (!d->storage16)
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "device lacks storageBuffer16BitAccess (fp16 buffers)");
        PICK(ff_vk_spv_matmul_f16, ff_vk_spv_matmul_tex_f16, ff_vk_spv_matmul_shared_f16);
        in_size = 2;
        out_size = 2;
        maths = "fp16 in/out, fp32 accumulate";
        break;
    case FF_PREC_INT8:
        if (!d->storage8)
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "device lacks storageBuffer8BitAccess (int8 buffers)");
        PICK(ff_vk_spv_matmul_i8, ff_vk_spv_matmul_tex_i8, ff_vk_spv_matmul_shared_i8);
        in_size = 1;
        out_size = 4;
        maths = "int8 in, int32 accumulate/out";
        break;
    default:
        PICK(ff_vk_spv_matmul_f32, ff_vk_spv_matmul_tex_f32, ff_vk_spv_matmul_shared_f32);
        in_size = 4;
        out_size = 4;
        maths = "fp32";
        break;
    }
#undef PICK
    if (texel)
        k->texel_format = texel_format(desc->prec);
    uint32_t spec[10];
    uint32_t n_spec;
    if (shared) {
        uint32_t s[10] = {desc->m, desc->n, desc->k, sh.bm,      sh.bn,
                          sh.bk,   sh.tm,   sh.tn,   sh_wg(&sh), aligned};
        memcpy(spec, s, sizeof(s));
        n_spec = 10;
        k->groups[0] = div_up(desc->n, sh.bn);
        k->groups[1] = div_up(desc->m, sh.bm);
    } else {
        struct mm_tiles t = pick_tiles(d, desc->prec);
        uint32_t s[8] = {desc->m, desc->n, desc->k, t.tm, t.tn4, t.wx, t.wy, aligned};
        memcpy(spec, s, sizeof(s));
        n_spec = 8;
        k->groups[0] = div_up(div_up(desc->n, 4), (uint64_t)t.wx * t.tn4);
        k->groups[1] = div_up(desc->m, (uint64_t)t.wy * t.tm);
        snprintf(k->base.variant, sizeof(k->base.variant),
                 "%s; %ux%u block per invocation, %s, work-group %ux%u, no shared memory", maths,
                 t.tm, t.tn4 * 4,
                 texel     ? "A, B via texel buffers"
                 : aligned ? "vec4 storage loads"
                           : "scalar loads (K or N not /4)",
                 t.wx, t.wy);
    }
    if (shared) {
        /* composed apart: only the worst case of every number overflows */
        char v[256];
        snprintf(v, sizeof(v),
                 "%s; shared memory (%s): %ux%u tile, %u invocations of %ux%u, BK %u "
                 "x2 (%" PRIu64 " B), %s",
                 maths, sh.name, sh.bm, sh.bn, sh_wg(&sh), sh.tm, sh.tn, sh.bk, sh_bytes(&sh),
                 aligned ? "vec4 I/O" : "scalar I/O");
        size_t n = strlen(v);
        if (n >= sizeof(k->base.variant))
            n = sizeof(k->base.variant) - 1;
        memcpy(k->base.variant, v, n);
        k->base.variant[n] = 0;
    }
    k->groups[2] = 1;
    int ret = check_groups(d, k, err, errlen);
    if (ret < 0)
        return ret;
    k->need_bytes[0] = (uint64_t)desc->m * desc->k * in_size;
    k->need_bytes[1] = (uint64_t)desc->k * desc->n * in_size;
    k->need_bytes[2] = (uint64_t)desc->m * desc->n * out_size;
    k->sizes_from_params = true;
    k->base.n_bufs = 3;
    k->base.n_params = 3;
    (void)prec_name;
    return build(d, k, code, bytes, 3, 0, spec, n_spec, err, errlen);
}

int ff_vk_kernel_create_baseline(struct ff_device *dev, uint32_t m, uint32_t n, uint32_t kk,
                                 struct ff_kernel **out, char *err, size_t errlen)
{
    struct ffvk_device *d = ffvk_dev(dev);
    struct ffvk_kernel *k = calloc(1, sizeof(*k));
    if (!k)
        return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "out of host memory");
    k->base.dev = dev;
    k->base.desc = (struct ff_kernel_desc){
        .id = FF_KERNEL_MATMUL, .prec = FF_PREC_FP32, .m = m, .n = n, .k = kk};
    k->groups[0] = div_up(n, 64);
    k->groups[1] = div_up(m, 64);
    k->groups[2] = 1;
    k->need_bytes[0] = (uint64_t)m * kk * 4;
    k->need_bytes[1] = (uint64_t)kk * n * 4;
    k->need_bytes[2] = (uint64_t)m * n * 4;
    k->sizes_from_params = true;
    k->base.n_bufs = 3;
    k->base.n_params = 3;
    snprintf(k->base.variant, sizeof(k->base.variant),
             "baseline: fp32 8x8 block per invocation, scalar loads, work-group 8x8");
    int ret = build(d, k, SPV(ff_vk_spv_matmul_baseline), 3, 3, NULL, 0, err, errlen);
    if (ret < 0) {
        ffvk_kernel_destroy(&k->base);
        return ret;
    }
    *out = &k->base;
    return FF_OK;
}

/* ---- matmul on the matrix engine ------------------------------------------ */

static const char *comp_str(VkComponentTypeKHR t)
{
    switch ((int)t) {
    case VK_COMPONENT_TYPE_FLOAT16_KHR: return "f16";
    case VK_COMPONENT_TYPE_FLOAT32_KHR: return "f32";
    case VK_COMPONENT_TYPE_SINT8_KHR: return "s8";
    case VK_COMPONENT_TYPE_SINT32_KHR: return "s32";
    default: return "other";
    }
}

static int create_coopmat(struct ffvk_device *d, struct ffvk_kernel *k,
                          const struct ff_kernel_desc *desc, char *err, size_t errlen)
{
    if (!d->coopmat_khr && !d->coopmat_nv)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "no matrix engine reachable: the device offers neither "
                       "VK_KHR_cooperative_matrix nor VK_NV_cooperative_matrix");
    if (desc->prec == FF_PREC_FP32)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "cooperative-matrix matmul is offered for fp16 and int8 only");
    bool i8 = desc->prec == FF_PREC_INT8;
    VkComponentTypeKHR in = i8 ? VK_COMPONENT_TYPE_SINT8_KHR : VK_COMPONENT_TYPE_FLOAT16_KHR;
    VkComponentTypeKHR acc = i8 ? VK_COMPONENT_TYPE_SINT32_KHR : VK_COMPONENT_TYPE_FLOAT32_KHR;
    const struct ffvk_coopmat_shape *best = NULL;
    for (uint32_t i = 0; i < d->n_coopmat; i++) {
        const struct ffvk_coopmat_shape *s = &d->coopmat[i];
        if (s->a != in || s->b != in || s->c != acc || s->result != acc)
            continue;
        if (!best || (uint64_t)s->m * s->n * s->k > (uint64_t)best->m * best->n * best->k)
            best = s;
    }
    if (!best)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "the device lists no subgroup cooperative-matrix shape for "
                       "%s*%s+%s->%s",
                       comp_str(in), comp_str(in), comp_str(acc), comp_str(acc));
    if (!d->vulkan_memory_model)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "device lacks vulkanMemoryModel, which the cooperative-matrix shader "
                       "declares");
    if (i8 ? !(d->int8 && d->storage8) : !(d->float16 && d->storage16))
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED, "device lacks %s",
                       i8 ? "shaderInt8 or storageBuffer8BitAccess"
                          : "shaderFloat16 or storageBuffer16BitAccess");
    if (desc->m % best->m || desc->n % best->n || desc->k % best->k)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "shape %ux%ux%u is not a multiple of the %ux%ux%u cooperative-matrix "
                       "tile",
                       desc->m, desc->n, desc->k, best->m, best->n, best->k);

    const uint32_t *code;
    size_t bytes;
    if (d->coopmat_khr) {
        code = i8 ? ff_vk_spv_coopmat_khr_i8 : ff_vk_spv_coopmat_khr_f16;
        bytes = i8 ? sizeof(ff_vk_spv_coopmat_khr_i8) : sizeof(ff_vk_spv_coopmat_khr_f16);
    } else {
        code = i8 ? ff_vk_spv_coopmat_nv_i8 : ff_vk_spv_coopmat_nv_f16;
        bytes = i8 ? sizeof(ff_vk_spv_coopmat_nv_i8) : sizeof(ff_vk_spv_coopmat_nv_f16);
    }
    const uint32_t sgs = 4, rm = 2, rn = 2; /* RM, RN fixed in coopmat.comp */
    uint32_t local = sgs * d->subgroup_size;
    if (local > d->props.limits.maxComputeWorkGroupInvocations)
        local = d->subgroup_size;
    uint32_t sgs_eff = local / d->subgroup_size;
    uint32_t spec[9] = {desc->m, desc->n, desc->k, best->m, best->n, best->k, sgs_eff, 0, local};
    uint64_t blocks = (uint64_t)div_up(desc->m / best->m, rm) * div_up(desc->n / best->n, rn);
    k->groups[0] = div_up(blocks, sgs_eff);
    k->groups[1] = 1;
    k->groups[2] = 1;
    int ret = check_groups(d, k, err, errlen);
    if (ret < 0)
        return ret;
    uint32_t in_size = i8 ? 1 : 2, out_size = i8 ? 4 : 2;
    k->need_bytes[0] = (uint64_t)desc->m * desc->k * in_size;
    k->need_bytes[1] = (uint64_t)desc->k * desc->n * in_size;
    k->need_bytes[2] = (uint64_t)desc->m * desc->n * out_size;
    k->sizes_from_params = true;
    k->base.n_bufs = 3;
    k->base.n_params = 3;
    snprintf(k->base.variant, sizeof(k->base.variant),
             "%s %ux%ux%u %s, %s; %ux%u tiles per subgroup, %u subgroups of %u",
             d->coopmat_khr ? "VK_KHR_cooperative_matrix" : "VK_NV_cooperative_matrix", best->m,
             best->n, best->k, i8 ? "s8*s8+s32" : "f16*f16+f32",
             i8 ? "int32 out" : "fp32 accumulate, fp16 out", rm, rn, sgs_eff, d->subgroup_size);
    return build(d, k, code, bytes, 3, 0, spec, 9, err, errlen);
}

/* ---- bandwidth and empty kernels ------------------------------------------- */

#define MEM_WG         256u
#define MEM_MAX_GROUPS 4096u

static int create_mem(struct ffvk_device *d, struct ffvk_kernel *k,
                      const struct ff_kernel_desc *desc, char *err, size_t errlen)
{
    uint32_t wg = MEM_WG;
    while (wg > d->props.limits.maxComputeWorkGroupInvocations ||
           wg > d->props.limits.maxComputeWorkGroupSize[0])
        wg /= 2;
    uint32_t n4 = desc->n / 4;
    uint32_t groups = div_up(n4, wg);
    if (groups > MEM_MAX_GROUPS)
        groups = MEM_MAX_GROUPS;
    k->groups[0] = groups;
    k->groups[1] = 1;
    k->groups[2] = 1;
    int ret = check_groups(d, k, err, errlen);
    if (ret < 0)
        return ret;
    uint64_t bytes = (uint64_t)desc->n * 4;
    const uint32_t *code;
    size_t code_bytes;
    const char *what;
    k->push[0] = n4;
    k->n_fixed_push = 1;
    switch (desc->id) {
    case FF_KERNEL_MEM_READ:
        code = ff_vk_spv_mem_read;
        code_bytes = sizeof(ff_vk_spv_mem_read);
        k->base.n_bufs = 2;
        k->base.out_words = (uint64_t)groups * wg;
        k->need_bytes[0] = bytes;
        k->need_bytes[1] = k->base.out_words * 4;
        what = "read (xor of uvec4)";
        break;
    case FF_KERNEL_MEM_WRITE:
        code = ff_vk_spv_mem_write;
        code_bytes = sizeof(ff_vk_spv_mem_write);
        k->base.n_bufs = 1;
        k->base.n_params = 1;
        k->need_bytes[0] = bytes;
        what = "write (value ^ i)";
        break;
    case FF_KERNEL_MEM_COPY:
        code = ff_vk_spv_mem_copy;
        code_bytes = sizeof(ff_vk_spv_mem_copy);
        k->base.n_bufs = 2;
        k->need_bytes[0] = k->need_bytes[1] = bytes;
        what = "copy";
        break;
    default:
        code = ff_vk_spv_mem_triad;
        code_bytes = sizeof(ff_vk_spv_mem_triad);
        k->base.n_bufs = 3;
        k->need_bytes[0] = k->need_bytes[1] = k->need_bytes[2] = bytes;
        what = "triad a = b + 3c";
        break;
    }
    snprintf(k->base.variant, sizeof(k->base.variant),
             "%s, 16-byte accesses, grid-stride over %u work-groups of %u", what, groups, wg);
    uint32_t spec[1] = {wg};
    /* push block {n4, value}: always both words so the range covers it */
    return build(d, k, code, code_bytes, k->base.n_bufs, 2, spec, 1, err, errlen);
}

static int create_empty(struct ffvk_device *d, struct ffvk_kernel *k, char *err, size_t errlen)
{
    k->groups[0] = k->groups[1] = k->groups[2] = 1;
    snprintf(k->base.variant, sizeof(k->base.variant), "empty shader, 1 work-group of 64");
    return build(d, k, SPV(ff_vk_spv_empty), 0, 0, NULL, 0, err, errlen);
}

int ffvk_kernel_create(struct ff_device *dev, const struct ff_kernel_desc *desc,
                       struct ff_kernel **out, char *err, size_t errlen)
{
    struct ffvk_device *d = ffvk_dev(dev);
    if (desc->id == FF_KERNEL_MATMUL_LIBRARY)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED, "no library reference on Vulkan");
    if (d->lost)
        return ff_errf(err, errlen, FF_ERR_DEVICE_LOST, "the Vulkan device was lost earlier");
    struct ffvk_kernel *k = calloc(1, sizeof(*k));
    if (!k)
        return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "out of host memory");
    k->base.dev = dev;
    k->base.desc = *desc;
    int ret;
    switch (desc->id) {
    case FF_KERNEL_MATMUL: ret = create_matmul(d, k, desc, err, errlen); break;
    case FF_KERNEL_MATMUL_COOPMAT: ret = create_coopmat(d, k, desc, err, errlen); break;
    case FF_KERNEL_MEM_READ:
    case FF_KERNEL_MEM_WRITE:
    case FF_KERNEL_MEM_COPY:
    case FF_KERNEL_MEM_TRIAD: ret = create_mem(d, k, desc, err, errlen); break;
    case FF_KERNEL_EMPTY: ret = create_empty(d, k, err, errlen); break;
    default:
        ret = ff_errf(err, errlen, FF_ERR_INVALID, "unknown kernel id %d", (int)desc->id);
        break;
    }
    if (ret < 0) {
        ffvk_kernel_destroy(&k->base);
        return ret;
    }
    *out = &k->base;
    return FF_OK;
}

int ffvk_kernel_check_args(struct ffvk_kernel *vk, struct ff_buf *const *bufs, size_t n_bufs,
                           const uint32_t *params, size_t n_params, char *err, size_t errlen)
{
    const struct ff_kernel_desc *desc = &vk->base.desc;
    if (vk->sizes_from_params && n_params == 3 &&
        (params[0] != desc->m || params[1] != desc->n || params[2] != desc->k))
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "kernel was built for %ux%ux%u, run with %ux%ux%u", desc->m, desc->n,
                       desc->k, params[0], params[1], params[2]);
    for (size_t i = 0; i < n_bufs; i++)
        if (bufs[i]->bytes < vk->need_bytes[i])
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "buffer %zu holds %" PRIu64 " bytes; this kernel needs %" PRIu64, i,
                           bufs[i]->bytes, vk->need_bytes[i]);
    for (size_t i = 0; i < n_params && vk->n_fixed_push + i < 4; i++)
        vk->push[vk->n_fixed_push + i] = params[i];
    return FF_OK;
}
