/* estimate/src/internal.h — helpers shared inside libflopfit (not installed). */
#ifndef FF_EST_INTERNAL_H
#define FF_EST_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "ff_abi.h"
#include "ff_util.h"
#include "flopfit/estimate.h"

/* ---- leading struct_size fields (abi.c, ff_abi.h, doc/abi.md) ---- */
/* Leaves *p when it has this library's size, else points it at a full-size copy in *buf with
 * the defaults in the fields the caller's layout lacks. Returns as ff_abi_size. */
int ff_plan_view(const struct ff_plan **p, struct ff_plan *buf, char *err, size_t errlen);
/* The same for a model and a device (the fields a caller's layout lacks are zero: absent). */
int ff_model_view(const struct ff_model **m, struct ff_model *buf, char *err, size_t errlen);
int ff_spec_view(const struct ff_spec **d, struct ff_spec *buf, char *err, size_t errlen);

/* True when `name` equals one of the space-separated words in `list` (case-insensitive). */
bool ff_word_in(const char *name, const char *list);

/* Write close matches of `name` among candidates[i] to buf, ", "-separated, showing
 * targets[i] (NULL: the candidate itself) once each. Returns the number written. */
int ff_suggest_from(const char *name, const char *const *candidates, const char *const *targets,
                    size_t n, char *buf, size_t buflen, int max);

/* Serving figures at `batch` sequences (serve.c). */
struct ff_serve_point {
    double prefill_s, step_s, total_s, tokens_per_s;
};
int ff_serve_at(const struct ff_model *m, const struct ff_spec *d, const struct ff_plan *p,
                const struct ff_param_count *pc, double mfu, double bw_fraction, int64_t batch,
                struct ff_serve_point *out);

/* The compute efficiency applied when none is given: FF_DEFAULT_COMPUTE_EFFICIENCY of a
 * datasheet peak, FF_DEFAULT_MEASURED_EFFICIENCY of a profile's measured matmul; serving's
 * MFU likewise (FF_DEFAULT_MFU_SERVE) (estimate.c). */
double ff_default_compute_efficiency(const struct ff_spec *d);
double ff_default_serve_mfu(const struct ff_spec *d);

/* Serving's tensor-parallel all-reduces for `tokens` token rows: two per layer, each the
 * latency plus a ring's 2(tp-1)/tp of the activations over the link (serve.c). 0 for tp 1. */
double ff_serve_comm_seconds(const struct ff_model *m, const struct ff_spec *d, double tp,
                             double tokens, double act_bytes);

/* A weight format's decode-streaming and compute factors (serve.c). */
void ff_serve_weight_factors(const struct ff_spec *d, enum ff_precision f, double *bw_rel,
                             double *compute_rel, bool *measured);

/* Compute precision of a plan (whose matrix rate applies). */
enum ff_precision ff_plan_compute_precision(const struct ff_plan *p);
enum ff_precision ff_plan_kv_precision(const struct ff_plan *p);
int64_t ff_plan_seq(const struct ff_model *m, const struct ff_plan *p);

/* Memory per GPU of the most loaded stage for a layout (memory.c). */
int ff_memory_at(const struct ff_model *m, const struct ff_plan *p, const struct ff_param_count *pc,
                 double tp, double pp, double dp, double b, struct ff_memory *out);

/* Blocks with a mixture-of-experts FFN: moe_layers when set, else all but the dense_layers;
 * 0 for a dense model. (model_params.c) */
double ff_model_moe_layers(const struct ff_model *m);
/* Parameters of the routed experts over every MoE layer (shared experts, router, attention
 * and dense layers excluded): what expert parallelism shards (memory.c). */
double ff_routed_expert_params(const struct ff_model *m, const struct ff_param_count *pc);
/* Routed-expert parameters on the most loaded pipeline stage of pp (at most ceil(L/pp) MoE
 * layers). */
double ff_routed_expert_params_stage(const struct ff_model *m, const struct ff_param_count *pc,
                                     double pp);

/* Memory a device offers the plan: a datasheet figure less the driver's reserve
 * (FF_DEFAULT_DRIVER_RESERVE), a measured profile's as measured (memory.c). */
double ff_usable_bytes(const struct ff_spec *d);

/* Serving with weights_as_stored: the stored size over the computed weight bytes (1 when not
 * applicable), which scales every weight figure (memory.c). */
double ff_stored_scale(const struct ff_model *m, const struct ff_param_count *pc,
                       const struct ff_plan *p);

/* The share of the blocks whose forward is rerun in backward: 1 for full recomputation,
 * floor(L/K)/L for every-K-th-layer checkpointing, else 0 (flops.c). */
double ff_recompute_layer_share(const struct ff_model *m, const struct ff_plan *p);

/* Forward attention FLOPs per token per layer at context s (flops.c). */
double ff_attn_flops_per_token_layer(const struct ff_model *m, double s);
/* Forward attention FLOPs per token over every attention layer, windows honoured. */
double ff_attn_flops_per_token(const struct ff_model *m, double s);

/* ---- the plan (plan.c), the layout search (layout.c), what would fit (suggest.c) ---- */

/* Largest micro-batch the plan check accepts and the batch search tries. */
#define FF_PLAN_BATCH_MAX ((int64_t)1 << 30)

