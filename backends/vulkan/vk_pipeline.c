/*
 * backends/vulkan/vk_pipeline.c — turn a kernel description into a compute
 * pipeline: pick the embedded SPIR-V, put the tiles vk_tuning.c chose for this device into
 * specialization constants, and size the dispatch. The argument checks of a run are the
 * front-end's (backends/frontend.c).
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
#include "vk_peak_f16.h"
#include "vk_peak_f32.h"
#include "vk_peak_i8.h"

#define SPV(name) name, sizeof(name)

static uint32_t div_up(uint64_t a, uint64_t b)
{
    return ffvk_div_up(a, b);
}

static int check_groups(const struct ffvk_device *d, const struct ffvk_kernel *k, char *err,
                        size_t errlen)
{
    return ffvk_check_groups(d, k, err, errlen);
}

/* ---- matmul (register-blocked) ------------------------------------------------ */

static const char *prec_name(enum ff_precision p)
{
    return p == FF_PREC_FP16 ? "fp16" : p == FF_PREC_INT8 ? "int8" : "fp32";
}

static int create_matmul(struct ffvk_device *d, struct ffvk_kernel *k,
                         const struct ff_kernel_desc *desc, char *err, size_t errlen)
{
    uint32_t in_size, out_size;
    const char *maths;
    switch (desc->prec) {
    case FF_PREC_FP16:
        if (!d->storage16)
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "device lacks storageBuffer16BitAccess (fp16 buffers)");
        in_size = 2;
        out_size = 2;
        maths = "fp16 in/out, fp32 accumulate";
        break;
    case FF_PREC_INT8:
        if (!d->storage8)
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "device lacks storageBuffer8BitAccess (int8 buffers)");
        in_size = 1;
        out_size = 4;
        maths = "int8 in, int32 accumulate/out";
        break;
    default:
        in_size = 4;
        out_size = 4;
        maths = "fp32";
        break;
    }
    struct ffvk_mm_config c;
    int ret = ffvk_mm_resolve(d, desc, &c, &k->base.point, err, errlen);
    if (ret < 0)
        return ret;
    bool texel = c.path == FFVK_MM_TEXEL, shared = c.path == FFVK_MM_SHARED;
    size_t bytes;
    const uint32_t *code = ffvk_mm_code(desc->prec, c.path, c.sg != 0, &bytes);
    if (texel)
        k->texel_format = ffvk_texel_format(desc->prec);
    uint32_t spec[10];
    uint32_t n_spec;
    const char *from = c.from_point ? "tuning point" : "defaults";
    if (shared) {
        const struct ffvk_sh_tiles sh = c.sh;
        uint32_t s[10] = {
            desc->m,  desc->n, desc->k, sh.bm, sh.bn, sh.bk, sh.tm, sh.tn, ffvk_sh_invocations(&sh),
            c.aligned};
        memcpy(spec, s, sizeof(s));
        n_spec = 10;
        k->groups[0] = div_up(desc->n, sh.bn);
        k->groups[1] = div_up(desc->m, sh.bm);
        /* composed apart: only the worst case of every number overflows */
        char v[256];
        snprintf(v, sizeof(v),
                 "%s; shared memory (%s): %ux%u tile, %u invocations of %ux%u, BK %u "
                 "x2 (%" PRIu64 " B), %s",
                 maths, c.from_point ? from : sh.name, sh.bm, sh.bn, ffvk_sh_invocations(&sh),
                 sh.tm, sh.tn, sh.bk, ffvk_sh_bytes(&sh), c.aligned ? "vec4 I/O" : "scalar I/O");
        size_t n = strlen(v);
        if (n >= sizeof(k->base.variant))
            n = sizeof(k->base.variant) - 1;
        memcpy(k->base.variant, v, n);
        k->base.variant[n] = 0;
    } else {
        const struct ffvk_mm_tiles t = c.t;
        uint32_t s[9] = {desc->m, desc->n, desc->k, t.tm, t.tn4, t.wx, t.wy, c.aligned, c.sg};
        memcpy(spec, s, sizeof(s));
        n_spec = 9;
        k->groups[0] = div_up(div_up(desc->n, 4), (uint64_t)t.wx * t.tn4);
        k->groups[1] = div_up(desc->m, (uint64_t)t.wy * t.tm);
        char sga[48] = "";
        if (c.sg)
            snprintf(sga, sizeof(sga), ", A shared over subgroups of %u", c.sg);
        snprintf(k->base.variant, sizeof(k->base.variant),
                 "%s; %ux%u block per invocation, %s%s, work-group %ux%u, no shared memory; %s",
                 maths, t.tm, t.tn4 * 4,
                 texel       ? "A, B via texel buffers"
                 : c.aligned ? "vec4 storage loads"
                             : "scalar loads (K or N not /4)",
                 sga, t.wx, t.wy, from);
    }
    k->groups[2] = 1;
    ret = check_groups(d, k, err, errlen);
    if (ret < 0)
        return ret;
    k->need_bytes[0] = (uint64_t)desc->m * desc->k * in_size;
    k->need_bytes[1] = (uint64_t)desc->k * desc->n * in_size;
    k->need_bytes[2] = (uint64_t)desc->m * desc->n * out_size;
    k->base.n_bufs = 3;
    k->base.n_params = 3;
    return ffvk_build(d, k, code, bytes, 3, 0, spec, n_spec, err, errlen);
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
    k->base.n_bufs = 3;
    k->base.n_params = 3;
    snprintf(k->base.variant, sizeof(k->base.variant),
             "baseline: fp32 8x8 block per invocation, scalar loads, work-group 8x8");
    int ret = ffvk_build(d, k, SPV(ff_vk_spv_matmul_baseline), 3, 3, NULL, 0, err, errlen);
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
    k->base.n_bufs = 3;
    k->base.n_params = 3;
    snprintf(k->base.variant, sizeof(k->base.variant),
             "%s %ux%ux%u %s, %s; %ux%u tiles per subgroup, %u subgroups of %u",
             d->coopmat_khr ? "VK_KHR_cooperative_matrix" : "VK_NV_cooperative_matrix", best->m,
             best->n, best->k, i8 ? "s8*s8+s32" : "f16*f16+f32",
             i8 ? "int32 out" : "fp32 accumulate, fp16 out", rm, rn, sgs_eff, d->subgroup_size);
    return ffvk_build(d, k, code, bytes, 3, 0, spec, 9, err, errlen);
}

