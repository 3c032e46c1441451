/* estimate/cli/report_text.c — the human-readable report. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_report.h"

/* Token counts in words: "140 billion", "1.4 trillion", "6.74 million", "512". */
static const char *words(char *buf, size_t n, double v)
{
    static const struct {
        double scale;
        const char *name;
    } units[] = {{1e15, "quadrillion"}, {1e12, "trillion"}, {1e9, "billion"}, {1e6, "million"}};
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (v >= units[i].scale) {
            if (v >= 1e18)
                snprintf(buf, n, "%.3g", v);
            else
                snprintf(buf, n, "%.3g %s", v / units[i].scale, units[i].name);
            return buf;
        }
    return ff_fmt_count(buf, n, v);
}

/* A rate's unit: integer formats count operations, not floating-point ones. */
static const char *rate_unit(enum ff_precision p)
{
    return p == FF_PREC_INT8 ? "TOP/s" : "TFLOP/s";
}

static void row(FILE *out, const char *what, double bytes, const char *why)
{
    char b[64];
    fprintf(out, "  %-13s %28s  %s\n", what, ff_fmt_bytes(b, sizeof(b), bytes), why);
}

/* "layers:K" for every-K-th-layer checkpointing, else the policy's name. */
static const char *recompute_label(char *buf, size_t n, const struct ff_plan *p)
{
    if (p->recompute != FF_RECOMPUTE_LAYERS)
        return ff_recompute_name(p->recompute);
    snprintf(buf, n, "layers:%lld", (long long)p->recompute_every);
    return buf;
}

static void plan_line(FILE *out, const struct ff_plan *p, const struct ff_estimate *e)
{
    char rcb[40];
    if (p->task == FF_TASK_QLORA)
        fprintf(out, "plan:    qlora, nf4 base weights, %s compute",
                ff_precision_name(e->compute_precision));
    else
        fprintf(out, "plan:    %s, %s weights", ff_task_name(p->task),
                ff_precision_name(p->precision));
    if (p->task == FF_TASK_SERVE) {
        fprintf(out, ", KV %s, batch %lld, prompt %lld + generate %lld tokens",
                ff_precision_name(e->kv_precision), (long long)p->batch, (long long)p->prompt,
                (long long)p->generate);
    } else {
        char paged_name[48];
        snprintf(paged_name, sizeof(paged_name), "%s (paged)", ff_optimizer_name(p->optimizer));
        struct ff_plan rp = *p; /* the recompute policy the plan search chose */
        rp.recompute = e->recompute;
        rp.recompute_every = e->recompute_every;
        fprintf(out,
                ", %s grads, %s, micro-batch %lld, accum %lld, recompute %s, flash %s, "
                "ZeRO-%d",
                p->precision == FF_PREC_FP32 ? "fp32"
                : p->task == FF_TASK_QLORA   ? ff_precision_name(e->compute_precision)
                                             : ff_precision_name(p->grad_precision),
                p->paged_optimizer ? paged_name : ff_optimizer_name(p->optimizer),
                (long long)e->batch, (long long)e->accum, recompute_label(rcb, sizeof(rcb), &rp),
                p->flash_attention ? "on" : "off", e->zero);
        if (e->ep > 1)
            fprintf(out, ", ep %lld", (long long)e->ep);
        if (e->recompute == FF_RECOMPUTE_SELECTIVE && p->flash_attention)
            fprintf(out, " (selective saves nothing beyond flash attention: see --recompute ops "
                         "or layers:K)");
        if (p->task != FF_TASK_TRAIN)
            fprintf(out, ", LoRA rank %lld (%s)", (long long)p->lora_rank,
                    p->lora_all_linear ? "all linear layers" : "Wq, Wv");
    }
    char cps[32] = "";
    if (e->cp > 1)
        snprintf(cps, sizeof(cps), " x cp %lld", (long long)e->cp);
    fprintf(out, "\nlayout:  %lld GPU(s) = tp %lld x pp %lld%s x dp %lld%s%s\n", (long long)e->gpus,
            (long long)e->tp, (long long)e->pp, cps, (long long)e->dp,
            e->ep > 1 && p->ep_fold ? " (ep folded over tp x cp x dp)" : "",
            e->deadline_seconds > 0 && e->gpus_chosen ? " (no --gpus: the fewest found that "
                                                        "finish by --deadline)"
            : e->gpus_chosen && e->searched
                ? " (no --gpus: the fewest that fit, the fastest plan there)"
            : e->gpus_chosen              ? " (no --gpus: the fewest that fit)"
            : e->searched                 ? " (the plan search's fastest for --gpus)"
            : e->layout_chosen            ? " (chosen for --gpus: the most output tokens/s)"
            : p->auto_layout || p->search ? " (no layout of these GPUs fits)"
                                          : "");
}

