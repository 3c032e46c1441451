/*
 * backends/opencl/cl_ops.c — the op kernels (backend.h, FF_KERNEL_GEMV .. FF_KERNEL_XENT) of
 * shaders/opencl/ops.cl: which -D options, launch shape and variant text each gets, and the
 * tuning spaces of the three whose speed depends on choices (gemv, attention decode and
 * prefill). The small ops (rmsnorm, rope, swiglu, add, xent) have no space: their one choice,
 * the vector width, is the device's preferred one.
 *
 * Defaults come from device properties only: the vector width from the preferred float width
 * (a CPU's SIMD width; GPUs report 1, their lanes being work-items), how many rows of W each
 * work-item takes, how many items share a KV head and over how many work-groups from the
 * compute units, so that every unit gets several work-groups, and the work-group size, the
 * rows per item and the gemv's software prefetch from the device type: a CPU runs a group's
 * items in a loop on one core, so small groups spread the rows over more cores, and its cores
 * need the prefetch to keep several weight streams going; a GPU needs whole warps (64 covers
 * 32- and 64-wide ones).
 */
#include <stdio.h>
#include <string.h>

#include "cl_internal.h"
#include "cl_ops.h"

/* gemv */
enum { GV_ROWS, GV_MB, GV_VW, GV_WG, GV_NEXT, GV_PF, GV_N };
static const struct ff_tune_param gemv_params[GV_N] = {
    [GV_ROWS] = {"rows", 4, {1, 2, 4, 8}},
    [GV_MB] = {"mb", 4, {1, 2, 4, 8}},
    [GV_VW] = {"vw", 3, {4, 8, 16}},
    [GV_WG] = {"wg", 9, {0, 1, 2, 4, 8, 16, 32, 64, 256}},
    /* 1: prefetch the next item's rows while this item runs, CPU devices and block formats;
     * before pf, so a search that takes it then tries each distance with it */
    [GV_NEXT] = {"next", 2, {0, 1}},
    /* software prefetch distance in bytes of each weight row, CPU devices only */
    [GV_PF] = {"pf", 5, {0, 256, 512, 1024, 2048}},
};
/* attention: decode takes split, prefill bq (query rows per item); both a position tile */
enum { AT_A, AT_TILE, AT_PF, AT_PARTS, AT_QK, AT_N };
static const struct ff_tune_param decode_params[AT_N] = {
    [AT_A] = {"split", 7, {1, 2, 4, 8, 16, 32, 64}},
    [AT_TILE] = {"tile", 4, {16, 32, 64, 128}},
    /* software prefetch distance in bytes of the K and V streams, CPU devices only */
    [AT_PF] = {"pf", 5, {0, 512, 1024, 2048, 4096}},
    /* work-groups per KV head, each a slice of the positions, merged by the last to finish */
    [AT_PARTS] = {"parts", 7, {1, 2, 4, 8, 16, 32, 64}},
    /* how a tile's scores are formed on 16-lane vectors (ops.cl): 0 each dot product across the
     * lanes, reduced 16 at a time; 1 the query rows side by side in the lanes and each K value
     * broadcast to them, no reduction (2 to 8 query rows per KV head) */
    [AT_QK] = {"qk", 2, {0, 1}},
};
static const struct ff_tune_param prefill_params[AT_PF] = {
    [AT_A] = {"bq", 4, {1, 2, 4, 8}},
    [AT_TILE] = {"tile", 4, {16, 32, 64, 128}},
};

static uint32_t preferred_float_width(const struct cl_dev *d)
{
    cl_uint vw = 0;
    if (clGetDeviceInfo(d->id, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, sizeof(vw), &vw, NULL) !=
        CL_SUCCESS)
        vw = 1;
    uint32_t w = 1;
    while (w * 2 <= vw && w < 16)
        w *= 2;
    return w;
}

static size_t max_work_group(const struct cl_dev *d)
{
    size_t wg = 0;
    if (clGetDeviceInfo(d->id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL) != CL_SUCCESS)
        wg = 1;
    return wg;
}

