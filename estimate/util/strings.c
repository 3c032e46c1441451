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

int ff_edit_distance(const char *a, const char *b)
{
    enum { CAP = 64 };
    size_t la = strlen(a), lb = strlen(b);
    if (la > CAP || lb > CAP)
        return CAP;
    int prev[CAP + 1], cur[CAP + 1];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            int best = prev[j - 1] + cost;
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            cur[j] = best;
        }
        memcpy(prev, cur, sizeof(int) * (lb + 1));
    }
    return prev[lb];
}

const char *ff_closest_word(const char *given, const char *const *words, size_t n)
{
    const char *best = NULL;
    int best_d = FF_CLOSE_DISTANCE + 1;
    for (size_t i = 0; i < n; i++) {
        int d = ff_edit_distance(given, words[i]);
        if (d < best_d) {
            best_d = d;
            best = words[i];
        }
    }
    return best;
}
