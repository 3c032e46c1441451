/*
 * results/src/html.c — the results page: one self-contained HTML file (inline CSS, one inline
 * script for the column groups, filters and sorting, the charts as inline SVG; no network, no
 * external script or font), and `--html DIR`, which writes it with each chart as its own .svg
 * beside it.
 *
 * The page depends only on the profiles and where it is written: the profiles are linked by
 * paths relative to the page's folder and named by paths relative to the published folder (or
 * to the folder that holds them all), never by an absolute path; no time of generation. Data
 * reaches the page only through escape.c; the script reads it from data attributes and writes
 * text with textContent, never markup.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <flopfit/status.h>

#include "results_impl.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* The charts of a set, in page order: a roofline per device, then bars per metric. */
static const enum ff_pub_metric bar_metrics[] = {FF_PUB_FP32, FF_PUB_FP16, FF_PUB_INT8,
                                                 FF_PUB_READ};
#define N_BARS (sizeof(bar_metrics) / sizeof(bar_metrics[0]))

size_t ff_pub_chart_count(const struct ff_pub_set *set)
{
    return set->n_devices + N_BARS;
}

int ff_pub_chart(const struct ff_pub_set *set, size_t i, char *name, size_t n,
                 struct ff_pub_sb *out)
{
    if (i < set->n_devices) {
        snprintf(name, n, "roofline-%s.svg", set->devices[i].slug);
        return ff_pub_svg_roofline(set, &set->devices[i], out);
    }
    enum ff_pub_metric m = bar_metrics[i - set->n_devices];
    snprintf(name, n, "bars-%s.svg", ff_pub_metrics()[m].id);
    return ff_pub_svg_bars(set, m, out);
}

/* ---- column groups ---- */

/* The groups a reader shows or hides; "key" (the grouping key of a row) is always shown.
 * Shown by default: what fits 1400 px beside the key columns. */
struct page_group {
    const char *id, *label;
    bool shown;
};
static const struct page_group page_groups[] = {
    {"key", "device and run", true},  {"fp32", "fp32 matmul", true}, {"fp16", "fp16 matmul", true},
    {"int8", "int8 matmul", true},    {"peak", "% of peak", false},  {"memory", "memory", true},
    {"transfer", "transfer", false},  {"latency", "latency", true},  {"serving", "serving", false},
    {"more", "date and more", false},
};
#define N_GROUPS (sizeof(page_groups) / sizeof(page_groups[0]))

