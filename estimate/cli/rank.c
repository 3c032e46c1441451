/*
 * estimate/cli/rank.c — `flopfit estimate --device all` (or several --profile): the plan on
 * every device, ranked: fits first, then the known cost (training: the run; serving: per
 * million tokens), then time (serving: the larger throughput).
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli_report.h"
#include "estcli.h"

static int cmp_rows(const void *a, const void *b)
{
    const struct ff_rank_row *x = a, *y = b;
    if ((x->status == 0) != (y->status == 0))
        return x->status == 0 ? -1 : 1;
    if (x->status != 0)
        return 0;
    const struct ff_estimate *e = &x->est, *f = &y->est;
    if (e->fits != f->fits)
        return e->fits ? -1 : 1;
    bool serve = e->serve_batch > 0;
    double ce = serve ? e->cost_per_million_tokens : e->cost_usd;
    double cf = serve ? f->cost_per_million_tokens : f->cost_usd;
    if ((ce >= 0) != (cf >= 0))
        return ce >= 0 ? -1 : 1;
    if (ce >= 0 && ce != cf)
        return ce < cf ? -1 : 1;
    double te = serve ? -e->max_tokens_per_second : e->seconds;
    double tf = serve ? -f->max_tokens_per_second : f->seconds;
    return te < tf ? -1 : te > tf;
}

int ff_estcli_rank(const struct ff_estcli_opts *o, const struct ff_model *m,
                   const struct ff_plan *p)
{
    char err[512];
    size_t n_cat;
    const struct ff_spec *cat = ff_spec_catalog(&n_cat);
    bool with_catalog = o->device_arg != NULL;
    size_t n = (with_catalog ? n_cat : 0) + o->n_profiles;
    struct ff_rank_row *rows = calloc(n ? n : 1, sizeof(*rows));
    if (!rows)
        return 1;
    int code = 0;
    size_t k = 0;
    for (size_t i = 0; i < o->n_profiles; i++, k++)
        if ((code = ff_estcli_profile(o->profiles[i], &rows[k].device)) != 0)
            goto error_rows;
    for (size_t i = 0; with_catalog && i < n_cat; i++, k++)
        rows[k].device = cat[i];
    /* Impossible plans are the same everywhere: check once, fail as usage error. */
    if (ff_plan_check(m, p, err, sizeof(err)) != FF_OK) {
        ff_estcli_fail(FF_ERR_INVALID, err);
        code = FF_ESTCLI_EXIT_USAGE;
        goto error_rows;
    }
    bool any_fits = false;
    for (size_t i = 0; i < n; i++) {
        rows[i].status =
            ff_est_run(m, &rows[i].device, p, &rows[i].est, rows[i].why, sizeof(rows[i].why));
        if (rows[i].status == FF_OK && rows[i].est.fits)
            any_fits = true;
    }
    qsort(rows, n, sizeof(*rows), cmp_rows);
    if (o->json)
        code = ff_report_rank_json(stdout, m, p, rows, n) == 0 ? 0 : 1;
    else
        ff_report_rank_text(stdout, m, p, rows, n);
    if (code == 0 && !any_fits)
        code = 1;
error_rows:
    free(rows);
    return code;
}
