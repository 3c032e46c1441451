/*
 * backends/vulkan/vk_device.c — enumerate physical devices and open one, in steps:
 * pick the physical device (1), query what it offers (2, vk_features.c), pick a compute
 * queue family (3), create the logical device (4), the memory types and submission objects
 * (5), and describe it in struct ff_device_info (6).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"

int ffvk_device_count(uint32_t *count, char *err, size_t errlen)
{
    struct ffvk_instance inst;
    int ret = ffvk_instance_create(&inst, err, errlen);
    if (ret < 0)
        return ret;
    uint32_t n = 0;
    VkResult r = inst.fn.vkEnumeratePhysicalDevices(inst.instance, &n, NULL);
    ffvk_instance_finish(&inst);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE)
        return ff_errf(err, errlen, FF_ERR_NO_DEVICE, "vkEnumeratePhysicalDevices failed: %s",
                       ffvk_result_str(r));
    *count = n;
    return FF_OK;
}

static const char *vendor_name(uint32_t id)
{
    switch (id) {
    case 0x10de: return "NVIDIA";
    case 0x1002: return "AMD";
    case 0x1022: return "AMD";
    case 0x8086: return "Intel";
    case 0x13b5: return "ARM";
    case 0x5143: return "Qualcomm";
    case 0x106b: return "Apple";
    case 0x1010: return "Imagination";
    case 0x10005: return "Mesa";
    default: return NULL;
    }
}

static const char *type_name(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "gpu";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated-gpu";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "gpu";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
    }
}

static const char *comp_name(VkComponentTypeKHR t)
{
    switch ((int)t) {
    case VK_COMPONENT_TYPE_FLOAT16_KHR: return "f16";
    case VK_COMPONENT_TYPE_FLOAT32_KHR: return "f32";
    case VK_COMPONENT_TYPE_FLOAT64_KHR: return "f64";
    case VK_COMPONENT_TYPE_SINT8_KHR: return "s8";
    case VK_COMPONENT_TYPE_SINT16_KHR: return "s16";
    case VK_COMPONENT_TYPE_SINT32_KHR: return "s32";
    case VK_COMPONENT_TYPE_SINT64_KHR: return "s64";
    case VK_COMPONENT_TYPE_UINT8_KHR: return "u8";
    case VK_COMPONENT_TYPE_UINT16_KHR: return "u16";
    case VK_COMPONENT_TYPE_UINT32_KHR: return "u32";
    case VK_COMPONENT_TYPE_UINT64_KHR: return "u64";
    case 1000141000: return "bf16";
    default: return "?";
    }
}

static void driver_version_str(const VkPhysicalDeviceProperties *p, char *buf, size_t len)
{
    uint32_t v = p->driverVersion;
    if (p->vendorID == 0x10de)
        snprintf(buf, len, "%u.%u.%u.%u", v >> 22, (v >> 14) & 0xff, (v >> 6) & 0xff, v & 0x3f);
    else
        snprintf(buf, len, "%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
                 VK_API_VERSION_PATCH(v));
}

static int find_memory_types(struct ffvk_device *d, char *err, size_t errlen)
{
    const VkPhysicalDeviceMemoryProperties *m = &d->mem;
    /* Buffers live in the largest device-local heap; staging in host-visible
     * coherent memory, cached when offered so read-backs are not uncached. */
    int64_t best_dev = -1, best_stg = -1;
    uint64_t best_heap = 0;
    int best_stg_score = -1;
    for (uint32_t i = 0; i < m->memoryTypeCount; i++) {
        VkMemoryPropertyFlags f = m->memoryTypes[i].propertyFlags;
        uint64_t heap = m->memoryHeaps[m->memoryTypes[i].heapIndex].size;
        if ((f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) && !(f & VK_MEMORY_PROPERTY_PROTECTED_BIT) &&
            heap > best_heap) {
            best_heap = heap;
            best_dev = i;
        }
        if ((f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) &&
            (f & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) {
            int score = (f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) ? 2 : 1;
            if (score > best_stg_score) {
                best_stg_score = score;
                best_stg = i;
            }
        }
    }
    if (best_dev < 0) /* some drivers put everything in a non-device-local heap */
        best_dev = best_stg;
    if (best_dev < 0 || best_stg < 0)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "no usable device-local or host-visible memory type");
    d->type_device = (uint32_t)best_dev;
    d->type_staging = (uint32_t)best_stg;
    return FF_OK;
}

