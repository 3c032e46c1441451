/*
 * bench/cmd_bench.c — `flopfit bench`: select backends and devices, run the
 * families on each, print the table, write one profile per device.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "host.h"
#include "profile_json.h"
#include "report.h"

void ff_bench_cfg_defaults(struct ff_bench_cfg *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->families = FF_FAM_ALL;
    for (int i = 0; i < FF_PREC_COUNT; i++)
        cfg->prec[i] = ff_matmul_has_kernel((enum ff_precision)i);
    cfg->library = true;
    ff_measure_defaults(&cfg->measure);
    cfg->max_run_s = 3.0;
    cfg->seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
}

void ff_progress(const struct ff_bench_cfg *cfg, const char *fmt, ...)
{
    if (!cfg->progress)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("\r\033[K", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
}

static void on_sigint(int sig)
{
    (void)sig;
    if (ff_interrupted) /* second Ctrl-C: stop now */
        _exit(130);
    ff_interrupted = 1;
}

static void slug(char *dst, size_t n, const char *src)
{
    size_t j = 0;
    bool dash = false;
    for (const char *s = src; *s && j + 1 < n; s++) {
        char c = *s;
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.') {
            dst[j++] = c;
            dash = false;
        } else if (c >= 'A' && c <= 'Z') {
            dst[j++] = (char)(c - 'A' + 'a');
            dash = false;
        } else if (!dash && j > 0) {
            dst[j++] = '-';
            dash = true;
        }
    }
    while (j > 0 && dst[j - 1] == '-')
        j--;
    dst[j] = 0;
}

static int mkdir_p(const char *dir, char *err, size_t errlen)
{
    char buf[4096];
    if (snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf))
        return ff_errf(err, errlen, FF_ERR_INVALID, "--output-dir path is too long");
    for (char *p = buf + 1; *p; p++) {
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return ff_errf(err, errlen, FF_ERR_IO, "cannot create folder %s: %s", buf,
                               strerror(errno));
            *p = '/';
        }
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return ff_errf(err, errlen, FF_ERR_IO, "cannot create folder %s: %s", buf, strerror(errno));
    return FF_OK;
}

struct target {
    const struct ff_backend *backend;
    uint32_t index;
};

#define MAX_TARGETS 64

/*
 * Which (backend, device) pairs to run. Usage errors (unknown device index)
 * return FF_ERR_INVALID; no driver at all for a requested backend is
 * FF_ERR_NO_DEVICE.
 */
static int select_targets(const struct ff_bench_opts *o, struct target *t, size_t *n, char *err,
                          size_t errlen)
{
    *n = 0;
    size_t errs = 0, tried = 0;
    for (const struct ff_backend *const *b = ff_backends(); *b; b++) {
        const char *name = ff_backend_name(*b);
        if (o->backend[0] && strcmp(o->backend, name) != 0)
            continue;
        if (o->device_backend[0] && strcmp(o->device_backend, name) != 0)
            continue;
        tried++;
        uint32_t count = 0;
        char e[512] = "";
        int ret = ff_backend_device_count(*b, &count, e, sizeof(e));
        if (ret < 0) {
            errs++;
            fprintf(stderr, "flopfit: %s: %s\n", name, e);
            continue;
        }
        if (o->device_given) {
            if (o->device_index >= count)
                return ff_errf(err, errlen, FF_ERR_INVALID,
                               "unknown device index %u for --device: %s has %u device%s "
                               "(0..%d; see `flopfit devices`)",
                               o->device_index, name, count, count == 1 ? "" : "s", (int)count - 1);
            t[(*n)++] = (struct target){*b, o->device_index};
            continue;
        }
        for (uint32_t i = 0; i < count && *n < MAX_TARGETS; i++)
            t[(*n)++] = (struct target){*b, i};
    }
    if (tried == 0) {
        const char *want = o->backend[0] ? o->backend : o->device_backend;
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "backend '%s' is not built into this flopfit (see `flopfit devices`)",
                       want[0] ? want : "any");
    }
    if (*n == 0)
        return ff_errf(err, errlen, FF_ERR_NO_DEVICE, "no device found%s", errs ? " (above)" : "");
    return FF_OK;
}

static void utc_now(char *iso, size_t n, char *compact, size_t m)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(iso, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
    strftime(compact, m, "%Y%m%d-%H%M%S", &tm);
}

static bool any_failed(const struct ff_profile *p)
{
    for (size_t i = 0; i < p->n_results; i++)
        if (p->results[i].status == FF_RES_FAILED)
            return true;
    return false;
}

/* Pick the file a profile goes to; an existing profile is never clobbered
 * by a run that failed or was interrupted. */
static void profile_path(const struct ff_bench_opts *o, const struct ff_profile *p,
                         const char *compact, char *path, size_t n)
{
    if (o->output) {
        bool bad_run = !p->complete || any_failed(p);
        if (bad_run && access(o->output, F_OK) == 0) {
            const char *dot = strrchr(o->output, '.');
            const char *slash = strrchr(o->output, '/');
            int stem =
                dot && (!slash || dot > slash) ? (int)(dot - o->output) : (int)strlen(o->output);
            snprintf(path, n, "%.*s.partial-%s.json", stem, o->output, compact);
        } else {
            snprintf(path, n, "%s", o->output);
        }
        return;
    }
    char dev[96];
    slug(dev, sizeof(dev), p->info.name);
    snprintf(path, n, "%s/%s-%s-%s.json", o->output_dir, p->info.backend, dev, compact);
}

