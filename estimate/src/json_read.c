/*
 * estimate/src/json_read.c — what every reader of a JSON file in libflopfit shares: parsing
 * text of a known length into one top-level object (a tokener of its own, so no json-c
 * process-global error state; no NUL bytes, nothing after the object), and the one message
 * for a field that is missing or has the wrong value.
 */
#include <stdio.h>
#include <string.h>

#include "json_read.h"
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
