/* estimate/src/precision.c — bytes and names of number formats. */
#include "flopfit/precision.h"

#include "flopfit/status.h"
#include "internal.h"

double ff_precision_bytes(enum ff_precision p)
{
    switch (p) {
    case FF_PREC_FP32: return 4.0;
    case FF_PREC_BF16:
    case FF_PREC_FP16: return 2.0;
    case FF_PREC_FP8:
    case FF_PREC_INT8:
        return 1.0; /* per-channel scales: < 0.1%, ignored */
    /* GPTQ/AWQ group size 128: one fp16 scale + one 4-bit zero per group = 20 bits / 128. */
    case FF_PREC_INT4: return 0.5 + 20.0 / 8.0 / 128.0;
    /* QLoRA §2: double quantisation leaves 0.127 bit of constants per parameter. */
    case FF_PREC_NF4: return 0.5 + 0.127 / 8.0;
    case FF_PREC_FP4: return 0.5;
    /* OCP Microscaling spec v1.0 §5: 32 E2M1 elements share one 8-bit E8M0 scale. */
    case FF_PREC_MXFP4: return (32.0 * 4.0 + 8.0) / 8.0 / 32.0;
    /* NVIDIA NVFP4 (Blackwell): 16 E2M1 elements share one FP8 E4M3 scale (the per-tensor
     * fp32 scale is negligible). */
    case FF_PREC_NVFP4: return (16.0 * 4.0 + 8.0) / 8.0 / 16.0;
    /* ggml-common.h block_q4_0: fp16 d + 16 bytes of nibbles per 32 weights. */
    case FF_PREC_Q4_0: return 18.0 / 32.0;
    /* Q4_K_M is a mix (llama.cpp llama-quant.cpp: Q6_K for half of attn_v/ffn_down and the
     * output, Q4_K elsewhere). Whole-file averages: 4.89 bits per weight (llama.cpp
     * tools/quantize README, Llama-3.1-8B) and 4.84 (TheBloke Llama-2-7B-GGUF: 4.08 GB for
     * 6.74B parameters); 4.85 is taken. */
    case FF_PREC_Q4_K_M: return 4.85 / 8.0;
    /* block_q8_0: fp16 d + 32 int8 per 32 weights. */
    case FF_PREC_Q8_0: return 34.0 / 32.0;
    case FF_PREC_COUNT: break;
    }
    return 0.0;
}

/* block_q6_k: 256 weights in 128 + 64 + 16 bytes of quants and scales + fp16 d = 210. */
#define Q6_K_BYTES (210.0 / 256.0)
/* block_q4_k: 256 weights in 128 bytes of nibbles + 12 of scales + two fp16 = 144. */
#define Q4_K_BYTES (144.0 / 256.0)

/*
 * llama.cpp's quantize (src/llama-quant.cpp, llama_tensor_get_type) stores output.weight in
 * Q6_K for every k-quant and legacy 4/5-bit file type (Q8_0 files keep Q8_0), and
 * token_embd.weight in the file's base type; a model with a tied head has no output.weight
 * and its token_embd takes the output's type. TheBloke's Llama-2-7B Q4_0 GGUF lists
 * output.weight as Q6_K (the llama.cpp loader's per-type tensor counts: "q6_K: 1 tensors").
 * Other weight-only checkpoints keep both in 16 bits: GPTQ/AWQ leave lm_head unquantised,
 * bitsandbytes and the MX/NVFP4 exports list it in modules_to_not_convert / ignore.
 */
double ff_precision_head_bytes(enum ff_precision p)
{
    switch (p) {
    case FF_PREC_Q4_0:
    case FF_PREC_Q4_K_M: return Q6_K_BYTES;
    case FF_PREC_Q8_0: return ff_precision_bytes(p);
    default: {
        double b = ff_precision_bytes(p);
        return b > 0.0 && b < 2.0 ? 2.0 : b;
    }
    }
}

double ff_precision_embed_bytes(enum ff_precision p)
{
    switch (p) {
    case FF_PREC_Q4_0:
    case FF_PREC_Q8_0: return ff_precision_bytes(p);
    case FF_PREC_Q4_K_M: return Q4_K_BYTES;
    default: return ff_precision_head_bytes(p);
    }
}

static const char *const names[FF_PREC_COUNT] = {
    "fp32", "bf16",  "fp16",  "fp8",  "int8",   "int4", "nf4",
    "fp4",  "mxfp4", "nvfp4", "q4_0", "q4_k_m", "q8_0",
};

const char *ff_precision_name(enum ff_precision p)
{
    if ((int)p < 0 || p >= FF_PREC_COUNT)
        return "?";
    return names[p];
}

int ff_precision_parse(const char *name, enum ff_precision *out)
{
    static const struct {
        const char *alias;
        enum ff_precision p;
    } aliases[] = {
        {"float32", FF_PREC_FP32}, {"float", FF_PREC_FP32}, {"bfloat16", FF_PREC_BF16},
        {"float16", FF_PREC_FP16}, {"half", FF_PREC_FP16},  {"float8", FF_PREC_FP8},
        {"fp8_e4m3", FF_PREC_FP8}, {"q8", FF_PREC_INT8},    {"q4", FF_PREC_INT4},
        {"gptq", FF_PREC_INT4},    {"awq", FF_PREC_INT4},   {"q4_k", FF_PREC_Q4_K_M},
        {"fp8_e5m2", FF_PREC_FP8},
    };
    if (!name)
        return FF_ERR_INVALID;
    for (int i = 0; i < FF_PREC_COUNT; i++) {
        if (ff_streq_ci(name, names[i])) {
            *out = (enum ff_precision)i;
            return FF_OK;
        }
    }
    for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
        if (ff_streq_ci(name, aliases[i].alias)) {
            *out = aliases[i].p;
            return FF_OK;
        }
    }
    return FF_ERR_INVALID;
}

enum ff_precision ff_precision_default_kv(enum ff_precision weights)
{
    switch (weights) {
    case FF_PREC_FP32: return FF_PREC_FP32;
    case FF_PREC_FP16:
    case FF_PREC_Q4_0:
    case FF_PREC_Q4_K_M:
    case FF_PREC_Q8_0: return FF_PREC_FP16;
    default: return FF_PREC_BF16;
    }
}
