/*
 * tests/estimate/test_profile_schema.c — the writer (bench/run/profile_json.c) and the reader
 * (flopfit/profile.h) agree field for field, and results/SCHEMA.md documents every field
 * either of them knows: a profile with every field set is written, read back and compared,
 * and every key in the written JSON and in FF_PF_FOREACH_FIELD must appear in SCHEMA.md.
 * The same output is valid against results/profile.schema.json. Schema 1.1's run record and
 * content hash round-trip: the hash read back is the one the reader recomputes, and changing
 * one measured number changes it; a 1.0 profile still reads.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <json-c/json.h>

#include "flopfit/precision.h"
#include "flopfit/profile.h"
#include "jschema.h"
#include "run/profile_json.h"

#ifndef FF_SCHEMA_MD
#error "FF_SCHEMA_MD must point at results/SCHEMA.md"
#endif

static char *schema_md(void)
{
    FILE *f = fopen(FF_SCHEMA_MD, "rb");
    cr_assert(f, "cannot open %s", FF_SCHEMA_MD);
    static char buf[256 * 1024];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* SCHEMA.md names a field as `key` in prose and tables, or as "key": in its example. */
static bool documented(const char *md, const char *key)
{
    char a[80], b[80];
    snprintf(a, sizeof(a), "`%s`", key);
    snprintf(b, sizeof(b), "\"%s\":", key);
    return strstr(md, a) || strstr(md, b);
}

/* A profile with every field the writer can emit set to a distinct value. */
static struct ff_run every_field(void)
{
    struct ff_run p = {0};
    struct ff_device_info *i = &p.info;
    snprintf(i->backend, sizeof(i->backend), "vulkan");
    snprintf(i->platform, sizeof(i->platform), "llvmpipe");
    snprintf(i->name, sizeof(i->name),
             "Test GPU \"quoted\" with a name longer than sixty-three "
             "characters, kept whole");
    snprintf(i->vendor, sizeof(i->vendor), "Mesa");
    snprintf(i->driver_version, sizeof(i->driver_version), "24.0.1");
    snprintf(i->api_version, sizeof(i->api_version), "1.3.255");
    snprintf(i->type, sizeof(i->type), "gpu");
    i->compute_units = 108;
    i->clock_mhz = 1410;
    i->global_mem_bytes = 85899345920ull;
    i->max_alloc_bytes = 4294967296ull;
    i->budget_bytes = 80000000000ull;
    i->host_shared_memory = true;
    i->fp16 = true;
    i->int8 = true;
    i->int8_dot = false;
    i->coopmat = true;
    i->n_extra = 2;
    snprintf(i->extra[0].key, sizeof(i->extra[0].key), "heap.0");
    snprintf(i->extra[0].value, sizeof(i->extra[0].value), "device-local 80 GiB");
    snprintf(i->extra[1].key, sizeof(i->extra[1].key), "override.vk_tiles");
    snprintf(i->extra[1].value, sizeof(i->extra[1].value), "4,2,8,1");
    snprintf(i->device_id, sizeof(i->device_id), "0x10005:0x0000");
    p.complete = false;

