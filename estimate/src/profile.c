/*
 * estimate/src/profile.c — the public profile reader (flopfit/profile.h).
 *
 * One pass validates and converts: the text is parsed with a private json_tokener (strict
 * mode, an explicit length, no json-c global state such as json_util_get_last_err), every
 * number in the tree is checked to be finite, then each known field is read with its type
 * and physical range into plain structs. Strings handed out point into the json-c tree, which
 * the document keeps until it is closed; nothing is modified after open, so concurrent
 * readers of one document need no locking.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "flopfit/precision.h"
#include "flopfit/profile.h"
#include "flopfit/status.h"
#include "internal.h"
#include "json_read.h"

struct ff_profile_doc {
    json_object *root;
    char *label;
    struct ff_profile_info info;
    size_t n_tests;
    struct ff_profile_test *tests;
    json_object **test_objs; /* the JSON object of each test, for ff_profile_test_number */
};

/* What a field read needs for its message: the file and the object the field is in. */
struct ctx {
    const char *label;
    const char *where; /* "", "device.", "tests[3]." ... */
    char *err;
    size_t errlen;
};

static int bad(const struct ctx *c, const char *key, json_object *v, const char *expected)
{
    return ff_json_bad_field(c->err, c->errlen, c->label, c->where, key, v, expected);
}

/* The value of key in o; NULL when absent or JSON null (null counts as absent). */
static json_object *member(json_object *o, const char *key)
{
    json_object *v = NULL;
    if (!o || !json_object_object_get_ex(o, key, &v) || !v ||
        json_object_is_type(v, json_type_null))
        return NULL;
    return v;
}

static int get_str(const struct ctx *c, json_object *o, const char *key, bool required,
                   const char **out)
{
    json_object *v = member(o, key);
    *out = NULL;
    if (!v)
        return required ? bad(c, key, NULL, "a string") : FF_OK;
    if (!json_object_is_type(v, json_type_string))
        return bad(c, key, v, "a string");
    *out = json_object_get_string(v);
    return *out ? FF_OK : bad(c, key, v, "a string");
}

static int get_bool(const struct ctx *c, json_object *o, const char *key, bool *out)
{
    json_object *v = member(o, key);
    *out = false;
    if (!v)
        return FF_OK;
    if (!json_object_is_type(v, json_type_boolean))
        return bad(c, key, v, "true or false");
    *out = json_object_get_boolean(v) != 0;
    return FF_OK;
}

static int get_obj(const struct ctx *c, json_object *o, const char *key, bool required,
                   json_object **out)
{
    json_object *v = member(o, key);
    *out = NULL;
    if (!v)
        return required ? bad(c, key, NULL, "an object") : FF_OK;
    if (!json_object_is_type(v, json_type_object))
        return bad(c, key, v, "an object");
    *out = v;
    return FF_OK;
}

/* A number in [lo, hi]; absent leaves *out = 0 and *present = false. */
static int get_num(const struct ctx *c, json_object *o, const char *key, double lo, double hi,
                   const char *expected, double *out, bool *present)
{
    json_object *v = member(o, key);
    *out = 0.0;
    if (present)
        *present = false;
    if (!v)
        return FF_OK;
    if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
        return bad(c, key, v, expected);
    double x = json_object_get_double(v);
    if (!isfinite(x) || x < lo || x > hi)
        return bad(c, key, v, expected);
    *out = x;
    if (present)
        *present = true;
    return FF_OK;
}

/* A whole number in [0, max] (max <= 2^60, exact in a double). */
static int get_u64(const struct ctx *c, json_object *o, const char *key, double max,
                   const char *expected, uint64_t *out)
{
    double x;
    *out = 0;
    int rc = get_num(c, o, key, 0.0, max, expected, &x, NULL);
    if (rc != FF_OK)
        return rc;
    if (x != floor(x))
        return bad(c, key, member(o, key), expected);
    json_object *v = member(o, key);
    /* An integer token keeps its exact value (a double rounds above 2^53). */
    *out = v && json_object_is_type(v, json_type_int) ? (uint64_t)json_object_get_int64(v)
                                                      : (uint64_t)x;
    return FF_OK;
}

#define TRY(x) FF_TRY(x)

