/*
 * estimate/util/ff_util.h — the helpers every part of flopfit shares: error messages, strings,
 * numbers with units, typed option parsers, files.
 *
 * A private static library (ff_util) linked into libflopfit (hidden there), the backends,
 * bench/ and both CLIs: one definition of each helper for the whole tree. Nothing here is
 * installed; nothing prints or exits. Thread-safety: every function is reentrant.
 */
#ifndef FF_UTIL_H
#define FF_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <flopfit/precision.h>
#include <flopfit/status.h>

#if defined(__GNUC__)
#define FF_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define FF_PRINTF(f, a)
#endif

/* ---- errors and strings (strings.c) ------------------------------------- */

/* Evaluate x (an int status); return it from the enclosing function when it is not FF_OK. */
#define FF_TRY(x)                                                                                  \
    do {                                                                                           \
        int ff_try_rc_ = (x);                                                                      \
        if (ff_try_rc_ != FF_OK)                                                                   \
            return ff_try_rc_;                                                                     \
    } while (0)

/* snprintf into err when err is not NULL and errlen > 0; returns `status` for tail calls. */
FF_PRINTF(4, 5) int ff_errf(char *err, size_t errlen, int status, const char *fmt, ...);

/* snprintf for messages: a text longer than dst is cut and ends in "..." (at a UTF-8
 * character boundary), so a reader sees it was cut. Returns true when all of it fit. */
FF_PRINTF(3, 4) bool ff_msgf(char *dst, size_t n, const char *fmt, ...);

/* Copy at most n-1 bytes of src and terminate (n > 0). */
void ff_strlcpy(char *dst, const char *src, size_t n);

/* ASCII case-insensitive equality. */
bool ff_streq_ci(const char *a, const char *b);

/* Levenshtein distance between a and b, ASCII case-insensitive; 64 for longer strings. */
int ff_edit_distance(const char *a, const char *b);
/* What a did-you-mean may suggest: a word at most this many edits away. */
#define FF_CLOSE_DISTANCE 2
/* The word of words[0..n) closest to `given` within FF_CLOSE_DISTANCE (ties: the first), or
 * NULL. */
const char *ff_closest_word(const char *given, const char *const *words, size_t n);

/* ---- numbers with units (format.c); each writes a terminated string into dst ---- */

/* "57.0 GFLOP/s" style: v scaled by 1000s to k/M/G/T/P/E, 3 significant digits. */
void ff_fmt_si(char *dst, size_t n, double v, const char *unit);
/* "1.234 s", "1.234 ms", "12.34 us". */
void ff_fmt_time(char *dst, size_t n, double s);
/* Binary units: "1.50 GiB", "512.0 MiB", "64 KiB". */
void ff_fmt_bytes_bin(char *dst, size_t n, double bytes);
/* Both units: "74.45 GiB (79.9 GB)". Returns dst. */
const char *ff_fmt_bytes(char *dst, size_t n, double bytes);
/* A count as a person writes it: from 100 up a whole number with thousands separators
 * ("13,820", "1,720,320"), below that 3 significant digits ("24.8", "1.85"). Returns dst. */
const char *ff_fmt_count(char *dst, size_t n, double v);
/* US dollars: "$24,750" from $100 up, "$12.34" below, "$0.0042" under a cent. Returns dst. */
const char *ff_fmt_money(char *dst, size_t n, double usd);
/* A duration: "12.3 ms", "45.1 s", "12.5 min", "36.2 h", "12.4 days", "1.8 years",
 * "12,345 years". Returns dst. */
const char *ff_fmt_duration(char *dst, size_t n, double s);

/* ---- typed option parsers (parse.c) --------------------------------------- *
 * Each returns 0 and sets *out, or FF_ERR_INVALID with a message naming `opt`, the bad value
 * and what is accepted ("invalid value 'x' for --reps: expected a whole number from 1 to 1000").
 */
/* The message every parser gives: "invalid value 'S' for OPT: expected ACCEPTED";
 * returns FF_ERR_INVALID. For parsers of options outside this file (lists, names). */
int ff_bad_value(char *err, size_t errlen, const char *opt, const char *s, const char *accepted);
int ff_parse_u32(const char *opt, const char *s, uint32_t min, uint32_t max, uint32_t *out,
                 char *err, size_t errlen);
/* A finite decimal number in [min, max]. */
int ff_parse_double(const char *opt, const char *s, double min, double max, double *out, char *err,
                    size_t errlen);
/* Byte sizes: "4294967296", "512M", "4G", "1.5GiB" (binary units), at least min. */
int ff_parse_bytes(const char *opt, const char *s, uint64_t min, uint64_t *out, char *err,
                   size_t errlen);
