/*
 * estimate/util/json.c — what every reader of a JSON file shares (ff_json.h): parsing text of a
 * known length into one top-level object (a tokener of its own, so no json-c process-global
 * error state; no NUL bytes, nothing after the object), the one message for a field that is
 * missing or has the wrong value, and the typed getters.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ff_json.h"
#include "ff_util.h"

int ff_json_parse_object(const char *text, size_t len, const char *label, const char *what,
                         bool strict, json_object **out, char *err, size_t errlen)
{
    *out = NULL;
    if (len > (size_t)INT32_MAX)
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: too large for JSON text", label);
    if (memchr(text, '\0', len))
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: contains a NUL byte; not %s", label, what);
    json_tokener *tok = json_tokener_new();
    if (!tok)
        return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "%s: out of memory", label);
    if (strict)
        json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    json_object *root = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    int rc = FF_OK;
    if (jerr == json_tokener_success && !root) {
        /* json-c returns NULL for a top-level JSON null: well-formed, but not an object. */
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: top level is null, not a JSON object",
                       label);
    }
    if (!root || jerr != json_tokener_success) {
        rc = ff_errf(err, errlen, FF_ERR_INVALID, "%s: not valid JSON: %s (near byte %zu)", label,
                     jerr == json_tokener_continue || jerr == json_tokener_success
                         ? "unexpected end of input"
                         : json_tokener_error_desc(jerr),
                     end);
        goto error;
    }
    for (size_t i = end; i < len; i++) {
        if (!strchr(" \t\r\n", text[i])) {
            rc = ff_errf(err, errlen, FF_ERR_INVALID,
                         "%s: not valid JSON: unexpected data after the top-level object "
                         "(byte %zu)",
                         label, i);
            goto error;
        }
    }
    if (!json_object_is_type(root, json_type_object)) {
        rc = ff_errf(err, errlen, FF_ERR_INVALID, "%s: top level is not a JSON object", label);
        goto error;
    }
    *out = root;
    return FF_OK;

error:
    json_object_put(root);
    return rc;
}

int ff_json_bad_field(char *err, size_t errlen, const char *label, const char *prefix,
                      const char *field, json_object *v, const char *expected)
{
    if (!prefix)
        prefix = "";
    if (!v)
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: field \"%s%s\" is missing (expected %s)",
                       label, prefix, field, expected);
    char text[96];
    if (json_object_is_type(v, json_type_double))
        snprintf(text, sizeof(text), "%g", json_object_get_double(v));
    else
        snprintf(text, sizeof(text), "%s",
                 json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
    return ff_errf(err, errlen, FF_ERR_INVALID, "%s: field \"%s%s\" is %s (expected %s)", label,
                   prefix, field, text, expected);
}

int ff_json_fault(const struct ff_json_ctx *c, enum ff_json_fault fault, const char *key,
                  json_object *v, const char *expected)
{
    if (c->fault)
        return c->fault(c, fault, key, v, expected);
    return ff_json_bad_field(c->err, c->errlen, c->label, c->prefix, key, v, expected);
}

json_object *ff_json_member(json_object *o, const char *key)
{
    json_object *v = NULL;
    if (!o || !json_object_object_get_ex(o, key, &v) || !v ||
        json_object_is_type(v, json_type_null))
        return NULL;
    return v;
}

int ff_json_get_string(const struct ff_json_ctx *c, json_object *o, const char *key, bool required,
                       const char *def, const char **out)
{
    json_object *v = ff_json_member(o, key);
    *out = def;
    if (!v)
        return required ? ff_json_fault(c, FF_JSON_MISSING, key, NULL, "a string") : FF_OK;
    if (!json_object_is_type(v, json_type_string) || !json_object_get_string(v))
        return ff_json_fault(c, FF_JSON_NOT_STRING, key, v, "a string");
    *out = json_object_get_string(v);
    return FF_OK;
}

