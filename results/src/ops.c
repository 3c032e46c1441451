/*
 * results/src/ops.c — a device's op tests (family "op": a model's own kernels timed on the
 * device, results/SCHEMA.md) as rows: one per op, format and shape, over the device's runs.
 *
 * A row's rate is the median over the runs that measured it, as for the table's figures
 * (group.c), and its time is that median run's. For a memory-bound op the row also gives the
 * fraction of the read bandwidth: each run's rate over the same run's `bandwidth`/`read`
 * figure, then the median of those fractions, never one run's rate over another run's
 * bandwidth. An op the device could not run is unsupported or failed with its reason, never 0.
 * Two shapes differing only in g (attention's query rows per KV head, rope's heads per token)
 * are two rows.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <flopfit/status.h>

#include "results_impl.h"

/* The schema's order of the ops (results/SCHEMA.md); an op not named here sorts after them. */
static const char *const op_order[] = {
    FF_PF_OP_GEMM, FF_PF_OP_GEMV,   FF_PF_OP_ATTN_DECODE, FF_PF_OP_ATTN_PREFILL, FF_PF_OP_RMSNORM,
    FF_PF_OP_ROPE, FF_PF_OP_SWIGLU, FF_PF_OP_ADD,         FF_PF_OP_XENT,
};
#define N_OP_ORDER (sizeof(op_order) / sizeof(op_order[0]))

bool ff_pub_op_memory_bound(const char *name)
{
    return strcmp(name, FF_PF_OP_GEMM) != 0 && strcmp(name, FF_PF_OP_ATTN_PREFILL) != 0;
}

const char *ff_pub_ops_intro(void)
{
    return "One row per op, format and shape: the op as the model runs it, timed on the device "
           "and checked against a CPU reference. Time is the median device time of one run; "
           "rate is the bytes the op must move over that time (FLOP/s for gemm); \"of read "
           "bandwidth\" is that rate over the read bandwidth the same run measured (a memory-bound "
           "op "
           "near 100% streams at the device's bandwidth; above it, its data stayed in a "
           "cache). Several runs of a device show their medians.";
}

static bool is_op(const struct ff_profile_test *t)
{
    return strcmp(t->family, FF_PF_FAMILY_OP) == 0 &&
           strcmp(t->name, FF_PF_OP_WEIGHT_STREAM) != 0; /* the estimator's probe, not an op */
}

/* ---- rows ---- */

/* Formats from the widest to the narrowest, as a reader compares them; others after. */
static const char *const format_order[] = {"fp32", "fp16", "bf16", "int8", "q8_0", "q4_0"};
#define N_FORMAT_ORDER (sizeof(format_order) / sizeof(format_order[0]))

static int rank_in(const char *const *list, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], s) == 0)
            return (int)i;
    return (int)n;
}

static const char *prec_of(const struct ff_profile_test *t)
{
    return t->precision ? t->precision : "";
}

static int cmp_u64(uint64_t a, uint64_t b)
{
    return (a > b) - (a < b);
}

/* Rows by the schema's op order, then name, format (widest first) and shape (m, n, k, g). */
static int cmp_ops(const void *pa, const void *pb)
{
    const struct ff_pub_op *a = pa, *b = pb;
    int c = rank_in(op_order, N_OP_ORDER, a->name) - rank_in(op_order, N_OP_ORDER, b->name);
    if (!c)
        c = strcmp(a->name, b->name);
    if (!c)
        c = rank_in(format_order, N_FORMAT_ORDER, a->precision) -
            rank_in(format_order, N_FORMAT_ORDER, b->precision);
    if (!c)
        c = strcmp(a->precision, b->precision);
    if (!c)
        c = cmp_u64(a->m, b->m);
    if (!c)
        c = cmp_u64(a->n, b->n);
    if (!c)
        c = cmp_u64(a->k, b->k);
    if (!c)
        c = cmp_u64(a->g, b->g);
    return c;
}

