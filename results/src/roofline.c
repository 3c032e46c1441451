/*
 * results/src/roofline.c — one device's roofline as SVG (Williams, Waterman, Patterson,
 * "Roofline", CACM 2009): attainable rate = min(compute roof, bandwidth x intensity).
 *
 * Log-log axes. Solid: what this device measured (the best verified matmul per precision as
 * its compute roof, the bandwidth the estimator plans with as the slope); dashed: the
 * datasheet's roofs and bandwidth where the catalog knows the device. A circle marks each
 * ridge point (where the slope meets a roof). Markers: the decode step of a few models at
 * batch 1 and at a large batch, as libflopfit estimates them on this device (filled: the model
 * fits the device; hollow: it would not).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <flopfit/precision.h>

#include "results_impl.h"

#define W      830
#define H      460
#define LEFT   78
#define RIGHT  520
#define TOP    48
#define BOTTOM 392

struct plot {
    struct ff_pub_axis x, y;
};

static double px(const struct plot *p, double v)
{
    return ff_pub_axis_px(&p->x, v);
}

static double py(const struct plot *p, double v)
{
    return ff_pub_axis_px(&p->y, v);
}

static void grid(struct ff_pub_sb *o, const struct plot *p)
{
    char lab[32];
    ff_pub_sb_puts(o, "<g stroke=\"#e3e3e3\" stroke-width=\"1\">\n");
    for (int d = (int)p->x.lo; d <= (int)p->x.hi; d++)
        ff_pub_sb_printf(o, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n",
                         px(p, pow(10, d)), TOP, px(p, pow(10, d)), BOTTOM);
    for (int d = (int)p->y.lo; d <= (int)p->y.hi; d++)
        ff_pub_sb_printf(o, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n", LEFT,
                         py(p, pow(10, d)), RIGHT, py(p, pow(10, d)));
    ff_pub_sb_puts(o, "</g>\n");
    ff_pub_sb_printf(o,
                     "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                     "stroke=\"#555555\"/>\n",
                     LEFT, TOP, RIGHT - LEFT, BOTTOM - TOP);
    for (int d = (int)p->x.lo; d <= (int)p->x.hi; d++) {
        ff_pub_decade_label(lab, sizeof(lab), d);
        ff_pub_svg_text(o, px(p, pow(10, d)), BOTTOM + 16, "middle", 11, NULL, lab);
    }
    for (int d = (int)p->y.lo; d <= (int)p->y.hi; d++) {
        ff_pub_decade_label(lab, sizeof(lab), d);
        ff_pub_svg_text(o, LEFT - 6, py(p, pow(10, d)) + 4, "end", 11, NULL, lab);
    }
    ff_pub_svg_text(o, (LEFT + RIGHT) / 2.0, BOTTOM + 38, "middle", 12, NULL,
                    "arithmetic intensity, FLOP per byte of memory traffic (log scale)");
    ff_pub_sb_printf(o,
                     "<text transform=\"translate(18 %d) rotate(-90)\" text-anchor=\"middle\" "
                     "font-size=\"12\">FLOP/s, int8: OP/s (log scale)</text>\n",
                     (TOP + BOTTOM) / 2);
}

static void line(struct ff_pub_sb *o, const struct plot *p, double x1, double y1, double x2,
                 double y2, const char *colour, bool dashed)
{
    ff_pub_sb_printf(o,
                     "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                     "stroke-width=\"%s\"%s/>\n",
                     px(p, x1), py(p, y1), px(p, x2), py(p, y2), colour, dashed ? "1.5" : "2.5",
                     dashed ? " stroke-dasharray=\"6 4\"" : "");
}

/* A legend row at the right of the plot: a line sample (or a marker) and its text. */
static void legend(struct ff_pub_sb *o, int *y, const char *colour, bool dashed, const char *marker,
                   const char *text)
{
    int x = RIGHT + 14;
    if (marker)
        ff_pub_sb_printf(o, "%s", marker);
    else
        ff_pub_sb_printf(o,
                         "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
                         "stroke-width=\"%s\"%s/>\n",
                         x, *y - 4, x + 22, *y - 4, colour, dashed ? "1.5" : "2.5",
                         dashed ? " stroke-dasharray=\"6 4\"" : "");
    ff_pub_svg_text(o, x + 28, *y, "start", 11, NULL, text);
    *y += 17;
}

/* One colour per model (up to three on a chart): the legend names them, so labels never
 * pile up where several models' points meet. */
static const char *const model_colour[] = {"#222222", "#7b3294", "#a6611a"};

