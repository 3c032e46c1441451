/*
 * backends/opencl/cl_mem_tuning.c — the bandwidth kernels' tuning space (mem.cl): vector width,
 * vectors per work-item, which vectors an item moves (grid stride, contiguous, group block) and
 * the work-group size.
 *
 * The ranges cover GPUs and CPUs: float/uint loads of 4 to 64 bytes (GPUs coalesce 4- to
 * 16-byte loads per lane; AVX-512 CPUs load 64 bytes, a cache line), 1 to 256 vectors per item
 * (one per item is the classic STREAM-style GPU kernel; clpeak fetches 16 per item; a CPU item
 * streams kilobytes), and work-groups of 64 to 256 (the GPU range: NVIDIA warps of 32, AMD
 * wavefronts of 64, Intel subgroups of 8-32) up to PoCL's 4096, or the runtime's choice (0).
 *
 * The kernels that store (WRITE, COPY, TRIAD) also take nt: plain or non-temporal stores. A
 * plain store to a line not in cache first reads it (read-for-ownership), so a copy moves three
 * bytes for every two it counts; streaming stores skip that read, as tuned STREAM builds do.
 *
 * The default point is what flopfit built before this space existed: on GPUs uint4 grid-strided,
 * READ with 16 per item, the others one per item; on CPU devices uint16, 64 contiguous vectors
 * (4 KiB) per item. CPU devices store non-temporally by default: on the CI Xeon (PoCL 3.1,
 * 128 MiB buffers, three interleaved runs of `flopfit bench --only bandwidth`) that took WRITE
 * from 16-19 to 42-48 GB/s, COPY from 22-25 to 40-41 and TRIAD from 37-41 to 38-42.
 */
#include <stdio.h>
#include <string.h>

#include "cl_internal.h"
#include "cl_mem.h"

/* nt last, declared for the kernels that store only */
enum { P_VW, P_EPI, P_LAYOUT, P_WG, P_NT, N_PARAMS };

static const struct ff_tune_param mem_params[N_PARAMS] = {
    [P_VW] = {"vw", 5, {1, 2, 4, 8, 16}},
    [P_EPI] = {"epi", 9, {1, 2, 4, 8, 16, 32, 64, 128, 256}},
    [P_LAYOUT] = {"layout", 3, {0, 1, 2}},
    [P_WG] = {"wg", 6, {0, 64, 128, 256, 1024, 4096}},
    [P_NT] = {"nt", 2, {0, 1}},
};

static uint32_t n_params_for(enum ff_kernel_id id)
{
    return id == FF_KERNEL_MEM_READ ? P_NT : N_PARAMS;
}

void ff_cl_mem_default(const struct cl_dev *d, enum ff_kernel_id id, struct ff_tune_point *p)
{
    memset(p, 0, sizeof(*p));
    p->n = n_params_for(id);
    if (d->is_cpu) {
        p->v[P_VW] = 16;
        p->v[P_EPI] = 64;
        p->v[P_LAYOUT] = 1;
        if (id != FF_KERNEL_MEM_READ)
            p->v[P_NT] = 1;
    } else {
        p->v[P_VW] = 4;
        p->v[P_EPI] = id == FF_KERNEL_MEM_READ ? 16 : 1;
        p->v[P_LAYOUT] = 0;
    }
    p->v[P_WG] = 0;
}

int ff_cl_mem_space(const struct cl_dev *d, const struct ff_kernel_desc *desc,
                    struct ff_tune_space *out, uint64_t *source_hash, char *err, size_t errlen)
{
    if (desc->id < FF_KERNEL_MEM_READ || desc->id > FF_KERNEL_MEM_TRIAD)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED, "not a bandwidth kernel");
    memset(out, 0, sizeof(*out));
    out->n_params = n_params_for(desc->id);
    memcpy(out->param, mem_params, sizeof(mem_params[0]) * out->n_params);
    ff_cl_mem_default(d, desc->id, &out->dflt);
    *source_hash = ff_tune_hash(FF_TUNE_HASH_INIT, ff_cl_src_mem, strlen(ff_cl_src_mem));
    return FF_OK;
}

int ff_cl_mem_point_check(const struct cl_dev *d, const struct ff_kernel_desc *desc, char *err,
                          size_t errlen)
{
    /* The front-end has checked that desc->tune is a point of the space (ff_kernel_point_check). */
    const struct ff_tune_point *p = &desc->tune;
    const uint32_t per_item = p->v[P_VW] * p->v[P_EPI];
    if (desc->n == 0 || desc->n % per_item)
        return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                       "n=%u words is not a multiple of vw*epi=%u words per work-item",
                       (unsigned)desc->n, (unsigned)per_item);
    const uint32_t items = desc->n / per_item, wg = p->v[P_WG];
    if (wg) {
        size_t max_wg = 0;
        if (clGetDeviceInfo(d->id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(max_wg), &max_wg, NULL) !=
            CL_SUCCESS)
            max_wg = 0;
        if (wg > max_wg)
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "work-group of %u exceeds the device's maximum of %zu", (unsigned)wg,
                           max_wg);
        if (items % wg)
            return ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                           "work-group of %u does not divide the %u work-items (n=%u words / "
                           "vw*epi=%u)",
                           (unsigned)wg, (unsigned)items, (unsigned)desc->n, (unsigned)per_item);
    }
    return FF_OK;
}

/* The point's build options, launch shape and variant text for kernel k (cl_kernel.c). */
void ff_cl_mem_apply(const struct ff_tune_point *p, enum ff_kernel_id id, uint32_t n, char *options,
                     size_t options_len, size_t *global, size_t *local, char *variant,
                     size_t variant_len)
{
    static const char *const layout[] = {"grid-strided", "contiguous per work-item",
                                         "contiguous per work-group, items interleaved"};
    const uint32_t vw = p->v[P_VW], epi = p->v[P_EPI], lay = p->v[P_LAYOUT], wg = p->v[P_WG];
    const uint32_t nt = p->n > P_NT ? p->v[P_NT] : 0;
    snprintf(options, options_len, "-cl-std=CL1.2 -DFF_VW=%u -DFF_EPI=%u -DFF_LAYOUT=%u -DFF_NT=%u",
             (unsigned)vw, (unsigned)epi, (unsigned)lay, (unsigned)nt);
    *global = n / (vw * epi);
    *local = wg;
    const char *what = id == FF_KERNEL_MEM_TRIAD ? "float" : "uint";
    char type[16];
    if (vw == 1)
        snprintf(type, sizeof(type), "%s", what);
    else
        snprintf(type, sizeof(type), "%s%u", what, (unsigned)vw);
    char group[32] = "runtime's work-group";
    if (wg)
        snprintf(group, sizeof(group), "work-group %u", (unsigned)wg);
    snprintf(variant, variant_len, "%s %s%s, %u per work-item, %s, %s%s", type,
             id == FF_KERNEL_MEM_READ    ? "loads"
             : id == FF_KERNEL_MEM_WRITE ? "stores"
                                         : "loads and stores",
             nt ? " (non-temporal)" : "", (unsigned)epi, layout[lay], group,
             id == FF_KERNEL_MEM_TRIAD ? ", a = b + 3c" : "");
}