/* The group of a column by its id (cells.c); a column not named here goes to "more". */
static const char *column_group(const char *id)
{
    static const char *const map[][2] = {
        {"device", "key"},
        {"vendor", "key"},
        {"backend", "key"},
        {"driver", "key"},
        {"device_id", "key"},
        {"kind", "key"},
        {"run", "key"},
        {"flopfit", "key"},
        {"fp32", "fp32"},
        {"fp16", "fp16"},
        {"int8", "int8"},
        {"datasheet", "peak"},
        {"peak", "peak"},
        {"usable_memory", "memory"},
        {"read_bandwidth", "memory"},
        {"upload", "transfer"},
        {"download", "transfer"},
        {"launch_latency", "latency"},
        {"serves", "serving"},
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (strcmp(map[i][0], id) == 0)
            return map[i][1];
    return "more";
}

/* The page's column order: the key columns first (in the table's order), then the rest. */
static size_t page_columns(const struct ff_pub_column **order, size_t max)
{
    size_t n, k = 0;
    const struct ff_pub_column *cols = ff_pub_columns(&n);
    for (int pass = 0; pass < 2; pass++)
        for (size_t c = 0; c < n && k < max; c++)
            if ((strcmp(column_group(cols[c].id), "key") == 0) == (pass == 0))
                order[k++] = &cols[c];
    return k;
}
#define MAX_COLUMNS 64

/* ---- the words rows are filtered by ---- */

static const char *or_unknown(const char *s)
{
    return s && *s ? s : "unknown";
}

static const char *row_vendor(const struct ff_pub_device *d)
{
    return or_unknown(d->info->device.vendor);
}

static const char *row_backend(const struct ff_pub_device *d)
{
    return or_unknown(d->info->device.backend);
}

static const char *row_kind(const struct ff_pub_device *d)
{
    return or_unknown(d->runs[d->n_runs - 1]->kind);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A filter: a <select> of every distinct value (in byte order), "all" first. */
static void put_filter(const struct ff_pub_set *set, struct ff_pub_sb *o, const char *key,
                       const char *label, const char *(*value)(const struct ff_pub_device *))
{
    const char **v = calloc(set->n_devices ? set->n_devices : 1, sizeof(*v));
    if (!v) {
        o->failed = true; /* the page reports FF_ERR_NO_MEMORY */
        return;
    }
    for (size_t i = 0; i < set->n_devices; i++)
        v[i] = value(&set->devices[i]);
    qsort(v, set->n_devices, sizeof(*v), cmp_str);
    ff_pub_sb_printf(o, "<label>%s <select data-filter=\"%s\"><option value=\"\">all</option>",
                     label, key);
    for (size_t i = 0; i < set->n_devices; i++) {
        if (i && strcmp(v[i], v[i - 1]) == 0)
            continue;
        ff_pub_sb_puts(o, "<option value=\"");
        ff_pub_esc_html(o, v[i]);
        ff_pub_sb_puts(o, "\">");
        ff_pub_esc_html(o, v[i]);
        ff_pub_sb_puts(o, "</option>");
    }
    ff_pub_sb_puts(o, "</select></label>\n");
    free(v);
}

static void html_controls(const struct ff_pub_set *set, struct ff_pub_sb *o)
{
    /* hidden until the script runs: without it the whole table shows and nothing pretends */
    ff_pub_sb_puts(o, "<form id=\"controls\" class=\"controls\" hidden>\n"
                      "<fieldset><legend>Columns</legend>\n");
    for (size_t g = 1; g < N_GROUPS; g++)
        ff_pub_sb_printf(o, "<label><input type=\"checkbox\" data-group=\"%s\"%s> %s</label>\n",
                         page_groups[g].id, page_groups[g].shown ? " checked" : "",
                         page_groups[g].label);
    ff_pub_sb_puts(o, "</fieldset>\n<fieldset><legend>Filter</legend>\n");
    put_filter(set, o, "vendor", "vendor", row_vendor);
    put_filter(set, o, "backend", "backend", row_backend);
    ff_pub_sb_puts(o, "<label>precision <select data-filter=\"prec\"><option "
                      "value=\"\">all</option>");
    for (int m = 0; m < FF_PUB_N_MATMUL; m++)
        ff_pub_sb_printf(o, "<option value=\"%s\">%s measured</option>", ff_pub_metrics()[m].id,
                         ff_pub_metrics()[m].id);
    ff_pub_sb_puts(o, "</select></label>\n");
    put_filter(set, o, "kind", "run kind", row_kind);
    ff_pub_sb_puts(o, "<output id=\"shown\" aria-live=\"polite\"></output>\n</fieldset>\n"
                      "</form>\n");
}

/* ---- the table ---- */

static void put_attr(struct ff_pub_sb *o, const char *name, const char *value)
{
    ff_pub_sb_printf(o, " data-%s=\"", name);
    ff_pub_esc_html(o, value);
    ff_pub_sb_puts(o, "\"");
}

static void html_table(const struct ff_pub_set *set, struct ff_pub_sb *o)
{
    const struct ff_pub_column *cols[MAX_COLUMNS];
    size_t n = page_columns(cols, MAX_COLUMNS);
    ff_pub_sb_puts(o, "<div class=\"scroll\"><table id=\"results\">\n<thead><tr>");
    for (size_t c = 0; c < n; c++) {
        bool numeric = false;
        for (size_t i = 0; i < set->n_devices && !numeric; i++) {
            struct ff_pub_cell cell;
            cols[c]->cell(set, &set->devices[i], cols[c], &cell);
            numeric = !isnan(cell.sort);
        }
        bool low = cols[c]->metric >= 0 && ff_pub_metrics()[cols[c]->metric].lower_is_better;
        ff_pub_sb_printf(o,
                         "<th class=\"g-%s\" data-col=\"%s\" data-type=\"%s\"%s>"
                         "<button type=\"button\">",
                         column_group(cols[c]->id), cols[c]->id, numeric ? "number" : "text",
                         low ? " data-best=\"low\"" : "");
        ff_pub_esc_html(o, cols[c]->title);
        ff_pub_sb_puts(o, "<span class=\"mark\" aria-hidden=\"true\"></span></button></th>");
    }
    ff_pub_sb_puts(o, "</tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < set->n_devices; i++) {
        const struct ff_pub_device *d = &set->devices[i];
        ff_pub_sb_puts(o, "<tr");
        put_attr(o, "device", d->slug);
        put_attr(o, "vendor", row_vendor(d));
        put_attr(o, "backend", row_backend(d));
        put_attr(o, "kind", row_kind(d));
        ff_pub_sb_puts(o, " data-prec=\"");
        for (int m = 0, k = 0; m < FF_PUB_N_MATMUL; m++)
            if (d->fig[m].state == FF_PUB_OK)
                ff_pub_sb_printf(o, "%s%s", k++ ? " " : "", ff_pub_metrics()[m].id);
        ff_pub_sb_puts(o, "\">");
        for (size_t c = 0; c < n; c++) {
            struct ff_pub_cell cell;
            cols[c]->cell(set, d, cols[c], &cell);
            bool none = cols[c]->metric >= 0 && isnan(cell.sort);
            ff_pub_sb_printf(o, "<td class=\"g-%s%s\"", column_group(cols[c]->id),
                             none                   ? " none"
                             : cols[c]->metric >= 0 ? " num"
                                                    : "");
            if (!isnan(cell.sort))
                ff_pub_sb_printf(o, " data-sort=\"%.9g\"", cell.sort);
            ff_pub_sb_puts(o, ">");
            ff_pub_esc_html(o, cell.text);
            if (cell.warn)
                ff_pub_sb_printf(o,
                                 " <span title=\"runs spread over more than %.0f%% of their "
                                 "median\">&#9888;</span>",
                                 100.0 * FF_PUB_HIGH_SPREAD);
            size_t note = ff_pub_note_number(set, cell.note);
            if (note)
                ff_pub_sb_printf(o, "<sup><a href=\"#note-%zu\">%zu</a></sup>", note, note);
            if (cell.detail[0]) {
                ff_pub_sb_puts(o, "<br><small>");
                ff_pub_esc_html(o, cell.detail);
                ff_pub_sb_puts(o, "</small>");
            }
            if (c == 0 && d->n_ops) {
                ff_pub_sb_puts(o, "<br><small><a class=\"oplink\" href=\"#ops-");
                ff_pub_esc_html(o, d->slug);
                ff_pub_sb_printf(o, "\">%zu op test%s</a></small>", d->n_ops,
                                 d->n_ops == 1 ? "" : "s");
            }
            ff_pub_sb_puts(o, "</td>");
        }
        ff_pub_sb_puts(o, "</tr>\n");
    }
    ff_pub_sb_puts(o, "</tbody></table></div>\n<ol class=\"notes\">\n");
    for (size_t i = 0; i < set->notes.n; i++) {
        ff_pub_sb_printf(o, "<li id=\"note-%zu\">", i + 1);
        ff_pub_esc_html(o, set->notes.text[i]);
        ff_pub_sb_puts(o, "</li>\n");
    }
    ff_pub_sb_puts(o, "</ol>\n");
}

/* ---- op tests ---- */

static void op_cell(struct ff_pub_sb *o, const char *cls, const char *text)
{
    ff_pub_sb_printf(o, "<td%s%s%s>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
    ff_pub_esc_html(o, text);
    ff_pub_sb_puts(o, "</td>");
}

/* One device's op rows: a closed <details> under the table, opened by its summary or by a
 * link to its id (the device cell's "op tests"). A row without a figure says unsupported or
 * failed across the figure columns, the reason in its title. */
static void html_device_ops(const struct ff_pub_set *set, const struct ff_pub_device *d,
                            struct ff_pub_sb *o)
{
    (void)set;
    char label[512], text[128];
    ff_pub_device_label(d, label, sizeof(label));
    ff_pub_sb_puts(o, "<details class=\"ops\" id=\"ops-");
    ff_pub_esc_html(o, d->slug);
    ff_pub_sb_puts(o, "\"><summary>");
    ff_pub_esc_html(o, label);
    ff_pub_sb_printf(o, " <small>%zu op row%s", d->n_ops, d->n_ops == 1 ? "" : "s");
    if (d->n_runs > 1)
        ff_pub_sb_printf(o, ", medians of %zu runs", d->n_runs);
    ff_pub_sb_puts(o, "</small></summary>\n<div class=\"scroll\"><table class=\"ops\">\n"
                      "<thead><tr><th>op</th><th>format</th><th>shape</th><th>time</th>"
                      "<th>rate</th><th>of read bandwidth</th></tr></thead>\n<tbody>\n");
    for (size_t k = 0; k < d->n_ops; k++) {
        const struct ff_pub_op *op = &d->ops[k];
        ff_pub_sb_puts(o, "<tr>");
        op_cell(o, NULL, op->name);
        op_cell(o, NULL, op->precision);
        op_cell(o, "num", ff_pub_op_shape_text(op, text, sizeof(text)));
        ff_pub_op_value_text(op, text, sizeof(text));
        if (op->state != FF_PUB_OK) {
            ff_pub_sb_puts(o, "<td class=\"none\" colspan=\"3\" title=\"");
            ff_pub_esc_html(o, op->reason ? op->reason : "no reason given");
            ff_pub_sb_puts(o, "\">");
            ff_pub_esc_html(o, text);
            ff_pub_sb_puts(o, "</td></tr>\n");
            continue;
        }
        char time[64], frac[64];
        if (op->time_s > 0)
            ff_fmt_time(time, sizeof(time), op->time_s);
        else
            snprintf(time, sizeof(time), "-");
        op_cell(o, "num", time);
        ff_pub_sb_puts(o, "<td class=\"num\">");
        ff_pub_esc_html(o, text);
        if (op->runs > 1 && op->value > 0)
            ff_pub_sb_printf(o, "<br><small>±%.0f%% over %d runs</small>",
                             50.0 * (op->max - op->min) / op->value, op->runs);
        ff_pub_sb_puts(o, "</td>");
        ff_pub_op_fraction_text(op, frac, sizeof(frac));
        op_cell(o, frac[0] ? "num" : "num none", frac[0] ? frac : "-");
        ff_pub_sb_puts(o, "</tr>\n");
    }
    ff_pub_sb_puts(o, "</tbody></table></div>\n</details>\n");
}

static void html_ops(const struct ff_pub_set *set, struct ff_pub_sb *o)
{
    if (!ff_pub_set_has_ops(set))
        return;
    ff_pub_sb_puts(o, "<h2 id=\"ops\">Op tests</h2>\n<p>");
    ff_pub_esc_html(o, ff_pub_ops_intro());
    ff_pub_sb_puts(o, "</p>\n");
    for (size_t i = 0; i < set->n_devices; i++)
        if (set->devices[i].n_ops)
            html_device_ops(set, &set->devices[i], o);
}

/* ---- style and script ---- */

/* Colours as variables, a second set for prefers-color-scheme: dark. The charts keep their
 * white ground (their colours are chosen for it) on both. */
static const char style[] =
    ":root{color-scheme:light dark;--fg:#222;--bg:#fff;--muted:#666;--line:#e2e2e2;"
    "--head:#eef1f5;--stripe:#f8f9fb;--frame:#c8ccd2;--link:#1a4fa0;--mark:#1a4fa0}\n"
    "@media (prefers-color-scheme:dark){:root{--fg:#e4e6ea;--bg:#15171b;--muted:#a3a8b0;"
    "--line:#2e3238;--head:#242a33;--stripe:#1b1e23;--frame:#3d434c;--link:#8db8ff;"
    "--mark:#ffcf5c}}\n"
    "body{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;margin:24px;color:var(--fg);"
    "background:var(--bg);max-width:1400px}\n"
    "a{color:var(--link)}\n"
    "h1{font-size:24px;margin:0 0 8px}h2{font-size:19px;margin:28px 0 8px}\n"
    "p{line-height:1.45;max-width:900px}\n"
    ".controls{display:flex;flex-wrap:wrap;gap:8px 14px;margin:12px 0;font-size:13px}\n"
    ".controls[hidden]{display:none}\n"
    "fieldset{border:1px solid var(--frame);margin:0;padding:4px 10px 6px;display:flex;"
    "flex-wrap:wrap;gap:4px 12px;align-items:center}\n"
    "legend{font-weight:bold;padding:0 4px}label{white-space:nowrap}\n"
    "select{font:inherit;color:inherit;background:var(--bg);border:1px solid var(--frame)}\n"
    "output{color:var(--muted)}\n"
    ".scroll{overflow-x:auto;border:1px solid var(--frame)}\n"
    "table{border-collapse:collapse;font-size:13px}\n"
    "th,td{padding:5px 7px;border-bottom:1px solid var(--line);text-align:left;"
    "vertical-align:top}\n"
    "th{background:var(--head);position:sticky;top:0}\n"
    "th button{font:inherit;font-weight:bold;color:inherit;background:none;border:0;padding:0;"
    "cursor:pointer;text-align:left}\n"
    "th .mark{color:var(--mark);padding-left:3px}\n"
    "td.num{white-space:nowrap}td.num small{white-space:normal}"
    "td.none{color:var(--muted);font-style:italic}\n"
    "td small{color:var(--muted);font-size:11px}td:first-child{min-width:10em;font-weight:bold}\n"
    "tbody tr:nth-child(even){background:var(--stripe)}\n"
    "sup a{text-decoration:none}\n"
    ".notes{font-size:13px;max-width:1100px}.notes li{margin:3px 0}\n"
    ".charts{display:flex;flex-wrap:wrap;gap:18px}\n"
    "figure{margin:0;border:1px solid var(--frame);padding:6px;background:#fff;color:#222}\n"
    "figure a{color:#1a4fa0}\n"
    "figcaption{font-size:12px;color:#555;max-width:760px;margin-top:4px}\n"
    "svg{display:block;max-width:100%;height:auto}\n"
    "details.ops{margin:8px 0}details.ops summary{cursor:pointer;font-weight:bold}\n"
    "details.ops summary small{color:var(--muted);font-weight:normal}\n"
    "details.ops .scroll{display:inline-block;max-width:100%;margin-top:6px}\n"
    "table.ops td:first-child{min-width:0}\n"
    ".profiles{font-size:13px}.profiles li{margin:2px 0}.profiles small{color:var(--muted)}\n"
    "footer{margin-top:28px;padding-top:8px;border-top:1px solid var(--line);font-size:12px;"
    "color:var(--muted)}\n";

/*
 * The table's controls. Column groups: a checkbox per group hides its cells (class hide-<group>
 * on the table). Filters: a row shows when it has every chosen value (data-vendor, -backend,
 * -kind; data-prec lists the precisions it measured). Sorting, on a header click: numbers by
 * data-sort (no figure last; first the best, largest or for latency smallest), words A-Z;
 * again: reversed; the sorted header carries aria-sort and a ▲ or ▼. A link to a device's op
 * tests (#ops-<slug>, slugs need no decoding) opens their <details>. Only text and attributes
 * are written, never markup.
 */
static const char script[] =
    "(function () {\n"
    "  'use strict';\n"
    "  var table = document.getElementById('results');\n"
    "  var form = document.getElementById('controls');\n"
    "  var shown = document.getElementById('shown');\n"
    "  var body = table.tBodies[0];\n"
    "  var heads = table.tHead.rows[0].cells;\n"
    "  var each = function (list, f) { Array.prototype.forEach.call(list, f); };\n"
    "  function columns() {\n"
    "    each(form.querySelectorAll('input[data-group]'), function (box) {\n"
    "      table.classList.toggle('hide-' + box.getAttribute('data-group'), !box.checked);\n"
    "    });\n"
    "  }\n"
    "  function filter() {\n"
    "    var chosen = [], n = 0;\n"
    "    each(form.querySelectorAll('select[data-filter]'), function (s) {\n"
    "      if (s.value !== '') chosen.push([s.getAttribute('data-filter'), s.value]);\n"
    "    });\n"
    "    each(body.rows, function (row) {\n"
    "      var ok = chosen.every(function (c) {\n"
    "        var have = row.getAttribute('data-' + c[0]) || '';\n"
    "        return c[0] === 'prec' ? have.split(' ').indexOf(c[1]) >= 0 : have === c[1];\n"
    "      });\n"
    "      row.hidden = !ok;\n"
    "      n += ok ? 1 : 0;\n"
    "    });\n"
    "    var all = body.rows.length;\n"
    "    shown.textContent = n + ' of ' + all + (all === 1 ? ' row' : ' rows') + ' shown';\n"
    "  }\n"
    "  each(heads, function (th, col) {\n"
    "    th.querySelector('button').addEventListener('click', function () {\n"
    "      var rows = Array.prototype.slice.call(body.rows);\n"
    "      var numeric = th.getAttribute('data-type') === 'number';\n"
    "      var state = th.getAttribute('aria-sort');\n"
    "      var asc = state ? state !== 'ascending'\n"
    "                      : !numeric || th.getAttribute('data-best') === 'low';\n"
    "      rows.sort(function (a, b) {\n"
    "        var x = a.cells[col].getAttribute('data-sort');\n"
    "        var y = b.cells[col].getAttribute('data-sort');\n"
    "        if (numeric) {\n"
    "          if (x === null) return y === null ? 0 : 1;\n"
    "          if (y === null) return -1;\n"
    "          return asc ? x - y : y - x;\n"
    "        }\n"
    "        x = a.cells[col].textContent;\n"
    "        y = b.cells[col].textContent;\n"
    "        return asc ? x.localeCompare(y) : y.localeCompare(x);\n"
    "      });\n"
    "      rows.forEach(function (r) { body.appendChild(r); });\n"
    "      each(heads, function (h) {\n"
    "        h.removeAttribute('aria-sort');\n"
    "        h.querySelector('.mark').textContent = '';\n"
    "      });\n"
    "      th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');\n"
    "      th.querySelector('.mark').textContent = asc ? '\\u25B2' : '\\u25BC';\n"
    "    });\n"
    "  });\n"
    "  function openOps() {\n"
    "    var id = location.hash.slice(1);\n"
    "    var el = id ? document.getElementById(id) : null;\n"
    "    if (el && el.tagName === 'DETAILS') el.open = true;\n"
    "  }\n"
    "  window.addEventListener('hashchange', openOps);\n"
    "  openOps();\n"
    "  form.addEventListener('change', function () { columns(); filter(); });\n"
    "  form.addEventListener('submit', function (e) { e.preventDefault(); });\n"
    "  form.hidden = false;\n"
    "  columns();\n"
    "  filter();\n"
    "})();\n";

/* ---- where the profiles are, relative to the page ---- */

/* path with its folders resolved (realpath) and its last component kept, so that a link to a
 * profile that is a symbolic link names the link. -1 when a folder does not resolve. */
static int abs_path(const char *path, char *out, size_t n)
{
    char dir[PATH_MAX], real[PATH_MAX];
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    if (len >= sizeof(dir))
        return -1;
    memcpy(dir, path, len);
    dir[len] = 0;
    char *slash = strrchr(dir, '/');
    const char *base = slash ? slash + 1 : dir;
    if (strcmp(base, ".") == 0 || strcmp(base, "..") == 0 || !*base) {
        if (!realpath(dir, real))
            return -1;
        return (size_t)snprintf(out, n, "%s", real) < n ? 0 : -1;
    }
    if (slash)
        *slash = 0; /* dir: the folder part, "" for "/name" */
    if (slash == dir)
        snprintf(real, sizeof(real), "/");
    else if (!realpath(slash ? dir : ".", real))
        return -1;
    return (size_t)snprintf(out, n, "%s%s%s", real, strcmp(real, "/") ? "/" : "", base) < n ? 0
                                                                                            : -1;
}

/* The number of leading components a and b (absolute paths) share, and where a's end. */
static size_t shared_prefix(const char *a, const char *b, size_t *a_end)
{
    size_t k = 0, i = 0;
    *a_end = 0;
    for (;;) {
        while (a[i] == '/' && b[i] == '/')
            i++;
        size_t j = i;
        while (a[j] && a[j] != '/' && a[j] == b[j])
            j++;
        if (j == i || (a[j] && a[j] != '/') || (b[j] && b[j] != '/'))
            return k;
        k++;
        i = *a_end = j;
        if (!a[i] || !b[i])
            return k;
    }
}

/* Where the page is (the folder of index.html, absolute) and whose home must not show. */
struct page_at {
    bool known;
    char dir[PATH_MAX];
    char home[PATH_MAX];   /* "" unknown */
    char common[PATH_MAX]; /* the folder that holds every profile, "" none */
};

static void page_at_init(struct page_at *at, const struct ff_pub_set *set, const char *page_dir)
{
    memset(at, 0, sizeof(*at));
    /* the folder itself resolved where it exists (--html made it), else its parent */
    const char *where = page_dir ? page_dir : ".";
    at->known = realpath(where, at->dir) || abs_path(where, at->dir, sizeof(at->dir)) == 0;
    const char *home = getenv("HOME");
    if (!home || !*home || !realpath(home, at->home))
        at->home[0] = 0;
    bool first = true;
    for (size_t i = 0; i < set->n_runs + set->n_skipped; i++) {
        char p[PATH_MAX];
        const char *path = i < set->n_runs ? set->runs[i].path : set->skipped[i - set->n_runs].path;
        if (abs_path(path, p, sizeof(p)) != 0)
            continue;
        if (first) {
            snprintf(at->common, sizeof(at->common), "%s", p);
            char *slash = strrchr(at->common, '/');
            if (slash)
                slash[slash == at->common ? 1 : 0] = 0;
            first = false;
            continue;
        }
        size_t end;
        shared_prefix(at->common, p, &end);
        at->common[end ? end : 1] = 0;
    }
}

/* A folder whose paths below would name a user: /, /home, /Users, or one above this user's
 * home folder. */
static bool above_home(const struct page_at *at, const char *dir, size_t len)
{
    static const char *const homes[] = {"/", "/home", "/Users"};
    for (size_t i = 0; i < sizeof(homes) / sizeof(homes[0]); i++)
        if (len == strlen(homes[i]) && strncmp(dir, homes[i], len) == 0)
            return true;
    size_t hl = strlen(at->home);
    return hl > 1 && len < hl && strncmp(dir, at->home, len) == 0 && at->home[len] == '/';
}

/* The path a reader sees for run r: relative to the published folder, else to the folder that
 * holds every profile (its name alone when that folder lies above a home folder); never
 * absolute. */
static void run_name(const struct page_at *at, const struct ff_pub_set *set,
                     const struct ff_pub_run *r, char *out, size_t n)
{
    const char *p = ff_pub_run_path(set, r);
    char full[PATH_MAX];
    size_t c = strlen(at->common);
    if (set->base[0] && p != r->path && p[0] != '/')
        snprintf(out, n, "%s", p);
    else if (c && !above_home(at, at->common, c) && abs_path(r->path, full, sizeof(full)) == 0 &&
             strncmp(full, at->common, c) == 0 && full[c] == '/')
        snprintf(out, n, "%s", full + c + 1);
    else {
        const char *slash = strrchr(r->path, '/');
        snprintf(out, n, "%s", slash ? slash + 1 : r->path);
    }
}

/* The link from the page to run r: 0 with href; -1 when the page and the profile share no
 * folder but / (the way there would spell the profile's absolute path), -2 when it would come
 * down into a home folder (past this user's, or from /home, /Users or /root). */
static int run_href(const struct page_at *at, const struct ff_pub_run *r, char *href, size_t n)
{
    char to[PATH_MAX];
    if (!at->known || abs_path(r->path, to, sizeof(to)) != 0)
        return -1;
    size_t from_end;
    size_t k = shared_prefix(at->dir, to, &from_end);
    if (k == 0)
        return -1;
    size_t to_end;
    shared_prefix(to, at->dir, &to_end);
    /* coming down from the shared folder into a home folder */
    static const char *const homes[] = {"/home", "/Users", "/root"};
    for (size_t i = 0; i < sizeof(homes) / sizeof(homes[0]); i++)
        if (to_end == strlen(homes[i]) && strncmp(to, homes[i], to_end) == 0)
            return -2;
    size_t hl = strlen(at->home);
    if (hl > 1 && strncmp(to, at->home, hl) == 0 && to[hl] == '/' && to_end < hl)
        return -2;
    size_t len = 0;
    for (const char *s = at->dir + from_end; *s; s++)
        if (*s == '/' && s[1] && s[1] != '/') {
            if (len + 4 > n)
                return -1;
            memcpy(href + len, "../", 3);
            len += 3;
        }
    const char *down = to + to_end + (to[to_end] == '/');
    if (len + strlen(down) + 1 > n)
        return -1;
    memcpy(href + len, down, strlen(down) + 1);
    return 0;
}

/* text with every occurrence of from shown as to, escaped. */
static void put_replaced(struct ff_pub_sb *o, const char *text, const char *from, const char *to)
{
    size_t fl = strlen(from);
    const char *hit;
    while (fl && (hit = strstr(text, from)) != NULL) {
        char piece[1024];
        size_t k = (size_t)(hit - text);
        while (k) {
            size_t m = k < sizeof(piece) - 1 ? k : sizeof(piece) - 1;
            memcpy(piece, text, m);
            piece[m] = 0;
            ff_pub_esc_html(o, piece);
            text += m;
            k -= m;
        }
        ff_pub_esc_html(o, to);
        text += fl;
    }
    ff_pub_esc_html(o, text);
}

static void html_profiles(const struct ff_pub_set *set, const char *page_dir, struct ff_pub_sb *o)
{
    struct page_at *at = malloc(sizeof(*at));
    if (!at) {
        o->failed = true;
        return;
    }
    page_at_init(at, set, page_dir);
    char name[PATH_MAX], href[PATH_MAX];
    ff_pub_sb_puts(o, "<h2>Profiles</h2>\n<ul class=\"profiles\">\n");
    for (size_t i = 0; i < set->n_devices; i++)
        for (size_t k = 0; k < set->devices[i].n_runs; k++) {
            const struct ff_pub_run *r = set->devices[i].runs[k];
            run_name(at, set, r, name, sizeof(name));
            ff_pub_sb_puts(o, "<li>");
            int linked = run_href(at, r, href, sizeof(href));
            if (linked == 0) {
                ff_pub_sb_puts(o, "<a href=\"");
                ff_pub_esc_url(o, href);
                ff_pub_sb_puts(o, "\"><code>");
                ff_pub_esc_html(o, name);
                ff_pub_sb_puts(o, "</code></a>");
            } else {
                ff_pub_sb_puts(o, "<code>");
                ff_pub_esc_html(o, name);
                ff_pub_sb_printf(o, "</code> <small>(not linked: %s)</small>",
                                 linked == -2 ? "the way from the page would name a home folder"
                                              : "the page and the profile share no folder");
            }
            ff_pub_sb_puts(o, " <small>");
            ff_pub_esc_html(o, or_unknown(r->kind));
            ff_pub_sb_puts(o, " run, ");
            ff_pub_esc_html(o, or_unknown(r->info->created));
            ff_pub_sb_puts(o, ", schema ");
            ff_pub_esc_html(o, or_unknown(r->info->schema_version));
            ff_pub_sb_puts(o, "</small></li>\n");
        }
    for (size_t i = 0; i < set->n_skipped; i++) {
        const struct ff_pub_skip *sk = &set->skipped[i];
        struct ff_pub_run shown = {.path = sk->path};
        run_name(at, set, &shown, name, sizeof(name));
        ff_pub_sb_puts(o, "<li>skipped: ");
        put_replaced(o, sk->reason, sk->path, name);
        ff_pub_sb_puts(o, "</li>\n");
    }
    ff_pub_sb_puts(o, "</ul>\n");
    free(at);
}

/* The footer: the schema versions of the profiles on the page and the newest one's date. */
static void html_footer(const struct ff_pub_set *set, struct ff_pub_sb *o)
{
    const char **v = calloc(set->n_runs ? set->n_runs : 1, sizeof(*v));
    if (!v) {
        o->failed = true;
        return;
    }
    const char *newest = NULL;
    size_t n = 0;
    for (size_t i = 0; i < set->n_devices; i++)
        for (size_t k = 0; k < set->devices[i].n_runs; k++) {
            const struct ff_profile_info *info = set->devices[i].runs[k]->info;
            v[n++] = or_unknown(info->schema_version);
            if (info->created && (!newest || strcmp(info->created, newest) > 0))
                newest = info->created;
        }
    qsort(v, n, sizeof(*v), cmp_str);
    ff_pub_sb_printf(o, "<footer>Profile schema %s",
                     n > 1 && strcmp(v[0], v[n - 1]) ? "versions " : "");
    for (size_t i = 0; i < n; i++)
        if (!i || strcmp(v[i], v[i - 1])) {
            ff_pub_sb_puts(o, i ? ", " : "");
            ff_pub_esc_html(o, v[i]);
        }
    if (!n)
        ff_pub_sb_puts(o, "(no profile)");
    ff_pub_sb_puts(o, ". Newest profile: ");
    if (newest) {
        ff_pub_sb_puts(o, "<time datetime=\"");
        ff_pub_esc_html(o, newest);
        ff_pub_sb_puts(o, "\">");
        ff_pub_esc_html(o, newest);
        ff_pub_sb_puts(o, "</time>");
    } else {
        ff_pub_sb_puts(o, "none dated");
    }
    ff_pub_sb_puts(o, ". Made by <code>flopfit results</code> from the profiles listed "
                      "above.</footer>\n");
    free(v);
}

/* ---- the page ---- */

/* The page whose index.html lies in page_dir (NULL: the current folder); links are relative
 * to it. */
static int write_page(const struct ff_pub_set *set, const char *page_dir, struct ff_pub_sb *o)
{
    ff_pub_sb_puts(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
                      "'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src "
                      "data:\">\n"
                      "<title>flopfit results</title>\n<link rel=\"icon\" href=\"data:,\">\n"
                      "<style>\n");
    ff_pub_sb_puts(o, style);
    for (size_t g = 1; g < N_GROUPS; g++)
        ff_pub_sb_printf(o, "%s.hide-%s .g-%s", g > 1 ? "," : "", page_groups[g].id,
                         page_groups[g].id);
    static const char *const em[2] = {"<em>", "</em>"};
    ff_pub_sb_puts(o, "{display:none}\n</style>\n</head>\n<body>\n<h1>flopfit results</h1>\n<p>");
    ff_pub_summary(set, em, o);
    ff_pub_sb_puts(o, " Choose the column groups and filters below; click a column header to "
                      "sort.</p>\n");
    html_controls(set, o);
    html_table(set, o);
    html_ops(set, o);
    ff_pub_sb_puts(o, "<h2>Rooflines</h2>\n<p>Attainable rate = min(compute roof, bandwidth × "
                      "arithmetic intensity). Solid lines: measured by flopfit on the device "
                      "(the best verified matmul per precision; the bandwidth the estimator "
                      "plans with); dashed: the datasheet, where the catalog knows the device. "
                      "Circles on the roofs: ridge points (FLOP per byte). Markers: one decode "
                      "step of a model (");
    ff_pub_esc_html(o, ff_pub_serve_plan_text());
    ff_pub_sb_printf(o,
                     ", and at batch %d) as libflopfit estimates it from the profile.</p>\n"
                     "<div class=\"charts\">\n",
                     FF_PUB_POINT_BATCH_HIGH);
    char name[300];
    int rc = FF_OK;
    for (size_t i = 0; i < ff_pub_chart_count(set) && !rc; i++) {
        if (i == set->n_devices)
            ff_pub_sb_puts(o, "</div>\n<h2>Across devices</h2>\n<div class=\"charts\">\n");
        struct ff_pub_sb svg;
        ff_pub_sb_init(&svg);
        rc = ff_pub_chart(set, i, name, sizeof(name), &svg);
        char id[300];
        snprintf(id, sizeof(id), "%.*s", (int)(strlen(name) - 4), name);
        ff_pub_sb_puts(o, "<figure id=\"");
        ff_pub_esc_html(o, id);
        ff_pub_sb_puts(o, "\">\n");
        ff_pub_sb_puts(o, ff_pub_sb_str(&svg));
        ff_pub_sb_puts(o, "<figcaption>Also as <a href=\"");
        ff_pub_esc_url(o, name);
        ff_pub_sb_puts(o, "\">");
        ff_pub_esc_html(o, name);
        ff_pub_sb_puts(o, "</a>.</figcaption>\n</figure>\n");
        ff_pub_sb_finish(&svg);
    }
    ff_pub_sb_puts(o, "</div>\n");
    html_profiles(set, page_dir, o);
    html_footer(set, o);
    ff_pub_sb_printf(o, "<script>\n%s</script>\n</body>\n</html>\n", script);
    return rc ? rc : ff_pub_sb_status(o);
}

int ff_pub_write_html(const struct ff_pub_set *set, struct ff_pub_sb *o)
{
    return write_page(set, NULL, o);
}

int ff_pub_html_put(const struct ff_pub_set *set, const struct ff_pub_dir *d, const char *page_dir,
                    bool check, char *err, size_t errlen)
{
    struct ff_pub_sb text;
    char name[300];
    ff_pub_sb_init(&text);
    int rc = write_page(set, page_dir, &text);
    if (!rc)
        rc = ff_pub_dir_put(d, "index.html", ff_pub_sb_str(&text), check, err, errlen);
    for (size_t i = 0; i < ff_pub_chart_count(set) && !rc; i++) {
        ff_pub_sb_finish(&text);
        rc = ff_pub_chart(set, i, name, sizeof(name), &text);
        if (!rc)
            rc = ff_pub_dir_put(d, name, ff_pub_sb_str(&text), check, err, errlen);
    }
    ff_pub_sb_finish(&text);
    if (rc == FF_ERR_NO_MEMORY)
        ff_errf(err, errlen, rc, "out of memory");
    return rc;
}

int ff_pub_html_dir(const struct ff_pub_set *set, const char *dir, bool check, char *err,
                    size_t errlen)
{
    struct ff_pub_dir d;
    int rc = ff_pub_dir_open(&d, dir, !check, err, errlen);
    if (!rc)
        rc = ff_pub_html_put(set, &d, dir, check, err, errlen);
    ff_pub_dir_finish(&d);
    return rc;
}
