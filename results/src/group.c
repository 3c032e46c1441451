/*
 * results/src/group.c — runs to devices: repeated runs of one device (same backend, device
 * name and driver version) become one row whose figures are the median of the runs, with
 * their spread; then the estimator (serve.c), the sort and the numbered footnotes.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <flopfit/status.h>

#include "results.h"
#include "results_impl.h"

static const char *str_or(const char *s, const char *dflt)
{
    return s ? s : dflt;
}

static bool same_device(const struct ff_pub_run *a, const struct ff_pub_run *b)
{
    const struct ff_profile_device *x = &a->info->device, *y = &b->info->device;
    return strcmp(str_or(x->backend, ""), str_or(y->backend, "")) == 0 &&
           strcmp(str_or(x->name, ""), str_or(y->name, "")) == 0 &&
           strcmp(str_or(x->driver_version, ""), str_or(y->driver_version, "")) == 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double ff_pub_median(double *v, size_t n)
{
    if (n == 0)
        return 0.0;
    qsort(v, n, sizeof(*v), cmp_double);
    /* the lower middle of an even count: always a figure some run measured, never a mean of
     * two that no run reached (one run's matrix engine failed, the other's did not) */
    return v[(n - 1) / 2];
}

/* The device's figure for metric m: the median over the runs that measured it. */
static void aggregate(struct ff_pub_device *d, int m, double *scratch)
{
    struct ff_pub_figure *f = &d->fig[m];
    size_t n = 0;
    const struct ff_pub_figure *newest_bad = NULL;
    for (size_t i = 0; i < d->n_runs; i++) {
        const struct ff_pub_figure *r = &d->runs[i]->fig[m];
        if (r->state == FF_PUB_OK)
            scratch[n++] = r->value;
        else if (r->state != FF_PUB_ABSENT &&
                 (!newest_bad || r->state == FF_PUB_FAILED || newest_bad->state != FF_PUB_FAILED))
            newest_bad = r;
    }
    if (n == 0) {
        if (newest_bad)
            *f = *newest_bad;
        else
            memset(f, 0, sizeof(*f));
        return;
    }
    double median = ff_pub_median(scratch, n);
    /* impl, size and probe details come from the run nearest the median */
    const struct ff_pub_figure *near = NULL;
    for (size_t i = 0; i < d->n_runs; i++) {
        const struct ff_pub_figure *r = &d->runs[i]->fig[m];
        if (r->state == FF_PUB_OK &&
            (!near || fabs(r->value - median) < fabs(near->value - median)))
            near = r;
    }
    *f = *near;
    f->value = median;
    f->min = scratch[0];
    f->max = scratch[n - 1];
    f->runs = (int)n;
}

/* The estimator's figures of the device: per field the median over its runs. */
static void aggregate_spec(struct ff_pub_device *d, double *scratch)
{
    const struct ff_pub_run *newest = NULL;
    for (size_t i = 0; i < d->n_runs; i++)
        if (d->runs[i]->has_spec)
            newest = d->runs[i];
    d->has_spec = newest != NULL;
    if (!newest)
        return;
    d->spec = newest->spec;
#define MEDIAN_OF(field)                                                                           \
    do {                                                                                           \
        size_t n = 0;                                                                              \
        for (size_t i = 0; i < d->n_runs; i++)                                                     \
            if (d->runs[i]->has_spec)                                                              \
                scratch[n++] = d->runs[i]->spec.field;                                             \
        d->spec.field = ff_pub_median(scratch, n);                                                 \
    } while (0)
    for (int p = 0; p < FF_PREC_COUNT; p++)
        MEDIAN_OF(flops_per_s[p]);
    MEDIAN_OF(mem_bytes);
    MEDIAN_OF(bandwidth_bytes_per_s);
#undef MEDIAN_OF
}

static int cmp_created(const struct ff_pub_run *a, const struct ff_pub_run *b)
{
    int c = strcmp(str_or(a->info->created, ""), str_or(b->info->created, ""));
    return c ? c : strcmp(a->path, b->path);
}

/* "a-b" or "a-b-c" into dst, cut to fit. */
static void join3(char *dst, size_t n, const char *a, const char *b, const char *c)
{
    size_t len = 0;
    const char *parts[3] = {a, b, c};
    dst[0] = 0;
    for (size_t i = 0; i < 3 && parts[i]; i++) {
        if (i && len + 1 < n)
            dst[len++] = '-';
        for (const char *p = parts[i]; *p && len + 1 < n; p++)
            dst[len++] = *p;
        dst[len] = 0;
    }
}

