/*
 * results/src/compare.c — `flopfit results --compare A B`: per device and test, the ratio of
 * medians B/A with an interval, and a verdict.
 *
 * Devices are paired by grouping key (vendor, device name, device id, driver version,
 * backend, run kind, flopfit minor version): the same key on both sides first; then a device
 * whose only differences are its driver and flopfit versions pairs with the one device of
 * that identity (vendor, name, id, backend, run kind) left on the other side, which is what
 * a driver or flopfit upgrade is compared by. Two devices are never pooled; a device left
 * without a partner is listed as present on one side only.
 *
 * A test is one (family, name, impl, precision, shape with its group g). A profile keeps, per
 * test, the median, the fastest and the slowest of its timed repetitions and their count, not
 * each repetition.
 * So the interval is a bootstrap (FF_PUB_BOOT_ROUNDS rounds, a fixed seed: the same inputs give
 * the same output) that, per side, draws the side's runs with replacement and, for each run
 * drawn, one figure from its own repetitions' spread: with probability 1/2 log-uniform between
 * the figure its fastest repetition implies and its median, else between the median and its
 * slowest (a run without times adds no spread). A side's value in a round is the median of its
 * draws; the interval holds the middle 95% of the rounds' log(B/A). With one run per side this
 * is the per-run spread alone. The verdict is "faster" or "slower" whenever the interval
 * excludes 1, however wide the runs' noise, and "no change" otherwise; for latency lower is
 * better, for usable memory the words are "more" and "less".
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include <flopfit/status.h>

#include "results_impl.h"

/* One run's figure of a test and the figures its fastest and slowest repetitions imply; the
 * bootstrap draws in logs (l*), where a median is the log of the median. */
struct obs {
    double value, lo, hi;
    double llo, lvalue, lhi;
};

struct side {
    int ok;          /* runs with a value */
    int bad;         /* runs where it was unsupported or failed */
    double value;    /* median over the runs */
    double spread;   /* (max - min) / median over runs and repetitions, for the reader */
    const char *why; /* a reason when !ok */
    struct obs *obs; /* ok of them */
};

struct row {
    const struct ff_profile_test *t; /* the first test with this key (names its fields) */
    struct side a, b;
    const char *verdict;
    double ratio, low, high; /* B/A and its interval; NAN when not both ok */
};

/* A pair of devices, or a device on one side only (the other NULL). */
struct pair {
    const struct ff_pub_device *a, *b;
    bool exact; /* the same grouping key */
    struct row *rows;
    size_t n_rows;
};

/* NULL (absent) before any string */
static int cmp_opt(const char *a, const char *b)
{
    if (!a || !b)
        return !!a - !!b;
    return strcmp(a, b);
}

static int cmp_test(const struct ff_profile_test *a, const struct ff_profile_test *b)
{
    int c = strcmp(a->family, b->family);
    if (!c)
        c = strcmp(a->name, b->name);
    if (!c)
        c = cmp_opt(a->impl, b->impl);
    if (!c)
        c = cmp_opt(a->precision, b->precision);
    if (!c)
        c = (a->m > b->m) - (a->m < b->m);
    if (!c)
        c = (a->n > b->n) - (a->n < b->n);
    if (!c)
        c = (a->k > b->k) - (a->k < b->k);
    if (!c)
        c = (a->g > b->g) - (a->g < b->g);
    return c;
}

static bool same_test(const struct ff_profile_test *a, const struct ff_profile_test *b)
{
    return cmp_test(a, b) == 0;
}

/* The figures a test's fastest and slowest repetitions imply: rates scale with 1/time,
 * times (latency) with time; a figure without times, or in bytes, has no spread. */
