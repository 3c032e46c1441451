/*
 * estimate/src/device_catalog.c — datasheet figures, each with its source.
 *
 * Matrix rates are dense (no 2:4 sparsity), at boost clock, with fp32 accumulation where the
 * vendor distinguishes (RTX 4090). Memory is the datasheet capacity in binary units (GPU
 * capacities are GiB: "80 GB" HBM3 = 80 GiB); the driver's reservation is part of the
 * runtime overhead the estimate adds. Prices are typical on-demand cloud rates per GPU-hour
 * (2024-2025, rounded); 0 = no public rate: pass --price.
 */
#include <string.h>

#include "flopfit/spec.h"
#include "flopfit/status.h"
#include "internal.h"

#define GIB 1073741824.0
#define T   1e12

#define RATES(fp32, bf16, fp16, fp8, int8)                                                         \
    .flops_per_s = {[FF_PREC_FP32] = (fp32)*T,                                                     \
                    [FF_PREC_BF16] = (bf16)*T,                                                     \
                    [FF_PREC_FP16] = (fp16)*T,                                                     \
                    [FF_PREC_FP8] = (fp8)*T,                                                       \
                    [FF_PREC_INT8] = (int8)*T}

static const struct ff_spec catalog[] = {
    {.slug = "h100-sxm",
     .name = "NVIDIA H100 SXM5 80GB",
     .source = "NVIDIA H100 Tensor Core GPU datasheet: 80 GB HBM3, 3.35 TB/s, FP32 67 TF, "
               "BF16/FP16 989 TF, FP8/INT8 1979 dense, NVLink 900 GB/s",
     .mem_bytes = 80 * GIB,
     .bandwidth_bytes_per_s = 3.35e12,
     RATES(67, 989.4, 989.4, 1978.9, 1978.9),
     .link_bytes_per_s = 450e9,
     .price_per_hour = 2.99,
     .price_source = "typical on-demand (Lambda, 2024)"},
    {.slug = "h200",
     .name = "NVIDIA H200 SXM 141GB",
     .source = "NVIDIA H200 datasheet: 141 GB HBM3e, 4.8 TB/s, compute as H100 SXM, "
               "NVLink 900 GB/s",
     .mem_bytes = 141 * GIB,
     .bandwidth_bytes_per_s = 4.8e12,
     RATES(67, 989.4, 989.4, 1978.9, 1978.9),
     .link_bytes_per_s = 450e9,
     .price_per_hour = 3.50,
     .price_source = "typical on-demand (2025)"},
    {.slug = "a100-80gb",
     .name = "NVIDIA A100 SXM4 80GB",
     .source = "NVIDIA A100 datasheet: 80 GB HBM2e, 2,039 GB/s, FP32 19.5 TF, BF16/FP16 "
               "312 TF, INT8 624 TOPS dense, no FP8, NVLink 600 GB/s",
     .mem_bytes = 80 * GIB,
     .bandwidth_bytes_per_s = 2.039e12,
     RATES(19.5, 312, 312, 0, 624),
     .link_bytes_per_s = 300e9,
     .price_per_hour = 1.79,
     .price_source = "typical on-demand (Lambda, 2024)"},
    {.slug = "a100-40gb",
     .name = "NVIDIA A100 SXM4 40GB",
     .source = "NVIDIA A100 datasheet: 40 GB HBM2, 1,555 GB/s, FP32 19.5 TF, BF16/FP16 "
               "312 TF, INT8 624 TOPS dense, NVLink 600 GB/s",
     .mem_bytes = 40 * GIB,
     .bandwidth_bytes_per_s = 1.555e12,
     RATES(19.5, 312, 312, 0, 624),
     .link_bytes_per_s = 300e9,
     .price_per_hour = 1.29,
     .price_source = "typical on-demand (Lambda, 2024)"},
    {.slug = "l4",
     .name = "NVIDIA L4 24GB",
     .source = "NVIDIA L4 datasheet: 24 GB GDDR6, 300 GB/s, FP32 30.3 TF, BF16/FP16 121 TF, "
               "FP8/INT8 242.5 dense (half the sparse figures), PCIe Gen4 x16",
     .mem_bytes = 24 * GIB,
     .bandwidth_bytes_per_s = 300e9,
     RATES(30.3, 121, 121, 242.5, 242.5),
     .link_bytes_per_s = 32e9,
     .price_per_hour = 0.71,
     .price_source = "GCP g2-standard-4 on-demand (2024)"},
    {.slug = "rtx-4090",
     .name = "NVIDIA GeForce RTX 4090 24GB",
     .source = "NVIDIA Ada Lovelace architecture whitepaper, Appendix A: 24 GB GDDR6X, "
               "1,008 GB/s, FP32 82.6 TF, FP16/BF16 tensor (FP32 accumulate) 165.2 TF, "
               "FP8 (FP32 acc.) 330.3, INT8 660.6 TOPS dense; PCIe Gen4, no NVLink",
     .mem_bytes = 24 * GIB,
     .bandwidth_bytes_per_s = 1008e9,
     RATES(82.6, 165.2, 165.2, 330.3, 660.6),
     .link_bytes_per_s = 32e9,
     .price_per_hour = 0.40,
     .price_source = "typical community cloud rate (2024), estimate"},
    {.slug = "mi300x",
     .name = "AMD Instinct MI300X 192GB",
     .source = "AMD Instinct MI300X data sheet: 192 GB HBM3, 5.3 TB/s, FP32 matrix 163.4 TF, "
               "BF16/FP16 1307.4 TF, FP8/INT8 2614.9 dense, Infinity Fabric 7x64 GB/s",
     .mem_bytes = 192 * GIB,
     .bandwidth_bytes_per_s = 5.3e12,
     RATES(163.4, 1307.4, 1307.4, 2614.9, 2614.9),
     .link_bytes_per_s = 448e9,
     .price_per_hour = 2.50,
     .price_source = "typical on-demand (2025), estimate"},
    {.slug = "rx-7900-xtx",
     .name = "AMD Radeon RX 7900 XTX 24GB",
     .source = "AMD product page: 24 GB GDDR6, 960 GB/s, FP32 61.4 TF (dual issue), "
               "FP16/BF16 WMMA 122.8 TF, INT8 122.8 TOPS, no FP8; PCIe Gen4",
     .mem_bytes = 24 * GIB,
     .bandwidth_bytes_per_s = 960e9,
     RATES(61.4, 122.8, 122.8, 0, 122.8),
     .link_bytes_per_s = 32e9,
     .price_per_hour = 0},
    {.slug = "arc-a770",
     .name = "Intel Arc A770 16GB",
     .source = "Intel Arc A770 specifications: 16 GB GDDR6, 560 GB/s, 32 Xe-cores at 2.4 GHz: "
               "FP32 19.7 TF, XMX FP16/BF16 157.3 TF, INT8 314.6 TOPS; PCIe Gen4",
     .mem_bytes = 16 * GIB,
     .bandwidth_bytes_per_s = 560e9,
     RATES(19.7, 157.3, 157.3, 0, 314.6),
     .link_bytes_per_s = 32e9,
     .price_per_hour = 0},
    {.slug = "max-1550",
     .name = "Intel Data Center GPU Max 1550 128GB",
     .source = "Intel Data Center GPU Max 1550 product brief: 128 GB HBM2e, 3.2768 TB/s, "
               "128 Xe-cores at 1.6 GHz: FP32 52.4 TF, XMX BF16/FP16 838.9 TF, INT8 1677.7",
     .mem_bytes = 128 * GIB,
     .bandwidth_bytes_per_s = 3.2768e12,
     RATES(52.4, 838.9, 838.9, 0, 1677.7),
     .link_bytes_per_s = 64e9,
     .price_per_hour = 0},
};

