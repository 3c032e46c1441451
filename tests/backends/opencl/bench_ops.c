/*
 * The OpenCL op kernels' speed (Meson benchmark()): per op and shape the median device time,
 * the bytes the op must move, GB/s and that as a fraction of the device's read bandwidth,
 * measured in the same run by the bandwidth kernel (FF_KERNEL_MEM_READ, its default point,
 * 128 MiB). The bytes are the roofline's: W + S + X + Y for gemv, K + V for attention, every
 * buffer for the small ops.
 *
 *   bench_ops [--reps N] [--only gemv|attn|small] [--tune POINT] [--cold] [--chain C] [ROUNDS]
 *
 * --cold reads the inputs cold, as `flopfit bench` times gemv and decode attention: each run
 * takes the next of enough copies of the input buffers to pass the ops family's rotation
 * (ff_suite_ops_rotate_bytes: twice the last-level cache), so no run finds its weights or KV
 * in the cache.
 *
 * --tune POINT builds every case selected at that point of its tuning space, named whole or in
 * part ("parts=4"): the parameters it does not name are the case's default point's.
 *
 * Each case is timed as `flopfit bench` times it on OpenCL: a run is a chain of launches back
 * to back (--chain C, default FF_OPCHECK_CHAIN, at least one per copy of the inputs), each
 * launch's own device time summed (ff_kernel_run_sets) and divided by their number.
 * --chain 0 times every launch alone, waited for (PoCL's workers then sleep in between).
 *
 * Each round measures the read bandwidth again and then every case, so bandwidth and ops are
 * interleaved on a shared machine. Prints the figures; fails only on errors.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "check/opcheck.h"
#include "families/bench.h"

struct op_case {
    const char *label;
    struct ff_kernel_desc d;
};

/* One op at its shape (the members of its descriptor, in braces where it is used): m, n, k,
 * g as backend.h describes them for the kernel. */
#define OP(id_, prec_, m_, n_, k_, g_)                                                             \
    .id = (id_), .prec = (prec_), .m = (m_), .n = (n_), .k = (k_), .g = (g_)

