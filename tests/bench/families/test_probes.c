/*
 * tests/bench/families/test_probes.c — the memory, bandwidth, transfer, latency and peak
 * probes on a real device (PoCL on CI) with small limits, plus device faults
 * injected through a wrapping backend: a failed allocation, a corrupted
 * read-back, no memory at all. The wrapper counts live buffers and kernels,
 * so every test also proves the probes free all they create. Also the ops family's search
 * of the streaming ops' points.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../common.h"
#ifdef FF_TEST_VK_VALIDATION
#include "vulkan/vk_internal.h"
#endif
#include "backend_impl.h"
#include "families/bench.h"

#ifndef FF_TEST_BACKEND
#define FF_TEST_BACKEND "opencl"
#endif

#define MIB (1024ull * 1024)

/* ---- a backend that wraps the real one and injects faults -------------- */

static struct {
    const struct ff_backend *real;
    uint64_t fail_above_bytes; /* buf_create fails past this many live bytes; 0 = never */
    uint64_t corrupt_size;     /* reads from buffers of this size come back corrupted */
    bool fail_all;             /* every buf_create fails */
    bool fast_clock;           /* device time reads 1000x too short */
    int fail_create_status;    /* kernel_create of our matmul fails so; 0 = never */
    int fail_run_status;       /* kernel_run of our matmul fails so; 0 = never */
    uint64_t live_bytes;
    long live_bufs, live_kernels;
} fault;

static struct ff_backend_ops wrap_ops;
static const struct ff_backend wrap = {&wrap_ops};

static int w_buf_create(struct ff_device *dev, uint64_t bytes, struct ff_buf **out, char *err,
                        size_t errlen)
{
    if (fault.fail_all ||
        (fault.fail_above_bytes && fault.live_bytes + bytes > fault.fail_above_bytes))
        return ff_errf(err, errlen, FF_ERR_DEVICE_MEMORY, "injected: out of device memory");
    int ret = fault.real->ops->buf_create(dev, bytes, out, err, errlen);
    if (ret == FF_OK) {
        fault.live_bytes += bytes;
        fault.live_bufs++;
    }
    return ret;
}

static void w_buf_destroy(struct ff_buf *buf)
{
    fault.live_bytes -= buf->bytes;
    fault.live_bufs--;
    fault.real->ops->buf_destroy(buf);
}

static int w_buf_read(struct ff_buf *buf, uint64_t offset, void *dst, uint64_t bytes, char *err,
                      size_t errlen)
{
    int ret = fault.real->ops->buf_read(buf, offset, dst, bytes, err, errlen);
    if (ret == FF_OK && fault.corrupt_size && buf->bytes == fault.corrupt_size)
        ((unsigned char *)dst)[bytes / 2] ^= 0x10;
    return ret;
}

static int w_kernel_create(struct ff_device *dev, const struct ff_kernel_desc *desc,
                           struct ff_kernel **out, char *err, size_t errlen)
{
    if (fault.fail_create_status && desc->id == FF_KERNEL_MATMUL)
        return ff_errf(err, errlen, fault.fail_create_status, "injected: %s",
                       ff_status_str(fault.fail_create_status));
    int ret = fault.real->ops->kernel_create(dev, desc, out, err, errlen);
    if (ret == FF_OK)
        fault.live_kernels++;
    return ret;
}

static void w_kernel_destroy(struct ff_kernel *k)
{
    fault.live_kernels--;
    fault.real->ops->kernel_destroy(k);
}

static int w_kernel_run(struct ff_kernel *k, struct ff_buf *const *bufs, size_t n_bufs,
                        const uint32_t *params, size_t n_params, uint64_t *device_ns,
                        uint64_t *wall_ns, char *err, size_t errlen)
{
    if (fault.fail_run_status && k->desc.id == FF_KERNEL_MATMUL)
        return ff_errf(err, errlen, fault.fail_run_status, "injected: %s",
                       ff_status_str(fault.fail_run_status));
    int ret = fault.real->ops->kernel_run(k, bufs, n_bufs, params, n_params, device_ns, wall_ns,
                                          err, errlen);
    if (fault.fast_clock)
        *device_ns = *device_ns / 1000 + 1;
    return ret;
}

