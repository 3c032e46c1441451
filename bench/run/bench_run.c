/*
 * bench/run/bench_run.c — one device from open to written profile, shared by a plain run
 * (cmd_bench.c), a fleet rank (mpi_fleet.c) and --concurrent (concurrent.c): the tuning points
 * its kernels are built with, the families run, the table printed and the profile written.
 *
 * Signals: the first SIGINT or SIGTERM sets ff_interrupted; every loop stops
 * at its next run, the device's profile is written with "complete": false and
 * the exit status is 128 + that signal (130, 143). A second signal changes
 * nothing (`timeout -s INT` sends two); a third quits at once, except while a
 * profile is printed and written: that stretch runs with both signals blocked
 * in this thread and the handler never exits inside it, so a signal can never
 * cut a profile or the table printed so far.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_run.h"
#include "paths.h"
#include "profile_json.h"
#include "check/host.h"
#include "families/families.h"
#include "tune/tune.h"

static volatile sig_atomic_t n_signals, writing;

static void on_signal(int sig)
{
    if (!ff_interrupted)
        ff_interrupted = sig;
    if (n_signals < 3)
        n_signals++;
    if (n_signals >= 3 && !writing) {
        static const char msg[] = "\nflopfit bench: third signal: quitting without writing\n";
        ssize_t w = write(STDERR_FILENO, msg, sizeof(msg) - 1);
        (void)w;
        _exit(128 + ff_interrupted);
    }
}

void ff_bench_catch_signals(void)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    /* Driver calls in flight are resumed, not failed with EINTR: the loops check the flag. */
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* Signals wait while a device's results are printed and its profile is written. */
static void hold_signals(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, old);
    writing = 1;
}

static void release_signals(const sigset_t *old)
{
    writing = 0;
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

void ff_bench_utc_now(char *iso, size_t n, char *compact, size_t m)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(iso, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
    strftime(compact, m, "%Y%m%d-%H%M%S", &tm);
}

static bool any_failed(const struct ff_run *p)
{
    for (size_t i = 0; i < p->n_results; i++)
        if (p->results[i].status == FF_RES_FAILED)
            return true;
    return false;
}

/*
 * Writes the profile where it belongs: --output FILE is replaced by a run that
 * completed without a failure; a failed or interrupted run never replaces a
 * file: it writes FILE when there is none, else FILE.partial-<time>.json; without
 * --output each profile gets a new name in the folder. New names are never an
 * existing file's: a same-second collision gets "-2", "-3" (ff_write_unique).
 */
static int save_profile(const struct ff_run_config *rc, const struct ff_run *p, const char *compact,
                        const char *text, char *used, size_t usedlen, char *err, size_t errlen)
{
    char path[4352];
    if (rc->output) {
        if (p->complete && !any_failed(p)) {
            ff_strlcpy(used, rc->output, usedlen);
            return ff_write_atomic(rc->output, text, err, errlen);
        }
        /* Not even a file created since the check is replaced by a cut-short run. */
        if (access(rc->output, F_OK) != 0)
            return ff_write_unique(rc->output, text, used, usedlen, err, errlen);
        const char *dot = strrchr(rc->output, '.');
        const char *slash = strrchr(rc->output, '/');
        int stem =
            dot && (!slash || dot > slash) ? (int)(dot - rc->output) : (int)strlen(rc->output);
        snprintf(path, sizeof(path), "%.*s.partial-%s.json", stem, rc->output, compact);
    } else {
        char name[128];
        ff_bench_profile_name(&p->info, compact, name, sizeof(name));
        snprintf(path, sizeof(path), "%s/%s", rc->output_dir, name);
    }
    return ff_write_unique(path, text, used, usedlen, err, errlen);
}

/* --output-dir's folders, made if missing (the path's length named as the option's). */
static int mkdir_p(const char *dir, char *err, size_t errlen)
{
    if (strlen(dir) >= 4096)
        return ff_errf(err, errlen, FF_ERR_INVALID, "--output-dir path is too long");
    return ff_mkdir_p(dir, err, errlen);
}

int ff_bench_select_targets(const struct ff_target_sel *sel, struct ff_bench_target *t, size_t *n,
                            char *err, size_t errlen)
{
    *n = 0;
    size_t errs = 0, tried = 0;
    for (const struct ff_backend *const *b = ff_backends(); *b; b++) {
        const char *name = ff_backend_name(*b);
        if (sel->backend[0] && strcmp(sel->backend, name) != 0)
            continue;
        if (sel->device_backend[0] && strcmp(sel->device_backend, name) != 0)
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
        if (sel->device_given) {
            if (sel->device_index >= count)
                return ff_errf(err, errlen, FF_ERR_INVALID,
                               "unknown device index %u for --device: %s has %u device%s "
                               "(0..%d; see `flopfit devices`)",
                               sel->device_index, name, count, count == 1 ? "" : "s",
                               (int)count - 1);
            t[(*n)++] = (struct ff_bench_target){*b, sel->device_index};
            continue;
        }
        for (uint32_t i = 0; i < count && *n < FF_BENCH_MAX_TARGETS; i++)
            t[(*n)++] = (struct ff_bench_target){*b, i};
    }
    if (tried == 0) {
        const char *want = sel->backend[0] ? sel->backend : sel->device_backend;
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "backend '%s' is not built into this flopfit (see `flopfit devices`)",
                       want[0] ? want : "any");
    }
    if (*n == 0)
        return ff_errf(err, errlen, FF_ERR_NO_DEVICE, "no device found%s", errs ? " (above)" : "");
    return FF_OK;
}

