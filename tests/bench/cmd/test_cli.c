/* `flopfit bench` options: typed parsers, bad input named, exit codes of the binary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <json-c/json.h>

#include <flopfit/profile.h>

#include "cmd/cli.h"
#include "families/families.h"

static int parse(struct ff_bench_opts *o, char *err, size_t errlen, int argc, char **argv)
{
    return ff_bench_parse(argc, argv, o, err, errlen);
}

#define PARSE(o, err, ...)                                                                         \
    parse(o, err, sizeof(err), (int)(sizeof((char *[]){"bench", __VA_ARGS__}) / sizeof(char *)),   \
          (char *[]){"bench", __VA_ARGS__, NULL})

static uint32_t family_bit(const char *name)
{
    const struct ff_family *f = ff_family_find(name);
    cr_assert(f, "family %s is not in the registry", name);
    return ff_family_bit(f);
}

Test(cli, defaults_run_everything)
{
    struct ff_bench_opts o;
    char err[256];
    char *argv[] = {"bench", NULL};
    setenv("XDG_DATA_HOME", "/xdg/data", 1);
    cr_assert_eq(ff_bench_parse(1, argv, &o, err, sizeof(err)), FF_OK);
    cr_assert_eq(o.run.cfg.families, ff_family_all());
    cr_assert_eq(ff_family_count(), 7);
    /* the op grid takes minutes: it runs when asked for, never in a plain run */
    cr_assert_eq(o.run.cfg.families & ff_family_bit(ff_family_find("ops")), 0);
    cr_assert(o.run.cfg.prec[FF_PREC_FP32] && o.run.cfg.prec[FF_PREC_FP16] &&
              o.run.cfg.prec[FF_PREC_INT8]);
    cr_assert(o.run.cfg.library);
    cr_assert_null(o.run.cfg.progress, "progress is the command's choice, never a default");
    cr_assert_str_eq(o.run.writer->name, "table");
    cr_assert_gt(o.run.cfg.n_sizes, 3);
    /* Profiles go to the per-user data folder, never into the repository's results/. */
    cr_assert_str_eq(o.run.output_dir, "/xdg/data/flopfit/profiles");
}

Test(cli, default_output_dir_follows_xdg_then_home)
{
    struct ff_bench_opts o;
    char err[256];
    char *argv[] = {"bench", NULL};
    setenv("HOME", "/home/someone", 1);
    unsetenv("XDG_DATA_HOME");
    cr_assert_eq(ff_bench_parse(1, argv, &o, err, sizeof(err)), FF_OK);
    cr_assert_str_eq(o.run.output_dir, "/home/someone/.local/share/flopfit/profiles");
    setenv("XDG_DATA_HOME", "relative/data", 1); /* invalid by the spec: ignored */
    cr_assert_eq(ff_bench_parse(1, argv, &o, err, sizeof(err)), FF_OK);
    cr_assert_str_eq(o.run.output_dir, "/home/someone/.local/share/flopfit/profiles");
    unsetenv("XDG_DATA_HOME");
    unsetenv("HOME");
    cr_assert_eq(ff_bench_parse(1, argv, &o, err, sizeof(err)), FF_OK);
    cr_assert_null(o.run.output_dir);
    cr_assert(strstr(o.run.output_dir_err, "--output-dir"), "%s", o.run.output_dir_err);
    cr_assert_eq(PARSE(&o, err, "--output-dir", "mine"), FF_OK);
    cr_assert_str_eq(o.run.output_dir, "mine");
}

Test(cli, family_registry_is_the_one_list)
{
    /* Every row complete, names unique, found case-insensitively, one bit each. */
    uint32_t seen = 0;
    for (const struct ff_family *f = ff_families(); f->name; f++) {
        cr_assert(f->run && f->description && f->description[0] && f->needs && f->needs[0], "%s",
                  f->name);
        cr_assert_eq(ff_family_find(f->name), f);
        cr_assert_eq(seen & ff_family_bit(f), 0, "%s shares a bit", f->name);
        seen |= ff_family_bit(f);
        cr_assert_eq((ff_family_all() & ff_family_bit(f)) != 0, !f->on_request, "%s", f->name);
    }
    cr_assert_eq(seen, ff_family_all() | ff_family_bit(ff_family_find("ops")));
    cr_assert_eq(ff_family_find("MatMul"), ff_family_find("matmul"));
    cr_assert_null(ff_family_find("flops"));
    /* --only takes exactly the registry's names. */
    struct ff_bench_opts o;
    char err[512];
    for (const struct ff_family *f = ff_families(); f->name; f++) {
        char *argv[] = {"bench", "--only", (char *)f->name, NULL};
        cr_assert_eq(ff_bench_parse(3, argv, &o, err, sizeof(err)), FF_OK, "%s", err);
        cr_assert_eq(o.run.cfg.families, ff_family_bit(f));
    }
    cr_assert_eq(PARSE(&o, err, "--only", "all"), FF_OK);
    cr_assert_eq(o.run.cfg.families, ff_family_all());
    cr_assert_eq(PARSE(&o, err, "--list-families"), FF_OK);
    cr_assert(o.list_families);
}