/* The chained runs of the op family (ff_kernel_run_sets), with the same faults. */
static int w_kernel_run_sets(struct ff_kernel *k, struct ff_buf *const *sets, size_t n_bufs,
                             size_t n_sets, const uint32_t *params, size_t n_params, uint32_t count,
                             uint64_t *device_ns, uint64_t *wall_ns, char *err, size_t errlen)
{
    if (fault.fail_run_status && k->desc.id == FF_KERNEL_MATMUL)
        return ff_errf(err, errlen, fault.fail_run_status, "injected: %s",
                       ff_status_str(fault.fail_run_status));
    int ret = fault.real->ops->kernel_run_sets(k, sets, n_bufs, n_sets, params, n_params, count,
                                               device_ns, wall_ns, err, errlen);
    if (fault.fast_clock)
        *device_ns = *device_ns / 1000 + 1;
    return ret;
}

/* Opens device 0 of the tested backend through the fault-injecting wrapper. */
static struct ff_device *open_wrapped(void)
{
    const struct ff_backend *real = ff_test_require_backend(FF_TEST_BACKEND);
    memset(&fault, 0, sizeof(fault));
    fault.real = real;
    wrap_ops = *fault.real->ops;
    wrap_ops.buf_create = w_buf_create;
    wrap_ops.buf_destroy = w_buf_destroy;
    wrap_ops.buf_read = w_buf_read;
    wrap_ops.kernel_create = w_kernel_create;
    wrap_ops.kernel_destroy = w_kernel_destroy;
    wrap_ops.kernel_run = w_kernel_run;
    if (fault.real->ops->kernel_run_sets)
        wrap_ops.kernel_run_sets = w_kernel_run_sets;
    struct ff_device *dev = NULL;
    char err[512] = "";
    cr_assert_eq(ff_device_open(&wrap, 0, &dev, err, sizeof(err)), FF_OK, "%s", err);
    return dev;
}

static void close_wrapped(struct ff_device **dev)
{
    cr_expect_eq(fault.live_bufs, 0, "%ld buffers leaked", fault.live_bufs);
    cr_expect_eq(fault.live_bytes, 0);
    cr_expect_eq(fault.live_kernels, 0, "%ld kernels leaked", fault.live_kernels);
    ff_device_destroy(dev);
#ifdef FF_TEST_VK_VALIDATION
    /* The Khronos validation layer watched every Vulkan call of the probe. */
    char last[512] = "";
    ff_vk_validation_last(last, sizeof(last));
    cr_expect_eq(ff_vk_validation_errors(), 0, "validation errors: %llu, last: %s",
                 (unsigned long long)ff_vk_validation_errors(), last);
    if (ff_test_in_ci())
        cr_expect(ff_vk_validation_active(), "CI=true but the validation layer is not active");
#endif
}

static void small_cfg(struct ff_bench_cfg *cfg, uint64_t limit)
{
    ff_bench_cfg_defaults(cfg);
    cfg->quick = true;
    cfg->progress = NULL;
    cfg->memory_limit_bytes = limit;
    cfg->measure.budget_s = 0.05;
    cfg->measure.min_reps = 2;
    cfg->measure.max_reps = 5;
    cfg->seed = 12345;
}

static const struct ff_result *find(const struct ff_run *p, const char *family, const char *name)
{
    for (size_t i = 0; i < p->n_results; i++)
        if (!strcmp(p->results[i].family, family) && !strcmp(p->results[i].name, name))
            return &p->results[i];
    cr_assert_fail("no %s/%s result", family, name);
    return NULL;
}

static double extra(const struct ff_result *r, const char *key)
{
    for (size_t i = 0; i < r->n_extra; i++)
        if (!strcmp(r->extra[i].key, key))
            return r->extra[i].value;
    cr_assert_fail("result %s/%s has no %s", r->family, r->name, key);
    return NAN;
}

static bool has_extra(const struct ff_result *r, const char *key)
{
    for (size_t i = 0; i < r->n_extra; i++)
        if (!strcmp(r->extra[i].key, key))
            return true;
    return false;
}

/* ---- the probes on the real device -------------------------------------- */

