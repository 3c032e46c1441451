/*
 * results/src/out_table.c — the writers registry and the text tables: Markdown (the cells of
 * cells.c, footnotes numbered, then each device's op rows), CSV (RFC 4180, one row per device,
 * raw figures in their base unit; a numeric column holds a number or nothing, and the status
 * column beside it says which: ok, lower bound, unsupported, failed or not measured) and the
 * op rows' CSV (one row per device and op row, the same rule: a rate or nothing, and a status).
 * The op rows are a CSV of their own because a device has many: one CSV with two kinds of
 * record would load in no spreadsheet or csv module.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <flopfit/precision.h>
#include <flopfit/status.h>

#include "results_impl.h"

static const struct ff_pub_writer writers[] = {
    {"md", "a Markdown table with numbered footnotes (the default)", ff_pub_write_md, NULL},
    {"csv", "one CSV row per device, figures in base units (FLOP/s, B/s, B, s)", ff_pub_write_csv,
     NULL},
    {"ops-csv",
     "one CSV row per device and op test (op, format, shape, time, rate, fraction of "
     "read bandwidth)",
     ff_pub_write_ops_csv, NULL},
    {"json", "every figure, its spread, the estimator's columns and the roofline points",
     ff_pub_write_json, NULL},
    {"html", "a self-contained page: the sortable table, rooflines and bar charts (SVG)",
     ff_pub_write_html, NULL},
    {"sqlite", "an SQLite database, one table of runs and one of tests (needs --output FILE)", NULL,
     ff_pub_write_sqlite},
    {NULL, NULL, NULL, NULL},
};

const struct ff_pub_writer *ff_pub_writers(void)
{
    return writers;
}

const struct ff_pub_writer *ff_pub_writer_find(const char *name)
{
    for (const struct ff_pub_writer *w = writers; name && w->name; w++)
        if (ff_streq_ci(w->name, name))
            return w;
    return NULL;
}

/* ---- Markdown ---- */

static void md_cell(const struct ff_pub_set *set, const struct ff_pub_device *d,
                    const struct ff_pub_column *c, struct ff_pub_sb *o)
{
    struct ff_pub_cell cell;
    c->cell(set, d, c, &cell);
    ff_pub_sb_puts(o, " ");
    ff_pub_esc_md(o, cell.text);
    if (cell.detail[0]) {
        ff_pub_sb_puts(o, " (");
        ff_pub_esc_md(o, cell.detail);
        ff_pub_sb_puts(o, ")");
    }
    if (cell.warn)
        ff_pub_sb_puts(o, " ⚠");
    size_t note = ff_pub_note_number(set, cell.note);
    if (note)
        ff_pub_sb_printf(o, " [%zu]", note);
    ff_pub_sb_puts(o, " |");
}

void ff_pub_md_row(const struct ff_pub_set *set, const struct ff_pub_device *d, bool header,
                   struct ff_pub_sb *o)
{
    size_t n;
    const struct ff_pub_column *cols = ff_pub_columns(&n);
    if (header) {
        ff_pub_sb_puts(o, "|");
        for (size_t c = 0; c < n; c++)
            ff_pub_sb_printf(o, " %s |", cols[c].title);
        ff_pub_sb_puts(o, "\n|");
        for (size_t c = 0; c < n; c++)
            ff_pub_sb_puts(o, "---|");
        ff_pub_sb_puts(o, "\n");
    }
    ff_pub_sb_puts(o, "|");
    for (size_t c = 0; c < n; c++)
        md_cell(set, d, &cols[c], o);
    ff_pub_sb_puts(o, "\n");
}

static bool any_warn(const struct ff_pub_set *set)
{
    size_t n;
    const struct ff_pub_column *cols = ff_pub_columns(&n);
    for (size_t i = 0; i < set->n_devices; i++)
        for (size_t c = 0; c < n; c++) {
            struct ff_pub_cell cell;
            cols[c].cell(set, &set->devices[i], &cols[c], &cell);
            if (cell.warn)
                return true;
        }
    return false;
}

void ff_pub_md_table(const struct ff_pub_set *set, struct ff_pub_sb *o)
{
    for (size_t i = 0; i < set->n_devices; i++)
        ff_pub_md_row(set, &set->devices[i], i == 0, o);
    if (set->notes.n || any_warn(set))
        ff_pub_sb_puts(o, "\n");
    for (size_t i = 0; i < set->notes.n; i++) {
        ff_pub_sb_printf(o, "[%zu] ", i + 1);
        ff_pub_esc_md(o, set->notes.text[i]);
        ff_pub_sb_puts(o, "  \n");
    }
    if (any_warn(set))
        ff_pub_sb_printf(o,
                         "⚠ the runs of this device spread over more than %.0f%% of their "
                         "median  \n",
                         100.0 * FF_PUB_HIGH_SPREAD);
}

