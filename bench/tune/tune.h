/*
 * bench/tune/tune.h — the tuner: searches a kernel's declared parameter space (backend.h,
 * ff_kernel_space) on one device, and the tuning cache that keeps what it found.
 *
 *   ff_tune_search    the search core, device-free: successive halving over growing problem
 *                     sizes (every legal point at the smallest size, the best fraction at the
 *                     next ... the survivors at the final size), within a time budget that is
 *                     checked before every candidate. A candidate is measured by a callback, so
 *                     the tests drive it with a fake evaluator and a fake clock.
 *   ff_tune_kernel    one kernel on one device: enumerates the legal points
 *                     (ff_kernel_point_check), evaluates each through the kernel check
 *                     (kcheck.h: poisoned, verified, ff_measure-timed, plausibility-checked),
 *                     and searches with ff_tune_search.
 *   ff_tune_cache_*   $XDG_CACHE_HOME/flopfit/tuning.json (tune_cache.c).
 *
 * The default point is a candidate of every round, measured first, so the point returned is
 * never slower than the default at the size they were last compared at (tuned >= default by
 * construction). Not thread-safe: one search drives one device from one thread.
 */
#ifndef FF_TUNE_H
#define FF_TUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "backend.h"

#define FF_TUNE_MAX_ROUNDS 6

/* Measures point p at problem size `size`: FF_OK with *rate (higher is better, > 0), or a
 * negative status with the reason in err (the candidate is then skipped). *fixed_s (0 on entry)
 * may get the seconds of it that do not grow with the size (building the kernel): the search
 * estimates a candidate at a larger size as fixed + (the rest) x (size ratio)^work_exponent. */
typedef int (*ff_tune_eval_fn)(void *ctx, const struct ff_tune_point *p, uint32_t size,
                               double *rate, double *fixed_s, char *err, size_t errlen);
/* Nanoseconds of a monotonic clock (tests pass a fake one). */
typedef uint64_t (*ff_tune_clock_fn)(void *ctx);
/* One line of the search's log (no newline), at a level: */
enum ff_tune_log_level {
    FF_TUNE_LOG_PROGRESS, /* transient: the candidate being measured (a terminal's status line) */
    FF_TUNE_LOG_INFO,     /* rounds, counts */
    FF_TUNE_LOG_VERBOSE,  /* each measurement, each skipped candidate and its reason */
};
typedef void (*ff_tune_log_fn)(void *ctx, enum ff_tune_log_level level, const char *line);

struct ff_tune_search_cfg {
    uint32_t sizes[FF_TUNE_MAX_ROUNDS]; /* one per round, ascending; the last is the final */
    size_t n_sizes;
    double work_exponent;   /* cost ~ size^exponent: 3 for matmul, 1 for bandwidth */
    double keep;            /* fraction of a round's candidates that go on (0 < keep <= 1) */
    uint32_t min_keep;      /* at least this many go on (default point included) */
    double budget_s;        /* wall time for the whole search */
    ff_tune_clock_fn clock; /* NULL: ff_now_ns */
    void *clock_ctx;
    ff_tune_log_fn log; /* (optional) */
    void *log_ctx;
    const char *label; /* "matmul fp32" for log lines */
    /* (optional) Called before each round with its size, outside the candidates' times (the
     * evaluator's inputs and reference for that size). A negative status ends the search. */
    int (*prepare)(void *ctx, uint32_t size, char *err, size_t errlen);
    /* (optional) Called with each candidate just before it is measured (the worker reports it
     * to its parent, so a candidate that kills the process is known). */
    void (*trying)(void *ctx, const struct ff_tune_point *p);
    void *trying_ctx;
    /* (optional) Called with each candidate once its measurement ends: its rate at size, 0 when
     * it was skipped (the worker reports it, so what was measured outlives the worker). Its
     * context is trying_ctx. */
    void (*measured)(void *ctx, const struct ff_tune_point *p, uint32_t size, double rate);
    /* Formats a point for log lines (NULL: "v0,v1,..."). */
    size_t (*format)(void *ctx, const struct ff_tune_point *p, char *buf, size_t n);
    void *format_ctx;
};

/* sizes unset, work_exponent 3, keep 0.25, min_keep 2, budget 300 s, clock ff_now_ns. */
void ff_tune_search_defaults(struct ff_tune_search_cfg *cfg);

struct ff_tune_outcome {
    struct ff_tune_point best;
    double best_rate;    /* at `size` */
    double default_rate; /* the default at `size`; 0 when the default failed there */
    uint32_t size;       /* the largest size at which the default and the best were compared */
    uint32_t rounds;     /* rounds run (some may have been cut short by the budget) */
    uint32_t evaluated;  /* candidate measurements started */
    uint32_t failed;     /* of which skipped for a reason (build, fault, mismatch ...) */
    bool budget_hit;     /* a candidate was not started because it would not fit */
    double elapsed_s;
};

