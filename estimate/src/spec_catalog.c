/*
 * estimate/src/device_catalog.c — datasheet figures, each with its source.
 *
 * Matrix rates are dense (no 2:4 sparsity), at boost clock, with fp32 accumulation where the
 * vendor distinguishes (RTX 4090). Memory is the datasheet capacity in binary units (GPU
 * capacities are GiB: "80 GB" HBM3 = 80 GiB); the driver's reservation is part of the
 * runtime overhead the estimate adds. Prices are typical on-demand cloud rates per GPU-hour
 * (2024-2025, rounded); 0 = no public rate: pass --price.
 * Network (multi-GPU plans, comm.c): link_bytes_per_s is the GPU-to-GPU line rate inside a
 * node per direction (half the vendors' bidirectional NVLink/xGMI figure), link_name what
 * carries it; gpus_per_node and inter_node_bytes_per_s (per GPU, per direction) describe the
 * usual platform named beside each entry (DGX/HGX, a cloud instance, an HPC node); 0 =
 * unknown (no standard multi-node platform: pass --gpus-per-node / --inter-node-gbps).
 */
#include <string.h>

#include "flopfit/spec.h"
#include "flopfit/status.h"
#include "internal.h"

#define GIB 1073741824.0
#define T   1e12

#define RATES4(fp32, bf16, fp16, fp8, int8, fp4)                                                   \
    .flops_per_s = {                                                                               \
        [FF_PREC_FP32] = T * (fp32), [FF_PREC_BF16] = T * (bf16), [FF_PREC_FP16] = T * (fp16),     \
        [FF_PREC_FP8] = T * (fp8),   [FF_PREC_INT8] = T * (int8), [FF_PREC_FP4] = T * (fp4)}

#define RATES(fp32, bf16, fp16, fp8, int8)                                                         \
    .flops_per_s = {[FF_PREC_FP32] = T * (fp32),                                                   \
                    [FF_PREC_BF16] = T * (bf16),                                                   \
                    [FF_PREC_FP16] = T * (fp16),                                                   \
                    [FF_PREC_FP8] = T * (fp8),                                                     \
                    [FF_PREC_INT8] = T * (int8)}

