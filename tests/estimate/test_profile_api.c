/*
 * tests/estimate/test_profile_api.c — the public profile reader (flopfit/profile.h): the
 * published profiles open with every field, and files that could crash, hang or fool a
 * reader are refused with a message naming the file and the field.
 */
#include <fcntl.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common.h"
#include "flopfit/profile.h"

#ifndef FF_TEST_DATA
#error "FF_TEST_DATA must point at tests/estimate/data"
#endif
#ifndef FF_RESULTS_DIR
#error "FF_RESULTS_DIR must point at results/"
#endif

static int parse(const char *text, struct ff_profile_doc **doc, char *err, size_t n)
{
    return ff_profile_parse(text, strlen(text), "inline.json", doc, err, n);
}

static int open_data(const char *file, struct ff_profile_doc **doc, char *err, size_t n)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", FF_TEST_DATA, file);
    return ff_profile_open(path, doc, err, n);
}

/* A valid profile with `test` as its only test. */
static int parse_test(const char *test, struct ff_profile_doc **doc, char *err, size_t n)
{
    char text[2048];
    snprintf(text, sizeof(text),
             "{\"schema\": \"flopfit.profile\", \"schema_version\": \"1.0\", "
             "\"device\": {\"name\": \"x\"}, \"complete\": true, \"tests\": [%s]}",
             test);
    return parse(text, doc, err, n);
}

#define HEAD "{\"schema\": \"flopfit.profile\", \"schema_version\": \"1.0\", "

Test(profile_api, published_profiles_open_with_every_field)
{
    glob_t g;
    cr_assert_eq(glob(FF_RESULTS_DIR "/*/*/*.json", 0, NULL, &g), 0, "no published profiles");
    cr_assert_geq(g.gl_pathc, 1);
    for (size_t f = 0; f < g.gl_pathc; f++) {
        const char *path = g.gl_pathv[f];
        struct ff_profile_doc *doc = NULL;
        char err[512] = "";
        cr_assert_eq(ff_profile_open(path, &doc, err, sizeof(err)), FF_OK, "%s", err);
        const struct ff_profile_info *i = ff_profile_info(doc);
        cr_expect_str_eq(i->label, path);
        cr_expect_eq(i->version_major, FF_PF_VERSION_MAJOR);
        cr_expect(i->tool_name && !strcmp(i->tool_name, "flopfit"), "%s", path);
        cr_expect(i->tool_version && i->tool_git && i->created, "%s", path);
        cr_expect(i->host.os && i->host.kernel && i->host.cpu, "%s", path);
        cr_expect_gt(i->host.cpus, 0);
        cr_expect_gt(i->host.ram_bytes, 0);
        cr_expect(i->device.backend && i->device.name && i->device.vendor, "%s", path);
        cr_expect(i->device.driver_version && i->device.api_version && i->device.type);
        cr_expect_gt(i->device.global_mem_bytes, 0);
        cr_expect_gt(i->device.max_alloc_bytes, 0);
        size_t n = ff_profile_test_count(doc);
        cr_expect_gt(n, 5, "%s: %zu tests", path, n);
        size_t ok = 0, timed = 0, usable = 0;
        for (size_t k = 0; k < n; k++) {
            const struct ff_profile_test *t = ff_profile_test_at(doc, k);
            cr_assert(t && t->family && t->name && t->status_text);
            if (t->status == FF_PROFILE_TEST_OK) {
                ok++;
                cr_expect(t->has_value && t->unit, "%s test %zu", path, k);
            } else {
                cr_expect(!t->has_value && t->reason, "%s test %zu", path, k);
            }
            if (t->device_time_s.present) {
                timed++;
                cr_expect_gt(t->repetitions, 0);
                cr_expect(t->device_time_s.min_s <= t->device_time_s.max_s);
            }
            if (!strcmp(t->family, "matmul") && t->status == FF_PROFILE_TEST_OK) {
                cr_expect(t->m && t->n && t->k && t->has_error && t->prec >= 0);
                if (t->prec == FF_PREC_FP32) /* int8 is exact: tolerance 0 */
                    cr_expect_gt(t->tolerance, 0.0);
            }
            if (!strcmp(t->family, "memory") && !strcmp(t->name, "usable")) {
                usable++;
                cr_expect_gt(t->reported_bytes, 0.0);
                cr_expect_gt(t->chunk_bytes, 0.0);
                cr_expect_gt(t->probe_s, 0.0);
                double tl = -1;
                cr_expect_eq(ff_profile_test_number(doc, k, "time_limited", &tl), FF_OK);
                cr_expect_eq(tl, t->time_limited ? 1.0 : 0.0);
            }
            if (!strcmp(t->family, "bandwidth") && t->status == FF_PROFILE_TEST_OK)
                cr_expect_gt(t->limit_bytes_per_s, 0.0);
        }
        cr_expect_gt(ok, 0);
        cr_expect_gt(timed, 0);
        cr_expect_eq(usable, 1, "%s", path);
        cr_expect_null(ff_profile_test_at(doc, n));
        ff_profile_close(&doc);
        cr_expect_null(doc, "close clears the pointer");
    }
    globfree(&g);
}

