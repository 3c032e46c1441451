/*
 * results/src/results_impl.h — what the publisher's source files share and the CLI does not
 * need: statistics, the estimator step, number formatting and the SVG plotting helpers.
 */
#ifndef FF_PUB_RESULTS_IMPL_H
#define FF_PUB_RESULTS_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "escape.h"
#include "results.h"

/* Median of v[0..n) (sorts v): for an even n the lower middle one; 0 for n == 0. */
double ff_pub_median(double *v, size_t n);

/* The estimator on one device (serve.c): datasheet entry, "serves", roofline points. With
 * run false only the datasheet entry is looked up. */
void ff_pub_estimate_device(struct ff_pub_device *d, bool run);
/* The plan's words for the serving columns: "one device, 4096 tokens (3840 + 256), batch 1". */
const char *ff_pub_serve_plan_text(void);

/* "3 devices from 4 profiles. Each figure is the best verified result..." for every page's
 * introduction; `unsupported` is wrapped in mark[0]..mark[1] ("<em>", "*"). */
void ff_pub_summary(const struct ff_pub_set *set, const char *const mark[2], struct ff_pub_sb *out);

/* A figure in its unit: "118 GFLOP/s", "6.00 GiB", "1.26 us". */
void ff_pub_fmt_value(char *dst, size_t n, double v, const char *unit);
/* The device's name as a reader knows it: "llvmpipe (LLVM 15.0.6, 256 bits) (vulkan)". */
void ff_pub_device_label(const struct ff_pub_device *d, char *dst, size_t n);
/* The cell text of a metric without spread or notes ("118 GFLOP/s", "unsupported"). */
void ff_pub_figure_text(const struct ff_pub_figure *f, int metric, char *dst, size_t n);

/* The charts of a page (html.c): a roofline per device, then bars per metric. Chart i's file
 * name goes to name ("roofline-opencl-x.svg"), its SVG to out. */
size_t ff_pub_chart_count(const struct ff_pub_set *set);
int ff_pub_chart(const struct ff_pub_set *set, size_t i, char *name, size_t n,
                 struct ff_pub_sb *out);

/* ---- op tests (ops.c) ---- */

/* The device's op rows from its runs (d->ops). FF_ERR_NO_MEMORY or 0. */
int ff_pub_device_ops(struct ff_pub_device *d);
/* The sentence every output puts above the op rows. */
const char *ff_pub_ops_intro(void);

/* ---- destination folders (dest.c) ---- */

/* An open folder the publisher writes into, and the path messages name it by. */
struct ff_pub_dir {
    int fd; /* -1 when closed */
    char path[4096];
};
void ff_pub_dir_init(struct ff_pub_dir *d);
/* Close (NULL-safe on a closed one). */
void ff_pub_dir_finish(struct ff_pub_dir *d);
/* A destination the user named, by its path; `create`: mkdir -p first. */
int ff_pub_dir_open(struct ff_pub_dir *d, const char *path, bool create, char *err, size_t errlen);
/* The folder `name` (one component, ff_pub_check_name) inside parent, created when `create`;
 * opened with O_NOFOLLOW: a symbolic link or a file there is FF_ERR_INVALID naming it,
 * a missing one (create false) FF_ERR_NOT_FOUND. */
int ff_pub_dir_sub(struct ff_pub_dir *out, const struct ff_pub_dir *parent, const char *name,
                   bool create, char *err, size_t errlen);
/* One component of a path: 1 to 255 bytes, no '/', not "." or "..". FF_ERR_INVALID. */
int ff_pub_check_name(const char *name, char *err, size_t errlen);
/* Write text to d/name atomically (temp + rename inside d), or with `check` compare it
 * (FF_ERR_VERIFY: differs or missing; a link is not read). */
int ff_pub_dir_put(const struct ff_pub_dir *d, const char *name, const char *text, bool check,
                   char *err, size_t errlen);
/* index.html and the charts into the open folder d (ff_pub_html_dir's work); the page links the
 * profiles relative to page_dir, the folder it will be read from (d's path, or where d is
 * swapped in). */
int ff_pub_html_put(const struct ff_pub_set *set, const struct ff_pub_dir *d, const char *page_dir,
                    bool check, char *err, size_t errlen);

/* ---- SVG helpers (svg.c) ---- */

/* A log10 axis from 10^lo to 10^hi mapped onto pixels [p0, p1]. */
struct ff_pub_axis {
    double lo, hi; /* decades */
    double p0, p1; /* pixels */
};
double ff_pub_axis_px(const struct ff_pub_axis *a, double v);
/* The decades [lo, hi] that hold [vmin, vmax] (both > 0), at least `min_decades` apart. */
void ff_pub_axis_fit(struct ff_pub_axis *a, double vmin, double vmax, int min_decades);
/* "1", "10", "100 m", "1 k", "10 G": a decade's tick label, SI prefix. */
void ff_pub_decade_label(char *dst, size_t n, int decade);

void ff_pub_svg_open(struct ff_pub_sb *o, int width, int height, const char *title,
                     const char *cls);
void ff_pub_svg_close(struct ff_pub_sb *o);
/* Text at (x, y), anchored "start", "middle" or "end"; escaped. */
void ff_pub_svg_text(struct ff_pub_sb *o, double x, double y, const char *anchor, int size,
                     const char *extra, const char *text);

/* Colours of the precisions (matmul metrics), readable on white and in grey print. */
const char *ff_pub_prec_colour(int metric);

#endif
