/*
 * tests/bench/tune/test_tune_device.c — a tiny tune end to end on a real device (PoCL, lavapipe on
 * CI): `flopfit tune` within a small budget writes a cache entry whose point parses in the
 * kernel's space and whose rate is at least the default's; `flopfit bench` then builds the
 * kernel with it ("tuning": {"source": "cache"}), --no-tune with the default, and an override
 * wins over the cache. Runs against the first kernel that declares a space (matmul fp32, else
 * a bandwidth kernel); with CI=true a missing device is a failure (tests/common.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "../../common.h"
#include "tune/tune.h"

static int run(const char *env, const char *args, char *out, size_t outlen)
{
    const char *exe = getenv("FLOPFIT");
    cr_assert(exe, "FLOPFIT must name the built binary");
    char cmd[2048];
    snprintf(cmd, sizeof(cmd), "%s %s %s", env, exe, args);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    size_t n = fread(out, 1, outlen - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The first kernel with a space on dev: *t and *space. false when none has one. */
static bool kernel_with_space(struct ff_device *dev, struct ff_tune_target *t,
                              struct ff_tune_space *space)
{
    static const struct ff_tune_target order[] = {
        {FF_KERNEL_MATMUL, FF_PREC_FP32},
        {FF_KERNEL_MEM_READ, FF_PREC_FP32},
    };
    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
        struct ff_kernel_desc d;
        memset(&d, 0, sizeof(d));
        d.id = order[i].id;
        d.prec = order[i].prec;
        d.n = ff_tune_final_size(ff_device_info(dev), d.id, false);
        if (d.id == FF_KERNEL_MATMUL)
            d.m = d.k = d.n;
        char err[512];
        if (ff_kernel_space(dev, &d, space, err, sizeof(err)) == FF_OK) {
            *t = order[i];
            return true;
        }
    }
    return false;
}

/* The "tuning" object of the first flopfit test of kernel t in a bench --json profile. */
static void tuning_of(const char *json, const struct ff_tune_target *t, char *point, size_t pn,
                      char *source, size_t sn)
{
    point[0] = source[0] = 0;
    json_object *root = json_tokener_parse(json);
    cr_assert(root, "bench --json printed no JSON: %.2000s", json);
    json_object *tests;
    cr_assert(json_object_object_get_ex(root, "tests", &tests));
    const char *name = t->id == FF_KERNEL_MATMUL ? "matmul" : ff_tune_kernel_name(t->id);
    for (size_t i = 0; i < json_object_array_length(tests); i++) {
        json_object *x = json_object_array_get_idx(tests, i), *v, *tu;
        if (!json_object_object_get_ex(x, "name", &v) || strcmp(json_object_get_string(v), name))
            continue;
        if (!json_object_object_get_ex(x, "impl", &v) ||
            strcmp(json_object_get_string(v), "flopfit"))
            continue;
        if (!json_object_object_get_ex(x, "tuning", &tu))
            continue;
        if (json_object_object_get_ex(tu, "point", &v))
            snprintf(point, pn, "%s", json_object_get_string(v));
        if (json_object_object_get_ex(tu, "source", &v))
            snprintf(source, sn, "%s", json_object_get_string(v));
        break;
    }
    json_object_put(root);
}

static void tune_end_to_end(const char *backend)
{
    struct ff_device *dev = ff_test_open(backend);
    struct ff_tune_target t;
    struct ff_tune_space space;
    if (!kernel_with_space(dev, &t, &space)) {
        ff_device_destroy(&dev);
        cr_skip_test("no %s kernel declares a tuning space yet", backend);
    }
    struct ff_device_info info = *ff_device_info(dev);
    ff_device_destroy(&dev);

    char dir[64] = "/tmp/ff_tune_dev.XXXXXX";
    cr_assert(mkdtemp(dir));
    char env[160], args[512];
    snprintf(env, sizeof(env), "FF_NO_TUNE= XDG_CACHE_HOME=%s", dir);
    static char out[1 << 20];
    const bool matmul = t.id == FF_KERNEL_MATMUL;
    snprintf(args, sizeof(args),
             "tune --backend %s --device 0 --kernel %s --precision fp32 "
             "--budget 12 --verbose 2>&1",
             backend, matmul ? "matmul" : "bandwidth");
    int rc = run(env, args, out, sizeof(out));
    cr_assert_eq(rc, 0, "flopfit %s: exit %d:\n%s", args, rc, out);
    cr_expect(strstr(out, "gain"), "the gain is printed:\n%s", out);

    char cache[128], err[512];
    snprintf(cache, sizeof(cache), "%s/flopfit/tuning.json", dir);
    struct ff_tune_cache c;
    cr_assert_eq(ff_tune_cache_load(&c, cache, err, sizeof(err)), FF_OK, "%s", err);
    struct ff_tune_key key;
    ff_tune_key_make(&key, &info, &t, &space);
    const struct ff_tune_entry *e = ff_tune_cache_find(&c, &key);
    cr_assert(e, "no cache entry for the tuned kernel (%zu entries):\n%s", c.n, out);
    struct ff_tune_point p;
    cr_expect_eq(ff_tune_point_parse(&space, e->point, &p, err, sizeof(err)), FF_OK, "%s: %s",
                 e->point, err);
    cr_expect(e->rate > 0 && e->rate >= e->default_rate, "tuned %g < default %g", e->rate,
              e->default_rate);
    char want[192];
    snprintf(want, sizeof(want), "%s", e->point);
    ff_tune_cache_free(&c);

    if (!matmul) {
        char rm[128];
        snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
        cr_expect_eq(system(rm), 0);
        return; /* the bench part below drives the matmul family */
    }
    /* the bench builds the kernel with the cached point ... */
    static const char bench[] = "bench --backend %s --device 0 --only matmul --precision fp32 "
                                "--sizes 256 --no-library --reps 1 --time-budget 0.01 --no-save "
                                "--json %s 2>/dev/null";
    char point[192], source[16];
    snprintf(args, sizeof(args), bench, backend, "");
    cr_assert_eq(run(env, args, out, sizeof(out)), 0, "%s", out);
    tuning_of(out, &t, point, sizeof(point), source, sizeof(source));
    cr_expect_str_eq(source, "cache");
    cr_expect_str_eq(point, want);
    /* ... --no-tune with the built-in default ... */
    snprintf(args, sizeof(args), bench, backend, "--no-tune");
    cr_assert_eq(run(env, args, out, sizeof(out)), 0, "%s", out);
    tuning_of(out, &t, point, sizeof(point), source, sizeof(source));
    cr_expect_str_eq(source, "default");
    cr_expect_str_eq(point, "default");
    /* ... and an override wins over the cache, reported as such */
    const char *ov = strcmp(backend, "opencl") == 0 ? "--override cl_matmul_tune=4,8,8,0,8,8,4"
                                                    : "--override vk_matmul_path=storage";
    snprintf(args, sizeof(args), bench, backend, ov);
    cr_assert_eq(run(env, args, out, sizeof(out)), 0, "%s", out);
    tuning_of(out, &t, point, sizeof(point), source, sizeof(source));
    cr_expect_str_eq(source, "override");
    cr_expect(strchr(point, '='), "%s", point);

    char rm[128];
    snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
    cr_expect_eq(system(rm), 0);
}