/* Step 6: what `flopfit devices` and the profile show about the device. */
static void describe(struct ffvk_device *d, const struct ffvk_caps *x)
{
    const VkPhysicalDeviceDriverProperties *drv = &x->drv;
    bool has_drv = x->driver_props, dot = x->dot_accel;
    struct ff_device_info *info = &d->base.info;
    const VkPhysicalDeviceProperties *p = &d->props;
    snprintf(info->name, sizeof(info->name), "%s", p->deviceName);
    const char *vn = vendor_name(p->vendorID);
    if (vn)
        snprintf(info->vendor, sizeof(info->vendor), "%s", vn);
    else
        snprintf(info->vendor, sizeof(info->vendor), "0x%04x", p->vendorID);
    snprintf(info->device_id, sizeof(info->device_id), "0x%04x:0x%04x", p->vendorID, p->deviceID);
    char ver[64];
    driver_version_str(p, ver, sizeof(ver));
    if (has_drv) {
        snprintf(info->platform, sizeof(info->platform), "%.127s", drv->driverName);
        snprintf(info->driver_version, sizeof(info->driver_version), "%.96s (%.24s)",
                 drv->driverInfo, ver);
    } else {
        snprintf(info->platform, sizeof(info->platform), "Vulkan");
        snprintf(info->driver_version, sizeof(info->driver_version), "%s", ver);
    }
    snprintf(info->api_version, sizeof(info->api_version), "Vulkan %u.%u.%u",
             VK_API_VERSION_MAJOR(p->apiVersion), VK_API_VERSION_MINOR(p->apiVersion),
             VK_API_VERSION_PATCH(p->apiVersion));
    snprintf(info->type, sizeof(info->type), "%s", type_name(p->deviceType));
    info->compute_units = 0; /* Vulkan does not report it */
    info->clock_mhz = 0;
    info->host_shared_memory = p->deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ||
                               p->deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU;
    uint32_t heap = d->mem.memoryTypes[d->type_device].heapIndex;
    info->global_mem_bytes = d->mem.memoryHeaps[heap].size;
    info->local_mem_bytes = p->limits.maxComputeSharedMemorySize;
    info->fp16 = d->float16;
    info->int8 = d->storage8;
    info->int8_dot = dot;
    info->coopmat = (d->coopmat_khr || d->coopmat_nv) && d->n_coopmat > 0;
    info->timer_resolution_ns = d->timestamps ? d->timestamp_period_ns : 0.0;

    /* Memory budget of the device heap where VK_EXT_memory_budget exists. */
    VkPhysicalDeviceMemoryBudgetPropertiesEXT budget = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
    if (x->budget) {
        VkPhysicalDeviceMemoryProperties2 mp = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2, .pNext = &budget};
        d->fn->vkGetPhysicalDeviceMemoryProperties2(d->phys, &mp);
        info->budget_bytes = budget.heapBudget[heap];
    }

    for (uint32_t i = 0; i < d->mem.memoryHeapCount && i < 4; i++) {
        char key[32];
        snprintf(key, sizeof(key), "heap%u", i);
        const VkMemoryHeap *h = &d->mem.memoryHeaps[i];
        if (x->budget)
            ff_info_add(info, key, "%.2f GiB%s, budget %.2f GiB, used %.2f GiB",
                        h->size / 1073741824.0,
                        (h->flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) ? " device-local" : "",
                        budget.heapBudget[i] / 1073741824.0, budget.heapUsage[i] / 1073741824.0);
        else
            ff_info_add(info, key, "%.2f GiB%s (no VK_EXT_memory_budget)", h->size / 1073741824.0,
                        (h->flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) ? " device-local" : "");
    }
    ff_info_add(info, "vendor_id", "0x%04x, device id 0x%04x", p->vendorID, p->deviceID);
    ff_info_add(info, "subgroup_size", "%u", d->subgroup_size);
    ff_info_add(info, "features",
                "shaderFloat16=%d shaderInt8=%d storageBuffer16BitAccess=%d "
                "storageBuffer8BitAccess=%d",
                d->float16, d->int8, d->storage16, d->storage8);
    ff_info_add(info, "max_storage_buffer_range", "%" PRIu64 " bytes", d->max_storage_range);
    ff_info_add(info, "max_workgroup", "%u invocations, %u x %u x %u, shared %u bytes",
                p->limits.maxComputeWorkGroupInvocations, p->limits.maxComputeWorkGroupSize[0],
                p->limits.maxComputeWorkGroupSize[1], p->limits.maxComputeWorkGroupSize[2],
                p->limits.maxComputeSharedMemorySize);
    if (d->timestamps)
        ff_info_add(info, "timestamps", "period %.3f ns, %u valid bits", d->timestamp_period_ns,
                    __builtin_popcountll(d->timestamp_mask));
    else
        ff_info_add(info, "timestamps", "not supported on the compute queue (wall time only)");

    const char *api = d->coopmat_khr  ? "VK_KHR_cooperative_matrix"
                      : d->coopmat_nv ? "VK_NV_cooperative_matrix"
                                      : NULL;
    if (!api) {
        ff_info_add(info, "cooperative_matrix",
                    "none (neither VK_KHR_ nor VK_NV_cooperative_matrix)");
        return;
    }
    /* Shapes as MxNxK A*B+C->Result, packed into as few entries as fit. */
    char line[sizeof(info->extra[0].value)];
    size_t used = 0;
    int part = 0;
    line[0] = 0;
    for (uint32_t i = 0; i <= d->n_coopmat; i++) {
        char one[64] = "";
        if (i < d->n_coopmat) {
            const struct ffvk_coopmat_shape *s = &d->coopmat[i];
            snprintf(one, sizeof(one), "%s%ux%ux%u %s*%s+%s->%s", used ? ", " : "", s->m, s->n,
                     s->k, comp_name(s->a), comp_name(s->b), comp_name(s->c), comp_name(s->result));
        }
        if (i == d->n_coopmat || used + strlen(one) >= sizeof(line)) {
            char key[48];
            snprintf(key, sizeof(key), part ? "cooperative_matrix_%d" : "cooperative_matrix", part);
            ff_info_add(info, key, "%s%s%s", part ? "" : api, part ? "" : ": ",
                        used ? line : "no subgroup-scope shapes");
            part++;
            used = 0;
            line[0] = 0;
            if (i < d->n_coopmat && one[0] == ',')
                memmove(one, one + 2, strlen(one + 2) + 1);
        }
        if (i < d->n_coopmat)
            used += (size_t)snprintf(line + used, sizeof(line) - used, "%s", one);
    }
}

