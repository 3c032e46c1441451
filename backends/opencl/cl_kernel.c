/*
 * backends/opencl/cl_kernel.c — building and running kernels. Programs are
 * cached per device and build options, so each variant compiles once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "cl_internal.h"
#include "cl_mem.h"
#include "cl_peak.h"

static int get_program(struct cl_dev *d, const char *src, const char *options, cl_program *out,
                       char *err, size_t errlen)
{
    for (size_t i = 0; i < d->n_programs; i++) {
        if (d->programs[i].src == src && strcmp(d->programs[i].options, options) == 0) {
            *out = d->programs[i].program;
            return FF_OK;
        }
    }
    cl_int rc;
    cl_program p = clCreateProgramWithSource(d->ctx, 1, &src, NULL, &rc);
    if (!p)
        return ff_cl_fail(rc, "clCreateProgramWithSource", err, errlen);
    rc = clBuildProgram(p, 1, &d->id, options, NULL, NULL);
    if (rc != CL_SUCCESS) {
        char log[1024] = "";
        clGetProgramBuildInfo(p, d->id, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log, NULL);
        log[sizeof(log) - 1] = 0;
        for (char *c = log; *c; c++)
            if (*c == '\n')
                *c = ' ';
        clReleaseProgram(p);
        ff_cl_fail(rc, "clBuildProgram", err, errlen);
        if (err && errlen > strlen(err) + 8)
            snprintf(err + strlen(err), errlen - strlen(err), ": %.400s", log);
        return rc == CL_BUILD_PROGRAM_FAILURE || rc == CL_COMPILER_NOT_AVAILABLE
                   ? FF_ERR_BUILD
                   : ff_cl_fail(rc, "clBuildProgram", NULL, 0);
    }
    if (d->n_programs == CL_PROGRAM_CACHE) {
        /* Full: evict the oldest entry. Kernels hold their own reference. */
        clReleaseProgram(d->programs[0].program);
        free(d->programs[0].options);
        memmove(&d->programs[0], &d->programs[1], sizeof(d->programs[0]) * (CL_PROGRAM_CACHE - 1));
        d->n_programs--;
    }
    char *opt = strdup(options);
    if (!opt) {
        clReleaseProgram(p);
        return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "out of host memory");
    }
    d->programs[d->n_programs++] = (struct cl_program_entry){opt, src, p};
    *out = p;
    return FF_OK;
}

static size_t round_up(size_t x, size_t m)
{
    return (x + m - 1) / m * m;
}

/* matmul.cl's PREC define: 0 fp32, 1 fp16, 2 int8 (its own numbering, not enum ff_precision's,
 * where fp16 is 2 and int8 is 4). */
static int cl_prec(enum ff_precision p)
{
    return p == FF_PREC_FP16 ? 1 : p == FF_PREC_INT8 ? 2 : 0;
}

/* Scratch panels and the packing kernels of the packed register layout: pack_a when
 * t->pack & 2, pack_b when t->pack & 1 (matmul.cl). */
/* k's own buffers (scratch_bytes), bound once after its buffers and parameters; the second
 * starts zeroed. */
static int create_scratch(struct cl_dev *d, struct cl_kern *k, char *err, size_t errlen)
{
    for (int i = 0; i < 2; i++) {
        if (!k->scratch_bytes[i])
            continue;
        void *zero = i == 1 ? calloc(1, k->scratch_bytes[i]) : NULL;
        if (i == 1 && !zero)
            return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "no host memory for a kernel's counts");
        cl_int rc;
        k->scratch[i] =
            clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | (zero ? CL_MEM_COPY_HOST_PTR : 0),
                           k->scratch_bytes[i], zero, &rc);
        free(zero);
        if (!k->scratch[i])
            return ff_cl_fail(rc, "clCreateBuffer (a kernel's scratch)", err, errlen);
        rc = clSetKernelArg(k->kernel, (cl_uint)(k->base.n_bufs + k->base.n_params + i),
                            sizeof(cl_mem), &k->scratch[i]);
        if (rc != CL_SUCCESS)
            return ff_cl_fail(rc, "clSetKernelArg (a kernel's scratch)", err, errlen);
    }
    return FF_OK;
}

