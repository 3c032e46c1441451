/*
 * bench/cmd/cmd_bench.c — `flopfit bench`: select backends and devices, run the
 * families on each, print what was measured, write one profile per device.
 * One device's run, the tuning and the signal handling are in run/bench_run.c.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "writers.h"
#include "check/host.h"
#include "families/families.h"
#include "fleet/fleet.h"
#include "run/bench_run.h"
#include "run/paths.h"
#include "run/profile_json.h"
#include "tune/tune.h"

/* The progress line on a terminal: each one replaces the last. */
static void progress_to_terminal(void *ctx, const char *line)
{
    FILE *f = ctx;
    fputs("\r\033[K", f);
    fputs(line, f);
    fflush(f);
}

int ff_cmd_bench(int argc, char **argv)
{
    struct ff_bench_opts o;
    char err[1024] = "";
    int ret = ff_bench_parse(argc, argv, &o, err, sizeof(err));
    if (ret == FF_CLI_HELP) {
        ff_bench_usage(stdout);
        return 0;
    }
    if (ret < 0) {
        fprintf(stderr, "flopfit bench: %s\n", err);
        return 2;
    }
    if ((o.list_families || o.list_formats) && strcmp(o.run.writer->name, "json") == 0) {
        ff_bench_list_json(stdout, o.list_families, o.list_formats);
        return 0;
    }
    if (o.list_families || o.list_formats) {
        if (o.list_families)
            ff_bench_list_families(stdout);
        if (o.list_formats)
            ff_bench_list_formats(stdout);
        return 0;
    }
    /* --model: the model's own operations for the ops family, resolved before anything runs */
    static struct ff_bench_op model_ops[FF_BENCH_MODEL_OPS_MAX];
    if (o.model.name) {
        size_t n_ops = 0;
        ret = ff_bench_model_ops(&o.model, model_ops, FF_BENCH_MODEL_OPS_MAX, &n_ops, err,
                                 sizeof(err));
        if (ret < 0) {
            fprintf(stderr, "flopfit bench: --model %s: %s\n", o.model.name, err);
            return ret == FF_ERR_NO_MEMORY ? 1 : 2;
        }
        o.run.cfg.ops = model_ops;
        o.run.cfg.n_ops = n_ops;
    }
    if (isatty(STDERR_FILENO)) {
        o.run.cfg.progress = progress_to_terminal;
        o.run.cfg.progress_ctx = stderr;
    }
    /* Under mpirun: every rank runs its share of its node's devices (bench/fleet/fleet.h). */
    if (o.mpi)
        return ff_fleet_bench(&o.run);

    /* Fail before measuring if the profile could not be written. */
    if (!o.run.no_save && (ret = ff_bench_prepare_output(&o.run)) != 0)
        return ret;

    struct ff_bench_target targets[FF_BENCH_MAX_TARGETS];
    size_t n_targets = 0;
    ret = ff_bench_select_targets(&o.run.sel, targets, &n_targets, err, sizeof(err));
    if (ret < 0) {
        fprintf(stderr, "flopfit bench: %s\n", err);
        return ret == FF_ERR_INVALID ? 2 : 1;
    }
    if (o.run.output && n_targets > 1) {
        fprintf(stderr,
                "flopfit bench: --output names one file but %zu devices are selected; "
                "choose one with --device, or use --output-dir\n",
                n_targets);
        return 2;
    }
    ff_bench_catch_signals();

    struct ff_host host;
    ff_host_read(&host);
    if (o.concurrent)
        return ff_bench_concurrent(&o.run, targets, n_targets, &host);
    int exit_code = 0;
    for (size_t ti = 0; ti < n_targets && !ff_interrupted; ti++) {
        struct ff_bench_device_out out;
        ff_bench_device(&o.run, &targets[ti], &host, NULL, 0, true, &out);
        if (out.failed)
            exit_code = 1;
        free(out.json);
    }
    if (ff_interrupted) {
        fprintf(stderr, "flopfit bench: interrupted (%s); what was measured is kept\n",
                ff_interrupted == SIGTERM ? "SIGTERM" : "SIGINT");
        return 128 + ff_interrupted;
    }
    return exit_code;
}
