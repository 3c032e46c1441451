/* estimate/util/parse.c — typed option parsers: each names the option and what it accepts. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ff_util.h"

static int bad(char *err, size_t errlen, const char *opt, const char *s, const char *accepted)
{
    return ff_errf(err, errlen, FF_ERR_INVALID, "invalid value '%s' for %s: expected %s", s, opt,
                   accepted);
}

int ff_parse_u32(const char *opt, const char *s, uint32_t min, uint32_t max, uint32_t *out,
                 char *err, size_t errlen)
{
    char accepted[64];
    snprintf(accepted, sizeof(accepted), "a whole number from %u to %u", min, max);
    if (!s || !*s || !isdigit((unsigned char)s[0]))
        return bad(err, errlen, opt, s ? s : "", accepted);
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return bad(err, errlen, opt, s, accepted);
    *out = (uint32_t)v;
    return FF_OK;
}

int ff_parse_double(const char *opt, const char *s, double min, double max, double *out, char *err,
                    size_t errlen)
{
    char accepted[64];
    snprintf(accepted, sizeof(accepted), "a number from %g to %g", min, max);
    if (!s || !*s)
        return bad(err, errlen, opt, "", accepted);
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v) || v < min || v > max)
        return bad(err, errlen, opt, s, accepted);
    *out = v;
    return FF_OK;
}

int ff_parse_bytes(const char *opt, const char *s, uint64_t min, uint64_t *out, char *err,
                   size_t errlen)
{
    const char *accepted = "a size in bytes, or with K, M, G, T (binary: 8G = 8 GiB)";
    if (!s || !isdigit((unsigned char)s[0]))
        return bad(err, errlen, opt, s ? s : "", accepted);
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    /* Plain decimal only: strtod would also take hex ("0x10") and exponents. */
    if (errno || !isfinite(v) || end != s + strspn(s, "0123456789."))
        return bad(err, errlen, opt, s, accepted);
    double mul = 1;
    if (*end) {
        switch (toupper((unsigned char)*end)) {
        case 'K': mul = 1024.0; break;
        case 'M': mul = 1024.0 * 1024; break;
        case 'G': mul = 1024.0 * 1024 * 1024; break;
        case 'T': mul = 1024.0 * 1024 * 1024 * 1024; break;
        default: return bad(err, errlen, opt, s, accepted);
        }
        end++;
        if (strcasecmp(end, "") != 0 && strcasecmp(end, "B") != 0 && strcasecmp(end, "iB") != 0)
            return bad(err, errlen, opt, s, accepted);
    }
    double bytes = v * mul;
    if (bytes < (double)min || bytes > 1.0e18) {
        char acc[128];
        snprintf(acc, sizeof(acc), "%s, at least %llu bytes and at most 1e18", accepted,
                 (unsigned long long)min);
        return bad(err, errlen, opt, s, acc);
    }
    *out = (uint64_t)bytes;
    return FF_OK;
}

