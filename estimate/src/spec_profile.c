/*
 * estimate/src/spec_profile.c — a device profile written by `flopfit bench`
 * (results/SCHEMA.md, flopfit.profile 1.x) read into a struct ff_spec, through the public
 * profile reader (flopfit/profile.h), which has already refused malformed, non-finite and
 * implausible figures.
 *
 * Measured figures replace datasheet ones: per precision the best verified matmul value
 * over all implementations, usable memory from the memory/usable test, bandwidth from the
 * best bandwidth read/copy test, and per scope (intra_node, inter_node) the interconnect bus
 * bandwidth of the largest message measured with its smallest-message latency. Only a test
 * with status "ok", verified true, a value in the unit its family measures in and above 0
 * counts. Missing figures stay 0 and are listed in notes.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "flopfit/estimate.h"
#include "flopfit/ops.h"
#include "flopfit/profile.h"
#include "flopfit/spec.h"
#include "flopfit/status.h"
#include "internal.h"

static void note(struct ff_spec *d, const char *text)
{
    size_t used = strlen(d->notes);
    snprintf(d->notes + used, sizeof(d->notes) - used, "%s%s", used ? "; " : "", text);
}

static bool is(const char *s, const char *want)
{
    return s && strcmp(s, want) == 0;
}

/* A figure this reader may plan with: measured, verified, in the family's unit, positive. */
static bool usable_figure(const struct ff_profile_test *t, const char *unit, const char *unit2)
{
    return t->status == FF_PROFILE_TEST_OK && t->verified && t->has_value && t->value > 0.0 &&
           (is(t->unit, unit) || (unit2 && is(t->unit, unit2)));
}

/* "matmul fp32 flopfit 2048x2048x2048": the test a figure came from, for the report. */
static void name_test(char *out, const struct ff_profile_test *t)
{
    char shape[72] = "";
    if (t->m && t->n && t->k)
        snprintf(shape, sizeof(shape), " %llux%llux%llu", (unsigned long long)t->m,
                 (unsigned long long)t->n, (unsigned long long)t->k);
    char full[256];
    snprintf(full, sizeof(full), "%s %s%s%s%s", t->family, t->precision ? t->precision : t->name,
             t->impl ? " " : "", t->impl ? t->impl : "", shape);
    ff_strlcpy(out, full, FF_SPEC_TEST_MAX);
}

/* ---- op tests (flopfit/ops.h, written by `flopfit bench --model M`) ---- */

/* Why op tests were left out, counted per reason for one note each. */
enum op_skip { SKIP_UNKNOWN, SKIP_FORMAT, SKIP_SHAPE, SKIP_TIME, SKIP_BYTES, SKIP_FULL, SKIP_N };
static const char *const op_skip_text[SKIP_N] = {
    "an unknown op name",
    "an unknown precision",
    "a zero or missing shape (m, n; k for gemm, gemv and attention; g for attention, rope)",
    "no positive median device time",
    "bytes disagreeing with the shape's (ff_op_bytes)",
    "more than the table holds",
};

/* One op test into d->ops (or a reason in skip[]). Failed, unsupported and unverified tests
 * carry no time (results/SCHEMA.md) and are passed over without a note: they are the bench's
 * honest "could not". */
