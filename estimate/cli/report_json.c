/* estimate/cli/report_json.c — the --json report, written with json-c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "cli_report.h"

static json_object *num(double v)
{
    if (!isfinite(v))
        return NULL; /* JSON null */
    return json_object_new_double(v);
}

static json_object *cost_or_null(double v)
{
    return v >= 0.0 ? json_object_new_double(v) : NULL;
}

#define ADD(obj, key, val) json_object_object_add((obj), (key), (val))

static json_object *model_json(const struct ff_model *m)
{
    json_object *o = json_object_new_object();
    ADD(o, "name", json_object_new_string(m->name));
    ADD(o, "source", json_object_new_string(m->source));
    ADD(o, "rough", json_object_new_boolean(m->rough));
    ADD(o, "layers", json_object_new_int64(m->layers));
    ADD(o, "hidden", json_object_new_int64(m->hidden));
    ADD(o, "heads", json_object_new_int64(m->heads));
    ADD(o, "kv_heads", json_object_new_int64(m->kv_heads));
    ADD(o, "head_dim", json_object_new_int64(m->head_dim));
    ADD(o, "ffn", json_object_new_int64(m->ffn));
    ADD(o, "vocab", json_object_new_int64(m->vocab));
    ADD(o, "tied_embeddings", json_object_new_boolean(m->tied_embeddings));
    ADD(o, "experts", json_object_new_int64(m->experts));
    ADD(o, "experts_active", json_object_new_int64(m->experts_active));
    ADD(o, "kv_lora_rank", json_object_new_int64(m->kv_lora_rank));
    ADD(o, "sliding_window", json_object_new_int64(m->sliding_window));
    ADD(o, "sliding_layers", json_object_new_int64(m->sliding_layers));
    ADD(o, "ssm_layers", json_object_new_int64(m->ssm_layers));
    ADD(o, "context", json_object_new_int64(ff_model_context(m)));
    ADD(o, "stored_bytes", m->stored_bytes > 0 ? json_object_new_double(m->stored_bytes) : NULL);
    ADD(o, "stored_format", m->stored_format[0] ? json_object_new_string(m->stored_format) : NULL);
    return o;
}

static json_object *device_json(const struct ff_spec *d)
{
    json_object *o = json_object_new_object();
    ADD(o, "slug", json_object_new_string(d->slug));
    ADD(o, "name", json_object_new_string(d->name));
    ADD(o, "source", json_object_new_string(d->source));
    ADD(o, "measured", json_object_new_boolean(d->measured));
    ADD(o, "memory_bytes", num(d->mem_bytes));
    ADD(o, "bandwidth_bytes_per_s", num(d->bandwidth_bytes_per_s));
    json_object *r = json_object_new_object();
    for (int i = 0; i < FF_PREC_INT4; i++)
        ADD(r, ff_precision_name((enum ff_precision)i),
            d->flops_per_s[i] > 0 ? json_object_new_double(d->flops_per_s[i]) : NULL);
    ADD(o, "matmul_flops_per_s", r);
    ADD(o, "link_name", d->link_name ? json_object_new_string(d->link_name) : NULL);
    ADD(o, "link_bytes_per_s", d->link_bytes_per_s > 0 ? num(d->link_bytes_per_s) : NULL);
    ADD(o, "gpus_per_node", d->gpus_per_node > 0 ? json_object_new_int(d->gpus_per_node) : NULL);
    ADD(o, "inter_node_bytes_per_s",
        d->inter_node_bytes_per_s > 0 ? num(d->inter_node_bytes_per_s) : NULL);
    ADD(o, "notes", json_object_new_string(d->notes));
    return o;
}

