/*
 * backends/vulkan/vk_memory.c — device buffers, the staging buffer, blocking
 * copies and timed transfers. Buffers live in device-local memory; the host
 * reaches them only through vkCmdCopyBuffer from/to a host-visible staging
 * buffer, which is what a discrete GPU requires (and costs little on
 * lavapipe or iGPUs).
 */
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"

/* Staging is reused and grows up to this; larger copies go in chunks. */
#define STAGING_MAX_BYTES (UINT64_C(64) << 20)

static int find_type(const struct ffvk_device *d, uint32_t bits, uint32_t want)
{
    if (bits & (1u << want))
        return (int)want;
    /* Same property flags in another allowed type, else anything allowed. */
    VkMemoryPropertyFlags f = d->mem.memoryTypes[want].propertyFlags;
    for (uint32_t i = 0; i < d->mem.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (d->mem.memoryTypes[i].propertyFlags & f) == f)
            return (int)i;
    return -1;
}

int ffvk_alloc(struct ffvk_device *d, uint64_t bytes, uint32_t type, VkBuffer *buf,
               VkDeviceMemory *mem, char *err, size_t errlen)
{
    const struct ffvk_fns *fn = d->fn;
    *buf = VK_NULL_HANDLE;
    *mem = VK_NULL_HANDLE;
    VkBufferCreateInfo bci = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = bytes,
        /* texel usage: matmul may read A and B through texel-buffer views */
        .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                 VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    VkResult r = fn->vkCreateBuffer(d->dev, &bci, NULL, buf);
    if (r != VK_SUCCESS)
        return ffvk_check(d, r, "vkCreateBuffer", err, errlen);
    VkMemoryRequirements req;
    fn->vkGetBufferMemoryRequirements(d->dev, *buf, &req);
    int t = find_type(d, req.memoryTypeBits, type);
    int ret;
    if (t < 0) {
        ret = ff_errf(err, errlen, FF_ERR_DEVICE, "no memory type fits a %llu-byte buffer",
                      (unsigned long long)bytes);
        goto error_buffer;
    }
    VkMemoryAllocateInfo mai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .allocationSize = req.size,
        .memoryTypeIndex = (uint32_t)t,
    };
    r = ffvk_fault("oom") ? VK_ERROR_OUT_OF_DEVICE_MEMORY
                          : fn->vkAllocateMemory(d->dev, &mai, NULL, mem);
    if (r != VK_SUCCESS) {
        ret = ffvk_check(d, r, "vkAllocateMemory", err, errlen);
        goto error_buffer;
    }
    r = fn->vkBindBufferMemory(d->dev, *buf, *mem, 0);
    if (r != VK_SUCCESS) {
        ret = ffvk_check(d, r, "vkBindBufferMemory", err, errlen);
        goto error_memory;
    }
    return FF_OK;

error_memory:
    fn->vkFreeMemory(d->dev, *mem, NULL);
    *mem = VK_NULL_HANDLE;
error_buffer:
    fn->vkDestroyBuffer(d->dev, *buf, NULL);
    *buf = VK_NULL_HANDLE;
    return ret;
}

int ffvk_buf_create(struct ff_device *dev, uint64_t bytes, struct ff_buf **out, char *err,
                    size_t errlen)
{
    struct ffvk_device *d = ffvk_dev(dev);
    if (d->lost)
        return ff_errf(err, errlen, FF_ERR_DEVICE_LOST, "the Vulkan device was lost earlier");
    struct ffvk_buf *b = calloc(1, sizeof(*b));
    if (!b)
        return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "out of host memory");
    int ret = ffvk_alloc(d, bytes, d->type_device, &b->buf, &b->mem, err, errlen);
    if (ret < 0) {
        free(b);
        return ret;
    }
    *out = &b->base;
    return FF_OK;
}

void ffvk_buf_destroy(struct ff_buf *buf)
{
    struct ffvk_buf *b = (struct ffvk_buf *)buf;
    struct ffvk_device *d = ffvk_dev(buf->dev);
    /* The device never holds a buffer past a call (every call waits, a timed-out one too),
     * so it can go at once; on an abandoned device it may still be in use: leaked. */
    if (!d->abandoned) {
        d->fn->vkDestroyBuffer(d->dev, b->buf, NULL);
        d->fn->vkFreeMemory(d->dev, b->mem, NULL);
    }
    free(b);
}

