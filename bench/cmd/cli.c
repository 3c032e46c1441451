/* bench/cmd/cli.c — option table and typed parsers for `flopfit bench`. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "cli.h"
#include "families/families.h"
#include "run/paths.h"

#define FF_MAX_SIZE 32768u

void ff_bench_backend_names(char *dst, size_t n, const char *sep, const char *suffix)
{
    if (n == 0)
        return;
    dst[0] = 0;
    size_t len = 0;
    for (const struct ff_backend *const *b = ff_backends(); *b && len < n; b++) {
        int w = snprintf(dst + len, n - len, "%s%s%s", b == ff_backends() ? "" : sep,
                         ff_backend_name(*b), suffix);
        len += w > 0 ? (size_t)w : 0;
    }
}

static void writer_names(char *dst, size_t n, const char *sep)
{
    dst[0] = 0;
    size_t len = 0;
    for (const struct ff_bench_writer *w = ff_bench_writers(); w->name && len < n; w++) {
        int k = snprintf(dst + len, n - len, "%s%s", w == ff_bench_writers() ? "" : sep, w->name);
        len += k > 0 ? (size_t)k : 0;
    }
}

void ff_bench_usage(FILE *f)
{
    char backends[256], families[256], formats[128];
    ff_bench_backend_names(backends, sizeof(backends), ", ", "");
    ff_family_names(families, sizeof(families), ",");
    writer_names(formats, sizeof(formats), ", ");
    fprintf(
        f,
        "usage: flopfit bench [options]\n"
        "\n"
        "Measures matrix multiplication (fp32, fp16, int8) and, per device, usable memory,\n"
        "memory bandwidth, host transfers and launch latency, through every backend on every\n"
        "device. Every timed result is verified against a CPU reference. Writes one profile\n"
        "(JSON) per device into $XDG_DATA_HOME/flopfit/profiles\n"
        "(default ~/.local/share/flopfit/profiles).\n"
        "\n"
        "  --backend NAME       %s or all (default: all)\n"
        "  --device N|API:N     device index (see `flopfit devices`), e.g. 0 or %s:1\n"
        "  --precision LIST     fp32,fp16,int8 or all (default: all)\n"
        "  --sizes LIST         square matmul sizes, e.g. 512,1024,2048 (16..32768);\n"
        "                       default: 256..8192, each implementation stopping where one run\n"
        "                       would pass 3 s\n"
        "  --only LIST          families: %s (default: all)\n"
        "  --list-families      the families, what each measures and needs, and exit\n"
        "  --quick              a short run (under a minute on a CPU device)\n"
        "  --standard           the fixed workload of published results: every family,\n"
        "                       fp32,fp16,int8, sizes 512..8192 (each implementation stopping\n"
        "                       where one run would pass 3 s), at least 5 repetitions, 1 s per\n"
        "                       test, the library reference, the default memory limit\n"
        "  --reps N             timed repetitions at least (1..10000, default 3)\n"
        "  --time-budget SEC    device time per test to aim for (0.001..600, default 1)\n"
        "  --no-library         skip the library reference (CLBlast)\n"
        "  --no-tune            build every kernel with its built-in defaults; otherwise each\n"
        "                       kernel with a tuning space uses its best point from the tuning\n"
        "                       cache (see `flopfit tune`), and a device with no entry is tuned\n"
        "                       first within a small budget (8 s per device with --quick, 60 s\n"
        "                       otherwise); an --override of the kernel wins over both;\n"
        "                       FF_NO_TUNE=1 in the environment is --no-tune\n"
        "  --memory-limit SIZE  cap of the usable-memory probe, e.g. 8G (default: the\n"
        "                       device's memory; for host-shared devices, 3/4 of available RAM)\n"
        "  --seed N             seed of the random inputs (default: from the clock)\n"
        "  --output FILE        profile path (one device only)\n"
        "  --output-dir DIR     folder for profiles (default: as above)\n"
        "  --no-save            write no profile\n"
        "  --override NAME=VAL  a tuning override for every device opened (each NAME once;\n"
        "                       FF_* variables too), recorded in the profile: cl_matmul_tune,\n"
        "                       vk_tiles, vk_shared_tiles, vk_matmul_path, timeout_s\n"
        "  --format NAME        what stdout gets: %s (default: table)\n"
        "  --list-formats       the formats, and exit\n"
        "  --json               --format json: the profile(s) on stdout, one object per device\n"
        "  --mpi                one rank of a fleet run: `mpirun -np N flopfit bench --mpi`;\n"
        "                       the ranks of a node share its devices, the network is measured\n"
        "                       with MPI collectives (all-reduce, all-gather, reduce-scatter,\n"
        "                       all-to-all; intra- and inter-node) and rank 0 writes one fleet\n"
        "                       file (--output FILE, else fleet-<time>.json in the folder);\n"
        "                       a signal or a dead rank ends the whole job: no fleet file\n"
        "  --concurrent         run the tests on every selected device alone, then on all of\n"
        "                       them at once (one thread each), and report both rates\n"
        "  --model M            time model M's own operations (a preset, a config.json or a\n"
        "                       model folder, as `flopfit estimate --model` reads it) and\n"
        "                       store them as op tests for the bottom-up estimate; runs the\n"
        "                       latency, bandwidth, matmul and ops families unless --only says\n"
        "  --serve | --train    with --model: a prefill of --seq tokens and decode steps at\n"
        "                       contexts --seq/8, --seq and 4x --seq (default), or one\n"
        "                       training step\n"
        "  --batch N            with --model: sequences (1..4096, default 1)\n"
        "  --seq N              with --model: prompt / training sequence (1..131072, default 512)\n"
        "  --weights LIST       with --model: weight formats, e.g. q4_0,q8_0 (fp32 fp16 bf16\n"
        "                       int8 q8_0 q4_0; default bf16, fp32 with --train)\n"
        "  --kv FORMAT          with --model --serve: KV cache fp32, fp16 or bf16 (default, as\n"
        "                       `flopfit estimate`: fp32 for fp32 weights, fp16 for fp16, else\n"
        "                       bf16)\n"
        "  --tp N               with --model: the shapes of one of N tensor-parallel ranks\n"
        "  -h, --help           this text\n"
        "\n"
        "Ctrl-C (SIGINT) or SIGTERM stops at the next safe point and writes what was\n"
        "measured (\"complete\": false); a second signal changes nothing, a third quits at once\n"
        "unless the profile is being written.\n"
        "\n"
        "Exit status: 0 all tests ok or unsupported; 1 a test failed or no device;\n"
        "2 bad usage; 130 after SIGINT, 143 after SIGTERM (what was measured is written).\n",
        backends, ff_backends()[0] ? ff_backend_name(ff_backends()[0]) : "API", families, formats);
}

void ff_bench_list_families(FILE *f)
{
    for (const struct ff_family *fam = ff_families(); fam->name; fam++)
        fprintf(f, "%-10s %s\n%-10s needs: %s\n", fam->name, fam->description, "", fam->needs);
}

void ff_bench_list_formats(FILE *f)
{
    for (const struct ff_bench_writer *w = ff_bench_writers(); w->name; w++)
        fprintf(f, "%-10s %s\n", w->name, w->description);
}

/* {"name": ..., "description": ...[, "needs": ...]}: one row of a listing. */
static struct json_object *listed(const char *name, const char *description, const char *needs)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(name));
    json_object_object_add(o, "description", json_object_new_string(description));
    if (needs)
        json_object_object_add(o, "needs", json_object_new_string(needs));
    return o;
}

