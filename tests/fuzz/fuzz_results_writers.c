/*
 * tests/fuzz/fuzz_results_writers.c — a profile in, every output of `flopfit results` out, each
 * checked for the well-formedness its format promises (abort() on a violation):
 *   all       valid UTF-8
 *   md        every table row has the header's number of unescaped '|'; no raw '<'; no
 *             unescaped backtick in a row
 *   csv       (csv and ops-csv) every record (RFC 4180, quotes balanced) has the header's number of fields; no
 *             field starts with = + - @ tab or CR unless it is a plain number
 *   html/svg  every '<' opens one of the elements the writers write; attribute values are
 *             quoted and hold no '<' or '"'; every '&' starts a reference; no control character
 *             but tab and newline
 *   json      json-c parses it back
 * The profile is read from a file, as `flopfit results` reads it, and compared with itself.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "fuzz.h"
#include "results.h"
#include "results_impl.h"

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_results_writers: %s: %s (line %d)\n", what, #cond, __LINE__);    \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static void check_utf8(const char *what, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t n = *p < 0x80 ? 1 : (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3 : 4;
        REQUIRE(*p < 0x80 || (*p >= 0xC2 && *p <= 0xF4));
        for (size_t i = 1; i < n; i++)
            REQUIRE((p[i] & 0xC0) == 0x80);
        p += n;
    }
}

/* The unescaped occurrences of c in the line [s, e). */
static size_t md_count(const char *s, const char *e, char c)
{
    size_t n = 0;
    for (; s < e; s++) {
        if (*s == '\\' && s + 1 < e)
            s++;
        else if (*s == c)
            n++;
    }
    return n;
}

static void check_md(const char *what, const char *s)
{
    REQUIRE(!strchr(s, '<'));
    size_t cols = 0;
    bool header = true;
    for (const char *line = s; *line;) {
        const char *e = strchr(line, '\n');
        if (!e)
            e = line + strlen(line);
        if (*line == '|') {
            size_t pipes = md_count(line, e, '|');
            if (header)
                cols = pipes;
            header = false;
            REQUIRE(pipes == cols);
            REQUIRE(md_count(line, e, '`') == 0);
        } else {
            header = true; /* a blank line ends a table; the next one has its own header */
        }
        line = *e ? e + 1 : e;
    }
}

static bool plain_number(const char *s, size_t n)
{
    char buf[64];
    if (n == 0 || n >= sizeof(buf))
        return false;
    memcpy(buf, s, n);
    buf[n] = 0;
    char *end;
    (void)strtod(buf, &end);
    return *end == 0 && !strpbrk(buf, "xXnNiIpP");
}

static void check_csv(const char *what, const char *s)
{
    size_t cols = 0, fields = 0;
    bool first_record = true;
    const char *p = s;
    while (*p) {
        /* one field */
        char lead = 0;
        const char *start = p;
        size_t len = 0;
        if (*p == '"') {
            p++;
            start = p;
            for (;;) {
                REQUIRE(*p); /* an unterminated quote */
                if (*p == '"' && p[1] == '"') {
                    p += 2, len += 2;
                    continue;
                }
                if (*p == '"')
                    break;
                p++, len++;
            }
            p++;
            REQUIRE(*p == ',' || *p == '\n' || *p == 0);
        } else {
            while (*p && *p != ',' && *p != '\n') {
                REQUIRE(*p != '"' && *p != '\r');
                p++, len++;
            }
        }
        lead = len ? *start : 0;
        if (lead && strchr("=+-@\t\r", lead))
            REQUIRE(plain_number(start, len));
        fields++;
        if (*p == ',') {
            p++;
            continue;
        }
        if (first_record)
            cols = fields;
        REQUIRE(fields == cols);
        first_record = false;
        fields = 0;
        if (*p == '\n')
            p++;
    }
}

static bool known_tag(const char *name, size_t n)
{
    static const char *const tags[] = {
        "!DOCTYPE", "html",    "head",  "meta",   "title",  "link",       "style",    "body",
        "h1",       "h2",      "p",     "div",    "table",  "thead",      "tbody",    "tr",
        "th",       "td",      "span",  "sup",    "a",      "br",         "small",    "ol",
        "ul",       "li",      "code",  "em",     "figure", "figcaption", "script",   "svg",
        "rect",     "text",    "g",     "line",   "circle", "button",     "fieldset", "footer",
        "form",     "input",   "label", "legend", "option", "output",     "select",   "time",
        "details",  "summary",
    };
    for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
        if (strlen(tags[i]) == n && memcmp(tags[i], name, n) == 0)
            return true;
    return false;
}

