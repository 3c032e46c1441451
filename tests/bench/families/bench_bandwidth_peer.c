/*
 * tests/bench/families/bench_bandwidth_peer.c — our read and copy bandwidth beside the clpeak method,
 * in the same process, on OpenCL device 0.
 *
 * clpeak is not packaged in Debian 12, so this reproduces its global-memory test: a
 * power-of-two float buffer up to the max allocation and clpeak's cap (512 MiB on GPUs,
 * 128 MiB on CPUs: its src/common/common.cpp), 16 loads per work-item with a global or a
 * local-size offset, float4/8/16 vectors, the largest work-group; its figure is the kernel
 * with the best median over the rounds (the best of the six within each round, a maximum of
 * noisy figures, is printed beside it). Rounds alternate peer and ours so both see the same
 * load, and each figure of ours is compared through the rounds' own ratios to the peer's best
 * kernel (their median), so a slow moment of a shared host that both met cancels. On a CPU
 * whose last-level cache could hold much of the 128 MiB buffer (260 MiB on the 2026 CI-class
 * Xeon), the figures at that size are partly the cache's and move with what the neighbours
 * leave in it, so both sides run again on 512 MiB, past the cache (the bench probe's own size),
 * and that comparison is the one that counts.
 *
 * Ours is shown three ways: the read probe as `flopfit bench` runs it (its built-in or tuned
 * point), the kernel's default point, and the best point of the bandwidth kernels' tuning
 * space (cl_mem_tuning.c) that this benchmark finds by a small search of its own on the
 * peer's buffer size: every vector width x work per item x layout at the runtime's work-group
 * once, the four best again three times interleaved (median), then every work-group size at
 * each of those four (median of 3). Each figure of ours is verified (READ: the XOR of the out
 * words against the source's; COPY: every word) and counts the bytes read and written. The
 * same search runs for COPY (the "read/copy" target), beside the peer's read figure.
 *
 * usage: bench_bandwidth_peer [--all] [--vulkan]   (--all prints every point measured;
 * --vulkan: the same search on Vulkan device 0, default against best, no peer there)
 * Exit status 1 when our best read point's median ratio to the peer (past the cache where the
 * cache is large) is below 0.9.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "families/bench.h"
#include "families/probe_common.h"

static const char *peer_src =
    "float r4(float4 s) { return s.x + s.y + s.z + s.w; }\n"
    "float r8(float8 s) { return r4(s.lo + s.hi); }\n"
    "float r16(float16 s) { return r8(s.lo + s.hi); }\n"
    "#define GLOBAL(T, R) __kernel void g_##T(__global const T *a, __global float *o) {\\\n"
    "  size_t id = get_global_id(0), gs = get_global_size(0); T s = (T)(0);\\\n"
    "  for (int i = 0; i < 16; i++) { s += a[id]; id += gs; }\\\n"
    "  o[get_global_id(0)] = R(s); }\n"
    "#define LOCAL(T, R) __kernel void l_##T(__global const T *a, __global float *o) {\\\n"
    "  size_t ls = get_local_size(0), id = get_group_id(0) * ls * 16 + get_local_id(0);\\\n"
    "  T s = (T)(0);\\\n"
    "  for (int i = 0; i < 16; i++) { s += a[id]; id += ls; }\\\n"
    "  o[get_global_id(0)] = R(s); }\n"
    "GLOBAL(float4, r4) GLOBAL(float8, r8) GLOBAL(float16, r16)\n"
    "LOCAL(float4, r4) LOCAL(float8, r8) LOCAL(float16, r16)\n";

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The clpeak-style kernels of peer_src and their vector widths. */
static const char *const peer_kernels[6] = {"g_float4", "g_float8", "g_float16",
                                            "l_float4", "l_float8", "l_float16"};
static const size_t peer_width[6] = {4, 8, 16, 4, 8, 16};

/* One round of the six clpeak-style kernels: each one's median GB/s in gbs[k] (0 where it
 * failed); returns the best of them. */
