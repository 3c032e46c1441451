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

/* A plain decimal number ("4", "1.5") at the head of s; *end after it. False when s does not
 * start with one (strtod would also take hex, exponents, "inf" and leading signs). */
static bool plain_number(const char *s, double *v, const char **end)
{
    size_t n = strspn(s, "0123456789.");
    const char *dot = memchr(s, '.', n);
    if (n == 0 || !isdigit((unsigned char)s[0]) || s[n - 1] == '.' ||
        (dot && memchr(dot + 1, '.', n - (size_t)(dot - s) - 1)))
        return false;
    char buf[64];
    if (n >= sizeof(buf))
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    char *e;
    *v = strtod(buf, &e);
    *end = s + n;
    return !errno && isfinite(*v) && e == buf + n;
}

int ff_parse_global_batch(const char *opt, const char *s, int64_t *sequences, double *tokens,
                          char *err, size_t errlen)
{
    const char *accepted =
        "sequences per step (1024, 2kseq) or tokens: a k/M/G suffix (binary: 4M = 4194304) or "
        "'tok' (4M, 512k, 4Mtok, 4194304tok)";
    double v;
    const char *end;
    if (!s || !plain_number(s, &v, &end))
        return ff_bad_value(err, errlen, opt, s ? s : "", accepted);
    double mul = 1.0;
    bool suffix = false;
    switch (*end) {
    case 'k':
    case 'K': mul = 1024.0; break;
    case 'M': mul = 1024.0 * 1024.0; break;
    case 'G': mul = 1024.0 * 1024.0 * 1024.0; break;
    default: break;
    }
    if (mul > 1.0) {
        suffix = true;
        end++;
    }
    bool tok;
    if (*end == '\0')
        tok = suffix; /* "1024": sequences; "4M": tokens */
    else if (!strcmp(end, "tok") || !strcmp(end, "tokens"))
        tok = true;
    else if (!strcmp(end, "seq") || !strcmp(end, "seqs") || !strcmp(end, "sequences"))
        tok = false;
    else
        return ff_bad_value(err, errlen, opt, s, accepted);
    double x = v * mul;
    if (tok) {
        if (!(x >= 1.0 && x <= 1e15))
            return ff_bad_value(err, errlen, opt, s, "at least 1 and at most 1e15 tokens");
        *tokens = x;
        *sequences = 0;
        return FF_OK;
    }
    if (x != floor(x) || !(x >= 1.0 && x <= 1099511627776.0))
        return ff_bad_value(err, errlen, opt, s,
                            "a whole number of sequences from 1 to 2^40 (for tokens add 'tok')");
    *sequences = (int64_t)x;
    *tokens = 0.0;
    return FF_OK;
}

int ff_parse_duration(const char *opt, const char *s, double *seconds, char *err, size_t errlen)
{
    const char *accepted = "a duration with a unit h, d or w (36h, 30d, 2.5w)";
    double v;
    const char *end;
    if (!s || !plain_number(s, &v, &end))
        return ff_bad_value(err, errlen, opt, s ? s : "", accepted);
    double unit;
    if (!strcmp(end, "h"))
        unit = 3600.0;
    else if (!strcmp(end, "d"))
        unit = 86400.0;
    else if (!strcmp(end, "w"))
        unit = 7.0 * 86400.0;
    else
        return ff_bad_value(err, errlen, opt, s, accepted);
    double x = v * unit;
    /* A minute is the least a training plan could mean; a century the most. */
    if (!(x >= 60.0 && x <= 100.0 * 365.25 * 86400.0))
        return ff_bad_value(err, errlen, opt, s, "a duration from 1 minute to 100 years");
    *seconds = x;
    return FF_OK;
}
