/*
 * bench/families/probe_bandwidth.c — device memory bandwidth: read, write, copy and
 * triad (a = b + 3c) over buffers several times the last-level cache, random
 * filled, timed by ff_measure on device time. Bytes read + written count.
 * Every figure is verified (read: the XOR of its out words against the CPU's
 * XOR of the source; write: the whole pattern; copy: dst == src; triad: every
 * element) and checked against a physical limit before it is published.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_common.h"

enum bw_test { BW_READ, BW_WRITE, BW_COPY, BW_TRIAD, BW_COUNT };

static const struct {
    const char *name;
    enum ff_kernel_id id;
    unsigned words_moved; /* bytes per word of the buffer: reads + writes */
} tests[BW_COUNT] = {
    [BW_READ] = {"read", FF_KERNEL_MEM_READ, 1},
    [BW_WRITE] = {"write", FF_KERNEL_MEM_WRITE, 1},
    [BW_COPY] = {"copy", FF_KERNEL_MEM_COPY, 2},
    [BW_TRIAD] = {"triad", FF_KERNEL_MEM_TRIAD, 3},
};

struct bw_state {
    struct ff_device *dev;
    const struct ff_bench_cfg *cfg;
    uint32_t n;               /* words per buffer */
    uint64_t bytes;           /* bytes per buffer */
    struct ff_buf *x, *y, *z; /* x, z: random inputs; y: output */
    uint32_t *hx, *hz, *hy;   /* host copies of x and z, read-back of y */
    uint32_t x_xor;           /* XOR of every word of x */
    struct ff_rng rng;
    double limit;
    char why[160];
    char size_note[96];
};

struct run_ctx {
    struct ff_kernel *k;
    struct ff_buf *bufs[3];
    size_t n_bufs;
    uint32_t params[1];
    size_t n_params;
};

static int run_once(void *arg, uint64_t *dns, uint64_t *wns, char *err, size_t errlen)
{
    struct run_ctx *r = arg;
    return ff_kernel_run(r->k, r->bufs, r->n_bufs, r->params, r->n_params, dns, wns, err, errlen);
}

/* Per-buffer size: several times the cache, within max_alloc and the limits. */
static uint64_t buffer_bytes(const struct ff_device_info *info, const struct ff_bench_cfg *cfg,
                             char *note, size_t notelen)
{
    uint64_t llc = info->host_shared_memory ? ff_probe_host_llc_bytes() : 0;
    uint64_t want;
    if (info->host_shared_memory) {
        /* --quick: 2x the cache, not 4x: first touches of host pages can be slow. */
        want = llc ? (cfg->quick ? 2 : 4) * llc : 128 * FF_MIB;
        if (want < 64 * FF_MIB)
            want = 64 * FF_MIB;
        if (want > 512 * FF_MIB)
            want = 512 * FF_MIB;
    } else {
        /* Past any GPU L2 / infinity cache, 4x the largest shipping one. */
        want = cfg->quick ? 256 * FF_MIB : 1 * FF_GIB;
    }
    const char *bound = "";
    uint64_t b = want;
    if (info->max_alloc_bytes && b > info->max_alloc_bytes) {
        b = info->max_alloc_bytes;
        bound = ", bounded by max allocation";
    }
    uint64_t scratch = ff_probe_scratch_bytes(info, cfg) / 3;
    if (b > scratch) {
        b = scratch;
        bound = cfg->memory_limit_bytes ? ", bounded by --memory-limit"
                                        : ", bounded by available memory";
    }
    if (b > 4ull * 0x7fffffff)
        b = 4ull * 0x7fffffff;
    b = b >= 4 * FF_MIB ? b / FF_MIB * FF_MIB : b / 4096 * 4096;
    char sz[32], c[32];
    ff_fmt_bytes_bin(sz, sizeof(sz), (double)b);
    /* Formatted whole, then cut to notelen. */
    char full[192];
    if (llc) {
        ff_fmt_bytes_bin(c, sizeof(c), (double)llc);
        snprintf(full, sizeof(full), "buffers of %s (%.1fx the %s LLC%s)", sz, (double)b / llc, c,
                 bound);
    } else {
        snprintf(full, sizeof(full), "buffers of %s%s", sz, bound);
    }
    ff_strlcpy(note, full, notelen);
    return b;
}

