/*
 * flopfit/estimate.h — memory, FLOPs, time and cost of training or serving a model.
 *
 * Usage: ff_plan_init(&plan); set fields; ff_estimate_init(&est);
 * ff_est_run(&model, &device, &plan, &est, err, n).
 * Everything is computed in double (bytes, FLOPs, seconds) or int64 (counts), so 1T
 * parameters and 1M-token contexts do not overflow. Nothing here prints or exits.
 * The formulas and the published figures behind each default are in doc/estimator.md,
 * section "Assumptions".
 *
 * Ownership: every struct is the caller's (no call keeps a pointer to one after it returns,
 * nothing here allocates); the *_name functions return static strings owned by the library.
 * Errors: calls that take `err, errlen` write a one-line reason there on failure (cut to
 * errlen - 1 bytes; err may be NULL).
 * Thread-safety: all functions are reentrant; no global state.
 *
 * Growing structs: struct ff_plan, struct ff_estimate and struct ff_plan_choice begin with `size_t
 * struct_size`, which their _init function sets to the size the caller was compiled with (the
 * _init functions are inline, so sizeof is the caller's). The library reads or writes only that
 * many bytes, so a program built against an older minor release keeps working: fields it does not
 * know take their defaults (inputs) or are not written (outputs). A struct_size of 0 (not
 * initialised) is FF_ERR_INVALID, one this library does not know (newer headers)
 * FF_ERR_UNSUPPORTED; err says which. struct ff_model and struct ff_spec work the same way
 * (flopfit/model.h, flopfit/spec.h). The other structs here are frozen: their layout changes only
 * with the soname (doc/abi.md).
 */
#ifndef FLOPFIT_ESTIMATE_H
#define FLOPFIT_ESTIMATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "flopfit/spec.h"
#include "flopfit/export.h"
#include "flopfit/model.h"
#include "flopfit/ops.h"
#include "flopfit/precision.h"

