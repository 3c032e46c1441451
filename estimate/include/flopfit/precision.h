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
    FF_PREC_COUNT
};

/*
 * Bytes per stored element, including quantisation constants:
 * fp32 4, bf16/fp16 2, fp8/int8 1, int4 0.5 + one fp16 scale and a 4-bit zero per 128
 * (0.5195), nf4 0.5 + 0.127 bit (QLoRA §2 double quantisation: 0.5159).
 */
FF_API double ff_precision_bytes(enum ff_precision p);

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
