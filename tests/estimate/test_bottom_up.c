/*
 * tests/estimate/test_bottom_up.c — op tests in a profile and the bottom-up estimate
 * (flopfit/estimate.h ff_est_bottom_up, ff_op_time): data/profile-ops.json holds a GPU-like
 * device (1 TB/s read, 200 TFLOP/s fp16, 5 us launches) with Llama-2-7B's fp16 attn_out and
 * ffn_gate_up GEMVs, a norm and one prefill GEMM timed, plus three bad op entries;
 * profile-ops-none.json is the same profile without op tests.
 */
#include <math.h>
#include <string.h>

#include "../common.h"

static struct ff_spec profile(const char *name)
{
    struct ff_spec d;
    ff_spec_init(&d);
    char path[512], err[512] = "";
    snprintf(path, sizeof(path), "%s/%s", FF_TEST_DATA, name);
    cr_assert_eq(ff_spec_from_profile(path, &d, err, sizeof(err)), FF_OK, "%s", err);
    return d;
}

/* ff_est_run, then ff_est_bottom_up of the same plan, both asserted to succeed. */
static void run_both(const struct ff_model *m, const struct ff_spec *d, const struct ff_plan *p,
                     struct ff_estimate *e, struct ff_bottom_up *b)
{
    char err[512] = "";
    ff_estimate_init(e);
    cr_assert_eq(ff_est_run(m, d, p, e, err, sizeof(err)), FF_OK, "%s", err);
    ff_bottom_up_init(b);
    cr_assert_eq(ff_est_bottom_up(m, d, p, e, b, err, sizeof(err)), FF_OK, "%s", err);
}

static struct ff_plan serve_plan(void)
{
    struct ff_plan p;
    ff_plan_init(&p);
    p.task = FF_TASK_SERVE;
    p.precision = FF_PREC_FP16;
    p.gpus = 1;
    p.prompt = 512;
    p.generate = 256;
    return p;
}

Test(bottom_up, profile_op_tests_are_read_and_bad_ones_noted)
{
    struct ff_spec d = profile("profile-ops.json");
    /* two gemv shapes (the repeated one keeps its faster median), rmsnorm, gemm */
    cr_expect_eq(d.n_ops, 4, "%zu ops", d.n_ops);
    cr_expect_float_eq(d.launch_s, 5e-6, 1e-12);
    cr_expect_eq(d.ops_ignored, 3, "unknown name, zero shape, wrong bytes");
    cr_expect(strstr(d.notes, "unknown op name"), "%s", d.notes);
    cr_expect(strstr(d.notes, "zero or missing shape"), "%s", d.notes);
    cr_expect(strstr(d.notes, "bytes disagreeing"), "%s", d.notes);
    bool kept_fastest = false;
    for (size_t i = 0; i < d.n_ops; i++)
        if (d.ops[i].kind == FF_OP_GEMV && d.ops[i].n == 4096) {
            cr_expect_float_eq(d.ops[i].seconds, 4.2e-5, 1e-12);
            cr_expect_float_eq(d.ops[i].bytes, 33587200.0, 1e-3);
            kept_fastest = true;
        }
    cr_expect(kept_fastest);
    struct ff_spec none = profile("profile-ops-none.json");
    cr_expect_eq(none.n_ops, 0);
    cr_expect_eq(none.ops_ignored, 0);
}

Test(bottom_up, a_negative_time_refuses_the_profile)
{
    struct ff_spec d;
    ff_spec_init(&d);
    char err[512] = "";
    cr_expect_eq(
        ff_spec_from_profile(FF_TEST_DATA "/profile-ops-negative.json", &d, err, sizeof(err)),
        FF_ERR_INVALID);
    cr_expect(strstr(err, "device_time_s.median"), "%s", err);
}