static void read_op(struct ff_spec *d, const struct ff_profile_test *t, int skip[SKIP_N])
{
    if (t->status != FF_PROFILE_TEST_OK || !t->verified)
        return;
    enum ff_op_kind kind;
    if (ff_op_kind_parse(t->name, &kind) != FF_OK) {
        skip[SKIP_UNKNOWN]++;
        return;
    }
    if (t->prec < 0 || t->prec >= FF_PREC_COUNT) {
        skip[SKIP_FORMAT]++;
        return;
    }
    bool uses_k = kind == FF_OP_GEMM || kind == FF_OP_GEMV || kind == FF_OP_ATTN_DECODE ||
                  kind == FF_OP_ATTN_PREFILL;
    bool uses_g = kind == FF_OP_ATTN_DECODE || kind == FF_OP_ATTN_PREFILL || kind == FF_OP_ROPE;
    if (!t->m || !t->n || (uses_k && !t->k) || (uses_g && !t->g) || t->m > UINT32_MAX ||
        t->n > UINT32_MAX || t->k > UINT32_MAX || t->g > UINT32_MAX) {
        skip[SKIP_SHAPE]++;
        return;
    }
    double s = t->device_time_s.median_s;
    if (!(s > 0.0)) {
        skip[SKIP_TIME]++;
        return;
    }
    struct ff_op op = {.kind = kind,
                       .prec = (enum ff_precision)t->prec,
                       .m = (uint32_t)t->m,
                       .n = (uint32_t)t->n,
                       .k = (uint32_t)t->k,
                       .g = (uint32_t)t->g};
    double bytes = ff_op_bytes(&op);
    if (t->bytes && fabs((double)t->bytes / bytes - 1.0) > 0.01) {
        skip[SKIP_BYTES]++;
        return;
    }
    for (size_t i = 0; i < d->n_ops; i++) {
        struct ff_spec_op *o = &d->ops[i];
        if (o->kind == (int)kind && o->prec == t->prec && o->m == op.m && o->n == op.n &&
            o->k == op.k && o->g == op.g) {
            if (s < o->seconds)
                o->seconds = s;
            return;
        }
    }
    if (d->n_ops >= FF_SPEC_OPS_MAX) {
        skip[SKIP_FULL]++;
        return;
    }
    d->ops[d->n_ops++] = (struct ff_spec_op){(int)kind, t->prec, op.m, op.n, op.k, op.g, s, bytes};
}

/* ---- interconnect (family "interconnect", written by `flopfit bench --mpi`) ---- */

/* Physical ceilings of a bus bandwidth, B/s: inside a node the fastest GPU link today is
 * NVLink 5, 900 GB/s per direction (DGX B200 datasheet); an all-reduce reduced in the switch
 * (NVLink SHARP) shows up to about twice the line rate as busbw (nccl-tests #212: ~480 GB/s
 * on 450 GB/s H100 links), so all-reduce may reach 2x. Across nodes two 800 Gb/s ports per
 * GPU (200 GB/s) is the most any platform ships. A figure above is "implausible": not used. */
#define INTRA_MAX 900e9
#define INTER_MAX 200e9

struct link_pick {
    double busbw, latency;
    uint64_t bytes;
    int ranks;
    const char *name;
    int implausible, inconsistent;
};

static void pick_link(struct link_pick *k, const struct ff_profile_test *t, bool inter)
{
    if (!usable_figure(t, FF_PF_UNIT_BYTES_PER_S, NULL))
        return;
    bool ar = is(t->name, "all_reduce");
    double ceiling = (inter ? INTER_MAX : INTRA_MAX) * (ar && !inter ? 2.0 : 1.0);
    if (t->value > ceiling || (t->limit_bytes_per_s > 0.0 && t->value > t->limit_bytes_per_s)) {
        k->implausible++;
        return;
    }
    /* busbw = algbw x the collective's factor (nccl-tests): a figure that disagrees with its
     * own algorithm bandwidth by more than 5% is not used. */
    if (t->ranks > 1 && t->algbw_bytes_per_s > 0.0) {
        double n = (double)t->ranks;
        double f = ar ? 2.0 * (n - 1.0) / n : (n - 1.0) / n;
        if (fabs(t->algbw_bytes_per_s * f / t->value - 1.0) > 0.05) {
            k->inconsistent++;
            return;
        }
    }
    if (t->latency_s > 0.0 && (k->latency <= 0.0 || t->latency_s < k->latency))
        k->latency = t->latency_s;
    if (t->bytes > k->bytes || (t->bytes == k->bytes && t->value > k->busbw)) {
        k->bytes = t->bytes;
        k->busbw = t->value;
        k->ranks = t->ranks > (uint64_t)1 << 24 ? 0 : (int)t->ranks;
        k->name = t->name;
    }
}