static int create_packing(struct cl_dev *d, struct cl_kern *k, cl_program prog,
                          const struct cl_matmul_tune *t, char *err, size_t errlen)
{
    const struct ff_kernel_desc *desc = &k->base.desc;
    size_t el = desc->prec == FF_PREC_FP32 || t->f32acc || k->storage16 ? 4
                : desc->prec == FF_PREC_FP16                            ? 2
                                                                        : 1;
    size_t mp = round_up(desc->m, t->tm), np = round_up(desc->n, t->tn);
    size_t bytes[2] = {mp * desc->k * el, np * desc->k * el};
    static const char *const names[2] = {"pack_a", "pack_b"};
    /* int8 f32acc with A in place still widens A to float (row-major, pack_a) */
    const bool want[2] = {(t->pack & 2) || t->f32acc || k->storage16, (t->pack & 1) != 0};
    if (t->dot) {
        /* matmul.cl DOT: A padded to whole quads of k plus its row sums (one row per
         * work-item), B in quads of k (one panel quad per work-item) */
        size_t k4 = round_up(desc->k, 4);
        bytes[0] = mp * k4 + mp * 4;
        bytes[1] = np * k4;
    }
    cl_int rc;
    for (int i = 0; i < 2; i++) {
        if (!want[i])
            continue;
        k->packed[i] =
            clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, bytes[i] ? bytes[i] : 1, NULL, &rc);
        if (!k->packed[i])
            return ff_cl_fail(rc, "clCreateBuffer (packed panels)", err, errlen);
        k->pack[i] = clCreateKernel(prog, names[i], &rc);
        if (!k->pack[i])
            return ff_cl_fail(rc, "clCreateKernel", err, errlen);
    }
    if (t->dot) {
        k->pack_global[0][0] = mp;
        k->pack_global[0][1] = 1;
        k->pack_global[1][0] = np / t->tn;
        k->pack_global[1][1] = round_up(desc->k, 4) / 4;
        return FF_OK;
    }
    if (t->pack & 2) {
        k->pack_global[0][0] = desc->k; /* pack_a: one panel row per work-item */
        k->pack_global[0][1] = mp / t->tm;
    } else {
        k->pack_global[0][0] = (desc->k + 15) / 16; /* widening A: 16 elements per work-item */
        k->pack_global[0][1] = desc->m;
    }
    k->pack_global[1][0] = np / t->tn; /* pack_b: one panel row per work-item */
    k->pack_global[1][1] = desc->k;
    return FF_OK;
}