Test(bottom_up, sources_measured_interpolated_constant)
{
    struct ff_spec d = profile("profile-ops.json");
    struct ff_plan p = serve_plan();
    double t;
    enum ff_op_source src;
    struct ff_op attn_out = {FF_OP_GEMV, FF_PREC_FP16, 1, 4096, 4096, 0, 32, "attn_out"};
    cr_assert_eq(ff_op_time(&d, &p, NULL, &attn_out, &t, &src), FF_OK);
    cr_expect_eq(src, FF_OP_SOURCE_MEASURED);
    cr_expect_float_eq(t, 4.2e-5, 1e-15);
    /* ffn_down moves exactly ffn_gate_up's bytes in another shape: interpolated, the same. */
    struct ff_op down = {FF_OP_GEMV, FF_PREC_FP16, 1, 4096, 11008, 0, 32, "ffn_down"};
    cr_assert_eq(ff_op_time(&d, &p, NULL, &down, &t, &src), FF_OK);
    cr_expect_eq(src, FF_OP_SOURCE_INTERPOLATED);
    cr_expect_float_eq(t, 1.05e-4, 1e-12);
    /* the head (262 MB, 2.9x the largest measured): extrapolated at least at the largest
     * shape's throughput */
    struct ff_op head = {FF_OP_GEMV, FF_PREC_FP16, 1, 32000, 4096, 0, 1, "head"};
    cr_assert_eq(ff_op_time(&d, &p, NULL, &head, &t, &src), FF_OK);
    cr_expect_eq(src, FF_OP_SOURCE_INTERPOLATED);
    cr_expect(t >= 1.05e-4 * ff_op_bytes(&head) / 90237952.0 * (1 - 1e-12), "%g", t);
    /* 10x beyond: a constant, bytes / 1 TB/s */
    struct ff_op far = {FF_OP_GEMV, FF_PREC_FP16, 64, 131072, 8192, 0, 1, "far"};
    cr_assert_eq(ff_op_time(&d, &p, NULL, &far, &t, &src), FF_OK);
    cr_expect_eq(src, FF_OP_SOURCE_CONSTANT);
    /* no attention test at all (the one there is unsupported): constant, KV bytes at the
     * measured read bandwidth (a profile's fraction is 1) */
    struct ff_op attn = {FF_OP_ATTN_DECODE, FF_PREC_FP16, 32, 640, 128, 1, 32, "attn"};
    cr_assert_eq(ff_op_time(&d, &p, NULL, &attn, &t, &src), FF_OK);
    cr_expect_eq(src, FF_OP_SOURCE_CONSTANT);
    cr_expect_float_eq(t, ff_op_bytes(&attn) / 1e12, 1e-15);
    /* another format of a measured shape is not that measurement */
    struct ff_op q4 = attn_out;
    q4.prec = FF_PREC_Q4_0;
    cr_assert_eq(ff_op_time(&d, &p, NULL, &q4, &t, &src), FF_OK);
    cr_expect_eq(src, FF_OP_SOURCE_CONSTANT);
    /* a GEMM of the measured one's FLOPs x 2: interpolated at its rate */
    struct ff_op gemm = {FF_OP_GEMM, FF_PREC_FP16, 1024, 4096, 4096, 0, 32, "qkv"};
    cr_assert_eq(ff_op_time(&d, &p, NULL, &gemm, &t, &src), FF_OK);
    cr_expect_eq(src, FF_OP_SOURCE_INTERPOLATED);
    cr_expect_float_eq(t, 2.4e-4, 1e-12);
    struct ff_op bad = attn_out;
    bad.kind = FF_OP_KIND_COUNT;
    cr_expect_eq(ff_op_time(&d, &p, NULL, &bad, &t, &src), FF_ERR_INVALID);
}

