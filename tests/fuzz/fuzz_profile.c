/* tests/fuzz/fuzz_profile.c — the public profile reader (flopfit/profile.h) on the text itself,
 * then the estimator's reader of the same bytes through a real file, as `flopfit estimate
 * --profile` calls it. */
#include <stdio.h>
#include <unistd.h>

#include <flopfit/flopfit.h>

#include "fuzz.h"

static void walk(const uint8_t *data, size_t size)
{
    struct ff_profile_doc *doc = NULL;
    char err[512];
    if (ff_profile_parse((const char *)data, size, "fuzz.json", &doc, err, sizeof(err)) != FF_OK)
        return;
    (void)ff_profile_info(doc);
    size_t n = ff_profile_test_count(doc);
    for (size_t i = 0; i < n; i++) {
        double v;
        (void)ff_profile_test_at(doc, i);
        (void)ff_profile_test_number(doc, i, "value", &v);
        (void)ff_profile_test_number(doc, i, "time_limited", &v);
    }
    (void)ff_profile_test_at(doc, n);
    ff_profile_close(&doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    walk(data, size);
    char path[64];
    if (ff_fuzz_write_file("profile", data, size, path) != 0)
        return 0;
    struct ff_spec d;
    ff_spec_init(&d);
    char err[512];
    if (ff_spec_from_profile(path, &d, err, sizeof(err)) == FF_OK)
        (void)ff_spec_rate(&d, FF_PREC_FP32);
    unlink(path);
    return 0;
}
