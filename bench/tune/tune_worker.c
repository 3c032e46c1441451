/*
 * bench/tune/tune_worker.c — a kernel's tune in a worker process, so a candidate that crashes the
 * process is a skipped candidate, not a dead tuner. CPU drivers (PoCL, lavapipe) run kernels
 * in the calling process: a kernel that reads out of bounds is a SIGSEGV there, where a GPU
 * would report a device fault.
 *
 * The parent runs this executable again as `flopfit tune --worker BACKEND INDEX KERNEL PREC
 * BUDGET QUICK SEED [SKIP...]`, reads its stdout line by line:
 *   T\t<point>                     a candidate is about to run
 *   M\t<size>\t<rate>\t<point>      it ended: its rate, 0 when it was skipped
 *   L\t<level>\t<text>             a log line (ff_tune_log_level)
 *   R\t<point>\t<best>\t<default>\t<size>\t<rounds>\t<evaluated>\t<failed>\t<hit>\t<elapsed>
 *   E\t<status>\t<message>         no result
 * and when the worker dies of a signal after a T line, skips that point and starts it again on
 * what is left of the budget. The parent never blocks on the worker: it polls the pipe, passes
 * a SIGINT/SIGTERM on, and keeps a watchdog (tune.h); the M lines are what is kept when the
 * worker ends without its R line.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

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

static void worker_measured(void *ctx, const char *point, uint32_t size, double rate)
{
    (void)ctx;
    printf("M\t%u\t%.17g\t%s\n", size, rate, point);
    fflush(stdout);
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
#if defined(__linux__)
    /* A tuner that dies without passing a signal on still ends its worker. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
    char err[1024] = "", code[16];
    const struct ff_backend *b = ff_backend_find(argv[1]);
    struct ff_tune_target t;
    struct ff_tune_run_cfg rc = {
        .log = worker_log, .trying = worker_try, .measured = worker_measured};
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

/* What the workers of one kernel measured (M lines), across restarts: the latest rate of each
 * point at each size (0: skipped there). */
struct measured {
    char point[192];
    uint32_t size;
    double rate;
};

struct kept {
    struct measured *m;
    size_t n, cap;
    uint32_t tried; /* T lines */
};

static void kept_add(struct kept *k, const char *point, uint32_t size, double rate)
{
    for (size_t i = 0; i < k->n; i++)
        if (k->m[i].size == size && strcmp(k->m[i].point, point) == 0) {
            k->m[i].rate = rate;
            return;
        }
    if (k->n == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 64;
        struct measured *nm = realloc(k->m, cap * sizeof(*nm));
        if (!nm)
            return; /* the point is then not kept: the result may miss it, nothing worse */
        k->m = nm;
        k->cap = cap;
    }
    struct measured *m = &k->m[k->n++];
    ff_strlcpy(m->point, point, sizeof(m->point));
    m->size = size;
    m->rate = rate;
}

/* How a worker run ended, beyond its wait status. */
enum worker_end {
    END_SELF,    /* it exited or died on its own */
    END_HUNG,    /* the watchdog killed it inside a candidate */
    END_SILENT,  /* the watchdog killed it outside a candidate (opening, preparing a size) */
    END_STOPPED, /* the watchdog killed it while it was stopped */
    END_GRACE,   /* it outlived the grace after a passed-on signal */
};

struct run_state {
    char last_try[192];
    bool in_candidate; /* a T line without its M line */
    bool got_result;
    bool got_error;
    int error_code;
    char error[768];
    char point[192];
    struct ff_tune_outcome o;
    enum worker_end end;
    double waited_s; /* END_HUNG..END_STOPPED: seconds since the deadline's reference */
};

