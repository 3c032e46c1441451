/* estimate/util/parse.c — typed option parsers: each names the option and what it accepts. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ff_util.h"

int ff_bad_value(char *err, size_t errlen, const char *opt, const char *s, const char *accepted)
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
        return ff_bad_value(err, errlen, opt, s ? s : "", accepted);
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return ff_bad_value(err, errlen, opt, s, accepted);
    *out = (uint32_t)v;
    return FF_OK;
}

/* A finite number from strtod that uses all of s (not a range check). */
static bool real_of(const char *s, double *out)
{
    if (!s || !*s)
        return false;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        return false;
    *out = v;
    return true;
}

/* A finite number in [min, max], or (min, max] when open_min. */
static int parse_real(const char *opt, const char *s, double min, double max, bool open_min,
                      double *out, char *err, size_t errlen)
{
    char accepted[80];
    if (open_min)
        snprintf(accepted, sizeof(accepted), "a number greater than %g and at most %g", min, max);
    else
        snprintf(accepted, sizeof(accepted), "a number from %g to %g", min, max);
    double v;
    if (!real_of(s, &v) || v < min || (open_min && v <= min) || v > max)
        return ff_bad_value(err, errlen, opt, s ? s : "", accepted);
    *out = v;
    return FF_OK;
}

int ff_parse_double(const char *opt, const char *s, double min, double max, double *out, char *err,
                    size_t errlen)
{
    return parse_real(opt, s, min, max, false, out, err, errlen);
}

int ff_parse_double_above(const char *opt, const char *s, double min, double max, double *out,
                          char *err, size_t errlen)
{
    return parse_real(opt, s, min, max, true, out, err, errlen);
}

int ff_parse_i64(const char *opt, const char *s, int64_t min, int64_t max, int64_t *out, char *err,
                 size_t errlen)
{
    char accepted[96];
    snprintf(accepted, sizeof(accepted), "a whole number from %lld to %lld", (long long)min,
             (long long)max);
    if (!s || !*s)
        return ff_bad_value(err, errlen, opt, "", accepted);
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (*end == '\0' && errno == 0) {
        if (v < min || v > max)
            return ff_bad_value(err, errlen, opt, s, accepted);
        *out = v;
        return FF_OK;
    }
    /* "7e9", "1e6": a real number that is whole. 2^63 itself does not fit an int64_t. */
    double d;
    if (!real_of(s, &d) || d != floor(d) || d < (double)min || d > (double)max || d >= 0x1p63)
        return ff_bad_value(err, errlen, opt, s, accepted);
    *out = (int64_t)d;
    return FF_OK;
}

int ff_parse_choice(const char *opt, const char *s, const struct ff_choice *choices, size_t n,
                    int *out, char *err, size_t errlen)
{
    for (size_t i = 0; s && i < n; i++) {
        if (!strcmp(s, choices[i].name)) {
            *out = choices[i].value;
            return FF_OK;
        }
    }
    /* "none, selective or full": the listed (non-alias) names. */
    char accepted[256] = "";
    size_t listed = 0, total = 0;
    for (size_t i = 0; i < n; i++)
        total += !choices[i].alias;
    for (size_t i = 0; i < n; i++) {
        if (choices[i].alias)
            continue;
        size_t len = strlen(accepted);
        const char *sep = listed == 0 ? "" : listed + 1 == total ? " or " : ", ";
        snprintf(accepted + len, sizeof(accepted) - len, "%s%s", sep, choices[i].name);
        listed++;
    }
    return ff_bad_value(err, errlen, opt, s ? s : "", accepted);
}

int ff_parse_onoff(const char *opt, const char *s, bool *out, char *err, size_t errlen)
{
    static const struct ff_choice onoff[] = {
        {"on", 1, false},   {"off", 0, false}, {"true", 1, true},
        {"false", 0, true}, {"1", 1, true},    {"0", 0, true},
    };
    int v;
    int rc = ff_parse_choice(opt, s, onoff, sizeof(onoff) / sizeof(onoff[0]), &v, err, errlen);
    if (rc == FF_OK)
        *out = v != 0;
    return rc;
}

int ff_parse_bytes(const char *opt, const char *s, uint64_t min, uint64_t *out, char *err,
                   size_t errlen)
{
    const char *accepted = "a size in bytes, or with K, M, G, T (binary: 8G = 8 GiB)";
    if (!s || !isdigit((unsigned char)s[0]))
        return ff_bad_value(err, errlen, opt, s ? s : "", accepted);
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    /* Plain decimal only: strtod would also take hex ("0x10") and exponents. */
    if (errno || !isfinite(v) || end != s + strspn(s, "0123456789."))
        return ff_bad_value(err, errlen, opt, s, accepted);
    double mul = 1;
    if (*end) {
        switch (toupper((unsigned char)*end)) {
        case 'K': mul = 1024.0; break;
        case 'M': mul = 1024.0 * 1024; break;
        case 'G': mul = 1024.0 * 1024 * 1024; break;
        case 'T': mul = 1024.0 * 1024 * 1024 * 1024; break;
        default: return ff_bad_value(err, errlen, opt, s, accepted);
        }
        end++;
        if (strcasecmp(end, "") != 0 && strcasecmp(end, "B") != 0 && strcasecmp(end, "iB") != 0)
            return ff_bad_value(err, errlen, opt, s, accepted);
    }
    double bytes = v * mul;
    if (bytes < (double)min || bytes > 1.0e18) {
        char acc[128];
        snprintf(acc, sizeof(acc), "%s, at least %llu bytes and at most 1e18", accepted,
                 (unsigned long long)min);
        return ff_bad_value(err, errlen, opt, s, acc);
    }
    *out = (uint64_t)bytes;
    return FF_OK;
}

int ff_unknown_option(char *err, size_t errlen, const char *given, const struct option *opts)
{
    char name[128];
    const char *dashes = strncmp(given, "--", 2) == 0 ? "--" : "";
    snprintf(name, sizeof(name), "%s", given + strlen(dashes));
    char *eq = strchr(name, '=');
    if (eq)
        *eq = '\0';
    enum { MAX = 128 };
    const char *names[MAX];
    size_t n = 0;
    for (const struct option *o = opts; o->name && n < MAX; o++)
        names[n++] = o->name;
    const char *near = *dashes && *name ? ff_closest_word(name, names, n) : NULL;
    if (near)
        return ff_errf(err, errlen, FF_ERR_INVALID, "unknown option '--%s'; did you mean '--%s'?",
                       name, near);
    return ff_errf(err, errlen, FF_ERR_INVALID, "unknown option '%s%s' (see --help)", dashes, name);
}