static uint64_t group_of(const struct ff_pub_run *r, size_t i)
{
    return ff_profile_test_at(r->doc, i)->g;
}

static bool same_row(const struct ff_pub_op *op, const struct ff_pub_run *r, size_t i)
{
    const struct ff_profile_test *t = ff_profile_test_at(r->doc, i);
    return strcmp(op->name, t->name) == 0 && strcmp(op->precision, prec_of(t)) == 0 &&
           op->m == t->m && op->n == t->n && op->k == t->k && op->g == group_of(r, i);
}

/* A test counts as measured when ok, verified and carrying its figure. */
static bool measured(const struct ff_profile_test *t)
{
    return t->status == FF_PROFILE_TEST_OK && t->verified && t->has_value && t->unit;
}

/* One run's figures of a row: the best measured test of that key in the run (a profile of
 * `--only ops` and `--model` may time one shape twice). false when the run measured none. */
static bool run_figure(const struct ff_pub_op *op, const struct ff_pub_run *r, double *value,
                       const struct ff_profile_test **best)
{
    *best = NULL;
    for (size_t i = 0; i < ff_profile_test_count(r->doc); i++) {
        const struct ff_profile_test *t = ff_profile_test_at(r->doc, i);
        if (!is_op(t) || !same_row(op, r, i) || !measured(t))
            continue;
        if (!*best || t->value > (*best)->value)
            *best = t;
    }
    if (*best)
        *value = (*best)->value;
    return *best != NULL;
}

static double time_of(const struct ff_profile_test *t)
{
    return t->device_time_s.present ? t->device_time_s.median_s
           : t->wall_time_s.present ? t->wall_time_s.median_s
                                    : 0.0;
}

/* Aggregate row op over the device's runs. scratch holds d->n_runs doubles. */
static void aggregate_op(const struct ff_pub_device *d, struct ff_pub_op *op, double *scratch)
{
    size_t n = 0;
    const struct ff_profile_test *t;
    double v;
    for (size_t r = 0; r < d->n_runs; r++)
        if (run_figure(op, d->runs[r], &v, &t))
            scratch[n++] = v;
    if (n == 0)
        return; /* state and reason stay those of the newest test that was not measured */
    double median = ff_pub_median(scratch, n);
    op->state = FF_PUB_OK;
    op->reason = NULL;
    op->value = median;
    op->min = scratch[0];
    op->max = scratch[n - 1];
    op->runs = (int)n;
    for (size_t r = 0; r < d->n_runs; r++)
        if (run_figure(op, d->runs[r], &v, &t) && v == median) {
            op->unit = t->unit;
            op->time_s = time_of(t);
            op->bytes = t->bytes;
            break;
        }
    if (!ff_pub_op_memory_bound(op->name) || strcmp(op->unit, FF_PF_UNIT_BYTES_PER_S) != 0)
        return;
    size_t k = 0;
    for (size_t r = 0; r < d->n_runs; r++) {
        const struct ff_pub_figure *read = &d->runs[r]->fig[FF_PUB_READ];
        if (run_figure(op, d->runs[r], &v, &t) && strcmp(t->unit, FF_PF_UNIT_BYTES_PER_S) == 0 &&
            read->state == FF_PUB_OK && read->value > 0)
            scratch[k++] = v / read->value;
    }
    if (k == 0)
        return;
    op->has_fraction = true;
    op->read_fraction = ff_pub_median(scratch, k);
    op->fraction_min = scratch[0];
    op->fraction_max = scratch[k - 1];
}

/* Why a test that is not measured has no figure (a string the run's document owns, or
 * static text). */
static const char *reason_of(const struct ff_profile_test *t)
{
    if (t->status == FF_PROFILE_TEST_OK)
        return t->verified ? "ok without a figure" : "not verified";
    return t->reason && *t->reason ? t->reason : t->status_text;
}

