/*
 * tests/estimate/bench_estimate.c — estimates per second (every preset × every catalog
 * device, train and serve) and the time of one `--device all` ranking (ten devices).
 * Registered with Meson's benchmark(); prints the figures, fails only on errors.
 */
#include <stdio.h>
#include <time.h>

#include "flopfit/flopfit.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void)
{
    size_t n_models, n_devices = ff_spec_catalog_count();
    const struct ff_model_preset *models = ff_model_presets(&n_models);
    struct ff_estimate e;
    ff_estimate_init(&e);
    char err[256];
    long count = 0;
    double start = now(), elapsed = 0.0;
    while (elapsed < 1.0) {
        for (size_t i = 0; i < n_models; i++) {
            for (size_t j = 0; j < n_devices; j++) {
                struct ff_plan p;
                ff_plan_init(&p);
                p.task = (count & 1) ? FF_TASK_SERVE : FF_TASK_TRAIN;
                int rc =
                    ff_est_run(models[i].model, ff_spec_catalog_at(j), &p, &e, err, sizeof(err));
                if (rc != FF_OK && rc != FF_ERR_UNSUPPORTED) {
                    fprintf(stderr, "%s on %s: %s\n", models[i].slug, ff_spec_catalog_at(j)->slug,
                            err);
                    return 1;
                }
                count++;
            }
        }
        elapsed = now() - start;
    }
    printf("estimates: %.0f per second (%ld in %.2f s, %zu models x %zu devices, "
           "train and serve)\n",
           (double)count / elapsed, count, elapsed, n_models, n_devices);

    /* One --device all ranking for the largest preset, best of 20. */
    struct ff_model m;
    ff_model_init(&m);
    ff_model_preset_find("llama-3.1-405b", &m);
    double best = 1e9;
    for (int r = 0; r < 20; r++) {
        double t0 = now();
        for (size_t j = 0; j < n_devices; j++) {
            struct ff_plan p;
            ff_plan_init(&p);
            p.tokens = 15.6e12;
            ff_est_run(&m, ff_spec_catalog_at(j), &p, &e, err, sizeof(err));
        }
        double dt = now() - t0;
        if (dt < best)
            best = dt;
    }
    printf("--device all (llama-3.1-405b, train, %zu devices): %.2f ms\n", n_devices, best * 1e3);
    return best < 0.050 ? 0 : 1;
}