static int create_matmul(struct cl_dev *d, struct cl_kern *k, char *err, size_t errlen,
                         const char **src, char *options, size_t optlen, const char **name)
{
    const struct ff_kernel_desc *desc = &k->base.desc;
    struct cl_matmul_tune t;
    int ret;
    if (k->storage16) {
        /* fp16 in memory, fp32 arithmetic: the fp32 kernel's tiles (the device's fp32 choice),
         * B widened to float panels and A to float as they are packed (matmul.cl PREC 3) */
        struct ff_kernel_desc f32 = *desc;
        f32.prec = FF_PREC_FP32;
        memset(&f32.tune, 0, sizeof(f32.tune));
        ret = ff_cl_matmul_choose(d, &f32, &t, &k->base.point, err, errlen);
        if (ret < 0)
            return ret;
        if (t.use_local)
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "device lacks cl_khr_fp16, and fp16 storage with fp32 arithmetic is "
                           "built for the register layout of CPU devices only");
        t.pack |= 1; /* B packed; A packed or widened in place (matmul.cl) */
        t.f32acc = t.dot = 0;
        if (t.pack != 1)
            t.rb = 1;
    } else if ((ret = ff_cl_matmul_choose(d, desc, &t, &k->base.point, err, errlen)) < 0)
        return ret;
    snprintf(options, optlen,
             "-cl-std=CL1.2 -DPREC=%d -DTM=%u -DTN=%u -DVW=%u -DUSE_LOCAL=%u -DWG0=%u "
             "-DWG1=%u -DTK=%u -DKU=%u -DPACK=%u -DRB=%u -DF32ACC=%u -DDOT=%u",
             k->storage16 ? 3 : cl_prec(desc->prec), t.tm, t.tn, t.vw ? t.vw : 1, t.use_local,
             t.wg0 ? t.wg0 : 1, t.wg1 ? t.wg1 : 1, t.tk ? t.tk : 1, t.ku ? t.ku : 1, t.pack,
             t.rb ? t.rb : 1, t.f32acc, t.dot);
    *src = ff_cl_matmul_source();
    *name = "matmul";
    size_t gx = (desc->n + t.tn - 1) / t.tn, gy = (desc->m + t.tm - 1) / t.tm;
    k->want_packing = !t.use_local && (t.pack || t.f32acc || k->storage16);
    k->tune = t;
    const char *el = desc->prec == FF_PREC_INT8 ? (t.f32acc ? "float"
                                                   : t.dot  ? "char4-dot int"
                                                            : "int")
                                                : "float";
    if (t.use_local) {
        k->has_local = true;
        k->local[0] = t.wg0;
        k->local[1] = t.wg1;
        gx = round_up(gx, t.wg0);
        gy = round_up(gy, t.wg1);
        snprintf(k->base.variant, sizeof(k->base.variant),
                 "%s: %ux%u per work-item, %s%u vectors, %ux%u work-group, local tiles k=%u, "
                 "k-unroll %u (%s)",
                 ff_precision_name(desc->prec), t.tm, t.tn, el, t.vw, t.wg0, t.wg1, t.tk, t.ku,
                 t.why);
    } else {
        if (t.wg0 && t.wg1) {
            k->has_local = true;
            k->local[0] = t.wg0;
            k->local[1] = t.wg1;
            gx = round_up(gx, t.wg0);
            gy = round_up(gy, t.wg1);
        }
        /* short: the variant holds 191 characters, the table's reason last */
        char rows[40] = "";
        if (t.rb > 1)
            snprintf(rows, sizeof(rows), ", %u row blocks at deep k", t.rb);
        snprintf(k->base.variant, sizeof(k->base.variant),
                 "%s: %ux%u per work-item, %s%u vectors, %s, no local memory, k-unroll %u%s (%s)",
                 k->storage16 ? "fp16 in fp32" : ff_precision_name(desc->prec), t.tm, t.tn, el,
                 t.vw,
                 t.pack == 3   ? "A and B packed"
                 : t.pack == 1 ? "B packed, A in place"
                 : t.pack == 2 ? "A packed, B in place"
                               : "in place",
                 t.ku,
                 t.f32acc ? ", exact fp32 chunks"
                 : t.dot  ? ", VNNI byte dot products"
                          : rows,
                 t.why);
    }
    k->global[0] = gx;
    k->global[1] = gy;
    k->base.n_bufs = 3;
    k->base.n_params = 3;
    return FF_OK;
}

/* The vector width of peak.cl's chains: the device's preferred width for the type (CPUs: the
 * SIMD width), at least 4 so a scalar-preferring GPU still gets independent work per chain. */
static unsigned peak_width(const struct cl_dev *d, enum ff_precision p)
{
    cl_device_info q = p == FF_PREC_FP16   ? CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF
                       : p == FF_PREC_INT8 ? CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT
                                           : CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT;
    cl_uint vw = 0;
    if (clGetDeviceInfo(d->id, q, sizeof(vw), &vw, NULL) != CL_SUCCESS)
        vw = 0;
    unsigned w = 4;
    while (w < vw && w < 16)
        w *= 2;
    return w;
}

