/*
 * bench/cmd/cmd_tune.c — `flopfit tune`: search each kernel's declared parameter space on each
 * selected device (tune.h), keep the best point in the tuning cache, export and import
 * cache entries.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "tune/tune.h"

#define CMD "flopfit tune"

enum tune_kernels { TK_MATMUL = 1, TK_BANDWIDTH = 2, TK_ALL = 3 };

/* --kernel NAME (ASCII case-insensitive), for the parser and the completion. */
static const struct {
    const char *name;
    enum tune_kernels kernels;
} kernel_names[] = {{"matmul", TK_MATMUL}, {"bandwidth", TK_BANDWIDTH}, {"all", TK_ALL}};
#define N_KERNEL_NAMES (sizeof(kernel_names) / sizeof(kernel_names[0]))

size_t ff_tune_option_words(const char *option, const char **words, size_t max)
{
    size_t n = 0;
    if (strcmp(option, "kernel") == 0)
        for (size_t i = 0; i < N_KERNEL_NAMES && n < max; i++)
            words[n++] = kernel_names[i].name;
    return n;
}

struct tune_opts {
    struct ff_target_sel sel;
    bool prec[FF_PREC_COUNT];
    unsigned kernels;
    double budget_s;
    bool budget_given, verbose, tune_given;
    const char *export_path, *import_path;
};

static void tune_usage(FILE *f)
{
    char backends[256];
    ff_bench_backend_names(backends, sizeof(backends), ", ", "");
    fprintf(f,
            "usage: flopfit tune [options]\n"
            "\n"
            "Searches each kernel's declared parameter space (tile sizes, vector width,\n"
            "work-group shape, local memory ...) on each device: every legal point is built,\n"
            "run and verified against the CPU reference at a small size, the best quarter goes\n"
            "on to the next larger size, and so on to the final size, within the time budget.\n"
            "The built-in default is measured at every size, so the point kept is never slower\n"
            "than it; the gain (tuned / default) is printed. A candidate that fails to build,\n"
            "faults, times out, gives a wrong result or an implausible rate is skipped\n"
            "(--verbose says why). The best point per backend, device, driver, kernel and\n"
            "kernel source goes to the tuning cache, $XDG_CACHE_HOME/flopfit/tuning.json\n"
            "(default ~/.cache/flopfit/tuning.json), which `flopfit bench` uses.\n"
            "\n"
            "  --backend NAME       %s or all (default: all)\n"
            "  --device N|API:N     device index (see `flopfit devices`)\n"
            "  --precision LIST     matmul precisions: fp32,fp16,int8 or all (default: all)\n"
            "  --kernel NAME        matmul, bandwidth (read, write, copy, triad) or all\n"
            "                       (default: all)\n"
            "  --budget SEC         time per device, shared by its kernels (1..86400,\n"
            "                       default 300)\n"
            "  --verbose            every candidate: its rate, or why it was skipped\n"
            "  --export FILE        write the cache's entries to FILE (to ship with results)\n"
            "  --import FILE        add FILE's entries to the cache (replacing those of the\n"
            "                       same device and kernel)\n"
            "  -h, --help           this text\n"
            "\n"
            "Several runs at once share the cache: each merges its entries into it under a lock.\n"
            "With only --export and/or --import nothing is tuned. A cache entry applies only to\n"
            "its own device name, driver version and kernel source hash: after a driver or\n"
            "flopfit update the kernel is tuned again.\n"
            "\n"
            "Exit status: 0 done (kernels without a tuning space are listed, not failed);\n"
            "1 no device, or no kernel gave a verified rate; 2 bad usage; 130/143 after\n"
            "SIGINT/SIGTERM (what was found is kept).\n",
            backends);
}

static int parse_prec_list(const char *list, bool *prec, char *err, size_t errlen)
{
    char buf[256];
    if (!*list || strlen(list) >= sizeof(buf))
        return ff_bad_value(err, errlen, "--precision", list, "fp32, fp16, int8 or all");
    snprintf(buf, sizeof(buf), "%s", list);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        enum ff_precision p;
        if (strcasecmp(t, "all") == 0) {
            for (int i = 0; i < FF_PREC_COUNT; i++)
                prec[i] = ff_matmul_has_kernel((enum ff_precision)i);
        } else if (ff_precision_parse(t, &p) == FF_OK && ff_matmul_has_kernel(p)) {
            prec[p] = true;
        } else {
            return ff_bad_value(err, errlen, "--precision", t, "fp32, fp16, int8 or all");
        }
    }
    return FF_OK;
}

