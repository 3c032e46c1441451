/* tests/fuzz/fuzz_gguf.c — the GGUF header reader (flopfit/gguf.h) on the bytes themselves,
 * then through a real file as `flopfit estimate --gguf` reads it. */
#include <stdio.h>
#include <unistd.h>

#include <flopfit/flopfit.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ff_gguf_info g;
    char err[512];
    if (ff_gguf_parse(data, size, "fuzz.gguf", &g, err, sizeof(err)) == FF_OK &&
        !(g.tensor_bytes >= 0.0))
        __builtin_trap();
    char path[64];
    if (ff_fuzz_write_file("gguf", data, size, path) != 0)
        return 0;
    (void)ff_gguf_read(path, &g, err, sizeof(err));
    unlink(path);
    return 0;
}
