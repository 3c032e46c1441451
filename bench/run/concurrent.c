/*
 * bench/run/concurrent.c — `flopfit bench --concurrent`: every selected device alone, then all of
 * them at once, one thread per device (a device and its objects stay on that thread, as
 * backends/backend.h asks). What a device loses beside its siblings — a shared power or
 * thermal budget, host links, host memory and cores for CPU devices — shows as the ratio of
 * the two rates. Each profile keeps the solo figures (the value the estimator trusts) and
 * adds, to each test, the figure measured concurrently with the same check.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_run.h"
#include "flopfit/profile_fields.h"

struct job {
    const struct ff_run_config *rc;
    const struct ff_bench_cfg *cfg;
    const struct ff_bench_target *t;
    struct ff_run run;
    int ret;
    char err[1024];
};

static void *run_job(void *arg)
{
    struct job *j = arg;
    j->ret = ff_bench_measure(j->rc, j->cfg, j->t, &j->run, j->err, sizeof(j->err));
    return NULL;
}

/* The same test: family, name, implementation, precision, shape and bytes. */
static bool same_test(const struct ff_result *a, const struct ff_result *b)
{
    return strcmp(a->family, b->family) == 0 && strcmp(a->name, b->name) == 0 &&
           strcmp(a->impl, b->impl) == 0 && a->prec == b->prec && a->m == b->m && a->n == b->n &&
           a->k == b->k && a->bytes == b->bytes;
}

/* Adds to every solo test the concurrent figure of the same test, when that one is ok. */
static void merge(struct ff_run *solo, const struct ff_run *conc, size_t n_devices)
{
    bool *used = calloc(conc->n_results ? conc->n_results : 1, sizeof(bool));
    for (size_t i = 0; i < solo->n_results; i++) {
        struct ff_result *r = &solo->results[i];
        ff_result_extra(r, FF_PF_TEST_CONC_DEVICES, (double)n_devices, false);
        for (size_t k = 0; k < conc->n_results; k++) {
            const struct ff_result *c = &conc->results[k];
            if ((used && used[k]) || !same_test(r, c))
                continue;
            if (used)
                used[k] = true;
            /* a figure only for a concurrent run that passed its own check */
            if (r->status == FF_RES_OK && c->status == FF_RES_OK &&
                (c->verified || strcmp(c->unit, FF_PF_UNIT_SECONDS) == 0))
                ff_result_extra(r, FF_PF_TEST_CONC_VALUE, c->value, false);
            break;
        }
    }
    free(used);
}

static void print_comparison(FILE *f, struct job *jobs, const bool *ran, size_t n)
{
    fprintf(f, "\nconcurrent: %zu devices at once, each beside its solo rate\n", n);
    fprintf(f, "    %-10s %-10s %-16s %-8s %-5s %-8s %-14s %-14s %s\n", "device", "family", "test",
            "impl", "prec", "size", "solo", "concurrent", "ratio");
    for (size_t d = 0; d < n; d++) {
        if (!ran[d])
            continue;
        const struct ff_run *p = &jobs[d].run;
        char label[48];
        snprintf(label, sizeof(label), "%s:%u", ff_backend_name(jobs[d].t->backend),
                 jobs[d].t->index);
        for (size_t i = 0; i < p->n_results; i++) {
            const struct ff_result *r = &p->results[i];
            if (r->status != FF_RES_OK)
                continue;
            bool found;
            double cv = ff_result_extra_get(r, FF_PF_TEST_CONC_VALUE, &found);
            char size[24] = "-", solo[32], conc[32] = "failed", ratio[16] = "-";
            if (r->m)
                snprintf(size, sizeof(size), "%u", r->m);
            else if (r->bytes)
                ff_fmt_bytes_bin(size, sizeof(size), (double)r->bytes);
            bool is_time = strcmp(r->unit, FF_PF_UNIT_SECONDS) == 0;
            bool is_bytes = strcmp(r->unit, FF_PF_UNIT_BYTES) == 0;
            if (is_time)
                ff_fmt_time(solo, sizeof(solo), r->value);
            else if (is_bytes)
                ff_fmt_bytes_bin(solo, sizeof(solo), r->value);
            else
                ff_fmt_si(solo, sizeof(solo), r->value, r->unit);
            if (found) {
                if (is_time)
                    ff_fmt_time(conc, sizeof(conc), cv);
                else if (is_bytes)
                    ff_fmt_bytes_bin(conc, sizeof(conc), cv);
                else
                    ff_fmt_si(conc, sizeof(conc), cv, r->unit);
                /* a time grows when a rate falls: the ratio is always "how much of solo" */
                double x =
                    is_time ? (cv > 0 ? r->value / cv : 0) : (r->value > 0 ? cv / r->value : 0);
                snprintf(ratio, sizeof(ratio), "%.2fx", x);
            }
            fprintf(f, "    %-10s %-10s %-16s %-8s %-5s %-8s %-14s %-14s %s\n", label, r->family,
                    r->name, r->impl, r->prec >= 0 ? ff_precision_name(r->prec) : "-", size, solo,
                    conc, ratio);
        }
    }
}