static void check_markup(const char *what, const char *s)
{
    for (const char *p = s; *p;) {
        unsigned char c = (unsigned char)*p;
        REQUIRE(c >= 0x20 || c == '\t' || c == '\n');
        if (c == '&') {
            static const char *const refs[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#"};
            bool ok = false;
            for (size_t i = 0; i < 5 && !ok; i++)
                ok = strncmp(p, refs[i], strlen(refs[i])) == 0;
            REQUIRE(ok);
            p++;
            continue;
        }
        if (c != '<') {
            p++;
            continue;
        }
        p++;
        bool closing = *p == '/';
        p += closing;
        size_t n = strspn(p, "!ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789");
        REQUIRE(known_tag(p, n));
        bool raw =
            !closing && ((n == 6 && !memcmp(p, "script", 6)) || (n == 5 && !memcmp(p, "style", 5)));
        p += n;
        /* attributes: name="value", the value without '<' or '"' */
        while (*p && *p != '>') {
            if (*p == '"') {
                const char *q = strchr(p + 1, '"');
                REQUIRE(q);
                for (const char *v = p + 1; v < q; v++)
                    REQUIRE(*v != '<');
                p = q + 1;
                continue;
            }
            REQUIRE(*p != '<' && *p != '\'');
            p++;
        }
        REQUIRE(*p == '>');
        p++;
        if (raw) {
            /* the page's own style and script: skipped to their end tag */
            const char *end = strstr(p, n == 6 ? "</script>" : "</style>");
            REQUIRE(end);
            p = end;
        }
    }
}

static void check_json(const char *what, const char *s)
{
    json_object *o = json_tokener_parse(s);
    REQUIRE(o);
    json_object_put(o);
}

static void check_all(const struct ff_pub_set *set)
{
    const char *what = "writer";
    for (const struct ff_pub_writer *w = ff_pub_writers(); w->name; w++) {
        if (!w->table)
            continue; /* a file format (sqlite): not a text */
        struct ff_pub_sb sb;
        ff_pub_sb_init(&sb);
        int rc = w->table(set, &sb);
        what = w->name;
        REQUIRE(rc == 0);
        const char *text = ff_pub_sb_str(&sb);
        check_utf8(what, text);
        if (!strcmp(w->name, "md"))
            check_md(what, text);
        else if (!strcmp(w->name, "csv") || !strcmp(w->name, "ops-csv"))
            check_csv(what, text);
        else if (!strcmp(w->name, "json"))
            check_json(what, text);
        else
            check_markup(what, text);
        ff_pub_sb_finish(&sb);
    }
    for (size_t i = 0; i < ff_pub_chart_count(set); i++) {
        struct ff_pub_sb sb;
        char name[300];
        ff_pub_sb_init(&sb);
        what = "chart";
        REQUIRE(ff_pub_chart(set, i, name, sizeof(name), &sb) == 0);
        check_utf8(what, ff_pub_sb_str(&sb));
        check_markup(what, ff_pub_sb_str(&sb));
        ff_pub_sb_finish(&sb);
    }
    static const char *const formats[] = {"md", "csv", "json"};
    for (size_t f = 0; f < 3; f++) {
        struct ff_pub_sb sb;
        size_t slower;
        ff_pub_sb_init(&sb);
        what = formats[f];
        REQUIRE(ff_pub_compare(set, set, formats[f], &sb, &slower) == 0);
        const char *text = ff_pub_sb_str(&sb);
        check_utf8(what, text);
        if (f == 0)
            check_md("compare md", text);
        else if (f == 1)
            check_csv("compare csv", text);
        else
            check_json("compare json", text);
        ff_pub_sb_finish(&sb);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    if (ff_fuzz_write_file("results", data, size, path) != 0)
        return 0;
    struct ff_pub_set *set = NULL;
    struct ff_pub_options opts;
    char err[512];
    ff_pub_options_init(&opts);
    if (ff_pub_set_create(&set) == 0 && ff_pub_set_add(set, path, err, sizeof(err)) == 0 &&
        ff_pub_set_finish(set, &opts, err, sizeof(err)) == 0)
        check_all(set);
    ff_pub_set_destroy(&set);
    unlink(path);
    return 0;
}
