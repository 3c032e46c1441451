/*
 * backends/opencl/cl_tuning.c — matmul tile parameters per device.
 *
 * A small table keyed on device type and vendor, then a fallback. CPU
 * devices (PoCL) get the register-only layout: PoCL's local memory is plain
 * memory plus barriers that split the kernel into loops, which measured
 * ~3 GFLOP/s against ~40 for register blocking on the CI CPU (DESIGN.md).
 * GPUs get local-memory tiles, 64x64 per work-group with 4x4 per work-item.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cl_internal.h"

static bool contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return true;
    return false;
}

static bool vendor_is(const struct ff_device_info *info, const char *what)
{
    return contains_nocase(info->vendor, what) || contains_nocase(info->platform, what);
}

/* The cl_matmul_tune device option (FF_CL_MATMUL_TUNE) "tm,tn,vw,use_local,wg0,wg1,tk"
 * overrides the table: a developer knob for tuning on new hardware, reported in the variant
 * text and recorded as override.cl_matmul_tune. The front-end has checked its form. */
static bool from_option(const struct cl_dev *d, struct cl_matmul_tune *t)
{
    const char *e = d->base.opts.cl_matmul_tune;
    unsigned v[7] = {0};
    if (!e[0] ||
        sscanf(e, "%u,%u,%u,%u,%u,%u,%u", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) != 7)
        return false;
    if (!v[0] || !v[1] || !v[2] || v[1] % v[2] || v[0] > 16 || v[1] > 64)
        return false;
    *t = (struct cl_matmul_tune){v[0], v[1], v[2], v[3],
                                 v[4], v[5], v[6], "FF_CL_MATMUL_TUNE override"};
    return true;
}

void ff_cl_tune_matmul(const struct cl_dev *d, enum ff_precision prec, struct cl_matmul_tune *t)
{
    const struct ff_device_info *info = &d->base.info;
    memset(t, 0, sizeof(*t));
    if (from_option(d, t))
        return;
    if (d->is_cpu) {
        /* fp32: 6 rows x 16 columns = 12 float8 accumulators, two B loads and
         * six broadcasts per k: the 16 AVX2 registers, FMA-bound. int8: 12 x 8
         * (int multiplies are slower; fewer live vectors measured faster).
         * Measured at n=2048 on the CI CPU against 4x16, 8x8, 12x8, 14x8,
         * 8x16 and 4x24 (README, "Tuning"). */
        t->tm = prec == FF_PREC_INT8 ? 12 : 6;
        t->tn = prec == FF_PREC_INT8 ? 8 : 16;
        t->vw = 8;
        /* Work-groups tall in rows: PoCL runs a group's work-items x-fastest
         * on one thread, so a 2x32 group reuses two B panels from L2 across
         * 32 row blocks instead of streaming all of B for every row block
         * (n=4096: 41 -> 117..132 GFLOP/s; n=2048 unchanged or better). */
        t->wg0 = prec == FF_PREC_INT8 ? 1 : 2;
        t->wg1 = 32;
        t->why = d->is_pocl ? "PoCL CPU: packed panels, register tile" : "CPU: register tile";
        return;
    }
    t->use_local = 1;
    t->tm = 4;
    t->tn = 4;
    t->tk = 16;
    t->wg0 = 16;
    t->wg1 = 16;
    if (vendor_is(info, "NVIDIA")) {
        t->tm = 8;
        t->tn = 4;
        t->tk = 16;
        t->why = "NVIDIA GPU: 128x64 local tiles";
    } else if (vendor_is(info, "Advanced Micro Devices") || vendor_is(info, "AMD")) {
        t->why = "AMD GPU: 64x64 local tiles";
    } else if (vendor_is(info, "Intel")) {
        t->wg0 = 8;
        t->wg1 = 8;
        t->tm = 4;
        t->tn = 4;
        t->why = "Intel GPU: 32x32 local tiles";
    } else {
        t->why = "GPU fallback: 64x64 local tiles";
    }
}

/* The matmul kernel's tuning space. Not declared yet: matmul builds the table's choice. */
int ff_cl_matmul_space(const struct cl_dev *d, const struct ff_kernel_desc *desc,
                       struct ff_tune_space *out, uint64_t *source_hash, char *err, size_t errlen)
{
    (void)d, (void)desc, (void)out, (void)source_hash;
    return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                   "the OpenCL matmul kernel declares no tuning space yet");
}

int ff_cl_matmul_point_check(const struct cl_dev *d, const struct ff_kernel_desc *desc, char *err,
                             size_t errlen)
{
    (void)d, (void)desc, (void)err, (void)errlen;
    return FF_OK;
}