static int create_peak(struct cl_dev *d, struct cl_kern *k, char *err, size_t errlen, char *options,
                       size_t optlen)
{
    const struct ff_kernel_desc *desc = &k->base.desc;
    if (desc->prec == FF_PREC_FP16 && !d->base.info.fp16)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "device lacks cl_khr_fp16 (no fp16 arithmetic in OpenCL C)");
    unsigned vw = peak_width(d, desc->prec);
    k->global[0] = desc->n;
    k->base.n_bufs = 1;
    k->base.n_params = 3;
    if (desc->prec == FF_PREC_INT8 && d->x86_vnni) {
        /* the int8 arithmetic the matmul uses here: VNNI byte dot products (peak.cl DOT) */
        snprintf(options, optlen, "-cl-std=CL1.2 -DPREC=%d -DVW=16 -DDOT=1", cl_prec(desc->prec));
        k->base.out_words = (uint64_t)desc->n * 8 * 16;
        k->base.peak_op = FF_PEAK_DOT4;
        snprintf(k->base.variant, sizeof(k->base.variant),
                 "int8: 8 independent 16-lane 4-way byte dot-product chains (AVX-512 VNNI "
                 "vpdpbusd) per work-item, %u work-items",
                 desc->n);
        return FF_OK;
    }
    snprintf(options, optlen, "-cl-std=CL1.2 -DPREC=%d -DVW=%u", cl_prec(desc->prec), vw);
    k->base.out_words = (uint64_t)desc->n * 8 * vw; /* 8 chains (peak.cl CHAINS) */
    snprintf(k->base.variant, sizeof(k->base.variant),
             "%s: 8 independent %s%u multiply-add chains per work-item, %u work-items",
             ff_precision_name(desc->prec),
             desc->prec == FF_PREC_FP16   ? "half"
             : desc->prec == FF_PREC_INT8 ? "char->uint"
                                          : "float",
             vw, desc->n);
    return FF_OK;
}

/* The bandwidth and latency kernels of mem.cl, in enum ff_kernel_id order. */
static const struct mem_kernel {
    const char *name;
    unsigned n_bufs, n_params;
} mem_kernels[] = {
    {"mem_read", 2, 0},  {"mem_write", 1, 1}, {"mem_copy", 2, 0},
    {"mem_triad", 3, 0}, {"empty", 0, 0},
};
_Static_assert(FF_KERNEL_EMPTY - FF_KERNEL_MEM_READ + 1 ==
                   sizeof(mem_kernels) / sizeof(mem_kernels[0]),
               "mem_kernels follows enum ff_kernel_id");

/* A bandwidth kernel at desc.tune, or at the built-in point (cl_mem_tuning.c). */
static void create_mem(struct cl_dev *d, struct cl_kern *k, char *options, size_t options_len)
{
    const struct ff_kernel_desc *desc = &k->base.desc;
    if (desc->tune.n)
        k->base.point = desc->tune;
    else
        ff_cl_mem_default(d, desc->id, &k->base.point);
    size_t local = 0;
    ff_cl_mem_apply(&k->base.point, desc->id, desc->n, options, options_len, &k->global[0], &local,
                    k->base.variant, sizeof(k->base.variant));
    if (local) {
        k->has_local = true;
        k->local[0] = local;
        k->local[1] = 1;
    }
    if (desc->id == FF_KERNEL_MEM_READ)
        k->base.out_words = k->global[0];
}

int ff_cl_kernel_create(struct ff_device *dev, const struct ff_kernel_desc *desc,
                        struct ff_kernel **out, char *err, size_t errlen)
{
    struct cl_dev *d = (struct cl_dev *)dev;
    struct cl_kern *k = calloc(1, sizeof(*k));
    if (!k)
        return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "out of host memory");
    k->base.desc = *desc;
    k->base.dev = dev;
    k->global[1] = 1;

    const char *src = NULL, *name = NULL;
    char options[256] = "-cl-std=CL1.2";
    int ret = FF_OK;

    switch (desc->id) {
    case FF_KERNEL_MATMUL:
        if (desc->prec == FF_PREC_FP16 && !dev->info.fp16) {
            if (!(desc->flags & FF_KDESC_FP16_STORAGE)) {
                ret = ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                              "device lacks cl_khr_fp16 (no fp16 arithmetic in OpenCL C)");
                goto error;
            }
            k->storage16 = true;
        }
        ret = create_matmul(d, k, err, errlen, &src, options, sizeof(options), &name);
        break;
    case FF_KERNEL_MATMUL_COOPMAT:
        ret = ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                      "OpenCL has no portable matrix-engine (cooperative matrix) access; "
                      "use the Vulkan backend");
        goto error;
    case FF_KERNEL_MATMUL_LIBRARY:
