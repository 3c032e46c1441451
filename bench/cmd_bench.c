/*
 * bench/cmd_bench.c — `flopfit bench`: select backends and devices, run the
 * families on each, print what was measured, write one profile per device.
 * One device's run, the tuning and the signal handling are in bench_run.c.
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

#include "bench_run.h"
#include "cli.h"
#include "commands.h"
#include "fleet.h"
#include "families.h"
#include "host.h"
#include "paths.h"
#include "profile_json.h"
#include "tune.h"
#include "writers.h"

/* The progress line on a terminal: each one replaces the last. */
static void progress_to_terminal(void *ctx, const char *line)
{
    FILE *f = ctx;
    fputs("\r\033[K", f);
    fputs(line, f);
    fflush(f);
}

/* --output-dir's folders, made if missing (the path's length named as the option's). */
static int mkdir_p(const char *dir, char *err, size_t errlen)
{
    if (strlen(dir) >= 4096)
        return ff_errf(err, errlen, FF_ERR_INVALID, "--output-dir path is too long");
    return ff_mkdir_p(dir, err, errlen);
}

int ff_bench_select_targets(const struct ff_bench_opts *o, struct ff_bench_target *t, size_t *n,
                            char *err, size_t errlen)
{
    *n = 0;
    size_t errs = 0, tried = 0;
    for (const struct ff_backend *const *b = ff_backends(); *b; b++) {
        const char *name = ff_backend_name(*b);
        if (o->backend[0] && strcmp(o->backend, name) != 0)
            continue;
        if (o->device_backend[0] && strcmp(o->device_backend, name) != 0)
            continue;
        tried++;
        uint32_t count = 0;
        char e[512] = "";
        int ret = ff_backend_device_count(*b, &count, e, sizeof(e));
        if (ret < 0) {
            errs++;
            fprintf(stderr, "flopfit: %s: %s\n", name, e);
            continue;
        }
        if (o->device_given) {
            if (o->device_index >= count)
                return ff_errf(err, errlen, FF_ERR_INVALID,
                               "unknown device index %u for --device: %s has %u device%s "
                               "(0..%d; see `flopfit devices`)",
                               o->device_index, name, count, count == 1 ? "" : "s", (int)count - 1);
            t[(*n)++] = (struct ff_bench_target){*b, o->device_index};
            continue;
        }
        for (uint32_t i = 0; i < count && *n < FF_BENCH_MAX_TARGETS; i++)
            t[(*n)++] = (struct ff_bench_target){*b, i};
    }
    if (tried == 0) {
        const char *want = o->backend[0] ? o->backend : o->device_backend;
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "backend '%s' is not built into this flopfit (see `flopfit devices`)",
                       want[0] ? want : "any");
    }
    if (*n == 0)
        return ff_errf(err, errlen, FF_ERR_NO_DEVICE, "no device found%s", errs ? " (above)" : "");
    return FF_OK;
}

int ff_bench_prepare_output(const struct ff_bench_opts *o)
{
    char err[1024] = "";
    int ret;
    char dir[4096];
    if (o->output) {
        if ((ret = ff_check_writable(o->output, err, sizeof(err))) < 0) {
            fprintf(stderr, "flopfit bench: --output: %s%s\n", err,
                    ret == FF_ERR_INVALID ? " (give a file path; a folder is --output-dir)" : "");
            return 2;
        }
        const char *slash = strrchr(o->output, '/');
        if (!slash)
            snprintf(dir, sizeof(dir), ".");
        else
            snprintf(dir, sizeof(dir), "%.*s", slash == o->output ? 1 : (int)(slash - o->output),
                     o->output);
    } else {
        if (!o->output_dir) {
            fprintf(stderr, "flopfit bench: %s\n", o->output_dir_err);
            return 2;
        }
        if ((ret = mkdir_p(o->output_dir, err, sizeof(err))) < 0 ||
            (ret = ff_check_dir_writable(o->output_dir, err, sizeof(err))) < 0) {
            fprintf(stderr, "flopfit bench: --output-dir: %s\n", err);
            return 2;
        }
        snprintf(dir, sizeof(dir), "%s", o->output_dir);
    }
    unsigned removed = 0;
    if (ff_clean_stale_temps(dir, &removed, err, sizeof(err)) == FF_OK && removed)
        fprintf(stderr, "flopfit bench: removed %u temp file%s a killed run left in %s\n", removed,
                removed == 1 ? "" : "s", dir);
    return 0;
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
    if (o.list_families || o.list_formats) {
        if (o.list_families)
            ff_bench_list_families(stdout);
        if (o.list_formats)
            ff_bench_list_formats(stdout);
        return 0;
    }
    if (isatty(STDERR_FILENO)) {
        o.cfg.progress = progress_to_terminal;
        o.cfg.progress_ctx = stderr;
    }
    /* Under mpirun: every rank runs its share of its node's devices (bench/fleet.h). */
    if (o.mpi)
        return ff_fleet_bench(&o);

    /* Fail before measuring if the profile could not be written. */
    if (!o.no_save && (ret = ff_bench_prepare_output(&o)) != 0)
        return ret;

    struct ff_bench_target targets[FF_BENCH_MAX_TARGETS];
    size_t n_targets = 0;
    ret = ff_bench_select_targets(&o, targets, &n_targets, err, sizeof(err));
    if (ret < 0) {
        fprintf(stderr, "flopfit bench: %s\n", err);
        return ret == FF_ERR_INVALID ? 2 : 1;
    }
    if (o.output && n_targets > 1) {
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
        return ff_bench_concurrent(&o, targets, n_targets, &host);
    int exit_code = 0;
    for (size_t ti = 0; ti < n_targets && !ff_interrupted; ti++) {
        struct ff_bench_device_out out;
        ff_bench_device(&o, &targets[ti], &host, NULL, 0, true, &out);
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
