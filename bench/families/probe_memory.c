/*
 * bench/families/probe_memory.c — usable device memory: bytes actually allocated,
 * written with a pattern and read back intact, every byte checked.
 *
 * Chunks of min(max allocation, 1 GiB) (smaller under small caps) are added
 * while they succeed; when one fails (allocation, fill, read-back or check)
 * the probe bisects: it retries with half the size down to a granularity,
 * keeping every chunk that passed. A failure there is the normal end of the
 * probe, not an error. The device writes the pattern (MEM_WRITE: word i =
 * value ^ i, a new value per chunk; a host write when the backend has no
 * such kernel) and the host reads each chunk back through a staging buffer
 * and checks every word.
 *
 * Never take the host down: on devices whose memory is host RAM the probe is
 * capped at 3/4 of the host's available memory at the start, and before each
 * chunk the host's available memory is read again so that a quarter of the
 * start value always stays free. --memory-limit replaces the cap (the live
 * host check stays). The probe is also bounded in time: TIME_LIMIT_S by
 * default so the probe set stays within ~30 s a device, longer when
 * --memory-limit says how much to try.
 * Everything allocated is freed on every path.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "families.h"
#include "probe_common.h"
#include "check/host.h"

#define STAGING_BYTES            (32 * FF_MIB)
/*
 * Wall-time bound of the probe: first touches of fresh pages are slow on
 * some hosts (0.5 GB/s in a microVM), and the whole probe set must stay
 * within ~30 s per device. Stopping here is reported like a cap.
 */
#define TIME_LIMIT_S             10.0
#define QUICK_TIME_LIMIT_S       1.5
#define LIMIT_GIVEN_TIME_LIMIT_S 300.0 /* --memory-limit: the user asked for that much */
#define PAGE                     4096ull

struct mem_state {
    struct ff_device *dev;
    struct ff_buf **bufs; /* chunks that passed */
    size_t n_bufs, cap_bufs;
    uint32_t *staging;
    uint64_t staging_bytes;
    struct ff_kernel *fill; /* MEM_WRITE built for fill_n words, or NULL */
    uint32_t fill_n;
    bool host_fill; /* no MEM_WRITE on this device: write from the host */
    struct ff_rng rng;
};

static int fill_device(struct mem_state *s, struct ff_buf *b, uint32_t n, uint32_t value, char *err,
                       size_t errlen)
{
    if (!s->fill || s->fill_n != n) {
        /* Kernels are built for one size; chunks change size only when bisecting. */
        ff_kernel_destroy(&s->fill);
        struct ff_kernel_desc desc = {.id = FF_KERNEL_MEM_WRITE, .n = n};
        int ret = ff_kernel_create(s->dev, &desc, &s->fill, err, errlen);
        if (ret < 0)
            return ret;
        s->fill_n = n;
    }
    return ff_kernel_run(s->fill, &b, 1, &value, 1, NULL, NULL, err, errlen);
}

static int fill_host(struct mem_state *s, struct ff_buf *b, uint64_t bytes, uint32_t value,
                     char *err, size_t errlen)
{
    for (uint64_t off = 0; off < bytes; off += s->staging_bytes) {
        uint64_t len = bytes - off < s->staging_bytes ? bytes - off : s->staging_bytes;
        ff_probe_pattern(s->staging, (size_t)(len / 4), value, (uint32_t)(off / 4));
        int ret = ff_buf_write(b, off, s->staging, len, err, errlen);
        if (ret < 0)
            return ret;
    }
    return FF_OK;
}

/* Allocate, fill and check one chunk; keep it on success. */
static int try_chunk(struct mem_state *s, uint64_t bytes, char *err, size_t errlen)
{
    struct ff_buf *b = NULL;
    uint32_t value = (uint32_t)ff_rng_next(&s->rng);
    int ret;
    if (s->n_bufs == s->cap_bufs) {
        size_t cap = s->cap_bufs ? 2 * s->cap_bufs : 64;
        struct ff_buf **nb = realloc(s->bufs, cap * sizeof(*nb));
        if (!nb)
            return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "out of host memory");
        s->bufs = nb;
        s->cap_bufs = cap;
    }
    if ((ret = ff_buf_create(s->dev, bytes, &b, err, errlen)) < 0)
        return ret;
    if (!s->host_fill) {
        char kerr[256] = "";
        ret = fill_device(s, b, (uint32_t)(bytes / 4), value, kerr, sizeof(kerr));
        if (ret == FF_ERR_UNSUPPORTED || ret == FF_ERR_BUILD) {
            s->host_fill = true; /* no fill kernel here: the host writes the pattern */
        } else if (ret < 0) {
            snprintf(err, errlen, "filling: %s", kerr);
            goto error_buf;
        }
    }
    if (s->host_fill && (ret = fill_host(s, b, bytes, value, err, errlen)) < 0)
        goto error_buf;
    for (uint64_t off = 0; off < bytes; off += s->staging_bytes) {
        uint64_t len = bytes - off < s->staging_bytes ? bytes - off : s->staging_bytes;
        if ((ret = ff_buf_read(b, off, s->staging, len, err, errlen)) < 0)
            goto error_buf;
        size_t bad =
            ff_probe_check_pattern(s->staging, (size_t)(len / 4), value, (uint32_t)(off / 4));
        if (bad != SIZE_MAX) {
            uint32_t i = (uint32_t)(off / 4 + bad);
            ret = ff_errf(err, errlen, FF_ERR_VERIFY,
                          "read back 0x%08x at byte %llu of a %llu-byte chunk, wrote 0x%08x",
                          s->staging[bad], (unsigned long long)(off + 4 * bad),
                          (unsigned long long)bytes, value ^ i);
            goto error_buf;
        }
    }
    s->bufs[s->n_bufs++] = b;
    return FF_OK;

