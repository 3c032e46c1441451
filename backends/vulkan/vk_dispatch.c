/*
 * backends/vulkan/vk_dispatch.c — record, submit and time work on the
 * device's one queue. Every call waits for its submission, so one command
 * buffer and one fence per device suffice.
 */
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"

/* How long a single submission may run before it is reported as a timeout: the timeout_s
 * device option (FF_VK_TIMEOUT_S), else 600 s. */
static uint64_t timeout_s(const struct ffvk_device *d)
{
    return d->base.opts.timeout_s ? d->base.opts.timeout_s : 600;
}

/*
 * After a timeout the submission is still running and still owns the command buffer, the
 * pipeline, the descriptor set and every buffer it binds; the caller frees those as soon as
 * the error comes back. So wait for it here, up to this long more. A hung GPU is reset by its
 * kernel driver within seconds, which ends the wait with VK_ERROR_DEVICE_LOST (after which
 * objects may be destroyed); a device that never finishes is abandoned (d->abandoned: its
 * objects are leaked rather than freed under a running shader).
 */
#define DRAIN_NS (UINT64_C(600) * 1000000000u)

int ffvk_cmd_begin(struct ffvk_device *d, char *err, size_t errlen)
{
    const struct ffvk_fns *fn = d->fn;
    if (d->lost)
        return ff_errf(err, errlen, FF_ERR_DEVICE_LOST,
                       "the Vulkan device was lost (or timed out) earlier");
    VkResult r = fn->vkResetCommandBuffer(d->cmd, 0);
    if (r != VK_SUCCESS)
        return ffvk_check(d, r, "vkResetCommandBuffer", err, errlen);
    VkCommandBufferBeginInfo bi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    r = fn->vkBeginCommandBuffer(d->cmd, &bi);
    if (r != VK_SUCCESS)
        return ffvk_check(d, r, "vkBeginCommandBuffer", err, errlen);
    /* Earlier submissions (copies, kernels) wrote buffers this one may read:
     * a full memory dependency on everything submitted before. Cheap next to
     * the work, and it keeps every command buffer self-contained. */
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
    };
    fn->vkCmdPipelineBarrier(d->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                             VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    return FF_OK;
}

int ffvk_cmd_submit_wait(struct ffvk_device *d, uint64_t *wall_ns, char *err, size_t errlen)
{
    const struct ffvk_fns *fn = d->fn;
    /* Results (staging copies in particular) must be visible to the host. */
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
    };
    fn->vkCmdPipelineBarrier(d->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                             0, 1, &mb, 0, NULL, 0, NULL);
    VkResult r = fn->vkEndCommandBuffer(d->cmd);
    if (r != VK_SUCCESS)
        return ffvk_check(d, r, "vkEndCommandBuffer", err, errlen);
    r = fn->vkResetFences(d->dev, 1, &d->fence);
    if (r != VK_SUCCESS)
        return ffvk_check(d, r, "vkResetFences", err, errlen);
    VkSubmitInfo si = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .commandBufferCount = 1,
        .pCommandBuffers = &d->cmd,
    };
    uint64_t t0 = ff_now_ns();
    r = ffvk_fault("lost") ? VK_ERROR_DEVICE_LOST : fn->vkQueueSubmit(d->queue, 1, &si, d->fence);
    if (r != VK_SUCCESS)
        return ffvk_check(d, r, "vkQueueSubmit", err, errlen);
    r = fn->vkWaitForFences(d->dev, 1, &d->fence, VK_TRUE, timeout_s(d) * 1000000000u);
    uint64_t t1 = ff_now_ns();
    if (r == VK_TIMEOUT) {
        r = fn->vkWaitForFences(d->dev, 1, &d->fence, VK_TRUE, DRAIN_NS);
        double done_s = (double)(ff_now_ns() - t0) / 1e9;
        if (r == VK_SUCCESS)
            return ff_errf(err, errlen, FF_ERR_TIMEOUT,
                           "the device did not finish within %llu s (timeout_s, "
                           "FF_VK_TIMEOUT_S); it finished after %.1f s",
                           (unsigned long long)timeout_s(d), done_s);
        if (r == VK_TIMEOUT) {
            d->lost = true;
            d->abandoned = true;
        } else {
            ffvk_check(d, r, "vkWaitForFences", NULL, 0); /* marks a lost device */
        }
        return ff_errf(err, errlen, FF_ERR_TIMEOUT,
                       "the device did not finish within %llu s (timeout_s, FF_VK_TIMEOUT_S); "
                       "still not after %.0f s: %s",
                       (unsigned long long)timeout_s(d), done_s,
                       d->abandoned ? "device abandoned" : ffvk_result_str(r));
    }
    if (r != VK_SUCCESS)
        return ffvk_check(d, r, "vkWaitForFences", err, errlen);
    if (wall_ns)
        *wall_ns = t1 - t0;
    return FF_OK;
}

/* Record `count` dispatches of k, each waiting for the previous one's writes, in one
 * submission timed as a whole. */