#if FF_HAVE_CLBLAST
        ret = ff_clblast_create(d, k, err, errlen);
#else
        ret = ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                      "flopfit was built without CLBlast (install libclblast-dev, rebuild)");
#endif
        if (ret < 0)
            goto error;
        k->base.n_bufs = 3;
        k->base.n_params = 3;
        *out = &k->base;
        return FF_OK;
    case FF_KERNEL_MEM_READ:
    case FF_KERNEL_MEM_WRITE:
    case FF_KERNEL_MEM_COPY:
    case FF_KERNEL_MEM_TRIAD:
    case FF_KERNEL_EMPTY: {
        const struct mem_kernel *mk = &mem_kernels[desc->id - FF_KERNEL_MEM_READ];
        src = ff_cl_src_mem;
        name = mk->name;
        k->base.n_bufs = mk->n_bufs;
        k->base.n_params = mk->n_params;
        if (desc->id == FF_KERNEL_EMPTY) {
            k->global[0] = 1;
            snprintf(k->base.variant, sizeof(k->base.variant), "one work-item, no work");
        } else
            create_mem(d, k, options, sizeof(options));
        break;
    }
    case FF_KERNEL_PEAK:
        ret = create_peak(d, k, err, errlen, options, sizeof(options));
        src = ff_cl_src_peak;
        name = "peak";
        break;
    default:
        if (ff_kernel_is_op(desc->id)) {
            ret = ff_cl_ops_create(d, k, &src, &name, options, sizeof(options), err, errlen);
            break;
        }
        ret = ff_errf(err, errlen, FF_ERR_UNSUPPORTED, "kernel %d not implemented on OpenCL",
                      (int)desc->id);
        goto error;
    }
    if (ret < 0)
        goto error;
    cl_program prog = NULL;
    ret = get_program(d, src, options, &prog, err, errlen);
    if (ret < 0)
        goto error;
    cl_int rc;
    k->kernel = clCreateKernel(prog, name, &rc);
    if (!k->kernel) {
        ret = ff_cl_fail(rc, "clCreateKernel", err, errlen);
        goto error;
    }
    if (k->has_local && desc->id >= FF_KERNEL_MEM_READ && desc->id <= FF_KERNEL_MEM_TRIAD) {
        /* The device's limit was checked (cl_mem_tuning.c); the kernel's may be lower. */
        size_t kmax = 0;
        if (clGetKernelWorkGroupInfo(k->kernel, d->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof(kmax),
                                     &kmax, NULL) == CL_SUCCESS &&
            k->local[0] > kmax) {
            ret = ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                          "work-group of %zu exceeds this kernel's maximum of %zu", k->local[0],
                          kmax);
            goto error;
        }
    }
    if (k->want_packing && (ret = create_packing(d, k, prog, &k->tune, err, errlen)) < 0)
        goto error;
    if (k->scratch_bytes[0] && (ret = create_scratch(d, k, err, errlen)) < 0)
        goto error;
    *out = &k->base;
    return FF_OK;

error:
    ff_cl_kernel_destroy(&k->base);
    return ret;
}

void ff_cl_kernel_destroy(struct ff_kernel *kernel)
{
    struct cl_kern *k = (struct cl_kern *)kernel;
    if (k->kernel)
        clReleaseKernel(k->kernel);
    for (int i = 0; i < 2; i++) {
        if (k->pack[i])
            clReleaseKernel(k->pack[i]);
        if (k->packed[i])
            clReleaseMemObject(k->packed[i]);
        if (k->scratch[i])
            clReleaseMemObject(k->scratch[i]);
    }
    free(k);
}

