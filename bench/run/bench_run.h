/*
 * bench/run/bench_run.h — the steps of `flopfit bench` that a fleet run (bench/fleet/fleet.h) shares with
 * a plain one (bench/cmd/cmd_bench.c): which devices, where profiles go, and one device from open
 * to written profile.
 */
#ifndef FF_BENCH_RUN_H
#define FF_BENCH_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device_options.h"
#include "sink.h"
#include "check/host.h"
#include "check/result.h"
#include "families/bench.h"
#include "run/profile_json.h"

/* Which backends and devices a run takes: --backend and --device (cmd/cli.c parses them). */
struct ff_target_sel {
    char backend[16]; /* "" = every backend */
    bool device_given;
    char device_backend[16]; /* --device opencl:1 -> "opencl"; "" = any */
    uint32_t device_index;
};

/* A (backend, device) pair a run measures. */
struct ff_bench_target {
    const struct ff_backend *backend;
    uint32_t index;
};
#define FF_BENCH_MAX_TARGETS 64

/* What the engine is asked to do with each device, and where its output goes. */
struct ff_run_config {
    struct ff_bench_cfg cfg;
    struct ff_target_sel sel;
    const char *output; /* --output FILE */
    /* --output-dir DIR, else the per-user default (paths.h); NULL when neither HOME nor
     * XDG_DATA_HOME says where that is (output_dir_err says why). */
    const char *output_dir;
    char output_dir_buf[4096];
    char output_dir_err[160];
    bool no_save;
    const struct ff_bench_writer *writer; /* the sink each device is printed through */
    /* Tuning overrides: the FF_* variables (ff_device_options_from_env), then each
     * --override NAME=VALUE; every device opens with them and records them in its profile. */
    struct ff_device_options dev_opts;
    /* How the run was asked for (kind, the command line as typed), recorded in each profile. */
    struct ff_run_record record;
};

/*
 * The pairs sel selects. FF_ERR_INVALID for an unknown backend or device index (a usage
 * error), FF_ERR_NO_DEVICE when none is found; backends without a driver are reported on
 * stderr.
 */
int ff_bench_select_targets(const struct ff_target_sel *sel, struct ff_bench_target *t, size_t *n,
                            char *err, size_t errlen);

/* The folder profiles go to exists and takes files; stale temp files go. 0, or exit code 2. */
int ff_bench_prepare_output(const struct ff_run_config *rc);

/* SIGINT/SIGTERM stop at the next safe point (cmd_bench.c's header says how). */
void ff_bench_catch_signals(void);

/* What ff_bench_device did with one device. */
struct ff_bench_device_out {
    char label[48];   /* "opencl:0" */
    bool opened;      /* false: the device did not open (error says why) */
    bool failed;      /* a test failed, the device did not open or the profile was not written */
    char error[1024]; /* why it failed, "" otherwise */
    char *json;       /* the profile as JSON text (malloc, caller frees); NULL when not opened */
    char path[4352];  /* where the profile was written, "" when not */
};

/*
 * Opens the target, runs the selected families, appends copies of extra[0..n_extra) (tests
 * measured elsewhere, e.g. the interconnect), prints the device through rc->writer when
 * `print`, and writes its profile unless --no-save. Signals wait while it prints and writes.
 */
void ff_bench_device(const struct ff_run_config *rc, const struct ff_bench_target *t,
                     const struct ff_host *host, const struct ff_result *extra, size_t n_extra,
                     bool print, struct ff_bench_device_out *out);

/*
 * Opens the target and runs the families cfg selects on it into *p (a new run: the caller
 * ff_run_finish-es it). FF_OK, or the open's error with the device named in err.
 */
int ff_bench_measure(const struct ff_run_config *rc, const struct ff_bench_cfg *cfg,
                     const struct ff_bench_target *t, struct ff_run *p, char *err, size_t errlen);

/* The second half of ff_bench_device for a run measured already: print, write, fill out
 * (whose label the caller set). */
void ff_bench_emit(const struct ff_run_config *rc, const struct ff_host *host,
                   const struct ff_run *p, bool print, struct ff_bench_device_out *out);

/*
 * `flopfit bench --concurrent` (bench/run/concurrent.c): the targets one after the other, then
 * all at once, one thread each; each profile keeps the solo figures and adds, per test, the
 * figure measured while all ran (concurrent_value, concurrent_devices). Returns the exit code.
 */
int ff_bench_concurrent(const struct ff_run_config *rc, const struct ff_bench_target *t, size_t n,
                        const struct ff_host *host);

/* "2026-12-01T10:10:10Z" and "20261201-101010" for now. */
void ff_bench_utc_now(char *iso, size_t n, char *compact, size_t m);

#endif
