/*
 * bench/families/probe_common.h — what the memory, bandwidth, transfer and latency
 * probes share: how much memory they may take, the physical limits their
 * figures are checked against, fast patterns and checks over word arrays.
 */
#ifndef FF_PROBE_COMMON_H
#define FF_PROBE_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench.h"
#include "check/verify.h"

#define FF_MIB (1024ull * 1024)
#define FF_GIB (1024ull * 1024 * 1024)

/* Host last-level cache in bytes (sysfs); 0 when unknown. */
uint64_t ff_probe_host_llc_bytes(void);

/*
 * Bytes the bandwidth and transfer probes may hold on the device at once:
 * --memory-limit when given, else a quarter of the host's available memory
 * on host-shared devices, else half the reported global memory.
 */
uint64_t ff_probe_scratch_bytes(const struct ff_device_info *info, const struct ff_bench_cfg *cfg);

/*
 * Highest bandwidth (bytes read + written per second) that makes physical
 * sense on this device; `why` says where it comes from. Host-shared devices:
 * 4x the host's own streaming read bandwidth measured once per process (all
 * CPUs, a buffer past the last-level cache), at least 51.2 GB/s; discrete
 * devices: 10 TB/s, above any HBM/GDDR part shipping.
 */
double ff_probe_bandwidth_limit(const struct ff_device_info *info, char *why, size_t whylen);

/* Host streaming read bandwidth in B/s (measured once, cached); 0 if unknown. */
double ff_probe_host_read_bw(void);

/* FF_ERR_UNSUPPORTED -> unsupported, anything else -> failed. */
enum ff_res_status ff_probe_status_of(int ret);

/* Record a test that did not produce a figure. */
void ff_probe_fail(struct ff_result *r, int ret, const char *what, const char *err);

/* dst[i] = value ^ (base + i): the MEM_WRITE pattern. */
void ff_probe_pattern(uint32_t *dst, size_t n, uint32_t value, uint32_t base);
/*
 * Checks w[i] == value ^ (base + i) for every word. Returns the number of
 * the first bad word or SIZE_MAX when all match.
 */
size_t ff_probe_check_pattern(const uint32_t *w, size_t n, uint32_t value, uint32_t base);

/* Random words (never all zero) / random floats in [-1, 1). */
void ff_probe_fill_random(uint32_t *dst, size_t n, struct ff_rng *rng);
void ff_probe_fill_floats(float *dst, size_t n, struct ff_rng *rng);

/* Index of the first differing 32-bit word, SIZE_MAX when equal. */
size_t ff_probe_first_diff(const uint32_t *a, const uint32_t *b, size_t n);

/*
 * The bandwidth probe's verified runs, for the tuner (probe_bandwidth.c; tune/tune.c calls it): buffers of `words`
 * 32-bit words, random filled from seed; each run builds kernel id at point p (n == 0: the
 * backend's choice), poisons the output, times it with m and verifies what it left, as the
 * probe does. *rate is bytes read + written per second, checked against the physical limit.
 */
struct ff_bw_bench;
int ff_bw_bench_create(struct ff_device *dev, uint32_t words, uint64_t seed,
                       struct ff_bw_bench **out, char *err, size_t errlen);
struct ff_measure_cfg;
int ff_bw_bench_run(struct ff_bw_bench *b, enum ff_kernel_id id, const struct ff_tune_point *p,
                    const struct ff_measure_cfg *m, double *rate, char *err, size_t errlen);
void ff_bw_bench_destroy(struct ff_bw_bench **b);
/* The words per buffer the bandwidth probe uses on this device (its default memory limit). */
uint32_t ff_bw_bench_words(const struct ff_device_info *info, bool quick);

#endif