void ff_bench_list_json(FILE *f, bool families, bool formats)
{
    struct json_object *root = json_object_new_object();
    if (families) {
        struct json_object *a = json_object_new_array();
        for (const struct ff_family *fam = ff_families(); fam->name; fam++)
            json_object_array_add(a, listed(fam->name, fam->description, fam->needs));
        json_object_object_add(root, "families", a);
    }
    if (formats) {
        struct json_object *a = json_object_new_array();
        for (const struct ff_bench_writer *w = ff_bench_writers(); w->name; w++)
            json_object_array_add(a, listed(w->name, w->description, NULL));
        json_object_object_add(root, "formats", a);
    }
    fprintf(f, "%s\n",
            json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                     JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(root);
}

/* Calls fn on each comma-separated item of list. */
static int each_item(const char *opt, const char *list, char *err, size_t errlen,
                     int (*fn)(const char *opt, const char *item, void *ctx, char *err,
                               size_t errlen),
                     void *ctx)
{
    char buf[512];
    if (!list || !*list || strlen(list) >= sizeof(buf))
        return ff_bad_value(err, errlen, opt, list ? list : "", "a comma-separated list");
    snprintf(buf, sizeof(buf), "%s", list);
    char *save = NULL;
    int n = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save), n++) {
        int ret = fn(opt, t, ctx, err, errlen);
        if (ret < 0)
            return ret;
    }
    if (n == 0)
        return ff_errf(err, errlen, FF_ERR_INVALID, "empty list for %s", opt);
    return FF_OK;
}

