/*
 * estimate/src/suggest.c — what would make a plan that does not fit fit: each change the CLI
 * could be given (smaller batch, recomputation, flash attention, ZeRO, 8-bit Adam, a paged
 * optimizer, QLoRA, narrower weights or KV cache, more GPUs), with the per-GPU total it
 * leads to.
 */
#include <stdio.h>

#include "flopfit/estimate.h"
#include "internal.h"

static void suggest(struct ff_estimate *e, const char *change, double total, double usable)
{
    if (e->n_suggestions >= FF_MAX_SUGGESTIONS)
        return;
    struct ff_suggestion *s = &e->suggestions[e->n_suggestions++];
    ff_strlcpy(s->change, change, sizeof(s->change));
    s->total_bytes = total;
    s->fits = total <= usable;
}

static void try_plan(struct ff_estimate *e, const struct ff_fit_ctx *c, const struct ff_plan *q,
                     int64_t dp, const char *change)
{
    struct ff_memory mem;
    ff_layout_fits(c, q, q->tp, q->pp, dp, q->batch, &mem);
    suggest(e, change, mem.total, c->usable);
}

void ff_est_suggestions(struct ff_estimate *e, const struct ff_fit_ctx *c, const struct ff_plan *p)
{
    char buf[FF_SUGGESTION_MAX];
    int64_t dp = e->dp;
    struct ff_plan q;
    if (e->max_batch >= 1 && e->max_batch < p->batch) {
        q = *p;
        q.batch = e->max_batch;
        snprintf(buf, sizeof(buf), "--batch %lld", (long long)e->max_batch);
        try_plan(e, c, &q, dp, buf);
    }
    if (p->task != FF_TASK_SERVE) {
        if (p->recompute == FF_RECOMPUTE_NONE && !p->flash_attention) {
            q = *p;
            q.recompute = FF_RECOMPUTE_SELECTIVE;
            try_plan(e, c, &q, dp, "--recompute selective");
        }
        if (p->recompute != FF_RECOMPUTE_FULL) {
            q = *p;
            q.recompute = FF_RECOMPUTE_FULL;
            try_plan(e, c, &q, dp, "--recompute full");
        }
    }
    if (!p->flash_attention) {
        q = *p;
        q.flash_attention = true;
        try_plan(e, c, &q, dp, "--flash-attention on");
    }
    if (p->task != FF_TASK_SERVE && dp > 1) {
        for (int z = p->zero + 1; z <= 3; z++) {
            q = *p;
            q.zero = z;
            snprintf(buf, sizeof(buf), "--zero %d", z);
            try_plan(e, c, &q, dp, buf);
        }
    }
    if (p->task == FF_TASK_TRAIN && p->optimizer == FF_OPT_ADAMW) {
        q = *p;
        q.optimizer = FF_OPT_ADAMW8BIT;
        try_plan(e, c, &q, dp, "--optimizer adamw8bit");
    }
    if (p->task != FF_TASK_SERVE && !p->paged_optimizer) {
        q = *p;
        q.paged_optimizer = true;
        try_plan(e, c, &q, dp, "--paged-optimizer");
    }
    if (p->task == FF_TASK_TRAIN || p->task == FF_TASK_LORA) {
        q = *p;
        q.task = FF_TASK_QLORA;
        if (q.precision != FF_PREC_FP16 && q.precision != FF_PREC_FP32)
            q.precision = FF_PREC_BF16;
        try_plan(e, c, &q, dp, "--finetune qlora (4-bit base, adapters only)");
    }
    if (p->task == FF_TASK_SERVE) {
        static const enum ff_precision narrower[] = {FF_PREC_INT8, FF_PREC_INT4};
        for (size_t i = 0; i < 2; i++) {
            if (ff_precision_bytes(narrower[i]) >= ff_precision_bytes(p->precision))
                continue;
            q = *p;
            q.precision = narrower[i];
            snprintf(buf, sizeof(buf), "--precision %s", ff_precision_name(narrower[i]));
            try_plan(e, c, &q, dp, buf);
        }
        if (ff_precision_bytes(ff_plan_kv_precision(p)) > 1.0) {
            q = *p;
            q.kv_precision = FF_PREC_FP8;
            q.kv_precision_set = true;
            try_plan(e, c, &q, dp, "--kv-precision fp8");
        }
    }
    if (e->min_gpus > 0) {
        q = *p;
        q.tp = e->min_tp;
        q.pp = e->min_pp;
        snprintf(buf, sizeof(buf), "--gpus %lld --tp %lld --pp %lld", (long long)e->min_gpus,
                 (long long)e->min_tp, (long long)e->min_pp);
        try_plan(e, c, &q, e->min_dp, buf);
    }
    if (p->task != FF_TASK_SERVE && p->zero < 3) {
        q = *p;
        q.zero = 3;
        int64_t t = 1, pp = 1, d = 1;
        int64_t n = ff_layout_min_gpus(c, &q, &t, &pp, &d);
        if (n > 0 && (e->min_gpus == 0 || n < e->min_gpus)) {
            snprintf(buf, sizeof(buf), "--zero 3 --gpus %lld --tp %lld --pp %lld", (long long)n,
                     (long long)t, (long long)pp);
            q.tp = t;
            q.pp = pp;
            try_plan(e, c, &q, d, buf);
        }
    }
}
