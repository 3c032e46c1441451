/*
 * results/src/escape.c — the escapes of escape.h. Each reads its string one character at a
 * time through next_char (a strict UTF-8 decoder, RFC 3629) and decides per character; what
 * the formats share (invalid UTF-8, control and bidirectional characters) is decided once, in
 * keep().
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

#define REPLACEMENT 0xFFFDu

/* One character of s: its code point in *cp and its bytes; a byte that starts no valid
 * sequence is one character, U+FFFD. Returns the number of bytes read (0 at the end). */
static size_t next_char(const unsigned char *s, uint32_t *cp)
{
    unsigned c = s[0];
    if (c == 0)
        return 0;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t n;
    uint32_t v, lo = 0x80, hi = 0xBF; /* the range of the second byte */
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2, v = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3, v = c & 0x0F;
        lo = c == 0xE0 ? 0xA0 : 0x80; /* no overlong form */
        hi = c == 0xED ? 0x9F : 0xBF; /* no surrogate */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4, v = c & 0x07;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF; /* nothing above U+10FFFF */
    } else {
        *cp = REPLACEMENT;
        return 1;
    }
    for (size_t i = 1; i < n; i++) {
        unsigned t = s[i];
        if (t < (i == 1 ? lo : 0x80) || t > (i == 1 ? hi : 0xBF)) {
            *cp = REPLACEMENT;
            return 1;
        }
        v = (v << 6) | (t & 0x3F);
    }
    *cp = v;
    return n;
}

/* Is cp written at all? `ws` lists the control characters the format keeps. */
static bool keep(uint32_t cp, const char *ws)
{
    if (cp < 0x20)
        return strchr(ws, (int)cp) != NULL;
    if (cp >= 0x7F && cp <= 0x9F)
        return false;
    return !(cp >= 0x202A && cp <= 0x202E) && !(cp >= 0x2066 && cp <= 0x2069);
}

static void put_cp(struct ff_pub_sb *b, uint32_t cp)
{
    char u[4];
    size_t n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (cp < 0x80) {
        u[0] = (char)cp;
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
    } else {
        u[0] = (char)(0xF0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (char)(0x80 | (cp & 0x3F));
    }
    ff_pub_sb_putn(b, u, n);
}

/* s with the characters keep() drops left out; the tab, CR and newline kept, or as spaces
 * when `blank`. */
static void clean(struct ff_pub_sb *b, const char *s, bool blank)
{
    uint32_t cp;
    for (size_t n; s && (n = next_char((const unsigned char *)s, &cp)) > 0; s += n)
        if (keep(cp, "\t\r\n"))
            put_cp(b, blank && cp < 0x20 ? ' ' : cp);
}

/* HTML and XML share their rules: the page holds the SVGs inline. */
static void markup(struct ff_pub_sb *b, const char *s)
{
    uint32_t cp;
    for (size_t n; s && (n = next_char((const unsigned char *)s, &cp)) > 0; s += n) {
        if (!keep(cp, "\t\n"))
            continue;
        switch (cp) {
        case '&': ff_pub_sb_puts(b, "&amp;"); break;
        case '<': ff_pub_sb_puts(b, "&lt;"); break;
        case '>': ff_pub_sb_puts(b, "&gt;"); break;
        case '"': ff_pub_sb_puts(b, "&quot;"); break;
        case '\'': ff_pub_sb_puts(b, "&#39;"); break;
        case 0xFFFE:
        case 0xFFFF: put_cp(b, REPLACEMENT); break;
        default: put_cp(b, cp); break;
        }
    }
}

void ff_pub_esc_html(struct ff_pub_sb *b, const char *s)
{
    markup(b, s);
}

void ff_pub_esc_xml(struct ff_pub_sb *b, const char *s)
{
    markup(b, s);
}

static bool alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

void ff_pub_esc_md(struct ff_pub_sb *b, const char *s)
{
    uint32_t cp;
    bool first = true;
    char prev = 0;
    for (size_t n; s && (n = next_char((const unsigned char *)s, &cp)) > 0; prev = *s, s += n) {
        /* inside a word ("cl_khr_fp16") an underscore opens no emphasis: left as it is */
        if (cp == '_' && alnum(prev) && alnum(s[1])) {
            put_cp(b, cp);
            first = false;
            continue;
        }
        if (!keep(cp, "\t\n\r"))
            continue;
        if (cp == '\t' || cp == '\n' || cp == '\r')
            cp = ' ';
        if (cp == '&')
            ff_pub_sb_puts(b, "&amp;");
        else if (cp == '<')
            ff_pub_sb_puts(b, "&lt;");
        else if (cp == '>')
            ff_pub_sb_puts(b, "&gt;");
        else if ((cp < 0x80 && strchr("\\`*_[]~|", (int)cp)) ||
                 (first && cp < 0x80 && strchr("#-+=", (int)cp))) {
            ff_pub_sb_puts(b, "\\");
            put_cp(b, cp);
        } else {
            put_cp(b, cp);
        }
        first = false;
    }
}

void ff_pub_esc_md_code(struct ff_pub_sb *b, const char *s)
{
    if (!s)
        return;
    /* cleaned first: the fence and the padding depend on what is shown */
    struct ff_pub_sb t;
    ff_pub_sb_init(&t);
    clean(&t, s, true);
    const char *c = ff_pub_sb_str(&t);
    size_t run = 0, longest = 0, len = strlen(c);
    for (const char *p = c; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    /* a span that starts or ends with a backtick needs a space inside the fence */
    bool pad = len && (c[0] == '`' || c[len - 1] == '`');
    for (size_t i = 0; i <= longest; i++)
        ff_pub_sb_puts(b, "`");
    ff_pub_sb_puts(b, pad ? " " : "");
    ff_pub_sb_putn(b, c, len);
    ff_pub_sb_puts(b, pad ? " " : "");
    for (size_t i = 0; i <= longest; i++)
        ff_pub_sb_puts(b, "`");
    if (ff_pub_sb_status(&t))
        b->failed = true;
    ff_pub_sb_finish(&t);
}

void ff_pub_esc_url(struct ff_pub_sb *b, const char *s)
{
    static const char safe[] = "-._~/";
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr(safe, *p))
            ff_pub_sb_putn(b, (const char *)p, 1);
        else
            ff_pub_sb_printf(b, "%%%02X", *p);
    }
}

