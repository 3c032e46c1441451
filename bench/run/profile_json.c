/* bench/run/profile_json.c — a measured profile as JSON (field names: flopfit/profile_fields.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "git_rev.h"
#include "ff_json.h"
#include "profile_json.h"

static void add_str(struct json_object *o, const char *k, const char *v)
{
    json_object_object_add(o, k, json_object_new_string(v));
}

static void add_u64(struct json_object *o, const char *k, uint64_t v)
{
    json_object_object_add(o, k, json_object_new_int64((int64_t)v));
}

/* Seven significant digits: more than any timing here can claim, and no
 * json-c "%.17g" noise such as 0.69999999999999996 in published files. */
static void add_num(struct json_object *o, const char *k, double v)
{
    if (v == floor(v) && fabs(v) < 9e15) { /* byte counts stay exact */
        json_object_object_add(o, k, json_object_new_int64((int64_t)v));
        return;
    }
    char text[32];
    snprintf(text, sizeof(text), "%.7g", v);
    json_object_object_add(o, k, isfinite(v) ? json_object_new_double_s(v, text) : NULL);
}

static struct json_object *times(double med, double min, double max)
{
    struct json_object *o = json_object_new_object();
    add_num(o, FF_PF_TIME_MEDIAN, med);
    add_num(o, FF_PF_TIME_MIN, min);
    add_num(o, FF_PF_TIME_MAX, max);
    return o;
}

struct json_object *ff_result_to_json(const struct ff_result *r)
{
    struct json_object *o = json_object_new_object();
    add_str(o, FF_PF_TEST_FAMILY, r->family);
    add_str(o, FF_PF_TEST_NAME, r->name);
    add_str(o, FF_PF_TEST_IMPL, r->impl);
    if (r->prec >= 0)
        add_str(o, FF_PF_TEST_PRECISION, ff_precision_name(r->prec));
    if (r->variant[0])
        add_str(o, FF_PF_TEST_VARIANT, r->variant);
    if (r->m) {
        struct json_object *s = json_object_new_object();
        add_u64(s, FF_PF_SHAPE_M, r->m);
        add_u64(s, FF_PF_SHAPE_N, r->n);
        add_u64(s, FF_PF_SHAPE_K, r->k);
        if (r->g)
            add_u64(s, FF_PF_SHAPE_G, r->g);
        json_object_object_add(o, FF_PF_TEST_SHAPE, s);
    }
    if (r->bytes)
        add_u64(o, FF_PF_TEST_BYTES, r->bytes);
    if (r->scope[0])
        add_str(o, FF_PF_TEST_SCOPE, r->scope);
    add_str(o, FF_PF_TEST_STATUS, ff_res_status_name(r->status));
    if (r->status != FF_RES_OK)
        add_str(o, FF_PF_TEST_REASON, r->reason);
    json_object_object_add(o, FF_PF_TEST_VERIFIED, json_object_new_boolean(r->verified));
    if (r->has_error) {
        struct json_object *e = json_object_new_object();
        add_num(e, FF_PF_ERROR_MAX_ABS, r->max_abs);
        add_num(e, FF_PF_ERROR_MAX_REL, r->max_rel);
        add_num(e, FF_PF_ERROR_TOLERANCE, r->tolerance);
        json_object_object_add(o, FF_PF_TEST_ERROR, e);
    }
    if (r->has_timing) {
        add_u64(o, FF_PF_TEST_REPETITIONS, r->t.reps);
        json_object_object_add(o, FF_PF_TEST_DEVICE_TIME_S,
                               times(r->t.dev_median_s, r->t.dev_min_s, r->t.dev_max_s));
        json_object_object_add(o, FF_PF_TEST_WALL_TIME_S,
                               times(r->t.wall_median_s, r->t.wall_min_s, r->t.wall_max_s));
    }
    /* A figure only for a measured, verified result: never 0 for "missing". */
    if (r->status == FF_RES_OK) {
        add_num(o, FF_PF_TEST_VALUE, r->value);
        add_str(o, FF_PF_TEST_UNIT, r->unit);
    }
    if (r->tune_source[0]) {
        struct json_object *tu = json_object_new_object();
        add_str(tu, FF_PF_TUNING_POINT, r->tune_point);
        add_str(tu, FF_PF_TUNING_SOURCE, r->tune_source);
        json_object_object_add(o, FF_PF_TEST_TUNING, tu);
    }
    for (size_t i = 0; i < r->n_extra; i++) {
        if (r->extra[i].is_bool)
            json_object_object_add(o, r->extra[i].key,
                                   json_object_new_boolean(r->extra[i].value != 0));
        else if (r->extra[i].value == floor(r->extra[i].value) && fabs(r->extra[i].value) < 9e15)
            add_u64(o, r->extra[i].key, (uint64_t)(int64_t)r->extra[i].value);
        else
            add_num(o, r->extra[i].key, r->extra[i].value);
    }
    return o;
}