/* The device's name as a heading: its label, and its grouping key where another device of
 * the set has the same label (two drivers, two run kinds). */
static void md_device_heading(const struct ff_pub_set *set, const struct ff_pub_device *d,
                              struct ff_pub_sb *o)
{
    char label[512], other[512], key[1024];
    ff_pub_device_label(d, label, sizeof(label));
    bool shared = false;
    for (size_t i = 0; i < set->n_devices && !shared; i++) {
        ff_pub_device_label(&set->devices[i], other, sizeof(other));
        shared = &set->devices[i] != d && strcmp(label, other) == 0;
    }
    ff_pub_sb_puts(o, "### ");
    ff_pub_esc_md(o, shared ? ff_pub_device_key_text(d, key, sizeof(key)) : label);
    ff_pub_sb_puts(o, "\n\n");
}

void ff_pub_md_ops(const struct ff_pub_set *set, struct ff_pub_sb *o)
{
    if (!ff_pub_set_has_ops(set))
        return;
    ff_pub_sb_puts(o, "\n## Op tests\n\n");
    ff_pub_esc_md(o, ff_pub_ops_intro());
    ff_pub_sb_puts(o, "\n");
    for (size_t i = 0; i < set->n_devices; i++) {
        const struct ff_pub_device *d = &set->devices[i];
        if (!d->n_ops)
            continue;
        ff_pub_sb_puts(o, "\n");
        md_device_heading(set, d, o);
        ff_pub_sb_puts(o, "| op | format | shape | time | rate | of read bandwidth |\n"
                          "|---|---|---|---|---|---|\n");
        for (size_t k = 0; k < d->n_ops; k++) {
            const struct ff_pub_op *op = &d->ops[k];
            char shape[128], time[64], rate[64], frac[64];
            ff_pub_sb_puts(o, "| ");
            ff_pub_esc_md(o, op->name);
            ff_pub_sb_puts(o, " | ");
            ff_pub_esc_md(o, op->precision);
            ff_pub_sb_puts(o, " | ");
            ff_pub_esc_md(o, ff_pub_op_shape_text(op, shape, sizeof(shape)));
            ff_pub_op_value_text(op, rate, sizeof(rate));
            if (op->state != FF_PUB_OK) {
                /* no figure: the word and its reason, nothing that reads as a number */
                ff_pub_sb_puts(o, " | ");
                ff_pub_esc_md(o, rate);
                ff_pub_sb_puts(o, ": ");
                ff_pub_esc_md(o, op->reason ? op->reason : "no reason given");
                ff_pub_sb_puts(o, " | | |\n");
                continue;
            }
            if (op->time_s > 0)
                ff_fmt_time(time, sizeof(time), op->time_s);
            else
                snprintf(time, sizeof(time), "-");
            ff_pub_op_fraction_text(op, frac, sizeof(frac));
            ff_pub_sb_printf(o, " | %s | ", time);
            ff_pub_esc_md(o, rate); /* its unit is the profile's own text */
            if (op->runs > 1 && op->value > 0)
                ff_pub_sb_printf(o, " (±%.0f%% over %d runs)",
                                 50.0 * (op->max - op->min) / op->value, op->runs);
            ff_pub_sb_printf(o, " | %s |\n", frac[0] ? frac : "-");
        }
    }
}

static void md_sources(const struct ff_pub_set *set, struct ff_pub_sb *o)
{
    ff_pub_sb_puts(o, "\nProfiles:\n\n");
    for (size_t i = 0; i < set->n_devices; i++) {
        const struct ff_pub_device *d = &set->devices[i];
        char label[512];
        ff_pub_device_label(d, label, sizeof(label));
        ff_pub_sb_puts(o, "- ");
        ff_pub_esc_md(o, label);
        ff_pub_sb_puts(o, ":");
        for (size_t r = 0; r < d->n_runs; r++) {
            ff_pub_sb_puts(o, r ? ", " : " ");
            ff_pub_esc_md_code(o, ff_pub_run_path(set, d->runs[r]));
        }
        ff_pub_sb_puts(o, "\n");
    }
    if (set->n_skipped)
        ff_pub_sb_puts(o, "\nSkipped (not published):\n\n");
    for (size_t i = 0; i < set->n_skipped; i++) {
        ff_pub_sb_puts(o, "- ");
        ff_pub_esc_md(o, set->skipped[i].reason);
        ff_pub_sb_puts(o, "\n");
    }
}