static json_object *plan_json(const struct ff_plan *p)
{
    json_object *o = json_object_new_object();
    ADD(o, "task", json_object_new_string(ff_task_name(p->task)));
    ADD(o, "precision", json_object_new_string(ff_precision_name(p->precision)));
    ADD(o, "grad_precision", json_object_new_string(ff_precision_name(p->grad_precision)));
    ADD(o, "optimizer", json_object_new_string(ff_optimizer_name(p->optimizer)));
    ADD(o, "paged_optimizer", json_object_new_boolean(p->paged_optimizer));
    ADD(o, "batch", json_object_new_int64(p->batch));
    ADD(o, "seq", json_object_new_int64(p->seq));
    ADD(o, "accum", json_object_new_int64(p->accum));
    ADD(o, "recompute", json_object_new_string(ff_recompute_name(p->recompute)));
    ADD(o, "flash_attention", json_object_new_boolean(p->flash_attention));
    ADD(o, "zero", json_object_new_int(p->zero));
    ADD(o, "tp", json_object_new_int64(p->tp));
    ADD(o, "pp", json_object_new_int64(p->pp));
    ADD(o, "gpus", json_object_new_int64(p->gpus));
    ADD(o, "gpus_per_node", p->gpus_per_node > 0 ? json_object_new_int64(p->gpus_per_node) : NULL);
    ADD(o, "inter_node_bytes_per_s",
        p->inter_node_bytes_per_s > 0 ? num(p->inter_node_bytes_per_s) : NULL);
    ADD(o, "ep", json_object_new_int64(p->ep));
    ADD(o, "pp_chunks", json_object_new_int64(p->pp_chunks));
    ADD(o, "dp_overlap", json_object_new_boolean(p->dp_overlap));
    if (p->task != FF_TASK_SERVE) {
        ADD(o, "cp", json_object_new_int64(p->cp));
        ADD(o, "recompute_every",
            p->recompute == FF_RECOMPUTE_LAYERS ? json_object_new_int64(p->recompute_every) : NULL);
        ADD(o, "ep_fold", json_object_new_boolean(p->ep_fold));
        /* null: the default (doc/estimator.md) */
        ADD(o, "moe_imbalance", p->moe_imbalance >= 1.0 ? num(p->moe_imbalance) : NULL);
        ADD(o, "moe_a2a_overlap", p->moe_a2a_overlap >= 0.0 ? num(p->moe_a2a_overlap) : NULL);
        ADD(o, "tp_overlap", p->tp_overlap >= 0.0 ? num(p->tp_overlap) : NULL);
    }
    if (p->task == FF_TASK_SERVE) {
        ADD(o, "prompt", json_object_new_int64(p->prompt));
        ADD(o, "generate", json_object_new_int64(p->generate));
    }
    if (p->task == FF_TASK_LORA || p->task == FF_TASK_QLORA)
        ADD(o, "lora_rank", json_object_new_int64(p->lora_rank));
    return o;
}

/* The step breakdown: seconds per step per term; a term that does not apply is
 * {"applies": false, "why": ...}, never 0 seconds; an unknown one has "seconds": null. */
static json_object *step_json(const struct ff_step *st)
{
    json_object *o = json_object_new_object();
    ADD(o, "seconds", num(st->seconds));
    ADD(o, "steps", num(st->steps));
    ADD(o, "global_batch_sequences", num(st->sequences));
    ADD(o, "micro_batches", json_object_new_int64(st->micro_batches));
    ADD(o, "gpus_per_node", json_object_new_int64(st->gpus_per_node));
    ADD(o, "nodes", json_object_new_int64(st->nodes));
    ADD(o, "compute_efficiency", num(st->compute_efficiency));
    ADD(o, "implied_mfu", num(st->mfu));
    ADD(o, "time_from_breakdown", json_object_new_boolean(st->modelled));
    ADD(o, "dominant", json_object_new_string(ff_step_term_name(st->dominant)));
    json_object *net = json_object_new_object();
    ADD(net, "intra_node_busbw_bytes_per_s",
        st->intra_busbw_bytes_per_s > 0 ? num(st->intra_busbw_bytes_per_s) : NULL);
    ADD(net, "intra_node_measured", json_object_new_boolean(st->intra_measured));
    ADD(net, "inter_node_busbw_bytes_per_s",
        st->inter_busbw_bytes_per_s > 0 ? num(st->inter_busbw_bytes_per_s) : NULL);
    ADD(net, "inter_node_measured", json_object_new_boolean(st->inter_measured));
    ADD(o, "network", net);
    json_object *terms = json_object_new_object();
    for (int i = 0; i < FF_STEP_TERMS; i++) {
        const struct ff_step_part *t = &st->term[i];
        json_object *x = json_object_new_object();
        ADD(x, "applies", json_object_new_boolean(t->applies));
        if (t->applies) {
            ADD(x, "known", json_object_new_boolean(t->known));
            ADD(x, "seconds", t->known ? num(t->seconds) : NULL);
            ADD(x, "seconds_before_overlap", t->known ? num(t->total_seconds) : NULL);
            if (i != FF_TERM_COMPUTE && i != FF_TERM_BUBBLE && i != FF_TERM_MOE_IMBALANCE) {
                ADD(x, "bytes_per_gpu", num(t->bytes));
                ADD(x, "inter_node", json_object_new_boolean(t->inter_node));
            }
            ADD(x, "fraction_of_step",
                t->known && st->seconds > 0 ? num(t->seconds / st->seconds) : NULL);
        }
        ADD(x, t->applies ? "note" : "why", json_object_new_string(t->note));
        ADD(terms, ff_step_term_name(i), x);
    }
    ADD(o, "terms", terms);
    return o;
}