Test(profile_api, fields_of_a_small_profile)
{
    struct ff_profile_doc *doc = NULL;
    char err[512] = "";
    cr_assert_eq(open_data("profile-full.json", &doc, err, sizeof(err)), FF_OK, "%s", err);
    const struct ff_profile_info *i = ff_profile_info(doc);
    cr_expect_str_eq(i->schema_version, "1.0");
    cr_expect_eq(i->version_minor, 0);
    cr_expect_str_eq(i->tool_git, "3f2c1a9b0d4e");
    cr_expect_str_eq(i->created, "2026-11-29T22:40:11Z");
    cr_expect_null(i->host.os, "absent host");
    cr_expect_str_eq(i->device.name, "Test GPU");
    cr_expect_eq(i->device.global_mem_bytes, 25769803776ull);
    cr_expect_eq(i->device.clock_mhz, 0);
    cr_expect(i->complete);
    cr_assert_eq(ff_profile_test_count(doc), 9);
    const struct ff_profile_test *t = ff_profile_test_at(doc, 1);
    cr_expect_str_eq(t->impl, "clblast");
    cr_expect_eq(t->prec, FF_PREC_FP32);
    cr_expect_eq(t->value, 2.5e13);
    t = ff_profile_test_at(doc, 4);
    cr_expect_eq(t->status, FF_PROFILE_TEST_UNSUPPORTED);
    cr_expect_str_eq(t->reason, "no int8 dot product");
    cr_expect(!t->has_value && t->value == 0.0);
    t = ff_profile_test_at(doc, 5);
    cr_expect_null(t->impl);
    cr_expect_eq(t->prec, -1);
    double x;
    cr_expect_eq(ff_profile_test_number(doc, 5, "value", &x), FF_OK);
    cr_expect_eq(x, 23622320128.0);
    cr_expect_eq(ff_profile_test_number(doc, 5, "nope", &x), FF_ERR_NOT_FOUND);
    cr_expect_eq(ff_profile_test_number(doc, 5, "unit", &x), FF_ERR_INVALID);
    cr_expect_eq(ff_profile_test_number(doc, 99, "value", &x), FF_ERR_NOT_FOUND);
    ff_profile_close(&doc);
    ff_profile_close(&doc); /* NULL-safe, twice */
    ff_profile_close(NULL);
    cr_expect_eq(ff_profile_test_count(NULL), 0);
    cr_expect_null(ff_profile_info(NULL));
}

Test(profile_api, memory_entry_needs_no_terminator_and_copies)
{
    const char *text = HEAD "\"device\": {}, \"tests\": []}GARBAGE";
    size_t len = strlen(text) - strlen("GARBAGE");
    char *copy = malloc(len);
    memcpy(copy, text, len); /* not NUL-terminated */
    struct ff_profile_doc *doc = NULL;
    char err[512] = "";
    cr_assert_eq(ff_profile_parse(copy, len, NULL, &doc, err, sizeof(err)), FF_OK, "%s", err);
    free(copy); /* the document keeps nothing of the text */
    cr_expect_str_eq(ff_profile_info(doc)->label, "profile");
    cr_expect_str_eq(ff_profile_info(doc)->schema_version, "1.0");
    cr_expect(!ff_profile_info(doc)->complete);
    cr_expect_eq(ff_profile_test_count(doc), 0);
    ff_profile_close(&doc);
}