#define BYTES_EXPECTED "a byte count from 0 to 2^60"
#define COUNT_EXPECTED "a whole number from 0 to 2^32"
#define COUNT_MAX      4294967296.0

/*
 * json-c reads Infinity, -Infinity, NaN and 1e999 as doubles: one walk over the whole tree
 * refuses them anywhere, unknown fields included, so no accessor can hand one out.
 */
static int check_finite(const char *label, json_object *o, char *path, size_t pathlen, size_t used,
                        char *err, size_t errlen)
{
    if (json_object_is_type(o, json_type_double)) {
        double x = json_object_get_double(o);
        if (!isfinite(x))
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "%s: field \"%s\" is %g (expected a finite number)", label, path, x);
        return FF_OK;
    }
    if (json_object_is_type(o, json_type_array)) {
        size_t n = json_object_array_length(o);
        for (size_t i = 0; i < n; i++) {
            int w = snprintf(path + used, pathlen - used, "[%zu]", i);
            size_t next = w < 0 || (size_t)w >= pathlen - used ? pathlen - 1 : used + (size_t)w;
            json_object *e = json_object_array_get_idx(o, i);
            if (e) {
                int rc = check_finite(label, e, path, pathlen, next, err, errlen);
                if (rc != FF_OK)
                    return rc;
            }
        }
        path[used] = '\0';
        return FF_OK;
    }
    if (json_object_is_type(o, json_type_object)) {
        json_object_object_foreach(o, key, val)
        {
            int w = snprintf(path + used, pathlen - used, "%s%s", used ? "." : "", key);
            size_t next = w < 0 || (size_t)w >= pathlen - used ? pathlen - 1 : used + (size_t)w;
            if (val) {
                int rc = check_finite(label, val, path, pathlen, next, err, errlen);
                if (rc != FF_OK)
                    return rc;
            }
        }
        path[used] = '\0';
    }
    return FF_OK;
}

/* "1.0" -> 1, 0. Digits, a dot, digits; nothing else. */
static bool parse_version(const char *s, int *major, int *minor)
{
    int part[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        if (*s < '0' || *s > '9')
            return false;
        for (; *s >= '0' && *s <= '9'; s++) {
            if (part[k] > 99999)
                return false;
            part[k] = part[k] * 10 + (*s - '0');
        }
        if (k == 0 && *s++ != '.')
            return false;
    }
    if (*s)
        return false;
    *major = part[0];
    *minor = part[1];
    return true;
}

static int read_times(struct ctx *c, json_object *t, const char *key, char *where, size_t wlen,
                      struct ff_profile_times *out)
{
    json_object *o = NULL;
    TRY(get_obj(c, t, key, false, &o));
    memset(out, 0, sizeof(*out));
    if (!o)
        return FF_OK;
    const char *saved = c->where;
    snprintf(where, wlen, "%s%s.", saved, key);
    c->where = where;
    out->present = true;
    const char *exp = "seconds from 0 to 1e9";
    int rc =
        get_num(c, o, FF_PF_TIME_MEDIAN, 0.0, FF_PROFILE_MAX_SECONDS, exp, &out->median_s, NULL);
    if (rc == FF_OK)
        rc = get_num(c, o, FF_PF_TIME_MIN, 0.0, FF_PROFILE_MAX_SECONDS, exp, &out->min_s, NULL);
    if (rc == FF_OK)
        rc = get_num(c, o, FF_PF_TIME_MAX, 0.0, FF_PROFILE_MAX_SECONDS, exp, &out->max_s, NULL);
    c->where = saved;
    return rc;
}

/* The range a value may have in its unit; false for a unit this flopfit does not know. */
static bool unit_range(const char *unit, double *hi, const char **expected)
{
    if (!unit)
        return false;
    if (!strcmp(unit, FF_PF_UNIT_FLOPS) || !strcmp(unit, FF_PF_UNIT_OPS)) {
        *hi = FF_PROFILE_MAX_RATE;
        *expected = "a rate from 0 to 1e21 per second";
    } else if (!strcmp(unit, FF_PF_UNIT_BYTES_PER_S)) {
        *hi = FF_PROFILE_MAX_BANDWIDTH;
        *expected = "a bandwidth from 0 to 1e18 B/s";
    } else if (!strcmp(unit, FF_PF_UNIT_BYTES)) {
        *hi = FF_PROFILE_MAX_BYTE_COUNT;
        *expected = BYTES_EXPECTED;
    } else if (!strcmp(unit, FF_PF_UNIT_SECONDS)) {
        *hi = FF_PROFILE_MAX_SECONDS;
        *expected = "seconds from 0 to 1e9";
    } else {
        return false;
    }
    return true;
}

