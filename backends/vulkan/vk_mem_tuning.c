/*
 * backends/vulkan/vk_mem_tuning.c — the bandwidth kernels' tuning space (vector width, work per
 * invocation). Not declared yet: every bandwidth kernel builds its built-in variant.
 */
#include "vk_internal.h"

int ffvk_mem_space(const struct ffvk_device *d, const struct ff_kernel_desc *desc,
                   struct ff_tune_space *out, uint64_t *source_hash, char *err, size_t errlen)
{
    (void)d, (void)desc, (void)out, (void)source_hash;
    return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                   "the Vulkan bandwidth kernels declare no tuning space yet");
}

int ffvk_mem_point_check(const struct ffvk_device *d, const struct ff_kernel_desc *desc, char *err,
                         size_t errlen)
{
    (void)d, (void)desc, (void)err, (void)errlen;
    return FF_OK;
}