static void set_ok(struct bw_state *s, struct ff_result *r, uint64_t bytes_moved)
{
    r->bytes = bytes_moved;
    r->has_timing = true;
    r->verified = true;
    r->status = FF_RES_OK;
    double t = r->t.dev_median_s > 0 ? r->t.dev_median_s : r->t.wall_median_s;
    r->value = (double)bytes_moved / t;
    ff_result_extra(r, "limit_bytes_per_s", s->limit, false);
    ff_result_implausible(r, r->value, s->limit, s->why);
}

static int check_triad(const struct bw_state *s, char *err, size_t errlen)
{
    const float *a = (const float *)s->hy, *b = (const float *)s->hx, *c = (const float *)s->hz;
    for (size_t i = 0; i < s->n; i++) {
        float want = b[i] + 3.0f * c[i];
        /* Contracted into an FMA or not, the error stays within an ulp or two. */
        float tol = 4e-7f * (fabsf(b[i]) + 3.0f * fabsf(c[i])) + 1e-30f;
        if (!(fabsf(a[i] - want) <= tol))
            return ff_errf(err, errlen, FF_ERR_VERIFY,
                           "a[%zu] = %.9g, expected b + 3c = %.9g (b %.9g, c %.9g)", i,
                           (double)a[i], (double)want, (double)b[i], (double)c[i]);
    }
    return FF_OK;
}

/* Poisons y so a kernel that writes nothing cannot pass. */
static int poison_y(struct bw_state *s, char *err, size_t errlen)
{
    memset(s->hy, 0xff, (size_t)s->bytes);
    return ff_buf_write(s->y, 0, s->hy, s->bytes, err, errlen);
}

/* One test at point `tune` (n == 0: the backend's choice), timed with m. */
static void one_test(struct bw_state *s, enum bw_test t, struct ff_result *r,
                     const struct ff_tune_point *tune, const struct ff_measure_cfg *mcfg)
{
    char err[512] = "";
    struct ff_kernel_desc desc = {.id = tests[t].id, .n = s->n};
    if (tune)
        desc.tune = *tune;
    struct run_ctx rc = {0};
    struct ff_buf *out = NULL;
    uint32_t *hout = NULL;
    uint64_t out_words = 0;
    int ret = ff_kernel_create(s->dev, &desc, &rc.k, err, sizeof(err));
    if (ret < 0) {
        ff_probe_fail(r, ret, "building the kernel", err);
        return;
    }
    if (snprintf(r->variant, sizeof(r->variant), "%s; %s", ff_kernel_variant(rc.k), s->size_note) >=
        (int)sizeof(r->variant))
        r->variant[sizeof(r->variant) - 1] = 0; /* a shortened description is fine */

    switch (t) {
    case BW_READ:
        out_words = ff_kernel_out_words(rc.k);
        if (out_words == 0 || out_words > s->n) {
            ret = ff_errf(err, sizeof(err), FF_ERR_DEVICE,
                          "the read kernel reports %llu out words for %u input words",
                          (unsigned long long)out_words, s->n);
            break;
        }
        hout = malloc((size_t)out_words * 4);
        if (!hout) {
            ret = ff_errf(err, sizeof(err), FF_ERR_NO_MEMORY, "out of host memory");
            break;
        }
        memset(hout, 0xff, (size_t)out_words * 4);
        if ((ret = ff_buf_create(s->dev, out_words * 4, &out, err, sizeof(err))) < 0 ||
            (ret = ff_buf_write(out, 0, hout, out_words * 4, err, sizeof(err))) < 0)
            break;
        rc.bufs[0] = s->x;
        rc.bufs[1] = out;
        rc.n_bufs = 2;
        break;
    case BW_WRITE:
        rc.params[0] = (uint32_t)ff_rng_next(&s->rng) | 0x80000001u;
        rc.n_params = 1;
        rc.bufs[0] = s->y;
        rc.n_bufs = 1;
        ret = poison_y(s, err, sizeof(err));
        break;
    case BW_COPY:
        rc.bufs[0] = s->x;
        rc.bufs[1] = s->y;
        rc.n_bufs = 2;
        ret = poison_y(s, err, sizeof(err));
        break;
    case BW_TRIAD:
        rc.bufs[0] = s->y;
        rc.bufs[1] = s->x;
        rc.bufs[2] = s->z;
        rc.n_bufs = 3;
        ret = poison_y(s, err, sizeof(err));
        break;
    default: break;
    }
    if (ret < 0) {
        ff_probe_fail(r, ret, "preparing the buffers", err);
        goto error_prep;
    }

    ret = ff_measure(mcfg, run_once, &rc, &r->t, err, sizeof(err));
    if (ret < 0) {
        ff_probe_fail(r, ret, "", err);
        goto error_prep;
    }

    /* Verify what the timed runs left behind. */
    if (t == BW_READ) {
        ret = ff_buf_read(out, 0, hout, out_words * 4, err, sizeof(err));
        uint32_t x = 0;
        for (uint64_t i = 0; ret == FF_OK && i < out_words; i++)
            x ^= hout[i];
        if (ret == FF_OK && x != s->x_xor)
            ret = ff_errf(err, sizeof(err), FF_ERR_VERIFY,
                          "XOR of the %llu out words is 0x%08x, the source's is 0x%08x",
                          (unsigned long long)out_words, x, s->x_xor);
    } else {
        ret = ff_buf_read(s->y, 0, s->hy, s->bytes, err, sizeof(err));
        if (ret == FF_OK && t == BW_WRITE) {
            size_t bad = ff_probe_check_pattern(s->hy, s->n, rc.params[0], 0);
            if (bad != SIZE_MAX)
                ret = ff_errf(err, sizeof(err), FF_ERR_VERIFY,
                              "word %zu is 0x%08x, expected value ^ index = 0x%08x", bad,
                              s->hy[bad], rc.params[0] ^ (uint32_t)bad);
        } else if (ret == FF_OK && t == BW_COPY) {
            size_t bad = ff_probe_first_diff(s->hy, s->hx, s->n);
            if (bad != SIZE_MAX)
                ret =
                    ff_errf(err, sizeof(err), FF_ERR_VERIFY,
                            "dst word %zu is 0x%08x, src has 0x%08x", bad, s->hy[bad], s->hx[bad]);
        } else if (ret == FF_OK) {
            ret = check_triad(s, err, sizeof(err));
        }
    }
    if (ret < 0) {
        ff_probe_fail(r, ret, ret == FF_ERR_VERIFY ? "wrong result" : "reading the result", err);
        goto error_prep;
    }
    set_ok(s, r, (uint64_t)s->n * 4 * tests[t].words_moved + out_words * 4);

error_prep:
    ff_buf_destroy(&out);
    free(hout);
    ff_kernel_destroy(&rc.k);
}