Test(probes, latency)
{
    struct ff_device *dev = open_wrapped();
    struct ff_bench_cfg cfg;
    small_cfg(&cfg, 64 * MIB);
    struct ff_run p = {0};
    ff_probe_latency(dev, &cfg, &p);
    cr_assert_eq(p.n_results, 3);
    /* what a launch adds in a chain of dependent launches: the slope of 16 to 256 of them */
    const struct ff_result *chain = find(&p, "latency", "dispatch");
    cr_assert_eq(chain->status, FF_RES_OK, "dispatch: %s", chain->reason);
    cr_expect_str_eq(chain->unit, "s");
    cr_expect(chain->value > 0 && chain->value < 1, "dispatch = %g s", chain->value);
    const char *names[] = {"launch", "roundtrip"};
    for (int i = 0; i < 2; i++) {
        const struct ff_result *r = find(&p, "latency", names[i]);
        cr_assert_eq(r->status, FF_RES_OK, "%s: %s", names[i], r->reason);
        cr_expect_str_eq(r->unit, "s");
        cr_expect(r->value > 0 && r->value < 1, "%s = %g s", names[i], r->value);
        cr_expect(r->has_timing && r->t.reps >= 2);
    }
    cr_expect(find(&p, "latency", "launch")->value <=
                  2 * find(&p, "latency", "roundtrip")->value + 1e-3,
              "device time of an empty kernel exceeds its round trip");
    ff_run_finish(&p);
    close_wrapped(&dev);
}

/* A backend that cannot chain launches says so; the other latency figures stand. */
Test(probes, latency_without_chains)
{
    struct ff_device *dev = open_wrapped();
    wrap_ops.kernel_run_chain = NULL;
    struct ff_bench_cfg cfg;
    small_cfg(&cfg, 64 * MIB);
    struct ff_run p = {0};
    ff_probe_latency(dev, &cfg, &p);
    cr_assert_eq(p.n_results, 3);
    const struct ff_result *chain = find(&p, "latency", "dispatch");
    cr_expect_eq(chain->status, FF_RES_UNSUPPORTED);
    cr_expect(strstr(chain->reason, "chain"), "%s", chain->reason);
    cr_expect_eq(find(&p, "latency", "launch")->status, FF_RES_OK);
    ff_run_finish(&p);
    close_wrapped(&dev);
}

Test(probes, transfer)
{
    struct ff_device *dev = open_wrapped();
    struct ff_bench_cfg cfg;
    small_cfg(&cfg, 64 * MIB);
    struct ff_run p = {0};
    ff_probe_transfer(dev, &cfg, &p);
    cr_assert_eq(p.n_results, 4);
    const char *names[] = {"upload_pageable", "download_pageable", "upload_pinned",
                           "download_pinned"};
    int ok = 0;
    for (int i = 0; i < 4; i++) {
        const struct ff_result *r = find(&p, "transfer", names[i]);
        cr_expect_str_eq(r->unit, "B/s");
        cr_expect(r->bytes > 0 && r->bytes <= 16 * MIB, "%s moved %llu bytes", names[i],
                  (unsigned long long)r->bytes);
        if (r->status == FF_RES_UNSUPPORTED) {
            cr_expect(r->reason[0], "%s unsupported without a reason", names[i]);
            continue;
        }
        cr_expect_eq(r->status, FF_RES_OK, "%s: %s", names[i], r->reason);
        cr_expect(r->verified, "%s not verified", names[i]);
        cr_expect(r->value > 1e6, "%s = %g B/s", names[i], r->value);
        ok++;
    }
    cr_expect(ok >= 2, "pageable transfers must work on every backend");
    ff_run_finish(&p);
    close_wrapped(&dev);
}

Test(probes, bandwidth)
{
    struct ff_device *dev = open_wrapped();
    struct ff_bench_cfg cfg;
    small_cfg(&cfg, 192 * MIB);
    struct ff_run p = {0};
    ff_probe_bandwidth(dev, &cfg, &p);
    cr_assert_eq(p.n_results, 4);
    const char *names[] = {"read", "write", "copy", "triad"};
    for (int i = 0; i < 4; i++) {
        const struct ff_result *r = find(&p, "bandwidth", names[i]);
        cr_expect_str_eq(r->unit, "B/s");
        /* A figure above the physical limit is flagged, never published. */
        bool implausible = r->status == FF_RES_FAILED && !strncmp(r->reason, "implausible", 11);
        cr_expect(r->status == FF_RES_OK || implausible, "%s: %s", names[i], r->reason);
        cr_expect(r->verified, "%s: %s", names[i], r->reason);
        cr_expect(r->bytes > 0);
        if (r->status == FF_RES_OK) {
            cr_expect(r->value > 1e8 && r->value <= extra(r, "limit_bytes_per_s"), "%s = %g",
                      names[i], r->value);
        }
        /* 3 buffers under the 192 MiB limit */
        cr_expect(r->bytes <= (i == 3 ? 3 : i == 2 ? 2 : 1) * 64 * MIB + 4 * MIB);
    }
    ff_run_finish(&p);
    close_wrapped(&dev);
}

