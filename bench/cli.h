/*
 * bench/cli.h — `flopfit bench` options. Parsing is separate from running so
 * the tests can drive it: typed parsers name the bad option and what is
 * accepted.
 */
#ifndef FF_CLI_H
#define FF_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench.h"

struct ff_bench_opts {
    struct ff_bench_cfg cfg;
    char backend[16]; /* "" = every backend */
    bool device_given;
    char device_backend[16]; /* --device opencl:1 -> "opencl"; "" = any */
    uint32_t device_index;
    const char *output;     /* --output FILE */
    const char *output_dir; /* default "results" */
    bool no_save;
    bool json;
};

#define FF_CLI_HELP 1 /* ff_bench_parse: --help was given */

/* 0, FF_CLI_HELP, or FF_ERR_INVALID with the message in err. */
int ff_bench_parse(int argc, char **argv, struct ff_bench_opts *o, char *err, size_t errlen);
void ff_bench_usage(FILE *f);

#endif
