/* bench/cmd/main.c — the flopfit binary: one command, subcommands like git, from one table. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "config.h"
#include "git_rev.h"
#include "estimate_cli.h"

/* The subcommands: --help, the dispatch, the unknown-command message and the shell
 * completion (complete-words) all read this. */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the command's name; returns the exit code */
    const char *summary;
    const struct option *(*options)(void); /* its getopt_long table */
    ff_option_words_fn words;              /* its own option values (may be NULL); the rest
                                              come from complete.c's tables */
} commands[] = {
    {"devices", ff_cmd_devices, "list the devices every backend built in (%s) finds",
     ff_devices_options, NULL},
    {"bench", ff_cmd_bench, "measure matmul (fp32/fp16/int8), memory and bandwidth; write profiles",
     ff_bench_options, NULL},
    {"tune", ff_cmd_tune, "search each kernel's parameter space on a device; keep the best",
     ff_tune_options, ff_tune_option_words},
    {"estimate", ff_cmd_estimate,
     "will a model train or serve on a device, on how many, how long, cost", ff_estcli_options,
     ff_estcli_option_words},
    {"results", ff_cmd_results, "publish profiles: tables, rooflines, comparisons, the HTML page",
     ff_results_options, NULL},
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* The top level's own options, for the completion. */
static const char *const top_options[] = {"--help", "--version", "-h", "-V"};

static void usage(FILE *f)
{
    char names[256];
    ff_bench_backend_names(names, sizeof(names), ", ", "");
    fprintf(f, "usage: flopfit <command> [options]\n"
               "       flopfit -V|--version\n\n");
    for (size_t i = 0; i < N_COMMANDS; i++) {
        char line[160];
        snprintf(line, sizeof(line), commands[i].summary, names[0] ? names : "none");
        fprintf(f, "  %-10s %s\n", commands[i].name, line);
    }
    fprintf(f, "\n`flopfit <command> --help` documents each command.\n"
               "  -V, --version  the version and git revision, and exit\n"
               "  -h, --help     this text\n");
}

/* `flopfit complete-words [COMMAND|--environment]`, for scripts/gen-completion.py and
 * gen-man.py: without a command the commands and the top-level options, one a line; with one,
 * its options (ff_complete_print); --environment the tuning variables. Not listed in --help:
 * it is the build's, not the user's. */
static int complete_words(int argc, char **argv)
{
    if (argc < 2) {
        for (size_t i = 0; i < N_COMMANDS; i++)
            printf("%s\n", commands[i].name);
        for (size_t i = 0; i < sizeof(top_options) / sizeof(top_options[0]); i++)
            printf("%s\n", top_options[i]);
        return 0;
    }
    if (strcmp(argv[1], "--environment") == 0) {
        ff_complete_environment(stdout);
        return 0;
    }
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(argv[1], commands[i].name) == 0) {
            ff_complete_print(stdout, commands[i].name, commands[i].options(), commands[i].words);
            return 0;
        }
    fprintf(stderr, "flopfit complete-words: unknown command '%s'\n", argv[1]);
    return 2;
}

static int unknown_command(const char *cmd)
{
    const char *names[N_COMMANDS];
    for (size_t i = 0; i < N_COMMANDS; i++)
        names[i] = commands[i].name;
    const char *near = ff_closest_word(cmd, names, N_COMMANDS);
    if (near) {
        fprintf(stderr, "flopfit: unknown command '%s'; did you mean '%s'?\n", cmd, near);
        return 2;
    }
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
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("flopfit %s (%s)\n", FF_VERSION, FF_GIT_REV);
        return 0;
    }
    if (strcmp(cmd, "complete-words") == 0)
        return complete_words(argc - 1, argv + 1);
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    if (cmd[0] == '-') {
        const char *names[] = {"help", "version"};
        const char *near = strncmp(cmd, "--", 2) == 0 ? ff_closest_word(cmd + 2, names, 2) : NULL;
        if (near)
            fprintf(stderr, "flopfit: unknown option '%s'; did you mean '--%s'?\n", cmd, near);
        else
            fprintf(stderr, "flopfit: unknown option '%s' (see flopfit --help)\n", cmd);
        return 2;
    }
    return unknown_command(cmd);
}
