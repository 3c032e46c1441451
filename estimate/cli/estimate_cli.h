/* estimate/cli/estimate_cli.h — the `flopfit estimate` subcommand. */
#ifndef FF_ESTIMATE_CLI_H
#define FF_ESTIMATE_CLI_H

#include <stddef.h>

/* argv[0] is "estimate". Returns the process exit code (0, 1 or 2). */
int ff_cmd_estimate(int argc, char **argv);

struct option; /* <getopt.h> */
/* The getopt_long table ff_cmd_estimate parses with (ends in a NULL name): for the shell
 * completion and the did-you-mean. */
const struct option *ff_estcli_options(void);
/* The words long option `name` accepts, where a table lists them (the choice tables, the
 * precisions, the presets, the catalog): up to max into words (static strings); the count,
 * 0 for an option of free values. */
size_t ff_estcli_option_words(const char *name, const char **words, size_t max);

#endif
