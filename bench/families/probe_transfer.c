/*
 * bench/families/probe_transfer.c — host <-> device copies from pageable (malloc'd)
 * and pinned (staging) memory, through ff_buf_transfer_timed. Uploads are
 * read back and compared with what was sent; downloads are compared with
 * what the buffer holds. The time is the backend's wall time around the
 * blocking copy (staging copies excluded).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_common.h"

static const struct {
    enum ff_xfer kind;
    const char *name;
    bool upload;
} kinds[] = {
    {FF_XFER_UPLOAD_PAGEABLE, "upload_pageable", true},
    {FF_XFER_DOWNLOAD_PAGEABLE, "download_pageable", false},
    {FF_XFER_UPLOAD_PINNED, "upload_pinned", true},
    {FF_XFER_DOWNLOAD_PINNED, "download_pinned", false},
};
#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

struct xfer_ctx {
    struct ff_buf *buf;
    enum ff_xfer kind;
    void *host;
    uint64_t bytes;
};

static int run_xfer(void *arg, uint64_t *dns, uint64_t *wns, char *err, size_t errlen)
{
    struct xfer_ctx *c = arg;
    uint64_t ns = 0;
    int ret = ff_buf_transfer_timed(c->buf, c->kind, c->host, c->bytes, &ns, err, errlen);
    /* The backend times the copy alone; there is no separate device clock for it. */
    *dns = ns;
    *wns = ns;
    return ret;
}

static uint64_t transfer_bytes(const struct ff_device_info *info, const struct ff_bench_cfg *cfg)
{
    uint64_t want = info->host_shared_memory ? 64 * FF_MIB : 256 * FF_MIB;
    if (cfg->quick)
        want /= 4;
    uint64_t lim = ff_probe_scratch_bytes(info, cfg) / 2;
    if (want > lim)
        want = lim;
    if (info->max_alloc_bytes && want > info->max_alloc_bytes)
        want = info->max_alloc_bytes;
    return want / 4096 * 4096;
}

/* One kind: measure, then check the data moved intact. */
static void one_kind(size_t ki, struct ff_buf *buf, uint32_t *src, uint32_t *dst, uint64_t bytes,
                     const struct ff_bench_cfg *cfg, double limit, const char *why,
                     struct ff_result *r)
{
    char err[512] = "";
    size_t words = (size_t)(bytes / 4);
    struct xfer_ctx c = {buf, kinds[ki].kind, kinds[ki].upload ? (void *)src : (void *)dst, bytes};
    int ret;
    if (kinds[ki].upload)
        memset(dst, 0xA5, (size_t)bytes); /* poison the device copy first */
    else
        memset(dst, 0x5A, (size_t)bytes); /* poison where the download lands */
    if (kinds[ki].upload && (ret = ff_buf_write(buf, 0, dst, bytes, err, sizeof(err))) < 0) {
        ff_probe_fail(r, ret, "poisoning the buffer", err);
        return;
    }
    ret = ff_measure(&cfg->measure, run_xfer, &c, &r->t, err, sizeof(err));
    if (ret < 0) {
        ff_probe_fail(r, ret, "", err);
        return;
    }
    if (kinds[ki].upload && (ret = ff_buf_read(buf, 0, dst, bytes, err, sizeof(err))) < 0) {
        ff_probe_fail(r, ret, "reading back the upload", err);
        return;
    }
    size_t bad = ff_probe_first_diff(src, dst, words);
    if (bad != SIZE_MAX) {
        ff_result_fail(r, FF_RES_FAILED,
                       "%s data differs from what was sent: word %zu is 0x%08x, expected 0x%08x",
                       kinds[ki].upload ? "uploaded" : "downloaded", bad, dst[bad], src[bad]);
        return;
    }
    r->has_timing = true;
    r->verified = true;
    r->status = FF_RES_OK;
    r->value = (double)bytes / r->t.wall_median_s;
    ff_result_implausible(r, r->value, limit, why);
}

void ff_probe_transfer(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_run *p)
{
    const struct ff_device_info *info = ff_device_info(dev);
    char err[512] = "", why[160];
    uint64_t bytes = transfer_bytes(info, cfg);
    struct ff_result *res[N_KINDS];
    size_t base = p->n_results;
    for (size_t i = 0; i < N_KINDS; i++)
        if (!ff_run_add(p)) {
            p->n_results = base; /* out of host memory: no half-made records */
            return;
        }
    /* Pointers only once the list stops growing: adding may move it. */
    for (size_t i = 0; i < N_KINDS; i++) {
        res[i] = &p->results[base + i];
        ff_result_set(res[i], "transfer", kinds[i].name, "flopfit");
        snprintf(res[i]->unit, sizeof(res[i]->unit), "B/s");
        res[i]->bytes = bytes;
    }
    /* A PCIe 6.0 x16 link moves ~128 GB/s each way; shared memory is bounded like bandwidth. */
    double limit = 256e9;
    snprintf(why, sizeof(why), "2x a PCIe 6.0 x16 link");
    if (info->host_shared_memory)
        limit = ff_probe_bandwidth_limit(info, why, sizeof(why));

    if (bytes < 4096) {
        for (size_t i = 0; i < N_KINDS; i++)
            ff_result_fail(res[i], FF_RES_FAILED,
                           "no room for a transfer buffer under the "
                           "memory limit");
        return;
    }
    uint32_t *src = malloc((size_t)bytes), *dst = malloc((size_t)bytes);
    struct ff_buf *buf = NULL;
    int ret = FF_OK;
    if (!src || !dst) {
        ret = ff_errf(err, sizeof(err), FF_ERR_NO_MEMORY, "no host memory for %llu bytes",
                      (unsigned long long)bytes);
        goto error_host;
    }
    struct ff_rng rng;
    ff_rng_seed(&rng, cfg->seed ^ 0x7472616e73666572ull);
    ff_probe_fill_random(src, (size_t)(bytes / 4), &rng);
    if ((ret = ff_buf_create(dev, bytes, &buf, err, sizeof(err))) < 0)
        goto error_host;
    /* Downloads need the reference data on the device whatever the uploads did. */
    if ((ret = ff_buf_write(buf, 0, src, bytes, err, sizeof(err))) < 0)
        goto error_buf;

    char size[32];
    ff_fmt_bytes_bin(size, sizeof(size), (double)bytes);
    for (size_t i = 0; i < N_KINDS && !ff_interrupted; i++) {
        ff_progress(cfg, "%s: %s", info->name, kinds[i].name);
        snprintf(res[i]->variant, sizeof(res[i]->variant),
                 "%s blocking copy, %s memory on the host, host-timed", size,
                 i >= 2 ? "pinned/staging" : "pageable");
        one_kind(i, buf, src, dst, bytes, cfg, limit, why, res[i]);
        /* An upload that failed mid-way may leave the buffer changed: restore it. */
        if (kinds[i].upload && res[i]->status != FF_RES_OK &&
            (ret = ff_buf_write(buf, 0, src, bytes, err, sizeof(err))) < 0) {
            for (size_t j = i + 1; j < N_KINDS; j++)
                ff_probe_fail(res[j], ret, "restoring the buffer", err);
            break;
        }
    }
    for (size_t i = 0; i < N_KINDS; i++)
        if (ff_interrupted && res[i]->status == FF_RES_OK && !res[i]->has_timing)
            ff_result_interrupted(res[i]);
    ret = FF_OK;
error_buf:
    ff_buf_destroy(&buf);
error_host:
    free(dst);
    free(src);
    if (ret < 0)
        for (size_t i = 0; i < N_KINDS; i++)
            ff_probe_fail(res[i], ret, "", err);
}