/* The search's verdict, its runner-up, the global batch and the deadline (training). */
static void search_block(FILE *out, const struct ff_plan *p, const struct ff_estimate *e)
{
    char b1[64], b2[64];
    if (p->task == FF_TASK_SERVE)
        return;
    if (e->searched) {
        fprintf(out,
                "search:  the fastest of %s plans that fit (tp x pp x dp x ZeRO x recompute x "
                "micro-batch%s; options given are kept), ranked by the time for the tokens at "
                "this global batch, never by step time\n",
                ff_fmt_count(b1, sizeof(b1), (double)e->candidates),
                e->params.expert > 0 ? " x ep" : "");
        char rcp[32] = "";
        if (e->runner_up_cp > 1)
            snprintf(rcp, sizeof(rcp), " x cp %lld", (long long)e->runner_up_cp);
        if (e->has_runner_up)
            fprintf(out,
                    "         runner-up: tp %lld x pp %lld%s x dp %lld%s, ZeRO-%d, recompute %s, "
                    "micro-batch %lld x accum %lld, %s: %s\n",
                    (long long)e->runner_up_tp, (long long)e->runner_up_pp, rcp,
                    (long long)e->runner_up_dp, e->runner_up_ep > 1 ? " (ep)" : "",
                    e->runner_up_zero, ff_recompute_name(e->runner_up_recompute),
                    (long long)e->runner_up_batch, (long long)e->runner_up_accum,
                    ff_fmt_duration(b2, sizeof(b2), e->runner_up_seconds), e->runner_up_why);
    }
    if (e->global_batch > 0)
        fprintf(out, "global batch: %s sequences = %s tokens per step%s%s\n",
                ff_fmt_count(b1, sizeof(b1), (double)e->global_batch),
                ff_fmt_count(b2, sizeof(b2), e->global_batch_tokens),
                e->global_batch_defaulted ? " (assumed, no --batch/--accum/--global-batch: " : "",
                e->global_batch_defaulted ? ff_default_global_batch_sources() : "");
    if (e->global_batch_defaulted) {
        int64_t rule = ff_default_global_batch(
            (double)e->params.total, (int64_t)(e->global_batch_tokens / (double)e->global_batch));
        fprintf(out, "              ; --global-batch 1024 or 4M sets it)%s\n",
                e->global_batch > rule + rule / 2
                    ? "; raised from the rule's to one sequence per replica at least: more "
                      "GPUs than the rule's sequences"
                    : "");
    }
    if (e->deadline_seconds > 0)
        fprintf(out, "deadline: %s: %s\n", ff_fmt_duration(b1, sizeof(b1), e->deadline_seconds),
                e->deadline_met ? "met on the GPUs above (the fewest found: whole nodes past one)"
                                : "NOT met even on the most GPUs a plan may use (10^6)");
}

/* ---- multi-GPU: one step broken down (comm.c) ---- */

static const char *const step_labels[FF_STEP_TERMS] = {
    "compute",         "tensor-parallel comm", "data-parallel grads", "ZeRO-3 gathers",
    "pipeline bubble", "MoE all-to-all",       "MoE imbalance"};

static void step_terms(FILE *out, const struct ff_step *st, const char *indent)
{
    char b1[64];
    for (int i = 0; i < FF_STEP_TERMS; i++) {
        const struct ff_step_part *t = &st->term[i];
        if (!t->applies)
            fprintf(out, "%s%-21s %12s  does not apply: %s\n", indent, step_labels[i], "-",
                    t->note);
        else if (!t->known)
            fprintf(out, "%s%-21s %12s  %s\n", indent, step_labels[i], "unknown", t->note);
        else
            fprintf(out, "%s%-21s %12s  %4.1f%%  %s%s\n", indent, step_labels[i],
                    ff_fmt_duration(b1, sizeof(b1), t->seconds),
                    st->seconds > 0 ? 100.0 * t->seconds / st->seconds : 0.0, t->note,
                    i == FF_TERM_COMPUTE || i == FF_TERM_BUBBLE || i == FF_TERM_MOE_IMBALANCE
                        ? ""
                        : (t->inter_node ? " (network)" : " (node links)"));
    }
}

