/*
 * results/src/cells.c — the columns of the results table, one row each in columns[]: what a
 * reader sees in a cell, the number it sorts on and the footnote it points to. The Markdown
 * and HTML tables print these cells; CSV and JSON write the raw figures of the same metrics.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <flopfit/precision.h>
#include <flopfit/status.h>

#include "results_impl.h"

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

void ff_pub_fmt_value(char *dst, size_t n, double v, const char *unit)
{
    if (strcmp(unit, FF_PF_UNIT_BYTES) == 0)
        ff_fmt_bytes_bin(dst, n, v);
    else if (strcmp(unit, FF_PF_UNIT_SECONDS) == 0)
        ff_fmt_time(dst, n, v);
    else
        ff_fmt_si(dst, n, v, unit);
}

static const char *or_unknown(const char *s)
{
    return s && *s ? s : "unknown";
}

void ff_pub_device_label(const struct ff_pub_device *d, char *dst, size_t n)
{
    snprintf(dst, n, "%s (%s)", or_unknown(d->info->device.name),
             or_unknown(d->info->device.backend));
}

void ff_pub_figure_text(const struct ff_pub_figure *f, int metric, char *dst, size_t n)
{
    switch (f->state) {
    case FF_PUB_OK: ff_pub_fmt_value(dst, n, f->value, ff_pub_metrics()[metric].unit); break;
    case FF_PUB_UNSUPPORTED: snprintf(dst, n, "unsupported"); break;
    case FF_PUB_FAILED: snprintf(dst, n, "failed"); break;
    default: snprintf(dst, n, "not measured"); break;
    }
}

static void clear(struct ff_pub_cell *out)
{
    memset(out, 0, sizeof(*out));
    out->sort = NAN;
}

/* ---- text columns ---- */

/* The profile's own words, by column id: device, vendor, backend, driver. */
static void cell_info(const struct ff_pub_set *s, const struct ff_pub_device *d,
                      const struct ff_pub_column *c, struct ff_pub_cell *out)
{
    (void)s;
    clear(out);
    const struct ff_profile_device *pd = &d->info->device;
    const char *v = strcmp(c->id, "vendor") == 0    ? pd->vendor
                    : strcmp(c->id, "backend") == 0 ? pd->backend
                    : strcmp(c->id, "driver") == 0  ? pd->driver_version
                                                    : pd->name;
    snprintf(out->text, sizeof(out->text), "%s", or_unknown(v));
    /* the device id is part of the grouping key: two boards of one name are two rows */
    if (v == pd->name && d->info->device_id && *d->info->device_id)
        snprintf(out->detail, sizeof(out->detail), "id %s", d->info->device_id);
}

static void cell_tool(const struct ff_pub_set *s, const struct ff_pub_device *d,
                      const struct ff_pub_column *c, struct ff_pub_cell *out)
{
    (void)s, (void)c;
    clear(out);
    snprintf(out->text, sizeof(out->text), "%s (%s)", or_unknown(d->info->tool_version),
             or_unknown(d->info->tool_git));
}

static void cell_date(const struct ff_pub_set *s, const struct ff_pub_device *d,
                      const struct ff_pub_column *c, struct ff_pub_cell *out)
{
    (void)s, (void)c;
    clear(out);
    /* "2026-11-29T23:46:21Z": the day is what a table needs */
    snprintf(out->text, sizeof(out->text), "%.10s", or_unknown(d->info->created));
}

static void cell_run(const struct ff_pub_set *s, const struct ff_pub_device *d,
                     const struct ff_pub_column *c, struct ff_pub_cell *out)
{
    (void)s, (void)c;
    clear(out);
    const char *kind = d->runs[d->n_runs - 1]->kind;
    bool incomplete = !d->runs[d->n_runs - 1]->info->complete;
    if (d->n_runs > 1)
        snprintf(out->text, sizeof(out->text), "%s%s, %zu runs", kind,
                 incomplete ? " (cut short)" : "", d->n_runs);
    else
        snprintf(out->text, sizeof(out->text), "%s%s", kind, incomplete ? " (cut short)" : "");
    if (!d->runs[d->n_runs - 1]->info->run_kind)
        out->note = "unrecorded: the profile (schema 1.0) does not say how it was run (quick, "
                    "standard, full or custom); it is never one row with a run that does";
}

