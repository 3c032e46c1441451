/*
 * backends/vulkan/vk_features.c — what a physical device offers (extensions, properties,
 * features, cooperative-matrix shapes) and the feature chain we enable on the logical device:
 * exactly what the shaders use, nothing more.
 */
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"

static bool ext_in(const VkExtensionProperties *e, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(e[i].extensionName, name) == 0)
            return true;
    return false;
}

/* Extensions (or the core version that includes them). */
static int query_extensions(struct ffvk_device *d, struct ffvk_caps *c, char *err, size_t errlen)
{
    const struct ffvk_fns *fn = d->fn;
    uint32_t api = d->props.apiVersion;
    uint32_t n_ext = 0;
    fn->vkEnumerateDeviceExtensionProperties(d->phys, NULL, &n_ext, NULL);
    VkExtensionProperties *exts = calloc(n_ext ? n_ext : 1, sizeof(*exts));
    if (!exts)
        return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "out of host memory");
    if (fn->vkEnumerateDeviceExtensionProperties(d->phys, NULL, &n_ext, exts) != VK_SUCCESS)
        n_ext = 0;
    bool v12 = api >= VK_API_VERSION_1_2, v13 = api >= VK_API_VERSION_1_3;
    c->v12 = v12;
    c->storage8 = v12 || ext_in(exts, n_ext, "VK_KHR_8bit_storage");
    c->f16i8 = v12 || ext_in(exts, n_ext, "VK_KHR_shader_float16_int8");
    c->budget = ext_in(exts, n_ext, "VK_EXT_memory_budget");
    c->coop_khr = ext_in(exts, n_ext, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME);
    c->coop_nv = ext_in(exts, n_ext, "VK_NV_cooperative_matrix");
    c->dot = v13 || ext_in(exts, n_ext, "VK_KHR_shader_integer_dot_product");
    c->driver_props = v12 || ext_in(exts, n_ext, "VK_KHR_driver_properties");
    c->vmm = v12 || ext_in(exts, n_ext, "VK_KHR_vulkan_memory_model");
    free(exts);
    return FF_OK;
}

/* Subgroup size, driver, storage range, allocation limit, dot-product acceleration. */
static void query_properties(struct ffvk_device *d, struct ffvk_caps *c)
{
    VkPhysicalDeviceDriverProperties drv = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceShaderIntegerDotProductProperties dotp = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_PROPERTIES,
        .pNext = c->driver_props ? &drv : NULL};
    VkPhysicalDeviceSubgroupProperties sub = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES,
        .pNext = c->dot ? (void *)&dotp : (c->driver_props ? (void *)&drv : NULL)};
    VkPhysicalDeviceMaintenance3Properties m3 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES, .pNext = &sub};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                      .pNext = &m3};
    d->fn->vkGetPhysicalDeviceProperties2(d->phys, &p2);
    d->subgroup_size = sub.subgroupSize ? sub.subgroupSize : 1;
    d->subgroup_arith = (sub.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) &&
                        (sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT);
    d->subgroup_shuffle = d->subgroup_arith &&
                          (sub.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT) &&
                          (sub.supportedOperations & VK_SUBGROUP_FEATURE_VOTE_BIT);
    d->max_storage_range = d->props.limits.maxStorageBufferRange;
    c->drv = drv;
    c->drv.pNext = NULL;
    c->max_alloc_bytes = m3.maxMemoryAllocationSize;
    c->dot_accel = dotp.integerDotProduct4x8BitPackedSignedAccelerated;
}

static void query_coopmat(struct ffvk_device *d, bool khr, bool nv)
{
    const struct ffvk_fns *fn = d->fn;
    uint32_t n = 0;
    if (khr && fn->vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR &&
        fn->vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR(d->phys, &n, NULL) == VK_SUCCESS &&
        n) {
        VkCooperativeMatrixPropertiesKHR *p = calloc(n, sizeof(*p));
        if (!p)
            return;
        for (uint32_t i = 0; i < n; i++)
            p[i].sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR;
        if (fn->vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR(d->phys, &n, p) == VK_SUCCESS)
            for (uint32_t i = 0; i < n && d->n_coopmat < FFVK_MAX_COOPMAT; i++) {
                if (p[i].scope != VK_SCOPE_SUBGROUP_KHR)
                    continue;
                d->coopmat[d->n_coopmat++] =
                    (struct ffvk_coopmat_shape){p[i].MSize, p[i].NSize, p[i].KSize,     p[i].AType,
                                                p[i].BType, p[i].CType, p[i].ResultType};
            }
        free(p);
        return;
    }
    if (nv && fn->vkGetPhysicalDeviceCooperativeMatrixPropertiesNV &&
        fn->vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(d->phys, &n, NULL) == VK_SUCCESS &&
        n) {
        VkCooperativeMatrixPropertiesNV *p = calloc(n, sizeof(*p));
        if (!p)
            return;
        for (uint32_t i = 0; i < n; i++)
            p[i].sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV;
        if (fn->vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(d->phys, &n, p) == VK_SUCCESS)
            for (uint32_t i = 0; i < n && d->n_coopmat < FFVK_MAX_COOPMAT; i++) {
                if (p[i].scope != VK_SCOPE_SUBGROUP_NV)
                    continue;
                d->coopmat[d->n_coopmat++] =
                    (struct ffvk_coopmat_shape){p[i].MSize,
                                                p[i].NSize,
                                                p[i].KSize,
                                                (VkComponentTypeKHR)p[i].AType,
                                                (VkComponentTypeKHR)p[i].BType,
                                                (VkComponentTypeKHR)p[i].CType,
                                                (VkComponentTypeKHR)p[i].DType};
            }
        free(p);
    }
}