Test(cli, formats_from_the_writer_table)
{
    struct ff_bench_opts o;
    char err[256];
    cr_assert_eq(PARSE(&o, err, "--json"), FF_OK);
    cr_assert_str_eq(o.run.writer->name, "json");
    cr_assert_eq(PARSE(&o, err, "--format", "JSON"), FF_OK);
    cr_assert_eq(o.run.writer, ff_bench_writer_find("json"));
    cr_assert_eq(PARSE(&o, err, "--format", "table"), FF_OK);
    cr_assert_str_eq(o.run.writer->name, "table");
    cr_assert_eq(PARSE(&o, err, "--format", "xml"), FF_ERR_INVALID);
    cr_assert(strstr(err, "--format") && strstr(err, "table, json"), "%s", err);
    for (const struct ff_bench_writer *w = ff_bench_writers(); w->name; w++)
        cr_assert(w->device && w->description, "%s", w->name);
}

static void record_line(void *ctx, const char *line)
{
    char *dst = ctx;
    snprintf(dst, 128, "%s", line);
}

Test(progress, goes_to_the_callback_only)
{
    struct ff_bench_cfg cfg;
    ff_bench_cfg_defaults(&cfg);
    ff_progress(&cfg, "nobody listens %d", 1); /* NULL callback: nothing, no crash */
    char got[128] = "";
    cfg.progress = record_line;
    cfg.progress_ctx = got;
    ff_progress(&cfg, "%s n=%u", "fp32", 1024u);
    cr_assert_str_eq(got, "fp32 n=1024");
    ff_progress(&cfg, "%s", "");
    cr_assert_str_eq(got, "");
}

Test(cli, lists_and_quick)
{
    struct ff_bench_opts o;
    char err[256];
    cr_assert_eq(PARSE(&o, err, "--precision", "int8,fp32", "--sizes", "1024,64", "--quick",
                       "--only", "matmul", "--device", "vulkan:1", "--backend", "vulkan"),
                 FF_OK, "%s", err);
    cr_assert(o.run.cfg.prec[FF_PREC_INT8] && o.run.cfg.prec[FF_PREC_FP32] &&
              !o.run.cfg.prec[FF_PREC_FP16]);
    cr_assert_eq(o.run.cfg.n_sizes, 2);
    cr_assert_eq(o.run.cfg.sizes[0], 64); /* sorted */
    cr_assert_eq(o.run.cfg.families, family_bit("matmul"));
    cr_assert(o.run.cfg.quick);
    cr_assert_str_eq(o.run.sel.device_backend, "vulkan");
    cr_assert_eq(o.run.sel.device_index, 1);
}

