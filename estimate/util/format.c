/* estimate/util/format.c — numbers with units, for every report flopfit prints. */
#include <math.h>
#include <stdio.h>

#include "ff_util.h"

void ff_fmt_si(char *dst, size_t n, double v, const char *unit)
{
    static const char *const pre[] = {"", "k", "M", "G", "T", "P", "E"};
    int i = 0;
    while (fabs(v) >= 1000 && i < 6) {
        v /= 1000;
        i++;
    }
    snprintf(dst, n, "%.*f %s%s", fabs(v) >= 100 ? 0 : fabs(v) >= 10 ? 1 : 2, v, pre[i], unit);
}

void ff_fmt_time(char *dst, size_t n, double s)
{
    if (s >= 1)
        snprintf(dst, n, "%.3f s", s);
    else if (s >= 1e-3)
        snprintf(dst, n, "%.3f ms", s * 1e3);
    else
        snprintf(dst, n, "%.2f us", s * 1e6);
}

void ff_fmt_bytes_bin(char *dst, size_t n, double bytes)
{
    if (bytes >= 1024.0 * 1024 * 1024)
        snprintf(dst, n, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
    else if (bytes >= 1024.0 * 1024)
        snprintf(dst, n, "%.1f MiB", bytes / (1024.0 * 1024));
    else
        snprintf(dst, n, "%.0f KiB", bytes / 1024.0);
}

const char *ff_fmt_bytes(char *buf, size_t n, double bytes)
{
    double gib = bytes / 1073741824.0;
    snprintf(buf, n, "%.2f GiB (%.1f GB)", gib, bytes / 1e9);
    return buf;
}
