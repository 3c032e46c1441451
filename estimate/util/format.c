/* estimate/util/format.c — numbers with units, for every report flopfit prints. */
#include <math.h>
#include <stdio.h>
#include <string.h>

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

/* A whole number (|v| < 2^63) with a comma every three digits. */
static void grouped(char *dst, size_t n, double v)
{
    char digits[32];
    snprintf(digits, sizeof(digits), "%.0f", fabs(v));
    size_t len = strlen(digits), k = 0;
    char out[48];
    if (v < 0 && strcmp(digits, "0") != 0)
        out[k++] = '-';
    for (size_t i = 0; i < len && k + 2 < sizeof(out); i++) {
        if (i > 0 && (len - i) % 3 == 0)
            out[k++] = ',';
        out[k++] = digits[i];
    }
    out[k] = '\0';
    snprintf(dst, n, "%s", out);
}

const char *ff_fmt_count(char *dst, size_t n, double v)
{
    if (!isfinite(v))
        snprintf(dst, n, "%s", v != v ? "n/a" : v > 0 ? "infinite" : "-infinite");
    else if (fabs(v) >= 1e18)
        snprintf(dst, n, "%.3g", v);
    else if (fabs(v) >= 100.0)
        grouped(dst, n, v);
    else
        snprintf(dst, n, "%.3g", v);
    return dst;
}

const char *ff_fmt_money(char *dst, size_t n, double usd)
{
    char num[48];
    if (!isfinite(usd) || fabs(usd) >= 1e18)
        snprintf(dst, n, "$%.3g", usd);
    else if (fabs(usd) >= 100.0) {
        grouped(num, sizeof(num), usd);
        snprintf(dst, n, "$%s", num);
    } else if (fabs(usd) >= 0.01 || usd == 0.0)
        snprintf(dst, n, "$%.2f", usd);
    else
        snprintf(dst, n, "$%.2g", usd);
    return dst;
}

const char *ff_fmt_duration(char *dst, size_t n, double s)
{
    const double year = 365.25 * 86400.0;
    if (!isfinite(s))
        snprintf(dst, n, "n/a");
    else if (s < 1.0)
        snprintf(dst, n, "%.3g ms", s * 1e3);
    else if (s < 120.0)
        snprintf(dst, n, "%.3g s", s);
    else if (s < 7200.0)
        snprintf(dst, n, "%.3g min", s / 60.0);
    else if (s < 3.0 * 86400.0)
        snprintf(dst, n, "%.3g h", s / 3600.0);
    else if (s < year)
        snprintf(dst, n, "%.3g days", s / 86400.0);
    else if (s < 10.0 * year)
        snprintf(dst, n, "%.1f years", s / year);
    else {
        char num[48];
        ff_fmt_count(num, sizeof(num), s / year);
        snprintf(dst, n, "%s years", num);
    }
    return dst;
}