/*
 * Searches cands (n points, dflt among them or not: it is added) with eval. The default is
 * measured first in every round; the winner is the best rate of the last round in which the
 * default was measured, so best_rate >= default_rate. FF_OK; FF_ERR_VERIFY when no candidate
 * (default included) produced a rate, with the last reason in err; FF_ERR_INVALID for a bad
 * cfg; FF_ERR_INTERRUPTED when ff_interrupted stopped it before any result.
 */
int ff_tune_search(const struct ff_tune_search_cfg *cfg, const struct ff_tune_point *cands,
                   size_t n, const struct ff_tune_point *dflt, ff_tune_eval_fn eval, void *ctx,
                   struct ff_tune_outcome *out, char *err, size_t errlen);

/* ---- one kernel on a device ---------------------------------------------------------- */

/* What the tuner tunes: matmul per precision and the four bandwidth kernels. */
struct ff_tune_target {
    enum ff_kernel_id id;   /* FF_KERNEL_MATMUL or FF_KERNEL_MEM_READ..TRIAD */
    enum ff_precision prec; /* matmul */
};

/* "matmul", "read", "write", "copy", "triad". */
const char *ff_tune_kernel_name(enum ff_kernel_id id);

/* The shape a target's tuning space is asked at (ff_kernel_space): a 1024^3 matmul, or 2^20
 * words for a bandwidth kernel. (tune.c) */
struct ff_kernel_desc ff_tune_space_desc(const struct ff_tune_target *t);

/* Every legal point of space at desc (ff_kernel_point_check, builds nothing) into a new array
 * *out (free()), *n points, the space's default first. *skipped counts illegal points. At most
 * max points are kept, spread evenly over the legal ones (0: no cap). */
int ff_tune_enumerate(struct ff_device *dev, const struct ff_kernel_desc *desc,
                      const struct ff_tune_space *space, size_t max, struct ff_tune_point **out,
                      size_t *n, size_t *skipped, char *err, size_t errlen);

#define FF_TUNE_MAX_SKIP 32

struct ff_tune_run_cfg {
    double budget_s;    /* this kernel's search */
    bool quick;         /* smaller sizes */
    uint64_t seed;      /* inputs */
    ff_tune_log_fn log; /* (optional) */
    void *log_ctx;
    /* (optional) see ff_tune_search_cfg.trying; the context is the point's text */
    void (*trying)(void *ctx, const char *point);
    void *trying_ctx;
    /* (optional) see ff_tune_search_cfg.measured; the context is trying_ctx */
    void (*measured)(void *ctx, const char *point, uint32_t size, double rate);
    /* points not to try (they crashed an earlier worker), as text */
    size_t n_skip;
    char skip[FF_TUNE_MAX_SKIP][192];
};

struct ff_tune_result {
    struct ff_tune_space space;
    struct ff_tune_outcome outcome;
    char point[192]; /* ff_tune_point_format of the best */
    char unit[8];    /* FLOP/s, OP/s, B/s */
};

/* The largest (final) size ff_tune_kernel measures id at: matmul n, bandwidth words. */
uint32_t ff_tune_final_size(const struct ff_device_info *info, enum ff_kernel_id id, bool quick);

/* Tunes target on dev. FF_ERR_UNSUPPORTED when it has no space there (the reason in err). */
int ff_tune_kernel(struct ff_device *dev, const struct ff_tune_target *t,
                   const struct ff_tune_run_cfg *cfg, struct ff_tune_result *res, char *err,
                   size_t errlen);

/*
 * ff_tune_kernel in a worker process (`flopfit tune --worker`, this executable run again), so
 * a candidate that crashes the process (a CPU driver runs kernels in-process: a bad kernel is
 * a SIGSEGV) is skipped, logged, and the search restarted without it on what is left of the
 * budget. exe: the flopfit binary (NULL: /proc/self/exe). The device is named by backend and
 * index; res->space comes from dev (opened by the caller: the worker opens its own).
 *
 * Nothing is waited for without end: ff_interrupted (the caller's SIGINT/SIGTERM handler) is
 * passed on to the worker, which is killed FF_TUNE_GRACE_S later if it has not ended; a
 * watchdog kills a worker that runs FF_TUNE_WATCHDOG_MARGIN past the budget (or past its last
 * candidate's start, when that came later): a candidate that hangs is skipped like one that
 * crashes, a stopped worker (SIGSTOP) is reported as such. A worker that ends without its
 * result (killed from outside, by the watchdog, after the grace) leaves the points it had
 * measured: the result is then the best of those at the largest size the default was measured
 * at (FF_OK), and the reason is logged at FF_TUNE_LOG_INFO.
 */
#define FF_TUNE_GRACE_S                   2.0
/* seconds past the deadline: a fixed part and a fraction of the budget */
#define FF_TUNE_WATCHDOG_MARGIN(budget_s) (10.0 + 0.25 * (budget_s))
int ff_tune_kernel_isolated(const char *exe, struct ff_device *dev, const char *backend,
                            uint32_t index, const struct ff_tune_target *t,
                            const struct ff_tune_run_cfg *cfg, struct ff_tune_result *res,
                            char *err, size_t errlen);