/* ---- figures ---- */

static void cell_metric(const struct ff_pub_set *s, const struct ff_pub_device *d,
                        const struct ff_pub_column *c, struct ff_pub_cell *out)
{
    (void)s;
    clear(out);
    const struct ff_pub_figure *f = &d->fig[c->metric];
    char v[64], *detail = out->detail;
    ff_pub_figure_text(f, c->metric, v, sizeof(v));
    if (f->state != FF_PUB_OK) {
        snprintf(out->text, sizeof(out->text), "%s", v);
        out->note = f->reason[0] ? f->reason : NULL;
        return;
    }
    out->sort = f->value;
    size_t len = 0;
#define ADD(...)                                                                                   \
    len += (size_t)snprintf(                                                                       \
        detail + len, len < sizeof(out->detail) ? sizeof(out->detail) - len : 0, __VA_ARGS__)
    if (c->metric < FF_PUB_N_MATMUL && f->impl)
        ADD("%s, n=%llu", f->impl, (unsigned long long)f->size);
    else if (c->metric == FF_PUB_UPLOAD || c->metric == FF_PUB_DOWNLOAD)
        ADD("%s", strstr(f->name, "pinned") ? "pinned" : "pageable");
    if (f->runs > 1) {
        double spread = f->value > 0 ? (f->max - f->min) / f->value : 0;
        out->warn = spread > FF_PUB_HIGH_SPREAD;
        ADD("%s±%.0f%% over %d runs", len ? ", " : "", 50.0 * spread, f->runs);
    }
#undef ADD
    const char *bound = "";
    if (c->metric == FF_PUB_USABLE && (f->capped || f->time_limited)) {
        bound = "≥ ";
        out->note = f->capped ? "the usable-memory probe stopped at its cap (the host-memory "
                                "share or --memory-limit): a lower bound"
                              : "the usable-memory probe stopped at its time limit: a lower bound";
    }
    snprintf(out->text, sizeof(out->text), "%s%s", bound, v);
}

static void cell_datasheet(const struct ff_pub_set *s, const struct ff_pub_device *d,
                           const struct ff_pub_column *c, struct ff_pub_cell *out)
{
    (void)s, (void)c;
    clear(out);
    if (!d->has_datasheet) {
        snprintf(out->text, sizeof(out->text), "no entry");
        out->note = "the datasheet catalog (flopfit estimate --list-devices) has no entry for "
                    "this device";
        return;
    }
    size_t len = 0;
    for (int m = 0; m < FF_PUB_N_MATMUL; m++) {
        int p = ff_pub_metrics()[m].prec;
        double peak = d->datasheet.flops_per_s[p];
        if (peak <= 0)
            continue;
        char pct[32];
        if (d->fig[m].state == FF_PUB_OK)
            snprintf(pct, sizeof(pct), "%.0f%%", 100.0 * d->fig[m].value / peak);
        else
            snprintf(pct, sizeof(pct), "n/a");
        if (m == FF_PUB_FP32 && d->fig[m].state == FF_PUB_OK)
            out->sort = d->fig[m].value / peak;
        len += (size_t)snprintf(out->text + len, sizeof(out->text) - len, "%s%s %s",
                                len ? ", " : "", ff_pub_metrics()[m].id, pct);
        if (len >= sizeof(out->text))
            break;
    }
    out->note = d->datasheet.source;
}

