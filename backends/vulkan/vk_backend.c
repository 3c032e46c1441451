/*
 * backends/vulkan/vk_backend.c — the Vulkan backend's ops table.
 */
#include "vk_internal.h"

static const struct ff_backend_ops vulkan_ops = {
    .name = "vulkan",
    .hint = "libvulkan1 and a Vulkan driver: mesa-vulkan-drivers (lavapipe on the CPU, "
            "RADV, ANV) or the GPU vendor's driver",
    .device_count = ffvk_device_count,
    .device_open = ffvk_device_open,
    .device_destroy = ffvk_device_destroy,
    .buf_create = ffvk_buf_create,
    .buf_destroy = ffvk_buf_destroy,
    .buf_write = ffvk_buf_write,
    .buf_read = ffvk_buf_read,
    .buf_transfer_timed = ffvk_buf_transfer_timed,
    .kernel_create = ffvk_kernel_create,
    .kernel_destroy = ffvk_kernel_destroy,
    .kernel_space = ffvk_kernel_space,
    .point_check = ffvk_point_check,
    .kernel_run = ffvk_kernel_run,
    .kernel_run_chain = ffvk_kernel_run_chain,
};

const struct ff_backend ff_backend_vulkan = {.ops = &vulkan_ops};
