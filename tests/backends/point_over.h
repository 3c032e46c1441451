/*
 * tests/backends/point_over.h — shared by the OpenCL and Vulkan op benchmarks: a tuning point
 * given in part ("parts=4"), each parameter it does not name taken from the kernel's default
 * point on the device. One option then moves one parameter across shapes whose defaults
 * differ (a sweep of decode attention's parts on a GPU, say).
 */
#ifndef FF_TESTS_POINT_OVER_H
#define FF_TESTS_POINT_OVER_H

#include <stdio.h>
#include <string.h>

#include "backend.h"

/* The value text gives for name (its length in *len), or NULL. */
static inline const char *ff_test_point_value(const char *text, const char *name, size_t *len)
{
    const size_t nl = strlen(name);
    const char *found = NULL;
    for (const char *c = text; *c;) {
        const char *end = strchr(c, ',');
        if (!end)
            end = c + strlen(c);
        const char *eq = memchr(c, '=', (size_t)(end - c));
        if (eq && (size_t)(eq - c) == nl && strncmp(c, name, nl) == 0) {
            found = eq + 1;
            *len = (size_t)(end - found);
        }
        c = *end ? end + 1 : end;
    }
    return found;
}

/* text over s's default point into *out; FF_ERR_INVALID (why in err) for a name the space
 * does not have, a malformed pair or a value not in its parameter's list. */
static inline int ff_test_point_over_default(const struct ff_tune_space *s, const char *text,
                                             struct ff_tune_point *out, char *err, size_t errlen)
{
    if (s->dflt.n != s->n_params)
        return ff_tune_point_parse(s, text, out, err, errlen);
    for (const char *c = text; *c;) {
        const char *end = strchr(c, ',');
        if (!end)
            end = c + strlen(c);
        const char *eq = memchr(c, '=', (size_t)(end - c));
        uint32_t i = 0;
        while (eq && i < s->n_params &&
               (strlen(s->param[i].name) != (size_t)(eq - c) ||
                strncmp(s->param[i].name, c, (size_t)(eq - c)) != 0))
            i++;
        if (!eq || i == s->n_params) {
            snprintf(err, errlen, "tuning point \"%s\": \"%.*s\" is not name=value of a parameter",
                     text, (int)(end - c), c);
            return FF_ERR_INVALID;
        }
        c = *end ? end + 1 : end;
    }
    char full[1024];
    size_t o = 0;
    for (uint32_t i = 0; i < s->n_params && o < sizeof(full); i++) {
        size_t len = 0;
        const char *v = ff_test_point_value(text, s->param[i].name, &len);
        int w = v ? snprintf(full + o, sizeof(full) - o, "%s%s=%.*s", i ? "," : "",
                             s->param[i].name, (int)len, v)
                  : snprintf(full + o, sizeof(full) - o, "%s%s=%u", i ? "," : "", s->param[i].name,
                             (unsigned)s->dflt.v[i]);
        o += w > 0 ? (size_t)w : 0;
    }
    if (o >= sizeof(full)) {
        snprintf(err, errlen, "tuning point \"%s\": too long", text);
        return FF_ERR_INVALID;
    }
    return ff_tune_point_parse(s, full, out, err, errlen);
}

#endif