/* Host copies and device buffers of s->bytes each: x and z random, x's XOR, the limit. */
static int bw_setup(struct bw_state *s, uint64_t seed, char *err, size_t errlen)
{
    int ret;
    s->limit = ff_probe_bandwidth_limit(ff_device_info(s->dev), s->why, sizeof(s->why));
    ff_rng_seed(&s->rng, seed ^ 0x62616e6477696474ull);
    s->hx = malloc((size_t)s->bytes);
    s->hz = malloc((size_t)s->bytes);
    s->hy = malloc((size_t)s->bytes);
    if (!s->hx || !s->hz || !s->hy)
        return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "no host memory for 3 x %llu bytes",
                       (unsigned long long)s->bytes);
    /* Random floats double as random words for read and copy. */
    ff_probe_fill_floats((float *)s->hx, s->n, &s->rng);
    ff_probe_fill_floats((float *)s->hz, s->n, &s->rng);
    s->x_xor = 0;
    for (uint32_t i = 0; i < s->n; i++)
        s->x_xor ^= s->hx[i];
    if ((ret = ff_buf_create(s->dev, s->bytes, &s->x, err, errlen)) < 0 ||
        (ret = ff_buf_create(s->dev, s->bytes, &s->y, err, errlen)) < 0 ||
        (ret = ff_buf_create(s->dev, s->bytes, &s->z, err, errlen)) < 0 ||
        (ret = ff_buf_write(s->x, 0, s->hx, s->bytes, err, errlen)) < 0 ||
        (ret = ff_buf_write(s->z, 0, s->hz, s->bytes, err, errlen)) < 0)
        return ret;
    return FF_OK;
}

static void bw_teardown(struct bw_state *s)
{
    ff_buf_destroy(&s->z);
    ff_buf_destroy(&s->y);
    ff_buf_destroy(&s->x);
    free(s->hy);
    free(s->hz);
    free(s->hx);
    s->hx = s->hy = s->hz = NULL;
}

/* ---- the tuner's hook (probe_common.h) ---- */

struct ff_bw_bench {
    struct bw_state s;
};

