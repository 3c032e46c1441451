/*
 * results/src/results.h — the publisher behind `flopfit results`: many device profiles in,
 * tables (md, csv, json), a self-contained HTML page with SVG charts, run-to-run comparisons
 * and the curated results/ folder out.
 *
 *     struct ff_pub_set *set = NULL;
 *     ff_pub_set_create(&set);
 *     ff_pub_set_add(set, "results/");       // files or folders; a bad profile is skipped
 *     ff_pub_set_finish(set, &opts);         // group, aggregate, estimate, sort
 *     ff_pub_writer_find("md")->table(set, &sb);
 *     ff_pub_set_destroy(&set);
 *
 * Profiles are read through libflopfit's public reader (flopfit/profile.h) and the estimator
 * (flopfit/spec.h, flopfit/estimate.h); only the op tests' "shape"."g", which that reader has
 * no member for, is read from the same file with json-c (ops.c). A figure the profile does not carry is never
 * shown as 0: a metric is ok (with its value), unsupported or failed (with the reasons), or
 * absent ("not measured"). Nothing here prints or exits; text goes to a struct ff_pub_sb and
 * messages to caller buffers.
 */
#ifndef FF_PUB_RESULTS_H
#define FF_PUB_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <flopfit/profile.h>
#include <flopfit/spec.h>

#include "sb.h"

/* The published figures, one per metric (ff_pub_metrics() describes each). */
enum ff_pub_metric {
    FF_PUB_FP32 = 0,  /* best verified fp32 matmul, FLOP/s */
    FF_PUB_FP16,      /* best verified fp16 matmul, FLOP/s */
    FF_PUB_INT8,      /* best verified int8 matmul, OP/s */
    FF_PUB_USABLE,    /* usable memory, bytes */
    FF_PUB_READ,      /* read bandwidth, B/s */
    FF_PUB_UPLOAD,    /* host to device, best of pageable and pinned, B/s */
    FF_PUB_DOWNLOAD,  /* device to host, B/s */
    FF_PUB_LAUNCH,    /* launch latency (empty kernel, device time), s */
    FF_PUB_PEAK_FP32, /* measured arithmetic peak (family peak), fp32, FLOP/s */
    FF_PUB_PEAK_FP16, /* ... fp16, FLOP/s */
    FF_PUB_PEAK_INT8, /* ... int8, OP/s */
    FF_PUB_METRIC_COUNT,
};
#define FF_PUB_N_MATMUL 3 /* the first three metrics are the matmul precisions */
/* The peak of matmul metric m (m < FF_PUB_N_MATMUL) is metric FF_PUB_PEAK_FP32 + m. */

struct ff_pub_metric_info {
    const char *id;       /* "fp32": column, CSV and JSON key, --sort name */
    const char *title;    /* "fp32 matmul" */
    const char *family;   /* FF_PF_FAMILY_* of the tests it reads */
    const char *names;    /* space-separated test names; NULL: any */
    int prec;             /* enum ff_precision of a matmul, -1 for other families */
    const char *unit;     /* FF_PF_UNIT_* the figure is in */
    bool lower_is_better; /* latency */
};

/* The table of metrics, indexed by enum ff_pub_metric. Static. */
const struct ff_pub_metric_info *ff_pub_metrics(void);

enum ff_pub_state {
    FF_PUB_ABSENT = 0,  /* no test of it in the profile: "not measured" */
    FF_PUB_OK,          /* measured and verified: value holds the figure */
    FF_PUB_UNSUPPORTED, /* every test of it was unsupported: reasons say why */
    FF_PUB_FAILED,      /* none ok, at least one failed: reasons say why */
};

#define FF_PUB_REASON_MAX 512

/* One metric of one run, or of a device's runs together (then value is their median). */
struct ff_pub_figure {
    enum ff_pub_state state;
    double value;      /* ok: the figure in the metric's unit; 0 otherwise */
    double min, max;   /* ok: over the runs that measured it (one run: value) */
    int runs;          /* runs with a value */
    const char *impl;  /* the test that reached it: impl ("flopfit", "clblast") */
    const char *name;  /* ...its name ("upload_pinned") */
    uint64_t size;     /* ...matmul n (0 when not a matmul) */
    double noise;      /* ...its repetitions' spread, (max - min) / median device time */
    bool capped;       /* usable memory: the probe's cap stopped it (a lower bound) */
    bool time_limited; /* usable memory: its time limit stopped it (a lower bound) */
    double cap_bytes;  /* usable memory: the cap, bytes (0 absent) */
    char reason[FF_PUB_REASON_MAX]; /* unsupported/failed: "impl: reason; impl: reason" */
};

