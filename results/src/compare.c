/*
 * results/src/compare.c — `flopfit results --compare OLD NEW`: a regression report per test.
 *
 * A test is one (family, name, impl, precision, shape). Each side's figure is the median over
 * its profiles; its noise is half its relative spread: between runs when the side has
 * several, and never less than half the spread of one run's timed repetitions. A change is
 * real when it exceeds the noise of both sides together and FF_PUB_NOISE_FLOOR; otherwise it
 * is "within noise". For times (latency) smaller is faster; for bytes (usable memory) the
 * words are "more" and "less".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include <flopfit/status.h>

#include "results_impl.h"

struct side {
    int ok;          /* runs with a value */
    int bad;         /* runs where it was unsupported or failed */
    double value;    /* median */
    double noise;    /* relative, half-spread */
    const char *why; /* a reason when !ok */
};

struct row {
    const struct ff_profile_test *t; /* the first test with this key (names its fields) */
    struct side old, new_;
    const char *verdict;
    double ratio; /* new / old, > 1 better (times: old / new) */
};

static bool same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool same_test(const struct ff_profile_test *a, const struct ff_profile_test *b)
{
    return strcmp(a->family, b->family) == 0 && strcmp(a->name, b->name) == 0 &&
           same_str(a->impl, b->impl) && same_str(a->precision, b->precision) && a->m == b->m &&
           a->n == b->n && a->k == b->k;
}

static double rep_noise(const struct ff_profile_test *t)
{
    const struct ff_profile_times *tm =
        t->device_time_s.present ? &t->device_time_s : &t->wall_time_s;
    return tm->present && tm->median_s > 0 ? (tm->max_s - tm->min_s) / (2 * tm->median_s) : 0;
}

static void measure(const struct ff_pub_set *set, const struct ff_profile_test *key, struct side *s)
{
    memset(s, 0, sizeof(*s));
    /* one value per matching test: a profile may hold the same test more than once */
    size_t n = 0;
    for (size_t r = 0; r < set->n_runs; r++)
        for (size_t i = 0; i < ff_profile_test_count(set->runs[r].doc); i++)
            n += same_test(ff_profile_test_at(set->runs[r].doc, i), key);
    double *v = malloc((n + 1) * sizeof(*v));
    if (!v)
        return;
    double reps = 0;
    for (size_t r = 0; r < set->n_runs; r++) {
        const struct ff_profile_doc *doc = set->runs[r].doc;
        for (size_t i = 0; i < ff_profile_test_count(doc); i++) {
            const struct ff_profile_test *t = ff_profile_test_at(doc, i);
            if (!same_test(t, key))
                continue;
            if (t->status == FF_PROFILE_TEST_OK && t->has_value) {
                v[s->ok++] = t->value;
                reps = fmax(reps, rep_noise(t));
            } else {
                s->bad++;
                s->why = t->reason ? t->reason : t->status_text;
            }
        }
    }
    if (s->ok) {
        s->value = ff_pub_median(v, (size_t)s->ok);
        double between = s->value > 0 ? (v[s->ok - 1] - v[0]) / (2 * s->value) : 0;
        s->noise = fmax(between, reps);
    }
    free(v);
}

static void judge(struct row *r)
{
    bool bytes = r->t->unit && strcmp(r->t->unit, FF_PF_UNIT_BYTES) == 0;
    bool time = r->t->unit && strcmp(r->t->unit, FF_PF_UNIT_SECONDS) == 0;
    r->ratio = NAN;
    if (!r->old.ok && !r->new_.ok) {
        r->verdict = r->old.bad && r->new_.bad ? "unsupported in both"
                     : r->old.bad              ? "only in old (not ok)"
                                               : "only in new (not ok)";
        return;
    }
    if (!r->new_.ok) {
        r->verdict = r->new_.bad ? "no longer ok" : "only in old";
        return;
    }
    if (!r->old.ok) {
        r->verdict = r->old.bad ? "now ok" : "only in new";
        return;
    }
    r->ratio = time ? r->old.value / r->new_.value : r->new_.value / r->old.value;
    double noise = fmax(r->old.noise + r->new_.noise, FF_PUB_NOISE_FLOOR);
    if (fabs(r->ratio - 1) <= noise)
        r->verdict = "within noise";
    else if (r->ratio > 1)
        r->verdict = bytes ? "more" : "faster";
    else
        r->verdict = bytes ? "less" : "slower";
}

