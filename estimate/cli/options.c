/*
 * estimate/cli/options.c — the options of `flopfit estimate`: the --help text, the getopt_long
 * table, and argv parsed into struct ff_estcli_opts and a plan with the typed parsers of
 * ff_util.h (each error names the option, the bad value and what is accepted).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "estcli.h"
#include "estimate_cli.h"

const char ff_estcli_usage_text[] =
    "usage: flopfit estimate --model NAME|config.json | --params N  [task] [plan] [device]\n"
    "\n"
    "Will this model train or serve on that device, on how many, how long, at what cost.\n"
    "\n"
    "model:\n"
    "  --model NAME|PATH      a preset (see --list-models), a Hugging Face config.json or a\n"
    "                         model folder (config.json + model.safetensors[.index.json]:\n"
    "                         the exact stored size); a preset name wins over a folder of\n"
    "                         that name here: write ./NAME for the folder\n"
    "  --gguf FILE            serve the weights a GGUF file stores (its tensors' exact sizes\n"
    "                         and file type; the architecture from --model)\n"
    "  --params N             rough: N parameters, shape guessed (e.g. 7e9)\n"
    "task (default --train):\n"
    "  --train                full training\n"
    "  --finetune lora|qlora  adapters on a frozen (QLoRA: NF4) base\n"
    "  --lora-rank R          adapter rank (16)   --lora-targets all|qv (all)\n"
    "  --serve                inference: --prompt N (512) --generate N (256)\n"
    "numerics and memory plan:\n"
    "  --precision P          fp32 bf16 fp16 fp8 | int8 int4 (GPTQ/AWQ) mxfp4 nvfp4\n"
    "                         q4_0 q4_k_m q8_0 (GGUF) (bf16; a model folder: as stored)\n"
    "  --kv-precision P       KV cache format (fp32 for fp32, fp16 for fp16 and GGUF, else bf16)\n"
    "  --grad-precision P     stored gradients fp32|bf16|fp16 (fp32)\n"
    "  --optimizer O          adamw adamw8bit sgd (adamw)\n"
    "  --paged-optimizer      optimizer states paged to host (bitsandbytes paged_*): off the\n"
    "                         forward/backward peak\n"
    "  --batch N              training: micro-batch (searched with --gpus; else 1);\n"
    "                         serving: concurrent sequences the answer is for (1)\n"
    "  --users N              serving: the same as --batch\n"
    "  --seq N                training sequence length (model context, at most 4096)\n"
    "  --accum N              gradient accumulation / pipeline micro-batches (1)\n"
    "  --recompute R          none | selective (Megatron: attention scores; with flash\n"
    "                         attention the same as none) | full | ops (keep matmul outputs,\n"
    "                         rerun norms and element-wise ops) | layers:K (checkpoint every\n"
    "                         K-th layer) (none)\n"
    "  --flash-attention on|off (on)   --sequence-parallel on|off (on)\n"
    "  --zero 0|1|2|3         ZeRO stage (0)\n"
    "  --tp N --pp N          tensor / pipeline parallel (1, 1)\n"
    "  --gpus N               GPUs in all; data parallel = gpus/(tp*pp) (the fewest that fit);\n"
    "                         without --tp/--pp the fastest layout of N GPUs that fits;\n"
    "                         at most 1000000 (10^6) GPUs in all, --nodes included\n"
    "multi-GPU:\n"
    "  --gpus-per-node G      GPUs per node (the device's platform, else 8); tp stays in one\n"
    "  --nodes N              whole nodes: --gpus = N x GPUs per node\n"
    "  --inter-node-gbps X    network per GPU, Gb/s (the catalog's: 400 on DGX H100)\n"
    "  --ep N                 MoE expert-parallel ranks (1)   --pp-chunks V interleaved (1)\n"
    "  --ep-fold on|off       expert ranks drawn from tp x cp x dp (parallel folding; experts\n"
    "                         whole, not split over tp) instead of dp alone (off)\n"
    "  --moe-imbalance F      most loaded expert rank over the mean, 1..8 (1.25)\n"
    "  --moe-a2a-overlap F    all-to-all fraction hidden under another micro-batch (0;\n"
    "                         DualPipe / combined 1F1B: 1); shared experts always hide it\n"
    "  --cp N                 context-parallel ranks: the sequence split over N (ring\n"
    "                         attention); gpus = tp x pp x cp x dp (1)\n"
    "  --tp-overlap F         TP communication fraction hidden under the GEMMs (with\n"
    "                         sequence parallelism (tp-1)/tp, else 0)\n"
    "  --dp-overlap on|off    gradient sync overlaps backward (on)\n"
    "  --plan best            the plan search, with its five best plans listed (the search\n"
    "                         runs by default whenever --tp/--pp are not given)\n"
    "  --global-batch B       training: sequences (1024, 2kseq) or tokens (4M, 512k, 4Mtok;\n"
    "                         k/M/G binary) per optimizer step (without --batch/--accum:\n"
    "                         2^21 tokens x (params/7e9)^(1/4), a power of two of sequences)\n"
    "  --deadline T           without --gpus: the fewest GPUs that finish in T (36h, 30d, 2w)\n"
    "  --compute-efficiency F the compute alone, fraction of peak (0.55; of a profile's\n"
    "                         measured matmul 1.0)\n"
    "device:\n"
    "  --device NAME|all      catalog device (see --list-devices); all = rank every one\n"
    "  --rank cost|time       --device all: rank by cost (default) or by time (serving:\n"
    "                         by aggregate tokens/s at --batch users)\n"
    "  --profile FILE         measured profile from `flopfit bench` (repeatable)\n"
    "run:\n"
    "  --tokens N             training tokens (20 x params; fine-tuning 1e8)\n"
    "  --mfu F                model FLOPs utilisation (train 0.40, serve prefill 0.60;\n"
    "                         a profile's measured matmul 1.0)\n"
    "  --achieved-tflops X    achieved hardware TFLOP/s per GPU instead of --mfu\n"
    "  --bw-fraction F        achieved fraction of memory bandwidth (0.70; a profile's read\n"
    "                         test 1.0)\n"
    "  --price USD            $ per GPU-hour (the catalog's typical rate)\n"
    "  --overhead-gib G       fixed runtime overhead per GPU: context, kernels, workspaces,\n"
    "                         NCCL (1, +0.5 with more than one GPU; 0 on a CPU/iGPU)\n"
    "output:\n"
    "  --json                 machine-readable\n"
    "  --list-models, --list-devices, --help\n";

enum {
    OPT_MODEL = 256,
    OPT_PARAMS,
    OPT_TRAIN,
    OPT_FINETUNE,
    OPT_SERVE,
    OPT_LORA_RANK,
    OPT_LORA_TARGETS,
    OPT_PRECISION,
    OPT_KV_PRECISION,
    OPT_GRAD_PRECISION,
    OPT_OPTIMIZER,
    OPT_PAGED,
    OPT_BATCH,
    OPT_SEQ,
    OPT_ACCUM,
    OPT_RECOMPUTE,
    OPT_FLASH,
    OPT_SP,
    OPT_ZERO,
    OPT_TP,
    OPT_PP,
    OPT_GPUS,
    OPT_PROMPT,
    OPT_GENERATE,
    OPT_DEVICE,
    OPT_PROFILE,
    OPT_TOKENS,
    OPT_MFU,
    OPT_ACHIEVED,
    OPT_BW,
    OPT_PRICE,
    OPT_OVERHEAD,
    OPT_JSON,
    OPT_LIST_MODELS,
    OPT_LIST_DEVICES,
    OPT_HELP,
    OPT_GPUS_PER_NODE,
    OPT_NODES,
    OPT_INTER_NODE,
    OPT_EP,
    OPT_PP_CHUNKS,
    OPT_DP_OVERLAP,
    OPT_PLAN,
    OPT_GLOBAL_BATCH,
    OPT_COMPUTE_EFF,
    OPT_GGUF,
    OPT_CP,
    OPT_EP_FOLD,
    OPT_MOE_IMBALANCE,
    OPT_MOE_A2A_OVERLAP,
    OPT_TP_OVERLAP,
    OPT_USERS,
    OPT_DEADLINE,
    OPT_RANK,
};

static const struct option long_opts[] = {
    {"model", required_argument, NULL, OPT_MODEL},
    {"params", required_argument, NULL, OPT_PARAMS},
    {"train", no_argument, NULL, OPT_TRAIN},
    {"finetune", required_argument, NULL, OPT_FINETUNE},
    {"serve", no_argument, NULL, OPT_SERVE},
    {"lora-rank", required_argument, NULL, OPT_LORA_RANK},
    {"lora-targets", required_argument, NULL, OPT_LORA_TARGETS},
    {"precision", required_argument, NULL, OPT_PRECISION},
    {"kv-precision", required_argument, NULL, OPT_KV_PRECISION},
    {"grad-precision", required_argument, NULL, OPT_GRAD_PRECISION},
    {"optimizer", required_argument, NULL, OPT_OPTIMIZER},
    {"paged-optimizer", no_argument, NULL, OPT_PAGED},
    {"batch", required_argument, NULL, OPT_BATCH},
    {"seq", required_argument, NULL, OPT_SEQ},
    {"accum", required_argument, NULL, OPT_ACCUM},
    {"recompute", required_argument, NULL, OPT_RECOMPUTE},
    {"flash-attention", required_argument, NULL, OPT_FLASH},
    {"sequence-parallel", required_argument, NULL, OPT_SP},
    {"zero", required_argument, NULL, OPT_ZERO},
    {"tp", required_argument, NULL, OPT_TP},
    {"pp", required_argument, NULL, OPT_PP},
    {"gpus", required_argument, NULL, OPT_GPUS},
    {"prompt", required_argument, NULL, OPT_PROMPT},
    {"generate", required_argument, NULL, OPT_GENERATE},
    {"device", required_argument, NULL, OPT_DEVICE},
    {"profile", required_argument, NULL, OPT_PROFILE},
    {"tokens", required_argument, NULL, OPT_TOKENS},
    {"mfu", required_argument, NULL, OPT_MFU},
    {"achieved-tflops", required_argument, NULL, OPT_ACHIEVED},
    {"bw-fraction", required_argument, NULL, OPT_BW},
    {"price", required_argument, NULL, OPT_PRICE},
    {"overhead-gib", required_argument, NULL, OPT_OVERHEAD},
    {"json", no_argument, NULL, OPT_JSON},
    {"list-models", no_argument, NULL, OPT_LIST_MODELS},
    {"list-devices", no_argument, NULL, OPT_LIST_DEVICES},
    {"help", no_argument, NULL, OPT_HELP},
    {"gpus-per-node", required_argument, NULL, OPT_GPUS_PER_NODE},
    {"nodes", required_argument, NULL, OPT_NODES},
    {"inter-node-gbps", required_argument, NULL, OPT_INTER_NODE},
    {"ep", required_argument, NULL, OPT_EP},
    {"pp-chunks", required_argument, NULL, OPT_PP_CHUNKS},
    {"dp-overlap", required_argument, NULL, OPT_DP_OVERLAP},
    {"plan", required_argument, NULL, OPT_PLAN},
    {"global-batch", required_argument, NULL, OPT_GLOBAL_BATCH},
    {"compute-efficiency", required_argument, NULL, OPT_COMPUTE_EFF},
    {"gguf", required_argument, NULL, OPT_GGUF},
    {"cp", required_argument, NULL, OPT_CP},
    {"ep-fold", required_argument, NULL, OPT_EP_FOLD},
    {"moe-imbalance", required_argument, NULL, OPT_MOE_IMBALANCE},
    {"moe-a2a-overlap", required_argument, NULL, OPT_MOE_A2A_OVERLAP},
    {"tp-overlap", required_argument, NULL, OPT_TP_OVERLAP},
    {"users", required_argument, NULL, OPT_USERS},
    {"deadline", required_argument, NULL, OPT_DEADLINE},
    {"rank", required_argument, NULL, OPT_RANK},
    {NULL, 0, NULL, 0},
};

/* Word options: the first listed name of each value is the one printed back. */
static const struct ff_choice finetune_choices[] = {
    {"lora", FF_TASK_LORA, false},
    {"qlora", FF_TASK_QLORA, false},
};
static const struct ff_choice lora_target_choices[] = {
    {"all", true, false},
    {"qv", false, false},
};
static const struct ff_choice optimizer_choices[] = {
    {"adamw", FF_OPT_ADAMW, false},
    {"adam", FF_OPT_ADAMW, true},
    {"adamw8bit", FF_OPT_ADAMW8BIT, false},
    {"adam8bit", FF_OPT_ADAMW8BIT, true},
    {"sgd", FF_OPT_SGD, false},
};
static const struct ff_choice recompute_choices[] = {
    {"none", FF_RECOMPUTE_NONE, false},       {"selective", FF_RECOMPUTE_SELECTIVE, false},
    {"full", FF_RECOMPUTE_FULL, false},       {"ops", FF_RECOMPUTE_OPS, false},
    {"layers:2", FF_RECOMPUTE_LAYERS, false}, /* an example K for completion; parse_recompute
                                                 reads any layers:K */
};
static const struct ff_choice rank_choices[] = {
    {"cost", 0, false},
    {"time", 1, false},
};
static const struct ff_choice plan_choices[] = {
    {"given", 0, false},
    {"best", 1, false},
};
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* A weight, KV or gradient format: any ff_precision but nf4 (QLoRA's base: --finetune
 * qlora) and fp4 (a device rate, not a format with scales: mxfp4 or nvfp4). */
