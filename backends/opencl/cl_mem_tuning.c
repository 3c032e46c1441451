/*
 * backends/opencl/cl_mem_tuning.c — the bandwidth kernels' tuning space (vector width, work per
 * work-item). Not declared yet: every bandwidth kernel builds its built-in variant.
 */
#include "cl_internal.h"

int ff_cl_mem_space(const struct cl_dev *d, const struct ff_kernel_desc *desc,
                    struct ff_tune_space *out, uint64_t *source_hash, char *err, size_t errlen)
{
    (void)d, (void)desc, (void)out, (void)source_hash;
    return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                   "the OpenCL bandwidth kernels declare no tuning space yet");
}

int ff_cl_mem_point_check(const struct cl_dev *d, const struct ff_kernel_desc *desc, char *err,
                          size_t errlen)
{
    (void)d, (void)desc, (void)err, (void)errlen;
    return FF_OK;
}