static bool is_worse(const struct row *r)
{
    return strcmp(r->verdict, "slower") == 0 || strcmp(r->verdict, "less") == 0 ||
           strcmp(r->verdict, "no longer ok") == 0;
}

/* Every distinct test of a, then those only b has. */
static int collect(const struct ff_pub_set *a, const struct ff_pub_set *b, struct row **out,
                   size_t *n)
{
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    const struct ff_pub_set *sides[2] = {a, b};
    for (int s = 0; s < 2; s++)
        for (size_t r = 0; r < sides[s]->n_runs; r++) {
            const struct ff_profile_doc *doc = sides[s]->runs[r].doc;
            for (size_t i = 0; i < ff_profile_test_count(doc); i++) {
                const struct ff_profile_test *t = ff_profile_test_at(doc, i);
                bool seen = false;
                for (size_t k = 0; k < *n && !seen; k++)
                    seen = same_test((*out)[k].t, t);
                if (seen)
                    continue;
                if (*n == cap) {
                    cap = cap ? 2 * cap : 64;
                    struct row *g = realloc(*out, cap * sizeof(*g));
                    if (!g)
                        return FF_ERR_NO_MEMORY;
                    *out = g;
                }
                memset(&(*out)[*n], 0, sizeof(**out));
                (*out)[(*n)++].t = t;
            }
        }
    return FF_OK;
}

static void test_label(const struct ff_profile_test *t, char *dst, size_t n)
{
    int len = snprintf(dst, n, "%s %s", t->family, t->name);
    if (t->precision && len >= 0 && (size_t)len < n)
        len += snprintf(dst + len, n - (size_t)len, " %s", t->precision);
    if (t->impl && len >= 0 && (size_t)len < n)
        len += snprintf(dst + len, n - (size_t)len, " %s", t->impl);
    if (t->n && len >= 0 && (size_t)len < n)
        snprintf(dst + len, n - (size_t)len, " n=%llu", (unsigned long long)t->n);
}

static void side_text(const struct side *s, const char *unit, char *dst, size_t n)
{
    if (s->ok)
        ff_pub_fmt_value(dst, n, s->value, unit ? unit : "");
    else
        snprintf(dst, n, "%s", s->bad ? "not ok" : "absent");
}

static void write_md(const struct ff_pub_set *a, const struct ff_pub_set *b, const struct row *rows,
                     size_t n, struct ff_pub_sb *o)
{
    ff_pub_sb_printf(o,
                     "# flopfit compare\n\nold: %zu profile%s, new: %zu profile%s. Ratio: new "
                     "over old (latency: old over new), so above 1 is better. Noise: half the "
                     "relative spread of each side; a change within both noises together "
                     "(at least %.0f%%) is \"within noise\".\n\n",
                     a->n_runs, a->n_runs == 1 ? "" : "s", b->n_runs, b->n_runs == 1 ? "" : "s",
                     100 * FF_PUB_NOISE_FLOOR);
    ff_pub_sb_puts(o, "| test | old | new | ratio | noise old | noise new | verdict |\n"
                      "|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < n; i++) {
        const struct row *r = &rows[i];
        char label[256], ov[64], nv[64];
        test_label(r->t, label, sizeof(label));
        side_text(&r->old, r->t->unit, ov, sizeof(ov));
        side_text(&r->new_, r->t->unit, nv, sizeof(nv));
        ff_pub_sb_puts(o, "| ");
        ff_pub_esc_md(o, label);
        ff_pub_sb_puts(o, " | ");
        ff_pub_esc_md(o, ov);
        ff_pub_sb_puts(o, " | ");
        ff_pub_esc_md(o, nv);
        ff_pub_sb_puts(o, " | ");
        if (isnan(r->ratio))
            ff_pub_sb_puts(o, "— | ");
        else
            ff_pub_sb_printf(o, "%.3f× | ", r->ratio);
        if (r->old.ok)
            ff_pub_sb_printf(o, "±%.1f%% | ", 100 * r->old.noise);
        else
            ff_pub_sb_puts(o, "— | ");
        if (r->new_.ok)
            ff_pub_sb_printf(o, "±%.1f%% | ", 100 * r->new_.noise);
        else
            ff_pub_sb_puts(o, "— | ");
        ff_pub_sb_printf(o, "%s |\n", r->verdict);
    }
}

