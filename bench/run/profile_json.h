/*
 * bench/run/profile_json.h — device profiles as JSON (results/SCHEMA.md), built
 * with json-c and written atomically (temp file in the same folder, fsync,
 * rename) so an existing profile is replaced whole or not at all.
 */
#ifndef FF_PROFILE_JSON_H
#define FF_PROFILE_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "check/host.h"
#include "check/result.h"
#include "flopfit/profile_fields.h"

/* The schema identity and the version written; the field names are those of
 * flopfit/profile_fields.h, shared with libflopfit's reader (flopfit/profile.h). */
#define FF_PROFILE_SCHEMA  FF_PF_SCHEMA_ID
#define FF_PROFILE_VERSION FF_PF_VERSION_WRITTEN

/* How a run was asked for, recorded as "run" (results/SCHEMA.md). */
struct ff_run_record {
    const char *kind;        /* FF_PF_RUN_KIND_*; NULL: "custom" */
    const char *const *argv; /* the command line after "flopfit" ("bench", "--standard", ...) */
    size_t argc;             /* 0: only "flopfit" is recorded */
};

/* The kind of a run: --quick, --standard, or a plain run ("full": every family, size and
 * precision, the default repetitions and time per test, the library reference and memory
 * limit), else "custom". */
const char *ff_run_kind(bool quick, bool standard, bool restricted);

/* New reference owned by the caller (json_object_put). rec may be NULL (kind "custom"). The
 * home folder ($HOME) that starts an argument, or follows its '=', is written as "~". */
struct json_object *ff_run_to_json(const struct ff_run *p, const struct ff_host *host,
                                   const char *created_utc, const struct ff_run_record *rec);

/* One test as it appears in "tests" (a new reference). */
struct json_object *ff_result_to_json(const struct ff_result *r);

/* "device" of a profile (a new reference): the driver's facts, the "override.*" extras as
 * "overrides"; all_extras adds every extra, in order, as "details" (`flopfit devices --json`). */
struct json_object *ff_device_to_json(const struct ff_device_info *i, bool all_extras);

/* The "tool" object every file bench writes carries: name, version, git revision. */
struct json_object *ff_tool_json(void);

#endif
