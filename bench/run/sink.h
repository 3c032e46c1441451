/*
 * bench/run/sink.h — the output sink the engine prints each device through: one function a
 * format. The formats themselves (table, json) and their table are the command's
 * (cmd/writers.c).
 */
#ifndef FF_SINK_H
#define FF_SINK_H

#include <stdio.h>

#include "check/result.h"

/* One device's run, as every writer sees it. */
struct ff_bench_output {
    const char *label;            /* "opencl:0" (backend:index) */
    const struct ff_run *profile; /* what was measured */
    const char *json;             /* the profile as JSON text (results/SCHEMA.md) */
};

struct ff_bench_writer {
    const char *name;        /* --format NAME */
    const char *description; /* one line for --help and --list-formats */
    /* Writes one device to f; called once per device, right after it ran. */
    void (*device)(FILE *f, const struct ff_bench_output *out);
};

#endif