Test(cli, bad_values_name_the_option_and_what_is_accepted)
{
    /* Backend names come from the registry: whatever this build has. */
    char names[256], backends_or_all[300];
    ff_bench_backend_names(names, sizeof(names), ", ", "");
    snprintf(backends_or_all, sizeof(backends_or_all), "%s or all", names);
    char devices[300];
    ff_bench_backend_names(names, sizeof(names), " or ", ":N");
    snprintf(devices, sizeof(devices), "N or %s", names);
    struct {
        const char *opt, *val, *expect;
    } cases[] = {
        {"--sizes", "0", "--sizes"},
        {"--sizes", "-5", "16 to 32768"},
        {"--sizes", "99999999", "--sizes"},
        {"--sizes", "12x", "'12x'"},
        {"--sizes", "", "--sizes"},
        {"--precision", "fp64", "fp32, fp16, int8"},
        {"--device", "-1", "--device"},
        {"--device", "cuda:0", devices},
        {"--reps", "0", "1 to 10000"},
        {"--time-budget", "nan", "--time-budget"},
        {"--memory-limit", "12Q", "--memory-limit"},
        {"--memory-limit", "-1G", "--memory-limit"},
        {"--only", "flops", "matmul, memory"},
        {"--backend", "cuda", backends_or_all},
        {"--format", "xml", "table"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ff_bench_opts o;
        char err[512] = "";
        char *argv[] = {"bench", (char *)cases[i].opt, (char *)cases[i].val, NULL};
        cr_assert_eq(ff_bench_parse(3, argv, &o, err, sizeof(err)), FF_ERR_INVALID, "%s %s",
                     cases[i].opt, cases[i].val);
        cr_assert(strstr(err, cases[i].expect), "%s %s: message '%s' lacks '%s'", cases[i].opt,
                  cases[i].val, err, cases[i].expect);
    }
}

Test(cli, unknown_option_and_missing_value)
{
    struct ff_bench_opts o;
    char err[256];
    cr_assert_eq(PARSE(&o, err, "--frobnicate"), FF_ERR_INVALID);
    cr_assert(strstr(err, "--frobnicate"), "%s", err);
    cr_assert_eq(PARSE(&o, err, "--presicion", "fp32"), FF_ERR_INVALID);
    cr_assert_str_eq(err, "unknown option '--presicion'; did you mean '--precision'?");
    cr_assert_eq(PARSE(&o, err, "--time-budgte=2"), FF_ERR_INVALID);
    cr_assert_str_eq(err, "unknown option '--time-budgte'; did you mean '--time-budget'?");
    cr_assert_eq(PARSE(&o, err, "--sizes"), FF_ERR_INVALID);
    cr_assert(strstr(err, "--sizes"), "%s", err);
    cr_assert_eq(PARSE(&o, err, "stray"), FF_ERR_INVALID);
    cr_assert_eq(PARSE(&o, err, "--help"), FF_CLI_HELP);
}

Test(cli, byte_sizes)
{
    uint64_t v;
    char err[256];
    cr_assert_eq(ff_parse_bytes("--memory-limit", "8G", 1, &v, err, sizeof(err)), FF_OK);
    cr_assert_eq(v, 8ull << 30);
    cr_assert_eq(ff_parse_bytes("--memory-limit", "512MiB", 1, &v, err, sizeof(err)), FF_OK);
    cr_assert_eq(v, 512ull << 20);
    cr_assert_eq(ff_parse_bytes("--memory-limit", "1048576", 1, &v, err, sizeof(err)), FF_OK);
    cr_assert_eq(ff_parse_bytes("--memory-limit", "1K", 1 << 20, &v, err, sizeof(err)),
                 FF_ERR_INVALID);
}

/* ---- the binary: exit codes and nothing left behind -------------------- */

static int run(const char *args, char *out, size_t outlen)
{
    const char *exe = getenv("FLOPFIT");
    cr_assert(exe, "FLOPFIT must name the built binary");
    char cmd[2048];
    snprintf(cmd, sizeof(cmd), "%s %s 2>&1", exe, args);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    size_t n = fread(out, 1, outlen - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(cli_binary, usage_errors_exit_2_with_the_input_named)
{
    char out[8192];
    cr_assert_eq(run("bench --sizes 0", out, sizeof(out)), 2, "%s", out);
    cr_assert(strstr(out, "--sizes"), "%s", out);
    cr_assert_eq(run("bench --bogus", out, sizeof(out)), 2, "%s", out);
    cr_assert(strstr(out, "--bogus"), "%s", out);
    cr_assert_eq(run("frobnicate", out, sizeof(out)), 2, "%s", out);
    cr_assert_eq(run("bench --help", out, sizeof(out)), 0);
    cr_assert(strstr(out, "--precision"), "%s", out);
}

/* Every command answers a misspelt option with the closest one it knows, and exits 2. */
Test(cli_binary, did_you_mean_in_every_command)
{
    static const struct {
        const char *args, *expect;
    } cases[] = {
        {"bench --presicion fp32", "flopfit bench: unknown option '--presicion'; did you mean "
                                   "'--precision'?\n"},
        {"devices --backnd opencl", "flopfit devices: unknown option '--backnd'; did you mean "
                                    "'--backend'?\n"},
        {"devices --jsno", "flopfit devices: unknown option '--jsno'; did you mean '--json'?\n"},
        {"results --jsn", "flopfit results: unknown option '--jsn'; did you mean '--json'?\n"},
        {"tune --budgte 5", "flopfit tune: unknown option '--budgte'; did you mean '--budget'?\n"},
        {"estimate --modle llama-2-7b", "flopfit estimate: unknown option '--modle'; did you "
                                        "mean '--model'?\n"},
        {"results --fromat md", "flopfit results: unknown option '--fromat'; did you mean "
                                "'--format'?\n"},
        {"results submit --reslts x p.json", "flopfit results: unknown option '--reslts'; did "
                                             "you mean '--results'?\n"},
        {"bnech", "flopfit: unknown command 'bnech'; did you mean 'bench'?\n"},
        {"estimat", "flopfit: unknown command 'estimat'; did you mean 'estimate'?\n"},
        {"--verison", "flopfit: unknown option '--verison'; did you mean '--version'?\n"},
        {"bench --zzzzzzzz", "flopfit bench: unknown option '--zzzzzzzz' (see --help)\n"},
        {"zzzzzzzz", "flopfit: unknown command 'zzzzzzzz': expected devices, bench, tune, "
                     "estimate or results"},
    };
    char out[8192];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cr_expect_eq(run(cases[i].args, out, sizeof(out)), 2, "%s: %s", cases[i].args, out);
        cr_expect(strstr(out, cases[i].expect), "%s: '%s' lacks '%s'", cases[i].args, out,
                  cases[i].expect);
    }
}

Test(cli_binary, V_is_version)
{
    char v[256], version[256];
    cr_assert_eq(run("-V", v, sizeof(v)), 0);
    cr_assert_eq(run("--version", version, sizeof(version)), 0);
    cr_expect_str_eq(v, version);
    cr_expect(strncmp(v, "flopfit ", 8) == 0, "%s", v);
    char help[4096];
    cr_assert_eq(run("--help", help, sizeof(help)), 0);
    cr_expect(strstr(help, "-V, --version"), "%s", help);
}

/* The hidden listing the completion is built from: each command's getopt table and values. */
Test(cli_binary, complete_words_lists_the_tables)
{
    char out[16384];
    cr_assert_eq(run("complete-words", out, sizeof(out)), 0);
    cr_expect(strstr(out, "devices\nbench\ntune\nestimate\nresults\n") && strstr(out, "-V\n"), "%s",
              out);
    cr_assert_eq(run("complete-words bench", out, sizeof(out)), 0);
    cr_expect(strstr(out, "\n--precision= fp32 ") && strstr(out, "\n--quick\n"), "%s", out);
    cr_expect(strstr(out, "\n--weights= fp32 bf16 fp16 int8 q4_0 q8_0\n") &&
                  strstr(out, "\n--kv= fp32 bf16 fp16\n") && strstr(out, " llama-3-8b "),
              "%s", out);
    char line[512] = "\n--only=";
    for (const struct ff_family *f = ff_families(); f->name; f++)
        snprintf(line + strlen(line), sizeof(line) - strlen(line), " %s", f->name);
    cr_expect(strstr(out, line), "'%s' not in:\n%s", line, out);
    cr_assert_eq(run("complete-words estimate", out, sizeof(out)), 0);
    cr_expect(strstr(out, "\n--recompute= none selective full ops layers:2\n") &&
                  strstr(out, " llama-2-7b ") && strstr(out, " h100-sxm "),
              "%s", out);
    cr_assert_eq(run("complete-words results", out, sizeof(out)), 0);
    cr_expect(strstr(out, "--format= md csv ops-csv json html sqlite\n"), "%s", out);
    cr_assert_eq(run("complete-words nosuch", out, sizeof(out)), 2);
}

Test(cli_binary, unknown_device_index_exits_2)
{
    char out[8192];
    int rc = run("bench --backend opencl --device 999 --no-save", out, sizeof(out));
    if (rc == 1 && strstr(out, "no OpenCL platform"))
        cr_skip_test("no OpenCL platform here");
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "999"), "%s", out);
}