static void step_block(FILE *out, const struct ff_plan *p, const struct ff_estimate *e)
{
    const struct ff_step *st = &e->step;
    char b1[64], b2[64], b3[64];
    if (!st->valid)
        return;
    fprintf(out,
            "  step:           %s x %s steps of %s sequences (%lld GPU(s) per node, %lld "
            "node(s))\n",
            ff_fmt_duration(b1, sizeof(b1), st->seconds), ff_fmt_count(b2, sizeof(b2), st->steps),
            ff_fmt_count(b3, sizeof(b3), st->sequences), (long long)st->gpus_per_node,
            (long long)st->nodes);
    step_terms(out, st, "    ");
    fprintf(out, "    largest term: %s; implied MFU %.1f%%%s\n", step_labels[st->dominant],
            st->mfu * 100.0,
            st->modelled ? "" : " (the time above uses the given rate; this is the model's split)");
    char in[64] = "unknown", net[64] = "unknown";
    if (st->intra_busbw_bytes_per_s > 0)
        ff_fmt_si(in, sizeof(in), st->intra_busbw_bytes_per_s, "B/s");
    if (st->inter_busbw_bytes_per_s > 0)
        ff_fmt_si(net, sizeof(net), st->inter_busbw_bytes_per_s, "B/s");
    fprintf(out, "    bus bandwidth: node links %s%s, network %s per GPU%s (%s)\n", in,
            st->intra_measured ? " measured" : "", net, st->inter_measured ? " measured" : "",
            st->intra_measured && st->inter_measured ? "measured by flopfit bench --mpi"
            : p->inter_node_bytes_per_s > 0          ? "network from --inter-node-gbps x 90%"
                                                     : "line rates x 75% in a node, x 90% across");
}

void ff_report_best_text(FILE *out, const struct ff_plan_choice *c, size_t n)
{
    char b1[64], b2[64];
    fprintf(out, "\nbest plans (fastest first; step time, memory per GPU)\n");
    fprintf(out, "  %-3s %-31s %-9s %-6s %10s %10s %12s %6s  %s\n", "#", "layout", "recompute",
            "ZeRO", "micro x acc", "step", "memory", "MFU", "largest term");
    for (size_t i = 0; i < n; i++) {
        char lay[128], mb[32];
        char cps[32] = ""; /* the plan's context-parallel ranks (not searched) */
        if (c[i].plan.cp > 1)
            snprintf(cps, sizeof(cps), " x cp %lld", (long long)c[i].plan.cp);
        int k = snprintf(lay, sizeof(lay), "tp %lld x pp %lld%s x dp %lld", (long long)c[i].plan.tp,
                         (long long)c[i].plan.pp, cps, (long long)c[i].dp);
        if (c[i].plan.ep > 1 && k > 0 && (size_t)k < sizeof(lay))
            snprintf(lay + k, sizeof(lay) - (size_t)k, " ep %lld", (long long)c[i].plan.ep);
        snprintf(mb, sizeof(mb), "%lld x %lld", (long long)c[i].plan.batch,
                 (long long)c[i].plan.accum);
        fprintf(out, "  %-3zu %-31s %-9s %-6d %10s %10s %12s %5.1f%%  %s\n", i + 1, lay,
                ff_recompute_name(c[i].plan.recompute), c[i].plan.zero, mb,
                ff_fmt_duration(b1, sizeof(b1), c[i].step.seconds),
                ff_fmt_bytes(b2, sizeof(b2), c[i].mem.total), c[i].step.mfu * 100.0,
                step_labels[c[i].step.dominant]);
    }
}

/* "measured: matmul fp32 flopfit 2048x2048x2048" or "datasheet dense". */
static const char *rate_origin(char *buf, size_t n, const struct ff_estimate *e)
{
    if (e->rate_measured && e->rate_test[0])
        snprintf(buf, n, "measured: %s; a measured rate, not discounted as a peak", e->rate_test);
    else
        snprintf(buf, n, "%s", e->rate_measured ? "measured" : "datasheet dense");
    return buf;
}

/* When the rate is another arithmetic's than the plan's compute precision (ff_spec_rate_arith):
 * "; q4_0 weights multiply in this arithmetic", and why for 16-bit formats. */