static json_object *estimate_json(const struct ff_plan *p, const struct ff_estimate *e)
{
    json_object *o = json_object_new_object();
    json_object *params = json_object_new_object();
    ADD(params, "total", json_object_new_int64((int64_t)e->params.total));
    ADD(params, "active", json_object_new_int64((int64_t)e->params.active));
    ADD(params, "active_non_embedding", json_object_new_int64((int64_t)e->active_non_embedding));
    ADD(params, "embedding", json_object_new_int64((int64_t)e->params.embedding));
    ADD(o, "params", params);

    json_object *mem = json_object_new_object(), *per = json_object_new_object();
    for (size_t i = 0; i < ff_report_n_mem_terms; i++)
        ADD(per, ff_report_mem_terms[i].key,
            num(ff_report_mem_bytes(&e->mem, &ff_report_mem_terms[i])));
    ADD(mem, "per_gpu_bytes", per);
    ADD(mem, "paged_optimizer_bytes", num(e->mem.paged));
    json_object *ov = json_object_new_object();
    ADD(ov, "runtime", num(e->mem.overhead_runtime));
    ADD(ov, "nccl", num(e->mem.overhead_nccl));
    ADD(ov, "fragmentation", num(e->mem.overhead_fragmentation));
    ADD(mem, "overhead_bytes", ov);
    ADD(mem, "usable_bytes", num(e->usable_bytes));
    ADD(mem, "margin_bytes", num(e->margin_bytes));
    ADD(mem, "usable_lower_bound", json_object_new_boolean(e->usable_lower_bound));
    ADD(mem, "usable_driver_bytes",
        e->usable_driver_bytes > 0 ? num(e->usable_driver_bytes) : NULL);
    ADD(mem, "host_shared", json_object_new_boolean(e->host_shared));
    ADD(o, "memory", mem);
    ADD(mem, "margin_fraction", num(e->margin_fraction));
    ADD(o, "fits", json_object_new_boolean(e->fits));
    ADD(o, "tight", json_object_new_boolean(e->tight));
    ADD(o, "fit_unknown", json_object_new_boolean(e->fit_unknown));
    ADD(o, "hypothetical", json_object_new_boolean(e->hypothetical));
    json_object *ctx = json_object_new_object();
    ADD(ctx, "model_tokens",
        e->context_tokens > 0 ? json_object_new_int64(e->context_tokens) : NULL);
    ADD(ctx, "exceeded", json_object_new_boolean(e->context_exceeded));
    ADD(o, "context", ctx);
    ADD(o, "max_batch", json_object_new_int64(e->max_batch));
    ADD(o, "min_gpus", e->min_gpus > 0 ? json_object_new_int64(e->min_gpus) : NULL);
    json_object *lay = json_object_new_object();
    ADD(lay, "gpus", json_object_new_int64(e->gpus));
    ADD(lay, "tp", json_object_new_int64(e->tp));
    ADD(lay, "pp", json_object_new_int64(e->pp));
    ADD(lay, "dp", json_object_new_int64(e->dp));
    ADD(lay, "chosen", json_object_new_boolean(e->gpus_chosen));
    ADD(lay, "chosen_for_gpus", json_object_new_boolean(e->layout_chosen));
    ADD(lay, "searched", json_object_new_boolean(e->searched));
    if (p->task != FF_TASK_SERVE) {
        ADD(lay, "zero", json_object_new_int(e->zero));
        ADD(lay, "recompute", json_object_new_string(ff_recompute_name(e->recompute)));
        ADD(lay, "micro_batch", json_object_new_int64(e->batch));
        ADD(lay, "accum", json_object_new_int64(e->accum));
        ADD(lay, "ep", json_object_new_int64(e->ep));
        ADD(lay, "cp", json_object_new_int64(e->cp > 0 ? e->cp : 1));
    }
    ADD(o, "layout", lay);
    if (e->searched) {
        json_object *sr = json_object_new_object();
        ADD(sr, "candidates", json_object_new_int64(e->candidates));
        ADD(sr, "objective",
            json_object_new_string("time to process the tokens at the global "
                                   "batch"));
        json_object *ru = NULL;
        if (e->has_runner_up) {
            ru = json_object_new_object();
            ADD(ru, "tp", json_object_new_int64(e->runner_up_tp));
            ADD(ru, "pp", json_object_new_int64(e->runner_up_pp));
            ADD(ru, "dp", json_object_new_int64(e->runner_up_dp));
            ADD(ru, "cp", json_object_new_int64(e->runner_up_cp > 0 ? e->runner_up_cp : 1));
            ADD(ru, "ep", json_object_new_int64(e->runner_up_ep));
            ADD(ru, "zero", json_object_new_int(e->runner_up_zero));
            ADD(ru, "recompute", json_object_new_string(ff_recompute_name(e->runner_up_recompute)));
            ADD(ru, "micro_batch", json_object_new_int64(e->runner_up_batch));
            ADD(ru, "accum", json_object_new_int64(e->runner_up_accum));
            ADD(ru, "seconds", num(e->runner_up_seconds));
            ADD(ru, "why", json_object_new_string(e->runner_up_why));
        }
        ADD(sr, "runner_up", ru);
        ADD(o, "search", sr);
    }
    if (p->task != FF_TASK_SERVE) {
        json_object *gb = json_object_new_object();
        ADD(gb, "sequences", json_object_new_int64(e->global_batch));
        ADD(gb, "tokens", num(e->global_batch_tokens));
        ADD(gb, "default", json_object_new_boolean(e->global_batch_defaulted));
        ADD(gb, "rule",
            e->global_batch_defaulted ? json_object_new_string(ff_default_global_batch_sources())
                                      : NULL);
        ADD(o, "global_batch", gb);
        if (e->deadline_seconds > 0) {
            json_object *dl = json_object_new_object();
            ADD(dl, "seconds", num(e->deadline_seconds));
            ADD(dl, "met", json_object_new_boolean(e->deadline_met));
            ADD(dl, "gpus", json_object_new_int64(e->gpus));
            ADD(o, "deadline", dl);
        }
    }

    json_object *fl = json_object_new_object();
    ADD(fl, "total", num(e->flops_model));
    ADD(fl, "six_nd", p->task == FF_TASK_SERVE ? NULL : num(e->flops_6nd));
    ADD(fl, "hardware", num(e->flops_hardware));
    ADD(o, "flops", fl);

    json_object *t = json_object_new_object();
    ADD(t, "seconds", num(e->seconds));
    ADD(t, "days", num(e->seconds / 86400.0));
    ADD(t, "gpu_hours", num(e->gpu_hours));
    ADD(t, "gpus", json_object_new_int64(e->gpus));
    ADD(o, "time", t);

    json_object *c = json_object_new_object();
    ADD(c, "usd", cost_or_null(e->cost_usd));
    ADD(c, "price_per_gpu_hour", e->price_per_hour > 0 ? num(e->price_per_hour) : NULL);
    ADD(o, "cost", c);

    json_object *a = json_object_new_object();
    ADD(a, "compute_precision", json_object_new_string(ff_precision_name(e->compute_precision)));
    ADD(a, "kv_precision", json_object_new_string(ff_precision_name(e->kv_precision)));
    ADD(a, "rate_flops_per_s", num(e->rate_flops_per_s));
    ADD(a, "rate_precision", json_object_new_string(ff_precision_name(e->rate_precision)));
    ADD(a, "rate_measured", json_object_new_boolean(e->rate_measured));
    ADD(a, "rate_test", e->rate_test[0] ? json_object_new_string(e->rate_test) : NULL);
    ADD(a, "bandwidth_test",
        e->bandwidth_test[0] ? json_object_new_string(e->bandwidth_test) : NULL);
    ADD(a, "compute_efficiency", num(e->compute_efficiency));
    ADD(a, "mfu", num(e->mfu));
    ADD(a, "hfu", num(e->hfu));
    ADD(a, "mfu_default", json_object_new_boolean(e->mfu_default));
    ADD(a, "bandwidth_bytes_per_s", num(e->bandwidth_bytes_per_s));
    ADD(a, "bw_fraction", num(e->bw_fraction));
    ADD(a, "tokens", p->task == FF_TASK_SERVE ? NULL : num(e->tokens));
    ADD(o, "assumptions", a);

    if (p->task == FF_TASK_SERVE) {
        json_object *s = json_object_new_object();
        ADD(s, "batch", json_object_new_int64(e->serve_batch));
        ADD(s, "weight_bw_fraction", num(e->weight_bw_fraction));
        ADD(s, "weight_compute_fraction", num(e->weight_compute_fraction));
        ADD(s, "weight_stream_measured", json_object_new_boolean(e->weight_stream_measured));
        ADD(s, "prefill_seconds", num(e->prefill_seconds));
        ADD(s, "decode_seconds_per_token", num(e->decode_seconds_per_token));
        ADD(s, "tokens_per_second", num(e->tokens_per_second));
        ADD(s, "batch_tokens_per_second", num(e->batch_tokens_per_second));
        ADD(s, "max_sequences", json_object_new_int64(e->max_sequences));
        ADD(s, "max_tokens_per_second", num(e->max_tokens_per_second));
        ADD(s, "cost_per_million_tokens", cost_or_null(e->cost_per_million_tokens));
        ADD(s, "users", json_object_new_int64(e->serve_batch));
        ADD(s, "tokens_per_second_per_user", num(e->user_tokens_per_second));
        ADD(s, "aggregate_tokens_per_second", num(e->batch_tokens_per_second));
        ADD(s, "ttft_seconds", num(e->prefill_seconds));
        ADD(s, "max_cost_per_million_tokens", cost_or_null(e->max_cost_per_million_tokens));
        ADD(o, "serve", s);
    }
    if (e->step.valid) {
        ADD(o, "step", step_json(&e->step));
        /* What the step model derived for context parallelism, MoE and overlap. */
        json_object *par = json_object_new_object();
        ADD(par, "cp", json_object_new_int64(e->cp));
        ADD(par, "tp_hidden_fraction", num(e->tp_hidden_fraction));
        json_object *cpc = json_object_new_object();
        ADD(cpc, "seconds", num(e->cp_comm_seconds));
        ADD(cpc, "seconds_before_overlap", num(e->cp_comm_total_seconds));
        ADD(cpc, "bytes_per_gpu", num(e->cp_comm_bytes));
        ADD(par, "cp_ring", e->cp > 1 ? cpc : NULL);
        if (e->cp <= 1)
            json_object_put(cpc);
        if (e->moe_imbalance > 0.0) {
            json_object *moe = json_object_new_object();
            ADD(moe, "gemm_efficiency", num(e->moe_gemm_efficiency));
            ADD(moe, "tokens_per_expert", num(e->moe_tokens_per_expert));
            ADD(moe, "imbalance", num(e->moe_imbalance));
            ADD(moe, "a2a_hidden_fraction", num(e->moe_a2a_hidden_fraction));
            ADD(par, "moe", moe);
        } else {
            ADD(par, "moe", NULL);
        }
        ADD(o, "parallelism", par);
    }
    json_object *sug = json_object_new_array();
    for (size_t i = 0; i < e->n_suggestions; i++) {
        json_object *x = json_object_new_object();
        ADD(x, "change", json_object_new_string(e->suggestions[i].change));
        ADD(x, "total_bytes", num(e->suggestions[i].total_bytes));
        ADD(x, "fits", json_object_new_boolean(e->suggestions[i].fits));
        json_object_array_add(sug, x);
    }
    ADD(o, "suggestions", sug);
    return o;
}