/* Step 1: the index-th physical device, its properties and memory; Vulkan 1.1 at least. */
static int pick_physical(struct ffvk_device *d, uint32_t index, char *err, size_t errlen)
{
    const struct ffvk_fns *fn = d->fn;
    uint32_t n = 0;
    VkResult r = fn->vkEnumeratePhysicalDevices(d->inst.instance, &n, NULL);
    if (r != VK_SUCCESS || index >= n)
        return ff_errf(err, errlen, FF_ERR_NOT_FOUND, "Vulkan device %u not found", index);
    VkPhysicalDevice *phys = calloc(n, sizeof(*phys));
    if (!phys)
        return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "out of host memory");
    r = fn->vkEnumeratePhysicalDevices(d->inst.instance, &n, phys);
    d->phys = phys[index < n ? index : 0];
    free(phys);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE)
        return ffvk_check(d, r, "vkEnumeratePhysicalDevices", err, errlen);
    fn->vkGetPhysicalDeviceProperties(d->phys, &d->props);
    fn->vkGetPhysicalDeviceMemoryProperties(d->phys, &d->mem);
    if (d->props.apiVersion < VK_API_VERSION_1_1)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED, "%s supports only Vulkan 1.0",
                       d->props.deviceName);
    return FF_OK;
}

/* Step 3: one compute queue family; prefer one with timestamps. */
static int pick_queue_family(struct ffvk_device *d, uint32_t *valid_bits, char *err, size_t errlen)
{
    const struct ffvk_fns *fn = d->fn;
    uint32_t n_fam = 0;
    fn->vkGetPhysicalDeviceQueueFamilyProperties(d->phys, &n_fam, NULL);
    VkQueueFamilyProperties *fam = calloc(n_fam ? n_fam : 1, sizeof(*fam));
    if (!fam)
        return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "out of host memory");
    fn->vkGetPhysicalDeviceQueueFamilyProperties(d->phys, &n_fam, fam);
    int64_t qf = -1;
    for (uint32_t i = 0; i < n_fam; i++) {
        if (!(fam[i].queueFlags & VK_QUEUE_COMPUTE_BIT))
            continue;
        if (qf < 0 || (fam[i].timestampValidBits && !fam[qf].timestampValidBits))
            qf = i;
    }
    *valid_bits = qf >= 0 ? fam[qf].timestampValidBits : 0;
    free(fam);
    if (qf < 0)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED, "%s has no compute queue",
                       d->props.deviceName);
    d->queue_family = (uint32_t)qf;
    return FF_OK;
}

/* Step 4: the logical device with exactly the features we use, and its queue. */
static int create_device(struct ffvk_device *d, const struct ffvk_caps *c, char *err, size_t errlen)
{
    const struct ffvk_fns *fn = d->fn;
    struct ffvk_enable en;
    ffvk_enable_init(&en, d, c);
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = d->queue_family,
        .queueCount = 1,
        .pQueuePriorities = &prio,
    };
    VkDeviceCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = &en.features,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &qci,
        .enabledExtensionCount = en.n_names,
        .ppEnabledExtensionNames = en.names,
    };
    VkResult r = fn->vkCreateDevice(d->phys, &dci, NULL, &d->dev);
    if (r != VK_SUCCESS)
        return ffvk_check(d, r, "vkCreateDevice", err, errlen);
    fn->vkGetDeviceQueue(d->dev, d->queue_family, 0, &d->queue);
    return FF_OK;
}