Test(profile_api, schema_and_version_are_checked)
{
    struct ff_profile_doc *doc = (struct ff_profile_doc *)&doc; /* must be reset to NULL */
    char err[512] = "";
    cr_expect_eq(open_data("profile-v2.json", &doc, err, sizeof(err)), FF_ERR_UNSUPPORTED);
    cr_expect_null(doc);
    cr_expect(strstr(err, "profile-v2.json") && strstr(err, "2.0") && strstr(err, "1.x"), "%s",
              err);
    cr_expect_eq(open_data("profile-wrong-schema.json", &doc, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "\"schema\"") && strstr(err, "something.else"), "%s", err);
    cr_expect_eq(parse(HEAD "\"device\": {}}", &doc, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "\"tests\"") && strstr(err, "missing"), "%s", err);
    cr_expect_eq(parse(HEAD "\"tests\": []}", &doc, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "\"device\""), "%s", err);
    static const char *const versions[] = {"\"1\"", "\"1.\"", "\"x.0\"",          "\"1.0beta\"",
                                           "1.0",   "null",   "\"99999999999.0\""};
    for (size_t k = 0; k < sizeof(versions) / sizeof(versions[0]); k++) {
        char text[256];
        snprintf(text, sizeof(text),
                 "{\"schema\": \"flopfit.profile\", \"schema_version\": %s, \"device\": {}, "
                 "\"tests\": []}",
                 versions[k]);
        cr_expect_eq(parse(text, &doc, err, sizeof(err)), FF_ERR_INVALID, "%s", versions[k]);
        cr_expect(strstr(err, "schema_version"), "%s", err);
    }
    cr_expect_eq(parse("{\"schema\": \"flopfit.profile\", \"schema_version\": \"0.9\"}", &doc, err,
                       sizeof(err)),
                 FF_ERR_UNSUPPORTED);
    cr_expect_eq(parse(HEAD "\"device\": {}, \"tests\": []}", &doc, err, sizeof(err)), FF_OK);
    ff_profile_close(&doc);
    cr_expect_eq(parse("{\"schema\": \"flopfit.profile\", \"schema_version\": \"1.7\", "
                       "\"device\": {}, \"tests\": [], \"new_in_1_7\": {\"x\": [1, 2]}}",
                       &doc, err, sizeof(err)),
                 FF_OK, "unknown fields of a newer minor version are ignored: %s", err);
    cr_expect_eq(ff_profile_info(doc)->version_minor, 7);
    ff_profile_close(&doc);
}

