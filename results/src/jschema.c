/*
 * results/src/jschema.c — the JSON Schema subset of jschema.h. One recursive walk over the
 * instance; each schema object is read keyword by keyword, every keyword checked to be one
 * this file implements. Numbers compare as doubles (JSON Schema: 1 and 1.0 are the same
 * number, and 1.0 is an integer).
 */
#include <math.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <flopfit/status.h>

#include "jschema.h"

#define MAX_DEPTH 64

struct walk {
    json_object *root; /* the schema, for $ref */
    struct ff_jschema_error *e;
    char ptr[512]; /* the instance pointer so far */
};

static int fail(struct walk *w, int rc, const char *fmt, const char *a, const char *b)
{
    snprintf(w->e->pointer, sizeof(w->e->pointer), "%s", w->ptr);
    snprintf(w->e->what, sizeof(w->e->what), fmt, a ? a : "", b ? b : "");
    return rc;
}

/* A short text of v for messages: strings quoted, long ones cut. */
static void show(json_object *v, char *dst, size_t n)
{
    const char *t = v ? json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN) : "null";
    size_t len = strlen(t);
    if (len < 80)
        snprintf(dst, n, "%s", t);
    else
        snprintf(dst, n, "%.56s... (%zu characters)", t, len);
}

static bool is_number(json_object *v)
{
    return json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double);
}

static bool type_is(json_object *v, const char *t)
{
    if (!strcmp(t, "null"))
        return v == NULL;
    if (!strcmp(t, "boolean"))
        return json_object_is_type(v, json_type_boolean);
    if (!strcmp(t, "object"))
        return json_object_is_type(v, json_type_object);
    if (!strcmp(t, "array"))
        return json_object_is_type(v, json_type_array);
    if (!strcmp(t, "string"))
        return json_object_is_type(v, json_type_string);
    if (!strcmp(t, "number"))
        return is_number(v);
    if (!strcmp(t, "integer")) {
        if (json_object_is_type(v, json_type_int))
            return true;
        double d = json_object_is_type(v, json_type_double) ? json_object_get_double(v) : NAN;
        return isfinite(d) && d == floor(d);
    }
    return false;
}

static bool known_type(const char *t)
{
    static const char *const types[] = {"null",   "boolean", "object", "array",
                                        "string", "number",  "integer"};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if (!strcmp(t, types[i]))
            return true;
    return false;
}

/* JSON equality: numbers by value, objects by members regardless of order. */
static bool equal(json_object *a, json_object *b)
{
    if (!a || !b)
        return a == b;
    if (is_number(a) && is_number(b))
        return json_object_get_double(a) == json_object_get_double(b);
    if (json_object_get_type(a) != json_object_get_type(b))
        return false;
    switch (json_object_get_type(a)) {
    case json_type_boolean: return json_object_get_boolean(a) == json_object_get_boolean(b);
    case json_type_string:
        return json_object_get_string_len(a) == json_object_get_string_len(b) &&
               memcmp(json_object_get_string(a), json_object_get_string(b),
                      (size_t)json_object_get_string_len(a)) == 0;
    case json_type_array: {
        size_t n = json_object_array_length(a);
        if (n != json_object_array_length(b))
            return false;
        for (size_t i = 0; i < n; i++)
            if (!equal(json_object_array_get_idx(a, i), json_object_array_get_idx(b, i)))
                return false;
        return true;
    }
    case json_type_object: {
        if (json_object_object_length(a) != json_object_object_length(b))
            return false;
        json_object_object_foreach(a, k, va)
        {
            json_object *vb = NULL;
            if (!json_object_object_get_ex(b, k, &vb) || !equal(va, vb))
                return false;
        }
        return true;
    }
    default: return false;
    }
}

static int schema_bad(struct walk *w, const char *kw, const char *why)
{
    snprintf(w->e->pointer, sizeof(w->e->pointer), "schema keyword \"%s\"", kw);
    snprintf(w->e->what, sizeof(w->e->what), "%s", why);
    return FF_ERR_UNSUPPORTED;
}

/* RFC 6901: '~' as "~0", '/' as "~1". Appends "/token" to w->ptr; returns the old length. */
static size_t push(struct walk *w, const char *token)
{
    size_t at = strlen(w->ptr), n = at;
    if (n + 1 < sizeof(w->ptr))
        w->ptr[n++] = '/';
    for (const char *p = token; *p && n + 2 < sizeof(w->ptr); p++) {
        if (*p == '~' || *p == '/') {
            w->ptr[n++] = '~';
            w->ptr[n++] = *p == '~' ? '0' : '1';
        } else {
            w->ptr[n++] = *p;
        }
    }
    w->ptr[n] = 0;
    return at;
}