static int event_times(cl_event ev, uint64_t *device_ns, char *err, size_t errlen)
{
    cl_ulong t0 = 0, t1 = 0;
    cl_int rc = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(t0), &t0, NULL);
    if (rc == CL_SUCCESS)
        rc = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(t1), &t1, NULL);
    if (rc != CL_SUCCESS)
        return ff_cl_fail(rc, "clGetEventProfilingInfo", err, errlen);
    *device_ns = t1 > t0 ? (uint64_t)(t1 - t0) : 0;
    return FF_OK;
}

int ff_cl_kernel_run(struct ff_kernel *kernel, struct ff_buf *const *bufs, size_t n_bufs,
                     const uint32_t *params, size_t n_params, uint64_t *device_ns,
                     uint64_t *wall_ns, char *err, size_t errlen)
{
    struct cl_kern *k = (struct cl_kern *)kernel;
    struct cl_dev *d = (struct cl_dev *)kernel->dev;
    cl_event ev = NULL, first = NULL;
    cl_int rc = CL_SUCCESS;
    int ret;

    uint64_t t0 = ff_now_ns();
    if (k->library) {
        /* CLBlast may enqueue several kernels (padding, transposes, the
         * GEMM) and its event covers only the last, so time from a marker
         * enqueued before the call to the end of that event. */
        cl_event before = NULL;
        rc = clEnqueueMarkerWithWaitList(d->queue, 0, NULL, &before);
        if (rc != CL_SUCCESS)
            return ff_cl_fail(rc, "clEnqueueMarkerWithWaitList", err, errlen);
#if FF_HAVE_CLBLAST
        ret = ff_clblast_run(d, k, ((struct cl_buf *)bufs[0])->mem, ((struct cl_buf *)bufs[1])->mem,
                             ((struct cl_buf *)bufs[2])->mem, &ev, err, errlen);
#else
        ret = FF_ERR_UNSUPPORTED;
#endif
        if (ret < 0) {
            clReleaseEvent(before);
            return ret;
        }
        rc = clWaitForEvents(1, &ev);
        *wall_ns = ff_now_ns() - t0;
        cl_ulong start = 0, end = 0;
        if (rc == CL_SUCCESS)
            rc = clGetEventProfilingInfo(before, CL_PROFILING_COMMAND_START, sizeof(start), &start,
                                         NULL);
        if (rc == CL_SUCCESS)
            rc = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(end), &end, NULL);
        clReleaseEvent(before);
        clReleaseEvent(ev);
        if (rc != CL_SUCCESS)
            return ff_cl_fail(rc, "CLBlast GEMM", err, errlen);
        *device_ns = end > start ? (uint64_t)(end - start) : 0;
        return FF_OK;
    } else {
        cl_mem mems[FF_MAX_BUFS];
        for (size_t i = 0; i < n_bufs; i++)
            mems[i] = ((struct cl_buf *)bufs[i])->mem;
        if (k->pack[0] || k->pack[1]) {
            /* pack_a(A, Ap, M, K) and/or pack_b(B, Bp, N, K), then matmul(Ap or A, Bp or B,
             * C, ...) */
            const cl_uint dims[2] = {params[0], params[1]};
            for (int i = 0; i < 2 && rc == CL_SUCCESS; i++) {
                if (!k->pack[i])
                    continue;
                rc = clSetKernelArg(k->pack[i], 0, sizeof(cl_mem), &mems[i]);
                if (rc == CL_SUCCESS)
                    rc = clSetKernelArg(k->pack[i], 1, sizeof(cl_mem), &k->packed[i]);
                if (rc == CL_SUCCESS)
                    rc = clSetKernelArg(k->pack[i], 2, sizeof(cl_uint), &dims[i]);
                if (rc == CL_SUCCESS)
                    rc = clSetKernelArg(k->pack[i], 3, sizeof(cl_uint), &params[2]);
                if (rc == CL_SUCCESS)
                    rc = clEnqueueNDRangeKernel(d->queue, k->pack[i], 2, NULL, k->pack_global[i],
                                                NULL, 0, NULL, first ? NULL : &first);
            }
            if (rc != CL_SUCCESS) {
                if (first)
                    clReleaseEvent(first);
                return ff_cl_fail(rc, "packing the inputs", err, errlen);
            }
            for (int i = 0; i < 2; i++)
                if (k->packed[i])
                    mems[i] = k->packed[i];
        }
        for (size_t i = 0; i < n_bufs && rc == CL_SUCCESS; i++)
            rc = clSetKernelArg(k->kernel, (cl_uint)i, sizeof(cl_mem), &mems[i]);
        for (size_t i = 0; i < n_params && rc == CL_SUCCESS; i++)
            rc = clSetKernelArg(k->kernel, (cl_uint)(n_bufs + i), sizeof(cl_uint), &params[i]);
        if (rc == CL_SUCCESS)
            rc = clEnqueueNDRangeKernel(d->queue, k->kernel, 2, NULL, k->global,
                                        k->has_local ? k->local : NULL, 0, NULL, &ev);
        if (rc != CL_SUCCESS) {
            if (first)
                clReleaseEvent(first);
            return ff_cl_fail(rc, "clEnqueueNDRangeKernel", err, errlen);
        }
    }
    rc = clWaitForEvents(1, &ev);
    *wall_ns = ff_now_ns() - t0;
    cl_int status = CL_COMPLETE;
    if (rc == CL_SUCCESS)
        clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL);
    if (rc != CL_SUCCESS || status < 0) {
        if (first)
            clReleaseEvent(first);
        clReleaseEvent(ev);
        return ff_cl_fail(rc != CL_SUCCESS ? rc : status, "kernel execution", err, errlen);
    }
    ret = event_times(ev, device_ns, err, errlen);
    if (ret == FF_OK && first) {
        /* The packing is part of the run: time from its start. */
        cl_ulong s0 = 0, e1 = 0;
        if (clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof(s0), &s0, NULL) ==
                CL_SUCCESS &&
            clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(e1), &e1, NULL) ==
                CL_SUCCESS &&
            e1 > s0)
            *device_ns = (uint64_t)(e1 - s0);
    }
    if (first)
        clReleaseEvent(first);
    clReleaseEvent(ev);
    return ret;
}

