/* backends/opencl/cl_buffer.c — device buffers and host transfers. */
#include <stdlib.h>
#include <string.h>

#include "cl_internal.h"

int ff_cl_buf_create(struct ff_device *dev, uint64_t bytes, struct ff_buf **out, char *err,
                     size_t errlen)
{
    struct cl_dev *d = (struct cl_dev *)dev;
    struct cl_buf *b = calloc(1, sizeof(*b));
    if (!b)
        return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "out of host memory");
    cl_int rc;
    b->mem = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, (size_t)bytes, NULL, &rc);
    if (!b->mem) {
        free(b);
        return ff_cl_fail(rc, "clCreateBuffer", err, errlen);
    }
    *out = &b->base;
    return FF_OK;
}

void ff_cl_buf_destroy(struct ff_buf *buf)
{
    struct cl_buf *b = (struct cl_buf *)buf;
    clReleaseMemObject(b->mem);
    free(b);
}

int ff_cl_buf_write(struct ff_buf *buf, uint64_t offset, const void *src, uint64_t bytes, char *err,
                    size_t errlen)
{
    struct cl_dev *d = (struct cl_dev *)buf->dev;
    cl_int rc = clEnqueueWriteBuffer(d->queue, ((struct cl_buf *)buf)->mem, CL_TRUE, (size_t)offset,
                                     (size_t)bytes, src, 0, NULL, NULL);
    return rc == CL_SUCCESS ? FF_OK : ff_cl_fail(rc, "clEnqueueWriteBuffer", err, errlen);
}

int ff_cl_buf_read(struct ff_buf *buf, uint64_t offset, void *dst, uint64_t bytes, char *err,
                   size_t errlen)
{
    struct cl_dev *d = (struct cl_dev *)buf->dev;
    cl_int rc = clEnqueueReadBuffer(d->queue, ((struct cl_buf *)buf)->mem, CL_TRUE, (size_t)offset,
                                    (size_t)bytes, dst, 0, NULL, NULL);
    return rc == CL_SUCCESS ? FF_OK : ff_cl_fail(rc, "clEnqueueReadBuffer", err, errlen);
}

/*
 * Pageable: clEnqueueRead/WriteBuffer from the caller's malloc'd memory.
 * Pinned: the conventional OpenCL recipe — a CL_MEM_ALLOC_HOST_PTR buffer,
 * mapped once, used as the host side of the copy (drivers pin it).
 */
int ff_cl_buf_transfer_timed(struct ff_buf *buf, enum ff_xfer kind, void *host, uint64_t bytes,
                             uint64_t *ns, char *err, size_t errlen)
{
    struct cl_dev *d = (struct cl_dev *)buf->dev;
    cl_mem mem = ((struct cl_buf *)buf)->mem;
    bool upload = kind == FF_XFER_UPLOAD_PAGEABLE || kind == FF_XFER_UPLOAD_PINNED;
    bool pinned = kind == FF_XFER_UPLOAD_PINNED || kind == FF_XFER_DOWNLOAD_PINNED;
    cl_mem staging = NULL;
    void *src = host;
    cl_int rc;
    int ret = FF_OK;

    if (pinned) {
        staging = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, (size_t)bytes,
                                 NULL, &rc);
        if (!staging)
            return ff_cl_fail(rc, "clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)", err, errlen);
        src = clEnqueueMapBuffer(d->queue, staging, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                 (size_t)bytes, 0, NULL, NULL, &rc);
        if (!src) {
            ret = ff_cl_fail(rc, "clEnqueueMapBuffer", err, errlen);
            goto error_map;
        }
        /*
         * Touch every staging page before the clock starts: pinned memory is
         * resident, and a fresh mapping would otherwise time first-touch page
         * faults (0.5 GB/s in a microVM) instead of the copy.
         */
        if (upload)
            memcpy(src, host, (size_t)bytes);
        else
            memset(src, 0, (size_t)bytes);
    }

    uint64_t t0 = ff_now_ns();
    if (upload)
        rc = clEnqueueWriteBuffer(d->queue, mem, CL_TRUE, 0, (size_t)bytes, src, 0, NULL, NULL);
    else
        rc = clEnqueueReadBuffer(d->queue, mem, CL_TRUE, 0, (size_t)bytes, src, 0, NULL, NULL);
    *ns = ff_now_ns() - t0;
    if (rc != CL_SUCCESS)
        ret = ff_cl_fail(rc, upload ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer", err, errlen);
    else if (pinned && !upload)
        memcpy(host, src, (size_t)bytes); /* outside the timed region */

    if (pinned) {
        clEnqueueUnmapMemObject(d->queue, staging, src, 0, NULL, NULL);
        clFinish(d->queue);
    }
error_map:
    if (staging)
        clReleaseMemObject(staging);
    return ret;
}
