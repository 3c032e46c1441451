/* estimate/cli/cli_report.h — report writers of `flopfit estimate` (internal). */
#ifndef FF_CLI_REPORT_H
#define FF_CLI_REPORT_H

#include <stdio.h>

#include "ff_util.h"
#include "flopfit/flopfit.h"

/* One device's result in a --device all ranking. */
struct ff_rank_row {
    struct ff_spec device;
    struct ff_estimate est;
    int status;    /* 0, or why no estimate (e.g. FF_ERR_UNSUPPORTED) */
    char why[256]; /* message when status != 0 */
    bool by_time;  /* --rank time: time (serving: tokens/s in all) before cost */
};

void ff_report_text(FILE *out, const struct ff_model *m, const struct ff_spec *d,
                    const struct ff_plan *p, const struct ff_estimate *e);
void ff_report_rank_text(FILE *out, const struct ff_model *m, const struct ff_plan *p,
                         const struct ff_rank_row *rows, size_t n, bool rank_time);
/* JSON writers: return 0 or FF_ERR_NO_MEMORY. */
int ff_report_json(FILE *out, const struct ff_model *m, const struct ff_spec *d,
                   const struct ff_plan *p, const struct ff_estimate *e);
int ff_report_rank_json(FILE *out, const struct ff_model *m, const struct ff_plan *p,
                        const struct ff_rank_row *rows, size_t n);

/* --plan best: the chosen plan's report (e, from choices[0]) and the n best plans. */
void ff_report_best_text(FILE *out, const struct ff_plan_choice *choices, size_t n);
int ff_report_best_json(FILE *out, const struct ff_model *m, const struct ff_spec *d,
                        const struct ff_plan *p, const struct ff_estimate *e,
                        const struct ff_plan_choice *choices, size_t n);

/* The per-GPU memory terms in report order, read by both writers (report.c): the text
 * label, the JSON key, where the figure is in struct ff_memory, and the text report's note
 * (why_serve, when not NULL, replaces why under --serve). */
struct ff_report_mem_term {
    const char *label, *key;
    size_t offset; /* offsetof(struct ff_memory, <a double>) */
    const char *why, *why_serve;
};
extern const struct ff_report_mem_term ff_report_mem_terms[];
extern const size_t ff_report_n_mem_terms;

/* The figure of term t in m, bytes. */
double ff_report_mem_bytes(const struct ff_memory *m, const struct ff_report_mem_term *t);

#endif
