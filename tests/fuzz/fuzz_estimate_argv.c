/* tests/fuzz/fuzz_estimate_argv.c — the whole `flopfit estimate` command line: parsing, model
 * and device resolution, planning and both report writers (output goes to /dev/null). */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "estimate_cli.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Reports and messages go to /dev/null; stderr is silenced only during the call, so
     * libFuzzer's statistics still reach the log (FF_FUZZ_STDERR=1 keeps the messages, to
     * replay a crash input with its sanitizer report). */
    static int null_fd = -1, saved_err = -1;
    if (null_fd < 0) {
        null_fd = open("/dev/null", O_WRONLY);
        if (null_fd < 0)
            return 0;
        dup2(null_fd, STDOUT_FILENO);
        if (!getenv("FF_FUZZ_STDERR"))
            saved_err = dup(STDERR_FILENO);
    }
    struct ff_fuzz_argv a;
    if (ff_fuzz_argv_init(&a, "estimate", data, size) != 0)
        return 0;
    if (saved_err >= 0)
        dup2(null_fd, STDERR_FILENO);
    (void)ff_cmd_estimate(a.argc, a.argv);
    fflush(stdout);
    fflush(stderr);
    if (saved_err >= 0)
        dup2(saved_err, STDERR_FILENO);
    ff_fuzz_argv_finish(&a);
    return 0;
}
