/*
 * estimate/src/abi.c — the leading struct_size of the growing public structs (doc/abi.md):
 * the _init functions that set it, and the views that let the rest of the library work on
 * full-size structs whatever size a caller was built with (the checks: util/ff_abi.h).
 */
#include <stdint.h>
#include <string.h>

#include "flopfit/estimate.h"
#include "flopfit/model.h"
#include "flopfit/spec.h"
#include "flopfit/status.h"
#include "internal.h"

static void plan_defaults(struct ff_plan *p)
{
    memset(p, 0, sizeof(*p));
    p->struct_size = sizeof(*p);
    p->task = FF_TASK_TRAIN;
    p->precision = FF_PREC_BF16;
    p->kv_precision = FF_PREC_BF16;
    p->grad_precision = FF_PREC_FP32;
    p->optimizer = FF_OPT_ADAMW;
    p->batch = 1;
    p->accum = 1;
    p->recompute = FF_RECOMPUTE_NONE;
    p->flash_attention = true;
    p->sequence_parallel = true;
    p->tp = p->pp = 1;
    p->lora_rank = 16;
    p->lora_all_linear = true;
    p->prompt = 512;
    p->generate = 256;
    p->overhead_bytes = -1.0;
    p->overhead_fraction = -1.0;
    p->ep = 1;
    p->pp_chunks = 1;
    p->dp_overlap = true;
    p->cp = 1;
    p->moe_a2a_overlap = -1.0;
    p->tp_overlap = -1.0;
}

/* A size this library does not know: zero what the caller says it has, keep the size, so
 * every later call refuses the struct with a message. */
static int refuse(void *s, size_t size, size_t full)
{
    if (size >= sizeof(size_t)) {
        memset(s, 0, size < full ? size : full);
        ff_abi_set_size(s, size);
    }
    return FF_ERR_UNSUPPORTED;
}

int ff_plan_init_sized(struct ff_plan *p, size_t size)
{
    if (!p)
        return FF_ERR_INVALID;
    if (size < FF_PLAN_SIZE_MIN || size > sizeof(*p))
        return refuse(p, size, sizeof(*p));
    struct ff_plan full;
    plan_defaults(&full);
    memcpy(p, &full, size);
    p->struct_size = size;
    return FF_OK;
}

/* The _init of a struct whose every field starts at zero. */
static int init_zero(void *s, size_t size, size_t min, size_t full)
{
    if (!s)
        return FF_ERR_INVALID;
    if (size < min || size > full)
        return refuse(s, size, full);
    memset(s, 0, size);
    ff_abi_set_size(s, size);
    return FF_OK;
}

int ff_estimate_init_sized(struct ff_estimate *e, size_t size)
{
    return init_zero(e, size, FF_ESTIMATE_SIZE_MIN, sizeof(*e));
}

int ff_plan_choice_init_sized(struct ff_plan_choice *c, size_t n, size_t size)
{
    if (!c)
        return FF_ERR_INVALID;
    if (size < FF_PLAN_CHOICE_SIZE_MIN || size > sizeof(*c)) {
        if (n > 0)
            refuse(c, size, sizeof(*c));
        return FF_ERR_UNSUPPORTED;
    }
    unsigned char *at = (unsigned char *)c;
    for (size_t i = 0; i < n; i++, at += size) {
        memset(at, 0, size);
        ff_abi_set_size(at, size);
        ff_abi_set_size(at + offsetof(struct ff_plan_choice, plan),
                        size - offsetof(struct ff_plan_choice, plan));
    }
    return FF_OK;
}

int ff_plan_view(const struct ff_plan **p, struct ff_plan *buf, char *err, size_t errlen)
{
    size_t size = (*p)->struct_size;
    if (size == sizeof(**p))
        return FF_OK;
    int rc =
        ff_abi_size("ff_plan", "ff_plan_init", size, FF_PLAN_SIZE_MIN, sizeof(**p), err, errlen);
    if (rc != FF_OK)
        return rc;
    plan_defaults(buf);
    memcpy(buf, *p, size);
    buf->struct_size = sizeof(*buf);
    *p = buf;
    return FF_OK;
}

int ff_model_init_sized(struct ff_model *m, size_t size)
{
    return init_zero(m, size, FF_MODEL_SIZE_MIN, sizeof(*m));
}

int ff_spec_init_sized(struct ff_spec *d, size_t size)
{
    return init_zero(d, size, FF_SPEC_SIZE_MIN, sizeof(*d));
}

/* A view of a struct of the caller's size as a full one: `in` itself, or a zero-filled copy. */
static int view(const void **in, void *buf, size_t full, size_t min, const char *type,
                const char *init, char *err, size_t errlen)
{
    size_t size = ff_abi_get_size(*in);
    if (size == full)
        return FF_OK;
    int rc = ff_abi_size(type, init, size, min, full, err, errlen);
    if (rc != FF_OK)
        return rc;
    memset(buf, 0, full);
    memcpy(buf, *in, size);
    ff_abi_set_size(buf, full);
    *in = buf;
    return FF_OK;
}

int ff_model_view(const struct ff_model **m, struct ff_model *buf, char *err, size_t errlen)
{
    const void *in = *m;
    int rc =
        view(&in, buf, sizeof(*buf), FF_MODEL_SIZE_MIN, "ff_model", "ff_model_init", err, errlen);
    *m = in;
    return rc;
}

int ff_spec_view(const struct ff_spec **d, struct ff_spec *buf, char *err, size_t errlen)
{
    const void *in = *d;
    int rc = view(&in, buf, sizeof(*buf), FF_SPEC_SIZE_MIN, "ff_spec", "ff_spec_init", err, errlen);
    *d = in;
    return rc;
}
