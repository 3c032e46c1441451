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
#include "ff_json.h"

struct ff_profile_doc {
    json_object *root;
    char *label;
    struct ff_profile_info info;
    size_t n_tests;
    struct ff_profile_test *tests;
    json_object **test_objs;        /* the JSON object of each test, for ff_profile_test_number */
    const char **argv;              /* info.run_argv */
    char hash[FF_PROFILE_HASH_MAX]; /* the content hash recomputed at open */
};

static int bad(const struct ff_json_ctx *c, const char *key, json_object *v, const char *expected)
{
    return ff_json_bad_field(c->err, c->errlen, c->label, c->prefix, key, v, expected);
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

static int read_times(struct ff_json_ctx *c, json_object *t, const char *key, char *where,
                      size_t wlen, struct ff_profile_times *out)
{
    json_object *o = NULL;
    TRY(ff_json_get_object(c, t, key, false, &o));
    memset(out, 0, sizeof(*out));
    if (!o)
        return FF_OK;
    const char *saved = c->prefix;
    snprintf(where, wlen, "%s%s.", saved, key);
    c->prefix = where;
    out->present = true;
    const char *exp = "seconds from 0 to 1e9";
    int rc = ff_json_get_double(c, o, FF_PF_TIME_MEDIAN, false, 0.0, 0.0, FF_PROFILE_MAX_SECONDS,
                                exp, &out->median_s);
    if (rc == FF_OK)
        rc = ff_json_get_double(c, o, FF_PF_TIME_MIN, false, 0.0, 0.0, FF_PROFILE_MAX_SECONDS, exp,
                                &out->min_s);
    if (rc == FF_OK)
        rc = ff_json_get_double(c, o, FF_PF_TIME_MAX, false, 0.0, 0.0, FF_PROFILE_MAX_SECONDS, exp,
                                &out->max_s);
    c->prefix = saved;
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

static int read_test(struct ff_json_ctx *c, json_object *t, struct ff_profile_test *out)
{
    memset(out, 0, sizeof(*out));
    out->struct_size = sizeof(*out);
    out->prec = -1;
    if (!json_object_is_type(t, json_type_object))
        return ff_errf(c->err, c->errlen, FF_ERR_INVALID,
                       "%s: field \"%s\" is not an object (expected a test)", c->label, c->prefix);
    /* c->prefix is "tests[i]"; fields print as "tests[i].key". */
    char where[64], sub[96];
    snprintf(where, sizeof(where), "%s.", c->prefix);
    struct ff_json_ctx tc = *c;
    tc.prefix = where;

    TRY(ff_json_get_string(&tc, t, FF_PF_TEST_FAMILY, true, NULL, &out->family));
    TRY(ff_json_get_string(&tc, t, FF_PF_TEST_NAME, true, NULL, &out->name));
    TRY(ff_json_get_string(&tc, t, FF_PF_TEST_IMPL, false, NULL, &out->impl));
    TRY(ff_json_get_string(&tc, t, FF_PF_TEST_PRECISION, false, NULL, &out->precision));
    enum ff_precision p;
    if (out->precision && ff_precision_parse(out->precision, &p) == FF_OK)
        out->prec = (int)p;
    TRY(ff_json_get_string(&tc, t, FF_PF_TEST_VARIANT, false, NULL, &out->variant));

    json_object *shape = NULL;
    TRY(ff_json_get_object(&tc, t, FF_PF_TEST_SHAPE, false, &shape));
    if (shape) {
        snprintf(sub, sizeof(sub), "%s%s.", where, FF_PF_TEST_SHAPE);
        struct ff_json_ctx sc = tc;
        sc.prefix = sub;
        TRY(ff_json_get_u64(&sc, shape, FF_PF_SHAPE_M, COUNT_MAX, COUNT_EXPECTED, &out->m));
        TRY(ff_json_get_u64(&sc, shape, FF_PF_SHAPE_N, COUNT_MAX, COUNT_EXPECTED, &out->n));
        TRY(ff_json_get_u64(&sc, shape, FF_PF_SHAPE_K, COUNT_MAX, COUNT_EXPECTED, &out->k));
        TRY(ff_json_get_u64(&sc, shape, FF_PF_SHAPE_G, COUNT_MAX, COUNT_EXPECTED, &out->g));
    }
    TRY(ff_json_get_u64(&tc, t, FF_PF_TEST_BYTES, FF_PROFILE_MAX_BYTE_COUNT, BYTES_EXPECTED,
                        &out->bytes));

    TRY(ff_json_get_string(&tc, t, FF_PF_TEST_STATUS, true, NULL, &out->status_text));
    if (!strcmp(out->status_text, FF_PF_STATUS_OK))
        out->status = FF_PROFILE_TEST_OK;
    else if (!strcmp(out->status_text, FF_PF_STATUS_UNSUPPORTED))
        out->status = FF_PROFILE_TEST_UNSUPPORTED;
    else if (!strcmp(out->status_text, FF_PF_STATUS_FAILED))
        out->status = FF_PROFILE_TEST_FAILED;
    else
        out->status = FF_PROFILE_TEST_OTHER;
    TRY(ff_json_get_string(&tc, t, FF_PF_TEST_REASON, false, NULL, &out->reason));
    TRY(ff_json_get_bool(&tc, t, FF_PF_TEST_VERIFIED, false, &out->verified));

    json_object *e = NULL;
    TRY(ff_json_get_object(&tc, t, FF_PF_TEST_ERROR, false, &e));
    if (e) {
        snprintf(sub, sizeof(sub), "%s%s.", where, FF_PF_TEST_ERROR);
        struct ff_json_ctx ec = tc;
        ec.prefix = sub;
        const char *exp = "a finite number >= 0";
        out->has_error = true;
        TRY(ff_json_get_double(&ec, e, FF_PF_ERROR_MAX_ABS, false, 0.0, 0.0, HUGE_VAL, exp,
                               &out->max_abs));
        TRY(ff_json_get_double(&ec, e, FF_PF_ERROR_MAX_REL, false, 0.0, 0.0, HUGE_VAL, exp,
                               &out->max_rel));
        TRY(ff_json_get_double(&ec, e, FF_PF_ERROR_TOLERANCE, false, 0.0, 0.0, HUGE_VAL, exp,
                               &out->tolerance));
    }
    TRY(ff_json_get_u64(&tc, t, FF_PF_TEST_REPETITIONS, COUNT_MAX, COUNT_EXPECTED,
                        &out->repetitions));
    TRY(read_times(&tc, t, FF_PF_TEST_DEVICE_TIME_S, sub, sizeof(sub), &out->device_time_s));
    TRY(read_times(&tc, t, FF_PF_TEST_WALL_TIME_S, sub, sizeof(sub), &out->wall_time_s));

    TRY(ff_json_get_string(&tc, t, FF_PF_TEST_UNIT, false, NULL, &out->unit));
    json_object *value = ff_json_member(t, FF_PF_TEST_VALUE);
    if (value &&
        (out->status == FF_PROFILE_TEST_UNSUPPORTED || out->status == FF_PROFILE_TEST_FAILED))
        return bad(&tc, FF_PF_TEST_VALUE, value,
                   "no value on an unsupported or failed test (results/SCHEMA.md)");
    double hi = HUGE_VAL;
    const char *exp = "a finite number >= 0";
    unit_range(out->unit, &hi, &exp);
    TRY(ff_json_get_double(&tc, t, FF_PF_TEST_VALUE, false, 0.0, 0.0, hi, exp, &out->value));
    out->has_value = value != NULL;

    json_object *tun = NULL;
    TRY(ff_json_get_object(&tc, t, FF_PF_TEST_TUNING, false, &tun));
    if (tun) {
        snprintf(sub, sizeof(sub), "%s%s.", where, FF_PF_TEST_TUNING);
        struct ff_json_ctx uc = tc;
        uc.prefix = sub;
        TRY(ff_json_get_string(&uc, tun, FF_PF_TUNING_POINT, false, NULL, &out->tuning_point));
        TRY(ff_json_get_string(&uc, tun, FF_PF_TUNING_SOURCE, false, NULL, &out->tuning_source));
    }

    TRY(ff_json_get_double(&tc, t, FF_PF_TEST_REPORTED_BYTES, false, 0.0, 0.0,
                           FF_PROFILE_MAX_BYTE_COUNT, BYTES_EXPECTED, &out->reported_bytes));
    TRY(ff_json_get_double(&tc, t, FF_PF_TEST_DIFFERENCE_BYTES, false, 0.0,
                           -FF_PROFILE_MAX_BYTE_COUNT, FF_PROFILE_MAX_BYTE_COUNT,
                           "a byte difference from -2^60 to 2^60", &out->difference_bytes));
    TRY(ff_json_get_double(&tc, t, FF_PF_TEST_CAP_BYTES, false, 0.0, 0.0, FF_PROFILE_MAX_BYTE_COUNT,
                           BYTES_EXPECTED, &out->cap_bytes));
    TRY(ff_json_get_double(&tc, t, FF_PF_TEST_CHUNK_BYTES, false, 0.0, 0.0,
                           FF_PROFILE_MAX_BYTE_COUNT, BYTES_EXPECTED, &out->chunk_bytes));
    TRY(ff_json_get_double(&tc, t, FF_PF_TEST_PROBE_S, false, 0.0, 0.0, FF_PROFILE_MAX_SECONDS,
                           "seconds from 0 to 1e9", &out->probe_s));
    TRY(ff_json_get_bool(&tc, t, FF_PF_TEST_CAPPED, false, &out->capped));
    TRY(ff_json_get_bool(&tc, t, FF_PF_TEST_TIME_LIMITED, false, &out->time_limited));
    TRY(ff_json_get_double(&tc, t, FF_PF_TEST_LIMIT_BYTES_PER_S, false, 0.0, 0.0,
                           FF_PROFILE_MAX_BANDWIDTH, "a bandwidth from 0 to 1e18 B/s",
                           &out->limit_bytes_per_s));
    TRY(ff_json_get_string(&tc, t, FF_PF_TEST_SCOPE, false, NULL, &out->scope));
    double ranks = 0;
    TRY(ff_json_get_double(&tc, t, FF_PF_TEST_RANKS, false, 0.0, 0.0, 16777216.0,
                           "a rank count from 0 to 2^24", &ranks));
    out->ranks = (uint64_t)ranks;
    TRY(ff_json_get_double(&tc, t, FF_PF_TEST_ALGBW_BYTES_PER_S, false, 0.0, 0.0,
                           FF_PROFILE_MAX_BANDWIDTH, "a bandwidth from 0 to 1e18 B/s",
                           &out->algbw_bytes_per_s));
    TRY(ff_json_get_double(&tc, t, FF_PF_TEST_LATENCY_S, false, 0.0, 0.0, FF_PROFILE_MAX_SECONDS,
                           "seconds from 0 to 1e9", &out->latency_s));
    TRY(ff_json_get_double(&tc, t, FF_PF_TEST_PEAK_FRACTION, false, 0.0, 0.0, 1e3,
                           "a fraction from 0 to 1000", &out->peak_fraction));
    TRY(ff_json_get_bool(&tc, t, FF_PF_TEST_PEAK_OF_FP32, false, &out->peak_of_fp32));
    TRY(ff_json_get_double(&tc, t, FF_PF_TEST_PEAK_PAIRED, false, 0.0, 0.0, FF_PROFILE_MAX_RATE,
                           "a rate from 0 to 1e21 FLOP/s or OP/s", &out->peak_paired));
    return FF_OK;
}

static int read_device(struct ff_json_ctx *c, json_object *d, struct ff_profile_device *out)
{
    struct ff_json_ctx dc = *c;
    dc.prefix = FF_PF_DEVICE ".";
    TRY(ff_json_get_string(&dc, d, FF_PF_DEVICE_BACKEND, false, NULL, &out->backend));
    TRY(ff_json_get_string(&dc, d, FF_PF_DEVICE_PLATFORM, false, NULL, &out->platform));
    TRY(ff_json_get_string(&dc, d, FF_PF_DEVICE_NAME, false, NULL, &out->name));
    TRY(ff_json_get_string(&dc, d, FF_PF_DEVICE_VENDOR, false, NULL, &out->vendor));
    TRY(ff_json_get_string(&dc, d, FF_PF_DEVICE_DRIVER_VERSION, false, NULL, &out->driver_version));
    TRY(ff_json_get_string(&dc, d, FF_PF_DEVICE_API_VERSION, false, NULL, &out->api_version));
    TRY(ff_json_get_string(&dc, d, FF_PF_DEVICE_TYPE, false, NULL, &out->type));
    TRY(ff_json_get_u64(&dc, d, FF_PF_DEVICE_COMPUTE_UNITS, COUNT_MAX, COUNT_EXPECTED,
                        &out->compute_units));
    TRY(ff_json_get_u64(&dc, d, FF_PF_DEVICE_CLOCK_MHZ, 1e6, "a clock from 0 to 1e6 MHz",
                        &out->clock_mhz));
    TRY(ff_json_get_u64(&dc, d, FF_PF_DEVICE_GLOBAL_MEM_BYTES, FF_PROFILE_MAX_BYTE_COUNT,
                        BYTES_EXPECTED, &out->global_mem_bytes));
    TRY(ff_json_get_u64(&dc, d, FF_PF_DEVICE_MAX_ALLOC_BYTES, FF_PROFILE_MAX_BYTE_COUNT,
                        BYTES_EXPECTED, &out->max_alloc_bytes));
    TRY(ff_json_get_u64(&dc, d, FF_PF_DEVICE_BUDGET_BYTES, FF_PROFILE_MAX_BYTE_COUNT,
                        BYTES_EXPECTED, &out->budget_bytes));
    TRY(ff_json_get_bool(&dc, d, FF_PF_DEVICE_HOST_SHARED_MEMORY, false, &out->host_shared_memory));
    json_object *f = NULL;
    TRY(ff_json_get_object(&dc, d, FF_PF_DEVICE_FEATURES, false, &f));
    if (f) {
        dc.prefix = FF_PF_DEVICE "." FF_PF_DEVICE_FEATURES ".";
        TRY(ff_json_get_bool(&dc, f, FF_PF_FEATURE_FP16, false, &out->features.fp16));
        TRY(ff_json_get_bool(&dc, f, FF_PF_FEATURE_INT8, false, &out->features.int8));
        TRY(ff_json_get_bool(&dc, f, FF_PF_FEATURE_INT8_DOT, false, &out->features.int8_dot));
        TRY(ff_json_get_bool(&dc, f, FF_PF_FEATURE_COOPMAT, false, &out->features.coopmat));
    }
    json_object *ov = NULL;
    dc.prefix = FF_PF_DEVICE ".";
    TRY(ff_json_get_object(&dc, d, FF_PF_DEVICE_OVERRIDES, false, &ov));
    if (ov) {
        dc.prefix = FF_PF_DEVICE "." FF_PF_DEVICE_OVERRIDES ".";
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
static int read_header(struct ff_json_ctx *c, json_object *root, struct ff_profile_info *info)
{
    info->struct_size = sizeof(*info);
    json_object *v = ff_json_member(root, FF_PF_SCHEMA);
    if (!v || !json_object_is_type(v, json_type_string) ||
        strcmp(json_object_get_string(v), FF_PF_SCHEMA_ID) != 0)
        return bad(c, FF_PF_SCHEMA, v, "\"" FF_PF_SCHEMA_ID "\"");
    v = ff_json_member(root, FF_PF_SCHEMA_VERSION);
    if (!v || !json_object_is_type(v, json_type_string) ||
        !parse_version(json_object_get_string(v), &info->version_major, &info->version_minor))
        return bad(c, FF_PF_SCHEMA_VERSION, v, "a string such as \"" FF_PF_VERSION_WRITTEN "\"");
    info->schema_version = json_object_get_string(v);
    if (info->version_major != FF_PF_VERSION_MAJOR)
        return ff_errf(c->err, c->errlen, FF_ERR_UNSUPPORTED,
                       "%s: schema_version %s is not supported (this flopfit reads %d.x)", c->label,
                       info->schema_version, FF_PF_VERSION_MAJOR);

    json_object *o = NULL;
    TRY(ff_json_get_object(c, root, FF_PF_TOOL, false, &o));
    if (o) {
        struct ff_json_ctx sc = *c;
        sc.prefix = FF_PF_TOOL ".";
        TRY(ff_json_get_string(&sc, o, FF_PF_TOOL_NAME, false, NULL, &info->tool_name));
        TRY(ff_json_get_string(&sc, o, FF_PF_TOOL_VERSION, false, NULL, &info->tool_version));
        TRY(ff_json_get_string(&sc, o, FF_PF_TOOL_GIT, false, NULL, &info->tool_git));
    }
    TRY(ff_json_get_string(c, root, FF_PF_CREATED, false, NULL, &info->created));
    TRY(ff_json_get_object(c, root, FF_PF_HOST, false, &o));
    if (o) {
        struct ff_json_ctx sc = *c;
        sc.prefix = FF_PF_HOST ".";
        TRY(ff_json_get_string(&sc, o, FF_PF_HOST_OS, false, NULL, &info->host.os));
        TRY(ff_json_get_string(&sc, o, FF_PF_HOST_KERNEL, false, NULL, &info->host.kernel));
        TRY(ff_json_get_string(&sc, o, FF_PF_HOST_CPU, false, NULL, &info->host.cpu));
        TRY(ff_json_get_u64(&sc, o, FF_PF_HOST_CPUS, COUNT_MAX, COUNT_EXPECTED, &info->host.cpus));
        TRY(ff_json_get_u64(&sc, o, FF_PF_HOST_RAM_BYTES, FF_PROFILE_MAX_BYTE_COUNT, BYTES_EXPECTED,
                            &info->host.ram_bytes));
    }
    TRY(ff_json_get_object(c, root, FF_PF_DEVICE, true, &o));
    TRY(read_device(c, o, &info->device));
    TRY(ff_json_get_bool(c, root, FF_PF_COMPLETE, false, &info->complete));
    struct ff_json_ctx dc = *c;
    dc.prefix = FF_PF_DEVICE ".";
    TRY(ff_json_get_string(&dc, o, FF_PF_DEVICE_ID, false, NULL, &info->device_id));
    TRY(ff_json_get_string(c, root, FF_PF_CONTENT_HASH, false, NULL, &info->content_hash));
    return FF_OK;
}

/* "run" (1.1): its kind and the command line, each argument a string. */
static int read_run(struct ff_json_ctx *c, json_object *root, struct ff_profile_doc *doc)
{
    json_object *run = NULL, *argv = NULL;
    TRY(ff_json_get_object(c, root, FF_PF_RUN, false, &run));
    if (!run)
        return FF_OK;
    struct ff_json_ctx rc = *c;
    rc.prefix = FF_PF_RUN ".";
    TRY(ff_json_get_string(&rc, run, FF_PF_RUN_KIND, false, NULL, &doc->info.run_kind));
    TRY(ff_json_get_array(&rc, run, FF_PF_RUN_ARGV, false, "an array of strings", &argv));
    size_t n = argv ? json_object_array_length(argv) : 0;
    if (n == 0)
        return FF_OK;
    if (n > 4096)
        return bad(&rc, FF_PF_RUN_ARGV, argv, "at most 4096 arguments");
    doc->argv = calloc(n, sizeof(*doc->argv));
    if (!doc->argv)
        return ff_errf(c->err, c->errlen, FF_ERR_NO_MEMORY, "%s: out of memory", c->label);
    for (size_t i = 0; i < n; i++) {
        json_object *a = json_object_array_get_idx(argv, i);
        if (!json_object_is_type(a, json_type_string)) {
            char key[48];
            snprintf(key, sizeof(key), FF_PF_RUN_ARGV "[%zu]", i);
            return bad(&rc, key, a, "a string");
        }
        doc->argv[i] = json_object_get_string(a);
    }
    doc->info.run_argv = doc->argv;
    doc->info.run_argc = n;
    return FF_OK;
}

static int build(struct ff_profile_doc *doc, char *err, size_t errlen)
{
    struct ff_json_ctx c = {doc->label, "", err, errlen, NULL};
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

    TRY(read_run(&c, root, doc));

    json_object *tests = ff_json_member(root, FF_PF_TESTS);
    if (!tests || !json_object_is_type(tests, json_type_array))
        return bad(&c, FF_PF_TESTS, tests, "an array");
    /* computed once, here: an open document is immutable and may be shared by threads */
    int hrc = ff_json_content_hash(ff_json_member(root, FF_PF_DEVICE), tests, doc->hash,
                                   sizeof(doc->hash));
    if (hrc != FF_OK)
        return ff_errf(err, errlen, hrc, "%s: out of memory for its content hash", doc->label);
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
        struct ff_json_ctx tc = c;
        tc.prefix = where;
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
    free(doc->argv);
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

int ff_profile_content_hash(const struct ff_profile_doc *prof, char out[FF_PROFILE_HASH_MAX])
{
    if (!prof || !out)
        return FF_ERR_INVALID;
    memcpy(out, prof->hash, FF_PROFILE_HASH_MAX);
    return FF_OK;
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
    json_object *v = ff_json_member(prof->test_objs[i], key);
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
