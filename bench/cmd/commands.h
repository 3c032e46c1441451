/* bench/cmd/commands.h — the subcommands of the flopfit binary. Each returns the exit code. */
#ifndef FF_COMMANDS_H
#define FF_COMMANDS_H

int ff_cmd_bench(int argc, char **argv);
int ff_cmd_devices(int argc, char **argv);
int ff_cmd_results(int argc, char **argv);
int ff_cmd_tune(int argc, char **argv);

#endif