static const struct op_case cases[] = {
    {"gemv q4_0 4096x4096", {OP(FF_KERNEL_GEMV, FF_PREC_Q4_0, 1, 4096, 4096, 0)}},
    {"gemv q4_0 11008x4096", {OP(FF_KERNEL_GEMV, FF_PREC_Q4_0, 1, 11008, 4096, 0)}},
    {"gemv q4_0 4096x11008", {OP(FF_KERNEL_GEMV, FF_PREC_Q4_0, 1, 4096, 11008, 0)}},
    {"gemv q4_0 32000x4096", {OP(FF_KERNEL_GEMV, FF_PREC_Q4_0, 1, 32000, 4096, 0)}},
    /* llama.cpp's test-backend-ops perf shape (MUL_MAT m=4096, n=1, k=14336) */
    {"gemv q4_0 4096x14336", {OP(FF_KERNEL_GEMV, FF_PREC_Q4_0, 1, 4096, 14336, 0)}},
    {"gemv q8_0 4096x4096", {OP(FF_KERNEL_GEMV, FF_PREC_Q8_0, 1, 4096, 4096, 0)}},
    {"gemv q8_0 11008x4096", {OP(FF_KERNEL_GEMV, FF_PREC_Q8_0, 1, 11008, 4096, 0)}},
    {"gemv q8_0 4096x11008", {OP(FF_KERNEL_GEMV, FF_PREC_Q8_0, 1, 4096, 11008, 0)}},
    {"gemv q8_0 32000x4096", {OP(FF_KERNEL_GEMV, FF_PREC_Q8_0, 1, 32000, 4096, 0)}},
    {"gemv q8_0 4096x14336", {OP(FF_KERNEL_GEMV, FF_PREC_Q8_0, 1, 4096, 14336, 0)}},
    {"gemv int8 4096x4096", {OP(FF_KERNEL_GEMV, FF_PREC_INT8, 1, 4096, 4096, 0)}},
    {"gemv fp16 4096x4096", {OP(FF_KERNEL_GEMV, FF_PREC_FP16, 1, 4096, 4096, 0)}},
    {"gemv bf16 4096x4096", {OP(FF_KERNEL_GEMV, FF_PREC_BF16, 1, 4096, 4096, 0)}},
    {"gemv fp32 4096x4096", {OP(FF_KERNEL_GEMV, FF_PREC_FP32, 1, 4096, 4096, 0)}},
    {"attn_decode fp16 m32 g4 L512", {OP(FF_KERNEL_ATTN_DECODE, FF_PREC_FP16, 32, 512, 128, 4)}},
    {"attn_decode fp16 m32 g4 L4096", {OP(FF_KERNEL_ATTN_DECODE, FF_PREC_FP16, 32, 4096, 128, 4)}},
    {"attn_decode fp16 m32 g1 L512", {OP(FF_KERNEL_ATTN_DECODE, FF_PREC_FP16, 32, 512, 128, 1)}},
    {"attn_decode fp16 m32 g1 L4096", {OP(FF_KERNEL_ATTN_DECODE, FF_PREC_FP16, 32, 4096, 128, 1)}},
    {"attn_decode fp16 m32 g8 d64 L4096",
     {OP(FF_KERNEL_ATTN_DECODE, FF_PREC_FP16, 32, 4096, 64, 8)}},
    {"attn_decode fp32 m32 g4 L4096", {OP(FF_KERNEL_ATTN_DECODE, FF_PREC_FP32, 32, 4096, 128, 4)}},
    {"attn_decode bf16 m32 g4 L4096", {OP(FF_KERNEL_ATTN_DECODE, FF_PREC_BF16, 32, 4096, 128, 4)}},
    /* llama.cpp's test-backend-ops perf shape (FLASH_ATTN_EXT hsk=hsv=64, nh=8, nr23=[8,1],
     * kv=7680, nb=1, fp16 K and V) */
    {"attn_decode fp16 m64 g8 d64 L7680",
     {OP(FF_KERNEL_ATTN_DECODE, FF_PREC_FP16, 64, 7680, 64, 8)}},
    /* one KV head (multi-query attention, or a tensor-parallel shard): fewer heads than
     * cores, where the positions' parts spread it */
    {"attn_decode fp16 m8 g8 d128 L8192",
     {OP(FF_KERNEL_ATTN_DECODE, FF_PREC_FP16, 8, 8192, 128, 8)}},
    {"attn_prefill fp16 m32 g4 n512", {OP(FF_KERNEL_ATTN_PREFILL, FF_PREC_FP16, 32, 512, 128, 4)}},
    {"rmsnorm 64x4096", {OP(FF_KERNEL_RMSNORM, FF_PREC_FP32, 64, 4096, 0, 0)}},
    {"rope 64x32x128", {OP(FF_KERNEL_ROPE, FF_PREC_FP32, 2048, 128, 0, 32)}},
    {"swiglu 64x11008", {OP(FF_KERNEL_SWIGLU, FF_PREC_FP32, 64, 11008, 0, 0)}},
    {"add 64x4096", {OP(FF_KERNEL_ADD, FF_PREC_FP32, 64, 4096, 0, 0)}},
    {"xent 64x32000", {OP(FF_KERNEL_XENT, FF_PREC_FP32, 64, 32000, 0, 0)}},
};
#define N_CASES (sizeof(cases) / sizeof(cases[0]))

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Median device time of reps runs after one warm-up; 0 on error (printed). Run i uses the
 * buffers bufs + (i mod sets) * nb. */
static uint64_t time_kernel(struct ff_kernel *k, struct ff_buf *const *bufs, size_t nb, size_t sets,
                            const uint32_t *params, size_t np, int reps, uint32_t chain)
{
    uint64_t t[64];
    char err[512] = "";
    if (reps > 64)
        reps = 64;
    for (int i = -1; i < reps; i++) {
        uint64_t dev_ns = 0, wall_ns = 0;
        struct ff_buf *const *b = bufs + (size_t)(i + 1) % sets * nb;
        /* with `chain`: that many launches back to back over every set, each launch's own
         * time summed */
        const int ret =
            chain ? ff_kernel_run_sets(k, bufs, nb, sets, params, np, chain, &dev_ns, &wall_ns, err,
                                       sizeof(err))
                  : ff_kernel_run(k, b, nb, params, np, &dev_ns, &wall_ns, err, sizeof(err));
        if (ret < 0) {
            fprintf(stderr, "run: %s\n", err);
            return 0;
        }
        if (i >= 0)
            t[i] = chain ? dev_ns / chain : dev_ns;
    }
    qsort(t, (size_t)reps, sizeof(t[0]), cmp_u64);
    return t[reps / 2];
}

/* Fills buffer i of op d with data its kernel accepts: fp16 and bf16 as finite values of
 * about 0.01 .. 1, GGUF scales likewise, labels below n, everything else random bytes or
 * floats in [-1, 1]. */