static int read_test(struct ctx *c, json_object *t, struct ff_profile_test *out)
{
    memset(out, 0, sizeof(*out));
    out->struct_size = sizeof(*out);
    out->prec = -1;
    if (!json_object_is_type(t, json_type_object))
        return ff_errf(c->err, c->errlen, FF_ERR_INVALID,
                       "%s: field \"%s\" is not an object (expected a test)", c->label, c->where);
    /* c->where is "tests[i]"; fields print as "tests[i].key". */
    char where[64], sub[96];
    snprintf(where, sizeof(where), "%s.", c->where);
    struct ctx tc = *c;
    tc.where = where;

    TRY(get_str(&tc, t, FF_PF_TEST_FAMILY, true, &out->family));
    TRY(get_str(&tc, t, FF_PF_TEST_NAME, true, &out->name));
    TRY(get_str(&tc, t, FF_PF_TEST_IMPL, false, &out->impl));
    TRY(get_str(&tc, t, FF_PF_TEST_PRECISION, false, &out->precision));
    enum ff_precision p;
    if (out->precision && ff_precision_parse(out->precision, &p) == FF_OK)
        out->prec = (int)p;
    TRY(get_str(&tc, t, FF_PF_TEST_VARIANT, false, &out->variant));

    json_object *shape = NULL;
    TRY(get_obj(&tc, t, FF_PF_TEST_SHAPE, false, &shape));
    if (shape) {
        snprintf(sub, sizeof(sub), "%s%s.", where, FF_PF_TEST_SHAPE);
        struct ctx sc = tc;
        sc.where = sub;
        TRY(get_u64(&sc, shape, FF_PF_SHAPE_M, COUNT_MAX, COUNT_EXPECTED, &out->m));
        TRY(get_u64(&sc, shape, FF_PF_SHAPE_N, COUNT_MAX, COUNT_EXPECTED, &out->n));
        TRY(get_u64(&sc, shape, FF_PF_SHAPE_K, COUNT_MAX, COUNT_EXPECTED, &out->k));
    }
    TRY(get_u64(&tc, t, FF_PF_TEST_BYTES, FF_PROFILE_MAX_BYTE_COUNT, BYTES_EXPECTED, &out->bytes));

    TRY(get_str(&tc, t, FF_PF_TEST_STATUS, true, &out->status_text));
    if (!strcmp(out->status_text, FF_PF_STATUS_OK))
        out->status = FF_PROFILE_TEST_OK;
    else if (!strcmp(out->status_text, FF_PF_STATUS_UNSUPPORTED))
        out->status = FF_PROFILE_TEST_UNSUPPORTED;
    else if (!strcmp(out->status_text, FF_PF_STATUS_FAILED))
        out->status = FF_PROFILE_TEST_FAILED;
    else
        out->status = FF_PROFILE_TEST_OTHER;
    TRY(get_str(&tc, t, FF_PF_TEST_REASON, false, &out->reason));
    TRY(get_bool(&tc, t, FF_PF_TEST_VERIFIED, &out->verified));

    json_object *e = NULL;
    TRY(get_obj(&tc, t, FF_PF_TEST_ERROR, false, &e));
    if (e) {
        snprintf(sub, sizeof(sub), "%s%s.", where, FF_PF_TEST_ERROR);
        struct ctx ec = tc;
        ec.where = sub;
        const char *exp = "a finite number >= 0";
        out->has_error = true;
        TRY(get_num(&ec, e, FF_PF_ERROR_MAX_ABS, 0.0, HUGE_VAL, exp, &out->max_abs, NULL));
        TRY(get_num(&ec, e, FF_PF_ERROR_MAX_REL, 0.0, HUGE_VAL, exp, &out->max_rel, NULL));
        TRY(get_num(&ec, e, FF_PF_ERROR_TOLERANCE, 0.0, HUGE_VAL, exp, &out->tolerance, NULL));
    }
    TRY(get_u64(&tc, t, FF_PF_TEST_REPETITIONS, COUNT_MAX, COUNT_EXPECTED, &out->repetitions));
    TRY(read_times(&tc, t, FF_PF_TEST_DEVICE_TIME_S, sub, sizeof(sub), &out->device_time_s));
    TRY(read_times(&tc, t, FF_PF_TEST_WALL_TIME_S, sub, sizeof(sub), &out->wall_time_s));

    TRY(get_str(&tc, t, FF_PF_TEST_UNIT, false, &out->unit));
    json_object *value = member(t, FF_PF_TEST_VALUE);
    if (value &&
        (out->status == FF_PROFILE_TEST_UNSUPPORTED || out->status == FF_PROFILE_TEST_FAILED))
        return bad(&tc, FF_PF_TEST_VALUE, value,
                   "no value on an unsupported or failed test (results/SCHEMA.md)");
    double hi = HUGE_VAL;
    const char *exp = "a finite number >= 0";
    unit_range(out->unit, &hi, &exp);
    TRY(get_num(&tc, t, FF_PF_TEST_VALUE, 0.0, hi, exp, &out->value, &out->has_value));

    json_object *tun = NULL;
    TRY(get_obj(&tc, t, FF_PF_TEST_TUNING, false, &tun));
    if (tun) {
        snprintf(sub, sizeof(sub), "%s%s.", where, FF_PF_TEST_TUNING);
        struct ctx uc = tc;
        uc.where = sub;
        TRY(get_str(&uc, tun, FF_PF_TUNING_POINT, false, &out->tuning_point));
        TRY(get_str(&uc, tun, FF_PF_TUNING_SOURCE, false, &out->tuning_source));
    }

    TRY(get_num(&tc, t, FF_PF_TEST_REPORTED_BYTES, 0.0, FF_PROFILE_MAX_BYTE_COUNT, BYTES_EXPECTED,
                &out->reported_bytes, NULL));
    TRY(get_num(&tc, t, FF_PF_TEST_DIFFERENCE_BYTES, -FF_PROFILE_MAX_BYTE_COUNT,
                FF_PROFILE_MAX_BYTE_COUNT, "a byte difference from -2^60 to 2^60",
                &out->difference_bytes, NULL));
    TRY(get_num(&tc, t, FF_PF_TEST_CAP_BYTES, 0.0, FF_PROFILE_MAX_BYTE_COUNT, BYTES_EXPECTED,
                &out->cap_bytes, NULL));
    TRY(get_num(&tc, t, FF_PF_TEST_CHUNK_BYTES, 0.0, FF_PROFILE_MAX_BYTE_COUNT, BYTES_EXPECTED,
                &out->chunk_bytes, NULL));
    TRY(get_num(&tc, t, FF_PF_TEST_PROBE_S, 0.0, FF_PROFILE_MAX_SECONDS, "seconds from 0 to 1e9",
                &out->probe_s, NULL));
    TRY(get_bool(&tc, t, FF_PF_TEST_CAPPED, &out->capped));
    TRY(get_bool(&tc, t, FF_PF_TEST_TIME_LIMITED, &out->time_limited));
    TRY(get_num(&tc, t, FF_PF_TEST_LIMIT_BYTES_PER_S, 0.0, FF_PROFILE_MAX_BANDWIDTH,
                "a bandwidth from 0 to 1e18 B/s", &out->limit_bytes_per_s, NULL));
    TRY(get_str(&tc, t, FF_PF_TEST_SCOPE, false, &out->scope));
    double ranks = 0;
    TRY(get_num(&tc, t, FF_PF_TEST_RANKS, 0.0, 16777216.0, "a rank count from 0 to 2^24", &ranks,
                NULL));
    out->ranks = (uint64_t)ranks;
    TRY(get_num(&tc, t, FF_PF_TEST_ALGBW_BYTES_PER_S, 0.0, FF_PROFILE_MAX_BANDWIDTH,
                "a bandwidth from 0 to 1e18 B/s", &out->algbw_bytes_per_s, NULL));
    TRY(get_num(&tc, t, FF_PF_TEST_LATENCY_S, 0.0, FF_PROFILE_MAX_SECONDS, "seconds from 0 to 1e9",
                &out->latency_s, NULL));
    TRY(get_num(&tc, t, FF_PF_TEST_PEAK_FRACTION, 0.0, 1e3, "a fraction from 0 to 1000",
                &out->peak_fraction, NULL));
    TRY(get_bool(&tc, t, FF_PF_TEST_PEAK_OF_FP32, &out->peak_of_fp32));
    TRY(get_num(&tc, t, FF_PF_TEST_PEAK_PAIRED, 0.0, FF_PROFILE_MAX_RATE,
                "a rate from 0 to 1e21 FLOP/s or OP/s", &out->peak_paired, NULL));
    return FF_OK;
}

