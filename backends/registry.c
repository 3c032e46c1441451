/*
 * backends/registry.c — the registry of compiled-in backends (the NULL-terminated table
 * ff_backend_registry, generated from registry.c.in by backends/meson.build): listing and
 * finding backends by name, and counting each one's devices.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "backend_impl.h"

const struct ff_backend *const *ff_backends(void)
{
    return ff_backend_registry;
}

size_t ff_backend_names(char *buf, size_t n)
{
    size_t len = 0;
    if (buf && n)
        buf[0] = 0;
    for (const struct ff_backend *const *b = ff_backend_registry; *b; b++) {
        const char *sep = b == ff_backend_registry ? "" : ", ";
        int w = snprintf(buf && len < n ? buf + len : NULL, buf && len < n ? n - len : 0, "%s%s",
                         sep, (*b)->ops->name);
        len += w > 0 ? (size_t)w : 0;
    }
    return len;
}

const char *ff_backend_name(const struct ff_backend *b)
{
    return b ? b->ops->name : "(none)";
}

const char *ff_backend_hint(const struct ff_backend *b)
{
    return b ? b->ops->hint : "";
}

const struct ff_backend *ff_backend_find(const char *name)
{
    if (!name)
        return NULL;
    for (const struct ff_backend *const *b = ff_backend_registry; *b; b++)
        if (strcasecmp((*b)->ops->name, name) == 0)
            return *b;
    return NULL;
}

int ff_backend_device_count(const struct ff_backend *b, uint32_t *count, char *err, size_t errlen)
{
    if (!b || !count)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no backend or count given");
    *count = 0;
    return b->ops->device_count(count, err, errlen);
}
