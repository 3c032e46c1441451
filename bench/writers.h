/*
 * bench/writers.h — what `flopfit bench` prints on stdout for each device, one
 * row per format: `--format NAME` picks the row (`--json` is `--format json`),
 * `--list-formats` prints the table. A new format is a function and a row.
 */
#ifndef FF_WRITERS_H
#define FF_WRITERS_H

#include <stdio.h>

#include "result.h"

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

/* The table, the default first, terminated by a row whose name is NULL. Static. */
const struct ff_bench_writer *ff_bench_writers(void);
/* By name, ASCII case-insensitive; NULL when unknown. */
const struct ff_bench_writer *ff_bench_writer_find(const char *name);

#endif