static int parse_prec(const char *opt, const char *s, enum ff_precision *out, char *err,
                      size_t errlen)
{
    enum ff_precision v;
    if (ff_precision_parse(s, &v) != FF_OK || v == FF_PREC_NF4 || v == FF_PREC_FP4)
        return ff_bad_value(err, errlen, opt, s,
                            "fp32, bf16, fp16, fp8, int8 or int4, or a 4/8-bit storage format "
                            "mxfp4, nvfp4, q4_0, q4_k_m or q8_0");
    *out = v;
    return FF_OK;
}

/* --recompute none|selective|full|ops|layers:K (K a whole number from 1). */
static int parse_recompute(const char *s, struct ff_plan *p, char *err, size_t errlen)
{
    static const char accepted[] = "none, selective, full, ops or layers:K (K >= 1: checkpoint "
                                   "every K-th layer)";
    if (strncmp(s, "layers", 6) == 0) {
        if (s[6] != ':' || !s[7])
            return ff_bad_value(err, errlen, "--recompute", s, accepted);
        int64_t k;
        char sub[128];
        if (ff_parse_i64("--recompute layers:K", s + 7, 1, 1 << 20, &k, sub, sizeof(sub)) != FF_OK)
            return ff_bad_value(err, errlen, "--recompute", s, accepted);
        p->recompute = FF_RECOMPUTE_LAYERS;
        p->recompute_every = k;
        return FF_OK;
    }
    int w;
    if (ff_parse_choice("--recompute", s, recompute_choices, N_OF(recompute_choices), &w, NULL,
                        0) != FF_OK)
        return ff_bad_value(err, errlen, "--recompute", s, accepted);
    p->recompute = (enum ff_recompute)w;
    p->recompute_every = 0;
    return FF_OK;
}