/* One profile that was read. */
struct ff_pub_run {
    char *path;                         /* as given or found (under a folder given) */
    struct ff_profile_doc *doc;         /* owned; its strings stay valid with the set */
    const struct ff_profile_info *info; /* ff_profile_info(doc) */
    struct ff_pub_figure fig[FF_PUB_METRIC_COUNT];
    const char *kind; /* the profile's "run"."kind" ("quick", "standard", "full", "custom"),
                       * "unrecorded" where the profile has none (schema 1.0) */
    bool has_spec;    /* spec holds the estimator's reading of this profile */
    struct ff_spec spec;
    char tool_minor[16]; /* flopfit's major.minor version that wrote it ("0.1"), "" unknown */
    size_t order;        /* its place in the order the profiles were read */
};

/* A model's decode step on a device, as the estimator predicts it (a roofline point). */
struct ff_pub_point {
    char model[FF_NAME_MAX];
    int64_t batch;
    double intensity; /* model FLOPs per byte read in one decode step */
    double rate;      /* model FLOPs per second of the estimated step */
    bool fits;        /* the model and its KV cache fit one device */
};
#define FF_PUB_MAX_POINTS 6

/* What the device serves: the largest preset on one device (ff_pub_set_finish). */
struct ff_pub_serves {
    int state;                    /* 0 found; FF_ERR_NOT_FOUND none fits; other: no estimate */
    char model[FF_NAME_MAX];      /* the preset's slug */
    int prec;                     /* enum ff_precision served in */
    double params;                /* its parameters */
    double tokens_per_s;          /* one sequence's decode rate */
    char note[FF_PUB_REASON_MAX]; /* why none, or what was substituted */
    bool unproven; /* fits only if the device holds more than its capped probe proved */
};

/*
 * One row of a device's op tests (family "op", results/SCHEMA.md): one op at one format and
 * shape, over the device's runs (ops.c). Strings belong to a run's document.
 */
struct ff_pub_op {
    const char *name;      /* "gemv", "attn_decode" */
    const char *precision; /* the weight, KV or GEMM format ("q4_0"); "" when absent */
    uint64_t m, n, k, g;   /* "shape"; 0 where absent (g: no group) */
    uint64_t bytes;        /* the traffic of one run of the op, B; 0 absent */
    enum ff_pub_state state;
    const char *unit;     /* ok: "B/s", or "FLOP/s" / "OP/s" for gemm */
    double value;         /* ok: the median over the runs that measured it */
    double min, max;      /* ok: over those runs */
    int runs;             /* runs with a value */
    double time_s;        /* ok: the median device time (wall time where the test has none)
                           * of the run whose value is the median, s */
    bool has_fraction;    /* a memory-bound op whose runs measured the read bandwidth too */
    double read_fraction; /* the median over runs of value / the same run's read bandwidth */
    double fraction_min, fraction_max;
    const char *reason; /* unsupported or failed: the newest such test's reason */
};
/* Is op `name` bounded by memory traffic (its B/s comparable with the read bandwidth)? Every
 * op but gemm (FLOP/s) and attn_prefill (compute-bound: O(n^2) work over O(n) bytes). */
bool ff_pub_op_memory_bound(const char *name);
/* "1×4096×4096", "32×2048×128, g=4", "4×4096" (k 0), "-" (no shape). Returns dst. */
const char *ff_pub_op_shape_text(const struct ff_pub_op *op, char *dst, size_t n);
/* The rate cell of a row: "13.5 GB/s", "unsupported", "failed". */
void ff_pub_op_value_text(const struct ff_pub_op *op, char *dst, size_t n);
/* The fraction cell: "82%" (±half the spread with several runs), "" when it has none. */
void ff_pub_op_fraction_text(const struct ff_pub_op *op, char *dst, size_t n);

