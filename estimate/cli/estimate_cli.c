/*
 * estimate/cli/estimate_cli.c — `flopfit estimate`: options, model and device resolution,
 * printing. Exit codes: 0 the plan fits (ranking: something fits), 1 it does not fit (or an
 * internal failure), 2 a usage or input error (message on stderr).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_report.h"
#include "estimate_cli.h"
#include "flopfit/flopfit.h"

#define EXIT_USAGE   2
#define MAX_PROFILES 16
#define GIB          1073741824.0

static const char usage_text[] =
    "usage: flopfit estimate --model NAME|config.json | --params N  [task] [plan] [device]\n"
    "\n"
    "Will this model train or serve on that device, on how many, how long, at what cost.\n"
    "\n"
    "model:\n"
    "  --model NAME|PATH      a preset (see --list-models) or a Hugging Face config.json\n"
    "  --params N             rough: N parameters, shape guessed (e.g. 7e9)\n"
    "task (default --train):\n"
    "  --train                full training\n"
    "  --finetune lora|qlora  adapters on a frozen (QLoRA: NF4) base\n"
    "  --lora-rank R          adapter rank (16)   --lora-targets all|qv (all)\n"
    "  --serve                inference: --prompt N (512) --generate N (256)\n"
    "numerics and memory plan:\n"
    "  --precision P          fp32 bf16 fp16 fp8 int8 int4 (bf16)\n"
    "  --kv-precision P       KV cache format (16-bit of --precision)\n"
    "  --grad-precision P     stored gradients fp32|bf16|fp16 (fp32)\n"
    "  --optimizer O          adamw adamw8bit sgd (adamw)\n"
    "  --batch N              micro-batch / concurrent sequences (1)\n"
    "  --seq N                training sequence length (model context, at most 4096)\n"
    "  --accum N              gradient accumulation / pipeline micro-batches (1)\n"
    "  --recompute R          none selective full (none)\n"
    "  --flash-attention on|off (on)   --sequence-parallel on|off (on)\n"
    "  --zero 0|1|2|3         ZeRO stage (0)\n"
    "  --tp N --pp N          tensor / pipeline parallel (1, 1)\n"
    "  --gpus N               GPUs in all; data parallel = gpus/(tp*pp) (the fewest that fit)\n"
    "device:\n"
    "  --device NAME|all      catalog device (see --list-devices); all = rank every one\n"
    "  --profile FILE         measured profile from `flopfit bench` (repeatable)\n"
    "run:\n"
    "  --tokens N             training tokens (20 x params; fine-tuning 1e8)\n"
    "  --mfu F                model FLOPs utilisation (train 0.40, serve prefill 0.60)\n"
    "  --achieved-tflops X    achieved hardware TFLOP/s per GPU instead of --mfu\n"
    "  --bw-fraction F        achieved fraction of memory bandwidth (0.70; profile 1.0)\n"
    "  --price USD            $ per GPU-hour (the catalog's typical rate)\n"
    "  --overhead-gib G       fixed runtime overhead per GPU (1)\n"
    "output:\n"
    "  --json                 machine-readable\n"
    "  --list-models, --list-devices, --help\n";

enum {
    OPT_MODEL = 256,
    OPT_PARAMS,
    OPT_TRAIN,
    OPT_FINETUNE,
    OPT_SERVE,
    OPT_LORA_RANK,
    OPT_LORA_TARGETS,
    OPT_PRECISION,
    OPT_KV_PRECISION,
    OPT_GRAD_PRECISION,
    OPT_OPTIMIZER,
    OPT_BATCH,
    OPT_SEQ,
    OPT_ACCUM,
    OPT_RECOMPUTE,
    OPT_FLASH,
    OPT_SP,
    OPT_ZERO,
    OPT_TP,
    OPT_PP,
    OPT_GPUS,
    OPT_PROMPT,
    OPT_GENERATE,
    OPT_DEVICE,
    OPT_PROFILE,
    OPT_TOKENS,
    OPT_MFU,
    OPT_ACHIEVED,
    OPT_BW,
    OPT_PRICE,
    OPT_OVERHEAD,
    OPT_JSON,
    OPT_LIST_MODELS,
    OPT_LIST_DEVICES,
    OPT_HELP,
};

static const struct option long_opts[] = {
    {"model", required_argument, NULL, OPT_MODEL},
    {"params", required_argument, NULL, OPT_PARAMS},
    {"train", no_argument, NULL, OPT_TRAIN},
    {"finetune", required_argument, NULL, OPT_FINETUNE},
    {"serve", no_argument, NULL, OPT_SERVE},
    {"lora-rank", required_argument, NULL, OPT_LORA_RANK},
    {"lora-targets", required_argument, NULL, OPT_LORA_TARGETS},
    {"precision", required_argument, NULL, OPT_PRECISION},
    {"kv-precision", required_argument, NULL, OPT_KV_PRECISION},
    {"grad-precision", required_argument, NULL, OPT_GRAD_PRECISION},
    {"optimizer", required_argument, NULL, OPT_OPTIMIZER},
    {"batch", required_argument, NULL, OPT_BATCH},
    {"seq", required_argument, NULL, OPT_SEQ},
    {"accum", required_argument, NULL, OPT_ACCUM},
    {"recompute", required_argument, NULL, OPT_RECOMPUTE},
    {"flash-attention", required_argument, NULL, OPT_FLASH},
    {"sequence-parallel", required_argument, NULL, OPT_SP},
    {"zero", required_argument, NULL, OPT_ZERO},
    {"tp", required_argument, NULL, OPT_TP},
    {"pp", required_argument, NULL, OPT_PP},
    {"gpus", required_argument, NULL, OPT_GPUS},
    {"prompt", required_argument, NULL, OPT_PROMPT},
    {"generate", required_argument, NULL, OPT_GENERATE},
    {"device", required_argument, NULL, OPT_DEVICE},
    {"profile", required_argument, NULL, OPT_PROFILE},
    {"tokens", required_argument, NULL, OPT_TOKENS},
    {"mfu", required_argument, NULL, OPT_MFU},
    {"achieved-tflops", required_argument, NULL, OPT_ACHIEVED},
    {"bw-fraction", required_argument, NULL, OPT_BW},
    {"price", required_argument, NULL, OPT_PRICE},
    {"overhead-gib", required_argument, NULL, OPT_OVERHEAD},
    {"json", no_argument, NULL, OPT_JSON},
    {"list-models", no_argument, NULL, OPT_LIST_MODELS},
    {"list-devices", no_argument, NULL, OPT_LIST_DEVICES},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

static int usage_error(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "flopfit estimate: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n(see flopfit estimate --help)\n");
    return EXIT_USAGE;
}

/* A real number in [min, max] (min exclusive when open_min). Accepts 7e9, 0.4. */
static int parse_real(const char *opt, const char *s, double min, double max, bool open_min,
                      double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || !isfinite(v)) {
        fprintf(stderr, "flopfit estimate: %s: \"%s\" is not a number\n", opt, s);
        return EXIT_USAGE;
    }
    if (errno == ERANGE || v > max || v < min || (open_min && v <= min)) {
        fprintf(stderr, "flopfit estimate: %s: %s is out of range (expected %s%g to %g)\n", opt, s,
                open_min ? "more than " : "", min, max);
        return EXIT_USAGE;
    }
    *out = v;
    return 0;
}

