/*
 * tests/estimate/test_search.c — the plan search and the defaults a new user meets first:
 * the objective (the time for the tokens at a fixed global batch, never the step time), the
 * default global batch and its parser, the fewest GPUs and --deadline, and serving priced at
 * the asked number of users.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "../common.h"
#include "estimate_cli.h"
#include "ff_util.h"

#include "cli_child.h"

/* The number at a dotted path of a JSON document ("layout.dp"). */
static double jnum(json_object *root, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof(buf), "%s", path);
    json_object *o = root;
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save))
        cr_assert(json_object_object_get_ex(o, k, &o) && o, "no %s in the JSON", path);
    return json_object_get_double(o);
}

static json_object *json_of(struct out *o)
{
    json_object *root = json_tokener_parse(o->out);
    cr_assert(root, "JSON: %s %s", o->out, o->err);
    return root;
}

/* ---- the default global batch (ff_default_global_batch, estimate.h) ---- */

Test(search, default_global_batch_by_hand)
{
    /* 2^21 tokens x (N/7e9)^(1/4), nearest power of two of sequences:
     * 7e9 at 4096: 2,097,152 / 4096 = 512 exactly. */
    cr_expect_eq(ff_default_global_batch(7e9, 4096), 512);
    /* 70e9: 10^(1/4) = 1.778 -> 3.73M tokens = 910 sequences, log2 9.83 -> 1024 (Llama 2
     * 70B's 4M tokens, 1024 x 4096). */
    cr_expect_eq(ff_default_global_batch(70e9, 4096), 1024);
    /* 125e6 at 2048: (0.01786)^(1/4) = 0.3656 -> 766,700 tokens = 374 sequences, log2 8.55
     * -> 512 (GPT-3 Small: 0.5M tokens = 256 x 2048). */
    cr_expect_eq(ff_default_global_batch(125e6, 2048), 512);
    /* 405e9 at 4096: 2.758 -> 5.78M tokens = 1412 sequences, log2 10.46 -> 1024 (Llama 3
     * 405B started at 4M tokens). */
    cr_expect_eq(ff_default_global_batch(405e9, 4096), 1024);
    /* 175e9 at 2048: 25^(1/4) = 2.236 -> 4.69M = 2290 sequences, log2 11.16 -> 2048
     * (BLOOM 176B: 2048 x 2048; GPT-3 175B: 1536 x 2048). */
    cr_expect_eq(ff_default_global_batch(175e9, 2048), 2048);
    /* At least one sequence; nothing for nonsense. */
    cr_expect_eq(ff_default_global_batch(1e3, (int64_t)1 << 34), 1);
    cr_expect_eq(ff_default_global_batch(0, 4096), 0);
    cr_expect_eq(ff_default_global_batch(7e9, 0), 0);
    cr_expect(strstr(ff_default_global_batch_sources(), "Kaplan"));
    cr_expect(strstr(ff_default_global_batch_sources(), "Brown"));
}

