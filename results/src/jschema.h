/*
 * results/src/jschema.h — a small JSON Schema (draft 2020-12) validator on json-c trees, for
 * the keywords results/profile.schema.json uses: type, required, properties,
 * additionalProperties, enum, const, pattern (POSIX extended regular expressions), minimum,
 * maximum, items, minItems, and $ref to a local "#/..." pointer ($defs). The annotations
 * $schema, $id, $comment, title, description, examples and default are ignored; any other
 * keyword is refused as one this validator does not implement, so a schema never passes an
 * instance on a keyword nobody checked.
 */
#ifndef FF_PUB_JSCHEMA_H
#define FF_PUB_JSCHEMA_H

#include <stddef.h>

#include <json-c/json.h>

/* What went wrong, for the first violation found (depth first, in schema and file order). */
struct ff_jschema_error {
    char pointer[512]; /* JSON pointer of the offending value (RFC 6901), "" for the root */
    char what[512];    /* "is 3 (expected a string)", "lacks the required field \"name\"" */
};

/*
 * Validate instance against schema. FF_OK when it is valid; FF_ERR_INVALID when it is not
 * (e filled); FF_ERR_UNSUPPORTED when the schema itself is malformed or uses a keyword this
 * validator does not implement (e->pointer is then the keyword's place in the schema, as
 * "#/..."); FF_ERR_NO_MEMORY. Nesting deeper than 64 levels (instance or $ref chain) is
 * FF_ERR_INVALID.
 */
int ff_jschema_validate(json_object *schema, json_object *instance, struct ff_jschema_error *e);

/* results/profile.schema.json as embedded at build time (NUL-terminated; *len its length when
 * len is not NULL): an installed flopfit needs no data file. profile_schema.c */
const char *ff_profile_schema_text(size_t *len);

#endif