int ff_bw_bench_create(struct ff_device *dev, uint32_t words, uint64_t seed,
                       struct ff_bw_bench **out, char *err, size_t errlen)
{
    *out = NULL;
    if (words < 1024 || words % 1024)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "bandwidth buffers of %u words (a positive multiple of 1024 expected)",
                       words);
    struct ff_bw_bench *b = calloc(1, sizeof(*b));
    if (!b)
        return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "out of host memory");
    b->s.dev = dev;
    b->s.n = words;
    b->s.bytes = (uint64_t)words * 4;
    int ret = bw_setup(&b->s, seed, err, errlen);
    if (ret < 0) {
        bw_teardown(&b->s);
        free(b);
        return ret;
    }
    *out = b;
    return FF_OK;
}

int ff_bw_bench_run(struct ff_bw_bench *b, enum ff_kernel_id id, const struct ff_tune_point *p,
                    const struct ff_measure_cfg *m, double *rate, char *err, size_t errlen)
{
    int t = 0;
    while (t < BW_COUNT && tests[t].id != id)
        t++;
    if (t == BW_COUNT)
        return ff_errf(err, errlen, FF_ERR_INVALID, "not a bandwidth kernel");
    struct ff_result r = {0};
    snprintf(r.unit, sizeof(r.unit), "B/s");
    one_test(&b->s, (enum bw_test)t, &r, p, m);
    if (r.interrupted)
        return ff_errf(err, errlen, FF_ERR_INTERRUPTED, "interrupted");
    if (r.status != FF_RES_OK)
        return ff_errf(err, errlen,
                       r.status == FF_RES_UNSUPPORTED ? FF_ERR_UNSUPPORTED
                       : r.verified                   ? FF_ERR_VERIFY
                                                      : FF_ERR_DEVICE,
                       "%s", r.reason);
    *rate = r.value;
    return FF_OK;
}

uint32_t ff_bw_bench_words(const struct ff_device_info *info, bool quick)
{
    struct ff_bench_cfg cfg;
    ff_bench_cfg_defaults(&cfg);
    cfg.quick = quick;
    char note[96];
    uint64_t w = buffer_bytes(info, &cfg, note, sizeof(note)) / 4 / 1024 * 1024;
    return w < 1024 ? 1024 : (uint32_t)w;
}

void ff_bw_bench_destroy(struct ff_bw_bench **b)
{
    if (!b || !*b)
        return;
    bw_teardown(&(*b)->s);
    free(*b);
    *b = NULL;
}

void ff_probe_bandwidth(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_run *p)
{
    const struct ff_device_info *info = ff_device_info(dev);
    struct bw_state s = {.dev = dev, .cfg = cfg};
    char err[512] = "";
    int ret = FF_OK;

    size_t base = p->n_results;
    for (int t = 0; t < BW_COUNT; t++) {
        if (!ff_run_add(p)) {
            p->n_results = base; /* out of host memory: no half-made records */
            return;
        }
    }
    /* Pointers only once the list stops growing: adding may move it. */
    struct ff_result *res = &p->results[base];
    for (int t = 0; t < BW_COUNT; t++) {
        ff_result_set(&res[t], "bandwidth", tests[t].name, "flopfit");
        snprintf(res[t].unit, sizeof(res[t].unit), "B/s");
    }

    ff_progress(cfg, "%s: bandwidth set-up", info->name);
    s.bytes = buffer_bytes(info, cfg, s.size_note, sizeof(s.size_note));
    s.n = (uint32_t)(s.bytes / 4);
    if (s.n < 1024) {
        ret = ff_errf(err, sizeof(err), FF_ERR_DEVICE_MEMORY,
                      "no room for three 4 KiB buffers under the memory limit");
        goto error_host;
    }
    if ((ret = bw_setup(&s, cfg->seed, err, sizeof(err))) < 0)
        goto error_host;

    struct ff_measure_cfg m = cfg->measure;
    if (cfg->quick && m.min_reps > 2)
        m.min_reps = 2; /* slow devices (lavapipe: ~0.5 GB/s) take a second a run */
    for (int t = 0; t < BW_COUNT; t++) {
        if (ff_interrupted) {
            ff_result_interrupted(&res[t]);
            continue;
        }
        ff_progress(cfg, "%s: bandwidth %s", info->name, tests[t].name);
        struct ff_kernel_desc d = {.id = tests[t].id, .n = s.n};
        ff_bench_apply_tuning(cfg, dev, &d, &res[t]);
        one_test(&s, (enum bw_test)t, &res[t], &d.tune, &m);
    }

error_host:
    bw_teardown(&s);
    if (ret < 0)
        for (int t = 0; t < BW_COUNT; t++)
            ff_probe_fail(&res[t], ret, "allocating the buffers", err);
}
