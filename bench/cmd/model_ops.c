/*
 * bench/cmd/model_ops.c — `flopfit bench --model M`: the model's operations, from the same op
 * list the estimator sums (libflopfit's ff_model_ops), as the ops family's kernels.
 */
#include <stdio.h>
#include <string.h>

#include <flopfit/model.h>
#include <flopfit/ops.h>

#include "cli.h"

static const enum ff_kernel_id kernel_of[FF_OP_KIND_COUNT] = {
    [FF_OP_GEMM] = FF_KERNEL_MATMUL,
    [FF_OP_GEMV] = FF_KERNEL_GEMV,
    [FF_OP_ATTN_DECODE] = FF_KERNEL_ATTN_DECODE,
    [FF_OP_ATTN_PREFILL] = FF_KERNEL_ATTN_PREFILL,
    [FF_OP_RMSNORM] = FF_KERNEL_RMSNORM,
    [FF_OP_ROPE] = FF_KERNEL_ROPE,
    [FF_OP_SWIGLU] = FF_KERNEL_SWIGLU,
    [FF_OP_ADD] = FF_KERNEL_ADD,
    [FF_OP_XENT] = FF_KERNEL_XENT,
};

/* Appends list's kernels that out does not hold yet. */
static int append(const struct ff_op_list *list, struct ff_bench_op *out, size_t max, size_t *n,
                  char *err, size_t errlen)
{
    for (size_t i = 0; i < list->n; i++) {
        const struct ff_op *op = &list->op[i];
        struct ff_kernel_desc d = {.id = kernel_of[op->kind],
                                   .prec = op->prec,
                                   .m = op->m,
                                   .n = op->n,
                                   .k = op->k,
                                   .g = op->g};
        bool seen = false;
        for (size_t j = 0; j < *n && !seen; j++)
            seen = !memcmp(&out[j].desc, &d, sizeof(d));
        if (seen)
            continue;
        if (*n >= max)
            return ff_errf(err, errlen, FF_ERR_INVALID, "more than %zu distinct operations", max);
        out[*n].desc = d;
        snprintf(out[*n].what, sizeof(out[*n].what), "%s", op->what);
        (*n)++;
    }
    return FF_OK;
}

int ff_bench_model_ops(const struct ff_bench_model *bm, struct ff_bench_op *out, size_t max,
                       size_t *n, char *err, size_t errlen)
{
    struct ff_model m;
    ff_model_init(&m);
    int ret = ff_model_resolve(bm->name, &m, err, errlen);
    if (ret == FF_ERR_NOT_FOUND) {
        char near[256];
        ff_model_suggest(bm->name, near, sizeof(near), 4);
        return ff_errf(err, errlen, FF_ERR_NOT_FOUND,
                       "invalid value '%s' for --model: expected a preset (`flopfit estimate "
                       "--list-models`), a config.json or a model folder%s%s%s",
                       bm->name, near[0] ? "; did you mean " : "", near, near[0] ? "?" : "");
    }
    if (ret < 0)
        return ret;
    const enum ff_precision dflt = bm->train ? FF_PREC_FP32 : FF_PREC_BF16;
    const size_t n_w = bm->n_weights ? bm->n_weights : 1;
    *n = 0;
    for (size_t w = 0; w < n_w; w++) {
        const enum ff_precision wf = bm->n_weights ? bm->weights[w] : dflt;
        struct ff_op_params p = {
            .batch = bm->batch ? bm->batch : 1,
            .seq = bm->seq ? bm->seq : 512,
            .weights = wf,
            .kv = bm->kv_given ? bm->kv : ff_precision_default_kv(wf), /* as estimate */
            .tp = bm->tp ? bm->tp : 1,
        };
        /* serving: the prompt, then decode at contexts an eighth of it, its end and four
         * times it (attention's time grows with the context: points for the estimator to
         * interpolate between, short generations included) */
        const struct {
            enum ff_op_phase phase;
            uint32_t mul, div;
        } steps[] = {{FF_OP_PHASE_PREFILL, 1, 1},
                     {FF_OP_PHASE_DECODE, 1, 8},
                     {FF_OP_PHASE_DECODE, 1, 1},
                     {FF_OP_PHASE_DECODE, 4, 1}};
        for (size_t s = 0; s < (bm->train ? 1 : sizeof(steps) / sizeof(steps[0])); s++) {
            struct ff_op_list list;
            p.phase = bm->train ? FF_OP_PHASE_TRAIN : steps[s].phase;
            uint32_t seq = bm->seq ? bm->seq : 512;
            p.seq = bm->train ? seq : seq * steps[s].mul / steps[s].div;
            if (p.seq == 0)
                continue;
            if ((ret = ff_model_ops(&m, &p, &list, err, errlen)) < 0)
                return ret;
            if ((ret = append(&list, out, max, n, err, errlen)) < 0)
                return ret;
        }
    }
    return FF_OK;
}