/* Aliases: "alias slug". */
static const char *const aliases[][2] = {
    {"h100", "h100-sxm"},
    {"h100-80gb", "h100-sxm"},
    {"h100-sxm5", "h100-sxm"},
    {"h200-sxm", "h200"},
    {"a100", "a100-80gb"},
    {"a100-sxm-80gb", "a100-80gb"},
    {"a100-sxm-40gb", "a100-40gb"},
    {"4090", "rtx-4090"},
    {"rtx4090", "rtx-4090"},
    {"mi300", "mi300x"},
    {"7900xtx", "rx-7900-xtx"},
    {"rx7900xtx", "rx-7900-xtx"},
    {"a770", "arc-a770"},
    {"max1550", "max-1550"},
    {"pvc", "max-1550"},
};

#define N_CATALOG (sizeof(catalog) / sizeof(catalog[0]))
#define N_ALIASES (sizeof(aliases) / sizeof(aliases[0]))

const struct ff_spec *ff_spec_catalog(size_t *count)
{
    if (count)
        *count = N_CATALOG;
    return catalog;
}

int ff_spec_find(const char *name, struct ff_spec *out)
{
    if (!name || !out)
        return FF_ERR_INVALID;
    const char *slug = name;
    for (size_t i = 0; i < N_ALIASES; i++)
        if (ff_streq_ci(name, aliases[i][0]))
            slug = aliases[i][1];
    for (size_t i = 0; i < N_CATALOG; i++) {
        if (ff_streq_ci(slug, catalog[i].slug)) {
            *out = catalog[i];
            return FF_OK;
        }
    }
    return FF_ERR_NOT_FOUND;
}

int ff_spec_suggest(const char *name, char *buf, size_t buflen, int max)
{
    const char *names[N_CATALOG + N_ALIASES], *targets[N_CATALOG + N_ALIASES];
    for (size_t i = 0; i < N_CATALOG; i++)
        names[i] = targets[i] = catalog[i].slug;
    for (size_t i = 0; i < N_ALIASES; i++) {
        names[N_CATALOG + i] = aliases[i][0];
        targets[N_CATALOG + i] = aliases[i][1];
    }
    return ff_suggest_from(name, names, targets, N_CATALOG + N_ALIASES, buf, buflen, max);
}

double ff_spec_rate(const struct ff_spec *d, enum ff_precision p)
{
    switch (p) {
    case FF_PREC_INT4:
    case FF_PREC_MXFP4:
    case FF_PREC_NVFP4:
    case FF_PREC_Q4_0:
    case FF_PREC_Q4_K_M:
    case FF_PREC_Q8_0: return d->flops_per_s[FF_PREC_FP16]; /* weight-only: fp16 matmuls */
    case FF_PREC_NF4: return d->flops_per_s[FF_PREC_BF16];  /* QLoRA computes in bf16 */
    case FF_PREC_COUNT: return 0.0;
    default: return d->flops_per_s[p];
    }
}