/* An integer in [min, max]; "1e6"-style accepted when integral. */
static int parse_int(const char *opt, const char *s, int64_t min, int64_t max, int64_t *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end != s && *end == '\0' && errno == 0) {
        if (v < min || v > max) {
            fprintf(stderr, "flopfit estimate: %s: %lld is out of range (expected %lld to %lld)\n",
                    opt, v, (long long)min, (long long)max);
            return EXIT_USAGE;
        }
        *out = v;
        return 0;
    }
    double d;
    if (parse_real(opt, s, -1e300, 1e300, false, &d) != 0)
        return EXIT_USAGE;
    if (d != floor(d) || d < (double)min || d > (double)max) {
        fprintf(stderr,
                "flopfit estimate: %s: %s is out of range (expected an integer %lld to %lld)\n",
                opt, s, (long long)min, (long long)max);
        return EXIT_USAGE;
    }
    *out = (int64_t)d;
    return 0;
}

static int parse_onoff(const char *opt, const char *s, bool *out)
{
    if (!strcmp(s, "on") || !strcmp(s, "true") || !strcmp(s, "1")) {
        *out = true;
        return 0;
    }
    if (!strcmp(s, "off") || !strcmp(s, "false") || !strcmp(s, "0")) {
        *out = false;
        return 0;
    }
    return usage_error("%s: \"%s\" is not on or off", opt, s);
}

