/*
 * flopfit/profile.h — read, validate and iterate a device profile written by `flopfit bench`
 * (results/SCHEMA.md, "flopfit.profile" 1.x).
 *
 *     struct ff_profile_doc *prof = NULL;
 *     char err[512];
 *     if (ff_profile_open("results/x.json", &prof, err, sizeof(err)) != 0) { ...err... }
 *     const struct ff_profile_info *info = ff_profile_info(prof);
 *     for (size_t i = 0; i < ff_profile_test_count(prof); i++) {
 *         const struct ff_profile_test *t = ff_profile_test_at(prof, i);
 *         if (t->status == FF_PROFILE_TEST_OK && t->verified && t->has_value) ...
 *     }
 *     ff_profile_close(&prof);
 *
 * Validation happens once, in open/parse: a document that opens is well-typed. A file is
 * refused when it is not a regular file (directory, FIFO, device), is larger than
 * FF_PROFILE_MAX_BYTES, is not strict JSON, has "schema" other than "flopfit.profile", has a
 * "schema_version" whose major number is not FF_PF_VERSION_MAJOR (FF_ERR_UNSUPPORTED), lacks
 * the "device" object or the "tests" array, has a known field of the wrong type, has any
 * non-finite number anywhere (json-c accepts Infinity and NaN tokens), or has a figure outside
 * its physical range (negative bytes, 1e308 bytes, a rate above FF_PROFILE_MAX_RATE...).
 * Messages name the file and the field ("x.json: field tests[3].value is inf (expected ...)").
 * Unknown fields are ignored (minor versions may add them). A JSON null counts as absent.
 *
 * Ownership: a document owns every string and struct it hands out; they stay valid and
 * unchanged until ff_profile_close. The input text or file is not kept.
 * Thread-safety: open and parse are reentrant (no global state, json-c's included); an open
 * document is immutable and may be read from several threads at once; close it once.
 * Field names are those of flopfit/profile_fields.h, which the writer uses too.
 *
 * Layout: the document owns struct ff_profile_info and struct ff_profile_test, and a newer
 * minor release appends fields to them; each begins with the struct_size the library was built
 * with, so a program built against newer headers checks `struct_size > offsetof(T, field)`
 * before it reads a field this library may lack. ff_profile_device and ff_profile_times are
 * embedded, hence frozen: their layout changes only with the soname (doc/abi.md).
 */
#ifndef FLOPFIT_PROFILE_H
#define FLOPFIT_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flopfit/export.h"
#include "flopfit/profile_fields.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest profile read, bytes (a profile of every family is well under 100 KiB). */
#define FF_PROFILE_MAX_BYTES      (16u * 1024u * 1024u)
/* Plausibility bounds applied while reading; a figure beyond them refuses the file. */
#define FF_PROFILE_MAX_BYTE_COUNT 1152921504606846976.0 /* 2^60 B (1 EiB): memory, sizes */
#define FF_PROFILE_MAX_RATE       1e21                  /* FLOP/s, OP/s */
#define FF_PROFILE_MAX_BANDWIDTH  1e18                  /* B/s */
#define FF_PROFILE_MAX_SECONDS    1e9                   /* any time */

/* An opened, validated profile. Opaque; see ff_profile_open / ff_profile_close. */
struct ff_profile_doc;

enum ff_profile_test_status {
    FF_PROFILE_TEST_OK = 0,      /* "ok": measured */
    FF_PROFILE_TEST_UNSUPPORTED, /* "unsupported": the device or backend lacks it */
    FF_PROFILE_TEST_FAILED,      /* "failed": ran and failed (verification, implausible...) */
    FF_PROFILE_TEST_OTHER,       /* a status this flopfit does not know (see status_text) */
};

/* At most this many tuning overrides are read from "device"."overrides"; more are refused. */
#define FF_PROFILE_MAX_OVERRIDES 16