Test(probes, memory_capped_by_limit)
{
    struct ff_device *dev = open_wrapped();
    struct ff_bench_cfg cfg;
    small_cfg(&cfg, 64 * MIB);
    struct ff_run p = {0};
    ff_probe_memory(dev, &cfg, &p);
    cr_assert_eq(p.n_results, 1);
    const struct ff_result *r = find(&p, "memory", "usable");
    cr_assert_eq(r->status, FF_RES_OK, "%s", r->reason);
    cr_expect(r->verified);
    cr_expect_str_eq(r->unit, "B");
    cr_expect_eq(r->value, 64.0 * MIB);
    cr_expect_eq(extra(r, "cap_bytes"), 64.0 * MIB);
    cr_expect_eq(extra(r, "capped"), 1.0);
    double reported = extra(r, "reported_bytes");
    cr_expect_eq(reported, (double)ff_device_info(dev)->global_mem_bytes);
    cr_expect_eq(extra(r, "difference_bytes"), 64.0 * MIB - reported);
    cr_expect(strstr(r->variant, "--memory-limit"), "variant: %s", r->variant);
    ff_run_finish(&p);
    close_wrapped(&dev);
}

Test(probes, memory_allocation_fails_midway)
{
    struct ff_device *dev = open_wrapped();
    fault.fail_above_bytes = 40 * MIB;
    struct ff_bench_cfg cfg;
    small_cfg(&cfg, 64 * MIB);
    struct ff_run p = {0};
    ff_probe_memory(dev, &cfg, &p);
    const struct ff_result *r = find(&p, "memory", "usable");
    /* 16 MiB chunks: two pass, the third fails, bisection finds the last 8 MiB. */
    cr_assert_eq(r->status, FF_RES_OK, "%s", r->reason);
    cr_expect_eq(r->value, 40.0 * MIB);
    cr_expect_eq(extra(r, "capped"), 0.0);
    cr_expect(strstr(r->variant, "injected"), "the stop reason is said: %s", r->variant);
    ff_run_finish(&p);
    close_wrapped(&dev);
}

Test(probes, memory_corrupt_readback_not_counted)
{
    struct ff_device *dev = open_wrapped();
    fault.corrupt_size = 16 * MIB; /* every full-size chunk reads back wrong */
    struct ff_bench_cfg cfg;
    small_cfg(&cfg, 64 * MIB);
    struct ff_run p = {0};
    ff_probe_memory(dev, &cfg, &p);
    const struct ff_result *r = find(&p, "memory", "usable");
    /* Bisection moves on to 8 MiB chunks, which read back intact. */
    cr_assert_eq(r->status, FF_RES_OK, "%s", r->reason);
    cr_expect_eq(r->value, 64.0 * MIB);
    ff_run_finish(&p);
    close_wrapped(&dev);
}

Test(probes, memory_nothing_allocates)
{
    struct ff_device *dev = open_wrapped();
    fault.fail_all = true;
    struct ff_bench_cfg cfg;
    small_cfg(&cfg, 64 * MIB);
    struct ff_run p = {0};
    ff_probe_memory(dev, &cfg, &p);
    const struct ff_result *r = find(&p, "memory", "usable");
    cr_expect_eq(r->status, FF_RES_FAILED);
    cr_expect(strstr(r->reason, "injected"), "reason: %s", r->reason);
    cr_expect(!r->verified);
    cr_expect(!has_extra(r, "difference_bytes"));
    ff_run_finish(&p);

    /* The other probes fail their tests cleanly too. */
    ff_probe_bandwidth(dev, &cfg, &p);
    ff_probe_transfer(dev, &cfg, &p);
    cr_assert_eq(p.n_results, 8);
    for (size_t i = 0; i < p.n_results; i++)
        cr_expect_eq(p.results[i].status, FF_RES_FAILED, "%s/%s", p.results[i].family,
                     p.results[i].name);
    ff_run_finish(&p);
    close_wrapped(&dev);
}

