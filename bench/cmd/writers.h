/*
 * bench/cmd/writers.h — what `flopfit bench` prints on stdout for each device, one
 * row per format: `--format NAME` picks the row (`--json` is `--format json`),
 * `--list-formats` prints the table. A new format is a function and a row.
 */
#ifndef FF_WRITERS_H
#define FF_WRITERS_H

#include <stdio.h>

#include "run/sink.h"

/* The table, the default first, terminated by a row whose name is NULL. Static. */
const struct ff_bench_writer *ff_bench_writers(void);
/* By name, ASCII case-insensitive; NULL when unknown. */
const struct ff_bench_writer *ff_bench_writer_find(const char *name);

#endif