const struct option *ff_estcli_options(void)
{
    return long_opts;
}

/* The value tables, by option: a choice table, or a list the library holds. */
static const struct {
    const char *option;
    const struct ff_choice *choices;
    size_t n;
} word_tables[] = {
    {"finetune", finetune_choices, N_OF(finetune_choices)},
    {"lora-targets", lora_target_choices, N_OF(lora_target_choices)},
    {"optimizer", optimizer_choices, N_OF(optimizer_choices)},
    {"recompute", recompute_choices, N_OF(recompute_choices)},
    {"plan", plan_choices, N_OF(plan_choices)},
    {"rank", rank_choices, N_OF(rank_choices)},
};
static const char *const onoff_options[] = {"flash-attention", "sequence-parallel", "dp-overlap",
                                            "ep-fold"};
static const char *const precision_options[] = {"precision", "kv-precision", "grad-precision"};

static bool listed(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, list[i]) == 0)
            return true;
    return false;
}

size_t ff_estcli_option_words(const char *name, const char **words, size_t max)
{
    size_t n = 0;
    for (size_t t = 0; t < N_OF(word_tables); t++)
        if (strcmp(name, word_tables[t].option) == 0)
            for (size_t i = 0; i < word_tables[t].n && n < max; i++)
                if (!word_tables[t].choices[i].alias)
                    words[n++] = word_tables[t].choices[i].name;
    if (listed(name, onoff_options, N_OF(onoff_options)))
        for (size_t i = 0; i < 2 && n < max; i++)
            words[n++] = i == 0 ? "on" : "off";
    if (listed(name, precision_options, N_OF(precision_options)))
        for (int p = 0; p < FF_PREC_COUNT && n < max; p++) {
            enum ff_precision v;
            if (parse_prec(name, ff_precision_name((enum ff_precision)p), &v, NULL, 0) == FF_OK)
                words[n++] = ff_precision_name((enum ff_precision)p);
        }
    if (strcmp(name, "model") == 0) {
        size_t count = 0;
        const struct ff_model_preset *presets = ff_model_presets(&count);
        for (size_t i = 0; i < count && n < max; i++)
            words[n++] = presets[i].slug;
    }
    if (strcmp(name, "device") == 0) {
        for (size_t i = 0; i < ff_spec_catalog_count() && n < max; i++)
            words[n++] = ff_spec_catalog_at(i)->slug;
        if (n < max)
            words[n++] = "all";
    }
    return n;
}

