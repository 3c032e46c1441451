/* tests/fuzz/fuzz_profile.c — the device-profile reader as the estimator uses it. */
#include <stdio.h>
#include <unistd.h>

#include <flopfit/flopfit.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Through a real file: the path API is what `flopfit estimate --profile` calls. */
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof(path), "/tmp/ff-fuzz-profile-%ld.json", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    struct ff_spec d;
    char err[512];
    if (ff_spec_from_profile(path, &d, err, sizeof(err)) == FF_OK)
        (void)ff_spec_rate(&d, FF_PREC_FP32);
    unlink(path);
    return 0;
}