static struct obs observe(const struct ff_profile_test *t)
{
    struct obs o = {t->value, t->value, t->value, 0, 0, 0};
    const struct ff_profile_times *tm =
        t->device_time_s.present ? &t->device_time_s : &t->wall_time_s;
    bool bytes = t->unit && strcmp(t->unit, FF_PF_UNIT_BYTES) == 0;
    if (bytes || !tm->present || !(tm->median_s > 0) || !(tm->min_s > 0) ||
        tm->max_s < tm->median_s || tm->min_s > tm->median_s)
        return o;
    bool time = t->unit && strcmp(t->unit, FF_PF_UNIT_SECONDS) == 0;
    double fast = tm->min_s / tm->median_s, slow = tm->max_s / tm->median_s;
    o.lo = time ? t->value * fast : t->value / slow;
    o.hi = time ? t->value * slow : t->value / fast;
    return o;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int measure(const struct ff_pub_device *d, const struct ff_profile_test *key, struct side *s)
{
    memset(s, 0, sizeof(*s));
    if (!d)
        return FF_OK;
    s->obs = malloc((d->n_runs ? d->n_runs : 1) * sizeof(*s->obs));
    double *v = malloc((d->n_runs ? d->n_runs : 1) * sizeof(*v));
    if (!s->obs || !v) {
        free(v);
        return FF_ERR_NO_MEMORY;
    }
    double lo = INFINITY, hi = 0;
    for (size_t r = 0; r < d->n_runs; r++) {
        const struct ff_profile_doc *doc = d->runs[r]->doc;
        /* one figure per run: the first test of this key in it (a profile holds each once) */
        for (size_t i = 0; i < ff_profile_test_count(doc); i++) {
            const struct ff_profile_test *t = ff_profile_test_at(doc, i);
            if (!same_test(t, key))
                continue;
            if (t->status == FF_PROFILE_TEST_OK && t->has_value && t->value > 0) {
                struct obs o = observe(t);
                o.llo = log(o.lo);
                o.lvalue = log(o.value);
                o.lhi = log(o.hi);
                s->obs[s->ok] = o;
                v[s->ok++] = o.value;
                lo = fmin(lo, o.lo);
                hi = fmax(hi, o.hi);
            } else {
                s->bad++;
                s->why = t->reason ? t->reason : t->status_text;
            }
            break;
        }
    }
    if (s->ok) {
        s->value = ff_pub_median(v, (size_t)s->ok);
        s->spread = s->value > 0 ? (hi - lo) / s->value : 0;
    }
    free(v);
    return FF_OK;
}

/* xorshift64*: the bootstrap's draws, seeded the same for every row. */
static uint64_t next_u64(uint64_t *st)
{
    uint64_t x = *st;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *st = x;
    return x * 2685821657736338717ull;
}

static double next_unit(uint64_t *st)
{
    return (double)(next_u64(st) >> 11) * (1.0 / 9007199254740992.0);
}

/* The lower middle of v[0..n) (as ff_pub_median; v is sorted): an insertion sort for the few
 * runs a side has, qsort beyond. */
static double round_median(double *v, size_t n)
{
    if (n > 32)
        return ff_pub_median(v, n);
    for (size_t i = 1; i < n; i++) {
        double x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
    return v[(n - 1) / 2];
}

/* One round's log of a side's median. */
static double draw_side(const struct side *s, uint64_t *st, double *scratch)
{
    for (int i = 0; i < s->ok; i++) {
        const struct obs *o = &s->obs[s->ok > 1 ? next_u64(st) % (uint64_t)s->ok : 0];
        double u = next_unit(st), w = next_unit(st);
        double a = u < 0.5 ? o->llo : o->lvalue, b = u < 0.5 ? o->lvalue : o->lhi;
        scratch[i] = a + w * (b - a);
    }
    return round_median(scratch, (size_t)s->ok);
}

static int interval(struct row *r)
{
    int n = r->a.ok > r->b.ok ? r->a.ok : r->b.ok;
    double *scratch = malloc((size_t)n * sizeof(double));
    double *lr = malloc(FF_PUB_BOOT_ROUNDS * sizeof(double));
    if (!scratch || !lr) {
        free(scratch);
        free(lr);
        return FF_ERR_NO_MEMORY;
    }
    uint64_t st = FF_PUB_BOOT_SEED;
    for (int i = 0; i < FF_PUB_BOOT_ROUNDS; i++) {
        double a = draw_side(&r->a, &st, scratch);
        lr[i] = draw_side(&r->b, &st, scratch) - a;
    }
    qsort(lr, FF_PUB_BOOT_ROUNDS, sizeof(*lr), cmp_double);
    int k = (int)floor(0.025 * FF_PUB_BOOT_ROUNDS);
    r->low = exp(lr[k]);
    r->high = exp(lr[FF_PUB_BOOT_ROUNDS - 1 - k]);
    free(scratch);
    free(lr);
    return FF_OK;
}

static int judge(struct row *r)
{
    bool bytes = r->t->unit && strcmp(r->t->unit, FF_PF_UNIT_BYTES) == 0;
    bool time = r->t->unit && strcmp(r->t->unit, FF_PF_UNIT_SECONDS) == 0;
    r->ratio = r->low = r->high = NAN;
    if (!r->a.ok && !r->b.ok) {
        r->verdict = r->a.bad && r->b.bad ? "unsupported in both"
                     : r->a.bad           ? "only in A (not ok)"
                                          : "only in B (not ok)";
        return FF_OK;
    }
    if (!r->b.ok) {
        r->verdict = r->b.bad ? "no longer ok" : "only in A";
        return FF_OK;
    }
    if (!r->a.ok) {
        r->verdict = r->a.bad ? "now ok" : "only in B";
        return FF_OK;
    }
    r->ratio = r->b.value / r->a.value;
    int rc = interval(r);
    if (rc)
        return rc;
    if (r->low <= 1 && r->high >= 1)
        r->verdict = "no change";
    else if ((r->low > 1) != time)
        r->verdict = bytes ? "more" : "faster";
    else
        r->verdict = bytes ? "less" : "slower";
    return FF_OK;
}

static bool is_worse(const struct row *r)
{
    return strcmp(r->verdict, "slower") == 0 || strcmp(r->verdict, "less") == 0 ||
           strcmp(r->verdict, "no longer ok") == 0;
}

static int cmp_test_ptr(const void *a, const void *b)
{
    return cmp_test(*(const struct ff_profile_test *const *)a,
                    *(const struct ff_profile_test *const *)b);
}

/* Every distinct test of the pair's runs, in test order. */
static int collect(struct pair *p)
{
    size_t n = 0;
    const struct ff_pub_device *ds[2] = {p->a, p->b};
    for (int s = 0; s < 2; s++)
        for (size_t r = 0; ds[s] && r < ds[s]->n_runs; r++)
            n += ff_profile_test_count(ds[s]->runs[r]->doc);
    const struct ff_profile_test **all = malloc((n ? n : 1) * sizeof(*all));
    if (!all)
        return FF_ERR_NO_MEMORY;
    n = 0;
    for (int s = 0; s < 2; s++)
        for (size_t r = 0; ds[s] && r < ds[s]->n_runs; r++) {
            const struct ff_profile_doc *doc = ds[s]->runs[r]->doc;
            for (size_t i = 0; i < ff_profile_test_count(doc); i++)
                all[n++] = ff_profile_test_at(doc, i);
        }
    if (n > 1)
        qsort(all, n, sizeof(*all), cmp_test_ptr);
    p->rows = calloc(n ? n : 1, sizeof(*p->rows));
    if (!p->rows) {
        free(all);
        return FF_ERR_NO_MEMORY;
    }
    for (size_t i = 0; i < n; i++)
        if (!p->n_rows || !same_test(p->rows[p->n_rows - 1].t, all[i]))
            p->rows[p->n_rows++].t = all[i];
    free(all);
    return FF_OK;
}

/* ---- pairing devices ---- */

struct dev_ref {
    const struct ff_pub_device *d;
    int side;
    bool used;
};

static const struct ff_pub_run *rep(const struct ff_pub_device *d)
{
    return d->runs[d->n_runs - 1];
}

static int cmp_ref_key(const void *pa, const void *pb)
{
    const struct dev_ref *a = pa, *b = pb;
    int c = ff_pub_run_key_cmp(rep(a->d), rep(b->d));
    return c ? c : a->side - b->side;
}

static int cmp_ref_identity(const void *pa, const void *pb)
{
    const struct dev_ref *a = pa, *b = pb;
    int c = ff_pub_run_identity_cmp(rep(a->d), rep(b->d));
    if (!c)
        c = ff_pub_run_key_cmp(rep(a->d), rep(b->d));
    return c ? c : a->side - b->side;
}

static int pair_devices(const struct ff_pub_set *sa, const struct ff_pub_set *sb, struct pair **out,
                        size_t *n_out)
{
    size_t n = sa->n_devices + sb->n_devices;
    struct dev_ref *refs = malloc((n ? n : 1) * sizeof(*refs));
    struct pair *pairs = calloc(n ? n : 1, sizeof(*pairs));
    if (!refs || !pairs) {
        free(refs);
        free(pairs);
        return FF_ERR_NO_MEMORY;
    }
    size_t k = 0, np = 0;
    for (size_t i = 0; i < sa->n_devices; i++)
        refs[k++] = (struct dev_ref){&sa->devices[i], 0, false};
    for (size_t i = 0; i < sb->n_devices; i++)
        refs[k++] = (struct dev_ref){&sb->devices[i], 1, false};
    /* the same key on both sides (each side's devices have distinct keys) */
    qsort(refs, n, sizeof(*refs), cmp_ref_key);
    for (size_t i = 0; i + 1 < n; i++)
        if (refs[i].side == 0 && refs[i + 1].side == 1 &&
            ff_pub_run_key_cmp(rep(refs[i].d), rep(refs[i + 1].d)) == 0) {
            pairs[np++] = (struct pair){refs[i].d, refs[i + 1].d, true, NULL, 0};
            refs[i].used = refs[i + 1].used = true;
            i++;
        }
    /* then one left of an identity on each side: its driver or flopfit version changed */
    qsort(refs, n, sizeof(*refs), cmp_ref_identity);
    for (size_t i = 0; i < n;) {
        size_t e = i + 1;
        while (e < n && ff_pub_run_identity_cmp(rep(refs[i].d), rep(refs[e].d)) == 0)
            e++;
        size_t left[2] = {0, 0}, at[2] = {0, 0};
        for (size_t j = i; j < e; j++)
            if (!refs[j].used) {
                left[refs[j].side]++;
                at[refs[j].side] = j;
            }
        if (left[0] == 1 && left[1] == 1) {
            pairs[np++] = (struct pair){refs[at[0]].d, refs[at[1]].d, false, NULL, 0};
            refs[at[0]].used = refs[at[1]].used = true;
        }
        i = e;
    }
    for (size_t i = 0; i < n; i++)
        if (!refs[i].used)
            pairs[np++] = (struct pair){refs[i].side == 0 ? refs[i].d : NULL,
                                        refs[i].side == 1 ? refs[i].d : NULL, false, NULL, 0};
    free(refs);
    *out = pairs;
    *n_out = np;
    return FF_OK;
}

/* ---- text ---- */

static void test_label(const struct ff_profile_test *t, char *dst, size_t n)
{
    int len = snprintf(dst, n, "%s %s", t->family, t->name);
    if (t->precision && len >= 0 && (size_t)len < n)
        len += snprintf(dst + len, n - (size_t)len, " %s", t->precision);
    if (t->impl && len >= 0 && (size_t)len < n)
        len += snprintf(dst + len, n - (size_t)len, " %s", t->impl);
    if (len < 0 || (size_t)len >= n)
        return;
    if (strcmp(t->family, FF_PF_FAMILY_OP) == 0) {
        /* an op's whole shape: its tests differ in m, k and g as much as in n */
        struct ff_pub_op op = {.m = t->m, .n = t->n, .k = t->k, .g = t->g};
        char shape[96];
        snprintf(dst + len, n - (size_t)len, " %s",
                 ff_pub_op_shape_text(&op, shape, sizeof(shape)));
    } else if (t->n) {
        snprintf(dst + len, n - (size_t)len, " n=%llu", (unsigned long long)t->n);
    }
}

static void side_text(const struct side *s, const char *unit, char *dst, size_t n)
{
    if (s->ok)
        ff_pub_fmt_value(dst, n, s->value, unit ? unit : "");
    else
        snprintf(dst, n, "%s", s->bad ? "not ok" : "absent");
}

static const char *or_dash(const char *s)
{
    return s && *s ? s : "-";
}

/* "NVIDIA H200 (vulkan, NVIDIA, run standard)" */
static void device_text(const struct ff_pub_device *d, char *dst, size_t n)
{
    const struct ff_pub_run *r = rep(d);
    const struct ff_profile_device *x = &r->info->device;
    if (r->info->device_id)
        snprintf(dst, n, "%s (%s, %s, id %s, run %s)", or_dash(x->name), or_dash(x->backend),
                 or_dash(x->vendor), r->info->device_id, r->kind);
    else
        snprintf(dst, n, "%s (%s, %s, run %s)", or_dash(x->name), or_dash(x->backend),
                 or_dash(x->vendor), r->kind);
}

/* "driver 550.54.15, flopfit 0.1.0 (0a99b39da9d1), 2 profiles" */
static void version_text(const struct ff_pub_device *d, char *dst, size_t n)
{
    const struct ff_profile_info *in = rep(d)->info;
    snprintf(dst, n, "driver %s, flopfit %s (%s), %zu profile%s",
             or_dash(in->device.driver_version), or_dash(in->tool_version), or_dash(in->tool_git),
             d->n_runs, d->n_runs == 1 ? "" : "s");
}

static void md_side(struct ff_pub_sb *o, const char *name, const struct ff_pub_set *set,
                    const struct pair *p, size_t np, int side)
{
    ff_pub_sb_printf(o, "- %s: %zu profile%s, %zu device%s\n", name, set->n_runs,
                     set->n_runs == 1 ? "" : "s", set->n_devices, set->n_devices == 1 ? "" : "s");
    for (size_t i = 0; i < np; i++) {
        const struct ff_pub_device *d = side ? p[i].b : p[i].a;
        if (!d)
            continue;
        char dev[768], ver[512];
        device_text(d, dev, sizeof(dev));
        version_text(d, ver, sizeof(ver));
        ff_pub_sb_puts(o, "  - ");
        ff_pub_esc_md(o, dev);
        ff_pub_sb_puts(o, ": ");
        ff_pub_esc_md(o, ver);
        ff_pub_sb_puts(o, "\n");
    }
}

static void write_md(const struct ff_pub_set *sa, const struct ff_pub_set *sb, const struct pair *p,
                     size_t np, struct ff_pub_sb *o)
{
    ff_pub_sb_puts(o, "# flopfit compare\n\n");
    md_side(o, "A", sa, p, np, 0);
    md_side(o, "B", sb, p, np, 1);
    ff_pub_sb_printf(o,
                     "\nRatio: B over A, the median of each side's runs. Interval: the middle "
                     "95%% of %d bootstrap rounds (runs drawn with replacement, each run's "
                     "figure drawn from its own repetitions' spread; seed %llu). Verdict: "
                     "faster or slower when the interval excludes 1 (for latency lower is "
                     "better), else no change.\n",
                     FF_PUB_BOOT_ROUNDS, (unsigned long long)FF_PUB_BOOT_SEED);
    for (size_t i = 0; i < np; i++) {
        const struct pair *q = &p[i];
        char dev[768], va[512], vb[512];
        device_text(q->a ? q->a : q->b, dev, sizeof(dev));
        /* "Device:" first: profile text never begins a line (a heading, a list) */
        ff_pub_sb_puts(o, "\n**Device:** ");
        ff_pub_esc_md(o, dev);
        ff_pub_sb_puts(o, "\n\n");
        if (!q->a || !q->b) {
            version_text(q->a ? q->a : q->b, va, sizeof(va));
            ff_pub_sb_printf(o, "Only in %s (", q->a ? "A" : "B");
            ff_pub_esc_md(o, va);
            ff_pub_sb_printf(o, "): no device of its key in %s, nothing compared.\n",
                             q->a ? "B" : "A");
            continue;
        }
        version_text(q->a, va, sizeof(va));
        version_text(q->b, vb, sizeof(vb));
        ff_pub_sb_puts(o, "A: ");
        ff_pub_esc_md(o, va);
        ff_pub_sb_puts(o, "; B: ");
        ff_pub_esc_md(o, vb);
        ff_pub_sb_puts(o, q->exact ? ".\n\n"
                                   : ". Paired by device: the driver or flopfit "
                                     "version differs.\n\n");
        ff_pub_sb_puts(o, "| test | A | B | B/A | 95% interval | runs A | runs B | verdict |\n"
                          "|---|---|---|---|---|---|---|---|\n");
        for (size_t k = 0; k < q->n_rows; k++) {
            const struct row *r = &q->rows[k];
            char label[256], a[64], b[64];
            test_label(r->t, label, sizeof(label));
            side_text(&r->a, r->t->unit, a, sizeof(a));
            side_text(&r->b, r->t->unit, b, sizeof(b));
            ff_pub_sb_puts(o, "| ");
            ff_pub_esc_md(o, label);
            ff_pub_sb_puts(o, " | ");
            ff_pub_esc_md(o, a);
            ff_pub_sb_puts(o, " | ");
            ff_pub_esc_md(o, b);
            if (isnan(r->ratio))
                ff_pub_sb_puts(o, " | — | — |");
            else
                ff_pub_sb_printf(o, " | %.3f× | %.3f–%.3f× |", r->ratio, r->low, r->high);
            ff_pub_sb_printf(o, " %d | %d | %s |\n", r->a.ok, r->b.ok, r->verdict);
        }
    }
}

static void csv_num(struct ff_pub_sb *o, double v, bool have)
{
    if (have)
        ff_pub_sb_printf(o, ",%.7g", v);
    else
        ff_pub_sb_puts(o, ",");
}

static void csv_text(struct ff_pub_sb *o, const char *s)
{
    ff_pub_sb_puts(o, ",");
    ff_pub_esc_csv(o, s ? s : "");
}

static const char *side_status(const struct side *s)
{
    return s->ok ? "ok" : s->bad ? "not ok" : "absent";
}

static void write_csv(const struct pair *p, size_t np, struct ff_pub_sb *o)
{
    ff_pub_sb_puts(o, "device,vendor,backend,device_id,run_kind,a_driver,b_driver,a_flopfit,"
                      "b_flopfit,paired,test,family,name,impl,precision,n,unit,a,a_status,"
                      "a_runs,b,b_status,b_runs,ratio,ratio_low,ratio_high,verdict\n");
    for (size_t i = 0; i < np; i++) {
        const struct pair *q = &p[i];
        const struct ff_pub_run *r0 = rep(q->a ? q->a : q->b);
        const struct ff_profile_info *ia = q->a ? rep(q->a)->info : NULL;
        const struct ff_profile_info *ib = q->b ? rep(q->b)->info : NULL;
        struct ff_pub_sb head;
        ff_pub_sb_init(&head);
        ff_pub_esc_csv(&head, r0->info->device.name ? r0->info->device.name : "");
        csv_text(&head, r0->info->device.vendor);
        csv_text(&head, r0->info->device.backend);
        csv_text(&head, r0->info->device_id);
        csv_text(&head, r0->kind);
        csv_text(&head, ia ? ia->device.driver_version : NULL);
        csv_text(&head, ib ? ib->device.driver_version : NULL);
        csv_text(&head, ia ? ia->tool_version : NULL);
        csv_text(&head, ib ? ib->tool_version : NULL);
        csv_text(&head, !q->a ? "only in B" : !q->b ? "only in A" : q->exact ? "key" : "device");
        if (!q->a || !q->b) {
            ff_pub_sb_puts(o, ff_pub_sb_str(&head));
            ff_pub_sb_printf(o, ",,,,,,,,,,,,,,,,,%s\n", q->a ? "only in A" : "only in B");
        }
        for (size_t k = 0; q->a && q->b && k < q->n_rows; k++) {
            const struct row *r = &q->rows[k];
            char label[256];
            test_label(r->t, label, sizeof(label));
            ff_pub_sb_puts(o, ff_pub_sb_str(&head));
            csv_text(o, label);
            csv_text(o, r->t->family);
            csv_text(o, r->t->name);
            csv_text(o, r->t->impl);
            csv_text(o, r->t->precision);
            csv_num(o, (double)r->t->n, r->t->n > 0);
            csv_text(o, r->t->unit);
            csv_num(o, r->a.value, r->a.ok);
            ff_pub_sb_printf(o, ",%s,%d", side_status(&r->a), r->a.ok);
            csv_num(o, r->b.value, r->b.ok);
            ff_pub_sb_printf(o, ",%s,%d", side_status(&r->b), r->b.ok);
            bool have = !isnan(r->ratio);
            if (have)
                ff_pub_sb_printf(o, ",%.6g,%.6g,%.6g", r->ratio, r->low, r->high);
            else
                ff_pub_sb_puts(o, ",,,");
            ff_pub_sb_printf(o, ",%s\n", r->verdict);
        }
        ff_pub_sb_finish(&head);
    }
}

static json_object *side_json(const struct side *s)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "runs_ok", json_object_new_int(s->ok));
    if (s->ok) {
        json_object_object_add(o, "value", json_object_new_double(s->value));
        json_object_object_add(o, "spread", json_object_new_double(s->spread));
    } else if (s->why) {
        json_object_object_add(o, "reason", ff_pub_json_text(s->why));
    }
    return o;
}

