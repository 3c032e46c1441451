/*
 * bench/check/result.h — one measured (or unsupported, or failed) test, and the
 * profile of one device that collects them.
 */
#ifndef FF_RESULT_H
#define FF_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"

enum ff_res_status {
    FF_RES_OK = 0,
    FF_RES_UNSUPPORTED,
    FF_RES_FAILED,
};

struct ff_timing {
    uint32_t reps;
    double dev_median_s, dev_min_s, dev_max_s;
    double wall_median_s, wall_min_s, wall_max_s;
};

#define FF_RESULT_MAX_EXTRA 12

struct ff_result {
    char family[16];  /* matmul, memory, bandwidth, transfer, latency, peak */
    char name[24];    /* matmul, usable, read, upload_pinned, launch ... */
    char impl[16];    /* flopfit, coopmat, clblast */
    int prec;         /* enum ff_precision, or -1 when not a matmul */
    uint32_t m, n, k; /* matmul and op shape */
    uint32_t g;       /* op: attention query rows per KV head, rope rows per position */
    uint64_t bytes;   /* bytes per run (bandwidth/transfer), 0 otherwise */
    enum ff_res_status status;
    char reason[320]; /* why unsupported / failed */
    char variant[256];
    char tune_point[192]; /* the tuning point built ("tm=6,tn=16"); "" when none recorded */
    char tune_source[12]; /* "tune", "cache", "default", "override"; "" when none */
    bool verified;
    double max_abs, max_rel, tolerance;
    bool has_error; /* max_abs/max_rel/tolerance are set */
    struct ff_timing t;
    bool has_timing;
    double value;     /* only meaningful when status == FF_RES_OK */
    char unit[8];     /* FLOP/s, OP/s, B/s, B, s */
    bool interrupted; /* cut off by Ctrl-C before it was measured: not published */
    char scope[16];   /* interconnect: intra_node or inter_node; "" for device tests */
    size_t n_extra;   /* extra numeric fields (memory probe) */
    struct {
        char key[32];
        double value;
        bool is_bool;
    } extra[FF_RESULT_MAX_EXTRA];
};

/*
 * One device's run in memory: what was measured, in order. It becomes a profile file through
 * bench/run/profile_json.c; profiles on disk are read back through libflopfit's flopfit/profile.h
 * (struct ff_profile_doc), never through this.
 */
struct ff_run {
    struct ff_device_info info;
    struct ff_result *results;
    size_t n_results, cap_results;
    bool complete; /* false when interrupted or stopped early */
};

/* Append a zeroed result; NULL when out of memory. */
struct ff_result *ff_run_add(struct ff_run *p);
void ff_run_finish(struct ff_run *p);

void ff_result_set(struct ff_result *r, const char *family, const char *name, const char *impl);
void ff_result_extra(struct ff_result *r, const char *key, double value, bool is_bool);
/* The value of r's extra `key`, *found telling whether r has it (0 when not). */
double ff_result_extra_get(const struct ff_result *r, const char *key, bool *found);
/* Mark unsupported / failed with a printf-style reason. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void ff_result_fail(struct ff_result *r, enum ff_res_status status, const char *fmt, ...);

/* Mark a test cut off by Ctrl-C; ff_run_drop_interrupted() removes it. */
void ff_result_interrupted(struct ff_result *r);
/*
 * Marks r failed with "implausible: X above limit Y (why)" and returns true when value exceeds
 * the device's physical limit; `verified` is kept (the data was right, the figure is wrong).
 * Every family's figures go through it (matmul, peak, the probes).
 */
bool ff_result_implausible(struct ff_result *r, double value, double limit, const char *why);
void ff_run_drop_interrupted(struct ff_run *p);

const char *ff_res_status_name(enum ff_res_status s);

#endif