static int add_prec(const char *opt, const char *item, void *ctx, char *err, size_t errlen)
{
    bool *prec = ctx;
    if (strcasecmp(item, "all") == 0) {
        for (int i = 0; i < FF_PREC_COUNT; i++)
            prec[i] = true;
        return FF_OK;
    }
    enum ff_precision p;
    if (ff_precision_parse(item, &p) == FF_OK) {
        prec[p] = true;
        return FF_OK;
    }
    return ff_bad_value(
        err, errlen, opt, item,
        "fp32, fp16, int8 (measured), bf16, fp8, int4, nf4 (reported unsupported) or all");
}

static int add_family(const char *opt, const char *item, void *ctx, char *err, size_t errlen)
{
    uint32_t *mask = ctx;
    if (strcasecmp(item, "all") == 0) {
        *mask |= ff_family_all();
        return FF_OK;
    }
    const struct ff_family *f = ff_family_find(item);
    if (f) {
        *mask |= ff_family_bit(f);
        return FF_OK;
    }
    char names[256], accepted[300];
    ff_family_names(names, sizeof(names), ", ");
    snprintf(accepted, sizeof(accepted), "%s or all", names);
    return ff_bad_value(err, errlen, opt, item, accepted);
}

static int add_size(const char *opt, const char *item, void *ctx, char *err, size_t errlen)
{
    struct ff_bench_cfg *cfg = ctx;
    uint32_t v;
    int ret = ff_parse_u32(opt, item, 16, FF_MAX_SIZE, &v, err, errlen);
    if (ret < 0)
        return ret;
    if (cfg->n_sizes == FF_MAX_SIZES)
        return ff_errf(err, errlen, FF_ERR_INVALID, "too many sizes for %s (at most %d)", opt,
                       FF_MAX_SIZES);
    cfg->sizes[cfg->n_sizes++] = v;
    return FF_OK;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The backend named by s[0..n), as built in; NULL when none. */
static const struct ff_backend *backend_prefix(const char *s, size_t n)
{
    char name[32];
    if (n == 0 || n >= sizeof(name))
        return NULL;
    memcpy(name, s, n);
    name[n] = 0;
    return ff_backend_find(name);
}

int ff_bench_parse_device(const char *s, struct ff_target_sel *sel, char *err, size_t errlen)
{
    const char *colon = strchr(s, ':');
    const char *num = s;
    sel->device_backend[0] = 0;
    if (colon) {
        const struct ff_backend *b = backend_prefix(s, (size_t)(colon - s));
        if (!b) {
            char names[256], accepted[300];
            ff_bench_backend_names(names, sizeof(names), " or ", ":N");
            snprintf(accepted, sizeof(accepted), "N or %s", names);
            return ff_bad_value(err, errlen, "--device", s, accepted);
        }
        snprintf(sel->device_backend, sizeof(sel->device_backend), "%s", ff_backend_name(b));
        num = colon + 1;
    }
    sel->device_given = true;
    return ff_parse_u32("--device", num, 0, 1023, &sel->device_index, err, errlen);
}

int ff_bench_parse_backend(const char *s, struct ff_target_sel *sel, char *err, size_t errlen)
{
    if (strcasecmp(s, "all") == 0) {
        sel->backend[0] = 0;
        return FF_OK;
    }
    const struct ff_backend *b = ff_backend_find(s);
    if (!b) {
        char names[256], accepted[300];
        ff_bench_backend_names(names, sizeof(names), ", ", "");
        snprintf(accepted, sizeof(accepted), "%s or all", names);
        return ff_bad_value(err, errlen, "--backend", s, accepted);
    }
    snprintf(sel->backend, sizeof(sel->backend), "%s", ff_backend_name(b));
    return FF_OK;
}

static int parse_format(const char *s, struct ff_bench_opts *o, char *err, size_t errlen)
{
    o->run.writer = ff_bench_writer_find(s);
    if (o->run.writer)
        return FF_OK;
    char names[128];
    writer_names(names, sizeof(names), ", ");
    return ff_bad_value(err, errlen, "--format", s, names);
}

/* --override NAME=VALUE: one tuning option of the backends' table (ff_device_option_at).
 * *seen has bit i set once option i was given on this command line: a second one is an error
 * (which of two values was meant cannot be guessed). */
static int parse_override(const char *s, struct ff_bench_opts *o, uint64_t *seen, char *err,
                          size_t errlen)
{
    char names[512] = "";
    for (size_t i = 0; ff_device_option_at(i); i++) {
        size_t len = strlen(names);
        snprintf(names + len, sizeof(names) - len, "%s%s", i ? ", " : "",
                 ff_device_option_at(i)->name);
    }
    const char *eq = strchr(s, '=');
    if (!eq || eq == s || (size_t)(eq - s) >= 64) {
        char accepted[600];
        snprintf(accepted, sizeof(accepted), "NAME=VALUE with NAME one of %s", names);
        return ff_bad_value(err, errlen, "--override", s, accepted);
    }
    char name[64];
    snprintf(name, sizeof(name), "%.*s", (int)(eq - s), s);
    for (size_t i = 0; i < 64 && ff_device_option_at(i); i++) {
        if (strcmp(ff_device_option_at(i)->name, name) != 0)
            continue;
        if (*seen & (UINT64_C(1) << i))
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "--override %s is given twice (each NAME at most once)", name);
        *seen |= UINT64_C(1) << i;
    }
    char why[400];
    int ret = ff_device_options_set(&o->run.dev_opts, name, eq + 1, why, sizeof(why));
    if (ret == FF_ERR_NOT_FOUND) {
        char accepted[600];
        snprintf(accepted, sizeof(accepted), "NAME=VALUE with NAME one of %s", names);
        return ff_bad_value(err, errlen, "--override", s, accepted);
    }
    if (ret < 0)
        return ff_errf(err, errlen, FF_ERR_INVALID, "--override: %s", why);
    return FF_OK;
}

