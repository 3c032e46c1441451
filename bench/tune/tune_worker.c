/*
 * bench/tune/tune_worker.c — a kernel's tune in a worker process, so a candidate that crashes the
 * process is a skipped candidate, not a dead tuner. CPU drivers (PoCL, lavapipe) run kernels
 * in the calling process: a kernel that reads out of bounds is a SIGSEGV there, where a GPU
 * would report a device fault.
 *
 * The parent runs this executable again as `flopfit tune --worker BACKEND INDEX KERNEL PREC
 * BUDGET QUICK SEED [SKIP...]`, reads its stdout line by line:
 *   T\t<point>                     a candidate is about to run
 *   L\t<level>\t<text>             a log line (ff_tune_log_level)
 *   R\t<point>\t<best>\t<default>\t<size>\t<rounds>\t<evaluated>\t<failed>\t<hit>\t<elapsed>
 *   E\t<status>\t<message>         no result
 * and when the worker dies of a signal after a T line, skips that point and starts it again on
 * what is left of the budget.
 */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tune.h"
#include "check/measure.h"

extern char **environ;

/* ---- the worker ---- */

static void put_line(const char *tag, const char *a, const char *b)
{
    /* One line each: tabs and newlines inside the text would break the framing. */
    char clean[1024];
    snprintf(clean, sizeof(clean), "%s", b ? b : "");
    for (char *c = clean; *c; c++)
        if (*c == '\n' || *c == '\t' || *c == '\r')
            *c = ' ';
    if (a)
        printf("%s\t%s\t%s\n", tag, a, clean);
    else
        printf("%s\t%s\n", tag, clean);
    fflush(stdout);
}

static void worker_log(void *ctx, enum ff_tune_log_level level, const char *line)
{
    (void)ctx;
    char lv[8];
    snprintf(lv, sizeof(lv), "%d", (int)level);
    put_line("L", lv, line);
}

static void worker_try(void *ctx, const char *point)
{
    (void)ctx;
    put_line("T", NULL, point);
}

static void worker_signal(int sig)
{
    if (!ff_interrupted)
        ff_interrupted = sig;
}

static int parse_target(const char *kernel, const char *prec, struct ff_tune_target *t)
{
    t->prec = FF_PREC_FP32;
    for (int id = 0; id < FF_KERNEL_COUNT; id++)
        if (strcmp(ff_tune_kernel_name((enum ff_kernel_id)id), kernel) == 0) {
            t->id = (enum ff_kernel_id)id;
            return ff_precision_parse(prec, &t->prec) == FF_OK || t->id != FF_KERNEL_MATMUL
                       ? FF_OK
                       : FF_ERR_INVALID;
        }
    return FF_ERR_INVALID;
}

int ff_tune_worker_main(int argc, char **argv)
{
    /* argv[0] is "--worker" */
    if (argc < 8) {
        fprintf(stderr, "flopfit tune --worker: internal use only\n");
        return 2;
    }
    struct sigaction sa = {0};
    sa.sa_handler = worker_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    char err[1024] = "", code[16];
    const struct ff_backend *b = ff_backend_find(argv[1]);
    struct ff_tune_target t;
    struct ff_tune_run_cfg rc = {.log = worker_log, .trying = worker_try};
    rc.budget_s = strtod(argv[5], NULL);
    rc.quick = strcmp(argv[6], "1") == 0;
    rc.seed = strtoull(argv[7], NULL, 10);
    for (int i = 8; i < argc && rc.n_skip < FF_TUNE_MAX_SKIP; i++)
        ff_strlcpy(rc.skip[rc.n_skip++], argv[i], sizeof(rc.skip[0]));
    if (!b || parse_target(argv[3], argv[4], &t) < 0) {
        snprintf(code, sizeof(code), "%d", FF_ERR_INVALID);
        put_line("E", code, "bad worker arguments");
        return 2;
    }
    struct ff_device *dev = NULL;
    int ret = ff_device_open(b, (uint32_t)strtoul(argv[2], NULL, 10), &dev, err, sizeof(err));
    struct ff_tune_result res;
    if (ret == FF_OK)
        ret = ff_tune_kernel(dev, &t, &rc, &res, err, sizeof(err));
    ff_device_destroy(&dev);
    if (ret < 0) {
        snprintf(code, sizeof(code), "%d", ret);
        put_line("E", code, err);
        return 0;
    }
    const struct ff_tune_outcome *o = &res.outcome;
    printf("R\t%s\t%.17g\t%.17g\t%u\t%u\t%u\t%u\t%d\t%.6f\n", res.point, o->best_rate,
           o->default_rate, o->size, o->rounds, o->evaluated, o->failed, o->budget_hit ? 1 : 0,
           o->elapsed_s);
    fflush(stdout);
    return 0;
}

