/*
 * estimate/src/hf/quant.c — how a checkpoint stores its weights: quantization_config (mxfp4, fp8,
 * bitsandbytes, GPTQ, AWQ) or else torch_dtype, into m->stored_format.
 */
#include <string.h>

#include "reader.h"

/*
 * How the checkpoint stores its weights: quantization_config.quant_method when present
 * (every method named here is understood; another is an error naming it), else torch_dtype.
 */
int ff_hf_read_storage(struct ff_hf_reader *r, struct ff_model *m)
{
    json_object *q = NULL;
    TRY(ff_hf_get_object(r, "quantization_config", &q));
    const char *fmt = "";
    if (q) {
        struct ff_hf_reader s = ff_hf_sub_reader(r, q, "quantization_config.");
        const char *method = NULL;
        TRY(ff_hf_get_string(&s, "quant_method", NULL, &method));
        if (!method)
            return ff_hf_bad(&s, "quant_method", NULL, "a string");
        if (!strcmp(method, "mxfp4"))
            fmt = "mxfp4";
        else if (!strcmp(method, "fp8") || !strcmp(method, "fbgemm_fp8"))
            fmt = "fp8";
        else if (!strcmp(method, "bitsandbytes")) {
            bool four = false, eight = false;
            TRY(ff_hf_get_bool(&s, "load_in_4bit", false, &four));
            TRY(ff_hf_get_bool(&s, "load_in_8bit", false, &eight));
            if (four == eight)
                return ff_hf_bad(&s, "load_in_4bit", ff_hf_lookup(&s, "load_in_4bit"),
                                 "true or false, the opposite of load_in_8bit");
            fmt = four ? "nf4" : "int8";
        } else if (!strcmp(method, "gptq") || !strcmp(method, "awq")) {
            int64_t bits = 4;
            TRY(ff_hf_get_int(&s, "bits", false, 4, 1, &bits));
            if (bits != 4 && bits != 8)
                return ff_hf_bad(&s, "bits", ff_hf_lookup(&s, "bits"), "4 or 8");
            fmt = bits == 4 ? "int4" : "int8";
        } else {
            return ff_hf_bad(&s, "quant_method", ff_hf_lookup(&s, "quant_method"),
                             "mxfp4, fp8, fbgemm_fp8, bitsandbytes, gptq or awq");
        }
    } else {
        const char *dt = NULL;
        TRY(ff_hf_get_string(r, "torch_dtype", NULL, &dt));
        if (!dt)
            TRY(ff_hf_get_string(r, "dtype", NULL, &dt));
        if (dt && !strcmp(dt, "bfloat16"))
            fmt = "bf16";
        else if (dt && !strcmp(dt, "float16"))
            fmt = "fp16";
        else if (dt && !strcmp(dt, "float32"))
            fmt = "fp32";
    }
    ff_strlcpy(m->stored_format, fmt, sizeof(m->stored_format));
    return FF_OK;
}