static int parse_prec(const char *opt, const char *s, enum ff_precision *out)
{
    if (ff_precision_parse(s, out) != FF_OK || *out == FF_PREC_NF4)
        return usage_error("%s: unknown precision \"%s\" (expected fp32, bf16, fp16, fp8, "
                           "int8 or int4)",
                           opt, s);
    return 0;
}

static void list_models(FILE *out)
{
    size_t n;
    const struct ff_model_preset *p = ff_model_presets(&n);
    fprintf(out, "%-16s %12s %12s  %s\n", "model", "params", "active", "source");
    for (size_t i = 0; i < n; i++) {
        struct ff_param_count pc;
        if (ff_model_params(&p[i].model, &pc) != FF_OK)
            continue;
        fprintf(out, "%-16s %11.4gB %11.4gB  %s\n", p[i].slug, (double)pc.total / 1e9,
                (double)pc.active / 1e9, p[i].model.source);
    }
}

static void list_devices(FILE *out)
{
    size_t n;
    const struct ff_spec *d = ff_spec_catalog(&n);
    fprintf(out, "%-12s %-38s %8s %9s %9s %9s %8s\n", "device", "name", "mem GiB", "GB/s",
            "fp32 TF", "bf16 TF", "$/h");
    for (size_t i = 0; i < n; i++) {
        char price[16] = "-";
        if (d[i].price_per_hour > 0)
            snprintf(price, sizeof(price), "%.2f", d[i].price_per_hour);
        fprintf(out, "%-12s %-38s %8.0f %9.0f %9.1f %9.1f %8s\n", d[i].slug, d[i].name,
                d[i].mem_bytes / GIB, d[i].bandwidth_bytes_per_s / 1e9,
                d[i].flops_per_s[FF_PREC_FP32] / 1e12, d[i].flops_per_s[FF_PREC_BF16] / 1e12,
                price);
    }
}

static bool looks_like_path(const char *s)
{
    struct stat st;
    size_t n = strlen(s);
    return strchr(s, '/') || (n > 5 && !strcmp(s + n - 5, ".json")) || stat(s, &st) == 0;
}

static int status_exit(int rc)
{
    return rc == FF_ERR_NO_MEMORY ? 1 : EXIT_USAGE;
}

static int load_model(const char *model_arg, double params, struct ff_model *m)
{
    char err[512];
    if (model_arg && params > 0)
        return usage_error("give either --model or --params, not both%s%s", "", "");
    if (!model_arg && !(params > 0))
        return usage_error("no model: give --model NAME, --model config.json or --params N%s%s", "",
                           "");
    if (params > 0) {
        int rc = ff_model_rough(params, m, err, sizeof(err));
        if (rc != FF_OK) {
            fprintf(stderr, "flopfit estimate: %s\n", err);
            return status_exit(rc);
        }
        return 0;
    }
    if (looks_like_path(model_arg)) {
        int rc = ff_model_from_hf_config(model_arg, m, err, sizeof(err));
        if (rc != FF_OK) {
            fprintf(stderr, "flopfit estimate: %s\n", err);
            return status_exit(rc);
        }
        return 0;
    }
    if (ff_model_preset_find(model_arg, m) == FF_OK)
        return 0;
    char near[256];
    ff_model_suggest(model_arg, near, sizeof(near), 4);
    fprintf(stderr,
            "flopfit estimate: unknown model \"%s\"%s%s%s\n"
            "  (flopfit estimate --list-models shows all; a config.json path also works)\n",
            model_arg, near[0] ? "; did you mean " : "", near, near[0] ? "?" : "");
    return EXIT_USAGE;
}