static int run_chain(struct ff_kernel *k, struct ff_buf *const *bufs, size_t n_bufs,
                     const uint32_t *params, size_t n_params, uint32_t count, uint64_t *device_ns,
                     uint64_t *wall_ns, char *err, size_t errlen)
{
    struct ffvk_kernel *vk = (struct ffvk_kernel *)k;
    struct ffvk_device *d = ffvk_dev(k->dev);
    const struct ffvk_fns *fn = d->fn;

    /* The front-end has checked counts, sizes and the shape; params follow the fixed words. */
    for (size_t i = 0; i < n_params && vk->n_fixed_push + i < 4; i++)
        vk->push[vk->n_fixed_push + i] = params[i];
    int ret;

    /* Point the descriptor set at this call's buffers (the set is idle:
     * every earlier run was waited for). */
    VkDescriptorBufferInfo bi[FF_MAX_BUFS + FFVK_MAX_OWN];
    VkWriteDescriptorSet w[FF_MAX_BUFS + FFVK_MAX_OWN];
    VkBufferView views[FF_MAX_BUFS] = {VK_NULL_HANDLE};
    for (size_t i = 0; i < n_bufs; i++) {
        VkFormat fmt = ffvk_binding_format(vk, (uint32_t)i);
        bi[i] =
            (VkDescriptorBufferInfo){.buffer = ((struct ffvk_buf *)bufs[i])->buf,
                                     .offset = 0,
                                     .range = vk->exact_ranges ? vk->need_bytes[i] : VK_WHOLE_SIZE};
        w[i] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstSet = vk->set,
            .dstBinding = (uint32_t)i,
            .descriptorCount = 1,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .pBufferInfo = &bi[i],
        };
        if (fmt != VK_FORMAT_UNDEFINED) {
            /* views live for this run only: the buffers may change per call */
            VkBufferViewCreateInfo vci = {
                .sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO,
                .buffer = bi[i].buffer,
                .format = fmt,
                .offset = 0,
                .range = vk->need_bytes[i],
            };
            VkResult r = fn->vkCreateBufferView(d->dev, &vci, NULL, &views[i]);
            if (r != VK_SUCCESS) {
                ret = ffvk_check(d, r, "vkCreateBufferView", err, errlen);
                goto error_views;
            }
            w[i].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
            w[i].pBufferInfo = NULL;
            w[i].pTexelBufferView = &views[i];
        }
    }
    for (uint32_t i = 0; i < vk->n_own; i++) { /* the kernel's own, after the caller's */
        bi[n_bufs + i] = (VkDescriptorBufferInfo){
            .buffer = ((struct ffvk_buf *)vk->own[i])->buf, .offset = 0, .range = VK_WHOLE_SIZE};
        w[n_bufs + i] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstSet = vk->set,
            .dstBinding = (uint32_t)(n_bufs + i),
            .descriptorCount = 1,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .pBufferInfo = &bi[n_bufs + i],
        };
    }
    if (n_bufs + vk->n_own)
        fn->vkUpdateDescriptorSets(d->dev, (uint32_t)(n_bufs + vk->n_own), w, 0, NULL);

    ret = ffvk_cmd_begin(d, err, errlen);
    if (ret < 0)
        goto error_views;
    VkCommandBuffer cmd = d->cmd;
    if (d->timestamps) {
        fn->vkCmdResetQueryPool(cmd, d->timestamps, 0, 2);
        fn->vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, d->timestamps, 0);
    }
    fn->vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->pipeline);
    if (n_bufs + vk->n_own)
        fn->vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->layout, 0, 1, &vk->set,
                                    0, NULL);
    if (vk->push_words)
        fn->vkCmdPushConstants(cmd, vk->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, vk->push_words * 4,
                               vk->push);
    for (uint32_t c = 0; c < count; c++) {
        if (c) {
            VkMemoryBarrier mb = {
                .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
            };
            fn->vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0,
                                     NULL);
        }
        fn->vkCmdDispatch(cmd, vk->groups[0], vk->groups[1], vk->groups[2]);
    }
    if (d->timestamps)
        fn->vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, d->timestamps, 1);
    uint64_t wall = 0;
    ret = ffvk_cmd_submit_wait(d, &wall, err, errlen);
    if (ret < 0)
        goto error_views;
    for (size_t i = 0; i < n_bufs; i++)
        if (views[i])
            fn->vkDestroyBufferView(d->dev, views[i], NULL);

    uint64_t dev_ns = wall;
    if (d->timestamps) {
        uint64_t ts[2] = {0, 0};
        VkResult r =
            fn->vkGetQueryPoolResults(d->dev, d->timestamps, 0, 2, sizeof(ts), ts, sizeof(ts[0]),
                                      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
        if (r != VK_SUCCESS)
            return ffvk_check(d, r, "vkGetQueryPoolResults", err, errlen);
        /* Only timestampValidBits are meaningful; the mask also makes a
         * wrap-around between the two stamps come out right. */
        uint64_t ticks = (ts[1] - ts[0]) & d->timestamp_mask;
        dev_ns = (uint64_t)((double)ticks * d->timestamp_period_ns + 0.5);
    }
    *device_ns = dev_ns;
    *wall_ns = wall;
    return FF_OK;

error_views:
    /* a device abandoned after a timeout may still read the views: leak them rather than
     * destroy what the device reads */
    if (!d->abandoned)
        for (size_t i = 0; i < n_bufs; i++)
            if (views[i])
                fn->vkDestroyBufferView(d->dev, views[i], NULL);
    return ret;
}

int ffvk_kernel_run(struct ff_kernel *k, struct ff_buf *const *bufs, size_t n_bufs,
                    const uint32_t *params, size_t n_params, uint64_t *device_ns, uint64_t *wall_ns,
                    char *err, size_t errlen)
{
    return run_chain(k, bufs, n_bufs, params, n_params, 1, device_ns, wall_ns, err, errlen);
}

int ffvk_kernel_run_chain(struct ff_kernel *k, struct ff_buf *const *bufs, size_t n_bufs,
                          const uint32_t *params, size_t n_params, uint32_t count,
                          uint64_t *device_ns, uint64_t *wall_ns, char *err, size_t errlen)
{
    return run_chain(k, bufs, n_bufs, params, n_params, count, device_ns, wall_ns, err, errlen);
}