Test(search, global_batch_and_deadline_parsers)
{
    int64_t seq = -1;
    double tok = -1;
    char err[256];
    cr_expect_eq(ff_parse_global_batch("--global-batch", "1024", &seq, &tok, err, sizeof(err)),
                 FF_OK);
    cr_expect(seq == 1024 && tok == 0.0);
    cr_expect_eq(ff_parse_global_batch("--global-batch", "4M", &seq, &tok, err, sizeof(err)),
                 FF_OK);
    cr_expect(seq == 0 && tok == 4194304.0, "4M = 4 x 2^20 tokens");
    cr_expect_eq(ff_parse_global_batch("--global-batch", "512k", &seq, &tok, err, sizeof(err)),
                 FF_OK);
    cr_expect_eq(tok, 524288.0);
    cr_expect_eq(ff_parse_global_batch("--global-batch", "4Mtok", &seq, &tok, err, sizeof(err)),
                 FF_OK);
    cr_expect_eq(tok, 4194304.0);
    cr_expect_eq(ff_parse_global_batch("--global-batch", "3000tok", &seq, &tok, err, sizeof(err)),
                 FF_OK);
    cr_expect_eq(tok, 3000.0);
    cr_expect_eq(ff_parse_global_batch("--global-batch", "2kseq", &seq, &tok, err, sizeof(err)),
                 FF_OK);
    cr_expect(seq == 2048 && tok == 0.0);
    cr_expect_eq(ff_parse_global_batch("--global-batch", "1.5M", &seq, &tok, err, sizeof(err)),
                 FF_OK);
    cr_expect_eq(tok, 1572864.0);
    static const char *const bad[] = {
        "",    "0",    "-4", "1.5", "4X",  "4Mb", "0x10", "1e3",    "inf",
        "4M4", "1..2", ".5", "5.",  "tok", "4 M", "0tok", "1.5seq", "99999999999999999999"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        cr_expect_eq(ff_parse_global_batch("--global-batch", bad[i], &seq, &tok, err, sizeof(err)),
                     FF_ERR_INVALID, "'%s' is refused", bad[i]);
        cr_expect(strstr(err, "--global-batch"), "'%s': %s", bad[i], err);
    }
    double s = 0;
    cr_expect_eq(ff_parse_duration("--deadline", "30d", &s, err, sizeof(err)), FF_OK);
    cr_expect_eq(s, 30 * 86400.0);
    cr_expect_eq(ff_parse_duration("--deadline", "36h", &s, err, sizeof(err)), FF_OK);
    cr_expect_eq(s, 36 * 3600.0);
    cr_expect_eq(ff_parse_duration("--deadline", "2.5w", &s, err, sizeof(err)), FF_OK);
    cr_expect_eq(s, 2.5 * 7 * 86400.0);
    static const char *const badd[] = {"30", "30s", "d", "-1d", "0h", "1e3d", "30 d", "9999999w"};
    for (size_t i = 0; i < sizeof(badd) / sizeof(badd[0]); i++)
        cr_expect_eq(ff_parse_duration("--deadline", badd[i], &s, err, sizeof(err)), FF_ERR_INVALID,
                     "'%s' is refused", badd[i]);
    /* The CLI: exit 2 naming the option. */
    struct out *o = cli("--model", "llama-2-7b", "--device", "h100", "--global-batch", "4Q", NULL);
    cr_expect_eq(o->code, 2);
    cr_expect(strstr(o->err, "--global-batch") && strstr(o->err, "4Mtok"), "%s", o->err);
    o = cli("--model", "llama-2-7b", "--device", "h100", "--deadline", "30", NULL);
    cr_expect_eq(o->code, 2);
    cr_expect(strstr(o->err, "--deadline") && strstr(o->err, "30d"), "%s", o->err);
    o = cli("--model", "llama-2-7b", "--device", "h100", "--deadline", "30d", "--gpus", "8", NULL);
    cr_expect_eq(o->code, 2);
    o = cli("--model", "llama-2-7b", "--device", "all", "--rank", "speed", NULL);
    cr_expect_eq(o->code, 2);
    cr_expect(strstr(o->err, "cost or time"), "%s", o->err);
}

/* ---- the objective ---- */

/*
 * The regression the search exists for: Llama 3 8B on 64 A100-80GB. tp 8 x pp 8 x dp 1 has
 * the shortest step when each replica takes one sequence (its step processes 1 sequence,
 * dp 64's 64), so ranking by step time chose it (533 days). With the layout searched and
 * micro-batch and accumulation fixed at 1, the work per step follows dp: the layout that
 * does less work per step must not win because its step is shorter.
 */
Test(search, less_work_per_step_never_wins)
{
    struct ff_model m = preset("llama-3-8b");
    struct ff_spec d = device("a100-80gb");
    struct ff_plan p;
    ff_plan_init(&p);
    p.tokens = 1e12;
    p.gpus = 64;
    p.tp = 8;
    p.pp = 8;
    struct ff_estimate narrow = run(&m, &d, &p);
    cr_assert(narrow.fits);
    cr_expect_eq(narrow.step.sequences, 1.0, "one sequence per step on dp 1");
    p.tp = p.pp = 1;
    p.auto_layout = true;
    p.recompute = FF_RECOMPUTE_FULL; /* dp 64 fits at micro-batch 1 */
    struct ff_estimate e = run(&m, &d, &p);
    cr_assert(e.fits && e.searched);
    cr_expect_lt(e.seconds, narrow.seconds, "the run, not the step, decides");
    cr_expect_gt(e.step.seconds, narrow.step.seconds / 2.0,
                 "its step is not much shorter: it does 64x the work in it");
    cr_expect_geq(e.dp, 8, "dp-heavy: tp %lld pp %lld dp %lld", (long long)e.tp, (long long)e.pp,
                  (long long)e.dp);
    /* At a fixed global batch every layout processes the same sequences per step. */
    p.global_batch = 512;
    p.search = FF_SEARCH_ALL;
    e = run(&m, &d, &p);
    cr_expect_eq(e.global_batch, 512);
    cr_expect_eq(e.step.sequences, 512.0);
    cr_expect(e.has_runner_up);
    cr_expect_geq(e.runner_up_seconds, e.seconds);
    cr_expect(e.runner_up_tp != e.tp || e.runner_up_pp != e.pp, "runner-up: another layout");
    cr_expect(strstr(e.runner_up_why, "slower") || strstr(e.runner_up_why, "as fast"), "%s",
              e.runner_up_why);
}

