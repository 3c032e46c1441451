/* results/src/escape.c: each output format's escape, string by string. */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "escape.h"

typedef void (*esc_fn)(struct ff_pub_sb *, const char *);

static void expect(esc_fn f, const char *in, const char *want)
{
    struct ff_pub_sb b;
    ff_pub_sb_init(&b);
    f(&b, in);
    cr_assert_eq(ff_pub_sb_status(&b), 0);
    cr_assert_str_eq(ff_pub_sb_str(&b), want, "in: %s", in);
    ff_pub_sb_finish(&b);
}

struct pair {
    const char *in, *want;
};

static void expect_all(esc_fn f, const struct pair *cases, size_t n)
{
    for (size_t i = 0; i < n; i++)
        expect(f, cases[i].in, cases[i].want);
}

Test(escape, html_and_xml)
{
    static const struct pair cases[] = {
        {"<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"},
        {"a\"b'c&amp;", "a&quot;b&#39;c&amp;amp;"},
        {"]]>", "]]&gt;"},
        {"t\tn\nr\r\x01\x1f\x7f end", "t\tn\nr end"},
        {"c1 \xc2\x85\xc2\x9b.", "c1 ."},
        {"rtl \xe2\x80\xae!\xe2\x81\xa6", "rtl !"},
        {"bad \xff \xc3( \xc0\xbc \xed\xa0\x80 \xf4\x90\x80\x80",
         "bad \xef\xbf\xbd \xef\xbf\xbd( \xef\xbf\xbd\xef\xbf\xbd "
         "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
         "\xef\xbf\xbd"},
        {"nonchar \xef\xbf\xbe", "nonchar \xef\xbf\xbd"},
        {"µ ± ≥ 日本", "µ ± ≥ 日本"},
        {NULL, ""},
    };
    expect_all(ff_pub_esc_html, cases, sizeof(cases) / sizeof(cases[0]));
    expect_all(ff_pub_esc_xml, cases, sizeof(cases) / sizeof(cases[0]));
}

Test(escape, markdown)
{
    static const struct pair cases[] = {
        {"a | b", "a \\| b"},
        {"`x` \\", "\\`x\\` \\\\"},
        {"<img src=x> &amp;", "&lt;img src=x&gt; &amp;amp;"},
        {"# h", "\\# h"},
        {"-2+3", "\\-2+3"},
        {"+x", "\\+x"},
        {"a-b #c", "a-b #c"},
        {"cl_khr_fp16", "cl_khr_fp16"},
        {"one\ntwo\r\nthree\tfour", "one two  three four"},
        {"\x01# hidden", "\\# hidden"},
    };
    expect_all(ff_pub_esc_md, cases, sizeof(cases) / sizeof(cases[0]));
}

Test(escape, markdown_code)
{
    static const struct pair cases[] = {
        {"a/b.json", "`a/b.json`"},
        {"a`b", "``a`b``"},
        {"``x", "``` ``x ```"},
        {"x\n`\x01", "`` x ` ``"},
    };
    expect_all(ff_pub_esc_md_code, cases, sizeof(cases) / sizeof(cases[0]));
}

Test(escape, url)
{
    static const struct pair cases[] = {
        {"amd/x-1.0_a~b.json", "amd/x-1.0_a~b.json"},
        {"a b)(<\"'", "a%20b%29%28%3C%22%27"},
    };
    expect_all(ff_pub_esc_url, cases, sizeof(cases) / sizeof(cases[0]));
}

Test(escape, csv)
{
    static const struct pair cases[] = {
        {"plain", "plain"},
        {"a,b", "\"a,b\""},
        {"say \"hi\"", "\"say \"\"hi\"\"\""},
        {"=1+2", "'=1+2"},
        {"+cmd", "'+cmd"},
        {"-2+3", "'-2+3"},
        {"@SUM(A1)", "'@SUM(A1)"},
        {"\t=x", "'\t=x"},
        {"\r=x", "\"'\r=x\""},
        {"=a,b", "\"'=a,b\""},
        {"\x01=hidden", "'=hidden"},
        {"-12.5", "-12.5"},
        {"-1e-3", "-1e-3"},
        {"+5", "+5"},
        {"-", "'-"},
        {"-1e", "'-1e"},
        {"a-b", "a-b"},
        {"two\nlines", "\"two\nlines\""},
        {"bad \xff", "bad \xef\xbf\xbd"},
        {"", ""},
    };
    expect_all(ff_pub_esc_csv, cases, sizeof(cases) / sizeof(cases[0]));
}

Test(escape, terminal)
{
    expect(ff_pub_esc_term, "\x1b[31mred\x1b]0;t\x07\n\xc2\x9b", "[31mred]0;t ");
}

Test(escape, json)
{
    json_object *o = ff_pub_json_text("a\xff\"\x01");
    cr_assert(o);
    cr_assert_str_eq(json_object_to_json_string(o), "\"a\xef\xbf\xbd\\\"\\u0001\"");
    json_object_put(o);
    o = ff_pub_json_text("keep \xef\xbf\xbd µ");
    cr_assert_str_eq(json_object_get_string(o), "keep \xef\xbf\xbd µ");
    json_object_put(o);
    cr_assert_null(ff_pub_json_text(NULL));
}