/* What every chain of launches starts with: flopfit's own single-kernel launches only, and
 * the parameters, set once for all of them. */
static int chain_start(struct cl_kern *k, size_t n_bufs, const uint32_t *params, size_t n_params,
                       char *err, size_t errlen)
{
    if (k->library || k->pack[0] || k->pack[1])
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "chains run flopfit's single-kernel launches, not a library call or a "
                       "packed matmul");
    cl_int rc = CL_SUCCESS;
    for (size_t i = 0; i < n_params && rc == CL_SUCCESS; i++)
        rc = clSetKernelArg(k->kernel, (cl_uint)(n_bufs + i), sizeof(cl_uint), &params[i]);
    return rc == CL_SUCCESS ? FF_OK : ff_cl_fail(rc, "clSetKernelArg", err, errlen);
}

/* Points the kernel's first n_bufs arguments at bufs. */
static cl_int set_buffers(struct cl_kern *k, struct ff_buf *const *bufs, size_t n_bufs)
{
    cl_int rc = CL_SUCCESS;
    for (size_t i = 0; i < n_bufs && rc == CL_SUCCESS; i++)
        rc =
            clSetKernelArg(k->kernel, (cl_uint)i, sizeof(cl_mem), &((struct cl_buf *)bufs[i])->mem);
    return rc;
}

