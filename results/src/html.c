/*
 * results/src/html.c — the results page: one self-contained HTML file (inline CSS, a few lines
 * of inline script for sorting, the charts as inline SVG; no network, no external script or
 * font), and `--html DIR`, which writes it with each chart as its own .svg beside it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <flopfit/status.h>

#include "results_impl.h"

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

static const char style[] =
    "body{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;margin:24px;color:#222;"
    "max-width:1400px}\n"
    "h1{font-size:24px;margin:0 0 8px}h2{font-size:19px;margin:28px 0 8px}\n"
    "p{line-height:1.45;max-width:900px}\n"
    ".scroll{overflow-x:auto;border:1px solid #ccc}\n"
    "table{border-collapse:collapse;font-size:13px}\n"
    "th,td{padding:5px 8px;border-bottom:1px solid #e2e2e2;text-align:left;vertical-align:top}\n"
    "th{background:#f0f3f7;cursor:pointer;white-space:nowrap;position:sticky;top:0}\n"
    "th[aria-sort=ascending]::after{content:' \\25B2'}"
    "th[aria-sort=descending]::after{content:' \\25BC'}\n"
    "td.num{white-space:nowrap}td.none{color:#777;font-style:italic}\n"
    "td small{color:#666;font-size:11px}td:first-child{min-width:11em;font-weight:bold}\n"
    "tbody tr:nth-child(even){background:#fafafa}\n"
    "sup a{text-decoration:none}\n"
    ".notes{font-size:13px;max-width:1100px}.notes li{margin:3px 0}\n"
    ".charts{display:flex;flex-wrap:wrap;gap:18px}\n"
    "figure{margin:0;border:1px solid #ddd;padding:6px;background:#fff}\n"
    "figcaption{font-size:12px;color:#555;max-width:760px;margin-top:4px}\n"
    "svg{display:block;max-width:100%;height:auto}\n";

/* Sort on a header click: numbers by data-sort (no figure last), words A-Z; again: reversed. */
static const char script[] =
    "(function () {\n"
    "  var table = document.getElementById('results');\n"
    "  var heads = table.tHead.rows[0].cells;\n"
    "  Array.prototype.forEach.call(heads, function (th, col) {\n"
    "    th.addEventListener('click', function () {\n"
    "      var body = table.tBodies[0];\n"
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
    "      Array.prototype.forEach.call(heads, function (h) { h.removeAttribute('aria-sort'); });\n"
    "      th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');\n"
    "    });\n"
    "  });\n"
    "})();\n";

static void html_table(const struct ff_pub_set *set, struct ff_pub_sb *o)
{
    size_t n;
    const struct ff_pub_column *cols = ff_pub_columns(&n);
    ff_pub_sb_puts(o, "<div class=\"scroll\"><table id=\"results\">\n<thead><tr>");
    for (size_t c = 0; c < n; c++) {
        bool numeric = false;
        for (size_t i = 0; i < set->n_devices && !numeric; i++) {
            struct ff_pub_cell cell;
            cols[c].cell(set, &set->devices[i], &cols[c], &cell);
            numeric = !isnan(cell.sort);
        }
        bool low = cols[c].metric >= 0 && ff_pub_metrics()[cols[c].metric].lower_is_better;
        ff_pub_sb_printf(o, "<th data-col=\"%s\" data-type=\"%s\"%s>", cols[c].id,
                         numeric ? "number" : "text", low ? " data-best=\"low\"" : "");
        ff_pub_esc_html(o, cols[c].title);
        ff_pub_sb_puts(o, "</th>");
    }
    ff_pub_sb_puts(o, "</tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < set->n_devices; i++) {
        const struct ff_pub_device *d = &set->devices[i];
        ff_pub_sb_puts(o, "<tr data-device=\"");
        ff_pub_esc_html(o, d->slug);
        ff_pub_sb_puts(o, "\">");
        for (size_t c = 0; c < n; c++) {
            struct ff_pub_cell cell;
            cols[c].cell(set, d, &cols[c], &cell);
            bool none = cols[c].metric >= 0 && isnan(cell.sort);
            ff_pub_sb_printf(o, "<td%s",
                             none                  ? " class=\"none\""
                             : cols[c].metric >= 0 ? " class=\"num\""
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

int ff_pub_write_html(const struct ff_pub_set *set, struct ff_pub_sb *o)
{
    static const char *const em[2] = {"<em>", "</em>"};
    ff_pub_sb_printf(o,
                     "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<title>flopfit results</title>\n<link rel=\"icon\" href=\"data:,\">\n"
                     "<style>\n%s</style>\n</head>\n<body>\n<h1>flopfit results</h1>\n<p>",
                     style);
    ff_pub_summary(set, em, o);
    ff_pub_sb_puts(o, " Click a column header to sort.</p>\n");
    html_table(set, o);
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
    ff_pub_sb_puts(o, "</div>\n<h2>Profiles</h2>\n<ul>\n");
    for (size_t i = 0; i < set->n_devices; i++)
        for (size_t r = 0; r < set->devices[i].n_runs; r++) {
            ff_pub_sb_puts(o, "<li><code>");
            ff_pub_esc_html(o, ff_pub_run_path(set, set->devices[i].runs[r]));
            ff_pub_sb_puts(o, "</code></li>\n");
        }
    for (size_t i = 0; i < set->n_skipped; i++) {
        ff_pub_sb_puts(o, "<li>skipped: ");
        ff_pub_esc_html(o, set->skipped[i].reason);
        ff_pub_sb_puts(o, "</li>\n");
    }
    ff_pub_sb_printf(o, "</ul>\n<script>\n%s</script>\n</body>\n</html>\n", script);
    return rc ? rc : ff_pub_sb_status(o);
}