static double peer_round(cl_context ctx, cl_command_queue q, cl_program prog, cl_mem a, cl_mem o,
                         size_t bytes, size_t wg, double gbs[6])
{
    double best = 0;
    (void)ctx;
    for (int k = 0; k < 6; k++) {
        gbs[k] = 0;
        cl_int rc;
        cl_kernel kern = clCreateKernel(prog, peer_kernels[k], &rc);
        if (!kern)
            return 0;
        clSetKernelArg(kern, 0, sizeof(a), &a);
        clSetKernelArg(kern, 1, sizeof(o), &o);
        size_t global = bytes / 4 / peer_width[k] / 16, local = wg;
        while (global % local)
            local /= 2;
        double t[6];
        int n = 0;
        for (int r = 0; r < 7; r++) {
            cl_event ev;
            if (clEnqueueNDRangeKernel(q, kern, 1, NULL, &global, &local, 0, NULL, &ev))
                break;
            clWaitForEvents(1, &ev);
            cl_ulong t0 = 0, t1 = 0;
            clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(t0), &t0, NULL);
            clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(t1), &t1, NULL);
            clReleaseEvent(ev);
            if (r > 0) /* the first run warms up */
                t[n++] = (double)(t1 - t0) * 1e-9;
        }
        clReleaseKernel(kern);
        if (n == 0)
            continue;
        qsort(t, (size_t)n, sizeof(t[0]), cmp);
        gbs[k] = (double)bytes / t[n / 2] * 1e-9;
        if (gbs[k] > best)
            best = gbs[k];
    }
    return best;
}

/* ---- our kernels at a given point ---- */

struct bw_bufs {
    struct ff_buf *src, *dst, *out;
    uint32_t n;       /* words */
    uint32_t src_xor; /* XOR of every source word */
    uint32_t *host;   /* n words scratch */
};

static uint32_t pattern(uint32_t i)
{
    return i * 2654435761u ^ 0x9e3779b9u;
}

static int bufs_init(struct ff_device *dev, uint32_t n, struct bw_bufs *b, char *err, size_t errlen)
{
    memset(b, 0, sizeof(*b));
    b->n = n;
    b->host = malloc((size_t)n * 4);
    if (!b->host)
        return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "out of host memory");
    for (uint32_t i = 0; i < n; i++) {
        b->host[i] = pattern(i);
        b->src_xor ^= b->host[i];
    }
    int ret = ff_buf_create(dev, (uint64_t)n * 4, &b->src, err, errlen);
    if (ret == FF_OK)
        ret = ff_buf_create(dev, (uint64_t)n * 4, &b->dst, err, errlen);
    if (ret == FF_OK)
        ret = ff_buf_create(dev, (uint64_t)n * 4, &b->out, err, errlen);
    if (ret == FF_OK)
        ret = ff_buf_write(b->src, 0, b->host, (uint64_t)n * 4, err, errlen);
    return ret;
}

static void bufs_finish(struct bw_bufs *b)
{
    ff_buf_destroy(&b->src);
    ff_buf_destroy(&b->dst);
    ff_buf_destroy(&b->out);
    free(b->host);
}

/* Median GB/s (bytes read + written) of kernel id at point p (n == 0: the default), verified;
 * 0 with the reason in err when it does not build, run or verify. */
static double ours_point(struct ff_device *dev, struct bw_bufs *b, enum ff_kernel_id id,
                         const struct ff_tune_point *p, char *err, size_t errlen)
{
    struct ff_kernel_desc desc = {.id = id, .n = b->n};
    if (p)
        desc.tune = *p;
    struct ff_kernel *k = NULL;
    if (ff_kernel_create(dev, &desc, &k, err, errlen) < 0)
        return 0;
    const bool read = id == FF_KERNEL_MEM_READ;
    uint64_t out_words = ff_kernel_out_words(k);
    struct ff_buf *args[2] = {b->src, read ? b->out : b->dst};
    double t[7];
    int n = 0, ret = FF_OK;
    /* Poison the destination so a lazy point cannot pass on old data. */
    memset(b->host, 0xa5, (size_t)b->n * 4);
    ret = ff_buf_write(args[1], 0, b->host, (read ? out_words : b->n) * 4, err, errlen);
    for (int r = 0; r < 7 && ret == FF_OK; r++) {
        uint64_t dns = 0, wns = 0;
        ret = ff_kernel_run(k, args, 2, NULL, 0, &dns, &wns, err, errlen);
        if (ret == FF_OK && r > 0) /* the first run warms up */
            t[n++] = (double)dns * 1e-9;
    }
    if (ret == FF_OK)
        ret = ff_buf_read(args[1], 0, b->host, (read ? out_words : b->n) * 4, err, errlen);
    if (ret == FF_OK && read) {
        uint32_t x = 0;
        for (uint64_t i = 0; i < out_words; i++)
            x ^= b->host[i];
        if (x != b->src_xor)
            ret = ff_errf(err, errlen, FF_ERR_VERIFY,
                          "read: XOR of out words 0x%08x, expected 0x%08x", x, b->src_xor);
    } else if (ret == FF_OK) {
        for (uint32_t i = 0; i < b->n; i++)
            if (b->host[i] != pattern(i)) {
                ret =
                    ff_errf(err, errlen, FF_ERR_VERIFY, "copy: word %u is 0x%08x, expected 0x%08x",
                            i, b->host[i], pattern(i));
                break;
            }
    }
    ff_kernel_destroy(&k);
    if (ret < 0 || n == 0)
        return 0;
    qsort(t, (size_t)n, sizeof(t[0]), cmp);
    uint64_t bytes = read ? (uint64_t)b->n * 4 + out_words * 4 : (uint64_t)b->n * 8;
    return (double)bytes / t[n / 2] * 1e-9;
}

