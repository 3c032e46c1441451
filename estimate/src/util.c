/* estimate/src/util.c — small string helpers for messages and name matching. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

bool ff_word_in(const char *name, const char *list)
{
    size_t n = strlen(name);
    const char *p = list;
    while (p && *p) {
        while (*p == ' ')
            p++;
        const char *end = strchr(p, ' ');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && len > 0) {
            size_t i = 0;
            while (i < len && tolower((unsigned char)p[i]) == tolower((unsigned char)name[i]))
                i++;
            if (i == len)
                return true;
        }
        p = end;
    }
    return false;
}

static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0)
        return false;
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] &&
               tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return true;
    }
    return false;
}

static bool listed(const char *buf, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = buf; (p = strstr(p, word)) != NULL; p += n) {
        bool start = p == buf || p[-1] == ' ';
        bool end = p[n] == '\0' || p[n] == ',';
        if (start && end)
            return true;
    }
    return false;
}

int ff_suggest_from(const char *name, const char *const *candidates, const char *const *targets,
                    size_t n, char *buf, size_t buflen, int max)
{
    if (buf && buflen)
        buf[0] = '\0';
    if (!name || !buf || buflen == 0)
        return 0;
    int written = 0;
    size_t len = strlen(name);
    int limit = len < 6 ? 2 : (int)(len / 3);
    /* Two passes: distance 0..limit in order, then substring matches. */
    for (int d = 0; d <= limit + 1 && written < max; d++) {
        for (size_t i = 0; i < n && written < max; i++) {
            int dist = ff_edit_distance(name, candidates[i]);
            bool sub = contains_ci(candidates[i], name) || contains_ci(name, candidates[i]);
            bool ok = d <= limit ? dist == d : (sub && dist > limit);
            const char *show = targets ? targets[i] : candidates[i];
            if (!ok || listed(buf, show))
                continue;
            size_t used = strlen(buf);
            snprintf(buf + used, buflen - used, "%s%s", written ? ", " : "", show);
            written++;
        }
    }
    return written;
}
