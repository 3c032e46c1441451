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

/* --model and the job it describes (bench/cmd/model_ops.c turns it into the ops family's
 * list). Zero fields are the defaults ff_bench_model_ops documents. */
struct ff_bench_model {
    const char *name;             /* --model; NULL: none */
    bool serve_given, train;      /* --serve (the default), --train */
    uint32_t batch, seq, tp;      /* 0: 1, 512, 1 */
    enum ff_precision weights[6]; /* --weights, in the order given */
    size_t n_weights;             /* 0: bf16 (fp32 with --train) */
    enum ff_precision kv;         /* --kv when kv_given */
    bool kv_given;
};

/* The most ops one --model run times: every format's prefill and decode lists. */
#define FF_BENCH_MODEL_OPS_MAX 512

struct ff_bench_opts {
    struct ff_run_config run; /* what the engine needs (run/bench_run.h) */
    bool list_families;       /* --list-families: print the registry, run nothing */
    bool list_formats;        /* --list-formats */
    bool mpi;        /* --mpi: one rank of a fleet run under mpirun (bench/fleet/fleet.h) */
    bool concurrent; /* --concurrent: every local device at once, after each alone */
    struct ff_bench_model model;
};

/*
 * The ops family's list for --model (libflopfit's ff_model_ops for each weight format and
 * phase: serving a prefill of seq tokens and decode steps at contexts seq / 8, seq and 4 x seq;
 * training one step of batch x seq), identical kernels once, into out (max entries). FF_OK
 * and *n; FF_ERR_INVALID / FF_ERR_NOT_FOUND / FF_ERR_UNSUPPORTED (a model the op list cannot
 * describe) with the reason in err.
 */
int ff_bench_model_ops(const struct ff_bench_model *bm, struct ff_bench_op *out, size_t max,
                       size_t *n, char *err, size_t errlen);

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