    struct ff_result *r = ff_run_add(&p);
    ff_result_set(r, "matmul", "matmul", "coopmat");
    r->prec = FF_PREC_FP16;
    r->m = 4096;
    r->n = 2048;
    r->k = 1024;
    snprintf(r->variant, sizeof(r->variant), "16x16x16 cooperative matrix");
    snprintf(r->tune_point, sizeof(r->tune_point), "tm=6,tn=16,vw=8");
    snprintf(r->tune_source, sizeof(r->tune_source), FF_PF_TUNING_SOURCE_CACHE);
    r->status = FF_RES_OK;
    r->verified = true;
    r->has_error = true;
    r->max_abs = 0.0125;
    r->max_rel = 0.00375;
    r->tolerance = 0.03;
    r->has_timing = true;
    r->t = (struct ff_timing){7, 0.0025, 0.002, 0.003, 0.0026, 0.0021, 0.0031};
    r->value = 1.5e14;
    snprintf(r->unit, sizeof(r->unit), "FLOP/s");
    /* --concurrent's fields (bench/run/concurrent.c) */
    ff_result_extra(r, FF_PF_TEST_CONC_DEVICES, 2, false);
    ff_result_extra(r, FF_PF_TEST_CONC_VALUE, 1.25e14, false);
    /* the fraction of the peak measured beside it (bench/families/suite_matmul.c pair_close) */
    ff_result_extra(r, FF_PF_TEST_PEAK_FRACTION, 0.8125, false);
    ff_result_extra(r, FF_PF_TEST_PEAK_OF_FP32, 1, true);
    ff_result_extra(r, FF_PF_TEST_PEAK_PAIRED, 1.75e14, false);

    r = ff_run_add(&p);
    ff_result_set(r, "matmul", "matmul", "flopfit");
    r->prec = FF_PREC_INT8;
    ff_result_fail(r, FF_RES_UNSUPPORTED, "no int8 dot product");

    r = ff_run_add(&p);
    ff_result_set(r, "memory", "usable", "flopfit");
    r->status = FF_RES_OK;
    r->verified = true;
    r->bytes = 68719476736ull;
    r->value = 68719476736.0;
    snprintf(r->unit, sizeof(r->unit), "B");
    /* The extras as the probes add them (bench/families/probe_memory.c, probe_bandwidth.c). */
    ff_result_extra(r, FF_PF_TEST_REPORTED_BYTES, 85899345920.0, false);
    ff_result_extra(r, FF_PF_TEST_DIFFERENCE_BYTES, -17179869184.0, false);
    ff_result_extra(r, FF_PF_TEST_CAP_BYTES, 68719476736.0, false);
    ff_result_extra(r, FF_PF_TEST_CAPPED, 1, true);
    ff_result_extra(r, FF_PF_TEST_CHUNK_BYTES, 268435456.0, false);
    ff_result_extra(r, FF_PF_TEST_TIME_LIMITED, 0, true);
    ff_result_extra(r, FF_PF_TEST_PROBE_S, 12.5, false);

    r = ff_run_add(&p);
    ff_result_set(r, "bandwidth", "copy", "flopfit");
    r->status = FF_RES_FAILED;
    snprintf(r->reason, sizeof(r->reason), "implausible: above the limit");
    r->bytes = 536870912;
    ff_result_extra(r, FF_PF_TEST_LIMIT_BYTES_PER_S, 2.5e12, false);

    /* An interconnect test as bench/fleet/mpi_net.c writes it. */
    r = ff_run_add(&p);
    ff_result_set(r, FF_PF_FAMILY_INTERCONNECT, "all_reduce", "mpi");
    snprintf(r->scope, sizeof(r->scope), "%s", FF_PF_SCOPE_INTRA_NODE);
    snprintf(r->variant, sizeof(r->variant), "MPI over host memory, 4 ranks");
    r->bytes = 1048576;
    r->status = FF_RES_OK;
    r->verified = true;
    r->value = 3.75e9; /* busbw = algbw * 2(n-1)/n */
    snprintf(r->unit, sizeof(r->unit), "B/s");
    ff_result_extra(r, FF_PF_TEST_RANKS, 4, false);
    ff_result_extra(r, FF_PF_TEST_LIMIT_BYTES_PER_S, 4.0e10, false);
    ff_result_extra(r, FF_PF_TEST_ALGBW_BYTES_PER_S, 2.5e9, false);
    ff_result_extra(r, FF_PF_TEST_LATENCY_S, 1.25e-6, false);
    return p;
}