static const struct ff_spec catalog[] = {
    {.struct_size = sizeof(struct ff_spec),
     .slug = "h100-sxm",
     .name = "NVIDIA H100 SXM5 80GB",
     .source = "NVIDIA H100 Tensor Core GPU datasheet: 80 GB HBM3, 3.35 TB/s, FP32 67 TF, "
               "BF16/FP16 989 TF, FP8/INT8 1979 dense, NVLink 900 GB/s",
     .mem_bytes = 80 * GIB,
     .bandwidth_bytes_per_s = 3.35e12,
     RATES(67, 989.4, 989.4, 1978.9, 1978.9),
     .link_bytes_per_s = 450e9,
     .link_name = "NVLink 4 (NVSwitch)",
     .gpus_per_node =
         8, /* DGX H100 datasheet: 8 GPUs on NVSwitch, 8x ConnectX-7 400 Gb/s (one per GPU) */
     .inter_node_bytes_per_s = 50e9,
     .price_per_hour = 2.99,
     .price_source = "typical on-demand (Lambda, 2024)"},
    {.struct_size = sizeof(struct ff_spec),
     .slug = "h200",
     .name = "NVIDIA H200 SXM 141GB",
     .source = "NVIDIA H200 datasheet: 141 GB HBM3e, 4.8 TB/s, compute as H100 SXM, "
               "NVLink 900 GB/s",
     .mem_bytes = 141 * GIB,
     .bandwidth_bytes_per_s = 4.8e12,
     RATES(67, 989.4, 989.4, 1978.9, 1978.9),
     .link_bytes_per_s = 450e9,
     .link_name = "NVLink 4 (NVSwitch)",
     .gpus_per_node =
         8, /* DGX H200 datasheet: 8 GPUs on NVSwitch, 8x ConnectX-7 400 Gb/s (one per GPU) */
     .inter_node_bytes_per_s = 50e9,
     .price_per_hour = 3.50,
     .price_source = "typical on-demand (2025)"},
    {.struct_size = sizeof(struct ff_spec),
     .slug = "h800",
     .name = "NVIDIA H800 SXM5 80GB",
     /* Reuters (2023-03): the export variant of H100 SXM5 with about half its chip-to-chip
      * rate; DeepSeek, "Insights into DeepSeek-V3" (arXiv 2505.09343) §2: H800 SXM as H100
      * but NVLink 400 GB/s, 8x 400 Gb/s InfiniBand CX7 per node. */
     .source = "H100 SXM5 figures (80 GB HBM3, 3.35 TB/s, BF16 989 TF, FP8 1979) with NVLink "
               "400 GB/s (arXiv 2505.09343 §2)",
     .mem_bytes = 80 * GIB,
     .bandwidth_bytes_per_s = 3.35e12,
     RATES(67, 989.4, 989.4, 1978.9, 1978.9),
     .link_bytes_per_s = 200e9,
     .link_name = "NVLink 4, 8 links (NVSwitch)",
     .gpus_per_node = 8, /* DeepSeek's nodes: 8 GPUs on NVSwitch, one 400 Gb/s CX7 per GPU */
     .inter_node_bytes_per_s = 50e9,
     .price_per_hour = 2.0,
     .price_source = "DeepSeek-V3 technical report (arXiv 2412.19437, Dec 2024) Table 1: "
                     "$2 per H800 GPU-hour rental assumed"},
    {.struct_size = sizeof(struct ff_spec),
     .slug = "a100-80gb",
     .name = "NVIDIA A100 SXM4 80GB",
     .source = "NVIDIA A100 datasheet: 80 GB HBM2e, 2,039 GB/s, FP32 19.5 TF, BF16/FP16 "
               "312 TF, INT8 624 TOPS dense, no FP8, NVLink 600 GB/s",
     .mem_bytes = 80 * GIB,
     .bandwidth_bytes_per_s = 2.039e12,
     RATES(19.5, 312, 312, 0, 624),
     .link_bytes_per_s = 300e9,
     .link_name = "NVLink 3 (NVSwitch)",
     .gpus_per_node =
         8, /* DGX A100 datasheet: 8 GPUs on NVSwitch, 8x ConnectX-6 200 Gb/s HDR (one per GPU) */
     .inter_node_bytes_per_s = 25e9,
     .price_per_hour = 1.79,
     .price_source = "typical on-demand (Lambda, 2024)"},
    {.struct_size = sizeof(struct ff_spec),
     .slug = "a100-40gb",
     .name = "NVIDIA A100 SXM4 40GB",
     .source = "NVIDIA A100 datasheet: 40 GB HBM2, 1,555 GB/s, FP32 19.5 TF, BF16/FP16 "
               "312 TF, INT8 624 TOPS dense, NVLink 600 GB/s",
     .mem_bytes = 40 * GIB,
     .bandwidth_bytes_per_s = 1.555e12,
     RATES(19.5, 312, 312, 0, 624),
     .link_bytes_per_s = 300e9,
     .link_name = "NVLink 3 (NVSwitch)",
     .gpus_per_node =
         8, /* DGX A100 datasheet: 8 GPUs on NVSwitch, 8x ConnectX-6 200 Gb/s HDR (one per GPU) */
     .inter_node_bytes_per_s = 25e9,
     .price_per_hour = 1.29,
     .price_source = "typical on-demand (Lambda, 2024)"},
    {.struct_size = sizeof(struct ff_spec),
     .slug = "l4",
     .name = "NVIDIA L4 24GB",
     .source = "NVIDIA L4 datasheet: 24 GB GDDR6, 300 GB/s, FP32 30.3 TF, BF16/FP16 121 TF, "
               "FP8/INT8 242.5 dense (half the sparse figures), PCIe Gen4 x16",
     .mem_bytes = 24 * GIB,
     .bandwidth_bytes_per_s = 300e9,
     RATES(30.3, 121, 121, 242.5, 242.5),
     .link_bytes_per_s = 32e9,
     .link_name = "PCIe Gen4 x16",
     .gpus_per_node = 8, /* GCP g2-standard-96: 8 L4, 100 Gb/s per VM = 12.5 Gb/s per GPU */
     .inter_node_bytes_per_s = 1.5625e9,
     .price_per_hour = 0.71,
     .price_source = "GCP g2-standard-4 on-demand (2024)"},
    {.struct_size = sizeof(struct ff_spec),
     .slug = "rtx-4090",
     .name = "NVIDIA GeForce RTX 4090 24GB",
     .source = "NVIDIA Ada Lovelace architecture whitepaper, Appendix A: 24 GB GDDR6X, "
               "1,008 GB/s, FP32 82.6 TF, FP16/BF16 tensor (FP32 accumulate) 165.2 TF, "
               "FP8 (FP32 acc.) 330.3, INT8 660.6 TOPS dense; PCIe Gen4, no NVLink",
     .mem_bytes = 24 * GIB,
     .bandwidth_bytes_per_s = 1008e9,
     RATES(82.6, 165.2, 165.2, 330.3, 660.6),
     .link_bytes_per_s = 32e9,
     .link_name = "PCIe Gen4 x16",
     .gpus_per_node = 0, /* no standard multi-GPU platform: node size and network unknown */
     .inter_node_bytes_per_s = 0,
     .price_per_hour = 0.40,
     .price_source = "typical community cloud rate (2024), estimate"},
    {.struct_size = sizeof(struct ff_spec),
     .slug = "mi300x",
     .name = "AMD Instinct MI300X 192GB",
     .source = "AMD Instinct MI300X data sheet: 192 GB HBM3, 5.3 TB/s, FP32 matrix 163.4 TF, "
               "BF16/FP16 1307.4 TF, FP8/INT8 2614.9 dense, Infinity Fabric 7x64 GB/s",
     .mem_bytes = 192 * GIB,
     .bandwidth_bytes_per_s = 5.3e12,
     RATES(163.4, 1307.4, 1307.4, 2614.9, 2614.9),
     .link_bytes_per_s = 448e9,
     .link_name = "Infinity Fabric xGMI (7 links)",
     .gpus_per_node =
         8, /* AMD MI300X platform: 8 OAM GPUs fully connected; Azure ND MI300X v5: 8x 400 Gb/s InfiniBand per VM, one per GPU */
     .inter_node_bytes_per_s = 50e9,
     .price_per_hour = 2.50,
     .price_source = "typical on-demand (2025), estimate"},
    {.struct_size = sizeof(struct ff_spec),
     .slug = "rx-7900-xtx",
     .name = "AMD Radeon RX 7900 XTX 24GB",
     .source = "AMD product page: 24 GB GDDR6, 960 GB/s, FP32 61.4 TF (dual issue), "
               "FP16/BF16 WMMA 122.8 TF, INT8 122.8 TOPS, no FP8; PCIe Gen4",
     .mem_bytes = 24 * GIB,
     .bandwidth_bytes_per_s = 960e9,
     RATES(61.4, 122.8, 122.8, 0, 122.8),
     .link_bytes_per_s = 32e9,
     .link_name = "PCIe Gen4 x16",
     .gpus_per_node = 0, /* no standard multi-GPU platform */
     .inter_node_bytes_per_s = 0,
     .price_per_hour = 0},
    {.struct_size = sizeof(struct ff_spec),
     .slug = "arc-a770",
     .name = "Intel Arc A770 16GB",
     .source = "Intel Arc A770 specifications: 16 GB GDDR6, 560 GB/s, 32 Xe-cores at 2.4 GHz: "
               "FP32 19.7 TF, XMX FP16/BF16 157.3 TF, INT8 314.6 TOPS; PCIe Gen4",
     .mem_bytes = 16 * GIB,
     .bandwidth_bytes_per_s = 560e9,
     RATES(19.7, 157.3, 157.3, 0, 314.6),
     .link_bytes_per_s = 32e9,
     .link_name = "PCIe Gen4 x16",
     .gpus_per_node = 0, /* no standard multi-GPU platform */
     .inter_node_bytes_per_s = 0,
     .price_per_hour = 0},
    {.struct_size = sizeof(struct ff_spec),
     .slug = "max-1550",
     .name = "Intel Data Center GPU Max 1550 128GB",
     .source = "Intel Data Center GPU Max 1550 product brief: 128 GB HBM2e, 3.2768 TB/s, "
               "128 Xe-cores at 1.6 GHz: FP32 52.4 TF, XMX BF16/FP16 838.9 TF, INT8 1677.7",
     .mem_bytes = 128 * GIB,
     .bandwidth_bytes_per_s = 3.2768e12,
     RATES(52.4, 838.9, 838.9, 0, 1677.7),
     .link_bytes_per_s = 64e9,
     .link_name = "Xe Link",
     .gpus_per_node =
         6, /* ALCF Aurora node: 6 Max 1550 on Xe Link, 8x HPE Slingshot-11 200 Gb/s per node = 33.3 GB/s per GPU */
     .inter_node_bytes_per_s = 33.3e9,
     .price_per_hour = 0},
    /* ---- dense rates (half the vendors' sparse figures);
     * prices are on-demand list rates on the date given, rounded; "approximate" marks a
     * marketplace figure that moves week to week ---- */
    {.struct_size = sizeof(struct ff_spec),
     .slug = "h100-pcie",
     .name = "NVIDIA H100 PCIe 80GB",
     .source = "NVIDIA H100 datasheet (PCIe): 80 GB HBM2e, 2.0 TB/s, FP32 51 TF, BF16/FP16 "
               "756 TF, FP8/INT8 1513 dense; NVLink bridge 600 GB/s, PCIe Gen5",
     .mem_bytes = 80 * GIB,
     .bandwidth_bytes_per_s = 2.0e12,
     RATES(51, 756, 756, 1513, 1513),
     .link_bytes_per_s = 64e9,
     .link_name = "PCIe Gen5 x16",
     .gpus_per_node =
         8, /* 8-GPU PCIe servers are usual; the NVLink bridge joins pairs only; no standard network */
     .inter_node_bytes_per_s = 0,
     .price_per_hour = 2.49,
     .price_source = "Lambda on-demand H100 PCIe, 2024"},
    {.struct_size = sizeof(struct ff_spec),
     .slug = "h100-nvl",
     .name = "NVIDIA H100 NVL 94GB",
     .source = "NVIDIA H100 datasheet (NVL): 94 GB HBM3, 3.9 TB/s, FP32 60 TF, BF16/FP16 835 "
               "TF, FP8/INT8 1671 dense; NVLink bridge 600 GB/s",
     .mem_bytes = 94 * GIB,
     .bandwidth_bytes_per_s = 3.9e12,
     RATES(60, 835, 835, 1671, 1671),
     .link_bytes_per_s = 300e9,
     .link_name = "NVLink bridge (pairs; PCIe Gen5 beyond)",
     .gpus_per_node =
         8, /* NVL cards are bridged in pairs in 8-GPU PCIe servers; no standard network */
     .inter_node_bytes_per_s = 0,
     .price_per_hour = 0},
    {.struct_size = sizeof(struct ff_spec),
     .slug = "b200",
     .name = "NVIDIA B200 180GB (HGX)",
     .source = "NVIDIA HGX B200 / DGX B200 datasheets: 180 GB HBM3e per GPU, 8 TB/s (64 TB/s "
               "per 8), FP32 75 TF, BF16/FP16 2.25 PF, FP8/INT8 4.5 P, FP4 9 PF dense; NVLink 5 "
               "1.8 TB/s",
     .mem_bytes = 180 * GIB,
     .bandwidth_bytes_per_s = 8.0e12,
     RATES4(75, 2250, 2250, 4500, 4500, 9000),
     .link_bytes_per_s = 900e9,
     .link_name = "NVLink 5 (NVSwitch)",
     .gpus_per_node =
         8, /* DGX B200 datasheet: 8 GPUs on NVSwitch, 8x ConnectX-7 400 Gb/s (one per GPU) */
     .inter_node_bytes_per_s = 50e9,
     .price_per_hour = 4.99,
     .price_source = "Lambda on-demand B200 (HGX), 2025, approximate"},
    {.struct_size = sizeof(struct ff_spec),
     .slug = "l40s",
     .name = "NVIDIA L40S 48GB",
     .source = "NVIDIA L40S datasheet: 48 GB GDDR6 (ECC), 864 GB/s, FP32 91.6 TF, BF16/FP16 "
               "362 TF, FP8 733 TF, INT8 733 TOPS dense; PCIe Gen4 x16, no NVLink",
     .mem_bytes = 48 * GIB,
     .bandwidth_bytes_per_s = 864e9,
     RATES(91.6, 362.05, 362.05, 733, 733),
     .link_bytes_per_s = 32e9,
     .link_name = "PCIe Gen4 x16",
     .gpus_per_node = 8, /* 8-GPU PCIe servers (e.g. OEM L40S systems); no standard network */
     .inter_node_bytes_per_s = 0,
     .price_per_hour = 0.99,
     .price_source = "marketplace on-demand (RunPod, 2025), approximate"},
    {.struct_size = sizeof(struct ff_spec),
     .slug = "a10g",
     .name = "NVIDIA A10G 24GB (AWS G5)",
     .source = "AWS EC2 G5 / NVIDIA A10G: 24 GB GDDR6, 600 GB/s, FP32 31.2 TF, BF16/FP16 "
               "tensor 70 TF, INT8 140 TOPS dense (A10 datasheet: 125/250; the A10G runs its "
               "tensor cores at lower clocks); PCIe Gen4",
     .mem_bytes = 24 * GIB,
     .bandwidth_bytes_per_s = 600e9,
     RATES(31.2, 70, 70, 0, 140),
     .link_bytes_per_s = 32e9,
     .link_name = "PCIe Gen4 x16",
     .gpus_per_node = 8, /* AWS g5.48xlarge: 8 A10G, 100 Gb/s per instance = 12.5 Gb/s per GPU */
     .inter_node_bytes_per_s = 1.5625e9,
     .price_per_hour = 1.006,
     .price_source = "AWS g5.xlarge on-demand, us-east-1, 2024"},
    {.struct_size = sizeof(struct ff_spec),
     .slug = "t4",
     .name = "NVIDIA T4 16GB",
     .source = "NVIDIA T4 datasheet: 16 GB GDDR6, 320 GB/s, FP32 8.1 TF, FP16 (mixed) 65 TF, "
               "INT8 130 TOPS; no BF16, no FP8; PCIe Gen3",
     .mem_bytes = 16 * GIB,
     .bandwidth_bytes_per_s = 320e9,
     RATES(8.1, 0, 65, 0, 130),
     .link_bytes_per_s = 16e9,
     .link_name = "PCIe Gen3 x16",
     .gpus_per_node = 8, /* AWS g4dn.metal: 8 T4, 100 Gb/s per instance = 12.5 Gb/s per GPU */
     .inter_node_bytes_per_s = 1.5625e9,
     .price_per_hour = 0.35,
     .price_source = "GCP NVIDIA T4 GPU on-demand, us-central1, 2024"},
    {.struct_size = sizeof(struct ff_spec),
     .slug = "v100",
     .name = "NVIDIA V100 SXM2 16GB",
     .source = "NVIDIA V100 datasheet (SXM2): 16 GB HBM2, 900 GB/s, FP32 15.7 TF, FP16 tensor "
               "125 TF, no BF16/FP8 (INT8 via DP4A 62.8 TOPS); NVLink 300 GB/s",
     .mem_bytes = 16 * GIB,
     .bandwidth_bytes_per_s = 900e9,
     RATES(15.7, 0, 125, 0, 62.8),
     .link_bytes_per_s = 150e9,
     .link_name = "NVLink 2 (hybrid cube mesh)",
     .gpus_per_node =
         8, /* AWS p3dn.24xlarge / DGX-1: 8 V100 on NVLink 2, 100 Gb/s per instance = 12.5 Gb/s per GPU */
     .inter_node_bytes_per_s = 1.5625e9,
     .price_per_hour = 3.06,
     .price_source = "AWS p3.2xlarge on-demand, us-east-1, 2024"},
    {.struct_size = sizeof(struct ff_spec),
     .slug = "rtx-a6000",
     .name = "NVIDIA RTX A6000 48GB",
     .source = "NVIDIA RTX A6000 datasheet: 48 GB GDDR6 (ECC), 768 GB/s, FP32 38.7 TF, "
               "BF16/FP16 tensor 154.8 TF, INT8 309.7 TOPS dense; no FP8; NVLink bridge 112.5 "
               "GB/s",
     .mem_bytes = 48 * GIB,
     .bandwidth_bytes_per_s = 768e9,
     RATES(38.7, 154.8, 154.8, 0, 309.7),
     .link_bytes_per_s = 56e9,
     .link_name = "NVLink bridge (pairs; PCIe Gen4 beyond)",
     .gpus_per_node = 0, /* workstation card: no standard multi-GPU platform */
     .inter_node_bytes_per_s = 0,
     .price_per_hour = 0.80,
     .price_source = "Lambda on-demand RTX A6000, 2024"},
    {.struct_size = sizeof(struct ff_spec),
     .slug = "rtx-6000-ada",
     .name = "NVIDIA RTX 6000 Ada Generation 48GB",
     .source = "NVIDIA RTX 6000 Ada datasheet / Ada whitepaper: 48 GB GDDR6 (ECC), 960 GB/s, "
               "FP32 91.1 TF, BF16/FP16 tensor 364.2 TF, FP8 728.5 TF, INT8 728.5 TOPS dense; "
               "PCIe Gen4, no NVLink",
     .mem_bytes = 48 * GIB,
     .bandwidth_bytes_per_s = 960e9,
     RATES(91.1, 364.2, 364.2, 728.5, 728.5),
     .link_bytes_per_s = 32e9,
     .link_name = "PCIe Gen4 x16",
     .gpus_per_node = 0, /* workstation card: no standard multi-GPU platform */
     .inter_node_bytes_per_s = 0,
     .price_per_hour = 0.77,
     .price_source = "marketplace on-demand (RunPod, 2025), approximate"},
    {.struct_size = sizeof(struct ff_spec),
     .slug = "rtx-5090",
     .name = "NVIDIA GeForce RTX 5090 32GB",
     .source = "NVIDIA RTX Blackwell GPU architecture whitepaper: 32 GB GDDR7, 1,792 GB/s, FP32 "
               "104.8 TF, FP16/BF16 tensor (FP32 accumulate) 209.5 TF, FP8 419 TF, INT8 838 "
               "TOPS, FP4 838 TF dense; PCIe Gen5, no NVLink",
     .mem_bytes = 32 * GIB,
     .bandwidth_bytes_per_s = 1792e9,
     RATES4(104.8, 209.5, 209.5, 419, 838, 838),
     .link_bytes_per_s = 64e9,
     .link_name = "PCIe Gen5 x16",
     .gpus_per_node = 0, /* no standard multi-GPU platform */
     .inter_node_bytes_per_s = 0,
     .price_per_hour = 0.89,
     .price_source = "marketplace on-demand (RunPod, 2025), approximate"},
    {.struct_size = sizeof(struct ff_spec),
     .slug = "rtx-3090",
     .name = "NVIDIA GeForce RTX 3090 24GB",
     .source = "NVIDIA Ampere GA102 whitepaper: 24 GB GDDR6X, 936 GB/s, FP32 35.6 TF, "
               "FP16/BF16 tensor (FP32 accumulate) 35.6 TF, INT8 142 TOPS dense; no FP8; PCIe "
               "Gen4",
     .mem_bytes = 24 * GIB,
     .bandwidth_bytes_per_s = 936e9,
     RATES(35.6, 35.6, 35.6, 0, 142),
     .link_bytes_per_s = 32e9,
     .link_name = "PCIe Gen4 x16",
     .gpus_per_node = 0, /* no standard multi-GPU platform */
     .inter_node_bytes_per_s = 0,
     .price_per_hour = 0.22,
     .price_source = "marketplace on-demand (Vast.ai, 2025), approximate"},
    {.struct_size = sizeof(struct ff_spec),
     .slug = "mi250x",
     .name = "AMD Instinct MI250X 128GB",
     .source = "AMD Instinct MI250X data sheet: 128 GB HBM2e, 3.2768 TB/s, FP32 matrix 95.7 TF, "
               "BF16/FP16 383 TF, INT8 383 TOPS; no FP8; two GCDs counted as one device; "
               "Infinity Fabric 8x100 GB/s",
     .mem_bytes = 128 * GIB,
     .bandwidth_bytes_per_s = 3.2768e12,
     RATES(95.7, 383, 383, 0, 383),
     .link_bytes_per_s = 400e9,
     .link_name = "Infinity Fabric xGMI",
     .gpus_per_node =
         4, /* OLCF Frontier node: 4 MI250X on Infinity Fabric, 4x HPE Slingshot 200 Gb/s (one per MI250X) */
     .inter_node_bytes_per_s = 25e9,
     .price_per_hour = 0},
    {.struct_size = sizeof(struct ff_spec),
     .slug = "mi325x",
     .name = "AMD Instinct MI325X 256GB",
     .source = "AMD Instinct MI325X data sheet: 256 GB HBM3E, 6 TB/s, FP32 matrix 163.4 TF, "
               "BF16/FP16 1307.4 TF, FP8/INT8 2614.9 dense; Infinity Fabric 7x64 GB/s",
     .mem_bytes = 256 * GIB,
     .bandwidth_bytes_per_s = 6.0e12,
     RATES(163.4, 1307.4, 1307.4, 2614.9, 2614.9),
     .link_bytes_per_s = 448e9,
     .link_name = "Infinity Fabric xGMI (7 links)",
     .gpus_per_node =
         8, /* AMD MI325X platform: 8 OAM GPUs; reference design with a 400 Gb/s NIC per GPU (AMD Pensando Pollara 400) */
     .inter_node_bytes_per_s = 50e9,
     .price_per_hour = 0},
};

