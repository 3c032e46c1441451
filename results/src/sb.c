/* results/src/sb.c — the growing text buffer. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb.h"

void ff_pub_sb_init(struct ff_pub_sb *b)
{
    memset(b, 0, sizeof(*b));
}

void ff_pub_sb_finish(struct ff_pub_sb *b)
{
    free(b->s);
    ff_pub_sb_init(b);
}

/* Room for `more` bytes and the NUL. */
static bool reserve(struct ff_pub_sb *b, size_t more)
{
    if (b->failed)
        return false;
    if (b->len + more + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + more + 1) {
        if (cap > ((size_t)-1) / 2) {
            b->failed = true;
            return false;
        }
        cap *= 2;
    }
    char *s = realloc(b->s, cap);
    if (!s) {
        b->failed = true;
        return false;
    }
    b->s = s;
    b->cap = cap;
    return true;
}

void ff_pub_sb_putn(struct ff_pub_sb *b, const char *s, size_t n)
{
    if (!reserve(b, n))
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void ff_pub_sb_puts(struct ff_pub_sb *b, const char *s)
{
    ff_pub_sb_putn(b, s, strlen(s));
}

void ff_pub_sb_json(struct ff_pub_sb *b, const char *text)
{
    /* A bracket followed by a line break is structure: json-c escapes line breaks in strings. */
    const char *from = text;
    for (const char *p = text; *p; p++) {
        if ((*p != '[' && *p != '{') || p[1] != '\n')
            continue;
        const char *q = p + 1;
        while (*q == '\n' || *q == ' ' || *q == '\t')
            q++;
        if (*q == (*p == '[' ? ']' : '}')) {
            ff_pub_sb_putn(b, from, (size_t)(p + 1 - from));
            from = q;
            p = q;
        }
    }
    ff_pub_sb_puts(b, from);
}

void ff_pub_sb_printf(struct ff_pub_sb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = true;
        return;
    }
    if (!reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

const char *ff_pub_sb_str(const struct ff_pub_sb *b)
{
    return b->s ? b->s : "";
}

int ff_pub_sb_status(const struct ff_pub_sb *b)
{
    return b->failed ? FF_ERR_NO_MEMORY : FF_OK;
}
