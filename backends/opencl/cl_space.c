/*
 * backends/opencl/cl_space.c — which tuning space each OpenCL kernel declares (ff_kernel_space
 * in backend.h): one dispatch by kernel id to the file that owns the kernel's parameters
 * (matmul: cl_tuning.c; bandwidth: cl_mem_tuning.c; ops: cl_ops.c).
 */
#include "cl_internal.h"

int ff_cl_kernel_space(struct ff_device *dev, const struct ff_kernel_desc *desc,
                       struct ff_tune_space *out, uint64_t *source_hash, char *err, size_t errlen)
{
    const struct cl_dev *d = (const struct cl_dev *)dev;
    switch (desc->id) {
    case FF_KERNEL_MATMUL: return ff_cl_matmul_space(d, desc, out, source_hash, err, errlen);
    case FF_KERNEL_MEM_READ:
    case FF_KERNEL_MEM_WRITE:
    case FF_KERNEL_MEM_COPY:
    case FF_KERNEL_MEM_TRIAD: return ff_cl_mem_space(d, desc, out, source_hash, err, errlen);
    default:
        if (ff_kernel_is_op(desc->id))
            return ff_cl_ops_space(d, desc, out, source_hash, err, errlen);
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "the OpenCL backend declares no tuning space for this kernel");
    }
}

int ff_cl_point_check(struct ff_device *dev, const struct ff_kernel_desc *desc, char *err,
                      size_t errlen)
{
    const struct cl_dev *d = (const struct cl_dev *)dev;
    switch (desc->id) {
    case FF_KERNEL_MATMUL: return ff_cl_matmul_point_check(d, desc, err, errlen);
    case FF_KERNEL_MEM_READ:
    case FF_KERNEL_MEM_WRITE:
    case FF_KERNEL_MEM_COPY:
    case FF_KERNEL_MEM_TRIAD: return ff_cl_mem_point_check(d, desc, err, errlen);
    case FF_KERNEL_GEMV:
    case FF_KERNEL_ATTN_DECODE:
    case FF_KERNEL_ATTN_PREFILL: return ff_cl_ops_point_check(d, desc, err, errlen);
    default: return FF_OK;
    }
}