static int cmp_rows(const void *a, const void *b)
{
    const struct ff_rank_row *x = a, *y = b;
    if ((x->status == 0) != (y->status == 0))
        return x->status == 0 ? -1 : 1;
    if (x->status != 0)
        return 0;
    const struct ff_estimate *e = &x->est, *f = &y->est;
    if (e->fits != f->fits)
        return e->fits ? -1 : 1;
    bool serve = e->serve_batch > 0;
    double ce = serve ? e->cost_per_million_tokens : e->cost_usd;
    double cf = serve ? f->cost_per_million_tokens : f->cost_usd;
    if ((ce >= 0) != (cf >= 0))
        return ce >= 0 ? -1 : 1;
    if (ce >= 0 && ce != cf)
        return ce < cf ? -1 : 1;
    double te = serve ? -e->max_tokens_per_second : e->seconds;
    double tf = serve ? -f->max_tokens_per_second : f->seconds;
    return te < tf ? -1 : te > tf;
}

struct opts {
    const char *model_arg, *device_arg;
    const char *profiles[MAX_PROFILES];
    size_t n_profiles;
    double params;
    bool json, list_models, list_devices, help;
    int tasks;
    bool lora_rank_set, serve_opts_set, tokens_set;
};

static int parse(int argc, char **argv, struct opts *o, struct ff_plan *p)
{
    int64_t v;
    double x;
    int rc = 0;
    optind = 0; /* glibc: full re-initialisation, ff_cmd_estimate may run more than once */
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
        const char *opt = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
        switch (c) {
        case OPT_MODEL: o->model_arg = optarg; break;
        case OPT_PARAMS: rc = parse_real("--params", optarg, 0, 1e15, true, &o->params); break;
        case OPT_TRAIN:
            p->task = FF_TASK_TRAIN;
            o->tasks++;
            break;
        case OPT_SERVE:
            p->task = FF_TASK_SERVE;
            o->tasks++;
            break;
        case OPT_FINETUNE:
            o->tasks++;
            if (!strcmp(optarg, "lora"))
                p->task = FF_TASK_LORA;
            else if (!strcmp(optarg, "qlora"))
                p->task = FF_TASK_QLORA;
            else
                rc = usage_error("--finetune: \"%s\" is not lora or qlora%s", optarg, "");
            break;
        case OPT_LORA_RANK:
            o->lora_rank_set = true;
            rc = parse_int("--lora-rank", optarg, 1, 1 << 20, &p->lora_rank);
            break;
        case OPT_LORA_TARGETS:
            if (!strcmp(optarg, "all"))
                p->lora_all_linear = true;
            else if (!strcmp(optarg, "qv"))
                p->lora_all_linear = false;
            else
                rc = usage_error("--lora-targets: \"%s\" is not all or qv%s", optarg, "");
            break;
        case OPT_PRECISION: rc = parse_prec("--precision", optarg, &p->precision); break;
        case OPT_KV_PRECISION:
            rc = parse_prec("--kv-precision", optarg, &p->kv_precision);
            p->kv_precision_set = true;
            break;
        case OPT_GRAD_PRECISION:
            rc = parse_prec("--grad-precision", optarg, &p->grad_precision);
            break;
        case OPT_OPTIMIZER:
            if (!strcmp(optarg, "adamw") || !strcmp(optarg, "adam"))
                p->optimizer = FF_OPT_ADAMW;
            else if (!strcmp(optarg, "adamw8bit") || !strcmp(optarg, "adam8bit"))
                p->optimizer = FF_OPT_ADAMW8BIT;
            else if (!strcmp(optarg, "sgd"))
                p->optimizer = FF_OPT_SGD;
            else
                rc =
                    usage_error("--optimizer: \"%s\" is not adamw, adamw8bit or sgd%s", optarg, "");
            break;
        case OPT_BATCH: rc = parse_int("--batch", optarg, 1, (int64_t)1 << 30, &p->batch); break;
        case OPT_SEQ: rc = parse_int("--seq", optarg, 1, (int64_t)1 << 34, &p->seq); break;
        case OPT_ACCUM: rc = parse_int("--accum", optarg, 1, (int64_t)1 << 30, &p->accum); break;
        case OPT_RECOMPUTE:
            if (!strcmp(optarg, "none"))
                p->recompute = FF_RECOMPUTE_NONE;
            else if (!strcmp(optarg, "selective"))
                p->recompute = FF_RECOMPUTE_SELECTIVE;
            else if (!strcmp(optarg, "full"))
                p->recompute = FF_RECOMPUTE_FULL;
            else
                rc =
                    usage_error("--recompute: \"%s\" is not none, selective or full%s", optarg, "");
            break;
        case OPT_FLASH: rc = parse_onoff("--flash-attention", optarg, &p->flash_attention); break;
        case OPT_SP: rc = parse_onoff("--sequence-parallel", optarg, &p->sequence_parallel); break;
        case OPT_ZERO:
            rc = parse_int("--zero", optarg, 0, 3, &v);
            p->zero = (int)v;
            break;
        case OPT_TP: rc = parse_int("--tp", optarg, 1, 1 << 16, &p->tp); break;
        case OPT_PP: rc = parse_int("--pp", optarg, 1, 1 << 16, &p->pp); break;
        case OPT_GPUS: rc = parse_int("--gpus", optarg, 1, (int64_t)1 << 30, &p->gpus); break;
        case OPT_PROMPT:
            o->serve_opts_set = true;
            rc = parse_int("--prompt", optarg, 1, (int64_t)1 << 34, &p->prompt);
            break;
        case OPT_GENERATE:
            o->serve_opts_set = true;
            rc = parse_int("--generate", optarg, 1, (int64_t)1 << 34, &p->generate);
            break;
        case OPT_DEVICE: o->device_arg = optarg; break;
        case OPT_PROFILE:
            if (o->n_profiles == MAX_PROFILES)
                rc = usage_error("at most %s profiles%s", "16", "");
            else
                o->profiles[o->n_profiles++] = optarg;
            break;
        case OPT_TOKENS:
            o->tokens_set = true;
            rc = parse_real("--tokens", optarg, 0, 1e18, true, &p->tokens);
            break;
        case OPT_MFU: rc = parse_real("--mfu", optarg, 0, 1, true, &p->mfu); break;
        case OPT_ACHIEVED:
            rc = parse_real("--achieved-tflops", optarg, 0, 1e6, true, &x);
            p->achieved_flops_per_s = x * 1e12;
            break;
        case OPT_BW: rc = parse_real("--bw-fraction", optarg, 0, 1, true, &p->bw_fraction); break;
        case OPT_PRICE: rc = parse_real("--price", optarg, 0, 1e5, true, &p->price_per_hour); break;
        case OPT_OVERHEAD:
            rc = parse_real("--overhead-gib", optarg, 0, 1e4, false, &x);
            p->overhead_bytes = x * GIB;
            break;
        case OPT_JSON: o->json = true; break;
        case OPT_LIST_MODELS: o->list_models = true; break;
        case OPT_LIST_DEVICES: o->list_devices = true; break;
        case OPT_HELP: o->help = true; break;
        case ':': rc = usage_error("%s needs a value%s", opt, ""); break;
        default: rc = usage_error("unknown option %s%s", opt, ""); break;
        }
        if (rc != 0)
            return rc;
    }
    if (optind < argc)
        return usage_error("unexpected argument \"%s\"%s", argv[optind], "");
    if (o->tasks > 1)
        return usage_error("give one task: --train, --finetune lora|qlora or --serve%s%s", "", "");
    if (o->lora_rank_set && p->task != FF_TASK_LORA && p->task != FF_TASK_QLORA)
        return usage_error("--lora-rank applies to --finetune lora|qlora%s%s", "", "");
    if (o->serve_opts_set && p->task != FF_TASK_SERVE)
        return usage_error("--prompt and --generate apply to --serve%s%s", "", "");
    if (o->tokens_set && p->task == FF_TASK_SERVE)
        return usage_error("--tokens applies to training; --serve uses --prompt/--generate%s%s", "",
                           "");
    if (p->mfu > 0 && p->achieved_flops_per_s > 0)
        return usage_error("give either --mfu or --achieved-tflops%s%s", "", "");
    return 0;
}

