/* estimate/src/json_read.h — the JSON parsing and field messages libflopfit's readers share
 * (json_read.c). Internal. */
#ifndef FF_JSON_READ_H
#define FF_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

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

#endif