#define CHAIN(s)                                                                                   \
    do {                                                                                           \
        *tail = &(s);                                                                              \
        tail = &(s).pNext;                                                                         \
    } while (0)

/* Storage, arithmetic, dot-product, cooperative-matrix and memory-model features. */
static void query_features(struct ffvk_device *d, struct ffvk_caps *c)
{
    VkPhysicalDevice16BitStorageFeatures f16s = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
    VkPhysicalDevice8BitStorageFeatures f8s = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
    VkPhysicalDeviceShaderFloat16Int8Features f16i8 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
    VkPhysicalDeviceShaderIntegerDotProductFeatures fdot = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES};
    VkPhysicalDeviceCooperativeMatrixFeaturesKHR fck = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR};
    VkPhysicalDeviceCooperativeMatrixFeaturesNV fcn = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
    VkPhysicalDeviceVulkanMemoryModelFeatures fvmm = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    void **tail = &f2.pNext;
    CHAIN(f16s);
    if (c->storage8)
        CHAIN(f8s);
    if (c->f16i8)
        CHAIN(f16i8);
    if (c->dot)
        CHAIN(fdot);
    if (c->coop_khr)
        CHAIN(fck);
    else if (c->coop_nv)
        CHAIN(fcn);
    if (c->vmm)
        CHAIN(fvmm);
    d->fn->vkGetPhysicalDeviceFeatures2(d->phys, &f2);

    d->storage16 = f16s.storageBuffer16BitAccess;
    d->storage8 = c->storage8 && f8s.storageBuffer8BitAccess;
    d->float16 = c->f16i8 && f16i8.shaderFloat16;
    d->int8 = c->f16i8 && f16i8.shaderInt8;
    /* int8_dot: packed int8 dot products the hardware accelerates; lavapipe
     * offers the instructions but emulates them, which says nothing about
     * int8 throughput. */
    c->dot_feature = c->dot && fdot.shaderIntegerDotProduct;
    c->dot_accel = c->dot_feature && c->dot_accel;
    d->coopmat_khr = c->coop_khr && fck.cooperativeMatrix;
    d->coopmat_nv = !d->coopmat_khr && c->coop_nv && fcn.cooperativeMatrix;
    /* The cooperative-matrix SPIR-V declares the Vulkan memory model (glslang
     * does so for every coopmat shader); enable it only for those devices. */
    d->vulkan_memory_model = (d->coopmat_khr || d->coopmat_nv) && c->vmm && fvmm.vulkanMemoryModel;
}

int ffvk_query_caps(struct ffvk_device *d, struct ffvk_caps *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof(*c));
    int ret = query_extensions(d, c, err, errlen);
    if (ret < 0)
        return ret;
    query_properties(d, c);
    query_features(d, c);
    if (d->coopmat_khr || d->coopmat_nv)
        query_coopmat(d, d->coopmat_khr, d->coopmat_nv);
    return FF_OK;
}

void ffvk_enable_init(struct ffvk_enable *e, const struct ffvk_device *d, const struct ffvk_caps *c)
{
    memset(e, 0, sizeof(*e));
    e->features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    e->s16 = (VkPhysicalDevice16BitStorageFeatures){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
        .storageBuffer16BitAccess = d->storage16};
    e->s8 = (VkPhysicalDevice8BitStorageFeatures){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES,
        .storageBuffer8BitAccess = d->storage8};
    e->f16i8 = (VkPhysicalDeviceShaderFloat16Int8Features){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES,
        .shaderFloat16 = d->float16,
        .shaderInt8 = d->int8};
    e->coop_khr = (VkPhysicalDeviceCooperativeMatrixFeaturesKHR){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR,
        .cooperativeMatrix = VK_TRUE};
    e->coop_nv = (VkPhysicalDeviceCooperativeMatrixFeaturesNV){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV,
        .cooperativeMatrix = VK_TRUE};
    e->vmm = (VkPhysicalDeviceVulkanMemoryModelFeatures){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES,
        .vulkanMemoryModel = VK_TRUE};

    void **tail = &e->features.pNext;
    CHAIN(e->s16);
    if (c->storage8) {
        CHAIN(e->s8);
        if (!c->v12)
            e->names[e->n_names++] = "VK_KHR_8bit_storage";
    }
    if (c->f16i8) {
        CHAIN(e->f16i8);
        if (!c->v12)
            e->names[e->n_names++] = "VK_KHR_shader_float16_int8";
    }
    if (d->coopmat_khr) {
        CHAIN(e->coop_khr);
        e->names[e->n_names++] = VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME;
    } else if (d->coopmat_nv) {
        CHAIN(e->coop_nv);
        e->names[e->n_names++] = "VK_NV_cooperative_matrix";
    }
    if (d->vulkan_memory_model) {
        CHAIN(e->vmm);
        if (!c->v12)
            e->names[e->n_names++] = "VK_KHR_vulkan_memory_model";
    }
    if (c->budget)
        e->names[e->n_names++] = "VK_EXT_memory_budget";
}

#undef CHAIN
