/*
 * tests/backends/vulkan/test_vulkan_noloader.c — without a Vulkan loader the backend
 * reports FF_ERR_NO_DEVICE and names the Debian packages (FF_VK_LOADER
 * points the backend at a library that does not exist). Needs no device.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

Test(vulkan_noloader, no_device_with_hint)
{
    setenv("FF_VK_LOADER", "/nonexistent/libvulkan.so.1", 1);
    const struct ff_backend *b = ff_backend_find("vulkan");
    cr_assert_not_null(b);
    char err[256] = "";
    uint32_t n = 99;
    cr_assert_eq(ff_backend_device_count(b, &n, err, sizeof(err)), FF_ERR_NO_DEVICE);
    cr_expect_eq(n, 0);
    cr_expect(strstr(err, "libvulkan1") && strstr(err, "mesa-vulkan-drivers"), "%s", err);
    cr_expect(strstr(ff_backend_hint(b), "mesa-vulkan-drivers"), "%s", ff_backend_hint(b));
    struct ff_device *d = NULL;
    cr_expect_eq(ff_device_open(b, 0, &d, err, sizeof(err)), FF_ERR_NO_DEVICE);
    cr_expect_null(d);
}