Test(cli_binary, unwritable_output_exits_2_and_leaves_no_file)
{
    char out[8192];
    char dir[] = "/tmp/ff-cli-XXXXXX";
    cr_assert(mkdtemp(dir));
    cr_assert_eq(chmod(dir, 0500), 0);
    char args[512], path[300];
    snprintf(path, sizeof(path), "%s/p.json", dir);
    snprintf(args, sizeof(args), "bench --only latency --backend opencl --output %s", path);
    int rc = run(args, out, sizeof(out));
    if (geteuid() != 0) { /* root ignores the mode bits */
        cr_assert_eq(rc, 2, "%s", out);
        cr_assert(strstr(out, "--output"), "%s", out);
    }
    chmod(dir, 0700);
    snprintf(args, sizeof(args),
             "bench --only latency --backend opencl --device 0 --output /nonexistent-dir/x/p.json");
    cr_assert_eq(run(args, out, sizeof(out)), 2, "%s", out);
    cr_assert(strstr(out, "/nonexistent-dir/x/p.json"), "%s", out);
    struct stat st;
    cr_assert_neq(stat("/nonexistent-dir/x/p.json", &st), 0);
    snprintf(args, sizeof(args), "rm -rf %s", dir);
    cr_assert_eq(system(args), 0);
}

Test(cli_binary, list_families_and_formats_print_the_registries)
{
    char out[8192];
    cr_assert_eq(run("bench --list-families", out, sizeof(out)), 0, "%s", out);
    for (const struct ff_family *f = ff_families(); f->name; f++) {
        cr_assert(strstr(out, f->name), "%s missing from --list-families: %s", f->name, out);
        cr_assert(strstr(out, f->description), "%s", out);
    }
    cr_assert_eq(run("bench --list-formats", out, sizeof(out)), 0, "%s", out);
    for (const struct ff_bench_writer *w = ff_bench_writers(); w->name; w++)
        cr_assert(strstr(out, w->name), "%s missing from --list-formats: %s", w->name, out);
    /* --help names the backends this build has, from the registry. */
    cr_assert_eq(run("bench --help", out, sizeof(out)), 0);
    for (const struct ff_backend *const *b = ff_backends(); *b; b++)
        cr_assert(strstr(out, ff_backend_name(*b)), "%s", out);
}

/* A folder or a device as --output is refused before anything is measured. */
Test(cli_binary, output_that_is_not_a_file_exits_2_before_measuring)
{
    char out[8192], dir[] = "/tmp/ff-outdir-XXXXXX", args[512];
    cr_assert(mkdtemp(dir));
    snprintf(args, sizeof(args), "bench --only latency --output %s", dir);
    cr_assert_eq(run(args, out, sizeof(out)), 2, "%s", out);
    cr_assert(strstr(out, "--output") && strstr(out, "is a folder"), "%s", out);
    cr_assert_null(strstr(out, "latency"), "it measured before refusing: %s", out);
    snprintf(args, sizeof(args), "test -z \"$(ls -A %s)\"", dir);
    cr_assert_eq(system(args), 0, "something was written into %s", dir);
    cr_assert_eq(run("bench --only latency --output /dev/null", out, sizeof(out)), 2, "%s", out);
    cr_assert(strstr(out, "not a regular file"), "%s", out);
    rmdir(dir);
}