int ff_bench_prepare_output(const struct ff_run_config *rc)
{
    char err[1024] = "";
    int ret;
    char dir[4096];
    if (rc->output) {
        if ((ret = ff_check_writable(rc->output, err, sizeof(err))) < 0) {
            fprintf(stderr, "flopfit bench: --output: %s%s\n", err,
                    ret == FF_ERR_INVALID ? " (give a file path; a folder is --output-dir)" : "");
            return 2;
        }
        const char *slash = strrchr(rc->output, '/');
        if (!slash)
            snprintf(dir, sizeof(dir), ".");
        else
            snprintf(dir, sizeof(dir), "%.*s", slash == rc->output ? 1 : (int)(slash - rc->output),
                     rc->output);
    } else {
        if (!rc->output_dir) {
            fprintf(stderr, "flopfit bench: %s\n", rc->output_dir_err);
            return 2;
        }
        if ((ret = mkdir_p(rc->output_dir, err, sizeof(err))) < 0 ||
            (ret = ff_check_dir_writable(rc->output_dir, err, sizeof(err))) < 0) {
            fprintf(stderr, "flopfit bench: --output-dir: %s\n", err);
            return 2;
        }
        snprintf(dir, sizeof(dir), "%s", rc->output_dir);
    }
    unsigned removed = 0;
    if (ff_clean_stale_temps(dir, &removed, err, sizeof(err)) == FF_OK && removed)
        fprintf(stderr, "flopfit bench: removed %u temp file%s a killed run left in %s\n", removed,
                removed == 1 ? "" : "s", dir);
    return 0;
}

/* ---- tuning: which point each kernel is built with on this device ---- */

/* The override of dev's options that replaces the backend's choice for kernel t, as text. */
static bool override_for(const struct ff_device_info *info, const struct ff_device_options *o,
                         const struct ff_tune_target *t, char *text, size_t n)
{
    if (t->id != FF_KERNEL_MATMUL)
        return false; /* no option tunes the bandwidth kernels */
    static const char *const cl[] = {"cl_matmul_tune", NULL};
    static const char *const vk[] = {"vk_tiles", "vk_shared_tiles", "vk_matmul_path", NULL};
    const char *const *names = strcmp(info->backend, "opencl") == 0   ? cl
                               : strcmp(info->backend, "vulkan") == 0 ? vk
                                                                      : NULL;
    size_t len = 0;
    text[0] = 0;
    for (size_t i = 0; names && ff_device_option_at(i); i++) {
        const struct ff_device_option_desc *d = ff_device_option_at(i);
        bool ours = false;
        for (const char *const *k = names; *k && !ours; k++)
            ours = strcmp(*k, d->name) == 0;
        char v[96];
        if (ours && ff_device_options_value(o, i, v, sizeof(v)) && len < n)
            len += (size_t)snprintf(text + len, n - len, "%s%s=%s", len ? "; " : "", d->name, v);
    }
    return len > 0;
}

/*
 * Fills tun with the point of every kernel this run builds that declares a space: an
 * override wins, then --no-tune's defaults, then the cache; the kernels without an entry are
 * tuned first within a small budget (said on stderr) and their entries cached.
 */
static void prepare_tuning(struct ff_device *dev, const struct ff_run_config *rc,
                           const struct ff_bench_target *tg, const char *label,
                           struct ff_bench_tuning *tun)
{
    const struct ff_bench_cfg *cfg = &rc->cfg;
    const struct ff_device_info *info = ff_device_info(dev);
    memset(tun, 0, sizeof(*tun));
    struct ff_tune_target want[FF_BENCH_MAX_TUNED];
    size_t nw = 0;
    const struct ff_family *mm = ff_family_find("matmul"), *bw = ff_family_find("bandwidth");
    if (mm && (cfg->families & ff_family_bit(mm)))
        for (int p = 0; p < FF_PREC_COUNT; p++)
            if (cfg->prec[p] && ff_matmul_has_kernel((enum ff_precision)p))
                want[nw++] = (struct ff_tune_target){FF_KERNEL_MATMUL, (enum ff_precision)p};
    if (bw && (cfg->families & ff_family_bit(bw)))
        for (int id = FF_KERNEL_MEM_READ; id <= FF_KERNEL_MEM_TRIAD; id++)
            want[nw++] = (struct ff_tune_target){(enum ff_kernel_id)id, FF_PREC_FP32};

