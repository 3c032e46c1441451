/*
 * results/src/group.c — runs to devices: the runs of one grouping key (vendor, device name,
 * device id, driver version, backend, run kind, flopfit minor version) become one row whose
 * figures are the median of the runs, with their spread; then the estimator (serve.c), the
 * sort and the numbered footnotes. Grouping and sorting are O(n log n) in the runs and the
 * footnotes are hashed: a collection of ten thousand profiles is read in seconds.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
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

static int cmp_part(const char *a, const char *b)
{
    return strcmp(str_or(a, ""), str_or(b, ""));
}

int ff_pub_run_identity_cmp(const struct ff_pub_run *a, const struct ff_pub_run *b)
{
    const struct ff_profile_device *x = &a->info->device, *y = &b->info->device;
    int c = cmp_part(x->vendor, y->vendor);
    if (!c)
        c = cmp_part(x->name, y->name);
    if (!c)
        c = cmp_part(a->info->device_id, b->info->device_id);
    if (!c)
        c = cmp_part(x->backend, y->backend);
    if (!c)
        c = strcmp(a->kind, b->kind);
    return c;
}

int ff_pub_run_key_cmp(const struct ff_pub_run *a, const struct ff_pub_run *b)
{
    int c = ff_pub_run_identity_cmp(a, b);
    if (!c)
        c = cmp_part(a->info->device.driver_version, b->info->device.driver_version);
    if (!c)
        c = strcmp(a->tool_minor, b->tool_minor);
    return c;
}

const char *ff_pub_device_key_text(const struct ff_pub_device *d, char *buf, size_t n)
{
    const struct ff_pub_run *r = d->runs[d->n_runs - 1];
    const struct ff_profile_device *x = &r->info->device;
    const char *dash = "-";
    snprintf(buf, n, "%s / %s / %s / %s / %s / %s / %s", str_or(x->vendor, dash),
             str_or(x->name, dash), str_or(r->info->device_id, dash),
             str_or(x->driver_version, dash), str_or(x->backend, dash), r->kind,
             r->tool_minor[0] ? r->tool_minor : dash);
    return buf;
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
    /* Usable memory: a probe its cap or time limit stopped measured a lower bound, never the
     * device's memory. With runs that finished, only they count; with none, the highest bound
     * is shown as one ("≥"). */
    bool bounds_only = false;
    if (m == FF_PUB_USABLE) {
        size_t full = 0;
        for (size_t i = 0; i < d->n_runs; i++) {
            const struct ff_pub_figure *r = &d->runs[i]->fig[m];
            if (r->state == FF_PUB_OK && !r->capped && !r->time_limited)
                scratch[full++] = r->value;
        }
        if (full)
            n = full;
        else
            bounds_only = true;
    }
    if (bounds_only) {
        const struct ff_pub_figure *hi = NULL;
        for (size_t i = 0; i < d->n_runs; i++) {
            const struct ff_pub_figure *r = &d->runs[i]->fig[m];
            if (r->state == FF_PUB_OK && (!hi || r->value > hi->value))
                hi = r;
        }
        *f = *hi;
        f->min = f->max = hi->value;
        f->runs = (int)n;
        return;
    }
    double median = ff_pub_median(scratch, n);
    /* impl, size and probe details come from the run nearest the median */
    const struct ff_pub_figure *near = NULL;
    for (size_t i = 0; i < d->n_runs; i++) {
        const struct ff_pub_figure *r = &d->runs[i]->fig[m];
        if (r->state == FF_PUB_OK && !(m == FF_PUB_USABLE && (r->capped || r->time_limited)) &&
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

static int cmp_run_ptr(const void *pa, const void *pb)
{
    const struct ff_pub_run *a = *(const struct ff_pub_run *const *)pa;
    const struct ff_pub_run *b = *(const struct ff_pub_run *const *)pb;
    int c = ff_pub_run_key_cmp(a, b);
    return c ? c : cmp_created(a, b);
}

static int cmp_device_order(const void *pa, const void *pb)
{
    const struct ff_pub_device *a = pa, *b = pb;
    return (a->order > b->order) - (a->order < b->order);
}

/* ---- a set of strings (slugs, footnotes): open addressing, FNV-1a ---- */

static size_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (size_t)h;
}

/* The slot of text in slots[0..n) (n a power of two): where it is, or the empty one where
 * it would go. slots hold index + 1 into texts. */
static size_t hash_find(const size_t *slots, size_t n, char *const *texts, const char *text)
{
    size_t i = hash_str(text) & (n - 1);
    while (slots[i] && strcmp(texts[slots[i] - 1], text) != 0)
        i = (i + 1) & (n - 1);
    return i;
}

static size_t pow2_at_least(size_t n)
{
    size_t p = 16;
    while (p < n)
        p *= 2;
    return p;
}

/* Slugs unique in the set: the device's name with its backend; a second device of that name
 * gets its driver, then its run kind, then flopfit's version, then a number. */
static int unique_slugs(struct ff_pub_set *set)
{
    size_t cap = pow2_at_least(2 * set->n_devices + 1);
    size_t *slots = calloc(cap, sizeof(*slots));
    char **names = malloc((set->n_devices ? set->n_devices : 1) * sizeof(*names));
    if (!slots || !names) {
        free(slots);
        free(names);
        return FF_ERR_NO_MEMORY;
    }
    for (size_t k = 0; k < set->n_devices; k++) {
        struct ff_pub_device *d = &set->devices[k];
        const struct ff_pub_run *r = d->runs[d->n_runs - 1];
        char backend[FF_PUB_SLUG_MAX + 1], driver[FF_PUB_SLUG_MAX + 1], kind[FF_PUB_SLUG_MAX + 1],
            tool[FF_PUB_SLUG_MAX + 1], base[256];
        ff_pub_slug(str_or(d->info->device.backend, "api"), backend, sizeof(backend));
        ff_pub_slug(str_or(d->info->device.driver_version, "driver"), driver, sizeof(driver));
        ff_pub_slug(r->kind, kind, sizeof(kind));
        ff_pub_slug(r->tool_minor[0] ? r->tool_minor : "unknown", tool, sizeof(tool));
        join3(d->slug, sizeof(d->slug), backend, d->device_slug, NULL);
        size_t at = hash_find(slots, cap, names, d->slug);
        if (slots[at]) {
            join3(d->slug, sizeof(d->slug), backend, d->device_slug, driver);
            at = hash_find(slots, cap, names, d->slug);
        }
        if (slots[at]) {
            snprintf(base, sizeof(base), "%s", d->slug);
            join3(d->slug, sizeof(d->slug), base, kind, NULL);
            at = hash_find(slots, cap, names, d->slug);
        }
        if (slots[at]) {
            join3(d->slug, sizeof(d->slug), base, kind, tool);
            at = hash_find(slots, cap, names, d->slug);
            snprintf(base, sizeof(base), "%s", d->slug);
        }
        for (unsigned i = 2; slots[at]; i++) {
            char num[16];
            snprintf(num, sizeof(num), "%u", i);
            join3(d->slug, sizeof(d->slug), base, num, NULL);
            at = hash_find(slots, cap, names, d->slug);
        }
        names[k] = d->slug;
        slots[at] = k + 1;
    }
    free(slots);
    free(names);
    return FF_OK;
}

static int group(struct ff_pub_set *set)
{
    size_t n = set->n_runs ? set->n_runs : 1;
    set->devices = calloc(n, sizeof(*set->devices));
    double *scratch = malloc(n * sizeof(double));
    struct ff_pub_run **sorted = malloc(n * sizeof(*sorted));
    if (!set->devices || !scratch || !sorted) {
        free(scratch);
        free(sorted);
        return FF_ERR_NO_MEMORY;
    }
    for (size_t i = 0; i < set->n_runs; i++)
        sorted[i] = &set->runs[i];
    /* by key, then oldest first: each device's runs lie side by side */
    if (set->n_runs > 1)
        qsort(sorted, set->n_runs, sizeof(*sorted), cmp_run_ptr);
    for (size_t i = 0; i < set->n_runs;) {
        size_t e = i + 1;
        while (e < set->n_runs && ff_pub_run_key_cmp(sorted[i], sorted[e]) == 0)
            e++;
        struct ff_pub_device *d = &set->devices[set->n_devices++];
        d->runs = malloc((e - i) * sizeof(*d->runs));
        if (!d->runs) {
            free(scratch);
            free(sorted);
            return FF_ERR_NO_MEMORY;
        }
        d->order = SIZE_MAX;
        for (size_t k = i; k < e; k++) {
            d->runs[d->n_runs++] = sorted[k];
            if (sorted[k]->order < d->order)
                d->order = sorted[k]->order;
        }
        i = e;
    }
    free(sorted);
    /* devices in the order their first profile was read, as the sort's tie-break */
    if (set->n_devices > 1)
        qsort(set->devices, set->n_devices, sizeof(*set->devices), cmp_device_order);
    for (size_t k = 0; k < set->n_devices; k++) {
        struct ff_pub_device *d = &set->devices[k];
        d->info = d->runs[d->n_runs - 1]->info;
        for (int m = 0; m < FF_PUB_METRIC_COUNT; m++)
            aggregate(d, m, scratch);
        aggregate_spec(d, scratch);
        if (ff_pub_device_ops(d) != FF_OK) {
            free(scratch);
            return FF_ERR_NO_MEMORY;
        }
        ff_pub_vendor_slug(d->info->device.vendor, d->vendor_slug, sizeof(d->vendor_slug));
        ff_pub_slug(str_or(d->info->device.name, "device"), d->device_slug, sizeof(d->device_slug));
    }
    free(scratch);
    return unique_slugs(set);
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
    struct ff_pub_cell cell;
    size_t index; /* into set->devices before the sort */
    int dir;
    const struct ff_pub_set *set;
};

static int cmp_keys(const void *pa, const void *pb)
{
    const struct sort_key *a = pa, *b = pb;
    int dir = a->dir;
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
    const struct ff_pub_device *da = &a->set->devices[a->index], *db = &b->set->devices[b->index];
    const struct ff_profile_device *x = &da->info->device, *y = &db->info->device;
    c = strcmp(str_or(x->name, ""), str_or(y->name, ""));
    if (!c)
        c = strcmp(str_or(x->backend, ""), str_or(y->backend, ""));
    if (!c)
        c = strcmp(str_or(x->driver_version, ""), str_or(y->driver_version, ""));
    /* stable: equal rows keep the order their profiles were read in */
    return c ? c : (a->index > b->index) - (a->index < b->index);
}

static int sort_devices(struct ff_pub_set *set, const struct ff_pub_column *col, bool reverse)
{
    if (set->n_devices < 2)
        return FF_OK;
    struct sort_key *k = malloc(set->n_devices * sizeof(*k));
    struct ff_pub_device *out = malloc(set->n_devices * sizeof(*out));
    if (!k || !out) {
        free(k);
        free(out);
        return FF_ERR_NO_MEMORY;
    }
    bool numeric = false;
    for (size_t i = 0; i < set->n_devices; i++) {
        k[i].index = i;
        k[i].set = set;
        col->cell(set, &set->devices[i], col, &k[i].cell);
        numeric |= !isnan(k[i].cell.sort);
    }
    /* figures: the best first (the largest, or the smallest latency); text: A to Z */
    int dir = numeric ? -1 : 1;
    if (numeric && col->metric >= 0 && ff_pub_metrics()[col->metric].lower_is_better)
        dir = 1;
    if (reverse)
        dir = -dir;
    for (size_t i = 0; i < set->n_devices; i++)
        k[i].dir = dir;
    qsort(k, set->n_devices, sizeof(*k), cmp_keys);
    for (size_t i = 0; i < set->n_devices; i++)
        out[i] = set->devices[k[i].index];
    memcpy(set->devices, out, set->n_devices * sizeof(*out));
    free(out);
    free(k);
    return FF_OK;
}

/* ---- footnotes ---- */

size_t ff_pub_note_number(const struct ff_pub_set *set, const char *text)
{
    if (!text || !set->note_slots_n)
        return 0;
    size_t at = hash_find(set->note_slots, set->note_slots_n, set->notes.text, text);
    return set->note_slots[at];
}

static int add_note(struct ff_pub_set *set, const char *text)
{
    if (!text || ff_pub_note_number(set, text))
        return FF_OK;
    if (2 * (set->notes.n + 1) > set->note_slots_n) {
        /* grow the hash (kept at most half full) and place every note again */
        size_t cap = pow2_at_least(4 * (set->notes.n + 1));
        size_t *slots = calloc(cap, sizeof(*slots));
        if (!slots)
            return FF_ERR_NO_MEMORY;
        for (size_t i = 0; i < set->notes.n; i++)
            slots[hash_find(slots, cap, set->notes.text, set->notes.text[i])] = i + 1;
        free(set->note_slots);
        set->note_slots = slots;
        set->note_slots_n = cap;
    }
    if (set->notes.n % 64 == 0) {
        char **t = realloc(set->notes.text, (set->notes.n + 64) * sizeof(*t));
        if (!t)
            return FF_ERR_NO_MEMORY;
        set->notes.text = t;
    }
    if (!(set->notes.text[set->notes.n] = strdup(text)))
        return FF_ERR_NO_MEMORY;
    set->notes.n++;
    set->note_slots[hash_find(set->note_slots, set->note_slots_n, set->notes.text,
                              set->notes.text[set->notes.n - 1])] = set->notes.n;
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
