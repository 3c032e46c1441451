/*
 * estimate/cli/rank.c — `flopfit estimate --device all` (or several --profile): the plan on
 * every device, ranked: fits first, then times that are not lower bounds (a link rate
 * unknown), then the known cost (training: the run; serving: per million tokens at the asked
 * --batch users), then time (serving: the larger throughput at those users); --rank time
 * puts time first. Each device runs its own plan search (--plan best: the same search).
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli_report.h"
#include "estcli.h"

static bool lower_bound(const struct ff_estimate *e)
{
    for (int i = 0; i < FF_STEP_TERMS; i++)
        if (e->step.valid && e->step.modelled && e->step.term[i].applies && !e->step.term[i].known)
            return true;
    return false;
}

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
    /* A time with a term left out for an unknown link rate is a lower bound: after the rest. */
    bool le = lower_bound(e), lf = lower_bound(f);
    if (le != lf)
        return le ? 1 : -1;
    /* Serving at the asked concurrency (serve_batch users): its cost and its throughput. */
    bool serve = e->serve_batch > 0;
    double ce = serve ? e->cost_per_million_tokens : e->cost_usd;
    double cf = serve ? f->cost_per_million_tokens : f->cost_usd;
    double te = serve ? -e->batch_tokens_per_second : e->seconds;
    double tf = serve ? -f->batch_tokens_per_second : f->seconds;
    if (x->by_time && te != tf)
        return te < tf ? -1 : 1;
    if ((ce >= 0) != (cf >= 0))
        return ce >= 0 ? -1 : 1;
    if (ce >= 0 && ce != cf)
        return ce < cf ? -1 : 1;
    return te < tf ? -1 : te > tf;
}

/* --plan best on one device: the plan search on its GPUs (the same search --gpus N alone
 * runs); when none fits, the estimate says so and what would fit. */
static int best_of(const struct ff_model *m, const struct ff_spec *d, const struct ff_plan *p,
                   struct ff_estimate *e, char *why, size_t whylen)
{
    struct ff_plan q = *p;
    q.auto_layout = true;
    ff_estimate_init(e);
    return ff_est_run(m, d, &q, e, why, whylen);
}

#define BEST_SHOWN 5

int ff_estcli_best(const struct ff_estcli_opts *o, const struct ff_model *m,
                   const struct ff_spec *d, const struct ff_plan *p)
{
    char err[512];
    struct ff_plan q = *p;
    ff_estcli_apply_nodes(o, d, &q);
    struct ff_plan_choice ch[BEST_SHOWN];
    ff_plan_choice_init(ch, BEST_SHOWN);
    size_t n = 0;
    int rc = ff_est_best_plans(m, d, &q, ch, BEST_SHOWN, &n, err, sizeof(err));
    if (rc != FF_OK)
        return ff_estcli_fail(rc, err);
    struct ff_estimate *e = calloc(1, sizeof(*e));
    if (!e)
        return 1;
    ff_estimate_init(e);
    /* The chosen plan is the default search's on these GPUs (ff_est_run runs it), so
     * --plan best and --gpus N alone agree; the list is the same search's five best. */
    struct ff_plan run = q;
    run.auto_layout = true;
    int code;
    rc = ff_est_run(m, d, &run, e, err, sizeof(err));
    if (rc != FF_OK) {
        code = ff_estcli_fail(rc, err);
    } else if (o->json) {
        code = ff_report_best_json(stdout, m, d, &run, e, ch, n) == 0 ? 0 : 1;
    } else {
        ff_report_text(stdout, m, d, &run, e);
        if (n > 0)
            ff_report_best_text(stdout, ch, n);
        else
            fprintf(stdout,
                    "\nbest plans: none of tp x pp x dp x ZeRO 0-3 x recompute x "
                    "micro-batch fits on %lld GPU(s)\n",
                    (long long)q.gpus);
        code = 0;
    }
    if (code == 0 && (n == 0 || !e->fits))
        code = 1;
    free(e);
    return code;
}

int ff_estcli_rank(const struct ff_estcli_opts *o, const struct ff_model *m,
                   const struct ff_plan *p)
{
    char err[512];
    size_t n_cat = ff_spec_catalog_count();
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
        rows[k].device = *ff_spec_catalog_at(i);
    /* Impossible plans are the same everywhere: check once, fail as usage error. */
    if (ff_plan_check(m, p, err, sizeof(err)) != FF_OK) {
        ff_estcli_fail(FF_ERR_INVALID, err);
        code = FF_ESTCLI_EXIT_USAGE;
        goto error_rows;
    }
    bool any_fits = false;
    for (size_t i = 0; i < n; i++) {
        struct ff_plan q = *p;
        ff_estcli_apply_nodes(o, &rows[i].device, &q);
        ff_estimate_init(&rows[i].est);
        rows[i].by_time = o->rank_time;
        rows[i].status = o->plan_best ? best_of(m, &rows[i].device, &q, &rows[i].est, rows[i].why,
                                                sizeof(rows[i].why))
                                      : ff_est_run(m, &rows[i].device, &q, &rows[i].est,
                                                   rows[i].why, sizeof(rows[i].why));
        if (rows[i].status == FF_OK && rows[i].est.fits)
            any_fits = true;
    }
    qsort(rows, n, sizeof(*rows), cmp_rows);
    if (o->json)
        code = ff_report_rank_json(stdout, m, p, rows, n) == 0 ? 0 : 1;
    else
        ff_report_rank_text(stdout, m, p, rows, n, o->rank_time);
    if (code == 0 && !any_fits)
        code = 1;
error_rows:
    free(rows);
    return code;
}