static void check_keys(json_object *o, const char *md, const char *where)
{
    if (json_object_is_type(o, json_type_array)) {
        char sub[128];
        snprintf(sub, sizeof(sub), "%s[]", where);
        for (size_t k = 0; k < json_object_array_length(o); k++)
            check_keys(json_object_array_get_idx(o, k), md, sub);
        return;
    }
    if (!json_object_is_type(o, json_type_object))
        return;
    json_object_object_foreach(o, key, val)
    {
        char sub[128];
        snprintf(sub, sizeof(sub), "%s%s%s", where, where[0] ? "." : "", key);
        cr_expect(documented(md, key),
                  "the writer emits %s, which results/SCHEMA.md does not "
                  "document",
                  sub);
        check_keys(val, md, sub);
    }
}

Test(profile_schema, writer_output_reads_back_field_for_field)
{
    struct ff_run p = every_field();
    struct ff_host h = {0};
    snprintf(h.os, sizeof(h.os), "Debian GNU/Linux 12 (bookworm)");
    snprintf(h.kernel, sizeof(h.kernel), "6.1.0");
    snprintf(h.cpu, sizeof(h.cpu), "AMD EPYC 9R14");
    h.cpus = 16;
    h.ram_bytes = 137438953472ull;
    static const char *const argv[] = {"bench",    "--standard",           "--output-dir",
                                       "/h/u/out", "--output=/h/u/x.json", "/h/user"};
    const struct ff_run_record rec = {FF_PF_RUN_KIND_STANDARD, argv, 6};
    setenv("HOME", "/h/u/", 1);
    json_object *js = ff_run_to_json(&p, &h, "2026-11-29T22:40:11Z", &rec);
    const char *text = json_object_to_json_string_ext(js, JSON_C_TO_STRING_PRETTY);
    struct ff_profile_doc *doc = NULL;
    char err[512] = "";
    cr_assert_eq(ff_profile_parse(text, strlen(text), "written.json", &doc, err, sizeof(err)),
                 FF_OK, "%s\n%s", err, text);

    const struct ff_profile_info *i = ff_profile_info(doc);
    cr_expect_str_eq(i->schema_version, FF_PF_VERSION_WRITTEN);
    cr_expect_str_eq(i->tool_name, "flopfit");
    cr_expect(i->tool_version && i->tool_git);
    cr_expect_str_eq(i->created, "2026-11-29T22:40:11Z");
    cr_expect_str_eq(i->host.os, h.os);
    cr_expect_str_eq(i->host.kernel, h.kernel);
    cr_expect_str_eq(i->host.cpu, h.cpu);
    cr_expect_eq(i->host.cpus, 16);
    cr_expect_eq(i->host.ram_bytes, h.ram_bytes);
    const struct ff_profile_device *d = &i->device;
    cr_expect_str_eq(d->backend, p.info.backend);
    cr_expect_str_eq(d->platform, p.info.platform);
    cr_expect_str_eq(d->name, p.info.name);
    cr_expect_str_eq(d->vendor, p.info.vendor);
    cr_expect_str_eq(d->driver_version, p.info.driver_version);
    cr_expect_str_eq(d->api_version, p.info.api_version);
    cr_expect_str_eq(d->type, p.info.type);
    cr_expect_eq(d->compute_units, 108);
    cr_expect_eq(d->clock_mhz, 1410);
    cr_expect_eq(d->global_mem_bytes, p.info.global_mem_bytes);
    cr_expect_eq(d->max_alloc_bytes, p.info.max_alloc_bytes);
    cr_expect_eq(d->budget_bytes, p.info.budget_bytes);
    cr_expect(d->host_shared_memory);
    cr_expect(d->features.fp16 && d->features.int8 && !d->features.int8_dot && d->features.coopmat);
    /* only the override.* extras are written, under their own names */
    cr_assert_eq(d->n_overrides, 1);
    cr_expect_str_eq(d->overrides[0].name, "vk_tiles");
    cr_expect_str_eq(d->overrides[0].value, "4,2,8,1");
    cr_expect(!i->complete);
    cr_expect_str_eq(i->device_id, "0x10005:0x0000");
    cr_expect_str_eq(i->run_kind, FF_PF_RUN_KIND_STANDARD);
    /* "flopfit", then argv as typed; $HOME (/h/u) as "~" where it starts a path */
    static const char *const want[] = {
        "flopfit", "bench", "--standard", "--output-dir", "~/out", "--output=~/x.json", "/h/user"};
    cr_assert_eq(i->run_argc, 7);
    for (size_t k = 0; k < 7; k++)
        cr_expect_str_eq(i->run_argv[k], want[k]);
    cr_assert(i->content_hash);
    char hash[FF_PROFILE_HASH_MAX];
    cr_assert_eq(ff_profile_content_hash(doc, hash), FF_OK);
    cr_expect_str_eq(i->content_hash, hash, "written %s, recomputed %s", i->content_hash, hash);
    cr_expect_eq(strlen(hash), 71);
    cr_expect_eq(strncmp(hash, "sha256:", 7), 0);

    cr_assert_eq(ff_profile_test_count(doc), 5);
    const struct ff_profile_test *t = ff_profile_test_at(doc, 0);
    cr_expect_str_eq(t->family, "matmul");
    cr_expect_str_eq(t->name, "matmul");
    cr_expect_str_eq(t->impl, "coopmat");
    cr_expect_str_eq(t->precision, "fp16");
    cr_expect_eq(t->prec, FF_PREC_FP16);
    cr_expect_str_eq(t->variant, "16x16x16 cooperative matrix");
    cr_expect(t->m == 4096 && t->n == 2048 && t->k == 1024);
    cr_expect_eq(t->status, FF_PROFILE_TEST_OK);
    cr_expect(t->verified && t->has_error);
    cr_expect_float_eq(t->max_abs, 0.0125, 1e-9);
    cr_expect_float_eq(t->max_rel, 0.00375, 1e-9);
    cr_expect_float_eq(t->tolerance, 0.03, 1e-9);
    cr_expect_eq(t->repetitions, 7);
    cr_expect(t->device_time_s.present && t->wall_time_s.present);
    cr_expect_float_eq(t->device_time_s.median_s, 0.0025, 1e-9);
    cr_expect_float_eq(t->device_time_s.min_s, 0.002, 1e-9);
    cr_expect_float_eq(t->device_time_s.max_s, 0.003, 1e-9);
    cr_expect_float_eq(t->wall_time_s.median_s, 0.0026, 1e-9);
    cr_expect_float_eq(t->wall_time_s.min_s, 0.0021, 1e-9);
    cr_expect_float_eq(t->wall_time_s.max_s, 0.0031, 1e-9);
    cr_expect(t->has_value);
    cr_expect_eq(t->value, 1.5e14);
    cr_expect_str_eq(t->unit, "FLOP/s");
    cr_expect_str_eq(t->tuning_point, "tm=6,tn=16,vw=8");
    cr_expect_str_eq(t->tuning_source, "cache");
    cr_expect_float_eq(t->peak_fraction, 0.8125, 1e-12);
    cr_expect(t->peak_of_fp32);
    cr_expect_float_eq(t->peak_paired, 1.75e14, 1e-3);

    t = ff_profile_test_at(doc, 1);
    cr_expect(!t->tuning_point && !t->tuning_source, "no tuning recorded: absent");
    cr_expect_eq(t->status, FF_PROFILE_TEST_UNSUPPORTED);
    cr_expect_str_eq(t->status_text, "unsupported");
    cr_expect_str_eq(t->reason, "no int8 dot product");
    cr_expect(!t->verified && !t->has_value && !t->unit);

    t = ff_profile_test_at(doc, 2);
    cr_expect_eq(t->bytes, 68719476736ull);
    cr_expect_eq(t->reported_bytes, 85899345920.0);
    cr_expect_eq(t->difference_bytes, -17179869184.0);
    cr_expect_eq(t->cap_bytes, 68719476736.0);
    cr_expect_eq(t->chunk_bytes, 268435456.0);
    cr_expect_float_eq(t->probe_s, 12.5, 1e-9);
    cr_expect(t->capped && !t->time_limited);
    cr_expect_str_eq(t->unit, "B");

    t = ff_profile_test_at(doc, 3);
    cr_expect_eq(t->status, FF_PROFILE_TEST_FAILED);
    cr_expect_str_eq(t->reason, "implausible: above the limit");
    cr_expect_eq(t->limit_bytes_per_s, 2.5e12);
    cr_expect(!t->has_value);
    cr_expect_eq(t->bytes, 536870912);

    t = ff_profile_test_at(doc, 4);
    cr_expect_str_eq(t->family, FF_PF_FAMILY_INTERCONNECT);
    cr_expect_str_eq(t->name, "all_reduce");
    cr_expect_str_eq(t->impl, "mpi");
    cr_expect(t->scope && strcmp(t->scope, FF_PF_SCOPE_INTRA_NODE) == 0);
    cr_expect_eq(t->ranks, 4);
    cr_expect_eq(t->bytes, 1048576);
    cr_expect_eq(t->status, FF_PROFILE_TEST_OK);
    cr_expect(t->verified && t->has_value);
    cr_expect_float_eq(t->value, 3.75e9, 1);
    cr_expect_str_eq(t->unit, "B/s");
    cr_expect_float_eq(t->algbw_bytes_per_s, 2.5e9, 1);
    cr_expect_float_eq(t->latency_s, 1.25e-6, 1e-12);
    cr_expect_eq(t->limit_bytes_per_s, 4.0e10);

    ff_profile_close(&doc);
    json_object_put(js);
    ff_run_finish(&p);
}