/* The widest vector of at most the preferred width that divides the head dimension. */
static uint32_t attn_width(const struct cl_dev *d, uint32_t kd)
{
    uint32_t w = preferred_float_width(d);
    while (w > 1 && kd % w)
        w /= 2;
    return w;
}

/* Whether decode's scores can take qk 1: 16-lane vectors and 2 to 8 query rows a KV head. */
static bool qk_fits(const struct cl_dev *d, const struct ff_kernel_desc *desc)
{
    return attn_width(d, desc->k) == 16 && desc->g >= 2 && desc->g <= 8;
}

/* The smallest listed value >= want, or the largest. */
static uint32_t at_least(const struct ff_tune_param *p, uint32_t want)
{
    for (uint32_t i = 0; i < p->n_values; i++)
        if (p->values[i] >= want)
            return p->values[i];
    return p->values[p->n_values - 1];
}

static void default_point(const struct cl_dev *d, const struct ff_kernel_desc *desc,
                          struct ff_tune_point *p)
{
    memset(p, 0, sizeof(*p));
    const uint32_t cu = d->base.info.compute_units ? d->base.info.compute_units : 1;
    switch (desc->id) {
    case FF_KERNEL_GEMV: {
        p->n = GV_N;
        uint32_t vw = preferred_float_width(d);
        p->v[GV_VW] = vw < 4 ? 4 : vw;
        p->v[GV_MB] = at_least(&gemv_params[GV_MB], desc->m < 4 ? desc->m : 4);
        p->v[GV_WG] = d->is_cpu ? 1 : 64;
        /* Several rows per item share the X loads and the loop's own instructions; keep at
         * least 16 items per compute unit so the rows still spread over every unit. A CPU
         * takes 8 while the accumulators (rows x mb vectors) stay within 16 of its 32 vector
         * registers; a GPU 4 (more would cost it occupancy). */
        uint32_t rows = d->is_cpu && p->v[GV_MB] <= 2 ? 8 : 4;
        while (rows > 1 && desc->n / rows < 16 * cu * p->v[GV_WG])
            rows /= 2;
        p->v[GV_ROWS] = rows;
        /* A CPU core keeps too few misses in flight for 2 x rows weight streams with the
         * arithmetic between their loads; a prefetch a DRAM latency ahead of each restores
         * the stream: ~100 ns at a core's ~15 GB/s over 8 streams is ~200 bytes, so 512
         * (eight cache lines) with margin. */
        p->v[GV_PF] = d->is_cpu ? 512 : 0;
        /* q4_0 reads half q8_0's bytes for the same instructions a block, so an item's rows
         * are spent before their own prefetches get far enough ahead; fetching the next
         * item's rows at this item's pace does (q8_0 runs slower with it): both measured in
         * doc/measurements/2026-12-05-measure-the-job-3.md, and the ops family's search
         * starts here */
        if (d->is_cpu && desc->prec == FF_PREC_Q4_0) {
            p->v[GV_NEXT] = 1;
            p->v[GV_PF] = 0;
        }
        break;
    }
    case FF_KERNEL_ATTN_DECODE: {
        p->n = AT_N;
        /* One work-group per KV head; on a GPU split the positions of each over its items
         * when there are fewer heads than four per compute unit. A CPU runs a work-group's
         * items one after another on one thread, so there a split only adds their merge and
         * shortens each item's K and V streams: none. */
        const uint32_t heads = desc->m / desc->g;
        uint32_t split = 1;
        while (!d->is_cpu && split < 64 && heads * split < 4 * cu && desc->n / (split * 2) >= 64)
            split *= 2;
        p->v[AT_A] = split;
        /* Several work-groups per KV head when there are fewer heads than work-groups the
         * device runs at once (a CPU: one per core; a GPU: two per compute unit), each part
         * at least 512 positions. */
        uint32_t parts = 1;
        while (parts < 64 && heads * parts < (d->is_cpu ? cu : 2 * cu) &&
               desc->n / (parts * 2) >= 512)
            parts *= 2;
        p->v[AT_PARTS] = parts;
        p->v[AT_TILE] = 32;
        /* as gemv's (a CPU core keeps too few misses in flight for the K and V streams with
         * the arithmetic between their loads); further ahead, as a cached position takes
         * less time than a gemv row: 2048 bytes, eight fp16 rows of head dim 128 */
        p->v[AT_PF] = d->is_cpu ? 2048 : 0;
        /* qk 1 saves the scores' lane reductions, about 45 instructions a 16 scores against
         * 16 x head dim / 16 multiply-adds: most worth it at head dims up to 64 */
        p->v[AT_QK] = qk_fits(d, desc) && desc->k <= 64;
        break;
    }
    case FF_KERNEL_ATTN_PREFILL:
        p->n = AT_PF; /* no prefetch: prefill rereads a tile of K and V for each query */
        p->v[AT_A] = 4;
        p->v[AT_TILE] = 32;
        break;
    default: break;
    }
}

