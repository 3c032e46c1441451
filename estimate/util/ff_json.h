/*
 * estimate/util/ff_json.h — what every reader of a JSON file shares (json.c): parsing text into
 * one top-level object, the message for a field that is missing or wrong, and one typed getter
 * per kind of field.
 *
 * A private static library (ff_json, on json-c and ff_util) linked into libflopfit (hidden
 * there) and, through libflopfit's dependency, into bench/. Nothing here is installed; nothing
 * prints or exits.
 *
 * The getters share one rule: a field that is absent or JSON null is absent (json-c hands out
 * a JSON null as a NULL object). An absent field leaves the default (NULL for an object or
 * array) in *out, or is an FF_JSON_MISSING fault when `required`. A fault is worded by
 * ctx->fault, or by ff_json_bad_field when that is NULL, and returns FF_ERR_INVALID.
 *
 *     struct ff_json_ctx c = {.label = path, .prefix = "device.", .err = err, .errlen = n};
 *     FF_TRY(ff_json_get_string(&c, dev, "name", true, NULL, &name));
 *
 * Thread-safety: every function is reentrant; strings handed out point into the json-c tree.
 */
#ifndef FF_JSON_H
#define FF_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/* What is wrong with a field. */
enum ff_json_fault {
    FF_JSON_MISSING,    /* absent or null, and required */
    FF_JSON_NOT_STRING, /* present, but not the JSON type the getter reads */
    FF_JSON_NOT_NUMBER,
    FF_JSON_NOT_BOOL,
    FF_JSON_NOT_OBJECT,
    FF_JSON_NOT_ARRAY,
    FF_JSON_RANGE, /* the right type, a value outside what is accepted */
};

struct ff_json_ctx;

/*
 * Words the message for a fault of field `key` (v: its value, NULL when missing; expected: the
 * caller's phrase for what is accepted) into c->err and returns FF_ERR_INVALID.
 */
typedef int (*ff_json_fault_fn)(const struct ff_json_ctx *c, enum ff_json_fault fault,
                                const char *key, json_object *v, const char *expected);

/* Where a field is read, for its messages. Owns nothing. */
struct ff_json_ctx {
    const char *label;  /* the file, first in every message */
    const char *prefix; /* the object's path: "" (or NULL) at the top, "device." in one */
    char *err;          /* the caller's message buffer (may be NULL) */
    size_t errlen;
    ff_json_fault_fn fault; /* (optional) NULL: ff_json_bad_field's wording */
};

/*
 * Parse len bytes of JSON text (need not be NUL-terminated; a NUL inside is refused) whose top
 * level must be an object, with a tokener of its own. `strict`: JSON_TOKENER_STRICT. `what`
 * names the expected kind in messages ("a config.json"). On success *out is a new reference
 * (json_object_put); on failure NULL and FF_ERR_INVALID / FF_ERR_NO_MEMORY with err naming
 * `label`.
 */
int ff_json_parse_object(const char *text, size_t len, const char *label, const char *what,
                         bool strict, json_object **out, char *err, size_t errlen);

/* '<label>: field "<prefix><field>" is <v> (expected <expected>)', or "is missing" when v is
 * NULL. Returns FF_ERR_INVALID. */
int ff_json_bad_field(char *err, size_t errlen, const char *label, const char *prefix,
                      const char *field, json_object *v, const char *expected);

/* A fault of field `key` of the object c describes, worded by c->fault or ff_json_bad_field. */
int ff_json_fault(const struct ff_json_ctx *c, enum ff_json_fault fault, const char *key,
                  json_object *v, const char *expected);

/* The value of key in o; NULL when o is NULL, or key is absent or JSON null. */
json_object *ff_json_member(json_object *o, const char *key);

/* A string (non-NULL); *out points into the tree. Faults expect "a string". */
int ff_json_get_string(const struct ff_json_ctx *c, json_object *o, const char *key, bool required,
                       const char *def, const char **out);

/* true or false. Never required. Faults expect "true or false". */
int ff_json_get_bool(const struct ff_json_ctx *c, json_object *o, const char *key, bool def,
                     bool *out);

/* A finite number (a JSON integer or double) in [lo, hi]. */
int ff_json_get_double(const struct ff_json_ctx *c, json_object *o, const char *key, bool required,
                       double def, double lo, double hi, const char *expected, double *out);

/*
 * A whole number in [lo, hi] (-2^53 <= lo <= hi <= 2^62): a JSON integer, kept exact, or a
 * double with no fraction. The bounds are compared as doubles.
 */
int ff_json_get_int(const struct ff_json_ctx *c, json_object *o, const char *key, bool required,
                    int64_t def, double lo, double hi, const char *expected, int64_t *out);

/* ff_json_get_int from 0 to max, never required, absent as 0. */
int ff_json_get_u64(const struct ff_json_ctx *c, json_object *o, const char *key, double max,
                    const char *expected, uint64_t *out);

/* An object; *out is NULL when absent. Faults expect "an object". */
int ff_json_get_object(const struct ff_json_ctx *c, json_object *o, const char *key, bool required,
                       json_object **out);

/* An array; *out is NULL when absent. Faults expect `expected`. */
int ff_json_get_array(const struct ff_json_ctx *c, json_object *o, const char *key, bool required,
                      const char *expected, json_object **out);

/* "sha256:" and 64 lowercase hex digits, and the NUL. */
#define FF_JSON_HASH_MAX 72

/*
 * The content hash of a profile (results/SCHEMA.md): "sha256:<hex>" of the plain json-c text of
 * {"device": device, "tests": tests} into out (n >= FF_JSON_HASH_MAX). Neither value is
 * changed. FF_OK, FF_ERR_INVALID (n too small) or FF_ERR_NO_MEMORY. content_hash.c
 */
int ff_json_content_hash(json_object *device, json_object *tests, char *out, size_t n);

#endif