Test(profile_schema, schema_md_documents_every_field)
{
    const char *md = schema_md();
#define CHECK_FIELD(f) cr_expect(documented(md, f), "results/SCHEMA.md does not document `%s`", f);
    FF_PF_FOREACH_FIELD(CHECK_FIELD)
#undef CHECK_FIELD
    struct ff_run p = every_field();
    struct ff_host h = {0};
    static const char *const argv[] = {"bench"};
    const struct ff_run_record rec = {FF_PF_RUN_KIND_FULL, argv, 1};
    snprintf(p.info.device_id, sizeof(p.info.device_id), "0x10de:0x2335");
    json_object *js = ff_run_to_json(&p, &h, "2026-11-29T22:40:11Z", &rec);
    check_keys(js, md, "");
    /* results/profile.schema.json (as embedded in flopfit) knows every field written too */
    json_object *schema = json_tokener_parse(ff_profile_schema_text(NULL));
    struct ff_jschema_error e;
    cr_expect_eq(ff_jschema_validate(schema, js, &e), FF_OK,
                 "the writer's output fails results/profile.schema.json at %s: %s", e.pointer,
                 e.what);
    json_object_put(schema);
    json_object_put(js);
    ff_run_finish(&p);
    cr_expect(strstr(md, "`" FF_PF_TEST_TIME_LIMITED "`"), "time_limited is read: document it");
}

