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
#include "cl_matmul.h"

/* The matmul kernel's source text (embedded from shaders/opencl/matmul.cl): built by
 * cl_kernel.c, hashed into the space's key here. */
const char *ff_cl_matmul_source(void)
{
    return ff_cl_src_matmul;
}

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
 * overrides the table's first seven fields (k-unroll, packing and int8's fp32 chunks stay the
 * table's; packing follows the layout; one row block per work-item): a developer knob for
 * tuning on new hardware, reported in the variant text and recorded as
 * override.cl_matmul_tune. The front-end has checked its form. */
static bool from_option(const struct cl_dev *d, struct cl_matmul_tune *t)
{
    const char *e = d->base.opts.cl_matmul_tune;
    unsigned v[7] = {0};
    if (!e[0] ||
        sscanf(e, "%u,%u,%u,%u,%u,%u,%u", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) != 7)
        return false;
    if (!v[0] || !v[1] || !v[2] || v[1] % v[2] || v[0] > 16 || v[1] > 64)
        return false;
    t->tm = v[0];
    t->tn = v[1];
    t->vw = v[2];
    t->use_local = v[3] ? 1 : 0;
    t->wg0 = v[4];
    t->wg1 = v[5];
    t->tk = t->use_local ? v[6] : 0;
    if (t->use_local) {
        t->pack = 0;
        t->f32acc = 0;
    } else if (!t->pack) {
        t->pack = 3; /* the option's register layout packs both, as it always did */
    }
    if (t->dot && (t->use_local || t->vw != 16 || t->tn % 16))
        t->dot = 0; /* the table's dot products need 16-lane B vectors in the register layout */
    t->rb = 1;      /* the option's tile, one row block per work-item */
    t->why = "FF_CL_MATMUL_TUNE override";
    return true;
}

/* CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT: the SIMD width of a CPU device (16 with AVX-512). */
static unsigned native_float_width(const struct cl_dev *d)
{
    cl_uint nw = 0;
    if (clGetDeviceInfo(d->id, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, sizeof(nw), &nw, NULL) !=
        CL_SUCCESS)
        nw = 0;
    return nw;
}

