/*
 * tests/results/test_jschema.c — the JSON Schema validator behind `flopfit results submit`
 * (results/src/jschema.h): each keyword it implements passes what it should and names the
 * offending value by its JSON pointer; keywords it does not implement are refused; the
 * embedded results/profile.schema.json is the file in the source tree and accepts the test
 * profiles.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <json-c/json.h>

#include <flopfit/status.h>

#include "jschema.h"

#ifndef FF_SOURCE_ROOT
#error "FF_SOURCE_ROOT must name the source tree"
#endif

static json_object *js(const char *text)
{
    json_object *o = json_tokener_parse(text);
    cr_assert(o || strcmp(text, "null") == 0, "not JSON: %s", text);
    return o;
}

/* validate text against schema text; the pointer and message into e */
static int run(const char *schema, const char *inst, struct ff_jschema_error *e)
{
    json_object *s = js(schema), *i = js(inst);
    int rc = ff_jschema_validate(s, i, e);
    json_object_put(s);
    json_object_put(i);
    return rc;
}

static void ok(const char *schema, const char *inst)
{
    struct ff_jschema_error e;
    cr_expect_eq(run(schema, inst, &e), FF_OK, "%s against %s: %s: %s", inst, schema, e.pointer,
                 e.what);
}

static void bad(const char *schema, const char *inst, const char *pointer, const char *word)
{
    struct ff_jschema_error e;
    cr_expect_eq(run(schema, inst, &e), FF_ERR_INVALID, "%s passed %s", inst, schema);
    cr_expect_str_eq(e.pointer, pointer, "%s: %s", inst, e.what);
    cr_expect(strstr(e.what, word), "%s: %s lacks %s", inst, e.what, word);
}

Test(jschema, type)
{
    ok("{\"type\":\"integer\"}", "3");
    ok("{\"type\":\"integer\"}", "3.0");
    bad("{\"type\":\"integer\"}", "3.5", "", "expected type integer");
    ok("{\"type\":[\"number\",\"null\"]}", "null");
    ok("{\"type\":\"number\"}", "-1e300");
    bad("{\"type\":\"number\"}", "true", "", "expected type number");
    bad("{\"type\":\"string\"}", "[]", "", "is []");
    ok("{\"type\":\"boolean\"}", "false");
    ok("{\"type\":\"object\"}", "{}");
    bad("{\"type\":\"array\"}", "{}", "", "array");
}

Test(jschema, objects_and_pointers)
{
    const char *s = "{\"type\":\"object\",\"required\":[\"a\"],\"additionalProperties\":false,"
                    "\"properties\":{\"a\":{\"type\":\"string\"},\"x/y~z\":{\"type\":\"object\","
                    "\"additionalProperties\":{\"type\":\"integer\"}}}}";
    ok(s, "{\"a\":\"\"}");
    bad(s, "{}", "", "required field \"a\"");
    bad(s, "{\"a\":\"\",\"b\":1}", "/b", "does not know (\"b\")");
    bad(s, "{\"a\":1}", "/a", "expected type string");
    bad(s, "{\"a\":\"\",\"x/y~z\":{\"k\":\"v\"}}", "/x~1y~0z/k", "integer");
    ok(s, "{\"a\":\"\",\"x/y~z\":{\"k\":7}}");
}

Test(jschema, arrays)
{
    const char *s = "{\"type\":\"array\",\"minItems\":2,\"items\":{\"enum\":[\"p\",1,null]}}";
    ok(s, "[\"p\",1.0,null]");
    bad(s, "[\"p\"]", "", "at least 2");
    bad(s, "[\"p\",\"q\"]", "/1", "one of \"p\", 1, null");
}

