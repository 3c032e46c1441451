/*
 * tests/bench/families/test_probe_common.c — the probes' shared helpers without a
 * device: physical limits, the implausibility flag, patterns and checks.
 */
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>

#include "families/probe_common.h"

Test(probe_common, discrete_limit_is_10_tb_per_s)
{
    struct ff_device_info info = {0};
    char why[160];
    cr_expect_eq(ff_probe_bandwidth_limit(&info, why, sizeof(why)), 10e12);
    cr_expect(strstr(why, "10 TB/s"), "%s", why);
}

Test(probe_common, host_shared_limit_follows_the_host)
{
    struct ff_device_info info = {.host_shared_memory = true};
    char why[160];
    double lim = ff_probe_bandwidth_limit(&info, why, sizeof(why));
    double host = ff_probe_host_read_bw();
    cr_expect(lim >= 51.2e9 && lim < 10e12, "limit %g", lim);
    if (host > 0)
        cr_expect(lim >= 4 * host * 0.999, "limit %g, host %g", lim, host);
    cr_expect(strstr(why, "host memory"), "%s", why);
}

Test(probe_common, implausible_is_failed_not_published)
{
    struct ff_result r = {0};
    ff_result_set(&r, "bandwidth", "read", "flopfit");
    strcpy(r.unit, "B/s");
    r.status = FF_RES_OK;
    r.verified = true;
    r.value = 2e13;
    cr_expect(!ff_result_implausible(&r, 5e12, 10e12, "why"));
    cr_expect_eq(r.status, FF_RES_OK);
    cr_expect(ff_result_implausible(&r, 2e13, 10e12, "10 TB/s"));
    cr_expect_eq(r.status, FF_RES_FAILED);
    cr_expect_eq(r.value, 0);
    cr_expect(r.verified);
    cr_expect(strstr(r.reason, "implausible: 2e+13 B/s above limit 1e+13 B/s (10 TB/s)"), "%s",
              r.reason);
}

Test(probe_common, pattern_check_finds_every_flipped_word)
{
    enum { N = 10000 };
    static uint32_t w[N];
    ff_probe_pattern(w, N, 0xdeadbeef, 5000);
    cr_expect_eq(ff_probe_check_pattern(w, N, 0xdeadbeef, 5000), SIZE_MAX);
    cr_expect_eq(ff_probe_check_pattern(w, N, 0xdeadbeee, 5000), 0);
    for (size_t i = 0; i < N; i += 997) {
        w[i] ^= 1u << (i % 32);
        cr_expect_eq(ff_probe_check_pattern(w, N, 0xdeadbeef, 5000), i);
        w[i] ^= 1u << (i % 32);
    }
    w[N - 1] ^= 0x80000000u;
    cr_expect_eq(ff_probe_check_pattern(w, N, 0xdeadbeef, 5000), N - 1);
}

Test(probe_common, random_fills_and_diff)
{
    enum { N = 4097 };
    static uint32_t a[N], b[N];
    struct ff_rng rng;
    ff_rng_seed(&rng, 1);
    ff_probe_fill_random(a, N, &rng);
    size_t zeros = 0;
    for (size_t i = 0; i < N; i++)
        zeros += a[i] == 0;
    cr_expect(zeros < 4);
    memcpy(b, a, sizeof(a));
    cr_expect_eq(ff_probe_first_diff(a, b, N), SIZE_MAX);
    b[4096] ^= 4;
    cr_expect_eq(ff_probe_first_diff(a, b, N), 4096);
    float f[N];
    ff_probe_fill_floats(f, N, &rng);
    for (size_t i = 0; i < N; i++)
        cr_expect(f[i] >= -1.0f && f[i] < 1.0f);
}

Test(probe_common, scratch_respects_the_limit)
{
    struct ff_device_info info = {.global_mem_bytes = 8ull << 30};
    struct ff_bench_cfg cfg;
    ff_bench_cfg_defaults(&cfg);
    cr_expect_eq(ff_probe_scratch_bytes(&info, &cfg), 4ull << 30);
    cfg.memory_limit_bytes = 64ull << 20;
    cr_expect_eq(ff_probe_scratch_bytes(&info, &cfg), 64ull << 20);
}