static void from_table(const struct cl_dev *d, enum ff_precision prec, struct cl_matmul_tune *t)
{
    const struct ff_device_info *info = &d->base.info;
    memset(t, 0, sizeof(*t));
    t->ku = 1;
    t->rb = 1;
    if (d->is_cpu && native_float_width(d) >= 16) {
        /* AVX-512 (32 registers of 16 floats; PoCL's skylake-avx512 target on the CI Xeon):
         * 8 rows x 48 columns = 24 float16 accumulators, three B loads and eight broadcasts
         * per k, 28 of the 32 registers, no spills (checked in the generated code). B packed
         * into panels, A read in place (its 8 row streams prefetch well; packing A too cost
         * 5-12 ms of a ~70 ms run). int8 multiplies in exact fp32 chunks (f32acc: 3x the
         * int32 multiply path, which has no 16-lane multiply-add on this target) on B panels
         * and a row-major float copy of A (1.07-1.13x A panels, 3 interleaved pairs). Chosen
         * by the search in doc/measurements (opencl-matmul-search): 20 tiles 4..14 x 16..64 at
         * n=2048, then work-group shapes, k-unroll and packing on the best three, interleaved
         * and repeated on the shared CI machine; quiet: 8x48 283-292 GFLOP/s, 6x64 276-291,
         * 12x32 255-257. */
        t->tm = 8;
        t->tn = 48;
        t->vw = 16;
        t->pack = 1;
        t->f32acc = prec == FF_PREC_INT8;
        /* Work-groups tall in rows: PoCL runs a group's work-items x-fastest on one thread,
         * so a 1x32 group reuses one B panel from L2 across 32 row blocks (1x16, 1x64, 2x32
         * and the runtime's choice measured slower or level; 0x0 2-3x slower). */
        t->wg0 = 1;
        t->wg1 = 32;
        t->why = d->is_pocl ? "PoCL AVX-512 CPU: B panels, 8x48 register tile"
                            : "AVX-512 CPU: register tile";
        /* Four row blocks a work-item, over 1024-deep slices of k, where a B panel outgrows
         * 1 MiB (matmul.cl RB): at K = 14336 a 48-column panel (2.75 MB of floats) outgrows a
         * core's L2, and a work-item per row block streamed it from the L3 each
         * (doc/measurements/2026-12-06-measure-the-job-12.md). */
        t->rb = prec == FF_PREC_INT8 ? 1 : 4;
        if (prec == FF_PREC_INT8 && d->x86_vnni) {
            /* VNNI: 4-way byte dot products (matmul.cl DOT), 64 multiply-adds per instruction
             * against fp32's 16 per FMA. Both operands packed (B as quads of k, A padded to
             * whole quads with its row sums). The fp32 tile again: at n=2048 (two interleaved
             * passes through cl_matmul_tune) 8x48 in 1x32 groups read 723-731 GOP/s, 1x64
             * 739-746, 8x32 714-717, 6x64 699-703, 12x32 647-650, 4x32 in 2x8 555-559, 14x16
             * 554-562. */
            t->f32acc = 0;
            t->dot = 1;
            t->pack = 3;
            t->why = "PoCL AVX-512 VNNI CPU: byte dot products, 8x48 register tile";
        }
        return;
    }
    if (d->is_cpu) {
        /* AVX2 and narrower (16 registers): fp32 6 rows x 16 columns = 12 float8 accumulators,
         * two B loads and six broadcasts per k, FMA-bound. int8: 12 x 8 (int multiplies are
         * slower; fewer live vectors measured faster). Measured at n=2048 on the earlier CI
         * CPU (AMD EPYC Zen 4, AVX2) against 4x16, 8x8, 12x8, 14x8, 8x16 and 4x24; a 2x32
         * group reused two B panels from L2 across 32 row blocks (n=4096: 41 -> 117..132
         * GFLOP/s). */
        t->tm = prec == FF_PREC_INT8 ? 12 : 6;
        t->tn = prec == FF_PREC_INT8 ? 8 : 16;
        t->vw = 8;
        t->pack = 3;
        t->wg0 = prec == FF_PREC_INT8 ? 1 : 2;
        t->wg1 = 32;
        t->why = d->is_pocl ? "PoCL CPU: packed panels, register tile" : "CPU: register tile";
        return;
    }
    t->use_local = 1;
    t->vw = 1;
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

void ff_cl_tune_matmul(const struct cl_dev *d, enum ff_precision prec, struct cl_matmul_tune *t)
{
    from_table(d, prec, t);
    from_option(d, t);
}

/* ---- the declared space -------------------------------------------------------------- */

/* Parameter order of the space (a point's v[] follows it). f32acc and dot are declared for int8
 * only. */
enum {
    P_TM,
    P_TN,
    P_VW,
    P_LOCAL,
    P_WG0,
    P_WG1,
    P_TK,
    P_KU,
    P_PACK,
    P_RB,
    P_F32ACC,
    P_DOT,
    P_COUNT
};

/* Values chosen to cover (sources: the vendors' optimisation guides and the tile tables of
 * CLBlast's XgemmDirect/Xgemm database): register tiles up to 16 x 64 per work-item (CPUs: 32
 * AVX-512 registers of 16 floats; GPUs: 4x4 .. 8x8), work-groups of 64..256 work-items in
 * shapes up to 256 x 1 (NVIDIA warps and AMD wavefronts of 32/64, Intel subgroups of 8..32),
 * so tiles up to 128 x 128 per work-group; vectors 1..16 (float16 = one AVX-512 register and
 * 64-byte loads; float4 = 16-byte loads of a GPU lane); local k tiles 4..32. wg 0: the runtime
 * chooses (register layout only); tk 0: no local memory. */
static const struct {
    const char *name;
    uint32_t n;
    uint32_t v[FF_TUNE_MAX_VALUES];
} space_params[P_COUNT] = {
    [P_TM] = {"tm", 8, {1, 2, 4, 6, 8, 12, 14, 16}},
    [P_TN] = {"tn", 8, {1, 2, 4, 8, 16, 32, 48, 64}},
    [P_VW] = {"vw", 5, {1, 2, 4, 8, 16}},
    [P_LOCAL] = {"local", 2, {0, 1}},
    [P_WG0] = {"wg0", 10, {0, 1, 2, 4, 8, 16, 32, 64, 128, 256}},
    [P_WG1] = {"wg1", 10, {0, 1, 2, 4, 8, 16, 32, 64, 128, 256}},
    [P_TK] = {"tk", 5, {0, 4, 8, 16, 32}},
    [P_KU] = {"ku", 4, {1, 2, 4, 8}},
    [P_PACK] = {"pack", 4, {0, 1, 2, 3}},
    [P_RB] = {"rb", 3, {1, 2, 4}},
    [P_F32ACC] = {"f32acc", 2, {0, 1}},
    [P_DOT] = {"dot", 2, {0, 1}},
};

static uint32_t n_params_for(enum ff_precision prec)
{
    return prec == FF_PREC_INT8 ? P_COUNT : P_F32ACC;
}

static void point_from_tune(const struct cl_matmul_tune *t, enum ff_precision prec,
                            struct ff_tune_point *p)
{
    memset(p, 0, sizeof(*p));
    p->n = n_params_for(prec);
    p->v[P_TM] = t->tm;
    p->v[P_TN] = t->tn;
    p->v[P_VW] = t->vw;
    p->v[P_LOCAL] = t->use_local;
    p->v[P_WG0] = t->wg0;
    p->v[P_WG1] = t->wg1;
    p->v[P_TK] = t->tk;
    p->v[P_KU] = t->ku;
    p->v[P_PACK] = t->pack;
    p->v[P_RB] = t->rb ? t->rb : 1;
    if (prec == FF_PREC_INT8) {
        p->v[P_F32ACC] = t->f32acc;
        p->v[P_DOT] = t->dot;
    }
}

static void tune_from_point(const struct ff_tune_point *p, struct cl_matmul_tune *t)
{
    memset(t, 0, sizeof(*t));
    t->tm = p->v[P_TM];
    t->tn = p->v[P_TN];
    t->vw = p->v[P_VW];
    t->use_local = p->v[P_LOCAL];
    t->wg0 = p->v[P_WG0];
    t->wg1 = p->v[P_WG1];
    t->tk = p->v[P_TK];
    t->ku = p->v[P_KU];
    t->pack = p->v[P_PACK];
    t->rb = p->v[P_RB];
    t->f32acc = p->n > P_F32ACC ? p->v[P_F32ACC] : 0;
    t->dot = p->n > P_DOT ? p->v[P_DOT] : 0;
    t->why = "tuning point";
}

/* Every value of p in its list (the front-end checks desc->tune; the option's point may not
 * be). */
static bool point_listed(const struct ff_tune_point *p)
{
    for (uint32_t i = 0; i < p->n; i++) {
        bool found = false;
        for (uint32_t j = 0; j < space_params[i].n && !found; j++)
            found = space_params[i].v[j] == p->v[i];
        if (!found)
            return false;
    }
    return true;
}

int ff_cl_matmul_space(const struct cl_dev *d, const struct ff_kernel_desc *desc,
                       struct ff_tune_space *out, uint64_t *source_hash, char *err, size_t errlen)
{
    if (!ff_matmul_has_kernel(desc->prec))
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED, "flopfit has no %s matmul kernel",
                       ff_precision_name(desc->prec));
    out->n_params = n_params_for(desc->prec);
    for (uint32_t i = 0; i < out->n_params; i++) {
        struct ff_tune_param *q = &out->param[i];
        snprintf(q->name, sizeof(q->name), "%s", space_params[i].name);
        q->n_values = space_params[i].n;
        memcpy(q->values, space_params[i].v, sizeof(q->values[0]) * q->n_values);
    }
    struct cl_matmul_tune t;
    from_table(d, desc->prec, &t);
    point_from_tune(&t, desc->prec, &out->dflt);
    const char *src = ff_cl_matmul_source();
    *source_hash = ff_tune_hash(*source_hash, src, strlen(src));
    (void)err, (void)errlen;
    return FF_OK;
}

