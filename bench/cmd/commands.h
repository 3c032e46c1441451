/* bench/cmd/commands.h — the subcommands of the flopfit binary. Each returns the exit code. */
#ifndef FF_COMMANDS_H
#define FF_COMMANDS_H

#include <stddef.h>
#include <stdio.h>

int ff_cmd_bench(int argc, char **argv);
int ff_cmd_devices(int argc, char **argv);
int ff_cmd_results(int argc, char **argv);
int ff_cmd_tune(int argc, char **argv);

struct option; /* <getopt.h> */
/* The getopt_long table each parses with (ends in a NULL name); bench's is ff_bench_options
 * (cli.h), estimate's ff_estcli_options (estimate_cli.h). */
const struct option *ff_devices_options(void);
const struct option *ff_results_options(void);
const struct option *ff_tune_options(void);

/* The words an option accepts, up to max into words; the count (0: none it knows). */
typedef size_t (*ff_option_words_fn)(const char *option, const char **words, size_t max);
/* tune's own value tables (--kernel), as an ff_option_words_fn. */
size_t ff_tune_option_words(const char *option, const char **words, size_t max);
/* `flopfit complete-words COMMAND`: each long option of opts on a line, "--name", or
 * "--name=" when it takes a value, followed by the values a table lists: from `words` (may be
 * NULL), else from the tables of bench/ (backends, writers, families, precisions, device
 * options, results columns; complete.c). */
void ff_complete_print(FILE *f, const char *command, const struct option *opts,
                       ff_option_words_fn words);
/* `flopfit complete-words --environment`: the tuning variables of the device-option table,
 * one a line: VARIABLE, option name, backend ("all") and accepted values, tab-separated (for
 * the man page's ENVIRONMENT). */
void ff_complete_environment(FILE *f);

#endif
