/*
 * results/src/out_json.c — the results as JSON ("flopfit.results" 1.0, described by
 * tests/results/results.schema.json): every device with each metric's status, figure, spread
 * and reasons, the estimator's columns, the roofline's roofs and points and the op rows
 * (ops.c). A figure that
 * does not exist has no "value" member, never 0.
 */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include <flopfit/precision.h>
#include <flopfit/status.h>

#include "results_impl.h"

static const char *const state_names[] = {
    [FF_PUB_ABSENT] = "not_measured",
    [FF_PUB_OK] = FF_PF_STATUS_OK,
    [FF_PUB_UNSUPPORTED] = FF_PF_STATUS_UNSUPPORTED,
    [FF_PUB_FAILED] = FF_PF_STATUS_FAILED,
};

static void put_str(json_object *o, const char *key, const char *v)
{
    json_object_object_add(o, key, ff_pub_json_text(v));
}

static void put_num(json_object *o, const char *key, double v)
{
    json_object_object_add(o, key, json_object_new_double(v));
}

static json_object *figure_json(const struct ff_pub_figure *f, int m)
{
    const struct ff_pub_metric_info *mi = &ff_pub_metrics()[m];
    json_object *o = json_object_new_object();
    put_str(o, "status", state_names[f->state]);
    put_str(o, "unit", mi->unit);
    if (f->state != FF_PUB_OK) {
        if (f->reason[0])
            put_str(o, "reason", f->reason);
        return o;
    }
    put_num(o, "value", f->value);
    put_num(o, "min", f->min);
    put_num(o, "max", f->max);
    json_object_object_add(o, "runs", json_object_new_int(f->runs));
    json_object_object_add(
        o, "high_spread",
        json_object_new_boolean(f->value > 0 && (f->max - f->min) / f->value > FF_PUB_HIGH_SPREAD));
    put_str(o, "test", f->name);
    if (m < FF_PUB_N_MATMUL) {
        put_str(o, "impl", f->impl);
        json_object_object_add(o, "n", json_object_new_int64((int64_t)f->size));
    }
    if (m == FF_PUB_USABLE)
        json_object_object_add(o, "lower_bound",
                               json_object_new_boolean(f->capped || f->time_limited));
    return o;
}

static json_object *roofline_json(const struct ff_pub_device *d)
{
    json_object *o = json_object_new_object(), *roofs = json_object_new_object();
    for (int m = 0; m < FF_PUB_N_MATMUL; m++)
        if (d->fig[m].state == FF_PUB_OK)
            put_num(roofs, ff_pub_metrics()[m].id, d->fig[m].value);
    json_object_object_add(o, "roofs", roofs);
    if (d->has_spec)
        put_num(o, "bandwidth_bytes_per_s", d->spec.bandwidth_bytes_per_s);
    json_object *pts = json_object_new_array();
    for (size_t i = 0; i < d->n_points; i++) {
        const struct ff_pub_point *p = &d->points[i];
        json_object *pt = json_object_new_object();
        put_str(pt, "model", p->model);
        json_object_object_add(pt, "batch", json_object_new_int64(p->batch));
        put_num(pt, "flop_per_byte", p->intensity);
        put_num(pt, "flop_per_s", p->rate);
        json_object_object_add(pt, "fits", json_object_new_boolean(p->fits));
        json_object_array_add(pts, pt);
    }
    json_object_object_add(o, "decode_points", pts);
    return o;
}

/* The device's op rows (ops.c): a row without a figure has "status" and "reason", no value. */
static json_object *ops_json(const struct ff_pub_device *d)
{
    json_object *arr = json_object_new_array();
    for (size_t i = 0; i < d->n_ops; i++) {
        const struct ff_pub_op *op = &d->ops[i];
        json_object *o = json_object_new_object(), *shape = json_object_new_object();
        put_str(o, "op", op->name);
        put_str(o, "precision", op->precision);
        const char *const keys[] = {"m", "n", "k", "g"};
        const uint64_t part[] = {op->m, op->n, op->k, op->g};
        for (size_t k = 0; k < 4; k++)
            if (part[k])
                json_object_object_add(shape, keys[k], json_object_new_int64((int64_t)part[k]));
        json_object_object_add(o, "shape", shape);
        if (op->bytes)
            json_object_object_add(o, "bytes", json_object_new_int64((int64_t)op->bytes));
        put_str(o, "status", state_names[op->state]);
        if (op->state != FF_PUB_OK) {
            put_str(o, "reason", op->reason);
            json_object_array_add(arr, o);
            continue;
        }
        put_str(o, "unit", op->unit);
        put_num(o, "value", op->value);
        put_num(o, "min", op->min);
        put_num(o, "max", op->max);
        json_object_object_add(o, "runs", json_object_new_int(op->runs));
        if (op->time_s > 0)
            put_num(o, "median_s", op->time_s);
        if (op->has_fraction) {
            put_num(o, "read_fraction", op->read_fraction);
            put_num(o, "read_fraction_min", op->fraction_min);
            put_num(o, "read_fraction_max", op->fraction_max);
        }
        json_object_array_add(arr, o);
    }
    return arr;
}