static int fill(struct ff_device *dev, const struct ff_kernel_desc *d, uint32_t i,
                struct ff_buf *buf, uint64_t bytes, uint32_t seed)
{
    uint8_t *h = malloc(bytes);
    if (!h)
        return -1;
    uint32_t s = seed * 2654435761u + 1;
    bool f32 = (d->id == FF_KERNEL_GEMV && (i == 0 || (i == 1 && d->prec == FF_PREC_FP32) ||
                                            (i == 2 && d->prec == FF_PREC_INT8))) ||
               (d->id != FF_KERNEL_GEMV && (d->prec == FF_PREC_FP32 || i == 0));
    bool f16 = (d->id == FF_KERNEL_GEMV &&
                ((i == 1 && d->prec == FF_PREC_FP16) ||
                 (i == 2 && (d->prec == FF_PREC_Q8_0 || d->prec == FF_PREC_Q4_0)))) ||
               (d->id >= FF_KERNEL_ATTN_DECODE && d->id <= FF_KERNEL_ATTN_PREFILL &&
                d->prec == FF_PREC_FP16 && i > 0);
    bool b16 = d->prec == FF_PREC_BF16 && (d->id == FF_KERNEL_GEMV ? i == 1 : i == 1 || i == 2);
    for (uint64_t j = 0; j < bytes / 4; j++) {
        s = s * 1664525u + 1013904223u;
        uint32_t r = s >> 8;
        uint32_t w;
        if (d->id == FF_KERNEL_XENT && i == 1)
            w = r % d->n;
        else if (f16)
            w = (0x2000u + (r & 0x17ffu)) | ((0x2000u + ((r >> 12) & 0x17ffu)) << 16);
        else if (b16)
            w = (0x3c00u + (r & 0x3ffu)) | ((0x3c00u + ((r >> 12) & 0x3ffu)) << 16);
        else if (f32) {
            float f = (float)r / 8388608.0f - 1.0f;
            memcpy(&w, &f, 4);
        } else
            w = s;
        memcpy(h + j * 4, &w, 4);
    }
    char err[256];
    int ret = ff_buf_write(buf, 0, h, bytes / 4 * 4, err, sizeof(err));
    free(h);
    (void)dev;
    return ret;
}

/* Bytes of the roofline: every buffer, less Q and O for attention (K + V dominate). */
static uint64_t roof_bytes(const struct ff_kernel_desc *d)
{
    uint64_t b = 0;
    for (uint32_t i = 0; i < FF_MAX_BUFS; i++) {
        bool attn = d->id == FF_KERNEL_ATTN_DECODE || d->id == FF_KERNEL_ATTN_PREFILL;
        if (attn && (i == 0 || i == 3))
            continue;
        if (d->id == FF_KERNEL_GEMV && i == 2 && ff_op_buf_bytes(d, 2, NULL) == 4 &&
            d->prec != FF_PREC_INT8)
            continue;
        b += ff_op_buf_bytes(d, i, NULL);
    }
    return b;
}

static double read_bandwidth(struct ff_device *dev, uint64_t bytes, int reps)
{
    char err[512] = "";
    struct ff_kernel_desc d = {.id = FF_KERNEL_MEM_READ, .n = (uint32_t)(bytes / 4)};
    struct ff_kernel *k = NULL;
    struct ff_buf *b[2] = {NULL, NULL};
    double gbs = 0;
    if (ff_kernel_create(dev, &d, &k, err, sizeof(err)) < 0 ||
        ff_buf_create(dev, (uint64_t)d.n * 4, &b[0], err, sizeof(err)) < 0 ||
        ff_buf_create(dev, ff_kernel_out_words(k) * 4, &b[1], err, sizeof(err)) < 0) {
        fprintf(stderr, "read bandwidth: %s\n", err);
        goto done;
    }
    fill(dev, &(struct ff_kernel_desc){.id = FF_KERNEL_ADD, .prec = FF_PREC_FP32}, 0, b[0],
         (uint64_t)d.n * 4, 7);
    uint64_t ns = time_kernel(k, b, 2, 1, NULL, 0, reps, 0);
    if (ns)
        gbs = (double)d.n * 4 / (double)ns;
done:
    ff_buf_destroy(&b[1]);
    ff_buf_destroy(&b[0]);
    ff_kernel_destroy(&k);
    return gbs;
}

#define MAX_SETS 64