/* "#/$defs/x" in the schema, or NULL. */
static json_object *resolve(json_object *root, const char *ref)
{
    if (ref[0] != '#')
        return NULL;
    json_object *at = root;
    const char *p = ref + 1;
    while (*p == '/') {
        char tok[256];
        size_t n = 0;
        for (p++; *p && *p != '/' && n + 1 < sizeof(tok); p++) {
            if (*p == '~' && (p[1] == '0' || p[1] == '1')) {
                tok[n++] = p[1] == '0' ? '~' : '/';
                p++;
            } else {
                tok[n++] = *p;
            }
        }
        tok[n] = 0;
        if (*p && *p != '/')
            return NULL; /* a token too long */
        if (!json_object_is_type(at, json_type_object) || !json_object_object_get_ex(at, tok, &at))
            return NULL;
    }
    return *p ? NULL : at;
}

static int check(struct walk *w, json_object *s, json_object *v, int depth);

static int check_type(struct walk *w, json_object *t, json_object *v)
{
    char got[128];
    if (json_object_is_type(t, json_type_string)) {
        if (!known_type(json_object_get_string(t)))
            return schema_bad(w, "type", "names an unknown type");
        if (type_is(v, json_object_get_string(t)))
            return FF_OK;
        show(v, got, sizeof(got));
        return fail(w, FF_ERR_INVALID, "is %s (expected type %s)", got, json_object_get_string(t));
    }
    if (!json_object_is_type(t, json_type_array) || json_object_array_length(t) == 0)
        return schema_bad(w, "type", "is neither a type name nor a list of them");
    char want[256] = "";
    for (size_t i = 0; i < json_object_array_length(t); i++) {
        json_object *x = json_object_array_get_idx(t, i);
        if (!json_object_is_type(x, json_type_string) || !known_type(json_object_get_string(x)))
            return schema_bad(w, "type", "lists something that is not a type name");
        if (type_is(v, json_object_get_string(x)))
            return FF_OK;
        size_t n = strlen(want);
        snprintf(want + n, sizeof(want) - n, "%s%s", i ? " or " : "", json_object_get_string(x));
    }
    show(v, got, sizeof(got));
    return fail(w, FF_ERR_INVALID, "is %s (expected type %s)", got, want);
}

static int check_enum(struct walk *w, json_object *list, json_object *v)
{
    if (!json_object_is_type(list, json_type_array))
        return schema_bad(w, "enum", "is not an array");
    char want[384] = "", got[128];
    for (size_t i = 0; i < json_object_array_length(list); i++) {
        json_object *x = json_object_array_get_idx(list, i);
        if (equal(x, v))
            return FF_OK;
        char one[96];
        show(x, one, sizeof(one));
        size_t n = strlen(want);
        snprintf(want + n, sizeof(want) - n, "%s%s", i ? ", " : "", one);
    }
    show(v, got, sizeof(got));
    return fail(w, FF_ERR_INVALID, "is %s (expected one of %s)", got, want);
}

static int check_pattern(struct walk *w, json_object *pat, json_object *v)
{
    if (!json_object_is_type(pat, json_type_string))
        return schema_bad(w, "pattern", "is not a string");
    if (!json_object_is_type(v, json_type_string))
        return FF_OK;
    regex_t re;
    if (regcomp(&re, json_object_get_string(pat), REG_EXTENDED | REG_NOSUB) != 0)
        return schema_bad(w, "pattern", "is not a POSIX extended regular expression");
    const char *str = json_object_get_string(v);
    /* a NUL inside the string cannot match a pattern anchored at its end */
    bool whole = strlen(str) == (size_t)json_object_get_string_len(v);
    int m = whole ? regexec(&re, str, 0, NULL, 0) : REG_NOMATCH;
    regfree(&re);
    if (m == 0)
        return FF_OK;
    char got[128];
    show(v, got, sizeof(got));
    return fail(w, FF_ERR_INVALID, "is %s (expected text matching %s)", got,
                json_object_get_string(pat));
}

static int check_bound(struct walk *w, const char *kw, json_object *b, json_object *v)
{
    if (!is_number(b))
        return schema_bad(w, kw, "is not a number");
    if (!is_number(v))
        return FF_OK;
    double x = json_object_get_double(v), lim = json_object_get_double(b);
    bool min = !strcmp(kw, "minimum");
    if (min ? x >= lim : x <= lim)
        return FF_OK;
    char got[128], l[64];
    show(v, got, sizeof(got));
    snprintf(l, sizeof(l), "%s %.17g", min ? "at least" : "at most", lim);
    return fail(w, FF_ERR_INVALID, "is %s (expected a number %s)", got, l);
}

