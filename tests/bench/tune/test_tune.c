/*
 * tests/bench/tune/test_tune.c — the tuner without a device: the point text format (tune_point.c's
 * ff_tune_point_format/parse on a hand-made space), the search core driven by a fake
 * evaluator and a fake clock (ranking, the default always compared, the budget, failing
 * candidates), the tuning cache (round trip, stale keys, malformed files, atomic writes) and
 * `flopfit tune`'s usage errors, --export and --import.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "tune/tune.h"

/* ---- point text ---- */

static struct ff_tune_space space3(void)
{
    struct ff_tune_space s = {.n_params = 3};
    s.param[0] = (struct ff_tune_param){.name = "tm", .n_values = 3, .values = {2, 4, 8}};
    s.param[1] = (struct ff_tune_param){.name = "tn", .n_values = 2, .values = {4, 16}};
    s.param[2] = (struct ff_tune_param){.name = "lm", .n_values = 2, .values = {0, 1}};
    s.dflt = (struct ff_tune_point){.n = 3, .v = {4, 16, 0}};
    snprintf(s.source_hash, sizeof(s.source_hash), "0123456789abcdef");
    return s;
}

Test(tune_point, format_and_parse_round_trip_every_point)
{
    struct ff_tune_space s = space3();
    char text[128], err[256];
    for (uint32_t a = 0; a < 3; a++)
        for (uint32_t b = 0; b < 2; b++)
            for (uint32_t c = 0; c < 2; c++) {
                struct ff_tune_point p = {
                    .n = 3,
                    .v = {s.param[0].values[a], s.param[1].values[b], s.param[2].values[c]}};
                size_t len = ff_tune_point_format(&s, &p, text, sizeof(text));
                cr_assert_eq(len, strlen(text));
                struct ff_tune_point q;
                cr_assert_eq(ff_tune_point_parse(&s, text, &q, err, sizeof(err)), FF_OK, "%s: %s",
                             text, err);
                cr_assert(q.n == 3 && memcmp(q.v, p.v, sizeof(p.v[0]) * 3) == 0, "%s", text);
            }
    struct ff_tune_point d = s.dflt;
    ff_tune_point_format(&s, &d, text, sizeof(text));
    cr_expect_str_eq(text, "tm=4,tn=16,lm=0");
    struct ff_tune_point none = {0};
    ff_tune_point_format(&s, &none, text, sizeof(text));
    cr_expect_str_eq(text, "default");
    /* any order of the names */
    struct ff_tune_point q;
    cr_assert_eq(ff_tune_point_parse(&s, "lm=1,tm=8,tn=4", &q, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect(q.v[0] == 8 && q.v[1] == 4 && q.v[2] == 1);
    /* like snprintf: the whole length even when cut */
    char small[6];
    size_t len = ff_tune_point_format(&s, &d, small, sizeof(small));
    cr_expect_eq(len, strlen("tm=4,tn=16,lm=0"));
    cr_expect_str_eq(small, "tm=4,");
}

/* text refused by the parser (over base, or whole when base is NULL) with needle in the
 * message, and the output untouched. */
static void expect_refused(const struct ff_tune_space *s, const char *text,
                           const struct ff_tune_point *base, const char *needle)
{
    char err[256] = "";
    struct ff_tune_point q = {.n = 99};
    const int ret = base ? ff_tune_point_parse_over(s, text, base, &q, err, sizeof(err))
                         : ff_tune_point_parse(s, text, &q, err, sizeof(err));
    cr_expect_eq(ret, FF_ERR_INVALID, "\"%s\" accepted", text);
    cr_expect(strstr(err, needle), "\"%s\": %s (wanted \"%s\")", text, err, needle);
    cr_expect_eq(q.n, 99, "output untouched on error");
}

Test(tune_point, parse_errors_name_the_part_and_what_is_accepted)
{
    struct ff_tune_space s = space3();
    static const struct {
        const char *text, *needle;
    } bad[] = {
        {"tm=4,tn=16", "lm is missing"},
        {"tm=4,tn=16,lm=0,tm=2", "tm given twice"},
        {"tm=3,tn=16,lm=0", "accepted: 2, 4, 8"},
        {"tm=4,tn=16,xx=0", "unknown parameter \"xx\""},
        {"tm=4,tn=sixteen,lm=0", "not a whole number"},
        {"tm=4,tn=-16,lm=0", "not a whole number"},
        {"tm=4,tn=,lm=0", "tn has no value"},
        {"tm=4,tn16,lm=0", "name=value"},
        {"default", "name=value"},
        {"", "is missing"},
        {"tm=4,tn=99999999999999,lm=0", "tn"},
        {"tm=4,tn=16,lm=0,", "name=value"},
        {"tm=+4,tn=16,lm=0", "not a whole number"},
        {"tm= 4,tn=16,lm=0", "not a whole number"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        expect_refused(&s, bad[i].text, NULL, bad[i].needle);
}

/* A point named in part over a base (the op benchmarks' --tune parts=4): the named values,
 * every other one the base's; the same refusals as a whole point; no base, every name. */
Test(tune_point, parse_over_a_base_fills_what_is_not_named)
{
    struct ff_tune_space s = space3();
    struct ff_tune_point q;
    char err[256] = "";
    cr_assert_eq(ff_tune_point_parse_over(&s, "lm=1", &s.dflt, &q, err, sizeof(err)), FF_OK, "%s",
                 err);
    cr_expect(q.n == 3 && q.v[0] == 4 && q.v[1] == 16 && q.v[2] == 1);
    cr_assert_eq(ff_tune_point_parse_over(&s, "tn=4,tm=8", &s.dflt, &q, err, sizeof(err)), FF_OK,
                 "%s", err);
    cr_expect(q.v[0] == 8 && q.v[1] == 4 && q.v[2] == 0);
    static const struct {
        const char *text, *needle;
    } bad[] = {
        {"lz=1", "unknown parameter \"lz\""},
        {"tm=3", "accepted: 2, 4, 8"},
        {"lm", "name=value"},
        {"lm=1,lm=0", "lm given twice"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        expect_refused(&s, bad[i].text, &s.dflt, bad[i].needle);
    cr_expect_eq(ff_tune_point_parse_over(&s, "lm=1", NULL, &q, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "tm is missing"), "%s", err);
    const struct ff_tune_point none = {0};
    cr_expect_eq(ff_tune_point_parse_over(&s, "lm=1", &none, &q, err, sizeof(err)), FF_ERR_INVALID);
}

Test(tune_point, hash_is_fnv1a_and_order_sensitive)
{
    /* FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c (the published test vector). */
    cr_expect_eq(ff_tune_hash(FF_TUNE_HASH_INIT, "a", 1), 0xaf63dc4c8601ec8cull);
    cr_expect_neq(ff_tune_hash(FF_TUNE_HASH_INIT, "ab", 2),
                  ff_tune_hash(FF_TUNE_HASH_INIT, "ba", 2));
}

/* ---- the search core, with a fake evaluator and clock ---- */

struct fake {
    uint64_t now_ns;
    double cost_s; /* per candidate at size 1, times size^exp */
    double exponent;
    uint32_t fail_v0;  /* candidates whose first value is this fail (0: none) */
    bool fail_default; /* the default (v0 == 1) fails */
    uint32_t calls, default_calls;
    uint32_t last_size;
    double size_bias; /* candidates with v0 >= 6 gain this factor at sizes >= 64 */
};

static uint64_t fake_clock(void *ctx)
{
    return ((struct fake *)ctx)->now_ns;
}

/* The rate is the point's first value (the default: v0 == 1), except where bias says. */
static int fake_eval(void *ctx, const struct ff_tune_point *p, uint32_t size, double *rate,
                     double *fixed_s, char *err, size_t errlen)
{
    (void)fixed_s;
    struct fake *f = ctx;
    f->calls++;
    f->last_size = size;
    f->now_ns += (uint64_t)(f->cost_s * 1e9 * (f->exponent ? (double)size * size * size : 1));
    if (p->v[0] == 1)
        f->default_calls++;
    if ((f->fail_v0 && p->v[0] == f->fail_v0) || (f->fail_default && p->v[0] == 1))
        return ff_errf(err, errlen, FF_ERR_VERIFY, "result does not match (fake)");
    double r = p->v[0];
    if (f->size_bias > 0 && size >= 64 && p->v[0] >= 6)
        r *= f->size_bias;
    *rate = r * 1e9;
    return FF_OK;
}

static size_t make_cands(struct ff_tune_point *c, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        c[i] = (struct ff_tune_point){.n = 1, .v = {i + 2}}; /* 2..n+1; the default is 1 */
    return n;
}

static void cfg_for(struct ff_tune_search_cfg *cfg, struct fake *f, double budget)
{
    ff_tune_search_defaults(cfg);
    cfg->sizes[0] = 16;
    cfg->sizes[1] = 32;
    cfg->sizes[2] = 64;
    cfg->n_sizes = 3;
    cfg->budget_s = budget;
    cfg->clock = fake_clock;
    cfg->clock_ctx = f;
}

Test(tune_search, finds_the_best_and_compares_with_the_default_at_the_final_size)
{
    struct fake f = {.cost_s = 0.01};
    struct ff_tune_search_cfg cfg;
    cfg_for(&cfg, &f, 100);
    struct ff_tune_point c[40];
    size_t n = make_cands(c, 40);
    struct ff_tune_point d = {.n = 1, .v = {1}};
    struct ff_tune_outcome o;
    char err[256] = "";
    cr_assert_eq(ff_tune_search(&cfg, c, n, &d, fake_eval, &f, &o, err, sizeof(err)), FF_OK, "%s",
                 err);
    cr_expect_eq(o.best.v[0], 41);
    cr_expect_eq(o.size, 64, "compared at the final size");
    cr_expect_eq(o.rounds, 3);
    cr_expect_eq(o.default_rate, 1e9);
    cr_expect(o.best_rate >= o.default_rate);
    cr_expect_eq(f.default_calls, 3, "the default is measured in every round");
    /* successive halving: 41 candidates, then ceil(41/4) = 11 (+ the default), then 3 (+1) */
    cr_expect_eq(o.evaluated, 41 + 12 + 4, "%u", o.evaluated);
    cr_expect(!o.budget_hit);
}

Test(tune_search, a_candidate_that_wins_only_at_large_sizes_survives_if_ranked_high_enough)
{
    /* size_bias: v0 >= 6 look 10x better from size 64 on; the best small one still wins. */
    struct fake f = {.cost_s = 0.01, .size_bias = 10};
    struct ff_tune_search_cfg cfg;
    cfg_for(&cfg, &f, 100);
    struct ff_tune_point c[20];
    size_t n = make_cands(c, 20);
    struct ff_tune_point d = {.n = 1, .v = {1}};
    struct ff_tune_outcome o;
    char err[256];
    cr_assert_eq(ff_tune_search(&cfg, c, n, &d, fake_eval, &f, &o, err, sizeof(err)), FF_OK);
    cr_expect_eq(o.best.v[0], 21);
    cr_expect_eq(o.best_rate, 210e9);
}

Test(tune_search, failing_candidates_are_skipped_and_the_search_goes_on)
{
    struct fake f = {.cost_s = 0.01, .fail_v0 = 41}; /* the would-be winner fails */
    struct ff_tune_search_cfg cfg;
    cfg_for(&cfg, &f, 100);
    struct ff_tune_point c[40];
    size_t n = make_cands(c, 40);
    struct ff_tune_point d = {.n = 1, .v = {1}};
    struct ff_tune_outcome o;
    char err[256];
    char log[64][256];
    size_t nlog = 0;
    (void)log;
    (void)nlog;
    cr_assert_eq(ff_tune_search(&cfg, c, n, &d, fake_eval, &f, &o, err, sizeof(err)), FF_OK);
    cr_expect_eq(o.best.v[0], 40);
    cr_expect_eq(o.failed, 1);
}

struct logbuf {
    char text[16384];
    size_t len;
};

static void collect(void *ctx, enum ff_tune_log_level level, const char *line)
{
    struct logbuf *l = ctx;
    if (level == FF_TUNE_LOG_PROGRESS)
        return;
    bool verbose = level == FF_TUNE_LOG_VERBOSE;
    int w =
        snprintf(l->text + l->len, sizeof(l->text) - l->len, "%c %s\n", verbose ? 'v' : '-', line);
    if (w > 0 && l->len + (size_t)w < sizeof(l->text))
        l->len += (size_t)w;
}

Test(tune_search, a_skipped_candidate_is_logged_with_its_reason_as_verbose)
{
    struct fake f = {.cost_s = 0.01, .fail_v0 = 5};
    struct ff_tune_search_cfg cfg;
    cfg_for(&cfg, &f, 100);
    struct logbuf lb = {.len = 0};
    cfg.log = collect;
    cfg.log_ctx = &lb;
    cfg.label = "fake";
    struct ff_tune_point c[8];
    size_t n = make_cands(c, 8);
    struct ff_tune_point d = {.n = 1, .v = {1}};
    struct ff_tune_outcome o;
    char err[256];
    cr_assert_eq(ff_tune_search(&cfg, c, n, &d, fake_eval, &f, &o, err, sizeof(err)), FF_OK);
    cr_expect(strstr(lb.text, "v fake: size 16: skip 5: result does not match (fake)"), "%s",
              lb.text);
}

Test(tune_search, the_budget_is_honoured_and_no_candidate_is_started_that_cannot_finish)
{
    /* Each run costs 0.5 s at every size: a 5 s budget fits 10 runs at most. */
    struct fake f = {.cost_s = 0.5};
    struct ff_tune_search_cfg cfg;
    cfg_for(&cfg, &f, 5);
    cfg.work_exponent = 0; /* the cost does not grow with the size */
    struct ff_tune_point c[100];
    size_t n = make_cands(c, 100);
    struct ff_tune_point d = {.n = 1, .v = {1}};
    struct ff_tune_outcome o;
    char err[256];
    cr_assert_eq(ff_tune_search(&cfg, c, n, &d, fake_eval, &f, &o, err, sizeof(err)), FF_OK);
    cr_expect(o.budget_hit);
    cr_expect(o.elapsed_s <= 5.0 + 1e-9, "elapsed %g s of a 5 s budget", o.elapsed_s);
    cr_expect_leq(o.evaluated, 10);
    /* the default was still compared, and the result is never below it */
    cr_expect(o.default_rate > 0 && o.best_rate >= o.default_rate);
    cr_expect_eq(o.size, 64, "%u", o.size);

    /* Estimated as growing with size^3, the larger rounds look 8x and 64x dearer: the first
     * round leaves room for them, and the comparison still includes the default. */
    struct fake g = {.cost_s = 0.5};
    cfg_for(&cfg, &g, 5);
    cr_assert_eq(ff_tune_search(&cfg, c, n, &d, fake_eval, &g, &o, err, sizeof(err)), FF_OK);
    cr_expect(o.budget_hit && o.elapsed_s <= 5.0 + 1e-9);
    cr_expect_leq(o.evaluated, 10);
    cr_expect(o.default_rate > 0 && o.best_rate >= o.default_rate);
}

Test(tune_search, growing_costs_are_estimated_from_the_last_round)
{
    /* Cost grows as size^3: 16^3 * 1e-6 = 4 ms, 32: 33 ms, 64: 262 ms. Budget 1 s: round 1
     * may take 0.5 s, round 2 up to 0.75 s, the final round the rest. */
    struct fake f = {.cost_s = 1e-6, .exponent = 3};
    struct ff_tune_search_cfg cfg;
    cfg_for(&cfg, &f, 1.0);
    struct ff_tune_point c[200];
    size_t n = make_cands(c, 200);
    struct ff_tune_point d = {.n = 1, .v = {1}};
    struct ff_tune_outcome o;
    char err[256];
    cr_assert_eq(ff_tune_search(&cfg, c, n, &d, fake_eval, &f, &o, err, sizeof(err)), FF_OK);
    cr_expect(o.elapsed_s <= 1.0 + 1e-9, "elapsed %g s of 1 s", o.elapsed_s);
    cr_expect(o.best_rate >= o.default_rate && o.default_rate > 0);
}

Test(tune_search, a_failing_default_and_all_failing)
{
    struct fake f = {.cost_s = 0.01, .fail_default = true};
    struct ff_tune_search_cfg cfg;
    cfg_for(&cfg, &f, 100);
    struct ff_tune_point c[4];
    size_t n = make_cands(c, 4);
    struct ff_tune_point d = {.n = 1, .v = {1}};
    struct ff_tune_outcome o;
    char err[256] = "";
    cr_assert_eq(ff_tune_search(&cfg, c, n, &d, fake_eval, &f, &o, err, sizeof(err)), FF_OK);
    cr_expect_eq(o.default_rate, 0);
    cr_expect_eq(o.best.v[0], 5);

    /* nothing works: an error with the last reason, never a figure */
    struct fake g = {.cost_s = 0.01, .fail_default = true, .fail_v0 = 2};
    cfg_for(&cfg, &g, 100);
    struct ff_tune_point one = {.n = 1, .v = {2}};
    cr_assert_eq(ff_tune_search(&cfg, &one, 1, &d, fake_eval, &g, &o, err, sizeof(err)),
                 FF_ERR_VERIFY);
    cr_expect(strstr(err, "does not match"), "%s", err);
}

Test(tune_search, the_default_alone_and_bad_configs)
{
    struct fake f = {.cost_s = 0.01};
    struct ff_tune_search_cfg cfg;
    cfg_for(&cfg, &f, 100);
    struct ff_tune_point d = {.n = 1, .v = {1}};
    struct ff_tune_outcome o;
    char err[256];
    cr_assert_eq(ff_tune_search(&cfg, NULL, 0, &d, fake_eval, &f, &o, err, sizeof(err)), FF_OK);
    cr_expect(o.best.v[0] == 1 && o.best_rate == o.default_rate);
    /* the default among the candidates is not measured twice */
    cr_assert_eq(ff_tune_search(&cfg, &d, 1, &d, fake_eval, &f, &o, err, sizeof(err)), FF_OK);
    cr_expect_eq(o.evaluated, 3);

    cfg.n_sizes = 0;
    cr_expect_eq(ff_tune_search(&cfg, NULL, 0, &d, fake_eval, &f, &o, err, sizeof(err)),
                 FF_ERR_INVALID);
    cfg_for(&cfg, &f, 100);
    cfg.sizes[1] = 8; /* not ascending */
    cr_expect_eq(ff_tune_search(&cfg, NULL, 0, &d, fake_eval, &f, &o, err, sizeof(err)),
                 FF_ERR_INVALID);
    cfg_for(&cfg, &f, 0);
    cr_expect_eq(ff_tune_search(&cfg, NULL, 0, &d, fake_eval, &f, &o, err, sizeof(err)),
                 FF_ERR_INVALID);
}

/* ---- the cache ---- */

static char *tmpdir(void)
{
    static char dir[64];
    snprintf(dir, sizeof(dir), "/tmp/ff_tune_test.XXXXXX");
    cr_assert(mkdtemp(dir));
    return dir;
}

static void rm_rf(const char *dir)
{
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

static struct ff_tune_entry entry(const char *driver, const char *hash, const char *prec,
                                  double rate)
{
    struct ff_tune_entry e = {0};
    snprintf(e.key.backend, sizeof(e.key.backend), "opencl");
    snprintf(e.key.device, sizeof(e.key.device), "cpu-skylake \"quoted\" \\ name");
    snprintf(e.key.driver, sizeof(e.key.driver), "%s", driver);
    snprintf(e.key.kernel, sizeof(e.key.kernel), "matmul");
    snprintf(e.key.precision, sizeof(e.key.precision), "%s", prec);
    snprintf(e.key.source_hash, sizeof(e.key.source_hash), "%s", hash);
    snprintf(e.point, sizeof(e.point), "tm=6,tn=16,vw=8");
    e.rate = rate;
    e.default_rate = rate / 2;
    snprintf(e.unit, sizeof(e.unit), "FLOP/s");
    e.size = 1024;
    snprintf(e.date, sizeof(e.date), "2026-12-01T12:00:00Z");
    snprintf(e.version, sizeof(e.version), "0.1.0");
    return e;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
}

Test(tune_cache, round_trip_and_keys)
{
    char *dir = tmpdir();
    char path[128];
    snprintf(path, sizeof(path), "%s/sub/dir/tuning.json", dir); /* folders are created */
    struct ff_tune_cache c = {0};
    struct ff_tune_entry a = entry("3.1", "0123456789abcdef", "fp32", 1.25e11);
    struct ff_tune_entry b = entry("3.1", "0123456789abcdef", "fp16", 2.5e11);
    b.quick = true;
    struct ff_tune_entry bw = entry("3.1", "fedcba9876543210", "", 3.3e10);
    snprintf(bw.key.kernel, sizeof(bw.key.kernel), "read");
    cr_assert_eq(ff_tune_cache_put(&c, &a), FF_OK);
    cr_assert_eq(ff_tune_cache_put(&c, &b), FF_OK);
    cr_assert_eq(ff_tune_cache_put(&c, &bw), FF_OK);
    char err[512] = "";
    cr_assert_eq(ff_tune_cache_save(&c, path, err, sizeof(err)), FF_OK, "%s", err);
    ff_tune_cache_free(&c);

    struct ff_tune_cache r;
    cr_assert_eq(ff_tune_cache_load(&r, path, err, sizeof(err)), FF_OK, "%s", err);
    cr_assert_eq(r.n, 3);
    const struct ff_tune_entry *f = ff_tune_cache_find(&r, &a.key);
    cr_assert(f);
    cr_expect_str_eq(f->point, "tm=6,tn=16,vw=8");
    cr_expect_str_eq(f->key.device, a.key.device);
    cr_expect_eq(f->rate, 1.25e11);
    cr_expect_eq(f->default_rate, 6.25e10);
    cr_expect_eq(f->size, 1024);
    cr_expect_str_eq(f->unit, "FLOP/s");
    cr_expect_str_eq(f->date, "2026-12-01T12:00:00Z");
    cr_expect_str_eq(f->version, "0.1.0");
    cr_expect(!f->quick);
    cr_expect(ff_tune_cache_find(&r, &b.key)->quick, "quick survives the round trip");
    cr_expect(ff_tune_cache_find(&r, &bw.key));
    cr_expect_str_eq(ff_tune_cache_find(&r, &bw.key)->key.precision, "");

    /* a stale key never matches: another source hash, another driver, another device */
    struct ff_tune_key k = a.key;
    snprintf(k.source_hash, sizeof(k.source_hash), "0123456789abcdee");
    cr_expect_null(ff_tune_cache_find(&r, &k));
    k = a.key;
    snprintf(k.driver, sizeof(k.driver), "3.2");
    cr_expect_null(ff_tune_cache_find(&r, &k));
    k = a.key;
    snprintf(k.device, sizeof(k.device), "cpu-skylake");
    cr_expect_null(ff_tune_cache_find(&r, &k));
    k = a.key;
    snprintf(k.precision, sizeof(k.precision), "int8");
    cr_expect_null(ff_tune_cache_find(&r, &k));

    /* a new source hash replaces the old entry; a new driver adds one */
    struct ff_tune_entry a2 = entry("3.1", "1111111111111111", "fp32", 1.5e11);
    cr_assert_eq(ff_tune_cache_put(&r, &a2), FF_OK);
    cr_expect_eq(r.n, 3);
    cr_expect_null(ff_tune_cache_find(&r, &a.key));
    struct ff_tune_entry a3 = entry("3.2", "1111111111111111", "fp32", 1.5e11);
    cr_assert_eq(ff_tune_cache_put(&r, &a3), FF_OK);
    cr_expect_eq(r.n, 4);
    ff_tune_cache_free(&r);

    /* atomic: nothing but the file itself in its folder */
    char sub[128];
    snprintf(sub, sizeof(sub), "%s/sub/dir", dir);
    DIR *d = opendir(sub);
    cr_assert(d);
    struct dirent *de;
    int files = 0;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
            files++;
            cr_expect_str_eq(de->d_name, "tuning.json");
        }
    closedir(d);
    cr_expect_eq(files, 1);

    /* a missing file is an empty cache */
    snprintf(path, sizeof(path), "%s/none.json", dir);
    cr_expect_eq(ff_tune_cache_load(&r, path, err, sizeof(err)), FF_OK);
    cr_expect_eq(r.n, 0);
    rm_rf(dir);
}

Test(tune_cache, malformed_files_are_refused_naming_what_is_wrong)
{
    char *dir = tmpdir();
    char path[128];
    snprintf(path, sizeof(path), "%s/tuning.json", dir);
    static const struct {
        const char *text, *needle;
    } bad[] = {
        {"{", "not JSON"},
        {"", "not JSON"},
        {"[]", "not a tuning cache"},
        {"{\"schema\": \"flopfit.profile\", \"schema_version\": \"1.0\", \"entries\": []}",
         "not a tuning cache"},
        {"{\"schema\": \"flopfit.tuning\", \"schema_version\": \"2.0\", \"entries\": []}",
         "schema_version 2.0"},
        {"{\"schema\": \"flopfit.tuning\", \"schema_version\": \"1.0\"}", "\"entries\""},
        {"{\"schema\": \"flopfit.tuning\", \"schema_version\": \"1.0\", \"entries\": [1]}",
         "entries[0] is not an object"},
        {"{\"schema\": \"flopfit.tuning\", \"schema_version\": \"1.0\", \"entries\": [{}]}",
         "entries[0].backend is missing"},
        {"{\"schema\": \"flopfit.tuning\", \"schema_version\": \"1.0\", \"entries\": "
         "[{\"backend\": \"opencl\", \"device\": \"d\", \"driver_version\": \"1\", \"kernel\": "
         "\"matmul\", \"source_hash\": \"xyz\", \"point\": \"tm=1\", \"rate\": 1}]}",
         "source_hash"},
        {"{\"schema\": \"flopfit.tuning\", \"schema_version\": \"1.0\", \"entries\": "
         "[{\"backend\": \"opencl\", \"device\": \"d\", \"driver_version\": \"1\", \"kernel\": "
         "\"matmul\", \"source_hash\": \"0123456789abcdef\", \"point\": \"tm=1\", \"rate\": "
         "-5}]}",
         "rate"},
        {"{\"schema\": \"flopfit.tuning\", \"schema_version\": \"1.0\", \"entries\": "
         "[{\"backend\": \"opencl\", \"device\": \"d\", \"driver_version\": \"1\", \"kernel\": "
         "\"matmul\", \"source_hash\": \"0123456789abcdef\", \"point\": 5, \"rate\": 1}]}",
         "point is not a string"},
        {"{\"schema\": \"flopfit.tuning\", \"schema_version\": \"1.0\", \"entries\": []} x",
         "not JSON"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        write_text(path, bad[i].text);
        struct ff_tune_cache c;
        char err[512] = "";
        cr_expect_eq(ff_tune_cache_load(&c, path, err, sizeof(err)), FF_ERR_INVALID, "accepted: %s",
                     bad[i].text);
        cr_expect(strstr(err, bad[i].needle) && strstr(err, path), "%s: %s (wanted %s)",
                  bad[i].text, err, bad[i].needle);
        cr_expect_eq(c.n, 0);
        cr_expect_null(c.e);
    }
    /* a folder is not a cache file */
    struct ff_tune_cache c;
    char err[512];
    cr_expect_lt(ff_tune_cache_load(&c, dir, err, sizeof(err)), 0);
    rm_rf(dir);
}

Test(tune_cache, a_malformed_cache_is_kept_aside_when_a_fresh_one_is_written)
{
    char *dir = tmpdir();
    char path[128], aside[160];
    snprintf(path, sizeof(path), "%s/flopfit/tuning.json", dir);
    snprintf(aside, sizeof(aside), "%s.malformed", path);
    char sub[128];
    snprintf(sub, sizeof(sub), "%s/flopfit", dir);
    cr_assert_eq(mkdir(sub, 0777), 0);
    write_text(path, "{ not json");
    setenv("XDG_CACHE_HOME", dir, 1);
    struct ff_tune_cache c;
    char p[4096];
    bool malformed = false;
    cr_assert_eq(ff_tune_cache_open(&c, p, sizeof(p), &malformed, "test"), FF_OK);
    cr_expect_str_eq(p, path);
    cr_expect(malformed);
    cr_expect_eq(c.n, 0);
    /* untouched until a fresh cache is written */
    struct stat st;
    cr_expect_eq(stat(path, &st), 0);
    cr_expect_neq(stat(aside, &st), 0);
    struct ff_tune_entry a = entry("3.1", "0123456789abcdef", "fp32", 1.25e11);
    cr_assert_eq(ff_tune_cache_put(&c, &a), FF_OK);
    char err[512] = "";
    cr_assert_eq(ff_tune_cache_commit(&c, path, &malformed, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect(!malformed);
    cr_expect_eq(stat(aside, &st), 0, "the malformed file is kept as .malformed");
    ff_tune_cache_free(&c);
    cr_assert_eq(ff_tune_cache_load(&c, path, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect_eq(c.n, 1);
    ff_tune_cache_free(&c);

    /* the path: XDG_CACHE_HOME when absolute, else ~/.cache */
    setenv("XDG_CACHE_HOME", "relative", 1);
    setenv("HOME", "/home/someone", 1);
    cr_assert_eq(ff_tune_cache_path(p, sizeof(p), err, sizeof(err)), FF_OK);
    cr_expect_str_eq(p, "/home/someone/.cache/flopfit/tuning.json");
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    cr_expect_eq(ff_tune_cache_path(p, sizeof(p), err, sizeof(err)), FF_ERR_NOT_FOUND);
    rm_rf(dir);
}

/* An entry of its own device: "dev-<who>-<k>". */
static struct ff_tune_entry entry_of(unsigned who, unsigned k)
{
    struct ff_tune_entry e = entry("3.1", "0123456789abcdef", "fp32", 1e9 + k);
    snprintf(e.key.device, sizeof(e.key.device), "dev-%u-%u", who, k);
    return e;
}

Test(tune_cache, a_commit_merges_with_what_another_run_wrote_since)
{
    char *dir = tmpdir();
    char path[128], err[512] = "";
    snprintf(path, sizeof(path), "%s/flopfit/tuning.json", dir);
    struct ff_tune_cache a, b;
    bool ma = false, mb = false;
    /* both read the (missing) cache before either writes */
    cr_assert_eq(ff_tune_cache_load(&a, path, err, sizeof(err)), FF_OK, "%s", err);
    cr_assert_eq(ff_tune_cache_load(&b, path, err, sizeof(err)), FF_OK, "%s", err);
    struct ff_tune_entry ea = entry_of(1, 0), eb = entry_of(2, 0);
    struct ff_tune_entry shared = entry_of(3, 0), shared_b = shared;
    shared_b.rate = 7e9;
    cr_assert_eq(ff_tune_cache_put(&a, &ea), FF_OK);
    cr_assert_eq(ff_tune_cache_put(&a, &shared), FF_OK);
    cr_assert_eq(ff_tune_cache_commit(&a, path, &ma, err, sizeof(err)), FF_OK, "%s", err);
    cr_assert_eq(ff_tune_cache_put(&b, &eb), FF_OK);
    cr_assert_eq(ff_tune_cache_put(&b, &shared_b), FF_OK);
    cr_assert_eq(ff_tune_cache_commit(&b, path, &mb, err, sizeof(err)), FF_OK, "%s", err);
    /* b now holds the merge too; the later put of one key wins */
    cr_expect_eq(b.n, 3);
    struct ff_tune_cache r;
    cr_assert_eq(ff_tune_cache_load(&r, path, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect_eq(r.n, 3);
    cr_expect(ff_tune_cache_find(&r, &ea.key), "the first run's entry is kept");
    cr_expect(ff_tune_cache_find(&r, &eb.key));
    cr_assert(ff_tune_cache_find(&r, &shared.key));
    cr_expect_eq(ff_tune_cache_find(&r, &shared.key)->rate, 7e9);
    /* a later commit of a writes only what it changed since: b's value of the shared key stays */
    struct ff_tune_entry ea2 = entry_of(1, 1);
    cr_assert_eq(ff_tune_cache_put(&a, &ea2), FF_OK);
    cr_assert_eq(ff_tune_cache_commit(&a, path, &ma, err, sizeof(err)), FF_OK, "%s", err);
    ff_tune_cache_free(&r);
    cr_assert_eq(ff_tune_cache_load(&r, path, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect_eq(r.n, 4);
    cr_expect_eq(ff_tune_cache_find(&r, &shared.key)->rate, 7e9);
    ff_tune_cache_free(&r);
    ff_tune_cache_free(&a);
    ff_tune_cache_free(&b);
    struct stat st;
    char lock[160];
    snprintf(lock, sizeof(lock), "%s.lock", path);
    cr_expect_eq(stat(lock, &st), 0, "the lock file lies beside the cache");
    rm_rf(dir);
}

Test(tune_cache, concurrent_commits_keep_every_entry, .timeout = 120)
{
    char *dir = tmpdir();
    char path[128];
    snprintf(path, sizeof(path), "%s/flopfit/tuning.json", dir);
    enum { WRITERS = 4, EACH = 15 };
    pid_t pid[WRITERS];
    for (unsigned w = 0; w < WRITERS; w++) {
        pid[w] = fork();
        cr_assert_geq(pid[w], 0);
        if (pid[w] > 0)
            continue;
        /* each writer as `flopfit tune` does it: load once, then commit after each result */
        char err[512] = "";
        struct ff_tune_cache c;
        bool malformed = false;
        int bad = ff_tune_cache_load(&c, path, err, sizeof(err)) < 0;
        for (unsigned k = 0; k < EACH && !bad; k++) {
            struct ff_tune_entry e = entry_of(w, k);
            bad = ff_tune_cache_put(&c, &e) < 0 ||
                  ff_tune_cache_commit(&c, path, &malformed, err, sizeof(err)) < 0;
        }
        if (bad)
            fprintf(stderr, "writer %u: %s\n", w, err);
        ff_tune_cache_free(&c);
        _exit(bad);
    }
    for (unsigned w = 0; w < WRITERS; w++) {
        int st = 0;
        cr_assert_eq(waitpid(pid[w], &st, 0), pid[w]);
        cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer %u failed", w);
    }
    struct ff_tune_cache r;
    char err[512] = "";
    cr_assert_eq(ff_tune_cache_load(&r, path, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect_eq(r.n, WRITERS * EACH, "%zu entries of %d", r.n, WRITERS * EACH);
    for (unsigned w = 0; w < WRITERS; w++)
        for (unsigned k = 0; k < EACH; k++) {
            struct ff_tune_entry e = entry_of(w, k);
            cr_expect(ff_tune_cache_find(&r, &e.key), "dev-%u-%u lost", w, k);
        }
    ff_tune_cache_free(&r);
    rm_rf(dir);
}

Test(tune_cache, a_large_cache_is_indexed)
{
    struct ff_tune_cache c = {0};
    enum { N = 26000 };
    for (unsigned k = 0; k < N; k++) {
        struct ff_tune_entry e = entry_of(0, k);
        cr_assert_eq(ff_tune_cache_put(&c, &e), FF_OK);
    }
    cr_assert_eq(c.n, N);
    for (unsigned k = 0; k < N; k += 7) {
        struct ff_tune_entry e = entry_of(0, k);
        const struct ff_tune_entry *f = ff_tune_cache_find(&c, &e.key);
        cr_assert(f, "dev-0-%u not found", k);
        cr_assert_eq(f->rate, e.rate);
        /* a stale source hash never matches; a put of it replaces the entry */
        snprintf(e.key.source_hash, sizeof(e.key.source_hash), "fedcba9876543210");
        cr_assert_null(ff_tune_cache_find(&c, &e.key));
        e.rate = 1;
        cr_assert_eq(ff_tune_cache_put(&c, &e), FF_OK);
        cr_assert_eq(ff_tune_cache_find(&c, &e.key)->rate, 1);
    }
    cr_expect_eq(c.n, N, "replacing adds nothing");
    struct ff_tune_entry none = entry_of(1, 0);
    cr_expect_null(ff_tune_cache_find(&c, &none.key));
    ff_tune_cache_free(&c);
    cr_expect_null(ff_tune_cache_find(&c, &none.key), "a freed cache is empty");
}

/* ---- `flopfit tune` ---- */

static int run(const char *env, const char *args, char *out, size_t outlen)
{
    const char *exe = getenv("FLOPFIT");
    cr_assert(exe, "FLOPFIT must name the built binary");
    char cmd[2048];
    snprintf(cmd, sizeof(cmd), "%s %s %s 2>&1", env, exe, args);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    size_t n = fread(out, 1, outlen - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(tune_cli, usage_errors_exit_2_naming_the_option)
{
    char out[8192];
    static const struct {
        const char *args, *needle;
    } bad[] = {
        {"tune --budget 0", "--budget"},
        {"tune --budget x", "--budget"},
        {"tune --kernel peak", "--kernel"},
        {"tune --precision fp64", "--precision"},
        {"tune --precision bf16", "--precision"},
        {"tune --device nope:1", "--device"},
        {"tune --backend metal", "--backend"},
        {"tune --frob", "--frob"},
        {"tune extra", "extra"},
        {"tune --export ''", "--export"},
        {"tune --budget", "--budget"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cr_expect_eq(run("", bad[i].args, out, sizeof(out)), 2, "%s: %s", bad[i].args, out);
        cr_expect(strstr(out, bad[i].needle), "%s: %s", bad[i].args, out);
    }
    cr_expect_eq(run("", "tune --help", out, sizeof(out)), 0);
    cr_expect(strstr(out, "--budget") && strstr(out, "tuning.json"), "%s", out);
    cr_expect_eq(run("", "--help", out, sizeof(out)), 0);
    cr_expect(strstr(out, "tune"), "the command table lists tune: %s", out);
    cr_expect_eq(run("", "bench --help", out, sizeof(out)), 0);
    cr_expect(strstr(out, "--no-tune"), "%s", out);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* 26000 entries, as an export from a large fleet would hold: the import is one hash lookup per
 * entry (a linear one took 27 s). The bound is generous (a loaded machine under ASan); the
 * figure is printed. */
Test(tune_cli, importing_26k_entries_takes_seconds, .timeout = 120)
{
    char *dir = tmpdir();
    char env[256], file[160], args[512], out[8192];
    snprintf(env, sizeof(env), "XDG_CACHE_HOME=%s/a", dir);
    snprintf(file, sizeof(file), "%s/big.json", dir);
    FILE *f = fopen(file, "w");
    cr_assert(f);
    fputs("{\"schema\": \"flopfit.tuning\", \"schema_version\": \"1.0\", \"entries\": [\n", f);
    enum { N = 26000 };
    for (unsigned k = 0; k < N; k++)
        fprintf(f,
                "%s{\"backend\": \"opencl\", \"device\": \"gpu %u\", \"driver_version\": "
                "\"%u.0\", \"kernel\": \"matmul\", \"precision\": \"fp32\", "
                "\"source_hash\": \"0123456789abcdef\", \"point\": \"tm=4,tn=8\", "
                "\"rate\": %u}\n",
                k ? "," : "", k / 4, k % 4, 1000 + k);
    fputs("]}\n", f);
    fclose(f);
    snprintf(args, sizeof(args), "tune --import %s", file);
    double t0 = now_s();
    cr_assert_eq(run(env, args, out, sizeof(out)), 0, "%s", out);
    double dt = now_s() - t0;
    fprintf(stderr, "flopfit tune --import of %d entries: %.2f s\n", N, dt);
    cr_expect(strstr(out, "imported 26000 entries"), "%s", out);
    cr_expect_lt(dt, 30.0, "the import took %.1f s", dt);
    /* what was written reads back whole */
    char cache[160], err[512] = "";
    snprintf(cache, sizeof(cache), "%s/a/flopfit/tuning.json", dir);
    struct ff_tune_cache c;
    cr_assert_eq(ff_tune_cache_load(&c, cache, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect_eq(c.n, N);
    ff_tune_cache_free(&c);
    rm_rf(dir);
}

Test(tune_cli, export_and_import_without_tuning)
{
    char *dir = tmpdir();
    char env[256], file[160], args[512], out[8192];
    snprintf(env, sizeof(env), "XDG_CACHE_HOME=%s/a", dir);
    snprintf(file, sizeof(file), "%s/shipped.json", dir);
    /* a tuned table as shipped with results */
    struct ff_tune_cache c = {0};
    struct ff_tune_entry a = entry("3.1", "0123456789abcdef", "fp32", 1.25e11);
    cr_assert_eq(ff_tune_cache_put(&c, &a), FF_OK);
    char err[512];
    cr_assert_eq(ff_tune_cache_save(&c, file, err, sizeof(err)), FF_OK, "%s", err);
    ff_tune_cache_free(&c);

    snprintf(args, sizeof(args), "tune --import %s", file);
    cr_assert_eq(run(env, args, out, sizeof(out)), 0, "%s", out);
    cr_expect(strstr(out, "imported 1 entry"), "%s", out);
    char cache[160];
    snprintf(cache, sizeof(cache), "%s/a/flopfit/tuning.json", dir);
    cr_assert_eq(ff_tune_cache_load(&c, cache, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect_eq(c.n, 1);
    cr_expect(ff_tune_cache_find(&c, &a.key));
    ff_tune_cache_free(&c);

    char file2[160];
    snprintf(file2, sizeof(file2), "%s/out.json", dir);
    snprintf(args, sizeof(args), "tune --export %s", file2);
    cr_assert_eq(run(env, args, out, sizeof(out)), 0, "%s", out);
    cr_assert_eq(ff_tune_cache_load(&c, file2, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect_eq(c.n, 1);
    ff_tune_cache_free(&c);

    /* a malformed or missing import is a usage error naming the file; the cache is kept */
    write_text(file, "{\"schema\": 1}");
    snprintf(args, sizeof(args), "tune --import %s", file);
    cr_expect_eq(run(env, args, out, sizeof(out)), 2, "%s", out);
    cr_expect(strstr(out, "--import") && strstr(out, "shipped.json"), "%s", out);
    snprintf(args, sizeof(args), "tune --import %s/none.json", dir);
    cr_expect_eq(run(env, args, out, sizeof(out)), 2, "%s", out);
    cr_assert_eq(ff_tune_cache_load(&c, cache, err, sizeof(err)), FF_OK, "%s", err);
    cr_expect_eq(c.n, 1);
    ff_tune_cache_free(&c);

    /* a malformed cache is reported once, treated as empty and not clobbered by an export */
    write_text(cache, "garbage");
    snprintf(args, sizeof(args), "tune --export %s", file2);
    cr_expect_eq(run(env, args, out, sizeof(out)), 0, "%s", out);
    cr_expect(strstr(out, "treated as empty"), "%s", out);
    cr_expect(strstr(out, "exported 0 entries"), "%s", out);
    FILE *f = fopen(cache, "r");
    cr_assert(f);
    char buf[32] = "";
    cr_expect(fgets(buf, sizeof(buf), f) && strcmp(buf, "garbage") == 0);
    fclose(f);
    rm_rf(dir);
}
