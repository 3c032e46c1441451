/*
 * backends/vulkan/vk_build.c — the generic compute pipeline every Vulkan kernel is built with
 * (shader module, descriptor layout of its buffers or texel views, push constants,
 * specialization constants) and the dispatch-size checks; vk_pipeline.c (matmul, bandwidth,
 * peak) and vk_ops.c (the op kernels) build on it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"

VkFormat ffvk_binding_format(const struct ffvk_kernel *k, uint32_t i)
{
    if (k->texel_format != VK_FORMAT_UNDEFINED && i < 2)
        return k->texel_format;
    return i < FF_MAX_BUFS ? k->bind_fmt[i] : VK_FORMAT_UNDEFINED;
}

int ffvk_build(struct ffvk_device *d, struct ffvk_kernel *k, const uint32_t *code, size_t bytes,
               uint32_t n_bufs, uint32_t push_words, const uint32_t *spec, uint32_t n_spec,
               char *err, size_t errlen)
{
    const struct ffvk_fns *fn = d->fn;
    VkResult r;
    /* bind[] and map[] below have room for FF_MAX_BUFS + FFVK_MAX_OWN bindings and 16
     * constants; n_bufs counts the kernel's own buffers too */
    if (n_bufs > FF_MAX_BUFS + FFVK_MAX_OWN || n_spec > 16)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "%" PRIu32 " buffers, %" PRIu32 " constants (at most %d and 16)", n_bufs,
                       n_spec, FF_MAX_BUFS + FFVK_MAX_OWN);
    VkShaderModuleCreateInfo smi = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = bytes,
        .pCode = code,
    };
    r = fn->vkCreateShaderModule(d->dev, &smi, NULL, &k->module);
    if (r != VK_SUCCESS) {
        int ret = ffvk_check(d, r, "vkCreateShaderModule", err, errlen);
        return ret == FF_ERR_DEVICE ? FF_ERR_BUILD : ret;
    }
    VkDescriptorSetLayoutBinding bind[FF_MAX_BUFS + FFVK_MAX_OWN];
    uint32_t n_texel = 0;
    for (uint32_t i = 0; i < n_bufs; i++) {
        bool texel = ffvk_binding_format(k, i) != VK_FORMAT_UNDEFINED;
        n_texel += texel;
        bind[i] = (VkDescriptorSetLayoutBinding){
            .binding = i,
            .descriptorType =
                texel ? VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .descriptorCount = 1,
            .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        };
    }
    VkDescriptorSetLayoutCreateInfo dli = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = n_bufs,
        .pBindings = bind,
    };
    r = fn->vkCreateDescriptorSetLayout(d->dev, &dli, NULL, &k->set_layout);
    if (r != VK_SUCCESS)
        return ffvk_check(d, r, "vkCreateDescriptorSetLayout", err, errlen);
    VkPushConstantRange pcr = {
        .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .offset = 0, .size = push_words * 4};
    VkPipelineLayoutCreateInfo pli = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = &k->set_layout,
        .pushConstantRangeCount = push_words ? 1 : 0,
        .pPushConstantRanges = &pcr,
    };
    r = fn->vkCreatePipelineLayout(d->dev, &pli, NULL, &k->layout);
    if (r != VK_SUCCESS)
        return ffvk_check(d, r, "vkCreatePipelineLayout", err, errlen);
    k->push_words = push_words;

    VkSpecializationMapEntry map[16];
    for (uint32_t i = 0; i < n_spec; i++)
        map[i] = (VkSpecializationMapEntry){.constantID = i, .offset = i * 4, .size = 4};
    VkSpecializationInfo si = {
        .mapEntryCount = n_spec,
        .pMapEntries = map,
        .dataSize = n_spec * 4,
        .pData = spec,
    };
    VkComputePipelineCreateInfo cpi = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage =
            {
                .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = k->module,
                .pName = "main",
                .pSpecializationInfo = n_spec ? &si : NULL,
            },
        .layout = k->layout,
    };
    r = ffvk_fault("pipeline")
            ? VK_ERROR_UNKNOWN
            : fn->vkCreateComputePipelines(d->dev, VK_NULL_HANDLE, 1, &cpi, NULL, &k->pipeline);
    if (r != VK_SUCCESS) {
        k->pipeline = VK_NULL_HANDLE;
        int ret = ffvk_check(d, r, "vkCreateComputePipelines", err, errlen);
        /* out of memory stays a memory error; anything else is a build failure */
        if (ret != FF_ERR_DEVICE_MEMORY && ret != FF_ERR_NO_MEMORY && ret != FF_ERR_DEVICE_LOST)
            ret =
                ff_errf(err, errlen, FF_ERR_BUILD,
                        "the driver could not build the compute pipeline: %s", ffvk_result_str(r));
        return ret;
    }
    if (n_bufs) {
        VkDescriptorPoolSize ps[2];
        uint32_t n_ps = 0;
        if (n_bufs > n_texel)
            ps[n_ps++] = (VkDescriptorPoolSize){.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                                .descriptorCount = n_bufs - n_texel};
        if (n_texel)
            ps[n_ps++] = (VkDescriptorPoolSize){.type = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER,
                                                .descriptorCount = n_texel};
        VkDescriptorPoolCreateInfo dpi = {
            .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
            .maxSets = 1,
            .poolSizeCount = n_ps,
            .pPoolSizes = ps,
        };
        r = fn->vkCreateDescriptorPool(d->dev, &dpi, NULL, &k->desc_pool);
        if (r != VK_SUCCESS)
            return ffvk_check(d, r, "vkCreateDescriptorPool", err, errlen);
        VkDescriptorSetAllocateInfo dsa = {
            .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
            .descriptorPool = k->desc_pool,
            .descriptorSetCount = 1,
            .pSetLayouts = &k->set_layout,
        };
        r = fn->vkAllocateDescriptorSets(d->dev, &dsa, &k->set);
        if (r != VK_SUCCESS)
            return ffvk_check(d, r, "vkAllocateDescriptorSets", err, errlen);
    }
    return FF_OK;
}

