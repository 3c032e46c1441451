/* estimate/util/strings.c — error messages and small string helpers. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ff_util.h"

int ff_errf(char *err, size_t errlen, int status, const char *fmt, ...)
{
    if (err && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return status;
}

bool ff_msgf(char *dst, size_t n, const char *fmt, ...)
{
    if (!dst || n == 0)
        return false;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(dst, n, fmt, ap);
    va_end(ap);
    if (k < 0) {
        dst[0] = '\0';
        return false;
    }
    if ((size_t)k < n)
        return true;
    if (n >= 4) {
        /* Cut before a whole UTF-8 character, never inside one. */
        size_t cut = n - 4;
        while (cut > 0 && ((unsigned char)dst[cut] & 0xC0) == 0x80)
            cut--;
        memcpy(dst + cut, "...", 4);
    }
    return false;
}

void ff_strlcpy(char *dst, const char *src, size_t n)
{
    if (n == 0)
        return;
    size_t len = strlen(src);
    if (len >= n)
        len = n - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

bool ff_streq_ci(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
    return *a == *b;
}