/* Ctrl-C: exit 130, what was measured is written ("complete": false), and an
 * existing --output profile is never replaced by the cut-short run. */
Test(cli_binary, ctrl_c_keeps_what_was_measured_and_clobbers_nothing, .timeout = 120)
{
    const char *exe = getenv("FLOPFIT");
    cr_assert(exe);
    char dir[] = "/tmp/ff-int-XXXXXX";
    cr_assert(mkdtemp(dir));
    char path[300], cmd[1200];
    snprintf(path, sizeof(path), "%s/p.json", dir);
    FILE *f = fopen(path, "w");
    fputs("{\"earlier\":true}", f);
    fclose(f);
    /* The interrupt must land after the latency family and inside the long matmul: on a
     * loaded host opening the device alone can take seconds, so a run stopped before any
     * test finished is tried again with a later interrupt (3, 6, 12 s). */
    int rc = -1;
    bool measured = false;
    for (int wait_s = 3; wait_s <= 12 && !measured; wait_s *= 2) {
        snprintf(cmd, sizeof(cmd), "rm -f %s/p.partial-*.json", dir);
        cr_assert_eq(system(cmd), 0);
        snprintf(cmd, sizeof(cmd),
                 "%s bench --backend opencl --device 0 --only latency,matmul --precision fp32 "
                 "--sizes 64,4096 --output %s >/dev/null 2>&1 & pid=$!; sleep %d; kill -INT $pid; "
                 "wait $pid",
                 exe, path, wait_s);
        int st = system(cmd);
        rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        if (rc == 1 || rc == 2) { /* no OpenCL device here */
            cr_assert_not(getenv("CI") && strcmp(getenv("CI"), "true") == 0, "exit %d", rc);
            cr_skip_test("no OpenCL device");
        }
        cr_assert_eq(rc, 130);
        char buf[64] = "";
        f = fopen(path, "r");
        cr_assert(fgets(buf, sizeof(buf), f));
        fclose(f);
        cr_assert_str_eq(buf, "{\"earlier\":true}", "the earlier profile was replaced");
        snprintf(cmd, sizeof(cmd),
                 "grep -q '\"family\":\"latency\"' %s/p.partial-*.json 2>/dev/null", dir);
        measured = system(cmd) == 0;
    }
    cr_assert(measured, "no partial profile with the measured tests (interrupted at 3, 6, 12 s)");
    snprintf(cmd, sizeof(cmd),
             "grep -l '\"complete\":false' %s/p.partial-*.json >/dev/null && "
             "! grep -q 'interrupted' %s/p.partial-*.json",
             dir, dir);
    cr_assert_eq(system(cmd), 0, "the partial profile is not marked incomplete");
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/* End to end: the binary measures, verifies and prints a profile on each backend. */
static void end_to_end(const char *backend)
{
    char cmd[1024], out[1 << 16];
    const char *exe = getenv("FLOPFIT");
    /* llvmpipe's JIT leaks 128 bytes per thread through realloc from an unnamed module;
     * only the Vulkan run gets the suppressions that cover it (tests/bench/families/). */
    const char *supp = getenv("FF_VK_LSAN_SUPP");
    char lsan[320] = "";
    if (strcmp(backend, "vulkan") == 0 && supp)
        snprintf(lsan, sizeof(lsan), "LSAN_OPTIONS=suppressions=%s:print_suppressions=0 ", supp);
    snprintf(cmd, sizeof(cmd),
             "%s%s bench --backend %s --device 0 --only matmul,latency --sizes 64,96 --json "
             "--no-save 2>/dev/null",
             lsan, exe, backend);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    size_t n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = 0;
    int st = pclose(p);
    int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (rc != 0 && n == 0) {
        cr_assert_not(getenv("CI") && strcmp(getenv("CI"), "true") == 0,
                      "CI=true but flopfit bench --backend %s exited %d", backend, rc);
        cr_skip_test("no %s device", backend);
    }
    cr_assert_eq(rc, 0, "exit %d: %s", rc, out);
    struct json_object *js = json_tokener_parse(out);
    cr_assert(js, "stdout is not one JSON profile: %.300s", out);
    struct json_object *tests, *v;
    cr_assert(json_object_object_get_ex(js, "tests", &tests));
    int ok = 0;
    for (size_t i = 0; i < json_object_array_length(tests); i++) {
        struct json_object *t = json_object_array_get_idx(tests, i);
        json_object_object_get_ex(t, "status", &v);
        const char *status = json_object_get_string(v);
        cr_assert_str_neq(status, "failed", "%s", json_object_to_json_string(t));
        if (strcmp(status, "ok") == 0) {
            cr_assert(json_object_object_get_ex(t, "value", &v));
            cr_assert_gt(json_object_get_double(v), 0);
            ok++;
        } else {
            cr_assert_not(json_object_object_get_ex(t, "value", &v), "a value without ok");
        }
    }
    cr_assert_geq(ok, 6, "fp32 and int8 at two sizes plus latency must be ok (%d)", ok);
    json_object_put(js);
    /* schema 1.1: the run as typed, and a content hash the reader recomputes from the text */
    struct ff_profile_doc *doc = NULL;
    char err[512] = "", hash[FF_PROFILE_HASH_MAX];
    cr_assert_eq(ff_profile_parse(out, n, "stdout", &doc, err, sizeof(err)), FF_OK, "%s", err);
    const struct ff_profile_info *i = ff_profile_info(doc);
    cr_expect_str_eq(i->run_kind, "custom");
    cr_expect_eq(i->run_argc, 12, "flopfit and the 11 arguments");
    if (i->run_argc == 12)
        cr_expect(!strcmp(i->run_argv[0], "flopfit") && !strcmp(i->run_argv[1], "bench") &&
                  !strcmp(i->run_argv[3], backend) && !strcmp(i->run_argv[11], "--no-save"));
    cr_expect_eq(ff_profile_content_hash(doc, hash), FF_OK);
    cr_expect(i->content_hash && !strcmp(i->content_hash, hash),
              "the hash bench wrote is the one its text gives (%s, %s)", i->content_hash, hash);
    if (strcmp(backend, "vulkan") == 0)
        cr_expect(i->device_id && strchr(i->device_id, ':'), "Vulkan: vendorID:deviceID");
    ff_profile_close(&doc);
}

Test(cli_binary, end_to_end_opencl, .timeout = 120)
{
    end_to_end("opencl");
}

Test(cli_binary, end_to_end_vulkan, .timeout = 120)
{
    end_to_end("vulkan");
}

Test(cli, overrides_come_from_the_environment_then_the_option)
{
    struct ff_bench_opts o;
    char err[1024];
    unsetenv("FF_VK_TILES");
    setenv("FF_CL_MATMUL_TUNE", "4,4,1,1,16,16,16", 1);
    cr_assert_eq(PARSE(&o, err, "--override", "vk_tiles=4,2,8,1"), FF_OK, "%s", err);
    cr_expect_str_eq(o.run.dev_opts.cl_matmul_tune, "4,4,1,1,16,16,16");
    cr_expect_str_eq(o.run.dev_opts.vk_tiles, "4,2,8,1");
    /* the option wins over the variable */
    cr_assert_eq(PARSE(&o, err, "--override", "cl_matmul_tune=8,4,1,1,16,16,16"), FF_OK, "%s", err);
    cr_expect_str_eq(o.run.dev_opts.cl_matmul_tune, "8,4,1,1,16,16,16");
    unsetenv("FF_CL_MATMUL_TUNE");
    /* an unknown name lists the accepted ones; a bad value says what is accepted */
    cr_assert_eq(PARSE(&o, err, "--override", "tiles=1"), FF_ERR_INVALID);
    cr_expect(strstr(err, "--override") && strstr(err, "vk_tiles"), "%s", err);
    cr_assert_eq(PARSE(&o, err, "--override", "noequals"), FF_ERR_INVALID);
    cr_assert_eq(PARSE(&o, err, "--override", "vk_tiles=banana"), FF_ERR_INVALID);
    cr_expect(strstr(err, "vk_tiles"), "%s", err);
    /* a malformed variable is a usage error naming it */
    setenv("FF_VK_TILES", "banana", 1);
    cr_assert_eq(PARSE(&o, err, "--quick"), FF_ERR_INVALID);
    cr_expect(strstr(err, "FF_VK_TILES"), "%s", err);
    unsetenv("FF_VK_TILES");
}

Test(cli, a_repeated_override_is_an_error_naming_it)
{
    struct ff_bench_opts o;
    char err[1024];
    unsetenv("FF_VK_TILES");
    cr_assert_eq(PARSE(&o, err, "--override", "vk_tiles=4,2,8,1", "--override", "vk_tiles=8,2,8,1"),
                 FF_ERR_INVALID);
    cr_expect(strstr(err, "--override vk_tiles") && strstr(err, "twice"), "%s", err);
    /* the same value twice is still two answers to one question */
    cr_assert_eq(PARSE(&o, err, "--override", "timeout_s=5", "--override", "timeout_s=5"),
                 FF_ERR_INVALID);
    cr_expect(strstr(err, "timeout_s"), "%s", err);
    /* different names are fine, and a variable plus one option is no repeat */
    setenv("FF_VK_TILES", "4,2,8,1", 1);
    cr_assert_eq(PARSE(&o, err, "--override", "vk_tiles=8,2,8,1", "--override", "timeout_s=5"),
                 FF_OK, "%s", err);
    cr_expect_str_eq(o.run.dev_opts.vk_tiles, "8,2,8,1");
    unsetenv("FF_VK_TILES");
}

Test(cli_binary, a_repeated_override_exits_2_naming_it)
{
    char out[8192];
    cr_assert_eq(run("bench --override vk_matmul_path=texel --override vk_matmul_path=storage", out,
                     sizeof(out)),
                 2, "%s", out);
    cr_expect(strstr(out, "vk_matmul_path") && strstr(out, "twice"), "%s", out);
}

Test(cli, mpi_and_concurrent)
{
    struct ff_bench_opts o;
    char err[256];
    cr_assert_eq(PARSE(&o, err, "--mpi", "--quick"), FF_OK, "%s", err);
    cr_expect(o.mpi && !o.concurrent);
    cr_assert_eq(PARSE(&o, err, "--concurrent"), FF_OK, "%s", err);
    cr_expect(o.concurrent && !o.mpi);
    cr_assert_eq(PARSE(&o, err, "--mpi", "--concurrent"), FF_ERR_INVALID);
    cr_expect(strstr(err, "--mpi and --concurrent"), "%s", err);
}

/* The run kind each profile records (schema 1.1 "run"): from the options, with argv as typed. */
Test(cli, run_kind_and_argv_are_recorded)
{
    static const struct {
        const char *arg, *kind;
    } cases[] = {
        {"--quick", "quick"},           {"--standard", "standard"},
        {"--backend=opencl", "full"},   {"--no-tune", "full"},
        {"--seed=7", "full"},           {"--sizes=512", "custom"},
        {"--precision=fp32", "custom"}, {"--only=latency", "custom"},
        {"--reps=9", "custom"},         {"--time-budget=2", "custom"},
        {"--no-library", "custom"},     {"--memory-limit=1G", "custom"},
    };
    struct ff_bench_opts o;
    char err[256];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *argv[] = {"bench", (char *)cases[i].arg, NULL};
        cr_assert_eq(ff_bench_parse(2, argv, &o, err, sizeof(err)), FF_OK, "%s", err);
        cr_expect_str_eq(o.run.record.kind, cases[i].kind, "%s", cases[i].arg);
        cr_expect_eq(o.run.record.argc, 2);
        cr_expect_str_eq(o.run.record.argv[1], cases[i].arg);
    }
    char *plain[] = {"bench", NULL};
    cr_assert_eq(ff_bench_parse(1, plain, &o, err, sizeof(err)), FF_OK);
    cr_expect_str_eq(o.run.record.kind, "full", "a plain `flopfit bench` is a full run");
}

