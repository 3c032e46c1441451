/*
 * backends/tune_point.c — tuning points: the hash a kernel's space and source fold into
 * (ff_tune_hash), whether a point belongs to its space, and a point to and from its text
 * ("tm=6,tn=16,vw=8"). The front-end (frontend.c) checks every kernel built with a point here.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_impl.h"

uint64_t ff_tune_hash(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

int ff_tune_point_in_space(const struct ff_tune_space *s, const struct ff_tune_point *p, char *err,
                           size_t errlen)
{
    if (p->n != s->n_params)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "a tuning point gives %u values; the space has %u parameters", p->n,
                       s->n_params);
    for (uint32_t i = 0; i < s->n_params; i++) {
        const struct ff_tune_param *q = &s->param[i];
        bool found = false;
        for (uint32_t j = 0; j < q->n_values && !found; j++)
            found = q->values[j] == p->v[i];
        if (!found) {
            char list[160];
            size_t o = 0;
            for (uint32_t j = 0; j < q->n_values && o < sizeof(list); j++)
                o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%u", j ? ", " : "",
                                      q->values[j]);
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "tuning parameter %s = %u is not in its space (accepted: %s)", q->name,
                           p->v[i], list);
        }
    }
    return FF_OK;
}

const struct ff_tune_point *ff_kernel_point(const struct ff_kernel *k)
{
    static const struct ff_tune_point none;
    return k ? &k->point : &none;
}

size_t ff_tune_point_format(const struct ff_tune_space *s, const struct ff_tune_point *p, char *buf,
                            size_t n)
{
    if (!p || p->n == 0 || !s || p->n != s->n_params)
        return (size_t)snprintf(buf, n, "default");
    size_t o = 0;
    for (uint32_t i = 0; i < p->n; i++) {
        /* One "name=value" at a time into a part that always holds it (a name is at most 15
         * characters, a value 10 digits), then as much of it as buf still takes. */
        char part[40];
        int w = snprintf(part, sizeof(part), "%s%.15s=%u", i ? "," : "", s->param[i].name, p->v[i]);
        size_t len = w > 0 ? (size_t)w : 0;
        if (buf && o + 1 < n) {
            size_t room = n - 1 - o;
            memcpy(buf + o, part, len < room ? len : room);
        }
        o += len;
    }
    if (buf && n)
        buf[o < n ? o : n - 1] = 0;
    return o;
}

int ff_tune_point_parse(const struct ff_tune_space *s, const char *text, struct ff_tune_point *out,
                        char *err, size_t errlen)
{
    return ff_tune_point_parse_over(s, text, NULL, out, err, errlen);
}

int ff_tune_point_parse_over(const struct ff_tune_space *s, const char *text,
                             const struct ff_tune_point *base, struct ff_tune_point *out, char *err,
                             size_t errlen)
{
    if (!s || !text || !out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no space, text or output");
    struct ff_tune_point p = {.n = s->n_params};
    bool seen[FF_TUNE_MAX_PARAMS] = {false};
    const char *c = text;
    while (*c) {
        const char *eq = strchr(c, '=');
        const char *end = strchr(c, ',');
        if (!end)
            end = c + strlen(c);
        if (!eq || eq > end)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "tuning point \"%s\": expected name=value pairs separated by commas",
                           text);
        uint32_t i = 0;
        while (i < s->n_params && (strlen(s->param[i].name) != (size_t)(eq - c) ||
                                   strncmp(s->param[i].name, c, (size_t)(eq - c)) != 0))
            i++;
        if (i == s->n_params)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "tuning point \"%s\": unknown parameter \"%.*s\"", text, (int)(eq - c),
                           c);
        if (seen[i])
            return ff_errf(err, errlen, FF_ERR_INVALID, "tuning point \"%s\": %s given twice", text,
                           s->param[i].name);
        char num[16];
        size_t len = (size_t)(end - eq - 1);
        if (len == 0 || len >= sizeof(num))
            return ff_errf(err, errlen, FF_ERR_INVALID, "tuning point \"%s\": %s has no value",
                           text, s->param[i].name);
        memcpy(num, eq + 1, len);
        num[len] = 0;
        char *stop;
        unsigned long v = strtoul(num, &stop, 10);
        if (*stop || !isdigit((unsigned char)num[0]) || v > UINT32_MAX)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "tuning point \"%s\": %s = \"%s\" is not a whole number", text,
                           s->param[i].name, num);
        p.v[i] = (uint32_t)v;
        seen[i] = true;
        c = *end ? end + 1 : end;
        if (*end && !*c)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "tuning point \"%s\": expected name=value pairs separated by commas",
                           text);
    }
    const bool fill = base && base->n == s->n_params;
    for (uint32_t i = 0; i < s->n_params; i++)
        if (!seen[i]) {
            if (!fill)
                return ff_errf(err, errlen, FF_ERR_INVALID, "tuning point \"%s\": %s is missing",
                               text, s->param[i].name);
            p.v[i] = base->v[i];
        }
    int ret = ff_tune_point_in_space(s, &p, err, errlen);
    if (ret < 0)
        return ret;
    *out = p;
    return FF_OK;
}
