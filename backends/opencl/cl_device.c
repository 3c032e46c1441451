/*
 * backends/opencl/cl_device.c — platforms, devices, contexts and what the
 * driver reports about them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_internal.h"

#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

const char *ff_cl_errname(cl_int code)
{
    switch (code) {
    case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
    case CL_DEVICE_NOT_AVAILABLE: return "CL_DEVICE_NOT_AVAILABLE";
    case CL_COMPILER_NOT_AVAILABLE: return "CL_COMPILER_NOT_AVAILABLE";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
    case CL_PROFILING_INFO_NOT_AVAILABLE: return "CL_PROFILING_INFO_NOT_AVAILABLE";
    case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
    case CL_INVALID_DEVICE: return "CL_INVALID_DEVICE";
    case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_KERNEL_ARGS: return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_WORK_GROUP_SIZE: return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_WORK_ITEM_SIZE: return "CL_INVALID_WORK_ITEM_SIZE";
    case CL_INVALID_GLOBAL_WORK_SIZE: return "CL_INVALID_GLOBAL_WORK_SIZE";
    case CL_INVALID_OPERATION: return "CL_INVALID_OPERATION";
    case CL_PLATFORM_NOT_FOUND_KHR: return "CL_PLATFORM_NOT_FOUND_KHR";
    case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST:
        return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
    default: return "CL error";
    }
}

int ff_cl_fail(cl_int code, const char *what, char *err, size_t errlen)
{
    int status = FF_ERR_DEVICE;
    switch (code) {
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_RESOURCES:
    case CL_INVALID_BUFFER_SIZE: status = FF_ERR_DEVICE_MEMORY; break;
    case CL_OUT_OF_HOST_MEMORY: status = FF_ERR_NO_MEMORY; break;
    case CL_BUILD_PROGRAM_FAILURE:
    case CL_COMPILER_NOT_AVAILABLE: status = FF_ERR_BUILD; break;
    case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST:
    case CL_DEVICE_NOT_AVAILABLE: status = FF_ERR_DEVICE_LOST; break;
    }
    return ff_errf(err, errlen, status, "%s: %s (%d)", what, ff_cl_errname(code), (int)code);
}

#define MAX_PLATFORMS 16
#define MAX_DEVICES   64

struct cl_flat {
    cl_platform_id platform;
    cl_device_id device;
};

/* Every device of every platform, in a stable order (platform, then device). */
static int enumerate(struct cl_flat *out, uint32_t *count, char *err, size_t errlen)
{
    cl_platform_id plats[MAX_PLATFORMS];
    cl_uint np = 0;
    cl_int rc = clGetPlatformIDs(MAX_PLATFORMS, plats, &np);
    if (rc == CL_PLATFORM_NOT_FOUND_KHR || (rc == CL_SUCCESS && np == 0))
        return ff_errf(err, errlen, FF_ERR_NO_DEVICE,
                       "no OpenCL platform found: install an OpenCL driver (ICD), e.g. Debian's "
                       "pocl-opencl-icd for the CPU, mesa-opencl-icd or intel-opencl-icd, or "
                       "your GPU vendor's driver");
    if (rc != CL_SUCCESS)
        return ff_cl_fail(rc, "clGetPlatformIDs", err, errlen);
    uint32_t n = 0;
    for (cl_uint p = 0; p < np && p < MAX_PLATFORMS; p++) {
        cl_device_id devs[MAX_DEVICES];
        cl_uint nd = 0;
        rc = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devs, &nd);
        if (rc == CL_DEVICE_NOT_FOUND)
            continue;
        if (rc != CL_SUCCESS)
            continue; /* a broken platform must not hide the others */
        for (cl_uint d = 0; d < nd && d < MAX_DEVICES && n < MAX_DEVICES; d++) {
            if (out) {
                out[n].platform = plats[p];
                out[n].device = devs[d];
            }
            n++;
        }
    }
    *count = n;
    return FF_OK;
}

static int cl_device_count(uint32_t *count, char *err, size_t errlen)
{
    return enumerate(NULL, count, err, errlen);
}

/* A string property into dst, cut to n - 1 bytes when longer (clGetDeviceInfo refuses a
 * buffer shorter than the value: PoCL's CL_DEVICE_VERSION is 66 bytes), "?" when unreadable. */
