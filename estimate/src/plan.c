/*
 * estimate/src/plan.c — the plan: its defaults, the names of its choices, and the checks that
 * reject a plan the model cannot run (ranges, tp against the heads, pp against the layers,
 * --gpus against tp x pp).
 */
#include <string.h>

#include "flopfit/estimate.h"
#include "flopfit/status.h"
#include "internal.h"

const char *ff_task_name(enum ff_task t)
{
    switch (t) {
    case FF_TASK_TRAIN: return "train";
    case FF_TASK_LORA: return "lora";
    case FF_TASK_QLORA: return "qlora";
    case FF_TASK_SERVE: return "serve";
    }
    return "?";
}

const char *ff_optimizer_name(enum ff_optimizer o)
{
    switch (o) {
    case FF_OPT_ADAMW: return "adamw";
    case FF_OPT_ADAMW8BIT: return "adamw8bit";
    case FF_OPT_SGD: return "sgd";
    }
    return "?";
}

const char *ff_recompute_name(enum ff_recompute r)
{
    switch (r) {
    case FF_RECOMPUTE_NONE: return "none";
    case FF_RECOMPUTE_SELECTIVE: return "selective";
    case FF_RECOMPUTE_FULL: return "full";
    case FF_RECOMPUTE_LAYERS: return "layers";
    case FF_RECOMPUTE_OPS: return "ops";
    }
    return "?";
}

enum ff_precision ff_plan_compute_precision(const struct ff_plan *p)
{
    if (p->task == FF_TASK_QLORA)
        return p->precision == FF_PREC_FP16 ? FF_PREC_FP16 : FF_PREC_BF16;
    if (p->task == FF_TASK_LORA && p->precision != FF_PREC_FP32 && p->precision != FF_PREC_BF16 &&
        p->precision != FF_PREC_FP16 && p->precision != FF_PREC_FP8)
        return FF_PREC_BF16; /* frozen quantised base is dequantised for the matmuls */
    return p->precision;
}

bool ff_plan_tp_valid(const struct ff_model *m, int64_t tp)
{
    if (m->rough)
        return m->heads % tp == 0;
    if (ff_model_attn_layers(m) == 0)
        return m->ssm_inner % tp == 0; /* pure SSM: the mixer splits over d_inner */
    if (m->heads % tp != 0)
        return false;
    if (m->kv_lora_rank > 0)
        return true;
    return m->kv_heads % tp == 0 || tp % m->kv_heads == 0;
}