static void handle_line(char *line, const struct ff_tune_run_cfg *cfg, struct run_state *st,
                        struct kept *kept)
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
        st->in_candidate = true;
        kept->tried++;
    } else if (strcmp(line, "M") == 0) {
        char *end = NULL;
        unsigned long size = strtoul(rest, &end, 10);
        if (*end != '\t')
            return;
        double rate = strtod(end + 1, &end);
        if (*end != '\t')
            return;
        st->in_candidate = false;
        kept_add(kept, end + 1, (uint32_t)size, rate > 0 ? rate : 0);
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

/* Reads what is there on fd into buf (have bytes), handing on each whole line. false at EOF or
 * on an error. */
static bool read_lines(int fd, char *buf, size_t cap, size_t *have,
                       const struct ff_tune_run_cfg *cfg, struct run_state *st, struct kept *kept)
{
    ssize_t r = read(fd, buf + *have, cap - 1 - *have);
    if (r < 0)
        return errno == EINTR || errno == EAGAIN;
    if (r == 0)
        return false;
    *have += (size_t)r;
    buf[*have] = 0;
    char *start = buf, *nl;
    while ((nl = memchr(start, '\n', (size_t)(buf + *have - start))) != NULL) {
        *nl = 0;
        handle_line(start, cfg, st, kept);
        start = nl + 1;
    }
    size_t left = (size_t)(buf + *have - start);
    if (left == cap - 1) { /* a line longer than the buffer: taken as it is */
        handle_line(buf, cfg, st, kept);
        left = 0;
    }
    memmove(buf, start, left);
    *have = left;
    return true;
}

/* One worker run to its end: reads its lines, passes ff_interrupted on, and keeps the watchdog.
 * Returns the wait status, or -1 when it could not start. */
static int run_worker(const char *exe, const char *backend, uint32_t index,
                      const struct ff_tune_target *t, const struct ff_tune_run_cfg *cfg,
                      double budget, const char skip[][192], size_t n_skip, struct run_state *st,
                      struct kept *kept, char *err, size_t errlen)
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
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
    const uint64_t s_ns = 1000000000ull, start = ff_now_ns();
    const uint64_t budget_end = start + (uint64_t)(budget > 0 ? budget * 1e9 : 0);
    const uint64_t margin = (uint64_t)(FF_TUNE_WATCHDOG_MARGIN(budget) * 1e9);
    const uint64_t grace = (uint64_t)(FF_TUNE_GRACE_S * 1e9);
    uint64_t last_try_ns = start, passed_on_ns = 0;
    uint32_t tried = kept->tried;
    bool open = true, reaped = false, stopped = false, passed_on = false, killed = false;
    int status = 0;
    char buf[4096];
    size_t have = 0;
    /* After the worker is reaped, its pipe is read to its end (it has no other writer); the
     * bound only guards against a descendant that kept it open. */
    uint64_t drain_until = 0;
    while (!reaped || (open && ff_now_ns() < drain_until)) {
        if (open) {
            struct pollfd pf = {.fd = fds[0], .events = POLLIN};
            if (poll(&pf, 1, 50) > 0 && !read_lines(fds[0], buf, sizeof(buf), &have, cfg, st, kept))
                open = false;
        } else {
            poll(NULL, 0, 20); /* its output ended; its exit has not come yet */
        }
        const uint64_t now = ff_now_ns();
        if (kept->tried != tried) {
            tried = kept->tried;
            last_try_ns = now;
        }
        while (!reaped) {
            int ws = 0;
            pid_t w = waitpid(pid, &ws, WNOHANG | WUNTRACED | WCONTINUED);
            if (w != pid)
                break;
            if (WIFSTOPPED(ws)) {
                stopped = true;
            } else if (WIFCONTINUED(ws)) {
                stopped = false;
            } else {
                status = ws;
                reaped = true;
                drain_until = now + s_ns;
            }
        }
        if (reaped)
            continue;
        if (ff_interrupted && !passed_on) {
            kill(pid, ff_interrupted);
            if (stopped)
                kill(pid, SIGCONT); /* a stopped process acts on its signals once resumed */
            passed_on = true;
            passed_on_ns = now;
        }
        const uint64_t ref = budget_end > last_try_ns ? budget_end : last_try_ns;
        if (!killed && passed_on && now - passed_on_ns > grace) {
            st->end = END_GRACE;
            killed = true;
        } else if (!killed && now > ref + margin) {
            st->end = stopped ? END_STOPPED : st->in_candidate ? END_HUNG : END_SILENT;
            st->waited_s = (double)(now - ref) * 1e-9;
            killed = true;
        }
        if (killed && st->end != END_SELF) {
            kill(pid, SIGKILL);
            if (!reaped) { /* a SIGKILL needs no resuming, but is reaped here */
                int ws = 0;
                while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
                }
                status = ws;
                reaped = true;
                drain_until = ff_now_ns() + s_ns;
            }
        }
    }
    close(fds[0]);
    return status;
}

/* Signals a candidate's own code brings about (a fault, an abort); any other comes from
 * outside the worker (kill, the OOM killer, a terminal). */
static bool is_crash_signal(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGABRT ||
           sig == SIGTRAP || sig == SIGSYS;
}

/* The result from what the workers measured: the best at the largest size the default was
 * measured at (else the largest with any rate), as the search itself picks. FF_ERR_VERIFY when
 * nothing was measured. */
