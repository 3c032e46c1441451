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
#include <stdio.h>

#include "bench.h"
#include "writers.h"

struct ff_bench_opts {
    struct ff_bench_cfg cfg;
    char backend[16]; /* "" = every backend */
    bool device_given;
    char device_backend[16]; /* --device opencl:1 -> "opencl"; "" = any */
    uint32_t device_index;
    const char *output; /* --output FILE */
    /* --output-dir DIR, else the per-user default (paths.h); NULL when neither HOME nor
     * XDG_DATA_HOME says where that is (output_dir_err says why). */
    const char *output_dir;
    char output_dir_buf[4096];
    char output_dir_err[160];
    bool no_save;
    const struct ff_bench_writer *writer; /* --format (--json); default the table */
    bool list_families;                   /* --list-families: print the registry, run nothing */
    bool list_formats;                    /* --list-formats */
    bool mpi;        /* --mpi: one rank of a fleet run under mpirun (bench/fleet.h) */
    bool concurrent; /* --concurrent: every local device at once, after each alone */
    /* Tuning overrides: the FF_* variables (ff_device_options_from_env), then each
     * --override NAME=VALUE; every device opens with them and records them in its profile. */
    struct ff_device_options dev_opts;
};

#define FF_CLI_HELP 1 /* ff_bench_parse: --help was given */

/* 0, FF_CLI_HELP, or FF_ERR_INVALID with the message in err. */
int ff_bench_parse(int argc, char **argv, struct ff_bench_opts *o, char *err, size_t errlen);
void ff_bench_usage(FILE *f);
/* `--list-families` / `--list-formats`: one line a row of the registry. */
void ff_bench_list_families(FILE *f);
void ff_bench_list_formats(FILE *f);
/* --backend NAME|all and --device N|API:N into o (shared with `flopfit tune`). */
int ff_bench_parse_backend(const char *s, struct ff_bench_opts *o, char *err, size_t errlen);
int ff_bench_parse_device(const char *s, struct ff_bench_opts *o, char *err, size_t errlen);

/* A (backend, device) pair a command runs on. */
struct ff_bench_target {
    const struct ff_backend *backend;
    uint32_t index;
};
#define FF_BENCH_MAX_TARGETS 64
/*
 * The pairs o's --backend and --device select (cmd_bench.c). FF_ERR_INVALID for an unknown
 * backend or device index (a usage error), FF_ERR_NO_DEVICE when none is found; backends
 * without a driver are reported on stderr, prefixed with `cmd`.
 */
int ff_bench_select_targets(const struct ff_bench_opts *o, struct ff_bench_target *t, size_t *n,
                            char *err, size_t errlen);

/* "opencl, vulkan" (the backends built in) into dst. */
void ff_bench_backend_names(char *dst, size_t n, const char *sep, const char *suffix);

#endif