/* Text of a written profile (compact or indented), for the hash tests below. */
static char *written(int flags, double matmul_value)
{
    struct ff_run p = every_field();
    p.results[0].value = matmul_value;
    struct ff_host h = {0};
    json_object *js = ff_run_to_json(&p, &h, "2026-11-29T22:40:11Z", NULL);
    char *text = strdup(json_object_to_json_string_ext(js, flags));
    json_object_put(js);
    ff_run_finish(&p);
    return text;
}

static void hashes(const char *text, char recorded[FF_PROFILE_HASH_MAX],
                   char recomputed[FF_PROFILE_HASH_MAX])
{
    struct ff_profile_doc *doc = NULL;
    char err[512] = "";
    cr_assert_eq(ff_profile_parse(text, strlen(text), "h.json", &doc, err, sizeof(err)), FF_OK,
                 "%s", err);
    const struct ff_profile_info *i = ff_profile_info(doc);
    cr_assert(i->content_hash);
    snprintf(recorded, FF_PROFILE_HASH_MAX, "%s", i->content_hash);
    cr_assert_eq(ff_profile_content_hash(doc, recomputed), FF_OK);
    cr_expect_str_eq(i->run_kind, FF_PF_RUN_KIND_CUSTOM, "no record: custom");
    cr_expect_eq(i->run_argc, 1);
    ff_profile_close(&doc);
}

