/* bench/cmd/main.c — the flopfit binary: one command, subcommands like git, from one table. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "config.h"
#include "estimate_cli.h"

/* The subcommands: --help, the dispatch and the unknown-command message all read this. */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the command's name; returns the exit code */
    const char *summary;
} commands[] = {
    {"devices", ff_cmd_devices, "list the devices every backend built in (%s) finds"},
    {"bench", ff_cmd_bench,
     "measure matmul (fp32/fp16/int8), memory and bandwidth; write profiles"},
    {"tune", ff_cmd_tune, "search each kernel's parameter space on a device; keep the best"},
    {"estimate", ff_cmd_estimate,
     "will a model train or serve on a device, on how many, how long, cost"},
    {"results", ff_cmd_results, "publish profiles: tables, rooflines, comparisons, the HTML page"},
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
    char names[256];
    ff_bench_backend_names(names, sizeof(names), ", ", "");
    fprintf(f, "usage: flopfit <command> [options]\n\n");
    for (size_t i = 0; i < N_COMMANDS; i++) {
        char line[160];
        snprintf(line, sizeof(line), commands[i].summary, names[0] ? names : "none");
        fprintf(f, "  %-10s %s\n", commands[i].name, line);
    }
    fprintf(f, "\n`flopfit <command> --help` documents each command. `flopfit --version`.\n");
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
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    char list[128] = "";
    for (size_t i = 0; i < N_COMMANDS; i++) {
        size_t len = strlen(list);
        snprintf(list + len, sizeof(list) - len, "%s%s",
                 i == 0                ? ""
                 : i + 1 == N_COMMANDS ? " or "
                                       : ", ",
                 commands[i].name);
    }
    fprintf(stderr, "flopfit: unknown command '%s': expected %s (see flopfit --help)\n", cmd, list);
    return 2;
}
