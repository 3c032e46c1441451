/* bench/profile_json.c — profile -> JSON, and the atomic file writer. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
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
    add_num(o, "median", med);
    add_num(o, "min", min);
    add_num(o, "max", max);
    return o;
}

static struct json_object *result_json(const struct ff_result *r)
{
    struct json_object *o = json_object_new_object();
    add_str(o, "family", r->family);
    add_str(o, "name", r->name);
    add_str(o, "impl", r->impl);
    if (r->prec >= 0)
        add_str(o, "precision", ff_precision_name(r->prec));
    if (r->variant[0])
        add_str(o, "variant", r->variant);
    if (r->m) {
        struct json_object *s = json_object_new_object();
        add_u64(s, "m", r->m);
        add_u64(s, "n", r->n);
        add_u64(s, "k", r->k);
        json_object_object_add(o, "shape", s);
    }
    if (r->bytes)
        add_u64(o, "bytes", r->bytes);
    add_str(o, "status", ff_res_status_name(r->status));
    if (r->status != FF_RES_OK)
        add_str(o, "reason", r->reason);
    json_object_object_add(o, "verified", json_object_new_boolean(r->verified));
    if (r->has_error) {
        struct json_object *e = json_object_new_object();
        add_num(e, "max_abs", r->max_abs);
        add_num(e, "max_rel", r->max_rel);
        add_num(e, "tolerance", r->tolerance);
        json_object_object_add(o, "error", e);
    }
    if (r->has_timing) {
        add_u64(o, "repetitions", r->t.reps);
        json_object_object_add(o, "device_time_s",
                               times(r->t.dev_median_s, r->t.dev_min_s, r->t.dev_max_s));
        json_object_object_add(o, "wall_time_s",
                               times(r->t.wall_median_s, r->t.wall_min_s, r->t.wall_max_s));
    }
    /* A figure only for a measured, verified result: never 0 for "missing". */
    if (r->status == FF_RES_OK) {
        add_num(o, "value", r->value);
        add_str(o, "unit", r->unit);
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

struct json_object *ff_profile_to_json(const struct ff_profile *p, const struct ff_host *host,
                                       const char *created_utc)
{
    struct json_object *root = json_object_new_object();
    add_str(root, "schema", FF_PROFILE_SCHEMA);
    add_str(root, "schema_version", FF_PROFILE_VERSION);
    struct json_object *tool = json_object_new_object();
    add_str(tool, "name", "flopfit");
    add_str(tool, "version", FF_VERSION);
    add_str(tool, "git", FF_GIT_REV);
    json_object_object_add(root, "tool", tool);
    add_str(root, "created", created_utc);

    struct json_object *h = json_object_new_object();
    add_str(h, "os", host->os);
    add_str(h, "kernel", host->kernel);
    add_str(h, "cpu", host->cpu);
    add_u64(h, "cpus", host->cpus);
    add_u64(h, "ram_bytes", host->ram_bytes);
    json_object_object_add(root, "host", h);

    const struct ff_device_info *i = &p->info;
    struct json_object *d = json_object_new_object();
    add_str(d, "backend", i->backend);
    add_str(d, "platform", i->platform);
    add_str(d, "name", i->name);
    add_str(d, "vendor", i->vendor);
    add_str(d, "driver_version", i->driver_version);
    add_str(d, "api_version", i->api_version);
    add_str(d, "type", i->type);
    add_u64(d, "compute_units", i->compute_units);
    if (i->clock_mhz)
        add_u64(d, "clock_mhz", i->clock_mhz);
    add_u64(d, "global_mem_bytes", i->global_mem_bytes);
    add_u64(d, "max_alloc_bytes", i->max_alloc_bytes);
    if (i->budget_bytes)
        add_u64(d, "budget_bytes", i->budget_bytes);
    json_object_object_add(d, "host_shared_memory", json_object_new_boolean(i->host_shared_memory));
    struct json_object *f = json_object_new_object();
    json_object_object_add(f, "fp16", json_object_new_boolean(i->fp16));
    json_object_object_add(f, "int8", json_object_new_boolean(i->int8));
    json_object_object_add(f, "int8_dot", json_object_new_boolean(i->int8_dot));
    json_object_object_add(f, "coopmat", json_object_new_boolean(i->coopmat));
    json_object_object_add(d, "features", f);
    json_object_object_add(root, "device", d);

    json_object_object_add(root, "complete", json_object_new_boolean(p->complete));
    struct json_object *tests = json_object_new_array();
    for (size_t k = 0; k < p->n_results; k++)
        json_object_array_add(tests, result_json(&p->results[k]));
    json_object_object_add(root, "tests", tests);
    return root;
}