static int group(struct ff_pub_set *set)
{
    set->devices = calloc(set->n_runs ? set->n_runs : 1, sizeof(*set->devices));
    double *scratch = malloc((set->n_runs ? set->n_runs : 1) * sizeof(double));
    if (!set->devices || !scratch) {
        free(scratch);
        return FF_ERR_NO_MEMORY;
    }
    for (size_t i = 0; i < set->n_runs; i++) {
        struct ff_pub_run *r = &set->runs[i];
        struct ff_pub_device *d = NULL;
        for (size_t k = 0; k < set->n_devices && !d; k++)
            if (same_device(set->devices[k].runs[0], r))
                d = &set->devices[k];
        if (!d)
            d = &set->devices[set->n_devices++];
        struct ff_pub_run **runs = realloc(d->runs, (d->n_runs + 1) * sizeof(*runs));
        if (!runs) {
            free(scratch);
            return FF_ERR_NO_MEMORY;
        }
        d->runs = runs;
        /* oldest first: insert in order of creation */
        size_t at = d->n_runs;
        while (at > 0 && cmp_created(d->runs[at - 1], r) > 0) {
            d->runs[at] = d->runs[at - 1];
            at--;
        }
        d->runs[at] = r;
        d->n_runs++;
    }
    for (size_t k = 0; k < set->n_devices; k++) {
        struct ff_pub_device *d = &set->devices[k];
        d->info = d->runs[d->n_runs - 1]->info;
        for (int m = 0; m < FF_PUB_METRIC_COUNT; m++)
            aggregate(d, m, scratch);
        aggregate_spec(d, scratch);
        ff_pub_vendor_slug(d->info->device.vendor, d->vendor_slug, sizeof(d->vendor_slug));
        ff_pub_slug(str_or(d->info->device.name, "device"), d->device_slug, sizeof(d->device_slug));
        char driver[128];
        ff_pub_slug(str_or(d->info->device.driver_version, "driver"), driver, sizeof(driver));
        char backend[FF_PUB_SLUG_MAX + 1];
        ff_pub_slug(str_or(d->info->device.backend, "api"), backend, sizeof(backend));
        join3(d->slug, sizeof(d->slug), backend, d->device_slug, NULL);
        /* the same device on two drivers: the second gets its driver in its name */
        for (size_t j = 0; j < k; j++)
            if (strcmp(set->devices[j].slug, d->slug) == 0)
                join3(d->slug, sizeof(d->slug), backend, d->device_slug, driver);
    }
    free(scratch);
    return FF_OK;
}

/* con, prn, aux, nul, com1-com9, lpt1-lpt9: names Windows gives to devices, with any
 * extension ("con.json" too). */
static bool windows_reserved(const char *s, size_t len)
{
    static const char *const names[] = {"con", "prn", "aux", "nul"};
    const char *dot = memchr(s, '.', len);
    size_t stem = dot ? (size_t)(dot - s) : len;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (stem == 3 && memcmp(s, names[i], 3) == 0)
            return true;
    return stem == 4 && (memcmp(s, "com", 3) == 0 || memcmp(s, "lpt", 3) == 0) && s[3] >= '1' &&
           s[3] <= '9';
}

void ff_pub_slug(const char *s, char *dst, size_t n)
{
    char buf[FF_PUB_SLUG_MAX + 2];
    size_t len = 0, max = n - 1 < FF_PUB_SLUG_MAX ? n - 1 : FF_PUB_SLUG_MAX;
    bool dash = false;
    for (const char *p = s; *p && len + 2 <= max; p++) {
        unsigned char c = (unsigned char)*p;
        if (c < 0x80 && (isalnum(c) || (c == '.' && len > 0))) {
            if (dash && len > 0)
                buf[len++] = '-';
            buf[len++] = (char)tolower(c);
            dash = false;
        } else {
            dash = true;
        }
    }
    /* no "." or "..", no name a cut leaves ending in '.' or '-' */
    while (len > 0 && (buf[len - 1] == '.' || buf[len - 1] == '-'))
        len--;
    if (len == 0)
        buf[len++] = 'x';
    if (windows_reserved(buf, len)) {
        /* "con" -> "con_", "aux.json" -> "aux_.json": the stem gets the mark */
        const char *dot = memchr(buf, '.', len);
        size_t stem = dot ? (size_t)(dot - buf) : len;
        if (len + 1 > max)
            len = max - 1;
        memmove(buf + stem + 1, buf + stem, len - stem);
        buf[stem] = '_';
        len++;
    }
    memcpy(dst, buf, len);
    dst[len] = 0;
}

void ff_pub_vendor_slug(const char *vendor, char *dst, size_t n)
{
    /* the names drivers report for one vendor (CPUID strings, PCI vendor names) */
    static const char *const known[][2] = {
        {"authenticamd", "amd"}, {"advanced micro devices", "amd"},
        {"amd", "amd"},          {"genuineintel", "intel"},
        {"intel", "intel"},      {"nvidia", "nvidia"},
        {"apple", "apple"},      {"qualcomm", "qualcomm"},
        {"arm", "arm"},
    };
    char low[256];
    size_t i = 0;
    for (const char *p = vendor ? vendor : ""; *p && i + 1 < sizeof(low); p++)
        low[i++] = (char)tolower((unsigned char)*p);
    low[i] = 0;
    for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++)
        if (strstr(low, known[k][0])) {
            ff_strlcpy(dst, known[k][1], n);
            return;
        }
    ff_pub_slug(vendor ? vendor : "unknown", dst, n);
}

