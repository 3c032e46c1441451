/*
 * estimate/cli/resolve.c — what the model and device arguments of `flopfit estimate` name:
 * --params N (a rough shape), a Hugging Face config.json, a preset; a measured --profile or a
 * catalog --device, with close matches for a name that is not there.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "estcli.h"

/* An unknown name for option `opt`, what it accepts and the close matches found (near, may
 * be empty), in the bad-value form bench uses (ff_bad_value). */
static int unknown(const char *opt, const char *name, const char *accepted, const char *near)
{
    char what[512], err[1024];
    snprintf(what, sizeof(what), "%s%s%s%s", accepted, near[0] ? "; did you mean " : "", near,
             near[0] ? "?" : "");
    ff_bad_value(err, sizeof(err), opt, name, what);
    return ff_estcli_usage_error("%s", err);
}

int ff_estcli_model(const struct ff_estcli_opts *o, struct ff_model *m)
{
    char err[512];
    if (o->model_arg && o->params > 0)
        return ff_estcli_usage_error("give either --model or --params, not both");
    if (!o->model_arg && !(o->params > 0))
        return ff_estcli_usage_error(
            "no model: give --model NAME, --model config.json or --params N");
    ff_model_init(m);
    if (o->params > 0) {
        int rc = ff_model_rough(o->params, m, err, sizeof(err));
        return rc == FF_OK ? 0 : ff_estcli_fail(rc, err);
    }
    int rc = ff_model_resolve(o->model_arg, m, err, sizeof(err));
    if (rc != FF_ERR_NOT_FOUND)
        return rc == FF_OK ? 0 : ff_estcli_fail(rc, err);
    char near[256];
    ff_model_suggest(o->model_arg, near, sizeof(near), 4);
    return unknown("--model", o->model_arg,
                   "a preset (--list-models shows all), a config.json or a model folder", near);
}

int ff_estcli_profile(const char *path, struct ff_spec *d)
{
    char err[512];
    ff_spec_init(d);
    int rc = ff_spec_from_profile(path, d, err, sizeof(err));
    return rc == FF_OK ? 0 : ff_estcli_fail(rc, err);
}

int ff_estcli_device(const struct ff_estcli_opts *o, struct ff_spec *d)
{
    if (o->n_profiles == 1)
        return ff_estcli_profile(o->profiles[0], d);
    ff_spec_init(d);
    if (ff_spec_find(o->device_arg, d) == FF_OK)
        return 0;
    char near[256];
    ff_spec_suggest(o->device_arg, near, sizeof(near), 4);
    return unknown("--device", o->device_arg,
                   "a catalog device (--list-devices shows all) or all; --profile FILE reads a "
                   "measured one",
                   near);
}

void ff_estcli_apply_nodes(const struct ff_estcli_opts *o, const struct ff_spec *d,
                           struct ff_plan *p)
{
    if (o->nodes > 0 && p->gpus_per_node <= 0)
        p->gpus = o->nodes * (d->gpus_per_node > 0 ? d->gpus_per_node : 8);
}
