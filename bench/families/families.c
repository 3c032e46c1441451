/* bench/families/families.c — the one table of test families, and the run over it. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "families.h"

static const struct ff_family families[] = {
    {"latency",
     "launch latency: an empty kernel's device time and its submit-to-completion wall time",
     "an empty kernel", ff_probe_latency, NULL, false},
    {"transfer", "host <-> device copies from pageable and from pinned/mapped memory",
     "device buffers up to --memory-limit", ff_probe_transfer, NULL, false},
    {"bandwidth", "device memory bandwidth: read, write, copy, triad, each verified",
     "the read/write/copy/triad kernels, buffers up to --memory-limit", ff_probe_bandwidth, NULL,
     false},
    {"peak", "arithmetic peak: independent multiply-add (int8: byte dot) chains, verified",
     "the peak kernel per --precision", ff_suite_peak, NULL, false},
    {"matmul", "square matrix multiplication, verified against the CPU reference",
     "matmul kernels per --precision; --sizes; CLBlast unless --no-library", ff_suite_matmul,
     ff_suite_matmul_note, false},
    {"memory", "usable device memory: allocated, written and read back intact",
     "the write kernel; the device's memory up to --memory-limit", ff_probe_memory,
     ff_probe_memory_note, false},
    {"ops",
     "a transformer's own operations: GEMMs, weight-only quantised mat-vecs, attention, norms",
     "on request: --only ops (a generic grid of shapes) or --model (the model's own)", ff_suite_ops,
     NULL, true},
    {NULL, NULL, NULL, NULL, NULL, false},
};

#define N_FAMILIES (sizeof(families) / sizeof(families[0]) - 1)
_Static_assert(N_FAMILIES <= FF_FAMILY_MAX, "cfg->families has one bit per family");

const struct ff_family *ff_families(void)
{
    return families;
}

size_t ff_family_count(void)
{
    return N_FAMILIES;
}

const struct ff_family *ff_family_find(const char *name)
{
    for (const struct ff_family *f = families; name && f->name; f++)
        if (ff_streq_ci(f->name, name))
            return f;
    return NULL;
}

uint32_t ff_family_bit(const struct ff_family *f)
{
    return 1u << (unsigned)(f - families);
}

uint32_t ff_family_all(void)
{
    uint32_t bits = 0;
    for (const struct ff_family *f = families; f->name; f++)
        if (!f->on_request)
            bits |= ff_family_bit(f);
    return bits;
}

void ff_family_names(char *dst, size_t n, const char *sep)
{
    if (n == 0)
        return;
    dst[0] = 0;
    size_t len = 0;
    for (const struct ff_family *f = families; f->name && len < n; f++) {
        int w = snprintf(dst + len, n - len, "%s%s", f == families ? "" : sep, f->name);
        len += w > 0 ? (size_t)w : 0;
    }
}

void ff_bench_cfg_defaults(struct ff_bench_cfg *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->families = ff_family_all();
    for (int i = 0; i < FF_PREC_COUNT; i++)
        cfg->prec[i] = ff_matmul_has_kernel((enum ff_precision)i);
    cfg->library = true;
    ff_measure_defaults(&cfg->measure);
    cfg->max_run_s = 3.0;
    cfg->seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
}

void ff_bench_run_device(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_run *p)
{
    for (const struct ff_family *f = families; f->name && !ff_interrupted; f++)
        if (cfg->families & ff_family_bit(f))
            f->run(dev, cfg, p);
}