error_buf:
    ff_buf_destroy(&b);
    return ret;
}

static uint64_t page_down(uint64_t x)
{
    return x / PAGE * PAGE;
}

void ff_probe_memory(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_run *p)
{
    const struct ff_device_info *info = ff_device_info(dev);
    struct ff_result *r = ff_run_add(p);
    if (!r)
        return;
    ff_result_set(r, "memory", "usable", "flopfit");
    snprintf(r->unit, sizeof(r->unit), "B");

    /* What the driver says: global memory, or the budget when it says more. */
    uint64_t reported = info->global_mem_bytes;
    if (info->budget_bytes > reported)
        reported = info->budget_bytes;

    /* The cap, and why. */
    char cap_why[128], sz[32];
    uint64_t cap;
    uint64_t avail0 = info->host_shared_memory ? ff_host_available_bytes() : 0;
    uint64_t reserve = avail0 / 4;
    if (cfg->memory_limit_bytes) {
        cap = cfg->memory_limit_bytes;
        ff_fmt_bytes_bin(sz, sizeof(sz), (double)cap);
        snprintf(cap_why, sizeof(cap_why), "--memory-limit %s", sz);
    } else if (info->host_shared_memory && avail0) {
        cap = avail0 / 4 * 3;
        ff_fmt_bytes_bin(sz, sizeof(sz), (double)cap);
        snprintf(cap_why, sizeof(cap_why), "3/4 of the host's available memory (%s)", sz);
    } else if (info->host_shared_memory || !reported) {
        cap = reported ? reported : 1 * FF_GIB;
        snprintf(cap_why, sizeof(cap_why), "host memory unknown: the reported size");
    } else {
        /* Past VRAM a driver may spill into host memory; that is not device memory. */
        cap = reported;
        snprintf(cap_why, sizeof(cap_why), "the driver-reported size");
    }
    if (cfg->quick && cap > 512 * FF_MIB && !cfg->memory_limit_bytes) {
        cap = 512 * FF_MIB;
        snprintf(cap_why, sizeof(cap_why), "--quick (512 MiB)");
    }
    cap = page_down(cap);

    /* Chunks: at most the max allocation and 1 GiB; at least 16 per cap when small. */
    uint64_t chunk = 1 * FF_GIB;
    if (info->max_alloc_bytes && chunk > info->max_alloc_bytes)
        chunk = info->max_alloc_bytes;
    if (chunk > cap / 16)
        chunk = cap / 16 > 16 * FF_MIB ? cap / 16 : 16 * FF_MIB;
    if (chunk > cap)
        chunk = cap;
    if (chunk > 4ull * 0x7fffffff)
        chunk = 4ull * 0x7fffffff; /* MEM_WRITE counts words in 32 bits */
    chunk = page_down(chunk);
    uint64_t gran = page_down(chunk / 16) > PAGE ? page_down(chunk / 16) : PAGE;

    struct mem_state s = {.dev = dev};
    ff_rng_seed(&s.rng, cfg->seed ^ 0x6d656d6f7279ull);
    s.staging_bytes = chunk < STAGING_BYTES ? chunk : STAGING_BYTES;
    s.staging = s.staging_bytes ? malloc((size_t)s.staging_bytes) : NULL;

    char stop[200] = "", first_fail[200] = "";
    bool capped = false, timed_out = false;
    uint64_t total = 0, want = chunk;
    uint64_t t0 = ff_now_ns();
    double time_limit_s = cfg->memory_limit_bytes ? LIMIT_GIVEN_TIME_LIMIT_S
                          : cfg->quick            ? QUICK_TIME_LIMIT_S
                                                  : TIME_LIMIT_S;
    if (!s.staging) {
        ff_result_fail(r, FF_RES_FAILED, "%s",
                       chunk ? "out of host memory for the staging buffer"
                             : "the cap leaves no room for a chunk");
        goto error_staging;
    }

    while (!ff_interrupted) {
        uint64_t room = cap - total;
        if (room < PAGE) {
            capped = true;
            snprintf(stop, sizeof(stop), "stopped by the cap: %s", cap_why);
            break;
        }
        uint64_t size = page_down(want < room ? want : room);
        /* Stop before a chunk that would end past the limit at the rate so far. */
        double elapsed = (double)(ff_now_ns() - t0) * 1e-9;
        double next_s = total && elapsed > 0 ? (double)size / ((double)total / elapsed) : 0;
        if (elapsed + next_s > time_limit_s) {
            capped = timed_out = true;
            snprintf(stop, sizeof(stop), "stopped by the time limit of %.1f s", time_limit_s);
            break;
        }
        if (info->host_shared_memory && avail0) {
            /* Re-check the host as the probe grows: others may be using memory too. */
            uint64_t avail = ff_host_available_bytes();
            uint64_t spare = avail > reserve ? page_down(avail - reserve) : 0;
            if (spare < size) {
                if (spare < gran || spare < PAGE) {
                    capped = true;
                    ff_fmt_bytes_bin(sz, sizeof(sz), (double)avail);
                    snprintf(stop, sizeof(stop),
                             "stopped by the host: %s available, a quarter of the start value "
                             "kept free",
                             sz);
                    break;
                }
                size = spare;
            }
        }
        ff_progress(cfg, "%s: usable memory %.2f GiB + %.0f MiB", info->name,
                    (double)total / FF_GIB, (double)size / FF_MIB);
        char err[256] = "";
        int ret = try_chunk(&s, size, err, sizeof(err));
        if (ret == FF_OK) {
            total += size;
            continue;
        }
        if (!first_fail[0]) {
            ff_fmt_bytes_bin(sz, sizeof(sz), (double)size);
            ff_msgf(first_fail, sizeof(first_fail), "a %s chunk failed: %s", sz, err);
        }
        if (size <= gran) {
            snprintf(stop, sizeof(stop), "%s", first_fail);
            break;
        }
        want = page_down(size / 2); /* bisect the last chunk */
    }
    double secs = (double)(ff_now_ns() - t0) * 1e-9;

    /* Free everything before recording: the host gets its memory back now. */
    for (size_t i = s.n_bufs; i-- > 0;)
        ff_buf_destroy(&s.bufs[i]);
    ff_kernel_destroy(&s.fill);

    if (ff_interrupted && !stop[0]) {
        ff_result_interrupted(r);
    } else if (total == 0) {
        ff_result_fail(r, FF_RES_FAILED, "not even one chunk could be used: %s",
                       first_fail[0] ? first_fail : stop);
    } else {
        r->status = FF_RES_OK;
        r->verified = true;
        r->value = (double)total;
        r->bytes = total;
        char csz[32];
        ff_fmt_bytes_bin(csz, sizeof(csz), (double)chunk);
        ff_msgf(r->variant, sizeof(r->variant), "%s chunks, %s pattern, every byte read back; %s",
                csz, s.host_fill ? "host-written" : "device-written", stop);
    }
    ff_result_extra(r, "reported_bytes", (double)reported, false);
    if (r->status == FF_RES_OK)
        ff_result_extra(r, "difference_bytes", (double)total - (double)reported, false);
    ff_result_extra(r, "cap_bytes", (double)cap, false);
    ff_result_extra(r, "capped", capped, true);
    ff_result_extra(r, "chunk_bytes", (double)chunk, false);
    ff_result_extra(r, "time_limited", timed_out, true);
    ff_result_extra(r, "probe_s", secs, false);

error_staging:
    free(s.staging);
    free(s.bufs);
}

/* The report's note: what the driver claims, and what stopped the probe. */
void ff_probe_memory_note(const struct ff_run *p, const struct ff_result *r, char *dst, size_t n)
{
    (void)p;
    char drv[32] = "?";
    const char *stop = "";
    for (size_t x = 0; x < r->n_extra; x++) {
        if (strcmp(r->extra[x].key, "reported_bytes") == 0)
            ff_fmt_bytes_bin(drv, sizeof(drv), r->extra[x].value);
        else if (strcmp(r->extra[x].key, "time_limited") == 0 && r->extra[x].value)
            stop = "; stopped by the time limit";
        else if (strcmp(r->extra[x].key, "capped") == 0 && r->extra[x].value && !*stop)
            stop = "; stopped by the cap";
    }
    snprintf(dst, n, "driver reports %s%s", drv, stop);
}