Test(tune_device, opencl_end_to_end, .timeout = 170)
{
    tune_end_to_end("opencl");
}

Test(tune_device, vulkan_end_to_end, .timeout = 170)
{
    tune_end_to_end("vulkan");
}

/* ---- the worker's watchdog, with a stand-in worker --------------------------------------- */

struct log_buf {
    char text[8192];
};

static void keep_log(void *ctx, enum ff_tune_log_level level, const char *line)
{
    struct log_buf *l = ctx;
    (void)level;
    size_t used = strlen(l->text);
    snprintf(l->text + used, sizeof(l->text) - used, "%s\n", line);
}

/*
 * A worker (the parent's exe) that measures the default, announces one more candidate and
 * never answers again: the watchdog kills it FF_TUNE_WATCHDOG_MARGIN past the budget, the
 * candidate is reported as hung and skipped, and what was measured before is the result.
 */
Test(tune_device, a_hung_candidate_is_killed_by_the_watchdog, .timeout = 120)
{
    struct ff_device *dev = ff_test_open("opencl");
    struct ff_tune_target t;
    struct ff_tune_space space;
    cr_assert(kernel_with_space(dev, &t, &space), "no kernel with a tuning space");
    char dflt[192];
    ff_tune_point_format(&space, &space.dflt, dflt, sizeof(dflt));
    char dir[] = "/tmp/ff_tune_hang.XXXXXX";
    cr_assert(mkdtemp(dir));
    char exe[64];
    snprintf(exe, sizeof(exe), "%s/worker", dir);
    FILE *f = fopen(exe, "w");
    cr_assert(f);
    fprintf(f,
            "#!/bin/sh\n"
            "printf 'T\\t%%s\\n' '%s'\n"
            "printf 'M\\t128\\t1e9\\t%%s\\n' '%s'\n"
            "printf 'T\\thung-point\\n'\n"
            "exec sleep 1000\n",
            dflt, dflt);
    fclose(f);
    cr_assert_eq(chmod(exe, 0755), 0);
    struct log_buf lb = {.text = ""};
    struct ff_tune_run_cfg cfg = {.budget_s = 1, .log = keep_log, .log_ctx = &lb};
    struct ff_tune_result res;
    char err[1024] = "";
    const uint64_t t0 = ff_now_ns();
    int ret = ff_tune_kernel_isolated(exe, dev, ff_device_info(dev)->backend, 0, &t, &cfg, &res,
                                      err, sizeof(err));
    const double dt = (double)(ff_now_ns() - t0) * 1e-9;
    cr_expect_eq(ret, FF_OK, "%s", err);
    cr_expect(strstr(lb.text, "skip hung-point: the candidate hung"), "%s", lb.text);
    cr_expect_str_eq(res.point, dflt, "the default, measured before, is kept");
    cr_expect_eq(res.outcome.best_rate, 1e9);
    cr_expect_eq(res.outcome.size, 128);
    const double limit = 1 + FF_TUNE_WATCHDOG_MARGIN(1.0);
    cr_expect(dt >= limit - 0.5 && dt < limit + 10, "the watchdog fired after %.1f s", dt);
    ff_device_destroy(&dev);
    char rm[128];
    snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
    cr_expect_eq(system(rm), 0);
}