/* ---- the parent ---- */

/* The description ff_tune_kernel searches at (its final size): the space the worker sees. */
static void final_desc(const struct ff_device_info *info, const struct ff_tune_target *t,
                       bool quick, struct ff_kernel_desc *d)
{
    memset(d, 0, sizeof(*d));
    d->id = t->id;
    d->prec = t->prec;
    uint32_t s = ff_tune_final_size(info, t->id, quick);
    if (t->id == FF_KERNEL_MATMUL)
        d->m = d->n = d->k = s;
    else
        d->n = s;
}

struct run_state {
    char last_try[192];
    bool got_result;
    bool got_error;
    int error_code;
    char error[768];
    char point[192];
    struct ff_tune_outcome o;
};

static void handle_line(char *line, const struct ff_tune_run_cfg *cfg, struct run_state *st)
{
    size_t len = strlen(line);
    if (len && line[len - 1] == '\n')
        line[--len] = 0;
    char *tab = strchr(line, '\t');
    if (!tab)
        return;
    *tab = 0;
    char *rest = tab + 1;
    if (strcmp(line, "T") == 0) {
        ff_strlcpy(st->last_try, rest, sizeof(st->last_try));
    } else if (strcmp(line, "L") == 0) {
        char *t2 = strchr(rest, '\t');
        if (t2 && cfg->log)
            cfg->log(cfg->log_ctx, (enum ff_tune_log_level)atoi(rest), t2 + 1);
    } else if (strcmp(line, "E") == 0) {
        char *t2 = strchr(rest, '\t');
        st->got_error = true;
        st->error_code = atoi(rest);
        ff_strlcpy(st->error, t2 ? t2 + 1 : "", sizeof(st->error));
    } else if (strcmp(line, "R") == 0) {
        char *f[9] = {0};
        int nf = 0;
        for (char *s = rest; s && nf < 9; nf++) {
            f[nf] = s;
            s = strchr(s, '\t');
            if (s)
                *s++ = 0;
        }
        if (nf < 9)
            return;
        ff_strlcpy(st->point, f[0], sizeof(st->point));
        st->o.best_rate = strtod(f[1], NULL);
        st->o.default_rate = strtod(f[2], NULL);
        st->o.size = (uint32_t)strtoul(f[3], NULL, 10);
        st->o.rounds = (uint32_t)strtoul(f[4], NULL, 10);
        st->o.evaluated = (uint32_t)strtoul(f[5], NULL, 10);
        st->o.failed = (uint32_t)strtoul(f[6], NULL, 10);
        st->o.budget_hit = atoi(f[7]) != 0;
        st->o.elapsed_s = strtod(f[8], NULL);
        st->got_result = true;
    }
}

