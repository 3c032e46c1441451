/*
 * results/src/svg.c — the few SVG pieces both charts draw with: log axes, text, the document
 * wrapper and the precision colours. The charts are written directly as SVG 1.1 text: no
 * plotting library is needed for lines, boxes and labels, and the output stays byte-for-byte
 * reproducible (the checked-in results/ page is compared in CI).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results_impl.h"

double ff_pub_axis_px(const struct ff_pub_axis *a, double v)
{
    double t = (log10(v) - a->lo) / (a->hi - a->lo);
    return a->p0 + t * (a->p1 - a->p0);
}

void ff_pub_axis_fit(struct ff_pub_axis *a, double vmin, double vmax, int min_decades)
{
    a->lo = floor(log10(vmin));
    a->hi = ceil(log10(vmax));
    if (a->hi <= a->lo)
        a->hi = a->lo + 1;
    while (a->hi - a->lo < min_decades) {
        a->hi += 1;
        if (a->hi - a->lo < min_decades)
            a->lo -= 1;
    }
}

void ff_pub_decade_label(char *dst, size_t n, int decade)
{
    static const char *const pre[] = {"n", "µ", "m", "", "k", "M", "G", "T", "P", "E"};
    if (decade >= -3 && decade <= 3) {
        /* plain numbers read best near 1: 0.001 ... 1000 */
        snprintf(dst, n, "%.*f", decade < 0 ? -decade : 0, pow(10, decade));
        return;
    }
    int d = decade, p = 0;
    while (d < 0) {
        d += 3;
        p--;
    }
    while (d >= 3 && p < 6) {
        d -= 3;
        p++;
    }
    snprintf(dst, n, "%.0f %s", pow(10, d), pre[p + 3]);
}

void ff_pub_svg_open(struct ff_pub_sb *o, int width, int height, const char *title, const char *cls)
{
    ff_pub_sb_printf(o,
                     "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"%s\" width=\"%d\" "
                     "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
                     "font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\">\n<title>",
                     cls, width, height, width, height);
    ff_pub_esc_xml(o, title);
    ff_pub_sb_printf(o, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", width,
                     height);
}

void ff_pub_svg_close(struct ff_pub_sb *o)
{
    ff_pub_sb_puts(o, "</svg>\n");
}

void ff_pub_svg_text(struct ff_pub_sb *o, double x, double y, const char *anchor, int size,
                     const char *extra, const char *text)
{
    ff_pub_sb_printf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\"%s%s>", x,
                     y, anchor, size, extra ? " " : "", extra ? extra : "");
    ff_pub_esc_xml(o, text);
    ff_pub_sb_puts(o, "</text>\n");
}

const char *ff_pub_prec_colour(int metric)
{
    /* blue, orange, green of the Tableau 10 palette: distinct for colour-blind readers too */
    static const char *const c[FF_PUB_N_MATMUL] = {"#1f77b4", "#d95f02", "#1b9e77"};
    return metric >= 0 && metric < FF_PUB_N_MATMUL ? c[metric] : "#444444";
}