static const char *arith_note(char *buf, size_t n, const struct ff_estimate *e)
{
    enum ff_precision c = e->compute_precision;
    if (e->rate_precision == c)
        return "";
    bool sixteen = c == FF_PREC_FP16 || c == FF_PREC_BF16;
    snprintf(buf, n, "; %s weights multiply in this arithmetic%s", ff_precision_name(c),
             sixteen ? " (the device has no 16-bit arithmetic: 16-bit storage, fp32 products and "
                       "sums)"
                     : "");
    return buf;
}

/* The bottom-up estimate of a measured profile (flopfit/estimate.h ff_est_bottom_up) into a
 * new *b (the caller frees it); NULL when out of memory. A failure is a top-down path whose why
 * says what failed. */
static struct ff_bottom_up *bottom_up_of(const struct ff_model *m, const struct ff_spec *d,
                                         const struct ff_plan *p, const struct ff_estimate *e)
{
    struct ff_bottom_up *b = malloc(sizeof(*b));
    if (!b)
        return NULL;
    ff_bottom_up_init(b);
    char err[256] = "";
    if (ff_est_bottom_up(m, d, p, e, b, err, sizeof(err)) != FF_OK) {
        b->bottom_up = false;
        snprintf(b->why, sizeof(b->why), "%s", err);
    }
    return b;
}

/* The path line: which estimate the figures above it are. */
static void path_line(FILE *out, const struct ff_bottom_up *b)
{
    if (!b)
        fprintf(out, "  path: top-down: a datasheet device (no ops measured)\n");
    else if (!b->bottom_up)
        fprintf(out, "  path: top-down: %s\n", b->why);
    else
        fprintf(out,
                "  path: bottom-up: the model's own ops as measured on this device (%.0f %% of "
                "the time measured; terms below), the top-down figure beside each\n",
                100.0 * b->measured_share);
}

/* The bottom-up terms beside the top-down estimate. */
static void bottom_up_block(FILE *out, const struct ff_plan *p, const struct ff_bottom_up *b)
{
    if (!b || !b->bottom_up)
        return;
    fprintf(out, "\nbottom-up (the model's own ops on this device)\n");
    fprintf(out,
            "  path: bottom-up from %d measured op(s) on this device, %d interpolated, %d "
            "constant(s); measured share %.1f %% of the %s\n",
            b->n_measured, b->n_interpolated, b->n_constant, 100.0 * b->measured_share,
            p->task == FF_TASK_SERVE ? "request" : "step");
    if (b->notes[0])
        fprintf(out, "  note: %s\n", b->notes);
    char b1[64], b2[64];
    if (p->task == FF_TASK_SERVE) {
        fprintf(out, "  prefill:  %s tokens/s (%.4g s; top-down %s tokens/s)\n",
                ff_fmt_count(b1, sizeof(b1), b->prefill_tokens_per_s), b->prefill_s,
                ff_fmt_count(b2, sizeof(b2), b->top_prefill_tokens_per_s));
        fprintf(out, "  decode:   %s tokens/s (%.4g s a step; top-down %s tokens/s)\n",
                ff_fmt_count(b1, sizeof(b1), b->decode_tokens_per_s), b->decode_step_s,
                ff_fmt_count(b2, sizeof(b2), b->top_decode_tokens_per_s));
        fprintf(out, "  launches: %.0f + %.0f a step at %.3g us; all-reduces %.3g + %.3g s\n",
                b->prefill_dispatches, b->decode_dispatches, b->launch_s * 1e6, b->prefill_comm_s,
                b->decode_comm_s);
    } else {
        fprintf(out,
                "  step:     %.4g s (ops %.4g s, %.0f launches at %.3g us, communication and "
                "bubble %.4g s); top-down %.4g s\n",
                b->train_step_s, b->train_ops_s, b->train_dispatches, b->launch_s * 1e6,
                b->train_comm_s, b->top_train_step_s);
        fprintf(out, "  tokens/s: %s\n", ff_fmt_count(b1, sizeof(b1), b->train_tokens_per_s));
    }
    fprintf(out, "  time:     %.4g s bottom-up, %.4g s top-down: ratio bottom-up/top-down %.3f\n",
            b->seconds, b->top_seconds, b->ratio);
    fprintf(out, "  %-8s %-13s %-5s %-20s %-22s %9s %11s  %s\n", "phase", "op", "prec", "what",
            "shape (m x n x k, g)", "count", "s per step", "source");
    static const char *const phase_names[] = {"decode", "prefill", "train"};
    for (size_t i = 0; i < b->n_terms; i++) {
        const struct ff_bu_term *t = &b->terms[i];
        char shape[48];
        int w = t->op.k ? snprintf(shape, sizeof(shape), "%ux%ux%u", t->op.m, t->op.n, t->op.k)
                        : snprintf(shape, sizeof(shape), "%ux%u", t->op.m, t->op.n);
        if (t->op.g && w > 0 && (size_t)w < sizeof(shape))
            snprintf(shape + w, sizeof(shape) - (size_t)w, " g%u", t->op.g);
        fprintf(out, "  %-8s %-13s %-5s %-20s %-22s %9.4g %11.4g  %s\n",
                (int)t->phase >= 0 && t->phase <= FF_OP_PHASE_TRAIN ? phase_names[t->phase] : "?",
                ff_op_kind_name(t->op.kind), ff_precision_name(t->op.prec), t->op.what, shape,
                t->op.count, t->seconds, ff_op_source_name(t->source));
    }
}