static int emit(FILE *out, json_object *o)
{
    const char *s =
        json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
    int rc = s ? 0 : FF_ERR_NO_MEMORY;
    if (s)
        fprintf(out, "%s\n", s);
    json_object_put(o);
    return rc;
}

/* "bottom_up": the op sum beside the top-down figures (flopfit/estimate.h ff_est_bottom_up).
 * NULL only when out of memory. */
static json_object *bottom_up_json(const struct ff_model *m, const struct ff_spec *d,
                                   const struct ff_plan *p, const struct ff_estimate *e)
{
    struct ff_bottom_up *b = malloc(sizeof(*b));
    json_object *o = json_object_new_object();
    if (!b || !o) {
        free(b);
        json_object_put(o);
        return NULL;
    }
    ff_bottom_up_init(b);
    char err[256] = "";
    int rc = ff_est_bottom_up(m, d, p, e, b, err, sizeof(err));
    bool bu = rc == FF_OK && b->bottom_up;
    bool serve = p->task == FF_TASK_SERVE;
    ADD(o, "path", json_object_new_string(bu ? "bottom-up" : "top-down"));
    if (!bu)
        ADD(o, "why", json_object_new_string(rc == FF_OK ? b->why : err));
    json_object *top = json_object_new_object();
    if (serve) {
        ADD(top, "prefill_tokens_per_s", num(b->top_prefill_tokens_per_s));
        ADD(top, "decode_tokens_per_s", num(b->top_decode_tokens_per_s));
    } else {
        ADD(top, "train_step_s", num(b->top_train_step_s));
    }
    ADD(top, "seconds", num(b->top_seconds));
    ADD(o, "top_down", top);
    if (!bu) {
        free(b);
        return o;
    }
    if (serve) {
        ADD(o, "prefill_tokens_per_s", num(b->prefill_tokens_per_s));
        ADD(o, "decode_tokens_per_s", num(b->decode_tokens_per_s));
        ADD(o, "prefill_s", num(b->prefill_s));
        ADD(o, "decode_step_s", num(b->decode_step_s));
    } else {
        ADD(o, "train_step_s", num(b->train_step_s));
        ADD(o, "train_tokens_per_s", num(b->train_tokens_per_s));
        ADD(o, "train_comm_s", num(b->train_comm_s));
    }
    ADD(o, "seconds", num(b->seconds));
    ADD(o, "ratio", num(b->ratio));
    ADD(o, "measured_share", num(b->measured_share));
    ADD(o, "measured", json_object_new_int(b->n_measured));
    ADD(o, "interpolated", json_object_new_int(b->n_interpolated));
    ADD(o, "constant", json_object_new_int(b->n_constant));
    ADD(o, "launch_s", num(b->launch_s));
    if (b->notes[0])
        ADD(o, "notes", json_object_new_string(b->notes));
    static const char *const phase_names[] = {"decode", "prefill", "train"};
    json_object *terms = json_object_new_array();
    for (size_t i = 0; i < b->n_terms; i++) {
        const struct ff_bu_term *t = &b->terms[i];
        json_object *x = json_object_new_object(), *shape = json_object_new_object();
        ADD(x, "op", json_object_new_string(ff_op_kind_name(t->op.kind)));
        ADD(x, "what", json_object_new_string(t->op.what));
        ADD(x, "phase",
            json_object_new_string(
                (int)t->phase >= 0 && t->phase <= FF_OP_PHASE_TRAIN ? phase_names[t->phase] : "?"));
        ADD(x, "prec", json_object_new_string(ff_precision_name(t->op.prec)));
        ADD(shape, FF_PF_SHAPE_M, json_object_new_int64(t->op.m));
        ADD(shape, FF_PF_SHAPE_N, json_object_new_int64(t->op.n));
        ADD(shape, FF_PF_SHAPE_K, json_object_new_int64(t->op.k));
        ADD(shape, FF_PF_SHAPE_G, json_object_new_int64(t->op.g));
        ADD(x, "shape", shape);
        ADD(x, "count", num(t->op.count));
        ADD(x, "op_seconds", num(t->op_seconds));
        ADD(x, "seconds", num(t->seconds));
        ADD(x, "source", json_object_new_string(ff_op_source_name(t->source)));
        json_object_array_add(terms, x);
    }
    ADD(o, "terms", terms);
    free(b);
    return o;
}

