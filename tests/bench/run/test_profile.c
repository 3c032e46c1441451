/* Profiles: valid JSON of the documented schema, no figure for unsupported, atomic writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <json-c/json.h>

#include "run/profile_json.h"
#include "cmd/report.h"

static struct ff_run sample(void)
{
    struct ff_run p = {0};
    snprintf(p.info.backend, sizeof(p.info.backend), "opencl");
    snprintf(p.info.name, sizeof(p.info.name), "Test \"device\" \\ 1");
    p.info.global_mem_bytes = 1ull << 40; /* 1 TiB: must not overflow */
    p.complete = true;
    struct ff_result *r = ff_run_add(&p);
    ff_result_set(r, "matmul", "matmul", "flopfit");
    r->prec = FF_PREC_FP32;
    r->m = r->n = r->k = 1024;
    r->status = FF_RES_OK;
    r->verified = true;
    r->has_timing = true;
    r->t.reps = 5;
    r->t.dev_median_s = 0.01;
    r->value = 2.147e11;
    snprintf(r->unit, sizeof(r->unit), "FLOP/s");
    r = ff_run_add(&p);
    ff_result_set(r, "matmul", "matmul", "flopfit");
    r->prec = FF_PREC_FP16;
    ff_result_fail(r, FF_RES_UNSUPPORTED, "device lacks cl_khr_fp16");
    return p;
}

Test(profile, json_has_schema_and_no_value_for_unsupported)
{
    struct ff_run p = sample();
    struct ff_host h;
    ff_host_read(&h);
    struct json_object *js = ff_run_to_json(&p, &h, "2026-11-29T00:00:00Z", NULL);
    const char *text = json_object_to_json_string(js);
    struct json_object *back = json_tokener_parse(text);
    cr_assert(back, "not valid JSON: %s", text);
    struct json_object *v, *tests, *t;
    cr_assert(json_object_object_get_ex(back, "schema", &v));
    cr_assert_str_eq(json_object_get_string(v), FF_PROFILE_SCHEMA);
    cr_assert(json_object_object_get_ex(back, "schema_version", &v));
    cr_assert_str_eq(json_object_get_string(v), "1.1");
    cr_assert(json_object_object_get_ex(back, "device", &v));
    cr_assert(json_object_object_get_ex(v, "global_mem_bytes", &t));
    cr_assert_eq(json_object_get_int64(t), 1ll << 40);
    cr_assert(json_object_object_get_ex(back, "tests", &tests));
    cr_assert_eq(json_object_array_length(tests), 2);
    t = json_object_array_get_idx(tests, 0);
    cr_assert(json_object_object_get_ex(t, "value", &v));
    cr_assert_float_eq(json_object_get_double(v), 2.147e11, 1);
    cr_assert(json_object_object_get_ex(t, "unit", &v));
    cr_assert_str_eq(json_object_get_string(v), "FLOP/s");
    t = json_object_array_get_idx(tests, 1);
    cr_assert_not(json_object_object_get_ex(t, "value", &v), "unsupported must carry no value");
    cr_assert(json_object_object_get_ex(t, "status", &v));
    cr_assert_str_eq(json_object_get_string(v), "unsupported");
    cr_assert(json_object_object_get_ex(t, "reason", &v));
    cr_assert(strstr(json_object_get_string(v), "cl_khr_fp16"));
    json_object_put(back);
    json_object_put(js);
    ff_run_finish(&p);
}

Test(profile, atomic_write_replaces_whole_and_leaves_no_temp)
{
    char dir[] = "/tmp/ff-prof-XXXXXX";
    cr_assert(mkdtemp(dir));
    char path[256], err[256];
    snprintf(path, sizeof(path), "%s/p.json", dir);
    cr_assert_eq(ff_write_atomic(path, "{\"old\":1}", err, sizeof(err)), FF_OK, "%s", err);
    cr_assert_eq(ff_write_atomic(path, "{\"new\":2}", err, sizeof(err)), FF_OK, "%s", err);
    FILE *f = fopen(path, "r");
    char buf[64] = "";
    cr_assert(fgets(buf, sizeof(buf), f));
    fclose(f);
    cr_assert_str_eq(buf, "{\"new\":2}");
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "test $(ls -A %s | wc -l) -eq 1", dir);
    cr_assert_eq(system(cmd), 0, "a temp file was left behind");
    /* A folder that does not exist: an error naming the path, nothing written. */
    cr_assert_eq(ff_write_atomic("/nonexistent-ff/p.json", "{}", err, sizeof(err)), FF_ERR_IO);
    cr_assert(strstr(err, "/nonexistent-ff/p.json"), "%s", err);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/* The report's last column comes from each family's registry row (families.c). */
Test(report, family_notes_from_the_registry)
{
    struct ff_run p = {0};
    snprintf(p.info.name, sizeof(p.info.name), "dev");
    const char *impls[] = {"flopfit", "clblast"};
    for (int i = 0; i < 2; i++) {
        struct ff_result *r = ff_run_add(&p);
        ff_result_set(r, "matmul", "matmul", impls[i]);
        r->prec = FF_PREC_FP32;
        r->m = r->n = r->k = 512;
        r->status = FF_RES_OK;
        r->verified = true;
        r->value = i == 0 ? 2e11 : 1e11;
        snprintf(r->unit, sizeof(r->unit), "FLOP/s");
    }
    struct ff_result *m = ff_run_add(&p);
    ff_result_set(m, "memory", "usable", "flopfit");
    m->status = FF_RES_OK;
    m->value = (double)(3ull << 30);
    snprintf(m->unit, sizeof(m->unit), "B");
    ff_result_extra(m, "reported_bytes", (double)(4ull << 30), false);
    ff_result_extra(m, "capped", 1, true);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert(f);
    ff_report_table(f, &p);
    fclose(f);
    cr_assert(strstr(text, "2.00x"), "no ratio to the library: %s", text);
    cr_assert(strstr(text, "driver reports 4.00 GiB; stopped by the cap"), "%s", text);
    free(text);
    ff_run_finish(&p);
}