static void get_str(cl_device_id d, cl_device_info what, char *dst, size_t n)
{
    size_t len = 0;
    snprintf(dst, n, "?");
    if (clGetDeviceInfo(d, what, 0, NULL, &len) != CL_SUCCESS || len == 0)
        return;
    char *full = malloc(len + 1);
    if (!full)
        return;
    if (clGetDeviceInfo(d, what, len, full, NULL) == CL_SUCCESS) {
        full[len] = 0;
        snprintf(dst, n, "%s", full);
    }
    free(full);
}

/* Whether this process's CPU has AVX-512 VNNI (the host of a PoCL CPU device is this CPU). */
static bool host_has_avx512_vnni(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vnni");
#else
    return false;
#endif
}

static void fill_info(struct cl_dev *d)
{
    struct ff_device_info *info = &d->base.info;
    cl_device_id id = d->id;
    char *ext = NULL;
    size_t ext_len = 0;

    if (clGetPlatformInfo(d->platform, CL_PLATFORM_NAME, sizeof(info->platform), info->platform,
                          NULL) != CL_SUCCESS)
        snprintf(info->platform, sizeof(info->platform), "?");
    get_str(id, CL_DEVICE_NAME, info->name, sizeof(info->name));
    get_str(id, CL_DEVICE_VENDOR, info->vendor, sizeof(info->vendor));
    get_str(id, CL_DRIVER_VERSION, info->driver_version, sizeof(info->driver_version));
    get_str(id, CL_DEVICE_VERSION, info->api_version, sizeof(info->api_version));

    cl_device_type type = 0;
    clGetDeviceInfo(id, CL_DEVICE_TYPE, sizeof(type), &type, NULL);
    cl_bool unified = CL_FALSE;
    clGetDeviceInfo(id, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof(unified), &unified, NULL);
    const char *t = "other";
    if (type & CL_DEVICE_TYPE_GPU)
        t = unified ? "integrated-gpu" : "gpu";
    else if (type & CL_DEVICE_TYPE_CPU)
        t = "cpu";
    else if (type & CL_DEVICE_TYPE_ACCELERATOR)
        t = "accelerator";
    snprintf(info->type, sizeof(info->type), "%s", t);
    d->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
    info->host_shared_memory = d->is_cpu || unified;
    d->is_pocl = strstr(info->platform, "Portable Computing Language") != NULL ||
                 strstr(info->api_version, "PoCL") != NULL;

    cl_uint u = 0;
    cl_ulong ul = 0;
    size_t sz = 0;
    if (clGetDeviceInfo(id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(u), &u, NULL) == CL_SUCCESS)
        info->compute_units = u;
    u = 0;
    if (clGetDeviceInfo(id, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof(u), &u, NULL) == CL_SUCCESS)
        info->clock_mhz = u;
    if (clGetDeviceInfo(id, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(ul), &ul, NULL) == CL_SUCCESS)
        info->global_mem_bytes = ul;
    if (clGetDeviceInfo(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(ul), &ul, NULL) == CL_SUCCESS)
        info->max_alloc_bytes = ul;
    if (clGetDeviceInfo(id, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(ul), &ul, NULL) == CL_SUCCESS)
        info->local_mem_bytes = ul;
    if (clGetDeviceInfo(id, CL_DEVICE_PROFILING_TIMER_RESOLUTION, sizeof(sz), &sz, NULL) ==
        CL_SUCCESS)
        info->timer_resolution_ns = (double)sz;

    if (clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_len) == CL_SUCCESS && ext_len) {
        ext = calloc(1, ext_len + 1);
        if (ext && clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, ext_len, ext, NULL) != CL_SUCCESS)
            ext[0] = 0;
    }
    const char *e = ext ? ext : "";
    info->fp16 = strstr(e, "cl_khr_fp16") != NULL;
    /* CL_DEVICE_VENDOR_ID is the PCI vendor id on a GPU; only AMD's extension adds the device
     * id (CL_DEVICE_PCIE_ID_AMD, 0x4034, of cl_amd_device_attribute_query). */
    cl_uint vid = 0, pcie = 0;
    if (strstr(e, "cl_amd_device_attribute_query") &&
        clGetDeviceInfo(id, CL_DEVICE_VENDOR_ID, sizeof(vid), &vid, NULL) == CL_SUCCESS &&
        clGetDeviceInfo(id, (cl_device_info)0x4034, sizeof(pcie), &pcie, NULL) == CL_SUCCESS)
        snprintf(info->device_id, sizeof(info->device_id), "0x%04x:0x%04x", vid, pcie);
    info->int8 = true; /* char arithmetic is core OpenCL C */
    const bool khr_dot = strstr(e, "cl_khr_integer_dot_product") != NULL;
    info->int8_dot = khr_dot;
    /* PoCL compiles kernels for the host CPU but names an older target (Debian's build picks
     * skylake-avx512 from its fixed list on any AVX-512 CPU), so its code never uses VNNI even
     * where the CPU has it. matmul.cl's DOT path asks for the instruction itself, in a function
     * compiled for that feature; it may be built only where the host really has it. */
    d->x86_vnni = d->is_pocl && d->is_cpu && host_has_avx512_vnni();
    if (d->x86_vnni) {
        info->int8_dot = true;
        ff_info_add(info, "int8 dot",
                    "AVX-512 VNNI (vpdpbusd, 64 byte multiply-adds per "
                    "instruction), used by the int8 matmul and peak kernels");
    }
    info->coopmat = false; /* OpenCL exposes no matrix engines portably */

    if (clGetDeviceInfo(id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(sz), &sz, NULL) == CL_SUCCESS)
        ff_info_add(info, "max work-group size", "%zu", sz);
    cl_uint vw = 0;
    if (clGetDeviceInfo(id, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, sizeof(vw), &vw, NULL) ==
        CL_SUCCESS)
        ff_info_add(info, "preferred float vector", "%u", vw);
    ff_info_add(info, "fp16 (cl_khr_fp16)", "%s", info->fp16 ? "yes" : "no");
    ff_info_add(info, "cl_khr_integer_dot_product", "%s", khr_dot ? "yes" : "no");
    ff_info_add(info, "local memory", "%llu bytes", (unsigned long long)info->local_mem_bytes);
    free(ext);
}