Test(bottom_up, interpolation_is_monotone_and_exact_at_the_points)
{
    struct ff_spec d = profile("profile-ops.json");
    struct ff_plan p = serve_plan();
    double last = 0.0;
    for (uint32_t n = 1024; n <= 40000; n += 256) {
        struct ff_op o = {FF_OP_GEMV, FF_PREC_FP16, 1, n, 4096, 0, 1, "sweep"};
        double t;
        enum ff_op_source src;
        cr_assert_eq(ff_op_time(&d, &p, NULL, &o, &t, &src), FF_OK);
        cr_expect(t >= last, "n %u: %g after %g", n, t, last);
        if (n == 4096)
            cr_expect(src == FF_OP_SOURCE_MEASURED && t == 4.2e-5);
        if (n == 11008)
            cr_expect(src == FF_OP_SOURCE_MEASURED && t == 1.05e-4);
        last = t;
    }
}

Test(bottom_up, serving_sums_the_op_list)
{
    struct ff_model m = preset("llama-2-7b");
    struct ff_spec d = profile("profile-ops.json");
    struct ff_plan p = serve_plan();
    struct ff_estimate e;
    struct ff_bottom_up b;
    run_both(&m, &d, &p, &e, &b);
    cr_assert(b.bottom_up, "%s", b.why);
    /* measured: prefill's attn_out GEMM; decode's attn_out, ffn_gate_up and norm */
    cr_expect_eq(b.n_measured, 4);
    cr_expect_geq(b.n_interpolated, 2);
    cr_expect_geq(b.n_constant, 1);
    cr_expect_eq((size_t)(b.n_measured + b.n_interpolated + b.n_constant), b.n_terms);
    double dec = 0.0, disp = 0.0;
    for (size_t i = 0; i < b.n_terms; i++)
        if (b.terms[i].phase == FF_OP_PHASE_DECODE) {
            dec += b.terms[i].seconds;
            disp += ceil(b.terms[i].op.count);
            cr_expect_float_eq(b.terms[i].seconds, b.terms[i].op.count * b.terms[i].op_seconds,
                               1e-15);
        }
    cr_expect_float_eq(b.decode_dispatches, disp, 1e-9);
    cr_expect_float_eq(b.decode_step_s, dec + disp * 5e-6, 1e-12);
    cr_expect_float_eq(b.decode_tokens_per_s, 1.0 / b.decode_step_s, 1e-9);
    cr_expect_float_eq(b.prefill_tokens_per_s, 512.0 / b.prefill_s, 1e-6);
    cr_expect_float_eq(b.seconds, b.prefill_s + 256.0 * b.decode_step_s, 1e-12);
    cr_expect(b.measured_share > 0.0 && b.measured_share < 1.0, "%g", b.measured_share);
    /* the top-down figures are ff_est_run's */
    cr_expect_float_eq(b.top_decode_tokens_per_s, 1.0 / e.decode_seconds_per_token, 1e-9);
    cr_expect_float_eq(b.top_seconds, e.seconds, 1e-15);
    cr_expect_float_eq(b.ratio, b.seconds / e.seconds, 1e-12);
    /* 13.5 GB of fp16 weights at ~0.8-1 TB/s plus 357 launches: 14-18 ms a token */
    cr_expect(b.decode_step_s > 0.013 && b.decode_step_s < 0.02, "%g", b.decode_step_s);
}

