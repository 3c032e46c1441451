/* bench/cmd/report.h — the human table of a device's results. */
#ifndef FF_REPORT_H
#define FF_REPORT_H

#include <stdio.h>

#include "check/result.h"

#include "ff_util.h"

void ff_report_header(FILE *f, const char *label, const struct ff_device_info *info);
void ff_report_table(FILE *f, const struct ff_run *p);

#endif