static json_object *device_json(const struct ff_pub_set *set, const struct ff_pub_device *d)
{
    const struct ff_profile_info *in = d->info;
    json_object *o = json_object_new_object();
    put_str(o, "device", in->device.name);
    put_str(o, "vendor", in->device.vendor);
    put_str(o, "backend", in->device.backend);
    put_str(o, "platform", in->device.platform);
    put_str(o, "driver", in->device.driver_version);
    put_str(o, "type", in->device.type);
    put_str(o, "slug", d->slug);
    put_str(o, "flopfit_version", in->tool_version);
    put_str(o, "flopfit_git", in->tool_git);
    put_str(o, "created", in->created);
    put_str(o, "run", d->runs[d->n_runs - 1]->kind);
    put_str(o, "device_id", in->device_id);
    put_str(o, "flopfit_minor", d->runs[d->n_runs - 1]->tool_minor);
    json_object *profiles = json_object_new_array();
    for (size_t r = 0; r < d->n_runs; r++)
        json_object_array_add(profiles, ff_pub_json_text(ff_pub_run_path(set, d->runs[r])));
    json_object_object_add(o, "profiles", profiles);
    json_object *metrics = json_object_new_object();
    for (int m = 0; m < FF_PUB_METRIC_COUNT; m++)
        json_object_object_add(metrics, ff_pub_metrics()[m].id, figure_json(&d->fig[m], m));
    json_object_object_add(o, "metrics", metrics);
    json_object *ds = NULL;
    if (d->has_datasheet) {
        ds = json_object_new_object();
        put_str(ds, "slug", d->datasheet.slug);
        put_str(ds, "source", d->datasheet.source);
        json_object *pct = json_object_new_object();
        for (int m = 0; m < FF_PUB_N_MATMUL; m++) {
            double peak = d->datasheet.flops_per_s[ff_pub_metrics()[m].prec];
            if (peak > 0 && d->fig[m].state == FF_PUB_OK)
                put_num(pct, ff_pub_metrics()[m].id, 100.0 * d->fig[m].value / peak);
        }
        json_object_object_add(ds, "percent", pct);
    }
    json_object_object_add(o, "datasheet", ds);
    json_object *sv = json_object_new_object();
    put_str(sv, "model", d->serves.state == FF_OK ? d->serves.model : NULL);
    if (d->serves.state == FF_OK) {
        put_str(sv, "precision", ff_precision_name((enum ff_precision)d->serves.prec));
        put_num(sv, "params", d->serves.params);
        put_num(sv, "tokens_per_s", d->serves.tokens_per_s);
        json_object_object_add(sv, "fit_proven", json_object_new_boolean(!d->serves.unproven));
        if (d->serves.unproven)
            put_str(sv, "note", d->serves.note);
    } else {
        put_str(sv, "note", d->serves.note);
    }
    json_object_object_add(o, "serves", sv);
    json_object_object_add(o, "roofline", roofline_json(d));
    json_object_object_add(o, "ops", ops_json(d));
    return o;
}

int ff_pub_write_json(const struct ff_pub_set *set, struct ff_pub_sb *out)
{
    json_object *root = json_object_new_object();
    if (!root)
        return FF_ERR_NO_MEMORY;
    put_str(root, "schema", "flopfit.results");
    put_str(root, "schema_version", "1.0");
    put_str(root, "serve_plan", ff_pub_serve_plan_text());
    json_object *devs = json_object_new_array();
    for (size_t i = 0; i < set->n_devices; i++)
        json_object_array_add(devs, device_json(set, &set->devices[i]));
    json_object_object_add(root, "devices", devs);
    json_object *skipped = json_object_new_array();
    for (size_t i = 0; i < set->n_skipped; i++) {
        json_object *s = json_object_new_object();
        put_str(s, "path", set->skipped[i].path);
        put_str(s, "reason", set->skipped[i].reason);
        json_object_array_add(skipped, s);
    }
    json_object_object_add(root, "skipped", skipped);
    const char *text = json_object_to_json_string_ext(
        root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
    int rc = text ? FF_OK : FF_ERR_NO_MEMORY;
    if (text) {
        ff_pub_sb_json(out, text);
        ff_pub_sb_puts(out, "\n");
    }
    json_object_put(root);
    return rc ? rc : ff_pub_sb_status(out);
}
