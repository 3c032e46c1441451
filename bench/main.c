/* bench/main.c — the flopfit binary: one command, subcommands like git. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "config.h"
#include "estimate_cli.h"

static void usage(FILE *f)
{
    char names[256];
    ff_bench_backend_names(names, sizeof(names), ", ", "");
    fprintf(f,
            "usage: flopfit <command> [options]\n"
            "\n"
            "  devices    list the devices every backend built in (%s) finds\n"
            "  bench      measure matmul (fp32/fp16/int8), memory and bandwidth; write profiles\n"
            "  estimate   will a model train or serve on a device, on how many, how long, cost\n"
            "\n"
            "`flopfit <command> --help` documents each command. `flopfit --version`.\n",
            names[0] ? names : "none");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("flopfit %s (%s)\n", FF_VERSION, FF_GIT_REV);
        return 0;
    }
    if (strcmp(cmd, "bench") == 0)
        return ff_cmd_bench(argc - 1, argv + 1);
    if (strcmp(cmd, "devices") == 0)
        return ff_cmd_devices(argc - 1, argv + 1);
    if (strcmp(cmd, "estimate") == 0)
        return ff_cmd_estimate(argc - 1, argv + 1);
    if (strcmp(cmd, "results") == 0)
        return ff_cmd_results(argc - 1, argv + 1);
    fprintf(stderr,
            "flopfit: unknown command '%s': expected devices, bench or estimate "
            "(see flopfit --help)\n",
            cmd);
    return 2;
}