/* A finite number in (min, max]: min itself is refused ("--mfu": more than 0, at most 1). */
int ff_parse_double_above(const char *opt, const char *s, double min, double max, double *out,
                          char *err, size_t errlen);
/* A whole number in [min, max]: decimal ("4096") or a real number that is whole ("7e9", "1e6"). */
int ff_parse_i64(const char *opt, const char *s, int64_t min, int64_t max, int64_t *out, char *err,
                 size_t errlen);

/* A global batch: sequences ("1024", "2kseq") or tokens ("4M", "512k", "4Mtok",
 * "4194304tok"); k, M, G are binary (4M = 4194304 tokens, 1024 sequences of 4096). Sets
 * *sequences (and *tokens = 0) or *tokens (and *sequences = 0). Sequences are whole, 1..2^40;
 * tokens 1..1e15. */
int ff_parse_global_batch(const char *opt, const char *s, int64_t *sequences, double *tokens,
                          char *err, size_t errlen);
/* A duration with its unit, h, d or w ("36h", "30d", "2.5w"), from 1 minute to 100 years. */
int ff_parse_duration(const char *opt, const char *s, double *seconds, char *err, size_t errlen);

/* One accepted word of a word option: `name` parses to `value`. An alias is accepted but left
 * out of the "expected ..." list (e.g. "adam" for "adamw"). */
struct ff_choice {
    const char *name;
    int value;
    bool alias;
};
/* Exactly one of the n names (case-sensitive); the message lists the non-alias names
 * ("expected none, selective or full"). */
int ff_parse_choice(const char *opt, const char *s, const struct ff_choice *choices, size_t n,
                    int *out, char *err, size_t errlen);
/* on|off (aliases true|false, 1|0). */
int ff_parse_onoff(const char *opt, const char *s, bool *out, char *err, size_t errlen);

struct option; /* <getopt.h> */
/* The message for an unknown option, `given` as argv has it ("--presicion" or
 * "--presicion=fp32"): "unknown option '--presicion'; did you mean '--precision'?" when a long
 * option of `opts` (a getopt_long table, ending in a row with a NULL name) is within
 * FF_CLOSE_DISTANCE, else "unknown option '--x' (see --help)". Returns FF_ERR_INVALID. */
int ff_unknown_option(char *err, size_t errlen, const char *given, const struct option *opts);

/* ---- files (file.c) ---------------------------------------------------------- *
 * Writes go through a temp file `.<name>.tmp.<pid>.<seq>` in the target's folder, created with
 * mode 0666 & ~umask, fsynced, then put in place; the folder is fsynced after. A reader never
 * sees a half-written file, and a temp file left by a killed writer is recognised by its name.
 */

/* Write text to path atomically, replacing what is there. FF_ERR_IO + reason. */
int ff_write_atomic(const char *path, const char *text, char *err, size_t errlen);
/*
 * Write text to a new file: path when no file has that name, else path with "-2", "-3", ...
 * before its extension ("p.json" -> "p-2.json"); never replaces a file, even when two
 * processes pick the same name at once. The name used goes to `used` (may be NULL).
 */
int ff_write_unique(const char *path, const char *text, char *used, size_t usedlen, char *err,
                    size_t errlen);
/*
 * Remove our temp files (and temp folders) in dir whose writer is gone (its pid no longer
 * runs; owned by this user). *removed (may be NULL) gets the count. FF_ERR_IO when dir cannot be read.
 */
int ff_clean_stale_temps(const char *dir, unsigned *removed, char *err, size_t errlen);

/*
 * The same, relative to an open folder dfd (AT_FDCWD: the current folder), for writers that
 * must not follow a symbolic link out of their destination: name is looked up under dfd, the
 * temp file beside it is created with O_EXCL and never through a link, and the rename stays in
 * dfd. Names in messages are as given.
 */
int ff_write_atomic_at(int dfd, const char *name, const char *text, char *err, size_t errlen);
int ff_write_unique_at(int dfd, const char *name, const char *text, char *used, size_t usedlen,
                       char *err, size_t errlen);
/* Step one of ff_write_atomic_at, for a caller that renames later (two names swapped together):
 * a new temp file for name in dfd holding text, fsynced; tmp gets its name (relative to dfd).
 * The caller renames it or unlinks it. */
int ff_write_temp_at(int dfd, const char *name, const char *text, char *tmp, size_t tmplen,
                     char *err, size_t errlen);
/* A fresh temp name for base, ".<base>.tmp.<pid>.<seq>" (a temp folder's name too): what
 * ff_clean_stale_temps recognises. -1 when it does not fit n. */