Test(bottom_up, training_step_and_refusals)
{
    struct ff_model m = preset("llama-2-7b");
    struct ff_spec d = profile("profile-ops.json");
    struct ff_plan p;
    ff_plan_init(&p);
    p.gpus = 8;
    p.zero = 3;
    p.seq = 2048;
    p.tokens = 1e9;
    struct ff_estimate e;
    struct ff_bottom_up b;
    run_both(&m, &d, &p, &e, &b);
    cr_assert(b.bottom_up, "%s", b.why);
    cr_expect(b.train_step_s > b.train_ops_s, "launches and communication on top");
    cr_expect_float_eq(b.seconds, e.step.steps * b.train_step_s, 1e-9 * b.seconds);
    cr_expect(b.ratio > 0.2 && b.ratio < 5.0, "bottom-up / top-down %g", b.ratio);

    /* MLA: the op list refuses, the top-down estimate stands, with the reason */
    struct ff_model mla = preset("deepseek-v3");
    p.gpus = 0;
    run_both(&mla, &d, &p, &e, &b);
    cr_expect(!b.bottom_up);
    cr_expect(strstr(b.why, "latent attention"), "%s", b.why);
    cr_expect_eq(b.n_terms, 0);

    struct ff_bottom_up old;
    memset(&old, 0, sizeof(old));
    char err[512] = "";
    cr_expect_eq(ff_est_bottom_up(&mla, &d, &p, &e, &old, err, sizeof(err)), FF_ERR_INVALID);
}

/* The optimizer step: once per step, the update's bytes as runs of the ADD kernel (12 bytes an
 * element): fp32 AdamW 28 bytes a parameter, bf16 with an fp32 master and fp32 gradients
 * 2 x 12 + 4 + 2 = 30, of the parameters this GPU updates (its ZeRO shard). */
static const struct ff_bu_term *optimizer_of(const struct ff_bottom_up *b)
{
    for (size_t i = 0; i < b->n_terms; i++)
        if (strcmp(b->terms[i].op.what, "optimizer") == 0)
            return &b->terms[i];
    return NULL;
}

Test(bottom_up, the_optimizer_step_moves_its_bytes_once_a_step)
{
    struct ff_model m = preset("llama-2-7b");
    struct ff_spec d = profile("profile-ops.json");
    const struct {
        enum ff_precision prec;
        int gpus, zero, accum;
        double bytes_per_param;
    } cases[] = {
        {FF_PREC_FP32, 1, 0, 1, 28.0},
        {FF_PREC_BF16, 1, 0, 4, 30.0},
        {FF_PREC_BF16, 8, 1, 1, 30.0},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        struct ff_plan p;
        ff_plan_init(&p);
        p.precision = cases[c].prec;
        p.gpus = cases[c].gpus;
        p.zero = cases[c].zero;
        p.accum = cases[c].accum;
        p.seq = 2048;
        p.batch = 1;
        p.tokens = 1e9;
        struct ff_estimate e;
        struct ff_bottom_up b;
        run_both(&m, &d, &p, &e, &b);
        cr_assert(b.bottom_up, "%s", b.why);
        const struct ff_bu_term *t = optimizer_of(&b);
        cr_assert(t, "case %zu: no optimizer term", c);
        double k = ff_est_optimizer_bytes(p.optimizer, ff_precision_bytes(p.precision));
        double params = e.mem.optimizer / k;
        cr_expect_float_eq(t->op.count * ff_op_bytes(&t->op), params * cases[c].bytes_per_param,
                           1e-9 * params, "case %zu", c);
        /* every parameter of the model once, or its shard under ZeRO-1 */
        struct ff_param_count pc;
        cr_assert_eq(ff_model_params(&m, &pc), FF_OK);
        double whole = (double)pc.total / (cases[c].zero ? cases[c].gpus : 1);
        cr_expect(params > 0.95 * whole && params < 1.05 * whole, "case %zu: %g of %g", c, params,
                  whole);
        cr_expect_eq(t->phase, FF_OP_PHASE_TRAIN);
        cr_expect_float_eq(t->seconds, t->op.count * t->op_seconds, 1e-15);
    }
}

/* MoE: the routed experts of a block run as one grouped launch (gate and up two), so a decode
 * step is charged a launch per block for them, not one per expert it touches. */