/* ---- bandwidth and empty kernels ------------------------------------------- */

/* A bandwidth kernel at desc.tune or the built-in point (vk_mem_tuning.c: vw, epi, layout,
 * wg; the read kernel's src). */
static int create_mem(struct ffvk_device *d, struct ffvk_kernel *k,
                      const struct ff_kernel_desc *desc, char *err, size_t errlen)
{
    if (desc->tune.n)
        k->base.point = desc->tune;
    else
        ffvk_mem_default(d, desc->id, desc->n, &k->base.point);
    const uint32_t *pt = k->base.point.v;
    const uint32_t vw = pt[0], epi = pt[1], layout = pt[2], wg = pt[3];
    const bool texel = desc->id == FF_KERNEL_MEM_READ && k->base.point.n > 4 && pt[4];
    uint32_t n4 = desc->n / 4;
    uint64_t groups = ffvk_mem_groups(&k->base.point, desc->n);
    if (groups > UINT32_MAX)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED, "%llu work-groups is too many",
                       (unsigned long long)groups);
    k->groups[0] = (uint32_t)groups;
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
        if (texel) {
            code = vw == 1 ? ff_vk_spv_mem_read_ts : ff_vk_spv_mem_read_t;
            code_bytes = vw == 1 ? sizeof(ff_vk_spv_mem_read_ts) : sizeof(ff_vk_spv_mem_read_t);
            k->bind_fmt[0] = ffvk_mem_texel_format(vw);
            what = "read (xor) through a texel buffer view";
        } else {
            code = vw == 1 ? ff_vk_spv_mem_read_s : ff_vk_spv_mem_read;
            code_bytes = vw == 1 ? sizeof(ff_vk_spv_mem_read_s) : sizeof(ff_vk_spv_mem_read);
            what = "read (xor)";
        }
        k->base.n_bufs = 2;
        k->base.out_words = groups * wg;
        k->need_bytes[0] = bytes;
        k->need_bytes[1] = k->base.out_words * 4;
        break;
    case FF_KERNEL_MEM_WRITE:
        code = vw == 1 ? ff_vk_spv_mem_write_s : ff_vk_spv_mem_write;
        code_bytes = vw == 1 ? sizeof(ff_vk_spv_mem_write_s) : sizeof(ff_vk_spv_mem_write);
        k->base.n_bufs = 1;
        k->base.n_params = 1;
        k->need_bytes[0] = bytes;
        what = "write (value ^ i)";
        break;
    case FF_KERNEL_MEM_COPY:
        code = vw == 1 ? ff_vk_spv_mem_copy_s : ff_vk_spv_mem_copy;
        code_bytes = vw == 1 ? sizeof(ff_vk_spv_mem_copy_s) : sizeof(ff_vk_spv_mem_copy);
        k->base.n_bufs = 2;
        k->need_bytes[0] = k->need_bytes[1] = bytes;
        what = "copy";
        break;
    default:
        code = vw == 1 ? ff_vk_spv_mem_triad_s : ff_vk_spv_mem_triad;
        code_bytes = vw == 1 ? sizeof(ff_vk_spv_mem_triad_s) : sizeof(ff_vk_spv_mem_triad);
        k->base.n_bufs = 3;
        k->need_bytes[0] = k->need_bytes[1] = k->need_bytes[2] = bytes;
        what = "triad a = b + 3c";
        break;
    }
    snprintf(k->base.variant, sizeof(k->base.variant),
             "%s, %u-byte units, %s, %llu work-groups of %u", what, vw * 4,
             layout ? "contiguous blocks" : "grid-stride", (unsigned long long)groups, wg);
    char per[48];
    if (layout)
        snprintf(per, sizeof(per), " (%u units per invocation)", epi);
    else
        per[0] = 0;
    size_t used = strlen(k->base.variant);
    snprintf(k->base.variant + used, sizeof(k->base.variant) - used, "%s", per);
    uint32_t spec[4] = {wg, vw == 1 ? 1 : vw / 4, layout, epi}; /* U: elements per unit */
    /* push block {n4, value}: always both words so the range covers it */
    return ffvk_build(d, k, code, code_bytes, k->base.n_bufs, 2, spec, 4, err, errlen);
}