/* Options that exclude or need each other, after all are read. */
static int check_combinations(const struct ff_estcli_opts *o, const struct ff_plan *p, char *err,
                              size_t errlen)
{
    if (o->tasks > 1)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "give one task: --train, --finetune lora|qlora or --serve");
    if (o->lora_rank_set && p->task != FF_TASK_LORA && p->task != FF_TASK_QLORA)
        return ff_errf(err, errlen, FF_ERR_INVALID, "--lora-rank applies to --finetune lora|qlora");
    if (o->serve_opts_set && p->task != FF_TASK_SERVE)
        return ff_errf(err, errlen, FF_ERR_INVALID, "--prompt and --generate apply to --serve");
    if (o->tokens_set && p->task == FF_TASK_SERVE)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--tokens applies to training; --serve uses --prompt/--generate");
    if (p->paged_optimizer && p->task == FF_TASK_SERVE)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--paged-optimizer applies to training and fine-tuning, not --serve");
    if (p->mfu > 0 && p->achieved_flops_per_s > 0)
        return ff_errf(err, errlen, FF_ERR_INVALID, "give either --mfu or --achieved-tflops");
    if (o->nodes > 0 && o->gpus_set)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "give either --nodes N (with --gpus-per-node) or --gpus N, not both");
    if (o->plan_best && p->task == FF_TASK_SERVE)
        return ff_errf(err, errlen, FF_ERR_INVALID, "--plan best plans training, not --serve");
    if (o->plan_best && (o->tp_set || o->pp_set))
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--plan best chooses tp and pp itself; drop --tp/--pp or --plan best");
    if (o->global_batch_set && p->task == FF_TASK_SERVE)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--global-batch applies to training; --serve takes --batch (or --users)");
    if (o->global_batch_set && o->accum_set)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "give either --global-batch or --accum: the accumulation follows from the "
                       "global batch, the micro-batch and the data-parallel ranks");
    if (p->deadline_seconds > 0 && (o->gpus_set || o->nodes > 0))
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--deadline finds the GPUs itself; drop --gpus/--nodes or --deadline");
    if (p->deadline_seconds > 0 && (o->tp_set || o->pp_set))
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--deadline chooses the layout itself; drop --tp/--pp or --deadline");
    if (p->deadline_seconds > 0 && p->task == FF_TASK_SERVE)
        return ff_errf(err, errlen, FF_ERR_INVALID, "--deadline applies to training, not --serve");
    if (p->deadline_seconds > 0 && (p->mfu > 0 || p->achieved_flops_per_s > 0))
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--deadline searches the modelled step; it does not take --mfu or "
                       "--achieved-tflops");
    if (o->plan_best && !o->gpus_set && o->nodes <= 0)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--plan best needs the GPUs to plan on: --gpus N or --nodes N");
    if (p->task == FF_TASK_SERVE && (p->cp > 1 || p->ep_fold || p->moe_imbalance > 0 ||
                                     p->moe_a2a_overlap >= 0 || p->tp_overlap >= 0))
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--cp, --ep-fold, --moe-imbalance, --moe-a2a-overlap and --tp-overlap "
                       "apply to training, not --serve");
    if (p->gpus_per_node > 0 && o->tp_set && p->tp > p->gpus_per_node)
        return ff_errf(err, errlen, FF_ERR_INVALID,
                       "--tp %lld is more than --gpus-per-node %lld: tensor parallelism stays "
                       "within a node",
                       (long long)p->tp, (long long)p->gpus_per_node);
    return FF_OK;
}