Test(bottom_up, grouped_experts_launch_once_a_block)
{
    struct ff_model m = preset("mixtral-8x7b");
    struct ff_spec d = profile("profile-ops.json");
    struct ff_plan p = serve_plan();
    p.batch = 8;
    struct ff_estimate e;
    struct ff_bottom_up b;
    run_both(&m, &d, &p, &e, &b);
    cr_assert(b.bottom_up, "%s", b.why);
    double runs = 0.0, other = 0.0;
    for (size_t i = 0; i < b.n_terms; i++) {
        const struct ff_bu_term *t = &b.terms[i];
        if (t->phase != FF_OP_PHASE_DECODE)
            continue;
        if (strstr(t->op.what, "expert_gate_up") || strstr(t->op.what, "expert_down"))
            runs += t->op.count;
        else
            other += ceil(t->op.count);
    }
    cr_expect(runs > 3.0 * 32, "experts touched: %g runs", runs);
    cr_expect_float_eq(b.decode_dispatches, other + 3.0 * 32, 1e-9, "%g vs %g + 96",
                       b.decode_dispatches, other);
}

/* Op tests change nothing in ff_est_run: the top-down numbers are exactly today's. */
Test(bottom_up, without_op_tests_top_down_is_unchanged)
{
    struct ff_model m = preset("llama-2-7b");
    struct ff_spec with = profile("profile-ops.json"), none = profile("profile-ops-none.json");
    for (int serve = 0; serve < 2; serve++) {
        struct ff_plan p = serve_plan();
        if (!serve) {
            ff_plan_init(&p);
            p.gpus = 4;
            p.tokens = 1e9;
        }
        struct ff_estimate a, b;
        ff_estimate_init(&a);
        ff_estimate_init(&b);
        char err[512] = "";
        cr_assert_eq(ff_est_run(&m, &with, &p, &a, err, sizeof(err)), FF_OK, "%s", err);
        cr_assert_eq(ff_est_run(&m, &none, &p, &b, err, sizeof(err)), FF_OK, "%s", err);
        cr_expect_eq(a.seconds, b.seconds);
        cr_expect_eq(a.prefill_seconds, b.prefill_seconds);
        cr_expect_eq(a.decode_seconds_per_token, b.decode_seconds_per_token);
        cr_expect_eq(a.step.seconds, b.step.seconds);
        cr_expect_eq(a.mem.total, b.mem.total);
        struct ff_bottom_up bu;
        ff_bottom_up_init(&bu);
        cr_assert_eq(ff_est_bottom_up(&m, &none, &p, &b, &bu, err, sizeof(err)), FF_OK, "%s", err);
        cr_expect(!bu.bottom_up);
        cr_expect_str_eq(bu.why, "the profile has no op tests");
        cr_expect_eq(bu.top_seconds, b.seconds);
        cr_expect_eq(bu.n_terms, 0);
    }
    /* a catalog device likewise */
    struct ff_spec h100 = device("h100");
    cr_expect_eq(h100.n_ops, 0);
}

/* An op test of o's kind, format and shape taking `seconds`, appended to d's table. */
static void add_op(struct ff_spec *d, const struct ff_op *o, double seconds)
{
    cr_assert_lt(d->n_ops, FF_SPEC_OPS_MAX);
    d->ops[d->n_ops++] = (struct ff_spec_op){.kind = o->kind,
                                             .prec = o->prec,
                                             .m = o->m,
                                             .n = o->n,
                                             .k = o->k,
                                             .g = o->g,
                                             .seconds = seconds,
                                             .bytes = ff_op_bytes(o)};
}

static double time_of(const struct ff_spec *d, struct ff_op o, enum ff_op_source *src)
{
    struct ff_plan p = serve_plan();
    double t = 0.0;
    cr_assert_eq(ff_op_time(d, &p, NULL, &o, &t, src), FF_OK);
    return t;
}