/* Candidates of the search's last pass: each of its best four at every work-group size. */
#define PASS3_MAX (4 * FF_TUNE_MAX_VALUES)

/* Median of three interleaved measurements of each candidate. */
static void remeasure(struct ff_device *dev, struct bw_bufs *b, enum ff_kernel_id id,
                      const struct ff_tune_point *cand, size_t n, double *gbs)
{
    char err[512];
    double t[PASS3_MAX][3];
    for (int r = 0; r < 3; r++)
        for (size_t c = 0; c < n; c++)
            t[c][r] = ours_point(dev, b, id, &cand[c], err, sizeof(err));
    for (size_t c = 0; c < n; c++) {
        qsort(t[c], 3, sizeof(double), cmp);
        gbs[c] = t[c][1];
    }
}

/* The best point of id's space by the search described at the top; *best_gbs its figure. */
static int search(struct ff_device *dev, struct bw_bufs *b, enum ff_kernel_id id, bool all,
                  struct ff_tune_point *best, double *best_gbs)
{
    struct ff_kernel_desc desc = {.id = id, .n = b->n};
    struct ff_tune_space s;
    char err[512] = "", text[128];
    const char *what = id == FF_KERNEL_MEM_READ ? "read" : "copy";
    if (ff_kernel_space(dev, &desc, &s, err, sizeof(err)) < 0) {
        fprintf(stderr, "no bandwidth space: %s\n", err);
        return -1;
    }
    /* pass 1: vw x epi x layout at the runtime's work-group (parameter order: vw, epi,
     * layout, wg; cl_mem_tuning.c and vk_mem_tuning.c); keep the TOP best single
     * measurements */
    enum { TOP = 4 };
    struct ff_tune_point top[TOP];
    double topg[TOP] = {0};
    /* the store kernels' fifth parameter (nt, OpenCL): both values */
    const uint32_t n_nt = s.n_params > 4 ? s.param[4].n_values : 1;
    for (uint32_t a = 0; a < s.param[0].n_values; a++)
        for (uint32_t c = 0; c < s.param[1].n_values; c++)
            for (uint32_t ln = 0; ln < s.param[2].n_values * n_nt; ln++) {
                struct ff_tune_point p = s.dflt;
                if (s.n_params > 4)
                    p.v[4] = s.param[4].values[ln / s.param[2].n_values];
                p.v[0] = s.param[0].values[a];
                p.v[1] = s.param[1].values[c];
                p.v[2] = s.param[2].values[ln % s.param[2].n_values];
                /* the runtime's work-group where the space has one (0), else the default */
                p.v[3] = s.param[3].values[0] == 0 ? 0 : s.dflt.v[3];
                desc.tune = p;
                if (ff_kernel_point_check(dev, &desc, err, sizeof(err)) < 0)
                    continue;
                double g = ours_point(dev, b, id, &p, err, sizeof(err));
                if (all) {
                    ff_tune_point_format(&s, &p, text, sizeof(text));
                    printf("  %s %-36s %6.1f GB/s%s%s\n", what, text, g, g > 0 ? "" : "  ",
                           g > 0 ? "" : err);
                }
                for (int t = 0; t < TOP; t++)
                    if (g > topg[t]) {
                        memmove(&top[t + 1], &top[t], sizeof(top[0]) * (TOP - 1 - t));
                        memmove(&topg[t + 1], &topg[t], sizeof(topg[0]) * (TOP - 1 - t));
                        top[t] = p;
                        topg[t] = g;
                        break;
                    }
            }
    /* pass 2: the candidates again, three times interleaved, median */
    int n_top = 0;
    while (n_top < TOP && topg[n_top] > 0)
        n_top++;
    if (n_top == 0) {
        fprintf(stderr, "%s: no point of the space verified\n", what);
        return -1;
    }
    remeasure(dev, b, id, top, (size_t)n_top, topg);
    int bi = 0;
    for (int t = 1; t < n_top; t++)
        if (topg[t] > topg[bi])
            bi = t;
    /* pass 3: every work-group size at each candidate, again three times interleaved (a
     * layout's best group size differs: clpeak's own group-block kernel runs the largest) */
    struct ff_tune_point wgp[PASS3_MAX];
    double wgg[PASS3_MAX];
    size_t n_wg = 0;
    for (int c = 0; c < n_top; c++)
        for (uint32_t w = 0; w < s.param[3].n_values && n_wg < PASS3_MAX; w++) {
            struct ff_tune_point p = top[c];
            p.v[3] = s.param[3].values[w];
            desc.tune = p;
            if (p.v[3] != top[c].v[3] &&
                ff_kernel_point_check(dev, &desc, err, sizeof(err)) == FF_OK)
                wgp[n_wg++] = p;
        }
    remeasure(dev, b, id, wgp, n_wg, wgg);
    *best = top[bi];
    *best_gbs = topg[bi];
    for (size_t w = 0; w < n_wg; w++) {
        if (all) {
            ff_tune_point_format(&s, &wgp[w], text, sizeof(text));
            printf("  %s %-36s %6.1f GB/s (median of 3)\n", what, text, wgg[w]);
        }
        if (wgg[w] > *best_gbs) {
            *best_gbs = wgg[w];
            *best = wgp[w];
        }
    }
    return 0;
}