enum { O_BACKEND = 256, O_DEVICE, O_PRECISION, O_KERNEL, O_BUDGET, O_VERBOSE, O_EXPORT, O_IMPORT };

static const struct option tune_long[] = {
    {"backend", required_argument, NULL, O_BACKEND},
    {"device", required_argument, NULL, O_DEVICE},
    {"precision", required_argument, NULL, O_PRECISION},
    {"kernel", required_argument, NULL, O_KERNEL},
    {"budget", required_argument, NULL, O_BUDGET},
    {"verbose", no_argument, NULL, O_VERBOSE},
    {"export", required_argument, NULL, O_EXPORT},
    {"import", required_argument, NULL, O_IMPORT},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

const struct option *ff_tune_options(void)
{
    return tune_long;
}

/* 0, FF_CLI_HELP or FF_ERR_INVALID with the message in err. */
static int tune_parse(int argc, char **argv, struct tune_opts *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof(*o));
    o->kernels = TK_ALL;
    o->budget_s = 300;
    bool prec_given = false;
    int c, ret = FF_OK;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", tune_long, NULL)) != -1) {
        const char *opt = optind > 1 && optind - 1 < argc ? argv[optind - 1] : "?";
        switch (c) {
        case O_BACKEND:
            ret = ff_bench_parse_backend(optarg, &o->sel, err, errlen);
            o->tune_given = true;
            break;
        case O_DEVICE:
            ret = ff_bench_parse_device(optarg, &o->sel, err, errlen);
            o->tune_given = true;
            break;
        case O_PRECISION:
            ret = parse_prec_list(optarg, o->prec, err, errlen);
            prec_given = o->tune_given = true;
            break;
        case O_KERNEL:
            ret = ff_bad_value(err, errlen, "--kernel", optarg, "matmul, bandwidth or all");
            for (size_t i = 0; i < N_KERNEL_NAMES; i++)
                if (strcasecmp(optarg, kernel_names[i].name) == 0) {
                    o->kernels = kernel_names[i].kernels;
                    ret = FF_OK;
                }
            o->tune_given = true;
            break;
        case O_BUDGET:
            ret = ff_parse_double("--budget", optarg, 1, 86400, &o->budget_s, err, errlen);
            o->budget_given = o->tune_given = true;
            break;
        case O_VERBOSE: o->verbose = true; break;
        case O_EXPORT:
            if (!*optarg)
                ret = ff_bad_value(err, errlen, "--export", optarg, "a file path");
            o->export_path = optarg;
            break;
        case O_IMPORT:
            if (!*optarg)
                ret = ff_bad_value(err, errlen, "--import", optarg, "a file path");
            o->import_path = optarg;
            break;
        case 'h': return FF_CLI_HELP;
        case ':': ret = ff_errf(err, errlen, FF_ERR_INVALID, "option %s needs a value", opt); break;
        default: ret = ff_unknown_option(err, errlen, opt, tune_long); break;
        }
        if (ret < 0)
            return ret;
    }
    if (optind < argc)
        return ff_errf(err, errlen, FF_ERR_INVALID, "unexpected argument '%s' (see --help)",
                       argv[optind]);
    if (!prec_given)
        for (int i = 0; i < FF_PREC_COUNT; i++)
            o->prec[i] = ff_matmul_has_kernel((enum ff_precision)i);
    if (!o->export_path && !o->import_path)
        o->tune_given = true;
    return FF_OK;
}

/* ---- progress ---- */

struct log_ctx {
    bool tty, verbose, line_open;
};

static void tune_log(void *arg, enum ff_tune_log_level level, const char *line)
{
    struct log_ctx *l = arg;
    if ((level == FF_TUNE_LOG_VERBOSE && !l->verbose) || (level == FF_TUNE_LOG_PROGRESS && !l->tty))
        return;
    if (l->tty && level != FF_TUNE_LOG_VERBOSE) { /* one updating line */
        fprintf(stderr, "\r\033[K%s", line);
        l->line_open = true;
    } else {
        if (l->line_open)
            fputs("\r\033[K", stderr);
        fprintf(stderr, "%s\n", line);
        l->line_open = false;
    }
    fflush(stderr);
}

static void log_done(struct log_ctx *l)
{
    if (l->line_open)
        fputs("\r\033[K", stderr);
    l->line_open = false;
}

static void on_signal(int sig)
{
    if (!ff_interrupted)
        ff_interrupted = sig;
}