static int result_from_kept(const struct kept *k, const char *dflt, struct ff_tune_result *res,
                            char *err, size_t errlen)
{
    uint32_t size_dflt = 0, size_any = 0, sizes = 0, ok = 0;
    uint32_t seen[64];
    for (size_t i = 0; i < k->n; i++) {
        const struct measured *m = &k->m[i];
        if (!(m->rate > 0))
            continue;
        ok++;
        if (m->size > size_any)
            size_any = m->size;
        if (strcmp(m->point, dflt) == 0 && m->size > size_dflt)
            size_dflt = m->size;
        bool dup = false;
        for (uint32_t j = 0; j < sizes && !dup; j++)
            dup = seen[j] == m->size;
        if (!dup && sizes < 64)
            seen[sizes++] = m->size;
    }
    if (!ok)
        return FF_ERR_VERIFY;
    const uint32_t size = size_dflt ? size_dflt : size_any;
    const struct measured *best = NULL;
    double dflt_rate = 0;
    for (size_t i = 0; i < k->n; i++) {
        const struct measured *m = &k->m[i];
        if (m->size != size || !(m->rate > 0))
            continue;
        if (!best || m->rate > best->rate)
            best = m;
        if (strcmp(m->point, dflt) == 0)
            dflt_rate = m->rate;
    }
    int ret = ff_tune_point_parse(&res->space, best->point, &res->outcome.best, err, errlen);
    if (ret < 0)
        return ret;
    ff_strlcpy(res->point, best->point, sizeof(res->point));
    res->outcome.best_rate = best->rate;
    res->outcome.default_rate = dflt_rate;
    res->outcome.size = size;
    res->outcome.rounds = sizes;
    res->outcome.evaluated = k->tried;
    res->outcome.failed = k->tried > ok ? k->tried - ok : 0;
    return FF_OK;
}

static const char *unit_of(const struct ff_tune_target *t)
{
    return t->id != FF_KERNEL_MATMUL ? "B/s" : t->prec == FF_PREC_INT8 ? "OP/s" : "FLOP/s";
}

/* The worker ended without its result for `why` (not the candidate's fault): the result from
 * the points it measured, or an error saying why there is none. */