    static struct ff_tune_cache cache; /* read once per run */
    static char path[4096];
    static bool loaded, have_cache, malformed;
    struct ff_tune_target missing[FF_BENCH_MAX_TUNED];
    size_t nm = 0;
    for (size_t i = 0; i < nw; i++) {
        struct ff_kernel_desc d = ff_tune_space_desc(&want[i]);
        struct ff_tune_space space;
        char e[512];
        if (ff_kernel_space(dev, &d, &space, e, sizeof(e)) < 0)
            continue; /* no space: nothing to choose, nothing recorded */
        struct ff_bench_tuned *k = &tun->k[tun->n++];
        k->id = want[i].id;
        k->prec = want[i].prec;
        if (override_for(info, &rc->dev_opts, &want[i], k->text, sizeof(k->text))) {
            snprintf(k->source, sizeof(k->source), "override");
            continue;
        }
        snprintf(k->text, sizeof(k->text), "default");
        snprintf(k->source, sizeof(k->source), "default");
        if (cfg->no_tune)
            continue;
        if (!loaded) {
            loaded = true;
            have_cache = ff_tune_cache_open(&cache, path, sizeof(path), &malformed,
                                            "flopfit bench") == FF_OK;
        }
        struct ff_tune_key key;
        ff_tune_key_make(&key, info, &want[i], &space);
        const struct ff_tune_entry *ent = have_cache ? ff_tune_cache_find(&cache, &key) : NULL;
        struct ff_tune_point pt;
        /* An entry a --quick tune left (small sizes, seconds) is refined once by a full run. */
        bool coarse = ent && !cfg->quick && ent->quick;
        if (ent && !coarse && ff_tune_point_parse(&space, ent->point, &pt, e, sizeof(e)) == FF_OK) {
            k->point = pt;
            ff_tune_point_format(&space, &pt, k->text, sizeof(k->text));
            snprintf(k->source, sizeof(k->source), "cache");
            continue;
        }
        /* --quick tunes the matmul kernels only: the bandwidth buffers alone take seconds
         * to fill on a CPU device. */
        if (!cfg->quick || want[i].id == FF_KERNEL_MATMUL)
            missing[nm++] = want[i];
    }
    if (nm == 0 || ff_interrupted)
        return;
    /* A bounded first tune: --quick stays within its minute; `flopfit tune` searches longer. */
    const double budget = cfg->quick ? 8 : 60;
    fprintf(stderr,
            "flopfit bench: %s: %zu kernel%s with no tuning-cache entry: tuning first (%.0f s; "
            "`flopfit tune` searches longer, --no-tune uses the defaults)\n",
            label, nm, nm == 1 ? "" : "s", budget);
    const uint64_t t0 = ff_now_ns();
    bool added = false;
    for (size_t i = 0; i < nm && !ff_interrupted; i++) {
        double left = budget - (double)(ff_now_ns() - t0) * 1e-9;
        double share = left / (double)(nm - i);
        if (share < 0.25)
            break;
        ff_progress(cfg, "%s: tuning %s %s", info->name, ff_tune_kernel_name(missing[i].id),
                    missing[i].id == FF_KERNEL_MATMUL ? ff_precision_name(missing[i].prec) : "");
        struct ff_tune_run_cfg rc = {.budget_s = share, .quick = cfg->quick, .seed = cfg->seed};
        struct ff_tune_result res;
        char e[512] = "";
        int tr = ff_tune_kernel_isolated(NULL, dev, ff_backend_name(tg->backend), tg->index,
                                         &missing[i], &rc, &res, e, sizeof(e));
        if (tr < 0) {
            if (tr != FF_ERR_UNSUPPORTED) /* else the test itself says why */
                fprintf(stderr, "flopfit bench: %s: tuning %s %s: %s (the default is used)\n",
                        label, ff_tune_kernel_name(missing[i].id),
                        missing[i].id == FF_KERNEL_MATMUL ? ff_precision_name(missing[i].prec) : "",
                        e);
            continue;
        }
        for (size_t j = 0; j < tun->n; j++) {
            struct ff_bench_tuned *k = &tun->k[j];
            if (k->id != missing[i].id || (k->id == FF_KERNEL_MATMUL && k->prec != missing[i].prec))
                continue;
            k->point = res.outcome.best;
            ff_strlcpy(k->text, res.point, sizeof(k->text));
            snprintf(k->source, sizeof(k->source), "tune");
        }
        if (have_cache) {
            struct ff_tune_entry ent;
            ff_tune_entry_make(&ent, info, &missing[i], &res);
            ent.quick = cfg->quick;
            added |= ff_tune_cache_put(&cache, &ent) == FF_OK;
        }
    }
    ff_progress(cfg, "%s", "");
    char e[1024];
    if (added && ff_tune_cache_commit(&cache, path, &malformed, e, sizeof(e)) < 0)
        fprintf(stderr, "flopfit bench: %s\n", e);
}

