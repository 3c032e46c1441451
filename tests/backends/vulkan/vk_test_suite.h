/*
 * tests/backends/vulkan/vk_test_suite.h — the set-up and tear-down of a Criterion suite on the
 * Vulkan device (test_vulkan.c, test_ops.c): open it, insist on the validation layer where CI
 * asked for it, and fail the suite on any validation error it reported.
 */
#ifndef FF_VK_TEST_SUITE_H
#define FF_VK_TEST_SUITE_H

#include <criterion/criterion.h>

#include "vulkan/vk_internal.h"
#include "vk_test_util.h"

static inline void vkt_suite_open(struct ff_device **dev)
{
    char err[512] = "";
    const struct ff_backend *b = ff_backend_find("vulkan");
    cr_assert_not_null(b, "vulkan backend not compiled in");
    int ret = ff_device_open(b, vkt_device_index(), dev, err, sizeof(err));
    cr_assert_eq(ret, FF_OK, "open: %s", err);
    if (getenv("FF_VK_VALIDATION") && vkt_ci())
        cr_assert(ff_vk_validation_active(), "CI=true and FF_VK_VALIDATION set, but the "
                                             "Khronos validation layer is not active");
}

static inline void vkt_suite_close(struct ff_device **dev)
{
    ff_device_destroy(dev);
    char last[512];
    ff_vk_validation_last(last, sizeof(last));
    cr_expect_eq(ff_vk_validation_errors(), 0, "validation errors: %llu, last: %s",
                 (unsigned long long)ff_vk_validation_errors(), last);
}

#endif