/*
 * One run's matmul of precision m over the peak it may use, both measured in that run: the
 * higher of the precision's own peak and fp32's, as bench's peak_fraction
 * (bench/families/suite_peak.c): a kernel may compute int8 or fp16 exactly in fp32, and then
 * its own precision's chain peak is no ceiling. *pm receives whose peak it was.
 */
static bool run_fraction(const struct ff_pub_figure *fig, int m, double *frac, double *peak,
                         int *pm)
{
    const struct ff_pub_figure *pk = &fig[FF_PUB_PEAK_FP32 + m];
    const struct ff_pub_figure *f32 = &fig[FF_PUB_PEAK_FP32];
    if (m != FF_PUB_FP32 && f32->state == FF_PUB_OK &&
        (pk->state != FF_PUB_OK || f32->value > pk->value) && pk->state != FF_PUB_ABSENT)
        pk = f32;
    if (pk->state != FF_PUB_OK || !(pk->value > 0) || fig[m].state != FF_PUB_OK)
        return false;
    *frac = fig[m].value / pk->value;
    *peak = pk->value;
    *pm = pk == f32 ? FF_PUB_FP32 : m;
    return true;
}

/* Best matmul over the measured arithmetic peak of the same precision (family peak), within
 * each run: the median over the device's runs of each run's own fraction, never one run's
 * matmul over another run's peak. */
static void cell_peak(const struct ff_pub_set *s, const struct ff_pub_device *d,
                      const struct ff_pub_column *c, struct ff_pub_cell *out)
{
    (void)s, (void)c;
    clear(out);
    size_t len = 0, dlen = 0;
    const struct ff_pub_figure *first = NULL; /* the first peak figure the profile has */
    double *fr = malloc((d->n_runs ? d->n_runs : 1) * sizeof(*fr));
    if (!fr) {
        snprintf(out->text, sizeof(out->text), "out of memory");
        return;
    }
    for (int m = 0; m < FF_PUB_N_MATMUL; m++) {
        const struct ff_pub_figure *pk = &d->fig[FF_PUB_PEAK_FP32 + m];
        if (pk->state != FF_PUB_ABSENT && !first)
            first = pk;
        /* a peak this run may be measured against at all (the device's figures) */
        const struct ff_pub_figure *f32 = &d->fig[FF_PUB_PEAK_FP32];
        if (!(pk->state == FF_PUB_OK ||
              (m != FF_PUB_FP32 && f32->state == FF_PUB_OK && pk->state != FF_PUB_ABSENT)))
            continue;
        size_t n = 0;
        for (size_t r = 0; r < d->n_runs; r++) {
            double f, p;
            int pm;
            if (run_fraction(d->runs[r]->fig, m, &f, &p, &pm))
                fr[n++] = f;
        }
        char pct[32], v[64];
        double median = n ? ff_pub_median(fr, n) : NAN;
        /* the run whose fraction is the median names the peak in the detail */
        double peak = 0;
        int pm = m;
        for (size_t r = 0; r < d->n_runs && n; r++) {
            double f, p;
            int who;
            if (run_fraction(d->runs[r]->fig, m, &f, &p, &who) && f == median) {
                peak = p;
                pm = who;
                break;
            }
        }
        if (n)
            snprintf(pct, sizeof(pct), "%.0f%%", 100.0 * median);
        else
            snprintf(pct, sizeof(pct), "n/a");
        if (m == FF_PUB_FP32 && n)
            out->sort = median;
        if (len < sizeof(out->text))
            len += (size_t)snprintf(out->text + len, sizeof(out->text) - len, "%s%s %s",
                                    len ? ", " : "", ff_pub_metrics()[m].id, pct);
        if (!n)
            continue;
        ff_pub_fmt_value(v, sizeof(v), peak, ff_pub_metrics()[FF_PUB_PEAK_FP32 + pm].unit);
        if (dlen < sizeof(out->detail))
            dlen += (size_t)snprintf(out->detail + dlen, sizeof(out->detail) - dlen,
                                     "%s%s against the %s peak %s", dlen ? ", " : "",
                                     ff_pub_metrics()[m].id, ff_pub_metrics()[pm].id, v);
    }
    free(fr);
    if (!first) {
        snprintf(out->text, sizeof(out->text), "not measured");
        return;
    }
    if (len == 0) {
        ff_pub_figure_text(first, FF_PUB_PEAK_FP32, out->text, sizeof(out->text));
        out->note = first->reason[0] ? first->reason : NULL;
        return;
    }
    out->note = "best verified matmul over the arithmetic peak flopfit measured on the device in "
                "the same precision and the same run (the peak family: independent multiply-add "
                "chains, no memory "
                "traffic); the fp16 matmul kernels accumulate in fp32, so where half arithmetic is "
                "slower than fp32 the fp16 figure may pass 100%; over several runs, the median of "
                "each run's own fraction";
}