int ff_pub_device_ops(struct ff_pub_device *d)
{
    size_t cap = 0;
    for (size_t r = 0; r < d->n_runs; r++)
        for (size_t i = 0; i < ff_profile_test_count(d->runs[r]->doc); i++)
            cap += is_op(ff_profile_test_at(d->runs[r]->doc, i));
    if (cap == 0)
        return FF_OK;
    struct ff_pub_op *ops = calloc(cap, sizeof(*ops));
    double *scratch = malloc(d->n_runs * sizeof(*scratch));
    if (!ops || !scratch) {
        free(ops);
        free(scratch);
        return FF_ERR_NO_MEMORY;
    }
    size_t n = 0;
    /* oldest run first: a row's state and reason end as the newest run's, failed before
     * unsupported (as the table's figures, group.c) */
    for (size_t r = 0; r < d->n_runs; r++) {
        const struct ff_pub_run *run = d->runs[r];
        for (size_t i = 0; i < ff_profile_test_count(run->doc); i++) {
            const struct ff_profile_test *t = ff_profile_test_at(run->doc, i);
            if (!is_op(t))
                continue;
            struct ff_pub_op *op = NULL;
            for (size_t k = 0; k < n && !op; k++)
                if (same_row(&ops[k], run, i))
                    op = &ops[k];
            if (!op) {
                op = &ops[n++];
                op->name = t->name;
                op->precision = prec_of(t);
                op->m = t->m;
                op->n = t->n;
                op->k = t->k;
                op->g = group_of(run, i);
                op->bytes = t->bytes;
            }
            if (measured(t))
                continue;
            enum ff_pub_state s =
                t->status == FF_PROFILE_TEST_UNSUPPORTED ? FF_PUB_UNSUPPORTED : FF_PUB_FAILED;
            if (op->state == FF_PUB_ABSENT || s == FF_PUB_FAILED || op->state != FF_PUB_FAILED) {
                op->state = s;
                op->reason = reason_of(t);
            }
        }
    }
    for (size_t k = 0; k < n; k++)
        aggregate_op(d, &ops[k], scratch);
    free(scratch);
    qsort(ops, n, sizeof(*ops), cmp_ops);
    d->ops = ops;
    d->n_ops = n;
    return FF_OK;
}

bool ff_pub_set_has_ops(const struct ff_pub_set *set)
{
    for (size_t i = 0; i < set->n_devices; i++)
        if (set->devices[i].n_ops)
            return true;
    return false;
}

/* ---- texts ---- */

const char *ff_pub_op_shape_text(const struct ff_pub_op *op, char *dst, size_t n)
{
    if (!op->m && !op->n && !op->k)
        snprintf(dst, n, "-");
    else if (!op->k)
        snprintf(dst, n, "%llu×%llu", (unsigned long long)op->m, (unsigned long long)op->n);
    else
        snprintf(dst, n, "%llu×%llu×%llu", (unsigned long long)op->m, (unsigned long long)op->n,
                 (unsigned long long)op->k);
    if (op->g) {
        size_t len = strlen(dst);
        snprintf(dst + len, len < n ? n - len : 0, ", g=%llu", (unsigned long long)op->g);
    }
    return dst;
}

void ff_pub_op_value_text(const struct ff_pub_op *op, char *dst, size_t n)
{
    switch (op->state) {
    case FF_PUB_OK: ff_pub_fmt_value(dst, n, op->value, op->unit); break;
    case FF_PUB_UNSUPPORTED: snprintf(dst, n, "unsupported"); break;
    default: snprintf(dst, n, "failed"); break;
    }
}

void ff_pub_op_fraction_text(const struct ff_pub_op *op, char *dst, size_t n)
{
    if (op->state != FF_PUB_OK || !op->has_fraction) {
        if (n)
            dst[0] = 0;
        return;
    }
    if (op->fraction_max > op->fraction_min)
        snprintf(dst, n, "%.0f%% ±%.0f%%", 100.0 * op->read_fraction,
                 50.0 * (op->fraction_max - op->fraction_min));
    else
        snprintf(dst, n, "%.0f%%", 100.0 * op->read_fraction);
}