/* Batch 1 a circle, the large batch a square; filled when the model fits the device. */
static void marker(struct ff_pub_sb *o, double x, double y, int64_t batch, bool fits,
                   const char *colour)
{
    const char *fill = fits ? colour : "#ffffff";
    if (batch == 1)
        ff_pub_sb_printf(o,
                         "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"%s\" "
                         "stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                         x, y, fill, colour);
    else
        ff_pub_sb_printf(o,
                         "<rect x=\"%.1f\" y=\"%.1f\" width=\"9\" height=\"9\" fill=\"%s\" "
                         "stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                         x - 4.5, y - 4.5, fill, colour);
}

/* The index of a point's model among the chart's models (in order of first appearance). */
static size_t model_index(const struct ff_pub_device *d, size_t i)
{
    size_t first = 0, k = 0;
    while (strcmp(d->points[first].model, d->points[i].model) != 0)
        first++;
    for (size_t j = 0; j < first; j++) {
        bool seen = false;
        for (size_t q = 0; q < j && !seen; q++)
            seen = strcmp(d->points[q].model, d->points[j].model) == 0;
        k += !seen;
    }
    return k;
}

int ff_pub_svg_roofline(const struct ff_pub_set *set, const struct ff_pub_device *d,
                        struct ff_pub_sb *o)
{
    (void)set;
    const struct ff_pub_metric_info *mi = ff_pub_metrics();
    double bw = d->has_spec && d->spec.bandwidth_bytes_per_s > 0 ? d->spec.bandwidth_bytes_per_s
                : d->fig[FF_PUB_READ].state == FF_PUB_OK         ? d->fig[FF_PUB_READ].value
                                                                 : 0;
    double ds_bw = d->has_datasheet ? d->datasheet.bandwidth_bytes_per_s : 0;
    double peak[FF_PUB_N_MATMUL], ds_peak[FF_PUB_N_MATMUL], top = 0, lo_rate = INFINITY;
    double lo_i = 0.1, hi_i = 100;
    for (int m = 0; m < FF_PUB_N_MATMUL; m++) {
        peak[m] = d->fig[m].state == FF_PUB_OK ? d->fig[m].value : 0;
        ds_peak[m] = d->has_datasheet ? d->datasheet.flops_per_s[mi[m].prec] : 0;
        top = fmax(top, fmax(peak[m], ds_peak[m]));
        if (peak[m] > 0 && bw > 0)
            hi_i = fmax(hi_i, 4 * peak[m] / bw);
        if (ds_peak[m] > 0 && ds_bw > 0)
            hi_i = fmax(hi_i, 4 * ds_peak[m] / ds_bw);
    }
    for (size_t i = 0; i < d->n_points; i++) {
        lo_i = fmin(lo_i, d->points[i].intensity / 2);
        hi_i = fmax(hi_i, d->points[i].intensity * 2);
        lo_rate = fmin(lo_rate, d->points[i].rate / 2);
    }
    char label[512], title[600], text[256];
    ff_pub_device_label(d, label, sizeof(label));
    snprintf(title, sizeof(title), "Roofline of %s", label);
    ff_pub_svg_open(o, W, H, title, "roofline");
    ff_pub_svg_text(o, LEFT, 24, "start", 15, "font-weight=\"bold\"", label);
    if (top <= 0) {
        ff_pub_svg_text(o, W / 2.0, H / 2.0, "middle", 13, NULL,
                        "no verified matmul: no compute roof to draw");
        ff_pub_svg_close(o);
        return ff_pub_sb_status(o);
    }
    struct plot p = {.x = {.p0 = LEFT, .p1 = RIGHT}, .y = {.p0 = BOTTOM, .p1 = TOP}};
    ff_pub_axis_fit(&p.x, lo_i, hi_i, 3);
    double xmin = pow(10, p.x.lo), xmax = pow(10, p.x.hi);
    double bottom_rate = fmin(lo_rate, bw > 0 ? bw * xmin : top / 1000);
    if (ds_bw > 0)
        bottom_rate = fmin(bottom_rate, ds_bw * xmin);
    ff_pub_axis_fit(&p.y, fmax(bottom_rate, top * 1e-6), top * 1.5, 2);
    grid(o, &p);

    int ly = TOP + 10;
    /* measured: one bandwidth slope up to the highest roof, a roof per precision */
    double roof_top = 0;
    for (int m = 0; m < FF_PUB_N_MATMUL; m++)
        roof_top = fmax(roof_top, peak[m]);
    if (bw > 0) {
        double x0 = fmax(xmin, pow(10, p.y.lo) / bw);
        line(o, &p, x0, bw * x0, roof_top / bw, roof_top, "#444444", false);
        ff_pub_fmt_value(text, sizeof(text), bw, FF_PF_UNIT_BYTES_PER_S);
        char t[300];
        snprintf(t, sizeof(t), "bandwidth %s (best read/copy)", text);
        legend(o, &ly, "#444444", false, NULL, t);
    }
    for (int m = 0; m < FF_PUB_N_MATMUL; m++) {
        if (peak[m] <= 0)
            continue;
        double ridge = bw > 0 ? peak[m] / bw : xmin;
        line(o, &p, fmax(ridge, xmin), peak[m], xmax, peak[m], ff_pub_prec_colour(m), false);
        char v[64], t[300];
        ff_pub_fmt_value(v, sizeof(v), peak[m], mi[m].unit);
        if (bw > 0) {
            ff_pub_sb_printf(o,
                             "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#ffffff\" "
                             "stroke=\"%s\" stroke-width=\"2\"/>\n",
                             px(&p, ridge), py(&p, peak[m]), ff_pub_prec_colour(m));
            snprintf(t, sizeof(t), "%s %s, ridge %.3g FLOP/B", mi[m].id, v, ridge);
        } else {
            snprintf(t, sizeof(t), "%s %s", mi[m].id, v);
        }
        legend(o, &ly, ff_pub_prec_colour(m), false, NULL, t);
    }
    for (int m = 0; m < FF_PUB_N_MATMUL; m++)
        if (d->fig[m].state != FF_PUB_OK) {
            snprintf(text, sizeof(text), "%s: %s", mi[m].id,
                     d->fig[m].state == FF_PUB_ABSENT   ? "not measured"
                     : d->fig[m].state == FF_PUB_FAILED ? "failed"
                                                        : "unsupported");
            ff_pub_svg_text(o, RIGHT + 14, ly, "start", 11, "fill=\"#777777\"", text);
            ly += 17;
        }
    /* the datasheet, dashed */
    if (d->has_datasheet) {
        ly += 4;
        ff_pub_svg_text(o, RIGHT + 14, ly, "start", 11, "font-weight=\"bold\"", "datasheet");
        ly += 17;
        if (ds_bw > 0) {
            double ds_top = 0;
            for (int m = 0; m < FF_PUB_N_MATMUL; m++)
                ds_top = fmax(ds_top, ds_peak[m]);
            double x0 = fmax(xmin, pow(10, p.y.lo) / ds_bw);
            if (ds_top > 0)
                line(o, &p, x0, ds_bw * x0, ds_top / ds_bw, ds_top, "#444444", true);
            ff_pub_fmt_value(text, sizeof(text), ds_bw, FF_PF_UNIT_BYTES_PER_S);
            char t[300];
            snprintf(t, sizeof(t), "bandwidth %s", text);
            legend(o, &ly, "#444444", true, NULL, t);
        }
        for (int m = 0; m < FF_PUB_N_MATMUL; m++) {
            if (ds_peak[m] <= 0)
                continue;
            double ridge = ds_bw > 0 ? ds_peak[m] / ds_bw : xmin;
            line(o, &p, fmax(ridge, xmin), ds_peak[m], xmax, ds_peak[m], ff_pub_prec_colour(m),
                 true);
            char v[64], t[300];
            ff_pub_fmt_value(v, sizeof(v), ds_peak[m], mi[m].unit);
            snprintf(t, sizeof(t), "%s %s", mi[m].id, v);
            legend(o, &ly, ff_pub_prec_colour(m), true, NULL, t);
        }
    }
    /* the models' decode steps */
    if (d->n_points) {
        ly += 4;
        ff_pub_svg_text(o, RIGHT + 14, ly, "start", 11, "font-weight=\"bold\"",
                        "decode step (estimated)");
        ly += 17;
        snprintf(text, sizeof(text), "● batch 1   ■ batch %d", FF_PUB_POINT_BATCH_HIGH);
        ff_pub_svg_text(o, RIGHT + 14, ly, "start", 11, NULL, text);
        ly += 17;
        for (size_t i = 0; i < d->n_points; i++) {
            size_t k = model_index(d, i);
            if (d->points[i].batch != 1 || k >= 3)
                continue;
            char mk[200];
            snprintf(mk, sizeof(mk), "<circle cx=\"%d\" cy=\"%d\" r=\"4.5\" fill=\"%s\"/>\n",
                     RIGHT + 25, ly - 4, model_colour[k]);
            legend(o, &ly, NULL, false, mk, d->points[i].model);
        }
        ff_pub_svg_text(o, RIGHT + 14, ly, "start", 11, "fill=\"#555555\"",
                        "hollow: does not fit one device");
        ly += 17;
    }
    for (size_t i = 0; i < d->n_points; i++) {
        const struct ff_pub_point *pt = &d->points[i];
        size_t k = model_index(d, i);
        marker(o, px(&p, pt->intensity), py(&p, pt->rate), pt->batch, pt->fits,
               model_colour[k < 3 ? k : 2]);
    }
    ff_pub_svg_close(o);
    return ff_pub_sb_status(o);
}