/*
 * Repeated runs of one device under one grouping key: vendor, device name, device id (where
 * the API has one), driver version, backend, run kind and flopfit's minor version. Runs of
 * different keys are never one row.
 */
struct ff_pub_device {
    struct ff_pub_run **runs; /* oldest first */
    size_t n_runs;
    const struct ff_profile_info *info; /* the newest run's */
    struct ff_pub_figure fig[FF_PUB_METRIC_COUNT];
    bool has_spec; /* spec: median of the runs' estimator readings */
    struct ff_spec spec;
    bool has_datasheet; /* the catalog entry of this device, when it is known */
    struct ff_spec datasheet;
    struct ff_pub_serves serves;
    struct ff_pub_op *ops; /* its op tests (ops.c), by op, format and shape; NULL none */
    size_t n_ops;
    struct ff_pub_point points[FF_PUB_MAX_POINTS];
    size_t n_points;
    char vendor_slug[64];  /* "amd", "nvidia", "mesa" */
    char device_slug[128]; /* "pthread-haswell-amd-epyc" */
    char slug[256];        /* unique in the set: "opencl-pthread-haswell-amd-epyc" */
    size_t order;          /* the first of its runs in reading order (ties of the sort) */
};

/* The device's grouping key as one line of text: "vendor / name / id / driver / backend /
 * kind / flopfit minor" (an absent part reads "-"). Returns buf. */
const char *ff_pub_device_key_text(const struct ff_pub_device *d, char *buf, size_t n);
/* Same key for both (strcmp per part): <0, 0, >0. */
int ff_pub_run_key_cmp(const struct ff_pub_run *a, const struct ff_pub_run *b);
/* The key without driver and flopfit versions: the same device, backend and run kind. */
int ff_pub_run_identity_cmp(const struct ff_pub_run *a, const struct ff_pub_run *b);

/* A file that could not be used, and why. */
struct ff_pub_skip {
    char *path;
    char *reason; /* the reader's one-line message (it names the file) */
};

/* Footnotes: each distinct reason once, numbered from 1 in table order. */
struct ff_pub_notes {
    char **text;
    size_t n;
};

struct ff_pub_set {
    struct ff_pub_run *runs;
    size_t n_runs;
    struct ff_pub_device *devices; /* after ff_pub_set_finish, in the sorted order */
    size_t n_devices;
    struct ff_pub_skip *skipped;
    size_t n_skipped;
    size_t n_found;            /* profile files found (read or skipped) */
    struct ff_pub_notes notes; /* after ff_pub_set_finish */
    size_t *note_slots;        /* hash of notes.text: index + 1, 0 empty */
    size_t note_slots_n;       /* a power of two, or 0 */
    size_t runs_cap;           /* allocated elements of runs */
    char base[4096];           /* "" or the folder paths are shown relative to */
};

/* How ff_pub_set_finish sorts. */
struct ff_pub_options {
    const char *sort; /* a column id (ff_pub_columns); NULL: "fp32" */
    bool reverse;     /* false: the best first (largest, or smallest latency), text A-Z */
    bool estimate;    /* run the estimator (serves, roofline points); default true */
};
void ff_pub_options_init(struct ff_pub_options *o);

/* Serving plan of the "serves" column and the roofline points (stated in every output). */
#define FF_PUB_SERVE_PROMPT     3840
#define FF_PUB_SERVE_GENERATE   256
#define FF_PUB_POINT_BATCH_HIGH 64
#define FF_PUB_HIGH_SPREAD      0.10 /* runs spread over more than 10% of the median */

int ff_pub_set_create(struct ff_pub_set **out);
void ff_pub_set_destroy(struct ff_pub_set **set);
/*
 * Add a profile file, or every *.json under a folder (recursively, in name order; names
 * starting with '.' are left out). A file the reader refuses is recorded in set->skipped with
 * its path and the reason. Returns 0, FF_ERR_NO_MEMORY, or FF_ERR_IO when a folder cannot be
 * read (err says which).
 */
int ff_pub_set_add(struct ff_pub_set *set, const char *path, char *err, size_t errlen);
/* Group runs into devices, aggregate, run the estimator, sort, number the footnotes. Once.
 * FF_ERR_INVALID for an unknown sort column (err lists the accepted ones). */
