/*
 * estimate/src/model_resolve.c — what a --model argument names: a preset, a config.json or
 * a model folder (flopfit/model.h, ff_model_resolve), for `flopfit estimate` and `flopfit
 * bench --model` alike.
 */
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

static bool is_path(const char *s, bool preset)
{
    struct stat st;
    size_t n = strlen(s);
    if (strchr(s, '/') || (n > 5 && !strcmp(s + n - 5, ".json")))
        return true;
    return !preset && stat(s, &st) == 0;
}

static bool is_dir(const char *s)
{
    struct stat st;
    return stat(s, &st) == 0 && S_ISDIR(st.st_mode);
}

int ff_model_resolve(const char *arg, struct ff_model *out, char *err, size_t errlen)
{
    if (!arg || !*arg || !out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no model named");
    struct ff_model preset;
    ff_model_init(&preset);
    bool is_preset = ff_model_preset_find(arg, &preset) == FF_OK;
    if (is_path(arg, is_preset))
        return is_dir(arg) ? ff_model_from_hf_dir(arg, out, err, errlen)
                           : ff_model_from_hf_config(arg, out, err, errlen);
    if (!is_preset)
        return ff_errf(err, errlen, FF_ERR_NOT_FOUND,
                       "'%s' is neither a preset nor a config.json or model folder", arg);
    *out = preset;
    return FF_OK;
}