static int create_empty(struct ffvk_device *d, struct ffvk_kernel *k, char *err, size_t errlen)
{
    k->groups[0] = k->groups[1] = k->groups[2] = 1;
    snprintf(k->base.variant, sizeof(k->base.variant), "empty shader, 1 work-group of 64");
    return ffvk_build(d, k, SPV(ff_vk_spv_empty), 0, 0, NULL, 0, err, errlen);
}

/* ---- arithmetic peak --------------------------------------------------------- */

#define PEAK_WG 64u /* desc.n is a multiple of 64 (the front-end checks) */

static int create_peak(struct ffvk_device *d, struct ffvk_kernel *k,
                       const struct ff_kernel_desc *desc, char *err, size_t errlen)
{
    const uint32_t *code;
    size_t bytes;
    uint32_t vw = 1;
    const char *what;
    switch (desc->prec) {
    case FF_PREC_FP16:
        if (!d->float16)
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "device lacks shaderFloat16 (no fp16 arithmetic in shaders)");
        code = ff_vk_spv_peak_f16;
        bytes = sizeof(ff_vk_spv_peak_f16);
        vw = 2;
        what = "f16vec2";
        break;
    case FF_PREC_INT8:
        code = ff_vk_spv_peak_i8;
        bytes = sizeof(ff_vk_spv_peak_i8);
        what = "int8 widened to uint";
        break;
    default:
        code = ff_vk_spv_peak_f32;
        bytes = sizeof(ff_vk_spv_peak_f32);
        vw = 4;
        what = "vec4";
        break;
    }
    uint32_t wg = PEAK_WG;
    if (wg > d->props.limits.maxComputeWorkGroupInvocations ||
        wg > d->props.limits.maxComputeWorkGroupSize[0])
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "the peak kernel needs work-groups of %u invocations", wg);
    k->groups[0] = desc->n / wg;
    k->groups[1] = k->groups[2] = 1;
    int ret = check_groups(d, k, err, errlen);
    if (ret < 0)
        return ret;
    k->base.n_bufs = 1;
    k->base.n_params = 3;
    k->base.out_words = (uint64_t)desc->n * 8 * vw; /* 8 chains (peak.comp) */
    k->need_bytes[0] = k->base.out_words * 4;
    snprintf(k->base.variant, sizeof(k->base.variant),
             "%s: 8 independent %s multiply-add chains per invocation, %u work-groups of %u",
             prec_name(desc->prec), what, k->groups[0], wg);
    uint32_t spec[1] = {wg};
    return ffvk_build(d, k, code, bytes, 1, 3, spec, 1, err, errlen);
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
    case FF_KERNEL_PEAK: ret = create_peak(d, k, desc, err, errlen); break;
    default:
        if (ff_kernel_is_op(desc->id)) {
            ret = ffvk_op_create(d, k, desc, err, errlen);
            break;
        }
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