static int parse_point(struct ff_device *dev, struct ff_kernel_desc *d, const char *text)
{
    struct ff_tune_space s;
    char err[256];
    if (ff_kernel_space(dev, d, &s, err, sizeof(err)) < 0)
        return 0; /* no space: the point does not apply */
    if (ff_tune_point_parse_over(&s, text, &s.dflt, &d->tune, err, sizeof(err)) < 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int rounds = 3, reps = 9;
    const char *only = NULL, *tune = NULL;
    bool cold = false;
    size_t chain = FF_OPCHECK_CHAIN;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--reps") == 0 && a + 1 < argc)
            reps = atoi(argv[++a]);
        else if (strcmp(argv[a], "--only") == 0 && a + 1 < argc)
            only = argv[++a];
        else if (strcmp(argv[a], "--cold") == 0)
            cold = true;
        else if (strcmp(argv[a], "--chain") == 0 && a + 1 < argc)
            chain = (size_t)atoi(argv[++a]);
        else if (strcmp(argv[a], "--tune") == 0 && a + 1 < argc)
            tune = argv[++a];
        else
            rounds = atoi(argv[a]);
    }
    char err[512] = "";
    const struct ff_backend *b = ff_backend_find("opencl");
    struct ff_device *dev = NULL;
    if (!b || ff_device_open(b, 0, &dev, err, sizeof(err)) < 0) {
        fprintf(stderr, "no OpenCL device: %s\n", b ? err : "backend not built");
        return 77;
    }
    printf("device: %s\n", ff_device_info(dev)->name);
    int status = 0;
    for (int r = 0; r < rounds; r++) {
        const uint64_t rb = cold ? ff_suite_ops_rotate_bytes() : 128u << 20;
        const double bw = read_bandwidth(dev, rb, reps);
        printf("round %d: read bandwidth %.1f GB/s (mem_read, %llu MiB)\n", r + 1, bw,
               (unsigned long long)(rb >> 20));
        for (size_t c = 0; c < N_CASES; c++) {
            struct ff_kernel_desc d = cases[c].d;
            if (only && !strstr(cases[c].label, only))
                continue;
            if (tune && parse_point(dev, &d, tune) < 0)
                return 2;
            struct ff_kernel *k = NULL;
            struct ff_buf *bufs[MAX_SETS * FF_MAX_BUFS] = {NULL};
            uint32_t nb = 0;
            size_t sets = 1;
            if (ff_kernel_create(dev, &d, &k, err, sizeof(err)) < 0) {
                printf("  %-32s %s\n", cases[c].label, err);
                status = 1;
                continue;
            }
            uint64_t all = 0;
            while (nb < FF_MAX_BUFS && ff_op_buf_bytes(&d, nb, NULL))
                all += ff_op_buf_bytes(&d, nb++, NULL);
            if (cold)
                sets = (size_t)((ff_suite_ops_rotate_bytes() + all - 1) / all);
            if (sets > MAX_SETS)
                sets = MAX_SETS;
            for (size_t i = 0; i < sets * nb; i++) {
                uint64_t bytes = ff_op_buf_bytes(&d, (uint32_t)(i % nb), NULL);
                if (ff_buf_create(dev, bytes, &bufs[i], err, sizeof(err)) < 0 ||
                    fill(dev, &d, (uint32_t)(i % nb), bufs[i], bytes, (uint32_t)(c * 8 + i)) < 0) {
                    fprintf(stderr, "%s: %s\n", cases[c].label, err);
                    status = 1;
                    goto next;
                }
            }
            const uint32_t params[3] = {d.m, d.n, d.id == FF_KERNEL_ROPE ? 100 : d.k};
            const uint32_t np = d.id == FF_KERNEL_GEMV || d.id == FF_KERNEL_ATTN_DECODE ||
                                        d.id == FF_KERNEL_ATTN_PREFILL || d.id == FF_KERNEL_ROPE
                                    ? 3
                                    : 2;
            uint64_t ns = time_kernel(k, bufs, nb, sets, params, np, reps,
                                      chain ? (uint32_t)(sets > chain ? sets : chain) : 0);
            if (!ns) {
                status = 1;
                goto next;
            }
            const uint64_t bytes = roof_bytes(&d);
            const double gbs = (double)bytes / (double)ns;
            printf("  %-32s %9.1f us %8.2f MB %7.1f GB/s %5.2f of read  %zu sets [%s]\n",
                   cases[c].label, (double)ns / 1e3, (double)bytes / 1e6, gbs,
                   bw > 0 ? gbs / bw : 0, sets, ff_kernel_variant(k));
            fflush(stdout);
        next:
            for (size_t i = 0; i < sets * nb; i++)
                ff_buf_destroy(&bufs[i]);
            ff_kernel_destroy(&k);
        }
    }
    ff_device_destroy(&dev);
    return status;
}