static int run_one(const struct opts *o, const struct ff_model *m, const struct ff_spec *d,
                   const struct ff_plan *p)
{
    char err[512];
    struct ff_estimate *e = calloc(1, sizeof(*e));
    if (!e)
        return 1;
    int rc = ff_est_run(m, d, p, e, err, sizeof(err));
    int code;
    if (rc != FF_OK) {
        fprintf(stderr, "flopfit estimate: %s\n", err);
        code = status_exit(rc);
        goto error_run;
    }
    if (o->json)
        code = ff_report_json(stdout, m, d, p, e) == 0 ? 0 : 1;
    else {
        ff_report_text(stdout, m, d, p, e);
        code = 0;
    }
    if (code == 0 && !e->fits)
        code = 1;
error_run:
    free(e);
    return code;
}

static int run_rank(const struct opts *o, const struct ff_model *m, const struct ff_plan *p)
{
    char err[512];
    size_t n_cat;
    const struct ff_spec *cat = ff_spec_catalog(&n_cat);
    bool with_catalog = o->device_arg != NULL;
    size_t n = (with_catalog ? n_cat : 0) + o->n_profiles;
    struct ff_rank_row *rows = calloc(n ? n : 1, sizeof(*rows));
    if (!rows)
        return 1;
    int code = 0;
    size_t k = 0;
    for (size_t i = 0; i < o->n_profiles; i++, k++) {
        int rc = ff_spec_from_profile(o->profiles[i], &rows[k].device, err, sizeof(err));
        if (rc != FF_OK) {
            fprintf(stderr, "flopfit estimate: %s\n", err);
            code = status_exit(rc);
            goto error_rows;
        }
    }
    for (size_t i = 0; with_catalog && i < n_cat; i++, k++)
        rows[k].device = cat[i];
    /* Impossible plans are the same everywhere: check once, fail as usage error. */
    if (ff_plan_check(m, p, err, sizeof(err)) != FF_OK) {
        fprintf(stderr, "flopfit estimate: %s\n", err);
        code = EXIT_USAGE;
        goto error_rows;
    }
    bool any_fits = false;
    for (size_t i = 0; i < n; i++) {
        rows[i].status =
            ff_est_run(m, &rows[i].device, p, &rows[i].est, rows[i].why, sizeof(rows[i].why));
        if (rows[i].status == FF_OK && rows[i].est.fits)
            any_fits = true;
    }
    qsort(rows, n, sizeof(*rows), cmp_rows);
    if (o->json)
        code = ff_report_rank_json(stdout, m, p, rows, n) == 0 ? 0 : 1;
    else
        ff_report_rank_text(stdout, m, p, rows, n);
    if (code == 0 && !any_fits)
        code = 1;
error_rows:
    free(rows);
    return code;
}