/* Why t cannot be built on d for prec (FF_ERR_UNSUPPORTED), or FF_OK. */
static int check_tune(const struct cl_dev *d, enum ff_precision prec,
                      const struct cl_matmul_tune *t, char *err, size_t errlen)
{
    const int U = FF_ERR_UNSUPPORTED;
    if (t->tn % t->vw)
        return ff_errf(err, errlen, U, "tn=%u is not a multiple of vw=%u", t->tn, t->vw);
    if (prec == FF_PREC_FP16 && !d->base.info.fp16)
        return ff_errf(err, errlen, U, "device lacks cl_khr_fp16 (no fp16 arithmetic in OpenCL C)");
    if (t->f32acc && t->use_local)
        return ff_errf(err, errlen, U, "f32acc=1 needs the register layout (local=0)");
    if (t->rb > 1 && (t->use_local || t->pack != 1 || t->f32acc || t->dot))
        return ff_errf(err, errlen, U,
                       "rb=%u (row blocks per work-item) needs the register layout with B packed "
                       "and A in place (local=0, pack=1) and neither f32acc nor dot",
                       t->rb);
    /* The row blocks' sums live in private memory, which PoCL gives every work-item of a
     * group at once, on its thread's stack: a bounded group only. */
    const size_t rb_bytes = (size_t)t->rb * t->tm * t->tn * 4 * t->wg0 * t->wg1;
    if (t->rb > 1 && (!t->wg0 || rb_bytes > (1u << 20)))
        return ff_errf(err, errlen, U,
                       "rb=%u keeps %u x %u x %u partial sums per work-item in private memory: "
                       "it needs a work-group shape (wg0, wg1) whose sums stay within 1 MiB "
                       "(%ux%u: %zu bytes)",
                       t->rb, t->rb, t->tm, t->tn, t->wg0, t->wg1, rb_bytes);
    if (t->dot) {
        if (!d->x86_vnni)
            return ff_errf(err, errlen, U,
                           "dot=1 needs a PoCL CPU device on an x86 CPU with AVX-512 VNNI");
        if (t->use_local || t->f32acc)
            return ff_errf(err, errlen, U,
                           "dot=1 is a register-layout path of its own (local=0, f32acc=0)");
        if (t->vw != 16 || t->tn % 16)
            return ff_errf(err, errlen, U,
                           "dot=1 works on 16-lane vectors: vw=16 and tn a multiple of 16 (got "
                           "vw=%u, tn=%u)",
                           t->vw, t->tn);
        if (t->pack != 3)
            return ff_errf(err, errlen, U, "dot=1 reads both operands packed (pack=3)");
    }
    size_t wg = (size_t)t->wg0 * t->wg1;
    if (t->use_local) {
        if (!t->wg0 || !t->wg1)
            return ff_errf(err, errlen, U, "local=1 needs a work-group shape (wg0, wg1 >= 1)");
        if (!t->tk)
            return ff_errf(err, errlen, U, "local=1 needs a k tile (tk >= 4)");
        if (t->pack)
            return ff_errf(err, errlen, U, "pack=%u applies to the register layout (local=0) only",
                           t->pack);
    } else {
        if (t->tk)
            return ff_errf(err, errlen, U,
                           "tk=%u has no effect without local memory (local=0 takes tk=0)", t->tk);
        if ((t->wg0 == 0) != (t->wg1 == 0))
            return ff_errf(err, errlen, U,
                           "wg0=%u, wg1=%u: give both (a work-group shape) or neither (wg0=wg1=0, "
                           "the runtime chooses)",
                           t->wg0, t->wg1);
    }
    size_t max_wg = 0, sizes[3] = {0};
    clGetDeviceInfo(d->id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(max_wg), &max_wg, NULL);
    clGetDeviceInfo(d->id, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof(sizes), sizes, NULL);
    if (wg && max_wg && wg > max_wg)
        return ff_errf(err, errlen, U, "work-group %ux%u = %zu work-items; the device allows %zu",
                       t->wg0, t->wg1, wg, max_wg);
    if (wg && ((sizes[0] && t->wg0 > sizes[0]) || (sizes[1] && t->wg1 > sizes[1])))
        return ff_errf(err, errlen, U,
                       "work-group %ux%u exceeds the device's work-item sizes %zux%zu", t->wg0,
                       t->wg1, sizes[0], sizes[1]);
    if (t->use_local) {
        size_t el = prec == FF_PREC_FP32 ? 4 : prec == FF_PREC_FP16 ? 2 : 1;
        size_t bytes = (size_t)t->tk * (t->wg1 * t->tm + 1 + t->wg0 * t->tn) * el;
        if (bytes > d->base.info.local_mem_bytes)
            return ff_errf(err, errlen, U,
                           "local tiles need %zu bytes of local memory; the device has %llu", bytes,
                           (unsigned long long)d->base.info.local_mem_bytes);
    }
    /* Register budget, counted in 32-bit lanes: the accumulator tile plus one column of A and
     * one row of B per k step. CPUs: the vector register file (32 registers with AVX-512, i.e.
     * a native float width of 16; otherwise 16 registers: SSE/AVX2, NEON), up to twice over (a
     * spill into L1 still runs, measurably slower). GPUs: 255 registers per work-item (the
     * NVIDIA per-thread maximum; AMD has 256 VGPRs per lane), where a bigger tile spills to
     * memory. */
    unsigned budget;
    if (d->is_cpu) {
        unsigned nw = native_float_width(d);
        if (!nw)
            nw = 4;
        budget = 2 * (nw >= 16 ? 32u : 16u) * nw;
    } else {
        budget = 255;
    }
    unsigned lanes = t->tm * t->tn + t->tm + t->tn;
    if (lanes > budget)
        return ff_errf(err, errlen, U,
                       "a %ux%u tile needs %u registers' worth of 32-bit lanes; the budget on this "
                       "device is %u",
                       t->tm, t->tn, lanes, budget);
    /* CPU devices run a work-group's work-items as loops on one thread; across a barrier
     * (the local layout) PoCL keeps every work-item's live values in a per-work-group context
     * on the worker's stack. Measured on PoCL 3.1: 1024 work-items x 288 lanes (1.2 MB) run,
     * 4096 x 288 (4.7 MB) crash the process. Kept to 1 MiB. */
    size_t ctx = wg * lanes * 4;
    if (d->is_cpu && t->use_local && ctx > ((size_t)1 << 20))
        return ff_errf(err, errlen, U,
                       "local=1 on a CPU device keeps %zu bytes of work-item state per work-group "
                       "(%ux%u work-items, a %ux%u tile) across barriers; the limit is 1 MiB",
                       ctx, t->wg0, t->wg1, t->tm, t->tn);
    return FF_OK;
}