static json_object *device_json(const struct ff_pub_set *set, const struct ff_pub_device *d)
{
    if (!d)
        return NULL;
    const struct ff_pub_run *r = rep(d);
    const struct ff_profile_info *in = r->info;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "device", ff_pub_json_text(in->device.name));
    json_object_object_add(o, "vendor", ff_pub_json_text(in->device.vendor));
    json_object_object_add(o, "backend", ff_pub_json_text(in->device.backend));
    json_object_object_add(o, "device_id", ff_pub_json_text(in->device_id));
    json_object_object_add(o, "driver", ff_pub_json_text(in->device.driver_version));
    json_object_object_add(o, "run", ff_pub_json_text(r->kind));
    json_object_object_add(o, "flopfit_version", ff_pub_json_text(in->tool_version));
    json_object_object_add(o, "flopfit_git", ff_pub_json_text(in->tool_git));
    json_object *profiles = json_object_new_array();
    for (size_t i = 0; i < d->n_runs; i++)
        json_object_array_add(profiles, ff_pub_json_text(ff_pub_run_path(set, d->runs[i])));
    json_object_object_add(o, "profiles", profiles);
    return o;
}

static int write_json(const struct ff_pub_set *sa, const struct ff_pub_set *sb,
                      const struct pair *p, size_t np, struct ff_pub_sb *o)
{
    json_object *root = json_object_new_object(), *devs = json_object_new_array();
    json_object_object_add(root, "schema", json_object_new_string("flopfit.compare"));
    json_object_object_add(root, "schema_version", json_object_new_string("2.0"));
    json_object_object_add(root, "bootstrap_rounds", json_object_new_int(FF_PUB_BOOT_ROUNDS));
    json_object_object_add(root, "seed", json_object_new_int64((int64_t)FF_PUB_BOOT_SEED));
    json_object_object_add(root, "interval", json_object_new_double(0.95));
    for (size_t i = 0; i < np; i++) {
        const struct pair *q = &p[i];
        json_object *d = json_object_new_object();
        json_object_object_add(d, "a", device_json(sa, q->a));
        json_object_object_add(d, "b", device_json(sb, q->b));
        json_object_object_add(d, "paired",
                               json_object_new_string(!q->a      ? "only in B"
                                                      : !q->b    ? "only in A"
                                                      : q->exact ? "key"
                                                                 : "device"));
        json_object *tests = json_object_new_array();
        for (size_t k = 0; q->a && q->b && k < q->n_rows; k++) {
            const struct row *r = &q->rows[k];
            json_object *t = json_object_new_object();
            char label[256];
            test_label(r->t, label, sizeof(label));
            json_object_object_add(t, "test", ff_pub_json_text(label));
            json_object_object_add(t, "family", ff_pub_json_text(r->t->family));
            json_object_object_add(t, "name", ff_pub_json_text(r->t->name));
            if (r->t->impl)
                json_object_object_add(t, "impl", ff_pub_json_text(r->t->impl));
            if (r->t->precision)
                json_object_object_add(t, "precision", ff_pub_json_text(r->t->precision));
            if (r->t->n)
                json_object_object_add(t, "n", json_object_new_int64((int64_t)r->t->n));
            if (r->t->unit)
                json_object_object_add(t, "unit", ff_pub_json_text(r->t->unit));
            json_object_object_add(t, "a", side_json(&r->a));
            json_object_object_add(t, "b", side_json(&r->b));
            if (!isnan(r->ratio)) {
                json_object_object_add(t, "ratio", json_object_new_double(r->ratio));
                json_object_object_add(t, "ratio_low", json_object_new_double(r->low));
                json_object_object_add(t, "ratio_high", json_object_new_double(r->high));
            }
            json_object_object_add(t, "verdict", json_object_new_string(r->verdict));
            json_object_array_add(tests, t);
        }
        json_object_object_add(d, "tests", tests);
        json_object_array_add(devs, d);
    }
    json_object_object_add(root, "devices", devs);
    const char *text = json_object_to_json_string_ext(
        root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
    if (text) {
        ff_pub_sb_json(o, text);
        ff_pub_sb_puts(o, "\n");
    }
    json_object_put(root);
    return text ? FF_OK : FF_ERR_NO_MEMORY;
}

int ff_pub_compare(const struct ff_pub_set *a_set, const struct ff_pub_set *b_set,
                   const char *format, struct ff_pub_sb *out, size_t *n_slower)
{
    struct pair *pairs = NULL;
    size_t np = 0;
    *n_slower = 0;
    int rc = pair_devices(a_set, b_set, &pairs, &np);
    for (size_t i = 0; i < np && !rc; i++) {
        struct pair *q = &pairs[i];
        if (!q->a || !q->b)
            continue;
        rc = collect(q);
        for (size_t k = 0; k < q->n_rows && !rc; k++) {
            struct row *r = &q->rows[k];
            rc = measure(q->a, r->t, &r->a);
            if (!rc)
                rc = measure(q->b, r->t, &r->b);
            if (!rc)
                rc = judge(r);
            if (!rc)
                *n_slower += is_worse(r);
        }
    }
    if (!rc) {
        if (strcmp(format, "csv") == 0)
            write_csv(pairs, np, out);
        else if (strcmp(format, "json") == 0)
            rc = write_json(a_set, b_set, pairs, np, out);
        else
            write_md(a_set, b_set, pairs, np, out);
    }
    if (!rc && strcmp(format, "md") == 0)
        ff_pub_sb_printf(out, "\n%zu test%s worse (slower, less or no longer ok).\n", *n_slower,
                         *n_slower == 1 ? "" : "s");
    for (size_t i = 0; i < np; i++) {
        for (size_t k = 0; k < pairs[i].n_rows; k++) {
            free(pairs[i].rows[k].a.obs);
            free(pairs[i].rows[k].b.obs);
        }
        free(pairs[i].rows);
    }
    free(pairs);
    return rc ? rc : ff_pub_sb_status(out);
}