static void run_device(struct ff_device *dev, const struct ff_bench_cfg *cfg, struct ff_profile *p)
{
    /* Cheap probes first, so an interrupted run still has them. */
    if (cfg->families & FF_FAM_LATENCY && !ff_interrupted)
        ff_probe_latency(dev, cfg, p);
    if (cfg->families & FF_FAM_TRANSFER && !ff_interrupted)
        ff_probe_transfer(dev, cfg, p);
    if (cfg->families & FF_FAM_BANDWIDTH && !ff_interrupted)
        ff_probe_bandwidth(dev, cfg, p);
    if (cfg->families & FF_FAM_MATMUL && !ff_interrupted)
        ff_suite_matmul(dev, cfg, p);
    if (cfg->families & FF_FAM_MEMORY && !ff_interrupted)
        ff_probe_memory(dev, cfg, p);
}

int ff_cmd_bench(int argc, char **argv)
{
    struct ff_bench_opts o;
    char err[1024] = "";
    int ret = ff_bench_parse(argc, argv, &o, err, sizeof(err));
    if (ret == FF_CLI_HELP) {
        ff_bench_usage(stdout);
        return 0;
    }
    if (ret < 0) {
        fprintf(stderr, "flopfit bench: %s\n", err);
        return 2;
    }
    o.cfg.progress = isatty(STDERR_FILENO);

    struct target targets[MAX_TARGETS];
    size_t n_targets = 0;
    ret = select_targets(&o, targets, &n_targets, err, sizeof(err));
    if (ret < 0) {
        fprintf(stderr, "flopfit bench: %s\n", err);
        return ret == FF_ERR_INVALID ? 2 : 1;
    }
    if (o.output && n_targets > 1) {
        fprintf(stderr,
                "flopfit bench: --output names one file but %zu devices are selected; "
                "choose one with --device, or use --output-dir\n",
                n_targets);
        return 2;
    }
    /* Fail before measuring if the profile could not be written. */
    if (!o.no_save) {
        if (!o.output && (ret = mkdir_p(o.output_dir, err, sizeof(err))) < 0) {
            fprintf(stderr, "flopfit bench: --output-dir: %s\n", err);
            return 2;
        }
        char probe[4096];
        snprintf(probe, sizeof(probe), "%s%s", o.output ? o.output : o.output_dir,
                 o.output ? "" : "/.flopfit-write-test");
        if ((ret = ff_check_writable(probe, err, sizeof(err))) < 0) {
            fprintf(stderr, "flopfit bench: %s: %s\n", o.output ? "--output" : "--output-dir", err);
            return 2;
        }
    }

    struct sigaction sa = {0};
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);

    struct ff_host host;
    ff_host_read(&host);
    int exit_code = 0;
    for (size_t ti = 0; ti < n_targets && !ff_interrupted; ti++) {
        char label[48];
        snprintf(label, sizeof(label), "%s:%u", ff_backend_name(targets[ti].backend),
                 targets[ti].index);
        struct ff_device *dev = NULL;
        ret = ff_device_open(targets[ti].backend, targets[ti].index, &dev, err, sizeof(err));
        if (ret < 0) {
            fprintf(stderr, "flopfit bench: %s: cannot open the device: %s\n", label, err);
            exit_code = 1;
            continue;
        }
        struct ff_profile p = {.info = *ff_device_info(dev)};
        run_device(dev, &o.cfg, &p);
        ff_device_destroy(&dev);
        p.complete = !ff_interrupted;
        /* Tests Ctrl-C cut off were not measured: they are absent, not failed
         * ("complete": false says the run was cut short). */
        ff_profile_drop_interrupted(&p);
        ff_progress(&o.cfg, "%s", ""); /* clears the progress line */

        char iso[32], compact[32];
        utc_now(iso, sizeof(iso), compact, sizeof(compact));
        struct json_object *js = ff_profile_to_json(&p, &host, iso);
        const char *text = json_object_to_json_string_ext(js, JSON_C_TO_STRING_PRETTY |
                                                                  JSON_C_TO_STRING_NOSLASHESCAPE);
        if (o.json)
            printf("%s\n", text);
        else {
            ff_report_header(stdout, label, &p.info);
            ff_report_table(stdout, &p);
        }
        if (!o.no_save && p.n_results > 0) {
            char path[4096];
            profile_path(&o, &p, compact, path, sizeof(path));
            ret = ff_write_atomic(path, text, err, sizeof(err));
            if (ret < 0) {
                fprintf(stderr, "flopfit bench: %s\n", err);
                exit_code = 1;
            } else {
                fprintf(stderr, "flopfit: %s written to %s\n",
                        p.complete ? "profile" : "partial profile", path);
            }
        }
        if (any_failed(&p))
            exit_code = 1;
        json_object_put(js);
        ff_profile_finish(&p);
        fflush(stdout);
    }
    if (ff_interrupted) {
        fprintf(stderr, "flopfit bench: interrupted; what was measured is kept\n");
        return 130;
    }
    return exit_code;
}