int ff_cmd_estimate(int argc, char **argv)
{
    struct opts o;
    memset(&o, 0, sizeof(o));
    struct ff_plan plan;
    ff_plan_init(&plan);
    int rc = parse(argc, argv, &o, &plan);
    if (rc != 0)
        return rc;
    if (o.help) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (o.list_models || o.list_devices) {
        if (o.list_models)
            list_models(stdout);
        if (o.list_devices)
            list_devices(stdout);
        return 0;
    }
    struct ff_model model;
    if ((rc = load_model(o.model_arg, o.params, &model)) != 0)
        return rc;

    bool all = o.device_arg && !strcmp(o.device_arg, "all");
    if (o.device_arg && !all && o.n_profiles > 0)
        return usage_error("give either --device NAME or --profile FILE (--device all ranks "
                           "the catalog with the profiles)%s%s",
                           "", "");
    if (!o.device_arg && o.n_profiles == 0)
        return usage_error("no device: give --device NAME, --profile FILE or --device all%s%s", "",
                           "");
    if (all || o.n_profiles > 1) {
        if (!all)
            o.device_arg = NULL;
        return run_rank(&o, &model, &plan);
    }
    struct ff_spec dev;
    char err[512];
    if (o.n_profiles == 1) {
        rc = ff_spec_from_profile(o.profiles[0], &dev, err, sizeof(err));
        if (rc != FF_OK) {
            fprintf(stderr, "flopfit estimate: %s\n", err);
            return status_exit(rc);
        }
    } else if (ff_spec_find(o.device_arg, &dev) != FF_OK) {
        char near[256];
        ff_spec_suggest(o.device_arg, near, sizeof(near), 4);
        fprintf(stderr,
                "flopfit estimate: unknown device \"%s\"%s%s%s\n"
                "  (flopfit estimate --list-devices shows all; --profile FILE reads a "
                "measured one)\n",
                o.device_arg, near[0] ? "; did you mean " : "", near, near[0] ? "?" : "");
        return EXIT_USAGE;
    }
    return run_one(&o, &model, &dev, &plan);
}