int ff_json_get_bool(const struct ff_json_ctx *c, json_object *o, const char *key, bool def,
                     bool *out)
{
    json_object *v = ff_json_member(o, key);
    *out = def;
    if (!v)
        return FF_OK;
    if (!json_object_is_type(v, json_type_boolean))
        return ff_json_fault(c, FF_JSON_NOT_BOOL, key, v, "true or false");
    *out = json_object_get_boolean(v) != 0;
    return FF_OK;
}

/* Is v a JSON number (json-c keeps integers and doubles apart)? */
static bool is_number(json_object *v)
{
    return json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int);
}

int ff_json_get_double(const struct ff_json_ctx *c, json_object *o, const char *key, bool required,
                       double def, double lo, double hi, const char *expected, double *out)
{
    json_object *v = ff_json_member(o, key);
    *out = def;
    if (!v)
        return required ? ff_json_fault(c, FF_JSON_MISSING, key, NULL, expected) : FF_OK;
    if (!is_number(v))
        return ff_json_fault(c, FF_JSON_NOT_NUMBER, key, v, expected);
    double x = json_object_get_double(v);
    if (!isfinite(x) || x < lo || x > hi)
        return ff_json_fault(c, FF_JSON_RANGE, key, v, expected);
    *out = x;
    return FF_OK;
}

int ff_json_get_int(const struct ff_json_ctx *c, json_object *o, const char *key, bool required,
                    int64_t def, double lo, double hi, const char *expected, int64_t *out)
{
    json_object *v = ff_json_member(o, key);
    *out = def;
    if (!v)
        return required ? ff_json_fault(c, FF_JSON_MISSING, key, NULL, expected) : FF_OK;
    int64_t x;
    if (json_object_is_type(v, json_type_int)) {
        /* An integer token keeps its exact value (a double rounds above 2^53). */
        errno = 0;
        x = json_object_get_int64(v);
        if (errno == EINVAL || (double)x < lo || (double)x > hi)
            return ff_json_fault(c, FF_JSON_RANGE, key, v, expected);
    } else if (json_object_is_type(v, json_type_double)) {
        double d = json_object_get_double(v);
        if (!(d >= lo && d <= hi) || d != floor(d))
            return ff_json_fault(c, FF_JSON_RANGE, key, v, expected);
        x = (int64_t)d;
    } else {
        return ff_json_fault(c, FF_JSON_NOT_NUMBER, key, v, expected);
    }
    *out = x;
    return FF_OK;
}

int ff_json_get_u64(const struct ff_json_ctx *c, json_object *o, const char *key, double max,
                    const char *expected, uint64_t *out)
{
    int64_t x = 0;
    int rc = ff_json_get_int(c, o, key, false, 0, 0.0, max, expected, &x);
    *out = rc == FF_OK ? (uint64_t)x : 0;
    return rc;
}

int ff_json_get_object(const struct ff_json_ctx *c, json_object *o, const char *key, bool required,
                       json_object **out)
{
    json_object *v = ff_json_member(o, key);
    *out = NULL;
    if (!v)
        return required ? ff_json_fault(c, FF_JSON_MISSING, key, NULL, "an object") : FF_OK;
    if (!json_object_is_type(v, json_type_object))
        return ff_json_fault(c, FF_JSON_NOT_OBJECT, key, v, "an object");
    *out = v;
    return FF_OK;
}

int ff_json_get_array(const struct ff_json_ctx *c, json_object *o, const char *key, bool required,
                      const char *expected, json_object **out)
{
    json_object *v = ff_json_member(o, key);
    *out = NULL;
    if (!v)
        return required ? ff_json_fault(c, FF_JSON_MISSING, key, NULL, expected) : FF_OK;
    if (!json_object_is_type(v, json_type_array))
        return ff_json_fault(c, FF_JSON_NOT_ARRAY, key, v, expected);
    *out = v;
    return FF_OK;
}
