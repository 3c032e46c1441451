/*
 * estimate/src/device_profile.c — a device profile written by `flopfit bench`
 * (results/SCHEMA.md, flopfit.profile 1.x) read into a struct ff_spec.
 *
 * Measured figures replace datasheet ones: per precision the best verified matmul value
 * over all implementations, usable memory from the memory/usable test, bandwidth from the
 * best bandwidth read/copy test. Missing figures stay 0 and are listed in notes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "flopfit/spec.h"
#include "flopfit/status.h"
#include "internal.h"

static const char *str_of(json_object *o, const char *key)
{
    json_object *v = NULL;
    if (o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string))
        return json_object_get_string(v);
    return NULL;
}

static bool num_of(json_object *o, const char *key, double *out)
{
    json_object *v = NULL;
    if (!o || !json_object_object_get_ex(o, key, &v))
        return false;
    if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
        return false;
    *out = json_object_get_double(v);
    return *out > 0.0;
}

static void note(struct ff_spec *d, const char *text)
{
    size_t used = strlen(d->notes);
    snprintf(d->notes + used, sizeof(d->notes) - used, "%s%s", used ? "; " : "", text);
}

static bool bool_of(json_object *o, const char *key)
{
    json_object *v = NULL;
    return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_boolean) &&
           json_object_get_boolean(v);
}

int ff_spec_from_profile(const char *path, struct ff_spec *out, char *err, size_t errlen)
{
    if (!path || !out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no profile path");
    int rc = FF_OK;
    FILE *f = fopen(path, "rb");
    if (!f)
        return ff_errf(err, errlen, FF_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    fclose(f);
    json_object *root = json_object_from_file(path);
    if (!root)
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: not valid JSON (%s)", path,
                       json_util_get_last_err() ? json_util_get_last_err() : "parse error");
    const char *schema = str_of(root, "schema");
    const char *version = str_of(root, "schema_version");
    if (!schema || strcmp(schema, "flopfit.profile") != 0) {
        rc = ff_errf(err, errlen, FF_ERR_INVALID,
                     "%s: field \"schema\" is %s%s%s (expected \"flopfit.profile\")", path,
                     schema ? "\"" : "", schema ? schema : "missing", schema ? "\"" : "");
        goto error_root;
    }
    if (!version || strncmp(version, "1.", 2) != 0) {
        rc = ff_errf(err, errlen, FF_ERR_UNSUPPORTED,
                     "%s: schema_version %s is not supported (this flopfit reads 1.x)", path,
                     version ? version : "(missing)");
        goto error_root;
    }
    json_object *dev = NULL, *tests = NULL;
    if (!json_object_object_get_ex(root, "device", &dev) ||
        !json_object_is_type(dev, json_type_object)) {
        rc = ff_errf(err, errlen, FF_ERR_INVALID,
                     "%s: field \"device\" is missing (expected an object)", path);
        goto error_root;
    }
    if (!json_object_object_get_ex(root, "tests", &tests) ||
        !json_object_is_type(tests, json_type_array)) {
        rc = ff_errf(err, errlen, FF_ERR_INVALID,
                     "%s: field \"tests\" is missing (expected an array)", path);
        goto error_root;
    }

    struct ff_spec d;
    memset(&d, 0, sizeof(d));
    d.measured = true;
    const char *base = strrchr(path, '/');
    ff_strlcpy(d.slug, base ? base + 1 : path, sizeof(d.slug));
    char *dot = strrchr(d.slug, '.');
    if (dot && dot != d.slug)
        *dot = '\0';
    const char *name = str_of(dev, "name");
    const char *backend = str_of(dev, "backend");
    snprintf(d.name, sizeof(d.name), "%s%s%s%s", name ? name : "unnamed device",
             backend ? " (" : "", backend ? backend : "", backend ? ")" : "");
    snprintf(d.source, sizeof(d.source), "measured profile %s", path);

    double usable = 0.0, bw = 0.0;
    bool usable_stopped = false; /* the probe hit its cap or time limit: a lower bound */
    size_t n = json_object_array_length(tests);
    for (size_t i = 0; i < n; i++) {
        json_object *t = json_object_array_get_idx(tests, i);
        const char *family = str_of(t, "family"), *tname = str_of(t, "name");
        const char *status = str_of(t, "status"), *prec = str_of(t, "precision");
        json_object *ver = NULL;
        bool verified = json_object_object_get_ex(t, "verified", &ver) &&
                        json_object_is_type(ver, json_type_boolean) && json_object_get_boolean(ver);
        double value;
        if (!family || !status || strcmp(status, "ok") != 0 || !num_of(t, "value", &value))
            continue;
        if (strcmp(family, "matmul") == 0 && verified && prec) {
            enum ff_precision p;
            if (ff_precision_parse(prec, &p) == FF_OK && value > d.flops_per_s[p])
                d.flops_per_s[p] = value;
        } else if (strcmp(family, "memory") == 0 && tname && strcmp(tname, "usable") == 0) {
            if (value > usable) {
                usable = value;
                usable_stopped = bool_of(t, "capped") || bool_of(t, "time_limited");
            }
        } else if (strcmp(family, "bandwidth") == 0 && tname &&
                   (strcmp(tname, "read") == 0 || strcmp(tname, "copy") == 0)) {
            if (value > bw)
                bw = value;
        }
    }
    double global = 0.0;
    if (usable > 0.0 && usable_stopped && num_of(dev, "global_mem_bytes", &global) &&
        global > usable) {
        /* A probe stopped by its cap or time limit (e.g. bench --quick) proved only a lower
         * bound; the driver's figure is the better plan, and the note says so. */
        char text[200];
        snprintf(text, sizeof(text),
                 "usable-memory probe stopped by its limit at %.2f GiB (a lower bound): "
                 "using the driver's %.2f GiB",
                 usable / 1073741824.0, global / 1073741824.0);
        d.mem_bytes = global;
        note(&d, text);
    } else if (usable > 0.0) {
        d.mem_bytes = usable;
    } else if (num_of(dev, "global_mem_bytes", &global)) {
        d.mem_bytes = global;
        note(&d, "usable memory not measured: using the driver's global_mem_bytes");
    } else {
        note(&d, "missing: usable memory (no memory/usable test, no device.global_mem_bytes)");
    }
    d.bandwidth_bytes_per_s = bw;
    if (bw <= 0.0)
        note(&d, "missing: bandwidth (no ok bandwidth read/copy test)");
    if (d.flops_per_s[FF_PREC_BF16] <= 0.0 && d.flops_per_s[FF_PREC_FP16] > 0.0) {
        d.flops_per_s[FF_PREC_BF16] = d.flops_per_s[FF_PREC_FP16];
        note(&d, "bf16 rate taken from the measured fp16 matmul");
    }
    if (d.flops_per_s[FF_PREC_FP32] <= 0.0)
        note(&d, "missing: fp32 matmul rate (no verified ok matmul fp32 test)");
    if (d.flops_per_s[FF_PREC_FP16] <= 0.0)
        note(&d, "missing: fp16/bf16 matmul rate (no verified ok matmul fp16 test)");
    if (d.flops_per_s[FF_PREC_INT8] <= 0.0)
        note(&d, "missing: int8 matmul rate (no verified ok matmul int8 test)");
    *out = d;
error_root:
    json_object_put(root);
    return rc;
}
