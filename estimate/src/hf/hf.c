/*
 * estimate/src/hf/hf.c — a Hugging Face config.json read for real (json-c): the public entry
 * points (flopfit/model.h), the table of model_type -> family reader, and the checks every
 * model read passes (ff_model_check, a parameter count that fits).
 *
 * Field names and defaults follow each architecture's transformers configuration class
 * (configuration_<type>.py). Errors name the file, the field and what was expected.
 *
 * Hardened for hostile input (fuzzed): the file is read through ff_read_file_capped (regular
 * files only, CONFIG_MAX_BYTES) and parsed with a private json_tokener (no json-c global
 * state); the field getters (fields.c) bound every value.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"

#define CONFIG_MAX_BYTES ((size_t)16 * 1024 * 1024)

/* Every model_type read, in the order the "supported" message lists them. */
const struct ff_hf_family ff_hf_families[] = {
    {"llama", ff_hf_read_llama_like, NULL},
    {"mistral", ff_hf_read_llama_like, NULL},
    {"mixtral", ff_hf_read_llama_like, NULL},
    {"qwen2", ff_hf_read_llama_like, NULL},
    {"qwen2_moe", ff_hf_read_llama_like, NULL},
    {"qwen3", ff_hf_read_llama_like, NULL},
    {"qwen3_moe", ff_hf_read_llama_like, NULL},
    {"gemma", ff_hf_read_llama_like, NULL},
    {"gemma2", ff_hf_read_llama_like, NULL},
    {"gemma3", ff_hf_read_gemma3, NULL},
    {"gemma3_text", ff_hf_read_llama_like, NULL},
    {"phi3", ff_hf_read_llama_like, NULL},
    {"olmo2", ff_hf_read_llama_like, NULL},
    {"cohere", ff_hf_read_llama_like, NULL},
    {"gpt_oss", ff_hf_read_llama_like, NULL},
    {"smollm3", ff_hf_read_llama_like, NULL},
    {"gpt2", ff_hf_read_gpt2, NULL},
    {"gptj", ff_hf_read_gptj, NULL},
    {"opt", ff_hf_read_opt, NULL},
    {"gpt_neox", ff_hf_read_neox, NULL},
    {"falcon", ff_hf_read_falcon, NULL},
    {"RefinedWeb", ff_hf_read_falcon, "falcon"},
    {"RefinedWebModel", ff_hf_read_falcon, "falcon"},
    {"bloom", ff_hf_read_bloom, NULL},
    {"mpt", ff_hf_read_mpt, NULL},
    {"starcoder2", ff_hf_read_starcoder2, NULL},
    {"deepseek_v2", ff_hf_read_deepseek, NULL},
    {"deepseek_v3", ff_hf_read_deepseek, NULL},
    {"jamba", ff_hf_read_jamba, NULL},
    {"mamba", ff_hf_read_mamba, NULL},
    {"falcon_mamba", ff_hf_read_mamba, NULL},
    {NULL, NULL, NULL},
};

/* Append text to buf (n bytes) at *o, as much as fits; *o counts what was asked for. */
static void append(char *buf, size_t n, size_t *o, const char *text)
{
    if (*o < n)
        ff_strlcpy(buf + *o, text, n - *o);
    *o += strlen(text);
}

/* "llama, mistral, ..., falcon (and RefinedWeb, RefinedWebModel), ...": the table, each
 * legacy name after the one it stands for. */
static void list_supported(char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = '\0';
    for (const struct ff_hf_family *f = ff_hf_families; f->model_type; f++) {
        if (f->legacy_of)
            continue;
        append(buf, n, &o, f == ff_hf_families ? "" : ", ");
        append(buf, n, &o, f->model_type);
        const char *sep = " (and ";
        for (const struct ff_hf_family *g = ff_hf_families; g->model_type; g++) {
            if (g->legacy_of && !strcmp(g->legacy_of, f->model_type)) {
                append(buf, n, &o, sep);
                append(buf, n, &o, g->model_type);
                sep = ", ";
            }
        }
        if (sep[0] == ',')
            append(buf, n, &o, ")");
    }
}

static int dispatch(struct ff_hf_reader *r, const char *type, struct ff_model *m)
{
    for (const struct ff_hf_family *f = ff_hf_families; f->model_type; f++)
        if (!strcmp(type, f->model_type)) {
            r->model_type = f->model_type;
            return f->read(r, m);
        }
    char supported[512];
    list_supported(supported, sizeof(supported));
    return ff_errf(r->c.err, r->c.errlen, FF_ERR_UNSUPPORTED,
                   "%s: model_type \"%s\" is not supported (supported: %s)", r->c.label, type,
                   supported);
}