/* ---- sorting ---- */

struct sort_key {
    struct ff_pub_device dev;
    struct ff_pub_cell cell;
};

static int cmp_keys(const struct sort_key *a, const struct sort_key *b, int dir)
{
    bool na = isnan(a->cell.sort), nb = isnan(b->cell.sort);
    int c = 0;
    if (!na && !nb)
        c = dir * ((a->cell.sort > b->cell.sort) - (a->cell.sort < b->cell.sort));
    else if (na != nb)
        c = na ? 1 : -1; /* no figure sorts last whatever the direction */
    else
        c = dir * strcmp(a->cell.text, b->cell.text);
    if (c)
        return c;
    const struct ff_profile_device *x = &a->dev.info->device, *y = &b->dev.info->device;
    c = strcmp(str_or(x->name, ""), str_or(y->name, ""));
    if (!c)
        c = strcmp(str_or(x->backend, ""), str_or(y->backend, ""));
    if (!c)
        c = strcmp(str_or(x->driver_version, ""), str_or(y->driver_version, ""));
    return c;
}

static int sort_devices(struct ff_pub_set *set, const struct ff_pub_column *col, bool reverse)
{
    if (set->n_devices < 2)
        return FF_OK;
    struct sort_key *k = malloc(set->n_devices * sizeof(*k));
    if (!k)
        return FF_ERR_NO_MEMORY;
    bool numeric = false;
    for (size_t i = 0; i < set->n_devices; i++) {
        k[i].dev = set->devices[i];
        col->cell(set, &set->devices[i], col, &k[i].cell);
        numeric |= !isnan(k[i].cell.sort);
    }
    /* figures: the best first (the largest, or the smallest latency); text: A to Z */
    int dir = numeric ? -1 : 1;
    if (numeric && col->metric >= 0 && ff_pub_metrics()[col->metric].lower_is_better)
        dir = 1;
    if (reverse)
        dir = -dir;
    /* insertion sort: stable, and a table has tens of rows */
    for (size_t i = 1; i < set->n_devices; i++) {
        struct sort_key t = k[i];
        size_t j = i;
        for (; j > 0 && cmp_keys(&k[j - 1], &t, dir) > 0; j--)
            k[j] = k[j - 1];
        k[j] = t;
    }
    for (size_t i = 0; i < set->n_devices; i++)
        set->devices[i] = k[i].dev;
    free(k);
    return FF_OK;
}

/* ---- footnotes ---- */

size_t ff_pub_note_number(const struct ff_pub_set *set, const char *text)
{
    for (size_t i = 0; text && i < set->notes.n; i++)
        if (strcmp(set->notes.text[i], text) == 0)
            return i + 1;
    return 0;
}

static int add_note(struct ff_pub_set *set, const char *text)
{
    if (!text || ff_pub_note_number(set, text))
        return FF_OK;
    char **t = realloc(set->notes.text, (set->notes.n + 1) * sizeof(*t));
    if (!t)
        return FF_ERR_NO_MEMORY;
    set->notes.text = t;
    if (!(t[set->notes.n] = strdup(text)))
        return FF_ERR_NO_MEMORY;
    set->notes.n++;
    return FF_OK;
}

static int number_notes(struct ff_pub_set *set)
{
    size_t n_cols;
    const struct ff_pub_column *cols = ff_pub_columns(&n_cols);
    for (size_t i = 0; i < set->n_devices; i++)
        for (size_t c = 0; c < n_cols; c++) {
            struct ff_pub_cell cell;
            cols[c].cell(set, &set->devices[i], &cols[c], &cell);
            int rc = add_note(set, cell.note);
            if (rc)
                return rc;
        }
    return FF_OK;
}

int ff_pub_set_finish(struct ff_pub_set *set, const struct ff_pub_options *o, char *err,
                      size_t errlen)
{
    const char *sort = o->sort ? o->sort : "fp32";
    const struct ff_pub_column *col = ff_pub_column_find(sort);
    if (!col) {
        char ids[512] = "";
        size_t n;
        const struct ff_pub_column *cols = ff_pub_columns(&n);
        for (size_t i = 0; i < n; i++)
            snprintf(ids + strlen(ids), sizeof(ids) - strlen(ids), "%s%s", i ? ", " : "",
                     cols[i].id);
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "invalid value '%s' for --sort: expected one of %s", sort, ids);
    }
    int rc = group(set);
    if (rc)
        return ff_errf(err, errlen, rc, "out of memory");
    for (size_t i = 0; i < set->n_devices; i++)
        ff_pub_estimate_device(&set->devices[i], o->estimate);
    rc = sort_devices(set, col, o->reverse);
    if (!rc)
        rc = number_notes(set);
    return rc ? ff_errf(err, errlen, rc, "out of memory") : FF_OK;
}
