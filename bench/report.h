/* bench/report.h — the human table of a device's results. */
#ifndef FF_REPORT_H
#define FF_REPORT_H

#include <stdio.h>

#include "result.h"

/* "57.0 G" style: value scaled to k/M/G/T/P with 3 significant digits. */
void ff_fmt_si(char *dst, size_t n, double v, const char *unit);
/* "1.23 ms" style. */
void ff_fmt_time(char *dst, size_t n, double s);

void ff_report_header(FILE *f, const char *label, const struct ff_device_info *info);
void ff_report_table(FILE *f, const struct ff_profile *p);

#endif