Test(probes, memory_host_cap)
{
    /* Without --memory-limit a host-shared device is capped from the host's memory. */
    struct ff_device *dev = open_wrapped();
    if (!ff_device_info(dev)->host_shared_memory) {
        close_wrapped(&dev);
        cr_skip_test("device memory is not host memory");
    }
    fault.fail_above_bytes = 48 * MIB; /* keep the test small: the "device" ends first */
    /* 32 MiB chunks under the 512 MiB quick cap: 32 + 16 pass, bisection ends at 2 MiB. */
    struct ff_bench_cfg cfg;
    small_cfg(&cfg, 0);
    struct ff_run p = {0};
    ff_probe_memory(dev, &cfg, &p);
    const struct ff_result *r = find(&p, "memory", "usable");
    cr_assert_eq(r->status, FF_RES_OK, "%s", r->reason);
    cr_expect_eq(r->value, 48.0 * MIB);
    double cap = extra(r, "cap_bytes");
    cr_expect(cap > 0 && cap <= 512.0 * MIB, "quick caps at 512 MiB, got %g", cap);
    ff_run_finish(&p);
    close_wrapped(&dev);
}

Test(probes, bandwidth_above_physical_limit_is_flagged)
{
    /* A clock that runs 1000x slow makes every figure absurd: none may be published. */
    struct ff_device *dev = open_wrapped();
    fault.fast_clock = true;
    struct ff_bench_cfg cfg;
    small_cfg(&cfg, 192 * MIB);
    struct ff_run p = {0};
    ff_probe_bandwidth(dev, &cfg, &p);
    cr_assert_eq(p.n_results, 4);
    for (size_t i = 0; i < p.n_results; i++) {
        const struct ff_result *r = &p.results[i];
        cr_expect_eq(r->status, FF_RES_FAILED, "%s published %g B/s", r->name, r->value);
        cr_expect(!strncmp(r->reason, "implausible: ", 13), "%s: %s", r->name, r->reason);
        cr_expect(strstr(r->reason, "above limit"), "%s: %s", r->name, r->reason);
        cr_expect(r->verified, "the data itself was right");
    }
    ff_run_finish(&p);
    close_wrapped(&dev);
}

/* The same for the op family, chained (OpenCL) or one launch at a time (Vulkan): a figure
 * above the read bandwidth's physical limit is failed as implausible, though verified. */
Test(probes, op_above_physical_limit_is_flagged)
{
    struct ff_device *dev = open_wrapped();
    fault.fast_clock = true;
    struct ff_bench_cfg cfg;
    small_cfg(&cfg, 256 * MIB);
    static const struct ff_bench_op ops[] = {
        {{.id = FF_KERNEL_GEMV, .prec = FF_PREC_Q8_0, .m = 1, .n = 1024, .k = 1024}, "test"},
        {{.id = FF_KERNEL_RMSNORM, .prec = FF_PREC_FP32, .m = 64, .n = 4096}, "test"},
    };
    cfg.ops = ops;
    cfg.n_ops = 2;
    cfg.no_tune = true;
    struct ff_run p = {0};
    ff_suite_ops(dev, &cfg, &p);
    cr_assert_eq(p.n_results, 2);
    for (size_t i = 0; i < p.n_results; i++) {
        const struct ff_result *r = &p.results[i];
        cr_expect_eq(r->status, FF_RES_FAILED, "%s published %g B/s", r->name, r->value);
        cr_expect(!strncmp(r->reason, "implausible: ", 13), "%s: %s", r->name, r->reason);
        cr_expect(r->verified, "%s: the data itself was right", r->name);
        if (fault.real->ops->kernel_run_sets)
            cr_expect(strstr(r->variant, "timed in chains of 8 launches"), "%s", r->variant);
    }
    ff_run_finish(&p);
    close_wrapped(&dev);
}

/* Device faults in the matmul suite: that test fails with its reason, the run goes on. */
static void matmul_fault(int *field, int status, const char *expect)
{
    struct ff_device *dev = open_wrapped();
    *field = status;
    struct ff_bench_cfg cfg;
    ff_bench_cfg_defaults(&cfg);
    cfg.prec[FF_PREC_FP16] = false;
    cfg.sizes[0] = 64;
    cfg.sizes[1] = 96;
    cfg.n_sizes = 2;
    cfg.sizes_given = true;
    cfg.measure.min_reps = 1;
    cfg.measure.budget_s = 0.001;
    struct ff_run p = {0};
    ff_suite_matmul(dev, &cfg, &p);
    int failed = 0, other_ok = 0;
    for (size_t i = 0; i < p.n_results; i++) {
        const struct ff_result *r = &p.results[i];
        if (strcmp(r->impl, "flopfit") == 0) {
            cr_expect_eq(r->status, FF_RES_FAILED, "%s", r->reason);
            cr_expect(strstr(r->reason, expect), "reason '%s' lacks '%s'", r->reason, expect);
            cr_expect_not(r->verified);
            failed++;
        } else if (r->status == FF_RES_OK) {
            other_ok++;
        }
    }
    /* fp32 and int8: after a failure at 64 the larger size is not attempted. */
    cr_expect_eq(failed, 2, "%d failed results", failed);
    if (strcmp(FF_TEST_BACKEND, "opencl") == 0)
        cr_expect_geq(other_ok, 2, "CLBlast must still run after our kernel failed");
    ff_run_finish(&p);
    close_wrapped(&dev);
}

