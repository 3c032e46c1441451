/*
 * estimate/cli/resolve.c — what the model and device arguments of `flopfit estimate` name:
 * --params N (a rough shape), a Hugging Face config.json, a preset; a measured --profile or a
 * catalog --device, with close matches for a name that is not there.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "estimate_cli_impl.h"

static bool looks_like_path(const char *s)
{
    struct stat st;
    size_t n = strlen(s);
    return strchr(s, '/') || (n > 5 && !strcmp(s + n - 5, ".json")) || stat(s, &st) == 0;
}

/* An unknown name, the close matches found (near, may be empty) and where to look. */
static int unknown(const char *what, const char *name, const char *near, const char *hint)
{
    fprintf(stderr, "flopfit estimate: unknown %s \"%s\"%s%s%s\n  (flopfit estimate %s)\n", what,
            name, near[0] ? "; did you mean " : "", near, near[0] ? "?" : "", hint);
    return FF_ESTCLI_EXIT_USAGE;
}

int ff_estcli_model(const struct ff_estcli_opts *o, struct ff_model *m)
{
    char err[512];
    if (o->model_arg && o->params > 0)
        return ff_estcli_usage_error("give either --model or --params, not both");
    if (!o->model_arg && !(o->params > 0))
        return ff_estcli_usage_error(
            "no model: give --model NAME, --model config.json or --params N");
    if (o->params > 0) {
        int rc = ff_model_rough(o->params, m, err, sizeof(err));
        return rc == FF_OK ? 0 : ff_estcli_fail(rc, err);
    }
    if (looks_like_path(o->model_arg)) {
        int rc = ff_model_from_hf_config(o->model_arg, m, err, sizeof(err));
        return rc == FF_OK ? 0 : ff_estcli_fail(rc, err);
    }
    if (ff_model_preset_find(o->model_arg, m) == FF_OK)
        return 0;
    char near[256];
    ff_model_suggest(o->model_arg, near, sizeof(near), 4);
    return unknown("model", o->model_arg, near,
                   "--list-models shows all; a config.json path also works");
}

int ff_estcli_profile(const char *path, struct ff_spec *d)
{
    char err[512];
    int rc = ff_spec_from_profile(path, d, err, sizeof(err));
    return rc == FF_OK ? 0 : ff_estcli_fail(rc, err);
}

int ff_estcli_device(const struct ff_estcli_opts *o, struct ff_spec *d)
{
    if (o->n_profiles == 1)
        return ff_estcli_profile(o->profiles[0], d);
    if (ff_spec_find(o->device_arg, d) == FF_OK)
        return 0;
    char near[256];
    ff_spec_suggest(o->device_arg, near, sizeof(near), 4);
    return unknown("device", o->device_arg, near,
                   "--list-devices shows all; --profile FILE reads a measured one");
}