Test(bottom_up, interpolation_stays_in_the_regime_of_the_op)
{
    /* A generic grid's q8_0 mat-vecs: one row of X at two sizes, at 20 GB/s, and 16 rows at
     * the smaller size, 4x the time for (nearly) the same bytes. A one-row mat-vec between the
     * two sizes is interpolated between the one-row points only: the 16-row point, its bytes
     * just above the smaller one-row point's, would put a steep step in the curve. */
    struct ff_spec d = profile("profile-ops-none.json");
    struct ff_op small = {FF_OP_GEMV, FF_PREC_Q8_0, 1, 4096, 4096, 0, 1, "s"};
    struct ff_op big = {FF_OP_GEMV, FF_PREC_Q8_0, 1, 14336, 4096, 0, 1, "b"};
    struct ff_op batch = {FF_OP_GEMV, FF_PREC_Q8_0, 16, 4096, 4096, 0, 1, "m"};
    add_op(&d, &small, ff_op_bytes(&small) / 20e9);
    add_op(&d, &big, ff_op_bytes(&big) / 20e9);
    add_op(&d, &batch, 4.0 * ff_op_bytes(&small) / 20e9);
    enum ff_op_source src;
    struct ff_op mid = {FF_OP_GEMV, FF_PREC_Q8_0, 1, 7680, 4096, 0, 1, "qkv"};
    double t = time_of(&d, mid, &src);
    cr_expect_eq(src, FF_OP_SOURCE_INTERPOLATED);
    cr_expect(fabs(t / (ff_op_bytes(&mid) / 20e9) - 1.0) < 1e-9, "%g s", t);
    /* 16 rows at another size: the 16-row point's throughput; 8 rows: the nearer regime in
     * log2 rows (16, one step, against 1, three) */
    struct ff_op mid16 = mid;
    mid16.m = 16;
    t = time_of(&d, mid16, &src);
    cr_expect_eq(src, FF_OP_SOURCE_INTERPOLATED);
    cr_expect(
        fabs(t / (4.0 * ff_op_bytes(&small) / 20e9 * ff_op_bytes(&mid16) / ff_op_bytes(&batch)) -
             1.0) < 1e-9,
        "%g s", t);
    struct ff_op mid8 = mid16;
    mid8.m = 8;
    cr_expect_gt(time_of(&d, mid8, &src), 2.0 * ff_op_bytes(&mid8) / 20e9);
    /* the exact shapes stay measured */
    cr_expect_float_eq(time_of(&d, batch, &src), 4.0 * ff_op_bytes(&small) / 20e9, 1e-15);
    cr_expect_eq(src, FF_OP_SOURCE_MEASURED);

    /* Decode attention: GQA 4 (4x the work a KV byte) and MHA points; MHA at a length between
     * its own points is interpolated from them, not from the GQA ones beside them in bytes. */
    struct ff_op a1 = {FF_OP_ATTN_DECODE, FF_PREC_FP16, 32, 512, 128, 1, 1, "a"};
    struct ff_op a1l = a1;
    a1l.n = 4096;
    add_op(&d, &a1, ff_op_bytes(&a1) / 20e9);
    add_op(&d, &a1l, ff_op_bytes(&a1l) / 20e9);
    struct ff_op a4 = {FF_OP_ATTN_DECODE, FF_PREC_FP16, 32, 4096, 128, 4, 1, "a"};
    add_op(&d, &a4, ff_op_bytes(&a4) / 5e9);
    struct ff_op amid = a1;
    amid.n = 1536;
    t = time_of(&d, amid, &src);
    cr_expect_eq(src, FF_OP_SOURCE_INTERPOLATED);
    cr_expect(fabs(t / (ff_op_bytes(&amid) / 20e9) - 1.0) < 1e-9, "%g s", t);
    /* head dim 80 (no such points): the nearest regime, MHA at 128 */
    amid.k = 80;
    t = time_of(&d, amid, &src);
    cr_expect_eq(src, FF_OP_SOURCE_INTERPOLATED);
    cr_expect(fabs(t / (ff_op_bytes(&amid) / 20e9) - 1.0) < 1e-9, "%g s", t);

    /* GEMMs: 512-token points at 270 and 250 GFLOP/s and a skinny 64-token one at 125 with
     * exactly 1024 cubed's FLOPs. 1024 cubed (smallest dimension 1024: as near 512 as 2048,
     * and 2048's regime, one point 16x its FLOPs away, is out of reach) comes from the
     * 512-token points, between their rates; not the skinny one's. */
    struct ff_op g_small = {FF_OP_GEMM, FF_PREC_FP32, 512, 1024, 1024, 0, 1, "g"};
    struct ff_op g_big = {FF_OP_GEMM, FF_PREC_FP32, 512, 4096, 4096, 0, 1, "g"};
    struct ff_op g_skinny = {FF_OP_GEMM, FF_PREC_FP32, 64, 4096, 4096, 0, 1, "g"};
    struct ff_op g_large = {FF_OP_GEMM, FF_PREC_FP32, 2048, 4096, 8192, 0, 1, "g"};
    add_op(&d, &g_small, ff_op_flops(&g_small) / 270e9);
    add_op(&d, &g_big, ff_op_flops(&g_big) / 250e9);
    add_op(&d, &g_skinny, ff_op_flops(&g_skinny) / 125e9);
    add_op(&d, &g_large, ff_op_flops(&g_large) / 300e9);
    struct ff_op cube = {FF_OP_GEMM, FF_PREC_FP32, 1024, 1024, 1024, 0, 1, "qkv"};
    t = time_of(&d, cube, &src);
    cr_expect_eq(src, FF_OP_SOURCE_INTERPOLATED);
    double rate = ff_op_flops(&cube) / t;
    cr_expect(rate > 249e9 && rate < 271e9, "%g FLOP/s", rate);
    /* Causal prefill attention along its FLOPs: 8 heads of 512 and 2048 positions at 100
     * GFLOP/s; 64 heads of 256 (the bytes of 8 of 2048, an eighth of the work) at that rate. */
    struct ff_op p1 = {FF_OP_ATTN_PREFILL, FF_PREC_FP16, 8, 512, 128, 4, 1, "attn"};
    struct ff_op p2 = p1;
    p2.n = 2048;
    add_op(&d, &p1, ff_op_flops(&p1) / 100e9);
    add_op(&d, &p2, ff_op_flops(&p2) / 100e9);
    struct ff_op pw = {FF_OP_ATTN_PREFILL, FF_PREC_FP16, 64, 256, 128, 4, 1, "attn"};
    t = time_of(&d, pw, &src);
    cr_expect_eq(src, FF_OP_SOURCE_INTERPOLATED);
    cr_expect(fabs(ff_op_flops(&pw) / t / 100e9 - 1.0) < 1e-9, "%g s", t);

    /* A GEMM far above the range (a 128k head, 512 tokens: 32x the largest 512-token point,
     * as the op family's work cap records it) at the largest point's throughput, not a
     * constant; a gemv as far above is a constant. */
    struct ff_op head = {FF_OP_GEMM, FF_PREC_FP32, 512, 131072, 4096, 0, 1, "head"};
    t = time_of(&d, head, &src);
    cr_expect_eq(src, FF_OP_SOURCE_INTERPOLATED);
    cr_expect(fabs(ff_op_flops(&head) / t / 250e9 - 1.0) < 1e-9, "%g s", t);
    struct ff_op far_gemv = big;
    far_gemv.n = 14336 * 8;
    time_of(&d, far_gemv, &src);
    cr_expect_eq(src, FF_OP_SOURCE_CONSTANT);

    /* and a 64-token GEMM of another size from the skinny point */
    struct ff_op skinny2 = {FF_OP_GEMM, FF_PREC_FP32, 64, 4096, 2048, 0, 1, "g"};
    t = time_of(&d, skinny2, &src);
    cr_expect(fabs(ff_op_flops(&skinny2) / t / 125e9 - 1.0) < 1e-9, "%g s", t);
}