enum {
    OPT_BACKEND = 256,
    OPT_DEVICE,
    OPT_PRECISION,
    OPT_SIZES,
    OPT_ONLY,
    OPT_QUICK,
    OPT_REPS,
    OPT_BUDGET,
    OPT_NO_LIBRARY,
    OPT_MEMORY_LIMIT,
    OPT_SEED,
    OPT_OUTPUT,
    OPT_OUTPUT_DIR,
    OPT_NO_SAVE,
    OPT_JSON,
    OPT_FORMAT,
    OPT_LIST_FAMILIES,
    OPT_LIST_FORMATS,
    OPT_OVERRIDE,
    OPT_STANDARD,
    OPT_MPI,
    OPT_CONCURRENT,
    OPT_NO_TUNE,
    OPT_MODEL,
    OPT_SERVE,
    OPT_TRAIN,
    OPT_BATCH,
    OPT_SEQ,
    OPT_WEIGHTS,
    OPT_KV,
    OPT_TP,
};

static const struct option long_opts[] = {
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"device", required_argument, NULL, OPT_DEVICE},
    {"precision", required_argument, NULL, OPT_PRECISION},
    {"sizes", required_argument, NULL, OPT_SIZES},
    {"size", required_argument, NULL, OPT_SIZES},
    {"only", required_argument, NULL, OPT_ONLY},
    {"quick", no_argument, NULL, OPT_QUICK},
    {"reps", required_argument, NULL, OPT_REPS},
    {"time-budget", required_argument, NULL, OPT_BUDGET},
    {"no-library", no_argument, NULL, OPT_NO_LIBRARY},
    {"memory-limit", required_argument, NULL, OPT_MEMORY_LIMIT},
    {"seed", required_argument, NULL, OPT_SEED},
    {"output", required_argument, NULL, OPT_OUTPUT},
    {"output-dir", required_argument, NULL, OPT_OUTPUT_DIR},
    {"no-save", no_argument, NULL, OPT_NO_SAVE},
    {"json", no_argument, NULL, OPT_JSON},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"list-families", no_argument, NULL, OPT_LIST_FAMILIES},
    {"list-formats", no_argument, NULL, OPT_LIST_FORMATS},
    {"override", required_argument, NULL, OPT_OVERRIDE},
    {"standard", no_argument, NULL, OPT_STANDARD},
    {"mpi", no_argument, NULL, OPT_MPI},
    {"concurrent", no_argument, NULL, OPT_CONCURRENT},
    {"no-tune", no_argument, NULL, OPT_NO_TUNE},
    {"model", required_argument, NULL, OPT_MODEL},
    {"serve", no_argument, NULL, OPT_SERVE},
    {"train", no_argument, NULL, OPT_TRAIN},
    {"batch", required_argument, NULL, OPT_BATCH},
    {"seq", required_argument, NULL, OPT_SEQ},
    {"weights", required_argument, NULL, OPT_WEIGHTS},
    {"kv", required_argument, NULL, OPT_KV},
    {"tp", required_argument, NULL, OPT_TP},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