/* The worker's side: argv as the parent passes it ("--worker" first). Returns the exit code. */
int ff_tune_worker_main(int argc, char **argv);

/* ---- the tuning cache (tune_cache.c) -------------------------------------------------- */

#define FF_TUNE_CACHE_SCHEMA    "flopfit.tuning"
#define FF_TUNE_CACHE_VERSION   "1.0"
/* Room for tens of thousands of entries as ff_tune_cache_save writes them (~400 bytes each). */
#define FF_TUNE_CACHE_MAX_BYTES (32u * 1024u * 1024u)

/* Which kernel on which device, built from which source: an entry applies only to its key. */
struct ff_tune_key {
    char backend[16];
    char device[256];
    char driver[128];
    char kernel[16];   /* ff_tune_kernel_name */
    char precision[8]; /* matmul: "fp32"; "" otherwise */
    char source_hash[17];
};

struct ff_tune_entry {
    struct ff_tune_key key;
    char point[192];     /* ff_tune_point_format */
    double rate;         /* the point's rate at size, in unit */
    double default_rate; /* the default's, same size; 0 when it failed */
    char unit[8];
    uint32_t size;
    char date[32];    /* UTC ISO 8601 */
    char version[32]; /* flopfit version that measured it */
    bool quick;       /* left by a --quick bench's short tune: a full bench refines it */
};

struct ff_tune_cache {
    struct ff_tune_entry *e;
    size_t n, cap;
    /* private to tune_cache.c: an index of e by key (source hash aside; open addressing, a slot
     * holds an entry's index + 1), and which entries ff_tune_cache_put changed since the load
     * (ff_tune_cache_commit merges those into the file as it is then) */
    size_t *slot, n_slots;
    unsigned char *changed;
};

/* The key of target on dev with space (its source hash). */
void ff_tune_key_make(struct ff_tune_key *k, const struct ff_device_info *info,
                      const struct ff_tune_target *t, const struct ff_tune_space *space);
/* $XDG_CACHE_HOME/flopfit/tuning.json (absolute XDG_CACHE_HOME), else ~/.cache/...;
 * FF_ERR_NOT_FOUND when neither is set. */
int ff_tune_cache_path(char *dst, size_t n, char *err, size_t errlen);
/*
 * Reads path into c (emptied first). A missing file is an empty cache (FF_OK). A file that is
 * not a tuning cache of major version 1 (malformed JSON, wrong schema, a bad entry) leaves c
 * empty and returns FF_ERR_INVALID naming the file and what is wrong. Entries of an unknown
 * kernel are kept as they are (a newer flopfit's).
 */
int ff_tune_cache_load(struct ff_tune_cache *c, const char *path, char *err, size_t errlen);
/* Writes c to path atomically (ff_write_atomic), creating the folder. */
int ff_tune_cache_save(const struct ff_tune_cache *c, const char *path, char *err, size_t errlen);
/* The entry whose key equals k in every field; NULL when none (a stale one never matches).
 * Constant time (a hash index), as is ff_tune_cache_put: loading or importing n entries is O(n). */
const struct ff_tune_entry *ff_tune_cache_find(const struct ff_tune_cache *c,
                                               const struct ff_tune_key *k);
/* Adds e, replacing any entry for the same backend, device, driver, kernel and precision
 * (whatever its source hash: a kernel whose source changed replaces its old entry). */
int ff_tune_cache_put(struct ff_tune_cache *c, const struct ff_tune_entry *e);
void ff_tune_cache_free(struct ff_tune_cache *c);
/* The cache entry of a tune of t on the device described by info: now, this version. */
void ff_tune_entry_make(struct ff_tune_entry *e, const struct ff_device_info *info,
                        const struct ff_tune_target *t, const struct ff_tune_result *r);
/*
 * The per-user cache (ff_tune_cache_path) into c, its path into path. A malformed file is
 * reported once on stderr as "<cmd>: ..." and read as empty, *malformed set: the file stays
 * until ff_tune_cache_commit writes a fresh cache, which first keeps it as <path>.malformed.
 * FF_ERR_NOT_FOUND (reported) when there is no cache folder.
 */
int ff_tune_cache_open(struct ff_tune_cache *c, char *path, size_t n, bool *malformed,
                       const char *cmd);
/*
 * Merges c into the file at path under a lock, so that concurrent tuners keep every entry: takes
 * flock(LOCK_EX) on <path>.lock (waiting up to FF_TUNE_CACHE_LOCK_S, then FF_ERR_IO naming the
 * lock), reads the file as it is now, puts into it the entries ff_tune_cache_put changed in c
 * since c was loaded, writes it atomically and unlocks. A file found malformed is kept as
 * <path>.malformed and replaced. c then holds the merged cache, nothing marked changed.
 */
#define FF_TUNE_CACHE_LOCK_S 30
int ff_tune_cache_commit(struct ff_tune_cache *c, const char *path, bool *malformed, char *err,
                         size_t errlen);

#endif
