/*
 * backends/clblast/clblast_gemm.c — CLBlast SGEMM/HGEMM as the library
 * reference on OpenCL devices, run through the same buffers and timing as
 * our kernels. CLBlast has no int8 GEMM.
 */
#include <stdio.h>

#include "../opencl/cl_internal.h"

#include <clblast_c.h>

int ff_clblast_create(struct cl_dev *d, struct cl_kern *k, char *err, size_t errlen)
{
    const struct ff_kernel_desc *desc = &k->base.desc;
    if (desc->prec == FF_PREC_INT8)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED, "CLBlast has no int8 GEMM");
    if (desc->prec == FF_PREC_FP16 && !d->base.info.fp16)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "CLBlast HGEMM needs cl_khr_fp16, which the device lacks");
    k->library = true;
    snprintf(k->base.variant, sizeof(k->base.variant), "CLBlast %s, default tuning",
             desc->prec == FF_PREC_FP32 ? "SGEMM" : "HGEMM");
    return FF_OK;
}

int ff_clblast_run(struct cl_dev *d, struct cl_kern *k, cl_mem a, cl_mem b, cl_mem c, cl_event *ev,
                   char *err, size_t errlen)
{
    const struct ff_kernel_desc *desc = &k->base.desc;
    size_t m = desc->m, n = desc->n, kk = desc->k;
    CLBlastStatusCode st;
    if (desc->prec == FF_PREC_FP32)
        st = CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, m, n, kk,
                          1.0f, a, 0, kk, b, 0, n, 0.0f, c, 0, n, &d->queue, ev);
    else
        st = CLBlastHgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, m, n, kk,
                          0x3c00 /* 1.0 */, a, 0, kk, b, 0, n, 0, c, 0, n, &d->queue, ev);
    if (st != CLBlastSuccess) {
        int status = FF_ERR_DEVICE;
        if (st == CLBlastOpenCLOutOfResources || st == CLBlastTempBufferAllocFailure ||
            st == CLBlastOpenCLOutOfHostMemory || st == CLBlastInsufficientMemoryTemp)
            status = FF_ERR_DEVICE_MEMORY;
        else if (st == CLBlastOpenCLBuildProgramFailure || st == CLBlastOpenCLCompilerNotAvailable)
            status = FF_ERR_BUILD;
        return ff_errf(err, errlen, status, "CLBlast %s failed with status %d",
                       desc->prec == FF_PREC_FP32 ? "SGEMM" : "HGEMM", (int)st);
    }
    return FF_OK;
}
