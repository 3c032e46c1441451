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

Test(escape, html_and_xml)
{
    esc_fn fs[] = {ff_pub_esc_html, ff_pub_esc_xml};
    for (int i = 0; i < 2; i++) {
        expect(fs[i], "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;");
        expect(fs[i], "a\"b'c&amp;", "a&quot;b&#39;c&amp;amp;");
        expect(fs[i], "]]>", "]]&gt;");
        expect(fs[i], "t\tn\nr\r\x01\x1f\x7f end", "t\tn\nr end");
        expect(fs[i], "c1 \xc2\x85\xc2\x9b.", "c1 .");
        expect(fs[i], "rtl \xe2\x80\xae!\xe2\x81\xa6", "rtl !");
        expect(fs[i], "bad \xff \xc3( \xc0\xbc \xed\xa0\x80 \xf4\x90\x80\x80",
               "bad \xef\xbf\xbd \xef\xbf\xbd( \xef\xbf\xbd\xef\xbf\xbd "
               "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
               "\xef\xbf\xbd");
        expect(fs[i], "nonchar \xef\xbf\xbe", "nonchar \xef\xbf\xbd");
        expect(fs[i], "µ ± ≥ 日本", "µ ± ≥ 日本");
        expect(fs[i], NULL, "");
    }
}

Test(escape, markdown)
{
    expect(ff_pub_esc_md, "a | b", "a \\| b");
    expect(ff_pub_esc_md, "`x` \\", "\\`x\\` \\\\");
    expect(ff_pub_esc_md, "<img src=x> &amp;", "&lt;img src=x&gt; &amp;amp;");
    expect(ff_pub_esc_md, "# h", "\\# h");
    expect(ff_pub_esc_md, "-2+3", "\\-2+3");
    expect(ff_pub_esc_md, "+x", "\\+x");
    expect(ff_pub_esc_md, "a-b #c", "a-b #c");
    expect(ff_pub_esc_md, "[l](javascript:x) *e* _e_ ~~s~~",
           "\\[l\\](javascript:x) \\*e\\* \\_e\\_ \\~\\~s\\~\\~");
    expect(ff_pub_esc_md, "cl_khr_fp16", "cl_khr_fp16");
    expect(ff_pub_esc_md, "one\ntwo\r\nthree\tfour", "one two  three four");
    expect(ff_pub_esc_md, "\x01# hidden", "\\# hidden");
}

Test(escape, markdown_code)
{
    expect(ff_pub_esc_md_code, "a/b.json", "`a/b.json`");
    expect(ff_pub_esc_md_code, "a`b", "``a`b``");
    expect(ff_pub_esc_md_code, "``x", "``` ``x ```");
    expect(ff_pub_esc_md_code, "x\n`\x01", "`` x ` ``");
}

Test(escape, url)
{
    expect(ff_pub_esc_url, "amd/x-1.0_a~b.json", "amd/x-1.0_a~b.json");
    expect(ff_pub_esc_url, "a b)(<\"'", "a%20b%29%28%3C%22%27");
}

Test(escape, csv)
{
    expect(ff_pub_esc_csv, "plain", "plain");
    expect(ff_pub_esc_csv, "a,b", "\"a,b\"");
    expect(ff_pub_esc_csv, "say \"hi\"", "\"say \"\"hi\"\"\"");
    expect(ff_pub_esc_csv, "=1+2", "'=1+2");
    expect(ff_pub_esc_csv, "+cmd", "'+cmd");
    expect(ff_pub_esc_csv, "-2+3", "'-2+3");
    expect(ff_pub_esc_csv, "@SUM(A1)", "'@SUM(A1)");
    expect(ff_pub_esc_csv, "\t=x", "'\t=x");
    expect(ff_pub_esc_csv, "\r=x", "\"'\r=x\"");
    expect(ff_pub_esc_csv, "=a,b", "\"'=a,b\"");
    expect(ff_pub_esc_csv, "\x01=hidden", "'=hidden");
    expect(ff_pub_esc_csv, "-12.5", "-12.5");
    expect(ff_pub_esc_csv, "-1e-3", "-1e-3");
    expect(ff_pub_esc_csv, "+5", "+5");
    expect(ff_pub_esc_csv, "-", "'-");
    expect(ff_pub_esc_csv, "-1e", "'-1e");
    expect(ff_pub_esc_csv, "a-b", "a-b");
    expect(ff_pub_esc_csv, "two\nlines", "\"two\nlines\"");
    expect(ff_pub_esc_csv, "bad \xff", "bad \xef\xbf\xbd");
    expect(ff_pub_esc_csv, "", "");
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