/* Step 5: command pool and buffer, fence, timestamp queries (when the queue has them). */
static int create_submission(struct ffvk_device *d, uint32_t valid_bits, char *err, size_t errlen)
{
    const struct ffvk_fns *fn = d->fn;
    VkCommandPoolCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
        .queueFamilyIndex = d->queue_family,
    };
    VkResult r = fn->vkCreateCommandPool(d->dev, &pci, NULL, &d->pool);
    if (r != VK_SUCCESS)
        return ffvk_check(d, r, "vkCreateCommandPool", err, errlen);
    VkCommandBufferAllocateInfo cai = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = d->pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    r = fn->vkAllocateCommandBuffers(d->dev, &cai, &d->cmd);
    if (r != VK_SUCCESS)
        return ffvk_check(d, r, "vkAllocateCommandBuffers", err, errlen);
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    r = fn->vkCreateFence(d->dev, &fci, NULL, &d->fence);
    if (r != VK_SUCCESS)
        return ffvk_check(d, r, "vkCreateFence", err, errlen);
    if (valid_bits && d->props.limits.timestampPeriod > 0) {
        VkQueryPoolCreateInfo qpi = {
            .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
            .queryType = VK_QUERY_TYPE_TIMESTAMP,
            .queryCount = 2,
        };
        if (fn->vkCreateQueryPool(d->dev, &qpi, NULL, &d->timestamps) != VK_SUCCESS)
            d->timestamps = VK_NULL_HANDLE;
        d->timestamp_mask = valid_bits >= 64 ? UINT64_MAX : (UINT64_C(1) << valid_bits) - 1;
        d->timestamp_period_ns = d->props.limits.timestampPeriod;
    }
    return FF_OK;
}

int ffvk_device_open(uint32_t index, struct ff_device **out, char *err, size_t errlen)
{
    struct ffvk_device *d = calloc(1, sizeof(*d));
    if (!d)
        return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "out of host memory");
    int ret = ffvk_instance_create(&d->inst, err, errlen);
    if (ret < 0)
        goto error_alloc;
    d->fn = &d->inst.fn;

    struct ffvk_caps caps;
    uint32_t valid_bits = 0;
    if ((ret = pick_physical(d, index, err, errlen)) < 0 ||
        (ret = ffvk_query_caps(d, &caps, err, errlen)) < 0 ||
        (ret = pick_queue_family(d, &valid_bits, err, errlen)) < 0 ||
        (ret = create_device(d, &caps, err, errlen)) < 0)
        goto error_instance;
    if ((ret = find_memory_types(d, err, errlen)) < 0 ||
        (ret = create_submission(d, valid_bits, err, errlen)) < 0)
        goto error_device;

    /* Largest single buffer a kernel can bind: a storage-buffer binding is
     * limited by maxStorageBufferRange (128 MiB on lavapipe), an allocation
     * by maxMemoryAllocationSize. */
    uint64_t max_alloc = caps.max_alloc_bytes ? caps.max_alloc_bytes : UINT64_MAX;
    d->base.info.max_alloc_bytes =
        max_alloc < d->max_storage_range ? max_alloc : d->max_storage_range;
    describe(d, &caps);
    ff_info_add(&d->base.info, "integer_dot_product", "%s",
                !caps.dot_feature ? "no"
                : caps.dot_accel  ? "yes, 4x8-bit packed signed accelerated"
                                  : "yes, not accelerated (emulated)");
    *out = &d->base;
    return FF_OK;

error_device:
    ffvk_device_destroy(&d->base);
    return ret;
error_instance:
    ffvk_instance_finish(&d->inst);
error_alloc:
    free(d);
    return ret;
}

void ffvk_device_destroy(struct ff_device *dev)
{
    struct ffvk_device *d = ffvk_dev(dev);
    const struct ffvk_fns *fn = d->fn;
    if (d->abandoned) {
        /* A submission never finished: waiting would never return and destroying would
         * pull memory from under it, so the device and its instance are leaked. */
        free(d);
        return;
    }
    if (d->dev) {
        fn->vkDeviceWaitIdle(d->dev);
        if (d->staging)
            fn->vkDestroyBuffer(d->dev, d->staging, NULL);
        if (d->staging_mem)
            fn->vkFreeMemory(d->dev, d->staging_mem, NULL);
        if (d->timestamps)
            fn->vkDestroyQueryPool(d->dev, d->timestamps, NULL);
        if (d->fence)
            fn->vkDestroyFence(d->dev, d->fence, NULL);
        if (d->pool)
            fn->vkDestroyCommandPool(d->dev, d->pool, NULL);
        fn->vkDestroyDevice(d->dev, NULL);
    }
    ffvk_instance_finish(&d->inst);
    free(d);
}