int ff_pub_set_finish(struct ff_pub_set *set, const struct ff_pub_options *o, char *err,
                      size_t errlen);
/* The path of a run as outputs show it: relative to set->base when it lies under it. */
const char *ff_pub_run_path(const struct ff_pub_set *set, const struct ff_pub_run *r);
/* The footnote number (1...) of a text in set->notes; 0 when it has none. */
size_t ff_pub_note_number(const struct ff_pub_set *set, const char *text);

/* ---- the table: columns, cells, writers ---- */

struct ff_pub_cell {
    char text[640];   /* what a reader sees first ("118 GFLOP/s", "unsupported") */
    char detail[256]; /* how it was reached ("flopfit, n=2048, ±3% over 3 runs"), or "" */
    const char *note; /* the footnote's text, or NULL */
    double sort;      /* the number sorted on (NAN: text column, or no figure: sorts last) */
    bool warn;        /* a high spread between runs (shown as a mark) */
};

struct ff_pub_column {
    const char *id;    /* "device", "fp32", ... (--sort) */
    const char *title; /* header */
    int metric;        /* enum ff_pub_metric, or -1 */
    void (*cell)(const struct ff_pub_set *set, const struct ff_pub_device *d,
                 const struct ff_pub_column *c, struct ff_pub_cell *out);
};
/* Every column of the table, in order; *n receives the count. Static. */
const struct ff_pub_column *ff_pub_columns(size_t *n);
const struct ff_pub_column *ff_pub_column_find(const char *id);

/* Output formats of the table: `--format NAME`. A new one is a function and a row. */
struct ff_pub_writer {
    const char *name;        /* "md", "csv", "json", "html" */
    const char *description; /* one line for --help */
    /* The whole set as one text (html: the page with its charts inline); NULL for a format
     * that is a file of its own (sqlite), which `file` writes to path atomically. */
    int (*table)(const struct ff_pub_set *set, struct ff_pub_sb *out);
    int (*file)(const struct ff_pub_set *set, const char *path, char *err, size_t errlen);
};
/* Terminated by a row whose name is NULL. Static. */
const struct ff_pub_writer *ff_pub_writers(void);
const struct ff_pub_writer *ff_pub_writer_find(const char *name);

int ff_pub_write_md(const struct ff_pub_set *set, struct ff_pub_sb *out);
int ff_pub_write_csv(const struct ff_pub_set *set, struct ff_pub_sb *out);
/* `--format ops-csv`: one row per device and op row (struct ff_pub_op), the device's key
 * columns first. */
int ff_pub_write_ops_csv(const struct ff_pub_set *set, struct ff_pub_sb *out);
int ff_pub_write_json(const struct ff_pub_set *set, struct ff_pub_sb *out);
int ff_pub_write_html(const struct ff_pub_set *set, struct ff_pub_sb *out);
/* An SQLite database of every run and test (out_sqlite.c describes its tables), written to
 * path atomically. FF_ERR_IO (err says why), FF_ERR_INVALID for a path that names no file. */
int ff_pub_write_sqlite(const struct ff_pub_set *set, const char *path, char *err, size_t errlen);
/* The Markdown table and its footnotes only (no heading): the body of the other md texts. */
void ff_pub_md_table(const struct ff_pub_set *set, struct ff_pub_sb *out);
/* Does any device of the set carry op tests? */
bool ff_pub_set_has_ops(const struct ff_pub_set *set);
/* "## Op tests" and a table per device that has op tests; nothing when none has. */
void ff_pub_md_ops(const struct ff_pub_set *set, struct ff_pub_sb *out);
/* One device's row of the Markdown table (header included when `header`). */
void ff_pub_md_row(const struct ff_pub_set *set, const struct ff_pub_device *d, bool header,
                   struct ff_pub_sb *out);

/* ---- charts (SVG 1.1, written directly) ---- */

/* The roofline of one device. `id` prefixes element ids (unique within a page). */
int ff_pub_svg_roofline(const struct ff_pub_set *set, const struct ff_pub_device *d,
                        struct ff_pub_sb *out);
/* One bar per device for a metric (log scale), unsupported devices named with the reason. */
int ff_pub_svg_bars(const struct ff_pub_set *set, enum ff_pub_metric m, struct ff_pub_sb *out);

