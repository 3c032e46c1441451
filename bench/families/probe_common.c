/* bench/families/probe_common.c — limits, plausibility bounds and word patterns of the probes. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ff_util.h"
#include "probe_common.h"
#include "check/host.h"

static uint64_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end == 'K')
        v *= 1024;
    else if (*end == 'M')
        v *= 1024 * 1024;
    else if (*end == 'G')
        v *= 1024 * 1024 * 1024;
    return v;
}

uint64_t ff_probe_host_llc_bytes(void)
{
    uint64_t best = 0;
    int best_level = 0;
    for (int i = 0; i < 8; i++) {
        char path[96], line[64];
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        int level = 0;
        if (fgets(line, sizeof(line), f))
            level = atoi(line);
        fclose(f);
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        f = fopen(path, "r");
        if (!f)
            continue;
        uint64_t size = 0;
        if (fgets(line, sizeof(line), f))
            size = parse_size(line);
        fclose(f);
        if (level > best_level || (level == best_level && size > best)) {
            best_level = level;
            best = size;
        }
    }
    return best;
}

uint64_t ff_probe_scratch_bytes(const struct ff_device_info *info, const struct ff_bench_cfg *cfg)
{
    uint64_t lim;
    if (info->host_shared_memory) {
        uint64_t avail = ff_host_available_bytes();
        lim = avail ? avail / 4 : 1 * FF_GIB;
    } else {
        lim = info->global_mem_bytes ? info->global_mem_bytes / 2 : 1 * FF_GIB;
    }
    if (cfg->memory_limit_bytes && cfg->memory_limit_bytes < lim)
        lim = cfg->memory_limit_bytes;
    return lim;
}

/* ---- host streaming bandwidth (the bound for host-shared devices) -------- */

struct host_bw_job {
    const uint64_t *p;
    size_t n;
    uint64_t sink;
};

static void *host_bw_thread(void *arg)
{
    struct host_bw_job *j = arg;
    uint64_t a = 0, b = 0, c = 0, d = 0;
    for (size_t i = 0; i + 4 <= j->n; i += 4) {
        a ^= j->p[i];
        b ^= j->p[i + 1];
        c ^= j->p[i + 2];
        d ^= j->p[i + 3];
    }
    j->sink = a ^ b ^ c ^ d;
    return NULL;
}

static double measure_host_bw(void)
{
    uint64_t llc = ff_probe_host_llc_bytes();
    uint64_t bytes = llc ? 4 * llc : 128 * FF_MIB;
    if (bytes < 64 * FF_MIB)
        bytes = 64 * FF_MIB;
    if (bytes > 512 * FF_MIB)
        bytes = 512 * FF_MIB;
    uint64_t avail = ff_host_available_bytes();
    if (avail && bytes > avail / 8)
        return 0;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    size_t nt = ncpu > 0 ? (size_t)ncpu : 1;
    if (nt > 64)
        nt = 64;
    uint64_t *buf = malloc(bytes);
    struct host_bw_job *jobs = calloc(nt, sizeof(*jobs));
    pthread_t *th = calloc(nt, sizeof(*th));
    double best = 0;
    if (!buf || !jobs || !th)
        goto error_alloc;
    size_t words = bytes / 8;
    for (size_t i = 0; i < words; i++)
        buf[i] = i * 0x9e3779b97f4a7c15ull;
    size_t per = words / nt / 4 * 4;
    for (int pass = 0; pass < 5; pass++) {
        uint64_t t0 = ff_now_ns();
        size_t started = 0;
        for (size_t t = 0; t < nt; t++) {
            jobs[t] = (struct host_bw_job){buf + t * per, per, 0};
            if (pthread_create(&th[t], NULL, host_bw_thread, &jobs[t]) != 0)
                break;
            started++;
        }
        for (size_t t = 0; t < started; t++)
            pthread_join(th[t], NULL);
        uint64_t ns = ff_now_ns() - t0;
        if (started == 0 || ns == 0)
            break;
        double bw = (double)(started * per * 8) / ((double)ns * 1e-9);
        if (bw > best)
            best = bw;
    }
error_alloc:
    free(th);
    free(jobs);
    free(buf);
    return best;
}

static double host_bw_cached = -1;

static void host_bw_once(void)
{
    host_bw_cached = measure_host_bw();
}

double ff_probe_host_read_bw(void)
{
    /* Measured once per process; --concurrent asks from one thread per device. */
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, host_bw_once);
    return host_bw_cached;
}

double ff_probe_bandwidth_limit(const struct ff_device_info *info, char *why, size_t whylen)
{
    /* the host's streaming rate is measured only for a device that streams through it */
    return ff_bound_bandwidth(info->host_shared_memory,
                              info->host_shared_memory ? ff_probe_host_read_bw() : -1, why, whylen);
}

enum ff_res_status ff_probe_status_of(int ret)
{
    return ret == FF_ERR_UNSUPPORTED ? FF_RES_UNSUPPORTED : FF_RES_FAILED;
}

void ff_probe_fail(struct ff_result *r, int ret, const char *what, const char *err)
{
    if (ret == FF_ERR_INTERRUPTED) {
        ff_result_interrupted(r);
        return;
    }
    if (ret == FF_ERR_UNSUPPORTED) {
        ff_result_fail(r, FF_RES_UNSUPPORTED, "%s", err);
        return;
    }
    ff_result_fail(r, FF_RES_FAILED, "%s%s%s: %s", what, what[0] ? ": " : "", ff_status_str(ret),
                   err);
}

void ff_probe_pattern(uint32_t *dst, size_t n, uint32_t value, uint32_t base)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = value ^ (base + (uint32_t)i);
}

size_t ff_probe_check_pattern(const uint32_t *w, size_t n, uint32_t value, uint32_t base)
{
    /* Branch-free blocks so the compiler vectorises; locate only on a miss. */
    const size_t block = 4096;
    for (size_t s = 0; s < n; s += block) {
        size_t e = s + block < n ? s + block : n;
        uint32_t bad = 0;
        for (size_t i = s; i < e; i++)
            bad |= w[i] ^ (value ^ (base + (uint32_t)i));
        if (bad) {
            for (size_t i = s; i < e; i++)
                if (w[i] != (value ^ (base + (uint32_t)i)))
                    return i;
        }
    }
    return SIZE_MAX;
}

void ff_probe_fill_random(uint32_t *dst, size_t n, struct ff_rng *rng)
{
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        uint64_t v = ff_rng_next(rng);
        dst[i] = (uint32_t)v;
        dst[i + 1] = (uint32_t)(v >> 32);
    }
    if (i < n)
        dst[i] = (uint32_t)ff_rng_next(rng) | 1u;
    if (n && dst[0] == 0)
        dst[0] = 1;
}

void ff_probe_fill_floats(float *dst, size_t n, struct ff_rng *rng)
{
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        uint64_t v = ff_rng_next(rng);
        dst[i] = (float)((int32_t)(uint32_t)v >> 8) * (1.0f / 8388608.0f);
        dst[i + 1] = (float)((int32_t)(uint32_t)(v >> 32) >> 8) * (1.0f / 8388608.0f);
    }
    if (i < n)
        dst[i] = 0.5f;
}

size_t ff_probe_first_diff(const uint32_t *a, const uint32_t *b, size_t n)
{
    const size_t block = 4096;
    for (size_t s = 0; s < n; s += block) {
        size_t e = s + block < n ? s + block : n;
        if (memcmp(a + s, b + s, (e - s) * 4) != 0) {
            for (size_t i = s; i < e; i++)
                if (a[i] != b[i])
                    return i;
        }
    }
    return SIZE_MAX;
}