static int read_device(struct ctx *c, json_object *d, struct ff_profile_device *out)
{
    struct ctx dc = *c;
    dc.where = FF_PF_DEVICE ".";
    TRY(get_str(&dc, d, FF_PF_DEVICE_BACKEND, false, &out->backend));
    TRY(get_str(&dc, d, FF_PF_DEVICE_PLATFORM, false, &out->platform));
    TRY(get_str(&dc, d, FF_PF_DEVICE_NAME, false, &out->name));
    TRY(get_str(&dc, d, FF_PF_DEVICE_VENDOR, false, &out->vendor));
    TRY(get_str(&dc, d, FF_PF_DEVICE_DRIVER_VERSION, false, &out->driver_version));
    TRY(get_str(&dc, d, FF_PF_DEVICE_API_VERSION, false, &out->api_version));
    TRY(get_str(&dc, d, FF_PF_DEVICE_TYPE, false, &out->type));
    TRY(get_u64(&dc, d, FF_PF_DEVICE_COMPUTE_UNITS, COUNT_MAX, COUNT_EXPECTED,
                &out->compute_units));
    TRY(get_u64(&dc, d, FF_PF_DEVICE_CLOCK_MHZ, 1e6, "a clock from 0 to 1e6 MHz", &out->clock_mhz));
    TRY(get_u64(&dc, d, FF_PF_DEVICE_GLOBAL_MEM_BYTES, FF_PROFILE_MAX_BYTE_COUNT, BYTES_EXPECTED,
                &out->global_mem_bytes));
    TRY(get_u64(&dc, d, FF_PF_DEVICE_MAX_ALLOC_BYTES, FF_PROFILE_MAX_BYTE_COUNT, BYTES_EXPECTED,
                &out->max_alloc_bytes));
    TRY(get_u64(&dc, d, FF_PF_DEVICE_BUDGET_BYTES, FF_PROFILE_MAX_BYTE_COUNT, BYTES_EXPECTED,
                &out->budget_bytes));
    TRY(get_bool(&dc, d, FF_PF_DEVICE_HOST_SHARED_MEMORY, &out->host_shared_memory));
    json_object *f = NULL;
    TRY(get_obj(&dc, d, FF_PF_DEVICE_FEATURES, false, &f));
    if (f) {
        dc.where = FF_PF_DEVICE "." FF_PF_DEVICE_FEATURES ".";
        TRY(get_bool(&dc, f, FF_PF_FEATURE_FP16, &out->features.fp16));
        TRY(get_bool(&dc, f, FF_PF_FEATURE_INT8, &out->features.int8));
        TRY(get_bool(&dc, f, FF_PF_FEATURE_INT8_DOT, &out->features.int8_dot));
        TRY(get_bool(&dc, f, FF_PF_FEATURE_COOPMAT, &out->features.coopmat));
    }
    json_object *ov = NULL;
    dc.where = FF_PF_DEVICE ".";
    TRY(get_obj(&dc, d, FF_PF_DEVICE_OVERRIDES, false, &ov));
    if (ov) {
        dc.where = FF_PF_DEVICE "." FF_PF_DEVICE_OVERRIDES ".";
        json_object_object_foreach(ov, key, val)
        {
            if (out->n_overrides == FF_PROFILE_MAX_OVERRIDES)
                return bad(&dc, key, val, "at most 16 overrides");
            if (!json_object_is_type(val, json_type_string))
                return bad(&dc, key, val, "a string");
            out->overrides[out->n_overrides].name = key;
            out->overrides[out->n_overrides].value = json_object_get_string(val);
            out->n_overrides++;
        }
    }
    return FF_OK;
}