const struct option *ff_bench_options(void)
{
    return long_opts;
}

static int add_weights(const char *opt, const char *item, void *ctx, char *err, size_t errlen)
{
    struct ff_bench_model *bm = ctx;
    enum ff_precision p;
    if (ff_precision_parse(item, &p) < 0 || !ff_op_gemv_format(p))
        return ff_bad_value(err, errlen, opt, item, "fp32, fp16, bf16, int8, q8_0 or q4_0");
    for (size_t i = 0; i < bm->n_weights; i++)
        if (bm->weights[i] == p)
            return FF_OK;
    if (bm->n_weights >= sizeof(bm->weights) / sizeof(bm->weights[0]))
        return ff_errf(err, errlen, FF_ERR_INVALID, "%s: at most %zu formats", opt,
                       sizeof(bm->weights) / sizeof(bm->weights[0]));
    bm->weights[bm->n_weights++] = p;
    return FF_OK;
}

static int parse_kv(const char *s, struct ff_bench_model *bm, char *err, size_t errlen)
{
    enum ff_precision p;
    if (ff_precision_parse(s, &p) < 0 || !ff_op_kv_format(p))
        return ff_bad_value(err, errlen, "--kv", s, "fp32, fp16 or bf16");
    bm->kv = p;
    bm->kv_given = true;
    return FF_OK;
}

/* The model options belong with --model, and --serve and --train exclude each other. */
static int check_model_opts(const struct ff_bench_model *bm, bool only_given, char *err,
                            size_t errlen)
{
    (void)only_given;
    if (!bm->name) {
        if (bm->serve_given || bm->train || bm->batch || bm->seq || bm->n_weights || bm->kv_given ||
            bm->tp)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "--serve, --train, --batch, --seq, --weights, --kv and --tp describe "
                           "the job of --model; give --model too");
        return FF_OK;
    }
    if (bm->serve_given && bm->train)
        return ff_errf(err, errlen, FF_ERR_INVALID, "--serve and --train: choose one");
    if (bm->train && bm->kv_given)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--kv is the serving KV cache's format; a training step keeps none");
    return FF_OK;
}

/* What --model runs without --only: the launch latency, read bandwidth and matmul rates the
 * estimate takes its dispatch cost, constant terms and top-down figure from, and the ops. */
