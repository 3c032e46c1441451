/*
 * Matmul benchmark (meson benchmark()): our OpenCL kernel and CLBlast on the
 * same device in one run, and OpenBLAS sgemm on the host CPU as the
 * practical limit there. Prints the figures and the ratios.
 *
 * usage: bench_matmul [n] (default 2048)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "bench.h"
#include "measure.h"
#include "verify.h"

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

static double openblas_gflops(uint32_t n, double *max_rel)
{
    struct blas_ctx x = {(int)n, malloc(sizeof(float) * n * n), malloc(sizeof(float) * n * n),
                         malloc(sizeof(float) * n * n)};
    struct ff_rng r;
    ff_rng_seed(&r, 99);
    ff_fill_random(FF_PREC_FP32, x.a, (size_t)n * n, &r);
    ff_fill_random(FF_PREC_FP32, x.b, (size_t)n * n, &r);
    struct ff_measure_cfg cfg;
    ff_measure_defaults(&cfg);
    cfg.min_reps = 5;
    cfg.budget_s = 2;
    struct ff_timing t;
    char err[64];
    ff_measure(&cfg, blas_once, &x, &t, err, sizeof(err));
    /* OpenBLAS is checked like our kernels, so its figure is honest too. */
    uint32_t rows[256];
    size_t nr = ff_verify_rows(n, n, n, rows, 256);
    float *ref = malloc(sizeof(float) * nr * n);
    ff_ref_matmul(FF_PREC_FP32, x.a, x.b, ref, n, n, rows, nr);
    struct ff_check chk;
    int ok = ff_check_matmul(FF_PREC_FP32, x.c, ref, n, n, rows, nr, &chk) == FF_OK;
    *max_rel = chk.max_rel;
    free(ref);
    free(x.a);
    free(x.b);
    free(x.c);
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
    struct ff_profile p = {.info = *ff_device_info(dev)};
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
    ff_profile_finish(&p);
    ff_device_destroy(&dev);
    return ours > 0 ? 0 : 1;
}