static json_object *json_of(const char *args, int *rc)
{
    static char out[1 << 16];
    *rc = run(args, out, sizeof(out));
    json_object *o = json_tokener_parse(out);
    cr_assert(o, "%s: not JSON: %s", args, out);
    return o;
}

/* Every listing honours --json: one JSON object on stdout. */
Test(cli_binary, listings_as_json)
{
    int rc;
    json_object *o = json_of("bench --list-families --json", &rc), *a;
    cr_expect_eq(rc, 0);
    cr_assert(json_object_object_get_ex(o, "families", &a));
    cr_expect_eq(json_object_array_length(a), ff_family_count());
    json_object *first = json_object_array_get_idx(a, 0);
    cr_expect_str_eq(json_object_get_string(json_object_object_get(first, "name")),
                     ff_families()[0].name);
    json_object_put(o);
    o = json_of("bench --list-formats --format json", &rc);
    cr_assert(json_object_object_get_ex(o, "formats", &a));
    cr_expect_gt(json_object_array_length(a), 1);
    json_object_put(o);
    o = json_of("results --list-columns --json", &rc);
    cr_expect_eq(rc, 0);
    cr_assert(json_object_object_get_ex(o, "columns", &a));
    cr_expect_gt(json_object_array_length(a), 10);
    json_object_put(o);
    o = json_of("estimate --list-devices --json", &rc);
    cr_expect_eq(rc, 0);
    json_object_put(o);
}