/* Schema identity and version first: a newer major version may have changed every field. */
static int read_header(struct ctx *c, json_object *root, struct ff_profile_info *info)
{
    info->struct_size = sizeof(*info);
    json_object *v = member(root, FF_PF_SCHEMA);
    if (!v || !json_object_is_type(v, json_type_string) ||
        strcmp(json_object_get_string(v), FF_PF_SCHEMA_ID) != 0)
        return bad(c, FF_PF_SCHEMA, v, "\"" FF_PF_SCHEMA_ID "\"");
    v = member(root, FF_PF_SCHEMA_VERSION);
    if (!v || !json_object_is_type(v, json_type_string) ||
        !parse_version(json_object_get_string(v), &info->version_major, &info->version_minor))
        return bad(c, FF_PF_SCHEMA_VERSION, v, "a string such as \"" FF_PF_VERSION_WRITTEN "\"");
    info->schema_version = json_object_get_string(v);
    if (info->version_major != FF_PF_VERSION_MAJOR)
        return ff_errf(c->err, c->errlen, FF_ERR_UNSUPPORTED,
                       "%s: schema_version %s is not supported (this flopfit reads %d.x)", c->label,
                       info->schema_version, FF_PF_VERSION_MAJOR);

    json_object *o = NULL;
    TRY(get_obj(c, root, FF_PF_TOOL, false, &o));
    if (o) {
        struct ctx sc = *c;
        sc.where = FF_PF_TOOL ".";
        TRY(get_str(&sc, o, FF_PF_TOOL_NAME, false, &info->tool_name));
        TRY(get_str(&sc, o, FF_PF_TOOL_VERSION, false, &info->tool_version));
        TRY(get_str(&sc, o, FF_PF_TOOL_GIT, false, &info->tool_git));
    }
    TRY(get_str(c, root, FF_PF_CREATED, false, &info->created));
    TRY(get_obj(c, root, FF_PF_HOST, false, &o));
    if (o) {
        struct ctx sc = *c;
        sc.where = FF_PF_HOST ".";
        TRY(get_str(&sc, o, FF_PF_HOST_OS, false, &info->host.os));
        TRY(get_str(&sc, o, FF_PF_HOST_KERNEL, false, &info->host.kernel));
        TRY(get_str(&sc, o, FF_PF_HOST_CPU, false, &info->host.cpu));
        TRY(get_u64(&sc, o, FF_PF_HOST_CPUS, COUNT_MAX, COUNT_EXPECTED, &info->host.cpus));
        TRY(get_u64(&sc, o, FF_PF_HOST_RAM_BYTES, FF_PROFILE_MAX_BYTE_COUNT, BYTES_EXPECTED,
                    &info->host.ram_bytes));
    }
    TRY(get_obj(c, root, FF_PF_DEVICE, true, &o));
    TRY(read_device(c, o, &info->device));
    TRY(get_bool(c, root, FF_PF_COMPLETE, &info->complete));
    return FF_OK;
}