static int cl_device_open(uint32_t index, struct ff_device **out, char *err, size_t errlen)
{
    struct cl_flat flat[MAX_DEVICES];
    uint32_t n = 0;
    int ret = enumerate(flat, &n, err, errlen);
    if (ret < 0)
        return ret;
    if (index >= n)
        return ff_errf(err, errlen, FF_ERR_NOT_FOUND, "no OpenCL device %u", index);

    struct cl_dev *d = calloc(1, sizeof(*d));
    if (!d)
        return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "out of host memory");
    d->platform = flat[index].platform;
    d->id = flat[index].device;

    cl_int rc;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)d->platform, 0};
    d->ctx = clCreateContext(props, 1, &d->id, NULL, NULL, &rc);
    if (!d->ctx) {
        ret = ff_cl_fail(rc, "clCreateContext", err, errlen);
        goto error_ctx;
    }
    d->queue = clCreateCommandQueue(d->ctx, d->id, CL_QUEUE_PROFILING_ENABLE, &rc);
    if (!d->queue) {
        ret = ff_cl_fail(rc, "clCreateCommandQueue", err, errlen);
        goto error_queue;
    }
    fill_info(d);
    *out = &d->base;
    return FF_OK;

error_queue:
    clReleaseContext(d->ctx);
error_ctx:
    free(d);
    return ret;
}

static void cl_device_destroy(struct ff_device *dev)
{
    struct cl_dev *d = (struct cl_dev *)dev;
    for (size_t i = 0; i < d->n_programs; i++) {
        clReleaseProgram(d->programs[i].program);
        free(d->programs[i].options);
    }
    clFinish(d->queue);
    clReleaseCommandQueue(d->queue);
    clReleaseContext(d->ctx);
    free(d);
}

static const struct ff_backend_ops cl_ops = {
    .name = "opencl",
    .hint = "pocl-opencl-icd (CPU), mesa-opencl-icd, intel-opencl-icd or the GPU vendor's ICD",
    .device_count = cl_device_count,
    .device_open = cl_device_open,
    .device_destroy = cl_device_destroy,
    .buf_create = ff_cl_buf_create,
    .buf_destroy = ff_cl_buf_destroy,
    .buf_write = ff_cl_buf_write,
    .buf_read = ff_cl_buf_read,
    .buf_transfer_timed = ff_cl_buf_transfer_timed,
    .kernel_create = ff_cl_kernel_create,
    .kernel_destroy = ff_cl_kernel_destroy,
    .kernel_space = ff_cl_kernel_space,
    .point_check = ff_cl_point_check,
    .kernel_run = ff_cl_kernel_run,
    .kernel_run_chain = ff_cl_kernel_run_chain,
    .kernel_run_sets = ff_cl_kernel_run_sets,
};

const struct ff_backend ff_backend_opencl = {.ops = &cl_ops};