Test(probes, matmul_build_failure_fails_that_test_only)
{
    matmul_fault(&fault.fail_create_status, FF_ERR_BUILD, "kernel build failed");
}

Test(probes, matmul_device_lost_fails_that_test_only)
{
    matmul_fault(&fault.fail_run_status, FF_ERR_DEVICE_LOST, "device lost");
}

/* ---- the arithmetic peak (family peak) ------------------------------------ */

Test(probes, peak_verifies_and_reports)
{
    struct ff_device *dev = open_wrapped();
    struct ff_bench_cfg cfg;
    small_cfg(&cfg, 64 * MIB);
    struct ff_run p = {0};
    ff_suite_peak(dev, &cfg, &p);
    cr_assert_eq(p.n_results, 3, "one result per precision with a kernel, got %zu", p.n_results);
    for (size_t i = 0; i < p.n_results; i++) {
        const struct ff_result *r = &p.results[i];
        cr_expect_str_eq(r->family, "peak");
        cr_expect_str_eq(r->name, "peak");
        cr_expect_str_eq(r->impl, "flopfit");
        cr_assert(r->prec >= 0);
        cr_expect_str_eq(r->unit, r->prec == FF_PREC_INT8 ? "OP/s" : "FLOP/s");
        if (r->prec == FF_PREC_FP16 && r->status == FF_RES_UNSUPPORTED) {
            /* PoCL has no cl_khr_fp16: a reason, never a figure */
            cr_expect(strstr(r->reason, "fp16") != NULL, "reason: %s", r->reason);
            continue;
        }
        cr_assert_eq(r->status, FF_RES_OK, "%s: %s", ff_precision_name(r->prec), r->reason);
        cr_expect(r->verified && r->has_timing && r->t.reps >= 2);
        cr_expect(r->value > 1e6 && r->value < 1e16, "%s peak = %g", ff_precision_name(r->prec),
                  r->value);
    }
    ff_run_finish(&p);
    close_wrapped(&dev);
}

/* The device's chains against the host's: the right chain matches, a different one (one step
 * more, other operands) and a flipped word do not. */
Test(probes, peak_wrong_chain_is_caught)
{
    struct ff_device *dev = open_wrapped();
    const enum ff_precision precs[] = {FF_PREC_FP32, FF_PREC_INT8};
    for (int pi = 0; pi < 2; pi++) {
        enum ff_precision prec = precs[pi];
        char err[512] = "";
        struct ff_kernel_desc desc = {.id = FF_KERNEL_PEAK, .prec = prec, .n = 128};
        struct ff_kernel *k = NULL;
        cr_assert_eq(ff_kernel_create(dev, &desc, &k, err, sizeof(err)), FF_OK, "%s", err);
        uint64_t words = ff_kernel_out_words(k);
        cr_assert(words >= 128 && words % 128 == 0, "%llu words", (unsigned long long)words);
        struct ff_buf *out = NULL;
        cr_assert_eq(ff_buf_create(dev, words * 4, &out, err, sizeof(err)), FF_OK, "%s", err);
        float one = 1.0f;
        uint32_t a = 3, b = 0xfb, iters = 100;
        if (prec == FF_PREC_FP32) {
            memcpy(&a, &one, 4);
            memcpy(&b, &one, 4);
        }
        uint32_t params[3] = {iters, a, b};
        cr_assert_eq(ff_kernel_run(k, &out, 1, params, 3, NULL, NULL, err, sizeof(err)), FF_OK,
                     "%s", err);
        uint32_t *host = malloc(words * 4);
        cr_assert(host);
        cr_assert_eq(ff_buf_read(out, 0, host, words * 4, err, sizeof(err)), FF_OK, "%s", err);
        cr_expect_eq(
            ff_peak_check(prec, ff_kernel_peak_op(k), host, words, iters, a, b, err, sizeof(err)),
            FF_OK, "%s: %s", ff_precision_name(prec), err);
        cr_expect_eq(host[5], ff_peak_ref(prec, ff_kernel_peak_op(k), 5, iters, a, b));
        cr_expect_eq(ff_peak_check(prec, ff_kernel_peak_op(k), host, words, iters + 1, a, b, err,
                                   sizeof(err)),
                     FF_ERR_VERIFY, "%s: one step more must not match", ff_precision_name(prec));
        cr_expect(strstr(err, "lane") != NULL, "%s", err);
        float two = 2.0f;
        uint32_t other_b = 7; /* int8: +7 instead of -5; fp32: 2.0 instead of 1.0 */
        if (prec == FF_PREC_FP32)
            memcpy(&other_b, &two, 4);
        cr_expect_eq(ff_peak_check(prec, ff_kernel_peak_op(k), host, words, iters, a, other_b, err,
                                   sizeof(err)),
                     FF_ERR_VERIFY, "%s: another addend must not match", ff_precision_name(prec));
        host[words - 1] ^= 0x10; /* the last lane is always checked */
        cr_expect_eq(
            ff_peak_check(prec, ff_kernel_peak_op(k), host, words, iters, a, b, err, sizeof(err)),
            FF_ERR_VERIFY, "%s: a flipped word must not match", ff_precision_name(prec));
        free(host);
        ff_buf_destroy(&out);
        ff_kernel_destroy(&k);
    }
    close_wrapped(&dev);
}