void ff_report_text(FILE *out, const struct ff_model *m, const struct ff_spec *d,
                    const struct ff_plan *p, const struct ff_estimate *e)
{
    char b1[64], b2[64], b3[64], origin[160], arith[160];
    struct ff_bottom_up *bu = d->measured ? bottom_up_of(m, d, p, e) : NULL;
    const bool up = bu && bu->bottom_up;
    fprintf(out, "model:   %s — %.4g B parameters (%llu), %.4g B active per token", m->name,
            (double)e->params.total / 1e9, (unsigned long long)e->params.total,
            (double)e->params.active / 1e9);
    if (m->experts > 0)
        fprintf(out, " (%.4g B without the input embedding)",
                (double)e->active_non_embedding / 1e9);
    fputc('\n', out);
    fprintf(out, "         source: %s\n", m->source);
    fprintf(out, "device:  %s (%s)\n         source: %s\n", d->slug, d->name, d->source);
    if (d->notes[0])
        fprintf(out, "         note: %s\n", d->notes);
    plan_line(out, p, e);
    search_block(out, p, e);

    fprintf(out, "\nmemory per GPU (most loaded GPU)\n");
    for (size_t i = 0; i < ff_report_n_mem_terms; i++) {
        const struct ff_report_mem_term *t = &ff_report_mem_terms[i];
        const char *why = p->task == FF_TASK_SERVE && t->why_serve ? t->why_serve : t->why;
        if (t->offset == offsetof(struct ff_memory, overhead) && e->host_shared &&
            p->overhead_bytes < 0)
            why = "host-shared memory: no GPU context or NCCL buffers; 10% of activations "
                  "(--overhead-gib adds a framework's own)";
        row(out, t->label, ff_report_mem_bytes(&e->mem, t), why);
    }
    if (e->mem.paged > 0)
        fprintf(out, "  (of the optimizer, %s of states are paged to host: not in the total)\n",
                ff_fmt_bytes(b1, sizeof(b1), e->mem.paged));
    row(out, "usable", e->usable_bytes,
        e->usable_lower_bound ? "at least: the probe stopped at its cap (a lower bound)"
        : d->measured         ? "measured"
                              : "datasheet less 1% the driver keeps");
    if (e->usable_lower_bound && e->usable_driver_bytes > 0)
        fprintf(out, "  (the driver reports %s; what of it is usable was not measured)\n",
                ff_fmt_bytes(b1, sizeof(b1), e->usable_driver_bytes));
    if (e->fits && e->usable_lower_bound)
        fprintf(out, "verdict: FITS in at least %s, margin at least %s\n",
                ff_fmt_bytes(b1, sizeof(b1), e->usable_bytes),
                ff_fmt_bytes(b2, sizeof(b2), e->margin_bytes));
    else if (e->fit_unknown)
        fprintf(out,
                "verdict: UNKNOWN: needs %s, more than the %s the probe reached (a lower "
                "bound) and within the driver's %s; measure usable memory without --quick\n",
                ff_fmt_bytes(b1, sizeof(b1), e->mem.total),
                ff_fmt_bytes(b2, sizeof(b2), e->usable_bytes),
                ff_fmt_bytes(b3, sizeof(b3), e->usable_driver_bytes));
    else if (e->fits && e->tight)
        fprintf(out,
                "verdict: FITS, TIGHT: margin %s, %.1f%% of usable (under %.0f%%: the "
                "overheads estimated are of that size; measure before relying on it)\n",
                ff_fmt_bytes(b1, sizeof(b1), e->margin_bytes), 100.0 * e->margin_fraction,
                100.0 * FF_TIGHT_FRACTION);
    else if (e->fits)
        fprintf(out, "verdict: FITS, margin %s, %.1f%% of usable\n",
                ff_fmt_bytes(b1, sizeof(b1), e->margin_bytes), 100.0 * e->margin_fraction);
    else
        fprintf(out, "verdict: DOES NOT FIT, short by %s, %.1f%% over usable\n",
                ff_fmt_bytes(b1, sizeof(b1), -e->margin_bytes), -100.0 * e->margin_fraction);
    if (p->task == FF_TASK_SERVE)
        fprintf(out, "max concurrent sequences at %lld tokens: %lld\n",
                (long long)(p->prompt + p->generate), (long long)e->max_sequences);
    else
        fprintf(out, "largest micro-batch that fits: %lld\n", (long long)e->max_batch);
    if (e->min_gpus > 0)
        fprintf(out, "fewest GPUs under this plan: %lld (tp %lld x pp %lld x dp %lld)%s\n",
                (long long)e->min_gpus, (long long)e->min_tp, (long long)e->min_pp,
                (long long)e->min_dp,
                e->host_shared && e->min_gpus > 1 ? " -- hypothetical: copies of a host-shared "
                                                    "device cannot be pooled"
                                                  : "");
    else
        fprintf(out, "fewest GPUs under this plan: none (no layout up to tp 8 x pp %lld fits)\n",
                (long long)m->layers);
    if (e->hypothetical)
        fprintf(out,
                "HYPOTHETICAL: %lld copies of %s, a device whose memory is the host's (a "
                "CPU or iGPU): they are not one machine a plan can pool; the figures are "
                "not advice\n",
                (long long)(e->gpus > 1 ? e->gpus : e->min_gpus), d->slug);
    if (!e->fits && e->n_suggestions) {
        fprintf(out, "what would make it fit (per-GPU total with the change):\n");
        for (size_t i = 0; i < e->n_suggestions; i++)
            fprintf(out, "  %-50s %28s  %s\n", e->suggestions[i].change,
                    ff_fmt_bytes(b1, sizeof(b1), e->suggestions[i].total_bytes),
                    e->suggestions[i].fits ? "fits" : "still too big");
    }

    double rate = e->rate_flops_per_s;
    if (!e->fits)
        fprintf(out, "\n(the figures below assume the plan fit; as planned it does not run)\n");
    if (p->task != FF_TASK_SERVE) {
        fprintf(out, "\ncompute (%s tokens%s)\n", words(b2, sizeof(b2), e->tokens),
                p->tokens > 0              ? ""
                : p->task == FF_TASK_TRAIN ? ", default 20 x params (Chinchilla)"
                                           : ", fine-tuning default 1e8; pass --tokens");
        fprintf(out, "  6ND:            %.4g FLOP (Kaplan et al. 2020)\n", e->flops_6nd);
        fprintf(out, "  exact:          %.4g FLOP (matmuls + attention, PaLM App. B)%s\n",
                e->flops_model, p->task == FF_TASK_TRAIN ? "" : ", frozen base: 4N/token");
        fprintf(out, "  with recompute: %.4g FLOP (hardware)\n", e->flops_hardware);
        fprintf(out, "  rate:           %.4g %s %s per GPU (%s) x MFU %.1f%% (HFU %.1f%%)%s%s\n",
                rate / 1e12, rate_unit(e->rate_precision), ff_precision_name(e->rate_precision),
                rate_origin(origin, sizeof(origin), e), e->mfu * 100.0, e->hfu * 100.0,
                p->achieved_flops_per_s > 0 ? " implied by the achieved rate"
                : e->step.modelled          ? " implied by the step below"
                                            : "",
                arith_note(arith, sizeof(arith), e));
        path_line(out, bu);
        if (up)
            fprintf(out, "  time:           %s on %lld GPU(s) (top-down %s)\n",
                    ff_fmt_duration(b1, sizeof(b1), bu->seconds), (long long)e->gpus,
                    ff_fmt_duration(b2, sizeof(b2), e->seconds));
        else
            fprintf(out, "  time:           %s on %lld GPU(s)\n",
                    ff_fmt_duration(b1, sizeof(b1), e->seconds), (long long)e->gpus);
        step_block(out, p, e);
        fprintf(out, "  GPU-hours:      %s\n", ff_fmt_count(b1, sizeof(b1), e->gpu_hours));
        if (e->cost_usd >= 0)
            fprintf(out, "  cost:           %s at $%.2f per GPU-hour%s\n",
                    ff_fmt_money(b1, sizeof(b1), e->cost_usd), e->price_per_hour,
                    p->price_per_hour > 0 ? "" : " (typical cloud rate)");
        else
            fprintf(out, "  cost:           unknown (no price for %s; pass --price)\n", d->slug);
    } else {
        const enum ff_precision serve_prec = e->rate_precision;
        fprintf(out, "\nserving (rate %.4g %s %s x MFU %.0f%%; bandwidth %.4g GB/s x %.0f%%)\n",
                rate / 1e12, rate_unit(serve_prec), ff_precision_name(serve_prec), e->mfu * 100.0,
                e->bandwidth_bytes_per_s / 1e9, e->bw_fraction * 100.0);
        fprintf(out, "  rate: %s%s\n", rate_origin(origin, sizeof(origin), e),
                arith_note(arith, sizeof(arith), e));
        if (e->bandwidth_test[0])
            fprintf(out, "  bandwidth: measured: %s\n", e->bandwidth_test);
        if (e->weight_bw_fraction != 1.0 || e->weight_compute_fraction != 1.0)
            fprintf(out,
                    "  %s weights: streamed at %.0f%% of %s, compute at %.0f%% of the rate "
                    "(dequantisation)\n",
                    ff_precision_name(p->precision), e->weight_bw_fraction * 100.0,
                    e->weight_stream_measured ? "the read bandwidth (measured)"
                                              : "the 16-bit fraction (sourced default)",
                    e->weight_compute_fraction * 100.0);
        path_line(out, bu);
        if (up) {
            fprintf(out, "  time to first token (prefill, batch %lld): %s (top-down %s)\n",
                    (long long)e->serve_batch, ff_fmt_duration(b1, sizeof(b1), bu->prefill_s),
                    ff_fmt_duration(b2, sizeof(b2), e->prefill_seconds));
            fprintf(out,
                    "  decode step (batch %lld, mean context):    %s per token (top-down %s)\n",
                    (long long)e->serve_batch, ff_fmt_duration(b1, sizeof(b1), bu->decode_step_s),
                    ff_fmt_duration(b2, sizeof(b2), e->decode_seconds_per_token));
            fprintf(out, "  tokens/s, cost and the maximum below are top-down\n");
        } else {
            fprintf(out, "  time to first token (prefill, batch %lld): %s\n",
                    (long long)e->serve_batch, ff_fmt_duration(b1, sizeof(b1), e->prefill_seconds));
            fprintf(out, "  decode step (batch %lld, mean context):    %s per token\n",
                    (long long)e->serve_batch,
                    ff_fmt_duration(b2, sizeof(b2), e->decode_seconds_per_token));
        }
        fprintf(out, "  one sequence alone:           %s tokens/s\n",
                ff_fmt_count(b1, sizeof(b1), e->tokens_per_second));
        fprintf(out,
                "  at %lld user(s) (--batch):      %s tokens/s per user, %s output tokens/s "
                "in all (end to end)\n",
                (long long)e->serve_batch, ff_fmt_count(b1, sizeof(b1), e->user_tokens_per_second),
                ff_fmt_count(b2, sizeof(b2), e->batch_tokens_per_second));
        if (e->cost_per_million_tokens >= 0)
            fprintf(out,
                    "  cost at %lld user(s):           %s per million output tokens at $%.2f "
                    "per GPU-hour x %lld GPU(s)\n",
                    (long long)e->serve_batch,
                    ff_fmt_money(b1, sizeof(b1), e->cost_per_million_tokens), e->price_per_hour,
                    (long long)(e->tp * e->pp));
        else
            fprintf(out, "  cost:                         unknown (pass --price)\n");
        if (e->max_sequences > 0) {
            char mc[32] = "cost unknown";
            if (e->max_cost_per_million_tokens >= 0) {
                char m1[32];
                snprintf(mc, sizeof(mc), "%s per M tokens",
                         ff_fmt_money(m1, sizeof(m1), e->max_cost_per_million_tokens));
            }
            fprintf(out, "  memory-limited maximum:       %lld sequences, %s output tokens/s, %s\n",
                    (long long)e->max_sequences,
                    ff_fmt_count(b1, sizeof(b1), e->max_tokens_per_second), mc);
        }
    }
    bottom_up_block(out, p, bu);
    free(bu);
}

