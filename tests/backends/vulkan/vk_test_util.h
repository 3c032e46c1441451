/*
 * tests/backends/vulkan/vk_test_util.h — shared by the Vulkan tests and benchmark:
 * device selection (with the CI rule). Random inputs, fp16 conversion, the
 * CPU reference and the comparison are bench/check/verify.h's, run through the
 * kernel check (bench/check/kcheck.h).
 */
#ifndef FF_VK_TEST_UTIL_H
#define FF_VK_TEST_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

#define VKT_SKIP 77

static inline bool vkt_ci(void)
{
    const char *ci = getenv("CI");
    return ci && (strcmp(ci, "true") == 0 || strcmp(ci, "1") == 0);
}

/*
 * Is there a Vulkan device to test on? Returns 0 when yes; otherwise prints
 * why and returns the exit code: 77 (skip) on a user's machine, 1 with
 * CI=true where lavapipe must exist.
 */
static inline int vkt_require_device(void)
{
    const struct ff_backend *b = ff_backend_find("vulkan");
    char err[256] = "";
    uint32_t n = 0;
    int ret = b ? ff_backend_device_count(b, &n, err, sizeof(err)) : FF_ERR_NO_DEVICE;
    if (ret == 0 && n > 0)
        return 0;
    fprintf(stderr, "no Vulkan device: %s (%s)\n", err[0] ? err : "none found",
            b ? ff_backend_hint(b) : "backend not built");
    if (vkt_ci()) {
        fprintf(stderr, "CI=true: a missing Vulkan device is a failure\n");
        return 1;
    }
    return VKT_SKIP;
}

static inline uint32_t vkt_device_index(void)
{
    const char *s = getenv("FF_VK_DEVICE");
    return s ? (uint32_t)strtoul(s, NULL, 10) : 0;
}

#endif
