/*
 * Matmul benchmark (meson benchmark()): our OpenCL kernel and CLBlast on the
 * same device in one run, and OpenBLAS sgemm on the host CPU as the
 * practical limit there, all through the kernel check (kcheck.h). Prints the
 * figures and the ratios.
 *
 * The peers are shown as they ran: OpenBLAS with the kernel core it used
 * (openblas_get_corename), CLBlast with the parameters it used (its database entry for the
 * device, through clblast_params.cc where a C++ compiler was found).
 *
 * OpenBLAS chooses its core once, when the library loads. Debian 12's OpenBLAS 0.3.21 does not
 * know every newer CPU model and falls back to a generic core (`Prescott`, SSE3, on the
 * CI machine's AVX-512 Xeon: 29-60 GFLOP/s against 110-295 with SKYLAKEX). A peer run like that
 * is a handicap, not a practical limit, so when the core picked is narrower than what the CPU
 * supports, the benchmark re-executes itself with OPENBLAS_CORETYPE set to the core matching
 * the CPU (the variable is read only at load time), and prints both cores. If the library still
 * runs a narrower core, the OpenBLAS line is marked handicapped and no ratio is claimed.
 *
 * usage: bench_matmul [n] (default 2048)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <cblas.h>

#include "families/bench.h"
#include "check/kcheck.h"
#include "check/measure.h"

struct blas_ctx {
    int n;
    float *a, *b, *c;
};

static int blas_once(void *arg, uint64_t *dns, uint64_t *wns, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    struct blas_ctx *x = arg;
    uint64_t t0 = ff_now_ns();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, x->n, x->n, x->n, 1.0f, x->a, x->n, x->b,
                x->n, 0.0f, x->c, x->n);
    *dns = *wns = ff_now_ns() - t0;
    return FF_OK;
}

#if FF_BENCH_CLBLAST_PARAMS
int ff_bench_clblast_params(const char *device_name, char *buf, size_t n);
#endif

/* The widest vector ISA of an OpenBLAS x86 core (0: SSE, 1: AVX, 2: AVX2, 3: AVX-512), from the
 * core names of OpenBLAS's driver/others/dynamic.c (0.3.21); unknown names count as SSE. */
static int core_level(const char *core)
{
    static const char *const avx512[] = {"SkylakeX", "CooperLake", "SapphireRapids"};
    static const char *const avx2[] = {"Haswell", "Zen", "Excavator", "Dhyana"};
    static const char *const avx[] = {"Sandybridge", "Bulldozer", "Piledriver", "Steamroller"};
    for (size_t i = 0; i < sizeof(avx512) / sizeof(avx512[0]); i++)
        if (strcasecmp(core, avx512[i]) == 0)
            return 3;
    for (size_t i = 0; i < sizeof(avx2) / sizeof(avx2[0]); i++)
        if (strcasecmp(core, avx2[i]) == 0)
            return 2;
    for (size_t i = 0; i < sizeof(avx) / sizeof(avx[0]); i++)
        if (strcasecmp(core, avx[i]) == 0)
            return 1;
    return 0;
}

/* The widest vector ISA this CPU (and its OS) supports, same scale, and the OPENBLAS_CORETYPE
 * value that runs it. */
static int cpu_level(const char **coretype)
{
    *coretype = NULL;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
        *coretype = "SKYLAKEX";
        return 3;
    }
    if (__builtin_cpu_supports("avx2")) {
        *coretype = __builtin_cpu_is("amd") ? "ZEN" : "HASWELL";
        return 2;
    }
    if (__builtin_cpu_supports("avx")) {
        *coretype = "SANDYBRIDGE";
        return 1;
    }
#endif
    return 0;
}

/* Environment variable carrying the core OpenBLAS picked by itself across the re-exec. */
#define PICKED_ENV "FF_BENCH_OPENBLAS_PICKED"

