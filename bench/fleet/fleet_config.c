/*
 * bench/fleet/fleet_config.c — a run configuration as canonical text, so the ranks of a fleet
 * can check they were started with the same options (bench/fleet/fleet.h).
 *
 * One "option=value" line per setting, in a fixed order, each named as the option a user
 * types (--quick, --only, --override vk_tiles...). What each rank may rightly hold for itself
 * is left out: the output paths (--output, --output-dir), the report format (rank 0 alone
 * prints) and the seed (from each rank's clock unless --seed is given: it cannot be told apart
 * from one given).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ff_util.h"
#include "fleet.h"
#include "families/families.h"
#include "flopfit/precision.h"

struct text {
    char *dst;
    size_t n, used;
    bool truncated;
};

FF_PRINTF(2, 3) static void line(struct text *t, const char *fmt, ...)
{
    if (t->truncated)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->dst + t->used, t->n - t->used, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k + 1 >= t->n - t->used) {
        t->truncated = true;
        t->dst[t->used] = '\0';
        return;
    }
    t->used += (size_t)k;
    t->dst[t->used++] = '\n';
    t->dst[t->used] = '\0';
}

int ff_fleet_config_text(const struct ff_run_config *rc, char *dst, size_t n)
{
    if (!dst || n == 0)
        return FF_ERR_INVALID;
    struct text t = {dst, n, 0, false};
    dst[0] = '\0';
    const struct ff_bench_cfg *c = &rc->cfg;

    char list[1024] = "";
    size_t o = 0;
    const struct ff_family *f = ff_families();
    for (size_t i = 0; i < ff_family_count(); i++)
        if (c->families & ff_family_bit(&f[i]))
            o += (size_t)snprintf(list + o, o < sizeof(list) ? sizeof(list) - o : 0, "%s%s",
                                  o ? "," : "", f[i].name);
    line(&t, "--only=%s", o < sizeof(list) ? list : "(too many)");
    list[0] = '\0';
    o = 0;
    for (int p = 0; p < FF_PREC_COUNT; p++)
        if (c->prec[p])
            o += (size_t)snprintf(list + o, o < sizeof(list) ? sizeof(list) - o : 0, "%s%s",
                                  o ? "," : "", ff_precision_name((enum ff_precision)p));
    line(&t, "--precision=%s", o < sizeof(list) ? list : "(too many)");
    line(&t, "--quick=%s", c->quick ? "yes" : "no");
    list[0] = '\0';
    o = 0;
    for (size_t i = 0; i < c->n_sizes && i < FF_MAX_SIZES; i++)
        o += (size_t)snprintf(list + o, o < sizeof(list) ? sizeof(list) - o : 0, "%s%u",
                              o ? "," : "", (unsigned)c->sizes[i]);
    line(&t, "--sizes=%s%s", o < sizeof(list) ? list : "(too many)",
         c->sizes_given ? " (all run)" : "");
    line(&t, "--no-library=%s", c->library ? "no" : "yes");
    line(&t, "--reps=warmup %u, %u to %u", (unsigned)c->measure.warmup,
         (unsigned)c->measure.min_reps, (unsigned)c->measure.max_reps);
    line(&t, "--time-budget=%.17g s (at most %.17g s a run)", c->measure.budget_s, c->max_run_s);
    line(&t, "--memory-limit=%llu", (unsigned long long)c->memory_limit_bytes);
    line(&t, "--no-tune=%s", c->no_tune ? "yes" : "no");
    line(&t, "--backend=%s", rc->sel.backend[0] ? rc->sel.backend : "(every backend)");
    if (rc->sel.device_given)
        line(&t, "--device=%s%s%u", rc->sel.device_backend, rc->sel.device_backend[0] ? ":" : "",
             (unsigned)rc->sel.device_index);
    else
        line(&t, "--device=(every device)");
    line(&t, "--no-save=%s", rc->no_save ? "yes" : "no");
    const struct ff_device_options *d = &rc->dev_opts;
    line(&t, "--override cl_matmul_tune=%s", d->cl_matmul_tune);
    line(&t, "--override vk_tiles=%s", d->vk_tiles);
    line(&t, "--override vk_shared_tiles=%s", d->vk_shared_tiles);
    line(&t, "--override vk_matmul_path=%s", d->vk_matmul_path);
    line(&t, "--override timeout_s=%u", (unsigned)d->timeout_s);
    return t.truncated ? FF_ERR_RANGE : FF_OK;
}

/* The length of the line at s (to its '\n' or the end). */
static size_t line_len(const char *s)
{
    const char *nl = strchr(s, '\n');
    return nl ? (size_t)(nl - s) : strlen(s);
}

/* A line "key=value" of len bytes split at its first '='. */
static void split(const char *s, size_t len, int *klen, const char **v, int *vlen)
{
    const char *eq = memchr(s, '=', len);
    *klen = eq ? (int)(eq - s) : (int)len;
    *v = eq ? eq + 1 : s + len;
    *vlen = (int)(len - (size_t)(*v - s));
}

bool ff_fleet_config_diff(const char *a, const char *b, char *what, size_t n)
{
    while (*a || *b) {
        size_t la = line_len(a), lb = line_len(b);
        if (la != lb || memcmp(a, b, la) != 0) {
            int ka, kb, va_len, vb_len;
            const char *va, *vb;
            split(a, la, &ka, &va, &va_len);
            split(b, lb, &kb, &vb, &vb_len);
            snprintf(what, n, "%.*s (\"%.*s\" against \"%.*s\")", la ? ka : kb, la ? a : b, va_len,
                     va, vb_len, vb);
            return true;
        }
        a += la + (a[la] == '\n');
        b += lb + (b[lb] == '\n');
    }
    if (n)
        what[0] = '\0';
    return false;
}
