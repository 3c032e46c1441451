/*
 * backends/device_options.c — the tuning overrides a device is opened with: one table of
 * options (name, environment variable, backend, format), the one reader of the environment,
 * and each option's value as text (frontend.c records those in effect in ff_device_info.extra).
 *
 * The table checks only the form of a value (so a malformed override fails loudly instead of
 * being ignored); whether tiles fit a device stays the backend's business (the shared-memory
 * tiles, for one, shrink or fall back, and the kernel's variant text says which ran).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_options.h"
#include "ff_util.h"

enum opt_kind {
    OPT_TEXT,    /* validated by check() */
    OPT_SECONDS, /* uint32_t, 1 .. 86400 */
};

struct opt {
    struct ff_device_option_desc d;
    enum opt_kind kind;
    size_t offset; /* into struct ff_device_options */
    size_t size;   /* of the char array (OPT_TEXT) */
    /* (optional) OPT_TEXT: false when `v` is not of the form d.format describes */
    bool (*check)(const char *v);
};

/* n comma-separated unsigned integers and nothing else; false otherwise. */
static bool parse_uints(const char *v, unsigned *out, size_t n)
{
    const char *p = v;
    for (size_t i = 0; i < n; i++) {
        if (*p < '0' || *p > '9')
            return false;
        char *end = NULL;
        unsigned long x = strtoul(p, &end, 10);
        if (x > 1000000)
            return false;
        out[i] = (unsigned)x;
        p = end;
        if (i + 1 < n) {
            if (*p != ',')
                return false;
            p++;
        }
    }
    return *p == 0;
}

/* The ranges backends/opencl/cl_tuning.c accepts. */
static bool check_cl_tune(const char *v)
{
    unsigned t[7];
    return parse_uints(v, t, 7) && t[0] && t[1] && t[2] && t[1] % t[2] == 0 && t[0] <= 16 &&
           t[1] <= 64;
}

/* The ranges backends/vulkan/vk_tuning.c accepts. */
static bool check_vk_tiles(const char *v)
{
    unsigned t[4];
    return parse_uints(v, t, 4) && t[0] >= 1 && t[0] <= 64 && t[1] >= 1 && t[1] <= 4 && t[2] >= 1 &&
           t[3] >= 1;
}

static bool check_vk_shared(const char *v)
{
    static const char *const names[] = {"nvidia", "amd", "intel", "fallback"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(v, names[i]) == 0)
            return true;
    unsigned t[5];
    return parse_uints(v, t, 5);
}

static bool check_vk_path(const char *v)
{
    return strcmp(v, "shared") == 0 || strcmp(v, "texel") == 0 || strcmp(v, "storage") == 0;
}

#define TEXT(field)                                                                                \
    offsetof(struct ff_device_options, field), sizeof(((struct ff_device_options *)0)->field)

static const struct opt table[] = {
    {{"cl_matmul_tune", "FF_CL_MATMUL_TUNE", "opencl",
      "tm,tn,vw,use_local,wg0,wg1,tk (tm 1..16, tn 1..64, tn a multiple of vw)"},
     OPT_TEXT,
     TEXT(cl_matmul_tune),
     check_cl_tune},
    {{"vk_tiles", "FF_VK_TILES", "vulkan", "tm,tn4,wx,wy (tm 1..64, tn4 1..4, wx, wy >= 1)"},
     OPT_TEXT,
     TEXT(vk_tiles),
     check_vk_tiles},
    {{"vk_shared_tiles", "FF_VK_SHARED_TILES", "vulkan",
      "nvidia, amd, intel, fallback or bm,bn,bk,tm,tn"},
     OPT_TEXT,
     TEXT(vk_shared_tiles),
     check_vk_shared},
    {{"vk_matmul_path", "FF_VK_MATMUL_PATH", "vulkan", "shared, texel or storage"},
     OPT_TEXT,
     TEXT(vk_matmul_path),
     check_vk_path},
    {{"timeout_s", "FF_VK_TIMEOUT_S", "vulkan", "seconds, 1..86400 (default 600)"},
     OPT_SECONDS,
     offsetof(struct ff_device_options, timeout_s),
     0,
     NULL},
};
#undef TEXT

#define N_OPTS (sizeof(table) / sizeof(table[0]))

const struct ff_device_option_desc *ff_device_option_at(size_t i)
{
    return i < N_OPTS ? &table[i].d : NULL;
}

void ff_device_options_init(struct ff_device_options *o)
{
    memset(o, 0, sizeof(*o));
}

static int set_one(struct ff_device_options *o, const struct opt *t, const char *what,
                   const char *value, char *err, size_t errlen)
{
    char *base = (char *)o + t->offset;
    if (t->kind == OPT_SECONDS) {
        uint32_t *dst = (uint32_t *)(void *)base;
        if (!value[0]) {
            *dst = 0;
            return FF_OK;
        }
        return ff_parse_u32(what, value, 1, 86400, dst, err, errlen);
    }
    if (value[0] && t->check && !t->check(value))
        return ff_bad_value(err, errlen, what, value, t->d.format);
    if (strlen(value) >= t->size)
        return ff_errf(err, errlen, FF_ERR_INVALID, "value '%.40s...' for %s is too long", value,
                       what);
    ff_strlcpy(base, value, t->size);
    return FF_OK;
}

int ff_device_options_set(struct ff_device_options *o, const char *name, const char *value,
                          char *err, size_t errlen)
{
    if (!o || !name || !value)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no options, name or value given");
    for (size_t i = 0; i < N_OPTS; i++)
        if (strcmp(table[i].d.name, name) == 0)
            return set_one(o, &table[i], name, value, err, errlen);
    char names[256] = "";
    for (size_t i = 0; i < N_OPTS; i++) {
        size_t used = strlen(names);
        snprintf(names + used, sizeof(names) - used, "%s%s", i ? ", " : "", table[i].d.name);
    }
    return ff_errf(err, errlen, FF_ERR_NOT_FOUND, "unknown device option '%s' (expected %s)", name,
                   names);
}

int ff_device_options_from_env(struct ff_device_options *o, char *err, size_t errlen)
{
    if (!o)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no options given");
    ff_device_options_init(o);
    for (size_t i = 0; i < N_OPTS; i++) {
        const char *v = getenv(table[i].d.env);
        if (!v || !v[0])
            continue;
        int ret = set_one(o, &table[i], table[i].d.env, v, err, errlen);
        if (ret < 0)
            return ret;
    }
    return FF_OK;
}

/* The option's value as text; false when it is not set. */
static bool value_str(const struct ff_device_options *o, const struct opt *t, char *buf, size_t n)
{
    const char *base = (const char *)o + t->offset;
    if (t->kind == OPT_SECONDS) {
        uint32_t v;
        memcpy(&v, base, sizeof(v));
        snprintf(buf, n, "%u", v);
        return v != 0;
    }
    snprintf(buf, n, "%s", base);
    return base[0] != 0;
}

bool ff_device_options_value(const struct ff_device_options *o, size_t i, char *buf, size_t n)
{
    if (i >= N_OPTS) {
        if (n)
            buf[0] = '\0';
        return false;
    }
    return value_str(o, &table[i], buf, n);
}
