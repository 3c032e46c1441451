/* tests/fuzz/fuzz_bench_options.c — `flopfit bench` option parsing and the typed parsers. */
#include <stdio.h>

#include "cmd/cli.h"
#include "ff_util.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ff_fuzz_argv a;
    if (ff_fuzz_argv_init(&a, "bench", data, size) != 0)
        return 0;
    char err[512];
    struct ff_bench_opts o;
    (void)ff_bench_parse(a.argc, a.argv, &o, err, sizeof(err));
    if (a.argc > 1) {
        uint32_t u;
        double d;
        uint64_t b;
        (void)ff_parse_u32("--x", a.argv[1], 1, 1000, &u, err, sizeof(err));
        (void)ff_parse_double("--x", a.argv[1], 0.001, 600, &d, err, sizeof(err));
        (void)ff_parse_bytes("--x", a.argv[1], 1, &b, err, sizeof(err));
    }
    ff_fuzz_argv_finish(&a);
    return 0;
}