/* Aliases: "alias slug". */
static const char *const aliases[][2] = {
    {"h100", "h100-sxm"},
    {"h100-80gb", "h100-sxm"},
    {"h100-sxm5", "h100-sxm"},
    {"h200-sxm", "h200"},
    {"h800-sxm", "h800"},
    {"h800-sxm5", "h800"},
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
    {"h100pcie", "h100-pcie"},
    {"h100nvl", "h100-nvl"},
    {"b200-sxm", "b200"},
    {"l40s-48gb", "l40s"},
    {"a10", "a10g"},
    {"tesla-t4", "t4"},
    {"v100-sxm2", "v100"},
    {"a6000", "rtx-a6000"},
    {"6000ada", "rtx-6000-ada"},
    {"rtx6000ada", "rtx-6000-ada"},
    {"5090", "rtx-5090"},
    {"rtx5090", "rtx-5090"},
    {"3090", "rtx-3090"},
    {"rtx3090", "rtx-3090"},
    {"mi250", "mi250x"},
    {"mi325", "mi325x"},
};

#define N_CATALOG (sizeof(catalog) / sizeof(catalog[0]))
#define N_ALIASES (sizeof(aliases) / sizeof(aliases[0]))

size_t ff_spec_catalog_count(void)
{
    return N_CATALOG;
}