struct json_object *ff_device_to_json(const struct ff_device_info *i, bool all_extras)
{
    struct json_object *d = json_object_new_object();
    add_str(d, FF_PF_DEVICE_BACKEND, i->backend);
    add_str(d, FF_PF_DEVICE_PLATFORM, i->platform);
    add_str(d, FF_PF_DEVICE_NAME, i->name);
    add_str(d, FF_PF_DEVICE_VENDOR, i->vendor);
    add_str(d, FF_PF_DEVICE_DRIVER_VERSION, i->driver_version);
    add_str(d, FF_PF_DEVICE_API_VERSION, i->api_version);
    add_str(d, FF_PF_DEVICE_TYPE, i->type);
    add_u64(d, FF_PF_DEVICE_COMPUTE_UNITS, i->compute_units);
    if (i->clock_mhz)
        add_u64(d, FF_PF_DEVICE_CLOCK_MHZ, i->clock_mhz);
    add_u64(d, FF_PF_DEVICE_GLOBAL_MEM_BYTES, i->global_mem_bytes);
    add_u64(d, FF_PF_DEVICE_MAX_ALLOC_BYTES, i->max_alloc_bytes);
    if (i->budget_bytes)
        add_u64(d, FF_PF_DEVICE_BUDGET_BYTES, i->budget_bytes);
    json_object_object_add(d, FF_PF_DEVICE_HOST_SHARED_MEMORY,
                           json_object_new_boolean(i->host_shared_memory));
    struct json_object *f = json_object_new_object();
    json_object_object_add(f, FF_PF_FEATURE_FP16, json_object_new_boolean(i->fp16));
    json_object_object_add(f, FF_PF_FEATURE_INT8, json_object_new_boolean(i->int8));
    json_object_object_add(f, FF_PF_FEATURE_INT8_DOT, json_object_new_boolean(i->int8_dot));
    json_object_object_add(f, FF_PF_FEATURE_COOPMAT, json_object_new_boolean(i->coopmat));
    json_object_object_add(d, FF_PF_DEVICE_FEATURES, f);
    /* The backends record each tuning override in effect as "override.<name>". */
    struct json_object *ov = json_object_new_object();
    static const char prefix[] = "override.";
    for (size_t k = 0; k < i->n_extra; k++)
        if (strncmp(i->extra[k].key, prefix, sizeof(prefix) - 1) == 0)
            add_str(ov, i->extra[k].key + sizeof(prefix) - 1, i->extra[k].value);
    json_object_object_add(d, FF_PF_DEVICE_OVERRIDES, ov);
    if (i->device_id[0])
        add_str(d, FF_PF_DEVICE_ID, i->device_id);
    if (all_extras) {
        struct json_object *all = json_object_new_object();
        for (size_t k = 0; k < i->n_extra; k++)
            add_str(all, i->extra[k].key, i->extra[k].value);
        json_object_object_add(d, "details", all);
    }
    return d;
}

struct json_object *ff_tool_json(void)
{
    struct json_object *tool = json_object_new_object();
    add_str(tool, FF_PF_TOOL_NAME, "flopfit");
    add_str(tool, FF_PF_TOOL_VERSION, FF_VERSION);
    add_str(tool, FF_PF_TOOL_GIT, FF_GIT_REV);
    return tool;
}

