/* tests/fuzz/fuzz_estimate_argv.c — the whole `flopfit estimate` command line: parsing, model
 * and device resolution, planning and both report writers (output goes to /dev/null). */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "estimate_cli.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int quiet;
    if (!quiet) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            if (!getenv("FF_FUZZ_STDERR"))
                dup2(fd, STDERR_FILENO);
            close(fd);
        }
        quiet = 1;
    }
    struct ff_fuzz_argv a;
    if (ff_fuzz_argv_init(&a, "estimate", data, size) != 0)
        return 0;
    (void)ff_cmd_estimate(a.argc, a.argv);
    fflush(stdout);
    ff_fuzz_argv_finish(&a);
    return 0;
}
