/*
 * backends/vulkan/vk_ops_code.c — the SPIR-V of each op kernel (ffvk_op_code): which build of
 * which shader runs desc's op, format and head dim. vk_ops.c builds the pipelines from it and
 * vk_ops_tuning.c hashes it into the tuning spaces' keys.
 */
#include "vk_internal.h"

#include "vk_ops_add.h"
#include "vk_ops_attn_decode_bf16_any.h"
#include "vk_ops_attn_decode_bf16_v128.h"
#include "vk_ops_attn_decode_bf16_v256.h"
#include "vk_ops_attn_decode_bf16_w128.h"
#include "vk_ops_attn_decode_bf16_w256.h"
#include "vk_ops_attn_decode_f16_any.h"
#include "vk_ops_attn_decode_f16_v128.h"
#include "vk_ops_attn_decode_f16_v256.h"
#include "vk_ops_attn_decode_f16_w128.h"
#include "vk_ops_attn_decode_f16_w256.h"
#include "vk_ops_attn_decode_f32_any.h"
#include "vk_ops_attn_decode_f32_v128.h"
#include "vk_ops_attn_decode_f32_v256.h"
#include "vk_ops_attn_decode_f32_w128.h"
#include "vk_ops_attn_decode_f32_w256.h"
#include "vk_ops_attn_prefill_bf16_any.h"
#include "vk_ops_attn_prefill_bf16_w128.h"
#include "vk_ops_attn_prefill_bf16_w256.h"
#include "vk_ops_attn_prefill_f16_any.h"
#include "vk_ops_attn_prefill_f16_w128.h"
#include "vk_ops_attn_prefill_f16_w256.h"
#include "vk_ops_attn_prefill_f32_any.h"
#include "vk_ops_attn_prefill_f32_w128.h"
#include "vk_ops_attn_prefill_f32_w256.h"
#include "vk_ops_gemv_bf16.h"
#include "vk_ops_gemv_f16.h"
#include "vk_ops_gemv_f32.h"
#include "vk_ops_gemv_i8.h"
#include "vk_ops_gemv_q4_0.h"
#include "vk_ops_gemv_q8_0.h"
#include "vk_ops_rmsnorm.h"
#include "vk_ops_rope.h"
#include "vk_ops_swiglu.h"
#include "vk_ops_xent.h"

#define SPV(name)                                                                                  \
    do {                                                                                           \
        *bytes = sizeof(name);                                                                     \
        return name;                                                                               \
    } while (0)

bool ffvk_attn_vlanes(const struct ff_tune_point *p)
{
    return p->n > FFVK_DECODE_VL && p->v[FFVK_DECODE_VL] == 1;
}

/* Which attention build runs head dim desc->k: 0 and 1 the wide ones (uvec4 texels, the head
 * dim unrolled, up to 128 and 256), 2 the generic one (one element per texel). */
int ffvk_attn_build(const struct ff_kernel_desc *desc)
{
    const uint32_t per_texel = desc->prec == FF_PREC_FP32 ? 4 : 8;
    if (desc->k % per_texel)
        return 2;
    return desc->k <= 128 ? 0 : 1;
}

const uint32_t *ffvk_op_code(const struct ff_kernel_desc *desc, size_t *bytes)
{
    *bytes = 0;
    enum ff_precision p = desc->prec;
    switch (desc->id) {
    case FF_KERNEL_GEMV:
        switch (p) {
        case FF_PREC_FP32: SPV(ff_vk_spv_ops_gemv_f32);
        case FF_PREC_FP16: SPV(ff_vk_spv_ops_gemv_f16);
        case FF_PREC_BF16: SPV(ff_vk_spv_ops_gemv_bf16);
        case FF_PREC_INT8: SPV(ff_vk_spv_ops_gemv_i8);
        case FF_PREC_Q8_0: SPV(ff_vk_spv_ops_gemv_q8_0);
        case FF_PREC_Q4_0: SPV(ff_vk_spv_ops_gemv_q4_0);
        default: return NULL;
        }
    case FF_KERNEL_ATTN_DECODE:
    case FF_KERNEL_ATTN_PREFILL: {
        const bool dec = desc->id == FF_KERNEL_ATTN_DECODE;
        const int v = ffvk_attn_build(desc);
        const bool vl = dec && v < 2 && ffvk_attn_vlanes(&desc->tune);
#define ATTN(op, f)                                                                                \
    do {                                                                                           \
        if (v == 0)                                                                                \
            SPV(ff_vk_spv_ops_attn_##op##_##f##_w128);                                             \
        if (v == 1)                                                                                \
            SPV(ff_vk_spv_ops_attn_##op##_##f##_w256);                                             \
        SPV(ff_vk_spv_ops_attn_##op##_##f##_any);                                                  \
    } while (0)
#define VLANES(f)                                                                                  \
    do {                                                                                           \
        if (vl && v == 0)                                                                          \
            SPV(ff_vk_spv_ops_attn_decode_##f##_v128);                                             \
        if (vl)                                                                                    \
            SPV(ff_vk_spv_ops_attn_decode_##f##_v256);                                             \
    } while (0)
        switch (p) {
        case FF_PREC_FP32:
            VLANES(f32);
            if (dec)
                ATTN(decode, f32);
            ATTN(prefill, f32);
        case FF_PREC_FP16:
            VLANES(f16);
            if (dec)
                ATTN(decode, f16);
            ATTN(prefill, f16);
        case FF_PREC_BF16:
            VLANES(bf16);
            if (dec)
                ATTN(decode, bf16);
            ATTN(prefill, bf16);
        default: return NULL;
        }
#undef VLANES
#undef ATTN
    }
    case FF_KERNEL_RMSNORM: SPV(ff_vk_spv_ops_rmsnorm);
    case FF_KERNEL_XENT: SPV(ff_vk_spv_ops_xent);
    case FF_KERNEL_ADD: SPV(ff_vk_spv_ops_add);
    case FF_KERNEL_SWIGLU: SPV(ff_vk_spv_ops_swiglu);
    case FF_KERNEL_ROPE: SPV(ff_vk_spv_ops_rope);
    default: return NULL;
    }
}