static int build(struct ff_profile_doc *doc, char *err, size_t errlen)
{
    struct ctx c = {doc->label, "", err, errlen};
    json_object *root = doc->root;
    if (!json_object_is_type(root, json_type_object))
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "%s: top level is not a JSON object (expected a flopfit profile)",
                       doc->label);
    char path[256] = "";
    /* The schema is checked before the finiteness walk so that a file of another kind (or a
     * newer major version) is named as such, not by the first odd number it contains. */
    TRY(read_header(&c, root, &doc->info));
    TRY(check_finite(doc->label, root, path, sizeof(path), 0, err, errlen));

    json_object *tests = member(root, FF_PF_TESTS);
    if (!tests || !json_object_is_type(tests, json_type_array))
        return bad(&c, FF_PF_TESTS, tests, "an array");
    size_t n = json_object_array_length(tests);
    if (n > 0) {
        doc->tests = calloc(n, sizeof(*doc->tests));
        doc->test_objs = calloc(n, sizeof(*doc->test_objs));
        if (!doc->tests || !doc->test_objs)
            return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "%s: out of memory for %zu tests",
                           doc->label, n);
    }
    for (size_t i = 0; i < n; i++) {
        char where[32];
        snprintf(where, sizeof(where), "%s[%zu]", FF_PF_TESTS, i);
        struct ctx tc = c;
        tc.where = where;
        json_object *t = json_object_array_get_idx(tests, i);
        if (!t)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "%s: field \"%s\" is null (expected a test object)", doc->label, where);
        TRY(read_test(&tc, t, &doc->tests[i]));
        doc->test_objs[i] = t;
        doc->n_tests = i + 1;
    }
    return FF_OK;
}

