/* estimate/cli/report.c — what the text and JSON reports share: the memory terms. */
#include <stddef.h>

#include "cli_report.h"

#define AT(field) offsetof(struct ff_memory, field)

const struct ff_report_mem_term ff_report_mem_terms[] = {
    {"weights", "weights", AT(weights), "", NULL},
    {"gradients", "gradients", AT(gradients), "", NULL},
    {"optimizer", "optimizer", AT(optimizer), "", NULL},
    {"activations", "activations", AT(activations), "",
     "one prefill's transients + last-token logits"},
    {"KV cache", "kv_cache", AT(kv_cache), "",
     "prompt + generate tokens per sequence (SSM blocks: their fixed state)"},
    {"overhead", "overhead", AT(overhead),
     "context+kernels 1 GiB, NCCL 0.5 GiB (>1 GPU), 10% of activations", NULL},
    {"total", "total", AT(total), "", NULL},
};
const size_t ff_report_n_mem_terms = sizeof(ff_report_mem_terms) / sizeof(ff_report_mem_terms[0]);

double ff_report_mem_bytes(const struct ff_memory *m, const struct ff_report_mem_term *t)
{
    return *(const double *)((const char *)m + t->offset);
}