/* The kernels opts selects, in order: matmul per precision, then the bandwidth kernels. */
static size_t select_kernels(const struct tune_opts *o, struct ff_tune_target *t)
{
    size_t n = 0;
    if (o->kernels & TK_MATMUL)
        for (int p = 0; p < FF_PREC_COUNT; p++)
            if (o->prec[p])
                t[n++] = (struct ff_tune_target){FF_KERNEL_MATMUL, (enum ff_precision)p};
    if (o->kernels & TK_BANDWIDTH)
        for (int id = FF_KERNEL_MEM_READ; id <= FF_KERNEL_MEM_TRIAD; id++)
            t[n++] = (struct ff_tune_target){(enum ff_kernel_id)id, FF_PREC_FP32};
    return n;
}

static void kernel_label(const struct ff_tune_target *t, char *dst, size_t n)
{
    if (t->id == FF_KERNEL_MATMUL)
        snprintf(dst, n, "matmul %s", ff_precision_name(t->prec));
    else
        snprintf(dst, n, "bandwidth %s", ff_tune_kernel_name(t->id));
}

/* Tunes one device; entries go into cache. Returns kernels tuned, or -1 when none could be. */
static int tune_device(const struct ff_bench_target *tg, const struct tune_opts *o,
                       struct ff_tune_cache *cache, bool *failed)
{
    char err[1024] = "", label[48];
    snprintf(label, sizeof(label), "%s:%u", ff_backend_name(tg->backend), tg->index);
    struct ff_device *dev = NULL;
    if (ff_device_open(tg->backend, tg->index, &dev, err, sizeof(err)) < 0) {
        fprintf(stderr, CMD ": %s: cannot open the device: %s\n", label, err);
        *failed = true;
        return 0;
    }
    const struct ff_device_info *info = ff_device_info(dev);
    struct ff_tune_target all[FF_PREC_COUNT + 4], t[FF_PREC_COUNT + 4];
    size_t na = select_kernels(o, all), n = 0;
    /* Which of them declare a space here: the budget is shared by those. */
    for (size_t i = 0; i < na; i++) {
        struct ff_kernel_desc d = ff_tune_space_desc(&all[i]);
        struct ff_tune_space s;
        char kl[48];
        kernel_label(&all[i], kl, sizeof(kl));
        if (ff_kernel_space(dev, &d, &s, err, sizeof(err)) < 0) {
            fprintf(stderr, CMD ": %s %s: not tuned: %s\n", label, kl, err);
            continue;
        }
        t[n++] = all[i];
    }
    if (n == 0) {
        fprintf(stderr,
                CMD ": %s (%s): no selected kernel declares a tuning space: nothing to "
                    "tune\n",
                label, info->name);
        ff_device_destroy(&dev);
        return 0;
    }
    fprintf(stderr, CMD ": %s (%s): %zu kernel%s, budget %.0f s\n", label, info->name, n,
            n == 1 ? "" : "s", o->budget_s);
    struct log_ctx lc = {.tty = isatty(STDERR_FILENO), .verbose = o->verbose};
    const uint64_t t0 = ff_now_ns();
    int tuned = 0;
    for (size_t i = 0; i < n && !ff_interrupted; i++) {
        double used = (double)(ff_now_ns() - t0) * 1e-9;
        double left = o->budget_s - used;
        /* What the kernels before left over goes to those after. */
        double share = left / (double)(n - i);
        char kl[48];
        kernel_label(&t[i], kl, sizeof(kl));
        if (share < 0.5) {
            fprintf(stderr, CMD ": %s %s: not tuned: the budget is spent\n", label, kl);
            continue;
        }
        struct ff_tune_run_cfg rc = {.budget_s = share,
                                     .seed = (uint64_t)time(NULL) ^ 0x5eedull,
                                     .log = tune_log,
                                     .log_ctx = &lc};
        struct ff_tune_result res;
        int ret = ff_tune_kernel_isolated(NULL, dev, ff_backend_name(tg->backend), tg->index, &t[i],
                                          &rc, &res, err, sizeof(err));
        log_done(&lc);
        if (ret == FF_ERR_UNSUPPORTED) {
            fprintf(stderr, CMD ": %s %s: not tuned: %s\n", label, kl, err);
            continue;
        }
        if (ret < 0) {
            fprintf(stderr, CMD ": %s %s: no verified rate: %s\n", label, kl, err);
            if (ret != FF_ERR_INTERRUPTED)
                *failed = true;
            continue;
        }
        const struct ff_tune_outcome *oc = &res.outcome;
        char rate[32], drate[32], gain[96] = "";
        ff_fmt_si(rate, sizeof(rate), oc->best_rate, res.unit);
        if (oc->default_rate > 0) {
            ff_fmt_si(drate, sizeof(drate), oc->default_rate, res.unit);
            snprintf(gain, sizeof(gain), "default %s, gain %.2fx", drate,
                     oc->best_rate / oc->default_rate);
        } else {
            snprintf(gain, sizeof(gain), "the default failed");
        }
        printf("%s %s: %s  %s (%s) at size %u; %u candidate run%s, %u skipped, %.0f s%s\n", label,
               kl, res.point, rate, gain, oc->size, oc->evaluated, oc->evaluated == 1 ? "" : "s",
               oc->failed, oc->elapsed_s, oc->budget_hit ? ", budget reached" : "");
        fflush(stdout);
        struct ff_tune_entry e;
        ff_tune_entry_make(&e, info, &t[i], &res);
        if (ff_tune_cache_put(cache, &e) < 0) {
            fprintf(stderr, CMD ": out of memory\n");
            *failed = true;
            break;
        }
        tuned++;
    }
    ff_device_destroy(&dev);
    return tuned;
}

