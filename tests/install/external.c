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
    if (ff_spec_find("h100", &d) != FF_OK || d.mem_bytes <= 0) {
        fprintf(stderr, "catalog lookup failed\n");
        return 1;
    }
    printf("libflopfit %s: %s, %.0f GB\n", ff_version(), d.name, d.mem_bytes / 1e9);
    return 0;
}