int ff_estcli_parse(int argc, char **argv, struct ff_estcli_opts *o, struct ff_plan *p, char *err,
                    size_t errlen)
{
    int64_t v;
    double x;
    int w;
    int rc = FF_OK;
    optind = 0; /* glibc: full re-initialisation, ff_cmd_estimate may run more than once */
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", long_opts, NULL)) != -1) {
        const char *opt = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
        switch (c) {
        case OPT_MODEL: o->model_arg = optarg; break;
        case OPT_PARAMS:
            rc = ff_parse_double_above("--params", optarg, 0, 1e15, &o->params, err, errlen);
            break;
        case OPT_TRAIN:
            p->task = FF_TASK_TRAIN;
            o->tasks++;
            break;
        case OPT_SERVE:
            p->task = FF_TASK_SERVE;
            o->tasks++;
            break;
        case OPT_FINETUNE:
            o->tasks++;
            rc = ff_parse_choice("--finetune", optarg, finetune_choices, N_OF(finetune_choices), &w,
                                 err, errlen);
            if (rc == FF_OK)
                p->task = (enum ff_task)w;
            break;
        case OPT_LORA_RANK:
            o->lora_rank_set = true;
            rc = ff_parse_i64("--lora-rank", optarg, 1, 1 << 20, &p->lora_rank, err, errlen);
            break;
        case OPT_LORA_TARGETS:
            rc = ff_parse_choice("--lora-targets", optarg, lora_target_choices,
                                 N_OF(lora_target_choices), &w, err, errlen);
            if (rc == FF_OK)
                p->lora_all_linear = w != 0;
            break;
        case OPT_PRECISION:
            o->precision_set = true;
            rc = parse_prec("--precision", optarg, &p->precision, err, errlen);
            break;
        case OPT_KV_PRECISION:
            rc = parse_prec("--kv-precision", optarg, &p->kv_precision, err, errlen);
            p->kv_precision_set = true;
            break;
        case OPT_GRAD_PRECISION:
            rc = parse_prec("--grad-precision", optarg, &p->grad_precision, err, errlen);
            break;
        case OPT_OPTIMIZER:
            rc = ff_parse_choice("--optimizer", optarg, optimizer_choices, N_OF(optimizer_choices),
                                 &w, err, errlen);
            if (rc == FF_OK)
                p->optimizer = (enum ff_optimizer)w;
            break;
        case OPT_PAGED: p->paged_optimizer = true; break;
        case OPT_BATCH:
        case OPT_USERS:
            o->batch_set = true;
            rc = ff_parse_i64(c == OPT_USERS ? "--users" : "--batch", optarg, 1, (int64_t)1 << 30,
                              &p->batch, err, errlen);
            break;
        case OPT_SEQ:
            rc = ff_parse_i64("--seq", optarg, 1, (int64_t)1 << 34, &p->seq, err, errlen);
            break;
        case OPT_ACCUM:
            o->accum_set = true;
            rc = ff_parse_i64("--accum", optarg, 1, (int64_t)1 << 30, &p->accum, err, errlen);
            break;
        case OPT_RECOMPUTE:
            rc = parse_recompute(optarg, p, err, errlen);
            o->recompute_set = true;
            break;
        case OPT_CP:
            rc = ff_parse_i64("--cp", optarg, 1, 1 << 16, &p->cp, err, errlen);
            o->cp_set = true;
            break;
        case OPT_EP_FOLD: rc = ff_parse_onoff("--ep-fold", optarg, &p->ep_fold, err, errlen); break;
        case OPT_MOE_IMBALANCE:
            rc = ff_parse_double("--moe-imbalance", optarg, 1, 8, &p->moe_imbalance, err, errlen);
            break;
        case OPT_MOE_A2A_OVERLAP:
            rc = ff_parse_double("--moe-a2a-overlap", optarg, 0, 1, &p->moe_a2a_overlap, err,
                                 errlen);
            break;
        case OPT_TP_OVERLAP:
            rc = ff_parse_double("--tp-overlap", optarg, 0, 1, &p->tp_overlap, err, errlen);
            break;
        case OPT_FLASH:
            rc = ff_parse_onoff("--flash-attention", optarg, &p->flash_attention, err, errlen);
            break;
        case OPT_SP:
            rc = ff_parse_onoff("--sequence-parallel", optarg, &p->sequence_parallel, err, errlen);
            break;
        case OPT_ZERO:
            o->zero_set = true;
            rc = ff_parse_i64("--zero", optarg, 0, 3, &v, err, errlen);
            if (rc == FF_OK)
                p->zero = (int)v;
            break;
        case OPT_TP:
            o->tp_set = true;
            rc = ff_parse_i64("--tp", optarg, 1, 1 << 16, &p->tp, err, errlen);
            break;
        case OPT_PP:
            o->pp_set = true;
            rc = ff_parse_i64("--pp", optarg, 1, 1 << 16, &p->pp, err, errlen);
            break;
        case OPT_GPUS_PER_NODE:
            rc =
                ff_parse_i64("--gpus-per-node", optarg, 1, 1 << 16, &p->gpus_per_node, err, errlen);
            break;
        case OPT_NODES:
            rc = ff_parse_i64("--nodes", optarg, 1, FF_PLAN_GPUS_MAX, &o->nodes, err, errlen);
            break;
        case OPT_INTER_NODE:
            /* Gb/s per GPU: 1600 is two 800 Gb/s ports, the most any GPU platform ships. */
            rc = ff_parse_double_above("--inter-node-gbps", optarg, 0, 1600, &x, err, errlen);
            if (rc == FF_OK)
                p->inter_node_bytes_per_s = x * 1e9 / 8.0;
            break;
        case OPT_EP:
            o->ep_set = true;
            rc = ff_parse_i64("--ep", optarg, 1, 1 << 20, &p->ep, err, errlen);
            break;
        case OPT_PP_CHUNKS:
            rc = ff_parse_i64("--pp-chunks", optarg, 1, 1 << 16, &p->pp_chunks, err, errlen);
            break;
        case OPT_DP_OVERLAP:
            rc = ff_parse_onoff("--dp-overlap", optarg, &p->dp_overlap, err, errlen);
            break;
        case OPT_PLAN:
            rc = ff_parse_choice("--plan", optarg, plan_choices, N_OF(plan_choices), &w, err,
                                 errlen);
            if (rc == FF_OK)
                o->plan_best = w != 0;
            break;
        case OPT_GLOBAL_BATCH:
            o->global_batch_set = true;
            rc = ff_parse_global_batch("--global-batch", optarg, &p->global_batch,
                                       &p->global_batch_tokens, err, errlen);
            break;
        case OPT_DEADLINE:
            rc = ff_parse_duration("--deadline", optarg, &p->deadline_seconds, err, errlen);
            break;
        case OPT_RANK:
            rc = ff_parse_choice("--rank", optarg, rank_choices, N_OF(rank_choices), &w, err,
                                 errlen);
            if (rc == FF_OK)
                o->rank_time = w != 0;
            break;
        case OPT_COMPUTE_EFF:
            rc = ff_parse_double_above("--compute-efficiency", optarg, 0, 1, &p->compute_efficiency,
                                       err, errlen);
            break;
        case OPT_GPUS:
            o->gpus_set = true;
            rc = ff_parse_i64("--gpus", optarg, 1, FF_PLAN_GPUS_MAX, &p->gpus, err, errlen);
            break;
        case OPT_PROMPT:
            o->serve_opts_set = true;
            rc = ff_parse_i64("--prompt", optarg, 1, (int64_t)1 << 34, &p->prompt, err, errlen);
            break;
        case OPT_GENERATE:
            o->serve_opts_set = true;
            rc = ff_parse_i64("--generate", optarg, 1, (int64_t)1 << 34, &p->generate, err, errlen);
            break;
        case OPT_DEVICE: o->device_arg = optarg; break;
        case OPT_GGUF: o->gguf = optarg; break;
        case OPT_PROFILE:
            if (o->n_profiles == FF_ESTCLI_MAX_PROFILES)
                rc = ff_errf(err, errlen, FF_ERR_INVALID, "at most %d profiles",
                             FF_ESTCLI_MAX_PROFILES);
            else
                o->profiles[o->n_profiles++] = optarg;
            break;
        case OPT_TOKENS:
            o->tokens_set = true;
            rc = ff_parse_double_above("--tokens", optarg, 0, 1e18, &p->tokens, err, errlen);
            break;
        case OPT_MFU:
            rc = ff_parse_double_above("--mfu", optarg, 0, 1, &p->mfu, err, errlen);
            break;
        case OPT_ACHIEVED:
            rc = ff_parse_double_above("--achieved-tflops", optarg, 0, 1e6, &x, err, errlen);
            if (rc == FF_OK)
                p->achieved_flops_per_s = x * 1e12;
            break;
        case OPT_BW:
            rc = ff_parse_double_above("--bw-fraction", optarg, 0, 1, &p->bw_fraction, err, errlen);
            break;
        case OPT_PRICE:
            rc = ff_parse_double_above("--price", optarg, 0, 1e5, &p->price_per_hour, err, errlen);
            break;
        case OPT_OVERHEAD:
            rc = ff_parse_double("--overhead-gib", optarg, 0, 1e4, &x, err, errlen);
            if (rc == FF_OK)
                p->overhead_bytes = x * GIB;
            break;
        case OPT_JSON: o->json = true; break;
        case OPT_LIST_MODELS: o->list_models = true; break;
        case OPT_LIST_DEVICES: o->list_devices = true; break;
        case OPT_HELP: o->help = true; break;
        case ':': rc = ff_errf(err, errlen, FF_ERR_INVALID, "option %s needs a value", opt); break;
        default: rc = ff_unknown_option(err, errlen, opt, long_opts); break;
        }
        if (rc != FF_OK)
            return rc;
    }
    if (optind < argc)
        return ff_errf(err, errlen, FF_ERR_INVALID, "unexpected argument '%s' (see --help)",
                       argv[optind]);
    /* --nodes N: N whole nodes; with no --gpus-per-node the device's node size is applied
     * once the device is known (ff_estcli_apply_nodes). */
    if (o->nodes > 0 && p->gpus_per_node > 0) {
        if (o->nodes * p->gpus_per_node > FF_PLAN_GPUS_MAX)
            return ff_errf(err, errlen, FF_ERR_INVALID,
                           "--nodes %lld x --gpus-per-node %lld = %lld GPUs is more than the %d "
                           "(10^6) a plan may use",
                           (long long)o->nodes, (long long)p->gpus_per_node,
                           (long long)(o->nodes * p->gpus_per_node), FF_PLAN_GPUS_MAX);
        p->gpus = o->nodes * p->gpus_per_node;
    }
    /* --gpus alone: the tool chooses tp and pp for that many GPUs. */
    p->auto_layout = (p->gpus > 0 || o->nodes > 0) && !o->tp_set && !o->pp_set && !o->plan_best;
    /* Training with no layout given: the plan search chooses every dimension the options do
     * not fix, on the given GPUs or on the fewest that fit (doc/estimator.md "The plan
     * search"); with no batch given, the global batch is the default rule. */
    if (p->task != FF_TASK_SERVE && !o->tp_set && !o->pp_set) {
        unsigned fixed = (o->zero_set ? FF_SEARCH_ZERO : 0u) |
                         (o->recompute_set ? FF_SEARCH_RECOMPUTE : 0u) |
                         (o->batch_set ? FF_SEARCH_BATCH : 0u) | (o->ep_set ? FF_SEARCH_EP : 0u) |
                         (o->cp_set ? FF_SEARCH_CP : 0u);
        p->search = FF_SEARCH_ALL & ~fixed;
        /* --accum alone keeps the micro-batch at 1; fine-tuning with no global batch keeps
         * its micro-batch (no default rule for it: the work per step would follow the
         * micro-batch). */
        if ((o->accum_set && !o->batch_set) || (p->task != FF_TASK_TRAIN && !o->global_batch_set))
            p->search &= ~FF_SEARCH_BATCH;
    }
    p->global_batch_default =
        p->task == FF_TASK_TRAIN && !o->batch_set && !o->accum_set && !o->global_batch_set;
    return check_combinations(o, p, err, errlen);
}