int ff_temp_name(const char *base, char *dst, size_t n);
/* ff_clean_stale_temps on the open folder dfd; `label` names it in messages. A stale temp folder
 * (a writer that died while filling it) is removed with the files in it. */
int ff_clean_stale_temps_at(int dfd, const char *label, unsigned *removed, char *err,
                            size_t errlen);
/* Remove the temp folder `name` in dfd: the files in it (links unlinked, never followed), then
 * the folder. FF_ERR_IO when it is not empty after (a folder inside) or cannot be opened. */
int ff_remove_temp_dir_at(int dfd, const char *name);
/* Could path be written? FF_ERR_INVALID when it is a folder or another non-regular file,
 * FF_ERR_IO when no file can be created in its folder (creates and removes a temp file). */
int ff_check_writable(const char *path, char *err, size_t errlen);
/* mkdir -p: dir and every folder above it (0777 & ~umask); folders already there are fine.
 * FF_ERR_INVALID when dir is longer than 4095 bytes, FF_ERR_IO naming the folder that could not
 * be created. */
int ff_mkdir_p(const char *dir, char *err, size_t errlen);
/* Can files be created in the folder dir? FF_ERR_INVALID when it is not a folder. */
int ff_check_dir_writable(const char *dir, char *err, size_t errlen);

/* ---- physical limits of a device (bounds.c) ------------------------------------ */

/*
 * The highest matmul rate (FLOP/s; OP/s for int8) a device can physically reach in precision
 * p, from compute units x clock x a per-unit bound of arithmetic per cycle well above any part
 * shipping; `why` says how it was derived. CPU devices (type "cpu"): units = compute_units
 * (host_cpus when 0), clock = 2x the reported clock (6.5 GHz when unknown), per unit and cycle
 * 64 fp32 FLOP (two 16-lane AVX-512 FMAs), 128 fp16, 256 int8 OP (two VNNI units). Other
 * devices: clock = 2x reported (3 GHz when unknown), per unit and cycle 1024 fp32, 16384 fp16,
 * 32768 int8 (4x a Hopper/Blackwell SM's dense tensor rate); without a unit count (Vulkan, or
 * a CPU with neither count) 1 PFLOP/s fp32, 20 PFLOP/s fp16, 40 POP/s int8.
 */
double ff_bound_matmul_rate(const char *type, uint64_t compute_units, uint64_t clock_mhz,
                            uint64_t host_cpus, enum ff_precision p, char *why, size_t whylen);
/*
 * The highest memory bandwidth (B/s) a device can reach: for a device on host memory with the
 * host's streaming read measured here (host_read_bytes_per_s >= 0; 0: not measurable), 4x that
 * and at least 51.2 GB/s; otherwise (device memory, or no host measurement: a profile read on
 * another machine) 10 TB/s, above any HBM/GDDR memory.
 */
double ff_bound_bandwidth(bool host_shared_memory, double host_read_bytes_per_s, char *why,
                          size_t whylen);

/* ---- reading input files (read.c) ---------------------------------------------- */

/*
 * Read the whole of a regular file of at most max_bytes into a new buffer: *out (caller frees
 * with free(); NUL-terminated, the NUL not counted) and *len. `what` names the expected kind
 * in messages ("flopfit profile", "config.json"). Never blocks on a FIFO or device.
 * Returns 0; FF_ERR_IO (cannot open or read; not a regular file: a directory, FIFO or
 * device); FF_ERR_INVALID (larger than max_bytes); FF_ERR_NO_MEMORY. err names the path.
 */
int ff_read_file_capped(const char *path, size_t max_bytes, const char *what, char **out,
                        size_t *len, char *err, size_t errlen);
/* The same for `name` under the open folder dfd, never through a symbolic link (a link there
 * is FF_ERR_IO: cannot open). */
int ff_read_file_capped_at(int dfd, const char *name, size_t max_bytes, const char *what,
                           char **out, size_t *len, char *err, size_t errlen);

/*
 * Open a regular file for reading without ever blocking: opened with O_NONBLOCK (a FIFO would
 * otherwise wait for a writer), checked with fstat on that descriptor (no race with a rename),
 * then O_NONBLOCK cleared. *fd_out gets the descriptor (caller closes) and *size (may be NULL)
 * its size in bytes. With missing_ok a file that does not exist is FF_OK with *fd_out = -1.
 * Returns 0; FF_ERR_IO naming the path (cannot open; a directory, FIFO, device or socket, said
 * as such, with `what` the kind expected).
 */
int ff_open_regular(const char *path, const char *what, bool missing_ok, int *fd_out, int64_t *size,
                    char *err, size_t errlen);

#endif