int ff_cl_kernel_run_chain(struct ff_kernel *kernel, struct ff_buf *const *bufs, size_t n_bufs,
                           const uint32_t *params, size_t n_params, uint32_t count,
                           uint64_t *device_ns, uint64_t *wall_ns, char *err, size_t errlen)
{
    struct cl_kern *k = (struct cl_kern *)kernel;
    struct cl_dev *d = (struct cl_dev *)kernel->dev;
    int start = chain_start(k, n_bufs, params, n_params, err, errlen);
    if (start < 0)
        return start;
    cl_int rc = set_buffers(k, bufs, n_bufs);
    if (rc != CL_SUCCESS)
        return ff_cl_fail(rc, "clSetKernelArg", err, errlen);
    /* the queue is in order: each launch starts after the previous one ended */
    cl_event first = NULL, last = NULL;
    uint64_t t0 = ff_now_ns();
    for (uint32_t i = 0; i < count && rc == CL_SUCCESS; i++) {
        cl_event *ev = i == 0 ? &first : i + 1 == count ? &last : NULL;
        rc = clEnqueueNDRangeKernel(d->queue, k->kernel, 2, NULL, k->global,
                                    k->has_local ? k->local : NULL, 0, NULL, ev);
    }
    if (rc == CL_SUCCESS)
        rc = clFinish(d->queue);
    *wall_ns = ff_now_ns() - t0;
    int ret = FF_OK;
    if (rc != CL_SUCCESS)
        ret = ff_cl_fail(rc, "a chain of launches", err, errlen);
    cl_ulong s0 = 0, e1 = 0;
    if (ret == FF_OK && (clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof(s0), &s0,
                                                 NULL) != CL_SUCCESS ||
                         clGetEventProfilingInfo(last ? last : first, CL_PROFILING_COMMAND_END,
                                                 sizeof(e1), &e1, NULL) != CL_SUCCESS))
        ret = ff_errf(err, errlen, FF_ERR_DEVICE, "no profiling times for a chain of launches");
    *device_ns = e1 > s0 ? (uint64_t)(e1 - s0) : 0;
    if (first)
        clReleaseEvent(first);
    if (last)
        clReleaseEvent(last);
    return ret;
}

int ff_cl_kernel_run_sets(struct ff_kernel *kernel, struct ff_buf *const *sets, size_t n_bufs,
                          size_t n_sets, const uint32_t *params, size_t n_params, uint32_t count,
                          uint64_t *device_ns, uint64_t *wall_ns, char *err, size_t errlen)
{
    struct cl_kern *k = (struct cl_kern *)kernel;
    struct cl_dev *d = (struct cl_dev *)kernel->dev;
    int start = chain_start(k, n_bufs, params, n_params, err, errlen);
    if (start < 0)
        return start;
    /* the queue is in order: each launch starts after the previous one ended; a launch takes
     * its arguments when enqueued, so the next set's buffers may be set at once */
    cl_event ev[FF_RUN_SETS_MAX];
    uint32_t n = 0;
    cl_int rc = CL_SUCCESS;
    const char *what = NULL;
    uint64_t t0 = ff_now_ns();
    for (; n < count; n++) {
        if ((rc = set_buffers(k, sets + (n % n_sets) * n_bufs, n_bufs)) != CL_SUCCESS) {
            what = "clSetKernelArg";
            break;
        }
        rc = clEnqueueNDRangeKernel(d->queue, k->kernel, 2, NULL, k->global,
                                    k->has_local ? k->local : NULL, 0, NULL, &ev[n]);
        if (rc != CL_SUCCESS) {
            what = "clEnqueueNDRangeKernel";
            break;
        }
    }
    cl_int done = clFinish(d->queue);
    *wall_ns = ff_now_ns() - t0;
    int ret = FF_OK;
    if (rc != CL_SUCCESS)
        ret = ff_cl_fail(rc, what, err, errlen);
    else if (done != CL_SUCCESS)
        ret = ff_cl_fail(done, "a chain of launches", err, errlen);
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        cl_int status = CL_COMPLETE;
        uint64_t ns = 0;
        if (ret == FF_OK &&
            clGetEventInfo(ev[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status,
                           NULL) == CL_SUCCESS &&
            status < 0)
            ret = ff_cl_fail(status, "kernel execution", err, errlen);
        if (ret == FF_OK && (ret = event_times(ev[i], &ns, err, errlen)) == FF_OK)
            sum += ns;
        clReleaseEvent(ev[i]);
    }
    *device_ns = sum;
    return ret;
}