static uint32_t model_families(void)
{
    uint32_t bits = 0;
    const char *names[] = {"latency", "bandwidth", "matmul", "ops"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        bits |= ff_family_bit(ff_family_find(names[i]));
    return bits;
}

int ff_bench_parse(int argc, char **argv, struct ff_bench_opts *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof(*o));
    ff_bench_cfg_defaults(&o->run.cfg);
    o->run.writer = ff_bench_writers();
    if (ff_bench_default_dir(o->run.output_dir_buf, sizeof(o->run.output_dir_buf),
                             o->run.output_dir_err, sizeof(o->run.output_dir_err)) == FF_OK)
        o->run.output_dir = o->run.output_dir_buf;
    bool prec_given = false, quick = false, reps_given = false, budget_given = false;
    bool standard = false;
    uint32_t families = 0;
    uint64_t overrides_seen = 0;
    struct ff_bench_cfg *cfg = &o->run.cfg;
    cfg->n_sizes = 0;
    bool prec[FF_PREC_COUNT] = {false};
    uint32_t u;
    double d;
    int ret = FF_OK, c;

    ret = ff_device_options_from_env(&o->run.dev_opts, err, errlen);
    if (ret < 0)
        return FF_ERR_INVALID;
    /* FF_NO_TUNE=1: --no-tune for every run (the test suite sets it: its benches measure
     * behaviour, not the tuned rate, and must not write the user's tuning cache). */
    const char *nt = getenv("FF_NO_TUNE");
    if (nt && *nt && strcmp(nt, "0") != 0)
        cfg->no_tune = true;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", long_opts, NULL)) != -1) {
        const char *opt = optind > 1 && optind - 1 < argc ? argv[optind - 1] : "?";
        switch (c) {
        case OPT_BACKEND: ret = ff_bench_parse_backend(optarg, &o->run.sel, err, errlen); break;
        case OPT_DEVICE: ret = ff_bench_parse_device(optarg, &o->run.sel, err, errlen); break;
        case OPT_PRECISION:
            ret = each_item("--precision", optarg, err, errlen, add_prec, prec);
            prec_given = true;
            break;
        case OPT_SIZES:
            ret = each_item("--sizes", optarg, err, errlen, add_size, cfg);
            cfg->sizes_given = true;
            break;
        case OPT_ONLY: ret = each_item("--only", optarg, err, errlen, add_family, &families); break;
        case OPT_QUICK: quick = true; break;
        case OPT_STANDARD: standard = true; break;
        case OPT_NO_TUNE: cfg->no_tune = true; break;
        case OPT_REPS:
            ret = ff_parse_u32("--reps", optarg, 1, 10000, &u, err, errlen);
            cfg->measure.min_reps = u;
            reps_given = true;
            break;
        case OPT_BUDGET:
            ret = ff_parse_double("--time-budget", optarg, 0.001, 600, &d, err, errlen);
            cfg->measure.budget_s = d;
            budget_given = true;
            break;
        case OPT_NO_LIBRARY: cfg->library = false; break;
        case OPT_MEMORY_LIMIT:
            ret = ff_parse_bytes("--memory-limit", optarg, 1024 * 1024, &cfg->memory_limit_bytes,
                                 err, errlen);
            break;
        case OPT_SEED: {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(optarg, &end, 0);
            if (errno || *end || !isdigit((unsigned char)optarg[0]))
                ret = ff_bad_value(err, errlen, "--seed", optarg, "a whole number");
            cfg->seed = v;
            break;
        }
        case OPT_OUTPUT:
            if (!*optarg)
                ret = ff_bad_value(err, errlen, "--output", optarg, "a file path");
            o->run.output = optarg;
            break;
        case OPT_OUTPUT_DIR:
            if (!*optarg)
                ret = ff_bad_value(err, errlen, "--output-dir", optarg, "a folder path");
            o->run.output_dir = optarg;
            break;
        case OPT_NO_SAVE: o->run.no_save = true; break;
        case OPT_JSON: o->run.writer = ff_bench_writer_find("json"); break;
        case OPT_FORMAT: ret = parse_format(optarg, o, err, errlen); break;
        case OPT_LIST_FAMILIES: o->list_families = true; break;
        case OPT_LIST_FORMATS: o->list_formats = true; break;
        case OPT_OVERRIDE: ret = parse_override(optarg, o, &overrides_seen, err, errlen); break;
        case OPT_MPI: o->mpi = true; break;
        case OPT_CONCURRENT: o->concurrent = true; break;
        case OPT_MODEL:
            if (!*optarg)
                ret = ff_bad_value(err, errlen, "--model", optarg,
                                   "a preset, a config.json or a model folder");
            o->model.name = optarg;
            break;
        case OPT_SERVE: o->model.serve_given = true; break;
        case OPT_TRAIN: o->model.train = true; break;
        case OPT_BATCH:
            ret = ff_parse_u32("--batch", optarg, 1, 4096, &o->model.batch, err, errlen);
            break;
        case OPT_SEQ:
            ret = ff_parse_u32("--seq", optarg, 1, 131072, &o->model.seq, err, errlen);
            break;
        case OPT_TP: ret = ff_parse_u32("--tp", optarg, 1, 1024, &o->model.tp, err, errlen); break;
        case OPT_WEIGHTS:
            ret = each_item("--weights", optarg, err, errlen, add_weights, &o->model);
            break;
        case OPT_KV: ret = parse_kv(optarg, &o->model, err, errlen); break;
        case 'h': return FF_CLI_HELP;
        case ':': ret = ff_errf(err, errlen, FF_ERR_INVALID, "option %s needs a value", opt); break;
        default: ret = ff_unknown_option(err, errlen, opt, long_opts); break;
        }
        if (ret < 0)
            return ret;
    }
    if (optind < argc)
        return ff_errf(err, errlen, FF_ERR_INVALID, "unexpected argument '%s' (see --help)",
                       argv[optind]);
    if (o->run.output && o->run.no_save)
        return ff_errf(err, errlen, FF_ERR_INVALID, "--output and --no-save contradict");
    if (o->mpi && o->concurrent)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--mpi and --concurrent do not combine (a fleet run shares a node's "
                       "devices between its ranks; run --concurrent on one node)");

    if ((ret = check_model_opts(&o->model, families != 0, err, errlen)) < 0)
        return ret;
    if (o->model.name && !families)
        families = model_families();

    /* --standard is one documented workload so community results compare: nothing changes it */
    if (standard && (quick || prec_given || families || cfg->sizes_given || reps_given ||
                     budget_given || !cfg->library || cfg->memory_limit_bytes || o->model.name))
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--standard is a fixed workload: it takes no --quick, --precision, "
                       "--only, --sizes, --reps, --time-budget, --no-library, --memory-limit "
                       "or --model");
    /* "full" is a plain run: nothing --standard fixes is changed (README: `flopfit bench`) */
    bool restricted = prec_given || families || cfg->sizes_given || reps_given || budget_given ||
                      o->model.name || !cfg->library || cfg->memory_limit_bytes;
    o->run.record.kind = ff_run_kind(quick, standard, restricted);
    o->run.record.argv = (const char *const *)argv;
    o->run.record.argc = argc > 0 ? (size_t)argc : 0;
    if (standard) {
        static const uint32_t std_sizes[] = {512, 1024, 2048, 4096, 8192};
        memset(prec, 0, sizeof(prec));
        prec[FF_PREC_FP32] = prec[FF_PREC_FP16] = prec[FF_PREC_INT8] = prec_given = true;
        memcpy(cfg->sizes, std_sizes, sizeof(std_sizes));
        cfg->n_sizes = sizeof(std_sizes) / sizeof(std_sizes[0]);
        cfg->measure.min_reps = 5;
        cfg->measure.budget_s = 1.0;
        cfg->max_run_s = 3.0;
    }
    if (prec_given)
        memcpy(cfg->prec, prec, sizeof(prec));
    if (families)
        cfg->families = families;
    if (quick) {
        cfg->quick = true;
        if (!cfg->sizes_given) {
            /* Both sizes always run: 1024 is the smallest that leaves launch
             * overhead and caches behind on GPUs, and costs ~1 s on a CPU. */
            cfg->sizes[0] = 256;
            cfg->sizes[1] = 1024;
            cfg->n_sizes = 2;
            cfg->sizes_given = true;
        }
        if (!budget_given)
            cfg->measure.budget_s = 0.25;
        if (!reps_given)
            cfg->measure.min_reps = 3;
        cfg->max_run_s = 0.5;
    }
    if (cfg->n_sizes == 0) {
        static const uint32_t def[] = {256, 512, 1024, 2048, 4096, 8192};
        memcpy(cfg->sizes, def, sizeof(def));
        cfg->n_sizes = sizeof(def) / sizeof(def[0]);
    }
    qsort(cfg->sizes, cfg->n_sizes, sizeof(cfg->sizes[0]), cmp_u32);
    if (cfg->measure.max_reps < cfg->measure.min_reps)
        cfg->measure.max_reps = cfg->measure.min_reps;
    return FF_OK;
}
