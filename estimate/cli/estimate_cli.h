/* estimate/cli/estimate_cli.h — the `flopfit estimate` subcommand. */
#ifndef FF_ESTIMATE_CLI_H
#define FF_ESTIMATE_CLI_H

/* argv[0] is "estimate". Returns the process exit code (0, 1 or 2). */
int ff_cmd_estimate(int argc, char **argv);

#endif