Test(cli_binary, devices_as_json, .timeout = 300)
{
    int rc;
    json_object *o = json_of("devices --json", &rc), *devs, *un;
    cr_assert(json_object_object_get_ex(o, "devices", &devs));
    cr_assert(json_object_object_get_ex(o, "unavailable", &un));
    cr_expect_eq(rc, json_object_array_length(devs) ? 0 : 1);
    for (size_t i = 0; i < json_object_array_length(devs); i++) {
        json_object *d = json_object_array_get_idx(devs, i), *v;
        cr_expect(json_object_object_get_ex(d, "device", &v) &&
                      strchr(json_object_get_string(v), ':'),
                  "device %zu has no label", i);
        cr_expect(json_object_object_get_ex(d, "name", &v));
        cr_expect(json_object_object_get_ex(d, "global_mem_bytes", &v));
        cr_expect(json_object_object_get_ex(d, "details", &v));
        json_object *b = json_object_object_get(d, "backend");
        if (b && strcmp(json_object_get_string(b), "vulkan") == 0)
            cr_expect(json_object_object_get_ex(d, "device_id", &v),
                      "Vulkan has vendorID:deviceID");
    }
    json_object_put(o);
}

Test(cli_binary, results_of_a_missing_path_is_bad_usage)
{
    char out[4096];
    cr_expect_eq(run("results /no/such/path", out, sizeof(out)), 2, "%s", out);
    cr_expect(strstr(out, "/no/such/path: no such file or folder"), "%s", out);
}