Test(profile_schema, content_hash_is_reproducible_and_follows_the_numbers)
{
    char *pretty = written(JSON_C_TO_STRING_PRETTY, 1.5e14);
    char *plain = written(JSON_C_TO_STRING_PLAIN, 1.5e14);
    char rec1[FF_PROFILE_HASH_MAX], comp1[FF_PROFILE_HASH_MAX];
    char rec2[FF_PROFILE_HASH_MAX], comp2[FF_PROFILE_HASH_MAX];
    hashes(pretty, rec1, comp1);
    hashes(plain, rec2, comp2);
    cr_expect_str_eq(rec1, comp1, "written, read back, recomputed: the same hash");
    cr_expect_str_eq(rec1, rec2, "the indentation is not part of the content");
    cr_expect_str_eq(comp1, comp2);

    /* one measured number edited in the text: the recomputed hash no longer matches */
    char *edited = strdup(pretty);
    char *at = strstr(edited, "150000000000000");
    cr_assert(at, "the matmul figure is in the text: %s", edited);
    at[1] = '6';
    hashes(edited, rec2, comp2);
    cr_expect_str_eq(rec2, rec1, "the recorded hash is the text's");
    cr_expect_str_neq(comp2, comp1, "an edited figure changes the content hash");

    /* the same edit made by the writer gives the hash of the edited text */
    char *again = written(JSON_C_TO_STRING_PRETTY, 1.6e14);
    hashes(again, rec1, comp1);
    cr_expect_str_eq(rec1, comp2);
    free(pretty);
    free(plain);
    free(edited);
    free(again);
}

Test(profile_schema, schema_1_0_reads_without_the_new_fields)
{
    static const char text[] = "{\"schema\":\"flopfit.profile\",\"schema_version\":\"1.0\","
                               "\"device\":{\"name\":\"x\"},\"tests\":[]}";
    struct ff_profile_doc *doc = NULL;
    char err[512] = "";
    cr_assert_eq(ff_profile_parse(text, strlen(text), "old.json", &doc, err, sizeof(err)), FF_OK,
                 "%s", err);
    const struct ff_profile_info *i = ff_profile_info(doc);
    cr_expect(i->struct_size > offsetof(struct ff_profile_info, device_id));
    cr_expect(!i->run_kind && !i->run_argv && i->run_argc == 0 && !i->content_hash &&
              !i->device_id);
    char hash[FF_PROFILE_HASH_MAX];
    cr_expect_eq(ff_profile_content_hash(doc, hash), FF_OK);
    cr_expect_eq(strncmp(hash, "sha256:", 7), 0);
    ff_profile_close(&doc);

    static const char bad_argv[] = "{\"schema\":\"flopfit.profile\",\"schema_version\":\"1.1\","
                                   "\"run\":{\"kind\":\"full\",\"argv\":[\"flopfit\",3]},"
                                   "\"device\":{},\"tests\":[]}";
    cr_expect_eq(ff_profile_parse(bad_argv, strlen(bad_argv), "b.json", &doc, err, sizeof(err)),
                 FF_ERR_INVALID);
    cr_expect(strstr(err, "run.argv[1]"), "%s", err);
}