int ff_bench_concurrent(const struct ff_run_config *rc, const struct ff_bench_target *t, size_t n,
                        const struct ff_host *host)
{
    struct job *solo = calloc(n, sizeof(*solo)), *conc = calloc(n, sizeof(*conc));
    bool *ran = calloc(n, sizeof(bool));
    pthread_t *th = calloc(n, sizeof(pthread_t));
    bool *started = calloc(n, sizeof(bool));
    int exit_code = 0;
    if (!solo || !conc || !ran || !th || !started) {
        fprintf(stderr, "flopfit bench: --concurrent: out of memory\n");
        exit_code = 1;
        goto out;
    }
    /* Solo first, one device after the other, exactly as a plain run. */
    size_t n_ran = 0;
    for (size_t d = 0; d < n && !ff_interrupted; d++) {
        solo[d] = (struct job){.rc = rc, .cfg = &rc->cfg, .t = &t[d]};
        run_job(&solo[d]);
        if (solo[d].ret < 0) {
            fprintf(stderr, "flopfit bench: %s\n", solo[d].err);
            exit_code = 1;
            continue;
        }
        ran[d] = true;
        n_ran++;
    }
    /* Then all at once; progress lines from several threads would only garble. */
    struct ff_bench_cfg cfg = rc->cfg;
    cfg.progress = NULL;
    if (n_ran < 2 && !ff_interrupted)
        fprintf(stderr, "flopfit bench: --concurrent: %zu device%s ran, nothing to run beside\n",
                n_ran, n_ran == 1 ? "" : "s");
    for (size_t d = 0; d < n && n_ran >= 2 && !ff_interrupted; d++) {
        if (!ran[d])
            continue;
        conc[d] = (struct job){.rc = rc, .cfg = &cfg, .t = &t[d]};
        if (pthread_create(&th[d], NULL, run_job, &conc[d]) == 0)
            started[d] = true;
        else
            fprintf(stderr, "flopfit bench: --concurrent: no thread for %s:%u\n",
                    ff_backend_name(t[d].backend), t[d].index);
    }
    for (size_t d = 0; d < n; d++)
        if (started[d]) {
            pthread_join(th[d], NULL);
            if (conc[d].ret < 0) {
                fprintf(stderr, "flopfit bench: --concurrent: %s\n", conc[d].err);
                exit_code = 1;
            }
        }
    size_t n_conc = 0;
    for (size_t d = 0; d < n; d++)
        n_conc += started[d] && conc[d].ret == FF_OK;
    for (size_t d = 0; d < n; d++) {
        if (!ran[d])
            continue;
        if (started[d] && conc[d].ret == FF_OK) {
            merge(&solo[d].run, &conc[d].run, n_conc);
            /* a cut-short concurrent run leaves the profile incomplete */
            solo[d].run.complete = solo[d].run.complete && conc[d].run.complete;
        }
        struct ff_bench_device_out out = {0};
        snprintf(out.label, sizeof(out.label), "%s:%u", ff_backend_name(t[d].backend), t[d].index);
        ff_bench_emit(rc, host, &solo[d].run, true, &out);
        if (out.failed)
            exit_code = 1;
        free(out.json);
    }
    if (n_conc >= 2 && strcmp(rc->writer->name, "table") == 0) {
        print_comparison(stdout, solo, ran, n);
        fflush(stdout);
    }
out:
    for (size_t d = 0; solo && conc && d < n; d++) {
        if (ran && ran[d])
            ff_run_finish(&solo[d].run);
        if (started && started[d] && conc[d].ret == FF_OK)
            ff_run_finish(&conc[d].run);
    }
    free(solo);
    free(conc);
    free(ran);
    free(th);
    free(started);
    if (ff_interrupted) {
        fprintf(stderr, "flopfit bench: interrupted; what was measured is kept\n");
        return 128 + ff_interrupted;
    }
    return exit_code;
}