int ff_cmd_tune(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--worker") == 0)
        return ff_tune_worker_main(argc - 1, argv + 1);
    struct tune_opts o;
    char err[1024] = "";
    int ret = tune_parse(argc, argv, &o, err, sizeof(err));
    if (ret == FF_CLI_HELP) {
        tune_usage(stdout);
        return 0;
    }
    if (ret < 0) {
        fprintf(stderr, CMD ": %s\n", err);
        return 2;
    }
    char path[4096];
    bool malformed = false;
    struct ff_tune_cache cache;
    if (ff_tune_cache_open(&cache, path, sizeof(path), &malformed, CMD) < 0)
        return 1;
    bool dirty = false, failed = false;
    if (o.import_path) {
        struct ff_tune_cache in;
        if (access(o.import_path, F_OK) != 0) {
            fprintf(stderr, CMD ": --import: %s: %s\n", o.import_path, strerror(errno));
            ff_tune_cache_free(&cache);
            return 2;
        }
        if ((ret = ff_tune_cache_load(&in, o.import_path, err, sizeof(err))) < 0) {
            fprintf(stderr, CMD ": --import: %s\n", err);
            ff_tune_cache_free(&cache);
            return 2;
        }
        for (size_t i = 0; i < in.n; i++)
            if (ff_tune_cache_put(&cache, &in.e[i]) < 0)
                failed = true;
        fprintf(stderr, CMD ": imported %zu entr%s from %s\n", in.n, in.n == 1 ? "y" : "ies",
                o.import_path);
        dirty = in.n > 0;
        ff_tune_cache_free(&in);
    }
    if (o.export_path && (ret = ff_check_writable(o.export_path, err, sizeof(err))) < 0) {
        fprintf(stderr, CMD ": --export: %s\n", err);
        ff_tune_cache_free(&cache);
        return 2;
    }

    int tuned = 0;
    if (o.tune_given) {
        struct ff_bench_target targets[FF_BENCH_MAX_TARGETS];
        size_t nt = 0;
        ret = ff_bench_select_targets(&o.sel, targets, &nt, err, sizeof(err));
        if (ret < 0) {
            fprintf(stderr, CMD ": %s\n", err);
            ff_tune_cache_free(&cache);
            return ret == FF_ERR_INVALID ? 2 : 1;
        }
        struct sigaction sa = {0};
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        for (size_t i = 0; i < nt && !ff_interrupted; i++) {
            int k = tune_device(&targets[i], &o, &cache, &failed);
            tuned += k;
            if (k > 0) {
                /* Each device's entries are kept as soon as they are found. */
                if (ff_tune_cache_commit(&cache, path, &malformed, err, sizeof(err)) < 0) {
                    fprintf(stderr, CMD ": %s\n", err);
                    failed = true;
                } else {
                    dirty = false;
                }
            }
        }
        if (tuned)
            fprintf(stderr, CMD ": tuning cache %s\n", path);
    }
    if (dirty) {
        if (ff_tune_cache_commit(&cache, path, &malformed, err, sizeof(err)) < 0) {
            fprintf(stderr, CMD ": %s\n", err);
            failed = true;
        }
    }
    if (o.export_path) {
        if (ff_tune_cache_save(&cache, o.export_path, err, sizeof(err)) < 0) {
            fprintf(stderr, CMD ": --export: %s\n", err);
            failed = true;
        } else {
            fprintf(stderr, CMD ": exported %zu entr%s to %s\n", cache.n,
                    cache.n == 1 ? "y" : "ies", o.export_path);
        }
    }
    ff_tune_cache_free(&cache);
    if (ff_interrupted) {
        fprintf(stderr, CMD ": interrupted; what was found is kept\n");
        return 128 + ff_interrupted;
    }
    return failed ? 1 : 0;
}
