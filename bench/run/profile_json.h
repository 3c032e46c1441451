/*
 * bench/run/profile_json.h — device profiles as JSON (results/SCHEMA.md), built
 * with json-c and written atomically (temp file in the same folder, fsync,
 * rename) so an existing profile is replaced whole or not at all.
 */
#ifndef FF_PROFILE_JSON_H
#define FF_PROFILE_JSON_H

#include <stddef.h>

#include <json-c/json.h>

#include "check/host.h"
#include "check/result.h"
#include "flopfit/profile_fields.h"

/* The schema identity and the version written; the field names are those of
 * flopfit/profile_fields.h, shared with libflopfit's reader (flopfit/profile.h). */
#define FF_PROFILE_SCHEMA  FF_PF_SCHEMA_ID
#define FF_PROFILE_VERSION FF_PF_VERSION_WRITTEN

/* New reference owned by the caller (json_object_put). */
struct json_object *ff_run_to_json(const struct ff_run *p, const struct ff_host *host,
                                   const char *created_utc);

/* One test as it appears in "tests" (a new reference). */
struct json_object *ff_result_to_json(const struct ff_result *r);

/* The "tool" object every file bench writes carries: name, version, git revision. */
struct json_object *ff_tool_json(void);

#endif