/* When OpenBLAS runs a narrower core than the CPU has and nobody chose the core, re-exec with
 * OPENBLAS_CORETYPE set. Returns only when no re-exec happened (or it failed). */
static void maybe_reexec(char **argv)
{
    const char *want = NULL;
    const char *core = openblas_get_corename();
    if (getenv("OPENBLAS_CORETYPE") || getenv(PICKED_ENV) || !core ||
        core_level(core) >= cpu_level(&want) || !want)
        return;
    if (setenv(PICKED_ENV, core, 1) != 0 || setenv("OPENBLAS_CORETYPE", want, 1) != 0)
        return;
    fprintf(stderr,
            "bench_matmul: OpenBLAS picked core %s on a CPU with wider vectors; "
            "re-running with OPENBLAS_CORETYPE=%s\n",
            core, want);
    fflush(stderr);
    execv("/proc/self/exe", argv);
    perror("bench_matmul: re-exec with OPENBLAS_CORETYPE failed; the OpenBLAS peer runs as picked");
    unsetenv("OPENBLAS_CORETYPE");
}

enum { ROUNDS = 5 };
#define ROUND_BUDGET_S 0.4

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts the ROUNDS values (so [0] and [ROUNDS - 1] are the range) and returns their median. */
static double median_of(double *v)
{
    qsort(v, ROUNDS, sizeof(v[0]), cmp_double);
    return v[ROUNDS / 2];
}

/* OpenBLAS is checked like our kernels (the same kernel check), so its figure is honest too. */
static double openblas_gflops(uint32_t n, double budget_s, double *max_rel)
{
    struct ff_kcheck kc;
    char err[512] = "";
    if (ff_kcheck_init(&kc, FF_PREC_FP32, n, n, n, 99, err, sizeof(err)) < 0) {
        fprintf(stderr, "bench_matmul: %s\n", err);
        return 0;
    }
    struct blas_ctx x = {(int)n, kc.a, kc.b, kc.c};
    memcpy(kc.c, kc.poison, sizeof(float) * n * n);
    struct ff_measure_cfg cfg;
    ff_measure_defaults(&cfg);
    cfg.min_reps = 3;
    cfg.budget_s = budget_s;
    struct ff_timing t;
    int ok = ff_measure(&cfg, blas_once, &x, &t, err, sizeof(err)) == FF_OK &&
             ff_kcheck_compare(&kc, kc.c, err, sizeof(err)) == FF_OK;
    if (!ok)
        fprintf(stderr, "bench_matmul: OpenBLAS: %s\n", err);
    *max_rel = kc.check.max_rel;
    ff_kcheck_finish(&kc);
    return ok ? 2.0 * n * (double)n * n / t.wall_median_s / 1e9 : 0;
}

