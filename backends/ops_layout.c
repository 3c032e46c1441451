/*
 * backends/ops_layout.c — the buffers of the op kernels (backend.h, FF_KERNEL_GEMV and the
 * ones after it): which formats each takes and how many bytes each buffer holds. The
 * front-end checks runs against these sizes and callers allocate by them.
 */
#include "backend.h"

bool ff_op_gemv_format(enum ff_precision p)
{
    switch (p) {
    case FF_PREC_FP32:
    case FF_PREC_FP16:
    case FF_PREC_BF16:
    case FF_PREC_INT8:
    case FF_PREC_Q8_0:
    case FF_PREC_Q4_0: return true;
    default: return false;
    }
}

bool ff_op_kv_format(enum ff_precision p)
{
    return p == FF_PREC_FP32 || p == FF_PREC_FP16 || p == FF_PREC_BF16;
}

/* Bytes of an element of an fp32/fp16/bf16 array. */
static uint64_t float_bytes(enum ff_precision p)
{
    return p == FF_PREC_FP32 ? 4 : 2;
}

/* GEMV's W (quants or elements) and S (scales) for n rows of k weights. */
static uint64_t gemv_w_bytes(enum ff_precision p, uint64_t n, uint64_t k)
{
    switch (p) {
    case FF_PREC_INT8:
    case FF_PREC_Q8_0: return n * k;
    case FF_PREC_Q4_0: return n * k / 2;
    default: return n * k * float_bytes(p);
    }
}

static uint64_t gemv_s_bytes(enum ff_precision p, uint64_t n, uint64_t k)
{
    switch (p) {
    case FF_PREC_INT8: return n * 4;
    case FF_PREC_Q8_0:
    case FF_PREC_Q4_0: return n * (k / 32) * 2;
    default: return 4;
    }
}

uint64_t ff_op_buf_bytes(const struct ff_kernel_desc *d, uint32_t i, const char **name)
{
    static const char *const names[][FF_MAX_BUFS] = {
        [FF_KERNEL_GEMV - FF_KERNEL_FIRST_OP] = {"X", "W", "S", "Y"},
        [FF_KERNEL_ATTN_DECODE - FF_KERNEL_FIRST_OP] = {"Q", "K", "V", "O"},
        [FF_KERNEL_ATTN_PREFILL - FF_KERNEL_FIRST_OP] = {"Q", "K", "V", "O"},
        [FF_KERNEL_RMSNORM - FF_KERNEL_FIRST_OP] = {"X", "W", "Y"},
        [FF_KERNEL_ROPE - FF_KERNEL_FIRST_OP] = {"X", "Y"},
        [FF_KERNEL_SWIGLU - FF_KERNEL_FIRST_OP] = {"G", "U", "Y"},
        [FF_KERNEL_ADD - FF_KERNEL_FIRST_OP] = {"A", "B", "Y"},
        [FF_KERNEL_XENT - FF_KERNEL_FIRST_OP] = {"X", "T", "L"},
    };
    if (name)
        *name = "?";
    if (!d || !ff_kernel_is_op(d->id) || i >= FF_MAX_BUFS)
        return 0;
    const char *nm = names[d->id - FF_KERNEL_FIRST_OP][i];
    if (!nm)
        return 0;
    if (name)
        *name = nm;
    const uint64_t m = d->m, n = d->n, k = d->k, g = d->g ? d->g : 1;
    switch (d->id) {
    case FF_KERNEL_GEMV: {
        const uint64_t sizes[] = {m * k * 4, gemv_w_bytes(d->prec, n, k),
                                  gemv_s_bytes(d->prec, n, k), m * n * 4};
        return sizes[i];
    }
    case FF_KERNEL_ATTN_DECODE:
        return i == 0 || i == 3 ? m * k * 4 : m / g * n * k * float_bytes(d->prec);
    case FF_KERNEL_ATTN_PREFILL:
        return i == 0 || i == 3 ? m * n * k * 4 : m / g * n * k * float_bytes(d->prec);
    case FF_KERNEL_RMSNORM: return i == 1 ? n * 4 : m * n * 4;
    case FF_KERNEL_XENT: return i == 0 ? m * n * 4 : m * 4;
    case FF_KERNEL_ROPE:
    case FF_KERNEL_SWIGLU:
    case FF_KERNEL_ADD: return m * n * 4;
    default: return 0;
    }
}