int ff_report_json(FILE *out, const struct ff_model *m, const struct ff_spec *d,
                   const struct ff_plan *p, const struct ff_estimate *e)
{
    json_object *o = estimate_json(p, e);
    if (!o)
        return FF_ERR_NO_MEMORY;
    ADD(o, "model", model_json(m));
    ADD(o, "device", device_json(d));
    ADD(o, "plan", plan_json(p));
    json_object *bu = bottom_up_json(m, d, p, e);
    if (!bu) {
        json_object_put(o);
        return FF_ERR_NO_MEMORY;
    }
    ADD(o, "bottom_up", bu);
    return emit(out, o);
}

int ff_report_rank_json(FILE *out, const struct ff_model *m, const struct ff_plan *p,
                        const struct ff_rank_row *rows, size_t n)
{
    json_object *o = json_object_new_object();
    if (!o)
        return FF_ERR_NO_MEMORY;
    ADD(o, "model", model_json(m));
    ADD(o, "plan", plan_json(p));
    json_object *arr = json_object_new_array();
    for (size_t i = 0; i < n; i++) {
        json_object *x;
        if (rows[i].status == 0) {
            x = estimate_json(p, &rows[i].est);
        } else {
            x = json_object_new_object();
            ADD(x, "error", json_object_new_string(rows[i].why));
        }
        ADD(x, "rank", json_object_new_int64((int64_t)i + 1));
        ADD(x, "device", device_json(&rows[i].device));
        json_object_array_add(arr, x);
    }
    ADD(o, "ranking", arr);
    ADD(o, "rank_by", json_object_new_string(n > 0 && rows[0].by_time ? "time" : "cost"));
    return emit(out, o);
}

int ff_report_best_json(FILE *out, const struct ff_model *m, const struct ff_spec *d,
                        const struct ff_plan *p, const struct ff_estimate *e,
                        const struct ff_plan_choice *c, size_t n)
{
    json_object *o = estimate_json(p, e);
    if (!o)
        return FF_ERR_NO_MEMORY;
    ADD(o, "model", model_json(m));
    ADD(o, "device", device_json(d));
    ADD(o, "plan", plan_json(n > 0 ? &c[0].plan : p));
    json_object *arr = json_object_new_array();
    for (size_t i = 0; i < n; i++) {
        json_object *x = json_object_new_object();
        ADD(x, "rank", json_object_new_int64((int64_t)i + 1));
        ADD(x, "plan", plan_json(&c[i].plan));
        ADD(x, "dp", json_object_new_int64(c[i].dp));
        ADD(x, "seconds", num(c[i].seconds));
        ADD(x, "days", num(c[i].seconds / 86400.0));
        ADD(x, "memory_per_gpu_bytes", num(c[i].mem.total));
        ADD(x, "step", step_json(&c[i].step));
        json_object_array_add(arr, x);
    }
    ADD(o, "best_plans", arr);
    return emit(out, o);
}