void ff_pub_summary(const struct ff_pub_set *set, const char *const mark[2], struct ff_pub_sb *o)
{
    ff_pub_sb_printf(o,
                     "%zu device%s from %zu profile%s. Each figure is the best verified result of "
                     "the device; repeated runs of one device (same vendor, device, device id, "
                     "driver, backend, run kind and flopfit version) show their median and ± "
                     "half their spread. A format the device does not "
                     "support reads %sunsupported%s, with the reasons in the notes below the "
                     "table, never 0.",
                     set->n_devices, set->n_devices == 1 ? "" : "s", set->n_runs,
                     set->n_runs == 1 ? "" : "s", mark[0], mark[1]);
}

int ff_pub_write_md(const struct ff_pub_set *set, struct ff_pub_sb *o)
{
    static const char *const em[2] = {"*", "*"};
    ff_pub_sb_puts(o, "# flopfit results\n\n");
    ff_pub_summary(set, em, o);
    ff_pub_sb_puts(o, "\n\n");
    ff_pub_md_table(set, o);
    ff_pub_md_ops(set, o);
    md_sources(set, o);
    return ff_pub_sb_status(o);
}

/* ---- CSV ---- */

static const char *unit_slug(const char *unit)
{
    static const char *const map[][2] = {
        {FF_PF_UNIT_FLOPS, "flop_per_s"},
        {FF_PF_UNIT_OPS, "op_per_s"},
        {FF_PF_UNIT_BYTES_PER_S, "bytes_per_s"},
        {FF_PF_UNIT_BYTES, "bytes"},
        {FF_PF_UNIT_SECONDS, "s"},
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (strcmp(map[i][0], unit) == 0)
            return map[i][1];
    return "value";
}

static void csv_field(struct ff_pub_sb *o, bool first, const char *s)
{
    if (!first)
        ff_pub_sb_puts(o, ",");
    ff_pub_esc_csv(o, s);
}

static void csv_number(struct ff_pub_sb *o, double v)
{
    ff_pub_sb_printf(o, ",%.7g", v);
}

static const char *const csv_text_cols[] = {"device", "vendor", "backend", "driver"};

int ff_pub_write_csv(const struct ff_pub_set *set, struct ff_pub_sb *o)
{
    const struct ff_pub_metric_info *mi = ff_pub_metrics();
    for (size_t c = 0; c < 4; c++)
        csv_field(o, c == 0, csv_text_cols[c]);
    ff_pub_sb_puts(o, ",platform,device_id");
    for (int m = 0; m < FF_PUB_METRIC_COUNT; m++)
        ff_pub_sb_printf(o, ",%s_%s,%s_status,%s_min,%s_max,%s_runs,%s_detail", mi[m].id,
                         unit_slug(mi[m].unit), mi[m].id, mi[m].id, mi[m].id, mi[m].id, mi[m].id);
    ff_pub_sb_puts(o, ",datasheet,fp32_datasheet_percent,fp32_datasheet_status,serves_model,"
                      "serves_precision,serves_tokens_per_s,serves_status,flopfit_version,"
                      "flopfit_git,flopfit_minor,date,run,runs,profiles\n");
    for (size_t i = 0; i < set->n_devices; i++) {
        const struct ff_pub_device *d = &set->devices[i];
        const struct ff_profile_device *pd = &d->info->device;
        const char *text[] = {pd->name,           pd->vendor,   pd->backend,
                              pd->driver_version, pd->platform, d->info->device_id};
        for (size_t c = 0; c < 6; c++)
            csv_field(o, c == 0, text[c] ? text[c] : "");
        for (int m = 0; m < FF_PUB_METRIC_COUNT; m++) {
            const struct ff_pub_figure *f = &d->fig[m];
            /* a number or nothing in the figure's columns; the word goes beside it */
            char status[32];
            ff_pub_figure_text(f, m, status, sizeof(status));
            if (f->state == FF_PUB_OK) {
                bool bound = m == FF_PUB_USABLE && (f->capped || f->time_limited);
                csv_number(o, f->value);
                csv_field(o, false, bound ? "lower bound" : "ok");
                csv_number(o, f->min);
                csv_number(o, f->max);
                ff_pub_sb_printf(o, ",%d", f->runs);
                char detail[160] = "";
                if (m < FF_PUB_N_MATMUL && f->impl)
                    snprintf(detail, sizeof(detail), "%s n=%llu", f->impl,
                             (unsigned long long)f->size);
                else if (f->name)
                    snprintf(detail, sizeof(detail), "%s%s", f->name,
                             f->capped         ? " (capped: a lower bound)"
                             : f->time_limited ? " (time limit: a lower bound)"
                                               : "");
                csv_field(o, false, detail);
            } else {
                ff_pub_sb_puts(o, ",");
                csv_field(o, false, status);
                ff_pub_sb_puts(o, ",,,");
                csv_field(o, false, f->reason);
            }
        }
        csv_field(o, false, d->has_datasheet ? d->datasheet.slug : "");
        if (d->has_datasheet && d->fig[FF_PUB_FP32].state == FF_PUB_OK &&
            d->datasheet.flops_per_s[FF_PREC_FP32] > 0)
            ff_pub_sb_printf(o, ",%.1f,ok",
                             100.0 * d->fig[FF_PUB_FP32].value /
                                 d->datasheet.flops_per_s[FF_PREC_FP32]);
        else
            ff_pub_sb_printf(o, ",,%s",
                             !d->has_datasheet                        ? "no entry"
                             : d->fig[FF_PUB_FP32].state != FF_PUB_OK ? "not measured"
                                                                      : "no fp32 entry");
        if (d->serves.state == FF_OK) {
            csv_field(o, false, d->serves.model);
            csv_field(o, false, ff_precision_name((enum ff_precision)d->serves.prec));
            ff_pub_sb_printf(o, ",%.3g,%s", d->serves.tokens_per_s,
                             d->serves.unproven ? "fit unproven" : "ok");
        } else {
            ff_pub_sb_printf(o, ",,,,%s",
                             d->serves.state == FF_ERR_NOT_FOUND ? "none fits" : "no estimate");
        }
        csv_field(o, false, d->info->tool_version ? d->info->tool_version : "");
        csv_field(o, false, d->info->tool_git ? d->info->tool_git : "");
        csv_field(o, false, d->runs[d->n_runs - 1]->tool_minor);
        char date[16];
        snprintf(date, sizeof(date), "%.10s", d->info->created ? d->info->created : "");
        csv_field(o, false, date);
        csv_field(o, false, d->runs[d->n_runs - 1]->kind);
        ff_pub_sb_printf(o, ",%zu,", d->n_runs);
        struct ff_pub_sb paths;
        ff_pub_sb_init(&paths);
        for (size_t r = 0; r < d->n_runs; r++)
            ff_pub_sb_printf(&paths, "%s%s", r ? ";" : "", ff_pub_run_path(set, d->runs[r]));
        ff_pub_esc_csv(o, ff_pub_sb_str(&paths));
        ff_pub_sb_finish(&paths);
        ff_pub_sb_puts(o, "\n");
    }
    return ff_pub_sb_status(o);
}

/* ---- CSV of the op rows ---- */

int ff_pub_write_ops_csv(const struct ff_pub_set *set, struct ff_pub_sb *o)
{
    ff_pub_sb_puts(o, "device,vendor,backend,driver,device_id,run,flopfit_minor,op,precision,m,"
                      "n,k,g,bytes,status,median_s,value,unit,min,max,runs,read_fraction,"
                      "read_fraction_min,read_fraction_max,reason\n");
    for (size_t i = 0; i < set->n_devices; i++) {
        const struct ff_pub_device *d = &set->devices[i];
        const struct ff_profile_device *pd = &d->info->device;
        const struct ff_pub_run *newest = d->runs[d->n_runs - 1];
        const char *text[] = {pd->name,           pd->vendor,         pd->backend,
                              pd->driver_version, d->info->device_id, newest->kind,
                              newest->tool_minor};
        for (size_t k = 0; k < d->n_ops; k++) {
            const struct ff_pub_op *op = &d->ops[k];
            for (size_t c = 0; c < sizeof(text) / sizeof(text[0]); c++)
                csv_field(o, c == 0, text[c] ? text[c] : "");
            csv_field(o, false, op->name);
            csv_field(o, false, op->precision);
            /* a count or nothing: an absent part of the shape is no 0 */
            const uint64_t part[] = {op->m, op->n, op->k, op->g, op->bytes};
            for (size_t c = 0; c < 5; c++)
                if (part[c])
                    ff_pub_sb_printf(o, ",%llu", (unsigned long long)part[c]);
                else
                    ff_pub_sb_puts(o, ",");
            char status[32];
            ff_pub_op_value_text(op, status, sizeof(status));
            if (op->state != FF_PUB_OK) {
                csv_field(o, false, status);
                ff_pub_sb_puts(o, ",,,,,,,,,");
                csv_field(o, false, op->reason ? op->reason : "");
                ff_pub_sb_puts(o, "\n");
                continue;
            }
            csv_field(o, false, "ok");
            if (op->time_s > 0)
                csv_number(o, op->time_s);
            else
                ff_pub_sb_puts(o, ",");
            csv_number(o, op->value);
            csv_field(o, false, op->unit);
            csv_number(o, op->min);
            csv_number(o, op->max);
            ff_pub_sb_printf(o, ",%d", op->runs);
            if (op->has_fraction) {
                csv_number(o, op->read_fraction);
                csv_number(o, op->fraction_min);
                csv_number(o, op->fraction_max);
            } else {
                ff_pub_sb_puts(o, ",,,");
            }
            ff_pub_sb_puts(o, ",\n");
        }
    }
    return ff_pub_sb_status(o);
}