int ff_cl_ops_space(const struct cl_dev *d, const struct ff_kernel_desc *desc,
                    struct ff_tune_space *out, uint64_t *source_hash, char *err, size_t errlen)
{
    const struct ff_tune_param *params;
    switch (desc->id) {
    case FF_KERNEL_GEMV: params = gemv_params; break;
    case FF_KERNEL_ATTN_DECODE: params = decode_params; break;
    case FF_KERNEL_ATTN_PREFILL: params = prefill_params; break;
    default:
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "the OpenCL backend declares no tuning space for this op (its one "
                       "choice, the vector width, is the device's preferred one)");
    }
    memset(out, 0, sizeof(*out));
    default_point(d, desc, &out->dflt);
    out->n_params = out->dflt.n;
    memcpy(out->param, params, sizeof(params[0]) * out->n_params);
    *source_hash = ff_tune_hash(FF_TUNE_HASH_INIT, ff_cl_src_ops, strlen(ff_cl_src_ops));
    return FF_OK;
}

int ff_cl_ops_point_check(const struct cl_dev *d, const struct ff_kernel_desc *desc, char *err,
                          size_t errlen)
{
    const struct ff_tune_point *p = &desc->tune;
    const uint32_t pf = desc->id == FF_KERNEL_GEMV          ? p->v[GV_PF]
                        : desc->id == FF_KERNEL_ATTN_DECODE ? p->v[AT_PF]
                                                            : 0;
    if (pf && !d->is_cpu)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "software prefetch (pf %u) is for CPU devices: a GPU hides memory "
                       "latency with other warps, and its compiler may lack the builtin",
                       (unsigned)pf);
    if (desc->id == FF_KERNEL_GEMV) {
        if (p->v[GV_NEXT] && !d->is_cpu)
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "prefetching the next item's rows (next 1) is for CPU devices");
        if (p->v[GV_NEXT] && desc->prec != FF_PREC_Q8_0 && desc->prec != FF_PREC_Q4_0)
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "prefetching the next item's rows (next 1) is for the block formats "
                           "q8_0 and q4_0; %s rows stream with pf alone",
                           ff_precision_name(desc->prec));
        if (p->v[GV_WG] > max_work_group(d))
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "work-group of %u exceeds the device's maximum of %zu",
                           (unsigned)p->v[GV_WG], max_work_group(d));
        return FF_OK;
    }
    if (desc->id == FF_KERNEL_ATTN_DECODE) {
        if (p->v[AT_QK] && !qk_fits(d, desc))
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "qk 1 (query rows side by side in the lanes) needs 16-lane vectors "
                           "and 2 to 8 query rows per KV head; here %u-lane vectors (head dim "
                           "%u) and %u query row(s) per KV head",
                           (unsigned)attn_width(d, desc->k), (unsigned)desc->k, (unsigned)desc->g);
        const uint32_t split = p->v[AT_A];
        if (split > max_work_group(d))
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "split of %u items per KV head exceeds the device's work-group "
                           "maximum of %zu",
                           (unsigned)split, max_work_group(d));
        /* the partial results of every item meet in local memory */
        const uint64_t local = (uint64_t)split * desc->g * ((uint64_t)desc->k + 2) * 4;
        if (local > d->base.info.local_mem_bytes)
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "split %u x %u rows x (head dim %u + 2) floats need %llu bytes of "
                           "local memory; the device has %llu",
                           (unsigned)split, (unsigned)desc->g, (unsigned)desc->k,
                           (unsigned long long)local,
                           (unsigned long long)d->base.info.local_mem_bytes);
    }
    return FF_OK;
}