static void cell_serves(const struct ff_pub_set *s, const struct ff_pub_device *d,
                        const struct ff_pub_column *c, struct ff_pub_cell *out)
{
    (void)s, (void)c;
    clear(out);
    const struct ff_pub_serves *sv = &d->serves;
    if (sv->state != FF_OK) {
        snprintf(out->text, sizeof(out->text), "%s",
                 sv->state == FF_ERR_NOT_FOUND ? "no preset fits" : "no estimate");
        out->note = sv->note;
        return;
    }
    out->sort = sv->params;
    snprintf(out->text, sizeof(out->text), "%s, %s, %.1f tok/s%s", sv->model,
             ff_precision_name((enum ff_precision)sv->prec), sv->tokens_per_s,
             sv->unproven ? " ?" : "");
    if (sv->unproven) {
        out->note = sv->note;
        return;
    }
    out->note = "largest built-in model preset that serves on one device with its KV cache at "
                "4096 tokens of context (3840 prompt + 256 generated), batch 1: in bf16 where "
                "the device measured a 16-bit rate (fp16 stands in for bf16), else (or when "
                "nothing fits in bf16) in int8, then fp32; tok/s is one sequence's decode rate. "
                "Estimated by libflopfit from the profile, as `flopfit estimate --serve "
                "--profile` does";
}

static const struct ff_pub_column columns[] = {
    {"device", "device", -1, cell_info},
    {"vendor", "vendor", -1, cell_info},
    {"backend", "backend", -1, cell_info},
    {"driver", "driver", -1, cell_info},
    {"fp32", "fp32 matmul", FF_PUB_FP32, cell_metric},
    {"fp16", "fp16 matmul", FF_PUB_FP16, cell_metric},
    {"int8", "int8 matmul", FF_PUB_INT8, cell_metric},
    {"datasheet", "% of datasheet", -1, cell_datasheet},
    {"peak", "% of measured peak", -1, cell_peak},
    {"usable_memory", "usable memory", FF_PUB_USABLE, cell_metric},
    {"read_bandwidth", "read bandwidth", FF_PUB_READ, cell_metric},
    {"upload", "host→device", FF_PUB_UPLOAD, cell_metric},
    {"download", "device→host", FF_PUB_DOWNLOAD, cell_metric},
    {"launch_latency", "launch latency", FF_PUB_LAUNCH, cell_metric},
    {"serves", "serves (1 device, 4k context)", -1, cell_serves},
    {"flopfit", "flopfit", -1, cell_tool},
    {"date", "date", -1, cell_date},
    {"run", "run", -1, cell_run},
};

const struct ff_pub_column *ff_pub_columns(size_t *n)
{
    *n = sizeof(columns) / sizeof(columns[0]);
    return columns;
}

const struct ff_pub_column *ff_pub_column_find(const char *id)
{
    for (size_t i = 0; id && i < sizeof(columns) / sizeof(columns[0]); i++)
        if (strcmp(columns[i].id, id) == 0)
            return &columns[i];
    return NULL;
}