int ff_bench_measure(const struct ff_run_config *rc, const struct ff_bench_cfg *cfg,
                     const struct ff_bench_target *t, struct ff_run *p, char *err, size_t errlen)
{
    char label[48], e[1024] = "";
    snprintf(label, sizeof(label), "%s:%u", ff_backend_name(t->backend), t->index);
    struct ff_device *dev = NULL;
    int ret = ff_device_open_opts(t->backend, t->index, &rc->dev_opts, &dev, e, sizeof(e));
    if (ret < 0)
        return ff_errf(err, errlen, ret, "%s: cannot open the device: %s", label, e);
    *p = (struct ff_run){.info = *ff_device_info(dev)};
    /* The point each kernel is built with (override, --no-tune, cache or a first tune), one
     * device at a time: the cache is shared by the threads of --concurrent. */
    static pthread_mutex_t tuning_lock = PTHREAD_MUTEX_INITIALIZER;
    struct ff_bench_tuning tuning;
    pthread_mutex_lock(&tuning_lock);
    prepare_tuning(dev, rc, t, label, &tuning);
    pthread_mutex_unlock(&tuning_lock);
    struct ff_bench_cfg c = *cfg;
    c.tuning = &tuning;
    ff_bench_run_device(dev, &c, p);
    ff_device_destroy(&dev);
    p->complete = !ff_interrupted;
    /* Tests a signal cut off were not measured: they are absent, not failed
     * ("complete": false says the run was cut short). */
    ff_run_drop_interrupted(p);
    return FF_OK;
}

void ff_bench_device(const struct ff_run_config *rc, const struct ff_bench_target *t,
                     const struct ff_host *host, const struct ff_result *extra, size_t n_extra,
                     bool print, struct ff_bench_device_out *out)
{
    memset(out, 0, sizeof(*out));
    snprintf(out->label, sizeof(out->label), "%s:%u", ff_backend_name(t->backend), t->index);
    struct ff_run p;
    if (ff_bench_measure(rc, &rc->cfg, t, &p, out->error, sizeof(out->error)) < 0) {
        fprintf(stderr, "flopfit bench: %s\n", out->error);
        out->failed = true;
        return;
    }
    for (size_t k = 0; k < n_extra; k++) {
        struct ff_result *r = ff_run_add(&p);
        if (r)
            *r = extra[k];
    }
    ff_bench_emit(rc, host, &p, print, out);
    ff_run_finish(&p);
}

void ff_bench_emit(const struct ff_run_config *rc, const struct ff_host *host,
                   const struct ff_run *pp, bool print, struct ff_bench_device_out *out)
{
    char err[1024] = "";
    int ret;
    out->opened = true;
    ff_progress(&rc->cfg, "%s", ""); /* clears the progress line */

    char iso[32], compact[32];
    ff_bench_utc_now(iso, sizeof(iso), compact, sizeof(compact));
    struct json_object *js = ff_run_to_json(pp, host, iso, &rc->record);
    const char *text = json_object_to_json_string_ext(js, JSON_C_TO_STRING_PRETTY |
                                                              JSON_C_TO_STRING_NOSLASHESCAPE);
    out->json = strdup(text);
    sigset_t old;
    hold_signals(&old);
    if (print) {
        const struct ff_bench_output bo = {.label = out->label, .profile = pp, .json = text};
        rc->writer->device(stdout, &bo);
        fflush(stdout);
    }
    if (!rc->no_save && pp->n_results > 0) {
        ret = save_profile(rc, pp, compact, text, out->path, sizeof(out->path), err, sizeof(err));
        if (ret < 0) {
            fprintf(stderr, "flopfit bench: %s\n", err);
            ff_msgf(out->error, sizeof(out->error), "%s: %s", out->label, err);
            out->path[0] = 0;
            out->failed = true;
        } else {
            fprintf(stderr, "flopfit: %s written to %s\n",
                    pp->complete ? "profile" : "partial profile", out->path);
        }
    }
    release_signals(&old);
    if (any_failed(pp)) {
        out->failed = true;
        if (!out->error[0])
            for (size_t k = 0; k < pp->n_results; k++)
                if (pp->results[k].status == FF_RES_FAILED) {
                    snprintf(out->error, sizeof(out->error), "%s: %s/%s failed: %s", out->label,
                             pp->results[k].family, pp->results[k].name, pp->results[k].reason);
                    break;
                }
    }
    json_object_put(js);
}