/* The run's time, ">= " first when a communication term's link rate is unknown. */
static const char *ge_duration(char *buf, size_t n, const struct ff_estimate *e)
{
    bool unknown = false;
    for (int i = 0; i < FF_STEP_TERMS; i++)
        if (e->step.valid && e->step.modelled && e->step.term[i].applies && !e->step.term[i].known)
            unknown = true;
    char d[48];
    ff_fmt_duration(d, sizeof(d), e->seconds);
    snprintf(buf, n, "%s%s", unknown ? ">= " : "", d);
    return buf;
}

/* The fits column: "?" when a capped probe leaves it open, "yes*" on hypothetical copies of a
 * host-shared device. */
static const char *fits_word(const struct ff_estimate *e)
{
    if (e->fit_unknown)
        return "?";
    if (!e->fits)
        return "no";
    return e->hypothetical ? "yes*" : "yes";
}

void ff_report_rank_text(FILE *out, const struct ff_model *m, const struct ff_plan *p,
                         const struct ff_rank_row *rows, size_t n, bool rank_time)
{
    char b1[64];
    bool serve = p->task == FF_TASK_SERVE;
    fprintf(out, "%s, %s %s — ranked (fits first, then %s)\n", m->name, ff_task_name(p->task),
            ff_precision_name(p->precision),
            rank_time ? (serve ? "tokens/s in all, --rank time" : "time, --rank time") : "cost");
    if (serve)
        fprintf(out,
                "at %lld concurrent user(s) (--batch); the memory-limited maximum is its own "
                "column\n",
                (long long)p->batch);
    if (serve)
        fprintf(out, "%-4s %-14s %-5s %5s %14s %14s %12s %14s\n", "rank", "device", "fits", "GPUs",
                "tok/s per user", "tok/s (all)", "$/M tokens", "tok/s (max)");
    else
        fprintf(out, "%-4s %-14s %-5s %11s %6s %14s %14s %16s\n", "rank", "device", "fits",
                "GPUs needed", "on", "time", "GPU-hours", "cost");
    for (size_t i = 0; i < n; i++) {
        const struct ff_rank_row *r = &rows[i];
        if (r->status != 0) {
            fprintf(out, "%-4zu %-14s n/a   %s\n", i + 1, r->device.slug, r->why);
            continue;
        }
        const struct ff_estimate *e = &r->est;
        char cost[32] = "unknown";
        if (serve) {
            char t1[32], t2[32];
            if (e->cost_per_million_tokens >= 0)
                ff_fmt_money(cost, sizeof(cost), e->cost_per_million_tokens);
            char t3[32];
            fprintf(out, "%-4zu %-14s %-5s %5lld %14s %14s %12s %14s\n", i + 1, r->device.slug,
                    fits_word(e), (long long)e->min_gpus,
                    ff_fmt_count(t1, sizeof(t1), e->user_tokens_per_second),
                    ff_fmt_count(t2, sizeof(t2), e->batch_tokens_per_second), cost,
                    ff_fmt_count(t3, sizeof(t3), e->max_tokens_per_second));
        } else {
            if (e->cost_usd >= 0)
                ff_fmt_money(cost, sizeof(cost), e->cost_usd);
            char hours[32] = "-";
            if (e->fits)
                ff_fmt_count(hours, sizeof(hours), e->gpu_hours);
            fprintf(out, "%-4zu %-14s %-5s %11lld %6lld %14s %14s %16s\n", i + 1, r->device.slug,
                    fits_word(e), (long long)e->min_gpus, (long long)e->gpus,
                    e->fits ? ge_duration(b1, sizeof(b1), e) : "-", hours, e->fits ? cost : "-");
        }
    }
    bool marked = false;
    for (size_t i = 0; i < n; i++)
        marked = marked ||
                 (rows[i].status == 0 && (rows[i].est.hypothetical || rows[i].est.fit_unknown));
    if (marked)
        fprintf(out, "yes*: copies of a host-shared (CPU) device, hypothetical; ?: more than a "
                     "capped memory probe proved, within the driver's figure\n");
    if (!serve)
        fprintf(out,
                "GPUs needed: the fewest that fit this plan; time and cost on the \"on\" "
                "column (%s); MFU %s\n",
                p->gpus > 0               ? "--gpus"
                : p->deadline_seconds > 0 ? "the fewest found that finish by --deadline"
                                          : "the fewest that fit, searched",
                p->mfu > 0 || p->achieved_flops_per_s > 0
                    ? "as given"
                    : "implied by the step model (compute at the default efficiency + "
                      "communication; \">=\": a link rate is unknown, its terms left out)");
}