/* "-2.5", "3", "1e-3": a field a spreadsheet reads as that number and nothing else. */
static bool plain_number(const char *s)
{
    const char *p = s;
    if (*p == '-' || *p == '+')
        p++;
    size_t digits = 0;
    while (*p >= '0' && *p <= '9')
        p++, digits++;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            digits++;
    if (!digits)
        return false;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '-' || *p == '+')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return false;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return *p == 0;
}

void ff_pub_esc_csv(struct ff_pub_sb *b, const char *s)
{
    if (!s)
        return;
    /* cleaned first: a dropped character must not hide a formula behind it */
    struct ff_pub_sb t;
    ff_pub_sb_init(&t);
    clean(&t, s, false);
    if (ff_pub_sb_status(&t)) {
        b->failed = true;
        ff_pub_sb_finish(&t);
        return;
    }
    const char *c = ff_pub_sb_str(&t);
    bool formula = c[0] && strchr("=+-@\t\r", c[0]) && !plain_number(c);
    bool quote = strpbrk(c, ",\"\r\n") != NULL;
    if (quote)
        ff_pub_sb_puts(b, "\"");
    if (formula)
        ff_pub_sb_puts(b, "'");
    for (; *c; c++)
        if (*c == '"')
            ff_pub_sb_puts(b, "\"\"");
        else
            ff_pub_sb_putn(b, c, 1);
    if (quote)
        ff_pub_sb_puts(b, "\"");
    ff_pub_sb_finish(&t);
}

void ff_pub_esc_term(struct ff_pub_sb *b, const char *s)
{
    clean(b, s, true);
}

json_object *ff_pub_json_text(const char *s)
{
    if (!s)
        return NULL;
    uint32_t cp;
    const char *p = s;
    size_t n;
    while ((n = next_char((const unsigned char *)p, &cp)) > 0 && !(cp == REPLACEMENT && n == 1))
        p += n;
    if (!*p)
        return json_object_new_string(s);
    struct ff_pub_sb t;
    ff_pub_sb_init(&t);
    for (p = s; (n = next_char((const unsigned char *)p, &cp)) > 0; p += n)
        put_cp(&t, cp);
    json_object *o = ff_pub_sb_status(&t) ? NULL : json_object_new_string(ff_pub_sb_str(&t));
    ff_pub_sb_finish(&t);
    return o;
}