/* "device" of a profile. Strings are NULL when the field is absent; numbers 0. */
struct ff_profile_device {
    const char *backend;        /* "opencl", "vulkan" */
    const char *platform;       /* OpenCL platform / Vulkan driver name */
    const char *name;           /* the device's full name */
    const char *vendor;         /* vendor string as the driver reports it */
    const char *driver_version; /* driver version string */
    const char *api_version;    /* "OpenCL 3.0 PoCL ...", "1.3.255" */
    const char *type;           /* "cpu", "gpu", "integrated", ... */
    uint64_t compute_units;     /* compute units / cores the driver reports */
    uint64_t clock_mhz;         /* 0 = not reported */
    uint64_t global_mem_bytes;  /* device memory the driver reports, bytes */
    uint64_t max_alloc_bytes;   /* largest single allocation, bytes */
    uint64_t budget_bytes;      /* memory budget (VK_EXT_memory_budget), bytes; 0 = unknown */
    bool host_shared_memory;    /* device memory is host RAM (CPU devices, iGPUs) */
    struct {
        bool fp16, int8, int8_dot, coopmat; /* false when absent */
    } features;
    /* Tuning overrides in effect for the run ("vk_tiles" = "4,2,8,1"): figures measured with
     * them are not the built-in defaults'. In file order; n_overrides 0 when none or absent. */
    size_t n_overrides;
    struct {
        const char *name, *value;
    } overrides[FF_PROFILE_MAX_OVERRIDES];
};

/* Everything but the tests. */
struct ff_profile_info {
    size_t struct_size;         /* sizeof(struct ff_profile_info) in the library */
    const char *label;          /* the path given to open, or the label given to parse */
    const char *schema_version; /* "1.0" as written; never NULL */
    int version_major;          /* always FF_PF_VERSION_MAJOR for an open document */
    int version_minor;
    const char *tool_name;    /* "flopfit"; NULL when absent (likewise below) */
    const char *tool_version; /* flopfit version that wrote it, "0.1.0" */
    const char *tool_git;     /* git revision, "3f2c1a9b0d4e" or "unknown" */
    const char *created;      /* UTC date and time, "2026-11-29T22:40:11Z" */
    struct {
        const char *os, *kernel, *cpu; /* NULL when absent */
        uint64_t cpus;                 /* logical CPUs; 0 = absent */
        uint64_t ram_bytes;            /* host RAM, bytes; 0 = absent */
    } host;
    struct ff_profile_device device;
    bool complete; /* false when the run was interrupted or stopped early (or absent) */
    /* Schema 1.1 (NULL / 0 in a 1.0 profile, or when absent): "run"."kind" ("quick",
     * "standard", "full", "custom" or a newer word), "run"."argv" (run_argc strings, the
     * command line as typed with the home folder as "~"), "content_hash" as written
     * ("sha256:<hex>"; ff_profile_content_hash recomputes it) and "device"."device_id" (the
     * API's vendor and device id, "0x10005:0x0000"). */
    const char *run_kind;
    const char *const *run_argv;
    size_t run_argc;
    const char *content_hash;
    const char *device_id;
};

/* Median/min/max over the timed repetitions, seconds; each 0 when absent. */
struct ff_profile_times {
    bool present; /* the object is in the file */
    double median_s, min_s, max_s;
};

/* One element of "tests". Strings are NULL when absent unless stated. */
struct ff_profile_test {
    size_t struct_size;    /* sizeof(struct ff_profile_test) in the library */
    const char *family;    /* "matmul", "memory", ...; never NULL (required) */
    const char *name;      /* within the family; never NULL (required) */
    const char *impl;      /* "flopfit", "coopmat", "clblast" */
    const char *precision; /* "fp32", "fp16", "int8" (matmul) as written */
    int prec;              /* enum ff_precision of `precision`; -1 absent or unknown */
    const char *variant;   /* free text describing the kernel or probe */
    uint64_t m, n, k;      /* "shape" (matmul); 0 when absent */
    uint64_t bytes;        /* bytes moved per run (bandwidth, transfer), 0 when absent */
    enum ff_profile_test_status status;
    const char *status_text; /* the status as written; never NULL (required) */
    const char *reason;      /* why unsupported or failed */
    bool verified;           /* matched the CPU reference / read-back; false when absent */
    bool has_error;          /* the "error" object is present */
    double max_abs, max_rel, tolerance; /* "error": 0 when absent */
    uint64_t repetitions;               /* timed runs; 0 when absent */
    struct ff_profile_times device_time_s, wall_time_s;
    /* The figure. Only an "ok" test carries one (a file that gives an unsupported or failed
     * test a value is refused); has_value false means no figure, never 0-as-a-figure. */
    bool has_value;
    double value;     /* in `unit`, within the bounds above; 0 when !has_value */
    const char *unit; /* "FLOP/s", "OP/s", "B/s", "B", "s" */
    /* "tuning": the point the kernel was built with ("tm=6,tn=16", an override's value or
     * "default") and where it came from ("tune", "cache", "default", "override"); NULL absent. */
    const char *tuning_point, *tuning_source;
    /* memory/usable extras (0/false when absent) */
    double reported_bytes, difference_bytes, cap_bytes, chunk_bytes, probe_s;
    bool capped;       /* the host-memory cap or --memory-limit stopped the probe */
    bool time_limited; /* the probe's time limit stopped it */
    /* bandwidth extra: the plausibility limit the probe checked against, B/s (0 absent) */
    double limit_bytes_per_s;
    /* interconnect extras (family "interconnect": an MPI collective; value = bus bandwidth in
     * B/s, nccl-tests' busbw). scope "intra_node" or "inter_node" (NULL absent), ranks taking
     * part (0 absent), algorithm bandwidth bytes/time in B/s and the smallest message's time in
     * seconds (0 absent). */
    const char *scope;
    uint64_t ranks;
    double algbw_bytes_per_s, latency_s;
    /* matmul extra: the figure over the measured arithmetic peak it could use (0 absent; see
     * SCHEMA.md), whether that peak was fp32's rather than the test's own precision, and that
     * peak's rate as measured beside the figure (0 absent: the fraction is then over the peak
     * family's own figure). */
    double peak_fraction;
    bool peak_of_fp32;
    double peak_paired;
    /* op tests (flopfit/ops.h): "shape"."g", attention's query rows per KV head and rope's rows
     * per position; 0 when absent. */
    uint64_t g;
};