const struct ff_spec *ff_spec_catalog_at(size_t i)
{
    return i < N_CATALOG ? &catalog[i] : NULL;
}

int ff_spec_find(const char *name, struct ff_spec *out)
{
    if (!name || !out)
        return FF_ERR_INVALID;
    int rc = ff_spec_out_check(out, NULL, 0);
    if (rc != FF_OK)
        return rc;
    const char *slug = name;
    for (size_t i = 0; i < N_ALIASES; i++)
        if (ff_streq_ci(name, aliases[i][0]))
            slug = aliases[i][1];
    for (size_t i = 0; i < N_CATALOG; i++) {
        if (ff_streq_ci(slug, catalog[i].slug)) {
            ff_abi_copy_out(out, &catalog[i], sizeof(catalog[i]));
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

/* The first of `order` (n precisions) the device has a rate for; *arith names it. */
static double first_rate(const struct ff_spec *d, const enum ff_precision *order, size_t n,
                         enum ff_precision *arith)
{
    for (size_t i = 0; i < n; i++) {
        if (order[i] == FF_PREC_FP16 && d->no_fp16)
            continue;
        if (d->flops_per_s[order[i]] > 0.0) {
            *arith = order[i];
            return d->flops_per_s[order[i]];
        }
    }
    return 0.0;
}

/*
 * Weight-only formats compute in the arithmetic their kernels really run:
 * - GPTQ/AWQ int4, MXFP4, NVFP4 (weight-only use): dequantised in registers into fp16
 *   tensor-core matmuls (Marlin, Frantar et al. 2024 §3; TensorRT-LLM's weight-only
 *   "W4A16" kernels); on a device with no 16-bit arithmetic the CPU runtimes dequantise to
 *   fp32 (PyTorch's CPU int4 path, ONNX Runtime MatMulNBits' fp32 accumulation).
 * - NF4: bitsandbytes dequantises into the bf16 compute dtype (QLoRA §3), else fp16, fp32.
 * - GGUF q4_0 / q4_k_m / q8_0: llama.cpp quantises the activations to 8 bits and multiplies
 *   with int8 dot products, on CPUs (ggml-cpu's ggml_vec_dot_q4_0_q8_0 and its kin, AVX2 /
 *   VNNI / NEON dotprod) and on GPUs (the CUDA MMQ kernels, dp4a or int8 mma); where a device
 *   has no int8 rate they dequantise to fp16 (cuBLAS path), else fp32.
 * - fp16 and bf16 on a device the profile says has no 16-bit arithmetic: 16-bit storage,
 *   fp32 products and sums, at the fp32 rate. That is what runs there: OpenCL C's
 *   vload_half/vstore_half are core for half storage without cl_khr_fp16 (OpenCL C 1.2
 *   §6.12.7); ggml-cpu's F16/BF16 dot products widen to fp32 and multiply there on x86
 *   without AVX512-BF16; PyTorch's CPU bf16 GEMMs compute in fp32 without AVX512-BF16 or
 *   AMX (oneDNN converts, at::cpublas accumulates in its fp32 opmath type); flopfit's own
 *   op GEMM in that mode ran 221-280 GFLOP/s where its fp32 ran 241-267
 *   (doc/measurements/2026-12-05-measure-the-job-4.md). A device that has fp16 arithmetic
 *   but no verified rate for it still refuses: measure it.
 */
double ff_spec_rate_arith(const struct ff_spec *d, enum ff_precision p, enum ff_precision *arith)
{
    struct ff_spec dv;
    enum ff_precision dummy;
    if (!arith)
        arith = &dummy;
    *arith = p;
    if (!d || ff_spec_view(&d, &dv, NULL, 0) != FF_OK)
        return 0.0;
    static const enum ff_precision half[] = {FF_PREC_FP16, FF_PREC_FP32};
    static const enum ff_precision brain[] = {FF_PREC_BF16, FF_PREC_FP16, FF_PREC_FP32};
    static const enum ff_precision gguf[] = {FF_PREC_INT8, FF_PREC_FP16, FF_PREC_FP32};
    switch (p) {
    case FF_PREC_INT4:
    case FF_PREC_MXFP4:
    case FF_PREC_NVFP4: return first_rate(d, half, 2, arith);
    case FF_PREC_Q4_0:
    case FF_PREC_Q4_K_M:
    case FF_PREC_Q8_0: return first_rate(d, gguf, 3, arith);
    case FF_PREC_NF4: return first_rate(d, brain, 3, arith);
    case FF_PREC_FP16:
    case FF_PREC_BF16:
        if (d->flops_per_s[p] > 0.0 || !d->no_fp16)
            return d->flops_per_s[p];
        *arith = FF_PREC_FP32;
        return d->flops_per_s[FF_PREC_FP32];
    case FF_PREC_COUNT: return 0.0;
    default: return (int)p >= 0 && p < FF_PREC_COUNT ? d->flops_per_s[p] : 0.0;
    }
}

double ff_spec_rate(const struct ff_spec *d, enum ff_precision p)
{
    return ff_spec_rate_arith(d, p, NULL);
}