Test(profile_api, not_json_is_refused_with_the_position)
{
    struct ff_profile_doc *doc = NULL;
    char err[512] = "";
    static const char *const bad[] = {
        "",   "   ", "[1, 2]", "{\"schema\": ", "{} {}", "{}x", "{'schema': 1}", "{\"a\": 1,}",
        "42", "null"};
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        cr_expect_eq(parse(bad[k], &doc, err, sizeof(err)), FF_ERR_INVALID, "'%s'", bad[k]);
        cr_expect(strstr(err, "inline.json"), "%s", err);
        cr_expect_null(doc);
    }
    cr_expect_eq(open_data("bad-truncated.json", &doc, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "bad-truncated.json") && strstr(err, "not valid JSON"), "%s", err);
    const char nul[] = HEAD "\"device\": {}, \"tests\": []}\0";
    cr_expect_eq(ff_profile_parse(nul, sizeof(nul) - 1, "nul.json", &doc, err, sizeof(err)),
                 FF_ERR_INVALID);
    cr_expect(strstr(err, "NUL"), "%s", err);
    size_t big = (size_t)FF_PROFILE_MAX_BYTES + 1;
    char *huge = malloc(big);
    memset(huge, ' ', big);
    cr_expect_eq(ff_profile_parse(huge, big, "huge.json", &doc, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "huge.json") && strstr(err, "limit"), "%s", err);
    free(huge);
    cr_expect_eq(ff_profile_parse(NULL, 0, "x", &doc, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect_eq(ff_profile_parse("{}", 2, "x", NULL, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect_eq(ff_profile_open(NULL, &doc, NULL, 0), FF_ERR_INVALID, "err may be NULL");
}

Test(profile_api, non_finite_numbers_are_refused_anywhere)
{
    struct ff_profile_doc *doc = NULL;
    char err[512] = "";
    cr_expect_eq(open_data("profile-infinity.json", &doc, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "profile-infinity.json") && strstr(err, "tests[0].value") &&
                  strstr(err, "finite"),
              "%s", err);
    static const char *const tokens[] = {"Infinity", "-Infinity", "NaN", "1e999", "-1e999"};
    for (size_t k = 0; k < sizeof(tokens) / sizeof(tokens[0]); k++) {
        char test[256];
        snprintf(test, sizeof(test),
                 "{\"family\": \"x\", \"name\": \"y\", \"status\": \"ok\", "
                 "\"unknown_extra\": [1, {\"deep\": %s}]}",
                 tokens[k]);
        cr_expect_eq(parse_test(test, &doc, err, sizeof(err)), FF_ERR_INVALID, "%s", tokens[k]);
        cr_expect(strstr(err, "tests[0].unknown_extra[1].deep"), "%s", err);
    }
    cr_expect_eq(parse(HEAD "\"device\": {\"global_mem_bytes\": Infinity}, \"tests\": []}", &doc,
                       err, sizeof(err)),
                 FF_ERR_INVALID);
    cr_expect(strstr(err, "device.global_mem_bytes"), "%s", err);
}

Test(profile_api, absurd_figures_are_refused)
{
    struct ff_profile_doc *doc = NULL;
    char err[512] = "";
    cr_expect_eq(open_data("profile-absurd-bytes.json", &doc, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "tests[0].value") && strstr(err, "1e+308"), "%s", err);
    static const struct {
        const char *test, *field;
    } bad[] = {
        {"{\"family\":\"memory\",\"name\":\"usable\",\"status\":\"ok\",\"value\":-1,\"unit\":"
         "\"B\"}",
         "tests[0].value"},
        {"{\"family\":\"matmul\",\"name\":\"matmul\",\"status\":\"ok\",\"value\":1e25,"
         "\"unit\":\"FLOP/s\"}",
         "tests[0].value"},
        {"{\"family\":\"bandwidth\",\"name\":\"read\",\"status\":\"ok\",\"value\":1e19,"
         "\"unit\":\"B/s\"}",
         "tests[0].value"},
        {"{\"family\":\"latency\",\"name\":\"launch\",\"status\":\"ok\",\"value\":-1e-6,"
         "\"unit\":\"s\"}",
         "tests[0].value"},
        {"{\"family\":\"x\",\"name\":\"y\",\"status\":\"ok\",\"bytes\":-5}", "tests[0].bytes"},
        {"{\"family\":\"x\",\"name\":\"y\",\"status\":\"ok\",\"bytes\":1.5}", "tests[0].bytes"},
        {"{\"family\":\"x\",\"name\":\"y\",\"status\":\"ok\",\"shape\":{\"m\":1e12}}",
         "tests[0].shape.m"},
        {"{\"family\":\"x\",\"name\":\"y\",\"status\":\"ok\",\"repetitions\":-1}",
         "tests[0].repetitions"},
        {"{\"family\":\"x\",\"name\":\"y\",\"status\":\"ok\",\"device_time_s\":{\"median\":-1}}",
         "tests[0].device_time_s.median"},
        {"{\"family\":\"x\",\"name\":\"y\",\"status\":\"ok\",\"error\":{\"max_abs\":-1}}",
         "tests[0].error.max_abs"},
        {"{\"family\":\"x\",\"name\":\"y\",\"status\":\"ok\",\"cap_bytes\":1e300}",
         "tests[0].cap_bytes"},
        {"{\"family\":\"x\",\"name\":\"y\",\"status\":\"ok\",\"reported_bytes\":"
         "18446744073709551615}",
         "tests[0].reported_bytes"},
        {"{\"family\":\"x\",\"name\":\"y\",\"status\":\"failed\",\"reason\":\"r\",\"value\":1}",
         "tests[0].value"},
        {"{\"family\":\"x\",\"name\":\"y\",\"status\":\"ok\",\"verified\":\"yes\"}",
         "tests[0].verified"},
        {"{\"family\":\"x\",\"name\":\"y\",\"status\":\"ok\",\"capped\":1}", "tests[0].capped"},
        {"{\"family\":\"x\",\"name\":\"y\",\"status\":\"ok\",\"value\":\"1e12\"}",
         "tests[0].value"},
        {"{\"family\":7,\"name\":\"y\",\"status\":\"ok\"}", "tests[0].family"},
        {"{\"name\":\"y\",\"status\":\"ok\"}", "tests[0].family"},
        {"{\"family\":\"x\",\"name\":\"y\"}", "tests[0].status"},
        {"{\"family\":\"x\",\"name\":\"y\",\"status\":\"ok\",\"shape\":[1,2,3]}", "tests[0].shape"},
        {"[]", "tests[0]"},
        {"null", "tests[0]"},
    };
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        cr_expect_eq(parse_test(bad[k].test, &doc, err, sizeof(err)), FF_ERR_INVALID, "%s",
                     bad[k].test);
        cr_expect(strstr(err, "inline.json") && strstr(err, bad[k].field), "%s: %s", bad[k].field,
                  err);
        cr_expect_null(doc);
    }
    static const char *const bad_device[] = {
        "{\"global_mem_bytes\": -1}",         "{\"global_mem_bytes\": 1e300}", "{\"name\": 5}",
        "{\"features\": {\"fp16\": \"no\"}}", "{\"clock_mhz\": 1e9}",          "[]"};
    for (size_t k = 0; k < sizeof(bad_device) / sizeof(bad_device[0]); k++) {
        char text[512];
        snprintf(text, sizeof(text), HEAD "\"device\": %s, \"tests\": []}", bad_device[k]);
        cr_expect_eq(parse(text, &doc, err, sizeof(err)), FF_ERR_INVALID, "%s", bad_device[k]);
        cr_expect(strstr(err, "device"), "%s", err);
    }
    /* The edges that are fine: a negative difference, null as absent, an unknown status. */
    cr_expect_eq(parse_test("{\"family\":\"memory\",\"name\":\"usable\",\"status\":\"ok\","
                            "\"difference_bytes\":-1048576,\"value\":null,\"unit\":\"B\","
                            "\"impl\":null}",
                            &doc, err, sizeof(err)),
                 FF_OK, "%s", err);
    const struct ff_profile_test *t = ff_profile_test_at(doc, 0);
    cr_expect_eq(t->difference_bytes, -1048576.0);
    cr_expect(!t->has_value);
    cr_expect_null(t->impl);
    ff_profile_close(&doc);
    cr_expect_eq(parse_test("{\"family\":\"x\",\"name\":\"y\",\"status\":\"skipped\"}", &doc, err,
                            sizeof(err)),
                 FF_OK, "%s", err);
    cr_expect_eq(ff_profile_test_at(doc, 0)->status, FF_PROFILE_TEST_OTHER);
    cr_expect_str_eq(ff_profile_test_at(doc, 0)->status_text, "skipped");
    ff_profile_close(&doc);
}

Test(profile_api, only_regular_files_up_to_the_cap_are_read, .timeout = 20)
{
    struct ff_profile_doc *doc = NULL;
    char err[512] = "";
    cr_expect_eq(ff_profile_open("/dev/zero", &doc, err, sizeof(err)), FF_ERR_IO,
                 "/dev/zero returns at once");
    cr_expect(strstr(err, "/dev/zero") && strstr(err, "not a regular file"), "%s", err);
    cr_expect_eq(ff_profile_open(FF_TEST_DATA, &doc, err, sizeof(err)), FF_ERR_IO);
    cr_expect(strstr(err, "directory"), "%s", err);
    cr_expect_eq(open_data("no-such-profile.json", &doc, err, sizeof(err)), FF_ERR_IO);
    cr_expect(strstr(err, "no-such-profile.json") && strstr(err, "cannot open"), "%s", err);

    char dir[] = "/tmp/ff-profile-api-XXXXXX";
    cr_assert(mkdtemp(dir));
    char fifo[300], big[300];
    snprintf(fifo, sizeof(fifo), "%s/fifo.json", dir);
    snprintf(big, sizeof(big), "%s/big.json", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    /* No writer ever opens the FIFO: a blocking open would hang here until the timeout. */
    cr_expect_eq(ff_profile_open(fifo, &doc, err, sizeof(err)), FF_ERR_IO);
    cr_expect(strstr(err, "fifo.json") && strstr(err, "FIFO"), "%s", err);
    int fd = open(big, O_CREAT | O_WRONLY, 0600);
    cr_assert_geq(fd, 0);
    cr_assert_eq(ftruncate(fd, (off_t)FF_PROFILE_MAX_BYTES + 1), 0); /* sparse: no disk used */
    close(fd);
    cr_expect_eq(ff_profile_open(big, &doc, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "big.json") && strstr(err, "limit"), "%s", err);
    cr_expect_null(doc);
    unlink(fifo);
    unlink(big);
    rmdir(dir);
}
