/*
 * tests/bench/families/test_memory_limit_cli.c — --memory-limit: accepted sizes and
 * the clear rejection of bad ones (no device needed).
 */
#include <string.h>

#include <criterion/criterion.h>

#include "cmd/cli.h"

static int parse(const char *value, struct ff_bench_opts *o, char *err, size_t errlen)
{
    char *argv[] = {"bench", "--memory-limit", (char *)value, NULL};
    return ff_bench_parse(3, argv, o, err, errlen);
}

Test(memory_limit, accepts_sizes)
{
    static const struct {
        const char *s;
        unsigned long long bytes;
    } good[] = {
        {"64M", 64ull << 20},    {"8G", 8ull << 30}, {"1.5GiB", 3ull << 29},  {"4096K", 4ull << 20},
        {"1048576", 1ull << 20}, {"2t", 2ull << 40}, {"512MB", 512ull << 20},
    };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        struct ff_bench_opts o;
        char err[512] = "";
        cr_assert_eq(parse(good[i].s, &o, err, sizeof(err)), 0, "%s: %s", good[i].s, err);
        cr_expect_eq(o.run.cfg.memory_limit_bytes, good[i].bytes, "%s", good[i].s);
    }
}

Test(memory_limit, rejects_bad_values)
{
    static const char *const bad[] = {
        "",    "abc", "-5",   "-1G",  "0",   "100", "1023K", "12X",   "8GB2",
        "nan", "inf", "1e30", "1e19", " 8G", "8 G", "G",     "0x10M", "8Gi",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct ff_bench_opts o;
        char err[512] = "";
        int ret = parse(bad[i], &o, err, sizeof(err));
        cr_expect_eq(ret, FF_ERR_INVALID, "'%s' was accepted", bad[i]);
        /* The message names the option and what it accepts. */
        cr_expect(strstr(err, "--memory-limit"), "'%s': %s", bad[i], err);
        cr_expect(strstr(err, "K, M, G, T"), "'%s': %s", bad[i], err);
    }
}

Test(memory_limit, missing_value)
{
    struct ff_bench_opts o;
    char err[512] = "";
    char *argv[] = {"bench", "--memory-limit", NULL};
    cr_expect_eq(ff_bench_parse(2, argv, &o, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(err[0]);
}

Test(memory_limit, default_is_from_the_host)
{
    struct ff_bench_opts o;
    char err[512] = "";
    char *argv[] = {"bench", NULL};
    cr_assert_eq(ff_bench_parse(1, argv, &o, err, sizeof(err)), 0, "%s", err);
    cr_expect_eq(o.run.cfg.memory_limit_bytes, 0);
}