/*
 * Read and validate the profile at `path` (see the top of this header for what is refused).
 * On success *out receives a new document: the caller owns it and frees it with
 * ff_profile_close. On failure *out is NULL.
 * Returns 0, FF_ERR_IO (cannot open or read; not a regular file), FF_ERR_INVALID (too large,
 * not JSON, malformed: err names the file and the field), FF_ERR_UNSUPPORTED (unknown schema
 * major version) or FF_ERR_NO_MEMORY. err (may be NULL) receives a one-line message.
 */
FF_API int ff_profile_open(const char *path, struct ff_profile_doc **out, char *err, size_t errlen);

/*
 * Same, from `len` bytes of text in memory (need not be NUL-terminated; a NUL byte inside is
 * refused). `label` names the text in messages and in ff_profile_info()->label (NULL:
 * "profile"). The text is not kept. The entry point for fuzzing the profile reader.
 */
FF_API int ff_profile_parse(const char *text, size_t len, const char *label,
                            struct ff_profile_doc **out, char *err, size_t errlen);

/* Free a document and set *prof to NULL. NULL-safe (prof or *prof may be NULL). */
FF_API void ff_profile_close(struct ff_profile_doc **prof);

/* Header fields of an open document; owned by it. Never NULL for a non-NULL prof. */
FF_API const struct ff_profile_info *ff_profile_info(const struct ff_profile_doc *prof);

/* "sha256:" + 64 hex digits + NUL. */
#define FF_PROFILE_HASH_MAX 72

/*
 * The content hash of the document's measured part, recomputed from what was read: SHA-256 of
 * the plain JSON text of {"device": <device>, "tests": <tests>} (results/SCHEMA.md), as
 * "sha256:<64 lowercase hex>" into out. A 1.0 profile has one too (it records none). Returns 0,
 * or FF_ERR_INVALID for a NULL prof or out.
 */
FF_API int ff_profile_content_hash(const struct ff_profile_doc *prof,
                                   char out[FF_PROFILE_HASH_MAX]);

/* Number of elements of "tests" (0 for a NULL prof). */
FF_API size_t ff_profile_test_count(const struct ff_profile_doc *prof);

/* Test i (in file order), owned by the document; NULL when i >= ff_profile_test_count. */
FF_API const struct ff_profile_test *ff_profile_test_at(const struct ff_profile_doc *prof,
                                                        size_t i);

/*
 * Any numeric or boolean field of test i by name, for fields this header has no member for
 * (a newer minor version's extras). Booleans read as 0 or 1. Returns 0 and sets *out,
 * FF_ERR_NOT_FOUND (no such test or field, or null) or FF_ERR_INVALID (not a number).
 * Numbers are finite: the document was checked when opened.
 */
FF_API int ff_profile_test_number(const struct ff_profile_doc *prof, size_t i, const char *key,
                                  double *out);

#ifdef __cplusplus
}
#endif

#endif
