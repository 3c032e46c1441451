/* bench/run/paths.c — the profile folder and profile file names. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"

int ff_bench_default_dir(char *dst, size_t n, char *err, size_t errlen)
{
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    int w;
    /* The XDG base-directory spec: a relative XDG_DATA_HOME is invalid and ignored. */
    if (xdg && xdg[0] == '/')
        w = snprintf(dst, n, "%s/flopfit/profiles", xdg);
    else if (home && home[0])
        w = snprintf(dst, n, "%s/.local/share/flopfit/profiles", home);
    else
        return ff_errf(err, errlen, FF_ERR_NOT_FOUND,
                       "no folder for profiles: neither XDG_DATA_HOME nor HOME is set "
                       "(use --output-dir or --output)");
    if (w < 0 || (size_t)w >= n)
        return ff_errf(err, errlen, FF_ERR_INVALID, "the profile folder path is too long");
    return FF_OK;
}

static uint32_t fnv1a(uint32_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 16777619u;
    }
    h ^= 0xff; /* field separator: "ab"+"c" and "a"+"bc" differ */
    return h * 16777619u;
}

void ff_bench_device_id(const struct ff_device_info *info, char *dst, size_t n)
{
    uint32_t h = 2166136261u;
    h = fnv1a(h, info->backend);
    h = fnv1a(h, info->platform);
    h = fnv1a(h, info->name);
    h = fnv1a(h, info->driver_version);
    snprintf(dst, n, "%06x", (unsigned)((h ^ (h >> 24)) & 0xffffffu));
}

/* Lower-case letters, digits and dots; every other run of characters becomes one dash. */
static void slug(char *dst, size_t n, const char *src)
{
    size_t j = 0;
    bool dash = false;
    for (const char *s = src; *s && j + 1 < n; s++) {
        char c = *s;
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.') {
            dst[j++] = c;
            dash = false;
        } else if (c >= 'A' && c <= 'Z') {
            dst[j++] = (char)(c - 'A' + 'a');
            dash = false;
        } else if (!dash && j > 0) {
            dst[j++] = '-';
            dash = true;
        }
    }
    while (j > 0 && dst[j - 1] == '-')
        j--;
    dst[j] = 0;
}

#define STEM_MAX 62

void ff_bench_profile_name(const struct ff_device_info *info, const char *utc_compact, char *dst,
                           size_t n)
{
    char backend[24], id[8], dev[STEM_MAX + 1];
    slug(backend, sizeof(backend), info->backend);
    ff_bench_device_id(info, id, sizeof(id));
    /* Room for the device slug: the stem less the backend, id, time and three dashes, less
     * four bytes for a "-<k>" a same-second collision may add. */
    long room =
        STEM_MAX - 4 - (long)strlen(backend) - (long)strlen(id) - (long)strlen(utc_compact) - 3;
    if (room < 1)
        room = 1;
    slug(dev, (size_t)room + 1 < sizeof(dev) ? (size_t)room + 1 : sizeof(dev), info->name);
    if (!dev[0])
        snprintf(dev, sizeof(dev), "device");
    snprintf(dst, n, "%s-%s-%s-%s.json", backend, dev, id, utc_compact);
}