/* A corrupted read-back of the peak's output fails the test: no figure is published. */
Test(probes, peak_corrupt_readback_fails)
{
    struct ff_device *dev = open_wrapped();
    char err[512] = "";
    struct ff_kernel_desc desc = {.id = FF_KERNEL_PEAK, .prec = FF_PREC_FP32, .n = 1024};
    struct ff_kernel *k = NULL;
    cr_assert_eq(ff_kernel_create(dev, &desc, &k, err, sizeof(err)), FF_OK, "%s", err);
    fault.corrupt_size = ff_kernel_out_words(k) * 4; /* the suite's first (sizing) launch */
    ff_kernel_destroy(&k);
    struct ff_bench_cfg cfg;
    small_cfg(&cfg, 64 * MIB);
    memset(cfg.prec, 0, sizeof(cfg.prec));
    cfg.prec[FF_PREC_FP32] = true;
    struct ff_run p = {0};
    ff_suite_peak(dev, &cfg, &p);
    cr_assert_eq(p.n_results, 1);
    cr_expect_eq(p.results[0].status, FF_RES_FAILED);
    cr_expect(!p.results[0].verified);
    cr_expect(strstr(p.results[0].reason, "lane") != NULL, "reason: %s", p.results[0].reason);
    ff_run_finish(&p);
    close_wrapped(&dev);
}

/* The ops family searches the streaming ops' points once per kernel and format in the run
 * (verified candidates only) and builds every later shape of that format with the point found
 * (decode attention's searched at its longer context, with inputs of its own, while the
 * shorter runs); --no-tune keeps the backend's defaults. */
Test(probes, ops_search_once_per_format)
{
    struct ff_device *dev = open_wrapped();
    struct ff_bench_cfg cfg;
    small_cfg(&cfg, 256 * MIB);
    static const struct ff_bench_op ops[] = {
        {{.id = FF_KERNEL_GEMV, .prec = FF_PREC_Q8_0, .m = 1, .n = 512, .k = 512}, "test"},
        {{.id = FF_KERNEL_GEMV, .prec = FF_PREC_Q8_0, .m = 1, .n = 1024, .k = 512}, "test"},
        {{.id = FF_KERNEL_ATTN_DECODE, .prec = FF_PREC_FP16, .m = 8, .n = 40, .k = 64, .g = 2},
         "test"},
        {{.id = FF_KERNEL_ATTN_DECODE, .prec = FF_PREC_FP16, .m = 8, .n = 256, .k = 64, .g = 2},
         "test"},
    };
    const size_t n = sizeof(ops) / sizeof(ops[0]);
    cfg.ops = ops;
    cfg.n_ops = n;
    for (int no_tune = 0; no_tune < 2; no_tune++) {
        cfg.no_tune = no_tune;
        struct ff_run p = {0};
        ff_suite_ops(dev, &cfg, &p);
        cr_assert_eq(p.n_results, n);
        for (size_t i = 0; i < n; i++) {
            const struct ff_result *r = &p.results[i];
            cr_expect(r->status == FF_RES_OK && r->verified, "%s: %s", r->name, r->reason);
            if (no_tune) {
                cr_expect_str_eq(r->tune_source, "", "%s", r->name);
            } else {
                cr_expect_str_eq(r->tune_source, "tune", "%s", r->name);
                cr_expect(r->tune_point[0], "%s: no point recorded", r->name);
            }
        }
        cr_expect_str_eq(p.results[0].tune_point, p.results[1].tune_point, "one search per format");
        cr_expect_str_eq(p.results[2].tune_point, p.results[3].tune_point, "one search per format");
        ff_run_finish(&p);
    }
    close_wrapped(&dev);
}