#ifdef __cplusplus
extern "C" {
#endif

enum ff_task { FF_TASK_TRAIN = 0, FF_TASK_LORA, FF_TASK_QLORA, FF_TASK_SERVE };
enum ff_optimizer { FF_OPT_ADAMW = 0, FF_OPT_ADAMW8BIT, FF_OPT_SGD };
/* Activation recomputation (memory.c, flops.c; doc/estimator.md "Recompute"):
 * SELECTIVE: Megatron's (Korthikanti et al. 2022 §5): the attention core's scores, softmax and
 *   dropout mask are dropped and recomputed. Flash attention never stores them, so with flash
 *   attention on it saves nothing more and costs nothing: the same as NONE.
 * FULL: every layer keeps only its input and is rerun in backward (Chen et al. 2016;
 *   Korthikanti Table 2, 2sbh per layer).
 * LAYERS: every K-th layer (ff_plan.recompute_every) is checkpointed as in FULL, the others keep
 *   everything (torchtitan's selective layer AC, `selective_ac_option` K; PyTorch
 *   torch.utils.checkpoint applied to every K-th block). K = 1 is FULL.
 * OPS: op-level selective: the outputs of the matmuls and of attention are kept, the norms and
 *   the element-wise ops (activation function, gating product, dropout) are recomputed in
 *   backward (torchtitan's "op" selective AC keeps mm/SDPA outputs; Megatron-Core's
 *   --recompute-modules layernorm moe_act). No matmul is rerun. */
enum ff_recompute {
    FF_RECOMPUTE_NONE = 0,
    FF_RECOMPUTE_SELECTIVE,
    FF_RECOMPUTE_FULL,
    FF_RECOMPUTE_LAYERS,
    FF_RECOMPUTE_OPS
};

/* Defaults. The published figures behind them (doc/estimator.md): Llama 2's GPU-hours
 * imply 42-46% MFU, Llama 3.1 405B reports 38-43%, Megatron 42-54%; kipply's 13B serving
 * measurements imply ~66% prefill MFU and ~75% of datasheet bandwidth, llama.cpp 32-72%. */
#define FF_DEFAULT_MFU_TRAIN           0.40 /* training; the cautious end of 38-54% */
#define FF_DEFAULT_MFU_SERVE           0.60 /* serving prefill */
#define FF_DEFAULT_BW_FRACTION         0.70 /* of datasheet bandwidth (a profile's: 1.0) */
/* Runtime overhead per GPU, each term sourced (doc/estimator.md):
 * the CUDA/ROCm context with its loaded kernels and library workspaces: a process holding
 * one tiny tensor occupies 1,343 MB (Hugging Face Transformers docs, "Model training
 * anatomy"); lazy module loading (CUDA 11.7+, PyTorch's default) loads fewer kernels, and
 * cuBLAS adds its workspaces (PyTorch's default CUBLAS_WORKSPACE_CONFIG :4096:8 on Hopper,
 * 32 MiB per handle): 1 GiB is taken. */
#define FF_DEFAULT_OVERHEAD_BYTES      1073741824.0
/* The caching allocator's reserve: freed activation blocks are cached and split, so reserved
 * memory runs ahead of what is allocated (PyTorch CUDA semantics, "memory management";
 * expandable_segments exists to cut it): 10% of the activations, the only churning term. */
#define FF_DEFAULT_OVERHEAD_FRACTION   0.10
/* NCCL's buffers, with more than one GPU: NCCL_BUFFSIZE 4 MiB per channel and peer for the
 * Simple protocol plus an LL128 buffer of about the same, send and receive, over up to 32
 * channels (NCCL environment-variable docs: NCCL_BUFFSIZE, NCCL_MAX_NCHANNELS): about
 * 2 x 2 x 32 x 4 MiB = 512 MiB per process. */
#define FF_DEFAULT_NCCL_BYTES          536870912.0
/* The fixed overhead on a host-shared device (a CPU, an iGPU: the profile's device type or
 * host_shared_memory): no GPU context and no NCCL buffers exist there (the two terms
 * above are device memory a CUDA/ROCm driver and NCCL take: HF "Model training anatomy",
 * NCCL's NCCL_BUFFSIZE docs), and a profile's usable-memory probe allocated beside its own
 * runtime, so what it measured is already net of a process's libraries and heap (the
 * OpenCL/PoCL runtime included). 0; a framework's own libraries (a few hundred MB of RSS
 * for PyTorch) are the user's to add with --overhead-gib. */
#define FF_DEFAULT_HOST_OVERHEAD_BYTES 0.0
/* Datasheet memory the driver keeps (ECC, page tables, reserved regions): what PyTorch
 * reports as a GPU's "total capacity" is 79.25 GiB on an A100 80GB, 39.59 GiB on an A100
 * 40GB and 23.68 GiB on an RTX 4090 24GB (their CUDA out-of-memory messages in
 * levihsu/OOTDiffusion#235, raoyongming/DenseCLIP#52, zai-org/CogVideo#36): 0.9-1.3% less.
 * 1% of a datasheet figure is taken off; a measured profile's figure is already usable. */
#define FF_DEFAULT_DRIVER_RESERVE      0.01
#define FF_DEFAULT_ALLREDUCE_LATENCY_S 10e-6 /* one small NCCL all-reduce on NVLink */
/* FP8 serving compute over BF16 (serve.c): 1.4x, checked against TensorRT-LLM's H100 and L40S
 * FP8 runs (tests/estimate/test_biases.c). Training: FF_DEFAULT_FP8_TRAIN_SPEEDUP. */
#define FF_DEFAULT_FP8_SPEEDUP         1.4
/* FP8 training's speed-up over BF16 end to end (the step model's compute efficiency is
 * multiplied by it over the BF16 rate): NVIDIA Transformer Engine about 1.28x BF16 Megatron-LM
 * and FP8-LM 1.75x on GPT-175B/H100 (Peng et al. 2023, abstract: 75% faster than BF16, 37%
 * faster than Transformer Engine); TorchTitan's Float8 on Llama 3.1 8B, 8 H100: 8,532 against
 * 6,667 tokens/s per GPU compiled BF16, 1.28x (Liang et al. 2024, Table 1); TorchAO MXFP8 on
 * 1856 B200, Llama 3 70B: 1.22-1.28x (PyTorch blog, "Accelerating 2K scale pre-training up to
 * 1.28x"); TorchAO MXFP8 MoE on Llama 4 Scout, GB200: 1.30x (PyTorch blog). Training pays the
 * casts of weights, activations and gradients and the amax bookkeeping that serving does not;
 * 1.3 sits at the measured 1.22-1.30 but for FP8-LM's outlier: FP8 training plans at
 * 0.55 x 1.3 / 2 = 36% of an H100's FP8 peak. */
#define FF_DEFAULT_FP8_TRAIN_SPEEDUP   1.3
/* Serving, decode (serve.c). Checked against the 16 runs of TensorRT-LLM's performance.md
 * (v0.6.1 peak-throughput tables: Llama-2-7B on A100 FP16, H100 FP8 and L40S FP8, Llama-2-70B
 * TP2/TP4 on A100 and H100, 128/2048 tokens in and out; tests/estimate/test_biases.c):
 * - KV-cache reads by the attention kernels reach 80% of datasheet bandwidth: the
 *   KV-dominated Llama-2-7B runs (2048 in or out, 16-80 sequences) come out 0.79-0.93 of
 *   the published throughput at the 70% that weight streaming reaches, 0.82-1.05 at 80%.
 *   vLLM's first PagedAttention kernel was 20-26% slower than FasterTransformer's (Kwon et
 *   al. 2023 §7.1): the 70% default is that class of kernel.
 * - Decode GEMMs run at the serving MFU: the compute-bound runs (A100 FP16 at 384 and H100
 *   FP8 at 768 sequences, 128/128) come out 0.89 and 1.01 with it; a lower decode MFU moves
 *   the first away, a higher one the second.
 * - Per-step engine overhead (launches, scheduling, sampling) of 0.3 ms: up to this the
 *   runs' mean error is unchanged, 1 ms already worsens it; TensorRT-LLM's C++ runtime is
 *   the low end, Python schedulers pay more (vLLM v0.6.0 release blog: the CPU overhead it
 *   removed had left the GPU idle much of each step). */
#define FF_DEFAULT_KV_BW_FRACTION      0.80
/* On a measured profile the rate divided by is the best verified matmul of the profile, an
 * achieved rate, not a datasheet peak: the kernel's own efficiency at a large GEMM, the
 * largest part of the datasheet discounts above, is in it (vendor GEMMs reach 80-86% of
 * A100/H100 peak: Bekman, ml-engineering "Maximum Achievable Matmul FLOPS"; so 0.55 of
 * peak is 0.64-0.69 of such a matmul). What it lacks, the kernels outside the matmuls
 * (about a third of a BERT step in PyTorch: Ivanov et al. 2021, "Data Movement Is All You
 * Need") and smaller GEMM shapes, is offset by the framework's BLAS beating a portable bench
 * kernel (PyTorch fp32 MKL trains 35M-374M Llama shapes 1.3-1.9x faster than 0.55 of a PoCL
 * matmul predicts on that CPU, 0.72-1.03 of the prediction at 1.0: doc/measurements
 * 2026-12-03-estimate-profiles.md). No factor is applied: 1.0 of the measured matmul, for
 * training compute, prefill and decode GEMMs alike; --compute-efficiency / --mfu override. */
#define FF_DEFAULT_MEASURED_EFFICIENCY 1.0
/* Quantized decode (serve.c): at small batch a weight-only kernel streams its packed weights
 * at a lower fraction of bandwidth than a 16-bit GEMV, relative to the 16-bit fraction:
 * - GGUF (llama.cpp discussion #4167, LLaMA-7B tg128 on Apple M-series GPUs: Q8_0 streams
 *   0.86-0.89 and Q4_0 0.65-0.77 of F16's bytes per second; Q4_K like Q4_0); 0.87 and 0.70.
 * - GPTQ/AWQ int4: Marlin (Frantar et al. 2024) stays near the ideal 3.9x over fp16 up to
 *   batch 16-32, i.e. ~1.0; ExLlamaV2 and the AWQ/GPTQ kernels before it reach ~2.5-3x at
 *   batch 1 (Marlin's Fig. 1 comparisons; TensorRT-LLM's weight-only docs report 2-3x for
 *   W4A16 at low batch): 0.65-0.8. 0.80 is taken, for nf4, mxfp4 and nvfp4 weight-only too.
 * At larger batch the GEMMs turn compute-bound and pay the dequantisation: W4A16 kernels
 * fall to or below fp16 speed (Marlin Fig. 1 beyond batch 64; TensorRT-LLM: weight-only
 * helps "at small batch sizes", FP16 wins when compute-bound): their compute runs at 0.80
 * of the 16-bit rate. GGUF int8-dot kernels carry their scales in the dot product: 1.0.
 * A profile's "op weight_stream" test, when present, replaces the bandwidth fraction. */
#define FF_QUANT_GGUF8_BW_REL          0.87
#define FF_QUANT_GGUF4_BW_REL          0.70
#define FF_QUANT_W4_BW_REL             0.80
#define FF_QUANT_W4_COMPUTE_REL        0.80
#define FF_DEFAULT_STEP_OVERHEAD_S     3e-4
/* A plan that fits with less than this fraction of usable memory to spare is reported as
 * tight: the terms the estimate approximates (runtime overhead, allocator fragmentation,
 * the driver's reservation) are each of that order on an 80 GiB device. A flag only: it
 * changes no figure. */
#define FF_TIGHT_FRACTION              0.05
/* DeepSpeed ZeRO's defaults (deepspeed/runtime/zero/config.py, DeepSpeedZeroConfig; the same
 * in the DeepSpeed config-json docs), in parameters (elements):
 * reduce_bucket_size: gradients are reduced through one contiguous 16-bit bucket of this many
 * elements (contiguous_gradients on; a second bucket only with overlap_comm, which defaults
 * to on for stage 3 only, and stage 3 keeps one flat bucket); ZeRO paper §6.3 "constant size
 * buffers". stage3_prefetch_bucket_size: parameters fetched ahead of use.
 * stage3_max_live_parameters: parameters resident before releasing.
 * stage3_param_persistence_threshold: tensors smaller than this stay whole on every GPU. */
#define FF_ZERO_REDUCE_BUCKET          5e8
#define FF_ZERO3_PREFETCH_BUCKET       5e7
#define FF_ZERO3_MAX_LIVE              1e9
#define FF_ZERO3_PERSISTENCE_THRESHOLD 1e5

/* The most GPUs a plan may use in all (--gpus, --nodes x GPUs per node, tp x pp): 10^6, past
 * the largest cluster built; a larger count is a typo, not a plan. */
#define FF_PLAN_GPUS_MAX 1000000

/* What to estimate and how. ff_plan_init sets every default listed here. */
struct ff_plan {
    size_t struct_size;               /* sizeof(struct ff_plan), set by ff_plan_init */
    enum ff_task task;                /* default FF_TASK_TRAIN */
    enum ff_precision precision;      /* weights/compute; default bf16 */
    enum ff_precision kv_precision;   /* KV cache; default = 16-bit of precision */
    bool kv_precision_set;            /* false: derive from precision */
    enum ff_precision grad_precision; /* stored gradients; default fp32 (Megatron, DeepSpeed) */
    enum ff_optimizer optimizer;      /* default AdamW */
    int64_t batch;                    /* micro-batch, sequences per model replica; default 1 */
    int64_t seq;                      /* training sequence length, tokens; 0 = model's max
                                          context capped at 4096 */
    int64_t accum;                    /* gradient-accumulation steps (pipeline micro-batches);
                                          default 1 */
    enum ff_recompute recompute;      /* default none */
    bool flash_attention;             /* default true */
    bool sequence_parallel;           /* with tp > 1; default true */
    int zero;                         /* ZeRO stage 0-3; default 0 */
    int64_t tp, pp;                   /* tensor / pipeline parallel; default 1 */
    int64_t gpus;                     /* 0 = the fewest that fit; else multiple of tp·pp;
                                         at most FF_PLAN_GPUS_MAX */
    int64_t lora_rank;                /* default 16 */
    bool lora_all_linear;             /* true: all linear layers (QLoRA); false: Wq, Wv */
    int64_t prompt, generate;         /* serving, tokens; default 512 and 256 */
    double tokens;                    /* training tokens; 0 = 20 × params (Chinchilla),
                                          fine-tuning 1e8 */
    double mfu;                       /* 0 = default (FF_DEFAULT_MFU_*), else (0,1] */
    double achieved_flops_per_s;      /* hardware FLOP/s per GPU; overrides mfu when > 0 */
    double bw_fraction;               /* 0 = default (0.70 datasheet, 1.0 measured) */
    double price_per_hour;            /* USD per GPU-hour; 0 = the device's */
    double overhead_bytes;            /* fixed runtime overhead per GPU (context, kernels,
                                          workspaces and NCCL); < 0 = the defaults */
    double overhead_fraction;         /* of the activations; < 0 = default */
    bool weights_as_stored;           /* serving: weights take the model's stored_bytes (a
                                         model folder's exact checkpoint size) instead of
                                         params x bytes of `precision`; default false */
    bool auto_layout;                 /* with gpus > 0: tp and pp are not given; training
                                         runs the plan search on exactly `gpus` GPUs (tp and
                                         pp, plus the dimensions `search` frees), serving the
                                         layout with the most output tokens/s; default
                                         false */
    bool paged_optimizer;             /* training: the optimizer states live in paged (unified)
                                         memory that bitsandbytes' paged optimizers page to
                                         host under pressure; they count only at the step,
                                         not in the forward/backward peak; default false */
    /* Added for multi-GPU plans (estimate/src/comm.c). */
    int64_t gpus_per_node;         /* 0 = the device's (unknown: 8); tp stays within one */
    double inter_node_bytes_per_s; /* per GPU, per direction; 0 = the device's */
    double compute_efficiency;     /* hardware FLOPs utilisation of the compute alone, without
                                      communication or bubble; 0 = default
                                      (FF_DEFAULT_COMPUTE_EFFICIENCY) */
    int64_t ep;                    /* expert-parallel ranks for MoE (divides dp and the
                                      experts); default 1: no all-to-all */
    int64_t pp_chunks;             /* interleaved 1F1B: model chunks per stage; default 1 */
    bool dp_overlap;               /* the gradient sync overlaps backward (bucketed DDP,
                                      FSDP, DeepSpeed); default true */
    int64_t global_batch;          /* training: sequences per optimizer step; 0 = micro-batch
                                      x accum x dp, or, in a search, the default rule
                                      (ff_default_global_batch) */
    /* Added for the cost models of context parallelism, recomputation, MoE and overlap. */
    int64_t cp;              /* context-parallel ranks: each holds seq/cp tokens of every
                                sequence, K/V passed around a ring (ring attention); default 1.
                                gpus = tp x pp x cp x dp; seq a multiple of 2 x cp */
    int64_t recompute_every; /* FF_RECOMPUTE_LAYERS: every K-th layer is checkpointed, K >= 1;
                                default 0 (other policies) */
    double moe_imbalance;    /* most loaded expert rank over the mean, 1..8; 0 = default
                                (FF_DEFAULT_MOE_IMBALANCE) */
    double moe_a2a_overlap;  /* fraction of the expert all-to-all hidden under an adjacent
                                micro-batch's compute (Megatron-Core combined 1F1B, DeepSeek's
                                DualPipe), 0..1; < 0 = default (FF_DEFAULT_MOE_A2A_OVERLAP) */
    double tp_overlap;       /* fraction of the tensor-parallel communication hidden under the
                                GEMMs (Transformer Engine userbuffers), 0..1; < 0 = default
                                per plan (ff_plan_tp_overlap) */
    bool ep_fold;            /* MoE parallel folding: the ep ranks are drawn from the tp x cp x
                                dp ranks of a stage (ep divides tp x cp x dp), each expert whole
                                on its rank (expert tensor parallel 1); default false: ep carved
                                out of dp, experts split over tp */
    /* The plan search (layout.c) and the defaults a plan takes when it gives none. */
    unsigned search;            /* FF_SEARCH_* bits: the dimensions the search chooses on
                                    `gpus` GPUs (auto_layout adds tp and pp); default 0 */
    bool global_batch_default;  /* training: no batch given, the global batch is
                                    ff_default_global_batch(); default false */
    double global_batch_tokens; /* training: tokens per optimizer step, rounded to whole
                                    sequences; > 0 wins over global_batch; default 0 */
    double deadline_seconds;    /* training with gpus 0: the fewest GPUs that finish the
                                    tokens within this; 0 = none (the fewest that fit) */
};

/* Dimensions of the plan search (struct ff_plan.search): each set bit lets the search choose
 * that dimension; a clear one keeps the plan's value. FF_SEARCH_ALL is what `--gpus N` alone
 * asks for (the CLI clears the bits of the options given). */
#define FF_SEARCH_TP        (1u << 0)
#define FF_SEARCH_PP        (1u << 1)
#define FF_SEARCH_EP        (1u << 2)
#define FF_SEARCH_ZERO      (1u << 3)
#define FF_SEARCH_RECOMPUTE (1u << 4)
#define FF_SEARCH_BATCH     (1u << 5) /* micro-batch; accumulation follows the global batch */
#define FF_SEARCH_CP        (1u << 6) /* context parallelism: tried at sequences of 16k and up */
#define FF_SEARCH_ALL       0x7fu

/* The default global batch of a training run of `params` parameters at `seq` tokens per
 * sequence, in sequences: 2^21 tokens x (params / 7e9)^(1/4), rounded to the nearest power of
 * two of sequences (at least 1). The published runs behind it (doc/estimator.md "Default
 * global batch"): GPT-3 0.5M-3.2M tokens from 125M to 175B (Brown et al. 2020, Table 2.1),
 * LLaMA / Llama 2 4M (Touvron et al. 2023), Llama 3 405B 4M -> 16M (Dubey et al. 2024),
 * Chinchilla 1.5M -> 3M (Hoffmann et al. 2022), Pythia 2M (Biderman et al. 2023), OLMo 4M
 * (Groeneveld et al. 2024), BLOOM 2048 x 2048 (BigScience 2022); critical batch size
 * growing as a power of the model size (McCandlish et al. 2018; Kaplan et al. 2020 §5.1:
 * B_crit ~ N^0.36 along the loss curve). 0 when params or seq is not positive. */
FF_API int64_t ff_default_global_batch(double params, int64_t seq);
/* The sources of ff_default_global_batch, one line. Static string. */
FF_API const char *ff_default_global_batch_sources(void);

/* Memory per GPU, bytes. Frozen (embedded in ff_estimate and ff_plan_choice): new terms
 * go to the end of the struct that embeds it. */
struct ff_memory {
    double weights, gradients, optimizer, activations, kv_cache, overhead, total;
    double paged;                  /* of `optimizer`, the states a paged optimizer keeps off
                                      the device at the forward/backward peak (total is the
                                      larger of that peak and the step's) */
    double overhead_runtime;       /* of `overhead`: context, kernels, library workspaces */
    double overhead_nccl;          /* of `overhead`: NCCL buffers (more than one GPU) */
    double overhead_fragmentation; /* of `overhead`: the caching allocator's reserve */
};

#define FF_MAX_SUGGESTIONS 10
#define FF_SUGGESTION_MAX  128

/* A change that makes the plan fit (or the closest it gets). Frozen. */
struct ff_suggestion {
    char change[FF_SUGGESTION_MAX]; /* CLI-style, e.g. "--recompute full" */
    double total_bytes;             /* per-GPU total with the change */
    bool fits;
};

/*
 * One training step, broken down (estimate/src/comm.c; doc/estimator.md). Each term is
 * the time it adds to the step on the most loaded GPU, after the overlap the schedule allows.
 * A term that does not apply (tp 1: no tensor-parallel all-reduce) has applies == false and
 * says why in `note`; it is not a zero time. A term whose link rate is unknown has
 * known == false and is left out of the step time (the note says which figure is missing).
 */
enum ff_step_term {
    FF_TERM_COMPUTE = 0,  /* FLOPs / (rate x compute efficiency) */
    FF_TERM_TP,           /* tensor-parallel all-reduces (SP: all-gather + reduce-scatter),
                             exposed part; with cp > 1 also ring attention's exposed K/V
                             exchange (ff_estimate.cp_comm_seconds) */
    FF_TERM_DP,           /* data-parallel gradient all-reduce / reduce-scatter, exposed part */
    FF_TERM_ZERO3,        /* ZeRO-3 parameter all-gathers, exposed part */
    FF_TERM_BUBBLE,       /* pipeline bubble, (p-1)/(v*m) of the pipelined work */
    FF_TERM_MOE_A2A,      /* expert-parallel all-to-all */
    FF_TERM_MOE_IMBALANCE /* the most loaded expert rank's extra expert compute */
};
#define FF_STEP_TERMS 7

#define FF_STEP_NOTE_MAX 96
/* Frozen, like struct ff_step (both are embedded in ff_estimate). */
struct ff_step_part {
    bool applies;         /* false: the term does not apply to this plan (note says why) */
    bool known;           /* false: a link rate is unknown; the term is not in seconds */
    bool inter_node;      /* communication crosses nodes (the network, not the node's links) */
    double seconds;       /* time added to the step, s */
    double total_seconds; /* before overlap, s (= seconds when nothing overlaps) */
    double bytes;         /* bytes each GPU sends per step */
    char note[FF_STEP_NOTE_MAX];
};

struct ff_step {
    bool valid;    /* computed (training tasks) */
    bool modelled; /* the run's time is steps x step time (no --mfu / --achieved) */
    struct ff_step_part term[FF_STEP_TERMS];
    double seconds;        /* sum of the known terms, s */
    double steps;          /* optimizer steps for the run's tokens */
    double sequences;      /* global batch: sequences per step (micro-batch x accum x dp) */
    int64_t micro_batches; /* per pipeline per step (accum) */
    int64_t gpus_per_node, nodes;
    double intra_busbw_bytes_per_s, inter_busbw_bytes_per_s; /* achieved bus bandwidth used */
    bool intra_measured, inter_measured;
    double compute_efficiency; /* of the compute term (HFU of compute alone) */
    double mfu;                /* implied: model FLOPs / (step time x GPUs x peak) */
    int dominant;              /* the largest known term (enum ff_step_term) */
};

/* Everything ff_est_run computes. ff_estimate_init sets struct_size; new fields are appended
 * at the end. */
struct ff_estimate {
    size_t struct_size; /* sizeof(struct ff_estimate), set by ff_estimate_init */
    struct ff_param_count params;
    enum ff_precision compute_precision; /* whose rate was used */
    enum ff_precision kv_precision;      /* KV-cache format used */
    double rate_flops_per_s;             /* peak matrix rate per GPU used, FLOP/s */
    double bandwidth_bytes_per_s;        /* device bandwidth used (before bw_fraction) */
    double bw_fraction;                  /* achieved fraction of bandwidth assumed */
    double mfu;                          /* model FLOPs utilisation assumed (or implied) */
    double hfu;                          /* hardware FLOPs utilisation = mfu · hardware/model */
    bool mfu_default;                    /* mfu came from the defaults */

    /* Memory at the plan: --gpus as given (tp, pp as given), or else the layout with the
     * fewest GPUs that fit (gpus_chosen); when nothing fits, the plan's tp·pp. */
    struct ff_memory mem;
    double usable_bytes; /* device memory planned with, per GPU: a datasheet's less
                            FF_DEFAULT_DRIVER_RESERVE, a profile's as measured */
    bool fits;
    double margin_bytes;            /* usable - total (negative: short by) */
    int64_t max_batch;              /* largest micro-batch that fits (0: none) */
    int64_t min_gpus;               /* fewest GPUs under the plan's options (0: none) */
    int64_t min_tp, min_pp, min_dp; /* the layout that achieves min_gpus */
    int64_t tp, pp;                 /* layout used (the plan's, or the fewest-GPU one) */
    int64_t gpus;                   /* GPUs the memory, time and cost figures use */
    int64_t dp;                     /* data-parallel ranks at `gpus` */
    bool gpus_chosen;               /* gpus was not given: the fewest that fit */

    /* Training / fine-tuning compute. */
    double tokens;         /* training tokens used */
    double flops_6nd;      /* 6·N_active·D (Kaplan) */
    double flops_model;    /* exact model FLOPs (matmuls + attention, PaLM App. B) */
    double flops_hardware; /* with recomputation */
    double seconds;        /* wall time on `gpus` */
    double gpu_hours;
    double price_per_hour; /* USD, 0 = unknown */
    double cost_usd;       /* < 0 when the price is unknown */

    /* Serving (task FF_TASK_SERVE). */
    int64_t serve_batch;             /* sequences served together (plan.batch) */
    double prefill_seconds;          /* time to first token for serve_batch prompts */
    double decode_seconds_per_token; /* one decode step at serve_batch (mean context) */
    double tokens_per_second;        /* one sequence's decode rate = 1/step at batch 1 */
    double batch_tokens_per_second;  /* serve_batch·generate / (prefill + generate·step) */
    int64_t max_sequences;           /* concurrent sequences at prompt+generate that fit */
    double max_tokens_per_second;    /* output tokens/s at max_sequences, end to end */
    double cost_per_million_tokens;  /* USD per 1e6 output tokens at serve_batch; <0 unknown */

    size_t n_suggestions;
    struct ff_suggestion suggestions[FF_MAX_SUGGESTIONS];

    bool layout_chosen;     /* auto_layout: tp and pp were chosen for the given --gpus */
    bool tight;             /* fits with a margin under FF_TIGHT_FRACTION of usable memory */
    double margin_fraction; /* margin_bytes / usable_bytes */
    bool context_exceeded;  /* the sequence (training) or prompt + generate (serving) is
                               longer than the model's trained context */
    int64_t context_tokens; /* the model's context (ff_model_context), 0 = unknown */

    /* Added for multi-GPU plans: one training step broken down (ff_est_step). */
    struct ff_step step;

    /* How the device's figures became rates (a profile's measured figures are not peaks). */
    enum ff_precision rate_precision;      /* arithmetic whose rate is used (int8 for q4_0 on a
                                         device with int8 dot products, fp32 without fp16) */
    char rate_test[FF_SPEC_TEST_MAX];      /* measured test the rate came from; "" datasheet */
    char bandwidth_test[FF_SPEC_TEST_MAX]; /* measured bandwidth test; "" datasheet */
    double compute_efficiency;             /* applied to rate_flops_per_s for compute (training's
                                      compute term, serving's MFU when defaulted) */
    bool rate_measured;                    /* the rate is a measured one (no datasheet discount) */
    double weight_bw_fraction;             /* serving: weight streaming's share of bw_fraction for
                                      the format (1 for 16-bit weights) */
    double weight_compute_fraction;        /* serving: the format's compute over its arithmetic's */
    bool weight_stream_measured;           /* weight_bw_fraction from the profile's op test */
    bool usable_lower_bound;    /* usable_bytes is a lower bound (probe stopped by a cap) */
    double usable_driver_bytes; /* the driver's figure beside such a lower bound, else 0 */
    bool fit_unknown;           /* does not fit the lower bound, might fit the driver's */
    bool host_shared;           /* the device's memory is host RAM: no GPU driver overheads */
    bool hypothetical;          /* more than one copy of a device that cannot be pooled
                                      into one plan (a CPU device): not advice */
    /* params.active less the input embedding (a lookup, no FLOPs): the convention of
     * DeepSeek's and OpenAI's cards (DeepSeek-V2-Lite 2.4B, gpt-oss-20b 3.61B), where
     * Mistral's and Qwen's count it (Mixtral 12.9B, Qwen3-30B-A3B 3.3B). */
    uint64_t active_non_embedding;
    /* Added for the cost models of context parallelism, MoE and overlap (comm.c). */
    int64_t cp;                     /* context-parallel ranks of the layout */
    double moe_gemm_efficiency;     /* grouped expert GEMMs over the dense compute efficiency
                                       (1: dense model) */
    double moe_tokens_per_expert;   /* tokens each local expert gets per micro-batch */
    double moe_imbalance;           /* the load imbalance used */
    double moe_a2a_hidden_fraction; /* of the all-to-all, hidden (shared experts, overlap) */
    double tp_hidden_fraction;      /* of the tensor-parallel communication, hidden */
    double cp_comm_seconds;         /* ring attention's K/V exchange per step, exposed part
                                       (counted in the tp_comm term) */
    double cp_comm_total_seconds;   /* the same before overlap with the attention compute */
    double cp_comm_bytes;           /* bytes each GPU sends per step for it */
    /* The plan used, after the search (layout.c): the given values where nothing was
     * searched. */
    int zero;                    /* ZeRO stage */
    enum ff_recompute recompute; /* recomputation */
    int64_t batch, accum, ep;    /* micro-batch, accumulation, expert-parallel ranks */
    bool searched;               /* chosen by the plan search (ranked by the run's time) */
    int64_t candidates;          /* plans the search timed that fit */
    /* The runner-up of the search (has_runner_up), as its layout and why it lost. */
    bool has_runner_up;
    int64_t runner_up_tp, runner_up_pp, runner_up_dp, runner_up_ep;
    int64_t runner_up_batch, runner_up_accum;
    int runner_up_zero;
    enum ff_recompute runner_up_recompute;
    double runner_up_seconds; /* its run, s */
    char runner_up_why[160];  /* e.g. "1.31x slower: pipeline bubble +2.1 s per step" */
    /* Training: the global batch the plan was sized to. */
    int64_t global_batch;        /* sequences per optimizer step (step.sequences) */
    double global_batch_tokens;  /* global_batch x sequence length */
    bool global_batch_defaulted; /* from ff_default_global_batch (no batch was given) */
    /* Training with a deadline (plan.deadline_seconds): the fewest GPUs that meet it. */
    double deadline_seconds;
    bool deadline_met; /* false: not even FF_PLAN_GPUS_MAX GPUs finish in time */
    /* Serving at the asked concurrency (serve_batch users). */
    double user_tokens_per_second;      /* one user's decode rate at serve_batch, 1/step */
    double max_cost_per_million_tokens; /* USD per 1e6 output tokens at max_sequences; < 0
                                           unknown (cost_per_million_tokens: at serve_batch) */
    int64_t recompute_every;            /* FF_RECOMPUTE_LAYERS: the plan's K (after the search) */
    int64_t runner_up_cp;               /* the runner-up's context-parallel ranks */
};

/* Fill the first struct_size bytes of *plan with the defaults (those listed in struct ff_plan)
 * and set plan->struct_size. Returns 0, or FF_ERR_UNSUPPORTED for a size this library does
 * not know; then *plan is zeroed but for struct_size, and every call refuses it. Programs call
 * ff_plan_init. */
FF_API int ff_plan_init_sized(struct ff_plan *plan, size_t struct_size);
static inline int ff_plan_init(struct ff_plan *plan)
{
    return ff_plan_init_sized(plan, sizeof(*plan));
}

/* Zero *est and set its struct_size; before ff_est_run. Returns as ff_plan_init_sized. */
FF_API int ff_estimate_init_sized(struct ff_estimate *est, size_t struct_size);
static inline int ff_estimate_init(struct ff_estimate *est)
{
    return ff_estimate_init_sized(est, sizeof(*est));
}

/* Reject impossible plans (tp not dividing heads, gpus not a multiple of tp·pp, ...) with a
 * one-line reason. Returns 0 or FF_ERR_INVALID / FF_ERR_RANGE. */
FF_API int ff_plan_check(const struct ff_model *m, const struct ff_plan *plan, char *err,
                         size_t errlen);

/*
 * Memory per GPU of the most loaded GPU for `gpus` GPUs (0 = tp·pp) and micro-batch `batch`
 * (serving: concurrent sequences). Returns 0 or a negative status.
 */
FF_API int ff_est_memory(const struct ff_model *m, const struct ff_plan *plan, int64_t gpus,
                         int64_t batch, struct ff_memory *out);

/*
 * Model-state bytes per GPU (weights, gradients, optimizer) for `params` parameters on this
 * GPU's model-parallel shard, ZeRO `stage` over `dp` ranks (ZeRO paper Fig. 1):
 * w, g, k bytes per parameter, with DeepSpeed's working buffers at its defaults:
 * stage 2 adds one w-byte reduce bucket of FF_ZERO_REDUCE_BUCKET elements to the gradients
 * (gradients are reduced bucket by bucket, not held whole in 16 bits); stage 3 adds the
 * gathered parameters, min(largest_module + FF_ZERO3_PREFETCH_BUCKET, FF_ZERO3_MAX_LIVE)
 * but at least largest_module and at most `params`, in w bytes to the weights, and the
 * reduce bucket plus the largest module's own 16-bit gradient to the gradients.
 * largest_module: the largest single module gathered at once (one weight matrix or the
 * embedding), in parameters.
 */
FF_API void ff_est_model_state(double params, double largest_layer, int stage, double dp, double w,
                               double g, double k, struct ff_memory *out);

/* Optimizer bytes per parameter K for weights of `weight_bytes` (adds a 4-byte fp32 master
 * copy when weights are not fp32): AdamW 12, 8-bit Adam 6, SGD+momentum 8. */
FF_API double ff_est_optimizer_bytes(enum ff_optimizer opt, double weight_bytes);

/*
 * Training FLOPs for `tokens` tokens (D) at the plan's sequence length s. N_active: parameters
 * used per token; N_matmul: those that multiply (LM head in, embedding lookups out); L layers,
 * a attention heads of d_head. LoRA/QLoRA: the frozen base gets no weight gradients, so
 * 4·N_matmul per token (plus 6 per adapter parameter) in place of 6·N_matmul.
 */
struct ff_flops {    /* frozen */
    double six_nd;   /* 6·N_active·D (Kaplan et al. 2020) */
    double model;    /* exact: 6·N_matmul·D + 12·L·a·d_head·s·D (PaLM App. B) */
    double hardware; /* model + recomputation: full reruns each block's forward, selective
                        without flash attention reruns the attention core */
};
FF_API int ff_est_flops(const struct ff_model *m, const struct ff_plan *plan, double tokens,
                        struct ff_flops *out);

/* Run everything into *out (caller-owned, its struct_size set by ff_estimate_init; overwritten,
 * and unspecified after an error).
 * Returns 0, FF_ERR_INVALID (impossible plan, err says why), FF_ERR_UNSUPPORTED (the device
 * lacks a figure the plan needs) or FF_ERR_RANGE. A plan that does not fit is not an error:
 * out->fits is false and out->suggestions list changes with the per-GPU total each gives. */
FF_API int ff_est_run(const struct ff_model *m, const struct ff_spec *d, const struct ff_plan *plan,
                      struct ff_estimate *out, char *err, size_t errlen);

/* Names as the CLI spells them ("train", "adamw", "selective"); "?" for a value out of range.
 * Static strings owned by the library: never free them. */
FF_API const char *ff_task_name(enum ff_task t);
FF_API const char *ff_optimizer_name(enum ff_optimizer o);
FF_API const char *ff_recompute_name(enum ff_recompute r);

/* ---- multi-GPU plans (estimate/src/comm.c) ---- */

/* Compute efficiency: the hardware FLOPs utilisation of a GPU's compute alone. Published
 * end-to-end figures that include communication and bubbles are lower bounds for it:
 * Megatron-LM 44% HFU for 1.7B on 32 A100 with no model parallelism and 52% for 1T on 3072
 * (Narayanan et al. 2021, Table 1), 56% HFU for 530B (Korthikanti et al. 2022, Table 5),
 * PaLM 57.8% HFU (Chowdhery et al. 2022, App. B). 0.55 sits inside that spread. */
#define FF_DEFAULT_COMPUTE_EFFICIENCY     0.55
/* Achieved bus bandwidth (nccl-tests busbw) over the link line rate: inside a node ~200-208
 * of 300 GB/s on A100 NVLink 3 (nccl-tests issues #149, #178) and ~370 of 450 GB/s on H100
 * ring (NCCL developer, nccl-tests #212): 0.68-0.82, taken 0.75; across nodes 46-48 of 50
 * GB/s per 400 Gb/s NDR NIC (NCCL developer, nccl-tests #290) and ~41 at 32 MB (#232):
 * taken 0.90. A measured profile replaces both. */
#define FF_COMM_INTRA_FRACTION            0.75
#define FF_COMM_INTER_FRACTION            0.90
/* Latency per algorithm step: an 8-GPU NVLink all-reduce's smallest message takes ~10 us
 * (FF_DEFAULT_ALLREDUCE_LATENCY_S) over 2*log2(8) = 6 tree steps; a network hop (NIC +
 * switch) a few us. NCCL runs latency-bound sizes as trees (log-depth), bandwidth-bound
 * ones as rings (nccl-tests #196), so steps are log-depth and volumes ring. */
#define FF_COMM_INTRA_STEP_LATENCY_S      1.7e-6
#define FF_COMM_INTER_STEP_LATENCY_S      5e-6
/* The gradient bucket that cannot overlap backward: it is reduced after the last layer's
 * backward (PyTorch DDP bucket_cap_mb = 25, Li et al. 2020 §3.2.3). */
#define FF_COMM_DDP_BUCKET_BYTES          25e6
/* MoE load imbalance: the most loaded expert rank over the mean. Switch Transformer trains
 * at capacity factor 1.0-1.25 (Fedus et al. 2021, Table 1 and §2.2), GShard at 2.0 as an
 * upper bound (Lepikhin et al. 2020 §2.2), DeepSpeed-MoE at 1.0-1.25; dropless routers with
 * balancing losses (Mixtral, DeepSeek-V3) measure max/mean loads of about 1.1-1.3: 1.25. */
#define FF_DEFAULT_MOE_IMBALANCE          1.25
/* Grouped expert GEMMs: each expert's token rows are padded to the GEMM tile's 128 rows
 * (MegaBlocks, Gale et al. 2022 §5: 128 x 128 blocks; DeepSeek's DeepGEMM aligns each expert's
 * segment of a grouped GEMM to 128 rows; CUTLASS grouped GEMM tiles of 128), and a GEMM of M
 * token rows, hidden h and expert width f is memory-bound below the device's ridge point:
 * arithmetic intensity 2Mhf / (bytes x (Mh + hf + Mf)) against rate x compute efficiency over
 * bandwidth x FF_DEFAULT_BW_FRACTION (the roofline, Williams et al. 2009). Fine-grained
 * experts at few tokens each (DeepSeek-V3: 256 of width 2048) lose most. */
#define FF_MOE_GEMM_TILE_ROWS             128
/* Expert all-to-all hidden under an adjacent micro-batch's compute, by default: none.
 * Megatron-Core leaves its combined 1F1B schedule (--overlap-moe-expert-parallel-comm) off by
 * default and it needs two micro-batches in flight and no full recompute (Megatron-Core MoE
 * docs, "Combined 1F1B: Expert-Parallel All-to-All Overlap"); DeepSpeed-MoE runs the
 * all-to-all on the critical path (Rajbhandari et al. 2022). What runs beside it by default
 * is the shared experts' compute (DeepSeek-V2 §3.2.3 overlaps it; Megatron-Core
 * --moe-shared-expert-overlap), which is always counted as hiding it. DualPipe (DeepSeek-V3
 * §3.2.1) hides it fully: --moe-a2a-overlap 1. */
#define FF_DEFAULT_MOE_A2A_OVERLAP        0.0
/* Tensor-parallel communication hidden under the GEMMs, by default, per plan kind.
 * FP8 plans with sequence parallelism: (tp - 1)/tp of it, never more than the layer's GEMM
 * time. FP8 training runs on Transformer Engine, whose userbuffers overlap decomposes the
 * all-gather / reduce-scatter beside each linear layer into tp - 1 point-to-point steps, each
 * overlapped with one chunk of the GEMM, leaving one step exposed (Wang et al. 2022, "Overlap
 * Communication with Dependent Computation via Decomposition", ASPLOS'23); NeMo and
 * Megatron-Bridge turn it on in their FP8 performance recipes (tp_comm_overlap with
 * userbuffers_fp8_* presets; it requires sequence parallelism), and torchtitan pairs Float8
 * with its async TP, the same decomposition in PyTorch's SymmetricMemory.
 * BF16/FP16 plans: none. Megatron-Core's tp_comm_overlap, torchtitan's
 * enable_async_tensor_parallel and DeepSpeed all default to off, and Megatron-LM's 2021 runs
 * all-reduced on the critical path (Narayanan et al. 2021). --tp-overlap F replaces the
 * fraction for any plan
 * (comm.c, tp_overlap_fraction). */
/* The default global batch (ff_default_global_batch): tokens per step at 7e9 parameters and
 * the power of the parameter count it grows with. A least-squares fit of log(tokens) on
 * log(params) over 23 published runs from 70M to 671B parameters (GPT-3's eight sizes,
 * LLaMA, Llama 2 and 3, Chinchilla, Gopher, Pythia, OLMo, BLOOM, DeepSeek-V3; their
 * starting or constant batches, the geometric mean of a ramp) gives 2.3M tokens at 7B and a
 * slope of 0.27; Kaplan et al. 2020 (§5.1, eq. 5.3 with L(N)) imply a critical batch growing
 * as N^0.36 and McCandlish et al. 2018 explain the growth by the gradient noise scale. 2^21
 * tokens and 1/4 are taken. */
#define FF_DEFAULT_GLOBAL_BATCH_TOKENS_7B 2097152.0
#define FF_DEFAULT_GLOBAL_BATCH_EXPONENT  0.25

/* Collectives (nccl-tests doc/PERFORMANCE.md: algbw = S/t, busbw = algbw x factor). */
enum ff_collective {
    FF_COLL_ALL_REDUCE = 0,
    FF_COLL_ALL_GATHER,
    FF_COLL_REDUCE_SCATTER,
    FF_COLL_ALL_TO_ALL
};
/* The bus factor: all-reduce 2(n-1)/n, the others (n-1)/n. 0 for n <= 1. */
FF_API double ff_coll_bus_factor(enum ff_collective c, double n);
/* Seconds for a collective of S bytes per rank over n ranks at bus bandwidth busbw (B/s)
 * and per-step latency: latency x steps + factor x S / busbw, steps 2*ceil(log2 n) for an
 * all-reduce and ceil(log2 n) for the others. 0 for n <= 1. */
FF_API double ff_coll_seconds(enum ff_collective c, double n, double bytes, double busbw,
                              double step_latency_s);
/* Names: "compute", "tp_comm", "dp_comm", "zero3_gather", "pipeline_bubble", "moe_all_to_all",
 * "moe_imbalance"; "?" out of range. Static strings. */
FF_API const char *ff_step_term_name(int term);

/*
 * The step of plan p (tp, pp, gpus as the plan gives them; task training, LoRA or QLoRA) on
 * device d: fills *out. A plan the model cannot run is FF_ERR_INVALID (err says why).
 */
FF_API int ff_est_step(const struct ff_model *m, const struct ff_spec *d, const struct ff_plan *p,
                       struct ff_step *out, char *err, size_t errlen);

/* One plan of a --plan best search. `plan` comes last so that it can grow: new fields of
 * ff_plan_choice itself would follow it. */
struct ff_plan_choice {
    size_t struct_size; /* sizeof(struct ff_plan_choice), set by ff_plan_choice_init */
    int64_t dp;
    struct ff_step step;
    struct ff_memory mem; /* per GPU, most loaded */
    double seconds;       /* the run: steps x step time */
    struct ff_plan plan;  /* tp, pp, gpus, zero, batch, accum, recompute as chosen */
};
/* Zero the n choices at c and set each one's struct_size (and its plan's). Returns as
 * ff_plan_init_sized. */
FF_API int ff_plan_choice_init_sized(struct ff_plan_choice *c, size_t n, size_t struct_size);
static inline int ff_plan_choice_init(struct ff_plan_choice *c, size_t n)
{
    return ff_plan_choice_init_sized(c, n, sizeof(*c));
}
#define FF_MAX_PLAN_CHOICES 8
/*
 * The fastest plans on exactly p->gpus GPUs that fit (p->gpus > 0), best first, ranked by the
 * time to process the run's tokens (never the step time): the plan search ff_est_run runs
 * for auto_layout, over the dimensions p->search frees (every one but a given ep when it
 * frees none; tp and pp always): tp in powers of two within a node, pp dividing the GPUs, ep,
 * ZeRO 0-3, recomputation none/selective/full, micro-batch in powers of two with
 * accumulation reaching the global batch (p->global_batch_tokens, p->global_batch, or
 * ff_default_global_batch). Fills up to max (<= FF_MAX_PLAN_CHOICES) into out, *n the count
 * (0: none fits). The elements are out[0].struct_size bytes apart (ff_plan_choice_init sets
 * it). Returns 0 or an error as ff_est_run.
 */
FF_API int ff_est_best_plans(const struct ff_model *m, const struct ff_spec *d,
                             const struct ff_plan *p, struct ff_plan_choice *out, size_t max,
                             size_t *n, char *err, size_t errlen);

/* ---- bottom-up: the model's own ops as measured on the device (estimate/src/bottom_up.c) ---- */

/* Where the time of one op run comes from. */
enum ff_op_source {
    FF_OP_SOURCE_MEASURED = 0, /* the profile timed this kind, format and shape */
    FF_OP_SOURCE_INTERPOLATED, /* from the same kind and format at other shapes, log-log */
    FF_OP_SOURCE_CONSTANT      /* none close enough: the top-down formula for the op */
};
/* "measured", "interpolated", "constant"; "?" out of range. Static strings. */
FF_API const char *ff_op_source_name(enum ff_op_source s);

/* How far past the measured shapes an op is extrapolated (in bytes, FLOPs for GEMM and prefill
 * attention): 4x, then it is a constant; a GEMM above them without limit (see ff_op_time). */
#define FF_OP_EXTRAPOLATE_MAX 4.0

/*
 * The time of one run of op on device d: measured when d->ops has its kind, format and shape;
 * else interpolated over the same kind and format in log time against log bytes (log FLOPs for
 * GEMM and causal prefill attention), within one regime (a gemv's rows of X, a GEMM's smallest
 * dimension, attention's query rows per KV head and head dim, rope's rows per position: the
 * measured values nearest op's in log2, of two as near the larger, that reach op's size),
 * linearly between the two nearest measured neighbours; above the measured range at the
 * largest measured shape's throughput, below it along the line through the nearest two with
 * its slope held between 0 and 1 (time never grows as shapes shrink), at most
 * FF_OP_EXTRAPOLATE_MAX beyond (a GEMM above the range without limit: the op family caps a
 * GEMM's work, its time linear in n once the shape fills the device); one measured shape alone
 * is scaled at its throughput within that reach. Otherwise the constant: the roofline
 * max(bytes / bandwidth, FLOPs / rate) with today's top-down figures (GEMV at the weight
 * format's streaming fraction and compute factor, attention at the KV fraction, GEMM at the
 * plan's matrix rate and efficiency). plan (NULL: ff_plan_init's defaults) picks those; e (may
 * be NULL) gives the rate, efficiency and bandwidth fraction ff_est_run used. Returns 0,
 * FF_ERR_INVALID (NULL, an unknown kind) or FF_ERR_UNSUPPORTED (a constant is needed and the
 * device lacks the figure).
 */
FF_API int ff_op_time(const struct ff_spec *d, const struct ff_plan *plan,
                      const struct ff_estimate *e, const struct ff_op *op, double *seconds,
                      enum ff_op_source *source);

/* One line of the bottom-up sum. */
struct ff_bu_term {
    struct ff_op op;        /* the op and its runs per step (op.count) */
    enum ff_op_phase phase; /* the step it belongs to: prefill, decode or train */
    double op_seconds;      /* one run, s */
    double seconds;         /* per step (prefill, decode step, optimizer step): count x runs */
    enum ff_op_source source;
};

#define FF_BU_TERMS_MAX 96
/* The bottom-up estimate beside the top-down one. Growing: ff_bottom_up_init sets struct_size;
 * the library fills only a struct of its own size (FF_ERR_UNSUPPORTED otherwise). */
struct ff_bottom_up {
    size_t struct_size;
    bool bottom_up;  /* the path: true = the op sum; false = top-down (why says why) */
    char why[256];   /* the top-down path's reason ("the profile has no op tests"); "" */
    char notes[256]; /* approximations made ("pipeline stages: 1/pp of the ops"); "" */
    int n_measured, n_interpolated, n_constant; /* terms by source */
    double measured_share; /* measured terms' seconds over the whole time (below) */
    double launch_s;       /* per dispatched op (the profile's launch latency), s; 0 unknown */
    /* serving: one prefill of serve_batch prompts, one decode step at context prompt +
     * generate/2; each = its ops + dispatches x launch_s + tensor-parallel all-reduces */
    double prefill_s, decode_step_s;
    double prefill_dispatches, decode_dispatches, prefill_comm_s, decode_comm_s;
    double prefill_tokens_per_s; /* prompt tokens / prefill_s */
    double decode_tokens_per_s;  /* serve_batch / decode_step_s */
    /* training: one optimizer step = accum micro-batches of ops (1/pp of them per stage) + the
     * optimizer update once (a term of what "optimizer": ADD runs moving its bytes) +
     * dispatches x launch_s + the step model's communication and bubble (ff_est_step) */
    double train_step_s, train_ops_s, train_dispatches, train_comm_s;
    double train_tokens_per_s; /* global batch tokens / train_step_s */
    double seconds;            /* serving: prefill + generate x decode step; training: steps x
                                  train_step_s */
    /* ff_est_run's figures for the same plan, and bottom-up seconds over them */
    double top_prefill_tokens_per_s, top_decode_tokens_per_s, top_train_step_s, top_seconds;
    double ratio;
    size_t n_terms;
    struct ff_bu_term terms[FF_BU_TERMS_MAX];
};
static inline void ff_bottom_up_init(struct ff_bottom_up *b)
{
    memset(b, 0, sizeof(*b));
    b->struct_size = sizeof(*b);
}

/*
 * The bottom-up estimate of the plan ff_est_run estimated into *e (same m, d, p; its layout,
 * batch and top-down figures are read from e): the sum over the model's op list
 * (ff_model_ops) of count x ff_op_time, plus a launch per dispatched op and the
 * communication. Where d has no op tests or the op list refuses the model, out->bottom_up is
 * false, out->why says why, the top_* figures are filled and 0 is returned: the top-down
 * estimate stands. Returns 0, FF_ERR_INVALID (NULL, a struct_size this library does not know)
 * or FF_ERR_UNSUPPORTED (a constant term needs a figure the device lacks; err says which).
 */
FF_API int ff_est_bottom_up(const struct ff_model *m, const struct ff_spec *d,
                            const struct ff_plan *p, const struct ff_estimate *e,
                            struct ff_bottom_up *out, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
