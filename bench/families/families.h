/*
 * bench/families/families.h — the registry of test families: one row per family (its
 * name, the function that runs it, what it needs, what it measures). The run
 * order, `--only`, `--list-families` and the report all read this table;
 * adding a family is its file plus one row in families.c.
 */
#ifndef FF_FAMILIES_H
#define FF_FAMILIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench.h"
#include "check/result.h"

/* Runs the family on one device, adding its results to p (see bench.h). */
typedef void (*ff_family_run_fn)(struct ff_device *dev, const struct ff_bench_cfg *cfg,
                                 struct ff_run *p);
/* Fills dst (n bytes) with the report's note for result r of p: "9.23x", "driver reports ..". */
typedef void (*ff_family_note_fn)(const struct ff_run *p, const struct ff_result *r, char *dst,
                                  size_t n);

struct ff_family {
    const char *name;        /* --only NAME; the "family" of its results in a profile */
    const char *description; /* what it measures, one line */
    const char *needs;       /* what it asks of the device and which options steer it */
    ff_family_run_fn run;
    ff_family_note_fn note; /* (optional) the report's last column for an ok result */
    bool on_request;        /* runs only when named (--only) or asked for (--model) */
};

/* Largest number of families (cfg->families is a bit set of table indices). */
#define FF_FAMILY_MAX 32

/* The table in run order (cheap probes first, so an interrupted run still has them),
 * terminated by a row whose name is NULL. Static, never freed. */
const struct ff_family *ff_families(void);
size_t ff_family_count(void);
/* By name, ASCII case-insensitive; NULL when unknown. */
const struct ff_family *ff_family_find(const char *name);
/* f's bit in cfg->families. */
uint32_t ff_family_bit(const struct ff_family *f);
/* The bits of every family a plain run runs (all but the on-request ones): `--only all`. */
uint32_t ff_family_all(void);
/* "matmul, memory, bandwidth, transfer, latency" into dst (n bytes). */
void ff_family_names(char *dst, size_t n, const char *sep);

/* Runs the families cfg selects on dev, in table order, until ff_interrupted. */
void ff_bench_run_device(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_run *p);

/* The notes, each beside its family's code. */
void ff_suite_matmul_note(const struct ff_run *p, const struct ff_result *r, char *dst, size_t n);
void ff_probe_memory_note(const struct ff_run *p, const struct ff_result *r, char *dst, size_t n);

#endif