const char *ff_run_kind(bool quick, bool standard, bool restricted)
{
    if (quick)
        return FF_PF_RUN_KIND_QUICK;
    if (standard)
        return FF_PF_RUN_KIND_STANDARD;
    return restricted ? FF_PF_RUN_KIND_CUSTOM : FF_PF_RUN_KIND_FULL;
}

/* arg with $HOME written as "~" where it starts the argument or its value after '='. */
static struct json_object *typed_arg(const char *arg, const char *home)
{
    size_t h = home ? strlen(home) : 0;
    while (h > 1 && home[h - 1] == '/')
        h--;
    const char *eq = strchr(arg, '=');
    const char *at = NULL;
    if (h > 1 && strncmp(arg, home, h) == 0 && (arg[h] == '/' || arg[h] == 0))
        at = arg;
    else if (h > 1 && eq && strncmp(eq + 1, home, h) == 0 && (eq[h + 1] == '/' || eq[h + 1] == 0))
        at = eq + 1;
    if (!at)
        return json_object_new_string(arg);
    size_t pre = (size_t)(at - arg), len = strlen(arg);
    char *buf = malloc(len + 2);
    if (!buf)
        return NULL;
    snprintf(buf, len + 2, "%.*s~%s", (int)pre, arg, at + h);
    struct json_object *o = json_object_new_string(buf);
    free(buf);
    return o;
}

static struct json_object *run_json(const struct ff_run_record *rec)
{
    struct json_object *r = json_object_new_object();
    add_str(r, FF_PF_RUN_KIND, rec && rec->kind ? rec->kind : FF_PF_RUN_KIND_CUSTOM);
    struct json_object *argv = json_object_new_array();
    json_object_array_add(argv, json_object_new_string("flopfit"));
    const char *home = getenv("HOME");
    for (size_t i = 0; rec && i < rec->argc; i++)
        json_object_array_add(argv, typed_arg(rec->argv[i], home));
    json_object_object_add(r, FF_PF_RUN_ARGV, argv);
    return r;
}

struct json_object *ff_run_to_json(const struct ff_run *p, const struct ff_host *host,
                                   const char *created_utc, const struct ff_run_record *rec)
{
    struct json_object *root = json_object_new_object();
    add_str(root, FF_PF_SCHEMA, FF_PROFILE_SCHEMA);
    add_str(root, FF_PF_SCHEMA_VERSION, FF_PROFILE_VERSION);
    json_object_object_add(root, FF_PF_TOOL, ff_tool_json());
    add_str(root, FF_PF_CREATED, created_utc);
    json_object_object_add(root, FF_PF_RUN, run_json(rec));

    struct json_object *h = json_object_new_object();
    add_str(h, FF_PF_HOST_OS, host->os);
    add_str(h, FF_PF_HOST_KERNEL, host->kernel);
    add_str(h, FF_PF_HOST_CPU, host->cpu);
    add_u64(h, FF_PF_HOST_CPUS, host->cpus);
    add_u64(h, FF_PF_HOST_RAM_BYTES, host->ram_bytes);
    json_object_object_add(root, FF_PF_HOST, h);

    struct json_object *d = ff_device_to_json(&p->info, false);
    json_object_object_add(root, FF_PF_DEVICE, d);

    json_object_object_add(root, FF_PF_COMPLETE, json_object_new_boolean(p->complete));
    struct json_object *tests = json_object_new_array();
    for (size_t k = 0; k < p->n_results; k++)
        json_object_array_add(tests, ff_result_to_json(&p->results[k]));
    json_object_object_add(root, FF_PF_TESTS, tests);
    /* last, over what was just built: the reader recomputes it from the file (profile.c) */
    char hash[FF_JSON_HASH_MAX];
    if (ff_json_content_hash(d, tests, hash, sizeof(hash)) == FF_OK)
        add_str(root, FF_PF_CONTENT_HASH, hash);
    return root;
}
