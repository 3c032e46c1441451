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
    case FF_PREC_COUNT: break;
    }
    return 0.0;
}

static const char *const names[FF_PREC_COUNT] = {
    "fp32", "bf16", "fp16", "fp8", "int8", "int4", "nf4",
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