Test(cli, model_options)
{
    struct ff_bench_opts o;
    char err[512];
    const uint32_t want =
        ff_family_bit(ff_family_find("latency")) | ff_family_bit(ff_family_find("bandwidth")) |
        ff_family_bit(ff_family_find("matmul")) | ff_family_bit(ff_family_find("ops"));
    cr_assert_eq(PARSE(&o, err, "--model", "llama-3-8b", "--weights", "q4_0,q8_0", "--quick"),
                 FF_OK, "%s", err);
    cr_assert_eq(o.run.cfg.families, want);
    cr_assert_eq(o.model.n_weights, 2);
    cr_assert_eq(o.model.weights[1], FF_PREC_Q8_0);
    cr_assert_eq(PARSE(&o, err, "--model", "llama-3-8b"), FF_OK, "%s", err);
    cr_assert_str_eq(o.run.record.kind, "custom");
    /* --only wins over --model's families */
    cr_assert_eq(PARSE(&o, err, "--model", "llama-3-8b", "--only", "ops"), FF_OK, "%s", err);
    cr_assert_eq(o.run.cfg.families, ff_family_bit(ff_family_find("ops")));
    /* the job's options need --model, and each names what it accepts */
    cr_assert_eq(PARSE(&o, err, "--batch", "4"), FF_ERR_INVALID);
    cr_assert(strstr(err, "--model"), "%s", err);
    cr_assert_eq(PARSE(&o, err, "--model", "llama-3-8b", "--serve", "--train"), FF_ERR_INVALID);
    cr_assert_eq(PARSE(&o, err, "--model", "llama-3-8b", "--weights", "q5_k"), FF_ERR_INVALID);
    cr_assert(strstr(err, "q4_0"), "%s", err);
    cr_assert_eq(PARSE(&o, err, "--model", "llama-3-8b", "--kv", "int8"), FF_ERR_INVALID);
    cr_assert_eq(PARSE(&o, err, "--model", "llama-3-8b", "--train", "--kv", "fp16"),
                 FF_ERR_INVALID);
    cr_assert_eq(PARSE(&o, err, "--model", "llama-3-8b", "--batch", "0"), FF_ERR_INVALID);
    cr_assert_eq(PARSE(&o, err, "--standard", "--model", "llama-3-8b"), FF_ERR_INVALID);
}

/* The op list --model runs: libflopfit's, as kernels, each distinct kernel once. */
Test(cli, model_ops_list)
{
    struct ff_bench_opts o;
    char err[512];
    static struct ff_bench_op ops[FF_BENCH_MODEL_OPS_MAX];
    size_t n = 0;
    cr_assert_eq(PARSE(&o, err, "--model", "llama-3-8b", "--weights", "q4_0"), FF_OK, "%s", err);
    cr_assert_eq(ff_bench_model_ops(&o.model, ops, FF_BENCH_MODEL_OPS_MAX, &n, err, sizeof(err)),
                 FF_OK, "%s", err);
    bool gemv = false, gemm = false, attn512 = false, attn2048 = false;
    for (size_t i = 0; i < n; i++) {
        const struct ff_kernel_desc *d = &ops[i].desc;
        for (size_t j = 0; j < i; j++)
            cr_assert(memcmp(&ops[j].desc, d, sizeof(*d)), "op %zu repeats op %zu", i, j);
        gemv |= d->id == FF_KERNEL_GEMV && d->prec == FF_PREC_Q4_0 && d->m == 1 && d->n == 4096 &&
                d->k == 14336; /* ffn_down */
        gemm |= d->id == FF_KERNEL_MATMUL && d->prec == FF_PREC_INT8 && d->m == 512;
        attn512 |= d->id == FF_KERNEL_ATTN_DECODE && d->n == 512 && d->g == 4 && d->k == 128;
        attn2048 |= d->id == FF_KERNEL_ATTN_DECODE && d->n == 2048;
    }
    cr_expect(gemv && gemm && attn512 && attn2048, "gemv %d gemm %d attn %d %d", gemv, gemm,
              attn512, attn2048);
    cr_assert_eq(PARSE(&o, err, "--model", "deepseek-v3"), FF_OK);
    cr_assert_eq(ff_bench_model_ops(&o.model, ops, FF_BENCH_MODEL_OPS_MAX, &n, err, sizeof(err)),
                 FF_ERR_UNSUPPORTED);
    cr_assert_eq(PARSE(&o, err, "--model", "mixtral-8x7b"), FF_OK);
    cr_assert_eq(ff_bench_model_ops(&o.model, ops, FF_BENCH_MODEL_OPS_MAX, &n, err, sizeof(err)),
                 FF_OK, "%s", err);
    cr_assert_eq(PARSE(&o, err, "--model", "no-such-model-xyz"), FF_OK);
    cr_assert_eq(ff_bench_model_ops(&o.model, ops, FF_BENCH_MODEL_OPS_MAX, &n, err, sizeof(err)),
                 FF_ERR_NOT_FOUND);
    cr_assert(strstr(err, "--model"), "%s", err);
}