/* One worker run to its end. Returns the wait status, or -1 when it could not start. */
static int run_worker(const char *exe, const char *backend, uint32_t index,
                      const struct ff_tune_target *t, const struct ff_tune_run_cfg *cfg,
                      double budget, const char skip[][192], size_t n_skip, struct run_state *st,
                      char *err, size_t errlen)
{
    int fds[2];
    if (pipe(fds) != 0) {
        ff_errf(err, errlen, FF_ERR_IO, "pipe: %s", strerror(errno));
        return -1;
    }
    char idx[16], bud[32], seed[32];
    snprintf(idx, sizeof(idx), "%u", index);
    snprintf(bud, sizeof(bud), "%.3f", budget);
    snprintf(seed, sizeof(seed), "%llu", (unsigned long long)cfg->seed);
    char *argv[12 + FF_TUNE_MAX_SKIP];
    int a = 0;
    argv[a++] = (char *)"flopfit";
    argv[a++] = (char *)"tune";
    argv[a++] = (char *)"--worker";
    argv[a++] = (char *)backend;
    argv[a++] = idx;
    argv[a++] = (char *)ff_tune_kernel_name(t->id);
    argv[a++] = (char *)ff_precision_name(t->prec);
    argv[a++] = bud;
    argv[a++] = (char *)(cfg->quick ? "1" : "0");
    argv[a++] = seed;
    for (size_t i = 0; i < n_skip; i++)
        argv[a++] = (char *)skip[i];
    argv[a] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    pid_t pid;
    int sr = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (sr != 0) {
        close(fds[0]);
        ff_errf(err, errlen, FF_ERR_IO, "cannot start the tuning worker %s: %s", exe, strerror(sr));
        return -1;
    }
    FILE *in = fdopen(fds[0], "r");
    if (in) {
        char *line = NULL;
        size_t cap = 0;
        while (getline(&line, &cap, in) > 0)
            handle_line(line, cfg, st);
        free(line);
        fclose(in);
    } else {
        close(fds[0]);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
}

int ff_tune_kernel_isolated(const char *exe, struct ff_device *dev, const char *backend,
                            uint32_t index, const struct ff_tune_target *t,
                            const struct ff_tune_run_cfg *cfg, struct ff_tune_result *res,
                            char *err, size_t errlen)
{
    memset(res, 0, sizeof(*res));
    if (!exe)
        exe = "/proc/self/exe";
    struct ff_kernel_desc d;
    final_desc(ff_device_info(dev), t, cfg->quick, &d);
    int ret = ff_kernel_space(dev, &d, &res->space, err, errlen);
    if (ret < 0)
        return ret;
    char dflt[192];
    ff_tune_point_format(&res->space, &res->space.dflt, dflt, sizeof(dflt));
    char skip[FF_TUNE_MAX_SKIP][192];
    size_t n_skip = 0;
    for (size_t i = 0; i < cfg->n_skip && n_skip < FF_TUNE_MAX_SKIP; i++)
        ff_strlcpy(skip[n_skip++], cfg->skip[i], sizeof(skip[0]));
    uint32_t crashed = 0;
    const uint64_t t0 = ff_now_ns();
    for (;;) {
        double left = cfg->budget_s - (double)(ff_now_ns() - t0) * 1e-9;
        struct run_state st = {.error_code = FF_ERR_DEVICE};
        int status = run_worker(exe, backend, index, t, cfg, left, (const char(*)[192])skip, n_skip,
                                &st, err, errlen);
        if (status < 0)
            return FF_ERR_IO;
        if (st.got_result) {
            res->outcome = st.o;
            res->outcome.evaluated += crashed;
            res->outcome.failed += crashed;
            res->outcome.elapsed_s = (double)(ff_now_ns() - t0) * 1e-9;
            ff_strlcpy(res->point, st.point, sizeof(res->point));
            ret = ff_tune_point_parse(&res->space, st.point, &res->outcome.best, err, errlen);
            if (ret < 0)
                return ret;
            snprintf(res->unit, sizeof(res->unit), "%s",
                     t->id != FF_KERNEL_MATMUL ? "B/s"
                     : t->prec == FF_PREC_INT8 ? "OP/s"
                                               : "FLOP/s");
            return FF_OK;
        }
        if (st.got_error)
            return ff_errf(err, errlen, st.error_code < 0 ? st.error_code : FF_ERR_DEVICE, "%s",
                           st.error);
        if (!WIFSIGNALED(status))
            return ff_errf(err, errlen, FF_ERR_DEVICE,
                           "the tuning worker exited with status %d and no result",
                           WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        int sig = WTERMSIG(status);
        if (!st.last_try[0])
            return ff_errf(err, errlen, FF_ERR_DEVICE,
                           "the tuning worker died of signal %d (%s) before any candidate", sig,
                           strsignal(sig));
        crashed++;
        char line[512];
        snprintf(line, sizeof(line), "skip %s: the candidate crashed the process (signal %d, %s)",
                 st.last_try, sig, strsignal(sig));
        if (cfg->log)
            cfg->log(cfg->log_ctx, FF_TUNE_LOG_VERBOSE, line);
        if (strcmp(st.last_try, dflt) == 0)
            return ff_errf(err, errlen, FF_ERR_DEVICE,
                           "the default point %s crashed the process (signal %d, %s)", dflt, sig,
                           strsignal(sig));
        if (ff_interrupted)
            return ff_errf(err, errlen, FF_ERR_INTERRUPTED, "interrupted");
        if (n_skip == FF_TUNE_MAX_SKIP || cfg->budget_s - (double)(ff_now_ns() - t0) * 1e-9 < 1)
            return ff_errf(err, errlen, FF_ERR_DEVICE,
                           "%u candidates crashed the process; the budget is spent (last: %s)",
                           crashed, st.last_try);
        ff_strlcpy(skip[n_skip++], st.last_try, sizeof(skip[0]));
    }
}