void ffvk_kernel_destroy(struct ff_kernel *kernel)
{
    struct ffvk_kernel *k = (struct ffvk_kernel *)kernel;
    struct ffvk_device *d = ffvk_dev(kernel->dev);
    const struct ffvk_fns *fn = d->fn;
    if (d->abandoned) { /* a shader may still run this pipeline: leak it */
        free(k);
        return;
    }
    for (uint32_t i = 0; i < k->n_own; i++)
        ff_buf_destroy(&k->own[i]);
    if (k->desc_pool)
        fn->vkDestroyDescriptorPool(d->dev, k->desc_pool, NULL);
    if (k->pipeline)
        fn->vkDestroyPipeline(d->dev, k->pipeline, NULL);
    if (k->layout)
        fn->vkDestroyPipelineLayout(d->dev, k->layout, NULL);
    if (k->set_layout)
        fn->vkDestroyDescriptorSetLayout(d->dev, k->set_layout, NULL);
    if (k->module)
        fn->vkDestroyShaderModule(d->dev, k->module, NULL);
    free(k);
}

uint32_t ffvk_div_up(uint64_t a, uint64_t b)
{
    uint64_t q = (a + b - 1) / b;
    return q > UINT32_MAX ? UINT32_MAX : (uint32_t)q;
}

int ffvk_check_groups(const struct ffvk_device *d, const struct ffvk_kernel *k, char *err,
                      size_t errlen)
{
    for (int i = 0; i < 3; i++)
        if (k->groups[i] == 0 || k->groups[i] > d->props.limits.maxComputeWorkGroupCount[i])
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "dispatch of %u work-groups in dimension %d exceeds the device "
                           "limit of %u",
                           k->groups[i], i, d->props.limits.maxComputeWorkGroupCount[i]);
    return FF_OK;
}