Test(jschema, const_pattern_bounds)
{
    ok("{\"const\":{\"a\":[1,2]}}", "{\"a\":[1,2.0]}");
    bad("{\"const\":\"flopfit.profile\"}", "\"flopfit.fleet\"", "", "expected \"flopfit.profile\"");
    const char *h = "{\"type\":\"string\",\"pattern\":\"^sha256:[0-9a-f]{64}$\"}";
    ok(h, "\"sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"");
    bad(h, "\"sha256:0123\"", "", "matching");
    bad(h, "\"sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdeF\"", "",
        "matching");
    ok("{\"pattern\":\"^a\"}", "3"); /* pattern applies to strings only */
    ok("{\"minimum\":0,\"maximum\":1e21}", "1e21");
    bad("{\"minimum\":0,\"maximum\":1e21}", "1.1e21", "", "at most");
    bad("{\"minimum\":0}", "-1", "", "at least 0");
    ok("{\"minimum\":0}", "\"text\""); /* bounds apply to numbers only */
}

Test(jschema, refs_and_refusals)
{
    const char *s = "{\"$defs\":{\"t\":{\"type\":\"integer\"}},\"items\":{\"$ref\":\"#/$defs/t\"}}";
    ok(s, "[1,2]");
    bad(s, "[1,\"2\"]", "/1", "integer");
    struct ff_jschema_error e;
    cr_expect_eq(run("{\"oneOf\":[]}", "1", &e), FF_ERR_UNSUPPORTED);
    cr_expect(strstr(e.pointer, "oneOf") && strstr(e.what, "not a keyword"), "%s %s", e.pointer,
              e.what);
    cr_expect_eq(run("{\"$ref\":\"#/nowhere\"}", "1", &e), FF_ERR_UNSUPPORTED);
    cr_expect_eq(run("{\"$ref\":\"http://x/y\"}", "1", &e), FF_ERR_UNSUPPORTED);
    cr_expect_eq(run("{\"type\":\"float\"}", "1", &e), FF_ERR_UNSUPPORTED);
    cr_expect_eq(run("{\"pattern\":\"(\"}", "\"x\"", &e), FF_ERR_UNSUPPORTED);
    /* a schema that refers to itself ends at the depth limit, not in a loop */
    cr_expect_eq(run("{\"$ref\":\"#\"}", "1", &e), FF_ERR_INVALID);
    cr_expect(strstr(e.what, "deeper"), "%s", e.what);
    ok("true", "{\"anything\":1}");
    bad("false", "1", "", "not allowed");
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    static char buf[1 << 20];
    *len = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[*len] = 0;
    char *copy = malloc(*len + 1);
    memcpy(copy, buf, *len + 1);
    return copy;
}

Test(jschema, embedded_profile_schema)
{
    size_t n = 0, m = 0;
    const char *emb = ff_profile_schema_text(&n);
    char *file = slurp(FF_SOURCE_ROOT "/results/profile.schema.json", &m);
    cr_expect(n == m && memcmp(emb, file, n) == 0, "the embedded schema is not the file's text");
    free(file);
    json_object *s = json_tokener_parse(emb);
    cr_assert(s, "the embedded schema is not JSON");

    char *text = slurp(FF_SOURCE_ROOT "/tests/results/data/pocl.json", &m);
    json_object *p = json_tokener_parse(text);
    free(text);
    struct ff_jschema_error e;
    cr_expect_eq(ff_jschema_validate(s, p, &e), FF_OK, "pocl.json: %s: %s", e.pointer, e.what);
    json_object *tests = json_object_object_get(p, "tests");
    json_object *t3 = json_object_array_get_idx(tests, 3);
    json_object_object_add(t3, "status", json_object_new_string("fine"));
    cr_expect_eq(ff_jschema_validate(s, p, &e), FF_ERR_INVALID);
    cr_expect_str_eq(e.pointer, "/tests/3/status");
    json_object_object_add(t3, "status", json_object_new_string("ok"));
    json_object_object_add(p, "run", json_object_new_object());
    cr_expect_eq(ff_jschema_validate(s, p, &e), FF_ERR_INVALID);
    cr_expect_str_eq(e.pointer, "/run");
    cr_expect(strstr(e.what, "\"kind\""), "%s", e.what);
    json_object_put(p);
    json_object_put(s);
}