/* The read probe as `flopfit bench` runs it; its buffer note ("buffers of ...") in size. */
static double ours_round(struct ff_device *dev, const struct ff_bench_cfg *cfg, double *limit,
                         char *size, size_t sizelen)
{
    struct ff_run p = {0};
    ff_probe_bandwidth(dev, cfg, &p);
    double v = 0;
    for (size_t i = 0; i < p.n_results; i++) {
        const struct ff_result *r = &p.results[i];
        if (!strcmp(r->name, "read")) {
            if (r->status == FF_RES_OK)
                v = r->value * 1e-9;
            else
                fprintf(stderr, "our read: %s\n", r->reason);
            const char *note = strrchr(r->variant, ';');
            snprintf(size, sizelen, "%s", note ? note + 2 : "?");
            for (size_t e = 0; e < r->n_extra; e++)
                if (!strcmp(r->extra[e].key, "limit_bytes_per_s"))
                    *limit = r->extra[e].value * 1e-9;
        }
    }
    ff_run_finish(&p);
    return v;
}

/* --vulkan: no peer there; the default and the best point of Vulkan device 0's spaces. */
static int vulkan_only(bool all)
{
    const struct ff_backend *vk = ff_backend_find("vulkan");
    struct ff_device *dev = NULL;
    char err[512] = "";
    if (!vk || ff_device_open(vk, 0, &dev, err, sizeof(err)) < 0) {
        fprintf(stderr, "no Vulkan device: %s\n", err);
        return 77;
    }
    const uint32_t n = 1u << 25; /* 128 MiB, clpeak's CPU size */
    struct bw_bufs bb;
    if (bufs_init(dev, n, &bb, err, sizeof(err)) < 0) {
        fprintf(stderr, "flopfit buffers: %s\n", err);
        ff_device_destroy(&dev);
        return 1;
    }
    static const enum ff_kernel_id ids[] = {FF_KERNEL_MEM_READ, FF_KERNEL_MEM_COPY};
    for (int i = 0; i < 2; i++) {
        struct ff_kernel_desc d = {.id = ids[i], .n = n};
        struct ff_tune_space s;
        struct ff_tune_point best;
        double g = 0;
        if (ff_kernel_space(dev, &d, &s, err, sizeof(err)) < 0 ||
            search(dev, &bb, ids[i], all, &best, &g) < 0)
            continue;
        struct ff_tune_point pts[2] = {best, s.dflt};
        double gg[2];
        remeasure(dev, &bb, ids[i], pts, 2, gg);
        char tb[128], td[128];
        ff_tune_point_format(&s, &best, tb, sizeof(tb));
        ff_tune_point_format(&s, &s.dflt, td, sizeof(td));
        printf("%s %s: best %s %.2f GB/s, default %s %.2f GB/s (%.2fx; median of 3, verified)\n",
               ff_device_info(dev)->name, i ? "copy" : "read", tb, gg[0], td, gg[1], gg[0] / gg[1]);
    }
    bufs_finish(&bb);
    ff_device_destroy(&dev);
    return 0;
}