/* Make sure the staging buffer holds at least min(bytes, STAGING_MAX_BYTES). */
static int staging_reserve(struct ffvk_device *d, uint64_t bytes, char *err, size_t errlen)
{
    uint64_t want = bytes < STAGING_MAX_BYTES ? bytes : STAGING_MAX_BYTES;
    if (d->staging_bytes >= want)
        return FF_OK;
    if (d->abandoned) /* the staging buffer may still be in use */
        return ff_errf(err, errlen, FF_ERR_DEVICE_LOST, "the Vulkan device was abandoned earlier");
    const struct ffvk_fns *fn = d->fn;
    if (d->staging) {
        fn->vkDestroyBuffer(d->dev, d->staging, NULL);
        fn->vkFreeMemory(d->dev, d->staging_mem, NULL); /* unmaps implicitly */
        d->staging = VK_NULL_HANDLE;
        d->staging_mem = VK_NULL_HANDLE;
        d->staging_map = NULL;
        d->staging_bytes = 0;
    }
    /* Grow in powers of two from 1 MiB so small copies do not reallocate. */
    uint64_t size = UINT64_C(1) << 20;
    while (size < want)
        size <<= 1;
    int ret = ffvk_alloc(d, size, d->type_staging, &d->staging, &d->staging_mem, err, errlen);
    if (ret < 0)
        return ret;
    VkResult r = fn->vkMapMemory(d->dev, d->staging_mem, 0, VK_WHOLE_SIZE, 0, &d->staging_map);
    if (r != VK_SUCCESS) {
        ret = ffvk_check(d, r, "vkMapMemory (staging)", err, errlen);
        fn->vkDestroyBuffer(d->dev, d->staging, NULL);
        fn->vkFreeMemory(d->dev, d->staging_mem, NULL);
        d->staging = VK_NULL_HANDLE;
        d->staging_mem = VK_NULL_HANDLE;
        return ret;
    }
    d->staging_bytes = size;
    return FF_OK;
}

/* One copy between staging and a buffer range, submitted and waited for. */
static int copy_chunk(struct ffvk_device *d, struct ffvk_buf *b, uint64_t offset, uint64_t bytes,
                      bool upload, uint64_t *wall_ns, char *err, size_t errlen)
{
    int ret = ffvk_cmd_begin(d, err, errlen);
    if (ret < 0)
        return ret;
    VkBufferCopy region = {
        .srcOffset = upload ? 0 : offset,
        .dstOffset = upload ? offset : 0,
        .size = bytes,
    };
    if (upload)
        d->fn->vkCmdCopyBuffer(d->cmd, d->staging, b->buf, 1, &region);
    else
        d->fn->vkCmdCopyBuffer(d->cmd, b->buf, d->staging, 1, &region);
    return ffvk_cmd_submit_wait(d, wall_ns, err, errlen);
}

/*
 * Move `bytes` between host memory and buf at `offset` through staging.
 * *copy_ns (may be NULL) sums the device copies alone, without memcpy.
 */
static int transfer(struct ff_buf *buf, uint64_t offset, void *host, uint64_t bytes, bool upload,
                    uint64_t *copy_ns, char *err, size_t errlen)
{
    struct ffvk_device *d = ffvk_dev(buf->dev);
    struct ffvk_buf *b = (struct ffvk_buf *)buf;
    if (d->lost)
        return ff_errf(err, errlen, FF_ERR_DEVICE_LOST, "the Vulkan device was lost earlier");
    int ret = staging_reserve(d, bytes, err, errlen);
    if (ret < 0)
        return ret;
    uint64_t total = 0;
    for (uint64_t done = 0; done < bytes;) {
        uint64_t n = bytes - done < d->staging_bytes ? bytes - done : d->staging_bytes;
        uint64_t ns = 0;
        if (upload)
            memcpy(d->staging_map, (const char *)host + done, n);
        ret = copy_chunk(d, b, offset + done, n, upload, &ns, err, errlen);
        if (ret < 0)
            return ret;
        if (!upload)
            memcpy((char *)host + done, d->staging_map, n);
        total += ns;
        done += n;
    }
    if (copy_ns)
        *copy_ns = total;
    return FF_OK;
}

int ffvk_buf_write(struct ff_buf *buf, uint64_t offset, const void *src, uint64_t bytes, char *err,
                   size_t errlen)
{
    /* transfer() only reads from host memory when uploading */
    return transfer(buf, offset, (void *)(uintptr_t)src, bytes, true, NULL, err, errlen);
}

int ffvk_buf_read(struct ff_buf *buf, uint64_t offset, void *dst, uint64_t bytes, char *err,
                  size_t errlen)
{
    return transfer(buf, offset, dst, bytes, false, NULL, err, errlen);
}

/*
 * Pageable: the whole path a program pays for from malloc'd memory — memcpy
 * into staging plus vkCmdCopyBuffer (or the reverse), wall time.
 * Pinned: the data already sits in host-visible staging memory; only the
 * vkCmdCopyBuffer submissions are timed (memcpy excluded).
 */
int ffvk_buf_transfer_timed(struct ff_buf *buf, enum ff_xfer kind, void *host, uint64_t bytes,
                            uint64_t *ns, char *err, size_t errlen)
{
    bool upload = kind == FF_XFER_UPLOAD_PAGEABLE || kind == FF_XFER_UPLOAD_PINNED;
    bool pinned = kind == FF_XFER_UPLOAD_PINNED || kind == FF_XFER_DOWNLOAD_PINNED;
    struct ffvk_device *d = ffvk_dev(buf->dev);
    /* allocate staging before the clock starts */
    int ret = staging_reserve(d, bytes, err, errlen);
    if (ret < 0)
        return ret;
    uint64_t copy_ns = 0;
    uint64_t t0 = ff_now_ns();
    ret = transfer(buf, 0, host, bytes, upload, &copy_ns, err, errlen);
    uint64_t t1 = ff_now_ns();
    if (ret < 0)
        return ret;
    *ns = pinned ? copy_ns : t1 - t0;
    return FF_OK;
}