/* The reproductions, as a new user types them. */
Test(search, new_user_commands)
{
    /* 54 days (dp 64), not 533 (tp 8 x pp 8 x dp 1). */
    struct out *o = cli("--model", "llama-3-8b", "--train", "--tokens", "1e12", "--gpus", "64",
                        "--device", "a100-80gb", "--json", NULL);
    cr_assert_eq(o->code, 0, "%s", o->err);
    json_object *r = json_of(o);
    double days = jnum(r, "time.days");
    cr_expect(days > 40 && days < 80, "%.1f days", days);
    cr_expect_geq(jnum(r, "layout.dp"), 32);
    cr_expect_eq(jnum(r, "layout.pp"), 1);
    cr_expect(jnum(r, "global_batch.sequences") >= 256, "a realistic batch");
    cr_expect(json_object_get_boolean(
        json_object_object_get(json_object_object_get(r, "global_batch"), "default")));
    cr_expect_gt(jnum(r, "search.runner_up.seconds"), 0);
    double secs = jnum(r, "time.seconds"), dp = jnum(r, "layout.dp");
    json_object_put(r);
    /* --plan best is the same search. */
    o = cli("--model", "llama-3-8b", "--train", "--tokens", "1e12", "--gpus", "64", "--device",
            "a100-80gb", "--plan", "best", "--json", NULL);
    cr_assert_eq(o->code, 0, "%s", o->err);
    r = json_of(o);
    cr_expect_eq(jnum(r, "time.seconds"), secs, "plan best == the default search");
    cr_expect_eq(jnum(r, "layout.dp"), dp);
    json_object_put(r);
    /* ZeRO-1 over 64 GPUs: ZeRO kept, data parallel over the GPUs, no pipeline. */
    o = cli("--params", "7.5e9", "--train", "--zero", "1", "--gpus", "64", "--device", "a100-80gb",
            "--json", NULL);
    cr_assert_eq(o->code, 0, "%s", o->err);
    r = json_of(o);
    cr_expect_eq(jnum(r, "layout.zero"), 1);
    cr_expect_eq(jnum(r, "layout.pp"), 1, "no pipeline: it is not faster at equal work");
    cr_expect_geq(jnum(r, "layout.dp"), 32);
    cr_expect_gt(jnum(r, "assumptions.mfu"), 0.4);
    json_object_put(r);
    /* Llama-2-70B with no GPUs: the fewest that fit at a realistic batch, years not decades
     * (83.6 years at one sequence per step). */
    o = cli("--model", "llama-2-70b", "--train", "--tokens", "2e12", "--device", "a100-80gb",
            "--json", NULL);
    cr_assert_eq(o->code, 0, "%s", o->err);
    r = json_of(o);
    /* 1024 x 4096 = Llama 2's 4M tokens; each replica's share rounded up to whole sequences
     * (dp 3: 3 x 342 = 1026) */
    cr_expect_geq(jnum(r, "global_batch.sequences"), 1024.0);
    cr_expect_lt(jnum(r, "global_batch.sequences"), 1024.0 + jnum(r, "layout.dp"));
    cr_expect_lt(jnum(r, "time.days"), 20 * 365.0);
    cr_expect_leq(jnum(r, "layout.gpus"), 32);
    json_object_put(r);
}

/* --deadline: the fewest GPUs found that finish in time, with their cost. */
Test(search, deadline_finds_the_gpus)
{
    struct out *o = cli("--model", "llama-2-70b", "--train", "--tokens", "2e12", "--device",
                        "a100-80gb", "--deadline", "30d", "--json", NULL);
    cr_assert_eq(o->code, 0, "%s", o->err);
    json_object *r = json_of(o);
    cr_expect_leq(jnum(r, "time.days"), 30.0);
    cr_expect_gt(jnum(r, "time.days"), 15.0, "not far more GPUs than needed");
    cr_expect(json_object_get_boolean(
        json_object_object_get(json_object_object_get(r, "deadline"), "met")));
    double gpus = jnum(r, "layout.gpus");
    cr_expect_eq(fmod(gpus, 8.0), 0.0, "whole nodes");
    /* Cost = GPU-hours x the catalog rate. */
    expect_within(jnum(r, "cost.usd"),
                  jnum(r, "time.gpu_hours") * jnum(r, "cost.price_per_gpu_hour"), 1e-9, "cost");
    json_object_put(r);
    o = cli("--model", "llama-2-70b", "--train", "--tokens", "2e12", "--device", "a100-80gb",
            "--deadline", "30d", NULL);
    cr_expect(strstr(o->out, "deadline: 30 days: met"), "%s", o->out);
}

