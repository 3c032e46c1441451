/*
 * flopfit/precision.h — number formats used by the estimator.
 *
 * Thread-safety: all functions are pure and reentrant.
 */
#ifndef FLOPFIT_PRECISION_H
#define FLOPFIT_PRECISION_H

#include "flopfit/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Storage/compute formats. The order is fixed (it indexes ff_spec.flops_per_s). */
enum ff_precision {
    FF_PREC_FP32 = 0,
    FF_PREC_BF16,
    FF_PREC_FP16,
    FF_PREC_FP8,
    FF_PREC_INT8,
    FF_PREC_INT4, /* weight-only, group-128 scales (GPTQ/AWQ style) */
    FF_PREC_NF4,  /* QLoRA NormalFloat4 with double-quantised constants */
    /* Appended: the values above keep their numbers. */
    FF_PREC_FP4,    /* a device's 4-bit float matrix rate (Blackwell); stored as 0.5 B */
    FF_PREC_MXFP4,  /* OCP MX FP4: E2M1 + one E8M0 scale per 32 (4.25 bits) */
    FF_PREC_NVFP4,  /* NVIDIA NVFP4: E2M1 + one E4M3 scale per 16 (4.5 bits) */
    FF_PREC_Q4_0,   /* GGUF Q4_0: 32 weights in 18 bytes (4.5 bits) */
    FF_PREC_Q4_K_M, /* GGUF Q4_K_M: Q4_K (4.5 bits) with Q6_K for some tensors, ~4.85 bits */
    FF_PREC_Q8_0,   /* GGUF Q8_0: 32 weights in 34 bytes (8.5 bits) */
    FF_PREC_COUNT
};

/*
 * Bytes per stored element, including quantisation constants:
 * fp32 4, bf16/fp16 2, fp8/int8 1, int4 0.5 + one fp16 scale and a 4-bit zero per 128
 * (0.5195), nf4 0.5 + 0.127 bit (QLoRA §2 double quantisation: 0.5159), fp4 0.5, mxfp4
 * 0.53125, nvfp4 0.5625, q4_0 0.5625, q4_k_m 0.60625, q8_0 1.0625.
 */
FF_API double ff_precision_bytes(enum ff_precision p);

/*
 * Bytes per element of the LM head (output.weight) and of the input embedding as a checkpoint
 * in format p stores them: GGUF q4_0 and q4_k_m keep the head in Q6_K (0.8203) and the
 * embedding in Q4_0 (0.5625) or Q4_K (0.5625), q8_0 both in Q8_0 (llama.cpp's quantize
 * defaults); the other sub-16-bit formats keep both in 16 bits (2); fp32 4.
 */
FF_API double ff_precision_head_bytes(enum ff_precision p);
FF_API double ff_precision_embed_bytes(enum ff_precision p);

/*
 * The KV cache's format when none is given, from the weights' format: fp32 for fp32 (a full-
 * precision run keeps everything in fp32), fp16 for fp16 and for the GGUF formats (q4_0,
 * q4_k_m, q8_0: llama.cpp's cache types default to f16, --cache-type-k/-v), bf16 for the rest
 * (the 16-bit activation type of bf16 checkpoints and of vLLM/TensorRT-LLM runs of fp8, int8
 * and 4-bit weights, which dequantise to it). Out of range: bf16.
 */
FF_API enum ff_precision ff_precision_default_kv(enum ff_precision weights);

/* Lower-case name ("bf16"); "?" for an out-of-range value. Never NULL. */
FF_API const char *ff_precision_name(enum ff_precision p);

/*
 * Parse a name (case-insensitive; "float32"/"float16"/"bfloat16"/"half" accepted).
 * Returns 0 and sets *out, or FF_ERR_INVALID.
 */
FF_API int ff_precision_parse(const char *name, enum ff_precision *out);

#ifdef __cplusplus
}
#endif

#endif