int ff_model_from_hf_text(const char *text, size_t len, const char *label, struct ff_model *out,
                          char *err, size_t errlen)
{
    if (!label)
        label = "config.json";
    if (!text || !out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: no input", label);
    int rc = ff_model_out_check(out, err, errlen);
    if (rc != FF_OK)
        return rc;
    if (len > CONFIG_MAX_BYTES)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "%s: %zu bytes, larger than the %zu-byte limit; not a config.json", label,
                       len, CONFIG_MAX_BYTES);
    /* A tokener of our own and an explicit length: no json-c global state, no strlen. */
    json_object *root = NULL;
    rc = ff_json_parse_object(text, len, label, "a config.json", false, &root, err, errlen);
    if (rc != FF_OK)
        return rc;
    struct ff_hf_reader r = {{label, "", err, errlen, NULL}, root, NULL};
    json_object *type = NULL;
    if (!json_object_object_get_ex(root, "model_type", &type) || !type ||
        !json_object_is_type(type, json_type_string) || !json_object_get_string(type)) {
        rc = ff_hf_bad(&r, "model_type", type, "a string such as \"llama\"");
        goto error_root;
    }
    const char *type_name = json_object_get_string(type);
    struct ff_model m;
    ff_model_init(&m);
    rc = dispatch(&r, type_name, &m);
    if (rc == FF_OK)
        rc = ff_hf_read_storage(&r, &m);
    if (rc != FF_OK)
        goto error_root;
    const char *base = strrchr(label, '/');
    ff_strlcpy(m.name, base ? base + 1 : label, sizeof(m.name));
    snprintf(m.source, sizeof(m.source), "%s (model_type %s)", label, type_name);
    char why[200];
    if (ff_model_check(&m, why, sizeof(why)) != FF_OK) {
        rc = ff_errf(err, errlen, FF_ERR_INVALID, "%s: inconsistent config: %s", label, why);
        goto error_root;
    }
    struct ff_param_count pc;
    if (ff_model_params(&m, &pc) != FF_OK) {
        rc = ff_errf(err, errlen, FF_ERR_RANGE,
                     "%s: parameter count overflows (more than 2^53 parameters)", label);
        goto error_root;
    }
    ff_abi_copy_out(out, &m, sizeof(m));
error_root:
    json_object_put(root);
    return rc;
}

int ff_model_from_hf_json(const char *json, const char *label, struct ff_model *out, char *err,
                          size_t errlen)
{
    if (!json || !out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no input");
    /* At most one byte past the cap is measured: a huge string is refused, not scanned. */
    size_t len = strnlen(json, CONFIG_MAX_BYTES + 1);
    return ff_model_from_hf_text(json, len, label, out, err, errlen);
}

int ff_model_from_hf_config(const char *path, struct ff_model *out, char *err, size_t errlen)
{
    if (!path || !out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no path");
    char *text = NULL;
    size_t len = 0;
    int rc = ff_read_file_capped(path, CONFIG_MAX_BYTES, "config.json", &text, &len, err, errlen);
    if (rc != FF_OK)
        return rc;
    rc = ff_model_from_hf_text(text, len, path, out, err, errlen);
    free(text);
    return rc;
}

/*
 * A stored size must be able to hold the parameters config.json describes: from 1 bit (a
 * ternary or binary checkpoint packs no tighter) to 64 bits per parameter (fp64). Outside that
 * the size or the config is wrong, and a plan built on it would be too.
 */
static int check_stored_size(const struct ff_model *m, const char *source, const char *config,
                             char *err, size_t errlen)
{
    struct ff_param_count pc;
    if (ff_model_params(m, &pc) != FF_OK || pc.total == 0)
        return FF_OK; /* refused already by ff_model_from_hf_text */
    double bits = m->stored_bytes * 8.0 / (double)pc.total;
    if (bits >= 1.0 && bits <= 64.0)
        return FF_OK;
    return ff_errf(err, errlen, FF_ERR_INVALID,
                   "%s: %.0f bytes for the %llu parameters %s describes is %.3g bits per "
                   "parameter; a checkpoint stores from 1 to 64 bits per parameter",
                   source, m->stored_bytes, (unsigned long long)pc.total, config, bits);
}

int ff_model_from_hf_dir(const char *dir, struct ff_model *out, char *err, size_t errlen)
{
    if (!dir || !out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no path");
    char path[4096];
    int n = snprintf(path, sizeof(path), "%s/config.json", dir);
    if (n < 0 || (size_t)n >= sizeof(path))
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: path too long", dir);
    int rc = ff_model_out_check(out, err, errlen);
    if (rc != FF_OK)
        return rc;
    struct ff_model m;
    ff_model_init(&m);
    rc = ff_model_from_hf_config(path, &m, err, errlen);
    if (rc != FF_OK)
        return rc;
    /* The folder's name, not "config.json", names the model in reports. */
    const char *end = dir + strlen(dir);
    while (end > dir && end[-1] == '/')
        end--;
    const char *start = end;
    while (start > dir && start[-1] != '/')
        start--;
    if (end > start) {
        size_t k =
            (size_t)(end - start) < sizeof(m.name) - 1 ? (size_t)(end - start) : sizeof(m.name) - 1;
        memcpy(m.name, start, k);
        m.name[k] = '\0';
    }
    char source[4352];
    rc = ff_hf_stored_bytes(dir, &m.stored_bytes, source, sizeof(source), err, errlen);
    if (rc != FF_OK)
        return rc;
    if (m.stored_bytes > 0.0)
        TRY(check_stored_size(&m, source, path, err, errlen));
    ff_abi_copy_out(out, &m, sizeof(m));
    return FF_OK;
}