/* Can `tp` split the attention (query heads; key/value heads divided or replicated)? */
bool ff_plan_tp_valid(const struct ff_model *m, int64_t tp);

/* What a fit is judged against: the model, its parameter count and one GPU's usable bytes. */
struct ff_fit_ctx {
    const struct ff_model *m;
    const struct ff_param_count *pc;
    double usable;
    int64_t node; /* GPUs per node: tp stays within one (0 = 8) */
};

/* Does the plan fit at this layout and micro-batch b? Fills *mem (may be NULL). */
bool ff_layout_fits(const struct ff_fit_ctx *c, const struct ff_plan *p, int64_t tp, int64_t pp,
                    int64_t dp, int64_t b, struct ff_memory *mem);
/* Largest micro-batch in [1, FF_PLAN_BATCH_MAX] that fits; 0 when none. */
int64_t ff_layout_max_batch(const struct ff_fit_ctx *c, const struct ff_plan *p, int64_t tp,
                            int64_t pp, int64_t dp);
/* Fewest GPUs keeping the plan's options, with the layout in *btp, *bpp, *bdp; 0 when none. */
int64_t ff_layout_min_gpus(const struct ff_fit_ctx *c, const struct ff_plan *p, int64_t *btp,
                           int64_t *bpp, int64_t *bdp);

/* The fastest layout of exactly p->gpus GPUs that fits (layout.c); rate gives a layout's
 * speed (training 1/step time, serving output tokens/s over its dp replicas). False when
 * none fits. */
bool ff_layout_for_gpus(const struct ff_fit_ctx *c, const struct ff_plan *p,
                        double (*rate)(const struct ff_plan *q, int64_t dp, void *ctx), void *ctx,
                        int64_t *btp, int64_t *bpp);

/* The global batch of plan p in sequences (global_batch_tokens, global_batch, or with
 * global_batch_default the rule, *defaulted then true); 0: micro-batch x accum x dp. */
int64_t ff_plan_global_batch(const struct ff_model *m, const struct ff_plan *p,
                             const struct ff_param_count *pc, bool *defaulted);

/* The plan search on exactly p->gpus GPUs (layout.c): every combination of the dimensions
 * p->search frees (auto_layout frees tp and pp), accumulation reaching the global batch G
 * (sequences; 0: p->accum), ranked by the time to process `tokens` (never by the step
 * time). The `max` fastest that fit go to out[0..*n), best first; *candidates (may be NULL)
 * counts the plans that fit; *runner_up (when has_runner_up is not NULL) the best plan of
 * another layout (tp, pp, ep), *has_runner_up whether there is one. FF_OK or
 * FF_ERR_NO_MEMORY. */
int ff_plan_search(const struct ff_model *m, const struct ff_spec *d, const struct ff_plan *p,
                   const struct ff_param_count *pc, int64_t G, double tokens,
                   struct ff_plan_choice *out, size_t max, size_t *n, int64_t *candidates,
                   struct ff_plan_choice *runner_up, bool *has_runner_up);
/* Why b (the runner-up) lost to a, one line: "1.31x slower: pipeline bubble +2.1 s per step
 * (18% of its step)". */
void ff_plan_runner_up_why(const struct ff_plan_choice *a, const struct ff_plan_choice *b,
                           char *buf, size_t len);

/* ---- communication (comm.c) ---- */

/* GPUs per node of a plan on a device: the plan's, the device's, else 8. */
int64_t ff_comm_node_size(const struct ff_spec *d, const struct ff_plan *p);
/* The step of plan p (tp, pp as given) at dp data-parallel ranks; 0 or a status. */
int ff_comm_step(const struct ff_model *m, const struct ff_spec *d, const struct ff_plan *p,
                 const struct ff_param_count *pc, int64_t dp, struct ff_step *out);

/* What the step model derived besides the terms (copied into struct ff_estimate). */
struct ff_step_extra {
    double moe_gemm_efficiency, moe_tokens_per_expert, moe_imbalance;
    double moe_a2a_hidden_fraction, tp_hidden_fraction;
    double cp_comm_seconds, cp_comm_total_seconds, cp_comm_bytes; /* per step */
};
/* ff_comm_step with the derived figures in *x (may be NULL). */
int ff_comm_step_x(const struct ff_model *m, const struct ff_spec *d, const struct ff_plan *p,
                   const struct ff_param_count *pc, int64_t dp, struct ff_step *out,
                   struct ff_step_extra *x);
/* Efficiency of a grouped expert GEMM relative to the dense compute efficiency: M tokens per
 * expert padded to FF_MOE_GEMM_TILE_ROWS, times the roofline min(1, intensity / ridge) with the
 * ridge at flops_per_s (already x compute efficiency) over bytes_per_s x
 * FF_DEFAULT_BW_FRACTION (bandwidth 0: no roofline). 1 for M <= 0. */
double ff_moe_gemm_efficiency(double tokens_per_expert, double hidden, double width,
                              double elem_bytes, double flops_per_s, double bytes_per_s);

/* Append to e->suggestions the changes that would make plan p (which does not fit) fit. */
void ff_est_suggestions(struct ff_estimate *e, const struct ff_fit_ctx *c, const struct ff_plan *p);

#endif