/* The generic grid (`--only ops`) holds every format the estimator takes by default, quick or
 * not, since it interpolates only within a format and kind: bf16 mat-vecs and KV (its default
 * precision), fp16 KV (GGUF's), q4_0 and q8_0 mat-vecs, the fp16 GEMM of a 16-bit model, the
 * int8 GEMM of int8 and GGUF weights; and it fits the family's table. */
Test(probes, ops_grid_covers_the_estimators_defaults)
{
    static const struct {
        enum ff_kernel_id id;
        enum ff_precision prec;
    } need[] = {
        {FF_KERNEL_GEMV, FF_PREC_BF16},         {FF_KERNEL_GEMV, FF_PREC_Q4_0},
        {FF_KERNEL_GEMV, FF_PREC_Q8_0},         {FF_KERNEL_ATTN_DECODE, FF_PREC_BF16},
        {FF_KERNEL_ATTN_DECODE, FF_PREC_FP16},  {FF_KERNEL_ATTN_PREFILL, FF_PREC_BF16},
        {FF_KERNEL_ATTN_PREFILL, FF_PREC_FP16}, {FF_KERNEL_MATMUL, FF_PREC_FP16},
        {FF_KERNEL_MATMUL, FF_PREC_FP32},       {FF_KERNEL_MATMUL, FF_PREC_INT8},
    };
    for (int quick = 0; quick < 2; quick++) {
        struct ff_bench_op grid[129];
        size_t n = ff_suite_ops_grid(quick, grid, 129);
        cr_expect(n > 0 && n < 128, "quick %d: %zu shapes (the family holds 128)", quick, n);
        for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
            size_t found = 0;
            for (size_t j = 0; j < n; j++)
                found += grid[j].desc.id == need[i].id && grid[j].desc.prec == need[i].prec;
            cr_expect(found > 0, "quick %d: kernel %d in %s missing", quick, (int)need[i].id,
                      ff_precision_name(need[i].prec));
        }
    }
}

/* The ops family searches decode attention at the longest context of its format that the
 * device can hold (the shortest, first in a model's run, is all fixed costs); gemv at the shape
 * being run. */
Test(probes, decode_search_shape_is_the_longest_context_that_fits)
{
/* Llama-3-8B's decode attention (32 query heads of 128, GQA 4) over n positions, as the
 * members of a descriptor */
#define DECODE(prec_, n_)                                                                          \
    .id = FF_KERNEL_ATTN_DECODE, .prec = (prec_), .m = 32, .n = (n_), .k = 128, .g = 4
    const struct ff_bench_op ops[] = {
        {.desc = {DECODE(FF_PREC_BF16, 64)}},
        {.desc = {.id = FF_KERNEL_GEMV, .prec = FF_PREC_BF16, .m = 1, .n = 4096, .k = 4096}},
        {.desc = {DECODE(FF_PREC_BF16, 2048)}},
        {.desc = {DECODE(FF_PREC_FP16, 8192)}},
        {.desc = {DECODE(FF_PREC_BF16, 512)}},
    };
#undef DECODE
    const size_t n = sizeof(ops) / sizeof(ops[0]);
    cr_expect_eq(ff_suite_ops_search_at(ops, n, &ops[0].desc, 0), 2);
    cr_expect_eq(ff_suite_ops_search_at(ops, n, &ops[4].desc, 0), 2);
    cr_expect_eq(ff_suite_ops_search_at(ops, n, &ops[3].desc, 0), 3, "fp16: its own format");
    /* K of 2048 positions x 8 KV heads x 128 x 2 bytes = 4 MiB: over a 2 MiB limit */
    cr_expect_eq(ff_suite_ops_search_at(ops, n, &ops[0].desc, 2u << 20), 4);
    cr_expect_eq(ff_suite_ops_search_at(ops, n, &ops[0].desc, 1024), n, "none fits");
    cr_expect_eq(ff_suite_ops_search_at(ops, n, &ops[1].desc, 0), n, "gemv: the shape run");
}