static int end_with_kept(const struct ff_tune_run_cfg *cfg, const struct ff_tune_target *t,
                         const struct kept *kept, const char *dflt, const char *why, int no_result,
                         uint64_t t0, struct ff_tune_result *res, char *err, size_t errlen)
{
    char e[512] = "";
    int ret = result_from_kept(kept, dflt, res, e, sizeof(e));
    if (ret == FF_ERR_VERIFY)
        return ff_errf(err, errlen, no_result, "%s before any candidate was measured", why);
    if (ret < 0)
        return ff_errf(err, errlen, ret, "%s; what it measured cannot be read back: %s", why, e);
    res->outcome.elapsed_s = (double)(ff_now_ns() - t0) * 1e-9;
    snprintf(res->unit, sizeof(res->unit), "%s", unit_of(t));
    if (cfg->log) {
        char line[768];
        snprintf(line, sizeof(line),
                 "%s%s%s: %s; kept the best of what it measured (%u candidate run%s)",
                 ff_tune_kernel_name(t->id), t->id == FF_KERNEL_MATMUL ? " " : "",
                 t->id == FF_KERNEL_MATMUL ? ff_precision_name(t->prec) : "", why,
                 res->outcome.evaluated, res->outcome.evaluated == 1 ? "" : "s");
        cfg->log(cfg->log_ctx, FF_TUNE_LOG_INFO, line);
    }
    return FF_OK;
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
    struct kept kept = {0};
    const uint64_t t0 = ff_now_ns();
    for (;;) {
        double left = cfg->budget_s - (double)(ff_now_ns() - t0) * 1e-9;
        struct run_state st = {.error_code = FF_ERR_DEVICE};
        int status = run_worker(exe, backend, index, t, cfg, left, (const char(*)[192])skip, n_skip,
                                &st, &kept, err, errlen);
        if (status < 0) {
            ret = FF_ERR_IO;
            goto done;
        }
        if (st.got_result) {
            res->outcome = st.o;
            res->outcome.evaluated += crashed;
            res->outcome.failed += crashed;
            res->outcome.elapsed_s = (double)(ff_now_ns() - t0) * 1e-9;
            ff_strlcpy(res->point, st.point, sizeof(res->point));
            ret = ff_tune_point_parse(&res->space, st.point, &res->outcome.best, err, errlen);
            if (ret < 0)
                goto done;
            snprintf(res->unit, sizeof(res->unit), "%s", unit_of(t));
            ret = FF_OK;
            goto done;
        }
        if (st.got_error) {
            ret = ff_errf(err, errlen, st.error_code < 0 ? st.error_code : FF_ERR_DEVICE, "%s",
                          st.error);
            goto done;
        }
        char why[512];
        const int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        if (st.end == END_GRACE) {
            snprintf(why, sizeof(why),
                     "the tuning worker did not end within %.0f s of the signal passed on; "
                     "killed",
                     FF_TUNE_GRACE_S);
            ret = end_with_kept(cfg, t, &kept, dflt, why, FF_ERR_INTERRUPTED, t0, res, err, errlen);
            goto done;
        }
        if (st.end == END_STOPPED || st.end == END_SILENT) {
            snprintf(why, sizeof(why),
                     st.end == END_STOPPED
                         ? "the tuning worker was stopped (SIGSTOP) %.0f s past the budget; "
                           "the watchdog killed it"
                         : "the tuning worker gave no sign for %.0f s past the budget outside "
                           "a candidate; the watchdog killed it",
                     st.waited_s);
            ret = end_with_kept(cfg, t, &kept, dflt, why, FF_ERR_TIMEOUT, t0, res, err, errlen);
            goto done;
        }
        if (st.end == END_SELF && !WIFSIGNALED(status)) {
            ret = ff_errf(err, errlen, FF_ERR_DEVICE,
                          "the tuning worker exited with status %d and no result",
                          WIFEXITED(status) ? WEXITSTATUS(status) : -1);
            goto done;
        }
        if (st.end == END_SELF && ff_interrupted && sig == ff_interrupted) {
            ret = end_with_kept(cfg, t, &kept, dflt, "interrupted", FF_ERR_INTERRUPTED, t0, res,
                                err, errlen);
            goto done;
        }
        if (st.end == END_SELF && !is_crash_signal(sig)) {
            snprintf(why, sizeof(why),
                     "the tuning worker was killed by signal %d (%s) from outside", sig,
                     strsignal(sig));
            ret = end_with_kept(cfg, t, &kept, dflt, why, FF_ERR_DEVICE, t0, res, err, errlen);
            goto done;
        }
        /* The candidate's fault: it crashed the process, or hung in it. */
        char fault[160];
        if (st.end == END_HUNG)
            snprintf(fault, sizeof(fault), "hung (no answer %.0f s past the budget; killed)",
                     st.waited_s);
        else
            snprintf(fault, sizeof(fault), "crashed the process (signal %d, %s)", sig,
                     strsignal(sig));
        if (!st.last_try[0]) {
            ret = ff_errf(err, errlen, FF_ERR_DEVICE,
                          "the tuning worker died of signal %d (%s) before any candidate", sig,
                          strsignal(sig));
            goto done;
        }
        if (!st.in_candidate) {
            snprintf(why, sizeof(why),
                     "the tuning worker died of signal %d (%s) between candidates", sig,
                     strsignal(sig));
            ret = end_with_kept(cfg, t, &kept, dflt, why, FF_ERR_DEVICE, t0, res, err, errlen);
            goto done;
        }
        crashed++;
        char line[512];
        snprintf(line, sizeof(line), "skip %s: the candidate %s", st.last_try, fault);
        if (cfg->log)
            cfg->log(cfg->log_ctx, FF_TUNE_LOG_VERBOSE, line);
        if (strcmp(st.last_try, dflt) == 0) {
            ret = ff_errf(err, errlen, st.end == END_HUNG ? FF_ERR_TIMEOUT : FF_ERR_DEVICE,
                          "the default point %s %s", dflt, fault);
            goto done;
        }
        if (ff_interrupted) {
            ret = end_with_kept(cfg, t, &kept, dflt, "interrupted", FF_ERR_INTERRUPTED, t0, res,
                                err, errlen);
            goto done;
        }
        if (n_skip == FF_TUNE_MAX_SKIP || cfg->budget_s - (double)(ff_now_ns() - t0) * 1e-9 < 1) {
            snprintf(why, sizeof(why),
                     "%u candidates crashed or hung; the budget is spent (last: %s)", crashed,
                     st.last_try);
            ret = end_with_kept(cfg, t, &kept, dflt, why, FF_ERR_DEVICE, t0, res, err, errlen);
            goto done;
        }
        ff_strlcpy(skip[n_skip++], st.last_try, sizeof(skip[0]));
    }
done:
    free(kept.m);
    return ret;
}
