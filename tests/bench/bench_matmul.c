/*
 * Matmul benchmark (meson benchmark()): our OpenCL kernel and CLBlast on the
 * same device in one run, and OpenBLAS sgemm on the host CPU as the
 * practical limit there, all through the kernel check (kcheck.h). Prints the
 * figures and the ratios.
 *
 * usage: bench_matmul [n] (default 2048)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "bench.h"
#include "kcheck.h"
#include "measure.h"

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

/* OpenBLAS is checked like our kernels (the same kernel check), so its figure is honest too. */
static double openblas_gflops(uint32_t n, double *max_rel)
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
    cfg.min_reps = 5;
    cfg.budget_s = 2;
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
    cfg.measure.min_reps = 5;
    cfg.measure.budget_s = 2;
    struct ff_run p = {.info = *ff_device_info(dev)};
    ff_suite_matmul(dev, &cfg, &p);
    double ours = 0, lib = 0;
    const char *variant = "";
    for (size_t i = 0; i < p.n_results; i++) {
        const struct ff_result *r = &p.results[i];
        if (r->status != FF_RES_OK)
            continue;
        if (strcmp(r->impl, "flopfit") == 0) {
            ours = r->value / 1e9;
            variant = r->variant;
        } else if (strcmp(r->impl, "clblast") == 0)
            lib = r->value / 1e9;
    }
    double rel = 0;
    double blas = openblas_gflops(n, &rel);
    printf("device: %s (%s)\n", p.info.name, p.info.platform);
    printf("fp32 matmul n=%u, GFLOP/s (verified, median device time):\n", n);
    printf("  flopfit (OpenCL)   %8.1f  %s\n", ours, variant);
    printf("  CLBlast (OpenCL)   %8.1f\n", lib);
    printf("  OpenBLAS (host)    %8.1f  (%d threads, max rel err %.1e)\n", blas,
           openblas_get_num_threads(), rel);
    if (lib > 0)
        printf("  flopfit / CLBlast  %8.2fx\n", ours / lib);
    if (blas > 0)
        printf("  flopfit / OpenBLAS %8.2f\n", ours / blas);
    ff_run_finish(&p);
    ff_device_destroy(&dev);
    return ours > 0 ? 0 : 1;
}