int ff_cl_matmul_point_check(const struct cl_dev *d, const struct ff_kernel_desc *desc, char *err,
                             size_t errlen)
{
    struct cl_matmul_tune t;
    tune_from_point(&desc->tune, &t);
    return check_tune(d, desc->prec, &t, err, errlen);
}

int ff_cl_matmul_choose(const struct cl_dev *d, const struct ff_kernel_desc *desc,
                        struct cl_matmul_tune *t, struct ff_tune_point *point, char *err,
                        size_t errlen)
{
    if (desc->tune.n) {
        /* The front-end has checked it is a point of the space and buildable here. */
        tune_from_point(&desc->tune, t);
        *point = desc->tune;
        return FF_OK;
    }
    from_table(d, desc->prec, t);
    bool opt = from_option(d, t);
    point_from_tune(t, desc->prec, point);
    if (!point_listed(point))
        point->n = 0; /* an option value outside the declared space: built, but no point */
    int ret = check_tune(d, desc->prec, t, err, errlen);
    if (ret < 0 && opt) {
        char why[200];
        snprintf(why, sizeof(why), "%s", err ? err : "");
        /* The device has what the kernel needs; the override asks for a shape it cannot
         * take: a failed build, not a missing capability. */
        return ff_errf(err, errlen, ret == FF_ERR_UNSUPPORTED ? FF_ERR_BUILD : ret,
                       "cl_matmul_tune=%s cannot be built here: %s", d->base.opts.cl_matmul_tune,
                       why);
    }
    return ret;
}
