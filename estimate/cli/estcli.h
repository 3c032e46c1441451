/*
 * estimate/cli/estcli.h — the rooms of `flopfit estimate` (internal): options.c
 * parses argv into struct ff_estcli_opts and a plan, resolve.c turns names and files into a
 * model and a device, rank.c ranks devices (--device all), messages.c writes the errors,
 * estimate_cli.c runs the command. Every room includes this header and none includes another.
 */
#ifndef FF_ESTCLI_H
#define FF_ESTCLI_H

#include <stdbool.h>
#include <stddef.h>

#include "ff_util.h"
#include "flopfit/flopfit.h"

#define FF_ESTCLI_EXIT_USAGE   2
#define FF_ESTCLI_MAX_PROFILES 16
#define GIB                    1073741824.0

/* What the command line asked for, beside the plan. Strings point into argv. */
struct ff_estcli_opts {
    const char *model_arg, *device_arg;
    const char *profiles[FF_ESTCLI_MAX_PROFILES];
    size_t n_profiles;
    double params; /* --params; 0 = not given */
    bool json, list_models, list_devices, help;
    int tasks; /* task options seen (more than one is an error) */
    bool lora_rank_set, serve_opts_set, tokens_set, precision_set, tp_set, pp_set;
    /* multi-GPU plans */
    bool plan_best;   /* --plan best */
    int64_t nodes;    /* --nodes; 0 = not given */
    bool gpus_set;    /* --gpus given */
    const char *gguf; /* --gguf FILE; NULL = not given */
    /* what the plan search keeps (given) and how a ranking sorts */
    bool zero_set, recompute_set, batch_set, accum_set, ep_set, global_batch_set, cp_set;
    bool rank_time; /* --rank time (default: cost) */
};

/* ---- options.c ---- */

/* The --help text. */
extern const char ff_estcli_usage_text[];

/* Parse argv (argv[0] is "estimate") into *o (zeroed by the caller) and *plan (defaults set by
 * ff_plan_init), and check options that exclude each other. Returns 0, or FF_ERR_INVALID with
 * the usage error in err. */
int ff_estcli_parse(int argc, char **argv, struct ff_estcli_opts *o, struct ff_plan *plan,
                    char *err, size_t errlen);

/* ---- resolve.c: each returns an exit code (0, 1 or 2) and prints its error ---- */

/* The model: --params N (rough), a config.json path, or a preset name. */
int ff_estcli_model(const struct ff_estcli_opts *o, struct ff_model *m);
/* A measured device from a `flopfit bench` profile. */
int ff_estcli_profile(const char *path, struct ff_spec *d);
/* The one device: --profile FILE or a catalog --device NAME. */
int ff_estcli_device(const struct ff_estcli_opts *o, struct ff_spec *d);

/* --nodes N without --gpus-per-node: N x the device's node size (8 when unknown). */
void ff_estcli_apply_nodes(const struct ff_estcli_opts *o, const struct ff_spec *d,
                           struct ff_plan *p);

/* ---- rank.c ---- */

/* --plan best on one device: the fastest plans, the best one's report. Exit code. */
int ff_estcli_best(const struct ff_estcli_opts *o, const struct ff_model *m,
                   const struct ff_spec *d, const struct ff_plan *p);

/* Estimate on the profiles and (with --device all) every catalog device, best first, and print
 * the ranking. Exit code 0 when something fits, 1 when nothing does, 2 on a usage error. */
int ff_estcli_rank(const struct ff_estcli_opts *o, const struct ff_model *m,
                   const struct ff_plan *p);

/* ---- messages.c: the only places that write errors ---- */

/* "flopfit estimate: <message>" and the --help hint on stderr; returns FF_ESTCLI_EXIT_USAGE. */
FF_PRINTF(1, 2) int ff_estcli_usage_error(const char *fmt, ...);
/* "flopfit estimate: <err>" on stderr; returns the exit code for status rc (1 for
 * FF_ERR_NO_MEMORY, else 2). */
int ff_estcli_fail(int rc, const char *err);

#endif
