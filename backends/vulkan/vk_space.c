/*
 * backends/vulkan/vk_space.c — which tuning space each Vulkan kernel declares (ff_kernel_space
 * in backend.h): one dispatch by kernel id to the file that owns the kernel's parameters
 * (matmul: vk_tuning.c; bandwidth: vk_mem_tuning.c; gemv and attention: vk_ops_tuning.c).
 */
#include "vk_internal.h"

int ffvk_kernel_space(struct ff_device *dev, const struct ff_kernel_desc *desc,
                      struct ff_tune_space *out, uint64_t *source_hash, char *err, size_t errlen)
{
    const struct ffvk_device *d = (const struct ffvk_device *)dev;
    switch (desc->id) {
    case FF_KERNEL_MATMUL: return ffvk_matmul_space(d, desc, out, source_hash, err, errlen);
    case FF_KERNEL_MEM_READ:
    case FF_KERNEL_MEM_WRITE:
    case FF_KERNEL_MEM_COPY:
    case FF_KERNEL_MEM_TRIAD: return ffvk_mem_space(d, desc, out, source_hash, err, errlen);
    case FF_KERNEL_GEMV:
    case FF_KERNEL_ATTN_DECODE:
    case FF_KERNEL_ATTN_PREFILL: return ffvk_op_space(d, desc, out, source_hash, err, errlen);
    default:
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "the Vulkan backend declares no tuning space for this kernel");
    }
}

int ffvk_point_check(struct ff_device *dev, const struct ff_kernel_desc *desc, char *err,
                     size_t errlen)
{
    const struct ffvk_device *d = (const struct ffvk_device *)dev;
    switch (desc->id) {
    case FF_KERNEL_MATMUL: return ffvk_matmul_point_check(d, desc, err, errlen);
    case FF_KERNEL_MEM_READ:
    case FF_KERNEL_MEM_WRITE:
    case FF_KERNEL_MEM_COPY:
    case FF_KERNEL_MEM_TRIAD: return ffvk_mem_point_check(d, desc, err, errlen);
    case FF_KERNEL_GEMV:
    case FF_KERNEL_ATTN_DECODE:
    case FF_KERNEL_ATTN_PREFILL: return ffvk_op_point_check(d, desc, err, errlen);
    default: return FF_OK;
    }
}