static void write_csv(const struct row *rows, size_t n, struct ff_pub_sb *o)
{
    ff_pub_sb_puts(o, "test,family,name,impl,precision,n,unit,old,new,ratio,old_noise,"
                      "new_noise,verdict\n");
    for (size_t i = 0; i < n; i++) {
        const struct row *r = &rows[i];
        char label[256];
        test_label(r->t, label, sizeof(label));
        ff_pub_esc_csv(o, label);
        const char *f[] = {r->t->family, r->t->name, r->t->impl, r->t->precision};
        for (size_t k = 0; k < 4; k++) {
            ff_pub_sb_puts(o, ",");
            ff_pub_esc_csv(o, f[k] ? f[k] : "");
        }
        ff_pub_sb_printf(o, ",%llu,", (unsigned long long)r->t->n);
        ff_pub_esc_csv(o, r->t->unit ? r->t->unit : "");
        const struct side *s[2] = {&r->old, &r->new_};
        for (int k = 0; k < 2; k++)
            if (s[k]->ok)
                ff_pub_sb_printf(o, ",%.7g", s[k]->value);
            else
                ff_pub_sb_printf(o, ",%s", s[k]->bad ? "not ok" : "absent");
        if (isnan(r->ratio))
            ff_pub_sb_puts(o, ",");
        else
            ff_pub_sb_printf(o, ",%.4f", r->ratio);
        for (int k = 0; k < 2; k++)
            if (s[k]->ok)
                ff_pub_sb_printf(o, ",%.4f", s[k]->noise);
            else
                ff_pub_sb_puts(o, ",");
        ff_pub_sb_printf(o, ",%s\n", r->verdict);
    }
}

static json_object *side_json(const struct side *s)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "runs_ok", json_object_new_int(s->ok));
    if (s->ok) {
        json_object_object_add(o, "value", json_object_new_double(s->value));
        json_object_object_add(o, "noise", json_object_new_double(s->noise));
    } else if (s->why) {
        json_object_object_add(o, "reason", ff_pub_json_text(s->why));
    }
    return o;
}

static int write_json(const struct row *rows, size_t n, struct ff_pub_sb *o)
{
    json_object *root = json_object_new_object(), *tests = json_object_new_array();
    json_object_object_add(root, "schema", json_object_new_string("flopfit.compare"));
    json_object_object_add(root, "schema_version", json_object_new_string("1.0"));
    json_object_object_add(root, "noise_floor", json_object_new_double(FF_PUB_NOISE_FLOOR));
    for (size_t i = 0; i < n; i++) {
        const struct row *r = &rows[i];
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
        json_object_object_add(t, "old", side_json(&r->old));
        json_object_object_add(t, "new", side_json(&r->new_));
        if (!isnan(r->ratio))
            json_object_object_add(t, "ratio", json_object_new_double(r->ratio));
        json_object_object_add(t, "verdict", json_object_new_string(r->verdict));
        json_object_array_add(tests, t);
    }
    json_object_object_add(root, "tests", tests);
    const char *text = json_object_to_json_string_ext(
        root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
    if (text) {
        ff_pub_sb_json(o, text);
        ff_pub_sb_puts(o, "\n");
    }
    json_object_put(root);
    return text ? FF_OK : FF_ERR_NO_MEMORY;
}

int ff_pub_compare(const struct ff_pub_set *old_set, const struct ff_pub_set *new_set,
                   const char *format, struct ff_pub_sb *out, size_t *n_slower)
{
    struct row *rows = NULL;
    size_t n = 0;
    *n_slower = 0;
    int rc = collect(old_set, new_set, &rows, &n);
    for (size_t i = 0; i < n && !rc; i++) {
        measure(old_set, rows[i].t, &rows[i].old);
        measure(new_set, rows[i].t, &rows[i].new_);
        judge(&rows[i]);
        *n_slower += is_worse(&rows[i]);
    }
    if (!rc) {
        if (strcmp(format, "csv") == 0)
            write_csv(rows, n, out);
        else if (strcmp(format, "json") == 0)
            rc = write_json(rows, n, out);
        else
            write_md(old_set, new_set, rows, n, out);
    }
    if (!rc && strcmp(format, "md") == 0)
        ff_pub_sb_printf(out, "\n%zu test%s worse beyond the noise.\n", *n_slower,
                         *n_slower == 1 ? "" : "s");
    free(rows);
    return rc ? rc : ff_pub_sb_status(out);
}
