/* tests/install/external.c — a program outside the tree, built against an installed libflopfit
 * with nothing but `pkg-config --cflags --libs flopfit`. */
#include <stdio.h>
#include <string.h>

#include <flopfit/flopfit.h>

int main(void)
{
    if (strcmp(ff_version(), FF_VERSION_STRING) != 0) {
        fprintf(stderr, "headers say %s, library says %s\n", FF_VERSION_STRING, ff_version());
        return 1;
    }
    struct ff_spec d;
    ff_spec_init(&d);
    if (ff_spec_find("h100", &d) != FF_OK || d.mem_bytes <= 0) {
        fprintf(stderr, "catalog lookup failed\n");
        return 1;
    }
    /* The growing structs, as a program outside the tree initialises them (doc/abi.md). */
    struct ff_model m;
    ff_model_init(&m);
    struct ff_plan p;
    struct ff_estimate e;
    char err[256];
    if (ff_model_preset_find("llama-3-8b", &m) != FF_OK || ff_plan_init(&p) != FF_OK ||
        ff_estimate_init(&e) != FF_OK || e.struct_size != sizeof(e)) {
        fprintf(stderr, "preset or init failed\n");
        return 1;
    }
    p.task = FF_TASK_SERVE;
    if (ff_est_run(&m, &d, &p, &e, err, sizeof(err)) != FF_OK || !e.fits) {
        fprintf(stderr, "ff_est_run: %s\n", err);
        return 1;
    }
    printf("libflopfit %s: %s, %.0f GB\n", ff_version(), d.name, d.mem_bytes / 1e9);
    return 0;
}