/* The variant's words for a software-prefetch distance: "" for none. */
static void prefetch_note(char *dst, size_t n, uint32_t pf)
{
    dst[0] = 0;
    if (pf)
        snprintf(dst, n, ", prefetch %u bytes ahead", (unsigned)pf);
}

/* ops.cl's FMT / KVF numbering of the storage formats */
static int gemv_fmt(enum ff_precision p)
{
    switch (p) {
    case FF_PREC_FP32: return 0;
    case FF_PREC_FP16: return 1;
    case FF_PREC_BF16: return 2;
    case FF_PREC_INT8: return 3;
    case FF_PREC_Q8_0: return 4;
    case FF_PREC_Q4_0: return 5;
    default: return -1;
    }
}

static size_t round_up(size_t x, size_t m)
{
    return (x + m - 1) / m * m;
}

static size_t div_up(size_t x, size_t m)
{
    return (x + m - 1) / m;
}

int ff_cl_ops_create(struct cl_dev *d, struct cl_kern *k, const char **src, const char **name,
                     char *options, size_t optlen, char *err, size_t errlen)
{
    const struct ff_kernel_desc *desc = &k->base.desc;
    struct ff_tune_point *pt = &k->base.point;
    if (desc->tune.n)
        *pt = desc->tune;
    else
        default_point(d, desc, pt);
    if (pt->n) {
        /* the built-in point passes the same check a given one does */
        struct ff_kernel_desc chosen = *desc;
        chosen.tune = *pt;
        int ret = ff_cl_ops_point_check(d, &chosen, err, errlen);
        if (ret < 0)
            return ret;
    }
    *src = ff_cl_src_ops;
    const char *fmt = ff_precision_name(desc->prec);
    switch (desc->id) {
    case FF_KERNEL_GEMV: {
        const uint32_t rows = pt->v[GV_ROWS], mb = pt->v[GV_MB], vw = pt->v[GV_VW];
        const uint32_t wg = pt->v[GV_WG];
        *name = "gemv";
        const uint32_t pf = pt->v[GV_PF], next = pt->v[GV_NEXT];
        snprintf(options, optlen,
                 "-cl-std=CL1.2 -DFMT=%d -DVW=%u -DROWS=%u -DMB=%u -DPF=%u -DNEXT=%u",
                 gemv_fmt(desc->prec), (unsigned)vw, (unsigned)rows, (unsigned)mb, (unsigned)pf,
                 (unsigned)next);
        k->global[0] = div_up(desc->n, rows);
        k->global[1] = div_up(desc->m, mb);
        if (wg) {
            k->has_local = true;
            k->local[0] = wg;
            k->local[1] = 1;
            k->global[0] = round_up(k->global[0], wg);
        }
        char group[32] = "the runtime's work-group";
        if (wg)
            snprintf(group, sizeof(group), "work-group %u", (unsigned)wg);
        char ahead[48];
        prefetch_note(ahead, sizeof(ahead), pf);
        snprintf(k->base.variant, sizeof(k->base.variant),
                 "gemv %s weights widened to float%u, %u rows of W x %u of X per work-item, %s%s%s",
                 fmt, (unsigned)vw, (unsigned)rows, (unsigned)mb, group, ahead,
                 next ? ", the next item's rows prefetched" : "");
        k->base.n_bufs = 4;
        break;
    }
    case FF_KERNEL_ATTN_DECODE:
    case FF_KERNEL_ATTN_PREFILL: {
        const uint32_t a = pt->v[AT_A], tile = pt->v[AT_TILE];
        const uint32_t vw = attn_width(d, desc->k);
        const bool decode = desc->id == FF_KERNEL_ATTN_DECODE;
        *name = decode ? "attn_decode" : "attn_prefill";
        snprintf(options, optlen,
                 "-cl-std=CL1.2 -DKVF=%d -DKD=%u -DVW=%u -DG=%u -DTILE=%u -D%s=%u -DPF=%u",
                 gemv_fmt(desc->prec), (unsigned)desc->k, (unsigned)vw, (unsigned)desc->g,
                 (unsigned)tile, decode ? "SPLIT" : "BQ", (unsigned)a,
                 (unsigned)(decode ? pt->v[AT_PF] : 0));
        if (decode) {
            const uint32_t parts = pt->v[AT_PARTS], heads = desc->m / desc->g;
            const size_t olen = strlen(options);
            snprintf(options + olen, optlen - olen, " -DPARTS=%u -DQK=%u", (unsigned)parts,
                     (unsigned)pt->v[AT_QK]);
            k->global[0] = (size_t)a * parts;
            k->global[1] = heads;
            k->has_local = true;
            k->local[0] = a;
            k->local[1] = 1;
            if (parts > 1) { /* each part's merged partial, and a count per head */
                k->scratch_bytes[0] = (size_t)heads * parts * desc->g * (desc->k + 2) * 4;
                k->scratch_bytes[1] = (size_t)heads * 4;
            }
            char ahead[48], many[48] = "one work-group";
            if (pt->v[AT_QK] && pt->v[AT_PF]) /* any distance: the next phase's rows */
                snprintf(ahead, sizeof(ahead), ", prefetch a phase ahead (L2)");
            else
                prefetch_note(ahead, sizeof(ahead), pt->v[AT_PF]);
            if (parts > 1)
                snprintf(many, sizeof(many), "%u work-groups", (unsigned)parts);
            snprintf(k->base.variant, sizeof(k->base.variant),
                     "decode attention, %s KV as float%u, %s of %u per KV head (%u query "
                     "rows%s), online softmax over tiles of %u positions%s",
                     fmt, (unsigned)vw, many, (unsigned)a, (unsigned)desc->g,
                     pt->v[AT_QK] ? " across lanes" : "", (unsigned)tile, ahead);
        } else {
            k->global[0] = div_up(desc->n, a);
            k->global[1] = desc->m;
            snprintf(k->base.variant, sizeof(k->base.variant),
                     "causal prefill attention, %s KV as float%u, %u query rows per work-item, "
                     "online softmax over tiles of %u positions",
                     fmt, (unsigned)vw, (unsigned)a, (unsigned)tile);
        }
        k->base.n_bufs = 4;
        break;
    }
    default: {
        static const char *const names[] = {
            [FF_KERNEL_RMSNORM] = "rmsnorm", [FF_KERNEL_ROPE] = "rope",
            [FF_KERNEL_SWIGLU] = "swiglu",   [FF_KERNEL_ADD] = "add",
            [FF_KERNEL_XENT] = "xent",
        };
        if (desc->id < FF_KERNEL_RMSNORM || desc->id > FF_KERNEL_XENT)
            return ff_errf(err, errlen, FF_ERR_INVALID, "kernel %d is not an op", (int)desc->id);
        const uint32_t vw = preferred_float_width(d);
        *name = names[desc->id];
        snprintf(options, optlen, "-cl-std=CL1.2 -DSMALL -DVW=%u -DG=%u", (unsigned)vw,
                 (unsigned)(desc->g ? desc->g : 1));
        const char *how;
        if (desc->id == FF_KERNEL_ROPE) {
            k->global[0] = desc->n / 2;
            k->global[1] = desc->m / desc->g; /* tokens: a token's g rows share the angle */
            how = "one rotated pair per work-item";
        } else if (desc->id == FF_KERNEL_SWIGLU || desc->id == FF_KERNEL_ADD) {
            k->global[0] = div_up((size_t)desc->m * desc->n, vw);
            how = "one vector per work-item";
        } else {
            k->global[0] = desc->m;
            how = "one row per work-item";
        }
        snprintf(k->base.variant, sizeof(k->base.variant), "%s, float%u, %s", *name, (unsigned)vw,
                 how);
        k->base.n_bufs = desc->id == FF_KERNEL_ROPE ? 2 : 3;
        k->base.n_params = desc->id == FF_KERNEL_ROPE ? 3 : 2;
        return FF_OK;
    }
    }
    k->base.n_params = 3;
    return FF_OK;
}