static int check_object(struct walk *w, json_object *s, json_object *v, int depth)
{
    json_object *props = NULL, *addl = NULL, *req = NULL;
    json_object_object_get_ex(s, "properties", &props);
    json_object_object_get_ex(s, "additionalProperties", &addl);
    json_object_object_get_ex(s, "required", &req);
    if (props && !json_object_is_type(props, json_type_object))
        return schema_bad(w, "properties", "is not an object");
    if (req && !json_object_is_type(req, json_type_array))
        return schema_bad(w, "required", "is not an array");
    if (!json_object_is_type(v, json_type_object))
        return FF_OK;
    for (size_t i = 0; req && i < json_object_array_length(req); i++) {
        json_object *k = json_object_array_get_idx(req, i);
        if (!json_object_is_type(k, json_type_string))
            return schema_bad(w, "required", "lists something that is not a field name");
        if (!json_object_object_get_ex(v, json_object_get_string(k), NULL))
            return fail(w, FF_ERR_INVALID, "lacks the required field \"%s\"%s",
                        json_object_get_string(k), NULL);
    }
    json_object_object_foreach(v, key, val)
    {
        json_object *sub = NULL;
        bool listed = props && json_object_object_get_ex(props, key, &sub);
        if (!listed)
            sub = addl;
        if (!sub)
            continue;
        size_t at = push(w, key);
        int rc;
        if (json_object_is_type(sub, json_type_boolean) && !json_object_get_boolean(sub)) {
            /* named by its own pointer: the field to remove */
            rc = fail(w, FF_ERR_INVALID, "is a field the schema does not know (\"%s\")", key, NULL);
        } else {
            rc = check(w, sub, val, depth + 1);
        }
        if (rc != FF_OK)
            return rc;
        w->ptr[at] = 0;
    }
    return FF_OK;
}

static int check_array(struct walk *w, json_object *s, json_object *v, int depth)
{
    json_object *items = NULL, *min = NULL;
    json_object_object_get_ex(s, "items", &items);
    json_object_object_get_ex(s, "minItems", &min);
    if (min && !json_object_is_type(min, json_type_int))
        return schema_bad(w, "minItems", "is not a whole number");
    if (!json_object_is_type(v, json_type_array))
        return FF_OK;
    size_t n = json_object_array_length(v);
    if (min && (int64_t)n < json_object_get_int64(min)) {
        char a[32], b[32];
        snprintf(a, sizeof(a), "%zu", n);
        snprintf(b, sizeof(b), "%lld", (long long)json_object_get_int64(min));
        return fail(w, FF_ERR_INVALID, "has %s items (expected at least %s)", a, b);
    }
    for (size_t i = 0; items && i < n; i++) {
        char idx[24];
        snprintf(idx, sizeof(idx), "%zu", i);
        size_t at = push(w, idx);
        int rc = check(w, items, json_object_array_get_idx(v, i), depth + 1);
        if (rc != FF_OK)
            return rc;
        w->ptr[at] = 0;
    }
    return FF_OK;
}

static int check(struct walk *w, json_object *s, json_object *v, int depth)
{
    if (depth > MAX_DEPTH)
        return fail(w, FF_ERR_INVALID, "is nested deeper than %s levels%s", "64", NULL);
    if (json_object_is_type(s, json_type_boolean))
        return json_object_get_boolean(s)
                   ? FF_OK
                   : fail(w, FF_ERR_INVALID, "is not allowed by the schema%s%s", NULL, NULL);
    if (!json_object_is_type(s, json_type_object))
        return schema_bad(w, "(subschema)", "is neither an object nor a boolean");
    static const char *const ignored[] = {"$schema",     "$id",      "$comment", "title",
                                          "description", "examples", "default",  "$defs"};
    static const char *const object_kw[] = {"properties", "additionalProperties", "required"};
    static const char *const array_kw[] = {"items", "minItems"};
    int rc = FF_OK;
    json_object_object_foreach(s, kw, arg)
    {
        bool skip = false;
        for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
            skip |= !strcmp(kw, ignored[i]);
        for (size_t i = 0; i < sizeof(object_kw) / sizeof(object_kw[0]); i++)
            skip |= !strcmp(kw, object_kw[i]);
        for (size_t i = 0; i < sizeof(array_kw) / sizeof(array_kw[0]); i++)
            skip |= !strcmp(kw, array_kw[i]);
        if (skip)
            continue;
        if (!strcmp(kw, "type"))
            rc = check_type(w, arg, v);
        else if (!strcmp(kw, "enum"))
            rc = check_enum(w, arg, v);
        else if (!strcmp(kw, "const")) {
            if (!equal(arg, v)) {
                char got[128], want[128];
                show(v, got, sizeof(got));
                show(arg, want, sizeof(want));
                rc = fail(w, FF_ERR_INVALID, "is %s (expected %s)", got, want);
            }
        } else if (!strcmp(kw, "pattern"))
            rc = check_pattern(w, arg, v);
        else if (!strcmp(kw, "minimum") || !strcmp(kw, "maximum"))
            rc = check_bound(w, kw, arg, v);
        else if (!strcmp(kw, "$ref")) {
            json_object *to = json_object_is_type(arg, json_type_string)
                                  ? resolve(w->root, json_object_get_string(arg))
                                  : NULL;
            rc = to ? check(w, to, v, depth + 1)
                    : schema_bad(w, "$ref", "is not a \"#/...\" pointer into this schema");
        } else
            rc = schema_bad(w, kw, "is not a keyword this validator implements");
        if (rc != FF_OK)
            return rc;
    }
    rc = check_object(w, s, v, depth);
    return rc != FF_OK ? rc : check_array(w, s, v, depth);
}

int ff_jschema_validate(json_object *schema, json_object *instance, struct ff_jschema_error *e)
{
    struct ff_jschema_error spare;
    struct walk w = {schema, e ? e : &spare, ""};
    w.e->pointer[0] = w.e->what[0] = 0;
    return check(&w, schema, instance, 0);
}