/* The peer's OpenCL objects, shared by the comparisons. */
struct peer {
    cl_context ctx;
    cl_command_queue q;
    cl_program prog;
    size_t max_wg;
};

/* What one comparison compares: our points and their formatted names. */
struct ours {
    struct ff_device *dev;
    const struct ff_bench_cfg *cfg;
    const struct ff_tune_point *best_read, *best_copy;
    const char *tr, *td, *tc, *tdc;
};

/*
 * ROUNDS rounds of the peer and ours on buffers of `bytes` (the peer's and ours alike), with
 * the bench probe beside them when `probe`; prints the summary. Returns the best read point's
 * median ratio to the peer's best kernel, 0 when nothing could run.
 */
static double compare(const struct peer *pe, const struct ours *us, size_t bytes, bool probe,
                      const char *why)
{
    char err[512] = "";
    cl_int rc;
    cl_mem a = clCreateBuffer(pe->ctx, CL_MEM_READ_ONLY, bytes, NULL, &rc);
    cl_mem o = clCreateBuffer(pe->ctx, CL_MEM_WRITE_ONLY, bytes / 16, NULL, &rc);
    float *h = malloc(bytes);
    struct bw_bufs bb = {0};
    const uint32_t n = (uint32_t)(bytes / 4);
    if (!a || !o || !h || bufs_init(us->dev, n, &bb, err, sizeof(err)) < 0) {
        fprintf(stderr, "buffers of %zu MiB: %s\n", bytes >> 20, err[0] ? err : "no memory");
        free(h);
        bufs_finish(&bb);
        if (o)
            clReleaseMemObject(o);
        if (a)
            clReleaseMemObject(a);
        return 0;
    }
    for (size_t i = 0; i < bytes / 4; i++)
        h[i] = (float)(i % 1024) * 0.001f;
    clEnqueueWriteBuffer(pe->q, a, CL_TRUE, 0, bytes, h, 0, NULL, NULL);
    free(h);

    enum { ROUNDS = 5 };
    double peer[ROUNDS], ours[ROUNDS] = {0}, rbest[ROUNDS], rdef[ROUNDS], cbest[ROUNDS],
                         cdef[ROUNDS];
    double per_kernel[ROUNDS][6];
    char probe_size[96] = "?";
    double limit = 0;
    printf("%zu MiB buffers (%s):\n", bytes >> 20, why);
    for (int r = 0; r < ROUNDS; r++) {
        /* the peer, then ours on the same size right after it, the bench probe (~1 s) last */
        peer[r] = peer_round(pe->ctx, pe->q, pe->prog, a, o, bytes, pe->max_wg, per_kernel[r]);
        rbest[r] = ours_point(us->dev, &bb, FF_KERNEL_MEM_READ, us->best_read, err, sizeof(err));
        rdef[r] = ours_point(us->dev, &bb, FF_KERNEL_MEM_READ, NULL, err, sizeof(err));
        cbest[r] = ours_point(us->dev, &bb, FF_KERNEL_MEM_COPY, us->best_copy, err, sizeof(err));
        cdef[r] = ours_point(us->dev, &bb, FF_KERNEL_MEM_COPY, NULL, err, sizeof(err));
        if (probe)
            ours[r] = ours_round(us->dev, us->cfg, &limit, probe_size, sizeof(probe_size));
        printf("round %d: clpeak-method read %.1f GB/s; flopfit read: %s%.1f%sbest %.1f, default "
               "%.1f; copy: best %.1f, default %.1f GB/s\n",
               r + 1, peer[r], probe ? "probe " : "", probe ? ours[r] : 0.0, probe ? ", " : "",
               rbest[r], rdef[r], cbest[r], cdef[r]);
    }
    bufs_finish(&bb);
    clReleaseMemObject(o);
    clReleaseMemObject(a);
    /* clpeak reports each kernel; its best is the kernel with the best median over the
     * rounds. The best kernel of each round would be the largest of six noisy figures, an
     * upward bias no single kernel of ours gets: that figure is printed, but not compared. */
    double kbest[ROUNDS] = {0};
    int kb = 0;
    for (int k = 0; k < 6; k++) {
        double col[ROUNDS];
        for (int r = 0; r < ROUNDS; r++)
            col[r] = per_kernel[r][k];
        qsort(col, ROUNDS, sizeof(double), cmp);
        if (col[ROUNDS / 2] > kbest[ROUNDS / 2]) {
            kb = k;
            memcpy(kbest, col, sizeof(col));
        }
    }
    /* Each row of ours against the peer's best kernel in the same round: the median of those
     * ratios is what is compared, so a slow moment of the shared host that both met cancels. */
    double *rows[] = {rbest, rdef, cbest, cdef, ours};
    static const char *const what[] = {"read, best point", "read, default", "copy, best point",
                                       "copy, default", "read, bench probe,"};
    const char *point[] = {us->tr, us->td, us->tc, us->tdc, probe_size};
    const int n_rows = probe ? 5 : 4;
    double ratio[5][ROUNDS];
    for (int i = 0; i < n_rows; i++)
        for (int r = 0; r < ROUNDS; r++)
            ratio[i][r] = per_kernel[r][kb] > 0 ? rows[i][r] / per_kernel[r][kb] : 0;
    for (int i = 0; i < n_rows; i++) {
        qsort(rows[i], ROUNDS, sizeof(double), cmp);
        qsort(ratio[i], ROUNDS, sizeof(double), cmp);
    }
    qsort(peer, ROUNDS, sizeof(double), cmp);
    const int m = ROUNDS / 2;
    printf("%s, %zu MiB, GB/s (bytes read + written, verified; median [min-max] of %d rounds; "
           "x peer: the median [min-max] of the rounds' own ratios to the peer's best kernel):\n",
           ff_device_info(us->dev)->name, bytes >> 20, ROUNDS);
    printf("  clpeak method (read, its best kernel, %s)  %5.1f [%.1f-%.1f]\n", peer_kernels[kb],
           kbest[m], kbest[0], kbest[ROUNDS - 1]);
    printf("  (the best of its six kernels in each round: %.1f [%.1f-%.1f], not compared)\n",
           peer[m], peer[0], peer[ROUNDS - 1]);
    for (int i = 0; i < n_rows; i++)
        printf("  flopfit %s %-34s %5.1f [%.1f-%.1f]  %.2fx peer [%.2f-%.2f]\n", what[i], point[i],
               rows[i][m], rows[i][0], rows[i][ROUNDS - 1], ratio[i][m], ratio[i][0],
               ratio[i][ROUNDS - 1]);
    printf("  best point over default: read %.2fx, copy %.2fx (medians)\n", rbest[m] / rdef[m],
           cbest[m] / cdef[m]);
    if (probe)
        printf("  physical limit %.1f GB/s\n", limit);
    return ratio[0][m];
}