int ff_profile_parse(const char *text, size_t len, const char *label, struct ff_profile_doc **out,
                     char *err, size_t errlen)
{
    if (!out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no output for the profile");
    *out = NULL;
    if (!label)
        label = "profile";
    if (!text)
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: no text", label);
    if (len > FF_PROFILE_MAX_BYTES)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "%s: %zu bytes, larger than the %u-byte limit for a flopfit profile", label,
                       len, FF_PROFILE_MAX_BYTES);

    int rc = FF_OK;
    struct ff_profile_doc *doc = calloc(1, sizeof(*doc));
    if (!doc)
        return ff_errf(err, errlen, FF_ERR_NO_MEMORY, "%s: out of memory", label);
    size_t llen = strlen(label);
    doc->label = malloc(llen + 1);
    if (!doc->label) {
        rc = ff_errf(err, errlen, FF_ERR_NO_MEMORY, "%s: out of memory", label);
        goto error_doc;
    }
    memcpy(doc->label, label, llen + 1);
    doc->info.label = doc->label;

    /* A tokener of our own: its error is ours, not json-c's process-global last error. */
    rc = ff_json_parse_object(text, len, label, "a flopfit profile (JSON text)", true, &doc->root,
                              err, errlen);
    if (rc != FF_OK)
        goto error_doc;
    rc = build(doc, err, errlen);
    if (rc != FF_OK)
        goto error_doc;
    *out = doc;
    return FF_OK;

error_doc:
    ff_profile_close(&doc);
    return rc;
}

int ff_profile_open(const char *path, struct ff_profile_doc **out, char *err, size_t errlen)
{
    if (!out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no output for the profile");
    *out = NULL;
    if (!path)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no profile path");
    char *text = NULL;
    size_t len = 0;
    int rc = ff_read_file_capped(path, FF_PROFILE_MAX_BYTES, "flopfit profile", &text, &len, err,
                                 errlen);
    if (rc != FF_OK)
        return rc;
    rc = ff_profile_parse(text, len, path, out, err, errlen);
    free(text);
    return rc;
}

void ff_profile_close(struct ff_profile_doc **prof)
{
    if (!prof || !*prof)
        return;
    struct ff_profile_doc *doc = *prof;
    free(doc->test_objs);
    free(doc->tests);
    json_object_put(doc->root);
    free(doc->label);
    free(doc);
    *prof = NULL;
}

const struct ff_profile_info *ff_profile_info(const struct ff_profile_doc *prof)
{
    return prof ? &prof->info : NULL;
}

size_t ff_profile_test_count(const struct ff_profile_doc *prof)
{
    return prof ? prof->n_tests : 0;
}

const struct ff_profile_test *ff_profile_test_at(const struct ff_profile_doc *prof, size_t i)
{
    return prof && i < prof->n_tests ? &prof->tests[i] : NULL;
}

int ff_profile_test_number(const struct ff_profile_doc *prof, size_t i, const char *key,
                           double *out)
{
    if (!prof || i >= prof->n_tests || !key)
        return FF_ERR_NOT_FOUND;
    json_object *v = member(prof->test_objs[i], key);
    if (!v)
        return FF_ERR_NOT_FOUND;
    if (json_object_is_type(v, json_type_boolean)) {
        if (out)
            *out = json_object_get_boolean(v) ? 1.0 : 0.0;
        return FF_OK;
    }
    if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
        return FF_ERR_INVALID;
    if (out)
        *out = json_object_get_double(v);
    return FF_OK;
}
