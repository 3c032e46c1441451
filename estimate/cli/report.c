/* estimate/cli/report.c — what the text and JSON reports share: the memory terms. */
#include <stddef.h>

#include "cli_report.h"

#define TERM(label, key, field, why, why_serve)                                                    \
    {                                                                                              \
        label, key, offsetof(struct ff_memory, field), why, why_serve                              \
    }

const struct ff_report_mem_term ff_report_mem_terms[] = {
    TERM("weights", "weights", weights, "", NULL),
    TERM("gradients", "gradients", gradients, "", NULL),
    TERM("optimizer", "optimizer", optimizer, "", NULL),
    TERM("activations", "activations", activations, "",
         "one prefill's transients + last-token logits"),
    TERM("KV cache", "kv_cache", kv_cache, "",
         "prompt + generate tokens per sequence (SSM blocks: their fixed state)"),
    TERM("overhead", "overhead", overhead,
         "context+kernels 1 GiB, NCCL 0.5 GiB (>1 GPU), 10% of activations", NULL),
    TERM("total", "total", total, "", NULL),
};
const size_t ff_report_n_mem_terms = sizeof(ff_report_mem_terms) / sizeof(ff_report_mem_terms[0]);

double ff_report_mem_bytes(const struct ff_memory *m, const struct ff_report_mem_term *t)
{
    return *(const double *)((const char *)m + t->offset);
}