int main(int argc, char **argv)
{
    bool all = false, vulkan = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--all") == 0)
            all = true;
        else if (strcmp(argv[i], "--vulkan") == 0)
            vulkan = true;
        else {
            fprintf(stderr,
                    "bench_bandwidth_peer: unknown argument '%s' (expected --all, --vulkan)\n",
                    argv[i]);
            return 2;
        }
    }
    if (vulkan)
        return vulkan_only(all);
    cl_platform_id plat;
    cl_device_id did;
    cl_uint np = 0;
    if (clGetPlatformIDs(1, &plat, &np) != CL_SUCCESS || np == 0 ||
        clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &did, NULL) != CL_SUCCESS) {
        fprintf(stderr, "no OpenCL device\n");
        return 77;
    }
    struct peer pe = {.max_wg = 256};
    cl_ulong max_alloc = 0;
    clGetDeviceInfo(did, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(max_alloc), &max_alloc, NULL);
    clGetDeviceInfo(did, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(pe.max_wg), &pe.max_wg, NULL);
    cl_device_type type = 0;
    clGetDeviceInfo(did, CL_DEVICE_TYPE, sizeof(type), &type, NULL);
    /* clpeak's buffer: 512 MiB on GPUs, 128 MiB on CPUs (its src/common/common.cpp) */
    const size_t cap = (type & CL_DEVICE_TYPE_CPU) ? (size_t)1 << 27 : (size_t)1 << 29;
    size_t bytes = 1;
    while (bytes * 2 <= max_alloc && bytes * 2 <= cap)
        bytes *= 2;

    cl_int rc;
    pe.ctx = clCreateContext(NULL, 1, &did, NULL, NULL, &rc);
    pe.q = clCreateCommandQueue(pe.ctx, did, CL_QUEUE_PROFILING_ENABLE, &rc);
    pe.prog = clCreateProgramWithSource(pe.ctx, 1, &peer_src, NULL, &rc);
    if (clBuildProgram(pe.prog, 1, &did, "", NULL, NULL) != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(pe.prog, did, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log, NULL);
        fprintf(stderr, "peer kernels do not build:\n%s\n", log);
        return 1;
    }

    struct ff_device *dev = NULL;
    char err[512] = "";
    if (ff_device_open(ff_backend_find("opencl"), 0, &dev, err, sizeof(err)) < 0) {
        fprintf(stderr, "flopfit: %s\n", err);
        return 1;
    }
    struct ff_bench_cfg cfg;
    ff_bench_cfg_defaults(&cfg);
    cfg.measure.budget_s = 0.5;

    /* The search runs on a buffer of the peer's size. */
    const uint32_t n = (uint32_t)(bytes / 4);
    struct bw_bufs bb;
    if (bufs_init(dev, n, &bb, err, sizeof(err)) < 0) {
        fprintf(stderr, "flopfit buffers: %s\n", err);
        return 1;
    }
    struct ff_kernel_desc rdesc = {.id = FF_KERNEL_MEM_READ, .n = n},
                          cdesc = {.id = FF_KERNEL_MEM_COPY, .n = n};
    struct ff_tune_space rs, cs;
    if (ff_kernel_space(dev, &rdesc, &rs, err, sizeof(err)) < 0 ||
        ff_kernel_space(dev, &cdesc, &cs, err, sizeof(err)) < 0) {
        fprintf(stderr, "flopfit: %s\n", err);
        return 1;
    }
    struct ff_tune_point best_read = rs.dflt, best_copy = cs.dflt;
    double g_read = 0, g_copy = 0;
    printf("searching the read and copy spaces (n=%u words)...\n", n);
    search(dev, &bb, FF_KERNEL_MEM_READ, all, &best_read, &g_read);
    search(dev, &bb, FF_KERNEL_MEM_COPY, all, &best_copy, &g_copy);
    bufs_finish(&bb);
    char tr[128], tc[128], td[128], tdc[128];
    ff_tune_point_format(&rs, &best_read, tr, sizeof(tr));
    ff_tune_point_format(&cs, &best_copy, tc, sizeof(tc));
    ff_tune_point_format(&rs, &rs.dflt, td, sizeof(td));
    ff_tune_point_format(&cs, &cs.dflt, tdc, sizeof(tdc));
    struct ours us = {dev, &cfg, &best_read, &best_copy, tr, td, tc, tdc};

    /* clpeak's size; then, where the host's last-level cache could hold much of that buffer
     * (260 MiB on the 2026 CI-class Xeon, against 128 MiB), both again on 512 MiB, past it:
     * the bench probe's size, where the figure is the memory's and not partly the cache's. */
    const uint64_t llc = ff_device_info(dev)->host_shared_memory ? ff_probe_host_llc_bytes() : 0;
    const size_t big = (size_t)1 << 29;
    const bool past = llc >= bytes / 2 && big <= max_alloc;
    double ratio = compare(&pe, &us, bytes, !past, "clpeak's size");
    if (past)
        ratio = compare(&pe, &us, big, true, "past the last-level cache");
    ff_device_destroy(&dev);
    clReleaseProgram(pe.prog);
    clReleaseCommandQueue(pe.q);
    clReleaseContext(pe.ctx);
    return ratio >= 0.9 ? 0 : 1;
}