/*
 * `--html DIR`: DIR/index.html (self-contained) and each chart as DIR/<name>.svg. DIR is
 * created when missing; every file is written atomically inside DIR (a link planted under a
 * file's name is replaced, never written through). With `check`, nothing is written:
 * FF_ERR_VERIFY when a file differs from what would be written (err names it).
 */
int ff_pub_html_dir(const struct ff_pub_set *set, const char *dir, bool check, char *err,
                    size_t errlen);

/* ---- comparison, submission, the curated folder ---- */

/*
 * `--compare A B`: devices paired by grouping key (then by device where only the driver or
 * flopfit version differs), and per device and test (family, name, impl, precision, shape)
 * the ratio of medians B/A, its bootstrap interval and a verdict (compare.c says what is
 * resampled). A device on one side only is listed as such. `format` is "md", "csv" or
 * "json". *n_slower receives the number of tests worse (slower, less, no longer ok).
 */
int ff_pub_compare(const struct ff_pub_set *a_set, const struct ff_pub_set *b_set,
                   const char *format, struct ff_pub_sb *out, size_t *n_slower);

/* Bootstrap rounds of --compare's 95% percentile interval: Efron and Tibshirani, "An
 * Introduction to the Bootstrap" (1993, ch. 19), ask for 1000 or more rounds for percentile
 * intervals, and Davison and Hinkley, "Bootstrap Methods and their Application" (1997,
 * sec. 5.2.3), for 999 or more at 95%; 2000 keeps the 2.5% tails at 50 rounds each. The seed
 * is fixed so the same profiles give the same report. */
#define FF_PUB_BOOT_ROUNDS 2000
#define FF_PUB_BOOT_SEED   0x9e3779b97f4a7c15ull

/*
 * `results submit PROFILE`: check the profile (it must open, be complete, hold a verified
 * test, no figure above the device's physical limit (ff_bound_matmul_rate, ff_bound_bandwidth
 * on its own device facts), no test verified without its proof, and no host name or home path
 * in its text or its decoded strings) and copy it unchanged to
 * <results_dir>/<vendor>/<device>/<backend>-<driver>-<date>.json, each part a slug
 * (ff_pub_slug) and each folder below results_dir opened without following a link (never
 * replacing a file: "-2" is added). `used` receives the path written, `row` the device's
 * Markdown row. FF_ERR_INVALID (refused, or a link or file where a folder goes; err says why),
 * FF_ERR_UNSUPPORTED (a schema major version this reader does not know), FF_ERR_IO,
 * FF_ERR_NO_MEMORY.
 */
int ff_pub_submit(const char *profile, const char *results_dir, char *used, size_t usedlen,
                  struct ff_pub_sb *row, char *err, size_t errlen);

/*
 * `--publish DIR`: every profile under DIR into DIR/README.md and DIR/page/ (index.html and
 * the charts). The new page is written whole beside the old one and swapped in, README.md
 * with it (publish.c); a dead writer's temp files and folders in DIR are removed first. A
 * DIR/page that is a symbolic link or not a folder is FF_ERR_INVALID. With `check`, nothing is
 * written: FF_ERR_VERIFY when a file is not what would be written.
 */
int ff_pub_publish(const struct ff_pub_set *set, const char *dir, bool check, char *err,
                   size_t errlen);

/* "amd" for "AuthenticAMD" or "Advanced Micro Devices, Inc.", else the vendor as a slug. */
void ff_pub_vendor_slug(const char *vendor, char *dst, size_t n);
/*
 * The one way profile text becomes part of a file name (folders, profiles, charts): ASCII
 * letters (lower-cased), digits and '.', every other run of characters one '-'; no leading '.'
 * (never "." or ".."), no trailing '.' or '-', at most FF_PUB_SLUG_MAX bytes (and n - 1), "x"
 * when nothing is left, and a Windows device name (con, prn, aux, nul, com1-9, lpt1-9, with any
 * extension) marked with '_' after its stem ("con_", "aux_.json"). Characters: [a-z0-9._-].
 */
#define FF_PUB_SLUG_MAX 64
void ff_pub_slug(const char *s, char *dst, size_t n);

#endif