static void link_note(struct ff_spec *d, const struct link_pick *k, const char *scope)
{
    char text[240];
    if (k->busbw > 0.0) {
        snprintf(text, sizeof(text),
                 "%s bus bandwidth measured: %.1f GB/s (%s, %.0f MiB, %d ranks)%s", scope,
                 k->busbw / 1e9, k->name, (double)k->bytes / 1048576.0, k->ranks,
                 k->latency > 0.0 ? "" : ", latency not measured");
        note(d, text);
    }
    if (k->implausible) {
        snprintf(text, sizeof(text),
                 "%d %s interconnect figure(s) above the physical link rate ignored "
                 "(implausible)",
                 k->implausible, scope);
        note(d, text);
    }
    if (k->inconsistent) {
        snprintf(text, sizeof(text),
                 "%d %s interconnect figure(s) ignored: busbw disagrees with algbw x the "
                 "collective's factor",
                 k->inconsistent, scope);
        note(d, text);
    }
}

int ff_spec_from_profile(const char *path, struct ff_spec *out, char *err, size_t errlen)
{
    if (!path || !out)
        return ff_errf(err, errlen, FF_ERR_INVALID, "no profile path");
    int rc = ff_spec_out_check(out, err, errlen);
    if (rc != FF_OK)
        return rc;
    struct ff_profile_doc *prof = NULL;
    rc = ff_profile_open(path, &prof, err, errlen);
    if (rc != FF_OK)
        return rc;
    const struct ff_profile_info *info = ff_profile_info(prof);

    struct ff_spec d;
    ff_spec_init(&d);
    d.measured = true;
    const char *base = strrchr(path, '/');
    ff_strlcpy(d.slug, base ? base + 1 : path, sizeof(d.slug));
    char *dot = strrchr(d.slug, '.');
    if (dot && dot != d.slug)
        *dot = '\0';
    const char *name = info->device.name, *backend = info->device.backend;
    snprintf(d.name, sizeof(d.name), "%s%s%s%s", name ? name : "unnamed device",
             backend ? " (" : "", backend ? backend : "", backend ? ")" : "");
    snprintf(d.source, sizeof(d.source), "measured profile %s", path);

    double usable = 0.0, bw_read = 0.0, bw_copy = 0.0;
    double stream[FF_PREC_COUNT] = {0};
    bool dispatch_seen = false; /* launch_s holds a latency/dispatch figure */
    char bw_read_test[FF_SPEC_TEST_MAX] = "", bw_copy_test[FF_SPEC_TEST_MAX] = "";
    struct link_pick intra = {0}, inter = {0};
    bool usable_stopped = false; /* the probe hit its cap or time limit: a lower bound */
    int op_skip[SKIP_N] = {0};
    size_t n = ff_profile_test_count(prof);
    for (size_t i = 0; i < n; i++) {
        const struct ff_profile_test *t = ff_profile_test_at(prof, i);
        if (is(t->family, FF_PF_FAMILY_MATMUL)) {
            if (t->prec >= 0 && t->prec < FF_PREC_COUNT &&
                usable_figure(t, FF_PF_UNIT_FLOPS, FF_PF_UNIT_OPS) &&
                t->value > d.flops_per_s[t->prec]) {
                d.flops_per_s[t->prec] = t->value;
                name_test(d.rate_test[t->prec], t);
            }
        } else if (is(t->family, FF_PF_FAMILY_MEMORY) && is(t->name, "usable")) {
            if (usable_figure(t, FF_PF_UNIT_BYTES, NULL) && t->value > usable) {
                usable = t->value;
                usable_stopped = t->capped || t->time_limited;
            }
        } else if (is(t->family, FF_PF_FAMILY_BANDWIDTH) && is(t->name, "read")) {
            if (usable_figure(t, FF_PF_UNIT_BYTES_PER_S, NULL) && t->value > bw_read) {
                bw_read = t->value;
                name_test(bw_read_test, t);
            }
        } else if (is(t->family, FF_PF_FAMILY_BANDWIDTH) && is(t->name, "copy")) {
            if (usable_figure(t, FF_PF_UNIT_BYTES_PER_S, NULL) && t->value > bw_copy) {
                bw_copy = t->value;
                name_test(bw_copy_test, t);
            }
        } else if (is(t->family, FF_PF_FAMILY_OP) && is(t->name, FF_PF_OP_WEIGHT_STREAM)) {
            /* Decode's weight streaming in one format, over the read bandwidth measured in
             * the same run: the hook for per-format kernels measured on the device. */
            if (t->prec >= 0 && t->prec < FF_PREC_COUNT &&
                usable_figure(t, FF_PF_UNIT_BYTES_PER_S, NULL) && t->value > stream[t->prec])
                stream[t->prec] = t->value;
        } else if (is(t->family, FF_PF_FAMILY_OP)) {
            read_op(&d, t, op_skip);
        } else if (is(t->family, FF_PF_FAMILY_LATENCY) &&
                   (is(t->name, FF_PF_LATENCY_LAUNCH) || is(t->name, FF_PF_LATENCY_DISPATCH))) {
            /* an empty kernel computes nothing to verify: an ok latency figure counts; a
             * chain's per-dispatch cost is what a step of dependent ops pays, and wins */
            bool chain = is(t->name, FF_PF_LATENCY_DISPATCH);
            if (t->status == FF_PROFILE_TEST_OK && t->has_value && t->value > 0.0 &&
                is(t->unit, FF_PF_UNIT_SECONDS) &&
                (chain ? !dispatch_seen || t->value < d.launch_s
                       : !dispatch_seen && (d.launch_s <= 0.0 || t->value < d.launch_s))) {
                d.launch_s = t->value;
                dispatch_seen |= chain;
            }
        } else if (is(t->family, FF_PF_FAMILY_INTERCONNECT)) {
            if (is(t->scope, FF_PF_SCOPE_INTRA_NODE))
                pick_link(&intra, t, false);
            else if (is(t->scope, FF_PF_SCOPE_INTER_NODE))
                pick_link(&inter, t, true);
        }
    }
    double global = (double)info->device.global_mem_bytes;
    /* Memory is the host's on a CPU device, or where the driver says it is shared (iGPUs). */
    d.host_shared = info->device.host_shared_memory || is(info->device.type, "cpu");
    d.no_fp16 = !info->device.features.fp16 && d.flops_per_s[FF_PREC_FP16] <= 0.0;
    d.int8_dot = info->device.features.int8_dot;
    if (usable > 0.0 && usable_stopped) {
        /* A probe stopped by its cap or time limit (e.g. bench --quick) proved only that
         * much: the plan is made with it and every verdict says "at least"; the driver's
         * figure, when larger, is kept beside it (a CPU device's driver reports all of the
         * host's RAM, most of which other processes may hold). */
        char text[200], drv[64] = "";
        if (global > usable)
            snprintf(drv, sizeof(drv), " (the driver reports %.2f GiB)", global / 1073741824.0);
        snprintf(text, sizeof(text),
                 "usable-memory probe stopped by its limit at %.2f GiB: a lower bound%s",
                 usable / 1073741824.0, drv);
        d.mem_bytes = usable;
        d.mem_lower_bound = true;
        d.mem_driver_bytes = global > usable ? global : 0.0;
        note(&d, text);
    } else if (usable > 0.0) {
        d.mem_bytes = usable;
    } else if (global > 0.0) {
        d.mem_bytes = global;
        note(&d, "usable memory not measured: using the driver's global_mem_bytes");
    } else {
        note(&d, "missing: usable memory (no verified ok memory/usable test, no "
                 "device.global_mem_bytes)");
    }
    /* Decode streams weights and the KV cache: reads. The copy test moves twice its bytes
     * and on a CPU reads can overlap the writes it counts (STREAM's Copy counts both), so a
     * copy figure can exceed what reading alone reaches; it is used only without a read. */
    if (bw_read > 0.0) {
        d.bandwidth_bytes_per_s = bw_read;
        ff_strlcpy(d.bandwidth_test, bw_read_test, sizeof(d.bandwidth_test));
    } else if (bw_copy > 0.0) {
        d.bandwidth_bytes_per_s = bw_copy;
        ff_strlcpy(d.bandwidth_test, bw_copy_test, sizeof(d.bandwidth_test));
        note(&d, "bandwidth from the copy test (no verified ok bandwidth read test)");
    } else {
        note(&d, "missing: bandwidth (no verified ok bandwidth read/copy test)");
    }
    for (int i = 0; i < FF_PREC_COUNT; i++)
        if (stream[i] > 0.0 && bw_read > 0.0)
            d.weight_stream_fraction[i] = stream[i] / bw_read > 1.0 ? 1.0 : stream[i] / bw_read;
    if (d.flops_per_s[FF_PREC_BF16] <= 0.0 && d.flops_per_s[FF_PREC_FP16] > 0.0) {
        d.flops_per_s[FF_PREC_BF16] = d.flops_per_s[FF_PREC_FP16];
        memcpy(d.rate_test[FF_PREC_BF16], d.rate_test[FF_PREC_FP16], sizeof(d.rate_test[0]));
        note(&d, "bf16 rate taken from the measured fp16 matmul");
    }
    if (d.flops_per_s[FF_PREC_FP32] <= 0.0)
        note(&d, "missing: fp32 matmul rate (no verified ok matmul fp32 test)");
    if (d.no_fp16 && d.flops_per_s[FF_PREC_FP32] > 0.0)
        note(&d, "no 16-bit arithmetic on the device: fp16/bf16 compute at the fp32 matmul "
                 "rate (16-bit storage, fp32 products and sums)");
    else if (d.flops_per_s[FF_PREC_FP16] <= 0.0)
        note(&d, "missing: fp16/bf16 matmul rate (no verified ok matmul fp16 test)");
    if (d.flops_per_s[FF_PREC_INT8] <= 0.0)
        note(&d, "missing: int8 matmul rate (no verified ok matmul int8 test)");
    d.intra_busbw_bytes_per_s = intra.busbw;
    d.intra_latency_s = intra.latency;
    d.intra_ranks = intra.ranks;
    d.inter_busbw_bytes_per_s = inter.busbw;
    d.inter_latency_s = inter.latency;
    d.inter_ranks = inter.ranks;
    if (intra.ranks > 1) {
        /* The intra-node tests ran one rank per GPU of one host: that is the node. */
        d.gpus_per_node = intra.ranks;
    }
    for (int i = 0; i < SKIP_N; i++) {
        if (!op_skip[i])
            continue;
        char text[200];
        snprintf(text, sizeof(text), "%d op test(s) ignored: %s", op_skip[i], op_skip_text[i]);
        note(&d, text);
        d.ops_ignored += op_skip[i];
    }
    link_note(&d, &intra, "intra-node");
    link_note(&d, &inter, "inter-node");
    ff_abi_copy_out(out, &d, sizeof(d));
    ff_profile_close(&prof);
    return FF_OK;
}

/* The efficiency a spec's rate takes when the plan gives none: a measured rate already holds
 * the GEMM kernel's losses (doc/estimator.md), a datasheet peak does not. */
double ff_default_compute_efficiency(const struct ff_spec *d)
{
    return d->measured ? FF_DEFAULT_MEASURED_EFFICIENCY : FF_DEFAULT_COMPUTE_EFFICIENCY;
}

double ff_default_serve_mfu(const struct ff_spec *d)
{
    return d->measured ? FF_DEFAULT_MEASURED_EFFICIENCY : FF_DEFAULT_MFU_SERVE;
}