int main(int argc, char **argv)
{
    (void)argc;
    maybe_reexec(argv);
    uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 2048;
    const struct ff_backend *b = ff_backend_find("opencl");
    char err[512] = "";
    struct ff_device *dev = NULL;
    if (!b || ff_device_open(b, 0, &dev, err, sizeof(err)) < 0) {
        fprintf(stderr, "bench_matmul: no OpenCL device: %s\n", err);
        return 77;
    }
    struct ff_bench_cfg cfg;
    ff_bench_cfg_defaults(&cfg);
    memset(cfg.prec, 0, sizeof(cfg.prec));
    cfg.prec[FF_PREC_FP32] = true;
    cfg.sizes[0] = n;
    cfg.n_sizes = 1;
    cfg.sizes_given = true;
    cfg.measure.min_reps = 3;
    cfg.measure.budget_s = ROUND_BUDGET_S;
    /* Rounds alternate ours and OpenBLAS, so both meet the same moments of a shared host; the
     * ratio is the median of the rounds' own ratios. CLBlast, ~0.1x of either, runs once. */
    double ours_r[ROUNDS] = {0}, blas_r[ROUNDS] = {0}, ratio_r[ROUNDS] = {0}, lib = 0, rel = 0;
    char variant[sizeof(((struct ff_result *)0)->variant)] = "", lib_variant[sizeof(variant)] = "";
    struct ff_run p = {.info = *ff_device_info(dev)};
    for (int round = 0; round < ROUNDS; round++) {
        cfg.library = round == 0;
        ff_run_finish(&p);
        p = (struct ff_run){.info = *ff_device_info(dev)};
        ff_suite_matmul(dev, &cfg, &p);
        for (size_t i = 0; i < p.n_results; i++) {
            const struct ff_result *r = &p.results[i];
            if (r->status != FF_RES_OK)
                continue;
            if (strcmp(r->impl, "flopfit") == 0) {
                ours_r[round] = r->value / 1e9;
                snprintf(variant, sizeof(variant), "%s", r->variant);
            } else if (strcmp(r->impl, "clblast") == 0) {
                lib = r->value / 1e9;
                snprintf(lib_variant, sizeof(lib_variant), "%s", r->variant);
            }
        }
        blas_r[round] = openblas_gflops(n, ROUND_BUDGET_S, &rel);
        ratio_r[round] = blas_r[round] > 0 ? ours_r[round] / blas_r[round] : 0;
    }
    double ours = median_of(ours_r), blas = median_of(blas_r), ratio = median_of(ratio_r);
    printf("device: %s (%s)\n", p.info.name, p.info.platform);
    printf("fp32 matmul n=%u, GFLOP/s (verified; median device time in each round, the median "
           "[min-max] over %d interleaved rounds):\n",
           n, ROUNDS);
    printf("  flopfit (OpenCL)   %8.1f [%.1f-%.1f]  %s\n", ours, ours_r[0], ours_r[ROUNDS - 1],
           variant);
    printf("  CLBlast (OpenCL)   %8.1f  %s\n", lib, lib_variant);
#if FF_BENCH_CLBLAST_PARAMS
    char params[2048] = "";
    if (ff_bench_clblast_params(p.info.name, params, sizeof(params)) == 0)
        printf("    CLBlast parameters (its database entry for this device, or its defaults "
               "where it has none): %s\n",
               params);
    else
        printf("    CLBlast parameters: not retrieved (%s)\n", params);
#else
    printf("    CLBlast parameters: not retrieved (built without a C++ compiler: "
           "clblast::RetrieveParameters is C++ only)\n");
#endif
    const char *core = openblas_get_corename(), *want = NULL;
    const char *picked = getenv(PICKED_ENV);
    int cpu = cpu_level(&want);
    bool handicapped = core && core_level(core) < cpu;
    printf(
        "  OpenBLAS (host)    %8.1f [%.1f-%.1f]  (core %s%s%s%s, %d threads, max rel err %.1e)\n",
        blas, blas_r[0], blas_r[ROUNDS - 1], core ? core : "?",
        picked ? ", set by OPENBLAS_CORETYPE; it picked " : "", picked ? picked : "",
        handicapped ? ", HANDICAPPED: narrower than the CPU's vectors" : "",
        openblas_get_num_threads(), rel);
    if (lib > 0)
        printf("  flopfit / CLBlast  %8.2fx\n", ours / lib);
    if (blas > 0 && !handicapped)
        printf("  flopfit / OpenBLAS %8.2fx [%.2f-%.2f]  (the rounds' own ratios; OpenBLAS at core "
               "%s)\n",
               ratio, ratio_r[0], ratio_r[ROUNDS - 1], core);
    else if (blas > 0)
        printf("  flopfit / OpenBLAS     n/a  (OpenBLAS ran a generic core %s on a CPU with wider "
               "vectors: a handicapped peer, no ratio claimed; set OPENBLAS_CORETYPE=%s)\n",
               core, want ? want : "?");
    ff_run_finish(&p);
    ff_device_destroy(&dev);
    return ours > 0 ? 0 : 1;
}