/* Serving at the asked users: the price is the one at 20 users, the maximum a line apart. */
Test(search, serving_at_the_asked_users)
{
    struct out *o = cli("--model", "mixtral-8x7b", "--serve", "--batch", "20", "--device",
                        "h100-sxm", "--json", NULL);
    cr_assert_eq(o->code, 0, "%s", o->err);
    json_object *r = json_of(o);
    double agg = jnum(r, "serve.aggregate_tokens_per_second");
    double gpus = jnum(r, "layout.tp") * jnum(r, "layout.pp");
    double price = jnum(r, "cost.price_per_gpu_hour");
    /* $/M = price x GPUs / 3600 / tokens/s x 1e6, at the 20 users. */
    expect_within(jnum(r, "serve.cost_per_million_tokens"), price * gpus / 3600.0 / agg * 1e6, 1e-9,
                  "$/M tokens at 20 users");
    cr_expect_eq(jnum(r, "serve.users"), 20);
    cr_expect_gt(jnum(r, "serve.cost_per_million_tokens"),
                 3.0 * jnum(r, "serve.max_cost_per_million_tokens"),
                 "20 users cost more per token than the memory-limited maximum");
    expect_within(jnum(r, "serve.tokens_per_second_per_user"),
                  1.0 / jnum(r, "serve.decode_seconds_per_token"), 1e-12, "per user");
    json_object_put(r);
    /* --users is --batch. */
    o = cli("--model", "mixtral-8x7b", "--serve", "--users", "20", "--device", "h100-sxm", "--json",
            NULL);
    r = json_of(o);
    cr_expect_eq(jnum(r, "serve.users"), 20);
    json_object_put(r);
    /* The ranking prices at the asked users. */
    o = cli("--model", "mixtral-8x7b", "--serve", "--batch", "20", "--device", "all", NULL);
    cr_expect(strstr(o->out, "at 20 concurrent user(s)"), "%s", o->out);
    o = cli("--model", "llama-2-7b", "--train", "--device", "all", "--gpus", "8", "--rank", "time",
            "--json", NULL);
    r = json_of(o);
    json_object *arr = json_object_object_get(r, "ranking");
    double prev = 0;
    for (size_t i = 0; i < json_object_array_length(arr); i++) {
        json_object *x = json_object_array_get_idx(arr, i), *t, *f;
        if (!json_object_object_get_ex(x, "fits", &f) || !json_object_get_boolean(f) ||
            !json_object_object_get_ex(x, "time", &t))
            break;
        double s = json_object_get_double(json_object_object_get(t, "seconds"));
        if (i > 0 && s < prev)
            break; /* lower bounds (unknown links) rank after the known times */
        prev = s;
    }
    cr_expect_str_eq(json_object_get_string(json_object_object_get(r, "rank_by")), "time");
    json_object_put(r);
}

/* Context parallelism is searched at long sequences only, and the GPUs stay the ones given. */
Test(search, cp_searched_at_long_sequences)
{
    struct out *o = cli("--model", "llama-3-8b", "--train", "--seq", "131072", "--tokens", "1e11",
                        "--gpus", "64", "--device", "h100-sxm", "--json", NULL);
    cr_assert_eq(o->code, 0, "%s", o->err);
    json_object *r = json_of(o);
    double cp = jnum(r, "layout.cp");
    cr_expect_gt(cp, 1, "131072 tokens a sequence on 64 GPUs: context parallelism");
    cr_expect_eq(jnum(r, "layout.tp") * jnum(r, "layout.pp") * cp * jnum(r, "layout.dp"), 64);
    cr_expect_eq(jnum(r, "layout.gpus"), 64);
    json_object_put(r);
    /* --cp given: kept */
    o = cli("--model", "llama-3-8b", "--train", "--seq", "131072", "--tokens", "1e11", "--gpus",
            "64", "--cp", "1", "--device", "h100-sxm", "--json", NULL);
    cr_assert_eq(o->code, 0, "%s", o->err);
    r = json_of(o);
    cr_expect_eq(jnum(r, "layout.cp"), 1);
    json_object_put(r);
    /* 4096 tokens: no context parallelism tried */
    o = cli("--model", "llama-3-8b", "--train", "--tokens", "1e11", "--gpus", "64", "--device",
            "h100-sxm", "--json", NULL);
    cr_assert_eq(o->code, 0, "%s", o->err);
    r = json_of(o);
    cr_expect_eq(jnum(r, "layout.cp"), 1);
    json_object_put(r);
}
