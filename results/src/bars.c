/*
 * results/src/bars.c — one metric across devices as horizontal bars on a log scale (devices
 * differ by orders of magnitude: a CPU's GFLOP/s next to a GPU's hundreds of TFLOP/s). A
 * device without the figure gets its row with the word and the footnote number, never a
 * zero-length bar; runs of one device show their spread as a whisker.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results_impl.h"

#define W       760
#define LABEL_W 290
#define X0      (LABEL_W + 10)
#define X1      (W - 110)
#define ROW_H   28
#define TOP     44

int ff_pub_svg_bars(const struct ff_pub_set *set, enum ff_pub_metric m, struct ff_pub_sb *o)
{
    const struct ff_pub_metric_info *mi = &ff_pub_metrics()[m];
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < set->n_devices; i++) {
        const struct ff_pub_figure *f = &set->devices[i].fig[m];
        if (f->state == FF_PUB_OK && f->value > 0) {
            lo = fmin(lo, f->min > 0 ? f->min : f->value);
            hi = fmax(hi, f->max);
        }
    }
    int h = TOP + (int)set->n_devices * ROW_H + 48;
    char title[256], text[640];
    snprintf(title, sizeof(title), "%s, best verified result per device (%s, log scale)", mi->title,
             mi->unit);
    ff_pub_svg_open(o, W, h, title, "bars");
    ff_pub_svg_text(o, 10, 24, "start", 15, "font-weight=\"bold\"", title);
    struct ff_pub_axis ax = {.p0 = X0, .p1 = X1};
    bool any = hi > 0;
    if (any) {
        /* the bars start a decade below the smallest figure so the smallest is visible */
        ff_pub_axis_fit(&ax, lo / 10, hi, 2);
        int bottom = TOP + (int)set->n_devices * ROW_H;
        ff_pub_sb_puts(o, "<g stroke=\"#e3e3e3\">\n");
        for (int d = (int)ax.lo; d <= (int)ax.hi; d++)
            ff_pub_sb_printf(o, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n",
                             ff_pub_axis_px(&ax, pow(10, d)), TOP - 4,
                             ff_pub_axis_px(&ax, pow(10, d)), bottom);
        ff_pub_sb_puts(o, "</g>\n");
        for (int d = (int)ax.lo; d <= (int)ax.hi; d++) {
            char lab[32];
            ff_pub_decade_label(lab, sizeof(lab), d);
            ff_pub_svg_text(o, ff_pub_axis_px(&ax, pow(10, d)), bottom + 16, "middle", 11, NULL,
                            lab);
        }
        bool spread = false;
        for (size_t i = 0; i < set->n_devices; i++)
            spread |= set->devices[i].fig[m].state == FF_PUB_OK && set->devices[i].fig[m].runs > 1;
        snprintf(text, sizeof(text), "%s (log scale)%s", mi->unit,
                 spread ? "; a line through a bar: the range over that device's runs" : "");
        ff_pub_svg_text(o, (X0 + X1) / 2.0, bottom + 36, "middle", 12, NULL, text);
    }
    for (size_t i = 0; i < set->n_devices; i++) {
        const struct ff_pub_device *d = &set->devices[i];
        const struct ff_pub_figure *f = &d->fig[m];
        double y = TOP + (double)i * ROW_H;
        char label[512];
        ff_pub_device_label(d, label, sizeof(label));
        /* long names are cut for the label column; the full name is the row's tooltip */
        ff_pub_sb_puts(o, "<g><title>");
        ff_pub_esc_xml(o, label);
        ff_pub_sb_puts(o, "</title>\n");
        char shown[64];
        size_t len = strlen(label);
        bool cut = len > 44;
        if (cut) {
            len = 41; /* at a character's first byte: the label is UTF-8 */
            while (len > 0 && ((unsigned char)label[len] & 0xC0) == 0x80)
                len--;
        }
        memcpy(shown, label, len);
        strcpy(shown + len, cut ? "..." : "");
        ff_pub_svg_text(o, LABEL_W, y + 18, "end", 12, NULL, shown);
        ff_pub_sb_puts(o, "</g>\n");
        if (f->state != FF_PUB_OK || !any) {
            ff_pub_figure_text(f, m, text, sizeof(text));
            size_t note = ff_pub_note_number(set, f->reason[0] ? f->reason : NULL);
            char t[700];
            if (note)
                snprintf(t, sizeof(t), "%s [%zu]", text, note);
            else
                snprintf(t, sizeof(t), "%s", text);
            ff_pub_sb_puts(o, "<g><title>");
            ff_pub_esc_xml(o, f->reason[0] ? f->reason : text);
            ff_pub_sb_puts(o, "</title>\n");
            ff_pub_svg_text(o, X0 + 6, y + 18, "start", 12,
                            "fill=\"#777777\" font-style=\"italic\"", t);
            ff_pub_sb_puts(o, "</g>\n");
            continue;
        }
        double x = ff_pub_axis_px(&ax, f->value);
        ff_pub_sb_printf(o,
                         "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
                         X0, y + 5, x - X0, ROW_H - 10, ff_pub_prec_colour((int)m));
        if (f->runs > 1)
            ff_pub_sb_printf(o,
                             "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                             "stroke=\"#222222\" stroke-width=\"1.5\"/>\n",
                             ff_pub_axis_px(&ax, f->min), y + ROW_H / 2.0,
                             ff_pub_axis_px(&ax, f->max), y + ROW_H / 2.0);
        ff_pub_fmt_value(text, sizeof(text), f->value, mi->unit);
        ff_pub_svg_text(o, fmax(x, ff_pub_axis_px(&ax, f->max)) + 6, y + 18, "start", 12, NULL,
                        text);
    }
    ff_pub_svg_close(o);
    return ff_pub_sb_status(o);
}