int ff_plan_check(const struct ff_model *m, const struct ff_plan *p, char *err, size_t errlen)
{
    if (!p)
        return ff_errf(err, errlen, FF_ERR_INVALID, "missing plan");
    struct ff_plan pv;
    int rc = ff_plan_view(&p, &pv, err, errlen);
    if (rc != FF_OK)
        return rc;
    rc = ff_model_check(m, err, errlen);
    if (rc != FF_OK)
        return rc;
    struct ff_model mv;
    ff_model_view(&m, &mv, NULL, 0);
    if (rc != FF_OK)
        return rc;
    struct {
        const char *opt;
        int64_t v, min, max;
    } ranges[] = {
        {"--batch", p->batch, 1, FF_PLAN_BATCH_MAX},
        {"--seq", p->seq, 0, (int64_t)1 << 34},
        {"--accum", p->accum, 1, (int64_t)1 << 30},
        {"--tp", p->tp, 1, 1 << 16},
        {"--pp", p->pp, 1, 1 << 16},
        {"--gpus", p->gpus, 0, FF_PLAN_GPUS_MAX},
        {"--zero", p->zero, 0, 3},
        {"--lora-rank", p->lora_rank, 1, 1 << 20},
        {"--prompt", p->prompt, 1, (int64_t)1 << 34},
        {"--generate", p->generate, 1, (int64_t)1 << 34},
        {"--gpus-per-node", p->gpus_per_node, 0, 1 << 16},
        {"--ep", p->ep, 1, 1 << 20},
        {"--pp-chunks", p->pp_chunks, 1, 1 << 16},
        {"--global-batch", p->global_batch, 0, (int64_t)1 << 40},
        {"--cp", p->cp, 1, 1 << 16},
    };
    /* --nodes N arrives here as N x GPUs per node: the message names both ways. */
    if (p->gpus > FF_PLAN_GPUS_MAX)
        return ff_errf(err, errlen, FF_ERR_RANGE,
                       "%lld GPUs (--gpus, or --nodes x GPUs per node) is more than the %d "
                       "(10^6) a plan may use",
                       (long long)p->gpus, FF_PLAN_GPUS_MAX);
    for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
        if (ranges[i].v < ranges[i].min || ranges[i].v > ranges[i].max)
            return ff_errf(err, errlen, FF_ERR_RANGE, "%s %lld is out of range (%lld..%lld)",
                           ranges[i].opt, (long long)ranges[i].v, (long long)ranges[i].min,
                           (long long)ranges[i].max);
    if (!(p->global_batch_tokens >= 0.0 && p->global_batch_tokens <= 1e15))
        return ff_errf(err, errlen, FF_ERR_RANGE,
                       "--global-batch %g tokens is out of range (1..1e15)",
                       p->global_batch_tokens);
    if (!(p->deadline_seconds >= 0.0 && p->deadline_seconds <= 100.0 * 365.25 * 86400.0))
        return ff_errf(err, errlen, FF_ERR_RANGE,
                       "--deadline %g s is out of range (up to 100 years)", p->deadline_seconds);
    if (p->search & ~FF_SEARCH_ALL)
        return ff_errf(err, errlen, FF_ERR_INVALID, "unknown plan-search bits 0x%x",
                       p->search & ~FF_SEARCH_ALL);
    if (!(p->tokens >= 0.0 && p->tokens <= 1e18))
        return ff_errf(err, errlen, FF_ERR_RANGE, "--tokens %g is out of range (0..1e18)",
                       p->tokens);
    if (!(p->mfu >= 0.0 && p->mfu <= 1.0))
        return ff_errf(err, errlen, FF_ERR_RANGE, "--mfu %g is out of range (0..1]", p->mfu);
    if (!(p->bw_fraction >= 0.0 && p->bw_fraction <= 1.0))
        return ff_errf(err, errlen, FF_ERR_RANGE, "--bw-fraction %g is out of range (0..1]",
                       p->bw_fraction);
    if (!(p->compute_efficiency >= 0.0 && p->compute_efficiency <= 1.0))
        return ff_errf(err, errlen, FF_ERR_RANGE, "--compute-efficiency %g is out of range (0..1]",
                       p->compute_efficiency);
    /* The fastest network port a GPU has today is 800 Gb/s (ConnectX-8); two per GPU is the
     * most any platform ships: 1600 Gb/s = 200 GB/s. */
    if (!(p->inter_node_bytes_per_s >= 0.0 && p->inter_node_bytes_per_s <= 200e9))
        return ff_errf(err, errlen, FF_ERR_RANGE,
                       "--inter-node-gbps %g is out of range (0..1600 Gb/s per GPU)",
                       p->inter_node_bytes_per_s * 8.0 / 1e9);
    if (!(p->price_per_hour >= 0.0 && p->price_per_hour < 1e6))
        return ff_errf(err, errlen, FF_ERR_RANGE, "--price %g is out of range", p->price_per_hour);
    if (!(p->achieved_flops_per_s >= 0.0 && p->achieved_flops_per_s < 1e18))
        return ff_errf(err, errlen, FF_ERR_RANGE, "achieved FLOP/s %g is out of range",
                       p->achieved_flops_per_s);
    if ((int)p->recompute < 0 || p->recompute > FF_RECOMPUTE_OPS)
        return ff_errf(err, errlen, FF_ERR_INVALID, "unknown recompute policy");
    if (p->recompute == FF_RECOMPUTE_LAYERS &&
        (p->recompute_every < 1 || p->recompute_every > m->layers))
        return ff_errf(err, errlen, FF_ERR_RANGE,
                       "--recompute layers:%lld: K must be 1..%lld (the layers of %s)",
                       (long long)p->recompute_every, (long long)m->layers, m->name);
    if (!(p->moe_imbalance == 0.0 || (p->moe_imbalance >= 1.0 && p->moe_imbalance <= 8.0)))
        return ff_errf(err, errlen, FF_ERR_RANGE, "--moe-imbalance %g is out of range (1..8)",
                       p->moe_imbalance);
    if (!(p->moe_a2a_overlap < 0.0 || p->moe_a2a_overlap <= 1.0))
        return ff_errf(err, errlen, FF_ERR_RANGE, "--moe-a2a-overlap %g is out of range (0..1)",
                       p->moe_a2a_overlap);
    if (!(p->tp_overlap < 0.0 || p->tp_overlap <= 1.0))
        return ff_errf(err, errlen, FF_ERR_RANGE, "--tp-overlap %g is out of range (0..1)",
                       p->tp_overlap);
    if ((int)p->precision < 0 || p->precision >= FF_PREC_COUNT)
        return ff_errf(err, errlen, FF_ERR_INVALID, "unknown precision");
    if (p->task == FF_TASK_TRAIN && p->precision != FF_PREC_FP32 && p->precision != FF_PREC_BF16 &&
        p->precision != FF_PREC_FP16 && p->precision != FF_PREC_FP8)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--train needs --precision fp32, bf16, fp16 or fp8 (got %s); for 4-bit "
                       "weights use --finetune qlora",
                       ff_precision_name(p->precision));
    if (p->task == FF_TASK_QLORA && p->precision != FF_PREC_BF16 && p->precision != FF_PREC_FP16 &&
        p->precision != FF_PREC_FP32)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--finetune qlora stores the base in NF4 and computes in bf16/fp16; "
                       "--precision %s does not apply",
                       ff_precision_name(p->precision));
    if (p->task == FF_TASK_SERVE && p->zero != 0)
        return ff_errf(err, errlen, FF_ERR_INVALID, "--zero applies to training, not --serve");
    if (p->grad_precision != FF_PREC_FP32 && p->grad_precision != FF_PREC_BF16 &&
        p->grad_precision != FF_PREC_FP16)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--grad-precision must be fp32, bf16 or fp16 (got %s)",
                       ff_precision_name(p->grad_precision));
    if (!ff_plan_tp_valid(m, p->tp)) {
        if (m->heads % p->tp != 0)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "--tp %lld does not divide the %lld attention heads of %s",
                           (long long)p->tp, (long long)m->heads, m->name);
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--tp %lld neither divides nor is a multiple of the %lld key/value "
                       "heads of %s",
                       (long long)p->tp, (long long)m->kv_heads, m->name);
    }
    if (p->pp > m->layers)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--pp %lld is more pipeline stages than the %lld layers of %s",
                       (long long)p->pp, (long long)m->layers, m->name);
    if (p->gpus_per_node > 0 && p->tp > p->gpus_per_node)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--tp %lld is more than the %lld GPUs of a node: tensor parallelism stays "
                       "within a node",
                       (long long)p->tp, (long long)p->gpus_per_node);
    if (p->ep > 1) {
        if (m->experts <= 0)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "--ep %lld: %s is a dense model (expert parallelism needs experts)",
                           (long long)p->ep, m->name);
        if (m->experts % p->ep != 0)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "--ep %lld does not divide the %lld experts of %s", (long long)p->ep,
                           (long long)m->experts, m->name);
        int64_t dp = p->gpus / (p->tp * p->pp * p->cp);
        int64_t fold = p->tp * p->cp * dp;
        if (p->gpus > 0 && !p->auto_layout && !p->ep_fold && dp % p->ep != 0)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "--ep %lld does not divide the %lld data-parallel ranks (--ep-fold on "
                           "draws expert ranks from tp x cp x dp = %lld)",
                           (long long)p->ep, (long long)dp, (long long)fold);
        if (p->gpus > 0 && !p->auto_layout && p->ep_fold && fold % p->ep != 0)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "--ep %lld does not divide the tp x cp x dp = %lld ranks of a pipeline "
                           "stage (--ep-fold on)",
                           (long long)p->ep, (long long)fold);
    }
    if (p->ep_fold && m->experts <= 0)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--ep-fold: %s is a dense model (parallel folding places experts)", m->name);
    if (p->cp > 1) {
        if (p->task == FF_TASK_SERVE)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "--cp applies to training (context parallelism splits training "
                           "sequences); serving uses --tp/--pp");
        int64_t s = ff_plan_seq(m, p);
        if (s % (2 * p->cp) != 0)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "--cp %lld: the sequence of %lld tokens is not a multiple of 2 x cp = "
                           "%lld (each rank takes two balanced chunks of the causal sequence)",
                           (long long)p->cp, (long long)s, (long long)(2 * p->cp));
        if (ff_model_attn_layers(m) == 0 && !m->rough)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "--cp: %s has no attention layers (ring attention splits attention)",
                           m->name);
    }
    if (p->pp_chunks > 1 && p->pp * p->pp_chunks > m->layers)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--pp-chunks %lld x --pp %lld is more model chunks than the %lld layers",
                       (long long)p->pp_chunks, (long long)p->pp, (long long)m->layers);
    int64_t mp = p->tp * p->pp * p->cp;
    const char *mp_name = p->cp > 1 ? "tp x pp x cp" : "tp x pp";
    if (mp > FF_PLAN_GPUS_MAX)
        return ff_errf(err, errlen, FF_ERR_RANGE,
                       "--tp %lld x --pp %lld x --cp %lld = %lld GPUs is more than the %d (10^6) "
                       "a plan may use",
                       (long long)p->tp, (long long)p->pp, (long long)p->cp, (long long)mp,
                       FF_PLAN_GPUS_MAX);
    if (p->gpus > 0) {
        if (p->gpus < mp)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "the plan needs %s = %lld GPUs but --gpus is %lld", mp_name,
                           (long long)mp, (long long)p->gpus);
        if (p->gpus % mp != 0)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "--gpus %lld is not a multiple of %s = %lld", (long long)p->gpus,
                           mp_name, (long long)mp);
        if (p->task == FF_TASK_SERVE && !p->auto_layout && p->gpus / mp > p->batch)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "more GPUs than needed: %lld model replicas for %lld sequences "
                           "(raise --batch or lower --gpus)",
                           (long long)(p->gpus / mp), (long long)p->batch);
    }
    return FF_OK;
}
