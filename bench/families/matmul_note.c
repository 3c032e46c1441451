/*
 * bench/families/matmul_note.c — the matmul family's note in the report: our kernel's rate over the
 * library reference (CLBlast) at the same precision and size.
 */
#include <stdio.h>
#include <string.h>

#include <flopfit/profile_fields.h>

#include "families.h"

/* The library reference result for the same precision and size, if measured. */
static const struct ff_result *library_peer(const struct ff_run *p, const struct ff_result *r)
{
    for (size_t i = 0; i < p->n_results; i++) {
        const struct ff_result *o = &p->results[i];
        if (o->status == FF_RES_OK && strcmp(o->family, r->family) == 0 &&
            strcmp(o->impl, "clblast") == 0 && o->prec == r->prec && o->m == r->m && o->n == r->n &&
            o->k == r->k)
            return o;
    }
    return NULL;
}

void ff_suite_matmul_note(const struct ff_run *p, const struct ff_result *r, char *dst, size_t n)
{
    const struct ff_result *lib = strcmp(r->impl, "clblast") ? library_peer(p, r) : NULL;
    size_t o = 0;
    if (lib && lib->value > 0)
        o = (size_t)snprintf(dst, n, "%.2fx", r->value / lib->value);
    bool has_frac, has_of_fp32;
    double frac = ff_result_extra_get(r, FF_PF_TEST_PEAK_FRACTION, &has_frac);
    bool of_fp32 = ff_result_extra_get(r, FF_PF_TEST_PEAK_OF_FP32, &has_of_fp32) != 0;
    if (has_frac && frac >= 0 && o < n)
        snprintf(dst + o, n - o, "%s%.0f%% of %speak", o ? ", " : "", 100 * frac,
                 of_fp32 ? "fp32 " : "");
}
