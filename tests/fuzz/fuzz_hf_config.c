/* tests/fuzz/fuzz_hf_config.c — the Hugging Face config.json reader, then every figure the
 * estimator derives from an accepted model. */
#include <flopfit/flopfit.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ff_model m;
    ff_model_init(&m);
    char err[512];
    if (ff_model_from_hf_text((const char *)data, size, "fuzz.json", &m, err, sizeof(err)) ==
            FF_OK &&
        ff_model_check(&m, err, sizeof(err)) == FF_OK) {
        struct ff_param_count pc;
        ff_model_params(&m, &pc);
        (void)ff_model_kv_bytes(&m, 4096, 8, 2.0);
    }
    return 0;
}
