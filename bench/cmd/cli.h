/*
 * bench/cmd/cli.h — `flopfit bench` options. Parsing is separate from running so
 * the tests can drive it: typed parsers name the bad option and what is
 * accepted.
 */
#ifndef FF_CLI_H
#define FF_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "writers.h"
#include "run/bench_run.h"

struct ff_bench_opts {
    struct ff_run_config run; /* what the engine needs (run/bench_run.h) */
    bool list_families;       /* --list-families: print the registry, run nothing */
    bool list_formats;        /* --list-formats */
    bool mpi;        /* --mpi: one rank of a fleet run under mpirun (bench/fleet/fleet.h) */
    bool concurrent; /* --concurrent: every local device at once, after each alone */
};

#define FF_CLI_HELP 1 /* ff_bench_parse: --help was given */

/* 0, FF_CLI_HELP, or FF_ERR_INVALID with the message in err. */
int ff_bench_parse(int argc, char **argv, struct ff_bench_opts *o, char *err, size_t errlen);
void ff_bench_usage(FILE *f);
/* `--list-families` / `--list-formats`: one line a row of the registry. */
void ff_bench_list_families(FILE *f);
void ff_bench_list_formats(FILE *f);
/* The same as one JSON object ({"families": [...], "formats": [...]}, what was asked), for
 * --json / --format json. */
void ff_bench_list_json(FILE *f, bool families, bool formats);
/* --backend NAME|all and --device N|API:N into sel (shared with `flopfit tune`). */
int ff_bench_parse_backend(const char *s, struct ff_target_sel *sel, char *err, size_t errlen);
int ff_bench_parse_device(const char *s, struct ff_target_sel *sel, char *err, size_t errlen);

struct option; /* <getopt.h> */
/* The getopt_long table ff_bench_parse reads (for the completion and the did-you-mean). */
const struct option *ff_bench_options(void);

/* "opencl, vulkan" (the backends built in) into dst. */
void ff_bench_backend_names(char *dst, size_t n, const char *sep, const char *suffix);

#endif
